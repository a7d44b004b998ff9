// Timeline tab of the standalone page: the selected method's executions
// as nested runtime events on a canvas (the same events as trace.json).
//
// Data (docs/trace.md, "Page timeline"): doc.timeline = { us_decimals,
// executions: [{event_block, start, events: [dstart, dur, site, ...]}],
// sites: [[name, category, entity|null, chain, instruction, [handles],
// etdump name]], counters: [{name, key, values}], n_executions,
// shown_executions, shown_events }. Events of an execution come wrapper
// first (start ascending, longer first), ticks relative to the previous
// event's start; depth is recovered here with a stack.
//
// Drawing: one track per execution, all aligned at their own first event
// (so executions can be compared by eye), one row per nesting depth.
// Level of detail: only tracks inside the viewport are visited; inside a
// track a binary search finds the first event that can reach the left edge
// (start >= left - longest event), the scan stops at the right edge, and
// per depth an event that would land inside the pixel already drawn is
// skipped, so a frame costs O(visible tracks x canvas width) however many
// events there are. Wheel zooms around the cursor (shift + wheel scrolls),
// drag pans, hover shows the event, click locates its entity in the graph
// views. window.mliaPage.timings.timelineBuild / timelineDraw record the
// decode and the last frame (for the benchmark).

import { el, formatNumber } from './dom.js';
import { formatQuantity } from './format.js';

const ROW = 16;            // px per nesting depth
const TRACK_GAP = 6;       // px between executions
// The label column is as wide as its longest text (execution labels,
// counter lines, the axis title) plus LABEL_PAD, at least LABEL_MIN_W and
// at most LABEL_MAX_W or LABEL_MAX_SHARE of the canvas; a longer text is
// cut with an ellipsis and shown whole as the canvas's title on hover.
const LABEL_PAD = 16;      // px: 6 before the text, 10 after (the column's 4 px gap included)
const LABEL_MIN_W = 80;
const LABEL_MAX_W = 360;
const LABEL_MAX_SHARE = 0.35;
const LABEL_FONT = '11px system-ui, sans-serif';
const AXIS_TITLE = 'ms from execution start';
const AXIS_H = 22;         // px of the time axis
const MIN_TEXT_W = 36;     // px: narrower events get no text
const CATEGORY_COLORS = {
  framework: '#c9d3df', operator: '#5b8fd6', kernel: '#8fb8ec', delegate: '#e2843a',
  backend: '#f2b36f', other: '#b4b4b4',
};

function categoryColor(cat) {
  return CATEGORY_COLORS[cat] || CATEGORY_COLORS.other;
}

// Decodes one execution: Float64Array start/dur (ticks from the first
// event), Uint32Array site, Uint8Array depth, and the track's summary.
function decodeExecution(raw) {
  const flat = Array.isArray(raw.events) ? raw.events : [];
  const n = Math.floor(flat.length / 3);
  const start = new Float64Array(n);
  const dur = new Float64Array(n);
  const site = new Uint32Array(n);
  const depth = new Uint8Array(n);
  const stackEnd = [];
  let t = 0;
  let maxDepth = 0;
  let maxDur = 0;
  let end = 0;
  for (let i = 0; i < n; i++) {
    t += Number(flat[3 * i]) || 0;
    const d = Number(flat[3 * i + 1]) || 0;
    start[i] = t;
    dur[i] = d;
    site[i] = Number(flat[3 * i + 2]) || 0;
    while (stackEnd.length && t + d > stackEnd[stackEnd.length - 1]) stackEnd.pop();
    const level = Math.min(stackEnd.length, 255);
    depth[i] = level;
    stackEnd.push(t + d);
    if (level > maxDepth) maxDepth = level;
    if (d > maxDur) maxDur = d;
    if (t + d > end) end = t + d;
  }
  const capture = typeof raw.capture === 'string' && raw.capture ? raw.capture : null;
  return { start, dur, site, depth, n, maxDepth, maxDur, end, block: raw.event_block, capture, origin: String(raw.start) };
}

// Text cut to at most `width` px (measured by ctx) with an ellipsis. With
// `before`/`after`, only `text` is cut and they are kept around it (a
// capture name is cut, not the block number after it), unless even they
// do not fit.
function cutText(ctx, text, width, before = '', after = '') {
  const whole = `${before}${text}${after}`;
  if (ctx.measureText(whole).width <= width) return whole;
  if ((before || after) && ctx.measureText(`${before}\u2026${after}`).width > width) return cutText(ctx, whole, width);
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (ctx.measureText(`${before}${text.slice(0, mid)}\u2026${after}`).width <= width) lo = mid; else hi = mid - 1;
  }
  return lo || before || after ? `${before}${text.slice(0, lo)}\u2026${after}` : '';
}

