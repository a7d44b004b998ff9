"""The Vulkan backend (issue 31; docs/delegates.md, "Vulkan") on a capture the fixture
builder writes from tests/data/delegates/vulkan.json: one VulkanBackend delegate call over
a two-layer MLP (fc1 linear, relu, fc2 linear; handles 1, 2, 3), three executions. Inside
the call, as the Vulkan backend logs them: the ETVK_* scopes on the CPU clock
(ETVK_COPY_INPUTS 4,000 ticks, ETVK_COMPUTE_GRAPH_EXECUTE 150,000, ETVK_COPY_OUTPUTS 3,000,
ETVK_EXECUTE 185,000 around them) and five shader dispatches named by their JSON object,
with GPU timestamps in ns from 9e9 (another epoch): a staging shader without operator
(dispatch 0), two shaders of fc1 (delegate_node_id 0, dispatches 1 and 2), relu (node 1,
dispatch 3), fc2 (node 2, dispatch 4). The delegate map is the generated one,
{"0": [1], "1": [2], "2": [3]}.

Expected values, by hand (GPU ns; 1 ms = 1e6 ns):
- dispatch 1 linear_texture3d_float: 40,000 / 42,000 / 38,000 ns -> P50 0.04 ms (lower
  median), min 0.038, max 0.042;
- dispatch 2 linear_bias_add_texture3d_float: 5,000 / 6,000 / 5,000 -> P50 0.005, max 0.006;
- dispatch 3 relu_texture3d_float: 3,000 / 3,000 / 4,000 -> P50 0.003, max 0.004;
- dispatch 4 linear_texture3d_float: 20,000 / 21,000 / 19,000 -> P50 0.02;
- dispatch 0 nchw_to_image_texture3d_float: 2,000 each -> 0.002, no source operator;
- with --ticks-per-second 2e9 the CPU scopes halve (ETVK_EXECUTE 185,000 ticks = 0.0925 ms)
  and the GPU dispatches do not move.
"""
import json
import os
import unittest

import helpers

from helpers import ROOT, check_args, run_mlia

DESC = os.path.join(ROOT, "tests", "data", "delegates", "vulkan.json")
CALL = "delegate_call/forward/0/0"
SO = "source_operator/forward/"


def dispatch_ids(res):
    """dispatch_id -> entity id, from the decoded attributes."""
    return {e["attributes"]["dispatch_id"]: eid for eid, e in res.entities.items()
            if e.get("attributes", {}).get("backend") == "VulkanBackend" and "dispatch_id" in e["attributes"]}


