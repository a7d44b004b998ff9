// Writes the test pages' data (basic.json, xss.json) deterministically.
// Run: node tests/data/make-data.mjs (from viewer/). The JSON files are
// committed; this script documents how they were made.

import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));

const ramp = ['#fff5eb', '#fdd0a2', '#fd8d3c', '#d94801', '#7f2704'];
function color(value, min, max) {
  const t = max > min ? (value - min) / (max - min) : 0;
  return ramp[Math.min(ramp.length - 1, Math.floor(t * (ramp.length - 1) + 0.5))];
}
function node(id, label, namespace, inputs, attrs = []) {
  return {
    id, label, namespace, attrs,
    incomingEdges: inputs.map((src, i) => ({ sourceNodeId: src, sourceNodeOutputId: '0', targetNodeInputId: String(i) })),
    inputsMetadata: [], outputsMetadata: [], subgraphIds: [], style: null,
  };
}

export function basic(hostile = null) {
  const h = (text) => (hostile ? `${text}${hostile}` : text);
  // Source model: input -> features (14 ops, collapsed) -> classifier (5 ops
  // + classifier/head with 2 ops) -> output.
  const featureOps = ['conv1', 'bn1', 'relu1', 'pool1', 'conv2', 'bn2', 'relu2', 'pool2', 'conv3', 'bn3', 'relu3', 'conv4', 'relu4', 'pool4'];
  const srcNodes = [node('src:x', 'input', '', [], [{ key: 'shape', value: '[1, 1, 28, 28]' }])];
  let prev = 'src:x';
  for (const op of featureOps) {
    const target = op.startsWith('conv') ? 'aten.convolution.default' : op.startsWith('pool') ? 'aten.max_pool2d.default' : op.startsWith('bn') ? 'aten.batch_norm.default' : 'aten.relu.default';
    srcNodes.push(node(`src:${op}`, target, 'features', [prev], [{ key: 'target', value: target }, { key: 'debug_handle', value: String(srcNodes.length) }]));
    prev = `src:${op}`;
  }
  const classifier = [['flatten', 'aten.view.default', 'classifier'], ['fc1', 'aten.linear.default', 'classifier'], ['relu5', 'aten.relu.default', 'classifier'],
    ['fc2', 'aten.linear.default', 'classifier'], ['dropout', 'aten.dropout.default', 'classifier'], ['fc3', 'aten.linear.default', 'classifier/head'],
    ['softmax', 'aten.softmax.default', 'classifier/head']];
  for (const [op, target, ns] of classifier) {
    srcNodes.push(node(`src:${op}`, h(target), ns, [prev], [{ key: 'target', value: target }, { key: 'debug_handle', value: String(srcNodes.length) }, { key: 'delegate', value: 'VgfBackend' }]));
    prev = `src:${op}`;
  }
  srcNodes.push(node('src:output', 'output', '', [prev]));
  const srcOps = srcNodes.filter((n) => n.id !== 'src:x' && n.id !== 'src:output');

  // NX hierarchy: 4 chains.
  const chains = [['chain:0/0/0', 'segment_0/cascade_0', 1200], ['chain:0/0/1', 'segment_0/cascade_0', 5400],
    ['chain:0/1/0', 'segment_0/cascade_1', 800], ['chain:1/0/0', 'segment_1/cascade_0', 9100]];
  const chainNodes = chains.map(([id, ns], i) => node(id, h(`chain_${id.split('/')[2]}`), ns, i ? [chains[i - 1][0]] : [],
    [{ key: 'stripes', value: String(4 + i) }]));
  const chainMin = 800;
  const chainMax = 9100;
  // Which source ops each chain serves.
  const serves = {
    'chain:0/0/0': ['src:conv1', 'src:bn1', 'src:relu1', 'src:pool1'],
    'chain:0/0/1': ['src:conv2', 'src:bn2', 'src:relu2', 'src:pool2', 'src:conv3', 'src:bn3', 'src:relu3'],
    'chain:0/1/0': ['src:conv4', 'src:relu4', 'src:pool4', 'src:flatten'],
    'chain:1/0/0': ['src:fc1', 'src:relu5', 'src:fc2', 'src:fc3', 'src:softmax'],
  };
  const chainOf = {};
  for (const [c, ops] of Object.entries(serves)) for (const op of ops) chainOf[op] = c;

  // Mapping view: chains grouped by segment, source operators under "source".
  const mapNodes = chains.map(([id, ns]) => node(id, `chain_${id.split('/')[2]}`, ns.split('/')[0], []));
  for (const op of srcOps) {
    const c = chainOf[op.id];
    mapNodes.push(node(op.id, op.label, 'source_operators', c ? [c] : []));
  }

  // ETDump backend trace: compiler operations grouped by chain + one unmatched.
  const tosa = [['tosa:0', 'TOSA.CONV2D', 'segment_0/cascade_0/chain_0'], ['tosa:1', 'TOSA.MAX_POOL2D', 'segment_0/cascade_0/chain_0'],
    ['tosa:2', 'TOSA.CONV2D', 'segment_0/cascade_0/chain_1'], ['tosa:3', 'TOSA.RESCALE', 'segment_0/cascade_0/chain_1'],
    ['tosa:4', 'TOSA.FULLY_CONNECTED', 'segment_1/cascade_0/chain_0'], ['tosa:5', 'TOSA.CLAMP', 'segment_1/cascade_0/chain_0'],
    ['tosa:9', 'TOSA.RESHAPE', '']];
  const opNodes = tosa.map(([id, label, ns], i) => node(id, h(label), ns, i ? [tosa[i - 1][0]] : [],
    ns ? [] : [{ key: 'association', value: 'no association recorded' }]));
  const events = [['evt:delegate', 'DELEGATE_CALL', []], ['evt:vgf', 'VGF_EXECUTE', ['evt:delegate']], ['evt:copy_in', 'COPY_IN', ['evt:vgf']],
    ['evt:dispatch', 'DISPATCH', ['evt:copy_in']], ['evt:stats', 'STATISTICS', ['evt:dispatch']], ['evt:copy_out', 'COPY_OUT', ['evt:stats']]];
  const eventNodes = events.map(([id, label, inputs]) => node(id, label, '', inputs));
  const groupCycles = { 'segment_0/cascade_0/chain_0': 1200, 'segment_0/cascade_0/chain_1': 5400, 'segment_1/cascade_0/chain_0': 9100 };

  const entities = {};
  const entityNodes = {};
  const addLoc = (id, view, graph) => { (entityNodes[id] ||= []).push({ view, graph, node: id }); };
  srcOps.forEach((op, i) => {
    const p50 = Number((0.05 + i * 0.013).toFixed(4));
    const c = chainOf[op.id];
    entities[op.id] = {
      kind: 'source_operator', name: h(op.id.slice(4)),
      attributes: { target: op.attrs[0].value, debug_handle: Number(op.attrs[1].value) },
      metrics: [
        { name: 'execution_time', value: p50, unit: 'ms', statistic: 'p50', attribution: c ? 'shared' : 'exclusive', samples: 10 },
        { name: 'execution_time', value: Number((p50 * 0.9).toFixed(4)), unit: 'ms', statistic: 'min', attribution: c ? 'shared' : 'exclusive', samples: 10 },
        { name: 'execution_time', value: Number((p50 * 1.2).toFixed(4)), unit: 'ms', statistic: 'max', attribution: c ? 'shared' : 'exclusive', samples: 10 },
        { name: 'total_cycles', unit: 'cycles', availability: 'unavailable', reason: 'cycles are measured per chain, not per source operator' },
      ],
      coverage: c ? 100 : 0,
      related: c ? [{ id: c, relation: 'served by chain' }] : [],
      stack_trace: `File "lenet.py", line ${20 + i}, in forward\n    x = self.${op.id.slice(4)}(x)`,
    };
    addLoc(op.id, 'source_model', 'forward');
    addLoc(op.id, 'etrecord_chain_mapping', 'mapping');
  });
  chains.forEach(([id, , cycles], i) => {
    entities[id] = {
      kind: 'chain', name: h(`segment_${id.split(':')[1].split('/')[0]}/cascade_${id.split('/')[1]}/chain_${id.split('/')[2]}`),
      attributes: { stripes: 4 + i },
      metrics: [{ name: 'total_cycles', value: cycles, unit: 'cycles' }, { name: 'op_cycles', value: Math.round(cycles * 0.8), unit: 'cycles' }],
      coverage: null,
      related: serves[id].map((op) => ({ id: op, relation: 'serves' })),
      stack_trace: null,
    };
    addLoc(id, 'segment_cascade_chain', 'nx');
    addLoc(id, 'etrecord_chain_mapping', 'mapping');
  });
  tosa.forEach(([id, label, ns]) => {
    entities[id] = {
      kind: 'compiler_operation', name: h(label), attributes: { chain: ns || 'no association recorded' },
      metrics: [{ name: 'op_cycles', unit: 'cycles', availability: 'unavailable', reason: 'cycles are measured per chain; see the chain group' }],
      coverage: null, related: [], stack_trace: null,
    };
    addLoc(id, 'etdump_backend_trace', 'operations');
  });

  const srcValues = {};
  const p50s = srcOps.map((op) => entities[op.id].metrics[0].value);
  const pMin = Math.min(...p50s);
  const pMax = Math.max(...p50s);
  for (const op of srcOps) {
    const m = entities[op.id].metrics[0];
    srcValues[`forward/${op.id}`] = { value: m.value, color: color(m.value, pMin, pMax), text: `${m.value} ms${m.attribution === 'shared' ? ' (shared)' : ''}` };
  }
  const chainValues = (graph) => Object.fromEntries(chains.map(([id, , c]) => [`${graph}/${id}`, { value: c, color: color(c, chainMin, chainMax), text: `${c} cycles` }]));
  const groupValues = Object.fromEntries(Object.entries(groupCycles).map(([ns, c]) => [`operations/${ns}`, { value: c, color: color(c, chainMin, chainMax), text: `${c} cycles` }]));

  const collection = (label, graphs) => ({ label, graphs: graphs.map(([id, nodes, groupAttrs]) => ({ id, nodes, groupNodeAttributes: groupAttrs || {} })) });
  const sync = srcOps.filter((op) => chainOf[op.id]).map((op) => ({
    from: { view: 'source_model', graph: 'forward', node: op.id },
    to: [{ view: 'segment_cascade_chain', graph: 'nx', node: chainOf[op.id] }, { view: 'etrecord_chain_mapping', graph: 'mapping', node: chainOf[op.id] }],
  }));
  sync.push({ from: { view: 'segment_cascade_chain', graph: 'nx', node: 'chain:0/0/0' }, to: [{ view: 'etdump_backend_trace', graph: 'operations', node: 'segment_0/cascade_0/chain_0' }] });
  sync.push({ from: { view: 'segment_cascade_chain', graph: 'nx', node: 'chain:1/0/0' }, to: [{ view: 'etdump_backend_trace', graph: 'operations', node: 'segment_1/cascade_0/chain_0' }] });

  return {
    schema: 'mlia.page/1',
    title: h('mlia check: lenet.pte'),
    generated_by: 'mlia 0.1.0 (test data)',
    warnings: [h('execution coverage 93.3 % < 100 %: 1 source operator has no recorded chain')],
    assumptions: ['statistics device assumed: nx (no --device given)'],
    notes: ['Chain cycles on ETDump Backend Trace groups are group measurements.'],
    initial_view: 'etrecord_chain_mapping',
    views: [
      { id: 'source_model', label: 'Source Model', available: true, reason: null,
        collection: collection('lenet forward', [['forward', srcNodes, { classifier: { module: h('torch.nn.Sequential') } }]]),
        overlays: [{ id: 'runtime_p50', label: 'Runtime P50', unit: 'ms', entity_kind: 'source_operator', scale: { min: pMin, max: pMax }, group_measurement: false, values: srcValues }] },
      { id: 'segment_cascade_chain', label: 'segment_cascade_chain', available: true, reason: null,
        collection: collection('NX hierarchy', [['nx', chainNodes]]),
        overlays: [{ id: 'total_cycles', label: 'Total cycles', unit: 'cycles', entity_kind: 'chain', scale: { min: chainMin, max: chainMax }, group_measurement: false, values: chainValues('nx') }] },
      { id: 'etrecord_chain_mapping', label: 'ETRecord Chain Mapping', available: true, reason: null,
        collection: collection('chains to source operators', [['mapping', mapNodes]]),
        overlays: [{ id: 'chain_cycles', label: 'Chain cycles', unit: 'cycles', entity_kind: 'chain', scale: { min: chainMin, max: chainMax }, group_measurement: false, values: chainValues('mapping') }] },
      { id: 'etdump_backend_trace', label: 'ETDump Backend Trace', available: true, reason: null,
        collection: collection('backend trace', [['operations', opNodes], ['runtime', eventNodes]]),
        overlays: [{ id: 'chain_group_cycles', label: 'Chain cycles (group)', unit: 'cycles', entity_kind: 'chain', scale: { min: chainMin, max: chainMax }, group_measurement: true, values: groupValues }] },
      { id: 'pte_vgf_backend_hierarchy', label: 'PTE - VGF Backend Hierarchy', available: false,
        reason: h('no companion PTE was given (--companion)'), collection: null, overlays: [] },
    ],
    sync,
    entities,
    entity_nodes: entityNodes,
    table_columns: {
      source_model: ['execution_time', 'execution_time:max'],
      segment_cascade_chain: ['total_cycles', 'op_cycles'],
      etrecord_chain_mapping: ['total_cycles', 'execution_time'],
      etdump_backend_trace: ['op_cycles'],
    },
  };
}

export const HOSTILE = '</script><img src=x onerror=alert(1)>';

function xss() {
  const doc = basic(HOSTILE);
  // A node whose name is exactly the hostile string, a stack trace with
  // markup, hostile attribute keys/values and a hostile namespace.
  const src = doc.views[0].collection.graphs[0];
  src.nodes[1].label = HOSTILE;
  src.nodes[1].attrs.push({ key: '<b>key</b>', value: '<svg onload=alert(3)>' });
  src.nodes.push(node('src:evil', HOSTILE, '<i>ns</i>', ['src:x']));
  doc.entities['src:conv1'].name = HOSTILE;
  doc.entities['src:conv1'].stack_trace = '<b>bold</b><script>alert(2)</script>\n  File "<img src=x onerror=alert(4)>", line 1';
  doc.entities['src:conv1'].attributes['<u>attr</u>'] = '"><script>alert(5)</script>';
  doc.notes.push('\u2028line separator\u2029 and & ampersand < less > greater');
  return doc;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(join(here, 'basic.json'), `${JSON.stringify(basic(), null, 1)}\n`);
  writeFileSync(join(here, 'xss.json'), `${JSON.stringify(xss(), null, 1)}\n`);
  console.log('wrote basic.json, xss.json');
}
