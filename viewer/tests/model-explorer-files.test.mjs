// The files under mlia-output/model-explorer/ read the way Google's Model
// Explorer reads them, then shown by the page in headless Chromium.
//
// The page is given a document built ONLY from the Model Explorer files
// (models/*.json, node-data/**, sync/*.json), with Model Explorer's rules
// (its node_data_provider_extension_service.ts and sync_navigation_service.ts):
// - a node-data result key colours the op node whose id is the key, or whose
//   outputsMetadata has that tensor_name; any other key (e.g. a namespace)
//   colours nothing;
// - a sync file maps, for each node id, to the right (or left) ids of the
//   last mappingEntries entry that names it; ids are looked up in the graphs
//   of the two views named by the file (left pane, right pane).
// No entity index and no page sync data are given, so a colour or a
// highlight can only come from those files. Checks, for the demo (NX) and
// vww4 (companion PTE) runs: every group overlay colours some op node (its
// summary node) with the file's bgColor; every sync file, loaded as the two
// panes, highlights in the right pane exactly the mapped nodes of a
// selected left node.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { startBrowser, openPage } from './helpers.mjs';
import { skipReason, generate, makeTempRoot } from './generated-helpers.mjs';

const SKIP = skipReason();
const SKIP_REASON = SKIP ? `cannot generate files: ${SKIP}` : false;
const pane = (i) => `.pane[data-pane="${i}"]`;

function readJson(base, rel) {
  return JSON.parse(readFileSync(join(base, rel), 'utf8'));
}

// Model Explorer's node-data processing for one graph: result key -> op node id.
function meResults(graph, graphData) {
  const ids = new Set(graph.nodes.map((n) => n.id));
  const tensorToNode = {};
  for (const n of graph.nodes) {
    for (const md of n.outputsMetadata || []) {
      for (const a of md.attrs || []) if (a.key === 'tensor_name') tensorToNode[a.value] = n.id;
    }
  }
  const out = {};
  for (const [key, r] of Object.entries(graphData.results || {})) {
    const nodeId = tensorToNode[key] ?? key;
    if (ids.has(nodeId)) out[nodeId] = r;
  }
  return out;
}

// Model Explorer's reading of a sync file: last entry naming an id wins.
function meSync(doc) {
  const leftToRight = {};
  const rightToLeft = {};
  for (const e of doc.mappingEntries) {
    for (const l of e.leftNodeIds) leftToRight[l] = e.rightNodeIds;
    for (const r of e.rightNodeIds) rightToLeft[r] = e.leftNodeIds;
  }
  return { leftToRight, rightToLeft };
}

// A page document from the Model Explorer files only.
function docFromModelExplorerFiles(base, manifest, sync) {
  // with a sync file, only its two views (a pane shows exactly those)
  const shown = (v) => v.available && (!sync || v.id === sync.left || v.id === sync.right);
  const views = manifest.views.map((v) => {
    if (!shown(v)) return { id: v.id, label: v.label, available: false, reason: v.reason || `not part of ${sync.file}`, collection: null, overlays: [] };
    const collection = readJson(base, v.model);
    const overlays = v.overlays.map((o) => {
      const nd = readJson(base, o.file);
      const values = {};
      for (const g of collection.graphs) {
        if (!nd[g.id]) continue;
        for (const [nodeId, r] of Object.entries(meResults(g, nd[g.id]))) {
          values[`${g.id}/${nodeId}`] = { value: r.value, color: r.bgColor, text: String(r.value) };
        }
      }
      return { id: o.id, label: nd[Object.keys(nd)[0]].name, unit: o.unit, entity_kind: o.entity_kind,
        scale: o.scale, group_measurement: o.group_measurement, values };
    });
    return { id: v.id, label: v.label, available: true, reason: null, collection, overlays };
  });
  const byId = new Map(views.map((v) => [v.id, v]));
  const graphOf = (viewId, nodeId) => {
    const v = byId.get(viewId);
    const g = v.collection.graphs.find((gr) => gr.nodes.some((n) => n.id === nodeId));
    return g ? g.id : null;
  };
  const syncEntries = [];
  if (sync) {
    const { leftToRight, rightToLeft } = meSync(sync.doc);
    const add = (fromView, toView, map) => {
      for (const [id, targets] of Object.entries(map)) {
        const graph = graphOf(fromView, id);
        assert.ok(graph, `${sync.file}: ${id} is not a node of ${fromView}`);
        syncEntries.push({ from: { view: fromView, graph, node: id },
          to: targets.map((t) => {
            const tg = graphOf(toView, t);
            assert.ok(tg, `${sync.file}: ${t} is not a node of ${toView}`);
            return { view: toView, graph: tg, node: t };
          }) });
      }
    };
    add(sync.left, sync.right, leftToRight);
    add(sync.right, sync.left, rightToLeft);
  }
  return {
    schema: 'mlia.page/1', title: 'Model Explorer files', generated_by: 'test', warnings: [], assumptions: [], notes: [],
    initial_view: sync ? sync.left : manifest.initial_view,
    views, sync: syncEntries, entities: {}, entity_nodes: {}, table_columns: {},
  };
}

