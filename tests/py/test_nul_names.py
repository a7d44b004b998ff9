"""Names with a NUL byte (issue 30 item 2, docs/hardening.md "Names with NUL").

Names are compared and written as C strings, so a NUL inside one cut it
there: two nodes of an ETRecord whose names differ only after an escaped
\\u0000 became one operator, and the run said ok with one operator fewer.
Every reader now refuses a NUL inside an untrusted string with an error that
names the file, the byte offset and (for binary formats) the field path:
the ETRecord's JSON (program and maps), the ETDump's event names and delegate
ids (every FlatBuffers string, tests/formats/test_fb.c), PTE strings, VGF names and the results `mlia compare` reads.
"""
import json
import os
import shutil
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, load_sample, need_binary, run_mlia

NUL_JSON = ("NUL character (\\u0000) in a string at byte {}: refused (names are compared and written up to "
            "their first NUL, so two names could merge)")


def patch_once(path, old, new):
    """Replace the only occurrence of `old` in the file by `new` (same length)."""
    with open(path, "rb") as f:
        data = f.read()
    assert len(old) == len(new) and data.count(old) >= 1, (path, old)
    at = data.index(old)
    with open(path, "wb") as f:
        f.write(data[:at] + new + data[at + len(old):])
    return at


class Base(unittest.TestCase):
    def setUp(self):
        need_binary(self)
        self.tmp = tempfile.mkdtemp(prefix="mlia-nul-names-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def sample(self, name, **change):
        desc = load_sample(name + ".json")
        desc.update(change)
        return build_fixture(desc, os.path.join(self.tmp, name))


class EtrecordJson(Base):
    def two_relus(self, a, b):
        from fixturelib import hostile
        node = hostile.TINY["nodes"][0]
        fx = hostile.tiny_fixture(ROOT, nodes=[dict(node, name=a), dict(node, name=b, args={"self": a})],
                                  outputs=[b], plan=[{"kernel": a}, {"kernel": b}])
        from fixturelib import etrecord as etrecord_mod
        path = os.path.join(self.tmp, "two.etrecord")
        etrecord_mod.write_etrecord(path, {"forward": fx.exported_program_text(legacy=False)},
                                    fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())
        dump = os.path.join(self.tmp, "two.etdump")
        with open(dump, "wb") as f:
            f.write(fx.etdump_bytes())
        return path, dump

    def test_two_nodes_differing_after_a_nul_are_refused_not_merged(self):
        path, dump = self.two_relus("relu\x00a", "relu\x00b")
        with open(path, "rb") as f:
            self.assertIn(b"relu\\u0000a", f.read())
        p = run_mlia(*check_args(path, dump, "--output-dir", self.tmp))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stderr, r"^mlia: error: .*two\.etrecord: edge_dialect_exported_program/forward: "
                         + NUL_JSON.format(r"\d+").replace("(", r"\(").replace(")", r"\)")
                         .replace("\\u0000", r"\\u0000") + "\n$")
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "mlia-output")))

    def test_the_same_names_without_nul_are_two_operators(self):
        path, dump = self.two_relus("relu_a", "relu_b")
        p = run_mlia(*check_args(path, dump, "--json", "--output-dir", self.tmp))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        ids = {b["entity_id"] for r in doc["results"] for b in r.get("breakdowns", [])
               if b["entity_id"].startswith("source_operator/")}
        self.assertEqual(ids, {"source_operator/forward/relu_a", "source_operator/forward/relu_b"})

    def test_nul_in_a_map_key_is_refused(self):
        fx = self.sample("lenet")
        from fixturelib import hostile
        src = fx["etrecord"]
        import zipfile
        with zipfile.ZipFile(src) as z:
            dhm = json.loads(z.read("debug_handle_map"))
        dhm["forward"]["0\u0000"] = [1]
        dst = os.path.join(self.tmp, "key.etrecord")
        hostile._rewrite_entry(src, dst, "debug_handle_map", json.dumps(dhm).encode())
        p = run_mlia("inspect", dst)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stderr, r"^mlia: error: .*key\.etrecord: debug_handle_map: NUL character "
                                   r"\(\\u0000\) in a string at byte \d+: refused")


class Binary(Base):
    def test_etdump_event_name(self):
        fx = self.sample("lenet")
        at = patch_once(fx["etdump"], b"native_call_relu.out", b"native_call_relu\x00out")
        p = run_mlia(*check_args(fx["etrecord"], fx["etdump"], "--output-dir", self.tmp))
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stderr, r"^mlia: error: .*lenet\.etdump: string of 20 bytes holds a NUL byte at byte "
                                   r"16 of it at byte %d \(run_data\[\d+\]\.events\[\d+\]\.profile_event\.name\)\n$"
                         % (at + 16))
        p = run_mlia("inspect", fx["etdump"])
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertIn("string of 20 bytes holds a NUL byte at byte 16 of it", p.stderr)

    def test_pte_operator_name(self):
        fx = self.sample("lenet")
        with open(fx["pte"], "rb") as f:
            data = f.read()
        name = next(n for n in (b"aten::convolution", b"aten::relu", b"aten::addmm") if n in data)
        patch_once(fx["pte"], name, name[:4] + b"\x00" + name[5:])
        p = run_mlia("inspect", fx["pte"])
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stderr, r"^mlia: error: .*lenet\.pte: string of %d bytes holds a NUL byte at byte 4 of "
                                   r"it at byte \d+ \(execution_plan\[0\]\.operators\[\d+\]\.name\)\n$" % len(name))

    def test_vgf_segment_name(self):
        from fixturelib import spirvwrite, vgfwrite
        d = spirvwrite.graph_vgf(load_sample("vww4.json")["pte"]["vgf"]["graph"])
        d["segments"][0]["name"] = "seg\x00ment"
        path = os.path.join(self.tmp, "t.vgf")
        with open(path, "wb") as f:
            f.write(vgfwrite.build(d))
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stderr, r"^mlia: error: .*t\.vgf: .*string of 8 bytes holds a NUL byte at byte 3 of "
                                   r"it at byte \d+ \(.*segments\[0\]\.name\)\n$")


class ResultJson(Base):
    def test_compare_refuses_an_entity_id_with_nul(self):
        fx = self.sample("lenet")
        runs = []
        for name in ("a", "b"):
            out = os.path.join(self.tmp, name)
            p = run_mlia(*check_args(fx["etrecord"], fx["etdump"], "--output-dir", out, "-q"))
            self.assertEqual(p.returncode, 0, p.stderr)
            runs.append(os.path.join(out, "mlia-output", "mlia-output.json"))
        with open(runs[1], encoding="utf-8") as f:
            text = f.read()
        old = '"source_operator/forward/aten_relu_default"'
        self.assertIn(old, text)
        with open(runs[1], "w", encoding="utf-8") as f:
            f.write(text.replace(old, '"source_operator/forward/aten_relu\\u0000default"'))
        p = run_mlia("compare", runs[0], runs[1], "--output-dir", self.tmp)
        self.assertEqual(p.returncode, 1, p.stdout)
        self.assertRegex(p.stderr, r"^mlia: error: .*b/mlia-output/mlia-output\.json: not an mlia output \(NUL character "
                                   r"\(\\u0000\) in a string at byte \d+: refused")


if __name__ == "__main__":
    unittest.main()
