// The page-data contract (docs/page.md, "Data contract"): what the C writer
// (src/report/views/views.c) puts in the page and what this page accepts.
// The page shows nothing but "This page cannot be shown: <problem>" for a
// document outside it, so that a writer that drifts from the contract is
// caught by the first page test rather than drawn half right.
//
// The views are the view registry: the page offers exactly the views of
// `views`, in that order, with their labels, and knows no view id of its
// own. A view added to the C table (VIEWS of views.c) is therefore offered
// by the page without a change here.
//
// Checked here: the top-level members and every view entry (and the
// baseline page of a comparison, recursively). The contents of graph
// collections, overlay values and entities are read defensively where
// they are used (an odd item is skipped), not checked up front, so that a
// 100,000-node page pays nothing for this check.

export const PAGE_SCHEMA = 'mlia.page/1';
// A view id is also a file name part (models/<id>.json, node-data/<id>/).
export const VIEW_ID = /^[a-z][a-z0-9_]*$/;

const isObject = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
const isString = (x) => typeof x === 'string';
const isStringArray = (x) => Array.isArray(x) && x.every(isString);

function checkView(v, where) {
  if (!isObject(v)) return `${where}: expected an object`;
  if (!isString(v.id) || !VIEW_ID.test(v.id)) return `${where}.id: expected a view id (lower case letters, digits, _)`;
  if (!isString(v.label) || !v.label) return `${where}.label: expected a non-empty string`;
  if (typeof v.available !== 'boolean') return `${where}.available: expected true or false`;
  if (v.available) {
    if (v.reason !== null) return `${where}.reason: expected null for an available view`;
    if (!isObject(v.collection) || !Array.isArray(v.collection.graphs)) return `${where}.collection: expected a graph collection {label, graphs: [...]}`;
  } else {
    if (!isString(v.reason) || !v.reason) return `${where}.reason: expected the reason the view is unavailable`;
    if (v.collection !== null) return `${where}.collection: expected null for an unavailable view`;
  }
  if (!Array.isArray(v.overlays)) return `${where}.overlays: expected an array`;
  for (let k = 0; k < v.overlays.length; k++) {
    const o = v.overlays[k];
    if (!isObject(o) || !isString(o.id) || !isString(o.label)) return `${where}.overlays[${k}]: expected an object with string id and label`;
  }
  return null;
}

// null when doc keeps the contract, else the first problem found
// ("views[2].label: expected a non-empty string").
export function checkPage(doc, where = '') {
  const at = (key) => (where ? `${where}.${key}` : key);
  if (!isObject(doc)) return `${where || 'the embedded data'}: expected a JSON object`;
  if (doc.schema !== PAGE_SCHEMA) return `${at('schema')}: expected "${PAGE_SCHEMA}", found ${JSON.stringify(doc.schema ?? null)}`;
  for (const key of ['title', 'generated_by']) if (!isString(doc[key])) return `${at(key)}: expected a string`;
  for (const key of ['warnings', 'assumptions', 'notes']) if (!isStringArray(doc[key])) return `${at(key)}: expected an array of strings`;
  if (!Array.isArray(doc.views) || !doc.views.length) return `${at('views')}: expected a non-empty array of views`;
  const ids = new Set();
  for (let i = 0; i < doc.views.length; i++) {
    const problem = checkView(doc.views[i], at(`views[${i}]`));
    if (problem) return problem;
    if (ids.has(doc.views[i].id)) return `${at(`views[${i}].id`)}: ${JSON.stringify(doc.views[i].id)} is listed twice`;
    ids.add(doc.views[i].id);
  }
  if (!ids.has(doc.initial_view)) return `${at('initial_view')}: expected the id of one of the views`;
  if (doc.not_applicable !== undefined) {
    if (!isStringArray(doc.not_applicable)) return `${at('not_applicable')}: expected an array of view ids`;
    const stray = doc.not_applicable.find((id) => !ids.has(id));
    if (stray !== undefined) return `${at('not_applicable')}: ${JSON.stringify(stray)} is not the id of a view`;
  }
  if (doc.headline !== undefined && doc.headline !== null && !isObject(doc.headline)) return `${at('headline')}: expected an object`;
  if (doc.advice !== undefined && (!Array.isArray(doc.advice) || doc.advice.some((a) => !isObject(a) || typeof a.message !== 'string'))) {
    return `${at('advice')}: expected an array of objects with a string message`;
  }
  if (!Array.isArray(doc.sync)) return `${at('sync')}: expected an array`;
  for (const key of ['entities', 'entity_nodes', 'table_columns']) if (!isObject(doc[key])) return `${at(key)}: expected an object`;
  for (const [view, columns] of Object.entries(doc.table_columns)) {
    if (!ids.has(view)) return `${at('table_columns')}: ${JSON.stringify(view)} is not the id of a view`;
    if (!isStringArray(columns)) return `${at(`table_columns.${view}`)}: expected an array of strings`;
  }
  if (doc.timeline !== undefined && !isObject(doc.timeline)) return `${at('timeline')}: expected an object`;
  if (doc.memory !== undefined && (!isObject(doc.memory) || typeof doc.memory.available !== 'boolean')) return `${at('memory')}: expected an object with "available" true or false`;
  if ((doc.compare === undefined) !== (doc.baseline_page === undefined)) return `${at('compare')}: "compare" and "baseline_page" come together`;
  if (doc.compare !== undefined) {
    if (!isObject(doc.compare)) return `${at('compare')}: expected an object`;
    return checkPage(doc.baseline_page, at('baseline_page'));
  }
  return null;
}
