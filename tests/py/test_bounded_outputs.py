"""Outputs stay within a bound of their inputs (issue 21 item 2,
docs/hardening.md "Bounded outputs"): FlatBuffer offsets let many ETDump
events share one string, so a 1 MB file could name 2,000 events with one
1 MiB name and make `mlia check` write a 2 GB trace. Event names and
delegate ids are counted once per event that uses them and may add up to
16 MiB + 4 x the file size (src/formats/etdump.c); every output is then at
most 128 MiB + 128 x the input size."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import MLIA, ROOT, check_args, need_binary, run_mlia

sys.path.insert(0, os.path.join(ROOT, "tools"))
from fixturelib import etrecord as etrecord_mod, hostile  # noqa: E402


def bound(input_bytes):
    return 128 * 1024 * 1024 + 128 * input_bytes


class BoundedOutputs(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-bounded-")
        fx = hostile.tiny_fixture(ROOT)
        cls.etrecord = os.path.join(cls.tmp, "tiny.etrecord")
        etrecord_mod.write_etrecord(cls.etrecord, {"forward": fx.exported_program_text(legacy=False)},
                                    fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_aliased_long_name_is_refused(self):
        path = hostile.aliased_name_etdump(os.path.join(self.tmp, "alias.etdump"), 24,
                                           b"native_call_" + b"N" * (1 << 20))
        size = os.path.getsize(path)
        limit = 16 * 1024 * 1024 + 4 * size
        msg = (f"mlia: error: {path}: run 0, event 20: event names and delegate ids add up to more than {limit} "
               "bytes (16 MiB + 4 x the file size): events share strings through aliased offsets\n")
        out = os.path.join(self.tmp, "out")
        os.makedirs(out, exist_ok=True)
        p = run_mlia(*check_args(self.etrecord, path, "--output-dir", out))
        self.assertEqual((p.returncode, p.stderr), (1, msg))
        self.assertFalse(os.path.exists(os.path.join(out, "mlia-output")))
        p = subprocess.run([MLIA, "inspect", path], capture_output=True)
        self.assertEqual((p.returncode, p.stdout, p.stderr.decode()), (1, b"", msg))

    def test_aliased_events_within_bound(self):
        for name, path in (("many", hostile.aliased_events_etdump(os.path.join(self.tmp, "many.etdump"), 100000)),
                           ("mid", hostile.aliased_name_etdump(os.path.join(self.tmp, "mid.etdump"), 20000,
                                                               b"native_call_" + b"N" * 200))):
            size = os.path.getsize(path) + os.path.getsize(self.etrecord)
            p = subprocess.run([MLIA, "inspect", path], capture_output=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            self.assertLessEqual(len(p.stdout), bound(size), name)
            out = os.path.join(self.tmp, "out-" + name)
            os.makedirs(out)
            p = run_mlia(*check_args(self.etrecord, path, "--output-dir", out, "--model-explorer", "files"))
            self.assertEqual(p.returncode, 0, p.stderr)
            for dirpath, _, files in os.walk(os.path.join(out, "mlia-output")):
                for f in files:
                    self.assertLessEqual(os.path.getsize(os.path.join(dirpath, f)), bound(size), f)


if __name__ == "__main__":
    unittest.main()
