"""What a Python host hands the library arrives whole and is read the same
in every locale (issue 21 items 1 and 3):

- a host that called locale.setlocale(LC_ALL, "de_DE.UTF-8") (decimal comma)
  gets the same result and comparison as one in the "C" locale (the library
  formats and parses numbers in the "C" locale, src/core/cnum.h); skipped
  with the reason when de_DE.UTF-8 is not generated (tools/setup.sh does);
- a NUL byte in any argument, or a path that is not valid UTF-8, is
  MliaUsageError naming the argument (python/mlia/__init__.py), and the C
  JSON entry points refuse a decoded NUL too (src/api/guard.c), so nothing is
  cut at the NUL and nothing is written.
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import BUILD, ROOT, build_fixture

LIB = os.environ.get("MLIA_LIB", os.path.join(ROOT, BUILD, "libmlia.so"))


def have_german():
    import locale
    old = locale.setlocale(locale.LC_ALL)
    try:
        locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
        return True
    except locale.Error:
        return False
    finally:
        locale.setlocale(locale.LC_ALL, old)


def import_mlia():
    os.environ["MLIA_LIB"] = LIB
    sys.path.insert(0, os.path.join(ROOT, "python"))
    import mlia
    return mlia


HOST = r"""
import json, locale, os, sys
sys.path.insert(0, sys.argv[1])
import mlia
etrecord, etdump, out_c, out_de = sys.argv[2:6]
locale.setlocale(locale.LC_ALL, "C")
c = mlia.run_advisor(model=etrecord, profiling_data=[etdump], output_dir=out_c)
cmp_c = mlia.compare(out_c, out_c, threshold=2.5)
locale.setlocale(locale.LC_ALL, "de_DE.UTF-8")
assert "%.1f" % 1.5 == "1.5"            # Python's own % is locale-free
assert locale.format_string("%.1f", 1.5) == "1,5"   # the host really is German
de = mlia.run_advisor(model=etrecord, profiling_data=[etdump], output_dir=out_de, trace="json")
cmp_de = mlia.compare(out_c, out_de, threshold=2.5)
print(json.dumps({"c": c, "de": de, "cmp_c": cmp_c, "cmp_de": cmp_de}))
"""


def metrics(doc):
    """Every numeric metric value of a result: {(entity, name, aggregation): value}."""
    out = {}
    for result in doc["results"]:
        for m in result.get("metrics", []):
            out[("model", m["name"], m.get("aggregation"))] = m.get("value")
        for b in result.get("breakdowns", []):
            for m in b["metrics"]:
                out[(b["entity_id"], m["name"], m.get("aggregation"))] = m.get("value")
    return out


class GermanLocaleHost(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="mlia-locale-py-")
        cls.demo = build_fixture(os.path.join(ROOT, "samples", "demo.json"), os.path.join(cls.tmp, "demo"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_results_and_comparison_same_in_german_locale(self):
        if not have_german():
            self.skipTest("locale de_DE.UTF-8 is not generated (tools/setup.sh: localedef -i de_DE -f UTF-8 "
                          "de_DE.UTF-8)")
        out_c, out_de = os.path.join(self.tmp, "c"), os.path.join(self.tmp, "de")
        os.makedirs(out_c)
        os.makedirs(out_de)
        env = dict(os.environ, MLIA_LIB=LIB)
        proc = subprocess.run([sys.executable, "-c", HOST, os.path.join(ROOT, "python"), self.demo["etrecord"],
                               self.demo["etdump"], out_c, out_de], capture_output=True, text=True, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        got = json.loads(proc.stdout)
        mc, md = metrics(got["c"]), metrics(got["de"])
        self.assertEqual(md, mc)
        # a value with a fraction survived (1.898821 used to become 1,898821)
        self.assertTrue(any(isinstance(v, float) and v != int(v) for v in md.values()))
        # the written file parses and has the same numbers
        with open(os.path.join(out_de, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
            self.assertEqual(metrics(json.load(f)), mc)
        with open(os.path.join(out_de, "mlia-output", "trace.json"), encoding="utf-8") as f:
            json.load(f)
        # the trace is written on request only (trace="json" above, none for out_c)
        self.assertEqual([f for f in os.listdir(os.path.join(out_c, "mlia-output")) if f.startswith("trace")], [])
        # compare() keeps fractions (they used to be cut: 1.898821 -> 1.0)
        self.assertEqual(got["cmp_de"]["threshold_percent"], 2.5)
        self.assertEqual(got["cmp_de"]["metrics"], got["cmp_c"]["metrics"])
        self.assertTrue(any(m["baseline"]["p50"] != int(m["baseline"]["p50"])
                            for m in got["cmp_de"]["metrics"] if m.get("baseline")))


class PythonArguments(unittest.TestCase):
    """MliaUsageError naming the argument; nothing reaches the library."""

    @classmethod
    def setUpClass(cls):
        cls.mlia = import_mlia()
        cls.tmp = tempfile.mkdtemp(prefix="mlia-args-py-")
        cls.demo = build_fixture(os.path.join(ROOT, "samples", "demo.json"), os.path.join(cls.tmp, "demo"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def usage(self, **kw):
        args = dict(model=self.demo["etrecord"], profiling_data=[self.demo["etdump"]])
        args.update(kw)
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.run_advisor(**args)
        return str(cm.exception)

    def test_nul_in_output_dir(self):
        x = os.path.join(self.tmp, "x")
        msg = self.usage(output_dir=x + "\0/../../evil")
        self.assertEqual(msg, f"output_dir contains a NUL byte (at character {len(x)})")
        self.assertFalse(os.path.exists(x))

    def test_nul_in_model_profiling_data_companion_method(self):
        self.assertEqual(self.usage(model=self.demo["etrecord"] + "\0.x"),
                         f"model contains a NUL byte (at character {len(self.demo['etrecord'])})")
        self.assertEqual(self.usage(profiling_data=["a\0b"]), "profiling_data contains a NUL byte (at character 1)")
        self.assertEqual(self.usage(companion_model="\0"), "companion_model contains a NUL byte (at character 0)")
        self.assertEqual(self.usage(backend_options={"neural-technology-profiling-data":
                                                     {"etrecord_method": "forward\0evil"}}),
                         "etrecord_method contains a NUL byte (at character 7)")
        self.assertEqual(self.usage(model_explorer="files\0"), "model_explorer contains a NUL byte (at character 5)")

    def test_undecodable_paths(self):
        self.assertEqual(self.usage(output_dir=b"/tmp/\xff"),
                         "output_dir is not valid UTF-8 (byte 5): b'/tmp/\\xff'")
        self.assertEqual(self.usage(model=os.fsdecode(b"/tmp/m\xfe.etrecord")),
                         "model cannot be decoded as UTF-8 (character 6): '/tmp/m\\udcfe.etrecord'")
        self.assertEqual(self.usage(profiling_data=[b"\x80"]),
                         "profiling_data is not valid UTF-8 (byte 0): b'\\x80'")

    def test_bytes_paths_in_utf8_work(self):
        res = self.mlia.run_advisor(model=os.fsencode(self.demo["etrecord"]),
                                    profiling_data=[os.fsencode(self.demo["etdump"])])
        self.assertEqual(res["results"][0]["status"], "ok")

    def test_compare_arguments(self):
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.compare("a\0b", "c")
        self.assertEqual(str(cm.exception), "baseline contains a NUL byte (at character 1)")
        with self.assertRaises(self.mlia.MliaUsageError) as cm:
            self.mlia.compare("a", b"\xc3")
        self.assertEqual(str(cm.exception), "new is not valid UTF-8 (byte 0): b'\\xc3'")


class CRequestStrings(unittest.TestCase):
    """The C JSON entry points refuse a decoded NUL (exit code 2, the member named)."""

    def call(self, fn, request):
        lib = ctypes.CDLL(LIB)
        f = getattr(lib, fn)
        f.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        lib.mlia_free.argtypes = [ctypes.c_void_p]
        res, err = ctypes.c_void_p(), ctypes.c_void_p()
        rc = f(json.dumps(request).encode(), ctypes.byref(res), ctypes.byref(err))
        msg = ctypes.string_at(err.value).decode() if err.value else None
        lib.mlia_free(res)
        lib.mlia_free(err)
        return rc, msg

    def test_advisor_request_nul(self):
        tmp = tempfile.mkdtemp(prefix="mlia-req-")
        try:
            x = os.path.join(tmp, "x")
            rc, msg = self.call("mlia_run_advisor_json", {"model": "m.etrecord", "profiling_data": ["d.etdump"],
                                                          "output_dir": x + "\0/../evil"})
            self.assertEqual((rc, msg), (2, f'request: "output_dir" contains a NUL byte (at byte {len(x)})'))
            rc, msg = self.call("mlia_run_advisor_json", {"model": "m.etrecord", "profiling_data": ["d\0.etdump"]})
            self.assertEqual((rc, msg), (2, 'request: "profiling_data" contains a NUL byte (at byte 1)'))
            self.assertFalse(os.path.exists(x))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def test_compare_request_nul(self):
        rc, msg = self.call("mlia_compare_json", {"baseline": "a", "new": "b\0c"})
        self.assertEqual((rc, msg), (2, 'request: "new" contains a NUL byte (at byte 1)'))


if __name__ == "__main__":
    unittest.main()
