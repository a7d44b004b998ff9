// Helpers of generated.test.mjs: produce real pages with the C tool
// (`$BUILD/mlia check ... --model-explorer files`: $MLIA_BIN, else the
// BUILD folder the suite was given, else build/) from the sample
// fixtures made by tools/mkfixture.py, open such a page from a fresh
// folder over file:// (network off, see helpers.mjs), and read the data
// embedded in the page so that tests can derive what the page must show
// from the same document the C writer emitted.

import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, copyFileSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { VIEWER, bringIntoView } from './helpers.mjs';

export const REPO = join(VIEWER, '..');
export const MLIA = process.env.MLIA_BIN || join(REPO, process.env.BUILD || 'build', 'mlia');
export const MKFIXTURE = join(REPO, 'tools', 'mkfixture.py');
export const SAMPLES = join(REPO, 'samples');

function hasPython() {
  try {
    execFileSync('python3', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

// Why the generated-page tests cannot run here, or null when they can.
export function skipReason() {
  if (!existsSync(MLIA)) return `${MLIA} does not exist (run make first)`;
  if (!existsSync(MKFIXTURE)) return `${MKFIXTURE} does not exist`;
  if (!hasPython()) return 'python3 is not installed (needed by tools/mkfixture.py)';
  return null;
}

function run(cmd, args) {
  try {
    return execFileSync(cmd, args, { cwd: VIEWER, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    throw new Error(`${cmd} ${args.join(' ')} failed (exit ${err.status}):\n${err.stdout || ''}${err.stderr || ''}`);
  }
}

// Makes the fixture of samples/<name>.json in <root>/<name> and runs
// `mlia check` on it; companion: also pass the fixture's .pte with
// --companion-model; accuracy: also the debug buffer and the reference
// capture the fixture builder wrote (docs/accuracy.md). Returns the path of
// the generated page.
export function generate(root, name, companion, accuracy = false) {
  const dir = join(root, name);
  run('python3', [MKFIXTURE, join(SAMPLES, `${name}.json`), dir]);
  const args = ['check', join(dir, `${name}.etrecord`), '--target-profile', 'neural-technology',
    '--performance', '--profiling-data', join(dir, `${name}.etdump`), '--output-dir', dir,
    '--model-explorer', 'files', '--trace', '--trace-format', 'json'];
  if (companion) args.push('--companion-model', join(dir, `${name}.pte`));
  if (accuracy) {
    args.push('--debug-buffer', join(dir, `${name}.debug.bin`),
      '--reference-profiling-data', join(dir, `${name}.ref.etdump`),
      '--reference-debug-buffer', join(dir, `${name}.ref.debug.bin`));
  }
  const stdout = run(MLIA, args);
  const page = join(dir, 'mlia-output', 'model-explorer', 'bundle', 'index.html');
  if (!existsSync(page)) throw new Error(`mlia check did not write ${page}; its output:\n${stdout}`);
  return page;
}

export function makeTempRoot() {
  return mkdtempSync(join(tmpdir(), 'mlia-generated-'));
}

// The JSON document the C writer embedded in the page.
export function embeddedData(htmlPath) {
  const html = readFileSync(htmlPath, 'utf8');
  const m = /<script type="application\/json" id="mlia-data">([\s\S]*?)<\/script>/.exec(html);
  if (!m) throw new Error(`${htmlPath}: no <script id="mlia-data"> element`);
  return JSON.parse(m[1]);
}

// Opens a copy of the generated page, placed alone in a fresh folder,
// from file:// in the browser of startBrowser() and waits for the first
// paint. Same bookkeeping as openPage() of helpers.mjs.
export async function openFile(browser, htmlPath) {
  const dir = mkdtempSync(join(tmpdir(), 'mlia-generated-page-'));
  const file = join(dir, 'index.html');
  copyFileSync(htmlPath, file);
  const page = await browser.context.newPage();
  const problems = [];
  const requests = [];
  page.on('console', (msg) => { if (msg.type() === 'error' || msg.type() === 'warning') problems.push(`console ${msg.type()}: ${msg.text()}`); });
  page.on('pageerror', (err) => problems.push(`page error: ${err.message}`));
  page.on('dialog', async (dialog) => { problems.push(`dialog: ${dialog.message()}`); await dialog.dismiss(); });
  page.on('request', (req) => requests.push(req.url()));
  const url = pathToFileURL(file).href;
  await page.goto(url);
  await page.waitForSelector('body[data-ready]');
  return {
    page, problems, requests, url,
    async close() { await page.close(); rmSync(dir, { recursive: true, force: true }); },
  };
}

// The nodes of view `targetView` that the page contract (docs/page.md,
// "Selection and sync") relates to node `node` of view/graph: the sync
// entries from that location, the other locations of its entity and the
// locations of its related entities. Returns "graph/node" strings.
export function relatedNodes(data, view, graph, node, targetView) {
  const out = new Set();
  const add = (loc) => {
    if (loc.view !== targetView) return;
    if (loc.view === view && loc.graph === graph && loc.node === node) return;
    out.add(`${loc.graph}/${loc.node}`);
  };
  for (const s of data.sync) {
    if (s.from.view === view && s.from.graph === graph && s.from.node === node) s.to.forEach(add);
  }
  const entity = data.entities[node];
  if (entity) {
    (data.entity_nodes[node] || []).forEach(add);
    for (const rel of entity.related || []) (data.entity_nodes[rel.id] || []).forEach(add);
  }
  return [...out].sort();
}

// Clicks node `id` of pane i with the real mouse, at a point of its box
// where the node is the topmost element (a node's bounding box can be
// wider than its box, and boxes can be partly covered). The pane is first
// dragged until the node is inside it (Fit stops at a readable zoom, so a
// node can lie outside: bringIntoView). Fails when no point of the box can
// be hit.
export async function clickNode(page, i, id) {
  const sel = `.pane[data-pane="${i}"] g.node[data-node="${id}"]`;
  await bringIntoView(page, `${sel} rect.box`);
  const point = await page.evaluate((s) => {
    const g = document.querySelector(s);
    const canvas = g.closest('svg').getBoundingClientRect();
    const r = g.querySelector('rect.box').getBoundingClientRect();
    for (const fy of [0.5, 0.25, 0.75, 0.1, 0.9]) {
      for (const fx of [0.5, 0.25, 0.75, 0.1, 0.9]) {
        const x = r.x + r.width * fx;
        const y = r.y + r.height * fy;
        if (x < canvas.x || x > canvas.right || y < canvas.y || y > canvas.bottom) continue;
        const hit = document.elementFromPoint(x, y);
        if (hit && hit.closest('g.node') === g) return { x, y };
      }
    }
    return null;
  }, sel);
  if (!point) throw new Error(`${sel}: no visible point of its box can be clicked (covered or outside the pane)`);
  await page.mouse.click(point.x, point.y);
}

// Geometry problems of pane i as drawn: an expanded group frame that does
// not contain a drawn member (a sub-group frame or box, or a node whose
// namespace, from nsOf, lies inside the group). Returns messages (the
// first six and a count of the rest).
export function frameProblems(page, i, nsOf) {
  return page.evaluate(([paneIndex, ns]) => {
    const root = document.querySelector(`.pane[data-pane="${paneIndex}"] svg.canvas`);
    const box = (el) => el.getBoundingClientRect();
    const inside = (a, b) => a.x >= b.x - 0.5 && a.y >= b.y - 0.5 && a.right <= b.right + 0.5 && a.bottom <= b.bottom + 0.5;
    const frames = [...root.querySelectorAll('g.group.expanded')].map((g) => ({ path: g.getAttribute('data-group'), r: box(g.querySelector('rect.frame')) }));
    const members = [
      ...[...root.querySelectorAll('g.group')].map((g) => ({ name: `group ${g.getAttribute('data-group')}`, path: g.getAttribute('data-group'), r: box(g.querySelector('rect')) })),
      ...[...root.querySelectorAll('g.node')].map((g) => {
        const id = g.getAttribute('data-node');
        return { name: `node ${id}`, path: `${ns[id] || ''}/${id}`, r: box(g.querySelector('rect.box')) };
      }),
    ];
    const out = [];
    for (const f of frames) {
      for (const m of members) {
        if (m.path !== f.path && m.path.startsWith(`${f.path}/`) && !inside(m.r, f.r)) {
          out.push(`${m.name} (${Math.round(m.r.x)},${Math.round(m.r.y)} ${Math.round(m.r.width)}x${Math.round(m.r.height)}) is outside the frame of group ${f.path} (${Math.round(f.r.x)},${Math.round(f.r.y)} ${Math.round(f.r.width)}x${Math.round(f.r.height)})`);
        }
      }
    }
    return out.length > 6 ? [...out.slice(0, 6), `... and ${out.length - 6} more`] : out;
  }, [i, nsOf]);
}

// node id -> namespace (normalised: empty segments dropped) of every node
// of one graph of the page data.
export function namespaces(data, viewId, graphId) {
  const view = data.views.find((v) => v.id === viewId);
  const graph = view.collection.graphs.find((g) => g.id === graphId);
  return Object.fromEntries(graph.nodes.map((n) => [n.id, String(n.namespace || '').split('/').filter((s) => s).join('/')]));
}
