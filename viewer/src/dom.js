// DOM helpers for the standalone page.
//
// Design: every piece of text that reaches the document goes through
// textContent (or setAttribute for attribute values), never through
// innerHTML or insertAdjacentHTML, so names taken from an ETRecord such as
// "</script><img src=x onerror=alert(1)>" stay inert characters. Styles are
// only ever set through classes or SVG presentation attributes because the
// page's Content-Security-Policy forbids inline style attributes.
import { formatValue, formatInt, formatSig4 } from './format.js';

const SVG_NS = 'http://www.w3.org/2000/svg';

// Applies an attribute map to an element. "text" sets textContent, "class"
// the class list, "on<event>" adds a listener, anything else goes through
// setAttribute (values are converted with String()).
function applyAttrs(node, attrs) {
  if (!attrs) return node;
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'text') node.textContent = String(value);
    else if (key === 'class') node.setAttribute('class', String(value));
    else if (key.startsWith('on') && typeof value === 'function') {
      node.addEventListener(key.slice(2), value);
    } else node.setAttribute(key, value === true ? '' : String(value));
  }
  return node;
}

function appendChildren(node, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) appendChildren(node, child);
    else if (typeof child === 'string' || typeof child === 'number') {
      node.appendChild(document.createTextNode(String(child)));
    } else node.appendChild(child);
  }
  return node;
}

// A name or id as text with break opportunities (<wbr>) after '_', '/', '.', '-'
// and ':' only, so a narrow column wraps it between its parts and never in
// the middle of a word or number (issue 29, 4: "kernel_tim / e").
export function breakable(text) {
  const s = String(text);
  const out = [];
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    if ('_/.:-'.includes(s[i]) && i + 1 < s.length) {
      out.push(s.slice(start, i + 1), document.createElement('wbr'));
      start = i + 1;
    }
  }
  out.push(s.slice(start));
  return out;
}

// Creates an HTML element; the caller owns the returned node.
export function el(tag, attrs, ...children) {
  return appendChildren(applyAttrs(document.createElement(tag), attrs), children);
}

// Creates an SVG element in the SVG namespace.
export function svgEl(tag, attrs, ...children) {
  return appendChildren(applyAttrs(document.createElementNS(SVG_NS, tag), attrs), children);
}

// Removes every child of a node.
export function clear(node) {
  node.replaceChildren();
  return node;
}

// Formats a number for display by its unit's rule: the page's copy of the
// one formatter (format.js, mirrored from src/report/format.c). Without a
// unit, integers get thousands separators and other numbers 4 significant
// digits. Deterministic (no locale).
export function formatNumber(value, unit) {
  if (typeof value !== 'number' || !Number.isFinite(value)) return String(value);
  if (unit) return formatValue(value, unit);
  return Number.isInteger(value) ? formatInt(value) : formatSig4(value);
}
