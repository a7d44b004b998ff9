"""The Advice section (issue 29; docs/advice.md, src/analysis/advice.c) end to end:
each rule fires on a capture the fixture builder writes to trigger it and is silent on
one that does not, in mlia-output.json (MLIA advice entries), the console and the page
data. Thresholds are tested at their edges in tests/analysis/test_advice.c.

Expected figures, by hand from the descriptions:
- samples/demo.json: chain P50 total cycles 116,200 (Chain 32), 104,100, 6,400, 3,900;
  the model's P50 total is 230,600, so Chain 32 holds 116,200 / 230,600 = 50.4 %
  (>= 25 %: hot-chain); outside the VgfBackend call run the two linear layers (a
  permute_copy/addmm pair sharing one call each, P50 0.09952 and 0.004634 ms), the head
  relu (0.000441 ms) and the flatten view: (0.09952 + 0.004634 + 0.000441) / 0.5179 ms
  = 20 % (>= 10 %: outside-delegates); 3 executions (< 5: few-executions).
- the same with 6 executions and jitter 1.5 on the first: inference max about 1.5 x P50,
  (max - min) / P50 = 51 % (>= 20 %: unstable-inference-time, with the warm-up hint);
  --warmup-executions 1 leaves the slow one out (5 executions left: no few-executions).
- samples/lenet.json (CPU only, 1 execution): conv2's OPERATOR_CALL is 1.032 of 1.899 ms
  = 54 % (hot-operator); no delegate call, so neither hot-chain nor outside-delegates.
- accuracy captures (tests/py/test_accuracy.py's x -> mul -> relu -> neg): relu's output
  [nan, 2, 3, 4] holds one NaN (nonfinite-output, a warning, ranked first); relu
  [1, 2, 3, 4] against the reference [1, 2, 3, 5]: SNR = 10 log10(mean(ref^2) / mean(err^2))
  = 10 log10(9.75 / 0.25) = 15.9 dB
  (< 20 dB: low-snr); against [1, 2, 3, 4.01]: 10 log10(7.52 / 0.000025) = 54.8 dB (silent).
"""
import copy
import json
import os
import re
import shutil
import tempfile
import unittest

from helpers import ROOT, Result, build_fixture, check_args, load_sample, need_binary, run_mlia
from test_accuracy import base_desc

SO = "source_operator/forward/"


def advice(res):
    return res.r.get("advice", [])


def ids(res):
    return [a["id"] for a in advice(res)]


