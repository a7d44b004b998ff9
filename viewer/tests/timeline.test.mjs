// The Timeline tab and the comparison page in headless Chromium.
//
// 1. A page written by build/mlia for the demo sample: the tab renders the
//    same executions and events as mlia-output/trace.json (counts and names
//    per execution), hover shows the event's details, click locates its
//    entity in the graph views, wheel zooms around the cursor, drag pans.
// 2. Synthetic data of 1,000 executions x 2,000 events: the tab opens, draws
//    a bounded number of rectangles (level of detail), and zoom / scroll keep
//    drawing (speed is measured by bench/timeline-bench.mjs, not asserted).
// 3. A comparison page written by `mlia compare`: "New" and "Baseline" panes,
//    the change overlay selected first, selection in one pane revealing the
//    same node in the other.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser, openPage, loadData, screenshot } from './helpers.mjs';
import { skipReason, generate, makeTempRoot, embeddedData, openFile, clickNode, MLIA } from './generated-helpers.mjs';
import { largeTimeline } from './timeline-data.mjs';

const SKIP = skipReason();
const SKIP_REASON = SKIP ? `cannot generate pages: ${SKIP}` : false;

async function canvasPoint(page, track, depth, tick) {
  // content coordinates of the timeline (timeline.js: label 170 px, axis 22 px, row 16 px)
  return page.evaluate(([tr, d, t]) => {
    const root = document.getElementById('timeline');
    const [left, scale, top] = root.getAttribute('data-view').split('|').map(Number);
    const r = root.querySelector('canvas').getBoundingClientRect();
    return { x: r.x + 170 + (t - left) * scale, y: r.y + 22 + tr - top + d * 16 + 8 };
  }, [track, depth, tick]);
}

