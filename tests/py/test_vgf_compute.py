"""COMPUTE segments and placeholder modules (docs/formats/vgf.md §4-9), with VGF files
written by tools/fixturelib/vgfwrite.py: the shared fixtures hold GRAPH
segments only.

- the writer itself: header layout, 8-aligned sections, describe/build round
  trip, vww4 rebuilt from its description decodes exactly like the original;
- `mlia inspect` of [GRAPH placeholder, COMPUTE placeholder (code_type NONE),
  COMPUTE GLSL] and of a COMPUTE module with a real (tiny) SPIR-V shader;
- bad inputs: dispatch_shape of length != 3 (X10, error), constants in a
  compute segment (§17, warning), segment/module type mismatch (X2), two
  descriptor sets (§18 runtime rule, warning);
- `mlia check` with a companion PTE whose VGF is [GRAPH (the vww4 sample's
  generated SPIR-V graph), COMPUTE]: the W10 warning, the PTE view node, and the companion mismatch
  when the statistics disagree on graph vs compute.
"""
import json
import os
import re
import struct
import tempfile
import unittest

from helpers import MLIA, ROOT, check_args, fixture, fixture_path, load_sample, run_mlia

from fixturelib import vgf as vgf_scan  # noqa: E402  (helpers puts tools/ on the path)
from fixturelib import vgfwrite  # noqa: E402

TENSOR = vgfwrite.DESCRIPTOR_TENSOR_ARM
VWW4 = fixture_path("vgf/vww4.vgf")
GLSL = "#version 450\nlayout(local_size_x = 8) in;\nvoid main() {}\n"


def three_segments():
    """GRAPH (placeholder SPIR-V, one word 0), COMPUTE (code_type NONE),
    COMPUTE (GLSL source), chained by INTERMEDIATE resources."""
    return {
        "modules": [
            {"type": "graph", "name": "graph_partition_0", "entry_point": "main", "words": [0]},
            {"type": "compute", "name": "shader_placeholder", "entry_point": "main", "code_type": "none"},
            {"type": "compute", "name": "grid_sample", "entry_point": "main", "source": GLSL},
        ],
        "segments": [
            {"type": "graph", "name": "graph_segment_0", "module_index": 0,
             "set_infos": [{"bindings": [[0, 0], [1, 1]]}], "inputs": [[0, 0]], "outputs": [[1, 1]],
             "constants": [], "dispatch_shape": [0, 0, 0], "push_constant_ranges": []},
            {"type": "compute", "name": "compute_segment_0", "module_index": 1,
             "set_infos": [{"bindings": [[0, 1], [1, 2]]}], "inputs": [[0, 1]], "outputs": [[1, 2]],
             "dispatch_shape": [4, 1, 1]},
            {"type": "compute", "name": "compute_segment_1", "module_index": 2,
             "set_infos": [{"bindings": [[0, 2], [1, 3]], "set_index": 0}], "inputs": [[0, 2]],
             "outputs": [[1, 3]], "dispatch_shape": [2, 2, 1], "push_constant_ranges": [[32, 0, 16]]},
        ],
        "inputs": [[0, 0]], "outputs": [[1, 3]], "input_names": ["input_0"], "output_names": ["output_0"],
        "resources": [
            {"category": "input", "vk_descriptor_type": TENSOR, "vk_format": 14, "shape": [1, 16, 16, 16]},
            {"category": "intermediate", "vk_descriptor_type": TENSOR, "vk_format": 14, "shape": [1, 8, 8, 16]},
            {"category": "intermediate", "vk_descriptor_type": 7, "vk_format": 100, "shape": [1, 8, 8, 16]},
            {"category": "output", "vk_descriptor_type": 7, "vk_format": 100, "shape": [1, 8, 8, 16]},
        ],
    }


PLACEHOLDER_WARNINGS = [
    "module 0 (graph_partition_0): placeholder module (no embedded SPIR-V code)",
    "module 1 (shader_placeholder): placeholder module (no embedded shader code)",
    "segment 0 (graph_segment_0): graph segment with a placeholder module; no operation graph",
]


