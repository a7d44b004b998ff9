// Entry point of the standalone page of `mlia check`.
//
// The page is one HTML file: this script, the styles and the run's data
// (a JSON document in <script type="application/json" id="mlia-data">,
// written by the C report writer with <, >, & and U+2028/9 escaped) are
// all inline, and a Content-Security-Policy meta tag allows nothing else.
// The script reads the JSON with textContent, never evaluates it, and
// never builds markup from strings (see dom.js).
//
// App wires the parts together: the banner (warnings, assumptions, notes,
// unavailable views; always visible), the search, two or more panes
// (pane.js), the details panel (details.js) and the entity table
// (table.js). Selecting in one pane computes the related locations
// (PageData.relatedLocations) and asks every other pane to reveal and
// highlight the ones in its view. window.mliaPage.timings records the
// first paint and the duration of the last expand and selection sync,
// for the benchmark.

import { el, clear } from './dom.js';
import { formatInt } from './format.js';
import { PageData } from './model.js';
import { Pane, viewLabel } from './pane.js';
import { checkPage } from './contract.js';
import { renderDetails } from './details.js';
import { EntityTable } from './table.js';
import { Search } from './search.js';
import { buildHeadline } from './headline.js';
import { buildAdvice } from './advice.js';
import { Timeline } from './timeline.js';
import { MemoryTab, peakText } from './memory.js';
import { prepareCompare, addBaselinePane, startCompare } from './compare.js';

const MAX_PANES = 4;

function now() {
  return performance.now();
}

class App {
  constructor(doc) {
    this.data = new PageData(doc);
    this.doc = doc;
    this.panes = [];
    this.nextPaneIndex = 0;
    this.activePane = null;
    this.selection = null;
    this.timings = window.mliaPage.timings;
    this.buildDom();
  }

  buildDom() {
    const data = this.data;
    document.title = data.title;
    const searchInput = el('input', { type: 'search', id: 'search', placeholder: 'Search name, id, operator, attribute  ( / )', 'aria-label': 'Search', autocomplete: 'off', spellcheck: 'false' });
    const searchResults = el('ul', { id: 'search-results', hidden: true });
    this.addPaneButton = el('button', { type: 'button', id: 'add-pane', text: '+ Pane', title: 'Add a pane', onclick: () => this.addPane() });
    const header = el('header', { id: 'top' },
      el('h1', { text: data.title }),
      el('span', { class: 'generated-by', text: typeof this.doc.generated_by === 'string' ? this.doc.generated_by : '' }),
      el('div', { class: 'search-box' }, searchInput, searchResults),
      this.addPaneButton);
    this.banner = this.buildBanner();
    this.headline = buildHeadline(this, this.doc);
    this.paneRow = el('div', { id: 'panes' });
    this.details = el('aside', { id: 'details', 'aria-live': 'polite' });
    this.tableBox = el('section', { id: 'entity-table' });
    this.advice = buildAdvice(this, this.doc);
    if (this.headline) document.body.append(header, this.headline);
    else document.body.append(header);
    if (this.advice) document.body.append(this.advice);
    document.body.append(this.banner,
      el('main', { id: 'workspace' }, this.paneRow, this.details), this.tableBox);
    fitBannerLine(this.banner);
    fitBannerLine(this.advice);
    window.addEventListener('resize', () => { fitBannerLine(this.banner); fitBannerLine(this.advice); });
    this.buildTimeline(header);
    this.search = new Search(this, searchInput, searchResults);
    this.table = new EntityTable(this, this.tableBox);
    document.addEventListener('keydown', (ev) => this.onKey(ev));
  }

