"""End to end: the real LeNet ETDump (lenet.etdp) with an ETRecord built for the LeNet
program (samples/lenet.json: 14 instructions, handles as ExecuTorch assigns them)."""
import json
import os
import tempfile
import unittest

from helpers import (ROOT, Result, build_fixture, check_args, fixture, need_binary, run_mlia)

METHOD = "forward"


def sid(node):
    return f"source_operator/{METHOD}/{node}"


class LenetEndToEnd(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-lenet-")
        paths = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), cls.tmp)
        cls.etrecord = paths["etrecord"]
        cls.etdump = fixture("executorch/lenet.etdp")
        p = run_mlia(*check_args(cls.etrecord, cls.etdump, "--output-dir", cls.tmp, "--json"))
        cls.proc = p
        if p.returncode != 0:
            raise AssertionError(f"mlia check failed: {p.returncode} {p.stderr}")
        cls.res = Result(json.loads(p.stdout))
        with open(os.path.join(cls.tmp, "mlia-output", "mlia-output.json")) as f:
            cls.file_doc = json.load(f)

    def test_stdout_json_equals_file(self):
        self.assertEqual(self.res.doc, self.file_doc)

    def test_second_convolution(self):
        e = sid("aten_convolution_default_1")
        self.assertEqual(self.res.m(e, "execution_time", "p50")["value"], 1.03223)
        self.assertEqual(self.res.m(e, "execution_time", "min")["value"], 1.03223)
        self.assertEqual(self.res.m(e, "execution_time", "max")["value"], 1.03223)
        self.assertEqual(self.res.m(e, "kernel_time", "p50")["value"], 1.031719)
        m = self.res.m(e, "execution_time", "p50")
        self.assertEqual(m["qualifiers"]["attribution"], "exclusive")
        self.assertEqual(m["aggregation"], "p50")
        self.assertEqual(m["samples"], 1)
        self.assertEqual(m["unit"], "ms")
        self.assertEqual(self.res.m(e, "execution_coverage")["value"], 100.0)
        # unattributed = OPERATOR_CALL - native_call = 511 ns
        self.assertEqual(self.res.m(e, "unattributed_time", "p50")["value"], 0.000511)

    def test_first_linear_shared(self):
        for node, other in (("aten_permute_copy_default", "aten_addmm_default"),
                            ("aten_addmm_default", "aten_permute_copy_default")):
            e = sid(node)
            m = self.res.m(e, "execution_time", "p50")
            self.assertEqual(m["value"], 0.195976)
            self.assertEqual(m["qualifiers"]["attribution"], "shared")
            self.assertEqual(self.res.entities[e]["attributes"]["shared_with"], [sid(other)])
            self.assertEqual(self.res.m(e, "kernel_time", "p50")["value"], 0.194463)

    def test_view_copy_has_no_timing(self):
        e = sid("aten_view_copy_default")
        self.assertIn(e, self.res.entities)
        self.assertNotIn(e, self.res.breakdowns)

    def test_inference_time(self):
        m = self.res.model_metric("inference_time")
        self.assertEqual(m["value"], 1.898821)
        self.assertEqual(m["samples"], 1)
        ips = self.res.model_metric("inferences_per_second")
        self.assertAlmostEqual(ips["value"], 1000 / 1.898821, places=9)

    def test_model_metric_order_and_nx_unavailable(self):
        names = [m["name"] for m in self.res.r["metrics"]]
        # the model's timings as p50/min/max triples (issue 28 item 6), then the NX metrics
        self.assertEqual(names[:9], ["inference_time"] * 3 + ["inferences_per_second"] * 3 +
                         ["total_cycles", "compute_cycles", "target_utilization"])
        self.assertEqual([m["qualifiers"]["statistic"] for m in self.res.r["metrics"][:6]],
                         ["p50", "min", "max"] * 2)
        for n in ("total_cycles", "compute_cycles", "target_utilization"):
            m = self.res.model_metric(n)
            self.assertEqual(m["availability"], "unavailable")
            self.assertNotIn("value", m)
            self.assertEqual(m["reason"], "No VGF neural statistics were found in the ETDump.")
        self.assertIn("No VGF neural statistics were found in the ETDump.", self.res.warnings)

    def test_every_instruction_group_timed(self):
        timed = [e for e in self.res.entities if e.startswith("source_operator/") and e in self.res.breakdowns]
        # 15 nodes, the flatten view_copy has no event
        self.assertEqual(len(timed), 14)
        self.assertEqual(self.res.r["status"], "ok")

    def test_entities_and_provenance(self):
        e = self.res.entities[sid("aten_convolution_default")]
        self.assertEqual(e["kind"], "source_operator")
        self.assertEqual(e["name"], "aten.convolution.default")
        # a DAG: the nn_module and the code_stack are both parents
        self.assertEqual(e["parent_ids"][0], "nn_module/forward/conv1")
        self.assertNotIn("parent_id", e)
        self.assertEqual(e["attributes"]["debug_handle"], 1)
        cs = e["attributes"]["code_stack"]
        self.assertTrue(cs.startswith("code_stack/lenet.py:20-"), cs)
        self.assertIn(cs, e["parent_ids"])
        self.assertIn(e["id"], self.res.entities[cs]["child_ids"])
        self.assertEqual(self.res.entities[cs]["attributes"]["line"], 20)

    def test_context(self):
        rc = self.res.doc["context"]["runtime_configuration"]
        self.assertEqual(rc["etrecord_method"], "forward")
        self.assertEqual(rc["executions"], 1)
        self.assertEqual(rc["time_unit"], "ns")
        self.assertNotIn("associations", rc)  # no NX statistics: left out, never null
        self.assertEqual(rc["profiling_data"]["sha256"],
                         "e4264113eb80570032968258251262216d4321d85225e3468b3ef718578bca38")
        self.assertEqual(self.res.doc["schema_version"], "1.2.0")
        self.assertEqual(self.res.doc["tool"]["name"], "mlia")

    def test_deterministic_with_source_date_epoch(self):
        outs = []
        d = tempfile.mkdtemp(prefix="mlia-det-")
        for i in range(2):
            p = run_mlia(*check_args(self.etrecord, self.etdump, "--output-dir", d, "--quiet"),
                         env={"SOURCE_DATE_EPOCH": "1700000000"})
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(d, "mlia-output", "mlia-output.json"), "rb") as f:
                outs.append(f.read())
        self.assertEqual(outs[0], outs[1])
        doc = json.loads(outs[0])
        self.assertEqual(doc["timestamp"], "2023-11-14T22:13:20Z")

    def test_log_written(self):
        with open(os.path.join(self.tmp, "mlia-output", "logs", "mlia.log")) as f:
            log = f.read()
        self.assertIn("method: forward", log)
        self.assertIn("e4264113eb80570032968258251262216d4321d85225e3468b3ef718578bca38", log)


if __name__ == "__main__":
    unittest.main()
