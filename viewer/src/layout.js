// Layout of one graph level at a time.
//
// A level is the list of direct children of a namespace group (nodes,
// collapsed groups drawn as boxes, expanded groups drawn as frames whose
// size comes from their own level layout). Each level is laid out on its
// own and cached on the group (group.layout); GraphModel.setExpanded clears
// the cache of the toggled group and its ancestors only, so siblings keep
// their positions and are not laid out again.
//
// Algorithms, chosen per level:
// - no edges between the children: a grid (a row of 1,000 unconnected
//   boxes is unreadable);
// - edges that form simple chains (every child has at most one incoming
//   and one outgoing edge in the level): the linear-time layered layout
//   below, which gives the same picture as dagre for chains at a fraction
//   of the cost (dagre costs several ms even for ten nodes, and a view can
//   have hundreds of small levels);
// - otherwise up to DAGRE_MAX_ITEMS children: dagre (layered,
//   crossing-minimised);
// - more children: the linear-time layered layout (ranks by longest path in
//   file order, barycentre placement). dagre's ordering and positioning
//   phases grow super-linearly (about 2 s for 1,000 nodes), which would
//   break the 300 ms budget for expanding a namespace of 1,000 operations.

import dagre from '@dagrejs/dagre';

export const DAGRE_MAX_ITEMS = 100;
export const NODE_HEIGHT = 40;
export const GROUP_BOX_HEIGHT = 54;
export const GROUP_HEADER = 26;
export const GROUP_PADDING = 14;
const NODE_SEP = 24;
const RANK_SEP = 36;
const MAX_LABEL_CHARS = 32;

export function shortLabel(text) {
  const s = String(text);
  return s.length > MAX_LABEL_CHARS ? `${s.slice(0, MAX_LABEL_CHARS - 1)}\u2026` : s;
}

function textWidth(text, charWidth) {
  return shortLabel(text).length * charWidth;
}

function clamp(value, lo, hi) {
  return Math.max(lo, Math.min(hi, value));
}

// Size of an item as drawn in its parent's level.
export function itemSize(item) {
  if (item.kind === 'node') {
    return { w: clamp(20 + textWidth(item.display || item.label, 7), 80, 250), h: NODE_HEIGHT };
  }
  if (!item.expanded) {
    return { w: clamp(34 + textWidth(item.name, 7.4), 110, 270), h: GROUP_BOX_HEIGHT };
  }
  const inner = layoutGroup(item);
  const headerWidth = 40 + textWidth(item.name, 7.4);
  return {
    w: Math.max(inner.width + 2 * GROUP_PADDING, headerWidth),
    h: inner.height + GROUP_HEADER + GROUP_PADDING,
  };
}

function gridLayout(sizes) {
  const cols = Math.max(1, Math.ceil(Math.sqrt(sizes.length)));
  const pos = [];
  let y = 0;
  let width = 0;
  for (let start = 0; start < sizes.length; start += cols) {
    const row = sizes.slice(start, start + cols);
    const rowHeight = Math.max(...row.map((s) => s.h));
    let x = 0;
    for (const s of row) {
      pos.push({ x, y, w: s.w, h: s.h });
      x += s.w + NODE_SEP;
    }
    width = Math.max(width, x - NODE_SEP);
    y += rowHeight + RANK_SEP;
  }
  return { width, height: Math.max(0, y - RANK_SEP), pos };
}

function dagreLayout(items, sizes, edges, indexOf) {
  const g = new dagre.graphlib.Graph();
  g.setGraph({ rankdir: 'TB', nodesep: NODE_SEP, ranksep: RANK_SEP, marginx: 0, marginy: 0 });
  g.setDefaultEdgeLabel(() => ({}));
  items.forEach((item, i) => g.setNode(String(i), { width: sizes[i].w, height: sizes[i].h }));
  for (const [a, b] of edges) g.setEdge(String(indexOf.get(a.uid)), String(indexOf.get(b.uid)));
  dagre.layout(g);
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const pos = items.map((item, i) => {
    const n = g.node(String(i));
    const p = { x: n.x - sizes[i].w / 2, y: n.y - sizes[i].h / 2, w: sizes[i].w, h: sizes[i].h };
    minX = Math.min(minX, p.x); minY = Math.min(minY, p.y);
    maxX = Math.max(maxX, p.x + p.w); maxY = Math.max(maxY, p.y + p.h);
    return p;
  });
  for (const p of pos) { p.x -= minX; p.y -= minY; }
  return { width: maxX - minX, height: maxY - minY, pos };
}

