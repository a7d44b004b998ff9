// Shared helpers of the page tests and the benchmark: fill the built
// template with data the way the C writer does, open it from file:// in
// headless Chromium with the network disabled, and record console errors,
// dialogs, page errors and every request.

import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const VIEWER = join(here, '..');
export const ARTIFACTS = join(VIEWER, '..', 'tests', 'artifacts', 'viewer');
export const PLACEHOLDER = '@@MLIA_DATA@@';

// JSON text that cannot close its <script> element: the same escaping the
// C writer applies.
export function scriptSafeJson(value) {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function template() {
  return readFileSync(join(VIEWER, 'dist', 'page.html'), 'utf8');
}

export function loadData(name) {
  return JSON.parse(readFileSync(join(here, 'data', name), 'utf8'));
}

// Writes the filled page into a fresh temporary folder; returns its file URL
// and a cleanup function.
export function writePage(data) {
  const dir = mkdtempSync(join(tmpdir(), 'mlia-page-'));
  const html = template().split(PLACEHOLDER).join(scriptSafeJson(data));
  const file = join(dir, 'index.html');
  writeFileSync(file, html);
  return { url: pathToFileURL(file).href, dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--no-first-run', '--disable-sync', '--disable-quic'];

// Starts Chromium with a fresh profile folder. Playwright refuses a
// --user-data-dir argument to launch(), so the profile is passed to
// launchPersistentContext, which is the same thing.
export async function startBrowser(viewport = { width: 1600, height: 1000 }) {
  const profile = mkdtempSync(join(tmpdir(), 'mlia-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: process.env.MLIA_CHROMIUM || '/usr/bin/chromium',
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    offline: true,
  });
  await context.setOffline(true);
  const requests = [];
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:')) return route.continue();
    requests.push(url);
    return route.abort();
  });
  return {
    context,
    requests,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Opens a page with the given data and waits until the first paint.
// Returns {page, problems, requests, cleanup}; problems collects console
// errors, page errors and dialogs.
export async function openPage(browser, data) {
  const written = writePage(data);
  const page = await browser.context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (msg) => { if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', async (dialog) => { problems.push(`dialog: ${dialog.message()}`); await dialog.dismiss(); });
  page.on('request', (req) => requests.push(req.url()));
  await page.goto(written.url);
  await page.waitForSelector('body[data-ready]');
  return {
    page, problems, requests, url: written.url,
    async close() { await page.close(); written.cleanup(); },
  };
}

export async function screenshot(page, name) {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`) });
}

// Fit stops at a readable zoom (docs/page.md, "Panes"), so an item of a
// large graph can lie outside its pane. Drags the pane's canvas with the
// real mouse, as a user would, until the element of `selector` (inside a
// pane's svg.canvas) is inside the canvas (its top-left part when it is
// larger than the canvas). Fails after 40 drags.
export async function bringIntoView(page, selector) {
  await page.locator(selector).first().waitFor();
  for (let step = 0; step < 40; step++) {
    const geo = await page.evaluate((s) => {
      const e = document.querySelector(s);
      const c = e.closest('svg.canvas').getBoundingClientRect();
      const r = e.getBoundingClientRect();
      const m = 8;
      const w = Math.min(r.width, c.width - 2 * m);
      const h = Math.min(r.height, c.height - 2 * m);
      const inside = r.x >= c.x + m && r.x + w <= c.right - m && r.y >= c.y + m && r.y + h <= c.bottom - m;
      return { inside, cx: c.x + c.width / 2, cy: c.y + c.height / 2, cw: c.width, ch: c.height, ex: r.x + w / 2, ey: r.y + h / 2 };
    }, selector);
    if (geo.inside) return;
    const clamp = (v, lim) => Math.max(-lim, Math.min(lim, v));
    const dx = clamp(geo.cx - geo.ex, geo.cw * 0.45);
    const dy = clamp(geo.cy - geo.ey, geo.ch * 0.45);
    await page.mouse.move(geo.cx, geo.cy);
    await page.mouse.down();
    await page.mouse.move(geo.cx + dx, geo.cy + dy, { steps: 4 });
    await page.mouse.up();
    // a large graph draws the newly visible region on the next frame
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
  throw new Error(`${selector}: still outside its pane after 40 drags`);
}

// Brings the element into its pane's view, then clicks (or double-clicks) it.
export async function clickInPane(page, selector, double = false) {
  await bringIntoView(page, selector);
  if (double) await page.dblclick(selector);
  else await page.click(selector);
}
