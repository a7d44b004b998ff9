// One pane of the page: a view selector, a graph selector, an overlay
// selector, an SVG canvas with pan and zoom, and the overlay legend.
//
// Rendering draws the visible items of the pane's graph from the cached
// level layouts (layout.js): expanded groups as frames with their children
// inside, collapsed groups as boxes, nodes as boxes. Edges are drawn
// between the visible items that contain their ends, so an edge into a
// collapsed group is "lifted" onto the group box (class "lifted", with the
// number of underlying edges in data-count). Selection, related-node
// highlights and overlays only touch classes and attributes of existing
// elements; only a change of expansion, graph or view redraws the canvas.

import { el, svgEl, clear, formatNumber } from './dom.js';
import { layoutGroup, shortLabel, GROUP_HEADER, GROUP_PADDING } from './layout.js';

// Width of one character of the second text line (class "sub"), in px.
const SUB_CHAR_WIDTH = 6.2;

// Cuts text to maxChars characters (with an ellipsis) so that it stays inside
// its box; the full text remains in the node's tooltip and details panel.
function fitText(text, maxChars) {
  const s = String(text);
  if (maxChars === undefined || s.length <= maxChars) return s;
  return maxChars <= 1 ? '' : `${s.slice(0, maxChars - 1)}\u2026`;
}

const MIN_ZOOM = 0.02;
const MAX_ZOOM = 4;
const DRAG_THRESHOLD = 4;
const MARGIN = 24;
// Graphs with more visible items than this draw only the region around
// the visible area; below this zoom, text is hidden (unreadable anyway).
export const CULL_MIN_ITEMS = 300;
const LOD_ZOOM = 0.3;
// Fit stops at the zoom where the smallest node text (10 px: .sub and
// .count in styles.css) is drawn at 9 px: a whole graph drawn smaller
// cannot be read (LeNet's Source Model at 1280 x 800 was 2 px, issue 19).
export const FIT_MIN_TEXT_PX = 9;
const NODE_TEXT_MIN_PX = 10;
export const FIT_MIN_ZOOM = FIT_MIN_TEXT_PX / NODE_TEXT_MIN_PX;

// The fill of an operator whose outputs equal the reference on an accuracy
// overlay: green, apart from the red-yellow scale and from "no value".
export const EXACT_COLOR = '#b7e4c7';

function metricsNamed(entity, name) {
  return Array.isArray(entity.metrics) ? entity.metrics.filter((m) => m && m.name === name) : [];
}

// Every compared execution equal to the reference: the SNR is unavailable
// because it is infinite, and the maximum error is 0.
export function isExact(entity) {
  // (an unavailable metric carries no statistic: its reason says why)
  const snr = metricsNamed(entity, 'output_snr_db').find((m) => m.statistic === 'p50' || m.availability === 'unavailable');
  const err = metricsNamed(entity, 'output_max_abs_error').find((m) => m.statistic === 'max');
  return !!snr && snr.availability === 'unavailable' && typeof snr.reason === 'string' && snr.reason.includes('SNR is infinite')
    && !!err && err.value === 0;
}

// The most NaN / infinite elements of the entity's output in one execution.
export function nonfiniteCount(entity) {
  const m = metricsNamed(entity, 'output_nan_count').find((x) => x.statistic === 'max');
  return m && typeof m.value === 'number' ? m.value : 0;
}

// Label of a view: its page title when the data gives one (issue 29, 4: a
// readable name where the Model Explorer label is an internal id), else the
// label in the page data (contract.js: every view has one), else its id.
export function viewLabel(data, viewId) {
  const view = data.viewById.get(viewId);
  if (view && typeof view.title === 'string' && view.title) return view.title;
  if (view && typeof view.label === 'string' && view.label) return view.label;
  return String(viewId);
}

// What a view shows (the data's "help"), for the view selector's tooltip.
export function viewHelp(data, viewId) {
  const view = data.viewById.get(viewId);
  return view && typeof view.help === 'string' && view.help ? view.help : null;
}

export function itemKey(item) {
  return item.kind === 'node' ? `n:${item.id}` : `g:${item.path}`;
}

// WCAG relative luminance of #rrggbb (1 for anything else).
function relLuminance(hex) {
  const m = /^#([0-9a-f]{6})$/i.exec(String(hex));
  if (!m) return 1;
  const v = parseInt(m[1], 16);
  const lin = (c) => { const x = c / 255; return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4; };
  return 0.2126 * lin((v >> 16) & 255) + 0.7152 * lin((v >> 8) & 255) + 0.0722 * lin(v & 255);
}

// White text only where it contrasts more than the dark ink (#1d232b) does
// (issue 29, 4: light text on red and orange was hard to read).
export function wantsLightText(hex) {
  const l = relLuminance(hex);
  const ink = relLuminance('#1d232b');
  return (1.05 / (l + 0.05)) > ((l + 0.05) / (ink + 0.05));
}