def vww4_plus_compute():
    """vww4 rebuilt as 0.4.3 with a second, COMPUTE placeholder segment that
    reads vww4's output (MRT 96) and writes a new storage buffer (MRT 97)."""
    with open(VWW4, "rb") as f:
        d = vgfwrite.describe(f.read())
    d["version"] = [0, 4, 3]
    d["modules"].append({"type": "compute", "name": "custom_shader", "entry_point": "main", "code_type": "none"})
    d["resources"].append({"category": "output", "vk_descriptor_type": 7, "vk_format": 14, "shape": [1, 2]})
    d["segments"].append({"type": "compute", "name": "compute_segment_0", "module_index": 1,
                          "set_infos": [{"bindings": [[0, 96], [1, 97]]}], "inputs": [[0, 96]],
                          "outputs": [[1, 97]], "dispatch_shape": [4, 1, 1]})
    return d


def sample_graph():
    """The SPIR-V TOSA graph description of samples/vww4.json (spirvwrite)."""
    return load_sample("vww4.json")["pte"]["vgf"]["graph"]


def sample_plus_compute():
    """The vww4 sample's generated VGF (one GRAPH segment) with a second,
    COMPUTE placeholder segment that reads the graph's output and writes a
    new storage buffer: the capture's labels match segment 0."""
    from fixturelib import spirvwrite
    d = spirvwrite.graph_vgf(sample_graph())
    out_mrt = d["outputs"][0][1]
    d["modules"].append({"type": "compute", "name": "custom_shader", "entry_point": "main", "code_type": "none"})
    d["resources"].append({"category": "output", "vk_descriptor_type": 7, "vk_format": 14, "shape": [1, 2]})
    d["segments"].append({"type": "compute", "name": "compute_segment_0", "module_index": 1,
                          "set_infos": [{"bindings": [[0, out_mrt], [1, len(d["resources"]) - 1]]}],
                          "inputs": [[0, out_mrt]], "outputs": [[1, len(d["resources"]) - 1]],
                          "dispatch_shape": [4, 1, 1]})
    return d


class Tmp(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="mlia-vgf-compute-")
        self.tmp = self._tmp.name

    def tearDown(self):
        self._tmp.cleanup()

    def write(self, desc, name="t.vgf"):
        path = os.path.join(self.tmp, name)
        with open(path, "wb") as f:
            f.write(vgfwrite.build(desc))
        return path


def need_mlia():
    if not os.path.exists(MLIA):
        raise unittest.SkipTest(f"{MLIA} not built (set MLIA_BIN or run make)")


def need_vww4():
    fixture("vgf/vww4.vgf")   # skips (or fails) like every real-fixture test


