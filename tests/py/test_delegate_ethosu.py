"""The Arm Ethos-U backend (issue 31 item 6; docs/delegates.md, "Arm Ethos-U"):
--profiling-data RUN.log takes the bare-metal runner's console log as it is. The
logs are written by the fixture builder (tools/fixturelib/ethosu_log.py) around
the ETDump of tests/data/delegates/ethosu_u55.json (U55, LF) and ethosu_u85.json
(U85, CRLF, with a debug-buffer block), a two-layer MLP in one EthosUBackend
delegate call, two executions of 500,000 and 520,000 ticks (CPU cycles).

Expected values, by hand from the "ethosu_log" members (totals over the 2
inferences, per inference = total / 2):
- U55: NPU active cycles 850,000 -> 425,000 per inference; counters in the order
  of its "Ethos-U PMU Events" line: AXI0_RD_DATA_BEAT_RECEIVED 120,000 beats
  (count) -> 60,000; AXI1_RD 30,000 -> 15,000; AXI0_WR 64,000 -> 32,000;
  NPU_IDLE 15,000 cycles -> 7,500; CPU cycles in the backend 980,000 -> 490,000,
  operators 1,000,000 -> 500,000, inference 1,020,000 -> 510,000, waiting for the
  NPU 900,000 -> 450,000; delegations 2 -> 1.
- U85: NPU active cycles 600,001 -> 300,000.5; SRAM_RD 200,000 -> 100,000 (count),
  MAC_ACTIVE 480,000 -> 240,000 (cycles), WD_ACTIVE 50,000 -> 25,000 (cycles).
- The scopes ("ethosu_scopes": [name, lead, duration] ticks after the call's start, the
  same in both executions): EthosUBackend::execute() 490,000 cycles from 500 (under the
  call), +...handles.input.memcpy() 4,000 from 1,000 and +...NPU 450,000 from 6,000 (both
  inside execute()) -> P50 = min = max = those cycles; at 250 MHz the NPU scope is
  450,000 / 250e6 s = 1.8 ms. The call in cycles: P50 500,000, min 500,000, max 520,000.
- The delegate call without a rate: the runner declares ticks as ns, so its P50
  (lower median of 500,000 and 520,000 ticks) reads 0.5 "ms" = 500,000 CPU
  cycles / 10^6, and the warning says so; with a rate of 250 MHz it is
  500,000 / 250e6 s = 2 ms.
"""
import json
import os
import shutil
import tempfile
import unittest

from helpers import ROOT, Result, build_fixture, check_args, need_binary, run_mlia

DATA = os.path.join(ROOT, "tests", "data", "delegates")
CALL = "delegate_call/forward/0/0"
PMU = {"source": "Ethos-U PMU report"}


def pmu_metric(res, name, statistic):
    for m in res.r["metrics"]:
        q = m.get("qualifiers", {})
        if m["name"] == name and q.get("statistic") == statistic and q.get("source") == PMU["source"]:
            return m
    return None


