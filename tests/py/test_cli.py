"""Command-line tests of the `mlia` executable ($MLIA_BIN).

Usage errors (exit 2) are checked with their exact two stderr lines (the
error and one usage line); input errors (exit 1) with their exact single
line; successful runs on a coherent set written by tools/mkfixture.py from
samples/lenet.json. Every test runs in its own temporary folder.
"""

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MLIA = os.environ.get("MLIA_BIN", os.path.join(ROOT, "build", "mlia"))
HAVE_BIN = os.path.isfile(MLIA) and os.access(MLIA, os.X_OK)
SKIP_REASON = f"mlia executable not built ({MLIA}); run `make` first"

USAGE_TOP = "usage: mlia {check,inspect,compare,history} ... (see 'mlia --help')"
USAGE_CHECK = ("usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP "
               "[options] (see 'mlia check --help')")
USAGE_INSPECT = "usage: mlia inspect FILE"

BASE = ["check", "m.etrecord", "-t", "neural-technology", "--performance",
        "--profiling-data", "d.etdump"]


def run(args, cwd, env=None, stderr=subprocess.PIPE):
    full_env = dict(os.environ)
    full_env.pop("BROWSER", None)
    if env:
        full_env.update(env)
    p = subprocess.run([MLIA] + list(args), cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                       stderr=stderr, timeout=120)
    return p.returncode, p.stdout.decode("utf-8", "replace"), \
        (p.stderr or b"").decode("utf-8", "replace")


