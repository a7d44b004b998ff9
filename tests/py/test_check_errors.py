"""Bad inputs to `mlia check`: one clear error line naming the file (and byte offset or
entry), exit status 1, and no mlia-output tree left behind."""
import json
import os
import shutil
import tempfile
import unittest
import zipfile

from helpers import ROOT, build_fixture, check_args, fixture, fixture_path, need_binary, run_mlia

# The real LeNet ETDump: the byte-exact error messages below are facts of
# that file. Errors about the ETRecord use the generated LeNet capture.
LENET = fixture_path("executorch/lenet.etdp")


class CheckErrors(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-errors-")
        built = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), cls.tmp)
        cls.etrecord = built["etrecord"]
        cls.gen_etdump = built["etdump"]
        cls.gen_pte = built["pte"]

    @property
    def etdump_bytes(self):
        with open(fixture("executorch/lenet.etdp"), "rb") as f:
            return f.read()

    def write(self, name, data):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(data)
        return path

    def expect(self, etrecord, etdump, message, *extra):
        out = tempfile.mkdtemp(dir=self.tmp)
        p = run_mlia(*check_args(etrecord, etdump, "--output-dir", out, *extra))
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(p.stderr, f"mlia: error: {message}\n")
        self.assertEqual(p.stdout, "")
        self.assertEqual(os.listdir(out), [])

    def test_truncated_etdump(self):
        path = self.write("trunc.etdump", self.etdump_bytes[:1000])
        self.expect(self.etrecord, path, f"{path}: size prefix 2316 exceeds the 996 bytes that follow at byte 0")

    def test_bit_flipped_etdump(self):
        d = bytearray(self.etdump_bytes)
        d[40] ^= 0xFF
        d[41] ^= 0xFF
        path = self.write("flip.etdump", bytes(d))
        self.expect(self.etrecord, path, f"{path}: vtable at 63493 outside the buffer at byte 40 (run_data[1])")

    def test_every_truncation_of_the_etdump_is_one_error_line(self):
        for n in range(0, len(self.etdump_bytes), 97):
            path = self.write("t.etdump", self.etdump_bytes[:n])
            p = run_mlia(*check_args(self.etrecord, path, "--output-dir", self.tmp + "/tx"))
            self.assertEqual(p.returncode, 1, (n, p.stderr))
            self.assertEqual(len(p.stderr.splitlines()), 1, (n, p.stderr))
            self.assertTrue(p.stderr.startswith(f"mlia: error: {path}: "), (n, p.stderr))

    def test_wrong_identifier(self):
        d = bytearray(self.etdump_bytes)
        d[8] = ord("X")
        path = self.write("badid.etdump", bytes(d))
        self.expect(self.etrecord, path, f'{path}: not an ETDump: no "ED00" identifier at byte 8 (size-prefixed) or 4')

    def test_pte_given_as_etdump(self):
        path = os.path.join(self.tmp, "lenet-pte.etdump")
        shutil.copy(self.gen_pte, path)
        # told by content (issue 19, 8): a usage error that says where the PTE goes
        out = os.path.join(self.tmp, "out")
        p = run_mlia(*check_args(self.etrecord, path, "--output-dir", out))
        self.assertEqual(p.returncode, 2, p.stderr)
        self.assertEqual(p.stderr.splitlines()[0],
                         f"mlia: error: --profiling-data {path} is a PTE program, not an ETDump: give the ETDump "
                         "written by the run with --profiling-data; the PTE goes with --companion-model.")

    def test_zip_that_is_not_an_etrecord(self):
        path = os.path.join(self.tmp, "notrec.etrecord")
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("hello", "x")
        self.expect(path, self.gen_etdump, f"{path}: ETRecord identifier missing from the archive")

    def test_not_a_zip(self):
        path = self.write("notzip.etrecord", b"hello world")
        self.expect(path, self.gen_etdump, f"{path}: Invalid etrecord file passed in.")

    def test_corrupt_program_json(self):
        path = os.path.join(self.tmp, "badjson.etrecord")
        with zipfile.ZipFile(self.etrecord) as src, zipfile.ZipFile(path, "w") as z:
            for i in src.infolist():
                data = src.read(i.filename)
                if i.filename == "edge_dialect_exported_program/forward":
                    data = data[:500]
                z.writestr(i.filename, data)
        self.expect(path, self.gen_etdump, f"{path}: edge_dialect_exported_program/forward: invalid JSON at byte 500: "
                                 "unterminated string")

    def test_unknown_method(self):
        self.expect(self.etrecord, self.gen_etdump, f"{self.etrecord}: method 'decode' is not recorded in the ETRecord; "
                                          "recorded methods: forward",
                    "--neural-technology-profiling-data.etrecord-method", "decode")

    def test_legacy_etrecord_matches_no_etdump(self):
        legacy = fixture("executorch/legacy-mul.etrecord.bin")
        out = tempfile.mkdtemp(dir=self.tmp)
        p = run_mlia(*check_args(legacy, self.gen_etdump, "--output-dir", out, "--json"))
        # the legacy file has empty maps: it is read, but nothing can be attributed, so the
        # run is not ok (issue 28 item 5): status incompatible, exit 1, the outputs written
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertTrue(p.stderr.startswith(f"mlia: error: {self.gen_etdump}: None of the "), p.stderr)
        self.assertTrue(p.stderr.endswith(" (status incompatible; the outputs were written)\n"), p.stderr)
        self.assertIn('"etrecord_method": "forward"', p.stdout)
        self.assertEqual(json.loads(p.stdout)["results"][0]["status"], "incompatible")


if __name__ == "__main__":
    unittest.main()
