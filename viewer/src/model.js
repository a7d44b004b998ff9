// Data model of the standalone page.
//
// The page receives one JSON document (schema "mlia.page/1", see
// docs/page.md). PageData indexes it once: views by id, sync targets by
// source location, entity locations. Each Model Explorer graph becomes a
// GraphModel lazily, the first time a pane, the search or a sync needs it,
// so that opening a page with five large views only pays for the view that
// is painted first.
//
// GraphModel turns the flat Model Explorer node list into a tree of
// namespace groups (a node whose namespace is "a/b" sits inside group
// "a/b", which sits inside group "a"). Every edge is assigned, once, to the
// level where it has to be laid out: the lowest common group of its two
// ends, between the two children of that group that contain the ends. That
// assignment does not depend on which groups are expanded, so expanding a
// group only invalidates the layout of that group and of its ancestors.

// A group starts collapsed when it has more than COLLAPSE_THRESHOLD direct
// children (members plus sub-groups), unless it is the only child of its
// parent (a lone wrapper such as a top-level module would otherwise hide the
// whole graph) and has at most LONE_GROUP_LIMIT children. Documented in
// docs/page.md.
export const COLLAPSE_THRESHOLD = 12;
export const LONE_GROUP_LIMIT = 100;

let nextUid = 1;

function splitNamespace(namespace) {
  if (typeof namespace !== 'string' || namespace === '') return [];
  return namespace.split('/').filter((part) => part !== '');
}

function attrValue(value) {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}

export class GraphModel {
  // view: the view object of the page data; graph: one Model Explorer
  // graph of its collection. The model keeps references to the data, it
  // never modifies it.
  constructor(view, graph) {
    this.viewId = view.id;
    this.id = String(graph.id);
    this.groupAttributes = (graph.groupNodeAttributes && typeof graph.groupNodeAttributes === 'object')
      ? graph.groupNodeAttributes : {};
    this.root = this.makeGroup('', '', null);
    this.groups = new Map();
    this.nodes = [];
    this.nodeById = new Map();
    this.edges = [];
    const rawNodes = Array.isArray(graph.nodes) ? graph.nodes : [];
    for (const raw of rawNodes) {
      if (!raw || raw.id === undefined || raw.id === null) continue;
      const id = String(raw.id);
      if (this.nodeById.has(id)) continue; // ids are unique; keep the first
      const parts = splitNamespace(raw.namespace);
      const parent = this.ensureGroup(parts);
      const node = {
        kind: 'node', uid: nextUid++, id, parent,
        label: raw.label === undefined || raw.label === null ? id : String(raw.label),
        namespace: parts.join('/'),
        attrs: Array.isArray(raw.attrs)
          ? raw.attrs.filter((a) => a && a.key !== undefined)
            .map((a) => ({ key: String(a.key), value: attrValue(a.value) }))
          : [],
        incoming: Array.isArray(raw.incomingEdges) ? raw.incomingEdges : [],
        out: [], in: [], index: this.nodes.length,
        // Model Explorer fields the page honours: the node's default style,
        // the summary node of a group (config.pinToGroupTop) and the graphs
        // the node opens (subgraphIds).
        style: raw.style && typeof raw.style === 'object' ? raw.style : null,
        pinned: !!(raw.config && raw.config.pinToGroupTop === true),
        subgraphIds: Array.isArray(raw.subgraphIds) ? raw.subgraphIds.map(String) : [],
      };
      this.nodes.push(node);
      this.nodeById.set(id, node);
      parent.children.push(node);
      if (node.pinned && parent !== this.root && !parent.summary) parent.summary = node;
      for (let g = parent; g; g = g.parent) g.nodeCount++;
    }
    for (const node of this.nodes) {
      for (const edge of node.incoming) {
        const source = edge ? this.nodeById.get(String(edge.sourceNodeId)) : undefined;
        if (!source || source === node) continue;
        this.edges.push({ from: source, to: node });
        source.out.push(node);
        node.in.push(source);
      }
      delete node.incoming;
    }
    for (const edge of this.edges) this.assignLevelEdge(edge);
    for (const group of this.groups.values()) {
      const lone = group.parent.children.length === 1;
      group.expanded = group.children.length <= COLLAPSE_THRESHOLD || (lone && group.children.length <= LONE_GROUP_LIMIT);
    }
  }

  makeGroup(path, name, parent) {
    return {
      kind: 'group', uid: nextUid++, path, name, parent, children: [],
      depth: parent ? parent.depth + 1 : 0, nodeCount: 0, expanded: true, summary: null,
      levelEdges: [], levelEdgeKeys: new Set(), layout: null,
    };
  }