export class Timeline {
  // app: the page controller (locateEntity, showGraphs); data: doc.timeline.
  constructor(app, data) {
    const t0 = performance.now();
    this.app = app;
    this.data = data;
    this.ticksPerUs = 10 ** (Number(data.us_decimals) || 0);
    this.sites = Array.isArray(data.sites) ? data.sites : [];
    this.tracks = (Array.isArray(data.executions) ? data.executions : []).map(decodeExecution);
    this.counters = Array.isArray(data.counters) ? data.counters : [];
    let y = 0;
    let end = 0;
    for (const tr of this.tracks) {
      tr.y = y;
      tr.h = (tr.maxDepth + 1) * ROW + TRACK_GAP;
      y += tr.h;
      if (tr.end > end) end = tr.end;
    }
    this.totalH = y;
    this.totalTicks = Math.max(end, 1);
    this.view = { left: 0, scale: 1, top: 0 }; // left in ticks, scale in px per tick, top in px
    this.hover = null;
    this.pending = false;
    this.labelW = LABEL_MIN_W;
    this.buildDom();
    this.measureLabels();
    window.mliaPage.timings.timelineBuild = performance.now() - t0;
  }

  buildDom() {
    const d = this.data;
    const events = this.tracks.reduce((s, tr) => s + tr.n, 0);
    const shown = Number(d.shown_executions) || this.tracks.length;
    const total = Number(d.n_executions) || shown;
    const note = shown < total
      ? ` (${total - shown} later executions are left out of the page to keep it small; trace.json has all of them)` : '';
    this.canvas = el('canvas', { class: 'timeline-canvas', 'aria-label': 'Timeline of the executions' });
    this.tooltip = el('div', { class: 'timeline-tooltip', hidden: true });
    const captures = new Set(this.tracks.map((tr) => tr.capture).filter((c) => c)).size;
    const from = captures > 1 ? ` from ${captures} captures` : '';
    this.info = el('span', { class: 'timeline-info', text: `${shown} execution(s)${from}, ${events} event(s), aligned at each execution's start${note}. Wheel: zoom, shift+wheel: scroll, drag: pan, click: locate in the graph views.` });
    const fit = el('button', { type: 'button', class: 'timeline-fit', text: 'Fit', onclick: () => this.fit() });
    this.wrap = el('div', { class: 'timeline-wrap' }, this.canvas, this.tooltip);
    this.root = el('section', { id: 'timeline', hidden: true },
      el('div', { class: 'timeline-toolbar' }, fit, this.info), this.wrap);
    this.installInput();
  }

  // Label of track k: with several captures (docs/captures.md) the
  // capture's name and the block number in it.
  // trackLabelParts: [before, capture, after] (the capture name is what a
  // cut shortens), or null with one capture.
  trackLabelParts(k) {
    const tr = this.tracks[k];
    return tr.capture ? [`execution ${k + 1} (`, tr.capture, `, block ${tr.block})`] : null;
  }

  trackLabel(k) {
    const parts = this.trackLabelParts(k);
    return parts ? parts.join('') : `execution ${k + 1} (block ${this.tracks[k].block})`;
  }

  // Counter lines of track k ([text]), in drawing order.
  counterLines(k) {
    const out = [];
    for (const c of this.counters) {
      const v = Array.isArray(c.values) ? c.values[k] : null;
      if (typeof v === 'number') out.push(`${String(c.name).replace(/^NX /, '')}: ${formatNumber(v, 'cycles')}`);
    }
    return out;
  }

  // Widest text of the label column, in px (once: the labels do not change).
  measureLabels() {
    const ctx = this.canvas.getContext('2d');
    ctx.font = LABEL_FONT;
    let widest = ctx.measureText(AXIS_TITLE).width;
    for (let k = 0; k < this.tracks.length; k++) {
      widest = Math.max(widest, ctx.measureText(this.trackLabel(k)).width);
      for (const line of this.counterLines(k)) widest = Math.max(widest, ctx.measureText(line).width);
    }
    this.labelNatural = Math.ceil(widest) + LABEL_PAD;
  }

  // Label column width for the current canvas width.
  layoutLabels() {
    const cap = Math.max(LABEL_MIN_W, Math.min(LABEL_MAX_W, Math.floor(this.w * LABEL_MAX_SHARE)));
    this.labelW = Math.max(LABEL_MIN_W, Math.min(cap, this.labelNatural));
    this.root.setAttribute('data-label-width', String(this.labelW));
  }