describe('timeline tab on a page written by build/mlia', { skip: SKIP_REASON }, () => {
  let root;
  let pagePath;
  let browser;
  before(async () => {
    root = makeTempRoot();
    pagePath = generate(root, 'demo', false);
    browser = await startBrowser();
  });
  after(async () => {
    if (browser) await browser.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('the tab shows the events of trace.json; hover, click, zoom and pan work', async () => {
    const data = embeddedData(pagePath);
    const trace = JSON.parse(readFileSync(join(root, 'demo', 'mlia-output', 'trace.json'), 'utf8'));
    // same executions and events as trace.json
    const tl = data.timeline;
    assert.equal(tl.executions.length, trace.metadata.executions);
    for (let k = 0; k < tl.executions.length; k++) {
      const x = trace.traceEvents.filter((e) => e.ph === 'X' && e.tid === k + 1);
      const flat = tl.executions[k].events;
      assert.equal(flat.length / 3, x.length);
      const names = [];
      for (let i = 0; i < flat.length; i += 3) names.push(tl.sites[flat[i + 2]][0]);
      assert.deepEqual(names, x.map((e) => e.name));
      let t = Number(tl.executions[k].start) * 1000;
      for (let i = 0, j = 0; i < flat.length; i += 3, j++) {
        t += flat[i];
        assert.equal(t / 1000, x[j].ts);
        assert.equal(flat[i + 1] / 1000, x[j].dur);
      }
    }
    const opened = await openFile(browser, pagePath);
    const { page, problems } = opened;
    try {
      await page.click('#tab-timeline');
      await page.waitForSelector('#timeline:not([hidden])[data-drawn]');
      assert.ok(Number(await page.getAttribute('#timeline', 'data-drawn')) > 20);
      assert.equal(await page.isVisible('#workspace'), false);
      // hover the DELEGATE_CALL of execution 1 (depth 1, from its start)
      const flat = tl.executions[0].events;
      const dc = tl.sites.findIndex((s) => s[1] === 'delegate');
      let t = 0;
      let tick = null;
      for (let i = 0; i < flat.length; i += 3) {
        t += flat[i];
        if (flat[i + 2] === dc) { tick = t + flat[i + 1] / 2; break; }
      }
      const p = await canvasPoint(page, 0, 1, tick);
      await page.mouse.move(p.x, p.y);
      await page.waitForSelector('.timeline-tooltip:not([hidden])');
      const tip = await page.innerText('.timeline-tooltip');
      assert.match(tip, /DELEGATE_CALL VgfBackend/);
      assert.match(tip, /entity delegate_call\/forward\/0\/0/);
      assert.match(tip, /debug handles 1, 2, 3, 4, 5, 6/);
      // issue 19, 6: milliseconds like the rest of the page, by the shared formatter
      assert.match(tip, /duration \d[\d,]*\.\d+ ms · start \+\d[\d,.]* ms/);
      assert.doesNotMatch(tip, /µs/);
      await screenshot(page, 'timeline-demo');
      // zoom in around the cursor
      const before = (await page.getAttribute('#timeline', 'data-view')).split('|').map(Number);
      await page.mouse.wheel(0, -400);
      await page.waitForFunction((b) => Number(document.getElementById('timeline').getAttribute('data-view').split('|')[1]) > b, before[1]);
      // drag pans
      const mid = (await page.getAttribute('#timeline', 'data-view')).split('|').map(Number);
      await page.mouse.move(p.x, p.y);
      await page.mouse.down();
      await page.mouse.move(p.x - 200, p.y, { steps: 4 });
      await page.mouse.up();
      await page.waitForFunction((l) => Number(document.getElementById('timeline').getAttribute('data-view').split('|')[0]) > l, mid[0]);
      // click an event: back to the graphs, entity located
      await page.click('.timeline-fit');
      await page.waitForTimeout(50);
      const q = await canvasPoint(page, 0, 1, tick);
      await page.mouse.click(q.x, q.y);
      await page.waitForFunction(() => document.body.getAttribute('data-located') === 'delegate_call/forward/0/0');
      assert.equal(await page.isVisible('#workspace'), true);
      const selected = await page.evaluate(() => document.body.getAttribute('data-selected'));
      assert.match(selected, /\|delegate_call\/forward\/0\/0$/);
      assert.deepEqual(problems, []);
    } finally {
      await opened.close();
    }
  });
});

describe('timeline tab at 1,000 executions x 2,000 events', () => {
  let browser;
  before(async () => { browser = await startBrowser(); });
  after(async () => { if (browser) await browser.close(); });

  test('opens, culls, zooms and scrolls', async () => {
    const data = loadData('basic.json');
    data.timeline = largeTimeline(1000, 2000);
    const opened = await openPage(browser, data);
    const { page, problems } = opened;
    try {
      await page.click('#tab-timeline');
      await page.waitForSelector('#timeline:not([hidden])[data-drawn]');
      const drawn = Number(await page.getAttribute('#timeline', 'data-drawn'));
      assert.ok(drawn > 0);
      assert.ok(drawn < 200000, `level of detail: ${drawn} rectangles drawn`);
      const box = await page.locator('.timeline-canvas').boundingBox();
      await page.mouse.move(box.x + 600, box.y + 200);
      for (let i = 0; i < 5; i++) await page.mouse.wheel(0, -600);
      await page.waitForFunction(() => document.getElementById('timeline').getAttribute('data-view').split('|')[1] > 0.01);
      await page.keyboard.down('Shift');
      await page.mouse.wheel(0, 5000);
      await page.keyboard.up('Shift');
      await page.waitForFunction(() => Number(document.getElementById('timeline').getAttribute('data-view').split('|')[2]) > 0);
      assert.ok(Number(await page.getAttribute('#timeline', 'data-drawn')) > 0);
      assert.deepEqual(problems, []);
    } finally {
      await opened.close();
    }
  });
});

describe('comparison page written by mlia compare', { skip: SKIP_REASON }, () => {
  let root;
  let browser;
  let comparePage;
  before(async () => {
    root = makeTempRoot();
    const demo = generate(root, 'demo', false);
    const base = join(root, 'demo', 'mlia-output');
    const out = join(root, 'cmp');
    execFileSync(MLIA, ['compare', base, base, '--output-dir', out, '-q']);
    comparePage = join(out, 'compare', 'compare.html');
    browser = await startBrowser();
    void demo;
  });
  after(async () => {
    if (browser) await browser.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  test('new and baseline panes, change overlay first, synced selection', async () => {
    const data = embeddedData(comparePage);
    assert.equal(data.schema, 'mlia.page/1');
    assert.equal(data.compare.summary.regressions, 0);
    assert.equal(data.baseline_page.schema, 'mlia.page/1');
    const opened = await openFile(browser, comparePage);
    const { page, problems } = opened;
    try {
      assert.deepEqual(await page.locator('.pane-tag').allInnerTexts(), ['New', 'Baseline']);
      assert.equal(await page.inputValue('.pane[data-pane="0"] .overlay-select'), 'compare_change');
      const chain = 'chain/segment_0/30';
      await clickNode(page, 0, chain);
      await page.waitForSelector(`.pane[data-pane="1"] g.related[data-node="${chain}"]`);
      assert.match(await page.innerText('#banner'), /Comparison with the baseline/);
      await screenshot(page, 'compare-demo');
      assert.deepEqual(problems, []);
    } finally {
      await opened.close();
    }
  });
});