  ensureGroup(parts) {
    let group = this.root;
    let path = '';
    for (const part of parts) {
      path = path ? `${path}/${part}` : part;
      let child = this.groups.get(path);
      if (!child) {
        child = this.makeGroup(path, part, group);
        this.groups.set(path, child);
        group.children.push(child);
      }
      group = child;
    }
    return group;
  }

  // Groups from the outermost to the item's parent.
  static ancestors(item) {
    const chain = [];
    for (let g = item.parent; g && g.parent; g = g.parent) chain.push(g);
    return chain.reverse();
  }

  assignLevelEdge(edge) {
    const a = GraphModel.ancestors(edge.from);
    const b = GraphModel.ancestors(edge.to);
    let depth = 0;
    while (depth < a.length && depth < b.length && a[depth] === b[depth]) depth++;
    const level = depth === 0 ? this.root : a[depth - 1];
    const fromChild = depth < a.length ? a[depth] : edge.from;
    const toChild = depth < b.length ? b[depth] : edge.to;
    if (fromChild === toChild) return;
    const key = `${fromChild.uid}>${toChild.uid}`;
    if (level.levelEdgeKeys.has(key)) return;
    level.levelEdgeKeys.add(key);
    level.levelEdges.push([fromChild, toChild]);
  }

  // The item drawn for a node: the node itself, or its outermost collapsed
  // ancestor group.
  visibleItem(item) {
    let visible = item;
    for (let g = item.kind === 'group' ? item.parent : item.parent; g && g.parent; g = g.parent) {
      if (!g.expanded) visible = g;
    }
    return visible;
  }

  // Resolves a node id or a namespace path to a node or group item.
  resolve(name) {
    const key = String(name);
    return this.nodeById.get(key) || this.groups.get(splitNamespace(key).join('/')) || null;
  }

  // Expands every ancestor group of an item; returns true when something
  // changed (the caller then re-renders).
  reveal(item) {
    let changed = false;
    for (let g = item.parent; g && g.parent; g = g.parent) {
      if (!g.expanded) { g.expanded = true; changed = true; }
    }
    // Every ancestor's cached layout, the root's included, holds the old
    // (collapsed) size of the group that changed: drop them, as setExpanded does.
    if (changed) for (let g = item.parent; g; g = g.parent) g.layout = null;
    return changed;
  }

  setExpanded(group, expanded) {
    if (group === this.root || group.expanded === expanded) return;
    group.expanded = expanded;
    for (let g = group; g; g = g.parent) g.layout = null;
  }
}

// Index over the whole page document. Owns the GraphModels it creates.
export class PageData {
  constructor(doc) {
    this.doc = doc;
    this.title = typeof doc.title === 'string' ? doc.title : 'mlia check';
    // the view registry: ids, labels and order come from the data
    // (contract.js); the page keeps no list of views of its own
    this.views = Array.isArray(doc.views) ? doc.views.filter((v) => v && typeof v.id === 'string') : [];
    this.viewIds = this.views.map((v) => v.id);
    this.viewById = new Map(this.views.map((v) => [v.id, v]));
    this.entities = doc.entities && typeof doc.entities === 'object' ? doc.entities : {};
    this.entityNodes = doc.entity_nodes && typeof doc.entity_nodes === 'object' ? doc.entity_nodes : {};
    this.tableColumns = doc.table_columns && typeof doc.table_columns === 'object' ? doc.table_columns : {};
    this.models = new Map();
    // module groups (issue 29, 7): an nn_module entity stands for the
    // namespace group of its path ("features.conv1" -> "features/conv1",
    // docs/views.md) in every graph where one of its operators sits in
    // that group; the group shows the module's total, the entity's
    // location is the group (for the table and "locate")
    this.groupEntities = new Map();
    this.groupLocations = new Map();
    this.indexModuleGroups();
    this.syncIndex = new Map();
    for (const entry of Array.isArray(doc.sync) ? doc.sync : []) {
      if (!entry || !entry.from || !Array.isArray(entry.to)) continue;
      const key = PageData.locationKey(entry.from);
      const list = this.syncIndex.get(key) || [];
      for (const target of entry.to) if (target) list.push(target);
      this.syncIndex.set(key, list);
    }
  }

