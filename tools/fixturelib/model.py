"""Fixture description -> coherent ETRecord / ETDump / PTE contents.

Design: one pass derives everything from the description (format in
docs/fixture-builder.md) so the three artifacts cannot disagree:
  1. nodes: tensors, debug handles assigned like ExecuTorch's to_edge (node
     order from 1; nodes of one `group` -- decomposed from one source op --
     share a handle; nodes with "handle": false get none);
  2. plan: instruction i of chain 0 is plan[i]; KernelCall operators come
     from the node op (aten.convolution.default -> aten::convolution.out);
     the debug maps of the ETRecord are keyed by these indexes;
  3. executions: per instruction durations (deterministic jitter), events
     written in ExecuTorch's children-first completion order;
  4. NX statistics per execution per delegate call (nx.py);
  5. PTE values emitted like the ExecuTorch emitter (constants first, then
     inputs, then per instruction: scalar args, outputs).
All randomness is replaced by fixed arithmetic so output is reproducible.
"""

import json
import os

from . import debugbuf
from . import etdump as etdump_mod
from . import exported_program as ep_mod
from . import nx
from . import spirvwrite
from . import vgf as vgf_mod
from . import vgfwrite
from .pte import write_pte

# torch dtype name -> ExecuTorch ScalarType of a logged tensor
DEBUG_SCALAR_TYPE = dict(ep_mod.FB_DTYPE, bits16=22, uint32=28, uint64=29)

VGF_EVENTS = ["VGF_COPY_INPUTS", "VGF_QUEUE_SUBMIT_AND_WAIT_FENCE", "VGF_DISPATCH_AND_WAIT",
              "VGF_NEURAL_STATISTICS", "VGF_COPY_OUTPUTS", "VGF_EXECUTE"]


def fixtures_dir():
    env = os.environ.get("MLIA_FIXTURES")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "..", "shared", "fixtures"))


def resolve_path(p, base_dir):
    if p.startswith("fixture:"):
        return os.path.join(fixtures_dir(), p[len("fixture:"):])
    return p if os.path.isabs(p) else os.path.join(base_dir, p)


def numel(shape):
    n = 1
    for d in shape:
        n *= d if isinstance(d, int) else 1
    return n


def kernel_operator(op):
    """aten.convolution.default -> ('aten::convolution', 'out')."""
    parts = op.split(".")
    return ("%s::%s" % (parts[0], parts[1]), "out")


def stack_trace_text(frames):
    return "".join('  File "%s", line %d, in %s\n    %s\n'
                   % (f["file"], f["line"], f.get("function", "forward"), f.get("code", ""))
                   for f in frames)


