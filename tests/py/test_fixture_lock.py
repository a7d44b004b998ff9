"""The real-fixture contract (tests/fixtures.lock, issue 10): the list is
well formed and matches the fixtures when they are present; an absent
fixture skips with the reason in the C harness (tests/test.h) and in the
Python helpers; a wrong one fails; MLIA_REQUIRE_FIXTURES=1 turns a skip into
a failure; tests/run.sh adds the skips to its closing line."""
import hashlib
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

from helpers import BUILD, FIXTURES, ROOT, fixture, fixture_lock

LEGACY = "executorch/legacy-mul.etrecord.bin"   # the one real fixture test_etrecord uses
C_BINARY = os.path.join(ROOT, BUILD, "tests", "formats", "test_etrecord")


def env_with(**kv):
    env = {k: v for k, v in os.environ.items() if k not in ("MLIA_FIXTURES", "MLIA_REQUIRE_FIXTURES")}
    env.update(kv)
    return env


class LockFile(unittest.TestCase):
    def test_entries_are_well_formed(self):
        lock = fixture_lock()
        self.assertGreaterEqual(len(lock), 15)
        for rel, (sha, size, origin) in lock.items():
            self.assertRegex(sha, r"^[0-9a-f]{64}$", rel)
            self.assertGreater(size, 0, rel)
            self.assertRegex(rel, r"^(executorch|vgf)/[\w.-]+$")
            self.assertTrue(origin.startswith("https://github.com/"), rel)

    def test_present_fixtures_match_the_list(self):
        lock = fixture_lock()
        for rel, (sha, size, _origin) in sorted(lock.items()):
            path = fixture(rel)          # skips when absent, fails when the hash differs
            with open(path, "rb") as f:
                data = f.read()
            self.assertEqual((len(data), hashlib.sha256(data).hexdigest()), (size, sha), rel)
        listed = set(lock)
        for d, _dirs, names in os.walk(FIXTURES):
            for n in names:
                rel = os.path.relpath(os.path.join(d, n), FIXTURES)
                if rel != "SOURCES.md":
                    self.assertIn(rel, listed, f"{rel} is in the fixtures directory but not in tests/fixtures.lock")


class PythonHelpers(unittest.TestCase):
    """helpers.fixture() in a fresh interpreter with MLIA_FIXTURES set."""

    def outcome(self, fixtures_dir, require=False):
        code = ("import sys, unittest; sys.path.insert(0, sys.argv[1]); import helpers\n"
                "try:\n    helpers.fixture(sys.argv[2]); print('ok')\n"
                "except unittest.SkipTest as e:\n    print('skip', e)\n"
                "except helpers.FixtureError as e:\n    print('fail', e)\n")
        env = env_with(MLIA_FIXTURES=fixtures_dir, **({"MLIA_REQUIRE_FIXTURES": "1"} if require else {}))
        p = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "tests", "py"), LEGACY],
                           capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        return p.stdout.strip()

    def test_absent_wrong_and_required(self):
        with tempfile.TemporaryDirectory() as d:
            out = self.outcome(d)
            self.assertEqual(out, f"skip fixture {LEGACY} is absent (looked in {d}/{LEGACY}; set MLIA_FIXTURES, "
                                  "see tests/fixtures.lock)")
            self.assertTrue(self.outcome(d, require=True).startswith("fail fixture "))
            os.makedirs(os.path.join(d, "executorch"))
            with open(os.path.join(d, LEGACY), "wb") as f:
                f.write(b"not the real file")
            out = self.outcome(d)
            self.assertTrue(out.startswith(f"fail fixture {d}/{LEGACY} has SHA-256 "
                                           f"{hashlib.sha256(b'not the real file').hexdigest()}"), out)


