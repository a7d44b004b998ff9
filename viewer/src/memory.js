// The Memory tab (docs/memory.md, "The page"): the memory plan of the
// method from the page data's "memory" object (written by
// src/report/views/view_memory.c when a PTE was given).
//
// - a summary line that states the peak (also in the headline strip);
// - the live-bytes curve over the instructions, one bar per instruction,
//   the peak marked; clicking a bar selects the instruction: its operator,
//   source operator and the tensors live there are listed, with a link
//   that locates the source operator in the graph views;
// - the pool layout: per pool, every planned tensor as a rectangle of its
//   lifetime (instructions, x) by its bytes (offset, y), as ExecuTorch's
//   memory trace draws it; clicking a tensor lists it.
// SVG only, text through textContent (dom.js), colours as attributes.

import { el, svgEl } from './dom.js';
import { formatInt } from './format.js';

const num = (v) => typeof v === 'number' && Number.isFinite(v);
const CURVE_H = 160;
const LAYOUT_H = 220;
const PAD_L = 70;
const PAD_B = 18;

// "Peak 194,080 bytes at instruction 7 (aten_addmm_default)", or null.
export function peakText(mem) {
  if (!mem || typeof mem !== 'object' || mem.available !== true || !num(mem.peak)) return null;
  const k = mem.peak_instruction;
  const ins = Array.isArray(mem.instructions) && num(k) && k >= 0 ? mem.instructions[k] : null;
  if (!ins) return `Peak ${formatInt(mem.peak)} bytes`;
  const who = typeof ins.node === 'string' ? ins.node : String(ins.op);
  return `Peak ${formatInt(mem.peak)} bytes at instruction ${k} (${who})`;
}

export class MemoryTab {
  // app: the page controller (locateFromTimeline); mem: doc.memory.
  constructor(app, mem) {
    this.app = app;
    this.mem = mem;
    this.selected = null;
    this.info = el('div', { class: 'memory-info', 'aria-live': 'polite' });
    const body = [];
    if (mem.available !== true) {
      body.push(el('p', { class: 'memory-unavailable', text: `Memory plan unavailable: ${String(mem.reason || '')}` }));
    } else {
      body.push(el('p', { class: 'memory-summary', text: this.summary() }));
      body.push(this.curve());
      for (const pool of Array.isArray(mem.pools) ? mem.pools : []) body.push(this.layout(pool));
      body.push(this.info);
      body.push(el('p', { class: 'memory-runtime', text: this.runtimeText() }));
    }
    this.root = el('section', { id: 'memory', hidden: true }, body);
  }

  summary() {
    const m = this.mem;
    const pools = Array.isArray(m.pools) ? m.pools : [];
    const parts = [peakText(m) || 'Nothing live', `planned ${formatInt(m.total_planned)} bytes in ${pools.length} pool${pools.length === 1 ? '' : 's'}`];
    for (const p of pools) {
      let t = `pool ${p.id}: size ${formatInt(p.size)}, peak ${formatInt(p.peak)}, waste ${formatInt(p.waste)} bytes`;
      if (num(p.peak_aligned) && p.peak_aligned !== p.peak) t += ` (peak ${formatInt(p.peak_aligned)} with each tensor rounded up to ${m.alignment} bytes)`;
      if (num(p.no_reuse_bytes)) t += `, ${formatInt(p.no_reuse_bytes)} without reuse`;
      parts.push(t);
    }
    return parts.join(' \u00b7 ');
  }

  runtimeText() {
    const rt = this.mem.runtime;
    if (!Array.isArray(rt) || !rt.length) return 'Runtime allocations: not recorded in the ETDump.';
    return `Runtime allocations (ETDump): ${rt.map((a) => `${a.name} ${formatInt(a.bytes)} bytes in ${formatInt(a.count)}`).join('; ')}.`;
  }

  // Live bytes per instruction as bars; the peak's bar is marked.
  curve() {
    const ins = Array.isArray(this.mem.instructions) ? this.mem.instructions : [];
    const n = Math.max(ins.length, 1);
    const max = Math.max(1, ...ins.map((x) => (num(x.live) ? x.live : 0)));
    const w = Math.max(400, Math.min(1200, n * 24)) + PAD_L;
    const bw = (w - PAD_L) / n;
    const chart = svgEl('svg', { class: 'memory-curve', width: w, height: CURVE_H + PAD_B, viewBox: `0 0 ${w} ${CURVE_H + PAD_B}`, role: 'img', 'aria-label': 'Live bytes per instruction' });
    chart.appendChild(svgEl('text', { x: 2, y: 12, class: 'axis', text: `${formatInt(max)} B` }));
    chart.appendChild(svgEl('text', { x: 2, y: CURVE_H, class: 'axis', text: '0' }));
    this.bars = [];
    ins.forEach((x, k) => {
      const h = num(x.live) ? (x.live / max) * (CURVE_H - 16) : 0;
      const peak = k === this.mem.peak_instruction;
      const bar = svgEl('rect', {
        x: PAD_L + k * bw + 1, y: CURVE_H - h, width: Math.max(1, bw - 2), height: Math.max(h, 1),
        class: `memory-bar${peak ? ' peak' : ''}`, fill: peak ? '#c62828' : '#1565c0', 'data-instruction': k,
      });
      bar.appendChild(svgEl('title', { text: `instruction ${k}: ${x.op}${x.node ? ` (${x.node})` : ''}, ${formatInt(x.live)} bytes live` }));
      bar.addEventListener('click', () => this.select(k));
      this.bars.push(bar);
      chart.appendChild(bar);
      if (n <= 60 || k % Math.ceil(n / 60) === 0) {
        chart.appendChild(svgEl('text', { x: PAD_L + k * bw + bw / 2, y: CURVE_H + PAD_B - 4, class: 'axis tick', 'text-anchor': 'middle', text: String(k) }));
      }
    });
    return el('figure', { class: 'memory-figure' }, el('figcaption', { text: 'Live bytes per instruction (click a bar: the operator and the tensors live there)' }), chart);
  }