class Fixture:
    """Derived model of one description. Attributes are read by the writers
    and by tests (handles, plan, executions)."""

    def __init__(self, desc, base_dir="."):
        self.desc = desc
        self.base_dir = base_dir
        self.name = desc["name"]
        self.method = desc.get("method", "forward")
        self._nodes()
        self._plan()
        self._vgf()

    # -- 1. nodes and handles --------------------------------------------
    def _nodes(self):
        d = self.desc
        self.tensors = {}
        self.placeholders = []
        for i in d.get("inputs", []):
            self.tensors[i["name"]] = {"shape": i["shape"], "dtype": i.get("dtype", "float32")}
            self.placeholders.append({"name": i["name"], "shape": i["shape"],
                                      "dtype": i.get("dtype", "float32"), "kind": "user_input"})
        self.parameters = []
        for p in d.get("parameters", []):
            self.tensors[p["name"]] = {"shape": p["shape"], "dtype": p.get("dtype", "float32")}
            entry = {"name": p["name"], "shape": p["shape"], "dtype": p.get("dtype", "float32"),
                     "kind": p.get("kind", "parameter"), "target": p["target"]}
            self.parameters.append(entry)
        # torch.export lists parameters before user inputs
        self.placeholders = self.parameters + self.placeholders
        self.nodes = d["nodes"]
        self.node_by_name = {}
        handles = {}
        next_handle = 1
        self.handles = {}
        for n in self.nodes:
            self.node_by_name[n["name"]] = n
            for out in n.get("outputs", [n["name"]]):
                self.tensors[out] = {"shape": n.get("output_shapes", {}).get(out, n["shape"]),
                                     "dtype": n.get("dtype", "float32")}
            if n.get("handle", True) is False:
                self.handles[n["name"]] = 0
                continue
            group = n.get("group", n["name"])
            if group not in handles:
                handles[group] = next_handle
                next_handle += 1
            self.handles[n["name"]] = handles[group]

    def node_args(self, n):
        """[(name, argument value)] with tensor names recognised."""
        out = []
        for a, v in n.get("args", {}).items():
            if isinstance(v, str) and v in self.tensors:
                out.append((a, {"tensor": v}))
            elif isinstance(v, list) and v and all(isinstance(x, str) and x in self.tensors
                                                   for x in v):
                out.append((a, {"tensors": v}))
            elif isinstance(v, bool):
                out.append((a, {"bool": v}))
            elif isinstance(v, int):
                out.append((a, {"int": v}))
            elif isinstance(v, float):
                out.append((a, {"float": v}))
            elif v is None:
                out.append((a, {"none": None}))
            elif isinstance(v, list) and all(isinstance(x, int) for x in v):
                out.append((a, {"ints": v}))
            elif isinstance(v, list):
                out.append((a, {"floats": v}))
            else:
                out.append((a, {"string": v}))
        return out

    def node_metadata(self, n):
        md = {}
        if n.get("source"):
            md["stack_trace"] = stack_trace_text(n["source"])
        if n.get("module"):
            md["nn_module_stack"] = ";".join(",".join(m) for m in n["module"])
        if n.get("source_fn"):
            md["source_fn_stack"] = ",".join(n["source_fn"])
        md["torch_fn"] = "%s;%s" % (n.get("group", n["name"]), n["op"])
        # provenance: nodes of one group descend from the same original node
        md["from_node"] = json.dumps([{
            "name": n["name"], "target": n["op"], "pass_name": "to_edge", "action": "create",
            "graph_id": 2, "from_node": [{
                "name": n.get("group", n["name"]), "target": n["op"].rsplit(".", 1)[0],
                "pass_name": "export", "action": "create", "graph_id": 1, "from_node": []}]}])
        if self.handles[n["name"]]:
            md["debug_handle"] = str(self.handles[n["name"]])
        return md

    # -- 2. plan ------------------------------------------------------------
    def _plan(self):
        self.plan = []
        for i, p in enumerate(self.desc["plan"]):
            if "kernel" in p:
                n = self.node_by_name[p["kernel"]]
                op = p.get("operator")
                opname, overload = op.rsplit(".", 1) if op else kernel_operator(n["op"])
                self.plan.append({"kind": "kernel", "node": n["name"], "operator": (opname, overload),
                                  "native": "native_call_%s.%s" % (opname.split("::")[-1], overload),
                                  "spec": p})
            else:
                members = p["delegate"]
                outs = p.get("outputs") or self.node_by_name[members[-1]].get(
                    "outputs", [members[-1]])
                self.plan.append({"kind": "delegate", "nodes": members,
                                  "backend": p.get("backend", "VgfBackend"),
                                  "outputs": outs, "spec": p})

    def debug_handle_map(self):
        m = {}
        for i, ins in enumerate(self.plan):
            if ins["kind"] == "kernel":
                h = self.handles[ins["node"]]
                if h:
                    m[str(i)] = h
            else:
                m[str(i)] = sorted({self.handles[n] for n in ins["nodes"] if self.handles[n]})
        return {self.method: m}

    def delegate_map(self):
        m = {}
        for i, ins in enumerate(self.plan):
            if ins["kind"] == "delegate":
                m[str(i)] = {"name": ins["backend"],
                             "delegate_map": ins["spec"].get("delegate_map", {})}
        return {self.method: m}

    def num_outs_map(self):
        return {self.method: {str(i): len(ins["outputs"]) for i, ins in enumerate(self.plan)
                              if ins["kind"] == "delegate"}}

    # -- ExportedProgram ------------------------------------------------
    def program_model(self, form=None):
        form = form or self.desc.get("etrecord", {}).get("delegate_form", "original")
        nodes = []
        delegated = {}
        for ins in self.plan:
            if ins["kind"] == "delegate":
                for n in ins["nodes"]:
                    delegated[n] = ins
        emitted = set()
        for n in self.nodes:
            ins = delegated.get(n["name"])
            if form == "lowered" and ins is not None:
                if id(ins) in emitted:
                    continue
                emitted.add(id(ins))
                nodes.append(self._delegate_node(ins, len(emitted) - 1))
                continue
            nodes.append({"name": n["name"],
                          "target": "executorch.exir.dialects.edge.ops." + n["op"],
                          "args": self.node_args(n), "outputs": n.get("outputs", [n["name"]]),
                          "output_list": len(n.get("outputs", [n["name"]])) > 1,
                          "metadata": self.node_metadata(n)})
        tensors = {k: v for k, v in self.tensors.items()}
        return {"inputs": self.placeholders, "nodes": nodes, "tensors": tensors,
                "outputs": self.desc["outputs"],
                "range_constraints": {k: tuple(v) for k, v in
                                      self.desc.get("range_constraints", {}).items()}}

    def _delegate_node(self, ins, k):
        members = [self.node_by_name[n] for n in ins["nodes"]]
        produced = set()
        for m in members:
            produced.update(m.get("outputs", [m["name"]]))
        ext = []
        for m in members:
            for _a, v in self.node_args(m):
                for t in ([v["tensor"]] if "tensor" in v else v.get("tensors", [])):
                    if t not in produced and t not in ext:
                        ext.append(t)
        sub_inputs = [{"name": t, "shape": self.tensors[t]["shape"],
                       "dtype": self.tensors[t]["dtype"], "kind": "user_input"} for t in ext]
        sub = {"inputs": sub_inputs,
               "nodes": [{"name": m["name"], "target": "executorch.exir.dialects.edge.ops." + m["op"],
                          "args": self.node_args(m), "outputs": m.get("outputs", [m["name"]]),
                          "metadata": self.node_metadata(m)} for m in members],
               "tensors": {t: self.tensors[t] for t in ext + sorted(produced)},
               "outputs": ins["outputs"]}
        return ep_mod.delegate_node("executorch_call_delegate" + ("_%d" % k if k else ""),
                                    ins["backend"], sub, ext, ins["outputs"], {})

    def exported_program_text(self, legacy=False, form=None):
        return ep_mod.dumps(ep_mod.exported_program(self.program_model(form), legacy=legacy))

    # -- 3. executions and ETDump --------------------------------------
    def executions(self):
        e = self.desc.get("executions", 1)
        if isinstance(e, int):
            e = {"count": e}
        return e

    def duration(self, i, r):
        spec = self.plan[i]["spec"]
        if "durations" in spec:
            return spec["durations"][r % len(spec["durations"])]
        jitter = self.executions().get("jitter", [1.0])
        base = spec.get("duration", 10000)
        # deterministic variation: jitter per execution, small per-instruction skew
        return max(10, int(round(base * jitter[r % len(jitter)])) + (i * 7 + r * 13) % 29)

    def _vgf_events(self, ins, i, r, start, end):
        """Backend events inside one DELEGATE_CALL [start, end), children first."""
        d = end - start
        t0 = start + d // 40
        t1 = end - d // 40                       # VGF_EXECUTE
        span = t1 - t0
        ci = (t0 + 5, t0 + 5 + span * 3 // 100)                 # copy inputs
        disp = (ci[1] + 5, ci[1] + 5 + span * 80 // 100)        # dispatch and wait
        qs = (disp[0] + 3, disp[1] - 3)                         # queue submit, nested
        nxs = (disp[1] + 5, disp[1] + 5 + span * 5 // 100)      # statistics collection
        co = (nxs[1] + 5, min(t1 - 5, nxs[1] + 5 + span * 3 // 100))
        meta = self.nx_metadata(i, r)
        evs = [("VGF_COPY_INPUTS", ci, b""), ("VGF_QUEUE_SUBMIT_AND_WAIT_FENCE", qs, b""),
               ("VGF_DISPATCH_AND_WAIT", disp, b"")]
        if meta is not None:
            evs.append(("VGF_NEURAL_STATISTICS", nxs, meta))
        evs += [("VGF_COPY_OUTPUTS", co, b""), ("VGF_EXECUTE", (t0, t1), b"")]
        return [{"profile": {"delegate_debug_id_str": name, "chain_index": 0,
                             "instruction_id": i, "metadata": m, "start": s, "end": e}}
                for name, (s, e), m in evs]

    def _xnnpack_events(self, ins, i, r, start, end):
        """XNNPACK's profiler inside one DELEGATE_CALL (docs/delegates.md,
        "XNNPACK"): one event per runtime operator, named "<operator> #k" (k
        counts repeats of the name in this execution), durations in whole
        microseconds converted to ticks (ns: x 1000) and laid back to back
        from `xnnpack_lead` ticks after the call's start; all are logged
        after the run, so they precede DELEGATE_CALL. `xnnpack` is
        [[operator, [us per execution, ...]], ...] in execution order."""
        t = start + ins["spec"].get("xnnpack_lead", 1000)
        seen, out = {}, []
        for name, us in ins["spec"]["xnnpack"]:
            seen[name] = seen.get(name, 0) + 1
            d = us[r % len(us)] * 1000
            out.append({"profile": {"delegate_debug_id_str": "%s #%d" % (name, seen[name]), "chain_index": 0,
                                    "instruction_id": i, "metadata": b"", "start": t, "end": t + d}})
            t += d
        if t > end:
            raise ValueError("xnnpack: the operators' durations exceed the delegate call's duration")
        return out

    # -- 3b. intermediate outputs (debug events + debug buffer) -------------
    def debug_spec(self, reference=False):
        """The run's (or the reference's) debug description, or None."""
        d = self.desc.get("debug")
        if not d:
            return None
        if not reference:
            return d
        ref = d.get("reference")
        if ref is None:
            return None
        merged = {k: v for k, v in d.items() if k != "reference"}
        merged.update(ref)
        return merged

    def _debug_tensor(self, debug, buf, name, r):
        """DebugEvent Tensor value of tensor `name` in execution r, its bytes
        appended to buf; None when the description gives it no values."""
        spec = debug.get("tensors", {}).get(name)
        if spec is None:
            return None
        ts = self.tensors.get(name, {})
        dtype = spec.get("dtype", ts.get("dtype", "float32"))
        shape = spec.get("shape", ts.get("shape", []))
        strides = spec.get("strides")
        if strides is None:
            strides, acc = [], 1
            for dim in reversed(shape):
                strides.insert(0, acc)
                acc *= dim
        n = 1
        for dim in shape:
            n *= dim
        if spec.get("zeros"):
            # all zeros, left as a hole in the buffer file (large captures)
            offset = buf.add_zeros(n * len(debugbuf.encode(dtype, [0])))
        else:
            values = spec.get("values", [])
            if values and isinstance(values[0], list):
                values = values[r % len(values)]
            if len(values) != n:
                raise ValueError("debug tensor %r: %d values for shape %s" % (name, len(values), shape))
            offset = buf.add(debugbuf.encode(dtype, values))
        if "offset" in spec:
            offset = spec["offset"]
        return {"tensor": {"scalar_type": DEBUG_SCALAR_TYPE[dtype], "sizes": shape,
                           "strides": strides, "offset": offset}}

    def _debug_events(self, debug, buf, names, i, r, **ids):
        out = []
        for name in names:
            v = self._debug_tensor(debug, buf, name, r)
            if v is not None:
                ev = {"chain_index": 0, "instruction_id": i, "value": v}
                ev.update(ids)
                out.append({"debug": ev})
        return out

    def _delegate_inputs(self, ins):
        """Tensors a delegated region reads from outside it, in first-use order."""
        inside = set()
        for m in ins["nodes"]:
            inside.update(self.node_by_name[m].get("outputs", [m]))
        seen = []
        for m in ins["nodes"]:
            for _a, v in self.node_args(self.node_by_name[m]):
                for t in ([v["tensor"]] if "tensor" in v else v.get("tensors", [])):
                    if t not in inside and t not in seen:
                        seen.append(t)
        return seen

    def debug_capture(self, reference=False):
        """(ETDump bytes, DebugBuffer, file size or None) of the run or the reference."""
        debug = self.debug_spec(reference)
        buf = debugbuf.DebugBuffer(debug.get("layout", "aligned"), debug.get("alignment", 64),
                                   debug.get("base", 0))
        runs = self.etdump_runs(debug, buf)
        dump = etdump_mod.write_etdump(
            runs, size_prefixed=self.desc.get("etdump", {}).get("size_prefixed", True))
        return dump, buf, debug.get("buffer_size")

    def debug_buffer(self, reference=False):
        """(ETDump bytes, debug buffer bytes) of the run or the reference."""
        dump, buf, size = self.debug_capture(reference)
        return dump, buf.bytes(size)

    def etdump_runs(self, debug=None, buf=None):
        ex = self.executions()
        count = ex.get("count", 1)
        t = ex.get("start", 398073)
        runs = []
        if self.desc.get("etdump", {}).get("default_block", True):
            load = (t, t + 24857)
            init = (t + 981, t + 981 + 22484)
            default = {"name": "Default", "events": [], "allocators": None}
            for a_id, size in self.desc.get("etdump", {}).get("allocations", []):
                default["events"].append({"allocation": {"allocator_id": a_id, "size": size}})
            if self.desc.get("etdump", {}).get("allocators"):
                default["allocators"] = self.desc["etdump"]["allocators"]
            default["events"] += [
                {"profile": {"name": "Method::init", "chain_index": -1, "instruction_id": 0,
                             "start": init[0], "end": init[1]}},
                {"profile": {"name": "Program::load_method", "chain_index": -1,
                             "instruction_id": 0, "start": load[0], "end": load[1]}}]
            runs.append(default)
            t = load[1] + 2383
        gap = ex.get("gap", 150)
        for r in range(count):
            events = []
            exec_start = t
            t += 311
            for i, ins in enumerate(self.plan):
                d = self.duration(i, r)
                s, e = t, t + d
                if ins["kind"] == "kernel":
                    kt = ins["spec"].get("kernel_time")
                    if isinstance(kt, list):
                        kt = kt[r % len(kt)]
                    if kt is None:
                        kt = d - max(100, d // 100)
                    lead = (d - kt) // 2
                    if debug:
                        # the kernel wrapper logs its outputs inside native_call
                        n = self.node_by_name[ins["node"]]
                        events += self._debug_events(debug, buf, n.get("outputs", [n["name"]]), i, r)
                    events.append({"profile": {"name": ins["native"], "chain_index": 0,
                                               "instruction_id": i, "start": s + lead,
                                               "end": s + lead + kt}})
                    events.append({"profile": {"name": "OPERATOR_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                elif ins["spec"].get("ethosu_scopes"):
                    # Ethos-U logs named scopes (no delegate id) with the
                    # call's chain and instruction: [[name, lead, duration]]
                    # in ticks after the call's start (docs/delegates.md)
                    for name, lead, dur in ins["spec"]["ethosu_scopes"]:
                        events.append({"profile": {"name": name, "chain_index": 0, "instruction_id": i,
                                                   "start": s + lead, "end": s + lead + dur}})
                    events.append({"profile": {"name": "DELEGATE_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                elif ins["spec"].get("xnnpack"):
                    events += self._xnnpack_events(ins, i, r, s, e)
                    events.append({"profile": {"name": "DELEGATE_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                elif ins["spec"].get("qnn"):
                    # QNN's profiler (docs/delegates.md, "Qualcomm QNN"):
                    # every value logged after the run with start 0 and
                    # end = the value, its unit in the identifier;
                    # [[identifier, [value per execution, ...]], ...]
                    for name, vals in ins["spec"]["qnn"]:
                        events.append({"profile": {"delegate_debug_id_str": name, "chain_index": 0,
                                                   "instruction_id": i, "metadata": b"", "start": 0,
                                                   "end": vals[r % len(vals)]}})
                    events.append({"profile": {"name": "DELEGATE_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                elif ins["spec"].get("vulkan"):
                    # Vulkan (docs/delegates.md, "Vulkan"), in logging order:
                    # ["scope", name, lead, duration] is an ETVK_* scope timed
                    # with the CPU clock, `lead` ticks after the call's start;
                    # {"dispatch": {...}, "start": [...], "end": [...]} is one
                    # shader dispatch named by its JSON object, with GPU
                    # timestamps in ns (another epoch) per execution
                    for item in ins["spec"]["vulkan"]:
                        if isinstance(item, list):
                            _, name, lead, dur = item
                            start, end = s + lead, s + lead + dur
                        else:
                            name = json.dumps(item["dispatch"])
                            start = item["start"][r % len(item["start"])]
                            end = item["end"][r % len(item["end"])]
                        events.append({"profile": {"delegate_debug_id_str": name, "chain_index": 0,
                                                   "instruction_id": i, "metadata": b"", "start": start,
                                                   "end": end}})
                    events.append({"profile": {"name": "DELEGATE_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                elif ins["spec"].get("delegate_events"):
                    # a backend's own delegate events, logged after the run
                    # (before DELEGATE_CALL) with the times its clock gave
                    # (docs/fixture-builder.md): [{"id": str or int,
                    # "metadata": hex, "start": [per execution], "end": [...]}]
                    for d in ins["spec"]["delegate_events"]:
                        ids = ({"delegate_debug_id_int": d["id"]} if isinstance(d["id"], int)
                               else {"delegate_debug_id_str": d["id"]})
                        events.append({"profile": dict(ids, chain_index=0, instruction_id=i,
                                                       metadata=bytes.fromhex(d.get("metadata", "")),
                                                       start=d["start"][r % len(d["start"])],
                                                       end=d["end"][r % len(d["end"])])})
                    events.append({"profile": {"name": "DELEGATE_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                elif ins["spec"].get("duration_only"):
                    # a profiler that logs durations only (start 0, end = duration),
                    # as Qualcomm's does: [[name, duration], ...] per execution
                    for name, dur in ins["spec"]["duration_only"]:
                        events.append({"profile": {"delegate_debug_id_str": name, "chain_index": 0,
                                                   "instruction_id": i, "metadata": b"", "start": 0,
                                                   "end": dur}})
                    events.append({"profile": {"name": "DELEGATE_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                else:
                    events += self._vgf_events(ins, i, r, s, e)
                    if debug:
                        # outputs the backend logs by delegate debug id, then
                        # every argument of the call: inputs, then outputs
                        for op in debug.get("delegate_ops", []):
                            if op["tensor"] in [o for m in ins["nodes"] for o in
                                                self.node_by_name[m].get("outputs", [m])]:
                                ids = ({"delegate_debug_id_int": op["id"]} if isinstance(op["id"], int)
                                       else {"delegate_debug_id_str": op["id"]})
                                events += self._debug_events(debug, buf, [op["tensor"]], i, r, **ids)
                        events += self._debug_events(debug, buf, self._delegate_inputs(ins) + ins["outputs"],
                                                     i, r)
                    events.append({"profile": {"name": "DELEGATE_CALL", "chain_index": 0,
                                               "instruction_id": i, "start": s, "end": e}})
                t = e + gap
            t += 120
            events.append({"profile": {"name": "Method::execute", "chain_index": -1,
                                       "instruction_id": 0, "start": exec_start, "end": t}})
            if debug and debug.get("program_outputs"):
                for o in self.desc["outputs"]:
                    v = self._debug_tensor(debug, buf, o, r)
                    if v is not None:
                        events.append({"debug": {"chain_index": -1, "instruction_id": 0,
                                                 "output": True, "value": v}})
            elif self.desc.get("etdump", {}).get("debug_outputs"):
                for o in self.desc["outputs"]:
                    ts = self.tensors[o]
                    strides = []
                    acc = 1
                    for dim in reversed(ts["shape"]):
                        strides.insert(0, acc)
                        acc *= dim
                    events.append({"debug": {"chain_index": -1, "instruction_id": 0,
                                             "output": True, "value": {"tensor": {
                                                 "scalar_type": ep_mod.FB_DTYPE[ts["dtype"]],
                                                 "sizes": ts["shape"], "strides": strides,
                                                 "offset": 0}}}})
            runs.append({"name": "Execute", "events": events})
            t += ex.get("between", 5000)
        return runs

    def etdump_bytes(self):
        settings = self.desc.get("etdump", {})
        return etdump_mod.write_etdump(self.etdump_runs(), size_prefixed=settings.get("size_prefixed", True),
                                       version=settings.get("version", 0))

    # -- 4. NX statistics ------------------------------------------------
    def _vgf(self):
        self.vgf_bytes = None
        self.vgf_ops = []
        pte = self.desc.get("pte")
        if pte and isinstance(pte.get("vgf"), dict):
            # a generated VGF: a vgfwrite description, or {"graph": ...}
            # for a one-segment SPIR-V TOSA graph (spirvwrite.py)
            vdesc = pte["vgf"]
            if "graph" in vdesc:
                vdesc = spirvwrite.graph_vgf(vdesc["graph"])
            self.vgf_bytes = vgfwrite.build(vdesc)
            self.vgf_ops = vgf_mod.segment_tosa_ops(self.vgf_bytes)
        elif pte and pte.get("vgf"):
            with open(resolve_path(pte["vgf"], self.base_dir), "rb") as f:
                self.vgf_bytes = f.read()
            self.vgf_ops = vgf_mod.segment_tosa_ops(self.vgf_bytes)

    def node_label(self, name):
        n = self.node_by_name[name]
        label = {"aten_info": {"node_name": name, "operator_name": n["op"]}}
        torch_info = {}
        if n.get("module"):
            torch_info["nn_module_stack"] = {m[0]: [m[1], m[2]] for m in n["module"]}
        if n.get("source"):
            torch_info["stack_trace"] = stack_trace_text(n["source"]).rstrip("\n")
        if torch_info:
            label["torch_info"] = torch_info
        return json.dumps(label, separators=(",", ":"))

    def _label(self, spec, seg_index):
        if isinstance(spec, str):
            return spec
        if "node" in spec:
            return self.node_label(spec["node"])
        if "vgf_op" in spec:
            rid, name = self.vgf_ops[seg_index][spec["vgf_op"]]
            return vgf_mod.spirv_label(name, rid)
        if "spirv" in spec:
            return vgf_mod.spirv_label(spec.get("op", "OP"), spec["spirv"])
        raise ValueError("bad label %r" % (spec,))

    def segment_tables(self, seg):
        """Flat debug-database tables and stripe order of one segment desc."""
        tosa, fused, chains, cascades, stripes = [], [], [], [], []
        vgf_seg = seg.get("vgf_segment", 0)
        for cas in seg.get("cascades", []):
            cascades.append((cas["id"], [c["id"] for c in cas["chains"]]))
            for ch in cas["chains"]:
                chains.append((ch["id"], [f["id"] for f in ch.get("fused", [])]))
                for f in ch.get("fused", []):
                    fused.append((f["id"], [t["id"] for t in f.get("tosa", [])]))
                    for t in f.get("tosa", []):
                        labels = [self._label(lab, vgf_seg) for lab in t.get("labels", [])]
                        op = t.get("op")
                        if op is None and "vgf_op" in t:
                            rid, oname = self.vgf_ops[vgf_seg][t["vgf_op"]]
                            op = vgf_mod.op_type(oname)
                            labels = [vgf_mod.spirv_label(oname, rid)] + labels
                        tosa.append((t["id"], op or "NeuralOp", labels))
                for s in ch.get("stripes", []):
                    stripes.append((s, ch["id"], cas["id"]))
        stripes.sort()
        return tosa, fused, chains, cascades, stripes

    def nx_settings(self):
        return self.desc.get("nx", {})

    def _seg_blobs(self, seg, r):
        settings = self.nx_settings()
        device = nx.generation(settings.get("device_name", "Mali-G2-Pro-NX MC1")) or "Mali-G2"
        mode = settings.get("mode", 1)
        tosa, fused, chains, cascades, stripes = self.segment_tables(seg)
        stripe_ids = [s[0] for s in stripes]
        dbd = seg.get("debug_database", {})
        if dbd.get("available", True) and stripes:
            text = nx.debug_database(tosa, fused, chains, cascades, stripes).encode("utf-8")
            if dbd.get("framed", True):
                text = nx.frame(text, nx.DEBUG_DB_MAGIC)
            db_blob = nx.blob(text, is_text=True, size=dbd.get("declared_size"))
        else:
            db_blob = nx.blob(None, reason=dbd.get(
                "reason", "Requested VK_ARM_data_graph pipeline property is not available"))
        sid = seg.get("statistics_info", {})
        info_ids = sid.get("stripes", stripe_ids)
        if sid.get("available", True):
            if sid.get("text", False):
                data = nx.statistics_info_text(info_ids)
            else:
                data = nx.statistics_info_binary(info_ids)
            if sid.get("framed", False):
                data = nx.frame(data, nx.STATS_INFO_MAGIC)
            info_blob = nx.blob(data, is_text=sid.get("text", False),
                                size=sid.get("declared_size"))
        else:
            info_blob = nx.blob(None, reason=sid.get(
                "reason", "Requested VK_ARM_data_graph pipeline property is not available"))
        unavailable = seg.get("memory_unavailable", {}).get(str(r))
        if unavailable:
            mem_blob = nx.blob(None, reason=unavailable)
        else:
            jitter = self.executions().get("nx_jitter", [1.0])
            j = jitter[r % len(jitter)]
            counters = {int(s): {k: int(round(v * j)) for k, v in c.items()}
                        for s, c in seg.get("counters", {}).items()}
            mem = nx.statistics_memory(device, mode, counters,
                                       seg.get("tasks_per_stripe", 1), seg.get("extra_blocks", 0))
            mem_blob = nx.blob(mem, size=seg.get("memory_declared_size"))
        # "omit": the member is left out of the segment object entirely
        if dbd.get("omit"):
            db_blob = None
        if sid.get("omit"):
            info_blob = None
        return db_blob, info_blob, mem_blob

    def nx_metadata(self, i, r):
        """Wrapper bytes for delegate instruction i in execution r, or None."""
        spec = self.plan[i]["spec"]
        if "nx_segments" not in spec:
            return None
        settings = self.nx_settings()
        segments = []
        record_reason = spec.get("nx_unavailable", {}).get(str(r))
        for seg in spec["nx_segments"]:
            if "executions" in seg and r not in seg["executions"]:
                continue
            graph = seg.get("graph", True)
            if not graph:
                segments.append(nx.segment(seg["segment_id"], graph=False))
                continue
            if record_reason:
                why = record_reason
                segments.append(nx.segment(seg["segment_id"], True, nx.blob(None, reason=why),
                                           nx.blob(None, reason=why), nx.blob(None, reason=why)))
                continue
            db, info, mem = self._seg_blobs(seg, r)
            segments.append(nx.segment(seg["segment_id"], True, db, info, mem))
        w = nx.wrapper(segments, schema_version=settings.get("schema_version", 2),
                       mode=settings.get("mode", 1),
                       device_name=settings.get("device_name", "Mali-G2-Pro-NX MC1"),
                       vendor_id=settings.get("vendor_id", 5045),
                       device_id=settings.get("device_id", 7),
                       driver_version=settings.get("driver_version", 11),
                       target_available=settings.get("target_available", True),
                       layout=settings.get("layout"), reason=record_reason)
        return nx.encode(w)

    # -- 5. PTE ------------------------------------------------------------
    def pte_program(self):
        pte = self.desc.get("pte", {})
        values = []
        index = {}
        constants = []
        mem = [0]

        plan_memory = pte.get("memory_plan", True)

        def planned(shape, dtype):
            if not plan_memory:     # memory supplied at run time: no pool
                return None
            off = mem[0]
            mem[0] += (numel(shape) * ep_mod.DTYPE_BYTES[dtype] + 15) // 16 * 16
            return (1, off)

        with_constants = pte.get("constants", True)
        param_names = {p["name"] for p in self.parameters}
        for p in (self.parameters if with_constants else []):
            nbytes = numel(p["shape"]) * ep_mod.DTYPE_BYTES[p["dtype"]]
            constants.append(bytes(nbytes))
            index[p["name"]] = len(values)
            values.append({"tensor": {"scalar_type": ep_mod.FB_DTYPE[p["dtype"]],
                                      "sizes": p["shape"], "data_buffer_idx": len(constants)}})
        user_inputs = []
        for ph in self.placeholders:
            if ph["kind"] == "user_input":
                index[ph["name"]] = len(values)
                user_inputs.append(len(values))
                values.append({"tensor": {"scalar_type": ep_mod.FB_DTYPE[ph["dtype"]],
                                          "sizes": ph["shape"],
                                          "allocation": planned(ph["shape"], ph["dtype"])}})

        def tensor_value(name):
            if name not in index:
                # produced by a node without an instruction (a view): its own value
                t = self.tensors[name]
                index[name] = len(values)
                values.append({"tensor": {"scalar_type": ep_mod.FB_DTYPE[t["dtype"]],
                                          "sizes": t["shape"],
                                          "allocation": planned(t["shape"], t["dtype"])}})
            return index[name]

        def scalar(v):
            if isinstance(v, bool):
                values.append({"bool": v})
            elif isinstance(v, int):
                values.append({"int": v})
            elif isinstance(v, float):
                values.append({"double": v})
            elif v is None:
                values.append({"null": None})
            elif isinstance(v, list):
                items = [scalar(x) for x in v]
                values.append({"int_list": items})
            else:
                values.append({"string": v})
            return len(values) - 1

        operators = []
        delegates = []
        instructions = []
        inline_blobs, segment_blobs = [], []
        for ins in self.plan:
            if ins["kind"] == "kernel":
                n = self.node_by_name[ins["node"]]
                args = []
                for a, v in n.get("args", {}).items():
                    if isinstance(v, str) and v in self.tensors:
                        args.append(tensor_value(v))
                    elif isinstance(v, list) and v and all(isinstance(x, str) and x in self.tensors
                                                           for x in v):
                        items = [tensor_value(x) for x in v]
                        values.append({"tensor_list": items})
                        args.append(len(values) - 1)
                    else:
                        args.append(scalar(v))
                outs = [tensor_value(o) for o in n.get("outputs", [n["name"]])]
                args += outs
                if len(outs) > 1:
                    values.append({"tensor_list": outs})
                if ins["operator"] not in operators:
                    operators.append(ins["operator"])
                instructions.append({"kernel": (operators.index(ins["operator"]), args)})
            else:
                produced = set()
                ext = []
                for name in ins["nodes"]:
                    m = self.node_by_name[name]
                    for _a, v in self.node_args(m):
                        for t in ([v["tensor"]] if "tensor" in v else v.get("tensors", [])):
                            if t not in produced and t not in ext:
                                ext.append(t)
                    produced.update(m.get("outputs", [m["name"]]))
                # parameters are lowered into the delegate blob, not passed
                args = [tensor_value(t) for t in ext if t not in param_names] + \
                    [tensor_value(o) for o in ins["outputs"]]
                blob = self.vgf_bytes if self.vgf_bytes is not None else b"VGF1" + bytes(124)
                storage = pte.get("storage", "segment")
                if storage == "inline":
                    ref = len(inline_blobs)
                    inline_blobs.append(blob)
                else:
                    ref = len(segment_blobs) + (1 if constants else 0)
                    segment_blobs.append(blob)
                delegates.append({"id": ins["backend"], "location": storage, "index": ref,
                                  "compile_specs": [("output_format", b"vgf")]})
                instructions.append({"delegate": (len(delegates) - 1, args)})
        outputs = [tensor_value(o) for o in self.desc["outputs"]]
        plan = {"name": self.method, "values": values, "inputs": user_inputs, "outputs": outputs,
                "chains": [{"inputs": user_inputs, "outputs": outputs,
                            "instructions": instructions}],
                "operators": operators, "delegates": delegates,
                "non_const_buffer_sizes": [0, mem[0]] if plan_memory else [0]}
        return {"plans": [plan],
                "constants": constants,
                "inline_blobs": inline_blobs, "segment_blobs": segment_blobs,
                "header_length": pte.get("header_length", 32),
                "segment_alignment": 128}

    def pte_bytes(self):
        return write_pte(self.pte_program())
