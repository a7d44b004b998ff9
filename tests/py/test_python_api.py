"""The Python API (README, python/mlia/__init__.py): python/mlia loads build/libmlia.so with ctypes."""
import os
import sys
import tempfile
import unittest

import json

from helpers import ROOT, BUILD, MLIA, build_fixture, check_args, run_mlia

sys.path.insert(0, os.path.join(ROOT, "python"))
LIB = os.environ.get("MLIA_LIB", os.path.join(ROOT, BUILD, "libmlia.so"))


class PythonApi(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        if not os.path.exists(LIB):
            raise unittest.SkipTest(f"{LIB} not built")
        os.environ["MLIA_LIB"] = LIB
        import mlia
        cls.mlia = mlia
        cls.tmp = tempfile.mkdtemp(prefix="mlia-py-")
        built = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), cls.tmp)
        cls.etrecord, cls.etdump = built["etrecord"], built["etdump"]

    def test_run_advisor_returns_the_result(self):
        res = self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump])
        self.assertEqual(res["schema_version"], "1.2.0")
        metrics = {m["name"]: m for m in res["results"][0]["metrics"]}
        # the same figure as the CLI's on the same capture
        if os.path.exists(MLIA):
            p = run_mlia(*check_args(self.etrecord, self.etdump, "--output-dir",
                                     tempfile.mkdtemp(dir=self.tmp), "--json"))
            self.assertEqual(p.returncode, 0, p.stderr)
            cli = {m["name"]: m for m in json.loads(p.stdout)["results"][0]["metrics"]}
            self.assertEqual(metrics["inference_time"], cli["inference_time"])
        self.assertGreater(metrics["inference_time"]["value"], 0)
        # no output_dir: nothing written
        self.assertFalse(os.path.exists(os.path.join(os.getcwd(), "mlia-output", "x")))

    # Issue 29, 7: rows shaped like Inspector's dataframe, avg/p10/p90 next to
    # P50/min/max, per-module totals (find_total_for_module), tables by name.
    def test_rows_and_module_totals(self):
        res = self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump])
        rows = self.mlia.rows(res)
        src = [e for e in res["results"][0]["entities"] if e["kind"] == "source_operator"]
        self.assertEqual(len(rows), len(src))
        conv2 = [r for r in rows if r["event_name"] == "aten_convolution_default_1"][0]
        self.assertEqual({k: conv2[k] for k in ("op", "display_name", "module", "source", "attribution", "samples")},
                         {"op": "aten.convolution.default", "display_name": "aten.convolution.default (conv2)",
                          "module": "conv2", "source": "lenet.py:22", "attribution": "exclusive", "samples": 1})
        for stat in ("p50", "avg", "min", "max", "p10", "p90"):
            self.assertAlmostEqual(conv2[stat], 1.03223, places=9, msg=stat)
        totals = self.mlia.module_totals(res)
        # fc1's two operators share one OPERATOR_CALL: counted once
        fc1 = [r for r in rows if r["module"] == "fc1"]
        self.assertEqual(len(fc1), 2)
        self.assertAlmostEqual(totals["fc1"], fc1[0]["avg"], places=12)
        self.assertAlmostEqual(totals["conv2"], 1.03223, places=9)
        # csv tables by name
        out = tempfile.mkdtemp(dir=self.tmp)
        self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump], output_dir=out,
                              csv=["operators", "executions"])
        self.assertEqual(sorted(os.listdir(os.path.join(out, "mlia-output", "csv"))),
                         ["executions.csv", "operators.csv"])
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump], output_dir=out, csv="nope")
        self.assertEqual(str(cm.exception), "argument --csv-tables: invalid choice: 'nope' (choose from "
                                            "'operators', 'chains', 'executions', 'memory', 'modules', 'all')")
        # the option table's own keyword, as the command line's --csv-tables
        out = tempfile.mkdtemp(dir=self.tmp)
        self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump], output_dir=out,
                              csv_tables="chains,executions")
        self.assertEqual(sorted(os.listdir(os.path.join(out, "mlia-output", "csv"))),
                         ["chains.csv", "executions.csv"])
        row = [r for r in self.mlia.options("check") if r["key"] == "csv_tables"][0]
        self.assertEqual((row["flag"], row["type"], row["choices"]),
                         ("--csv-tables", "choices", ["operators", "chains", "executions", "memory", "modules", "all"]))

    def test_output_dir_and_method_option(self):
        out = tempfile.mkdtemp(dir=self.tmp)
        res = self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump], output_dir=out,
                                    backend_options={"neural-technology-profiling-data":
                                                     {"etrecord_method": "forward"}})
        self.assertEqual(res["context"]["runtime_configuration"]["etrecord_method"], "forward")
        self.assertTrue(os.path.exists(os.path.join(out, "mlia-output", "mlia-output.json")))

    def test_errors_carry_the_cli_message(self):
        with self.assertRaises(self.mlia.MliaError) as cm:
            self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump],
                                  backend_options={"neural-technology-profiling-data":
                                                   {"etrecord_method": "decode"}})
        self.assertEqual(str(cm.exception), f"{self.etrecord}: method 'decode' is not recorded in the ETRecord; "
                                            "recorded methods: forward")
        missing = os.path.join(self.tmp, "missing.etdump")
        with self.assertRaises(self.mlia.MliaError) as cm:
            self.mlia.run_advisor(model=self.etrecord, profiling_data=[missing])
        self.assertEqual(str(cm.exception), f"{missing}: No such file or directory")

    def test_usage_errors(self):
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump, self.etdump])
        self.assertEqual(str(cm.exception), f"--profiling-data: {self.etdump} is given more than once.")
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(advice_category="compatibility", model=self.etrecord,
                                  profiling_data=[self.etdump])
        self.assertEqual(str(cm.exception), "Backend does not support --compatibility with --profiling-data. "
                                            "Use --performance instead.")
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(target_profile="ethos-u55-256", model=self.etrecord,
                                  profiling_data=[self.etdump])
        self.assertEqual(str(cm.exception), "Target profile 'ethos-u55-256' is not supported; supported: "
                                            "neural-technology.")


if __name__ == "__main__":
    unittest.main()