class Advice(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-advice-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def run_check(self, desc, *extra):
        built = build_fixture(desc, tempfile.mkdtemp(dir=self.tmp))
        out = tempfile.mkdtemp(dir=self.tmp)
        args = list(check_args(built["etrecord"], built["etdump"], "--output-dir", out, *extra))
        p = run_mlia(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        base = os.path.join(out, "mlia-output")
        with open(os.path.join(base, "mlia-output.json"), encoding="utf-8") as f:
            return Result(json.load(f)), p.stdout, base, built

    def test_demo_hot_chain_outside_delegates_few_executions(self):
        res, console, base, _ = self.run_check(os.path.join(ROOT, "samples", "demo.json"), "--model-explorer", "files")
        self.assertEqual(ids(res), ["hot-chain", "outside-delegates", "few-executions"])
        hot, outside, few = advice(res)
        self.assertEqual((hot["category"], hot["severity"]), ("optimization", "info"))
        self.assertTrue(hot["message"].startswith(
            "Chain 32 spends 50 % of the accelerator's cycles (116,200 of 230,600, P50); it runs "
            "aten.convolution.default (features.conv2) at layers.py:15, aten.relu.default (features.act2) at "
            "layers.py:16 (compiled as Conv2D, Clamp)"), hot["message"])
        self.assertEqual(hot["affected_entity_ids"][0], "chain/segment_0/32")
        self.assertEqual(hot["details"], {"chain": "Chain 32", "share_percent": 50.4, "cycles_p50": 116200,
                                          "total_cycles_p50": 230600})
        self.assertEqual((outside["category"], outside["details"]["operators_outside_delegates"],
                          outside["details"]["share_percent"]), ("performance", 5, 20.2))
        self.assertIn("take 20 % of the inference time", outside["message"])
        for eid in outside["affected_entity_ids"]:
            self.assertNotIn("delegate_call", res.entities[eid].get("attributes", {}))
        self.assertTrue(few["message"].startswith("Only 3 executions were analysed"))
        # the console: numbered, after the warnings, each closed by its rule id
        self.assertIn("\nAdvice (3)\n  1. Chain 32 spends 50 %", console)
        self.assertLess(console.index("Warnings: none"), console.index("Advice (3)"))
        flat = re.sub(r"\s+", " ", console)
        for rule in ("[hot-chain]", "[outside-delegates]", "[few-executions]"):
            self.assertIn(rule, flat)
        # the page data carries the same texts (the page shows them: viewer/tests/advice.test.mjs)
        page = open(os.path.join(base, "model-explorer", "bundle", "index.html"), encoding="utf-8").read()
        m = re.search(r'<script type="application/json" id="mlia-data">(.*?)</script>', page, re.S)
        self.assertIsNotNone(m)
        data = json.loads(m.group(1))
        self.assertEqual([a["id"] for a in data["advice"]], ids(res))
        self.assertEqual(data["advice"][0]["message"], hot["message"])
        self.assertEqual(data["advice"][0]["entities"], hot["affected_entity_ids"])

    def test_unstable_time_then_warmup(self):
        d = load_sample("demo.json")
        d["executions"] = dict(d["executions"], count=6, jitter=[1.5, 1, 1.02, 0.99, 1.01, 1], nx_jitter=[1] * 6)
        res, _, _, _ = self.run_check(d)
        self.assertEqual(ids(res), ["unstable-inference-time", "hot-chain", "outside-delegates"])
        a = advice(res)[0]
        self.assertIn("--warmup-executions 1", a["message"])
        self.assertGreaterEqual(a["details"]["spread_percent"], 20)
        res, _, _, _ = self.run_check(d, "--warmup-executions", "1")
        self.assertEqual(ids(res), ["hot-chain", "outside-delegates"])

    def test_cpu_only_lenet_hot_operator(self):
        res, console, _, _ = self.run_check(os.path.join(ROOT, "samples", "lenet.json"))
        self.assertEqual(ids(res), ["hot-operator", "few-executions"])
        a = advice(res)[0]
        self.assertEqual(a["message"], "aten.convolution.default (conv2) at lenet.py:22 takes 54 % of the inference "
                                       "time (1.032 of 1.899 ms, P50), the most of any operator measured on its own: "
                                       "start there.")
        self.assertEqual(a["affected_entity_ids"], [SO + "aten_convolution_default_1"])
        self.assertEqual(advice(res)[1]["message"][:60], "Only 1 execution was analysed, so P50, min and max are that ")

    def accuracy(self, run, ref, reference=True):
        d = base_desc()
        d["debug"]["tensors"]["relu"] = {"values": run}
        d["debug"]["reference"]["tensors"]["relu"] = {"values": ref}
        built = build_fixture(d, tempfile.mkdtemp(dir=self.tmp))
        args = check_args(built["etrecord"], built["etdump"], "--json", "--debug-buffer", built["debug_buffer"])
        if reference:
            args += ["--reference-profiling-data", built["reference_etdump"],
                     "--reference-debug-buffer", built["reference_debug_buffer"]]
        p = run_mlia(*args)
        self.assertEqual(p.returncode, 0, p.stderr)
        return Result(json.loads(p.stdout))

    def test_nonfinite_output_is_a_warning_ranked_first(self):
        res = self.accuracy(["nan", 2, 3, 4], [1, 2, 3, 4], reference=False)
        a = advice(res)[0]
        self.assertEqual((a["id"], a["category"], a["severity"]), ("nonfinite-output", "compatibility", "warning"))
        self.assertTrue(a["message"].startswith("aten.relu.default at model.py:") or
                        a["message"].startswith("aten.relu.default is the first"), a["message"])
        self.assertIn("is the first operator whose output holds NaN or infinite values (up to 1 element(s)",
                      a["message"])
        self.assertEqual(a["affected_entity_ids"], [SO + "relu"])
        clean = self.accuracy([1, 2, 3, 4], [1, 2, 3, 4], reference=False)
        self.assertNotIn("nonfinite-output", ids(clean))

    def test_low_snr_against_the_reference(self):
        res = self.accuracy([1, 2, 3, 4], [1, 2, 3, 5])
        a = [x for x in advice(res) if x["id"] == "low-snr"]
        self.assertEqual(len(a), 1, ids(res))
        self.assertIn("has the lowest output SNR against the reference: 15.9 dB (P50, below 20 dB)", a[0]["message"])
        self.assertEqual(a[0]["affected_entity_ids"], [SO + "relu"])
        self.assertEqual(a[0]["details"]["snr_db_p50"], 15.9)
        good = self.accuracy([1, 2, 3, 4], [1, 2, 3, 4.01])
        self.assertNotIn("low-snr", ids(good))


if __name__ == "__main__":
    unittest.main()
