// The comparison page in headless Chromium, written by `mlia compare` for
// two demo captures of the same program with known changes (the scenario
// of tests/py/test_compare.py: aten_relu_default_2 20 % slower, chain 33
// 10 % cheaper):
// - it opens on the view and node of the largest regression, selected in
//   the new run's pane;
// - the changes panel opens on the model's lines (inference time,
//   inferences/s, total cycles: baseline, new, delta, change, verdict),
//   then lists every changed entity by name and source location with its
//   worst metric (baseline, new, delta, change, verdict with its samples),
//   with the entity counts; a click on a row locates its entity;
// - the entity table of every view has baseline, new and delta columns;
// - the overlay is a diverging scale centred on 0 (slower red, faster
//   green) with a human label, and node texts name the metric for people.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, screenshot } from './helpers.mjs';
import { skipReason, makeTempRoot, embeddedData, openFile, MLIA, MKFIXTURE, SAMPLES } from './generated-helpers.mjs';

const SKIP = skipReason();
const SKIP_REASON = SKIP ? `cannot generate pages: ${SKIP}` : false;

function planEntry(desc, kernel) {
  return desc.plan.find((p) => p.kernel === kernel);
}

// Baseline and new descriptions of the demo sample (same program).
function scenario() {
  const base = JSON.parse(readFileSync(join(SAMPLES, 'demo.json'), 'utf8'));
  planEntry(base, 'aten_relu_default_2').durations = [420, 430, 425];
  planEntry(base, 'aten_permute_copy_default_1').durations = [2900, 3000, 2950];
  const next = JSON.parse(JSON.stringify(base));
  planEntry(next, 'aten_relu_default_2').durations = [504, 516, 510];
  planEntry(next, 'aten_permute_copy_default_1').durations = [2960, 2940, 2990];
  const seg = next.plan.find((p) => p.delegate).nx_segments[0];
  for (const k of Object.keys(seg.counters['6'])) seg.counters['6'][k] = Math.floor(seg.counters['6'][k] * 0.9);
  return { base, next };
}

function checkRun(root, name, desc, ...extra) {
  const dir = join(root, name);
  const file = join(root, `${name}.json`);
  writeFileSync(file, JSON.stringify(desc));
  execFileSync('python3', [MKFIXTURE, file, dir], { stdio: 'ignore' });
  execFileSync(MLIA, ['check', join(dir, 'demo.etrecord'), '--target-profile', 'neural-technology', '--performance',
    '--profiling-data', join(dir, 'demo.etdump'), '--output-dir', dir, '--model-explorer', 'files', '-q', ...extra]);
  return join(dir, 'mlia-output');
}

// One execution per side, relu_default_2 3x slower, the new run read with a clock half as fast (6x).
function oneExecution() {
  const base = JSON.parse(readFileSync(join(SAMPLES, 'demo.json'), 'utf8'));
  base.executions.count = 1;
  for (const p of base.plan) if (p.kernel) p.durations = [p.durations ? p.durations[0] : p.duration];
  planEntry(base, 'aten_relu_default_2').durations = [420];
  const next = JSON.parse(JSON.stringify(base));
  planEntry(next, 'aten_relu_default_2').durations = [1260];
  return { base, next };
}

