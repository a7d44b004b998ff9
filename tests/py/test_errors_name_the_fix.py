"""Issue 29, 6: errors that stop short of the fix now name it. Each case
checks the exact error line and exit status (docs/cli.md, "Errors")."""
import json
import os
import shutil
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, need_binary, run_mlia

USAGE = ("usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP [options] "
         "(see 'mlia check --help')\n")


class ErrorsNameTheFix(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-errors-")
        cls.acc = build_fixture(os.path.join(ROOT, "samples", "accuracy.json"), os.path.join(cls.tmp, "acc"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp)

    def expect(self, args, rc, line, usage=None):
        p = run_mlia(*args, cwd=self.tmp)
        self.assertEqual((p.returncode, p.stdout), (rc, ""), p.stderr)
        self.assertEqual(p.stderr, f"mlia: error: {line}\n" + (usage or ""))

    def out(self):
        return tempfile.mkdtemp(dir=self.tmp)

    def test_etdump_without_profiling_data_option(self):
        a = self.acc
        self.expect(["check", a["etrecord"], a["etdump"], "-t", "neural-technology", "--performance"], 2,
                    f"{a['etdump']} is an ETDump given without --profiling-data: give it as --profiling-data "
                    f"{a['etdump']}.", USAGE)

    def test_etdump_of_another_program_that_fits_the_maps(self):
        # the accuracy capture's calls land on instructions 0-3, which LeNet's
        # maps also hold as operator calls: only its kernels tell (it exited 0)
        lenet = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(self.tmp, "lenet"))
        a = self.acc
        out = self.out()
        self.expect(check_args(lenet["etrecord"], a["etdump"], "--output-dir", out), 1,
                    f"{a['etdump']}: not recorded from the program of {lenet['etrecord']}: the kernels it ran are "
                    "not the operators of method 'forward' at 3 of 4 instruction(s) (run 1: instruction 0 ran "
                    "native_call_mul.out where the ETRecord has aten.convolution.default); give the ETDump of a run "
                    "of that program, or the ETRecord exported with the program that wrote this ETDump")
        self.assertEqual(os.listdir(out), [])  # nothing written
        # the library's status: program mismatch (0x501), Python's MliaProgramMismatchError
        import sys
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import mlia
        with self.assertRaises(mlia.MliaProgramMismatchError) as cm:
            mlia.run_advisor(model=lenet["etrecord"], profiling_data=[a["etdump"]])
        self.assertEqual(cm.exception.status, 0x501)
        # the same capture under its own ETRecord is fine
        p = run_mlia(*check_args(a["etrecord"], a["etdump"], "--output-dir", self.out()))
        self.assertEqual(p.returncode, 0, p.stderr)

    def test_command_typo_suggests_the_command(self):
        self.expect(["chek"], 2, "argument command: invalid choice: 'chek' (choose from 'check', 'inspect', "
                                 "'compare', 'history'); did you mean 'check'?",
                    "usage: mlia {check,inspect,compare,history} ... (see 'mlia --help')\n")
        self.expect(["comapre"], 2, "argument command: invalid choice: 'comapre' (choose from 'check', 'inspect', "
                                    "'compare', 'history'); did you mean 'compare'?",
                    "usage: mlia {check,inspect,compare,history} ... (see 'mlia --help')\n")

    def test_etdump_given_as_debug_buffer(self):
        a = self.acc
        self.expect(check_args(a["etrecord"], a["etdump"], "--debug-buffer", a["etdump"], "--output-dir", self.out()),
                    2, f"--debug-buffer {a['etdump']} is an ETDump, not a debug buffer: give the raw buffer file the "
                       "run's ETDumpGen wrote its intermediate outputs to (set_debug_buffer or a data sink); the "
                       "ETDump goes with --profiling-data.", USAGE)

    def test_swapped_debug_buffers(self):
        a = self.acc
        p = run_mlia(*check_args(a["etrecord"], a["etdump"], "--debug-buffer", a["reference_debug_buffer"],
                                 "--reference-profiling-data", a["reference_etdump"],
                                 "--reference-debug-buffer", a["debug_buffer"], "--output-dir", self.out()))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertTrue(p.stderr.startswith(f"mlia: error: {a['reference_debug_buffer']}: tensor data of "), p.stderr)
        self.assertTrue(p.stderr.endswith("; is it this capture's buffer? --debug-buffer goes with --profiling-data, "
                                          "--reference-debug-buffer with --reference-profiling-data\n"), p.stderr)

    def test_etrecord_given_to_compare(self):
        a = self.acc
        run = self.out()
        p = run_mlia(*check_args(a["etrecord"], a["etdump"], "--output-dir", run))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.expect(["compare", a["etrecord"], run], 1,
                    f"{a['etrecord']}: is an ETRecord, not an mlia output: give the folder mlia check wrote "
                    "(DIR/mlia-output, or DIR) or its mlia-output.json")

    def test_profiling_data_is_a_directory(self):
        a = self.acc
        self.expect(check_args(a["etrecord"], ".", "--output-dir", self.out()), 1,
                    ".: is a directory; give an ETDump file (.etdump or .etdp)")

    def test_truncated_etrecord(self):
        a = self.acc
        cut = os.path.join(self.tmp, "cut.etrecord")
        with open(a["etrecord"], "rb") as f:
            data = f.read()
        with open(cut, "wb") as f:
            f.write(data[:len(data) // 2])
        self.expect(check_args(cut, a["etdump"], "--output-dir", self.out()), 1,
                    f"{cut}: is a truncated or damaged ETRecord: a zip archive of {len(data) // 2} bytes without its "
                    "central directory (the end of the file is missing); copy or save the ETRecord again")


    def test_chosen_clock_is_a_note_not_a_warning(self):
        a = self.acc
        out = self.out()
        p = run_mlia(*check_args(a["etrecord"], a["etdump"], "--output-dir", out, "--model-explorer", "files",
                                 "--neural-technology-profiling-data.ticks-per-second", "250e6"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("\nNotes (1)\n  - ETDump ticks read at 250 MHz (250000000 ticks per second), not as "
                      "nanoseconds: every time is the\n    recorded ticks divided by that rate.\n\nWarnings (1)\n",
                      p.stdout)
        self.assertNotIn("ETDump ticks", p.stdout[p.stdout.index("\nWarnings (1)"):])
        with open(os.path.join(out, "mlia-output", "model-explorer", "bundle", "index.html"), encoding="utf-8") as f:
            html = f.read()
        start = html.index('id="mlia-data">') + len('id="mlia-data">')
        data = json.loads(html[start:html.index("</script>", start)])
        self.assertFalse(any(w.startswith("ETDump ticks read at") for w in data["warnings"]), data["warnings"])
        self.assertTrue(any(n.startswith("ETDump ticks read at 250 MHz") for n in data["notes"]), data["notes"])
        # the result keeps it among its warnings (the format has no notes)
        with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
            self.assertTrue(any(w.startswith("ETDump ticks read at") for w in json.load(f)["results"][0]["warnings"]))


if __name__ == "__main__":
    unittest.main()
