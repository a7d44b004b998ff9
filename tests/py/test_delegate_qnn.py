"""The Qualcomm QNN backend (issue 31; docs/delegates.md, "Qualcomm QNN") on a
capture the fixture builder writes from tests/data/delegates/qnn.json: one
QnnBackend delegate call over a two-layer MLP (200,000 / 210,000 / 190,000 ns
ticks), three executions, QNN's duration-only events (start 0, end = the value,
the unit in the identifier) and the empty inner delegate map QNN records.

Expected values, by hand from the description:
- "QNN accelerator (execute) time (us)": 120, 130, 110 us -> P50 (lower median)
  120 us = 0.12 ms, min 0.11 ms, max 0.13 ms; not scaled by the CPU tick rate;
- "RPC (execute) time (us)": 150, 160, 140 -> P50 0.15 ms;
- "Number of HVX threads used (count)": 4, 4, 4 -> count 4 (no time metric);
- "Accelerator (execute) time (cycles)": 90,000, 95,000, 85,000 -> cycles
  P50 90,000, min 85,000, max 95,000 (never ms);
- "aten_linear_default:OpId_12 (cycles)": 50,000, 52,000, 48,000 -> P50 50,000;
  qnn_op "aten_linear_default", op_id 12, unmapped ({} map, no name guess);
- "aten_relu_default:OpId_13 (cycles)": 0 every time -> the 0-cycle warning
  names it;
- the call: nothing of these is CPU time, so its unattributed time is the whole
  call, P50 200,000 ticks = 0.2 ms; nothing is laid out as a duration.
"""
import json
import os
import unittest

import helpers

from helpers import ROOT, Result, check_args, run_mlia

DESC = os.path.join(ROOT, "tests", "data", "delegates", "qnn.json")
CALL = "delegate_call/forward/0/0"
EV = "runtime_event/forward/0/0/"


