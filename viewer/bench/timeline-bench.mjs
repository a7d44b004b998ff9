// Timeline benchmark (npm run bench:timeline): the Timeline tab with 1,000
// executions of 2,000 events (2,000,000 events; tests/timeline-data.mjs) in
// headless Chromium. Prints the size of the inline timeline JSON, and the
// medians of 5 runs of: page parse (JSON.parse of the whole data), timeline
// decode, first timeline frame, a zoomed-in frame, a frame after scrolling
// to the middle, and the rectangles drawn per frame (level of detail).
// Figures only; no budget is enforced (product.md sets none for the tab).

import { startBrowser, openPage, loadData, scriptSafeJson } from '../tests/helpers.mjs';
import { largeTimeline } from '../tests/timeline-data.mjs';

const RUNS = 5;

function median(list) {
  const v = [...list].sort((a, b) => a - b);
  return v[Math.floor((v.length - 1) / 2)];
}

async function frame(page) {
  return page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(() => resolve({
    draw: window.mliaPage.timings.timelineDraw, drawn: window.mliaPage.timings.timelineDrawn,
  }), 0))));
}

async function main() {
  const data = loadData('basic.json');
  data.timeline = largeTimeline(1000, 2000);
  console.log(`timeline data: ${data.timeline.shown_events} events, ${(scriptSafeJson(data.timeline).length / 1e6).toFixed(1)} MB of inline JSON`);
  const browser = await startBrowser();
  const r = { parse: [], decode: [], first: [], zoomed: [], scrolled: [], drawnFirst: [], drawnZoomed: [] };
  try {
    for (let run = 0; run < RUNS; run++) {
      const opened = await openPage(browser, data);
      const { page } = opened;
      r.parse.push(await page.evaluate(() => window.mliaPage.timings.parse));
      r.decode.push(await page.evaluate(() => window.mliaPage.timings.timelineBuild));
      await page.click('#tab-timeline');
      let f = await frame(page);
      r.first.push(f.draw);
      r.drawnFirst.push(f.drawn);
      const box = await page.locator('.timeline-canvas').boundingBox();
      await page.mouse.move(box.x + 700, box.y + 300);
      for (let i = 0; i < 6; i++) await page.mouse.wheel(0, -500);
      f = await frame(page);
      r.zoomed.push(f.draw);
      r.drawnZoomed.push(f.drawn);
      await page.keyboard.down('Shift');
      await page.mouse.wheel(0, 20000);
      await page.keyboard.up('Shift');
      f = await frame(page);
      r.scrolled.push(f.draw);
      await opened.close();
    }
  } finally {
    await browser.close();
  }
  for (const [name, list] of Object.entries(r)) {
    const unit = name.startsWith('drawn') ? '' : ' ms';
    console.log(`${name}: median ${median(list).toFixed(1)}${unit} (runs ${list.map((v) => v.toFixed(1)).join(', ')})`);
  }
}

await main();
