"""The NXP Neutron backend (issue 31; docs/delegates.md, "NXP Neutron") on a capture the
fixture builder writes from tests/data/delegates/neutron.json: one NeutronBackend delegate
call over a two-layer MLP, three executions, three delegate events per execution with
integer ids 0, 1 and 2 (2 = the final "Profiling dump"), one-byte metadata (function codes
0x11 = 17, 0x07 = 7, 0x00 = the dump) and times on the Neutron profiling timer, a clock of
its own; the delegate map {"0": [1], "1": [2, 3]} (debug handles 1, 2, 3 = fc1, relu, fc2).

Expected values, by hand from the description (Neutron timer ticks, reported in cycles):
- id 0: 1600 - 1000 = 600; execution 2 wraps the 32-bit timer: start 2^32 - 296, end 304,
  (304 - (2^32 - 296)) mod 2^32 = 600; 5700 - 5000 = 700 -> P50 600, min 600, max 700;
- id 1: 400, 450, 350 -> P50 400, min 350, max 450;
- id 2: the dump (last event, function code 0): no duration, not an operator.
"""
import json
import os
import unittest

import helpers

from helpers import ROOT, run_mlia

DESC = os.path.join(ROOT, "tests", "data", "delegates", "neutron.json")
CALL = "delegate_call/forward/0/0"
K0 = "runtime_event/forward/0/0/0"
K1 = "runtime_event/forward/0/0/1"
DUMP = "runtime_event/forward/0/0/2"


class Neutron(helpers.DelegateCapture):
    DESC = DESC

    def test_runs(self):
        self.assertEqual(self.p.returncode, 0, self.p.stderr)

    def test_integer_ids_are_entities_under_the_call(self):
        for eid, name in ((K0, "0"), (K1, "1"), (DUMP, "2")):
            e = self.res.entities[eid]
            self.assertEqual(e["name"], name)
            self.assertEqual(e["parent_ids"], [CALL])

    def test_cycles_with_the_wrap_undone_never_ms(self):
        for eid, (p50, lo, hi) in ((K0, (600, 600, 700)), (K1, (400, 350, 450))):
            for stat, want in (("p50", p50), ("min", lo), ("max", hi)):
                m = self.res.m(eid, "execution_cycles", stat)
                self.assertEqual(m["unit"], "cycles")
                self.assertEqual(m["value"], want, (eid, stat))
            # no time was made of the timer's ticks
            self.assertNotIn("ms", {m["unit"] for m in self.res.breakdowns[eid]})

    def test_kernel_code_and_exact_delegate_map(self):
        a0, a1 = self.res.entities[K0]["attributes"], self.res.entities[K1]["attributes"]
        self.assertEqual((a0["kernel_function_code"], a0["kernel"]), (17, "Neutron kernel 17"))
        self.assertEqual(a1["kernel_function_code"], 7)
        self.assertEqual(self.res.entities[K0]["child_ids"], ["source_operator/forward/aten_linear_default"])
        self.assertEqual(self.res.entities[K1]["child_ids"], ["source_operator/forward/aten_relu_default",
                                                              "source_operator/forward/aten_linear_default_1"])
        self.assertEqual(a0["source_mapping"], "delegate map")

    def test_dump_is_named_and_warned(self):
        a = self.res.entities[DUMP]["attributes"]
        self.assertEqual(a["event"], "Profiling dump")
        self.assertNotIn("kernel_function_code", a)
        self.assertIn('Neutron: the final "Profiling dump" event of 1 delegate call(s) mixes two clocks (its end '
                      "adds CPU ticks to the Neutron timer): it is not an operator and its duration is not "
                      "reported.", self.res.warnings)
        self.assertIn("Neutron: 1 kernel event(s) span a wrap of the 32-bit Neutron timer (end below start); their "
                      "durations are (end - start) mod 2^32.", self.res.warnings)

    def test_console_lists_kernels_in_cycles(self):
        self.assertIn("Top NeutronBackend operators by P50 execution cycles (2 of 2 measured)", self.p.stdout)
        rows = [line.split() for line in self.p.stdout.splitlines() if line.startswith(("  1  0 ", "  2  1 "))]
        self.assertEqual([r[2:5] for r in rows], [["600", "600", "700"], ["400", "350", "450"]])

    def test_inspect_decodes_the_events(self):
        p = run_mlia("inspect", self.files["etdump"])
        self.assertEqual(p.returncode, 0, p.stderr)
        ev = json.loads(p.stdout)["neutron_events"]
        # runs 1..3 are the executions (run 0 is the Default block); 3 events each
        self.assertEqual([(e["run"], e["id"], e["function_code"]) for e in ev[:3]], [(1, 0, 17), (1, 1, 7), (1, 2, 0)])
        wrapped = [e for e in ev if e["timer_wrapped"]]
        self.assertEqual([(e["run"], e["id"], e["timer_duration"]) for e in wrapped], [(2, 0, 600)])


if __name__ == "__main__":
    unittest.main()
