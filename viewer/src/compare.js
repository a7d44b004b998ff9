// Comparison mode of the standalone page (`mlia compare`, docs/compare.md).
//
// The comparison page is the new run's page data plus two members:
// "compare" (threshold, summary in entities, the samples note, settings
// that differ, the model's "headline" lines, per entity the change that
// gave its verdict, every changed entity in "changes" ranked as the
// console ranks them, and "focus", the entity of the largest regression)
// and "baseline_page" (the baseline run's own page data). Verdicts include
// the likely ones (fewer than 3 samples on a side: not tested for noise).
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

// A change beyond the threshold, tested or likely.
export function isChange(verdict) {
  return verdict === 'regression' || verdict === 'improvement' || verdict === 'likely_regression'
    || verdict === 'likely_improvement';
}

export function isRegression(verdict) {
  return verdict === 'regression' || verdict === 'likely_regression';
}

// "likely regression (1 sample each)", "regression (5 and 3 samples)", "unchanged"
export function verdictText(c) {
  const words = String(c.verdict || '').replace('_', ' ');
  const b = Number(c.baseline_samples);
  const n = Number(c.new_samples);
  if (!Number.isFinite(b) || !Number.isFinite(n) || c.verdict === 'inconclusive') return words;
  return `${words} (${b === n ? `${b} sample${b === 1 ? '' : 's'} each` : `${b} and ${n} samples`})`;
}

// The colour of a change on the diverging scale [-span, span].
export function changeColour(entry, span) {
  if (entry.verdict === 'inconclusive') return INCONCLUSIVE;
  if (!isChange(entry.verdict)) return UNCHANGED;
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

// "+2.064 ms" / "-390 cycles": the change in the metric's unit.
export function signedDelta(v, unit) {
  const n = Number(v);
  if (v === null || v === undefined || !Number.isFinite(n)) return '-';
  return `${n > 0 ? '+' : n < 0 ? '-' : ''}${formatValue(Math.abs(n), unit)}${unit ? ` ${unit}` : ''}`;
}

function quantity(v, unit) {
  const n = Number(v);
  if (v === null || v === undefined || !Number.isFinite(n)) return '-';
  return `${formatValue(n, unit)}${unit ? ` ${unit}` : ''}`;
}

function entryText(entry) {
  const what = isChange(entry.verdict)
    ? `${entry.verdict.startsWith('likely') ? 'likely ' : ''}${direction(entry)}`
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
    if (Number.isFinite(v) && entry && isChange(entry.verdict)) span = Math.max(span, v);
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
    `Comparison with the baseline ${cmp.baseline}, by entity: ${s.regressions || 0} regression(s), ${s.likely_regressions || 0} likely regression(s), ${s.improvements || 0} improvement(s), ${s.likely_improvements || 0} likely improvement(s), ${s.unchanged || 0} unchanged, ${s.inconclusive || 0} inconclusive (threshold ${formatPct(threshold)} %). Left: new run, coloured by change; right: baseline.`,
    ...(Array.isArray(doc.notes) ? doc.notes : []),
  ];
  doc.title = `mlia compare: ${typeof doc.title === 'string' ? doc.title.replace(/^mlia check: /, '') : ''}`;
}

// A table of the panel: head cells, then one row per item.
function changesTable(cls, heads, rows) {
  return el('table', { class: `changes ${cls}` },
    el('thead', null, el('tr', null, heads.map((t) => el('th', { text: t })))),
    el('tbody', null, rows));
}

// "aten.relu.default at head.py:9" (the entity's name and source location)
function entityLabel(c) {
  const name = c.entity_name !== undefined && c.entity_name !== null ? String(c.entity_name) : String(c.entity_id);
  return c.location ? `${name} at ${c.location}` : name;
}

