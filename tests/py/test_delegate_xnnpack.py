"""The XNNPACK backend (issue 31; docs/delegates.md, "XNNPACK") on a capture the
fixture builder writes from tests/data/delegates/xnnpack.json: one XnnpackBackend
delegate call over a two-layer MLP, three executions, three operator events per
execution named as XNNPACK's profiler names them ("<operator> #k"), durations in
whole microseconds converted to ns ticks and laid back to back from 2,000 ticks
after the call's start, and the empty inner delegate map XNNPACK records.

Expected values, by hand from the description (ticks are ns, 1 ms = 1e6 ticks):
- "Fully Connected (NC, F32) GEMM #1": 40, 42, 38 us -> P50 (lower median of
  38, 40, 42) = 40 us = 0.04 ms, min 0.038 ms, max 0.042 ms;
- "Clamp (NC, F32) #1": 5, 6, 5 us -> P50 0.005, min 0.005, max 0.006 ms;
- "Fully Connected (NC, F32) GEMM #2": 30, 29, 31 us -> P50 0.03, min 0.029,
  max 0.031 ms;
- the call: 200,000 / 210,000 / 190,000 ticks -> P50 0.2 ms; its unattributed
  time in execution 1 = 200 - (40 + 5 + 30) = 125 us = 0.125 ms (execution 2:
  210 - 77 = 133 us; execution 3: 190 - 74 = 116 us -> P50 0.125 ms).
"""
import json
import os
import unittest

import helpers

from helpers import ROOT, run_mlia

DESC = os.path.join(ROOT, "tests", "data", "delegates", "xnnpack.json")
CALL = "delegate_call/forward/0/0"
FC1 = "runtime_event/forward/0/0/Fully Connected (NC, F32) GEMM #1"
CLAMP = "runtime_event/forward/0/0/Clamp (NC, F32) #1"
FC2 = "runtime_event/forward/0/0/Fully Connected (NC, F32) GEMM #2"


