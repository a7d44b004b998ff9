"""Method selection through the CLI (docs/analysis.md): an ETRecord recording two
methods (LeNet as `forward`, the demo CNN as `decode`) with the real lenet.etdp."""
import json
import os
import tempfile
import unittest

from helpers import ROOT, Result, build_fixture, check_args, load_sample, need_binary, run_mlia



def inspect_runs(etdump):
    p = run_mlia("inspect", etdump)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)["runs"]


class MethodSelection(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        import mkfixture  # noqa: F401  (tools/ on the path)
        from fixturelib.model import Fixture
        from fixturelib import etrecord as etrecord_mod
        cls.tmp = tempfile.mkdtemp(prefix="mlia-methods-")
        # the LeNet capture (one execution of `forward`) from the fixture builder
        cls.lenet_etdump = build_fixture(os.path.join(ROOT, "samples", "lenet.json"),
                                         os.path.join(cls.tmp, "lenet"))["etdump"]
        lenet = Fixture(load_sample("lenet.json"), ROOT)
        demo_desc = load_sample("demo.json")
        demo_desc["method"] = "decode"
        demo = Fixture(demo_desc, ROOT)
        cls.etrecord = os.path.join(cls.tmp, "two.etrecord")
        maps = []
        for getter in ("debug_handle_map", "delegate_map", "num_outs_map"):
            merged = {}
            for fx in (lenet, demo):
                merged.update(getattr(fx, getter)())
            maps.append(merged)
        etrecord_mod.write_etrecord(cls.etrecord, {"forward": lenet.exported_program_text(legacy=False),
                                                   "decode": demo.exported_program_text(legacy=False)},
                                    maps[0], maps[1], maps[2], layout="current")

    def run_check(self, *extra):
        out = tempfile.mkdtemp(dir=self.tmp)
        return run_mlia(*check_args(self.etrecord, self.lenet_etdump, "--output-dir", out, "--json", *extra)), out

    def test_several_methods_need_a_selection(self):
        p, out = self.run_check()
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {self.etrecord}: the ETRecord records several methods "
                                   "(forward, decode); select one with "
                                   "--neural-technology-profiling-data.etrecord-method\n")
        self.assertEqual(os.listdir(out), [])

    def test_selected_method_gets_its_executions(self):
        p, _ = self.run_check("--neural-technology-profiling-data.etrecord-method", "forward")
        self.assertEqual(p.returncode, 0, p.stderr)
        res = Result(json.loads(p.stdout))
        rc = res.doc["context"]["runtime_configuration"]
        self.assertEqual((rc["etrecord_method"], rc["executions"], rc["execution_runs"]), ("forward", 1, [1]))
        m = res.m("source_operator/forward/aten_convolution_default_1", "execution_time", "p50")
        self.assertEqual(m["value"], 1.03223)
        # inference time = the Method::execute event of the capture, in ms
        execute = [e for r in inspect_runs(self.lenet_etdump) for e in r["events"]
                   if e["name"] == "Method::execute"]
        self.assertEqual(len(execute), 1)
        self.assertEqual(res.model_metric("inference_time")["value"],
                         (execute[0]["end_time"] - execute[0]["start_time"]) / 1e6)

    def test_method_without_fitting_executions(self):
        p, _ = self.run_check("--neural-technology-profiling-data.etrecord-method", "decode")
        self.assertEqual(p.returncode, 0, p.stderr)
        res = Result(json.loads(p.stdout))
        self.assertEqual(res.doc["context"]["runtime_configuration"]["executions"], 0)
        self.assertIn('The ETDump holds no execution of the selected method (no "Execute" event block); no '
                      "runtime timing is available.", res.warnings)
        self.assertEqual(res.model_metric("inference_time")["availability"], "unavailable")
        self.assertTrue(any(e.startswith("source_operator/decode/") for e in res.entities))

    def test_unknown_method_lists_the_recorded_ones(self):
        p, _ = self.run_check("--neural-technology-profiling-data.etrecord-method", "encode")
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {self.etrecord}: method 'encode' is not recorded in the "
                                   "ETRecord; recorded methods: forward, decode\n")


if __name__ == "__main__":
    unittest.main()
