"""Verdicts a user can act on (issue 28): captures with exact durations built by the
fixture builder, both sides produced by `mlia check`, and the examples of the issue,
each with its exact expectations:
- one execution per side, one operator 3x slower: named as a likely regression, never
  "no change", and --fail-on-regression exits 3 (--tested-only does not);
- five executions: the model's lines first, one row per entity, whole ids in a pipe;
- runs analysed with another clock or warm-up: an error or a warning at the top;
- the same capture twice (check, pooled baselines): refused, naming both;
- inference_time with min, max and samples in the result, used by compare;
- round-4 defects: 1e400, malformed fingerprints."""
import copy
import json
import os
import shutil
import sys
import tempfile
import unittest

from helpers import MLIA, ROOT, build_fixture, check_args, load_sample, need_binary, run_mlia

sys.path.insert(0, os.path.join(ROOT, "python"))
import mlia  # noqa: E402

CONV = "source_operator/forward/aten_convolution_default_1"


def lenet(executions=1, slow=1, jitter=(1.0, 1.01, 0.99, 1.02, 0.98)):
    """The LeNet program with exact durations; aten_convolution_default_1 `slow` times slower."""
    desc = load_sample("lenet.json")
    desc["executions"]["count"] = executions
    for p in desc["plan"]:
        if "durations" in p:
            one = p["durations"][0]
            p["durations"] = [int(one * jitter[i]) for i in range(executions)]
            if "kernel_time" in p:
                k = p["kernel_time"][0]
                p["kernel_time"] = [int(k * jitter[i]) for i in range(executions)]
        if p.get("kernel") == "aten_convolution_default_1":
            p["durations"] = [d * slow for d in p["durations"]]
            if "kernel_time" in p:
                p["kernel_time"] = [k * slow for k in p["kernel_time"]]
    return desc


