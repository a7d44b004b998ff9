"""Large benchmark captures (~1,000,000 ETDump events) written fast.

Design: the generic builder costs several Python calls per field, too slow
for a million events, so this module lays the ETDump out front to back with
precomputed positions and one struct.pack_into per event:

  [size][root off]["ED00"] | vtables | ETDump root | run_data vector |
  RunData tables | per run: name string, events vector, then per event
  Event table (8 B) + ProfileEvent table (32 B, 8-aligned) + name string

Every reference points forward and all tables share five vtables
(ETDump, RunData, Event, ProfileEvent with and without chain_index).
Strings are not deduplicated, like flatcc. The matching ETRecord comes from
an ordinary generated description (model.Fixture), so both files agree on
instruction ids, handles and operator names.
"""

import os
import struct

from . import etrecord as etrecord_mod
from .model import Fixture

OPS = [("aten.relu.default", "relu"), ("aten.add.Tensor", "add"),
       ("aten.mul.Tensor", "mul"), ("aten.sigmoid.default", "sigmoid")]


def large_description(n_instructions, executions):
    nodes = []
    prev = "x"
    for k in range(n_instructions):
        op, short = OPS[k % len(OPS)]
        name = "aten_%s_%d" % (op.split(".")[1], k)
        args = {"self": prev} if short in ("relu", "sigmoid") else {"self": prev, "other": prev}
        blk = k // 8
        node = {"name": name, "op": op, "args": args, "shape": [1, 64],
                "module": [["L__self___blocks_%d" % blk, "blocks.%d" % blk,
                            "bench.Block"]],
                "source": [{"file": "/src/bench/model.py", "line": 10 + k % 200,
                            "function": "forward", "code": "x = self.blocks[%d](x)" % blk}],
                "source_fn": [short, "torch.%s" % short]}
        if k % 10 == 1:
            node["group"] = "aten_%s_%d" % (OPS[(k - 1) % len(OPS)][0].split(".")[1], k - 1)
        nodes.append(node)
        prev = name
    return {"name": "large", "method": "forward",
            "inputs": [{"name": "x", "shape": [1, 64]}], "nodes": nodes,
            "outputs": [prev], "plan": [{"kernel": n["name"], "duration": 1000 + (i % 17) * 50}
                                        for i, n in enumerate(nodes)],
            "executions": {"count": executions}}


def _str_bytes(s):
    b = s.encode("utf-8")
    return struct.pack("<I", len(b)) + b + b"\0"


