// The page-data contract (docs/page.md, "Data contract"; viewer/src/contract.js),
// tested from both sides:
// - the C side writes what the contract says: the pages `$BUILD/mlia check`
//   and `mlia compare` write keep it, and their views are the rows of the C
//   view table (VIEWS of src/report/views/views.c) with the same ids, labels
//   and order, as in manifest.json;
// - the page accepts exactly that: every rule refuses the document that
//   breaks it (checkPage, then the page itself shows the refusal), and the
//   page offers the views of the data, in its order and with its labels,
//   including a view it has never heard of (one row added to the C table
//   needs no change in the page).
import { describe, test, before, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { checkPage, PAGE_SCHEMA } from '../src/contract.js';
import { startBrowser, openPage, loadData, writePage } from './helpers.mjs';
import { skipReason, generate, makeTempRoot, embeddedData, MLIA, REPO } from './generated-helpers.mjs';

const basic = loadData('basic.json');
const copy = (x) => JSON.parse(JSON.stringify(x));

// [what is broken, how, the problem checkPage names]
const BROKEN = [
  ['not an object', () => [1], 'the embedded data: expected a JSON object'],
  ['schema', (d) => { d.schema = 'mlia.page/2'; }, 'schema: expected "mlia.page/1", found "mlia.page/2"'],
  ['title', (d) => { delete d.title; }, 'title: expected a string'],
  ['notes', (d) => { d.notes = ['a', 2]; }, 'notes: expected an array of strings'],
  ['no views', (d) => { d.views = []; }, 'views: expected a non-empty array of views'],
  ['view id', (d) => { d.views[1].id = 'Bad Id'; }, 'views[1].id: expected a view id (lower case letters, digits, _)'],
  ['view label', (d) => { d.views[1].label = ''; }, 'views[1].label: expected a non-empty string'],
  ['available', (d) => { d.views[0].available = 'yes'; }, 'views[0].available: expected true or false'],
  ['reason of an available view', (d) => { d.views[0].reason = 'x'; }, 'views[0].reason: expected null for an available view'],
  ['collection of an available view', (d) => { d.views[0].collection = null; }, 'views[0].collection: expected a graph collection {label, graphs: [...]}'],
  ['reason of an unavailable view', (d) => { d.views[4].reason = null; }, 'views[4].reason: expected the reason the view is unavailable'],
  ['collection of an unavailable view', (d) => { d.views[4].collection = d.views[0].collection; }, 'views[4].collection: expected null for an unavailable view'],
  ['overlays', (d) => { d.views[0].overlays = {}; }, 'views[0].overlays: expected an array'],
  ['overlay', (d) => { d.views[0].overlays.push({ id: 'x' }); }, `views[0].overlays[${basic.views[0].overlays.length}]: expected an object with string id and label`],
  ['duplicate view', (d) => { d.views[2].id = d.views[0].id; }, 'views[2].id: "source_model" is listed twice'],
  ['initial view', (d) => { d.initial_view = 'memory'; }, 'initial_view: expected the id of one of the views'],
  ['not applicable', (d) => { d.not_applicable = ['memory']; }, 'not_applicable: "memory" is not the id of a view'],
  ['headline', (d) => { d.headline = 'ok'; }, 'headline: expected an object'],
  ['advice', (d) => { d.advice = [{ id: 'x' }]; }, 'advice: expected an array of objects with a string message'],
  ['advice not an array', (d) => { d.advice = 'x'; }, 'advice: expected an array of objects with a string message'],
  ['sync', (d) => { d.sync = {}; }, 'sync: expected an array'],
  ['entities', (d) => { d.entities = []; }, 'entities: expected an object'],
  ['table columns of no view', (d) => { d.table_columns.memory = ['x']; }, 'table_columns: "memory" is not the id of a view'],
  ['timeline', (d) => { d.timeline = []; }, 'timeline: expected an object'],
  ['compare without its baseline', (d) => { d.compare = {}; }, 'compare: "compare" and "baseline_page" come together'],
  ['baseline page', (d) => { d.compare = {}; d.baseline_page = copy(basic); d.baseline_page.views[0].label = 7; }, 'baseline_page.views[0].label: expected a non-empty string'],
];

test('checkPage accepts the test data and refuses every broken rule by name', () => {
  assert.equal(checkPage(basic), null);
  assert.equal(checkPage(loadData('xss.json')), null);
  assert.equal(basic.schema, PAGE_SCHEMA);
  for (const [what, breakIt, problem] of BROKEN) {
    const d = copy(basic);
    const replaced = breakIt(d);
    assert.equal(checkPage(replaced || d), problem, what);
  }
});

// A view the page has never heard of, in the middle of the registry, and
// the C views in another order: the page follows the data.
function withNewView() {
  const d = copy(basic);
  const memory = {
    id: 'memory_plan', label: 'Memory Plan', available: true, reason: null,
    collection: { label: 'memory', graphs: [{ id: 'arenas', nodes: [
      { id: 'arena:0', label: 'planned arena', namespace: '', attrs: [{ key: 'bytes', value: '4096' }], incomingEdges: [] },
      { id: 'arena:1', label: 'scratch arena', namespace: '', attrs: [], incomingEdges: [{ sourceNodeId: 'arena:0' }] },
    ] }] },
    overlays: [],
  };
  d.views = [d.views[3], d.views[0], memory, d.views[4], d.views[1], d.views[2]];
  d.table_columns.memory_plan = [];
  return d;
}

describe('the page offers exactly the views of the data', () => {
  let browser;
  let current = null;
  before(async () => { browser = await startBrowser(); });
  after(async () => {
    await browser.close();
    assert.deepEqual(browser.requests, [], 'no request may leave the page');
  });
  afterEach(async () => {
    if (!current) return;
    const { problems } = current;
    await current.close();
    current = null;
    assert.deepEqual(problems, [], 'no console error, page error or dialog');
  });

  test('ids, labels and order from the data, a new view included', async () => {
    const d = withNewView();
    assert.equal(checkPage(d), null);
    current = await openPage(browser, d);
    const { page } = current;
    const options = await page.locator('.pane[data-pane="0"] select.view-select option').evaluateAll((els) => els.map((e) => [e.value, e.textContent]));
    assert.deepEqual(options, d.views.map((v) => [v.id, v.available ? v.label : `${v.label} (unavailable)`]));
    // the second pane: the first other available view in the data's order
    assert.equal(await page.inputValue('.pane[data-pane="0"] select.view-select'), d.initial_view);
    assert.equal(await page.inputValue('.pane[data-pane="1"] select.view-select'), 'etdump_backend_trace');
    await page.selectOption('.pane[data-pane="1"] select.view-select', 'memory_plan');
    assert.equal(await page.locator('.pane[data-pane="1"] g.node[data-node="arena:1"]').count(), 1);
    await page.fill('#search', 'scratch arena');
    const where = await page.locator('#search-results .result-where').allTextContents();
    assert.deepEqual(where, ['Memory Plan / arenas']);
    assert.match(await page.textContent('#banner'), /Unavailable views \(1\)PTE - VGF Backend Hierarchy: /);
  });

  test('a document outside the contract is refused, with the rule it breaks', async () => {
    const d = copy(basic);
    d.views[1].label = '';
    const written = writePage(d);
    const page = await browser.context.newPage();
    await page.goto(written.url);
    await page.waitForSelector('body[data-ready="error"]');
    assert.equal(await page.textContent('#banner'),
      'This page cannot be shown: the embedded data breaks the page contract (views[1].label: expected a non-empty string).');
    assert.equal(await page.locator('.pane').count(), 0);
    await page.close();
    written.cleanup();
  });
});

const SKIP = skipReason();

// The rows of the C view registry: the shared table VIEWS of
// src/report/views/views.c and every backend's table
// (src/backends/<name>/report/*.c, `views` of its out), each row
// {"id", "label", ..., preferred, order, needs_companion}, in the order the
// writer gives them (by `order`; ties: shared rows first, then backends).
function cViewTable() {
  const files = [join(REPO, 'src', 'report', 'views', 'views.c')];
  const backends = join(REPO, 'src', 'backends');
  for (const b of readdirSync(backends, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name).sort()) {
    const dir = join(backends, b, 'report');
    let names = [];
    try { names = readdirSync(dir).filter((n) => n.endsWith('.c')).sort(); } catch { names = []; }
    for (const n of names) files.push(join(dir, n));
  }
  const rows = [];
  for (const f of files) {
    const src = readFileSync(f, 'utf8');
    for (const table of src.matchAll(/(?:static )?const vw_view_def \w+\[[^\]]*\] = \{([\s\S]*?)\n\};/g)) {
      const starts = [...table[1].matchAll(/^ {4}\{"([a-z0-9_]+)", "([^"]+)",/gm)];
      starts.forEach((m, i) => {
        const body = table[1].slice(m.index, i + 1 < starts.length ? starts[i + 1].index : undefined);
        const tail = [...body.matchAll(/(?:true|false), (\d+), (?:true|false)[,}]/g)].pop();
        assert.ok(tail, `${f}: row ${m[1]} has no order`);
        rows.push({ id: m[1], label: m[2], order: Number(tail[1]), at: rows.length });
      });
    }
  }
  rows.sort((a, b) => a.order - b.order || a.at - b.at);
  return rows.map((r) => [r.id, r.label]);
}

