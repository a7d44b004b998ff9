"""End to end NX statistics (issue 3): captures written by the fixture builder, checked
through `mlia check` against values computed independently from the description."""
import copy
import json
import os
import tempfile
import unittest

from helpers import Result, build_fixture, check_args, load_sample, need_binary, run_mlia

W1 = "Statistics mode not recorded in the capture; assumed mode 1."
W2 = "Device not recorded in the capture; assumed Mali-G2."


def p50(values):
    v = sorted(values)
    return v[(len(v) + 1) // 2 - 1]


def delegate_entry(desc):
    return next(p for p in desc["plan"] if "delegate" in p)


def expected_chain_totals(desc, seg):
    """{chain id: [per-execution total_cycles]} from the description (mode 1: nx_active)."""
    jit = desc["executions"].get("nx_jitter", [1.0])
    n = desc["executions"]["count"]
    runs = seg.get("executions", list(range(n)))
    out = {}
    for cascade in seg["cascades"]:
        for chain in cascade["chains"]:
            vals = []
            for r in runs:
                j = jit[r % len(jit)]
                vals.append(sum(int(round(seg["counters"][str(s)]["nx_active"] * j)) for s in chain["stripes"]))
            out[chain["id"]] = vals
    return out


class NxEndToEnd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-nx-")

    def run_desc(self, desc, name, *extra, expect=0):
        d = os.path.join(self.tmp, name)
        paths = build_fixture(desc, d)
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--output-dir", d, "--json", *extra))
        self.assertEqual(p.returncode, expect, p.stderr)
        return (Result(json.loads(p.stdout)) if expect == 0 else p), paths

    def check_chains(self, res, desc, seg, token="0"):
        for chain, vals in expected_chain_totals(desc, seg).items():
            cid = f"chain/segment_{token}/{chain}"
            for stat, want in (("p50", p50(vals)), ("min", min(vals)), ("max", max(vals))):
                m = res.m(cid, "total_cycles", stat)
                self.assertIsNotNone(m, (cid, stat))
                self.assertEqual(m["value"], want, (cid, stat))
                self.assertEqual(m["samples"], len(vals))
                self.assertEqual(m["aggregation"], stat)
                self.assertEqual(res.m(cid, "op_cycles", stat)["value"], want)
                self.assertEqual(res.m(cid, "nx_active_cycles", stat)["value"], want)

    def test_three_executions_mode1_g2(self):
        desc = load_sample("demo.json")
        seg = delegate_entry(desc)["nx_segments"][0]
        res, _ = self.run_desc(desc, "v2")
        self.check_chains(res, desc, seg)
        per_exec = [sum(v[r] for v in expected_chain_totals(desc, seg).values()) for r in range(3)]
        m = res.model_metric("total_cycles")
        self.assertEqual(m["value"], p50(per_exec))
        self.assertEqual(m["samples"], 3)
        self.assertEqual(res.model_metric("target_utilization")["value"], 100.0)
        self.assertEqual(res.m("segment/0", "execution_coverage")["value"], 100.0)
        self.assertEqual(res.entities["segment/0"]["attributes"]["recorded_executions"], [1, 2, 3])
        self.assertNotIn(W1, res.warnings)
        self.assertNotIn(W2, res.warnings)
        st = res.doc["context"]["runtime_configuration"]["statistics"]
        self.assertEqual((st["mode"], st["device"], st["mode_assumed"], st["device_assumed"]),
                         (1, "Mali-G2", False, False))
        # stripes carry their raw block counters; chains are children of cascades
        self.assertEqual(res.entities["chain/segment_0/30"]["parent_ids"], ["cascade/segment_0/40"])
        self.assertEqual(res.entities["stripe/segment_0/0"]["parent_ids"], ["chain/segment_0/30"])
        self.assertIn("stripe/segment_0/0", res.entities["chain/segment_0/30"]["child_ids"])
        self.assertEqual(res.entities["chain/segment_0/30"]["attributes"]["stripe_ids"], ["0", "1", "2"])
        assoc = res.doc["context"]["runtime_configuration"]["associations"]
        self.assertEqual(assoc, {"compiler_operations": 6, "compiler_operations_associated": 6,
                                 "source_operators": 12, "source_operators_associated": 6})
        op = res.entities["compiler_operation/segment_0/tosa-10"]
        self.assertEqual(op["parent_ids"], ["chain/segment_0/30"])
        self.assertIn("source_operator/forward/aten_convolution_default", op["child_ids"])
        # the chain <-> source operator association is a direct edge too
        self.assertIn("source_operator/forward/aten_convolution_default",
                      res.entities["chain/segment_0/30"]["child_ids"])

    def test_schema_v1_same_numbers_plus_assumptions(self):
        desc = load_sample("demo.json")
        desc["nx"] = {"schema_version": 1}
        seg = delegate_entry(desc)["nx_segments"][0]
        res, paths = self.run_desc(desc, "v1")
        self.check_chains(res, desc, seg)
        self.assertIn(W1, res.warnings)
        self.assertIn(W2, res.warnings)
        self.assertEqual(res.warnings.count(W1), 1)
        st = res.doc["context"]["runtime_configuration"]["statistics"]
        self.assertEqual((st["mode"], st["device"], st["mode_assumed"], st["device_assumed"]),
                         (1, "Mali-G2", True, True))
        # the console summary repeats them
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--output-dir", os.path.join(self.tmp, "v1")))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn(W1, p.stdout)
        self.assertIn(W2, p.stdout)

    def test_segment_in_two_of_three_executions(self):
        desc = load_sample("demo.json")
        entry = delegate_entry(desc)
        second = copy.deepcopy(entry["nx_segments"][0])
        second["segment_id"] = 1
        second["executions"] = [0, 1]
        entry["nx_segments"].append(second)
        res, _ = self.run_desc(desc, "partial")
        self.assertEqual(res.m("segment/1", "execution_coverage")["value"], 66.66666666666667)
        self.assertEqual(res.m("segment/0", "execution_coverage")["value"], 100.0)
        self.assertEqual(res.entities["segment/1"]["attributes"]["recorded_executions"], [1, 2])
        reason = ("NX statistics were recorded in different executions for different segments: "
                  "segment/0 in executions 1, 2, 3; segment/1 in executions 1, 2.")
        for name in ("total_cycles", "compute_cycles", "target_utilization"):
            m = res.model_metric(name)
            self.assertEqual(m["availability"], "unavailable")
            self.assertEqual(m["reason"], reason)
        self.assertIn(reason, res.warnings)
        self.check_chains(res, desc, second, token="1")
        self.assertEqual(res.r["status"], "partial")

    def test_malformed_layout_is_an_error(self):
        desc = load_sample("demo.json")
        desc["nx"]["layout"] = {"words_per_task": 32}
        p, _ = self.run_desc(desc, "badlayout", expect=1)
        line = p.stderr.strip()
        self.assertEqual(len(line.splitlines()), 1)
        self.assertTrue(line.endswith("Counter layout arm.mali-g2.neural-statistics.mode1 declares 32 words per "
                                      "task; Mali-G2 mode 1 uses 64."), line)
        self.assertIn("VGF neural statistics (run 1, plan chain 0, instruction 0", line)

    def test_unavailable_payload_warns(self):
        desc = load_sample("demo.json")
        delegate_entry(desc)["nx_unavailable"] = {"1": "Statistics data unavailable"}
        res, _ = self.run_desc(desc, "unavail")
        self.assertTrue(any(w.startswith("VGF segment 0 statistics memory was unavailable in 1 of 3 record(s)")
                            or "Statistics data unavailable" in w for w in res.warnings), res.warnings)

    def test_inspect_shows_statistics_records(self):
        d = os.path.join(self.tmp, "insp")
        paths = build_fixture(load_sample("demo.json"), d)
        p = run_mlia("inspect", paths["etdump"])
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["format"], "etdump")
        recs = doc["neural_statistics"]
        self.assertEqual(len(recs), 3)
        self.assertEqual(recs[0]["schema_version"], 2)
        text = json.dumps(recs[0])
        self.assertIn("Mali-G2", text)
        self.assertIn("nx_active", text)


if __name__ == "__main__":
    unittest.main()
