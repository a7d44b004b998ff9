"""An API embedders can trust (issue 27 item 5): every failure comes with an
mlia_status (include/mlia/mlia.h) beside its message and the byte position
it names; Python raises one exception class per status, all of them
MliaError (the classes that existed keep working as base classes); the host
sets the memory limit per call. The command line's exit statuses do not
change (the class of the status: 1, 2, 3)."""
import os
import shutil
import sys
import tempfile
import unittest

from helpers import BUILD, ROOT, build_fixture, check_args, need_binary, run_mlia

sys.path.insert(0, os.path.join(ROOT, "python"))
LIB = os.environ.get("MLIA_LIB", os.path.join(ROOT, BUILD, "libmlia.so"))


class Status(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        if not os.path.exists(LIB):
            raise unittest.SkipTest(f"{LIB} not built")
        os.environ["MLIA_LIB"] = LIB
        import mlia
        cls.mlia = mlia
        cls.tmp = tempfile.mkdtemp(prefix="mlia-status-")
        cls.demo = build_fixture(os.path.join(ROOT, "samples", "demo.json"), os.path.join(cls.tmp, "demo"))
        cls.lenet = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(cls.tmp, "lenet"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def fails(self, cls, **kw):
        args = dict(model=self.demo["etrecord"], profiling_data=[self.demo["etdump"]])
        args.update(kw)
        with self.assertRaises(cls) as cm:
            self.mlia.run_advisor(**args)
        self.assertIsInstance(cm.exception, self.mlia.MliaError)
        return cm.exception

    def test_io(self):
        missing = os.path.join(self.tmp, "missing.etdump")
        e = self.fails(self.mlia.MliaIOError, profiling_data=[missing])
        self.assertEqual((str(e), e.status, e.byte_offset), (f"{missing}: No such file or directory", 0x201, None))

    def test_input_format_with_its_byte(self):
        bad = os.path.join(self.tmp, "short.etdump")
        with open(self.demo["etdump"], "rb") as f:
            data = f.read()
        with open(bad, "wb") as f:
            f.write(data[:len(data) // 2])
        e = self.fails(self.mlia.MliaInputFormatError, profiling_data=[bad])
        self.assertEqual(e.status, 0x101)
        self.assertTrue(str(e).startswith(bad + ": "), str(e))
        self.assertIn(f"at byte {e.byte_offset}", str(e))
        # the command line: the same message, exit status 1 (the class)
        p = run_mlia(*check_args(self.demo["etrecord"], bad, "--output-dir", self.tmp))
        self.assertEqual((p.returncode, p.stderr), (1, f"mlia: error: {e}\n"))

    def test_memory_limit_set_by_the_host(self):
        e = self.fails(self.mlia.MliaMemoryLimitError, memory_limit=1 << 18)
        self.assertEqual(e.status, 0x301)
        self.assertRegex(str(e), r": analysis needs more than the memory limit of 262144 bytes "
                                 r"\(the caller's memory_limit\)$")
        # enough memory: the same run succeeds
        res = self.mlia.run_advisor(model=self.demo["etrecord"], profiling_data=[self.demo["etdump"]],
                                    memory_limit=256 << 20)
        self.assertEqual(res["results"][0]["status"], "ok")
        e = self.fails(self.mlia.MliaUsageError, memory_limit=1000)
        self.assertEqual(str(e), "argument memory_limit: invalid value: '1000' (a whole number of bytes, "
                                 "65536 to 1e18)")

    def test_program_mismatch(self):
        e = self.fails(self.mlia.MliaProgramMismatchError, model=self.lenet["etrecord"])
        self.assertEqual(e.status, 0x501)
        self.assertIn(": not recorded from the program of ", str(e))

    def test_usage(self):
        e = self.fails(self.mlia.MliaUsageError, model_explorer="bogus")
        self.assertEqual((e.status, e.byte_offset), (2, None))

    def test_compare_statuses(self):
        runs = {}
        for name, fx in (("demo", self.demo), ("lenet", self.lenet)):
            runs[name] = os.path.join(self.tmp, "run-" + name)
            p = run_mlia(*check_args(fx["etrecord"], fx["etdump"], "--output-dir", runs[name], "-q"))
            self.assertEqual(p.returncode, 0, p.stderr)
        with self.assertRaises(self.mlia.MliaProgramMismatchError) as cm:
            self.mlia.compare(runs["demo"], runs["lenet"], output_dir=self.tmp)
        self.assertEqual(cm.exception.status, 0x501)
        with self.assertRaises(self.mlia.MliaIOError):
            self.mlia.compare(os.path.join(self.tmp, "nope"), runs["demo"])
        self.assertTrue(issubclass(self.mlia.MliaRegressionError, self.mlia.MliaError))
        self.assertTrue(issubclass(self.mlia.MliaOutOfMemoryError, self.mlia.MliaMemoryLimitError))


if __name__ == "__main__":
    unittest.main()
