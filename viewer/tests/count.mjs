// Counts the page tests without running them, so that tests/run.sh can
// report every one of them even when they cannot run (no
// viewer/node_modules, or a sanitizer build), and can tell the tests that
// node's runner leaves out of its totals (the tests inside a skipped
// describe()) from the ones it counts.
//
// Each tests/*.test.mjs is imported with `node:test` replaced by a
// recorder and the npm packages (playwright-core, esbuild, @dagrejs/dagre)
// replaced by empty stand-ins: the files' top level runs (their describe()
// bodies too, where tests are declared, sometimes in loops) but no test
// body does, and node_modules is not needed.
//
//   node tests/count.mjs                 {"total": N, "suites": [{name, reason, tests}]} (skipped suites)
//   node tests/count.mjs --missing WHY   N lines "SKIP viewer: WHY", then "viewer: 0 passed, 0 failed, N skipped"
//   node tests/count.mjs --tap LOG       reads the TAP output of `node --test` in LOG and prints its
//                                        SKIP lines (one per skipped test, the tests of a skipped
//                                        suite included) and "viewer: P passed, F failed, S skipped";
//                                        exit 1 when P + F + S differs from N (a test neither
//                                        reported nor skipped)

import { register } from 'node:module';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

const STUBS = {
  'node:test': `
const r = globalThis.__mliaCount;
function declare(kind, args) {
  const name = typeof args[0] === 'string' ? args[0] : '';
  const opts = args.find((a) => a && typeof a === 'object') || {};
  const fn = args.find((a) => typeof a === 'function');
  const skip = opts.skip || opts.todo;
  if (kind === 'test') {
    if (r.suite) r.suite.tests++;
    r.total++;
    return;
  }
  const outer = r.suite;
  const mine = skip && !outer ? { name, reason: skip === true ? '' : String(skip), tests: 0 } : null;
  if (mine) r.suite = mine;
  if (fn) fn({});
  if (mine) {
    r.suite = outer;
    r.suites.push(mine);
  }
}
export const test = (...a) => declare('test', a);
export const it = test;
export const describe = (...a) => declare('describe', a);
export const suite = describe;
const noop = () => {};
export const before = noop, after = noop, beforeEach = noop, afterEach = noop;
export const mock = {};
export default test;
`,
  'playwright-core': 'export const chromium = {}; export default {};',
  esbuild: 'export const build = () => { throw new Error("stub"); }; export const transform = build; export default {};',
  '@dagrejs/dagre': 'export default {};',
};

function hooks() {
  const stubs = JSON.stringify(STUBS);
  return `
const STUBS = ${stubs};
export async function resolve(specifier, context, next) {
  if (Object.hasOwn(STUBS, specifier)) return { url: 'mlia-count-stub:' + specifier, shortCircuit: true };
  return next(specifier, context);
}
export async function load(url, context, next) {
  if (url.startsWith('mlia-count-stub:')) {
    return { format: 'module', source: STUBS[url.slice('mlia-count-stub:'.length)], shortCircuit: true };
  }
  return next(url, context);
}
`;
}

async function count() {
  globalThis.__mliaCount = { total: 0, suites: [], suite: null };
  register(`data:text/javascript,${encodeURIComponent(hooks())}`, import.meta.url);
  const files = readdirSync(here).filter((f) => f.endsWith('.test.mjs')).sort();
  for (const f of files) await import(pathToFileURL(join(here, f)).href);
  const { total, suites } = globalThis.__mliaCount;
  return { total, suites };
}

// The summary of a real run: TAP's own counts plus the tests of skipped
// suites, which node leaves out of "# tests" and "# skipped".
function fromTap(log, declared) {
  const text = readFileSync(log, 'utf8');
  const last = (key) => {
    const all = [...text.matchAll(new RegExp(`^# ${key} (\\d+)$`, 'gm'))];
    return all.length ? Number(all[all.length - 1][1]) : null;
  };
  const pass = last('pass');
  if (pass === null) return null;
  const fail = (last('fail') || 0) + (last('cancelled') || 0);
  const skippedByNode = (last('skipped') || 0) + (last('todo') || 0);
  const suiteNames = new Set(declared.suites.map((s) => s.name));
  const lines = [];
  for (const m of text.matchAll(/^ *(?:not )?ok \d+ - (.*?) # (?:SKIP|TODO) ?(.*)$/gm)) {
    if (suiteNames.has(m[1]) && !m[0].startsWith(' ')) continue; // listed per test below
    lines.push(`SKIP viewer: ${m[2] || m[1]}`);
  }
  let inSuites = 0;
  for (const s of declared.suites) {
    inSuites += s.tests;
    for (let i = 0; i < s.tests; i++) lines.push(`SKIP viewer: ${s.reason || `suite "${s.name}" skipped`}`);
  }
  return { pass, fail, skipped: skippedByNode + inSuites, lines };
}

const args = process.argv.slice(2);
const declared = await count();
if (args[0] === '--missing') {
  for (let i = 0; i < declared.total; i++) console.log(`SKIP viewer: ${args[1]}`);
  console.log(`viewer: 0 passed, 0 failed, ${declared.total} skipped`);
} else if (args[0] === '--tap') {
  const r = fromTap(args[1], declared);
  if (!r) {
    console.log('viewer: no TAP summary');
    process.exit(1);
  }
  for (const l of r.lines) console.log(l);
  console.log(`viewer: ${r.pass} passed, ${r.fail} failed, ${r.skipped} skipped`);
  if (r.pass + r.fail + r.skipped !== declared.total) {
    console.log(`viewer: ${declared.total} tests declared but ${r.pass + r.fail + r.skipped} reported`);
    process.exit(1);
  }
} else {
  console.log(JSON.stringify(declared));
}
