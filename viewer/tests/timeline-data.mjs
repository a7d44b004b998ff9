// Synthetic page data for the Timeline tab at scale (tests and bench):
// `executions` executions of `events` events each, in the compact form the
// C writer emits (docs/trace.md): per execution [delta start, duration,
// site] in ticks, wrapper first. Each execution: Method::execute around
// (events - 1) / 2 operator calls, each wrapping its kernel call.
export function largeTimeline(executions, events) {
  const ops = Math.max(1, Math.floor((events - 1) / 2));
  const sites = [['Method::execute', 'framework', null, -1, -1, [], 'Method::execute']];
  for (let i = 0; i < 50; i++) {
    sites.push([`aten.op_${i}.default`, 'operator', `source_operator/forward/op_${i}`, 0, i, [i + 1], 'OPERATOR_CALL']);
    sites.push([`native_call_op_${i}.out`, 'kernel', `source_operator/forward/op_${i}`, 0, i, [i + 1], `native_call_op_${i}.out`]);
  }
  const list = [];
  for (let e = 0; e < executions; e++) {
    const flat = [0, ops * 1000 + 500, 0];
    let prev = 0;
    for (let i = 0; i < ops; i++) {
      const start = 100 + i * 1000 + (e % 7);
      flat.push(start - prev, 900, 1 + 2 * (i % 50));
      flat.push(50, 800, 2 + 2 * (i % 50));
      prev = start + 50;
    }
    list.push({ event_block: e + 1, start: String(1000 + e * 10000), events: flat });
  }
  return {
    schema: 'mlia.timeline/1', method: 'forward', time_unit: 'ns', us_decimals: 3,
    n_executions: executions, executions: list, shown_executions: executions,
    shown_events: executions * (1 + 2 * ops), sites,
    counters: [{ name: 'NX cycles (model)', key: 'total_cycles', values: list.map((_, i) => 1000 + i) }],
  };
}