  // The namespace of node `id` in graph `graphId` of view `viewId` (raw
  // page data), or null.
  nodeNamespace(viewId, graphId, id) {
    const key = `${viewId}\u0000${graphId}`;
    let index = this.namespaceIndex.get(key);
    if (!index) {
      index = new Map();
      const view = this.viewById.get(viewId);
      const graphs = view && view.collection && Array.isArray(view.collection.graphs) ? view.collection.graphs : [];
      const graph = graphs.find((g) => g && String(g.id) === String(graphId));
      for (const n of graph && Array.isArray(graph.nodes) ? graph.nodes : []) {
        if (n && n.id !== undefined && typeof n.namespace === 'string') index.set(String(n.id), n.namespace);
      }
      this.namespaceIndex.set(key, index);
    }
    return index.has(String(id)) ? index.get(String(id)) : null;
  }

  indexModuleGroups() {
    this.namespaceIndex = new Map();
    for (const [id, e] of Object.entries(this.entities)) {
      if (!e || e.kind !== 'nn_module' || typeof e.name !== 'string' || !e.name) continue;
      const path = e.name.split('.').filter((p) => p).join('/');
      // its operators: children, and children of its sub-modules
      const seen = new Set([id]);
      const todo = [e];
      const found = new Set();
      while (todo.length && seen.size < 10000) {
        const cur = todo.pop();
        for (const rel of Array.isArray(cur.related) ? cur.related : []) {
          if (!rel || rel.relation !== 'child' || seen.has(String(rel.id))) continue;
          const cid = String(rel.id);
          seen.add(cid);
          const child = this.entity(cid);
          if (child && child.kind === 'nn_module') todo.push(child);
          const list = Object.prototype.hasOwnProperty.call(this.entityNodes, cid) ? this.entityNodes[cid] : null;
          for (const loc of Array.isArray(list) ? list : []) {
            if (!loc) continue;
            const ns = this.nodeNamespace(loc.view, loc.graph, loc.node);
            if (ns === null || (ns !== path && !ns.startsWith(`${path}/`))) continue;
            const group = { view: String(loc.view), graph: String(loc.graph), node: path };
            const key = PageData.locationKey(group);
            if (found.has(key)) continue;
            found.add(key);
            this.groupEntities.set(key, id);
            const locs = this.groupLocations.get(id) || [];
            locs.push(group);
            this.groupLocations.set(id, locs);
          }
        }
      }
    }
  }

  static locationKey(loc) {
    return JSON.stringify([String(loc.view), String(loc.graph), String(loc.node)]);
  }

  isAvailable(viewId) {
    const view = this.viewById.get(viewId);
    return !!(view && view.available && view.collection && Array.isArray(view.collection.graphs)
      && view.collection.graphs.length > 0);
  }

  graphIds(viewId) {
    if (!this.isAvailable(viewId)) return [];
    return this.viewById.get(viewId).collection.graphs.map((g) => String(g.id));
  }

  model(viewId, graphId) {
    const key = JSON.stringify([viewId, String(graphId)]);
    let model = this.models.get(key);
    if (model) return model;
    if (!this.isAvailable(viewId)) return null;
    const view = this.viewById.get(viewId);
    const graph = view.collection.graphs.find((g) => String(g.id) === String(graphId));
    if (!graph) return null;
    model = new GraphModel(view, graph);
    this.markDistinct(model);
    this.models.set(key, model);
    return model;
  }

  // Nodes of one graph that read alike (same label) get `tell`, what tells
  // them apart, and `display`, the label shown: "stem · aten.convolution.default".
  // Entities: distinctOf(); other nodes: their id's last part.
  markDistinct(model) {
    const byLabel = new Map();
    for (const node of model.nodes) {
      const list = byLabel.get(node.label) || [];
      list.push(node);
      byLabel.set(node.label, list);
    }
    for (const list of byLabel.values()) {
      if (list.length < 2) continue;
      for (const node of list) {
        node.tell = this.distinctOf(node.id) || node.id.slice(node.id.lastIndexOf('/') + 1);
        // what tells it apart first: a long label is cut at its end
        if (node.tell && node.tell !== node.label) node.display = `${node.tell} \u00b7 ${node.label}`;
      }
    }
  }