  // The Timeline tab (timeline.js), when the data has executions, and the
  // Memory tab (memory.js), when it has a memory plan (docs/memory.md).
  buildTimeline(header) {
    const tl = this.doc.timeline;
    const hasTimeline = tl && typeof tl === 'object' && Array.isArray(tl.executions) && tl.executions.length;
    const mem = this.doc.memory;
    const hasMemory = mem && typeof mem === 'object';
    if (!hasTimeline && !hasMemory) return;
    this.graphsTab = el('button', { type: 'button', id: 'tab-graphs', class: 'tab active', text: 'Graphs', onclick: () => this.showGraphs() });
    const tabs = [this.graphsTab];
    if (hasTimeline) {
      this.timeline = new Timeline(this, tl);
      this.timelineTab = el('button', { type: 'button', id: 'tab-timeline', class: 'tab', text: 'Timeline', onclick: () => this.showTimeline() });
      tabs.push(this.timelineTab);
      document.body.insertBefore(this.timeline.root, this.tableBox.nextSibling);
    }
    if (hasMemory) {
      this.memory = new MemoryTab(this, mem);
      // the tab states the peak, so it is in sight from any tab (docs/memory.md)
      const peak = peakText(mem);
      const label = peak && Number.isFinite(mem.peak) ? `Memory \u00b7 peak ${formatInt(mem.peak)} B` : 'Memory';
      this.memoryTab = el('button', { type: 'button', id: 'tab-memory', class: 'tab', text: label,
        title: peak ? `${peak}: show the Memory tab` : 'Show the Memory tab', onclick: () => this.showMemory() });
      tabs.push(this.memoryTab);
      document.body.insertBefore(this.memory.root, this.tableBox.nextSibling);
    }
    header.insertBefore(el('nav', { class: 'tabs' }, tabs), this.addPaneButton);
  }

  // One tab at a time: the others' sections hidden, their buttons inactive.
  leaveTabs() {
    document.body.classList.remove('timeline-mode', 'memory-mode');
    if (this.timeline) this.timeline.hide();
    if (this.memory) this.memory.hide();
    for (const t of [this.graphsTab, this.timelineTab, this.memoryTab]) if (t) t.classList.remove('active');
  }

  showTimeline() {
    if (!this.timeline) return;
    this.leaveTabs();
    document.body.classList.add('timeline-mode');
    this.timelineTab.classList.add('active');
    this.timeline.show();
  }

  showMemory() {
    if (!this.memory) return;
    this.leaveTabs();
    document.body.classList.add('memory-mode');
    this.memoryTab.classList.add('active');
    this.memory.show();
  }

  showGraphs() {
    if (!this.timeline && !this.memory) return;
    this.leaveTabs();
    this.graphsTab.classList.add('active');
    for (const p of this.panes) {
      p.cachedSize = null;
      p.draw();
    }
  }

  // Click on a timeline event: back to the graph views, entity located.
  locateFromTimeline(entityId) {
    this.showGraphs();
    const found = this.locateEntity(entityId);
    document.body.setAttribute('data-located', found ? entityId : '');
    return found;
  }