describe('comparison page: regressions first', { skip: SKIP_REASON }, () => {
  let root;
  let browser;
  let pagePath;
  before(async () => {
    root = makeTempRoot();
    const { base, next } = scenario();
    const b = checkRun(root, 'base', base);
    const n = checkRun(root, 'new', next);
    execFileSync(MLIA, ['compare', b, n, '-q']);
    pagePath = join(n, 'compare', 'compare.html');
    browser = await startBrowser({ width: 1400, height: 900 });
  });
  after(async () => {
    if (browser) await browser.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('opens on the largest regression; the panel lists and locates every change', async () => {
    const data = embeddedData(pagePath);
    const cmp = data.compare;
    const relu = 'source_operator/forward/aten_relu_default_2';
    assert.equal(cmp.focus, relu);
    assert.equal(cmp.changes.length, 4); // one per entity
    assert.deepEqual(cmp.changes.map((c) => [c.entity_id, c.metric, c.verdict]), [
      [relu, 'execution_time (exclusive)', 'regression'],
      ['chain/segment_0/33', 'total_cycles', 'improvement'],
      ['stripe/segment_0/6', 'total_cycles', 'improvement'],
      ['cascade/segment_0/41', 'tu_active_cycles', 'improvement']]);
    assert.deepEqual([cmp.changes[0].entity_name, cmp.changes[0].location], ['aten.relu.default', 'head.py:9']);
    assert.deepEqual(cmp.headline.map((h) => h.series), ['inference_time', 'inferences_per_second', 'total_cycles']);
    assert.equal(cmp.entities[relu].metric, 'execution_time (exclusive)');
    assert.deepEqual([cmp.entities['chain/segment_0/33'].metric, cmp.entities['chain/segment_0/33'].slowdown], ['total_cycles', -10]);
    const focusView = data.entity_nodes[relu].find((l) => data.views.find((v) => v.id === l.view && v.available)).view;
    const opened = await openFile(browser, pagePath);
    const { page, problems } = opened;
    try {
      // the new run's pane shows the focus view with the regressed operator selected
      assert.equal(await page.inputValue('.pane[data-pane="0"] .view-select'), focusView);
      await page.waitForFunction((id) => document.body.getAttribute('data-located') === id, relu);
      const selected = await page.evaluate(() => document.body.getAttribute('data-selected'));
      assert.ok(selected.startsWith(`${focusView}|`), selected);
      assert.equal(await page.getAttribute('.pane[data-pane="0"] g.node.selected', 'data-node') !== null, true);
      // the panel: entity counts, the samples, the model's lines, every changed entity by name
      const head = await page.innerText('#compare-panel .compare-head');
      for (const t of ['1 regression', '0 likely regressions', '3 improvements', '28 unchanged', '0 inconclusive']) assert.match(head, new RegExp(t));
      assert.equal(await page.innerText('#compare-panel .compare-samples'),
        "Samples: 3 executions per side: changes beyond 5 % tested against the baseline's [min, max]");
      assert.equal(await page.locator('#compare-panel .compare-settings').count(), 0);
      const model = await page.locator('#compare-panel table.headline tbody tr').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
      assert.deepEqual(model[2], ['total_cycles', '230,600 cycles', '230,210 cycles', '-390 cycles', '-0.17 %', 'unchanged (3 samples each)']);
      assert.equal(model[0][0], 'inference_time');
      const rows = await page.locator('#compare-panel tr.change').evaluateAll((trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
      assert.equal(rows.length, 4);
      assert.deepEqual(rows[0], ['regression (3 samples each)', 'aten.relu.default at head.py:9', 'execution_time (exclusive)',
        '0.0004250 ms', '0.0005100 ms', '+0.00008500 ms', '+20 % slower']);
      assert.deepEqual(rows[1], ['improvement (3 samples each)', 'Chain 33', 'total_cycles', '3,900 cycles', '3,510 cycles',
        '-390 cycles', '-10 % faster']);
      assert.ok(rows.slice(1).every((r) => r[0].startsWith('improvement') && r[6] === '-10 % faster'), JSON.stringify(rows.slice(1)));
      assert.equal(await page.getAttribute('#compare-panel tr.change.current', 'data-index'), '0');
      // issue 29: at 1280 x 800 the changes panel (4 changes here) leaves the graph room
      // (about 230 px before the compare page's smaller entity table and changes list)
      await page.setViewportSize({ width: 1280, height: 800 });
      const canvas = await page.locator('.pane[data-pane="0"] svg.canvas').boundingBox();
      assert.ok(canvas.height >= 250, `canvas ${canvas.height} px`);
      await page.setViewportSize({ width: 1600, height: 1000 });
      // the entity table of the view: baseline, new and delta of each entity's change
      const heads = await page.locator('#entity-table thead th').allTextContents();
      for (const h of ['Baseline', 'New', '\u0394', 'Change %', 'Verdict']) assert.ok(heads.includes(h), JSON.stringify(heads));
      const reluRow = await page.locator(`#entity-table tbody tr[data-entity="${relu}"] td`).allTextContents();
      const at = (h) => reluRow[heads.indexOf(h)];
      assert.deepEqual([at('Baseline'), at('New'), at('\u0394'), at('Change %'), at('Verdict')],
        ['0.0004250 ms', '0.0005100 ms', '+0.00008500 ms', '+20 %', 'regression']);
      // the overlay: first, human label, diverging scale centred on 0
      assert.equal(await page.inputValue('.pane[data-pane="0"] .overlay-select'), 'compare_change');
      const legend = await page.innerText('.pane[data-pane="0"] .legend');
      assert.match(legend, /^Change vs baseline/);
      assert.match(legend, /-20 faster/);
      assert.match(legend, /\+20 slower/);
      assert.equal(await page.locator('.pane[data-pane="0"] .legend line.legend-center').count(), 1);
      // a click on an improvement locates its entity (chain 33) in the new pane
      const chainRow = page.locator('#compare-panel tr.change[data-entity="chain/segment_0/33"]').first();
      await chainRow.scrollIntoViewIfNeeded();
      await chainRow.click();
      await page.waitForFunction(() => document.body.getAttribute('data-located') === 'chain/segment_0/33');
      assert.match(await page.evaluate(() => document.body.getAttribute('data-selected')), /chain/);
      // the baseline pane followed to the same view and shows the same chain
      const view = await page.inputValue('.pane[data-pane="0"] .view-select');
      assert.equal(await page.inputValue('.pane[data-pane="1"] .view-select'), view);
      await page.waitForSelector('.pane[data-pane="1"] g.related[data-node="chain/segment_0/33"]');
      assert.equal(await chainRow.getAttribute('class'), 'change improvement current');
      // the chain's node text names the metric for people and its colour is green
      const text = await page.locator('.pane[data-pane="0"] g.node.selected text').evaluateAll((ts) => ts.map((t) => t.textContent));
      // the box keeps whole words with the number (issue 29, 4: never "-10 % fas…");
      // the whole "-10 % faster · total_cycles" is the text's data-full
      assert.ok(text.some((t) => /^-10 %( faster)?$/.test(t)), JSON.stringify(text));
      const full = await page.locator('.pane[data-pane="0"] g.node.selected text.sub').getAttribute('data-full');
      assert.equal(full, '-10 % faster \u00b7 total_cycles');
      const fill = await page.getAttribute('.pane[data-pane="0"] g.node.selected rect.box', 'fill');
      const [r, g] = [parseInt(fill.slice(1, 3), 16), parseInt(fill.slice(3, 5), 16)];
      assert.ok(g > r, `improvement colour ${fill} is green`);
      await screenshot(page, 'compare-regressions-first');
      assert.deepEqual(problems, []);
    } finally {
      await opened.close();
    }
  });
});

describe('comparison page: one execution per side, another clock', { skip: SKIP_REASON }, () => {
  let root;
  let browser;
  let pagePath;
  before(async () => {
    root = makeTempRoot();
    const { base, next } = oneExecution();
    const b = checkRun(root, 'base1', base);
    const n = checkRun(root, 'new1', next, '--neural-technology-profiling-data.ticks-per-second', '500000000');
    execFileSync(MLIA, ['compare', b, n, '-q', '--allow-different-settings'], { stdio: 'ignore' });
    pagePath = join(n, 'compare', 'compare.html');
    browser = await startBrowser({ width: 1400, height: 900 });
  });
  after(async () => {
    if (browser) await browser.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('the likely regression is named with its samples; the settings warning is at the top', async () => {
    const relu = 'source_operator/forward/aten_relu_default_2';
    const cmp = embeddedData(pagePath).compare;
    // every time doubled with the clock; the delegate call's is the largest change in ms
    const focus = 'delegate_call/forward/0/0';
    assert.equal(cmp.focus, focus);
    assert.ok(cmp.changes.every((c) => c.verdict === 'likely_regression'), JSON.stringify(cmp.changes.map((c) => c.verdict)));
    const opened = await openFile(browser, pagePath);
    const { page, problems } = opened;
    try {
      await page.waitForFunction((id) => document.body.getAttribute('data-located') === id, focus);
      assert.equal(await page.innerText('#compare-panel .compare-settings'),
        'Settings differ: clock 500000000 ticks/s (baseline nanoseconds (the default))');
      assert.equal(await page.innerText('#compare-panel .compare-samples'),
        'Samples: 1 execution per side: changes beyond 5 % shown, not tested for noise (that takes 3 per side)');
      assert.match(await page.innerText('#compare-panel .compare-head'), /18 likely regressions/); // every timed entity
      const row = await page.locator(`#compare-panel tr.change[data-entity="${relu}"]`).evaluate((tr) => [...tr.children].map((td) => td.textContent));
      assert.deepEqual([row[0], row[1], row[6]], ['likely regression (1 sample each)', 'aten.relu.default at head.py:9', '+500 % slower']);
      assert.equal(await page.getAttribute('#compare-panel tr.change.current', 'data-entity'), focus);
      assert.deepEqual(problems, []);
    } finally {
      await opened.close();
    }
  });
});