class Verdicts(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-verdicts-")
        cls.paths = {}
        cls.base1 = cls.check(lenet(1), "base1")
        cls.slow1 = cls.check(lenet(1, slow=3), "slow1")
        cls.base5 = cls.check(lenet(5), "base5")
        cls.slow5 = cls.check(lenet(5, slow=3), "slow5")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def check(cls, desc, name, *extra, paths=None):
        d = os.path.join(cls.tmp, name)
        if paths is None:
            paths = build_fixture(desc, os.path.join(cls.tmp, "src-" + name))
            cls.paths[name] = paths
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--output-dir", d, "-q", *extra))
        assert p.returncode == 0, p.stderr
        return os.path.join(d, "mlia-output")

    def compare(self, *args, expect=0):
        p = run_mlia("compare", *args, "--output-dir", os.path.join(self.tmp, "cmp"))
        self.assertEqual(p.returncode, expect, p.stderr)
        return p

    # ---- item 1: one execution per side ----

    def test_one_execution_3x_slower_is_named_and_fails_the_gate(self):
        p = self.compare(self.base1, self.slow1)
        out = p.stdout
        self.assertNotIn("No change", out)
        self.assertIn("\nSamples:   1 execution per side: changes beyond 5 % shown, not tested for noise (that takes 3 "
                      "per side)\nVerdicts:  1 likely regression, 13 unchanged (of 14 entities; 44 metrics in "
                      "compare.json)\n", out)
        lines = out.splitlines()
        m = lines.index("Model")
        self.assertEqual(lines[m + 1:m + 5], [
            "  Metric                 Unit          Baseline    New   Delta     Change  Verdict",
            "  inference_time         ms               1.899  3.963  +2.064  +108.74 %  likely regression (1 sample each)",
            "  inferences_per_second  inferences/s     526.7  252.3  -274.4   -52.09 %  likely regression (1 sample each)",
            ""])
        r = lines.index("Regressions (1 entity, 1 likely)")
        self.assertEqual(lines[r + 2], "  1  +200 %  +2.064  ms       1.032  3.097  likely, 1 sample each  "
                                       f"{CONV}  execution_time (exclusive)  aten.convolution.default at lenet.py:22")
        # on a terminal too: the operator named whole, never "no change"
        from test_compare import run_on_pty
        shown = run_on_pty([MLIA, "compare", self.base1, self.slow1, "--output-dir", os.path.join(self.tmp, "pty")],
                           env={"COLUMNS": "100"})
        self.assertNotIn("No change", shown)
        self.assertIn("Regressions (1 entity, 1 likely)\r\n", shown)
        self.assertIn(f"  {CONV}\r\n", shown)  # the id whole, on the line of its numbers
        self.assertIn("      execution_time (exclusive)  aten.convolution.default at lenet.py:22\r\n", shown)
        # the gate fails on the likely regression; the statistics-only gate does not
        self.compare(self.base1, self.slow1, "--fail-on-regression", "-q", expect=3)
        self.compare(self.base1, self.slow1, "--fail-on-regression", "--tested-only", "-q", expect=0)
        doc = json.loads(self.compare(self.base1, self.slow1, "--json").stdout)
        self.assertEqual(doc["gate"], {"counts": "regressions and likely regressions", "failing": 2})
        self.assertEqual((doc["summary"]["likely_regressions"], doc["summary"]["model"]), (1, "likely_regression"))
        self.assertEqual([(e["id"], e["verdict"]) for e in doc["changed_entities"]], [(CONV, "likely_regression")])
        row = next(m for m in doc["metrics"] if m["entity_id"] == CONV and m["metric"] == "execution_time")
        self.assertEqual((row["verdict"], row["reason"]),
                         ("likely_regression", "fewer than 3 samples on a side: not tested for noise"))
        self.assertAlmostEqual(row["percent"], 200.0)
        tested = json.loads(self.compare(self.base1, self.slow1, "--json", "--tested-only").stdout)
        self.assertEqual(tested["gate"], {"counts": "regressions", "failing": 0})

    def test_python_gate_counts_likely_regressions(self):
        with self.assertRaises(mlia.MliaRegressionError) as ctx:
            mlia.compare(self.base1, self.slow1, output_dir=os.path.join(self.tmp, "py"), fail_on_regression=True)
        self.assertEqual(str(ctx.exception), "2 regressions (2 likely; threshold 5 %)")
        got = mlia.compare(self.base1, self.slow1, output_dir=os.path.join(self.tmp, "py"), fail_on_regression=True,
                           tested_only=True)
        self.assertEqual(got["gate"]["failing"], 0)

    # ---- item 2: five executions, headline first, whole names ----

    def test_five_executions_headline_first_whole_ids(self):
        p = self.compare(self.base5, self.slow5)  # standard output is a pipe
        lines = p.stdout.splitlines()
        self.assertIn("Samples:   5 executions per side: changes beyond 5 % tested against the baseline's [min, max]",
                      lines)
        self.assertIn("Verdicts:  1 regression, 13 unchanged (of 14 entities; 44 metrics in compare.json)", lines)
        # the model's lines come before every entity row
        self.assertLess(lines.index("Model"), lines.index("Regressions (1 entity)"))
        self.assertTrue(lines[lines.index("Model") + 2].startswith("  inference_time         ms "))
        self.assertIn("regression (5 samples each)", lines[lines.index("Model") + 2])
        # one row per entity, the id whole on the line of its numbers: grep finds both
        hits = [x for x in lines if "aten_convolution_default_1" in x]
        self.assertEqual(len(hits), 1)
        self.assertEqual(hits[0].split()[:4], ["1", "+200", "%", "+2.064"])
        self.assertIn(f"  {CONV}  execution_time (exclusive)  aten.convolution.default at lenet.py:22", hits[0])

    # ---- item 6: the model's spread ----

    def test_inference_time_has_min_max_and_samples(self):
        with open(os.path.join(self.base5, "mlia-output.json"), encoding="utf-8") as f:
            metrics = json.load(f)["results"][0]["metrics"]
        inf = [m for m in metrics if m["name"] == "inference_time"]
        self.assertEqual([(m["qualifiers"]["statistic"], m["aggregation"], m["samples"]) for m in inf],
                         [("p50", "p50", 5), ("min", "min", 5), ("max", "max", 5)])
        self.assertLess(inf[1]["value"], inf[0]["value"])
        self.assertLess(inf[0]["value"], inf[2]["value"])
        ips = [m for m in metrics if m["name"] == "inferences_per_second"]
        self.assertEqual([m["qualifiers"]["statistic"] for m in ips], ["p50", "min", "max"])
        self.assertAlmostEqual(ips[1]["value"], 1000 / inf[2]["value"])  # the slowest execution
        self.assertAlmostEqual(ips[2]["value"], 1000 / inf[1]["value"])
        doc = json.loads(self.compare(self.base5, self.slow5, "--json").stdout)
        h = doc["headline"][0]
        self.assertEqual(h["series"], "inference_time")
        self.assertEqual((h["baseline"]["min"], h["baseline"]["max"], h["baseline"]["samples"]),
                         (inf[1]["value"], inf[2]["value"], 5))
        self.assertEqual(h["verdict"], "regression")

    # ---- item 3: settings ----

    def test_different_clock_is_an_error_with_an_override(self):
        paths = self.paths["base1"]
        fast = self.check(None, "clock", "--neural-technology-profiling-data.ticks-per-second", "500000000",
                          paths=paths)
        base_json = os.path.join(self.base1, "mlia-output.json")
        fast_json = os.path.join(fast, "mlia-output.json")
        p = self.compare(self.base1, fast, expect=1)
        self.assertEqual(p.stderr, f"mlia: error: {fast_json}: analysed with other settings than the baseline "
                                   f"({base_json}): clock 500000000 ticks/s instead of nanoseconds (the default); the "
                                   "numbers cannot be compared: analyse both runs with the same clock and statistics "
                                   "options, or add --allow-different-settings\n")
        p = self.compare(self.base1, fast, "--allow-different-settings", "--fail-on-regression", expect=3)
        self.assertIn("\nSettings:  DIFFERENT: clock 500000000 ticks/s (baseline nanoseconds (the default)); see "
                      "Warnings\n", p.stdout)
        warning = (f"{fast_json}: analysed with other settings than the baseline ({base_json}): clock 500000000 "
                   "ticks/s instead of nanoseconds (the default); compared anyway (--allow-different-settings)")
        self.assertIn(f"\nWarnings (2)\n  - {warning}\n", p.stdout)
        # the same capture read with a clock twice as slow: every time doubled
        self.assertIn("  inference_time         ms               1.899  3.797  +1.899  +100 %  likely regression "
                      "(1 sample each)", p.stdout)
        doc = json.loads(self.compare(self.base1, fast, "--allow-different-settings", "--json").stdout)
        self.assertEqual(doc["settings"]["differences"], [
            {"setting": "clock", "baseline_run": base_json, "baseline": "nanoseconds (the default)",
             "new": "500000000 ticks/s", "blocking": True}])
        self.assertIn(warning, doc["warnings"])

    def test_different_warmup_is_a_warning_at_the_top(self):
        five = self.paths["base5"]
        warm = self.check(None, "warm", "--neural-technology-profiling-data.warmup-executions", "1", paths=five)
        base_json = os.path.join(self.base5, "mlia-output.json")
        warm_json = os.path.join(warm, "mlia-output.json")
        p = self.compare(self.base5, warm)
        self.assertIn("\nSettings:  DIFFERENT: warm-up 1 execution (baseline none); see Warnings\n", p.stdout)
        warning = (f"{warm_json}: analysed with other settings than the baseline ({base_json}): warm-up 1 execution "
                   "instead of none")
        self.assertIn(f"\n  - {warning}\n", p.stdout)
        p = self.compare(self.base5, warm, "-q")
        self.assertIn(f"mlia: warning: {warning}\n", p.stderr)

    # ---- item 4: duplicates ----

    def test_same_capture_twice_in_check_is_refused(self):
        paths = self.paths["base1"]
        copy_of = os.path.join(self.tmp, "copy-of-lenet.etdump")
        shutil.copyfile(paths["etdump"], copy_of)
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--profiling-data", copy_of, "--output-dir",
                                 os.path.join(self.tmp, "dup"), "-q"))
        import hashlib
        with open(copy_of, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        self.assertEqual((p.returncode, p.stderr),
                         (1, f"mlia: error: {copy_of}: the same capture as {paths['etdump']} (SHA-256 {digest[:12]}): "
                             "a capture given twice would count its executions twice\n"))

    def test_two_baselines_of_one_capture_are_refused(self):
        again = self.check(None, "again", paths=self.paths["base1"])
        first = os.path.join(self.base1, "mlia-output.json")
        second = os.path.join(again, "mlia-output.json")
        with open(first, encoding="utf-8") as f:
            digest = json.load(f)["context"]["runtime_configuration"]["fingerprint"]["inputs"]["profiling_data"]
        p = self.compare("--baseline", self.base1, "--baseline", again, self.slow1, expect=1)
        self.assertEqual(p.stderr, f"mlia: error: {second}: analyses the same capture as {first} (SHA-256 "
                                   f"{digest[:12]}); a capture counts once in a pooled baseline: give each run once\n")
        # the new run analysing the baseline's capture: compared, with a warning
        p = self.compare(self.base1, again, "-q")
        self.assertEqual(p.stderr, f"mlia: warning: {second}: analyses the same capture as the baseline run {first} "
                                   f"(SHA-256 {digest[:12]}); the comparison measures the analysis, not a change of "
                                   "the model\n")

    # ---- item 7: round-4 defects ----

    def doctored(self, name, edit):
        with open(os.path.join(self.base1, "mlia-output.json"), encoding="utf-8") as f:
            text = f.read()
        path = os.path.join(self.tmp, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(edit(text))
        return path

    def test_overflowing_literal_is_refused_like_infinity(self):
        with open(os.path.join(self.base1, "mlia-output.json"), encoding="utf-8") as f:
            doc = json.load(f)
        value = doc["results"][0]["metrics"][0]["value"]
        needle = f'"value": {value},'
        path = self.doctored("big.json", lambda t: t.replace(needle, '"value": 1e400,', 1))
        with open(path, encoding="utf-8") as f:
            at = f.read().encode("utf-8").index(b"1e400")
        p = self.compare(path, self.slow1, expect=1)
        self.assertEqual(p.stderr, f"mlia: error: {path}: not an mlia output (invalid JSON at byte {at}: number out of "
                                   "range (1e400 is not a finite double))\n")
        path = self.doctored("inf.json", lambda t: t.replace(needle, '"value": Infinity,', 1))
        p = self.compare(path, self.slow1, expect=1)
        self.assertEqual(p.stderr, f"mlia: error: {path}: not an mlia output (invalid JSON at byte {at}: Infinity is "
                                   "not allowed)\n")

    def test_malformed_fingerprint_is_an_error(self):
        for name, value, what in (("s", '"0f12affc85bb"', "a string"), ("n", "42", "a number"),
                                  ("z", "null", "null")):
            def edit(t, value=value):
                d = json.loads(t)
                d["context"]["runtime_configuration"]["fingerprint"] = json.loads(value)
                return json.dumps(d)
            path = self.doctored(f"fp-{name}.json", edit)
            p = self.compare(path, self.slow1, expect=1)
            self.assertEqual(p.stderr, f"mlia: error: {path}: not an mlia output (context.runtime_configuration."
                                       f"fingerprint is {what}, not an object)\n")


if __name__ == "__main__":
    unittest.main()