// The changes panel: the model's lines first, then every changed entity by
// name, then the largest regression selected in the new pane.
export function startCompare(app) {
  const cmp = app.doc.compare;
  if (!isObject(cmp) || !isObject(app.doc.baseline_page)) return;
  const s = isObject(cmp.summary) ? cmp.summary : {};
  const changes = Array.isArray(cmp.changes) ? cmp.changes.filter(isObject) : [];
  const headline = Array.isArray(cmp.headline) ? cmp.headline.filter(isObject) : [];
  const settings = Array.isArray(cmp.settings) ? cmp.settings.filter(isObject) : [];
  const threshold = formatPct(Number(cmp.threshold_percent) || 0);
  const count = (cls, n, label) => el('span', {
    class: `count ${cls}`, text: `${n || 0} ${label}${(n || 0) !== 1 && label.endsWith('ment') ? 's' : ''}${(n || 0) !== 1 && label.endsWith('sion') ? 's' : ''}`,
  });
  const head = el('div', { class: 'compare-head' },
    el('strong', { text: 'Changes vs baseline' }),
    count('regression', s.regressions, 'regression'),
    count('regression likely', s.likely_regressions, 'likely regression'),
    count('improvement', s.improvements, 'improvement'),
    count('improvement likely', s.likely_improvements, 'likely improvement'),
    count('unchanged', s.unchanged, 'unchanged'),
    count('inconclusive', s.inconclusive, 'inconclusive'),
    el('span', { class: 'compare-rule', text: `entities; threshold ${threshold} % and outside the baseline's [min, max]` }));
  const panel = el('section', { id: 'compare-panel', 'aria-label': 'Changes vs baseline' }, head);
  if (typeof cmp.samples_note === 'string') {
    panel.appendChild(el('div', { class: `compare-samples${cmp.tested ? '' : ' untested'}`, text: `Samples: ${cmp.samples_note}` }));
  }
  if (settings.length) {
    panel.appendChild(el('div', { class: 'compare-settings', role: 'alert',
      text: `Settings differ: ${settings.map((d) => `${d.setting} ${d.new} (baseline ${d.baseline})`).join('; ')}` }));
  }
  // the model first: inference time, inferences per second, total cycles
  if (headline.length) {
    panel.appendChild(changesTable('headline', ['Model', 'Baseline', 'New', '\u0394', 'Change', 'Verdict'],
      headline.map((h) => el('tr', { class: `model ${h.verdict}`, 'data-series': String(h.series) },
        el('td', { class: 'metric', text: String(h.metric) }),
        el('td', { class: 'num', text: quantity(h.baseline, h.unit) }),
        el('td', { class: 'num', text: quantity(h.new, h.unit) }),
        el('td', { class: 'num', text: signedDelta(h.delta, h.unit) }),
        el('td', { class: 'num change-pct', text: signedPercent(h.percent) }),
        el('td', { class: 'verdict', text: verdictText(h) })))));
  }
  if (!changes.length) {
    panel.appendChild(el('div', { class: 'compare-none', text: `No change beyond ${threshold} %` }));
  } else {
    const rows = changes.map((c, i) => {
      const tr = el('tr', {
        class: `change ${c.verdict}`, 'data-entity': String(c.entity_id), 'data-index': String(i), tabindex: '0',
        onclick: () => locateChange(app, c, tr),
        onkeydown: (ev) => { if (ev.key === 'Enter') locateChange(app, c, tr); },
      },
      el('td', { class: 'verdict', text: verdictText(c) }),
      el('td', { class: 'entity', text: entityLabel(c), title: String(c.entity_id) }),
      el('td', { class: 'metric', text: String(c.metric) }),
      el('td', { class: 'num', text: quantity(c.baseline, c.unit) }),
      el('td', { class: 'num', text: quantity(c.new, c.unit) }),
      el('td', { class: 'num', text: signedDelta(c.delta, c.unit) }),
      el('td', { class: 'num change-pct', text: `${signedPercent(c.percent)} ${direction(c)}` }));
      return tr;
    });
    panel.appendChild(el('div', { class: 'compare-scroll' },
      changesTable('entities-changed', ['Verdict', 'Entity', 'Metric', 'Baseline', 'New', '\u0394', 'Change'], rows)));
  }
  app.banner.after(panel);
  app.comparePanel = panel;
  for (const p of app.panes) p.cachedSize = null;
  for (const p of app.panes) p.fit();
  const focus = changes.find((c) => isRegression(c.verdict));
  if (focus) locateChange(app, focus, panel.querySelector('tr.change'));
}

// Columns the entity table of every view adds in comparison mode: the
// change that gave the entity its verdict (baseline, new, delta, change).
export function compareColumns(doc) {
  const cmp = doc && doc.compare;
  if (!isObject(cmp) || !isObject(cmp.entities)) return [];
  const entry = (id) => (isObject(cmp.entities[id]) ? cmp.entities[id] : null);
  const num = (key) => (e, id) => {
    const c = entry(id);
    const v = c ? Number(c[key]) : NaN;
    return c && c[key] !== null && Number.isFinite(v) ? v : null;
  };
  const unit = (e, id) => (entry(id) && entry(id).unit ? String(entry(id).unit) : '');
  return [
    { id: 'compare:baseline', label: 'Baseline', get: num('baseline'), unit },
    { id: 'compare:new', label: 'New', get: num('new'), unit },
    { id: 'compare:delta', label: '\u0394', get: num('delta'), unit, signed: true },
    { id: 'compare:percent', label: 'Change %', get: num('percent'), signed: true, percent: true },
    { id: 'compare:verdict', label: 'Verdict', text: true,
      get: (e, id) => (entry(id) ? String(entry(id).verdict).replace('_', ' ') : '') },
  ];
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
  pane.setView(data.isAvailable(viewId) ? viewId : (data.viewIds.find((id) => data.isAvailable(id)) || data.viewIds[0]));
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