  // One pool: tensors as rectangles [first, last + 1) x [offset, offset + bytes).
  layout(pool) {
    const ins = Array.isArray(this.mem.instructions) ? this.mem.instructions : [];
    const n = Math.max(ins.length, 1);
    const size = Math.max(1, Number(pool.size) || 1);
    const w = Math.max(400, Math.min(1200, n * 24)) + PAD_L;
    const cw = (w - PAD_L) / n;
    const chart = svgEl('svg', { class: 'memory-layout', width: w, height: LAYOUT_H, viewBox: `0 0 ${w} ${LAYOUT_H}`, role: 'img', 'aria-label': `Layout of pool ${pool.id}` });
    chart.appendChild(svgEl('text', { x: 2, y: 12, class: 'axis', text: '0' }));
    chart.appendChild(svgEl('text', { x: 2, y: LAYOUT_H - 2, class: 'axis', text: `${formatInt(size)} B` }));
    const tensors = (Array.isArray(this.mem.tensors) ? this.mem.tensors : []).filter((t) => t.pool === pool.id && t.first >= 0);
    for (const t of tensors) {
      const y = (t.offset / size) * LAYOUT_H;
      const h = Math.max(1, (t.bytes / size) * LAYOUT_H);
      const view = num(t.view_of) && t.view_of >= 0;
      const r = svgEl('rect', {
        x: PAD_L + t.first * cw, y, width: Math.max(1, (t.last - t.first + 1) * cw - 1), height: h,
        class: `memory-tensor${view ? ' view' : ''}`, fill: view ? '#ffffff' : '#4f9d69', stroke: '#1d4d2c', 'data-value': t.value,
      });
      r.appendChild(svgEl('title', { text: this.tensorText(t) }));
      r.addEventListener('click', () => this.showTensor(t));
      chart.appendChild(r);
    }
    return el('figure', { class: 'memory-figure' }, el('figcaption', { text: `Pool ${pool.id}: tensors by offset (down) over their lifetime (instructions, across)` }), chart);
  }

  tensorText(t) {
    const view = num(t.view_of) && t.view_of >= 0 ? `, view of value ${t.view_of}` : '';
    const role = t.role ? `, ${t.role}` : '';
    return `value ${t.value} ${t.dtype}: ${formatInt(t.bytes)} bytes at [${formatInt(t.offset)}, ${formatInt(t.offset + t.bytes)}) of pool ${t.pool}, live ${t.first}\u2013${t.last}${view}${role}`;
  }

  showTensor(t) {
    this.info.replaceChildren(el('p', { class: 'memory-tensor-info', text: this.tensorText(t) }));
  }

  // Instruction k: its operator, source operator (a link into the graph
  // views) and the tensors live there.
  select(k) {
    const x = this.mem.instructions[k];
    if (!x) return;
    this.selected = k;
    for (const b of this.bars) b.classList.toggle('selected', Number(b.getAttribute('data-instruction')) === k);
    document.body.setAttribute('data-memory-selected', String(k));
    const live = (Array.isArray(this.mem.tensors) ? this.mem.tensors : []).filter((t) => t.first <= k && k <= t.last);
    const head = el('p', { class: 'memory-instruction', text: `Instruction ${k}: ${x.op}, ${formatInt(x.live)} bytes live, ${formatInt(x.allocates)} bytes written first` });
    const parts = [head];
    if (typeof x.entity === 'string') {
      parts.push(el('button', { type: 'button', class: 'link memory-locate', text: `Show ${x.node} in the graph views`,
        onclick: () => this.app.locateFromTimeline(x.entity) }));
    }
    parts.push(el('ul', { class: 'memory-live' }, live.map((t) => el('li', { text: this.tensorText(t) }))));
    this.info.replaceChildren(...parts);
  }

  show() { this.root.hidden = false; }

  hide() { this.root.hidden = true; }
}