class EthosU(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-ethosu-")
        cls.files = {v: build_fixture(os.path.join(DATA, "ethosu_%s.json" % v), os.path.join(cls.tmp, v))
                     for v in ("u55", "u85")}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_check(self, variant, *extra, capture="log"):
        f = self.files[variant]
        out = os.path.join(self.tmp, "out-%s-%d" % (variant, len(extra)))
        p = run_mlia(*check_args(f["etrecord"], f[capture], "--output-dir", out, *extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as fh:
            return Result(json.load(fh)), p

    def test_lf_and_crlf_logs_give_the_etdump(self):
        with open(self.files["u85"]["log"], "rb") as f:
            self.assertIn(b"\r\n", f.read())  # the U85 log really is CRLF
        for v in ("u55", "u85"):
            res, _ = self.run_check(v)
            self.assertAlmostEqual(res.m(CALL, "execution_time", "p50")["value"], 0.5, places=9)
            self.assertAlmostEqual(res.m(CALL, "execution_time", "max")["value"], 0.52, places=9)
            # the digest is the log's own (the file given)
            pd = res.doc["context"]["runtime_configuration"]["profiling_data"]
            self.assertEqual(pd["name"], "ethosu_%s.log" % v)
            self.assertEqual(pd["size_bytes"], os.path.getsize(self.files[v]["log"]))

    def test_log_and_plain_etdump_give_the_same_timings(self):
        log, _ = self.run_check("u55")
        plain, _ = self.run_check("u55", capture="etdump")
        self.assertEqual(log.breakdowns, plain.breakdowns)
        self.assertIsNone(pmu_metric(plain, "npu_active_cycles", "total"))

    def test_u55_pmu_metrics_by_hand(self):
        res, _ = self.run_check("u55")
        want = [("npu_active_cycles", "cycles", 850000, 425000), ("npu_delegations", "count", 2, 1),
                ("ethosu_pmu_axi0_rd_data_beat_received", "count", 120000, 60000),
                ("ethosu_pmu_axi1_rd_data_beat_received", "count", 30000, 15000),
                ("ethosu_pmu_axi0_wr_data_beat_written", "count", 64000, 32000),
                ("ethosu_pmu_npu_idle", "cycles", 15000, 7500),
                ("ethosu_backend_cpu_cycles", "cycles", 980000, 490000),
                ("operator_cpu_cycles", "cycles", 1000000, 500000),
                ("inference_cpu_cycles", "cycles", 1020000, 510000),
                ("cpu_wait_for_npu_cycles", "cycles", 900000, 450000)]
        for name, unit, total, per in want:
            t, p = pmu_metric(res, name, "total"), pmu_metric(res, name, "per_inference")
            self.assertEqual((t["value"], t["unit"]), (total, unit), name)
            self.assertEqual((p["value"], p["unit"]), (per, unit), name)
        n = [m for m in res.r["metrics"] if m["name"] == "npu_inferences"]
        self.assertEqual([(m["value"], m["unit"]) for m in n], [(2, "count")])

    def test_u85_counters_named_from_its_events_line(self):
        res, _ = self.run_check("u85")
        self.assertEqual(pmu_metric(res, "npu_active_cycles", "per_inference")["value"], 300000.5)
        for name, unit, total in (("ethosu_pmu_sram_rd_data_beat_received", "count", 200000),
                                  ("ethosu_pmu_mac_active", "cycles", 480000),
                                  ("ethosu_pmu_wd_active", "cycles", 50000)):
            m = pmu_metric(res, name, "total")
            self.assertEqual((m["value"], m["unit"]), (total, unit))
        self.assertIsNone(pmu_metric(res, "ethosu_pmu_axi0_rd_data_beat_received", "total"))

    def test_cycles_warning_and_a_rate(self):
        res, _ = self.run_check("u55")
        self.assertIn("Ethos-U runner log: the ETDump's ticks are Cortex-M CPU cycles, which the runner declares "
                      "as nanoseconds, so every time in ms is CPU cycles / 10^6; the Ethos-U scopes and delegate "
                      "calls are also given in cycles (execution_cycles); give the CPU clock with "
                      "--neural-technology-profiling-data.ticks-per-second for times. The PMU figures are in "
                      "cycles and counts.", res.warnings)
        res, _ = self.run_check("u55", "--neural-technology-profiling-data.ticks-per-second", "250e6")
        self.assertAlmostEqual(res.m(CALL, "execution_time", "p50")["value"], 2.0, places=9)
        self.assertFalse([w for w in res.warnings if w.startswith("Ethos-U runner log: the ETDump's ticks")])
        # PMU figures stay cycles and counts whatever the rate
        self.assertEqual(pmu_metric(res, "npu_active_cycles", "total")["unit"], "cycles")

    def test_scopes_are_entities_in_cycles_under_their_call(self):
        res, _ = self.run_check("u55")
        ex = "runtime_event/forward/0/0/EthosUBackend::execute()"
        mc = "runtime_event/forward/0/0/+EthosUBackend::execute()handles.input.memcpy()"
        npu = "runtime_event/forward/0/0/+EthosUBackend::execute()NPU"
        self.assertEqual(res.entities[ex]["parent_ids"], [CALL])
        self.assertEqual(res.entities[mc]["parent_ids"], [ex])
        self.assertEqual(res.entities[npu]["parent_ids"], [ex])
        for eid, cyc in ((ex, 490000), (mc, 4000), (npu, 450000)):
            for stat in ("p50", "min", "max"):
                m = res.m(eid, "execution_cycles", stat)
                self.assertEqual((m["value"], m["unit"]), (cyc, "cycles"), (eid, stat))
            self.assertIsNone(res.m(eid, "execution_time", "p50"))
        for stat, want in (("p50", 500000), ("min", 500000), ("max", 520000)):
            m = res.m(CALL, "execution_cycles", stat)
            self.assertEqual((m["value"], m["unit"]), (want, "cycles"))
        # with a rate: times, no cycles
        res, _ = self.run_check("u55", "--neural-technology-profiling-data.ticks-per-second", "250e6")
        self.assertAlmostEqual(res.m(npu, "execution_time", "p50")["value"], 1.8, places=9)
        self.assertIsNone(res.m(npu, "execution_cycles", "p50"))
        self.assertIsNone(res.m(CALL, "execution_cycles", "p50"))

    def test_console_shows_the_pmu_report(self):
        _, p = self.run_check("u85")
        lines = [" ".join(line.split()) for line in p.stdout.splitlines()]
        i = lines.index("Ethos-U PMU report")
        self.assertEqual(lines[i + 1], "Metric Total Per inference Unit")
        self.assertIn("npu_active_cycles 600,001 300,000.5 cycles", lines[i + 2:i + 16])
        self.assertIn("ethosu_pmu_mac_active 480,000 240,000 cycles", lines[i + 2:i + 16])
        self.assertIn("ethosu_pmu_sram_rd_data_beat_received 200,000 100,000 count", lines[i + 2:i + 16])

    def test_a_broken_log_is_an_input_error(self):
        bad = os.path.join(self.tmp, "bad.log")
        with open(bad, "w", encoding="ascii") as f:
            f.write("boot\n#[RUN THIS]\n# Writing etdump.bin [base64]\necho \"A\" | base64 -d >etdump.bin\n#[END]\n")
        p = run_mlia(*check_args(self.files["u55"]["etrecord"], bad, "--output-dir", os.path.join(self.tmp, "b")))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, "mlia: error: %s: Ethos-U runner log: the base64 of etdump.bin does not decode, "
                                   "at line 4\n" % bad)


if __name__ == "__main__":
    unittest.main()