class CliCase(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="mlia-cli-")
        self.addCleanup(shutil.rmtree, self.dir, True)

    def touch(self, name, data=b""):
        path = os.path.join(self.dir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def run_mlia(self, args, **kw):
        return run(args, self.dir, **kw)

    def assert_usage(self, args, message, usage=USAGE_CHECK):
        rc, out, err = self.run_mlia(args)
        self.assertEqual(err, f"mlia: error: {message}\n{usage}\n", args)
        self.assertEqual(rc, 2, args)
        self.assertEqual(out, "", args)

    def assert_input_error(self, args, message):
        rc, out, err = self.run_mlia(args)
        self.assertEqual(err, f"mlia: error: {message}\n", args)
        self.assertEqual(rc, 1, args)
        self.assertEqual(out, "", args)
        self.assertFalse(os.path.exists(os.path.join(self.dir, "mlia-output")))


@unittest.skipUnless(HAVE_BIN, SKIP_REASON)
class UsageErrors(CliCase):
    """Exit 2: the command line itself is wrong. Files need not exist."""

    def test_no_command(self):
        self.assert_usage([], "the following arguments are required: command", USAGE_TOP)

    def test_unknown_command(self):
        self.assert_usage(["frob"], "argument command: invalid choice: 'frob' "
                          "(choose from 'check', 'inspect', 'compare', 'history')", USAGE_TOP)

    def test_unknown_top_option(self):
        self.assert_usage(["--frob"], "unrecognized arguments: --frob", USAGE_TOP)

    def test_check_without_arguments(self):
        self.assert_usage(["check"], "the following arguments are required: MODEL, "
                          "-t/--target-profile, --profiling-data")

    def test_missing_target_and_profiling_data(self):
        self.assert_usage(["check", "m.etrecord", "--performance"],
                          "the following arguments are required: -t/--target-profile, "
                          "--profiling-data")

    def test_missing_model(self):
        self.assert_usage(BASE[:1] + BASE[2:], "the following arguments are required: MODEL")

    def test_missing_profiling_data(self):
        self.assert_usage(BASE[:5], "the following arguments are required: --profiling-data")

    def test_unknown_option(self):
        self.assert_usage(BASE + ["--frob"], "unrecognized arguments: --frob")

    def test_unknown_option_reported_before_required(self):
        self.assert_usage(["check", "m.etrecord", "--profilng-data", "d.etdump"],
                          "unrecognized arguments: --profilng-data (did you mean --profiling-data?) d.etdump")

    def test_extra_positional(self):
        self.assert_usage(BASE + ["extra.etrecord"], "unrecognized arguments: extra.etrecord")

    def test_short_flag_cluster_not_supported(self):
        self.assert_usage(BASE + ["-qd"], "unrecognized arguments: -qd")

    def test_unsupported_target_profile(self):
        args = list(BASE)
        args[3] = "ethos-u55-256"
        self.assert_usage(args, "Target profile 'ethos-u55-256' is not supported; "
                          "supported: neural-technology.")

    def test_target_profile_equals_and_attached_forms(self):
        self.assert_usage(["check", "m.etrecord", "--target-profile=cortex-a", "--performance",
                           "--profiling-data=d.etdump"],
                          "Target profile 'cortex-a' is not supported; supported: "
                          "neural-technology.")
        self.assert_usage(["check", "m.etrecord", "-tcortex-a", "--performance",
                           "--profiling-data", "d.etdump"],
                          "Target profile 'cortex-a' is not supported; supported: "
                          "neural-technology.")

    def test_no_category(self):
        args = [a for a in BASE if a != "--performance"]
        self.assert_usage(args, "Neural Technology profiling data currently supports "
                          "performance analysis only.")

    def test_compatibility_alone(self):
        args = [a if a != "--performance" else "--compatibility" for a in BASE]
        self.assert_usage(args, "Backend does not support --compatibility with "
                          "--profiling-data. Use --performance instead.")

    def test_compatibility_with_performance(self):
        self.assert_usage(BASE + ["--compatibility"], "Backend does not support "
                          "--compatibility with --profiling-data. Use --performance instead.")

    def test_same_etdump_twice(self):
        # several ETDumps are pooled (docs/captures.md); one given twice would count twice
        self.assert_usage(BASE + ["--profiling-data", "e.etdump", "--profiling-data=d.etdump"],
                          "--profiling-data: d.etdump is given more than once.")

    def test_tick_rate_values(self):
        opt = "--neural-technology-profiling-data.ticks-per-second"
        for bad in ("0", "fast", "1e16", "0x10", "inf", "2,5e8", "1e"):
            self.assert_usage(BASE + [opt, bad], f"argument {opt}: invalid value: '{bad}' (ticks per second: a "
                                                 "number from 1 to 1e15, e.g. 250e6)")

    def test_warmup_values(self):
        opt = "--neural-technology-profiling-data.warmup-executions"
        for bad in ("x", "1.5", "+1", "1000000000"):
            self.assert_usage(BASE + [f"{opt}={bad}"], f"argument {opt}: invalid value: '{bad}' (a whole number of "
                                                       "executions, 0 to 999999999)")

    def test_every_etdump_suffix_is_checked(self):
        self.assert_usage(BASE + ["--profiling-data", "e.etdump", "--profiling-data=f.bin"],
                          "f.bin: unsupported profiling data file; expected an ETDump (.etdump or .etdp).")

    def test_other_backend(self):
        self.assert_usage(BASE + ["-b", "ethos-u"],
                          "Backend 'ethos-u' does not support profiling data.")
        self.assert_usage(BASE + ["--backend=tosa-checker"],
                          "Backend 'tosa-checker' does not support profiling data.")

    def test_two_backends(self):
        self.assert_usage(BASE + ["-b", "neural-technology-profiling-data", "-b", "ethos-u"],
                          "--profiling-data requires exactly one --backend value.")
        self.assert_usage(BASE + ["-b", "neural-technology-profiling-data",
                                  "--backend", "neural-technology-profiling-data"],
                          "--profiling-data requires exactly one --backend value.")

    def test_model_suffix(self):
        args = list(BASE)
        args[1] = "model.pte"
        self.assert_usage(args, "model.pte: unsupported model file; expected an ETRecord "
                          "(.etrecord or .bin).")

    def test_etdump_suffix(self):
        args = list(BASE)
        args[-1] = "run.json"
        self.assert_usage(args, "run.json: unsupported profiling data file; expected an ETDump "
                          "(.etdump or .etdp).")

    def test_companion_suffix(self):
        self.assert_usage(BASE + ["--companion-model", "model.vgf"],
                          "model.vgf: unsupported companion model file; expected a PTE (.pte).")

    def test_model_explorer_choice(self):
        self.assert_usage(BASE + ["--model-explorer", "browse"],
                          "argument --model-explorer: invalid choice: 'browse' "
                          "(choose from 'files', 'open')")
        self.assert_usage(BASE + ["--model-explorer=serve"],
                          "argument --model-explorer: invalid choice: 'serve' "
                          "(choose from 'files', 'open')")

    def test_option_missing_value(self):
        self.assert_usage(BASE + ["--output-dir"],
                          "argument --output-dir: expected one argument")
        self.assert_usage(BASE + ["--output-dir", "--json"],
                          "argument --output-dir: expected one argument")
        self.assert_usage(["check", "m.etrecord", "-t"],
                          "argument -t/--target-profile: expected one argument")
        self.assert_usage(BASE + ["--neural-technology-profiling-data.etrecord-method"],
                          "argument --neural-technology-profiling-data.etrecord-method: "
                          "expected one argument")

    def test_option_empty_value(self):
        self.assert_usage(BASE + ["--output-dir="],
                          "argument --output-dir: expected a non-empty value")

    def test_flag_with_value(self):
        self.assert_usage(BASE + ["--json=yes"],
                          "argument --json: ignored explicit argument 'yes'")

    def test_inspect_without_file(self):
        self.assert_usage(["inspect"], "the following arguments are required: FILE",
                          USAGE_INSPECT)

    def test_inspect_extra_arguments(self):
        self.assert_usage(["inspect", "a.pte", "b.pte"], "unrecognized arguments: b.pte",
                          USAGE_INSPECT)
        self.assert_usage(["inspect", "--performance", "a.pte"],
                          "unrecognized arguments: --performance", USAGE_INSPECT)


@unittest.skipUnless(HAVE_BIN, SKIP_REASON)
class HelpAndVersion(CliCase):
    def test_version(self):
        for args in (["-v"], ["--version"], ["check", "-v"], ["inspect", "--version"]):
            rc, out, err = self.run_mlia(args)
            self.assertEqual((rc, out, err), (0, "mlia 0.1.0\n", ""), args)

    def test_top_help(self):
        rc, out, err = self.run_mlia(["--help"])
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("usage: mlia [-h] [-v] {check,inspect,compare,history} ...\n"), out)
        self.assertIn("  check     analyse an ETRecord", out)
        self.assertIn("  compare   compare two mlia outputs", out)
        self.assertIn("3 regression found by 'mlia compare --fail-on-regression'", out)

    def test_check_help(self):
        rc, out, err = self.run_mlia(["check", "-h"])
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("usage: mlia check MODEL -t PROFILE --performance "
                                       "--profiling-data ETDUMP\n"), out)
        for option in ("--target-profile", "--profiling-data", "--companion-model",
                       "--output-dir", "--model-explorer {files,open}", "--json",
                       "--neural-technology-profiling-data.etrecord-method NAME",
                       "--quiet", "--debug", "--backend"):
            self.assertIn(option, out)
        self.assertIn("Exit status: 0 success, 1 analysis or input error, 2 usage error.", out)

    def test_help_wins_over_other_errors(self):
        rc, out, err = self.run_mlia(["check", "--frob", "--compatibility", "-h"])
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("usage: mlia check"))

    def test_inspect_help(self):
        rc, out, err = self.run_mlia(["inspect", "--help"])
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(out.startswith("usage: mlia inspect FILE\n"))