  // The banner (docs/page.md, "Banner"): one line, closed, under the
  // headline. Its summary counts what it holds and quotes the first
  // warning (else the first note), so a warning is always in sight; opening it lists everything,
  // kept apart: warnings (something went wrong or is incomplete),
  // assumptions, notes (how to read the page), unavailable views (a view
  // this capture should have but could not be built) and "not applicable
  // to this capture" (what a CPU-only run or a run without companion PTE
  // cannot have: not a failure, so not yellow).
  buildBanner() {
    const list = (cls, title, items) => {
      const texts = Array.isArray(items) ? items.filter((x) => x !== null && x !== undefined).map(String) : [];
      if (!texts.length) return null;
      return el('div', { class: `banner-section ${cls}` },
        el('strong', { text: `${title} (${texts.length})` }),
        el('ul', null, texts.map((t) => el('li', { text: t }))));
    };
    const notApplicable = new Set(Array.isArray(this.doc.not_applicable) ? this.doc.not_applicable.map(String) : []);
    const reasonOf = (id) => {
      const view = this.data.viewById.get(id);
      const reason = view && typeof view.reason === 'string' && view.reason ? view.reason : 'not present in the page data';
      return `${viewLabel(this.data, id)}: ${reason}`;
    };
    const missing = this.data.viewIds.filter((id) => !this.data.isAvailable(id));
    const unavailable = missing.filter((id) => !notApplicable.has(id)).map((id) => reasonOf(id));
    const inapplicable = missing.filter((id) => notApplicable.has(id)).map((id) => reasonOf(id));
    // the schema was checked before (contract.js): a page of another
    // schema is not shown at all
    const warnings = Array.isArray(this.doc.warnings) ? this.doc.warnings.map(String) : [];
    const sections = [
      list('warnings', 'Warnings', warnings),
      list('assumptions', 'Assumptions', this.doc.assumptions),
      list('unavailable-views', 'Unavailable views', unavailable),
      list('notes', 'Notes', this.doc.notes),
      list('not-applicable', 'Not applicable to this capture', inapplicable),
    ].filter((x) => x);
    if (!sections.length) sections.push(el('div', { class: 'banner-section none', text: 'No warnings or assumptions for this run.' }));
    const counts = sections.map((sct) => sct.querySelector('strong')).filter((x) => x).map((x) => x.textContent);
    const alarming = warnings.length > 0 || unavailable.length > 0;
    // quoted in the closed summary: the first warning, else the first
    // unavailable view, else the first note (the comparison page's note
    // says what its two panes show)
    const notes = Array.isArray(this.doc.notes) ? this.doc.notes.map(String) : [];
    const first = warnings.length ? warnings[0] : (unavailable.length ? unavailable[0] : (notes.length ? notes[0] : null));
    return el('details', { id: 'banner', role: 'status', class: alarming ? 'alarming' : 'calm' },
      el('summary', { class: 'banner-summary' },
        el('span', { class: 'banner-counts', text: counts.length ? counts.join(' \u00b7 ') : 'Notes' }),
        first ? el('span', { class: 'banner-first', text: first, title: first }) : null),
      el('div', { class: 'banner-body' }, sections));
  }

  start() {
    const available = this.data.viewIds.filter((id) => this.data.isAvailable(id));
    const first = this.data.isAvailable(this.doc.initial_view) ? this.doc.initial_view : (available[0] || this.data.viewIds[0]);
    // the second pane shows the first other available view in the data's
    // order (Source Model, first in the C table, when it is not the first
    // pane's); with only one available view a second pane would repeat
    // it: one pane
    const second = available.find((id) => id !== first) || null;
    let t = now();
    this.addPane(first);
    this.timings.pane0 = now() - t;
    t = now();
    if (this.doc.compare && this.doc.baseline_page) addBaselinePane(this, first);
    else if (second) this.addPane(second);
    this.timings.pane1 = now() - t;
    for (const pane of this.panes) pane.fit();
    this.setActivePane(this.panes[0]);
    renderDetails(this, this.details, null);
    this.showWorst();
  }

  // With an accuracy overlay first (lower is worse), the worst operator
  // (lowest value) is brought into view in every pane that shows it
  // (issue 29, 3: it was below the fold).
  showWorst() {
    for (const pane of this.panes) {
      const ov = pane.model ? pane.overlay() : null;
      if (!ov || !ov.reversed || !ov.values) continue;
      let worst = null;
      for (const [key, v] of Object.entries(ov.values)) {
        if (!key.startsWith(`${pane.graphId}/`) || !v || typeof v.value !== 'number') continue;
        if (!worst || v.value < worst.value) worst = { key, value: v.value };
      }
      const item = worst ? pane.model.resolve(worst.key.slice(pane.graphId.length + 1)) : null;
      if (!item) continue;
      pane.revealItems([item]);
      pane.centerOn(item);
      pane.svg.setAttribute('data-worst', item.kind === 'node' ? item.id : item.path);
    }
  }

  addPane(viewId) {
    if (this.panes.length >= MAX_PANES) return null;
    let view = viewId;
    if (!view) {
      const shown = new Set(this.panes.map((p) => p.viewId));
      view = this.data.viewIds.find((id) => this.data.isAvailable(id) && !shown.has(id)) || this.data.viewIds[0];
    }
    const pane = new Pane(this, this.nextPaneIndex++, null);
    this.panes.push(pane);
    this.paneRow.appendChild(pane.root);
    for (const p of this.panes) p.cachedSize = null;
    pane.setView(view);
    this.updatePaneButtons();
    for (const p of this.panes) p.fit();
    return pane;
  }

