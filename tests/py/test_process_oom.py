"""Failed allocations anywhere in the process (issue 30 item 1,
docs/hardening.md "Process-wide sweep").

`mlia check` used to die with SIGSEGV inside OpenSSL when one of the
allocations of its first EVP_Digest failed (48 of the run's failure points):
the digests now come from nettle, whose SHA-256 allocates nothing. These
tests load tests/oom/shim.c (compiled here) with LD_PRELOAD into the plain
`mlia` and fail the process's Nth allocation at a sample of N on a small
check and an inspect of an ETRecord; each run must end with the unarmed
run's exact output or with one error line, never a signal or another output.
`make oom-sweep` does every N on five runs (tests/oom/process_sweep.py).
Skipped in the sanitizer and coverage builds, whose runtimes own malloc or
allocate at exit.
"""
import os
import subprocess
import sys
import tempfile
import unittest

from helpers import MLIA, ROOT

sys.path.insert(0, os.path.join(ROOT, "tests", "oom"))
import process_sweep  # noqa: E402

LIB = os.environ.get("MLIA_LIB", os.path.join(os.path.dirname(MLIA), "libmlia.so"))
INSTRUMENTED = bool(os.environ.get("MLIA_SAN")) or bool(os.environ.get("MLIA_COVERAGE"))


@unittest.skipIf(INSTRUMENTED, "the sanitizer or coverage runtime owns malloc or allocates at exit")
class ProcessWideAllocationFailures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="mlia-process-oom-")
        work = cls.tmp.name
        shim = os.path.join(work, "oom_shim.so")
        subprocess.run(["cc", "-std=c17", "-D_GNU_SOURCE", "-O2", "-fPIC", "-shared", "-o", shim,
                        os.path.join(ROOT, "tests", "oom", "shim.c")], check=True)
        process_sweep.MLIA = MLIA
        process_sweep.SHIM = shim
        cls.runs = process_sweep.make_runs(work)
        cls.work = work

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def sweep(self, name, step):
        args, writes = self.runs[name]
        folder = tempfile.mkdtemp(dir=self.work)
        expected = process_sweep.run_once(args, folder, 0)
        self.assertEqual(expected[0], 0, expected[2])
        count, outcomes = expected[4], set()
        self.assertGreater(count, 100)
        bad = []
        for n in range(1, count + 1, step):
            got = process_sweep.run_once(args, folder, n)
            why = process_sweep.judge(name, n, writes, expected, got) or (
                process_sweep.leftovers(folder) and "left a temporary folder")
            if why:
                bad.append(f"N={n}: {why}")
            outcomes.add("ok" if got[0] == 0 else "error")
        self.assertEqual(bad, [])
        self.assertEqual(outcomes, {"ok", "error"})

    def test_check_survives_failed_allocations_in_any_library(self):
        # the OpenSSL crash was at N ~ 320-370 of ~6,000 (its first use allocated
        # ~5,500 times); the whole run now makes ~550 allocations
        self.sweep("check", 3)

    def test_inspect_etrecord_reports_libzip_out_of_memory(self):
        # libzip's "Malloc failure" used to become a per-method program_error
        # in the inspect JSON (exit 0, another output)
        self.sweep("inspect-etrecord", 2)

    def test_no_openssl_in_the_library(self):
        syms = subprocess.run(["nm", "-D", "--undefined-only", LIB], capture_output=True, text=True,
                              check=True).stdout
        self.assertNotIn("EVP_", syms)
        self.assertNotIn(" SHA256", syms)
        self.assertIn("nettle_sha256_digest", syms)


if __name__ == "__main__":
    unittest.main()
