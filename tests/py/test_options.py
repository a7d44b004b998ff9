"""One option table (issue 27 item 1): every option of every command is a row
of MLIA_OPTS (src/pipeline/options.c). The command line, its --help, the JSON
requests, the Python keywords and the man page all follow it, and the
library checks every value and rule once: the same unknown option, bad value
or bad combination gives the same message and a usage error from the
command line (exit 2), the JSON request (return 2) and Python
(MliaUsageError)."""
import ctypes
import inspect
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

from helpers import BUILD, MLIA, ROOT, build_fixture, check_args, need_binary, run_mlia

sys.path.insert(0, os.path.join(ROOT, "python"))
LIB = os.environ.get("MLIA_LIB", os.path.join(ROOT, BUILD, "libmlia.so"))
BACKEND = "neural-technology-profiling-data"


def import_mlia():
    if not os.path.exists(LIB):
        raise unittest.SkipTest(f"{LIB} not built")
    os.environ["MLIA_LIB"] = LIB
    import mlia
    return mlia


def raw_request(fn, text):
    """Calls a JSON entry point with the request text as given: (rc, message)."""
    lib = ctypes.CDLL(LIB)
    f = getattr(lib, fn)
    f.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
    f.restype = ctypes.c_int
    lib.mlia_free.argtypes = [ctypes.c_void_p]
    result, error = ctypes.c_void_p(), ctypes.c_void_p()
    rc = f(text.encode(), ctypes.byref(result), ctypes.byref(error))
    msg = ctypes.string_at(error.value).decode() if error.value else None
    for p in (result, error):
        if p.value:
            lib.mlia_free(p)
    return rc, msg


