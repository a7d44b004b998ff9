// format.js - the page's copy of the one number formatter (src/report/format.c):
// the same rules, the same double operations in the same order, so the page,
// the console and the Model Explorer files print the same digits.
//   cycles, bytes, count, executions: integer, ',' thousands ("4,000")
//   %: at most 2 decimals, trailing zeros dropped ("66.67", "100")
//   anything else (ms, inferences/s): 4 significant digits, the integer part
//   kept whole, ',' thousands ("0.4120", "1.851", "107,527")
// tests/data/format-table.json is checked against both copies.

const POW10 = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15];
const NEG10 = [1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9];
const MAX_DECIMALS = 9;
const EXACT_LIMIT = 9007199254740992; // 2^53
const INTEGER_UNITS = new Set(['cycles', 'bytes', 'count', 'executions']);

function group(intDigits) {
  let out = '';
  for (let i = 0; i < intDigits.length; i++) {
    if (i && (intDigits.length - i) % 3 === 0) out += ',';
    out += intDigits[i];
  }
  return out;
}

// digits / 10^decimals as [-]<grouped integer>[.<decimals>]
function putDigits(negative, digits, decimals, stripZeros) {
  const scale = POW10[decimals];
  const ip = Math.floor(digits / scale);
  const fp = digits - ip * scale;
  let frac = decimals > 0 ? String(fp).padStart(decimals, '0') : '';
  if (stripZeros) frac = frac.replace(/0+$/, '');
  return `${negative && digits !== 0 ? '-' : ''}${group(String(ip))}${frac ? '.' : ''}${frac}`;
}

export function formatSig4(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '-';
  const a = Math.abs(v);
  if (a === 0) return '0';
  let decimals;
  if (a >= 1) {
    let k = 1;
    while (k < 16 && a >= POW10[k]) k++;
    decimals = k >= 4 ? 0 : 4 - k;
  } else {
    let m = 0;
    while (m < MAX_DECIMALS && a < NEG10[m + 1]) m++;
    decimals = Math.min(4 + m, MAX_DECIMALS);
  }
  let x = Math.floor(a * POW10[decimals] + 0.5);
  if (x >= 1e4 && decimals > 0) {
    decimals--;
    x = Math.floor(a * POW10[decimals] + 0.5);
  }
  if (x === 0) return '0';
  if (x >= EXACT_LIMIT) return `${v < 0 ? '-' : ''}${a.toFixed(0)}`;
  return putDigits(v < 0, x, decimals, false);
}

export function formatInt(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '-';
  const x = Math.floor(Math.abs(v) + 0.5);
  if (x >= EXACT_LIMIT) return `${v < 0 ? '-' : ''}${x.toFixed(0)}`;
  return putDigits(v < 0, x, 0, false);
}

export function formatPct(v) {
  if (typeof v !== 'number' || !Number.isFinite(v)) return '-';
  const x = Math.floor(Math.abs(v) * 100 + 0.5);
  if (x >= EXACT_LIMIT) return formatInt(v);
  return putDigits(v < 0, x, 2, true);
}

// The value by its unit's rule (no unit: 4 significant digits).
export function formatValue(v, unit) {
  if (INTEGER_UNITS.has(unit)) return formatInt(v);
  if (unit === '%') return formatPct(v);
  return formatSig4(v);
}

// "0.4120 ms", "4,000 cycles", "100 %"
export function formatQuantity(v, unit) {
  const s = formatValue(v, unit);
  return unit ? `${s} ${unit}` : s;
}