  removePane(pane) {
    if (this.panes.length <= 2) return;
    this.panes = this.panes.filter((p) => p !== pane);
    pane.root.remove();
    for (const p of this.panes) p.cachedSize = null;
    if (this.selection && this.selection.pane === pane) this.clearSelection();
    if (this.activePane === pane) this.setActivePane(this.panes[0]);
    for (const p of this.panes) p.fit();
    this.updatePaneButtons();
  }

  updatePaneButtons() {
    this.addPaneButton.disabled = this.panes.length >= MAX_PANES;
    for (const p of this.panes) p.closeButton.hidden = this.panes.length <= 2;
  }

  setActivePane(pane) {
    if (this.activePane === pane) return;
    if (this.activePane) this.activePane.root.classList.remove('active');
    this.activePane = pane;
    pane.root.classList.add('active');
    this.table.show(pane.viewId);
  }

  onPaneViewChanged(pane) {
    if (this.selection && this.selection.pane === pane) this.clearSelection();
    if (pane === this.activePane) this.table.show(pane.viewId);
  }

  afterToggle(pane, group) {
    if (this.selection && this.selection.pane === pane) pane.applyHighlights();
    this.timings.lastExpandTarget = group.path;
  }

  // Selects an item of a pane and synchronises the other panes.
  select(pane, item, options) {
    const start = now();
    this.setActivePane(pane);
    this.selection = { pane, item };
    const related = this.data.relatedLocations(pane.viewId, pane.graphId, item);
    const sameGraph = related.filter((l) => l.view === pane.viewId && l.graph === pane.graphId)
      .map((l) => pane.model.resolve(l.node)).filter((x) => x && pane.items.has(x.uid));
    pane.setSelection(item, sameGraph);
    if (options && options.center) pane.centerOn(item, 0.5);
    let highlighted = 0;
    for (const other of this.panes) if (other !== pane) highlighted += other.showRelated(related);
    renderDetails(this, this.details, this.selection);
    const entityId = this.data.entityIdOf(item, pane.viewId, pane.graphId);
    this.table.highlight(entityId);
    this.timings.lastSync = now() - start;
    this.timings.lastSyncHighlighted = highlighted;
    document.body.setAttribute('data-selected', `${pane.viewId}|${pane.graphId}|${item.kind === 'node' ? item.id : item.path}`);
  }

  clearSelection() {
    this.selection = null;
    for (const p of this.panes) p.setSelection(null, []);
    renderDetails(this, this.details, null);
    this.table.highlight(null);
    document.body.removeAttribute('data-selected');
  }

  // Shows a location {view, graph, node}: in the active pane when it shows
  // that view, else in another pane that does, else the active pane
  // switches to the view. Returns false when the location does not exist.
  locate(loc) {
    if (!loc || !this.data.isAvailable(loc.view)) return false;
    let pane = this.activePane && this.activePane.viewId === loc.view ? this.activePane
      : this.panes.find((p) => p.viewId === loc.view);
    if (!pane) {
      pane = this.activePane || this.panes[0];
      pane.setView(loc.view);
      this.onPaneViewChanged(pane);
    }
    if (pane.graphId !== String(loc.graph) && this.data.graphIds(loc.view).includes(String(loc.graph))) pane.setGraph(String(loc.graph));
    const item = pane.model ? pane.model.resolve(loc.node) : null;
    if (!item) return false;
    pane.revealItems([item]);
    this.select(pane, item, { center: true });
    return true;
  }

  // Shows an entity at its first location, preferring views on screen.
  locateEntity(id) {
    const locs = this.data.entityLocations(id);
    const shown = new Set(this.panes.map((p) => p.viewId));
    const loc = locs.find((l) => l && this.activePane && l.view === this.activePane.viewId && !(this.selection && this.selection.pane === this.activePane && l.node === this.selectedName()))
      || locs.find((l) => l && shown.has(l.view)) || locs[0];
    return this.locate(loc);
  }

