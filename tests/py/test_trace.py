"""trace.json (issue 13; --trace --trace-format json since issue 20): the demo capture built by the fixture builder, checked against
the ETDump as `mlia inspect` decodes it and against the description's NX counters."""
import copy
import json
import os
import tempfile
import unittest
from decimal import Decimal

from helpers import Result, build_fixture, check_args, load_sample, need_binary, run_mlia
from test_check_nx import delegate_entry, expected_chain_totals, p50

TRACE_JSON = ("--trace", "--trace-format", "json")

# Containment expected from the fixture builder's event layout (docs/fixture-builder.md).
BACKEND_PARENT = {
    "VGF_EXECUTE": "DELEGATE_CALL",
    "VGF_COPY_INPUTS": "VGF_EXECUTE",
    "VGF_DISPATCH_AND_WAIT": "VGF_EXECUTE",
    "VGF_QUEUE_SUBMIT_AND_WAIT_FENCE": "VGF_DISPATCH_AND_WAIT",
    "VGF_NEURAL_STATISTICS": "VGF_EXECUTE",
    "VGF_COPY_OUTPUTS": "VGF_EXECUTE",
}


def etdump_name(ev):
    return ev["name"] if ev["name"] is not None else ev["delegate_debug_id_str"]


def expected_parent(ev):
    name = etdump_name(ev)
    if name == "Method::execute":
        return None
    if name in BACKEND_PARENT:
        return BACKEND_PARENT[name]
    if name.startswith("native_call_"):
        return "OPERATOR_CALL"
    return "Method::execute"


