"""Errors that say how to fix the command (issue 19, items 4, 7 and 8): the
kind of each input is told by its first bytes, so the same mistake gets the
same message and exit status whatever the files are called; an unknown
option names the nearest one; `--model-explorer open` on a machine without
a desktop prints one line with the page's URL and nothing from a launcher.
Exact text and exit status each time (docs/cli.md, "Inputs by content")."""
import os
import shutil
import stat
import sys
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, need_binary, run_mlia

USAGE = "usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP [options] " \
        "(see 'mlia check --help')\n"


class Hints(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.TemporaryDirectory(prefix="mlia-hints-")
        cls.paths = build_fixture(os.path.join(ROOT, "samples", "vww4.json"), os.path.join(cls.tmp.name, "in"))

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def copy(self, src, name):
        path = os.path.join(self.tmp.name, name)
        shutil.copyfile(src, path)
        return path

    def usage_error(self, args, message):
        out = tempfile.mkdtemp(dir=self.tmp.name)
        p = run_mlia(*args, "--output-dir", out)
        self.assertEqual((p.returncode, p.stdout), (2, ""), p.stderr)
        self.assertEqual(p.stderr, f"mlia: error: {message}\n{USAGE}")
        self.assertEqual(os.listdir(out), [])

    def test_swapped_pair_same_error_whatever_the_names(self):
        # today: exit 2 (suffix rule) or 1 (reader) depending on the names
        rec, dump = self.paths["etrecord"], self.paths["etdump"]
        namings = [(dump, rec),                                              # as given
                   (self.copy(dump, "model.etrecord"), self.copy(rec, "run.etdump")),  # names lie
                   (self.copy(dump, "a.bin"), self.copy(rec, "b.bin"))]       # names say nothing
        for model, etdump in namings:
            with self.subTest(model=os.path.basename(model)):
                self.usage_error(check_args(model, etdump),
                                 f"MODEL and --profiling-data are swapped: {model} is an ETDump and {etdump} is "
                                 f"an ETRecord; give {etdump} as MODEL and {model} with --profiling-data.")

    def test_pte_given_as_model_points_to_companion(self):
        for name in ("model.pte", "model.etrecord"):
            pte = self.copy(self.paths["pte"], name)
            with self.subTest(name=name):
                self.usage_error(check_args(pte, self.paths["etdump"]),
                                 f"MODEL {pte} is a PTE program, not an ETRecord: give the ETRecord written at "
                                 "export (generate_etrecord=True) as MODEL; the PTE goes with --companion-model.")

    def test_etdump_and_companion_swapped(self):
        self.usage_error(check_args(self.paths["etrecord"], self.paths["pte"], "--companion-model",
                                    self.paths["etdump"]),
                         f"--profiling-data and --companion-model are swapped: {self.paths['pte']} is a PTE "
                         f"program and {self.paths['etdump']} is an ETDump; give {self.paths['etdump']} with "
                         f"--profiling-data and {self.paths['pte']} with --companion-model.")

    def test_unknown_content_is_the_readers_whatever_the_name(self):
        # bytes of no known kind: the reader explains (exit 1), even when the
        # name has another suffix
        junk = self.copy(os.path.join(ROOT, "README.md"), "notes.txt")
        out = tempfile.mkdtemp(dir=self.tmp.name)
        p = run_mlia(*check_args(junk, self.paths["etdump"]), "--output-dir", out)
        self.assertEqual((p.returncode, p.stderr), (1, f"mlia: error: {junk}: Invalid etrecord file passed in.\n"))

    def test_unknown_option_suggests_the_nearest(self):
        self.usage_error(check_args(self.paths["etrecord"], self.paths["etdump"])[:4] +
                         ["--perfomance", "--profiling-data", self.paths["etdump"]],
                         "unrecognized arguments: --perfomance (did you mean --performance?)")
        self.usage_error(check_args(self.paths["etrecord"], self.paths["etdump"], "--companion=x.pte"),
                         "unrecognized arguments: --companion=x.pte (did you mean --companion-model?)")
        # nothing near: no suggestion
        self.usage_error(check_args(self.paths["etrecord"], self.paths["etdump"], "--colour"),
                         "unrecognized arguments: --colour")

    def test_python_api_gives_the_same_usage_error(self):
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import mlia
        with self.assertRaises(mlia.MliaUsageError) as cm:
            mlia.run_advisor(model=self.paths["etdump"], profiling_data=[self.paths["etrecord"]])
        self.assertEqual(str(cm.exception),
                         f"MODEL and --profiling-data are swapped: {self.paths['etdump']} is an ETDump and "
                         f"{self.paths['etrecord']} is an ETRecord; give {self.paths['etrecord']} as MODEL and "
                         f"{self.paths['etdump']} with --profiling-data.")

    def test_open_without_display_prints_one_url_line(self):
        # a noisy xdg-open (what a machine without a desktop prints) on PATH
        bindir = os.path.join(self.tmp.name, "bin")
        os.makedirs(bindir, exist_ok=True)
        ran = os.path.join(self.tmp.name, "xdg-open-ran")
        script = os.path.join(bindir, "xdg-open")
        with open(script, "w") as f:
            f.write(f"#!/bin/sh\ntouch '{ran}'\n")
            f.write("".join(f"echo 'xdg-open: noise line {i}' >&2\n" for i in range(7)) + "exit 3\n")
        os.chmod(script, stat.S_IRWXU)
        for display in (None, ":99"):
            with self.subTest(display=display):
                if os.path.exists(ran):
                    os.remove(ran)
                out = tempfile.mkdtemp(dir=self.tmp.name)
                env = {"PATH": bindir + os.pathsep + os.environ.get("PATH", ""), "DISPLAY": display or "",
                       "WAYLAND_DISPLAY": ""}
                p = run_mlia(*check_args(self.paths["etrecord"], self.paths["etdump"]), "--output-dir", out,
                             "--model-explorer", "open", env=env)
                page = os.path.realpath(os.path.join(out, "mlia-output", "model-explorer", "bundle", "index.html"))
                self.assertEqual((p.returncode, p.stderr), (0, ""))
                self.assertTrue(p.stdout.endswith(f"\nOpen file://{page}\n"), p.stdout[-300:])
                self.assertNotIn("noise", p.stdout)
                # without a display the launcher is not even tried
                self.assertEqual(os.path.exists(ran), display is not None)


if __name__ == "__main__":
    unittest.main()
