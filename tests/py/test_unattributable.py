"""Captures that cannot be attributed are said so (issue 21 item 4): a legacy
ETRecord without debug maps with another program's ETDump (the real LeNet
capture) used to report status ok, 0 operators and no warning about the 14
calls it could not attribute. Now a warning names them (src/analysis/
runtime.c); an ETRecord whose maps fit no execution stays an error
(test_hardening.py, "Mismatched inputs")."""
import json
import unittest

from helpers import check_args, fixture, need_binary, run_mlia


class Unattributable(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)

    def test_no_maps_other_program_warns(self):
        etrecord = fixture("executorch/legacy-mul.etrecord.bin")
        etdump = fixture("executorch/lenet.etdp")
        p = run_mlia(*check_args(etrecord, etdump, "--json"))
        self.assertEqual(p.returncode, 0, p.stderr)
        result = json.loads(p.stdout)["results"][0]
        self.assertIn("None of the 14 operator and delegate call(s) in the ETDump could be attributed to an "
                      "operator of method 'forward' (the ETRecord has no debug maps for it); the ETDump may "
                      "have been recorded from another program.", result["warnings"])
        self.assertEqual(result.get("breakdowns", []), [])


if __name__ == "__main__":
    unittest.main()
