"""Streaming ETDump (issue 11; issue 12 item 10): outputs are byte-identical to
the pre-streaming build on the samples, `mlia inspect` streams events with
bounded memory, and a capture truncated while it is being streamed is one
error line, not a SIGBUS.

Speed and memory figures are `make bench`'s job (docs/benchmarks.md); the
memory assertions here only use a hard address-space limit far below what the
former in-memory paths needed."""
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from helpers import MLIA, ROOT, need_binary, run_mlia

ASAN = "asan" in MLIA


def hostile():
    import mkfixture  # noqa: F401  (puts tools/ on the path)
    from fixturelib import hostile as h
    return h


class Streaming(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-streaming-")

    def test_outputs_match_the_recorded_fingerprints(self):
        # tests/golden/manifest.json was recorded with the pre-streaming build
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "golden.py"), "--mlia", MLIA],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertRegex(p.stdout, r"^golden: \d+ output files identical\n$")

    @unittest.skipIf(ASAN, "RLIMIT_AS does not combine with the sanitizer's shadow memory")
    def test_inspect_streams_aliased_events_in_bounded_memory(self):
        # 600,000 events that all alias one Event table: a 2.4 MB file whose
        # inspection is ~200 MB of JSON (the former reader also needed 62 MB
        # of event records and the whole text in memory)
        path = hostile().aliased_events_etdump(os.path.join(self.tmp, "alias.etdump"), 600_000)

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (128 << 20, 128 << 20))

        proc = subprocess.Popen([MLIA, "inspect", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                preexec_fn=limit)
        total, tail = 0, b""
        while True:
            chunk = proc.stdout.read(1 << 20)
            if not chunk:
                break
            total += len(chunk)
            tail = (tail + chunk)[-64:]
        err = proc.stderr.read().decode()
        proc.stdout.close()
        proc.stderr.close()
        self.assertEqual(proc.wait(), 0, err)
        self.assertEqual(err, "")
        self.assertGreater(total, 150_000_000)
        self.assertTrue(tail.endswith(b'      ]\n    }\n  ],\n  "neural_statistics": []\n}\n'), tail)

    def test_aliased_events_beyond_the_table_budget_are_refused(self):
        path = hostile().aliased_events_etdump(os.path.join(self.tmp, "alias5m.etdump"), 1_250_000)
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, "")
        self.assertEqual(p.stderr, f"mlia: error: {path}: table budget exhausted (too many tables) at byte "
                                   "5000068 (run_data[0].events[1125017].profile_event)\n")

    def test_truncated_while_streamed_is_one_error_line(self):
        d = os.path.join(self.tmp, "trunc")
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "mkfixture.py"), "--large", "200000",
                        "--executions", "20", d], check=True, capture_output=True)
        path = os.path.join(d, "large.etdump")
        self.assertGreater(os.path.getsize(path), 8 << 20)
        proc = subprocess.Popen([MLIA, "inspect", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        # the first bytes come after the whole file was validated; the pipe
        # then fills and the writer blocks long before the end of the events
        first = proc.stdout.read(4096)
        self.assertTrue(first.startswith(b"{\n"))
        os.truncate(path, 1 << 20)
        while proc.stdout.read(1 << 20):
            pass
        err = proc.stderr.read().decode()
        proc.stdout.close()
        proc.stderr.close()
        self.assertEqual(proc.wait(), 1)
        self.assertEqual(err, f"mlia: error: {path}: file changed while being read (truncated while mapped)\n")

    def test_truncated_before_trace_json_is_one_error_line(self):
        # stopped after the analysis, just before trace.json (written on two
        # threads for 20 executions): the ETDump is truncated, the run goes on
        d = os.path.join(self.tmp, "trunc2")
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "mkfixture.py"), "--large", "200000",
                        "--executions", "20", d], check=True, capture_output=True)
        path = os.path.join(d, "large.etdump")
        out = os.path.join(self.tmp, "out-trunc2")
        os.makedirs(out)
        env = dict(os.environ, MLIA_TEST_HOOK="stop-before-trace")
        proc = subprocess.Popen([MLIA, "check", os.path.join(d, "large.etrecord"), "--target-profile",
                                 "neural-technology", "--performance", "--profiling-data", path, "--output-dir",
                                 out, "--quiet", "--trace", "--trace-format", "json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        for _ in range(3000):
            with open(f"/proc/{proc.pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "T":
                    break
            time.sleep(0.01)
        else:
            self.fail("mlia check did not stop before trace.json")
        os.truncate(path, 1 << 20)
        os.kill(proc.pid, signal.SIGCONT)
        stdout, stderr = proc.communicate(timeout=120)
        self.assertEqual(proc.returncode, 1, stderr)
        self.assertEqual(stderr.decode(),
                         f"mlia: error: {path}: file changed while being read (truncated while mapped)\n")
        self.assertEqual(os.listdir(out), [])


if __name__ == "__main__":
    unittest.main()