class WriterTests(Tmp):
    """The writer on its own (no binary needed)."""

    def test_header_and_aligned_sections(self):
        data = vgfwrite.build(three_segments())
        self.assertEqual(data[:4], b"VGF1")
        self.assertEqual(struct.unpack_from("<H", data, 4)[0], 0)
        self.assertEqual(tuple(data[8:11]), (0, 4, 3))
        self.assertEqual(data[6:8] + data[11:16] + data[80:128], bytes(55))
        end = 128
        for i in range(4):
            off, size = struct.unpack_from("<QQ", data, 16 + 16 * i)
            self.assertEqual(off % 8, 0, i)
            self.assertGreaterEqual(off, end)
            self.assertLess(off - end, 8)          # only 0-7 bytes of zero padding
            self.assertEqual(data[end:off], bytes(off - end))
            end = off + size
        self.assertEqual(end, len(data))
        off, size = struct.unpack_from("<QQ", data, 64)
        self.assertEqual(data[off:off + size], b"CONST00\0" + bytes(8))   # count 0

    def test_round_trip(self):
        d = three_segments()
        back = vgfwrite.describe(vgfwrite.build(d))
        self.assertEqual([(m["type"], m["name"], m["entry_point"], m["code_type"]) for m in back["modules"]],
                         [(1, "graph_partition_0", "main", 1), (0, "shader_placeholder", "main", 0),
                          (0, "grid_sample", "main", 2)])
        self.assertEqual(back["modules"][0]["words"], [0])
        self.assertEqual(back["modules"][2]["source"], GLSL)
        self.assertNotIn("words", back["modules"][1])
        s1, s2 = back["segments"][1], back["segments"][2]
        self.assertEqual((s1["type"], s1["module_index"], s1["dispatch_shape"], s1["constants"],
                          s1["push_constant_ranges"]), (0, 1, [4, 1, 1], None, None))
        self.assertEqual(s1["set_infos"], [{"bindings": [[0, 1], [1, 2]], "set_index": None}])
        self.assertEqual(s2["set_infos"][0]["set_index"], 0)
        self.assertEqual(s2["push_constant_ranges"], [[32, 0, 16]])
        self.assertEqual(back["segments"][0]["constants"], [])   # present but empty
        self.assertEqual([r["category"] for r in back["resources"]], [0, 2, 2, 1])
        self.assertEqual(back["resources"][3]["shape"], [1, 8, 8, 16])
        self.assertEqual((back["input_names"], back["output_names"]), (["input_0"], ["output_0"]))

    def test_vww4_description(self):
        need_vww4()
        with open(VWW4, "rb") as f:
            data = f.read()
        d = vgfwrite.describe(data)
        self.assertEqual(d["version"], [0, 3, 0])
        self.assertEqual(len(d["modules"]), 1)
        self.assertEqual(len(d["modules"][0]["words"]), 38114)
        self.assertEqual(d["segments"][0]["constants"], list(range(95)))
        self.assertEqual(d["segments"][0]["dispatch_shape"], [0, 0, 0])
        self.assertEqual(len(d["resources"]), 97)
        self.assertEqual(d["resources"][95]["shape"], [1, 128, 128, 1])
        self.assertEqual(len(d["constants"]), 95)
        self.assertEqual(len(d["constants"][0]["data"]), 864)
        self.assertEqual(len(d["constants"][94]["data"]), 72)
        rebuilt = vgfwrite.build(d)
        # the SPIR-V scan of the fixture builder sees the same TOSA ops
        self.assertEqual(vgf_scan.segment_tosa_ops(rebuilt), vgf_scan.segment_tosa_ops(data))