class TraceFile(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-trace-")
        cls.desc = load_sample("demo.json")
        cls.paths = build_fixture(cls.desc, cls.tmp)
        p = run_mlia(*check_args(cls.paths["etrecord"], cls.paths["etdump"], "--output-dir", cls.tmp, "--json",
                                    *TRACE_JSON))
        assert p.returncode == 0, p.stderr
        cls.result = Result(json.loads(p.stdout))
        with open(os.path.join(cls.tmp, "mlia-output", "trace.json"), encoding="utf-8") as f:
            cls.text = f.read()
        cls.trace = json.loads(cls.text, parse_float=Decimal)
        cls.dump = json.loads(run_mlia("inspect", cls.paths["etdump"]).stdout)

    def x_events(self):
        return [e for e in self.trace["traceEvents"] if e["ph"] == "X"]

    def test_top_level_shape(self):
        self.assertEqual(set(self.trace), {"traceEvents", "displayTimeUnit", "metadata"})
        self.assertEqual(self.trace["displayTimeUnit"], "ns")
        meta = self.trace["metadata"]
        self.assertEqual(meta["method"], "forward")
        self.assertEqual(meta["executions"], 3)
        self.assertEqual([i["role"] for i in meta["inputs"]], ["etrecord", "etdump"])
        ctx = self.result.doc["context"]["runtime_configuration"]["profiling_data"]
        self.assertEqual(meta["inputs"][1]["sha256"], ctx["sha256"])
        self.assertEqual(meta["inputs"][0]["sha256"], self.result.doc["model"]["hash"])
        names = {(e["name"], e["pid"], e["tid"]): e["args"] for e in self.trace["traceEvents"] if e["ph"] == "M"}
        self.assertEqual(names[("process_name", 1, 0)]["name"], "forward")
        self.assertEqual(names[("process_name", 2, 0)]["name"], "NX statistics")
        for k in (1, 2, 3):
            self.assertEqual(names[("thread_name", 1, k)]["name"], f"execution {k} (event block {k})")

    def test_every_event_maps_to_the_etdump_with_exact_times(self):
        runs = self.dump["runs"]
        blocks = self.trace["metadata"]["execution_event_blocks"]
        seen = set()
        for e in self.x_events():
            block = blocks[e["tid"] - 1]
            ev = runs[block]["events"][e["args"]["event_index"]]
            self.assertEqual(ev["kind"], "profile")
            # etdump_name is written only when it differs from the event's name
            self.assertEqual(etdump_name(ev), e["args"].get("etdump_name", e["name"]))
            self.assertEqual(e["ts"], Decimal(ev["start_time"]) / 1000)
            self.assertEqual(e["dur"], Decimal(ev["end_time"] - ev["start_time"]) / 1000)
            if ev["chain_index"] >= 0 and ev["name"] != "Method::execute":
                self.assertEqual(e["args"]["instruction"], ev["instruction_id"])
            seen.add((block, e["args"]["event_index"]))
        # and every profile event of the executions is on the timeline
        want = {(b, i) for b in blocks for i, ev in enumerate(runs[b]["events"]) if ev["kind"] == "profile"}
        self.assertEqual(seen, want)

    def test_nesting_equals_the_capture(self):
        runs = self.dump["runs"]
        blocks = self.trace["metadata"]["execution_event_blocks"]
        for tid in (1, 2, 3):
            stack = []
            events = [e for e in self.x_events() if e["tid"] == tid]
            self.assertGreater(len(events), 10)
            for e in events:
                end = e["ts"] + e["dur"]
                while stack and not (stack[-1]["ts"] <= e["ts"] and end <= stack[-1]["ts"] + stack[-1]["dur"]):
                    stack.pop()
                parent = stack[-1]["args"].get("etdump_name", stack[-1]["name"]) if stack else None
                ev = runs[blocks[tid - 1]]["events"][e["args"]["event_index"]]
                self.assertEqual(parent, expected_parent(ev), e["name"])
                if parent == "OPERATOR_CALL":
                    self.assertEqual(stack[-1]["args"]["instruction"], e["args"]["instruction"])
                stack.append(e)

    def test_names_entities_and_handles(self):
        ids = set(self.result.entities)
        by_etdump = {}
        for e in self.x_events():
            by_etdump.setdefault(e["args"].get("etdump_name", e["name"]), e)
            for eid in [e["args"].get("entity_id")] + e["args"].get("entity_ids", []):
                if eid is not None:
                    self.assertIn(eid, ids)
        relu = [e for e in self.x_events() if e["name"] == "aten.relu.default" and e["tid"] == 1]
        self.assertEqual(len(relu), 1)
        self.assertEqual(relu[0]["cat"], "operator")
        self.assertEqual(relu[0]["args"]["entity_id"], "source_operator/forward/aten_relu_default_2")
        handle = self.result.entities["source_operator/forward/aten_relu_default_2"]["attributes"]["debug_handle"]
        self.assertEqual(relu[0]["args"]["debug_handle"], handle)
        dc = by_etdump["DELEGATE_CALL"]
        self.assertEqual(dc["name"], "DELEGATE_CALL VgfBackend")
        self.assertEqual(dc["args"]["entity_id"], "delegate_call/forward/0/0")
        self.assertEqual(dc["args"]["debug_handles"], [1, 2, 3, 4, 5, 6])
        fence = by_etdump["VGF_QUEUE_SUBMIT_AND_WAIT_FENCE"]
        self.assertEqual(fence["args"]["entity_id"], "runtime_event/forward/0/0/VGF_QUEUE_SUBMIT_AND_WAIT_FENCE")
        self.assertIn(fence["args"]["entity_id"], ids)

    def test_counters_equal_the_result(self):
        seg = delegate_entry(self.desc)["nx_segments"][0]
        chains = expected_chain_totals(self.desc, seg)
        per_exec = [sum(v[r] for v in chains.values()) for r in range(3)]
        starts = {}
        for e in self.x_events():
            starts[e["tid"]] = min(starts.get(e["tid"], e["ts"]), e["ts"])
        counters = {}
        for e in self.trace["traceEvents"]:
            if e["ph"] == "C":
                self.assertEqual(e["pid"], 2)
                counters.setdefault(e["name"], []).append((e["ts"], e["args"]))
        self.assertEqual(set(counters), {"NX cycles (model)", "NX compute cycles (model)", "NX cycles segment/0"})
        for name, key in (("NX cycles (model)", "total_cycles"), ("NX cycles segment/0", "total_cycles")):
            at_start = [args[key] for ts, args in counters[name] if ts in starts.values()]
            self.assertEqual(at_start, per_exec, name)
            self.assertEqual(sum(1 for _, a in counters[name] if a[key] == 0), 3)
        m = self.result.model_metric("total_cycles")
        self.assertEqual(m["value"], p50(per_exec))

    def test_deterministic(self):
        d = os.path.join(self.tmp, "again")
        p = run_mlia(*check_args(self.paths["etrecord"], self.paths["etdump"], "--output-dir", d, *TRACE_JSON))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(d, "mlia-output", "trace.json"), encoding="utf-8") as f:
            self.assertEqual(f.read(), self.text)


class TraceWithoutNx(unittest.TestCase):
    def test_no_counters_without_statistics(self):
        need_binary(self)
        tmp = tempfile.mkdtemp(prefix="mlia-trace-nonx-")
        desc = copy.deepcopy(load_sample("demo.json"))
        delegate_entry(desc).pop("nx_segments")
        paths = build_fixture(desc, tmp)
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--output-dir", tmp, *TRACE_JSON))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(tmp, "mlia-output", "trace.json"), encoding="utf-8") as f:
            trace = json.load(f)
        self.assertFalse([e for e in trace["traceEvents"] if e["ph"] == "C"])
        self.assertEqual(len({e["tid"] for e in trace["traceEvents"] if e["ph"] == "X"}), 3)


if __name__ == "__main__":
    unittest.main()