@unittest.skipUnless(HAVE_BIN, SKIP_REASON)
class InputErrors(CliCase):
    """Exit 1: reported before any work, nothing written."""

    def test_missing_model(self):
        self.touch("d.etdump")
        self.assert_input_error(BASE, "m.etrecord: No such file or directory")

    def test_missing_model_reported_first(self):
        self.assert_input_error(BASE, "m.etrecord: No such file or directory")

    def test_missing_etdump(self):
        self.touch("m.etrecord")
        self.assert_input_error(BASE, "d.etdump: No such file or directory")

    def test_missing_companion(self):
        self.touch("m.etrecord")
        self.touch("d.etdump")
        self.assert_input_error(BASE + ["--companion-model", "c.pte"],
                                "c.pte: No such file or directory")

    def test_model_is_a_directory(self):
        os.mkdir(os.path.join(self.dir, "m.etrecord"))
        self.touch("d.etdump")
        self.assert_input_error(BASE, "m.etrecord: is a directory; give the ETRecord file itself (.etrecord or .bin)")

    def test_backend_name_normalised(self):
        # Accepted spellings pass the usage rules and reach the input check.
        for name in ("neural-technology-profiling-data", "Neural-Technology-Profiling-Data",
                     "NEURALTECHNOLOGYPROFILINGDATA", "neural-technology--profiling-data-"):
            self.assert_input_error(BASE + ["-b", name], "m.etrecord: No such file or directory")

    def test_suffixes_case_insensitive_and_bin(self):
        self.assert_input_error(["check", "M.BIN", "-t", "neural-technology", "--performance",
                                 "--profiling-data", "D.ETDP", "--companion-model", "C.PTE"],
                                "M.BIN: No such file or directory")

    def test_output_parent_not_a_directory(self):
        # missing parents are created (mkdir -p, issue 29, 5); a file in the way is an error
        self.touch("m.etrecord")
        self.touch("d.etdump")
        self.touch("f")
        self.assert_input_error(BASE + ["--output-dir", "f/such/out"],
                                "f/such/out: cannot create it: f is not a directory")

    def test_output_dir_is_a_file(self):
        self.touch("m.etrecord")
        self.touch("d.etdump")
        self.touch("out")
        self.assert_input_error(BASE + ["--output-dir", "out"],
                                "out: exists and is not a directory")

    def test_output_is_a_file(self):
        self.touch("m.etrecord")
        self.touch("d.etdump")
        self.touch("out/mlia-output", b"keep")
        rc, out, err = self.run_mlia(BASE + ["--output-dir", "out"])
        self.assertEqual((rc, out, err),
                         (1, "", "mlia: error: out/mlia-output: exists and is not a directory\n"))
        with open(os.path.join(self.dir, "out/mlia-output"), "rb") as f:
            self.assertEqual(f.read(), b"keep")

    def test_output_symlink_refused(self):
        self.touch("m.etrecord")
        self.touch("d.etdump")
        self.touch("elsewhere/keep.txt", b"keep")
        os.mkdir(os.path.join(self.dir, "out"))
        os.symlink(os.path.join(self.dir, "elsewhere"), os.path.join(self.dir, "out/mlia-output"))
        rc, out, err = self.run_mlia(BASE + ["--output-dir", "out"])
        self.assertEqual((rc, out, err), (1, "", "mlia: error: out/mlia-output: is a symbolic "
                                                 "link; refusing to replace it\n"))
        self.assertEqual(os.listdir(os.path.join(self.dir, "elsewhere")), ["keep.txt"])
        self.assertEqual(os.listdir(os.path.join(self.dir, "out")), ["mlia-output"])

    def test_analysis_error_is_one_line_and_writes_nothing(self):
        self.touch("m.etrecord", b"not a zip file")
        self.touch("d.etdump", b"\x00" * 16)
        os.mkdir(os.path.join(self.dir, "mlia-output"))
        self.touch("mlia-output/mlia-output.json", b"previous")
        rc, out, err = self.run_mlia(BASE)
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertTrue(err.startswith("mlia: error: "), err)
        self.assertEqual(err.count("\n"), 1, err)
        self.assertEqual(sorted(os.listdir(self.dir)), ["d.etdump", "m.etrecord", "mlia-output"])
        with open(os.path.join(self.dir, "mlia-output/mlia-output.json"), "rb") as f:
            self.assertEqual(f.read(), b"previous")

    def test_inspect_missing_file(self):
        self.assert_input_error(["inspect", "nope.pte"], "nope.pte: No such file or directory")