class InspectTests(Tmp):
    @classmethod
    def setUpClass(cls):
        need_mlia()

    def inspect(self, path):
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stderr, "")
        return json.loads(p.stdout)

    def test_graph_placeholder_and_two_compute_segments(self):
        doc = self.inspect(self.write(three_segments()))
        self.assertNotIn("error", doc)
        self.assertEqual(doc["version"], "0.4.3")
        segs = doc["segments"]
        self.assertEqual([s["type"] for s in segs], ["graph", "compute", "compute"])
        self.assertEqual([s["name"] for s in segs], ["graph_segment_0", "compute_segment_0", "compute_segment_1"])
        self.assertEqual([s["placeholder"] for s in segs], [True, True, False])
        self.assertEqual([s["dispatch_shape"] for s in segs], [[0, 0, 0], [4, 1, 1], [2, 2, 1]])
        self.assertEqual([s["operations"] for s in segs], [[], [], []])
        self.assertTrue(all("graph" not in s for s in segs))
        self.assertEqual(segs[1]["descriptor_sets"],
                         [{"set_index": 0, "explicit_index": False,
                           "bindings": [{"binding": 0, "resource": 1}, {"binding": 1, "resource": 2}]}])
        self.assertEqual(segs[2]["descriptor_sets"][0]["explicit_index"], True)
        self.assertEqual(segs[2]["push_constant_ranges"], [{"stage_flags": 32, "offset": 0, "size": 16}])
        self.assertEqual(segs[1]["inputs"], [{"binding": 0, "resource": 1}])
        self.assertEqual(segs[1]["outputs"], [{"binding": 1, "resource": 2}])
        mods = doc["modules"]
        self.assertEqual([(m["type"], m["code_type"], m["placeholder"]) for m in mods],
                         [("GRAPH", "SPIRV", True), ("COMPUTE", "NONE", True), ("COMPUTE", "GLSL", False)])
        self.assertEqual(mods[0]["words"], 1)
        self.assertNotIn("words", mods[1])
        self.assertEqual(mods[2]["source_bytes"], len(GLSL))
        self.assertEqual([r["descriptor_type"] for r in doc["resources"]],
                         ["TENSOR_ARM", "TENSOR_ARM", "STORAGE_BUFFER", "STORAGE_BUFFER"])
        self.assertEqual([r["category"] for r in doc["resources"]], ["INPUT", "INTERMEDIATE", "INTERMEDIATE", "OUTPUT"])
        self.assertEqual(doc["constants_encoding"], "CONST00")
        self.assertEqual(doc["warnings"], PLACEHOLDER_WARNINGS)

    def test_compute_module_with_spirv_shader(self):
        d = three_segments()
        d["modules"][1] = {"type": "compute", "name": "tiny", "entry_point": "main",
                           "words": list(vgfwrite.TINY_COMPUTE_SPIRV)}
        doc = self.inspect(self.write(d))
        m = doc["modules"][1]
        self.assertEqual((m["code_type"], m["placeholder"], m["words"]), ("SPIRV", False, 35))
        self.assertEqual(m["spirv"], {"version": "1.0", "generator": 0, "bound": 5, "instructions": 10,
                                      "imports": [], "graphs": [], "graph_constants": 0})
        self.assertEqual(doc["segments"][1]["placeholder"], False)
        self.assertEqual(doc["segments"][1]["operations"], [])
        self.assertEqual(doc["warnings"], [PLACEHOLDER_WARNINGS[0], PLACEHOLDER_WARNINGS[2]])

    def test_absent_dispatch_shape_is_null(self):
        d = three_segments()
        d["segments"][1]["dispatch_shape"] = None
        doc = self.inspect(self.write(d))
        self.assertIsNone(doc["segments"][1]["dispatch_shape"])
        self.assertEqual(doc["warnings"], PLACEHOLDER_WARNINGS)

    def test_vww4_rebuilt_decodes_like_the_original(self):
        need_vww4()
        with open(VWW4, "rb") as f:
            d = vgfwrite.describe(f.read())
        d["version"] = [0, 4, 3]
        got = self.inspect(self.write(d))
        want = self.inspect(VWW4)
        for key in ("segments", "model", "resources", "warnings"):
            self.assertEqual(got[key], want[key], key)
        self.assertEqual(got["constants_encoding"], "CONST00")
        self.assertEqual([(c["resource"], c["size"]) for c in got["constants"]],
                         [(c["resource"], c["size"]) for c in want["constants"]])
        self.assertEqual(got["modules"][0]["spirv"], want["modules"][0]["spirv"])

    def test_vww4_plus_compute_segment(self):
        need_vww4()
        doc = self.inspect(self.write(vww4_plus_compute()))
        self.assertEqual([s["type"] for s in doc["segments"]], ["graph", "compute"])
        self.assertEqual(len(doc["segments"][0]["operations"]), 168)
        self.assertEqual(doc["segments"][1]["operations"], [])
        self.assertEqual(doc["segments"][1]["dispatch_shape"], [4, 1, 1])
        self.assertEqual(doc["warnings"], ["module 1 (custom_shader): placeholder module (no embedded shader code)"])


def dispatch_vector_byte(data, segment):
    """File offset of segments[segment].dispatch_shape's length word."""
    off, _size = struct.unpack_from("<QQ", data, 32)
    sec = data[off:]
    root = struct.unpack_from("<I", sec, 0)[0]
    seg = vgfwrite._tables(sec, root, 0)[segment]
    field = vgf_scan._field(sec, seg, 7)
    return off + vgf_scan._ref(sec, field)