// A node's value line within maxChars: the whole text when it fits, else
// without its "(...)" remark, else without its unit, so the number is kept
// (issue 29, 4: "Chain 30 60,300 cy…").
export function fitValue(text, maxChars) {
  const s = String(text);
  if (maxChars === undefined || s.length <= maxChars) return s;
  const bare = s.replace(/\s*\([^)]*\)\s*$/, '');
  if (bare.length <= maxChars) return bare;
  // then the remark after " · ", then whole words from the end, as long as
  // a number stays ("-1 % unchanged · total_cycles" -> "-1 %")
  const words = bare.split(' \u00b7 ')[0].split(/\s+/);
  for (let n = words.length; n > 0; n--) {
    const t = words.slice(0, n).join(' ');
    if (!/\d/.test(t)) break;
    if (t.length <= maxChars) return t;
  }
  return fitText(s, maxChars);
}

// A select of a narrow toolbar may show its choice cut: its title holds
// the whole text (a tooltip).
function titleFromChoice(select) {
  const opt = select.selectedOptions && select.selectedOptions[0];
  if (opt) select.title = opt.textContent;
  else select.removeAttribute('title');
}

// The view select is as wide as its chosen view's title (not as its
// longest option, which may be "... (unavailable)"), and never narrower
// (issue 29, 4: a narrow pane cut "ETRecord Chain Mapping").
let measureCanvas = null;
function fitToChoice(select) {
  const opt = select.selectedOptions && select.selectedOptions[0];
  if (!opt || typeof document === 'undefined') return;
  if (!select.isConnected) { // styles are known once it is in the page
    setTimeout(() => { if (select.isConnected) fitToChoice(select); }, 0);
    return;
  }
  measureCanvas = measureCanvas || document.createElement('canvas');
  const ctx = measureCanvas.getContext && measureCanvas.getContext('2d');
  if (!ctx) return;
  const cs = getComputedStyle(select);
  ctx.font = `${cs.fontWeight} ${cs.fontSize} ${cs.fontFamily}`;
  const pad = parseFloat(cs.paddingLeft) + parseFloat(cs.paddingRight) + parseFloat(cs.borderLeftWidth)
    + parseFloat(cs.borderRightWidth);
  // the drop-down arrow takes about 24 px in Chromium
  select.style.width = `${Math.ceil(ctx.measureText(opt.textContent).width + pad + 26)}px`;
}

function safeColor(color) {
  return /^#[0-9a-f]{6}$/i.test(String(color)) ? String(color) : null;
}

export class Pane {
  // app: the App (page controller); index: stable pane number used for
  // element ids; viewId/graphId: what to show first.
  constructor(app, index, viewId) {
    this.app = app;
    this.data = app.data;
    this.index = index;
    this.viewId = null;
    this.graphId = null;
    this.model = null;
    this.overlayId = '';
    this.view = { k: 1, tx: MARGIN, ty: MARGIN };
    this.items = new Map(); // uid -> item, for visible items
    this.parts = new Map(); // uid -> {g, rect, sub}
    this.boxes = new Map(); // uid -> absolute box
    this.outMap = new Map();
    this.inMap = new Map();
    this.selectedUid = null;
    this.relatedUids = new Set();
    this.marked = [];
    this.order = [];
    this.visibleEdges = [];
    this.region = null;
    this.pendingDraw = false;
    this.buildDom();
    if (viewId) this.setView(viewId);
  }

