// Hostile input: names, namespaces, attributes, stack traces, warnings and
// view reasons carrying markup must be shown as text and never run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startBrowser, openPage, loadData, screenshot, clickInPane } from './helpers.mjs';

const HOSTILE = '</script><img src=x onerror=alert(1)>';
let browser;
before(async () => { browser = await startBrowser(); });
after(async () => { await browser.close(); assert.deepEqual(browser.requests, []); });

test('hostile strings are inert and shown literally', async () => {
  const data = loadData('xss.json');
  const opened = await openPage(browser, data);
  const { page } = opened;
  assert.equal(await page.getAttribute('body', 'data-ready'), 'true');
  // Nothing was injected: no <img>, no extra <script>, no on* attribute.
  const counts = await page.evaluate(() => ({
    img: document.querySelectorAll('img').length,
    script: document.querySelectorAll('script').length,
    b: document.querySelectorAll('b, i, u').length,
    handlers: [...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => a.name.startsWith('on'))).length,
    svgInDetails: document.querySelectorAll('#details svg').length,
  }));
  assert.deepEqual(counts, { img: 0, script: 2, b: 0, handlers: 0, svgInDetails: 0 });
  assert.equal(await page.textContent('header h1'), `mlia check: lenet.pte${HOSTILE}`);
  assert.equal(await page.title(), `mlia check: lenet.pte${HOSTILE}`);
  assert.ok((await page.textContent('#banner')).includes(`PTE - VGF Backend Hierarchy: no companion PTE was given (--companion)${HOSTILE}`));
  assert.ok((await page.textContent('#banner')).includes('\u2028line separator\u2029 and & ampersand < less > greater'));
  // The hostile node, by label, in the source pane: title has it in full.
  await clickInPane(page, '.pane[data-pane="1"] g.group[data-group="features"] .toggle');
  const node = page.locator('.pane[data-pane="1"] g.node[data-node="src:conv1"]');
  assert.equal(await node.locator('title').textContent(), `src:conv1 \u00b7 ${HOSTILE}\nsrc:conv1`);
  assert.equal(await node.locator('text.label').textContent(), `src:conv1 \u00b7 ${HOSTILE}`.slice(0, 31) + '\u2026');
  assert.equal(await page.locator('.pane[data-pane="1"] g.group[data-group="<i>ns</i>"]').count(), 1);
  await clickInPane(page, '.pane[data-pane="1"] g.node[data-node="src:conv1"]');
  assert.equal(await page.textContent('#details h2'), HOSTILE);
  const pre = page.locator('#details pre.stack-trace');
  assert.equal(await pre.textContent(), data.entities['src:conv1'].stack_trace);
  assert.equal(await pre.evaluate((e) => e.children.length), 0);
  const attrs = await page.textContent('#details table.attributes');
  assert.ok(attrs.includes('<u>attr</u>"><script>alert(5)</script>'));
  assert.ok((await page.textContent('#details table.node-attrs')).includes('<b>key</b><svg onload=alert(3)>'));
  // Search for the hostile name lists it as text.
  await page.fill('#search', '<img src=x');
  assert.ok((await page.locator('#search-results .result-name').allTextContents()).includes(HOSTILE));
  await page.selectOption('.pane[data-pane="0"] select.view-select', 'pte_vgf_backend_hierarchy');
  assert.equal(await page.textContent('.pane[data-pane="0"] .pane-message .reason'), `no companion PTE was given (--companion)${HOSTILE}`);
  await screenshot(page, 'xss');
  const after = await page.evaluate(() => document.querySelectorAll('img, b, i, u').length);
  assert.equal(after, 0);
  assert.deepEqual(opened.problems, [], 'no dialog, console error or page error');
  await opened.close();
});