class BadInputTests(Tmp):
    @classmethod
    def setUpClass(cls):
        need_mlia()

    def run_bad_dispatch(self, shape):
        d = three_segments()
        d["segments"][1]["dispatch_shape"] = shape
        path = self.write(d)
        with open(path, "rb") as f:
            byte = dispatch_vector_byte(f.read(), 1)
        return path, byte, run_mlia("inspect", path)

    def test_dispatch_shape_not_three_elements_is_an_error(self):
        # docs/formats/vgf.md §5 / X10: if present, dispatch_shape MUST have 3 elements.
        # The byte is checked separately below (known product bug).
        for shape in ([4, 1], [], [4, 1, 1, 1]):
            with self.subTest(shape=shape):
                path, _byte, p = self.run_bad_dispatch(shape)
                self.assertEqual(p.returncode, 1)
                self.assertEqual(p.stdout, "")
                self.assertRegex(p.stderr,
                                 r"^mlia: error: %s: sequence section invalid: dispatch_shape has %d elements, "
                                 r"expected 3 at byte \d+ \(segments\[1\]\.dispatch_shape\)\n$"
                                 % (re.escape(path), len(shape)))

    # A vector-level error names the vector's length word (as fb.c's own
    # "vector of N elements extends past the end" errors do), not element 0.
    def test_dispatch_shape_error_names_the_length_word(self):
        path, byte, p = self.run_bad_dispatch([4, 1])
        self.assertEqual(p.stderr,
                         f"mlia: error: {path}: sequence section invalid: dispatch_shape has 2 elements, "
                         f"expected 3 at byte {byte} (segments[1].dispatch_shape)\n")

    def test_compute_segment_with_constants_warns(self):
        # docs/formats/vgf.md §9: a compute segment MUST NOT list constants (the ET runtime
        # rejects them); the reader reports it as a warning and keeps decoding.
        d = three_segments()
        d["segments"][1]["constants"] = [0]
        d["resources"].append({"category": "constant", "vk_descriptor_type": vgfwrite.DESCRIPTOR_NONE,
                               "vk_format": 14, "shape": [4]})
        d["constants"] = [{"mrt_index": 4, "data": bytes(4)}]
        p = run_mlia("inspect", self.write(d))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["segments"][1]["constants"], [0])
        self.assertEqual(doc["constants"][0]["size"], 4)
        self.assertEqual(doc["warnings"], PLACEHOLDER_WARNINGS[:2] + [
            "segment 1: compute segment lists 1 constants; the ExecuTorch runtime rejects them",
            PLACEHOLDER_WARNINGS[2]])

    def test_compute_constant_index_out_of_range_is_an_error(self):
        # X4 applies to compute segments too.
        d = three_segments()
        d["segments"][1]["constants"] = [0]
        path = self.write(d)
        p = run_mlia("inspect", path)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {path}: sequence section invalid: segments[1].constants[0] = 0 "
                                   "is out of range (0 constants)\n")

    def test_segment_type_differs_from_module_type(self):
        # X2: a GRAPH segment pointing at the COMPUTE placeholder module.
        d = three_segments()
        d["segments"][1]["type"] = "graph"
        p = run_mlia("inspect", self.write(d))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual(doc["segments"][1]["type"], "graph")
        self.assertEqual(doc["warnings"], PLACEHOLDER_WARNINGS[:2] + [
            "segment 1: type 1 differs from module 1 type 0",
            PLACEHOLDER_WARNINGS[2],
            "segment 1 (compute_segment_0): graph segment with a placeholder module; no operation graph"])

    def test_two_descriptor_sets_in_a_compute_segment(self):
        # §17 allows several sets; the ET runtime (§18) wants exactly one at index 0.
        d = three_segments()
        d["segments"][2]["set_infos"] = [{"bindings": [[0, 2]], "set_index": 0},
                                         {"bindings": [[0, 3]], "set_index": 1}]
        p = run_mlia("inspect", self.write(d))
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        self.assertEqual([s["set_index"] for s in doc["segments"][2]["descriptor_sets"]], [0, 1])
        self.assertEqual(doc["warnings"], PLACEHOLDER_WARNINGS[:2] + [
            "segment 2: 2 descriptor sets; the ExecuTorch runtime requires exactly one, at index 0",
            PLACEHOLDER_WARNINGS[2]])


