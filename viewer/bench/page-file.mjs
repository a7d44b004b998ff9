// Page first paint of a page written by `mlia check --model-explorer files`
// (make bench, "wide graphs"): node bench/page-file.mjs INDEX.html [RUNS].
// Opens the file RUNS times (default 3) in headless Chromium and prints the
// median of window.mliaPage.timings.firstPaint (milliseconds since the
// navigation started: HTML parse, JSON.parse of the page data, layout and
// the first frame) with the parse and build parts of that run.

import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { startBrowser } from '../tests/helpers.mjs';

const file = process.argv[2];
const runs = Number(process.argv[3] || 3);
if (!file || !(runs >= 1)) {
  console.error('usage: node bench/page-file.mjs INDEX.html [RUNS]');
  process.exit(2);
}
const browser = await startBrowser({ width: 1600, height: 1000 });
const list = [];
try {
  for (let run = 0; run < runs; run++) {
    const page = await browser.context.newPage();
    const problems = [];
    page.on('pageerror', (err) => problems.push(err.message));
    await page.goto(pathToFileURL(resolve(file)).href, { timeout: 120000 });
    await page.waitForSelector('body[data-ready]', { timeout: 120000 });
    const t = await page.evaluate(() => window.mliaPage.timings);
    await page.close();
    if (problems.length || typeof t.firstPaint !== 'number') throw new Error(`page failed: ${problems.join('; ')}`);
    list.push(t);
  }
} finally {
  await browser.close();
}
list.sort((a, b) => a.firstPaint - b.firstPaint);
const m = list[Math.floor(list.length / 2)];
console.log(`first paint ${Math.round(m.firstPaint)} ms (median of ${runs}; runs ${list.map((t) => Math.round(t.firstPaint)).join(', ')}; `
  + `that run: JSON.parse ${Math.round(m.parse)} ms, build ${Math.round(m.build - m.parse)} ms)`);