  show() {
    this.root.hidden = false;
    this.resize();
    if (!this.fitted) {
      this.fit();
      this.fitted = true;
    }
    this.draw();
  }

  hide() {
    this.root.hidden = true;
  }

  resize() {
    const r = this.wrap.getBoundingClientRect();
    const ratio = window.devicePixelRatio || 1;
    this.w = Math.max(200, Math.floor(r.width));
    this.h = Math.max(100, Math.floor(r.height));
    this.canvas.width = Math.floor(this.w * ratio);
    this.canvas.height = Math.floor(this.h * ratio);
    this.canvas.style.width = `${this.w}px`;
    this.canvas.style.height = `${this.h}px`;
    this.ratio = ratio;
    this.layoutLabels();
  }

  fit() {
    this.view.left = 0;
    this.view.scale = (this.w - this.labelW - 10) / this.totalTicks;
    this.view.top = 0;
    this.requestDraw();
  }

  installInput() {
    let drag = null;
    this.canvas.addEventListener('wheel', (ev) => {
      ev.preventDefault();
      if (ev.shiftKey) {
        this.scrollBy(ev.deltaY || ev.deltaX);
        return;
      }
      const x = ev.offsetX - this.labelW;
      const factor = Math.exp(-ev.deltaY * 0.0015);
      this.zoomAt(Math.max(0, x), factor);
    }, { passive: false });
    this.canvas.addEventListener('pointerdown', (ev) => {
      if (ev.button !== 0) return;
      drag = { x: ev.clientX, y: ev.clientY, left: this.view.left, top: this.view.top, moved: false, id: ev.pointerId };
    });
    this.canvas.addEventListener('pointermove', (ev) => {
      if (drag) {
        const dx = ev.clientX - drag.x;
        const dy = ev.clientY - drag.y;
        if (!drag.moved && Math.hypot(dx, dy) < 4) return;
        if (!drag.moved) {
          drag.moved = true;
          this.canvas.setPointerCapture(drag.id);
        }
        this.view.left = drag.left - dx / this.view.scale;
        this.view.top = this.clampTop(drag.top - dy);
        this.tooltip.hidden = true;
        this.requestDraw();
        return;
      }
      this.onHover(ev.offsetX, ev.offsetY);
    });
    const end = (ev) => {
      if (!drag) return;
      const click = !drag.moved && ev.type === 'pointerup';
      drag = null;
      if (click) this.onClick(ev.offsetX, ev.offsetY);
    };
    this.canvas.addEventListener('pointerup', end);
    this.canvas.addEventListener('pointercancel', end);
    this.canvas.addEventListener('pointerleave', () => {
      this.tooltip.hidden = true;
      if (this.hover) {
        this.hover = null;
        this.requestDraw();
      }
    });
  }

  zoomAt(x, factor) {
    const tick = this.view.left + x / this.view.scale;
    const max = 50; // px per tick: 50 px per nanosecond is plenty
    const min = (this.w - this.labelW - 10) / this.totalTicks / 4;
    this.view.scale = Math.min(max, Math.max(min, this.view.scale * factor));
    this.view.left = tick - x / this.view.scale;
    this.requestDraw();
  }

  clampTop(top) {
    return Math.max(0, Math.min(top, Math.max(0, this.totalH - (this.h - AXIS_H) + 20)));
  }

  scrollBy(dy) {
    this.view.top = this.clampTop(this.view.top + dy);
    this.requestDraw();
  }

  requestDraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  // First track whose bottom is below y (px in content coordinates).
  trackAt(y) {
    let lo = 0;
    let hi = this.tracks.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      const tr = this.tracks[mid];
      if (tr.y + tr.h <= y) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  // First event index of a track that can overlap tick `left`.
  firstIndex(tr, left) {
    const from = left - tr.maxDur;
    let lo = 0;
    let hi = tr.n;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (tr.start[mid] < from) lo = mid + 1; else hi = mid;
    }
    return lo;
  }

