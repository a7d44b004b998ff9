// The Memory tab and the headline's peak (docs/memory.md, "The page") on a
// page the C tool writes for the real LeNet program: lenet.pte as
// companion, the real capture lenet.etdp, and an ETRecord built for that
// program from samples/lenet.json (tools/mkfixture.py). The peak of the
// hand derivation (194,080 bytes at instruction 7, aten_addmm_default) is
// in the visible text (the Memory tab's button, then its summary); clicking the peak's bar lists the four tensors live
// there and links to the source operator in the graph views. Skipped with
// the reason when the real fixtures, $BUILD/mlia or python3 are missing.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowser } from './helpers.mjs';
import { skipReason, makeTempRoot, openFile, MLIA, MKFIXTURE, SAMPLES, REPO } from './generated-helpers.mjs';

const FIXTURES = process.env.MLIA_FIXTURES || join(REPO, '..', 'shared', 'fixtures');
const PTE = join(FIXTURES, 'executorch', 'lenet.pte');
const ETDP = join(FIXTURES, 'executorch', 'lenet.etdp');
const SKIP = skipReason() || (!existsSync(PTE) || !existsSync(ETDP) ? `real fixtures absent under ${FIXTURES}` : null);

describe('the memory view of lenet.pte', { skip: SKIP ? `cannot generate the page: ${SKIP}` : false }, () => {
  let root;
  let html;
  let browser;
  let current;

  before(async () => {
    root = makeTempRoot();
    const dir = join(root, 'lenet');
    execFileSync('python3', [MKFIXTURE, join(SAMPLES, 'lenet.json'), dir], { stdio: 'ignore' });
    execFileSync(MLIA, ['check', join(dir, 'lenet.etrecord'), '--target-profile', 'neural-technology', '--performance',
      '--profiling-data', ETDP, '--companion-model', PTE, '--output-dir', dir, '--model-explorer', 'files'], { stdio: 'ignore' });
    html = join(dir, 'mlia-output', 'model-explorer', 'bundle', 'index.html');
    browser = await startBrowser();
    current = await openFile(browser, html);
  });
  after(async () => {
    if (current) await current.close();
    if (browser) await browser.close();
    if (root) rmSync(root, { recursive: true, force: true });
    if (current) assert.deepEqual(current.problems, [], 'no console error, page error or dialog');
  });

  test('the Memory tab button states the peak from any tab', async () => {
    assert.equal(await current.page.isVisible('#tab-memory'), true);
    assert.equal(await current.page.textContent('#tab-memory'), 'Memory \u00b7 peak 194,080 B');
    assert.equal(await current.page.getAttribute('#tab-memory', 'title'),
      'Peak 194,080 bytes at instruction 7 (aten_addmm_default): show the Memory tab');
  });

  test('the Memory tab: summary, curve, layout, click a bar, locate the operator', async () => {
    const page = current.page;
    await page.click('#tab-memory');
    assert.equal(await page.isVisible('section#memory'), true);
    const summary = await page.textContent('section#memory .memory-summary');
    assert.ok(summary.startsWith('Peak 194,080 bytes at instruction 7 (aten_addmm_default) \u00b7 planned 194,080 bytes in 1 pool'), summary);
    assert.ok(summary.includes('pool 1: size 194,080, peak 194,080, waste 0 bytes, 310,792 without reuse'), summary);
    assert.equal(await page.locator('section#memory rect.memory-bar').count(), 14);
    assert.equal(await page.getAttribute('section#memory rect.memory-bar.peak', 'data-instruction'), '7');
    // 18 planned tensors, one a view (value 71 of value 57)
    assert.equal(await page.locator('section#memory rect.memory-tensor').count(), 18);
    assert.equal(await page.locator('section#memory rect.memory-tensor.view').count(), 1);
    await page.click('section#memory rect.memory-bar.peak');
    assert.equal(await page.getAttribute('body', 'data-memory-selected'), '7');
    assert.equal(await page.textContent('section#memory .memory-instruction'),
      'Instruction 7: aten::addmm.out, 194,080 bytes live, 480 bytes written first');
    const live = await page.locator('section#memory ul.memory-live li').allTextContents();
    assert.deepEqual(live.map((t) => t.split(' ')[1]), ['57', '71', '72', '76']);
    assert.equal(await page.textContent('section#memory .memory-runtime'), 'Runtime allocations: not recorded in the ETDump.');
    await page.click('section#memory .memory-locate');
    assert.equal(await page.getAttribute('body', 'data-located'), 'source_operator/forward/aten_addmm_default');
    assert.equal(await page.isVisible('section#memory'), false);
  });
});
