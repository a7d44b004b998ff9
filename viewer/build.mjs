// Builds the standalone page template of `mlia check`.
//
//   node build.mjs          write dist/page.html and src/report/views/page_asset.{c,h}
//   node build.mjs --check  build in memory; exit 1 if any of those files differs
//
// The page is one HTML file with everything inline: the minified script
// (src/main.js and its imports, dagre included, bundled by esbuild as an
// IIFE), the minified styles, and the placeholder @@MLIA_DATA@@ inside
// <script type="application/json" id="mlia-data">, which the C report writer
// replaces with the run's JSON (<, >, & and U+2028/9 escaped as \u003c etc.,
// so the data can never close the element). A Content-Security-Policy meta
// tag allows exactly the inline script and the inline style, by their
// SHA-256 hashes computed here, and nothing else (no network, no other
// script). The same bytes are written to src/report/views/page_asset.c as a C
// string, so the C build needs neither node nor node_modules.
//
// Determinism: pinned esbuild and dagre versions (package-lock.json), no
// timestamps or absolute paths in any output, fixed line splitting.

import { build, transform } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..');
export const PLACEHOLDER = '@@MLIA_DATA@@';
const OUTPUTS = {
  html: join(here, 'dist', 'page.html'),
  c: join(repo, 'src', 'report', 'views', 'page_asset.c'),
  h: join(repo, 'src', 'report', 'views', 'page_asset.h'),
};
const C_LINE_LIMIT = 3000; // escaped characters per C source line (< 4000)

function fail(message) {
  console.error(`build.mjs: ${message}`);
  process.exit(1);
}

function sha256(text) {
  return createHash('sha256').update(text, 'utf8').digest('base64');
}

async function bundleScript() {
  const dagre = JSON.parse(readFileSync(join(here, 'node_modules', '@dagrejs', 'dagre', 'package.json'), 'utf8'));
  const result = await build({
    absWorkingDir: here,
    entryPoints: ['src/main.js'],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2020',
    minify: true,
    legalComments: 'none',
    charset: 'utf8',
    write: false,
    logLevel: 'warning',
    banner: { js: `/*! mlia check page. Includes @dagrejs/dagre ${dagre.version} (MIT License, Copyright (c) 2012-2014 Chris Pettitt). */` },
  });
  return result.outputFiles[0].text.replace(/\n+$/, '');
}

async function bundleStyle() {
  const css = readFileSync(join(here, 'src', 'styles.css'), 'utf8');
  const result = await transform(css, { loader: 'css', minify: true, charset: 'utf8' });
  return result.code.replace(/\n+$/, '');
}

export async function buildPage() {
  const script = await bundleScript();
  const style = await bundleStyle();
  // Guard the properties the page's safety relies on.
  if (/<\/script|<!--|<script/i.test(script)) fail('the script contains "</script", "<script" or "<!--"');
  if (/<\/style/i.test(style)) fail('the style contains "</style"');
  if (script.includes(PLACEHOLDER) || style.includes(PLACEHOLDER)) fail('the placeholder occurs in the script or style');
  const csp = [
    "default-src 'none'",
    `script-src 'sha256-${sha256(script)}'`,
    `style-src 'sha256-${sha256(style)}'`,
    'img-src data:',
    'font-src data:',
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const html = [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>mlia check</title>',
    `<style>${style}</style>`,
    '</head>',
    '<body>',
    `<script type="application/json" id="mlia-data">${PLACEHOLDER}</script>`,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
  if (html.split(PLACEHOLDER).length !== 2) fail('the placeholder must occur exactly once');
  return html;
}

// Escapes one byte for a C string literal. '?' is escaped so that no
// trigraph can form (-std=c17 enables them); other bytes outside printable
// ASCII use three-digit octal escapes, which cannot swallow the next byte.
function cByte(byte) {
  if (byte === 0x5c) return '\\\\';
  if (byte === 0x22) return '\\"';
  if (byte === 0x3f) return '\\?';
  if (byte === 0x0a) return '\\n';
  if (byte === 0x09) return '\\t';
  if (byte >= 0x20 && byte < 0x7f) return String.fromCharCode(byte);
  return `\\${byte.toString(8).padStart(3, '0')}`;
}

export function cSource(html) {
  const bytes = Buffer.from(html, 'utf8');
  const lines = [];
  let line = '';
  for (const byte of bytes) {
    const piece = cByte(byte);
    if (line.length + piece.length > C_LINE_LIMIT) {
      lines.push(line);
      line = '';
    }
    line += piece;
    if (byte === 0x0a) {
      lines.push(line);
      line = '';
    }
  }
  if (line) lines.push(line);
  return [
    '/*',
    '** GENERATED by viewer/build.mjs from viewer/src; do not edit. Rebuild with',
    '** `npm run build` in viewer/ (CI checks it with `npm run check-asset`).',
    '**',
    '** The standalone page template of `mlia check`: one self-contained HTML',
    '** file (inline script, style and Content-Security-Policy) in which the',
    `** report writer replaces the single occurrence of ${PLACEHOLDER} with the`,
    '** run\'s page JSON, escaped so that it cannot close its <script> element',
    '** (see docs/page.md for the data contract).',
    '*/',
    '#include "report/views/page_asset.h"',
    '',
    'const char mlia_page_template[] =',
    ...lines.map((l) => `"${l}"`),
    ';',
    '',
    `const unsigned long mlia_page_template_len = ${bytes.length}UL;`,
    '',
  ].join('\n');
}

export function cHeader() {
  return [
    '/*',
    '** GENERATED by viewer/build.mjs; do not edit.',
    '**',
    '** The standalone page template (bundle/index.html before the data is',
    `** inserted). It contains "${PLACEHOLDER}" exactly once, as the text of`,
    '** <script type="application/json" id="mlia-data">; the writer substitutes',
    '** it with the page JSON in which <, >, & and U+2028/U+2029 are written as',
    '** \\u003c, \\u003e, \\u0026, \\u2028, \\u2029. Static, read-only storage owned',
    '** by the library; mlia_page_template_len is its length in bytes without',
    '** the terminating NUL.',
    '*/',
    '#ifndef MLIA_REPORT_PAGE_ASSET_H',
    '#define MLIA_REPORT_PAGE_ASSET_H',
    '',
    'extern const char mlia_page_template[];',
    'extern const unsigned long mlia_page_template_len;',
    '',
    '#endif',
    '',
  ].join('\n');
}

async function main() {
  const check = process.argv.includes('--check');
  const html = await buildPage();
  const outputs = { html, c: cSource(html), h: cHeader() };
  if (check) {
    const stale = Object.keys(OUTPUTS).filter((k) => !existsSync(OUTPUTS[k]) || readFileSync(OUTPUTS[k], 'utf8') !== outputs[k]);
    if (stale.length) fail(`out of date: ${stale.map((k) => OUTPUTS[k].slice(repo.length + 1)).join(', ')} (run npm run build in viewer/)`);
    console.log('page asset up to date');
    return;
  }
  for (const [key, path] of Object.entries(OUTPUTS)) {
    mkdirSync(dirname(path), { recursive: true });
    if (!existsSync(path) || readFileSync(path, 'utf8') !== outputs[key]) writeFileSync(path, outputs[key]);
  }
  console.log(`built dist/page.html (${Buffer.byteLength(html)} bytes) and src/report/views/page_asset.{c,h}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
