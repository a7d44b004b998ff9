// Comparison mode of the standalone page (`mlia compare`, docs/compare.md).
//
// The comparison page is the new run's page data plus two members:
// "compare" (threshold, summary, per entity its most telling change, every
// regression and improvement in "changes", and "focus", the entity of the
// largest regression) and "baseline_page" (the baseline run's own page
// data).
//
// prepareCompare() adds to every view of the new run a first overlay,
// "Change vs baseline", on a diverging scale centred on 0: the value is the
// slowdown in percent (positive = slower, i.e. more time or cycles, or
// fewer inferences per second), red for slower and green for faster, deeper
// with the size of the change; unchanged metrics are neutral grey and
// inconclusive ones pale. Node texts read "+26.15 % slower · kernel_time
// (exclusive)". It also makes the view of the focus entity the first view.
// startCompare() adds the changes panel (every regression and improvement:
// entity, metric, baseline → new, change, verdict; a click locates the
// entity in the new run's pane, and the baseline pane follows to its view) with the unchanged and inconclusive counts,
// and selects the largest regression. addBaselinePane() puts the baseline's
// same view in the second pane: a Pane bound to the baseline's PageData
// whose clicks go through the App, so selecting in either pane reveals the
// same ids (entity ids are stable across runs) in the other.

import { el } from './dom.js';
import { formatPct, formatValue } from './format.js';
import { PageData } from './model.js';
import { Pane } from './pane.js';

const RED = [192, 57, 43];
const GREEN = [30, 132, 73];
const MID = [236, 239, 243];
const UNCHANGED = '#dfe3e8';
const INCONCLUSIVE = '#f7f7f7';

function hex(rgb) {
  return `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;
}

function mix(a, b, t) {
  return hex(a.map((c, i) => c + (b[i] - c) * t));
}

// The colour of a change on the diverging scale [-span, span].
export function changeColour(entry, span) {
  if (entry.verdict === 'inconclusive') return INCONCLUSIVE;
  if (entry.verdict !== 'regression' && entry.verdict !== 'improvement') return UNCHANGED;
  const v = Number(entry.slowdown) || 0;
  const t = 0.25 + 0.75 * Math.min(1, Math.abs(v) / (span || 1));
  return mix(MID, v > 0 ? RED : GREEN, t);
}

// "+26.15 %" / "-10 %": the change in percent, one format (format.js).
export function signedPercent(v) {
  const n = Number(v);
  if (!Number.isFinite(n)) return '-';
  return `${n > 0 ? '+' : n < 0 ? '-' : ''}${formatPct(Math.abs(n))} %`;
}

function direction(entry) {
  const s = Number(entry.slowdown) || 0;
  return s > 0 ? 'slower' : s < 0 ? 'faster' : 'no change';
}

function entryText(entry) {
  const what = entry.verdict === 'regression' || entry.verdict === 'improvement' ? direction(entry)
    : entry.verdict === 'unchanged' ? 'unchanged' : 'inconclusive';
  return `${signedPercent(entry.percent)} ${what} · ${entry.metric}`;
}

function isObject(x) {
  return !!x && typeof x === 'object' && !Array.isArray(x);
}

export function prepareCompare(doc) {
  const cmp = doc.compare;
  if (!isObject(cmp) || !isObject(doc.baseline_page)) return;
  const entities = isObject(cmp.entities) ? cmp.entities : {};
  const nodes = isObject(doc.entity_nodes) ? doc.entity_nodes : {};
  const threshold = Number(cmp.threshold_percent) || 0;
  let span = threshold;
  for (const entry of Object.values(entities)) {
    const v = Math.abs(Number(entry && entry.slowdown));
    if (Number.isFinite(v) && entry && (entry.verdict === 'regression' || entry.verdict === 'improvement')) span = Math.max(span, v);
  }
  span = span > 0 ? span : 1;
  const perView = new Map();
  for (const [id, entry] of Object.entries(entities)) {
    if (!isObject(entry) || !Number.isFinite(Number(entry.slowdown))) continue;
    for (const loc of Array.isArray(nodes[id]) ? nodes[id] : []) {
      if (!loc) continue;
      const values = perView.get(loc.view) || {};
      values[`${loc.graph}/${loc.node}`] = {
        value: Math.max(-span, Math.min(span, Number(entry.slowdown))),
        color: changeColour(entry, span), text: entryText(entry),
      };
      perView.set(loc.view, values);
    }
  }
  for (const view of Array.isArray(doc.views) ? doc.views : []) {
    if (!view || !Array.isArray(view.overlays)) continue;
    view.overlays.unshift({
      id: 'compare_change', label: 'Change vs baseline', unit: '%',
      entity_kind: null, group_measurement: false, values: perView.get(view.id) || {},
      scale: {
        min: -span, max: span, center: 0, min_label: 'faster', max_label: 'slower',
        stops: [{ offset: 0, color: hex(GREEN) }, { offset: 0.5, color: hex(MID) }, { offset: 1, color: hex(RED) }],
      },
    });
  }
  // open on the view of the largest regression
  const focus = typeof cmp.focus === 'string' ? cmp.focus : null;
  const views = new Map((Array.isArray(doc.views) ? doc.views : []).filter((v) => v).map((v) => [v.id, v]));
  const loc = focus && Array.isArray(nodes[focus])
    ? nodes[focus].find((l) => l && views.get(l.view) && views.get(l.view).available) : null;
  if (loc) doc.initial_view = loc.view;
  const s = isObject(cmp.summary) ? cmp.summary : {};
  doc.notes = [
    `Comparison with the baseline ${cmp.baseline}: ${s.regressions || 0} regression(s), ${s.improvements || 0} improvement(s), ${s.unchanged || 0} unchanged, ${s.inconclusive || 0} inconclusive (threshold ${formatPct(threshold)} %). Left: new run, coloured by change; right: baseline.`,
    ...(Array.isArray(doc.notes) ? doc.notes : []),
  ];
  doc.title = `mlia compare: ${typeof doc.title === 'string' ? doc.title.replace(/^mlia check: /, '') : ''}`;
}

// The changes panel, then the largest regression selected in the new pane.
export function startCompare(app) {
  const cmp = app.doc.compare;
  if (!isObject(cmp) || !isObject(app.doc.baseline_page)) return;
  const s = isObject(cmp.summary) ? cmp.summary : {};
  const changes = Array.isArray(cmp.changes) ? cmp.changes.filter(isObject) : [];
  const threshold = formatPct(Number(cmp.threshold_percent) || 0);
  const count = (cls, n, label) => el('span', { class: `count ${cls}`, text: `${n || 0} ${label}` });
  const head = el('div', { class: 'compare-head' },
    el('strong', { text: 'Changes vs baseline' }),
    count('regression', s.regressions, 'regressions'),
    count('improvement', s.improvements, 'improvements'),
    count('unchanged', s.unchanged, 'unchanged'),
    count('inconclusive', s.inconclusive, 'inconclusive'),
    el('span', { class: 'compare-rule', text: `threshold ${threshold} % and outside the baseline's [min, max]` }));
  const panel = el('section', { id: 'compare-panel', 'aria-label': 'Changes vs baseline' }, head);
  if (!changes.length) {
    panel.appendChild(el('div', { class: 'compare-none', text: `No change beyond ${threshold} %` }));
  } else {
    const rows = changes.map((c, i) => {
      const tr = el('tr', {
        class: `change ${c.verdict}`, 'data-entity': String(c.entity_id), 'data-index': String(i), tabindex: '0',
        onclick: () => locateChange(app, c, tr),
        onkeydown: (ev) => { if (ev.key === 'Enter') locateChange(app, c, tr); },
      },
      el('td', { class: 'verdict', text: c.verdict === 'regression' ? 'regression' : 'improvement' }),
      el('td', { class: 'entity', text: String(c.entity_id), title: String(c.entity_name ?? '') }),
      el('td', { class: 'metric', text: String(c.metric) }),
      el('td', { class: 'num', text: `${formatValue(Number(c.baseline), c.unit)} → ${formatValue(Number(c.new), c.unit)}${c.unit ? ` ${c.unit}` : ''}` }),
      el('td', { class: 'num change-pct', text: `${signedPercent(c.percent)} ${direction(c)}` }));
      return tr;
    });
    panel.appendChild(el('div', { class: 'compare-scroll' },
      el('table', { class: 'changes' },
        el('thead', null, el('tr', null, ['Verdict', 'Entity', 'Metric', 'Baseline → new (P50)', 'Change'].map((t) => el('th', { text: t })))),
        el('tbody', null, rows))));
  }
  app.banner.after(panel);
  app.comparePanel = panel;
  for (const p of app.panes) p.cachedSize = null;
  for (const p of app.panes) p.fit();
  const focus = changes.find((c) => c.verdict === 'regression');
  if (focus) locateChange(app, focus, panel.querySelector('tr.change'));
}

