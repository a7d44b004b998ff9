// The page's number formatter (src/format.js) against the table that
// tests/report/test_format.c checks the C formatter (src/report/format.c)
// against: the page, the console and the Model Explorer files print the
// same text for the same value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { formatValue, formatQuantity } from '../src/format.js';

const table = JSON.parse(readFileSync(fileURLToPath(new URL('../../tests/data/format-table.json', import.meta.url)), 'utf8'));

test('every row of tests/data/format-table.json formats as the C formatter does', () => {
  assert.ok(table.rows.length >= 40);
  const wrong = table.rows.filter(([v, unit, want]) => formatValue(v, unit ?? undefined) !== want)
    .map(([v, unit, want]) => `${v} ${unit}: ${formatValue(v, unit ?? undefined)} != ${want}`);
  assert.deepEqual(wrong, []);
});

test('quantities carry their unit', () => {
  assert.equal(formatQuantity(0.412, 'ms'), '0.4120 ms');
  assert.equal(formatQuantity(4000, 'cycles'), '4,000 cycles');
  assert.equal(formatQuantity(100, '%'), '100 %');
  assert.equal(formatQuantity(NaN, 'ms'), '- ms');
});