def write_large_etdump(fx, executions):
    """ETDump bytes for `executions` runs of fx.plan (kernel instructions)."""
    plan = fx.plan
    n_ins = len(plan)
    per_run = 2 * n_ins + 1
    # vtables at 12 (all 2-aligned, placed before every table)
    vt_etdump = 12
    vt_run = vt_etdump + 8
    vt_event = vt_run + 12
    vt_pe = vt_event + 6
    vt_pe_chain = vt_pe + 20
    vt_end = vt_pe_chain + 20
    vts = (struct.pack("<4H", 8, 8, 0, 4) + struct.pack("<6H", 12, 12, 4, 0, 0, 8) +
           struct.pack("<3H", 6, 8, 4) +
           struct.pack("<10H", 20, 32, 4, 0, 8, 0, 0, 0, 16, 24) +
           struct.pack("<10H", 20, 32, 4, 12, 8, 0, 0, 0, 16, 24))
    root = (vt_end + 3) // 4 * 4
    runs_vec = root + 8
    run_tables = runs_vec + 4 + 4 * (executions + 1)
    names = {}
    for ins in plan:
        names.setdefault(ins["native"], _str_bytes(ins["native"]))
    for s in ("OPERATOR_CALL", "Method::execute", "Execute", "Default",
              "Method::init", "Program::load_method"):
        names.setdefault(s, _str_bytes(s))

    def chunk_size(name):
        return (40 + len(names[name]) + 7) // 8 * 8

    op_chunk = chunk_size("OPERATOR_CALL")
    run_body = 0
    for ins in plan:
        run_body += chunk_size(ins["native"]) + op_chunk
    run_body += chunk_size("Method::execute")
    # block layout: name string (padded to 8), events vector (padded to 8), chunks
    exec_name = (len(names["Execute"]) + 7) // 8 * 8
    vec_len = (4 + 4 * per_run + 7) // 8 * 8
    default_events = 2
    default_len = ((len(names["Default"]) + 7) // 8 * 8 + (4 + 4 * default_events + 7) // 8 * 8
                   + chunk_size("Method::init") + chunk_size("Program::load_method"))
    run_len = exec_name + vec_len + run_body
    first = (run_tables + 12 * (executions + 1) + 7) // 8 * 8
    total = first + default_len + executions * run_len
    buf = bytearray(total)
    struct.pack_into("<I", buf, 0, total - 4)
    struct.pack_into("<I", buf, 4, root - 4)
    buf[8:12] = b"ED00"
    buf[12:12 + len(vts)] = vts
    struct.pack_into("<iI", buf, root, root - vt_etdump, runs_vec - (root + 4))
    struct.pack_into("<I", buf, runs_vec, executions + 1)
    pe_struct = {}

    def pe(name):
        s = pe_struct.get(name)
        if s is None:
            s = struct.Struct("<iIiIiiQQ%ds" % len(names[name]))
            pe_struct[name] = s
        return s

    def write_block(pos, index, block_name, events):
        """events: [(name, chain, instr, start, end)]; returns end pos."""
        tbl = run_tables + 12 * index
        struct.pack_into("<I", buf, runs_vec + 4 + 4 * index, tbl - (runs_vec + 4 + 4 * index))
        name_pos = pos
        buf[name_pos:name_pos + len(names[block_name])] = names[block_name]
        pos += (len(names[block_name]) + 7) // 8 * 8
        vec = pos
        n = len(events)
        pos += (4 + 4 * n + 7) // 8 * 8
        struct.pack_into("<iII", buf, tbl, tbl - vt_run, name_pos - (tbl + 4), vec - (tbl + 8))
        refs = []
        for k, (name, chain, instr, start, end) in enumerate(events):
            refs.append(pos - (vec + 4 + 4 * k))
            vt = vt_pe if chain == 0 else vt_pe_chain
            pe(name).pack_into(buf, pos, pos - vt_event, 4, (pos + 8) - vt, 28, instr, chain,
                               start, end, names[name])
            pos += chunk_size(name)
        struct.pack_into("<I%dI" % n, buf, vec, n, *refs)
        return pos

    t = 398073
    pos = write_block(first, 0, "Default",
                      [("Method::init", -1, 0, t + 981, t + 23465),
                       ("Program::load_method", -1, 0, t, t + 24857)])
    t += 30000
    durations = [int(ins["spec"].get("duration", 1000)) for ins in plan]
    for r in range(executions):
        events = []
        start = t
        t += 300
        for i, ins in enumerate(plan):
            d = durations[i] + (r * 7 + i) % 23
            lead = 50
            events.append((ins["native"], 0, i, t + lead, t + d - lead))
            events.append(("OPERATOR_CALL", 0, i, t, t + d))
            t += d + 150
        t += 100
        events.append(("Method::execute", -1, 0, start, t))
        t += 5000
        pos = write_block(pos, r + 1, "Execute", events)
    assert pos == total, (pos, total)
    return bytes(buf)


def build_large(n_events, outdir, executions=None):
    """Write OUTDIR/large.etdump (about n_events events) and large.etrecord."""
    if n_events < 3:
        raise ValueError("--large needs at least 3 events")
    if executions is None:
        executions = max(1, n_events // 10000)
    n_ins = max(1, (n_events // executions - 1) // 2)
    fx = Fixture(large_description(n_ins, executions))
    os.makedirs(outdir, exist_ok=True)
    out = {}
    path = os.path.join(outdir, "large.etdump")
    with open(path, "wb") as f:
        f.write(write_large_etdump(fx, executions))
    out["etdump"] = path
    path = os.path.join(outdir, "large.etrecord")
    etrecord_mod.write_etrecord(path, {fx.method: fx.exported_program_text()},
                                fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())
    out["etrecord"] = path
    return out