class Table(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.mlia = import_mlia()

    def test_rows_are_complete(self):
        rows = (self.mlia.options("check") + self.mlia.options("compare") + self.mlia.options("inspect") +
                self.mlia.options("history"))
        self.assertGreater(len(rows), 25)
        for row in rows:
            self.assertTrue(row["flag"] or row["key"] or row["positional"], row)
            self.assertTrue(row["help"], row)
            self.assertIn(row["type"], ("flag", "text", "path", "paths", "texts", "choice", "number", "count",
                                        "choices"))
            if row["type"] in ("number", "count"):
                self.assertIsNotNone(row["min"], row)
            if row["type"] in ("choice", "choices"):
                self.assertTrue(row["choices"], row)

    def test_help_lists_every_flag_of_the_table(self):
        for command in ("check", "inspect", "compare", "history"):
            out = subprocess.run([MLIA, command, "--help"], capture_output=True, text=True).stdout
            for row in self.mlia.options(command):
                if row["flag"]:
                    names = f"{row['short']}, {row['flag']}" if row["short"] else row["flag"]
                    if row["optional_value"]:
                        names += f" [{row['metavar']}]"
                    self.assertRegex(out, rf"(?m)^  {re.escape(names)}(?![\w-])", (command, row["flag"]))
                if row["alias"]:
                    self.assertIn(f"(or {row['alias']}", out)

    def test_python_keywords_are_the_table(self):
        # every named keyword of run_advisor / compare is a key of the table;
        # the others reach the library through **options, which checks them
        # (a new row needs no change in Python)
        for fn, command in ((self.mlia.run_advisor, "check"), (self.mlia.compare, "compare")):
            params = {p.name for p in inspect.signature(fn).parameters.values()
                      if p.kind is not inspect.Parameter.VAR_KEYWORD}
            rows = self.mlia.options(command)
            keys = {r["key"] for r in rows if r["key"] and not r["backend"]}
            self.assertEqual(params - {"backend_options"} - keys, set(), fn.__name__)
            self.assertIn(inspect.Parameter.VAR_KEYWORD, [p.kind for p in inspect.signature(fn).parameters.values()])
            if command == "check":
                self.assertEqual({r["key"] for r in rows if r["backend"]},
                                 {"etrecord_method", "ticks_per_second", "warmup_executions"})

    def test_man_page_lists_every_flag_and_alias(self):
        with open(os.path.join(ROOT, "docs", "mlia.1"), encoding="utf-8") as f:
            man = re.sub(r"\\f[BIRP]", "", f.read().replace("\\-", "-"))
        sections = {"check": man.split(".SH OPTIONS OF CHECK", 1)[1].split("\n.SH ", 1)[0],
                    "compare": man.split("mlia compare", 1)[1],
                    "history": man.split(".SH OPTIONS OF HISTORY", 1)[1]}
        for command, text in sections.items():
            for row in self.mlia.options(command):
                for name in (row["flag"], row["alias"]):
                    if name:
                        self.assertRegex(text, rf"(?<![\w-]){re.escape(name)}(?![\w-])", (command, name))
        # and nothing in the check section that the table does not have
        flags = {n for r in self.mlia.options("check") for n in (r["flag"], r["alias"]) if n}
        listed = set(re.findall(r"(?m)^\.B[IR]? (--[a-z][\w.-]*)", sections["check"]))
        self.assertEqual(listed - flags, set())


class SameMessageEverywhere(unittest.TestCase):
    """The command line, the JSON request and Python refuse alike."""

    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.mlia = import_mlia()
        cls.tmp = tempfile.mkdtemp(prefix="mlia-options-")
        built = build_fixture(os.path.join(ROOT, "samples", "demo.json"), os.path.join(cls.tmp, "demo"))
        cls.etrecord, cls.etdump = built["etrecord"], built["etdump"]

    def cli(self, *extra):
        p = run_mlia(*check_args(self.etrecord, self.etdump, "--output-dir", self.tmp, *extra))
        self.assertEqual(p.returncode, 2, p.stderr)
        first = p.stderr.splitlines()[0]
        self.assertTrue(first.startswith("mlia: error: "), first)
        return first[len("mlia: error: "):]

    def python(self, **kw):
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(model=self.etrecord, profiling_data=[self.etdump], output_dir=self.tmp, **kw)
        return str(cm.exception)

    def request(self, **members):
        req = dict(model=self.etrecord, profiling_data=[self.etdump], output_dir=self.tmp)
        req.update(members)
        rc, msg = raw_request("mlia_run_advisor_json", json.dumps(req))
        self.assertEqual(rc, 2, msg)
        return msg

    def test_bad_values(self):
        cases = [
            (("--model-explorer", "bogus"), dict(model_explorer="bogus"),
             "argument --model-explorer: invalid choice: 'bogus' (choose from 'files', 'open')"),
            (("--trace", "--trace-format", "xml"), dict(trace="xml"),
             "argument --trace-format: invalid choice: 'xml' (choose from 'perfetto', 'json')"),
            (("--ticks-per-second", "0"), dict(ticks_per_second=0),
             "argument --neural-technology-profiling-data.ticks-per-second: invalid value: '0' (ticks per second: "
             "a number from 1 to 1e15, e.g. 250e6)"),
            (("--warmup-executions", "1.5"), dict(warmup_executions=1.5),
             "argument --neural-technology-profiling-data.warmup-executions: invalid value: '1.5' (a whole number "
             "of executions, 0 to 999999999)"),
            (("--reference-profiling-data", "r.etdump"), dict(reference_profiling_data="r.etdump"),
             "--reference-profiling-data requires --reference-debug-buffer."),
            (("--trace-format", "json"), None, "--trace-format requires --trace."),
            (("--companion-model", "c.vgf"), dict(companion_model="c.vgf"),
             "c.vgf: unsupported companion model file; expected a PTE (.pte)."),
            (("--frob",), dict(frob=1), None),
        ]
        for cli_args, kw, message in cases:
            got = self.cli(*cli_args)
            if message:
                self.assertEqual(got, message, cli_args)
            if kw is not None:
                if message:
                    self.assertEqual(self.python(**kw), message, kw)
                    self.assertEqual(self.request(**kw), message, kw)

    def test_unknown_options_say_what_was_meant(self):
        self.assertEqual(self.cli("--ticks-per-secnd", "5"),
                         "unrecognized arguments: --ticks-per-secnd (did you mean --ticks-per-second?) 5")
        self.assertEqual(self.python(ticks_per_secnd=5),
                         "unrecognized arguments: ticks_per_secnd (did you mean ticks_per_second?)")
        self.assertEqual(self.request(companion=None),
                         "unrecognized arguments: companion (did you mean companion_model?)")
        self.assertEqual(self.python(colour=True), "unrecognized arguments: colour")

    def test_wrongly_shaped_backend_options(self):
        # once silently ignored (the run used ns-based times): now refused
        self.assertEqual(self.python(backend_options={"ticks_per_second": 250e6}),
                         "unrecognized arguments: backend_options.ticks_per_second (did you mean "
                         f"backend_options.{BACKEND}.ticks_per_second?)")
        self.assertEqual(self.python(backend_options={"neural_technology_profiling_data": {"ticks_per_second": 1}}),
                         "unrecognized arguments: backend_options.neural_technology_profiling_data (did you mean "
                         f"backend_options.{BACKEND}?)")
        self.assertEqual(self.python(backend_options={BACKEND: {"ticks-per-second": 1}}),
                         f"unrecognized arguments: backend_options.{BACKEND}.ticks-per-second (did you mean "
                         f"backend_options.{BACKEND}.ticks_per_second?)")
        self.assertEqual(self.python(backend_options={BACKEND: 5}),
                         f"argument backend_options.{BACKEND}: invalid value: '5' (an object of backend options)")
        self.assertEqual(self.python(backend_options=[1]),
                         f"argument backend_options: invalid value: '[1]' (an object: {{\"{BACKEND}\": {{...}}}})")

    def test_non_finite_numbers(self):
        for token in ("NaN", "Infinity", "-Infinity"):
            text = '{"model": %s, "profiling_data": %s, "ticks_per_second": %s}' % (
                json.dumps(self.etrecord), json.dumps(self.etdump), token)
            rc, msg = raw_request("mlia_run_advisor_json", text)
            self.assertEqual((rc, msg), (2, "argument --neural-technology-profiling-data.ticks-per-second: invalid "
                                            f"value: '{token}' (ticks per second: a number from 1 to 1e15, e.g. "
                                            "250e6)"))
        for bad in (float("nan"), float("inf"), -1):
            with self.assertRaises(self.mlia.MliaUsageError) as cm:
                self.mlia.compare(self.tmp, self.tmp, threshold=bad)
            self.assertRegex(str(cm.exception), r"^argument --threshold: invalid value: '(NaN|Infinity|-1)' "
                                                r"\(expected a non-negative number of percent\)$")

    def test_required(self):
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(profiling_data=[self.etdump])
        self.assertEqual(str(cm.exception), "the following arguments are required: MODEL")
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(model=self.etrecord)
        self.assertEqual(str(cm.exception), "the following arguments are required: --profiling-data")
        rc, msg = raw_request("mlia_compare_json", "{}")
        self.assertEqual((rc, msg), (2, "the following arguments are required: BASELINE, NEW"))
        rc, msg = raw_request("mlia_compare_json", '{"baseline": "a", "treshold": 3}')
        self.assertEqual((rc, msg), (2, "unrecognized arguments: treshold (did you mean threshold?)"))


if __name__ == "__main__":
    unittest.main()