class Xnnpack(helpers.DelegateCapture):
    DESC = DESC
    EXTRA = ("--csv-tables", "all", "--trace", "--trace-format", "json", "--model-explorer", "files")

    def test_runs(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_every_operator_event_is_an_entity_under_its_call(self):
        for eid, name in ((FC1, "Fully Connected (NC, F32) GEMM #1"), (CLAMP, "Clamp (NC, F32) #1"),
                          (FC2, "Fully Connected (NC, F32) GEMM #2")):
            e = self.res.entities[eid]
            self.assertEqual(e["kind"], "runtime_event")
            self.assertEqual(e["name"], name)
            self.assertEqual(e["parent_ids"], [CALL])
        self.assertEqual(self.res.entities[CALL]["attributes"]["backend"], "XnnpackBackend")

    def test_p50_min_max_by_hand(self):
        for eid, (p50, lo, hi) in ((FC1, (0.04, 0.038, 0.042)), (CLAMP, (0.005, 0.005, 0.006)),
                                   (FC2, (0.03, 0.029, 0.031))):
            for stat, want in (("p50", p50), ("min", lo), ("max", hi)):
                m = self.res.m(eid, "execution_time", stat)
                self.assertEqual(m["unit"], "ms")
                self.assertAlmostEqual(m["value"], want, places=9, msg=(eid, stat))
        self.assertAlmostEqual(self.res.m(CALL, "execution_time", "p50")["value"], 0.2, places=9)
        self.assertAlmostEqual(self.res.m(CALL, "unattributed_time", "p50")["value"], 0.125, places=9)

    def test_operator_type_repeat_and_honest_unmapped(self):
        for eid, typ, k in ((FC1, "Fully Connected (NC, F32) GEMM", 1), (CLAMP, "Clamp (NC, F32)", 1),
                            (FC2, "Fully Connected (NC, F32) GEMM", 2)):
            a = self.res.entities[eid]["attributes"]
            self.assertEqual(a["backend"], "XnnpackBackend")
            self.assertEqual(a["operator_type"], typ)
            self.assertEqual(a["repeat"], k)
            self.assertEqual(a["source_mapping"], "unmapped")
            # no guess by name: the event has no source operator child
            self.assertNotIn("child_ids", self.res.entities[eid])

    def test_warning_names_the_unmapped_operators(self):
        self.assertIn("XNNPACK: 3 of 3 operator(s) have no source operator: XnnpackBackend records no delegate "
                      "map ({}), so only its delegate call maps to source operators; the operators are listed "
                      "unmapped, never matched by name.", self.res.warnings)

    def test_console_lists_the_top_delegate_operators(self):
        out = self.p.stdout
        self.assertIn("Top XnnpackBackend operators by P50 execution time (3 of 3 measured)", out)
        rows = [line.split() for line in out.splitlines() if line.strip().startswith(("1  ", "2  ", "3  "))]
        names = [" ".join(r[1:-4]) for r in rows if r[-1] == "unmapped"]
        self.assertEqual(names, ["Fully Connected (NC, F32) GEMM #1", "Fully Connected (NC, F32) GEMM #2",
                                 "Clamp (NC, F32) #1"])

    def test_csv_and_trace_carry_the_operators(self):
        with open(os.path.join(self.base, "csv", "executions.csv"), encoding="utf-8") as f:
            rows = f.read().splitlines()
        self.assertIn('xnnpack.etdump,1,1,"%s",execution_time,0.04,ms' % FC1, rows)
        self.assertIn('xnnpack.etdump,2,2,"%s",execution_time,0.006,ms' % CLAMP, rows)
        with open(os.path.join(self.base, "trace.json"), encoding="utf-8") as f:
            trace = json.load(f)
        ev = [e for e in trace["traceEvents"] if e.get("name") == "Fully Connected (NC, F32) GEMM #1"]
        self.assertEqual([e["dur"] for e in ev], [40, 42, 38])  # us, one per execution
        call = [e for e in trace["traceEvents"] if e.get("name") == "DELEGATE_CALL XnnpackBackend"]
        # laid back to back from 2 us after the call's start
        self.assertAlmostEqual(ev[0]["ts"] - call[0]["ts"], 2.0, places=3)

    def test_no_vgf_delegate_is_not_a_vgf_warning(self):
        # only an XnnpackBackend call: the NX statistics are not applicable, not missing
        out = self.p.stdout
        warn_block = out.split("\nWarnings", 1)[1]
        self.assertNotIn("No VGF neural statistics", warn_block)
        self.assertIn("not applicable: no VGF delegate call in the ETDump (its delegate calls are other backends')",
                      " ".join(out.split()))
        with open(os.path.join(self.base, "model-explorer", "bundle", "index.html"), encoding="utf-8") as f:
            page = f.read()
        start = page.index('<script type="application/json" id="mlia-data">')
        doc = json.loads(page[page.index(">", start) + 1:page.index("</script>", start)])
        self.assertNotIn("No VGF neural statistics were found in the ETDump.", doc["warnings"])
        self.assertTrue(doc["not_applicable"])
        nx = [v["id"] for v in doc["views"] if v["id"] in doc["not_applicable"]
              and v["reason"] != "No companion PTE was given."]
        self.assertIn("segment_cascade_chain", nx)
        for v in doc["views"]:
            if v["id"] in nx:
                self.assertTrue(v["reason"].startswith("No VGF delegate call in the ETDump"), v["reason"])

    def test_inspect_shows_the_events(self):
        p = run_mlia("inspect", self.files["etdump"])
        self.assertEqual(p.returncode, 0, p.stderr)
        ids = [e["delegate_debug_id_str"] for r in json.loads(p.stdout)["runs"] for e in r["events"]
               if e.get("delegate_debug_id_str")]
        self.assertEqual(ids[:3], ["Fully Connected (NC, F32) GEMM #1", "Clamp (NC, F32) #1",
                                   "Fully Connected (NC, F32) GEMM #2"])


if __name__ == "__main__":
    unittest.main()