async function locate(page, id) {
  await page.fill('#search', id);
  await page.press('#search', 'Enter');
}

describe('Model Explorer files, read as Model Explorer reads them', { skip: SKIP_REASON }, () => {
  let root;
  let browser;
  const runs = {};

  before(async () => {
    root = makeTempRoot();
    for (const [name, companion] of [['demo', false], ['vww4', true]]) {
      const base = dirname(dirname(generate(root, name, companion)));
      runs[name] = { base, manifest: readJson(base, 'manifest.json') };
    }
    browser = await startBrowser();
  });
  after(async () => {
    if (browser) await browser.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  for (const name of ['demo', 'vww4']) {
    test(`${name}: every group overlay colours an op node`, async () => {
      const { base, manifest } = runs[name];
      const doc = docFromModelExplorerFiles(base, manifest, null);
      const opened = await openPage(browser, doc);
      const { page } = opened;
      let checked = 0;
      for (const view of doc.views) {
        for (const ov of view.overlays) {
          if (!ov.group_measurement) continue;
          const keys = Object.keys(ov.values);
          assert.ok(keys.length > 0, `${view.id}/${ov.id}: no result hits an op node`);
          const [graph, ...rest] = keys[0].split('/');
          const nodeId = rest.join('/');
          await page.selectOption(`${pane(0)} select.view-select`, view.id);
          if (await page.locator(`${pane(0)} select.graph-select option`).count() > 1) {
            await page.selectOption(`${pane(0)} select.graph-select`, graph);
          }
          await page.selectOption(`${pane(0)} select.overlay-select`, ov.id);
          await locate(page, nodeId);
          const box = page.locator(`${pane(0)} g.node[data-node="${nodeId}"] rect.box`);
          assert.equal(await box.getAttribute('fill'), ov.values[keys[0]].color, `${view.id}/${ov.id}: ${nodeId}`);
          checked++;
        }
      }
      assert.ok(checked >= (name === 'vww4' ? 4 : 3), `group overlays checked: ${checked}`);
      assert.deepEqual(opened.problems, []);
      await opened.close();
    });

    test(`${name}: every sync file links the two panes it names`, async () => {
      const { base, manifest } = runs[name];
      assert.ok(manifest.sync_navigation.length > 0);
      for (const p of manifest.sync_navigation) {
        const sync = { file: p.file, left: p.left_view, right: p.right_view, doc: readJson(base, p.file) };
        const doc = docFromModelExplorerFiles(base, manifest, sync);
        const opened = await openPage(browser, doc);
        const { page } = opened;
        await page.selectOption(`${pane(0)} select.view-select`, p.left_view);
        await page.selectOption(`${pane(1)} select.view-select`, p.right_view);
        const { leftToRight } = meSync(sync.doc);
        // a left node whose id is not also a node of the right view (so the
        // search finds it in the left pane only)
        const rightIds = new Set(doc.views.find((v) => v.id === p.right_view).collection.graphs
          .flatMap((g) => g.nodes.map((n) => n.id)));
        const left = Object.keys(leftToRight).find((id) => !rightIds.has(id)) ?? Object.keys(leftToRight)[0];
        await locate(page, left);
        assert.equal((await page.getAttribute('body', 'data-selected')).split('|')[2], left, p.file);
        const shown = await page.locator(`${pane(1)} g.related`).evaluateAll((els) => els.map((e) => e.getAttribute('data-node') ?? e.getAttribute('data-group')));
        assert.ok(shown.length > 0, `${p.file}: selecting ${left} highlights nothing in ${p.right_view}`);
        const graphShown = await page.getAttribute(pane(1), 'data-graph');
        const expected = leftToRight[left].filter((id) => doc.views.find((v) => v.id === p.right_view).collection.graphs
          .find((g) => g.id === graphShown).nodes.some((n) => n.id === id));
        assert.deepEqual(shown.sort(), expected.sort(), `${p.file}: ${left}`);
        assert.deepEqual(opened.problems, []);
        await opened.close();
      }
    });
  }
});
