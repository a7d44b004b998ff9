"""ETDump schema versions (docs/formats/etdump.md, section 7): the reader
dispatches on the root's `version` field.

Generated LeNet captures (samples/lenet.json with `etdump.version`):
- version 0, absent (as the runtime writes it) or stored: read, same result;
- version 1 (ExecuTorch's 2023 pre-release ETDumpGen layout): known, refused with
  what it is;
- any other version: unknown, refused naming the version and the readable ones;
each refusal is one error line with the file and the byte offset of the version field,
exit status 1, nothing written; `mlia inspect` refuses the same way.
"""
import json
import os
import shutil
import struct
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, need_binary, run_mlia

V1 = ("the layout of ExecuTorch's 2023 pre-release ETDumpGen (profile and debug blocks per run), "
      "which mlia does not read")


def version_field_offset(data):
    """File offset of ETDump.version in a size-prefixed ETDump (decoded here, not by mlia)."""
    root = 4 + struct.unpack_from("<I", data, 4)[0]
    vt = root - struct.unpack_from("<i", data, root)[0]
    vt_size = struct.unpack_from("<H", data, vt)[0]
    assert vt_size >= 6, "version field absent"
    off = struct.unpack_from("<H", data, vt + 4)[0]
    assert off, "version field absent"
    return root + off


class EtdumpVersions(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-etdump-versions-")
        with open(os.path.join(ROOT, "samples", "lenet.json"), encoding="utf-8") as f:
            cls.desc = json.load(f)
        cls.built = {}

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def capture(self, version):
        """(etrecord, etdump) of LeNet with the ETDump at `version` (None: not stored)."""
        if version not in self.built:
            desc = json.loads(json.dumps(self.desc))
            desc["name"] = "lenet-v%s" % version
            desc.pop("pte", None)
            if version is not None:
                desc.setdefault("etdump", {})["version"] = version
            self.built[version] = build_fixture(desc, os.path.join(self.tmp, "v%s" % version))
        b = self.built[version]
        return b["etrecord"], b["etdump"]

    def check(self, version):
        etrecord, etdump = self.capture(version)
        out = tempfile.mkdtemp(dir=self.tmp)
        return run_mlia(*check_args(etrecord, etdump, "--output-dir", out, "--json")), out

    def refused(self, version, what):
        etrecord, etdump = self.capture(version)
        with open(etdump, "rb") as f:
            at = version_field_offset(f.read())
        line = f"mlia: error: {etdump}: {what} (supported: 0) at byte {at} (version)\n"
        p, out = self.check(version)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (1, "", line))
        self.assertEqual(os.listdir(out), [])
        p = run_mlia("inspect", etdump)
        self.assertEqual((p.returncode, p.stdout, p.stderr), (1, "", line))

    # ------------------------------------------------------------ version 0
    def test_version_0_absent_is_read(self):
        etrecord, etdump = self.capture(0)
        with open(etdump, "rb") as f:
            data = f.read()
        # the builder omits the default, like the runtime's flatcc writer
        with self.assertRaises(AssertionError):
            version_field_offset(data)
        with open(self.capture(None)[1], "rb") as f:
            self.assertEqual(f.read(), data)
        p, _out = self.check(0)
        self.assertEqual(p.returncode, 0, p.stderr)
        p = run_mlia("inspect", etdump)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual((doc["format"], doc["version"], len(doc["runs"])), ("etdump", 0, 2))

    def test_version_0_stored_is_read(self):
        from fixturelib import flatbuf, schema_etdump as S  # helpers puts tools/ on the path
        b = flatbuf.Builder()
        runs = b.create_offset_vector([])
        b.start_table()
        b.add_field(S.ETDUMP_SLOT_ET_DUMP_VERSION, "uint", 0, force=True)
        b.add_field_ref(S.ETDUMP_SLOT_ET_DUMP_RUN_DATA, runs)
        data = b.finish(b.end_table(), S.ETDUMP_FILE_IDENTIFIER, size_prefix=True)
        self.assertGreater(version_field_offset(data), 8)
        path = os.path.join(self.tmp, "stored-v0.etdp")
        with open(path, "wb") as f:
            f.write(data)
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual((doc["format"], doc["version"], doc["runs"]), ("etdump", 0, []))

    # ------------------------------------------------------------ version 1
    def test_version_1_is_known_and_refused(self):
        self.refused(1, "ETDump schema version 1 is " + V1)

    # ------------------------------------------------------------ unknown
    def test_unknown_version_is_refused(self):
        self.refused(7, "unknown ETDump schema version 7")

    def test_largest_version_is_refused(self):
        self.refused(0xFFFFFFFF, "unknown ETDump schema version 4294967295")


if __name__ == "__main__":
    unittest.main()
