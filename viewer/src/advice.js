// The advice strip (docs/page.md, "Advice"; docs/advice.md): the result's
// ranked next steps, one closed line under the headline so that the graph
// keeps its room at 1280x800. The closed line counts the entries and quotes
// the first one (cut to the line with an ellipsis, the whole text in its
// tooltip); opening it lists every entry, numbered, with a button per
// entity it names that locates it in the graph views. The texts are the
// page data's "advice", written from the same result as the console's
// Advice section (src/analysis/advice.c).

import { el } from './dom.js';

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v);

// The strip, or null when the run has no advice (or the data predates it).
export function buildAdvice(app, doc) {
  const items = Array.isArray(doc.advice)
    ? doc.advice.filter((a) => isObject(a) && typeof a.message === 'string' && a.message) : [];
  if (!items.length) return null;
  const first = items[0].message;
  const entries = items.map((a) => {
    const ids = Array.isArray(a.entities) ? a.entities.filter((x) => typeof x === 'string') : [];
    const links = ids.filter((id) => app.data.entity(id)).map((id) => {
      const name = app.data.displayName(id, app.data.entity(id));
      return el('button', { type: 'button', class: 'link advice-locate', text: name, title: `Show ${name}`,
        onclick: () => app.locateEntity(id) });
    });
    const severity = a.severity === 'warning' || a.severity === 'error' ? a.severity : 'info';
    return el('li', { class: `advice-entry ${severity}`, 'data-rule': typeof a.id === 'string' ? a.id : '' },
      el('span', { class: 'advice-text', text: a.message }),
      typeof a.id === 'string' ? el('span', { class: 'advice-rule', text: a.id }) : null,
      links.length ? el('span', { class: 'advice-links' }, links) : null);
  });
  const warn = items.some((a) => a.severity === 'warning' || a.severity === 'error');
  return el('details', { id: 'advice', class: warn ? 'has-warning' : null },
    el('summary', { class: 'banner-summary advice-summary' },
      el('span', { class: 'advice-count', text: `Advice (${items.length})` }),
      el('span', { class: 'banner-first', text: first, title: first })),
    el('ol', { class: 'advice-list' }, entries));
}