class Vulkan(helpers.DelegateCapture):
    DESC = DESC
    EXTRA = ("--csv-tables", "all", "--trace", "--trace-format", "json")

    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        out2 = os.path.join(cls.tmp, "out2")
        cls.p2 = run_mlia(*check_args(cls.files["etrecord"], cls.files["etdump"], "--output-dir", out2,
                                      "--ticks-per-second", "2e9", "--trace", "--trace-format", "json"))
        with open(os.path.join(out2, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
            cls.res2 = helpers.Result(json.load(f))
        cls.trace = cls.slices(os.path.join(cls.base, "trace.json"))
        cls.trace2 = cls.slices(os.path.join(out2, "mlia-output", "trace.json"))

    @staticmethod
    def slices(path):
        """The first execution's complete slices (tid 1), by name."""
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        evs = doc["traceEvents"] if isinstance(doc, dict) else doc
        return {e["name"]: e for e in evs if e.get("ph") == "X" and e.get("tid") == 1}

    def test_runs(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)
        self.assertEqual(self.p2.returncode, 0, self.p2.stderr)

    def test_each_dispatch_is_an_entity_named_by_its_shader(self):
        ids = dispatch_ids(self.res)
        self.assertEqual(sorted(ids), [0, 1, 2, 3, 4])
        names = {d: self.res.entities[ids[d]]["name"] for d in ids}
        self.assertEqual(names, {0: "nchw_to_image_texture3d_float (dispatch 0)",
                                 1: "linear_texture3d_float (dispatch 1)",
                                 2: "linear_bias_add_texture3d_float (dispatch 2)",
                                 3: "relu_texture3d_float (dispatch 3)",
                                 4: "linear_texture3d_float (dispatch 4)"})
        for d, eid in ids.items():
            e = self.res.entities[eid]
            self.assertEqual(e["kind"], "runtime_event")
            self.assertEqual(e["parent_ids"], [CALL])
            self.assertIn(e["attributes"]["kernel_name"], e["name"])

    def test_gpu_nanoseconds_hand_derived(self):
        ids = dispatch_ids(self.res)
        want = {1: (0.04, 0.038, 0.042), 2: (0.005, 0.005, 0.006), 3: (0.003, 0.003, 0.004),
                4: (0.02, 0.019, 0.021), 0: (0.002, 0.002, 0.002)}
        for d, vals in want.items():
            got = tuple(self.res.m(ids[d], "execution_time", s)["value"] for s in ("p50", "min", "max"))
            for g, w in zip(got, vals):
                self.assertAlmostEqual(g, w, places=12, msg=d)
            m = self.res.m(ids[d], "execution_time", "p50")
            self.assertEqual((m["unit"], m["qualifiers"].get("clock")), ("ms", "backend"))

    def test_gpu_time_is_never_scaled_by_the_cpu_tick_rate(self):
        ids, ids2 = dispatch_ids(self.res), dispatch_ids(self.res2)
        for d in ids:
            self.assertEqual(self.res.m(ids[d], "execution_time", "p50")["value"],
                             self.res2.m(ids2[d], "execution_time", "p50")["value"])
        scope = "runtime_event/forward/0/0/ETVK_EXECUTE"
        self.assertAlmostEqual(self.res.m(scope, "execution_time", "p50")["value"], 0.185, places=12)
        self.assertAlmostEqual(self.res2.m(scope, "execution_time", "p50")["value"], 0.0925, places=12)

    def test_cpu_scopes_nest_on_the_call_clock(self):
        ex = self.res.entities["runtime_event/forward/0/0/ETVK_EXECUTE"]
        self.assertEqual(ex["attributes"]["role"], "scope")
        self.assertEqual(sorted(ex["child_ids"]), sorted("runtime_event/forward/0/0/" + n for n in
                                                         ("ETVK_COPY_INPUTS", "ETVK_COMPUTE_GRAPH_EXECUTE",
                                                          "ETVK_COPY_OUTPUTS")))

    def test_mapping_by_delegate_node_id_exactly(self):
        ids = dispatch_ids(self.res)
        want = {1: SO + "aten_linear_default", 2: SO + "aten_linear_default", 3: SO + "aten_relu_default",
                4: SO + "aten_linear_default_1"}
        for d, so in want.items():
            e = self.res.entities[ids[d]]
            self.assertEqual(e["child_ids"], [so], d)
            self.assertEqual(e["attributes"]["source_mapping"], "delegate map")
            self.assertEqual(e["attributes"]["delegate_node_id"], {1: 0, 2: 0, 3: 1, 4: 2}[d])
        staging = self.res.entities[ids[0]]
        self.assertNotIn("child_ids", staging)
        self.assertEqual((staging["attributes"]["role"], staging["attributes"]["source_mapping"]),
                         ("staging or copy shader", "none"))

    def test_json_name_fields_are_attributes(self):
        e = self.res.entities[dispatch_ids(self.res)[1]]["attributes"]
        self.assertEqual((e["operator"], e["operator_id"], e["operator_args"], e["kernel_name"]),
                         ("aten.linear.default", 1, 3, "linear_texture3d_float"))

    def test_warnings_tell_the_truth(self):
        w = self.res.warnings
        self.assertIn("Vulkan: the 5 shader dispatch time(s) are GPU timestamps in ns on the GPU's own clock: "
                      "reported as execution_time with qualifier clock=backend, never scaled by "
                      "--ticks-per-second and never added to the CPU times of the delegate call.", w)
        self.assertIn("Vulkan: 1 shader dispatch(es) have no operator (staging or copy shaders): no source "
                      "operator.", w)
        self.assertFalse(any("delegate_node_id is not a key" in x for x in w))

    def test_trace_rebases_gpu_time_into_the_compute_scope(self):
        # the dispatches are slices named by their shader, on the GPU's own spacing
        # (dispatch 1 starts 3,000 ns after dispatch 0), inside ETVK_COMPUTE_GRAPH_EXECUTE,
        # which ran them: it starts 6,000 ticks = 6 us after the call
        for trace, scale in ((self.trace, 1.0), (self.trace2, 0.5)):
            graph = trace["ETVK_COMPUTE_GRAPH_EXECUTE"]
            d0, d1 = trace["nchw_to_image_texture3d_float (dispatch 0)"], trace["linear_texture3d_float (dispatch 1)"]
            self.assertAlmostEqual(graph["dur"], 150 * scale, places=6)
            self.assertAlmostEqual(d0["ts"], graph["ts"], places=6)
            self.assertAlmostEqual(d1["ts"] - d0["ts"], 3.0, places=6)
            # GPU ns are never scaled by the CPU tick rate: 40,000 ns = 40 us at both rates
            self.assertAlmostEqual(d1["dur"], 40.0, places=6)
            d4 = trace["linear_texture3d_float (dispatch 4)"]
            if scale == 1.0:  # at the capture's own rate the dispatches end inside the scope that ran them
                self.assertLessEqual(d4["ts"] + d4["dur"], graph["ts"] + graph["dur"] + 1e-6)
            self.assertTrue(d1["args"]["entity_id"].startswith("runtime_event/forward/0/0/{"))
        self.assertFalse(any(n.startswith("{") for n in self.trace), "no slice is named by its JSON")

    def test_csv_rows_in_gpu_time(self):
        ids = dispatch_ids(self.res)
        with open(os.path.join(self.base, "csv", "executions.csv"), encoding="utf-8") as f:
            rows = [l for l in f.read().splitlines() if '"' in l or "ETVK" in l]
        import csv as csvmod
        parsed = list(csvmod.reader(rows))
        d1 = [r for r in parsed if r[3] == ids[1]]
        # 40,000 / 42,000 / 38,000 GPU ns per execution, as ms
        self.assertEqual([(r[1], r[4], r[5], r[6]) for r in d1],
                         [("1", "execution_time", "0.04", "ms"), ("2", "execution_time", "0.042", "ms"),
                          ("3", "execution_time", "0.038", "ms")])

    def test_inspect_decodes_the_dispatches(self):
        p = run_mlia("inspect", self.files["etdump"])
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = json.loads(p.stdout)["vulkan_dispatches"]
        self.assertEqual(len(rows), 15)  # 5 dispatches x 3 executions
        first = [r for r in rows if r["run"] == rows[0]["run"]]
        self.assertEqual([(r["kernel_name"], r["dispatch_id"], r.get("delegate_node_id"), r["gpu_duration_ns"])
                          for r in first],
                         [("nchw_to_image_texture3d_float", 0, None, 2000), ("linear_texture3d_float", 1, 0, 40000),
                          ("linear_bias_add_texture3d_float", 2, 0, 5000), ("relu_texture3d_float", 3, 1, 3000),
                          ("linear_texture3d_float", 4, 2, 20000)])

    def test_console_lists_the_dispatches_by_shader(self):
        self.assertIn("Top VulkanBackend operators by P50 execution time (9 of 9 measured)", self.p.stdout)
        self.assertIn("linear_texture3d_float (dispatch 1)", self.p.stdout)


if __name__ == "__main__":
    unittest.main()