class Qnn(helpers.DelegateCapture):
    DESC = DESC
    EXTRA = ("--trace", "--trace-format", "json", "--csv-tables", "executions", "--model-explorer", "files")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        # the same with a declared 2 GHz CPU clock: QNN's values do not move
        out2 = os.path.join(cls.tmp, "out2")
        cls.p2 = run_mlia(*check_args(cls.files["etrecord"], cls.files["etdump"], "--output-dir", out2,
                                      "--ticks-per-second", "2e9"))
        with open(os.path.join(out2, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
            cls.res2 = Result(json.load(f))

    def test_runs(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)
        self.assertEqual(self.p2.returncode, 0, self.p2.stderr)

    def test_trace_keeps_cycles_and_counts_out_of_time(self):
        # cycles and counts are never slices (a slice is time): each is a counter series
        # "QnnBackend: <event>" with its unit as the value's key, one value per execution;
        # the us statistics are slices of 150 and 120 us inside their call
        with open(os.path.join(self.base, "trace.json"), encoding="utf-8") as f:
            doc = json.load(f)
        evs = doc["traceEvents"] if isinstance(doc, dict) else doc
        slices = [e for e in evs if e.get("ph") == "X"]
        self.assertFalse([e["name"] for e in slices if e["name"].endswith(("(cycles)", "(count)"))])
        us = [e for e in slices if e["name"] == "RPC (execute) time (us)" and e["tid"] == 1]
        call = [e for e in slices if e["name"].startswith("DELEGATE_CALL") and e["tid"] == 1][0]
        self.assertEqual(len(us), 1)
        self.assertAlmostEqual(us[0]["dur"], 150.0, places=6)
        self.assertGreaterEqual(us[0]["ts"], call["ts"])
        counters = {}
        for e in evs:
            if e.get("ph") == "C" and e["name"] == "QnnBackend: aten_linear_default:OpId_12 (cycles)":
                counters.setdefault("cycles", []).append(e["args"]["cycles"])
            if e.get("ph") == "C" and e["name"] == "QnnBackend: Number of HVX threads used (count)":
                counters.setdefault("count", []).append(e["args"]["count"])
        # the series' values at each execution's start (0 after it): 50,000 / 52,000 / 48,000 cycles
        self.assertEqual([v for v in counters["cycles"] if v], [50000, 52000, 48000])
        self.assertEqual([v for v in counters["count"] if v], [4, 4, 4])

    def test_console_has_one_table_per_unit(self):
        out = self.p.stdout
        self.assertIn("Top QnnBackend operators by P50 execution time (2 of 2 measured)", out)
        self.assertIn("Top QnnBackend operators by P50 cycles (5 of 5 measured)", out)
        self.assertIn("Top QnnBackend operators by P50 count (1 of 1 measured)", out)
        # the cycles table: P50 / min / max of 50,000, 52,000, 48,000 cycles, never ms
        line = [l for l in out.splitlines() if "aten_linear_default:OpId_12 (cycles)" in l][0]
        self.assertEqual(line.split()[-4:], ["50,000", "48,000", "52,000", "unmapped"])
        cyc = out[out.index("by P50 cycles"):out.index("by P50 count")]
        self.assertNotIn(" ms", cyc)

    def test_csv_rows_keep_their_units(self):
        with open(os.path.join(self.base, "csv", "executions.csv"), encoding="utf-8") as f:
            rows = [l.split(",") for l in f.read().splitlines()[1:]]
        got = {(r[1], r[3].rsplit("/", 1)[1]): (r[4], r[5], r[6]) for r in rows if r[3].startswith(EV)}
        self.assertEqual(got[("1", "aten_linear_default:OpId_12 (cycles)")], ("cycles", "50000", "cycles"))
        self.assertEqual(got[("2", "aten_linear_default:OpId_12 (cycles)")], ("cycles", "52000", "cycles"))
        self.assertEqual(got[("1", "Number of HVX threads used (count)")], ("count", "4", "count"))
        # us statistics as time: 150 us = 0.15 ms
        self.assertEqual(got[("1", "RPC (execute) time (us)")], ("execution_time", "0.15", "ms"))

    def test_compare_keeps_cycles_with_cycles(self):
        # the same capture with OpId_12 at 100,000 / 104,000 / 96,000 cycles (twice the
        # baseline's 50,000 / 52,000 / 48,000) and 2 HVX threads instead of 4
        import copy
        with open(DESC, encoding="utf-8") as f:
            desc = json.load(f)
        new = copy.deepcopy(desc)
        for row in new["plan"][0]["qnn"]:
            if row[0] == "aten_linear_default:OpId_12 (cycles)":
                row[1] = [100000, 104000, 96000]
            if row[0] == "Number of HVX threads used (count)":
                row[1] = [2, 2, 2]
        files = helpers.build_fixture(new, os.path.join(self.tmp, "new-in"))
        out = os.path.join(self.tmp, "new-out")
        p = run_mlia(*check_args(files["etrecord"], files["etdump"], "--output-dir", out))
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run_mlia("compare", os.path.join(self.base, "mlia-output.json"),
                     os.path.join(out, "mlia-output", "mlia-output.json"), "--json")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        rows = [m for m in doc["metrics"] if m["entity_id"].startswith(EV)]
        op = [m for m in rows if m["entity_id"] == EV + "aten_linear_default:OpId_12 (cycles)"]
        self.assertEqual(len(op), 1, rows)
        self.assertEqual((op[0]["metric"], op[0]["unit"], op[0]["baseline"]["p50"], op[0]["new"]["p50"],
                          op[0]["new"]["min"], op[0]["verdict"]), ("cycles", "cycles", 50000, 100000, 96000, "regression"))
        # every compared delegate row keeps one unit on both sides; a count has no better
        # or worse (fewer HVX threads is not a regression) and is not compared
        self.assertTrue(all(m["unit"] in ("ms", "cycles") for m in rows), rows)
        self.assertFalse([m for m in rows if "HVX" in m["entity_id"]])

    def test_views_show_cycles_and_counts_in_their_units(self):
        # the ETDump Backend Trace view (page data and Model Explorer node data):
        # an overlay per unit class, values in that unit, never ms
        import re
        me = os.path.join(self.base, "model-explorer")
        with open(os.path.join(me, "bundle", "index.html"), encoding="utf-8") as f:
            page = f.read()
        data = json.loads(re.search(r'<script type="application/json" id="mlia-data">(.*?)</script>', page, re.S).group(1))
        view = [v for v in data["views"] if v["id"] == "etdump_backend_trace"][0]
        ov = {o["id"]: o for o in view["overlays"]}
        cyc, cnt = ov["runtime_event_cycles_p50"], ov["runtime_event_count_p50"]
        self.assertEqual((cyc["unit"], cnt["unit"]), ("cycles", "count"))
        key = "runtime_events/" + EV + "aten_linear_default:OpId_12 (cycles)"
        self.assertEqual(cyc["values"][key]["text"], "50,000 cycles")
        self.assertEqual(cnt["values"]["runtime_events/" + EV + "Number of HVX threads used (count)"]["text"], "4 count")
        self.assertNotIn(key, ov["runtime_event_execution_time_p50"]["values"])
        files = os.listdir(os.path.join(me, "node-data", "etdump_backend_trace"))
        self.assertTrue(any("runtime_event_cycles_p50" in f for f in files), files)
        self.assertTrue(any("runtime_event_count_p50" in f for f in files), files)

    def test_units_kept_apart(self):
        for res in (self.res, self.res2):
            us = EV + "QNN accelerator (execute) time (us)"
            for stat, want in (("p50", 0.12), ("min", 0.11), ("max", 0.13)):
                m = res.m(us, "execution_time", stat)
                self.assertEqual(m["unit"], "ms")
                self.assertAlmostEqual(m["value"], want, places=9)
            self.assertAlmostEqual(res.m(EV + "RPC (execute) time (us)", "execution_time", "p50")["value"], 0.15,
                                   places=9)
            cnt = EV + "Number of HVX threads used (count)"
            self.assertEqual(res.m(cnt, "count", "p50")["value"], 4)
            self.assertEqual(res.m(cnt, "count", "p50")["unit"], "count")
            self.assertIsNone(res.m(cnt, "execution_time", "p50"))
            cyc = EV + "Accelerator (execute) time (cycles)"
            for stat, want in (("p50", 90000), ("min", 85000), ("max", 95000)):
                m = res.m(cyc, "cycles", stat)
                self.assertEqual(m["unit"], "cycles")
                self.assertEqual(m["value"], want)
            self.assertIsNone(res.m(cyc, "execution_time", "p50"))
            for eid in (us, cnt, cyc):
                self.assertEqual(res.entities[eid]["parent_ids"], [CALL])
        # the call's own time scales with the CPU rate; nothing of QNN's is in it
        self.assertAlmostEqual(self.res.m(CALL, "unattributed_time", "p50")["value"], 0.2, places=9)
        self.assertAlmostEqual(self.res2.m(CALL, "unattributed_time", "p50")["value"], 0.1, places=9)
        self.assertFalse([w for w in self.res.warnings if "logged as durations only" in w])

    def test_nodes_named_and_honestly_unmapped(self):
        a = self.res.entities[EV + "aten_linear_default:OpId_12 (cycles)"]["attributes"]
        self.assertEqual((a["backend"], a["role"], a["qnn_op"], a["op_id"], a["source_mapping"], a["unit"]),
                         ("QnnBackend", "node", "aten_linear_default", 12, "unmapped", "cycles"))
        self.assertNotIn("child_ids", self.res.entities[EV + "aten_linear_default:OpId_12 (cycles)"])
        self.assertEqual(self.res.m(EV + "aten_linear_default:OpId_12 (cycles)", "cycles", "p50")["value"], 50000)
        self.assertEqual(self.res.entities[EV + "Input OpId_2 (cycles)"]["attributes"]["role"], "graph input")
        self.assertEqual(self.res.entities[EV + "RPC (execute) time (us)"]["attributes"]["role"], "statistic")
        self.assertIn("QNN: 3 of 3 operator(s) have no source operator: their names before ':OpId_' are not keys "
                      "of QnnBackend's delegate map, and they are never matched by name.", self.res.warnings)

    def test_zero_cycle_operator_is_named(self):
        self.assertIn("QNN: 1 operator(s) reported 0 cycles in at least one execution (HTP folded or fused them "
                      "into a neighbour; 0 is kept as a value): aten_relu_default:OpId_13 (cycles).",
                      self.res.warnings)
        self.assertEqual(self.res.m(EV + "aten_relu_default:OpId_13 (cycles)", "cycles", "p50")["value"], 0)

    def test_no_vgf_warning(self):
        self.assertNotIn("No VGF neural statistics", self.p.stdout.split("\nWarnings", 1)[1])


if __name__ == "__main__":
    unittest.main()