FIXTURE_DIR = None
FIXTURE_ERROR = None


def lenet_fixture():
    """Builds the lenet sample once: {"etrecord": path, "etdump": path, "pte": path}."""
    global FIXTURE_DIR, FIXTURE_ERROR
    if FIXTURE_DIR is None and FIXTURE_ERROR is None:
        d = tempfile.mkdtemp(prefix="mlia-cli-fixture-")
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "mkfixture.py"),
                            os.path.join(ROOT, "samples", "lenet.json"), d],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=300)
        if p.returncode != 0:
            FIXTURE_ERROR = p.stdout.decode("utf-8", "replace")[-2000:]
        else:
            FIXTURE_DIR = d
    if FIXTURE_ERROR is not None:
        raise unittest.SkipTest("tools/mkfixture.py could not build samples/lenet.json: "
                                + FIXTURE_ERROR)
    return {k: os.path.join(FIXTURE_DIR, "lenet." + k) for k in ("etrecord", "etdump", "pte")}


def tearDownModule():
    if FIXTURE_DIR:
        shutil.rmtree(FIXTURE_DIR, True)


@unittest.skipUnless(HAVE_BIN, SKIP_REASON)
class SuccessfulRuns(CliCase):
    def setUp(self):
        super().setUp()
        fx = lenet_fixture()
        self.args = ["check", fx["etrecord"], "-t", "neural-technology", "--performance",
                     "--profiling-data", fx["etdump"]]

    def out_path(self, *parts):
        return os.path.join(self.dir, "mlia-output", *parts)

    def assert_clean_dir(self, d=None):
        leftovers = [n for n in os.listdir(d or self.dir) if n.startswith(".mlia-output")]
        self.assertEqual(leftovers, [])

    def test_default_run_prints_summary_and_writes_output(self):
        rc, out, err = self.run_mlia(self.args)
        self.assertEqual(err, "")
        self.assertEqual(rc, 0)
        self.assertTrue(out.startswith("Method:"), out)
        self.assertIn("Executions:", out)
        self.assertIn("Top source operators by P50 execution time", out)
        # every file written is listed, and the page's option is named (issue 29, 5)
        self.assertTrue(out.endswith(f"\nOutput: {os.path.realpath(self.out_path())}\n"
                                     "Files:  mlia-output.json, logs/mlia.log\n"
                                     "Page: not written (--model-explorer files writes it, --model-explorer open "
                                     "opens it too)\n"), out)
        for line in out.splitlines():
            self.assertLessEqual(len(line), 100, line)
        self.assertTrue(os.path.isfile(self.out_path("mlia-output.json")))
        self.assertTrue(os.path.isfile(self.out_path("logs", "mlia.log")))
        self.assertFalse(os.path.exists(self.out_path("model-explorer")))
        self.assert_clean_dir()

    # Issue 29, 5: --output-dir creates missing parents; x/mlia-output is the
    # output folder itself; the summary lists the trace and the CSV tables.
    def test_output_dir_created_with_parents_and_files_listed(self):
        rc, out, err = self.run_mlia(self.args + ["--output-dir", "runs/mon", "--csv", "--trace"])
        self.assertEqual((rc, err), (0, ""))
        made = os.path.realpath(os.path.join(self.dir, "runs", "mon", "mlia-output"))
        self.assertTrue(os.path.isfile(os.path.join(made, "mlia-output.json")))
        self.assertIn(f"\nOutput: {made}\nFiles:  mlia-output.json, logs/mlia.log, trace.pftrace, csv/operators.csv, "
                      "csv/chains.csv, csv/modules.csv\n", out)
        rc, out, err = self.run_mlia(self.args + ["--output-dir", "x/mlia-output"])
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(os.path.isfile(os.path.join(self.dir, "x", "mlia-output", "mlia-output.json")))
        self.assertFalse(os.path.exists(os.path.join(self.dir, "x", "mlia-output", "mlia-output")))

    def test_json_prints_result_only(self):
        rc, out, err = self.run_mlia(self.args + ["--json"])
        self.assertEqual((rc, err), (0, ""))
        result = json.loads(out)
        self.assertEqual(result["schema_version"], "1.2.0")
        with open(self.out_path("mlia-output.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f), result)
        self.assertNotIn("Method:", out)

    def test_quiet_prints_nothing(self):
        rc, out, err = self.run_mlia(self.args + ["-q"])
        self.assertEqual((rc, out, err), (0, "", ""))
        self.assertTrue(os.path.isfile(self.out_path("mlia-output.json")))

    def test_quiet_with_json_still_prints_json(self):
        rc, out, err = self.run_mlia(["--quiet"] + self.args + ["--json"])
        self.assertEqual((rc, err), (0, ""))
        self.assertEqual(json.loads(out)["schema_version"], "1.2.0")

    def test_debug_prints_stages(self):
        rc, out, err = self.run_mlia(self.args + ["--debug", "-q"])
        self.assertEqual((rc, out), (0, ""))
        for stage in ("reading ETRecord", "reading ETDump", "decoding statistics"):
            self.assertRegex(err, r"mlia: \[\d+\.\d{3} s\] " + stage + "\n")
        self.assertRegex(err, r"mlia: \[\d+\.\d{3} s\] done\n$")

    def test_no_progress_on_terminal_for_a_fast_run_or_quiet(self):
        import pty
        for extra in ([], ["-q"]):
            master, slave = pty.openpty()
            try:
                rc, out, _ = run(self.args + extra, self.dir, stderr=slave)
            finally:
                os.close(slave)
            os.set_blocking(master, False)
            try:
                data = os.read(master, 4096)
            except (BlockingIOError, OSError):
                data = b""
            os.close(master)
            self.assertEqual(rc, 0)
            self.assertEqual(data, b"", extra)

    def test_output_dir_created_and_previous_output_replaced(self):
        args = self.args + ["--output-dir", "new"]
        rc, _, err = self.run_mlia(args)
        self.assertEqual((rc, err), (0, ""))
        stale = os.path.join(self.dir, "new", "mlia-output", "stale.txt")
        with open(stale, "w") as f:
            f.write("stale")
        rc, _, err = self.run_mlia(args + ["--output-dir=new"])
        self.assertEqual((rc, err), (0, ""))
        self.assertFalse(os.path.exists(stale))
        self.assertEqual(os.listdir(os.path.join(self.dir, "new")), ["mlia-output"])

    def test_symlink_inside_previous_output_not_followed(self):
        self.touch("elsewhere/keep.txt", b"keep")
        os.makedirs(self.out_path("logs"))
        os.symlink(os.path.join(self.dir, "elsewhere"), self.out_path("logs", "escape"))
        os.symlink(os.path.join(self.dir, "elsewhere", "keep.txt"), self.out_path("file"))
        rc, _, err = self.run_mlia(self.args)
        self.assertEqual((rc, err), (0, ""))
        self.assertFalse(os.path.lexists(self.out_path("logs", "escape")))
        self.assertFalse(os.path.lexists(self.out_path("file")))
        with open(os.path.join(self.dir, "elsewhere", "keep.txt"), "rb") as f:
            self.assertEqual(f.read(), b"keep")

    def write_fake_browser(self):
        script = self.touch("bin/fake-browser",
                            b"#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$FAKE_BROWSER_OUT\"\n")
        os.chmod(script, stat.S_IRWXU)
        return script

    def test_model_explorer_open_uses_browser_variable(self):
        script = self.write_fake_browser()
        record = os.path.join(self.dir, "browser-args")
        rc, out, err = self.run_mlia(self.args + ["--model-explorer", "open"],
                                     env={"BROWSER": script + " --new-tab %s",
                                          "FAKE_BROWSER_OUT": record})
        self.assertEqual((rc, err), (0, ""))
        page = os.path.realpath(self.out_path("model-explorer", "bundle", "index.html"))
        self.assertTrue(os.path.isfile(page))
        self.assertIn(f"Page: {page}\n", out)
        with open(record) as f:
            self.assertEqual(f.read(), f"--new-tab\nfile://{page}\n")

    def test_model_explorer_open_without_browser_prints_url(self):
        empty_path = os.path.join(self.dir, "empty-bin")
        os.mkdir(empty_path)
        rc, out, err = self.run_mlia(self.args + ["--model-explorer=open"],
                                     env={"BROWSER": "/nonexistent/browser", "PATH": empty_path})
        self.assertEqual((rc, err), (0, ""))
        page = os.path.realpath(self.out_path("model-explorer", "bundle", "index.html"))
        self.assertTrue(out.endswith(f"Open file://{page}\n"), out)

    def test_model_explorer_open_with_json_keeps_stdout_json(self):
        empty_path = os.path.join(self.dir, "empty-bin")
        os.mkdir(empty_path)
        rc, out, err = self.run_mlia(self.args + ["--model-explorer", "open", "--json"],
                                     env={"BROWSER": "false", "PATH": empty_path})
        self.assertEqual(rc, 0)
        json.loads(out)
        page = os.path.realpath(self.out_path("model-explorer", "bundle", "index.html"))
        self.assertEqual(err, f"Open file://{page}\n")

    def test_model_explorer_files_writes_page_without_opening(self):
        script = self.write_fake_browser()
        record = os.path.join(self.dir, "browser-args")
        rc, out, err = self.run_mlia(self.args + ["--model-explorer", "files"],
                                     env={"BROWSER": script, "FAKE_BROWSER_OUT": record})
        self.assertEqual((rc, err), (0, ""))
        self.assertTrue(os.path.isfile(self.out_path("model-explorer", "bundle", "index.html")))
        self.assertFalse(os.path.exists(record))


if __name__ == "__main__":
    unittest.main()
