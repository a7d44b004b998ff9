// Details panel: everything known about the selected node or group.
//
// For an entity: kind, name, attributes, every metric (numeric ones with
// statistic, attribution and samples; unavailable ones with their reason),
// coverage, related entities as links that select them, and the stack
// trace in a <pre>. For a group: its path, member count, group attributes
// and its group measurement, labelled as such. All text goes through
// textContent (dom.js), so markup in names or stack traces is shown
// literally.

import { el, clear, formatNumber, breakable } from './dom.js';
import { viewLabel } from './pane.js';

function kvTable(rows, cls) {
  if (!rows.length) return null;
  return el('table', { class: `kv ${cls || ''}` },
    el('tbody', null, rows.map(([k, v]) => el('tr', null, el('th', { text: k }), el('td', null, breakable(v))))));
}

function valueText(value, unit) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return formatNumber(value, unit);
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

function metricsTable(metrics) {
  const rows = metrics.filter((m) => m && typeof m === 'object').map((m) => {
    const unavailable = m.availability === 'unavailable';
    return el('tr', { class: unavailable ? 'unavailable' : null },
      el('td', { class: 'metric-name' }, breakable(valueText(m.name))),
      el('td', { class: 'metric-value', text: unavailable ? 'unavailable' : valueText(m.value, m.unit) }),
      el('td', { class: 'metric-unit', text: valueText(m.unit) }),
      el('td', { class: 'metric-stat', text: unavailable ? '' : [m.statistic, m.attribution].filter((x) => x).map(String).join(' / ') }),
      el('td', { class: 'metric-samples', text: unavailable ? valueText(m.reason) : (m.samples !== undefined ? `n=${valueText(m.samples)}` : '') }));
  });
  if (!rows.length) return el('p', { class: 'empty', text: 'No metrics recorded.' });
  // scrolls sideways inside the panel rather than being cut at its edge
  return el('div', { class: 'table-scroll' }, el('table', { class: 'metrics' },
    el('thead', null, el('tr', null, ['Metric', 'Value', 'Unit', 'Statistic', 'Samples / reason'].map((h) => el('th', { text: h })))),
    el('tbody', null, rows)));
}

// Renders the panel for selection {pane, item} (or null). app provides
// data and locateEntity(id).
export function renderDetails(app, container, selection) {
  clear(container);
  if (!selection) {
    container.append(el('h2', { text: 'Details' }),
      el('p', { class: 'empty', text: 'Select a node or a group. Keys: / search, Esc clear, arrows move along edges.' }));
    return;
  }
  const { pane, item } = selection;
  const data = app.data;
  const entityId = data.entityIdOf(item, pane.viewId, pane.graphId);
  const entity = entityId ? data.entity(entityId) : null;
  const where = `${viewLabel(data, pane.viewId)} / ${pane.graphId}`;
  let heading = entity && entity.name !== undefined ? String(entity.name)
    : (item.kind === 'node' ? item.label : item.path);
  const tell = entityId ? data.distinctOf(entityId) : (item.kind === 'node' ? item.tell : null);
  if (tell && tell !== heading) heading = `${heading} (${tell})`;
  container.appendChild(el('h2', { class: 'details-title' }, breakable(heading)));
  const facts = [['Location', where]];
  if (item.kind === 'node') {
    facts.push(['Node id', item.id], ['Operator', item.label]);
    if (item.namespace) facts.push(['Namespace', item.namespace]);
    if (item.pinned) facts.push(['Summary of group', item.namespace]);
  } else {
    facts.push(['Group', item.path], ['Members', `${item.nodeCount} nodes, ${item.children.length} direct children`]);
  }
  if (entity) {
    facts.push(['Entity', entityId]);
    if (entity.kind !== undefined) facts.push(['Kind', valueText(entity.kind)]);
    facts.push(['Coverage', typeof entity.coverage === 'number' ? `${formatNumber(entity.coverage, '%')} %` : 'not available']);
  }
  container.appendChild(kvTable(facts, 'facts'));

  const graphIds = data.graphIds(pane.viewId);
  const subgraphs = item.kind === 'node' ? item.subgraphIds.filter((g) => graphIds.includes(g)) : [];
  if (subgraphs.length) {
    container.appendChild(el('p', { class: 'subgraphs' }, el('strong', { text: 'Opens graph: ' }),
      ...subgraphs.map((g) => el('button', { type: 'button', class: 'link subgraph-link', 'data-graph': g, text: g,
        onclick: () => pane.setGraph(g) }))));
  }

  const value = pane.overlayValue(item);
  const ov = pane.overlay();
  if (value && ov) {
    const label = ov.group_measurement && (item.kind === 'group' || item.pinned) ? 'Group measurement' : 'Overlay';
    container.appendChild(el('p', { class: item.kind === 'group' ? 'overlay-value group-measurement' : 'overlay-value' },
      el('strong', { text: `${label}: ` }),
      `${String(ov.label ?? ov.id)} = ${value.text !== undefined ? String(value.text) : valueText(value.value)}`));
  }

  if (entity) {
    container.appendChild(el('h3', { text: 'Metrics' }));
    container.appendChild(metricsTable(Array.isArray(entity.metrics) ? entity.metrics : []));
    const attrs = entity.attributes && typeof entity.attributes === 'object' ? Object.entries(entity.attributes) : [];
    if (attrs.length) {
      container.appendChild(el('h3', { text: 'Attributes' }));
      container.appendChild(kvTable(attrs.map(([k, v]) => [k, valueText(v)]), 'attributes'));
    }
    const related = Array.isArray(entity.related) ? entity.related.filter((r) => r && r.id !== undefined) : [];
    container.appendChild(el('h3', { text: 'Related' }));
    if (!related.length) container.appendChild(el('p', { class: 'empty', text: 'No association recorded.' }));
    else {
      container.appendChild(el('ul', { class: 'related' }, related.map((r) => {
        const id = String(r.id);
        const other = data.entity(id);
        const name = other && other.name !== undefined ? String(other.name) : id;
        return el('li', null,
          el('span', { class: 'relation', text: `${valueText(r.relation)}: ` }),
          el('button', { type: 'button', class: 'link related-link', 'data-entity': id, title: id, text: name,
            onclick: () => app.locateEntity(id) }));
      })));
    }
  }

  const nodeAttrs = item.kind === 'node' ? item.attrs.map((a) => [a.key, a.value])
    : Object.entries(pane.model.groupAttributes[item.path] || {}).map(([k, v]) => [k, valueText(v)]);
  if (nodeAttrs.length) {
    container.appendChild(el('h3', { text: item.kind === 'node' ? 'Node attributes' : 'Group attributes' }));
    container.appendChild(kvTable(nodeAttrs, 'node-attrs'));
  }

  const trace = entity && typeof entity.stack_trace === 'string' && entity.stack_trace ? entity.stack_trace : null;
  if (trace) {
    container.appendChild(el('h3', { text: 'Stack trace' }));
    container.appendChild(el('pre', { class: 'stack-trace', text: trace }));
  }
}