function locateChange(app, change, row) {
  if (app.panes[0]) app.setActivePane(app.panes[0]);
  const found = app.locateEntity(String(change.entity_id));
  if (app.comparePanel) for (const r of app.comparePanel.querySelectorAll('tr.change.current')) r.classList.remove('current');
  if (row) row.classList.add('current');
  document.body.setAttribute('data-located', found ? String(change.entity_id) : '');
  return found;
}

// The second pane: the baseline run's view `viewId`.
export function addBaselinePane(app, viewId) {
  const data = new PageData(app.doc.baseline_page);
  const proxy = Object.create(app);
  proxy.data = data;
  for (const fn of ['select', 'setActivePane', 'onPaneViewChanged', 'removePane', 'afterToggle']) {
    proxy[fn] = (...args) => app[fn](...args);
  }
  const pane = new Pane(proxy, app.nextPaneIndex++, null);
  pane.root.classList.add('baseline');
  pane.toolbar.prepend(el('span', { class: 'pane-tag', text: 'Baseline' }));
  if (app.panes[0]) app.panes[0].toolbar.prepend(el('span', { class: 'pane-tag new', text: 'New' }));
  app.panes.push(pane);
  app.paneRow.appendChild(pane.root);
  for (const p of app.panes) p.cachedSize = null;
  // Both runs share their ids: each pane also reveals the node selected in the other.
  for (const p of [app.panes[0], pane]) {
    if (!p) continue;
    const showRelated = p.showRelated.bind(p);
    p.showRelated = (locations) => {
      const sel = app.selection;
      const own = sel && sel.pane !== p ? [{ view: sel.pane.viewId, graph: sel.pane.graphId, node: sel.item.kind === 'node' ? sel.item.id : sel.item.path }] : [];
      return showRelated(own.concat(locations));
    };
  }
  pane.setView(data.isAvailable(viewId) ? viewId : 'source_model');
  // the baseline follows the new pane to another view (a located change, the view menu)
  const viewChanged = app.onPaneViewChanged.bind(app);
  app.onPaneViewChanged = (p) => {
    viewChanged(p);
    if (p === app.panes[0] && p.viewId !== pane.viewId && data.isAvailable(p.viewId)) {
      pane.setView(p.viewId);
      viewChanged(pane);
    }
  };
  app.updatePaneButtons();
  document.body.classList.add('compare-mode');
  return pane;
}