  selectedName() {
    if (!this.selection) return null;
    const item = this.selection.item;
    return item.kind === 'node' ? item.id : item.path;
  }

  onKey(ev) {
    const target = ev.target;
    const typing = target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.tagName === 'SELECT' || target.isContentEditable);
    if (ev.key === 'Escape') {
      this.search.clear();
      this.clearSelection();
      if (typing && target.blur) target.blur();
      return;
    }
    if (typing || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (ev.key === '/') {
      ev.preventDefault();
      this.search.input.focus();
      this.search.input.select();
      return;
    }
    const forward = ev.key === 'ArrowDown' || ev.key === 'ArrowRight';
    const backward = ev.key === 'ArrowUp' || ev.key === 'ArrowLeft';
    if (!forward && !backward) return;
    ev.preventDefault();
    if (!this.selection) return;
    const { pane, item } = this.selection;
    if (!pane.model) return;
    const visible = pane.items.has(item.uid) ? item : pane.model.visibleItem(item);
    const next = pane.neighbour(visible, forward);
    if (next) this.select(pane, next, { center: true });
  }
}

function showFatal(message) {
  document.body.appendChild(el('section', { id: 'banner', class: 'fatal', role: 'alert' },
    el('strong', { text: 'This page cannot be shown: ' }), message));
}

function boot() {
  window.mliaPage = { timings: {} };
  const start = now();
  const holder = document.getElementById('mlia-data');
  const text = holder ? holder.textContent : '';
  let doc = null;
  if (!text || text.trim().startsWith('@@')) {
    showFatal('no data was embedded in this page (it is the unfilled template).');
  } else {
    try {
      doc = JSON.parse(text);
    } catch (err) {
      showFatal(`the embedded data is not valid JSON (${err && err.message ? err.message : 'parse error'}).`);
    }
    if (doc !== null && (typeof doc !== 'object' || Array.isArray(doc))) {
      showFatal('the embedded data is not a JSON object.');
      doc = null;
    }
    // the page accepts exactly the contract (contract.js, docs/page.md)
    const problem = doc ? checkPage(doc) : null;
    if (problem) {
      showFatal(`the embedded data breaks the page contract (${problem}).`);
      doc = null;
    }
  }
  window.mliaPage.timings.parse = now() - start;
  if (!doc) {
    document.body.setAttribute('data-ready', 'error');
    return;
  }
  prepareCompare(doc);
  const app = new App(doc);
  app.start();
  startCompare(app);
  window.mliaPage.timings.build = now() - start;
  // The frame callback runs just before the first paint; the timeout
  // after it runs once that paint is done.
  requestAnimationFrame(() => setTimeout(() => {
    window.mliaPage.timings.firstPaint = now();
    document.body.setAttribute('data-ready', 'true');
  }, 0));
  clear(holder);
}

// The closed banner's one line ends its first message at a whole word
// ("... have no…", never "... have no associatio…"; issue 29, 4): the
// words that fit, then an ellipsis; the whole text stays in its tooltip
// and in the opened banner.
function fitBannerLine(banner) {
  const summary = banner && banner.querySelector('.banner-summary');
  const span = summary && summary.querySelector('.banner-first');
  if (!span) return;
  const full = span.getAttribute('title') || '';
  span.textContent = full;
  if (summary.scrollWidth <= summary.clientWidth) return;
  const words = full.split(' ');
  let lo = 0;
  let hi = words.length - 1;
  while (lo < hi) { // the most words that fit with the ellipsis
    const mid = Math.ceil((lo + hi) / 2);
    span.textContent = `${words.slice(0, mid).join(' ')}\u2026`;
    if (summary.scrollWidth <= summary.clientWidth) lo = mid;
    else hi = mid - 1;
  }
  span.textContent = lo ? `${words.slice(0, lo).join(' ')}\u2026` : '';
}

if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', boot);
else boot();
