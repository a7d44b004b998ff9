// Comparison mode of the standalone page (`mlia compare`, docs/compare.md).
//
// The comparison page is the new run's page data plus two members:
// "compare" (threshold, summary, and per entity the series with the largest
// change: baseline and new P50, percent, verdict) and "baseline_page" (the
// baseline run's own page data). prepareCompare() adds to every view of the
// new run a first overlay "Change vs baseline (%)" coloured by verdict and
// size of the change, and a banner note with the summary. addBaselinePane()
// puts the baseline's same view in the second pane: a Pane bound to the
// baseline's PageData whose clicks go through the App, so selecting in
// either pane reveals the same ids (entity ids are stable across runs) in
// the other.

import { el } from './dom.js';
import { PageData } from './model.js';
import { Pane } from './pane.js';

const COLOURS = {
  regression: ['#f6c8c4', '#e8766b', '#c0392b'],
  improvement: ['#c9ebd2', '#6cc28a', '#1e8449'],
  unchanged: ['#dde2e8', '#dde2e8', '#dde2e8'],
  inconclusive: ['#f1f1f1', '#f1f1f1', '#f1f1f1'],
};

function colourOf(entry) {
  const scale = COLOURS[entry.verdict] || COLOURS.inconclusive;
  const p = Math.abs(Number(entry.percent) || 0);
  return scale[p >= 50 ? 2 : p >= 15 ? 1 : 0];
}

function sign(v) {
  return v > 0 ? `+${v.toFixed(1)}` : v.toFixed(1);
}

export function prepareCompare(doc) {
  const cmp = doc.compare;
  if (!cmp || typeof cmp !== 'object' || !doc.baseline_page || typeof doc.baseline_page !== 'object') return;
  const entities = cmp.entities && typeof cmp.entities === 'object' ? cmp.entities : {};
  const nodes = doc.entity_nodes && typeof doc.entity_nodes === 'object' ? doc.entity_nodes : {};
  const perView = new Map();
  let min = 0;
  let max = 0;
  for (const [id, entry] of Object.entries(entities)) {
    const pct = Number(entry.percent);
    if (!Number.isFinite(pct)) continue;
    min = Math.min(min, pct);
    max = Math.max(max, pct);
    for (const loc of Array.isArray(nodes[id]) ? nodes[id] : []) {
      if (!loc) continue;
      const values = perView.get(loc.view) || {};
      values[`${loc.graph}/${loc.node}`] = {
        value: pct, color: colourOf(entry),
        text: `${sign(pct)} % ${entry.verdict} (${entry.metric})`,
      };
      perView.set(loc.view, values);
    }
  }
  for (const view of Array.isArray(doc.views) ? doc.views : []) {
    if (!view || !Array.isArray(view.overlays)) continue;
    view.overlays.unshift({
      id: 'compare_change', label: 'Change vs baseline (%)', unit: '%', entity_kind: 'entity',
      scale: { min, max }, group_measurement: false, values: perView.get(view.id) || {},
    });
  }
  const s = cmp.summary || {};
  doc.notes = [
    `Comparison with the baseline ${cmp.baseline}: ${s.regressions || 0} regression(s), ${s.improvements || 0} improvement(s), ${s.unchanged || 0} unchanged, ${s.inconclusive || 0} inconclusive (threshold ${cmp.threshold_percent} %). Left: new run, coloured by change; right: baseline.`,
    ...(Array.isArray(doc.notes) ? doc.notes : []),
  ];
  doc.title = `mlia compare: ${typeof doc.title === 'string' ? doc.title.replace(/^mlia check: /, '') : ''}`;
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
  app.updatePaneButtons();
  document.body.classList.add('compare-mode');
  return pane;
}