  buildDom() {
    const id = this.index;
    this.viewSelect = el('select', { class: 'view-select', 'aria-label': 'View', onchange: () => {
      this.setView(this.viewSelect.value);
      this.app.onPaneViewChanged(this);
    } });
    for (const viewId of this.data.viewIds) {
      const label = viewLabel(this.data, viewId);
      const available = this.data.isAvailable(viewId);
      this.viewSelect.appendChild(el('option', {
        value: viewId, text: available ? label : `${label} (unavailable)`,
        class: available ? null : 'unavailable', title: viewHelp(this.data, viewId),
      }));
    }
    this.graphSelect = el('select', { class: 'graph-select', 'aria-label': 'Graph', onchange: () => {
      this.setGraph(this.graphSelect.value);
      this.app.onPaneViewChanged(this);
    } });
    this.overlaySelect = el('select', { class: 'overlay-select', 'aria-label': 'Overlay', onchange: () => {
      this.overlayId = this.overlaySelect.value;
      titleFromChoice(this.overlaySelect);
      this.applyOverlay();
      this.renderLegend();
    } });
    const button = (text, title, cls, fn) => el('button', { type: 'button', class: cls, title, 'aria-label': title, text, onclick: fn });
    // the graph's top at a readable size: the Fit button says "Fit all"
    // (issue 29, 1: a hint over the canvas hid graph content)
    this.fitHint = el('span', { class: 'fit-hint', hidden: true, text: ' all' });
    this.fitButton = el('button', { type: 'button', class: 'zoom-fit', title: 'Fit the whole graph in the pane', 'aria-label': 'Fit the whole graph in the pane',
      onclick: () => this.fit(true) }, 'Fit', this.fitHint);
    this.closeButton = button('\u00d7', 'Close pane', 'close-pane', () => this.app.removePane(this));
    this.toolbar = el('div', { class: 'pane-toolbar' },
      this.viewSelect, this.graphSelect, this.overlaySelect,
      el('span', { class: 'spacer' }),
      button('\u2212', 'Zoom out', 'zoom-out', () => this.zoomBy(1 / 1.25)),
      button('+', 'Zoom in', 'zoom-in', () => this.zoomBy(1.25)),
      this.fitButton,
      this.closeButton);
    this.defs = svgEl('defs', null,
      svgEl('marker', { id: `arrow-${id}`, viewBox: '0 0 10 10', refX: '9', refY: '5', markerWidth: '7', markerHeight: '7', orient: 'auto-start-reverse' },
        svgEl('path', { d: 'M0,0 L10,5 L0,10 z', class: 'arrow-head' })));
    this.groupLayer = svgEl('g', { class: 'group-layer' });
    this.edgeLayer = svgEl('g', { class: 'edge-layer' });
    this.nodeLayer = svgEl('g', { class: 'node-layer' });
    this.viewport = svgEl('g', { class: 'viewport' }, this.groupLayer, this.edgeLayer, this.nodeLayer);
    this.svg = svgEl('svg', { class: 'canvas', role: 'img', 'aria-label': 'Graph' }, this.defs, this.viewport);
    this.message = el('div', { class: 'pane-message', hidden: true });
    this.legend = el('div', { class: 'legend' });
    this.root = el('section', { class: 'pane', 'data-pane': String(id) },
      this.toolbar, el('div', { class: 'canvas-wrap' }, this.svg, this.message),
      this.legend);
    this.root.addEventListener('pointerdown', () => this.app.setActivePane(this), true);
    this.cachedSize = null;
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver((entries) => {
        const r = entries[entries.length - 1].contentRect;
        this.cachedSize = { w: r.width, h: r.height };
        if (this.needsDraw()) this.draw();
      }).observe(this.svg);
    }
    this.installPanZoom();
  }

  installPanZoom() {
    let drag = null;
    this.svg.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, tx: this.view.tx, ty: this.view.ty, moved: false, id: ev.pointerId };
    });
    this.svg.addEventListener('pointermove', (ev) => {
      if (!drag) return;
      const dx = ev.clientX - drag.x;
      const dy = ev.clientY - drag.y;
      if (!drag.moved && Math.hypot(dx, dy) < DRAG_THRESHOLD) return;
      if (!drag.moved) {
        drag.moved = true;
        this.fitHint.hidden = true; this.fitButton.classList.remove('more');
        this.svg.setPointerCapture(drag.id);
        this.svg.classList.add('panning');
      }
      this.view.tx = drag.tx + dx;
      this.view.ty = drag.ty + dy;
      this.applyTransform();
    });
    const end = (ev) => {
      if (!drag) return;
      const wasDrag = drag.moved;
      drag = null;
      this.svg.classList.remove('panning');
      if (!wasDrag && ev.type === 'pointerup') this.onClick(ev.target);
    };
    this.svg.addEventListener('pointerup', end);
    this.svg.addEventListener('pointercancel', end);
    this.svg.addEventListener('dblclick', (ev) => {
      const item = this.itemFromTarget(ev.target);
      if (item && item.kind === 'group') this.toggle(item);
    });
    this.svg.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      this.fitHint.hidden = true; this.fitButton.classList.remove('more');
      if (ev.shiftKey) {
        // scroll: vertical (Chromium may report a shifted wheel as deltaX)
        this.view.ty -= ev.deltaY || ev.deltaX;
        this.applyTransform();
        return;
      }
      if (ev.deltaX && !ev.deltaY) {
        this.view.tx -= ev.deltaX;
        this.applyTransform();
        return;
      }
      const rect = this.svg.getBoundingClientRect();
      this.zoomBy(Math.exp(-ev.deltaY * 0.0015), ev.clientX - rect.left, ev.clientY - rect.top);
    }, { passive: false });
  }

  itemFromTarget(target) {
    const g = target && target.closest ? target.closest('[data-uid]') : null;
    return g ? this.items.get(Number(g.getAttribute('data-uid'))) || null : null;
  }

  onClick(target) {
    const item = this.itemFromTarget(target);
    if (!item) return;
    if (target.closest('.toggle')) {
      this.toggle(item);
      return;
    }
    this.app.select(this, item, { center: false });
  }

  // Size of the canvas. Cached and kept current by a ResizeObserver:
  // reading clientWidth after DOM changes would force a synchronous layout
  // of the whole page on every selection.
  size() {
    if (!this.cachedSize || !this.cachedSize.w) {
      this.cachedSize = { w: this.svg.clientWidth, h: this.svg.clientHeight };
    }
    return { w: this.cachedSize.w || 800, h: this.cachedSize.h || 500 };
  }

  // Applies the pan/zoom transform. When the view leaves the drawn region
  // of a large graph, the next frame draws again (immediately when
  // fromDraw is false and immediate is asked for by centerOn).
  applyTransform(fromDraw, immediate) {
    const { k, tx, ty } = this.view;
    this.viewport.setAttribute('transform', `translate(${tx.toFixed(1)},${ty.toFixed(1)}) scale(${k.toFixed(4)})`);
    this.svg.setAttribute('data-zoom', k.toFixed(4));
    this.svg.classList.toggle('lod-low', k < LOD_ZOOM);
    if (fromDraw || !this.needsDraw()) return;
    if (immediate) this.draw();
    else if (!this.pendingDraw) {
      this.pendingDraw = true;
      requestAnimationFrame(() => { if (this.pendingDraw) this.draw(); });
    }
  }

  zoomBy(factor, cx, cy) {
    this.fitHint.hidden = true; this.fitButton.classList.remove('more');
    const { w, h } = this.size();
    const px = cx === undefined ? w / 2 : cx;
    const py = cy === undefined ? h / 2 : cy;
    const k = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, this.view.k * factor));
    const ratio = k / this.view.k;
    this.view.tx = px - (px - this.view.tx) * ratio;
    this.view.ty = py - (py - this.view.ty) * ratio;
    this.view.k = k;
    this.applyTransform();
  }

  // Fits the graph in the pane. The first fit of a view (whole false) stops
  // at a readable zoom: never below FIT_MIN_ZOOM (the smallest node text
  // rendered at FIT_MIN_TEXT_PX); the graph then shows its top, centred
  // across (where a layered layout keeps its main path), the rest is
  // reached by dragging or shift + wheel, and a hint under the canvas says
  // so. The Fit button (whole true) fits the whole graph, however small
  // (issue 29, 1: "Fit does not fit"). data-fit on the canvas says which
  // ("whole" or "readable").
  fit(whole) {
    if (!this.model) return;
    const layout = layoutGroup(this.model.root);
    const { w, h } = this.size();
    const all = Math.min((w - 2 * MARGIN) / Math.max(layout.width, 1), (h - 2 * MARGIN) / Math.max(layout.height, 1), 1.25);
    const k = Math.min(MAX_ZOOM, Math.max(MIN_ZOOM, whole ? all : Math.max(FIT_MIN_ZOOM, all)));
    this.view.k = k;
    this.view.tx = (w - layout.width * k) / 2;
    this.view.ty = Math.max(MARGIN, (h - layout.height * k) / 2);
    const clamped = !whole && all < FIT_MIN_ZOOM;
    this.svg.setAttribute('data-fit', clamped ? 'readable' : 'whole');
    this.fitHint.hidden = !clamped;
    this.fitButton.classList.toggle('more', clamped);
    this.fitButton.title = clamped ? 'The top of the graph is shown at a readable size (drag or shift + wheel for the rest): Fit all shows the whole graph'
      : 'Fit the whole graph in the pane';
    this.applyTransform();
  }

  centerOn(item, minZoom) {
    const box = this.boxes.get(item.uid);
    if (!box) return;
    if (minZoom && this.view.k < minZoom) this.view.k = minZoom;
    this.fitHint.hidden = true; this.fitButton.classList.remove('more');
    const { w, h } = this.size();
    this.view.tx = w / 2 - (box.x + box.w / 2) * this.view.k;
    this.view.ty = h / 2 - (box.y + box.h / 2) * this.view.k;
    this.applyTransform(false, true);
  }

  setView(viewId) {
    this.viewId = this.data.viewById.has(viewId) ? viewId : this.data.viewIds[0];
    this.viewSelect.value = this.viewId;
    this.root.setAttribute('data-view', this.viewId);
    const graphs = this.data.graphIds(this.viewId);
    clear(this.graphSelect);
    for (const g of graphs) this.graphSelect.appendChild(el('option', { value: g, text: g }));
    this.graphSelect.hidden = graphs.length < 2;
    clear(this.overlaySelect);
    this.overlaySelect.appendChild(el('option', { value: '', text: 'No overlay' }));
    const overlays = this.data.overlays(this.viewId);
    for (const ov of overlays) {
      if (ov && ov.id !== undefined) this.overlaySelect.appendChild(el('option', { value: String(ov.id), text: String(ov.label ?? ov.id) }));
    }
    this.overlayId = overlays.length && overlays[0] && overlays[0].id !== undefined ? String(overlays[0].id) : '';
    this.overlaySelect.value = this.overlayId;
    titleFromChoice(this.viewSelect);
    fitToChoice(this.viewSelect);
    titleFromChoice(this.overlaySelect);
    this.overlaySelect.hidden = overlays.length === 0;
    if (graphs.length === 0) {
      const view = this.data.viewById.get(this.viewId);
      const label = viewLabel(this.data, this.viewId);
      const reason = view && typeof view.reason === 'string' && view.reason ? view.reason
        : (view ? 'the capture does not support this view' : 'this view is not present in the page data');
      this.model = null;
      this.graphId = null;
      this.clearCanvas();
      this.message.hidden = false;
      clear(this.message).append(
        el('strong', { text: `${label} is not available` }),
        el('p', { class: 'reason', text: reason }));
      this.svg.classList.add('hidden');
      this.renderLegend();
      return;
    }
    this.message.hidden = true;
    this.svg.classList.remove('hidden');
    this.setGraph(graphs[0], true);
  }

  setGraph(graphId, force) {
    if (!force && graphId === this.graphId) return;
    this.graphId = graphId;
    this.graphSelect.value = graphId;
    titleFromChoice(this.graphSelect);
    this.root.setAttribute('data-graph', graphId);
    this.model = this.data.model(this.viewId, graphId);
    this.selectedUid = null;
    this.relatedUids = new Set();
    this.clearCanvas();
    this.fit();
    this.render();
    this.renderLegend();
  }

  clearCanvas() {
    clear(this.groupLayer);
    clear(this.edgeLayer);
    clear(this.nodeLayer);
    this.items.clear();
    this.parts.clear();
    this.boxes.clear();
    this.outMap.clear();
    this.inMap.clear();
    this.marked = [];
    this.order = [];
    this.visibleEdges = [];
    this.region = null;
  }

  toggle(group) {
    if (!this.model || group.kind !== 'group') return;
    this.model.setExpanded(group, !group.expanded);
    this.render();
    this.app.afterToggle(this, group);
  }

  // Computes the positions of every visible item and edge of the current
  // graph (from the cached level layouts), then draws them.
  render() {
    const start = performance.now();
    this.clearCanvas();
    if (!this.model) return;
    layoutGroup(this.model.root);
    this.order = [];
    this.placeLevel(this.model.root, 0, 0);
    this.visibleEdges = this.liftEdges();
    const laidOut = performance.now();
    this.draw();
    this.app.timings.lastRender = { layout: laidOut - start, draw: performance.now() - laidOut, items: this.items.size, drawn: this.parts.size };
  }

  placeLevel(group, ox, oy) {
    const layout = layoutGroup(group);
    for (const item of group.children) {
      const p = layout.pos.get(item.uid);
      const box = { x: ox + p.x, y: oy + p.y, w: p.w, h: p.h };
      this.boxes.set(item.uid, box);
      this.items.set(item.uid, item);
      this.order.push(item);
      if (item.kind === 'group' && item.expanded) this.placeLevel(item, box.x + GROUP_PADDING, box.y + GROUP_HEADER);
    }
  }

  // Edges between visible items; an edge whose end is hidden in a
  // collapsed group is lifted onto that group. Also fills the neighbour
  // maps used by the arrow keys.
  liftEdges() {
    const model = this.model;
    const seen = new Map();
    const list = [];
    for (const edge of model.edges) {
      const a = model.visibleItem(edge.from);
      const b = model.visibleItem(edge.to);
      if (a === b) continue;
      const key = `${a.uid}>${b.uid}`;
      const existing = seen.get(key);
      if (existing) { existing.count++; continue; }
      const entry = { a, b, count: 1 };
      seen.set(key, entry);
      list.push(entry);
      if (!this.outMap.has(a.uid)) this.outMap.set(a.uid, []);
      if (!this.inMap.has(b.uid)) this.inMap.set(b.uid, []);
      this.outMap.get(a.uid).push(b);
      this.inMap.get(b.uid).push(a);
    }
    return list;
  }

  // The part of the graph (graph coordinates) to draw: everything for
  // small graphs, else the visible area plus one pane size on each side.
  // Panning or zooming out of that region draws again (applyTransform).
  drawRegion() {
    if (this.items.size <= CULL_MIN_ITEMS) return null;
    const { w, h } = this.size();
    const k = this.view.k;
    const x = -this.view.tx / k;
    const y = -this.view.ty / k;
    return { x: x - w / k, y: y - h / k, w: (3 * w) / k, h: (3 * h) / k };
  }

  draw() {
    for (const layer of [this.groupLayer, this.edgeLayer, this.nodeLayer]) clear(layer);
    this.parts.clear();
    this.marked = [];
    this.pendingDraw = false;
    const region = this.drawRegion();
    this.region = region;
    const inside = (b) => !region || (b.x + b.w >= region.x && b.x <= region.x + region.w && b.y + b.h >= region.y && b.y <= region.y + region.h);
    const groupFrag = document.createDocumentFragment();
    const nodeFrag = document.createDocumentFragment();
    for (const item of this.order) {
      const box = this.boxes.get(item.uid);
      if (!inside(box)) continue;
      if (item.kind === 'node') nodeFrag.appendChild(this.drawNode(item, box));
      else if (!item.expanded) nodeFrag.appendChild(this.drawGroupBox(item, box));
      else groupFrag.appendChild(this.drawGroupFrame(item, box));
    }
    const edgeFrag = document.createDocumentFragment();
    for (const { a, b, count } of this.visibleEdges) {
      const from = this.boxes.get(a.uid);
      const to = this.boxes.get(b.uid);
      const x1 = from.x + from.w / 2;
      const y1 = from.y + from.h;
      const x2 = to.x + to.w / 2;
      const y2 = to.y;
      if (region && !inside({ x: Math.min(x1, x2), y: Math.min(y1, y2), w: Math.abs(x2 - x1), h: Math.abs(y2 - y1) })) continue;
      const bend = Math.max(20, Math.abs(y2 - y1) / 2);
      const lifted = a.kind === 'group' || b.kind === 'group';
      edgeFrag.appendChild(svgEl('path', {
        class: lifted ? 'edge lifted' : 'edge',
        d: `M${x1},${y1} C${x1},${y1 + bend} ${x2},${y2 - bend} ${x2},${y2}`,
        'marker-end': `url(#arrow-${this.index})`,
        'data-from': itemKey(a), 'data-to': itemKey(b), 'data-count': String(count),
      }));
    }
    this.groupLayer.appendChild(groupFrag);
    this.edgeLayer.appendChild(edgeFrag);
    this.nodeLayer.appendChild(nodeFrag);
    this.svg.setAttribute('data-items', String(this.items.size));
    this.svg.setAttribute('data-drawn', String(this.parts.size));
    this.applyOverlay();
    this.applyHighlights();
    this.applyTransform(true);
  }

  // True when the visible area has left the drawn region.
  needsDraw() {
    if (!this.region) return false;
    const { w, h } = this.size();
    const k = this.view.k;
    const x = -this.view.tx / k;
    const y = -this.view.ty / k;
    const r = this.region;
    return x < r.x || y < r.y || x + w / k > r.x + r.w || y + h / k > r.y + r.h;
  }

  drawNode(node, box) {
    const rect = svgEl('rect', { class: 'box', width: box.w, height: box.h, rx: 5 });
    const sub = svgEl('text', { class: 'sub', x: 8, y: 31 });
    const g = svgEl('g', { class: 'node', 'data-uid': node.uid, 'data-node': node.id, transform: `translate(${box.x},${box.y})` },
      svgEl('title', { text: node.label === node.id ? node.id : `${node.display || node.label}\n${node.id}` }),
      rect, svgEl('text', { class: 'label', x: 8, y: 16, text: shortLabel(node.display || node.label) }), sub);
    this.parts.set(node.uid, { g, rect, sub, fallback: node.label === node.id ? '' : node.id,
      maxChars: Math.max(4, Math.floor((box.w - 16) / SUB_CHAR_WIDTH)) });
    return g;
  }

  drawToggle(expanded) {
    return svgEl('g', { class: 'toggle', transform: 'translate(6,5)' },
      svgEl('title', { text: expanded ? 'Collapse' : 'Expand' }),
      svgEl('rect', { width: 16, height: 16, rx: 3 }),
      svgEl('text', { x: 8, y: 12.5, text: expanded ? '\u2212' : '+' }));
  }

  drawGroupBox(group, box) {
    const rect = svgEl('rect', { class: 'box', width: box.w, height: box.h, rx: 7 });
    const sub = svgEl('text', { class: 'sub group-value', x: 10, y: 46 });
    const g = svgEl('g', { class: 'group collapsed', 'data-uid': group.uid, 'data-group': group.path, transform: `translate(${box.x},${box.y})` },
      svgEl('title', { text: `${group.path}\n${group.nodeCount} nodes (collapsed)` }),
      rect, this.drawToggle(false),
      svgEl('text', { class: 'label', x: 28, y: 18, text: shortLabel(group.name) }),
      svgEl('text', { class: 'count', x: 10, y: 33, text: `${group.nodeCount} node${group.nodeCount === 1 ? '' : 's'}` }),
      sub);
    this.parts.set(group.uid, { g, rect, sub, fallback: this.moduleTotal(group), total: true,
      maxChars: Math.max(4, Math.floor((box.w - 20) / SUB_CHAR_WIDTH)) });
    return g;
  }

  // "0.5468 ms (module total)": the total time of the nn.Module a group
  // stands for (its entity's module_total_time, issue 29, 7; PageData's
  // module groups), shown when the overlay gives the group no value of its
  // own; '' otherwise.
  moduleTotal(group) {
    const id = this.data.entityIdOf(group, this.viewId, this.graphId);
    const e = id ? this.data.entity(id) : null;
    const m = e && e.kind === 'nn_module' && Array.isArray(e.metrics)
      ? e.metrics.find((x) => x && x.name === 'module_total_time' && typeof x.value === 'number') : null;
    return m ? `${formatNumber(m.value, m.unit)}${m.unit ? ` ${m.unit}` : ''} (module total)` : '';
  }

  drawGroupFrame(group, box) {
    const rect = svgEl('rect', { class: 'frame', width: box.w, height: box.h, rx: 8 });
    const header = svgEl('rect', { class: 'header', width: box.w, height: GROUP_HEADER - 4, rx: 8 });
    const sub = svgEl('text', { class: 'sub group-value', x: box.w - 8, y: 16, 'text-anchor': 'end' });
    const g = svgEl('g', { class: 'group expanded', 'data-uid': group.uid, 'data-group': group.path, transform: `translate(${box.x},${box.y})` },
      svgEl('title', { text: group.path }),
      rect, header, this.drawToggle(true),
      svgEl('text', { class: 'label', x: 28, y: 17, text: shortLabel(group.name) }), sub);
    // a frame's module total stays clear of the header's label
    this.parts.set(group.uid, { g, rect, sub, fallback: this.moduleTotal(group), total: true, frame: true,
      totalMaxChars: Math.max(4, Math.floor((box.w - 60 - SUB_CHAR_WIDTH * String(group.name).length) / SUB_CHAR_WIDTH)) });
    return g;
  }

  overlay() {
    if (!this.overlayId) return null;
    return this.data.overlays(this.viewId).find((ov) => ov && String(ov.id) === this.overlayId) || null;
  }

  // The value of an item: keyed by node id, or by a group's path. A group
  // without its own value shows the value of its summary node (the op node
  // pinned to its top that carries the group measurement).
  overlayValue(item, overlay) {
    const ov = overlay === undefined ? this.overlay() : overlay;
    if (!ov || !ov.values || typeof ov.values !== 'object') return null;
    const key = `${this.graphId}/${item.kind === 'node' ? item.id : item.path}`;
    if (Object.prototype.hasOwnProperty.call(ov.values, key)) return ov.values[key];
    if (item.kind === 'group' && item.summary) return this.overlayValue(item.summary, ov);
    return null;
  }

  applyOverlay() {
    const ov = this.overlay();
    for (const [uid, part] of this.parts) {
      const item = this.items.get(uid);
      const value = ov ? this.overlayValue(item, ov) : null;
      // issue 29, 3: on an accuracy overlay (lower is worse) an operator whose
      // outputs equal the reference (infinite SNR) is "exact", not "no data";
      // an output with NaN or infinite elements is marked on every overlay
      const entity = item.kind === 'node' ? this.data.entity(item.id) : null;
      const exact = !value && ov && ov.reversed && entity ? isExact(entity) : false;
      const nonfinite = entity ? nonfiniteCount(entity) : 0;
      part.g.classList.toggle('exact', exact);
      part.g.classList.toggle('nonfinite', nonfinite > 0);
      const color = value ? safeColor(value.color) : (exact ? EXACT_COLOR : null);
      // without an overlay colour a node keeps its Model Explorer style
      const style = item.kind === 'node' && item.style ? item.style : null;
      const fill = color || (style ? safeColor(style.backgroundColor) : null);
      if (fill && !part.frame) {
        part.rect.setAttribute('fill', fill);
        part.g.classList.toggle('on-dark', wantsLightText(fill));
      } else {
        part.rect.removeAttribute('fill');
        part.g.classList.remove('on-dark');
      }
      const border = style ? safeColor(style.borderColor) : null;
      if (border && !part.frame) {
        part.rect.setAttribute('stroke', border);
        part.rect.setAttribute('stroke-width', '2');
        part.g.classList.add('styled');
      }
      part.g.classList.toggle('has-value', !!value);
      let text = part.fallback;
      if (value) {
        const shown = value.text !== undefined && value.text !== null ? String(value.text) : formatNumber(value.value, this.overlay()?.unit);
        text = item.kind === 'group' ? `group: ${shown}` : shown;
      } else if (exact) {
        text = 'exact (SNR \u221e)';
      }
      if (nonfinite > 0) text = `NaN/Inf \u00b7 ${text}`;
      const isValue = value ? !nonfinite : !!part.total; // a group's module total
      const maxChars = !value && part.totalMaxChars !== undefined ? part.totalMaxChars : part.maxChars;
      part.sub.textContent = isValue ? fitValue(text, maxChars) : fitText(text, maxChars);
      part.sub.setAttribute('data-full', text);
      if (part.frame && color) part.sub.setAttribute('fill', color);
      else if (part.frame) part.sub.removeAttribute('fill');
    }
  }

  renderLegend() {
    clear(this.legend);
    const ov = this.model ? this.overlay() : null;
    if (!ov) {
      this.legend.appendChild(el('span', { class: 'legend-empty', text: this.model ? 'No overlay' : '' }));
      return;
    }
    const scale = ov.scale && typeof ov.scale === 'object' ? ov.scale : {};
    const min = Number(scale.min);
    const max = Number(scale.max);
    const values = Object.values(ov.values && typeof ov.values === 'object' ? ov.values : {})
      .filter((v) => v && typeof v.value === 'number' && safeColor(v.color))
      .sort((a, b) => a.value - b.value);
    const gradId = `legend-grad-${this.index}`;
    const grad = svgEl('linearGradient', { id: gradId, x1: '0', x2: '1', y1: '0', y2: '0' });
    const span = max - min;
    // a scale may give its own gradient (a diverging scale: scale.stops)
    const stops = Array.isArray(scale.stops)
      ? scale.stops.filter((st) => st && Number.isFinite(Number(st.offset)) && safeColor(st.color)) : [];
    const steps = stops.length ? stops.length : Math.min(8, values.length);
    for (let s = 0; s < steps; s++) {
      if (stops.length) {
        const offset = Math.min(1, Math.max(0, Number(stops[s].offset)));
        grad.appendChild(svgEl('stop', { offset: offset.toFixed(4), 'stop-color': safeColor(stops[s].color) }));
        continue;
      }
      const v = values[steps === 1 ? 0 : Math.round((s * (values.length - 1)) / (steps - 1))];
      const offset = span > 0 ? Math.min(1, Math.max(0, (v.value - min) / span)) : s / Math.max(1, steps - 1);
      grad.appendChild(svgEl('stop', { offset: offset.toFixed(4), 'stop-color': safeColor(v.color) }));
    }
    // a centre (0 of a diverging scale) is marked on the bar
    const center = Number(scale.center);
    const mark = Number.isFinite(center) && span > 0 && center > min && center < max
      ? svgEl('line', { class: 'legend-center', x1: ((center - min) / span) * 160, x2: ((center - min) / span) * 160, y1: 0, y2: 12, stroke: '#1d232b', 'stroke-width': 1 })
      : null;
    const bar = svgEl('svg', { class: 'legend-bar', width: 160, height: 12 },
      svgEl('defs', null, grad),
      svgEl('rect', { width: 160, height: 12, rx: 2, fill: steps ? `url(#${gradId})` : '#cccccc' }), mark);
    const unit = ov.unit ? String(ov.unit) : '';
    const end = (v, label) => {
      if (!Number.isFinite(v)) return '?';
      const text = `${mark && v > center ? '+' : ''}${formatNumber(v, unit)}`;
      return typeof label === 'string' && label ? `${text} ${label}` : text;
    };
    this.legend.append(...[
      el('span', { class: 'legend-label', text: String(ov.label ?? ov.id) }),
      el('span', { class: 'legend-unit', text: unit ? `(${unit})` : '' }),
      el('span', { class: 'legend-min', text: end(min, scale.min_label) }),
      bar,
      el('span', { class: 'legend-max', text: end(max, scale.max_label) }),
      ov.group_measurement
        ? el('span', { class: 'group-mark', title: 'group measurement: shown on groups, not copied to members', text: 'group measurement: shown on groups, not copied to members' })
        : null,
      ov.entity_kind ? el('span', { class: 'legend-kind', text: `scale shared by every ${String(ov.entity_kind)}` }) : null,
    ].filter((x) => x));
  }

  // Selection and highlights --------------------------------------------

  setSelection(item, related) {
    this.selectedUid = item ? item.uid : null;
    this.relatedUids = new Set((related || []).map((r) => r.uid));
    this.applyHighlights();
  }

  applyHighlights() {
    for (const g of this.marked) g.classList.remove('selected', 'related');
    this.marked = [];
    const mark = (uid, cls) => {
      const part = this.parts.get(uid);
      if (!part) return;
      part.g.classList.add(cls);
      this.marked.push(part.g);
    };
    if (this.selectedUid !== null) mark(this.selectedUid, 'selected');
    for (const uid of this.relatedUids) if (uid !== this.selectedUid) mark(uid, 'related');
  }

  // Expands the namespaces that hide the items, redraws when needed, and
  // returns the items as drawn.
  revealItems(items) {
    let changed = false;
    for (const item of items) if (this.model.reveal(item)) changed = true;
    if (changed) this.render();
    return items;
  }

  // Shows the locations that belong to this pane's view: switches graph if
  // none is in the current one, reveals and highlights them, centres the
  // first. Returns the number of items highlighted.
  showRelated(locations) {
    const mine = locations.filter((loc) => loc.view === this.viewId);
    if (!mine.length || !this.model) {
      this.setSelection(null, []);
      return 0;
    }
    if (!mine.some((loc) => loc.graph === this.graphId)) {
      const graph = mine[0].graph;
      if (this.data.graphIds(this.viewId).includes(graph)) this.setGraph(graph);
    }
    const items = [];
    for (const loc of mine) {
      if (loc.graph !== this.graphId) continue;
      const item = this.model.resolve(loc.node);
      if (item && !items.includes(item)) items.push(item);
    }
    this.revealItems(items);
    this.setSelection(null, items);
    if (items.length) this.centerOn(items[0]);
    return items.length;
  }

  // Neighbour along the drawn edges of a visible item (for arrow keys).
  neighbour(item, forward) {
    const list = (forward ? this.outMap : this.inMap).get(item.uid);
    return list && list.length ? list[0] : null;
  }
}
