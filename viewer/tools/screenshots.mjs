// Screenshots of written pages in the page tests' headless Chromium (issue 29:
// "screenshots ... at 1280x800 ... checked by eye"). Used by
// tools/screenshots.sh, which writes the pages first:
//   node viewer/tools/screenshots.mjs OUT_DIR WIDTH HEIGHT name=page.html ...
// Writes OUT_DIR/<name>-<W>x<H>.png (the first screen, no scrolling), then
// <name>-selected-<W>x<H>.png with the headline's top operator selected (the
// details panel filled), and
// prints, per page, the headline's text and any token of the visible text
// that the layout broke across lines inside a word (the details panel, the
// labels), so a broken token is seen without opening the image.
import { startBrowser } from '../tests/helpers.mjs';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';

const [out, w, h, ...pages] = process.argv.slice(2);
const width = Number(w) || 1280;
const height = Number(h) || 800;
const b = await startBrowser({ width, height });
let bad = 0;
for (const spec of pages) {
  const eq = spec.indexOf('=');
  const name = spec.slice(0, eq);
  const file = spec.slice(eq + 1);
  const p = await b.context.newPage();
  const errors = [];
  p.on('pageerror', (e) => errors.push(e.message));
  await p.goto(pathToFileURL(file).href);
  await p.waitForSelector('body[data-ready]');
  await p.waitForTimeout(300);
  const report = await shoot(p, join(out, `${name}-${width}x${height}.png`));
  console.log(`${name}: ${report.png}`);
  console.log(`  headline${report.headlineVisible ? '' : ' (NOT VISIBLE)'}: ${report.headline}`);
  for (const t of report.broken) console.log(`  broken token: ${t}`);
  // then the top operator selected: the details panel beside the graph
  let broken = report.broken.length;
  if (await p.locator('#headline .hl-top-link').count()) {
    await p.click('#headline .hl-top-link');
    await p.waitForTimeout(200);
    const sel = await shoot(p, join(out, `${name}-selected-${width}x${height}.png`));
    console.log(`${name} (top operator selected): ${sel.png}`);
    for (const t of sel.broken) console.log(`  broken token: ${t}`);
    broken += sel.broken.length;
  }
  for (const e of errors) console.log(`  page error: ${e}`);
  if (!report.headlineVisible || broken || errors.length) bad++;
  await p.close();
}
await b.close();
process.exitCode = bad ? 1 : 0;

async function shoot(p, png) {
  await p.screenshot({ path: png });
  const report = await p.evaluate(() => {
    const head = document.querySelector('#headline');
    const r = head ? head.getBoundingClientRect() : null;
    // elements whose text wraps inside a word: one text node laid out on
    // several lines where the break is not after a space or a separator
    const broken = [];
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const t = n.textContent;
      const el = n.parentElement;
      if (!t.trim() || !el || !el.offsetParent) continue;
      const box = el.getBoundingClientRect();
      if (box.bottom < 0 || box.top > innerHeight || box.right < 0 || box.left > innerWidth) continue;
      const range = document.createRange();
      let lastTop = null;
      for (let i = 0; i < t.length; i++) {
        range.setStart(n, i);
        range.setEnd(n, i + 1);
        const rects = range.getClientRects();
        if (!rects.length) continue;
        const top = Math.round(rects[0].top);
        if (lastTop !== null && top > lastTop + 2 && i > 0 && /[\w%]/.test(t[i - 1]) && /[\w%]/.test(t[i])) {
          broken.push(`${t.slice(Math.max(0, i - 12), i)}|${t.slice(i, i + 12)}`);
          break;
        }
        lastTop = top;
      }
    }
    return {
      headline: head ? head.innerText.replace(/\s+/g, ' ').trim() : null,
      headlineVisible: !!r && r.top >= 0 && r.bottom <= innerHeight && r.height > 0,
      broken,
    };
  });
  return { ...report, png };
}
