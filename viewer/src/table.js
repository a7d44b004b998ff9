// Per-view entity table, sortable by any column, with click-to-locate.
//
// Rows are the entities that have a location in the view (entity_nodes).
// Metric columns come from table_columns[view]: "name" picks the metric of
// that name (its p50 statistic when several statistics exist), and
// "name:statistic" picks one statistic. Missing or unavailable values sort
// last in both directions; ties keep the entity id order, so the order is
// deterministic. At most MAX_ROWS rows are drawn (sorting covers them all).

import { el, clear, formatNumber } from './dom.js';

// An entity's name, with what tells it apart when others share it:
// "aten.convolution.default (stem)".
function named(data, e, id) {
  const name = e.name !== undefined ? String(e.name) : id;
  const tell = data.distinctOf(id);
  return tell ? `${name} (${tell})` : name;
}
import { viewLabel } from './pane.js';
import { compareColumns, signedDelta, signedPercent } from './compare.js';

export const MAX_ROWS = 500;
// Metric columns shown before "all columns" is asked for (issue 29, 4: the
// NX views' tables scrolled sideways over ~35 counter columns).
export const MAX_METRIC_COLUMNS = 8;

// A metric column's header: "execution_time" -> "Execution time",
// "output_nan_count:max" -> "Output NaN count (max)"; the id stays the spec.
export function columnLabel(spec) {
  const text = String(spec);
  const colon = text.lastIndexOf(':');
  const name = colon > 0 ? text.slice(0, colon) : text;
  const stat = colon > 0 ? text.slice(colon + 1) : '';
  const words = name.split('_').filter((w) => w).map((w) => (w === 'nan' ? 'NaN' : w === 'snr' ? 'SNR' : w === 'db' ? 'dB' : w === 'l1' ? 'L1' : w));
  if (!words.length) return text;
  words[0] = words[0].charAt(0).toUpperCase() + words[0].slice(1);
  return `${words.join(' ')}${stat ? ` (${stat})` : ''}`;
}

export function metricFor(entity, spec) {
  const text = String(spec);
  const colon = text.lastIndexOf(':');
  const name = colon > 0 ? text.slice(0, colon) : text;
  const statistic = colon > 0 ? text.slice(colon + 1) : null;
  const metrics = Array.isArray(entity.metrics) ? entity.metrics.filter((m) => m && m.name === name) : [];
  if (statistic) return metrics.find((m) => m.statistic === statistic) || null;
  return metrics.find((m) => m.statistic === 'p50') || metrics[0] || null;
}

export class EntityTable {
  constructor(app, container) {
    this.app = app;
    this.data = app.data;
    this.container = container;
    this.viewId = null;
    this.sort = new Map(); // view -> {column, descending}
    this.rowsCache = new Map();
    this.selectedId = null;
  }

  columns(viewId) {
    // execution_coverage is the Coverage % column already: one column, not two
    let specs = Array.isArray(this.data.tableColumns[viewId]) ? this.data.tableColumns[viewId].map(String)
      .filter((spec) => spec !== 'execution_coverage') : [];
    this.hiddenColumns = 0;
    if (!this.allColumns && specs.length > MAX_METRIC_COLUMNS) {
      this.hiddenColumns = specs.length - MAX_METRIC_COLUMNS;
      specs = specs.slice(0, MAX_METRIC_COLUMNS);
    }
    return [
      { id: 'name', label: 'Name', get: (e, id) => named(this.data, e, id), text: true },
      { id: 'kind', label: 'Kind', get: (e) => (e.kind !== undefined ? String(e.kind) : ''), text: true },
      ...specs.map((spec) => ({
        id: `metric:${spec}`, label: columnLabel(spec), title: spec, metric: true,
        get: (e) => {
          const m = metricFor(e, spec);
          return m && m.availability !== 'unavailable' && typeof m.value === 'number' ? m.value : null;
        },
        unit: (e) => { const m = metricFor(e, spec); return m && m.unit ? String(m.unit) : ''; },
      })),
      { id: 'coverage', label: 'Coverage %', get: (e) => (typeof e.coverage === 'number' ? e.coverage : null) },
      // comparison page: baseline, new and delta of each entity's change (compare.js)
      ...compareColumns(this.app.doc),
    ];
  }

