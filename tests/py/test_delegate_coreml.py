"""The Apple CoreML backend (issue 31; docs/delegates.md, "Apple CoreML") on a capture the
fixture builder writes from tests/data/delegates/coreml.json: one CoreMLBackend delegate
call over a two-layer MLP, three executions, four delegate events per execution named
"<output>:<operator>" (logged out of order, as CoreML iterates a dictionary), absolute ns
from 5e9, each with CoreML's JSON metadata; the delegate map debugSymbolToHandles
{"linear_0:linear": [1], "relu_0:relu": [2], "linear_1:linear": [3]}; "cast_0:cast" is an
operation CoreML inserted itself (not in the map).

Expected values, by hand (ns, 1 ms = 1e6 ns):
- linear_0:linear: 60,000 / 60,000 / 63,000 ns -> P50 0.06 ms, min 0.06, max 0.063;
- relu_0:relu: 20,000 / 21,000 / 19,000 -> P50 0.02, min 0.019, max 0.021;
- linear_1:linear: 100,000 / 105,000 / 95,000 -> P50 0.1, min 0.095, max 0.105;
- metadata: relu preferred NE (the Neural Engine), estimated cost 0.1; linear_1 CPU, 0.5.
"""
import json
import os
import unittest

import helpers

from helpers import ROOT, run_mlia

DESC = os.path.join(ROOT, "tests", "data", "delegates", "coreml.json")
CALL = "delegate_call/forward/0/0"
EV = "runtime_event/forward/0/0/"


class CoreML(helpers.DelegateCapture):
    DESC = DESC

    def test_runs(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_p50_min_max_by_hand(self):
        for name, (p50, lo, hi) in (("linear_0:linear", (0.06, 0.06, 0.063)), ("relu_0:relu", (0.02, 0.019, 0.021)),
                                    ("linear_1:linear", (0.1, 0.095, 0.105))):
            self.assertEqual(self.res.entities[EV + name]["parent_ids"], [CALL])
            for stat, want in (("p50", p50), ("min", lo), ("max", hi)):
                m = self.res.m(EV + name, "execution_time", stat)
                self.assertEqual(m["unit"], "ms")
                self.assertAlmostEqual(m["value"], want, places=9, msg=(name, stat))

    def test_metadata_decoded_into_attributes(self):
        a = self.res.entities[EV + "relu_0:relu"]["attributes"]
        self.assertEqual(a["preferred_compute_unit"], "Neural Engine")
        self.assertEqual(a["supported_compute_units"], ["CPU", "GPU", "Neural Engine"])
        self.assertEqual(a["estimated_cost"], 0.1)
        self.assertEqual(a["operator_type"], "relu")
        b = self.res.entities[EV + "linear_1:linear"]["attributes"]
        self.assertEqual((b["preferred_compute_unit"], b["estimated_cost"]), ("CPU", 0.5))

    def test_exact_map_never_by_prefix(self):
        self.assertEqual(self.res.entities[EV + "linear_0:linear"]["child_ids"],
                         ["source_operator/forward/aten_linear_default"])
        cast = self.res.entities[EV + "cast_0:cast"]
        self.assertNotIn("child_ids", cast)
        self.assertEqual(cast["attributes"]["source_mapping"], "not in the delegate map")

    def test_warning_says_coreml_estimated(self):
        self.assertIn("CoreML: the 4 operator time(s) are estimated, not measured: CoreML splits the model's "
                      "measured time by each operation's estimatedCost from the compiler's cost model.",
                      self.res.warnings)

    def test_console_lists_the_operators(self):
        self.assertIn("Top CoreMLBackend operators by P50 execution time (4 of 4 measured)", self.p.stdout)

    def test_inspect_shows_the_events(self):
        p = run_mlia("inspect", self.files["etdump"])
        self.assertEqual(p.returncode, 0, p.stderr)
        ids = [e["delegate_debug_id_str"] for r in json.loads(p.stdout)["runs"] for e in r["events"]
               if e.get("delegate_debug_id_str")]
        self.assertEqual(ids[:4], ["relu_0:relu", "linear_0:linear", "linear_1:linear", "cast_0:cast"])
        ev = json.loads(p.stdout)["coreml_events"]
        self.assertEqual(len(ev), 12)  # 4 operators x 3 executions
        self.assertEqual(ev[0], {"run": 1, "instruction_id": 0, "id": "relu_0:relu", "operator": "relu",
                                 "preferred_compute_unit": "Neural Engine", "estimated_cost": 0.1,
                                 "estimated_duration_ns": 20000})


if __name__ == "__main__":
    unittest.main()
