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