  rows(viewId) {
    let rows = this.rowsCache.get(viewId);
    if (rows) return rows;
    rows = [];
    for (const id of Object.keys(this.data.entities).sort()) {
      const loc = this.data.entityLocations(id).find((l) => l && l.view === viewId);
      if (loc) rows.push({ id, entity: this.data.entities[id], loc });
    }
    this.rowsCache.set(viewId, rows);
    return rows;
  }

  show(viewId) {
    this.viewId = viewId;
    this.render();
  }

  setSort(columnId) {
    const current = this.sort.get(this.viewId);
    const descending = current && current.column === columnId ? !current.descending : !columnId.startsWith('name') && columnId !== 'kind';
    this.sort.set(this.viewId, { column: columnId, descending });
    this.render();
  }

  highlight(entityId) {
    this.selectedId = entityId;
    for (const tr of this.container.querySelectorAll('tr.selected')) tr.classList.remove('selected');
    if (!entityId) return;
    for (const tr of this.container.querySelectorAll('tbody tr')) {
      if (tr.getAttribute('data-entity') === entityId) tr.classList.add('selected');
    }
  }

  render() {
    clear(this.container);
    const viewId = this.viewId;
    const rows = this.rows(viewId).slice();
    const columns = this.columns(viewId);
    const sort = this.sort.get(viewId);
    const column = sort ? columns.find((c) => c.id === sort.column) : null;
    if (column) {
      const sign = sort.descending ? -1 : 1;
      const keyed = rows.map((r) => ({ r, v: column.get(r.entity, r.id) }));
      keyed.sort((a, b) => {
        const am = a.v === null || a.v === '';
        const bm = b.v === null || b.v === '';
        if (am !== bm) return am ? 1 : -1;
        if (!am && a.v !== b.v) return (a.v < b.v ? -1 : 1) * sign;
        return a.r.id < b.r.id ? -1 : a.r.id > b.r.id ? 1 : 0;
      });
      rows.splice(0, rows.length, ...keyed.map((k) => k.r));
    }
    const title = el('div', { class: 'table-title' },
      el('strong', { text: `Entities in ${viewLabel(this.data, viewId)}` }),
      el('span', { class: 'count', text: rows.length > MAX_ROWS ? ` (${rows.length}, showing the first ${MAX_ROWS})` : ` (${rows.length})` }),
      this.hiddenColumns || this.allColumns ? el('button', { type: 'button', class: 'link columns-toggle',
        text: this.allColumns ? 'fewer columns' : `all columns (${this.hiddenColumns} more)`,
        onclick: () => { this.allColumns = !this.allColumns; this.render(); } }) : null);
    this.container.appendChild(title);
    if (!rows.length) {
      this.container.appendChild(el('p', { class: 'empty', text: 'No entities in this view.' }));
      return;
    }
    const head = el('tr', null, columns.map((c) => {
      const active = column && column.id === c.id;
      return el('th', { 'data-column': c.id, title: c.title || null, 'aria-sort': active ? (sort.descending ? 'descending' : 'ascending') : 'none' },
        el('button', { type: 'button', class: 'sort', text: `${c.label}${active ? (sort.descending ? ' \u25bc' : ' \u25b2') : ''}`,
          onclick: () => this.setSort(c.id) }));
    }));
    const body = el('tbody');
    for (const row of rows.slice(0, MAX_ROWS)) {
      const tr = el('tr', { 'data-entity': row.id, class: row.id === this.selectedId ? 'selected' : null,
        title: 'Click to locate', onclick: () => this.app.locate(row.loc) });
      for (const c of columns) {
        const v = c.get(row.entity, row.id);
        let text;
        if (c.text) text = v;
        else if (v === null) text = '\u2014';
        else if (c.percent) text = signedPercent(v);
        else if (c.signed) text = signedDelta(v, c.unit ? c.unit(row.entity, row.id) : '');
        else text = c.unit && c.unit(row.entity, row.id) ? `${formatNumber(v, c.unit(row.entity, row.id))} ${c.unit(row.entity, row.id)}` : formatNumber(v);
        tr.appendChild(el('td', { class: c.text ? null : 'num', text }));
      }
      body.appendChild(tr);
    }
    this.container.appendChild(el('table', { class: 'entities' }, el('thead', null, head), body));
  }
}
