// The headline strip (docs/page.md, "Headline"): the result in one line,
// above the panes, always visible: the status, the inference time with its
// spread, the executions, the top operator (a link that locates it) and
// the NX total cycles when measured. The numbers come from the page data's
// "headline" object, which the C writer fills from the same result as the
// console summary (src/report/result/headline.c), and are formatted by the
// shared formatter (format.js).

import { el } from './dom.js';
import { formatSig4, formatInt, formatPct } from './format.js';

const num = (v) => typeof v === 'number' && Number.isFinite(v);

function item(cls, key, value, sub, title) {
  return el('span', { class: `hl-item ${cls}`, title: title || null },
    el('span', { class: 'hl-key', text: key }),
    value,
    sub ? el('span', { class: 'hl-sub', text: sub }) : null);
}

// The strip, or null when the data has no headline (older pages).
export function buildHeadline(app, doc) {
  const h = doc.headline;
  if (!h || typeof h !== 'object') return null;
  const parts = [];
  const status = typeof h.status === 'string' ? h.status : null;
  if (status) {
    const text = typeof h.status_text === 'string' ? h.status_text : status;
    // what made it partial is in the tooltip and in the banner's warnings
    parts.push(item('hl-status', 'Status', el('strong', { class: `hl-badge status-${status === 'ok' ? 'ok' : 'partial'}`, text: status }),
      null, text));
  }
  const inf = h.inference_time;
  if (inf && typeof inf === 'object' && num(inf.p50)) {
    // the spread: p10 - p90 from 10 executions on (Inspector's columns), else min - max
    const spread = inf.samples >= 10 && num(inf.p10) && num(inf.p90)
      ? `P50 (p10\u2013p90 ${formatSig4(inf.p10)} \u2013 ${formatSig4(inf.p90)}, avg ${formatSig4(inf.avg)})`
      : num(inf.min) && num(inf.max) && inf.samples > 1
        ? `P50 (${formatSig4(inf.min)} \u2013 ${formatSig4(inf.max)}${num(inf.avg) ? `, avg ${formatSig4(inf.avg)}` : ''})` : 'P50';
    parts.push(item('hl-inference', 'Inference', el('strong', { text: `${formatSig4(inf.p50)} ms` }), spread));
  } else {
    parts.push(item('hl-inference', 'Inference', el('strong', { text: 'unavailable' }), null,
      typeof h.inference_reason === 'string' ? h.inference_reason : null));
  }
  if (num(h.executions)) {
    parts.push(item('hl-executions', 'Executions', el('strong', { text: formatInt(h.executions) })));
  }
  const top = h.top_operator;
  if (top && typeof top === 'object' && typeof top.id === 'string') {
    const entity = app.data.entity(top.id);
    const shared = top.attribution === 'shared' && top.members > 1;
    const name = shared
      ? `${top.members} operators sharing ${typeof top.call === 'string' ? top.call : 'one call'}`
      : app.data.displayName(top.id, entity);
    const share = inf && num(inf.p50) && inf.p50 > 0 && num(top.p50) ? ` (${formatPct(100 * top.p50 / inf.p50)} %)` : '';
    const link = el('button', { type: 'button', class: 'link hl-top-link', text: name, title: `Show ${name}`,
      onclick: () => app.locateEntity(top.id) });
    parts.push(item('hl-top', 'Top operator', link, num(top.p50) ? `${formatSig4(top.p50)} ms${shared ? ' shared' : ''}${share}` : null));
  }
  const nx = h.nx_total_cycles;
  if (nx && typeof nx === 'object' && num(nx.p50)) {
    parts.push(item('hl-nx', 'NX', el('strong', { text: `${formatInt(nx.p50)} cycles` }), nx.samples > 1 ? 'P50 total' : 'total'));
  } else if (h.cpu_only) {
    parts.push(item('hl-nx', 'NX', el('span', { class: 'hl-na', text: 'not applicable (CPU only)' })));
  }
  return el('section', { id: 'headline', 'aria-label': 'Result' }, parts);
}