// Linear-time layered layout. Edges that point backwards in file order are
// reversed for ranking, which makes the rank assignment cycle-free.
function layeredLayout(items, sizes, edges, indexOf) {
  const n = items.length;
  const preds = Array.from({ length: n }, () => []);
  for (const [a, b] of edges) {
    const ia = indexOf.get(a.uid);
    const ib = indexOf.get(b.uid);
    if (ia < ib) preds[ib].push(ia);
    else if (ia > ib) preds[ia].push(ib);
  }
  const rank = new Array(n).fill(0);
  let maxRank = 0;
  for (let i = 0; i < n; i++) {
    for (const p of preds[i]) rank[i] = Math.max(rank[i], rank[p] + 1);
    maxRank = Math.max(maxRank, rank[i]);
  }
  const byRank = Array.from({ length: maxRank + 1 }, () => []);
  for (let i = 0; i < n; i++) byRank[rank[i]].push(i);
  const pos = new Array(n);
  let y = 0;
  let minX = Infinity;
  let maxX = -Infinity;
  for (const members of byRank) {
    const wanted = members.map((i) => {
      if (preds[i].length === 0) return null;
      let sum = 0;
      for (const p of preds[i]) sum += pos[p].x + pos[p].w / 2;
      return sum / preds[i].length;
    });
    const order = members.map((i, k) => k).sort((ka, kb) => {
      const a = wanted[ka];
      const b = wanted[kb];
      if (a === null && b === null) return ka - kb;
      if (a === null) return 1;
      if (b === null) return -1;
      return a - b || ka - kb;
    });
    const rowHeight = Math.max(...members.map((i) => sizes[i].h));
    let cursor = -Infinity;
    let first = true;
    for (const k of order) {
      const i = members[k];
      const w = sizes[i].w;
      let x = wanted[k] === null ? (first ? 0 : cursor) : wanted[k] - w / 2;
      if (!first) x = Math.max(x, cursor);
      pos[i] = { x, y: y + (rowHeight - sizes[i].h) / 2, w, h: sizes[i].h };
      cursor = x + w + NODE_SEP;
      first = false;
      minX = Math.min(minX, x);
      maxX = Math.max(maxX, x + w);
    }
    y += rowHeight + RANK_SEP;
  }
  for (const p of pos) p.x -= minX;
  return { width: maxX - minX, height: y - RANK_SEP, pos };
}

function isChains(edges) {
  const ins = new Set();
  const outs = new Set();
  for (const [a, b] of edges) {
    if (outs.has(a.uid) || ins.has(b.uid)) return false;
    outs.add(a.uid);
    ins.add(b.uid);
  }
  return true;
}

// Lays out the children of a group (cached). Returns {width, height, pos}
// where pos maps item uid to its box {x, y, w, h} relative to the group's
// content origin. The group owns the returned object.
export function layoutGroup(group) {
  if (group.layout) return group.layout;
  const items = group.children;
  const sizes = items.map(itemSize);
  let result;
  if (items.length === 0) result = { width: 0, height: 0, pos: [] };
  else {
    const indexOf = new Map(items.map((item, i) => [item.uid, i]));
    if (group.levelEdges.length === 0) result = gridLayout(sizes);
    else if (isChains(group.levelEdges)) result = layeredLayout(items, sizes, group.levelEdges, indexOf);
    else if (items.length <= DAGRE_MAX_ITEMS) result = dagreLayout(items, sizes, group.levelEdges, indexOf);
    else result = layeredLayout(items, sizes, group.levelEdges, indexOf);
  }
  const pos = new Map();
  items.forEach((item, i) => pos.set(item.uid, result.pos[i]));
  group.layout = { width: result.width, height: result.height, pos };
  return group.layout;
}