class CheckTests(Tmp):
    """`mlia check` with a companion PTE embedding [GRAPH (the vww4 sample's
    generated SPIR-V graph), COMPUTE]."""

    @classmethod
    def setUpClass(cls):
        need_mlia()

    def build(self, vgf_desc, nx_compute=True):
        import mkfixture  # noqa: F401  (puts tools/ on the path)
        from fixturelib.model import Fixture
        from fixturelib import etrecord as etrecord_mod
        vgf_path = self.write(vgf_desc, "mixed.vgf")
        desc = load_sample("vww4.json")
        desc["pte"]["vgf"] = vgf_path
        if nx_compute:
            desc["plan"][0]["nx_segments"].append({"segment_id": 1, "graph": False})
        fx = Fixture(desc, ROOT)
        paths = {k: os.path.join(self.tmp, "m." + k) for k in ("etrecord", "etdump", "pte")}
        etrecord_mod.write_etrecord(paths["etrecord"], {fx.method: fx.exported_program_text(legacy=False)},
                                    fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map(), layout="current")
        with open(paths["etdump"], "wb") as f:
            f.write(fx.etdump_bytes())
        with open(paths["pte"], "wb") as f:
            f.write(fx.pte_bytes()[0])
        return paths

    def check(self, paths, *extra):
        out = os.path.join(self.tmp, "out")
        return run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--companion-model", paths["pte"],
                                    "--output-dir", out, "--json", *extra)), out

    def test_compute_segment_end_to_end(self):
        paths = self.build(sample_plus_compute())
        p, out = self.check(paths, "--model-explorer", "files")
        self.assertEqual(p.returncode, 0, p.stderr)
        res = json.loads(p.stdout)["results"][0]
        self.assertIn("VGF compute segment(s) 1 will not be estimated by the NX Performance Estimator and will "
                      "not contribute to performance totals.", res["warnings"])
        ids = {e["id"] for e in res["entities"]}
        self.assertIn("segment/0", ids)
        # docs/formats/nx-statistics.md §8.1: compute segments give no NX entities
        self.assertFalse([i for i in ids if i == "segment/1" or "segment_1/" in i])
        n_ops = len(sample_graph()["ops"])
        self.assertEqual(len([i for i in ids if i.startswith("compiler_operation/segment_0/spirv-")]), n_ops)
        view = os.path.join(out, "mlia-output", "model-explorer", "models", "pte_vgf_backend_hierarchy.json")
        with open(view, encoding="utf-8") as f:
            doc = json.load(f)
        self.assertEqual(doc["label"], "PTE - VGF Backend Hierarchy")
        graphs = {g["id"]: g for g in doc["graphs"]}
        self.assertEqual(sorted(graphs), ["plan", "segment_0"])
        nodes = {n["id"]: n for n in graphs["plan"]["nodes"]}
        node = nodes["vgf_segment/1"]
        self.assertEqual(node["label"], "compute_segment_0")
        self.assertEqual(node["namespace"], "vgf")
        attrs = {a["key"]: a["value"] for a in node["attrs"]}
        self.assertEqual(attrs, {"type": "COMPUTE", "module": "1", "operations": "0",
                                 "note": "compute segment: not estimated, excluded from NX totals"})
        self.assertEqual([e["sourceNodeId"] for e in node["incomingEdges"]], ["vgf_segment/0"])
        self.assertEqual({a["key"]: a["value"] for a in nodes["vgf_segment/0"]["attrs"]},
                         {"type": "GRAPH", "module": "0", "operations": str(n_ops)})

    def test_statistics_missing_the_compute_segment(self):
        # docs/analysis.md, "Companion PTE": the VGF has 2 segments, the statistics list 1.
        paths = self.build(sample_plus_compute(), nx_compute=False)
        p, _ = self.check(paths)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.strip(),
                         f"mlia: error: {paths['pte']}: Companion model does not match the capture: the VGF "
                         "delegate has 2 segment(s) but the statistics of instruction 0 list 1.")

    def test_statistics_call_a_graph_segment_compute(self):
        # Segment 1 is a GRAPH (placeholder) segment in the VGF, compute in the statistics.
        d = sample_plus_compute()
        d["modules"][1] = {"type": "graph", "name": "graph_partition_1", "entry_point": "main", "words": [0]}
        d["segments"][1].update(type="graph", name="graph_segment_1", dispatch_shape=[0, 0, 0])
        paths = self.build(d)
        p, _ = self.check(paths)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.strip(),
                         f"mlia: error: {paths['pte']}: Companion model does not match the capture: segment 1 "
                         "is a graph segment in the VGF but a compute segment in the statistics.")


if __name__ == "__main__":
    unittest.main()