test('the page source names no view of the C table (it has no list of views of its own)', () => {
  const table = cViewTable();
  assert.ok(table.length >= 5);
  const dir = join(REPO, 'viewer', 'src');
  const found = [];
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.js'))) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const [id] of table) if (new RegExp(`['"\`]${id}['"\`]`).test(text)) found.push(`${f}: ${id}`);
    if (/VIEW_ORDER/.test(text)) found.push(`${f}: VIEW_ORDER`);
  }
  assert.deepEqual(found, []);
});

describe('pages written by the C tool keep the contract', { skip: SKIP ? `cannot generate pages: ${SKIP}` : false }, () => {
  let root;
  before(() => { root = makeTempRoot(); });
  after(() => { rmSync(root, { recursive: true, force: true }); });

  test('mlia check and mlia compare pages: contract kept, views = the C table = manifest.json', () => {
    const table = cViewTable();
    assert.ok(table.length >= 5, 'the C view table was read');
    const pages = [];
    for (const [name, companion] of [['demo', false], ['vww4', true]]) {
      const page = generate(root, name, companion);
      const data = embeddedData(page);
      assert.equal(checkPage(data), null, `${name}: ${checkPage(data)}`);
      assert.deepEqual(data.views.map((v) => [v.id, v.label]), table, name);
      const manifest = JSON.parse(readFileSync(join(root, name, 'mlia-output', 'model-explorer', 'manifest.json'), 'utf8'));
      assert.deepEqual(manifest.views.map((v) => [v.id, v.label]), table, `${name}: manifest.json`);
      pages.push(join(root, name, 'mlia-output'));
    }
    // a comparison page (a run against itself): its baseline page too
    const out = join(root, 'cmp');
    execFileSync(MLIA, ['compare', pages[0], pages[0], '--output-dir', out, '-q']);
    const cmp = embeddedData(join(out, 'compare', 'compare.html'));
    assert.ok(cmp.compare && cmp.baseline_page);
    assert.equal(checkPage(cmp), null, String(checkPage(cmp)));
  });
});
