// The built template and its C copy: structure, CSP hashes, no external
// references, determinism, and a byte-exact C string.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildPage, cSource, cHeader, PLACEHOLDER } from '../build.mjs';
import { VIEWER, template, scriptSafeJson } from './helpers.mjs';

const html = template();
const sha = (text) => createHash('sha256').update(text, 'utf8').digest('base64');

function between(text, open, close) {
  const start = text.indexOf(open);
  assert.ok(start >= 0, `missing ${open}`);
  const end = text.indexOf(close, start + open.length);
  return text.slice(start + open.length, end);
}

test('template: doctype, one placeholder inside the data element', () => {
  assert.ok(html.startsWith('<!doctype html>\n'));
  assert.equal(html.split(PLACEHOLDER).length, 2);
  assert.ok(html.includes(`<script type="application/json" id="mlia-data">${PLACEHOLDER}</script>`));
  assert.equal((html.match(/<script/g) || []).length, 2);
  assert.equal((html.match(/<style/g) || []).length, 1);
  assert.ok(!/type="module"/.test(html));
});

test('template: CSP allows exactly the inline script and style by hash', () => {
  const csp = between(html, '<meta http-equiv="Content-Security-Policy" content="', '">');
  const script = between(html, '<script>', '</script>');
  const style = between(html, '<style>', '</style>');
  assert.equal(csp, [
    "default-src 'none'", `script-src 'sha256-${sha(script)}'`, `style-src 'sha256-${sha(style)}'`,
    'img-src data:', 'font-src data:', "base-uri 'none'", "form-action 'none'"].join('; '));
});

test('template: no external reference, no fetch, no innerHTML', () => {
  const script = between(html, '<script>', '</script>');
  const urls = [...new Set(html.match(/https?:\/\/[^\s"')]+/g) || [])];
  assert.deepEqual(urls, ['http://www.w3.org/2000/svg']); // the SVG namespace name, never fetched
  assert.ok(!/\b(src|href)=/.test(html));
  assert.ok(!/\bfetch\(|XMLHttpRequest|WebSocket|EventSource|importScripts|\beval\(|new Function/.test(script));
  assert.ok(!/innerHTML|outerHTML|insertAdjacentHTML|document\.write/.test(script));
});

test('build is deterministic and matches the committed files', async () => {
  const a = await buildPage();
  const b = await buildPage();
  assert.equal(a, b);
  assert.equal(a, html);
  assert.equal(readFileSync(join(VIEWER, '..', 'src', 'report', 'views', 'page_asset.c'), 'utf8'), cSource(a));
  assert.equal(readFileSync(join(VIEWER, '..', 'src', 'report', 'views', 'page_asset.h'), 'utf8'), cHeader());
});

// Decodes the C string literal of page_asset.c back to bytes.
function decodeC(source) {
  const body = source.slice(source.indexOf('mlia_page_template[] =\n') + 'mlia_page_template[] =\n'.length, source.indexOf('\n;\n'));
  const out = [];
  for (const line of body.split('\n')) {
    assert.ok(line.length < 4000, 'C line too long');
    assert.ok(line.startsWith('"') && line.endsWith('"'));
    const s = line.slice(1, -1);
    for (let i = 0; i < s.length; i++) {
      if (s[i] !== '\\') { out.push(s.charCodeAt(i)); continue; }
      const c = s[++i];
      if (c >= '0' && c <= '7') { out.push(parseInt(s.slice(i, i + 3), 8)); i += 2; }
      else out.push({ n: 10, t: 9, '\\': 92, '"': 34, '?': 63 }[c] ?? assert.fail(`bad escape \\${c}`));
    }
  }
  return Buffer.from(out);
}

test('page_asset.c holds the template byte for byte', () => {
  const source = readFileSync(join(VIEWER, '..', 'src', 'report', 'views', 'page_asset.c'), 'utf8');
  const bytes = decodeC(source);
  assert.ok(bytes.equals(Buffer.from(html, 'utf8')));
  assert.ok(source.includes(`const unsigned long mlia_page_template_len = ${bytes.length}UL;`));
  assert.ok(!/\?\?/.test(source.replace(/\\\?/g, '')), 'no trigraph can form');
});

test('data escaping used by the writer cannot close the element', () => {
  const text = scriptSafeJson({ a: '</script><img src=x onerror=alert(1)>', b: '\u2028\u2029&' });
  assert.equal(text, '{"a":"\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e","b":"\\u2028\\u2029\\u0026"}');
  assert.deepEqual(JSON.parse(text), { a: '</script><img src=x onerror=alert(1)>', b: '\u2028\u2029&' });
});
