"""Captures that cannot be attributed are said so (issue 21 item 4): a legacy
ETRecord without debug maps with another program's ETDump (the real LeNet
capture) used to report status ok, 0 operators and no warning about the 14
calls it could not attribute. Now a warning names them (src/analysis/
runtime.c); an ETRecord whose maps fit no execution stays an error
(test_hardening.py, "Mismatched inputs"). Issue 28 item 5: such a run is not ok:
its status is "incompatible" and `mlia check` exits 1 with the explanation (the
outputs are still written)."""
import os
import tempfile
import json
import unittest

from helpers import check_args, fixture, need_binary, run_mlia


class Unattributable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)

    WHY = ("None of the 14 operator and delegate call(s) in the ETDump could be attributed to an "
           "operator of method 'forward' (the ETRecord has no debug maps for it); the ETDump may "
           "have been recorded from another program.")

    def test_no_maps_other_program_is_incompatible(self):
        etrecord = fixture("executorch/legacy-mul.etrecord.bin")
        etdump = fixture("executorch/lenet.etdp")
        out = tempfile.mkdtemp(prefix="mlia-unattributable-")
        p = run_mlia(*check_args(etrecord, etdump, "--json", "--output-dir", out))
        error = f"mlia: error: {etdump}: {self.WHY} (status incompatible; the outputs were written)\n"
        self.assertEqual((p.returncode, p.stderr), (1, error))
        result = json.loads(p.stdout)["results"][0]
        self.assertEqual(result["status"], "incompatible")
        self.assertIn(self.WHY, result["warnings"])
        self.assertEqual(result.get("breakdowns", []), [])
        with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f)["results"][0]["status"], "incompatible")
        # the console says so instead of "ok (every measurement covers every execution)"
        p = run_mlia(*check_args(etrecord, etdump, "--output-dir", out))
        self.assertEqual((p.returncode, p.stderr), (1, error))
        self.assertIn("\nStatus:              incompatible (no measurement could be attributed to the program: "
                      "the ETDump\n                     does not fit the ETRecord; see Warnings)\n", p.stdout)
        self.assertNotIn("ok (every measurement", p.stdout)
        p = run_mlia(*check_args(etrecord, etdump, "--output-dir", out, "-q"))
        self.assertEqual((p.returncode, p.stdout, p.stderr), (1, "", error))


if __name__ == "__main__":
    unittest.main()
