"""Messages keep their reason, numbers are decimal, zip names are bytes
(issue 21 item 5; the install-path quoting is in test_install.py):

- an error about a 4,063-character output folder still ends with the reason
  (the middle of the text is cut, core/error.c), exact line and exit 1;
- `mlia compare --threshold` takes plain decimal numbers only (0x10, 1e1,
  inf, +5 are usage errors, exit 2);
- ETRecord entry names are read as the bytes stored (ZIP_FL_ENC_RAW): a
  method name with a control byte stays one method.
"""
import json
import os
import re
import shutil
import sys
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, need_binary, run_mlia

sys.path.insert(0, os.path.join(ROOT, "tools"))


class Base(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-msg-")
        cls.demo = build_fixture(os.path.join(ROOT, "samples", "demo.json"), os.path.join(cls.tmp, "demo"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


class LongPathReason(Base):
    def test_output_folder_of_4063_characters(self):
        base = os.path.join(self.tmp, "long")
        out = (base + "/" + "/".join(["e" * 250] * 17))[:4063]
        os.makedirs(out)
        p = run_mlia(*check_args(self.demo["etrecord"], self.demo["etdump"], "--output-dir", out))
        self.assertEqual(p.returncode, 1, p.stderr)
        whole = out + "/mlia-output/mlia-output.json: cannot write: File name too long"
        m = re.fullmatch(r"mlia: error: (.*)\[\.\.\. (\d+) bytes cut \.\.\.\](.*)\n", p.stderr, re.S)
        self.assertIsNotNone(m, p.stderr[-300:])
        head, cut, tail = m.group(1), int(m.group(2)), m.group(3)
        self.assertEqual(head + whole[len(head):len(head) + cut] + tail, whole)
        self.assertTrue(whole.startswith(head) and whole.endswith(tail))
        self.assertTrue(tail.endswith(": cannot write: File name too long"))
        self.assertLess(len(p.stderr), 2100)


class DecimalThreshold(Base):
    @classmethod
    def setUpClass(cls):
        super().setUpClass()
        cls.run_dir = os.path.join(cls.tmp, "run")
        os.makedirs(cls.run_dir)
        p = run_mlia(*check_args(cls.demo["etrecord"], cls.demo["etdump"], "--output-dir", cls.run_dir, "-q"))
        assert p.returncode == 0, p.stderr

    def test_non_decimal_rejected(self):
        for text in ("0x10", "1e1", "inf", "nan", "+5", " 5", "5 ", "1,5", "0x1p4", "."):
            p = run_mlia("compare", self.run_dir, self.run_dir, "--threshold", text, "--output-dir", self.tmp)
            self.assertEqual(p.returncode, 2, text)
            self.assertEqual(p.stderr.splitlines()[0],
                             f"mlia: error: argument --threshold: invalid value: '{text}' "
                             "(expected a non-negative number of percent)")

    def test_decimal_accepted(self):
        for text, value in (("16", 16.0), ("2.5", 2.5), (".5", 0.5), ("5.", 5.0), ("007", 7.0)):
            out = os.path.join(self.tmp, "cmp-" + text)
            os.makedirs(out, exist_ok=True)
            p = run_mlia("compare", self.run_dir, self.run_dir, "--threshold", text, "--output-dir", out, "-q")
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(os.path.join(out, "compare", "compare.json"), encoding="utf-8") as f:
                self.assertEqual(json.load(f)["threshold_percent"], value)


class ZipNamesAsBytes(Base):
    def test_control_byte_method_stays_one_method(self):
        from fixturelib import etrecord as etrecord_mod, hostile
        fx = hostile.tiny_fixture(ROOT)
        text = fx.exported_program_text(legacy=False)
        dhm, dm, nom = fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map()
        first = next(iter(dhm))
        names = ["f\x01", "forward"]
        path = os.path.join(self.tmp, "ctl.etrecord")
        etrecord_mod.write_etrecord(path, {n: text for n in names}, {n: dhm[first] for n in names},
                                    {n: dm.get(first, {}) for n in names}, {n: nom.get(first, {}) for n in names})
        dump = hostile.tiny_etdump(os.path.join(self.tmp, "ctl.etdump"), ROOT)
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        methods = [m["name"] for m in json.loads(p.stdout)["methods"]]
        self.assertEqual(methods, ["f\x01", "forward"])   # not a third, "f\u263a"
        p = run_mlia(*check_args(path, dump, "--neural-technology-profiling-data.etrecord-method", "f\x01",
                                 "--json"))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        ids = [b["entity_id"] for r in doc["results"] for b in r.get("breakdowns", [])]
        self.assertIn("source_operator/f\x01/aten_relu_default", ids)


if __name__ == "__main__":
    unittest.main()
