// GraphModel and level layout, without a browser.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphModel, PageData, COLLAPSE_THRESHOLD } from '../src/model.js';
import { layoutGroup, DAGRE_MAX_ITEMS } from '../src/layout.js';
import { loadData } from './helpers.mjs';

const data = loadData('basic.json');
const view = data.views[0];
const model = new GraphModel(view, view.collection.graphs[0]);

test('namespaces become nested groups; default collapse rule', () => {
  assert.deepEqual([...model.groups.keys()], ['features', 'classifier', 'classifier/head']);
  assert.equal(COLLAPSE_THRESHOLD, 12);
  const features = model.groups.get('features');
  assert.equal(features.children.length, 14);
  assert.equal(features.expanded, false); // 14 > 12
  assert.equal(model.groups.get('classifier').expanded, true); // 6 children
  assert.equal(model.groups.get('classifier').nodeCount, 7);
  assert.equal(model.root.children.map((c) => c.id || c.path).join(','), 'src:x,features,classifier,src:output');
});

test('edges are assigned to the level of their lowest common group', () => {
  const names = (g) => g.levelEdges.map(([a, b]) => `${a.id || a.path}>${b.id || b.path}`);
  assert.deepEqual(names(model.root), ['src:x>features', 'features>classifier', 'classifier>src:output']);
  assert.deepEqual(names(model.groups.get('classifier')), ['src:flatten>src:fc1', 'src:fc1>src:relu5', 'src:relu5>src:fc2', 'src:fc2>src:dropout', 'src:dropout>classifier/head']);
  assert.equal(model.groups.get('features').levelEdges.length, 13);
});

test('visible item is the outermost collapsed ancestor', () => {
  const conv1 = model.nodeById.get('src:conv1');
  assert.equal(model.visibleItem(conv1), model.groups.get('features'));
  assert.equal(model.visibleItem(model.nodeById.get('src:fc3')), model.nodeById.get('src:fc3'));
  assert.equal(model.resolve('classifier/head'), model.groups.get('classifier/head'));
  assert.equal(model.resolve('/classifier/head/'), model.groups.get('classifier/head'));
  assert.equal(model.resolve('nope'), null);
});

test('expanding invalidates only the group and its ancestors', () => {
  const m = new GraphModel(view, view.collection.graphs[0]);
  layoutGroup(m.root);
  const head = m.groups.get('classifier/head');
  const headLayout = head.layout;
  m.setExpanded(m.groups.get('features'), true);
  assert.equal(m.root.layout, null);
  assert.equal(m.groups.get('features').layout, null);
  assert.equal(head.layout, headLayout);
  assert.equal(m.reveal(m.nodeById.get('src:conv1')), false); // already expanded
});

test('related locations: sync entries, entity locations, related entities', () => {
  const page = new PageData(data);
  const item = page.model('source_model', 'forward').nodeById.get('src:fc1');
  const locs = page.relatedLocations('source_model', 'forward', item).map((l) => `${l.view}/${l.graph}/${l.node}`);
  assert.deepEqual(locs, [
    'segment_cascade_chain/nx/chain:1/0/0', 'etrecord_chain_mapping/mapping/chain:1/0/0',
    'etrecord_chain_mapping/mapping/src:fc1']);
});

function chainGroup(n) {
  const nodes = [];
  for (let i = 0; i < n; i++) {
    nodes.push({ id: `n${i}`, label: 'op', namespace: 'big', incomingEdges: i ? [{ sourceNodeId: `n${i - 1}` }] : [] });
    if (i > 10 && i % 7 === 0) nodes[i].incomingEdges.push({ sourceNodeId: `n${i - 10}` });
  }
  return new GraphModel({ id: 'v' }, { id: 'g', nodes });
}

// Its speed is measured by the benchmark (viewer/bench/bench.mjs, layout1000),
// never asserted here.
test('large levels use the linear layered layout: ranked, no overlap', () => {
  const m = chainGroup(1000);
  const big = m.groups.get('big');
  assert.equal(big.expanded, false);
  m.setExpanded(big, true);
  const layout = layoutGroup(big);
  assert.ok(1000 > DAGRE_MAX_ITEMS);
  for (const [a, b] of big.levelEdges) assert.ok(layout.pos.get(a.uid).y < layout.pos.get(b.uid).y, 'edges point down');
  const boxes = [...layout.pos.values()].sort((p, q) => p.y - q.y || p.x - q.x);
  for (let i = 1; i < boxes.length; i++) {
    const p = boxes[i - 1];
    const q = boxes[i];
    if (p.y === q.y) assert.ok(p.x + p.w <= q.x, 'no overlap within a rank');
  }
});

test('small levels use dagre; edgeless levels use a grid', () => {
  const m = chainGroup(20);
  m.setExpanded(m.groups.get('big'), true);
  const layout = layoutGroup(m.groups.get('big'));
  const ys = new Set([...layout.pos.values()].map((p) => Math.round(p.y)));
  assert.ok(ys.size > 10);
  const grid = new GraphModel({ id: 'v' }, { id: 'g', nodes: Array.from({ length: 16 }, (_, i) => ({ id: `n${i}`, label: 'x' })) });
  const gl = layoutGroup(grid.root);
  assert.equal(new Set([...gl.pos.values()].map((p) => p.y)).size, 4);
});