@unittest.skipUnless(os.path.exists(C_BINARY), f"{C_BINARY} is not built (run make)")
class CHarness(unittest.TestCase):
    """tests/test.h through a real test binary."""

    def run_binary(self, fixtures_dir, require=False):
        env = env_with(MLIA_FIXTURES=fixtures_dir, **({"MLIA_REQUIRE_FIXTURES": "1"} if require else {}))
        p = subprocess.run([C_BINARY], capture_output=True, text=True, env=env)
        summary = p.stdout.strip().splitlines()[-1]
        return p.returncode, p.stdout, summary

    def test_absent_is_skipped_with_reason(self):
        with tempfile.TemporaryDirectory() as d:
            rc, out, summary = self.run_binary(d)
            self.assertEqual(rc, 0, out)
            self.assertIn(f"SKIP legacy_fixture: fixture {LEGACY} is absent (looked in {d}/{LEGACY}", out)
            self.assertRegex(summary, r"^[1-9]\d* passed, 0 failed, 1 skipped$")
            self.assertNotIn("FAIL", out)
            rc, out, summary = self.run_binary(d, require=True)
            self.assertEqual(rc, 1)
            self.assertRegex(out, rf"FAIL legacy_fixture: .*fixture {re.escape(LEGACY)} is absent .*"
                                  r"\(MLIA_REQUIRE_FIXTURES=1\)")
            self.assertRegex(summary, r"^\d+ passed, 1 failed, 0 skipped$")

    def test_wrong_hash_fails(self):
        with tempfile.TemporaryDirectory() as d:
            os.makedirs(os.path.join(d, "executorch"))
            with open(os.path.join(d, LEGACY), "wb") as f:
                f.write(b"PK\x05\x06" + bytes(18))    # an empty ZIP: readable, but not the listed file
            rc, out, summary = self.run_binary(d)
            self.assertEqual(rc, 1)
            self.assertIn(f"has SHA-256 {hashlib.sha256(b'PK' + bytes([5, 6]) + bytes(18)).hexdigest()}, "
                          f"tests/fixtures.lock says {fixture_lock()[LEGACY][0]}", out)
            self.assertRegex(summary, r"^\d+ passed, 1 failed, 0 skipped$")


class RunScript(unittest.TestCase):
    """tests/run.sh adds passes, failures and skips of the C binaries."""

    def run_sh(self, require=False):
        tmp = tempfile.mkdtemp(prefix="mlia-runsh-")
        self.addCleanup(shutil.rmtree, tmp, True)
        tests = os.path.join(tmp, "tests", "x")
        os.makedirs(tests)
        for name, body in (("test_a", "echo 'PASS a'; echo 'SKIP b: fixture gone'; echo '1 passed, 0 failed, 1 skipped'"),
                           ("test_b", "echo '2 passed, 0 failed'")):   # the older two-count form
            path = os.path.join(tests, name)
            with open(path, "w") as f:
                f.write(f"#!/bin/sh\n{body}\n")
            os.chmod(path, os.stat(path).st_mode | stat.S_IXUSR)
        env = env_with(BUILD=tmp, ONLY="unit", **({"MLIA_REQUIRE_FIXTURES": "1"} if require else {}))
        p = subprocess.run(["bash", os.path.join(ROOT, "tests", "run.sh")], capture_output=True, text=True,
                           env=env, cwd=ROOT)
        return p.returncode, p.stdout

    def test_skips_are_counted_on_the_closing_line(self):
        rc, out = self.run_sh()
        self.assertEqual(rc, 0, out)
        self.assertIn("SKIP 1 test: fixture gone\n", out)  # summarised by reason (issue 19, 10)
        self.assertEqual(out.splitlines()[-1], "3 passed, 0 failed, 1 skipped")

    def test_required_fixtures_turn_skips_into_failures(self):
        rc, out = self.run_sh(require=True)
        self.assertEqual(rc, 1, out)
        self.assertEqual(out.splitlines()[-1], "3 passed, 1 failed, 0 skipped")


if __name__ == "__main__":
    unittest.main()
