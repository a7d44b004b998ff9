"""tests/run.sh sums skipped tests up (issue 19, 10): on a clone without the
real fixtures, one line per reason with its count instead of one line per
test; the closing "N passed, N failed, N skipped" line that CI reads is
unchanged."""
import os
import stat
import subprocess
import tempfile
import unittest

from helpers import ROOT

FAKE_TEST = """#!/bin/sh
echo "SKIP read_lenet: fixture executorch/lenet.etdp is absent (looked in /nowhere)"
echo "SKIP decode_lenet: fixture executorch/lenet.etdp is absent (looked in /nowhere)"
echo "SKIP read_vgf: fixture vgf/vww4.vgf is absent (looked in /nowhere)"
echo "PASS other"
echo "1 passed, 0 failed, 3 skipped"
"""


class RunSummary(unittest.TestCase):
    def run_suite(self, **env):
        with tempfile.TemporaryDirectory(prefix="mlia-run-") as build:
            os.makedirs(os.path.join(build, "tests", "report"))
            for name in ("test_a", "report/test_b"):
                path = os.path.join(build, "tests", name)
                with open(path, "w") as f:
                    f.write(FAKE_TEST)
                os.chmod(path, stat.S_IRWXU)
            e = dict(os.environ, ONLY="unit", BUILD=build, **env)
            e.pop("MLIA_REQUIRE_FIXTURES", None)
            p = subprocess.run(["bash", os.path.join(ROOT, "tests", "run.sh")], cwd=ROOT, env=e,
                               capture_output=True, text=True)
        return p

    def test_one_line_per_reason(self):
        p = self.run_suite()
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout.splitlines(), [
            "test_b: 1 passed, 0 failed, 3 skipped",
            "test_a: 1 passed, 0 failed, 3 skipped",
            "SKIP 4 tests: fixture executorch/lenet.etdp is absent (looked in /nowhere)",
            "SKIP 2 tests: fixture vgf/vww4.vgf is absent (looked in /nowhere)",
            "2 passed, 0 failed, 6 skipped"])

    def test_detail_on_request(self):
        p = self.run_suite(SKIP_DETAIL="1")
        self.assertEqual(sum(1 for line in p.stdout.splitlines() if line.startswith("SKIP ")), 6)
        self.assertEqual(p.stdout.splitlines()[-1], "2 passed, 0 failed, 6 skipped")


if __name__ == "__main__":
    unittest.main()