  // What tells an entity apart from the other entities of its kind and name
  // (issue: three "aten.convolution.default" nodes and rows): its module
  // path when those differ across the namesakes, else its source location,
  // else its node name; null when the name is its own.
  distinctOf(id) {
    const entity = this.entity(id);
    if (!entity || entity.name === undefined) return null;
    if (!this.namesakes) {
      this.namesakes = new Map();
      for (const [eid, e] of Object.entries(this.entities)) {
        if (!e || e.name === undefined) continue;
        const key = `${e.kind}\u0000${e.name}`;
        const list = this.namesakes.get(key) || [];
        list.push(eid);
        this.namesakes.set(key, list);
      }
      this.tells = new Map();
    }
    if (this.tells.has(id)) return this.tells.get(id);
    // the C writer's one display name (src/analysis/display_name.c):
    // "name (tell)", or the name alone
    const given = entity.attributes && typeof entity.attributes.display_name === 'string' ? entity.attributes.display_name : null;
    const name = String(entity.name);
    if (given !== null && (given === name || (given.startsWith(`${name} (`) && given.endsWith(')')))) {
      const tell = given === name ? null : given.slice(name.length + 2, -1);
      this.tells.set(id, tell);
      return tell;
    }
    const list = this.namesakes.get(`${entity.kind}\u0000${entity.name}`) || [];
    let tell = null;
    if (list.length > 1) {
      const attr = (eid, key) => {
        const a = this.entities[eid].attributes;
        return a && typeof a === 'object' && typeof a[key] === 'string' ? a[key] : null;
      };
      const nameOf = (ref) => {
        const e = ref ? this.entity(ref) : null;
        return e && e.name !== undefined ? String(e.name) : null;
      };
      const criteria = [(eid) => nameOf(attr(eid, 'nn_module')), (eid) => nameOf(attr(eid, 'code_stack')),
        (eid) => attr(eid, 'node_name'), (eid) => eid.slice(eid.lastIndexOf('/') + 1)];
      for (const get of criteria) {
        const values = list.map(get);
        if (values.every((v) => v) && new Set(values).size === values.length) {
          list.forEach((eid, i) => this.tells.set(eid, values[i]));
          tell = values[list.indexOf(id)];
          break;
        }
      }
    }
    this.tells.set(id, tell);
    return tell;
  }

  // An entity's one display name: its name, with what tells it apart when
  // others of its kind share it ("aten.convolution.default (conv2)").
  displayName(id, entity) {
    const e = entity || this.entity(id);
    const name = e && e.name !== undefined ? String(e.name) : String(id);
    const tell = e ? this.distinctOf(id) : null;
    return tell ? `${name} (${tell})` : name;
  }

  entity(id) {
    return Object.prototype.hasOwnProperty.call(this.entities, id) ? this.entities[id] : null;
  }

  entityLocations(id) {
    const list = Object.prototype.hasOwnProperty.call(this.entityNodes, id) ? this.entityNodes[id] : null;
    return Array.isArray(list) ? list : (this.groupLocations.get(id) || []);
  }

  overlays(viewId) {
    const view = this.viewById.get(viewId);
    return view && Array.isArray(view.overlays) ? view.overlays : [];
  }

  // Entity id of a selected item: a node whose id is an entity id, a group
  // whose namespace path is one, or (with its view and graph) a module
  // group naming its nn_module entity.
  entityIdOf(item, viewId, graphId) {
    const id = item.kind === 'node' ? item.id : item.path;
    if (this.entity(id)) return id;
    if (item.kind !== 'group' || viewId === undefined) return null;
    return this.groupEntities.get(PageData.locationKey({ view: viewId, graph: graphId, node: item.path })) || null;
  }

  // Every location related to a selected item in view/graph: explicit sync
  // entries, the other locations of the same entity, and the locations of
  // its related entities. Ordered and de-duplicated.
  relatedLocations(viewId, graphId, item) {
    const name = item.kind === 'node' ? item.id : item.path;
    const out = [];
    const seen = new Set([PageData.locationKey({ view: viewId, graph: graphId, node: name })]);
    const add = (loc) => {
      if (!loc || loc.view === undefined || loc.node === undefined) return;
      const key = PageData.locationKey(loc);
      if (seen.has(key)) return;
      seen.add(key);
      out.push({ view: String(loc.view), graph: String(loc.graph), node: String(loc.node) });
    };
    for (const loc of this.syncIndex.get(PageData.locationKey({ view: viewId, graph: graphId, node: name })) || []) add(loc);
    const entityId = this.entityIdOf(item, viewId, graphId);
    if (entityId) {
      for (const loc of this.entityLocations(entityId)) add(loc);
      const entity = this.entity(entityId);
      for (const rel of Array.isArray(entity.related) ? entity.related : []) {
        if (rel) for (const loc of this.entityLocations(String(rel.id))) add(loc);
      }
    }
    return out;
  }
}
