// Search over every available view: node name (entity name), id, operator
// type (the Model Explorer label), namespace and attribute values, and
// group paths. Matching is case-insensitive substring matching; results
// are ranked exact match, then prefix match, then substring match, and
// within a rank keep the view order and the file order of the nodes, so
// the list is deterministic. At most MAX_RESULTS results are listed.

import { el, clear } from './dom.js';
import { viewLabel } from './pane.js';

export const MAX_RESULTS = 100;

export class Search {
  constructor(app, input, results) {
    this.app = app;
    this.data = app.data;
    this.input = input;
    this.results = results;
    this.fields = new WeakMap();
    this.first = null;
    input.addEventListener('input', () => this.run(input.value));
    input.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter' && this.first) {
        ev.preventDefault();
        this.app.locate(this.first);
      } else if (ev.key === 'ArrowDown') {
        const button = this.results.querySelector('button');
        if (button) { ev.preventDefault(); button.focus(); }
      }
    });
  }

  // Lower-cased searchable texts of an item: [primary names, everything].
  fieldsOf(item) {
    let f = this.fields.get(item);
    if (f) return f;
    const names = [];
    const rest = [];
    if (item.kind === 'node') {
      names.push(item.label, item.id);
      const entity = this.data.entity(item.id);
      if (entity && entity.name !== undefined) names.push(String(entity.name));
      rest.push(item.namespace);
      for (const a of item.attrs) rest.push(`${a.key}=${a.value}`, a.value);
      if (entity && entity.attributes && typeof entity.attributes === 'object') {
        for (const [k, v] of Object.entries(entity.attributes)) rest.push(`${k}=${v}`, String(v));
      }
    } else {
      names.push(item.name, item.path);
    }
    f = { names: names.map((s) => String(s).toLowerCase()), all: names.concat(rest).join('\n').toLowerCase() };
    this.fields.set(item, f);
    return f;
  }

  score(item, query) {
    const f = this.fieldsOf(item);
    if (f.names.some((n) => n === query)) return 0;
    if (f.names.some((n) => n.startsWith(query))) return 1;
    if (f.all.includes(query)) return 2;
    return -1;
  }

  run(text) {
    const query = String(text).trim().toLowerCase();
    clear(this.results);
    this.first = null;
    if (!query) {
      this.results.hidden = true;
      return [];
    }
    const found = [];
    for (const viewId of this.data.viewIds) {
      for (const graphId of this.data.graphIds(viewId)) {
        const model = this.data.model(viewId, graphId);
        const consider = (item) => {
          const s = this.score(item, query);
          if (s >= 0) found.push({ s, order: found.length, item, loc: { view: viewId, graph: graphId, node: item.kind === 'node' ? item.id : item.path } });
        };
        for (const node of model.nodes) consider(node);
        for (const group of model.groups.values()) consider(group);
      }
    }
    found.sort((a, b) => a.s - b.s || a.order - b.order);
    this.results.hidden = false;
    this.results.appendChild(el('li', { class: 'result-count', text: found.length > MAX_RESULTS
      ? `${found.length} matches, showing ${MAX_RESULTS}` : `${found.length} match${found.length === 1 ? '' : 'es'}` }));
    for (const r of found.slice(0, MAX_RESULTS)) {
      const item = r.item;
      const entity = item.kind === 'node' ? this.data.entity(item.id) : null;
      let name = entity && entity.name !== undefined ? String(entity.name) : (item.kind === 'node' ? item.id : item.path);
      const tell = item.kind === 'node' ? (entity ? this.data.distinctOf(item.id) : item.tell) : null;
      if (tell && tell !== name) name = `${name} (${tell})`;
      const type = item.kind === 'node' ? item.label : 'namespace group';
      this.results.appendChild(el('li', null, el('button', {
        type: 'button', class: 'result', 'data-view': r.loc.view, 'data-node': r.loc.node,
        onclick: () => this.app.locate(r.loc),
      }, el('span', { class: 'result-name', text: name }),
      el('span', { class: 'result-type', text: type }),
      el('span', { class: 'result-where', text: `${viewLabel(this.data, r.loc.view)} / ${r.loc.graph}` }))));
    }
    this.first = found.length ? found[0].loc : null;
    return found;
  }

  clear() {
    this.input.value = '';
    this.run('');
  }
}