  draw() {
    if (this.root.hidden) return;
    const t0 = performance.now();
    const ctx = this.canvas.getContext('2d');
    const { w, h } = this;
    ctx.setTransform(this.ratio, 0, 0, this.ratio, 0, 0);
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, w, h);
    ctx.font = LABEL_FONT;
    ctx.textBaseline = 'middle';
    const { left, scale, top } = this.view;
    const lw = this.labelW;
    const plotW = w - lw;
    let cut = 0;
    const right = left + plotW / scale;
    let drawn = 0;
    const first = this.trackAt(top);
    const lastPixel = new Float64Array(256);
    for (let k = first; k < this.tracks.length; k++) {
      const tr = this.tracks[k];
      const y0 = AXIS_H + tr.y - top;
      if (y0 > h) break;
      if (k % 2) {
        ctx.fillStyle = '#f5f7fa';
        ctx.fillRect(lw, y0, plotW, tr.h);
      }
      lastPixel.fill(-Infinity);
      for (let i = this.firstIndex(tr, left); i < tr.n; i++) {
        const s = tr.start[i];
        if (s > right) break;
        const e = s + tr.dur[i];
        if (e < left) continue;
        const x = lw + (s - left) * scale;
        const xe = lw + (e - left) * scale;
        const d = tr.depth[i];
        if (xe < lastPixel[d] + 0.75) continue; // lands in a pixel already drawn at this depth
        const x1 = Math.max(x, lw);
        const x2 = Math.min(xe, w);
        const bw = Math.max(1, x2 - x1);
        const site = this.sites[tr.site[i]] || [];
        const yy = y0 + d * ROW;
        const hovered = this.hover && this.hover.track === k && this.hover.index === i;
        ctx.fillStyle = hovered ? '#e8590c' : categoryColor(site[1]);
        ctx.fillRect(x1, yy + 1, bw, ROW - 2);
        lastPixel[d] = x1 + bw;
        drawn++;
        if (bw >= MIN_TEXT_W) {
          ctx.fillStyle = '#1d232b';
          ctx.save();
          ctx.beginPath();
          ctx.rect(x1, yy, bw, ROW);
          ctx.clip();
          ctx.fillText(String(site[0] || ''), x1 + 3, yy + ROW / 2);
          ctx.restore();
        }
      }
      cut += this.drawLabel(ctx, tr, k, y0);
    }
    this.drawAxis(ctx, left, scale, plotW);
    this.lastDrawn = drawn;
    window.mliaPage.timings.timelineDraw = performance.now() - t0;
    window.mliaPage.timings.timelineDrawn = drawn;
    this.root.setAttribute('data-drawn', String(drawn));
    this.root.setAttribute('data-labels-cut', String(cut));
    this.root.setAttribute('data-view', `${left}|${scale}|${top}`);
  }

  // Draws the label of track k (its name, then its NX counters one line
  // each while there is room); returns the number of texts cut.
  drawLabel(ctx, tr, k, y0) {
    const room = this.labelW - LABEL_PAD;
    let cut = 0;
    const text = (t, y, parts) => {
      const shown = parts ? cutText(ctx, parts[1], room, parts[0], parts[2]) : cutText(ctx, t, room);
      if (shown !== t) cut++;
      ctx.fillText(shown, 6, y);
    };
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, y0, this.labelW - 4, tr.h - TRACK_GAP);
    ctx.clip();
    ctx.fillStyle = '#eef1f5';
    ctx.fillRect(0, y0, this.labelW - 4, tr.h - TRACK_GAP);
    ctx.fillStyle = '#1d232b';
    text(this.trackLabel(k), y0 + ROW / 2, this.trackLabelParts(k));
    ctx.fillStyle = '#7b2cbf';
    let cy = y0 + ROW + ROW / 2;
    for (const line of this.counterLines(k)) {
      if (cy + ROW / 2 > y0 + tr.h - TRACK_GAP) break;
      text(line, cy);
      cy += ROW;
    }
    ctx.restore();
    return cut;
  }

  // The label text under a canvas point (whole, as drawn before cutting),
  // or null.
  labelAt(px, py) {
    if (px >= this.labelW - 4 || py < AXIS_H) return null;
    const y = py - AXIS_H + this.view.top;
    const k = this.trackAt(y);
    const tr = this.tracks[k];
    if (!tr || y < tr.y || y >= tr.y + tr.h - TRACK_GAP) return null;
    const line = Math.floor((y - tr.y) / ROW);
    if (line === 0) return this.trackLabel(k);
    const lines = this.counterLines(k);
    return line - 1 < lines.length && (line + 1) * ROW <= tr.h - TRACK_GAP ? lines[line - 1] : null;
  }

  drawAxis(ctx, left, scale, plotW) {
    ctx.fillStyle = '#ffffff';
    ctx.fillRect(0, 0, this.w, AXIS_H);
    ctx.fillStyle = '#5b6673';
    // milliseconds, like every other time on the page and in the summary
    ctx.fillText(cutText(ctx, AXIS_TITLE, this.labelW - LABEL_PAD), 6, AXIS_H / 2);
    const ticksPerMs = this.ticksPerUs * 1000;
    const spanMs = plotW / scale / ticksPerMs;
    const raw = spanMs / 8;
    const p = 10 ** Math.floor(Math.log10(raw || 1));
    const step = [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw) || raw;
    const first = Math.ceil(left / ticksPerMs / step);
    const labels = [];
    for (let n = first; n * step <= (left + plotW / scale) / ticksPerMs; n++) {
      const ms = n * step;
      const x = this.labelW + (ms * ticksPerMs - left) * scale;
      const text = String(Number(ms.toPrecision(6)));
      ctx.fillRect(x, AXIS_H - 6, 1, 6);
      ctx.fillText(text, x + 2, AXIS_H / 2);
      labels.push(text);
    }
    // what the axis reads (for tests: the canvas cannot be read back as text)
    this.root.setAttribute('data-axis', `${AXIS_TITLE}: ${labels.join(' ')}`);
  }

  // The event under a canvas point: {track, index} or null.
  hitTest(px, py) {
    if (px < this.labelW || py < AXIS_H) return null;
    const y = py - AXIS_H + this.view.top;
    const k = this.trackAt(y);
    const tr = this.tracks[k];
    if (!tr || y < tr.y) return null;
    const depth = Math.floor((y - tr.y) / ROW);
    if (depth > tr.maxDepth) return null;
    const tick = this.view.left + (px - this.labelW) / this.view.scale;
    const slack = 2 / this.view.scale; // 2 px tolerance for thin events
    let best = null;
    for (let i = this.firstIndex(tr, tick - slack); i < tr.n && tr.start[i] <= tick + slack; i++) {
      if (tr.depth[i] !== depth) continue;
      if (tr.start[i] - slack <= tick && tick <= tr.start[i] + tr.dur[i] + slack) {
        if (!best || tr.dur[i] < tr.dur[best.index]) best = { track: k, index: i };
      }
    }
    return best;
  }

  describe(hit) {
    const tr = this.tracks[hit.track];
    const i = hit.index;
    const site = this.sites[tr.site[i]] || [];
    const us = (ticks) => formatQuantity(ticks / this.ticksPerUs / 1000, 'ms');
    const lines = [
      String(site[0] || ''),
      `${site[1] || 'other'} · execution ${hit.track + 1} (${tr.capture ? `${tr.capture}, ` : ''}event block ${tr.block})`,
      `duration ${us(tr.dur[i])} · start +${us(tr.start[i])}`,
    ];
    if (site[6] && site[6] !== site[0]) lines.push(`ETDump event: ${site[6]}`);
    if (typeof site[3] === 'number' && site[3] >= 0) lines.push(`chain ${site[3]} · instruction ${site[4]}`);
    if (Array.isArray(site[5]) && site[5].length) lines.push(`debug handle${site[5].length > 1 ? 's' : ''} ${site[5].join(', ')}`);
    lines.push(site[2] ? `entity ${site[2]} (click to locate)` : 'no entity');
    return lines;
  }

  onHover(px, py) {
    // a label: its whole text as the canvas's tooltip (it may be cut)
    const label = this.labelAt(px, py);
    if (label) this.canvas.setAttribute('title', label);
    else this.canvas.removeAttribute('title');
    const hit = this.hitTest(px, py);
    const same = hit && this.hover && hit.track === this.hover.track && hit.index === this.hover.index;
    if (!same) {
      this.hover = hit;
      this.requestDraw();
    }
    if (!hit) {
      this.tooltip.hidden = true;
      return;
    }
    this.tooltip.replaceChildren(...this.describe(hit).map((t, n) => el('div', { class: n ? 'line' : 'title', text: t })));
    this.tooltip.hidden = false;
    const x = Math.min(px + 14, this.w - 320);
    this.tooltip.style.left = `${Math.max(0, x)}px`;
    this.tooltip.style.top = `${Math.min(py + 14, this.h - 120)}px`;
  }

  onClick(px, py) {
    const hit = this.hitTest(px, py);
    if (!hit) return;
    const tr = this.tracks[hit.track];
    const site = this.sites[tr.site[hit.index]] || [];
    document.body.setAttribute('data-timeline-event', `${hit.track}|${hit.index}|${site[0] || ''}`);
    if (site[2]) this.app.locateFromTimeline(String(site[2]));
  }
}
