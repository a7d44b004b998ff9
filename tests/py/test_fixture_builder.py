"""Tests of the fixture builder (tools/mkfixture.py, tools/fixturelib).

Unit tests of the FlatBuffers builder and the NX payload writer use the
worked examples of docs/formats/nx-statistics.md §10; the samples are built into a
temporary directory and decoded with `flatc --json` (schemas in
tools/schema/, skipped when missing), unzipped, and, when $MLIA_BIN exists,
read back by `mlia inspect` (any exit status but 0 is a failure).
"""

import base64
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import unittest
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))

import mkfixture  # noqa: E402
from fixturelib import debugbuf, etdump, flatbuf, nx, vgf  # noqa: E402
from fixturelib.model import Fixture  # noqa: E402

from helpers import fixture  # noqa: E402

SCHEMA = os.environ.get("MLIA_SCHEMA_DIR") or os.path.join(ROOT, "tools", "schema")
SAMPLES = os.path.join(ROOT, "samples")


def have_schemas():
    return shutil.which("flatc") and all(
        os.path.exists(os.path.join(SCHEMA, f)) for f in ("etdump.fbs", "program.fbs",
                                                           "scalar_type.fbs"))


NO_SCHEMA = "flatc or tools/schema/{etdump,program,scalar_type}.fbs missing"


def flatc_json(schema, path, size_prefixed=False, defaults=True):
    out = tempfile.mkdtemp()
    try:
        cmd = ["flatc", "--json", "--strict-json", "--raw-binary"]
        if defaults:
            cmd.append("--defaults-json")
        if size_prefixed:
            cmd.append("--size-prefixed")
        cmd += ["-o", out, os.path.join(SCHEMA, schema), "--", path]
        subprocess.run(cmd, check=True, capture_output=True)
        name = os.path.splitext(os.path.basename(path))[0] + ".json"
        with open(os.path.join(out, name), encoding="utf-8") as f:
            return json.load(f)
    finally:
        shutil.rmtree(out)


def read_u32(b, p):
    return struct.unpack_from("<I", b, p)[0]


class TinyReader:
    """Independent minimal FlatBuffers reader for layout assertions."""

    def __init__(self, data, base=0):
        self.d = data
        self.base = base

    def root(self):
        return self.base + read_u32(self.d, self.base)

    def slot(self, t, s):
        vt = t - struct.unpack_from("<i", self.d, t)[0]
        n = struct.unpack_from("<H", self.d, vt)[0]
        if 4 + 2 * s + 2 > n:
            return 0
        return struct.unpack_from("<H", self.d, vt + 4 + 2 * s)[0]

    def vtable(self, t):
        return t - struct.unpack_from("<i", self.d, t)[0]

    def ref(self, t, s):
        o = self.slot(t, s)
        return t + o + read_u32(self.d, t + o) if o else None

    def vec(self, p):
        n = read_u32(self.d, p)
        return [p + 4 + 4 * i + read_u32(self.d, p + 4 + 4 * i) for i in range(n)]


class FlatBuilderTest(unittest.TestCase):
    def test_table_defaults_trim_and_dedup(self):
        b = flatbuf.Builder(16)
        refs = []
        for v in (5, 6):
            b.start_table()
            b.add_field(0, "int", v)
            b.add_field(1, "int", 0)        # default: omitted
            b.add_field(2, "int", -1, -1)   # default -1: omitted
            refs.append(b.end_table())
        vec = b.create_offset_vector(refs)
        b.start_table()
        b.add_field_ref(1, vec)
        root = b.end_table()
        data = b.finish(root, "TEST")
        self.assertEqual(data[4:8], b"TEST")
        r = TinyReader(data)
        tables = r.vec(r.ref(r.root(), 1))
        self.assertEqual(len(tables), 2)
        self.assertEqual(r.vtable(tables[0]), r.vtable(tables[1]))   # deduplicated
        vt = r.vtable(tables[0])
        self.assertEqual(struct.unpack_from("<HH", data, vt), (6, 8))  # only slot 0 kept
        self.assertEqual([struct.unpack_from("<i", data, t + r.slot(t, 0))[0]
                          for t in tables], [5, 6])
        self.assertEqual(len(data) % 4, 0)

    def test_forced_default_and_size_prefix(self):
        b = flatbuf.Builder()
        b.start_table()
        b.add_field(0, "int", 0, 0, force=True)
        root = b.end_table()
        data = b.finish(root, "ED00", size_prefix=True)
        self.assertEqual(read_u32(data, 0), len(data) - 4)
        self.assertEqual(data[8:12], b"ED00")
        r = TinyReader(data, 4)
        self.assertEqual(r.slot(r.root(), 0), 4)

    def test_string_and_aligned_bytes(self):
        b = flatbuf.Builder(8)
        s = b.create_string("abc")
        v = b.create_byte_vector(b"\x01\x02\x03", align=16)
        b.start_table()
        b.add_field_ref(0, s)
        b.add_field_ref(1, v)
        data = b.finish(b.end_table(), "ET12")
        r = TinyReader(data)
        sp = r.ref(r.root(), 0)
        self.assertEqual(data[sp:sp + 8], b"\x03\x00\x00\x00abc\x00")
        vp = r.ref(r.root(), 1)
        self.assertEqual((vp + 4) % 16, 0)
        self.assertEqual(data[vp + 4:vp + 7], b"\x01\x02\x03")

    def test_union(self):
        b = flatbuf.Builder()
        b.start_table()
        b.add_field(0, "long", 7)
        member = b.end_table()
        b.start_table()
        b.add_union(0, 2, member)
        data = b.finish(b.end_table(), "ET12")
        r = TinyReader(data)
        t = r.root()
        self.assertEqual(data[t + r.slot(t, 0)], 2)
        m = r.ref(t, 1)
        self.assertEqual(struct.unpack_from("<q", data, m + r.slot(m, 0))[0], 7)

    def test_large_buffer_growth(self):
        b = flatbuf.Builder(4)
        refs = [b.create_string("s%d" % i) for i in range(3000)]
        vec = b.create_offset_vector(refs)
        b.start_table()
        b.add_field_ref(0, vec)
        data = b.finish(b.end_table())
        r = TinyReader(data)
        strs = r.vec(r.ref(r.root(), 0))
        self.assertEqual(data[strs[2999] + 4:strs[2999] + 9], b"s2999")


DB0 = ("id\ttosa_op\tapi_labels\n10\tConv2D\tTOSACONV2D_spirv_id_504;\n----\n"
       "id\tapi_label\n100\tTOSACONV2D_spirv_id_504\n----\nid\ttosa_op_ids\n20\t10;\n----\n"
       "id\tfused_op_ids\n30\t20;\n----\nid\tcascade_op_ids\n40\t30;\n----\n"
       "id\top_id\tcascade_op_id\n0\t30\t40\n----\nid\tstripe_op_id\n0\t0\n")


class NxWriterTest(unittest.TestCase):
    def test_base64_examples(self):
        self.assertEqual(nx.b64(b"\x01\x02\x03"), "AQID")
        self.assertEqual(nx.b64(b"\xde\xad"), "3q0=")
        self.assertEqual(nx.b64(b"\x01"), "AQ==")
        self.assertEqual(nx.b64(b""), "")
        self.assertEqual(nx.b64(nx.statistics_info_binary([0])), "AAAAAA==")

    def test_db0_and_frame(self):
        text = nx.debug_database([(10, "Conv2D", ["TOSACONV2D_spirv_id_504"])], [(20, [10])],
                                 [(30, [20])], [(40, [30])], [(0, 30, 40)])
        self.assertEqual(text, DB0)
        self.assertEqual(len(text.encode()), 249)
        framed = nx.frame(text.encode(), nx.DEBUG_DB_MAGIC)
        self.assertEqual(framed[:12], bytes.fromhex("EEFF2211 01000000 F9000000".replace(" ", "")))
        self.assertEqual(nx.frame(text.encode(), nx.DEBUG_DB_MAGIC, version=2)[4:8],
                         b"\x02\x00\x00\x00")
        self.assertEqual(nx.frame(text.encode(), nx.DEBUG_DB_MAGIC, size=250)[8:12],
                         struct.pack("<I", 250))

    def test_statistics_info(self):
        self.assertEqual(nx.frame(nx.statistics_info_binary([3, 7]), nx.STATS_INFO_MAGIC),
                         bytes.fromhex("FFEE1122010000000800000003000000" "07000000"))
        self.assertEqual(nx.statistics_info_text([0]), b"0\n")
        self.assertEqual(nx.statistics_info_text([3, 7, 16]), b"3, 7, 16\n")

    def test_memory_examples(self):
        # example 12: mode 0, Mali-G1, u32[10, 20, 30, 0 x 13]
        m = nx.statistics_memory("Mali-G1", 0, {0: {"section_0": 10, "section_1": 20,
                                                    "section_2": 30}})
        self.assertEqual(m, struct.pack("<16I", 10, 20, 30, *([0] * 13)))
        # example 14: mode 1, Mali-G2, word 1 = 10, word 31 = 20, word 32 = 30
        m = nx.statistics_memory("Mali-G2", 1, {0: {"nx_active": 10, "me_src0_stall": 20,
                                                    "me_src1_stall": 30}})
        words = struct.unpack("<64I", m)
        self.assertEqual((words[1], words[31], words[32], sum(words)), (10, 20, 30, 60))
        # example 16: Mali-G1 mode 1, word 10 = 5, word 14 = 7
        m = nx.statistics_memory("Mali-G1", 1, {0: {"rd_ll_stall": 5, "ce_src0_stall": 7}})
        words = struct.unpack("<32I", m)
        self.assertEqual((words[10], words[14], len(words)), (5, 7, 32))
        # block index = stripe id: stripe 2 starts at task 2 * 256 (G2 mode 1)
        m = nx.statistics_memory("Mali-G2", 1, {2: {"nx_active": 9}}, tasks_per_stripe=3)
        words = struct.unpack("<%dI" % (len(m) // 4), m)
        self.assertEqual(len(words), (2 * 256 + 3) * 64)
        self.assertEqual([words[(512 + t) * 64 + 1] for t in range(3)], [3, 3, 3])

    def test_wrapper_v2_example(self):
        seg = nx.segment(7, True, nx.blob(b"\x01\x02\x03"), nx.blob(b"info", is_text=True),
                         nx.blob(b"\xde\xad"))
        w = nx.wrapper([seg], mode=1, device_name="Mali-G2-Pro-NX MC1", vendor_id=5045,
                       device_id=7, driver_version=11)
        self.assertEqual(list(w)[:9], ["schema", "schema_version", "backend", "api", "event_name",
                                       "api_available", "data_available", "available", "reason"])
        self.assertEqual(list(w)[9:], ["statistics_mode", "target", "counter_layout", "segments"])
        self.assertEqual(w["statistics_mode"], {"executorch_index": 1, "vulkan_value": 2,
                         "vulkan_name": "VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM"})
        self.assertEqual(w["counter_layout"], {
            "available": True, "schema_id": "arm.mali-g2.neural-statistics.mode1",
            "schema_version": 1, "endianness": "little", "word_type": "uint32",
            "words_per_task": 64, "leading_block_count": 1, "reason": ""})
        s = w["segments"][0]
        self.assertEqual((s["debug_database"]["data"], s["debug_database"]["size"]), ("AQID", 3))
        self.assertEqual(s["statistics_info"]["data"], "aW5mbw==")
        self.assertTrue(s["statistics_info"]["is_text"])
        self.assertEqual(s["statistics_memory"]["data"], "3q0=")
        raw = nx.encode(w)
        self.assertNotIn(b" ", raw.replace(b"Mali-G2-Pro-NX MC1", b""))
        self.assertTrue(raw.startswith(b'{"schema":"executorch.vgf.neural_statistics",'
                                       b'"schema_version":2,'))

    def test_wrapper_unavailable_and_v1(self):
        w = nx.wrapper([nx.segment(0, True, nx.blob(None, reason="x"), nx.blob(None, reason="x"),
                                   nx.blob(None, reason="x"))], reason="Statistics data unavailable")
        self.assertEqual((w["data_available"], w["available"], w["reason"]),
                         (False, False, "Statistics data unavailable"))
        self.assertEqual(w["segments"][0]["statistics_memory"]["data"], "")
        w1 = nx.wrapper([], schema_version=1)
        self.assertNotIn("statistics_mode", w1)
        self.assertNotIn("counter_layout", w1)
        self.assertEqual(w1["reason"], "No VGF segments are available for collection")
        g1 = nx.wrapper([], mode=0, device_name="Mali-G1")
        self.assertEqual(g1["counter_layout"]["reason"],
                         "No registered neural statistics counter layout for target")
        self.assertFalse(g1["counter_layout"]["available"])
        compute = nx.segment(3, graph=False)
        self.assertEqual(compute["statistics_memory"]["reason"],
                         "Segment is not a data graph pipeline")


class VgfHelperTest(unittest.TestCase):
    def test_vww4_tosa_ids(self):
        with open(fixture("vgf/vww4.vgf"), "rb") as f:
            ops = vgf.segment_tosa_ops(f.read())
        self.assertEqual(len(ops), 1)
        self.assertEqual(len(ops[0]), 168)
        self.assertEqual(ops[0][0], (6012, "CONV2D"))
        self.assertEqual(ops[0][1], (6017, "RESCALE"))
        self.assertEqual(ops[0][-1], (6292, "RESHAPE"))
        self.assertEqual(vgf.spirv_label("CONV2D", 6012), "TOSACONV2D_spirv_id_6012")
        self.assertEqual(vgf.op_type("DEPTHWISE_CONV2D"), "DepthwiseConv2D")


class SpirvWriterTest(unittest.TestCase):
    """spirvwrite: the sample's generated VGF, read back by the C library."""

    def setUp(self):
        from helpers import MLIA
        if not os.path.exists(MLIA):
            self.fail(f"{MLIA} is not built")
        self.mlia = MLIA
        with open(os.path.join(SAMPLES, "vww4.json"), encoding="utf-8") as f:
            self.graph = json.load(f)["pte"]["vgf"]["graph"]

    def inspect(self, desc):
        from fixturelib import spirvwrite, vgfwrite
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "g.vgf")
            with open(path, "wb") as f:
                f.write(vgfwrite.build(spirvwrite.graph_vgf(desc)))
            p = subprocess.run([self.mlia, "inspect", path], capture_output=True, text=True)
            self.assertEqual(p.returncode, 0, p.stderr)
            with open(path, "rb") as f:
                return json.loads(p.stdout), vgf.segment_tosa_ops(f.read())

    def test_sample_graph_reads_without_warnings(self):
        doc, scanned = self.inspect(self.graph)
        self.assertEqual(doc["warnings"], [])
        ops = doc["segments"][0]["operations"]
        self.assertEqual([o["op"] for o in ops], [o["op"] for o in self.graph["ops"]])
        self.assertEqual([(o["id"], o["op"]) for o in ops], scanned[0])   # the builder's own scan agrees
        first = ops[0]
        self.assertEqual([i["class"] for i in first["inputs"]],
                         ["graph_input", "graph_constant", "module_constant", "module_constant", "module_constant"])
        self.assertEqual(first["attributes"]["stride"], self.graph["ops"][0]["stride"])
        self.assertEqual(first["result_type"], "!spirv.arm.tensor<1x64x64x8xi32>")
        for prev, op in zip(ops, ops[1:]):       # a chain: each op reads the previous result
            self.assertEqual((op["inputs"][0]["class"], op["inputs"][0]["producer"]), ("op_result", prev["id"]))
        self.assertEqual(ops[-1]["result_type"], "!spirv.arm.tensor<1x2xi8>")

    def test_deterministic(self):
        from fixturelib import spirvwrite
        self.assertEqual(spirvwrite.graph_module(self.graph)[0], spirvwrite.graph_module(self.graph)[0])


class EtdumpWriterTest(unittest.TestCase):
    def test_unprefixed_and_allocators(self):
        data = etdump.write_etdump([{"name": "Execute", "allocators": ["a", "b"], "events": [
            {"allocation": {"allocator_id": 2, "size": 64}}]}], size_prefixed=False)
        self.assertEqual(data[4:8], b"ED00")
        r = TinyReader(data)
        run = r.vec(r.ref(r.root(), 1))[0]
        self.assertEqual(len(r.vec(r.ref(run, 2))), 2)
        self.assertEqual(r.slot(run, 1), 0)   # bundled_input_index -1 omitted


class SampleBuildTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.out = tempfile.mkdtemp(prefix="mkfixture-")
        cls.built = {}
        for name in ("demo", "lenet", "vww4"):
            cls.built[name] = mkfixture.build(os.path.join(SAMPLES, name + ".json"), cls.out)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.out)

    def load_desc(self, name):
        with open(os.path.join(SAMPLES, name + ".json"), encoding="utf-8") as f:
            return json.load(f)

    # -- ETRecord ----------------------------------------------------------
    def test_etrecord_entries(self):
        with zipfile.ZipFile(self.built["demo"]["etrecord"]) as z:
            names = [i.filename for i in z.infolist()]
            self.assertEqual(names, [
                "ETRECORD_V0", "edge_dialect_exported_program/forward",
                "edge_dialect_exported_program/forward_state_dict",
                "edge_dialect_exported_program/forward_constants",
                "edge_dialect_exported_program/forward_example_inputs",
                "debug_handle_map", "delegate_map", "instruction_id_to_num_outs_map"])
            for i in z.infolist():
                self.assertEqual(i.compress_type, zipfile.ZIP_STORED)
                self.assertEqual(i.extra, b"")
            self.assertEqual(z.read("ETRECORD_V0"), b"")
            dhm = json.loads(z.read("debug_handle_map"))
            self.assertEqual(dhm, {"forward": {"0": [1, 2, 3, 4, 5, 6], "1": 8, "2": 8,
                                               "3": 9, "4": 10, "5": 10}})
            self.assertEqual(json.loads(z.read("delegate_map")),
                             {"forward": {"0": {"name": "VgfBackend", "delegate_map": {}}}})
            self.assertEqual(json.loads(z.read("instruction_id_to_num_outs_map")),
                             {"forward": {"0": 1}})
            text = z.read("edge_dialect_exported_program/forward").decode("ascii")
        self.assertIn('"max_val": Infinity', text)
        ep = json.loads(text)
        self.assertEqual(ep["schema_version"], {"major": 5, "minor": 4})
        g = ep["graph_module"]["graph"]
        nodes = {n["name"]: n for n in g["nodes"]}
        self.assertEqual(len(nodes), 12)
        conv = nodes["aten_convolution_default"]
        self.assertEqual(conv["target"],
                         "executorch.exir.dialects.edge.ops.aten.convolution.default")
        self.assertEqual(conv["inputs"][0], {"name": "input", "arg": {"as_tensor": {"name": "x"}}})
        self.assertEqual(conv["inputs"][3], {"name": "stride", "arg": {"as_ints": [1, 1]}})
        md = conv["metadata"]
        self.assertEqual(md["debug_handle"], "1")
        self.assertEqual(md["nn_module_stack"],
                         "L__self___features,features,demo.model.Features;"
                         "L__self___features_conv1,features.conv1,torch.nn.modules.conv.Conv2d")
        self.assertEqual(md["source_fn_stack"], "features_conv1,torch.nn.modules.conv.Conv2d")
        self.assertEqual(md["stack_trace"],
                         '  File "/home/user/demo/model.py", line 40, in forward\n'
                         '    x = self.features(x)\n'
                         '  File "/home/user/demo/layers.py", line 12, in forward\n'
                         '    x = self.conv1(x)\n')
        self.assertEqual(nodes["aten_permute_copy_default"]["metadata"]["debug_handle"], "8")
        self.assertEqual(nodes["aten_addmm_default"]["metadata"]["debug_handle"], "8")
        self.assertEqual(nodes["aten_view_copy_default"]["metadata"]["debug_handle"], "7")
        pool = nodes["aten_max_pool2d_with_indices_default"]
        self.assertEqual(pool["outputs"], [{"as_tensors": [{"name": "getitem"},
                                                           {"name": "getitem_1"}]}])
        self.assertEqual(g["tensor_values"]["x"]["dtype"], 7)
        self.assertEqual(g["tensor_values"]["x"]["strides"][0], {"as_int": 3072})
        specs = ep["graph_module"]["signature"]["input_specs"]
        self.assertEqual(specs[0], {"parameter": {"arg": {"name": "p_features_conv1_weight"},
                                                  "parameter_name": "features.conv1.weight"}})
        self.assertEqual(specs[-1], {"user_input": {"arg": {"name": "x"}}})

    def test_lenet_handles(self):
        with zipfile.ZipFile(self.built["lenet"]["etrecord"]) as z:
            dhm = json.loads(z.read("debug_handle_map"))
        self.assertEqual(dhm["forward"], {"0": 1, "1": 2, "2": 3, "3": 4, "4": 5, "5": 6,
                                          "6": 8, "7": 8, "8": 9, "9": 10, "10": 10,
                                          "11": 11, "12": 12, "13": 12})

    def test_lowered_form_and_legacy_layout(self):
        desc = self.load_desc("demo")
        desc["name"] = "demo-lowered"
        desc["etrecord"] = {"layout": "current", "delegate_form": "lowered"}
        out = mkfixture.build_desc(desc, self.out, SAMPLES)
        with zipfile.ZipFile(out["etrecord"]) as z:
            ep = json.loads(z.read("edge_dialect_exported_program/forward"))
        nodes = ep["graph_module"]["graph"]["nodes"]
        self.assertEqual(nodes[0]["name"], "executorch_call_delegate")
        self.assertEqual(nodes[0]["target"], "torch.ops.higher_order.executorch_call_delegate")
        self.assertEqual(len(nodes), 7)
        lowered = json.loads(nodes[0]["inputs"][0]["arg"]["as_string"])
        self.assertEqual(lowered["backend_id"], "VgfBackend")
        sub = lowered["original_module"]["graph_module"]["graph"]["nodes"]
        self.assertEqual([n["metadata"]["debug_handle"] for n in sub], list("123456"))
        desc["name"] = "demo-legacy"
        desc["etrecord"] = {"layout": "legacy"}
        out = mkfixture.build_desc(desc, self.out, SAMPLES)
        with zipfile.ZipFile(out["etrecord"]) as z:
            self.assertEqual(z.namelist(), ["ETRECORD_V0", "edge_dialect_exported_program",
                                            "edge_dialect_exported_program_state_dict",
                                            "debug_handle_map", "delegate_map"])
            ep = json.loads(z.read("edge_dialect_exported_program"))
        self.assertEqual(ep["schema_version"], 1)
        node = ep["graph_module"]["graph"]["nodes"][0]
        self.assertNotIn("name", node)
        self.assertEqual(len(node["inputs"][0]["arg"]), 22)
        self.assertIn("meta", ep["graph_module"]["graph"]["tensor_values"]["x"])

    def test_deterministic(self):
        out2 = tempfile.mkdtemp()
        try:
            again = mkfixture.build(os.path.join(SAMPLES, "demo.json"), out2)
            for kind in ("etrecord", "etdump"):
                with open(again[kind], "rb") as a, open(self.built["demo"][kind], "rb") as b:
                    self.assertEqual(a.read(), b.read(), kind)
        finally:
            shutil.rmtree(out2)

    # -- ETDump via flatc -------------------------------------------------
    @unittest.skipUnless(have_schemas(), NO_SCHEMA)
    def test_demo_etdump_flatc(self):
        j = flatc_json("etdump.fbs", self.built["demo"]["etdump"], size_prefixed=True)
        runs = j["run_data"]
        self.assertEqual([r["name"] for r in runs], ["Default", "Execute", "Execute", "Execute"])
        self.assertEqual([e["profile_event"]["name"] for e in runs[0]["events"]],
                         ["Method::init", "Program::load_method"])
        ev = [e["profile_event"] for e in runs[1]["events"]]
        ids = [p.get("name") or p["delegate_debug_id_str"] for p in ev]
        self.assertEqual(ids, [
            "VGF_COPY_INPUTS", "VGF_QUEUE_SUBMIT_AND_WAIT_FENCE", "VGF_DISPATCH_AND_WAIT",
            "VGF_NEURAL_STATISTICS", "VGF_COPY_OUTPUTS", "VGF_EXECUTE", "DELEGATE_CALL",
            "native_call_permute_copy.out", "OPERATOR_CALL", "native_call_addmm.out",
            "OPERATOR_CALL", "native_call_relu.out", "OPERATOR_CALL",
            "native_call_permute_copy.out", "OPERATOR_CALL", "native_call_addmm.out",
            "OPERATOR_CALL", "Method::execute"])
        self.assertEqual([p["instruction_id"] for p in ev],
                         [0] * 7 + [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 0])
        self.assertEqual(ev[-1]["chain_index"], -1)
        for p in ev[:6]:
            self.assertEqual(p["delegate_debug_id_int"], -1)
            self.assertIn("delegate_debug_metadata", p)
            if p["delegate_debug_id_str"] != "VGF_NEURAL_STATISTICS":
                self.assertEqual(p["delegate_debug_metadata"], [])
        for p in ev:                                  # nesting by time containment
            self.assertLessEqual(p["start_time"], p["end_time"])
        dc, ex = ev[6], ev[-1]
        for p in ev[:6]:
            self.assertTrue(dc["start_time"] <= p["start_time"] <= p["end_time"] <= dc["end_time"])
        self.assertTrue(ev[2]["start_time"] < ev[1]["start_time"] < ev[1]["end_time"]
                        < ev[2]["end_time"])
        for k in range(7, 17, 2):
            nat, op = ev[k], ev[k + 1]
            self.assertTrue(op["start_time"] < nat["start_time"] < nat["end_time"]
                            < op["end_time"])
        for p in ev[:-1]:
            self.assertTrue(ex["start_time"] <= p["start_time"] and p["end_time"] <= ex["end_time"])
        meta = bytes(ev[3]["delegate_debug_metadata"])
        w = json.loads(meta)
        self.assertEqual((w["schema"], w["schema_version"]),
                         ("executorch.vgf.neural_statistics", 2))
        self.assertEqual(w["target"]["device_name"], "Mali-G2-Pro-NX MC1")
        seg = w["segments"][0]
        db = base64.b64decode(seg["debug_database"]["data"])
        self.assertEqual(db[:8], bytes.fromhex("EEFF221101000000"))
        self.assertEqual(read_u32(db, 8), len(db) - 12)
        text = db[12:].decode()
        self.assertEqual(text.count("\n----\n"), 6)
        self.assertIn('{"aten_info":{"node_name":"aten_convolution_default",', text)
        self.assertEqual(struct.unpack("<7I", base64.b64decode(seg["statistics_info"]["data"])),
                         tuple(range(7)))
        mem = base64.b64decode(seg["statistics_memory"]["data"])
        self.assertEqual(len(mem), (6 * 256 + 2) * 64 * 4)
        words = struct.unpack("<%dI" % (len(mem) // 4), mem)
        self.assertEqual(words[1] + words[64 + 1], 41200)    # stripe 0 nx_active, 2 tasks

    @unittest.skipUnless(have_schemas(), NO_SCHEMA)
    def test_field_presence_like_flatcc(self):
        j = flatc_json("etdump.fbs", self.built["lenet"]["etdump"], size_prefixed=True,
                       defaults=False)
        ev = [e["profile_event"] for e in j["run_data"][1]["events"]]
        self.assertEqual(len(ev), 29)
        self.assertNotIn("chain_index", ev[0])          # 0 = default, omitted
        self.assertEqual(ev[0]["instruction_id"], 0)    # 0 != default -1, present
        self.assertEqual(ev[-1]["chain_index"], -1)
        self.assertNotIn("delegate_debug_metadata", ev[0])
        self.assertNotIn("bundled_input_index", j["run_data"][1])
        self.assertEqual(ev[6]["end_time"] - ev[6]["start_time"], 1031719)   # kernel time
        self.assertEqual(ev[7]["end_time"] - ev[7]["start_time"], 1032230)   # OPERATOR_CALL

    # -- PTE via flatc ----------------------------------------------------
    @unittest.skipUnless(have_schemas(), NO_SCHEMA)
    def test_lenet_pte_flatc(self):
        path = self.built["lenet"]["pte"]
        with open(path, "rb") as f:
            data = f.read()
        self.assertEqual(data[4:12], b"ET12eh00")
        hlen, psize, base = struct.unpack_from("<IQQ", data, 12)
        self.assertEqual((hlen, base % 128, base >= psize), (24, 0, True))
        j = flatc_json("program.fbs", path)
        p = j["execution_plan"][0]
        self.assertEqual(p["name"], "forward")
        self.assertEqual([(o["name"], o["overload"]) for o in p["operators"]], [
            ("aten::convolution", "out"), ("aten::relu", "out"),
            ("aten::max_pool2d_with_indices", "out"), ("aten::permute_copy", "out"),
            ("aten::addmm", "out")])
        instrs = p["chains"][0]["instructions"]
        self.assertEqual([i["instr_args_type"] for i in instrs], ["KernelCall"] * 14)
        self.assertEqual([i["instr_args"]["op_index"] for i in instrs],
                         [0, 1, 2, 0, 1, 2, 3, 4, 1, 3, 4, 1, 3, 4])
        self.assertEqual(p["inputs"], [10])
        self.assertEqual(p["values"][10]["val"]["sizes"], [1, 1, 32, 32])
        self.assertEqual(p["values"][p["outputs"][0]]["val"]["sizes"], [1, 10])
        self.assertEqual(j["constant_segment"]["offsets"],
                         [0, 0, 608, 640, 10240, 10304, 202304, 202784, 243104, 243440, 246800])
        self.assertEqual(j["segments"], [{"offset": 0, "size": 246840}])
        self.assertEqual(base + 246840, len(data))
        kinds = {}
        for v in p["values"]:
            kinds[v["val_type"]] = kinds.get(v["val_type"], 0) + 1
        self.assertEqual((kinds["Tensor"], kinds["IntList"], kinds["Bool"], kinds["TensorList"]),
                         (28, 19, 4, 2))

    @unittest.skipUnless(have_schemas(), NO_SCHEMA)
    def test_vww4_pte_segment_and_labels(self):
        path = self.built["vww4"]["pte"]
        with open(path, "rb") as f:
            data = f.read()
        blob = Fixture(self.load_desc("vww4"), SAMPLES).vgf_bytes   # generated (spirvwrite)
        (conv, conv_name), (rescale, rescale_name) = vgf.segment_tosa_ops(blob)[0][:2]
        self.assertEqual((conv_name, rescale_name), ("CONV2D", "RESCALE"))
        hlen, psize, base, seg_size = struct.unpack_from("<IQQQ", data, 12)
        self.assertEqual((hlen, seg_size), (32, len(blob)))
        j = flatc_json("program.fbs", path)
        p = j["execution_plan"][0]
        self.assertEqual(p["delegates"][0]["id"], "VgfBackend")
        self.assertEqual(p["delegates"][0]["processed"]["location"], "SEGMENT")
        self.assertEqual(p["chains"][0]["instructions"][0]["instr_args_type"], "DelegateCall")
        seg = j["segments"][p["delegates"][0]["processed"].get("index", 0)]
        off = base + seg.get("offset", 0)
        self.assertEqual(data[off:off + seg["size"]], blob)
        d = flatc_json("etdump.fbs", self.built["vww4"]["etdump"], size_prefixed=True)
        ev = [e["profile_event"] for e in d["run_data"][1]["events"]]
        stat = [p for p in ev if p.get("delegate_debug_id_str") == "VGF_NEURAL_STATISTICS"][0]
        w = json.loads(bytes(stat["delegate_debug_metadata"]))
        db = base64.b64decode(w["segments"][0]["debug_database"]["data"]).decode()
        self.assertIn(f"10\tConv2D\tTOSACONV2D_spirv_id_{conv};", db)
        self.assertIn(f"11\tRescale\tTOSARESCALE_spirv_id_{rescale};", db)
        info = base64.b64decode(w["segments"][0]["statistics_info"]["data"])
        self.assertEqual(info[:4], bytes.fromhex("FFEE1122"))
        self.assertEqual(info[12:], b"0, 1, 2, 3, 4, 5\n")

    def test_inline_storage(self):
        desc = self.load_desc("vww4")
        desc["pte"]["storage"] = "inline"
        fx = Fixture(desc, SAMPLES)
        data, layout = fx.pte_bytes()
        self.assertFalse(layout["header"])          # no segments -> no eh00 header
        self.assertEqual(data[8:12], b"\0\0\0\0")
        r = TinyReader(data)
        inline = r.vec(r.ref(r.root(), 3))
        vec = r.ref(inline[0], 0)
        self.assertEqual((vec + 4) % 16, 0)
        self.assertEqual(data[vec + 4:vec + 4 + read_u32(data, vec)], fx.vgf_bytes)

    @unittest.skipUnless(have_schemas(), NO_SCHEMA)
    def test_mixed_plan_pte_and_optional_events(self):
        desc = self.load_desc("demo")
        desc["name"] = "demo-mixed"
        desc["pte"] = {"vgf": self.load_desc("vww4")["pte"]["vgf"], "storage": "segment"}
        desc["etdump"] = {"allocators": ["method", "temp"], "allocations": [[1, 4096], [2, 64]],
                          "debug_outputs": True}
        out = mkfixture.build_desc(desc, self.out, SAMPLES)
        j = flatc_json("program.fbs", out["pte"])
        p = j["execution_plan"][0]
        instrs = p["chains"][0]["instructions"]
        self.assertEqual([i["instr_args_type"] for i in instrs],
                         ["DelegateCall"] + ["KernelCall"] * 5)
        self.assertEqual([o["name"] for o in p["operators"]],
                         ["aten::permute_copy", "aten::addmm", "aten::relu"])
        # constant segment first, then the delegate segment
        self.assertEqual(len(j["segments"]), 2)
        self.assertEqual(p["delegates"][0]["processed"]["index"], 1)
        self.assertEqual(j["segments"][1]["offset"] % 128, 0)
        self.assertEqual(len(j["constant_segment"]["offsets"]), 9)
        d = flatc_json("etdump.fbs", out["etdump"], size_prefixed=True)
        default = d["run_data"][0]
        self.assertEqual([a["name"] for a in default["allocators"]], ["method", "temp"])
        self.assertEqual(default["events"][1]["allocation_event"],
                         {"allocator_id": 2, "allocation_size": 64})
        last = d["run_data"][1]["events"][-1]["debug_event"]
        self.assertEqual(last["chain_index"], 18446744073709551615)
        self.assertEqual(last["debug_entry"]["val"], "Tensor")
        self.assertEqual(last["debug_entry"]["tensor"]["sizes"], [1, 10])
        self.assertEqual(last["debug_entry"]["output"], {"bool_val": True})

    # -- mlia inspect -------------------------------------------------------
    def test_mlia_inspect(self):
        mlia = os.environ.get("MLIA_BIN", os.path.join(ROOT, "build", "mlia"))
        if not os.path.exists(mlia):
            self.skipTest("no mlia binary")
        for name, files in sorted(self.built.items()):
            for kind, path in sorted(files.items()):
                res = subprocess.run([mlia, "inspect", path], capture_output=True)
                self.assertEqual(res.returncode, 0, (path, res.stderr[-400:]))
                json.loads(res.stdout)


class NxVariantsTest(unittest.TestCase):
    """Description features of nx statistics: v1, mode 0, Mali-G1, compute
    segments, omitted / unavailable blobs, partial presence over executions."""

    def setUp(self):
        with open(os.path.join(SAMPLES, "demo.json"), encoding="utf-8") as f:
            self.desc = json.load(f)

    def records(self, desc):
        fx = Fixture(desc, SAMPLES)
        out = []
        for run in fx.etdump_runs()[1:]:
            for e in run["events"]:
                p = e["profile"]
                if p.get("delegate_debug_id_str") == "VGF_NEURAL_STATISTICS":
                    out.append(json.loads(p["metadata"]))
        return out

    def test_variants(self):
        d = self.desc
        d["nx"] = {"schema_version": 1, "mode": 0, "device_name": "Mali-G1"}
        seg0 = d["plan"][0]["nx_segments"][0]
        seg0["counters"] = {"0": {"section_0": 10, "section_1": 20, "section_2": 30}}
        seg0["cascades"] = [{"id": 40, "chains": [{"id": 30, "stripes": [0], "fused": [
            {"id": 20, "tosa": [{"id": 10, "op": "Conv2D",
                                 "labels": [{"spirv": 504, "op": "CONV2D"}]}]}]}]}]
        seg0["debug_database"] = {"framed": False}
        seg0["statistics_info"] = {"text": True, "framed": False}
        seg0["memory_unavailable"] = {"1": "Neural accelerator statistics memory is not host visible"}
        seg0["tasks_per_stripe"] = 1
        seg1 = {"segment_id": 1, "graph": False}
        seg2 = dict(seg0, segment_id=2, executions=[0, 2], memory_unavailable={},
                    debug_database={"omit": True}, statistics_info={"available": False,
                                                                     "reason": "VkPipeline is null"})
        d["plan"][0]["nx_segments"] = [seg0, seg1, seg2]
        recs = self.records(d)
        self.assertEqual(len(recs), 3)
        self.assertEqual([r["schema_version"] for r in recs], [1, 1, 1])
        self.assertNotIn("target", recs[0])
        self.assertEqual([[s["segment_id"] for s in r["segments"]] for r in recs],
                         [[0, 1, 2], [0, 1], [0, 1, 2]])
        s0 = recs[0]["segments"][0]
        self.assertEqual(base64.b64decode(s0["debug_database"]["data"]).decode(), DB0)
        self.assertEqual(base64.b64decode(s0["statistics_info"]["data"]), b"0\n")
        self.assertEqual(base64.b64decode(s0["statistics_memory"]["data"]),
                         struct.pack("<16I", 10, 20, 30, *([0] * 13)))
        self.assertEqual(recs[1]["segments"][0]["statistics_memory"]["reason"],
                         "Neural accelerator statistics memory is not host visible")
        self.assertFalse(recs[1]["segments"][0]["statistics_memory"]["available"])
        self.assertTrue(recs[1]["available"])      # db and info still available
        c = recs[0]["segments"][1]
        self.assertFalse(c["is_data_graph_pipeline"])
        self.assertEqual(c["debug_database"]["reason"], "Segment is not a data graph pipeline")
        s2 = recs[0]["segments"][2]
        self.assertNotIn("debug_database", s2)
        self.assertEqual(s2["statistics_info"]["reason"], "VkPipeline is null")

    def test_record_unavailable_and_size(self):
        d = self.desc
        d["plan"][0]["nx_unavailable"] = {"2": "Statistics data unavailable"}
        d["plan"][0]["nx_segments"][0]["debug_database"]["declared_size"] = 5
        recs = self.records(d)
        self.assertEqual((recs[2]["available"], recs[2]["reason"]),
                         (False, "Statistics data unavailable"))
        self.assertEqual(recs[0]["segments"][0]["debug_database"]["size"], 5)
        jitter = [r["segments"][0]["statistics_memory"]["data"] for r in recs[:2]]
        self.assertNotEqual(jitter[0], jitter[1])   # nx_jitter varies executions


class LargeCaptureTest(unittest.TestCase):
    def test_large_small_n(self):
        out = tempfile.mkdtemp()
        try:
            t0 = time.time()
            mkfixture.large_mod.build_large(20001, out, 2)
            self.assertLess(time.time() - t0, 30)
            path = os.path.join(out, "large.etdump")
            with open(path, "rb") as f:
                data = f.read()
            self.assertEqual(read_u32(data, 0), len(data) - 4)
            r = TinyReader(data, 4)
            runs = r.vec(r.ref(r.root(), 1))
            counts = [len(r.vec(r.ref(t, 3))) for t in runs]
            self.assertEqual(counts, [2, 9999, 9999])
            with zipfile.ZipFile(os.path.join(out, "large.etrecord")) as z:
                dhm = json.loads(z.read("debug_handle_map"))["forward"]
            self.assertEqual(len(dhm), 4999)
            self.assertEqual(dhm["1"], dhm["0"])          # grouped pair shares a handle
            if have_schemas():
                j = flatc_json("etdump.fbs", path, size_prefixed=True)
                ev = j["run_data"][2]["events"]
                self.assertEqual(ev[1]["profile_event"]["name"], "OPERATOR_CALL")
                self.assertEqual(ev[0]["profile_event"]["name"], "native_call_relu.out")
                self.assertEqual(ev[-1]["profile_event"]["name"], "Method::execute")
                self.assertEqual(ev[-2]["profile_event"]["instruction_id"], 4998)
        finally:
            shutil.rmtree(out)


class DebugBufferBuildTest(unittest.TestCase):
    """Intermediate outputs: DebugEvents with Tensor values whose bytes are in
    a debug buffer, written like ExecuTorch's buffer sink (64-byte aligned,
    zero-padded, the whole buffer) or file sink (packed)."""

    def setUp(self):
        self.out = tempfile.mkdtemp(prefix="mkfixture-debug-")
        with open(os.path.join(SAMPLES, "accuracy.json"), encoding="utf-8") as f:
            self.desc = json.load(f)

    def tearDown(self):
        shutil.rmtree(self.out)

    def debug_events(self, path):
        j = flatc_json("etdump.fbs", path, size_prefixed=True)
        return [[e["debug_event"] for e in r["events"] if "debug_event" in e] for r in j["run_data"]]

    def test_encode_hand_computed_bytes(self):
        self.assertEqual(debugbuf.encode("int8", [-128, 127, -1]), b"\x80\x7f\xff")
        self.assertEqual(debugbuf.encode("float32", [1.0, "nan"])[:4], b"\x00\x00\x80\x3f")
        self.assertEqual(debugbuf.encode("float32", ["nan"]), b"\x00\x00\xc0\x7f")
        self.assertEqual(debugbuf.encode("float16", [1.0]), b"\x00\x3c")
        self.assertEqual(debugbuf.encode("bfloat16", [1.5]), b"\xc0\x3f")
        self.assertEqual(debugbuf.encode("int16", [-2]), b"\xfe\xff")
        self.assertEqual(debugbuf.encode("bool", [0, 2]), b"\x00\x01")

    def test_aligned_buffer_and_reference(self):
        out = mkfixture.build_desc(self.desc, self.out, SAMPLES)
        self.assertEqual(sorted(out), ["debug_buffer", "etdump", "etrecord", "reference_debug_buffer",
                                       "reference_etdump"])
        with open(out["debug_buffer"], "rb") as f:
            buf = f.read()
        self.assertEqual(len(buf), 1024)                    # the whole buffer, as example_runner writes it
        if not have_schemas():
            self.skipTest(NO_SCHEMA)
        runs = self.debug_events(out["etdump"])
        self.assertEqual([len(r) for r in runs], [0, 5, 5])  # 4 kernels + the program output, per execution
        offsets = [d["debug_entry"]["tensor"]["offset"] for r in runs for d in r]
        # one buffer for every execution, at growing 64-byte aligned offsets
        self.assertEqual(offsets, [0, 64, 128, 192, 256, 320, 384, 448, 512, 576])
        first = runs[1][0]
        self.assertEqual(first["instruction_id"], 0)
        self.assertEqual(first["debug_entry"]["tensor"]["sizes"], [1, 4])
        self.assertEqual(first["debug_entry"]["tensor"]["strides"], [4, 1])
        self.assertEqual(first["debug_entry"]["tensor"]["scalar_type"], "FLOAT")
        self.assertEqual(struct.unpack("<4f", buf[0:16]), (1.0, 4.0, 9.0, 16.0))
        self.assertEqual(buf[16:64], b"\0" * 48)            # zero padding
        self.assertEqual(struct.unpack("<2f", buf[512:520]), (5.25, 10.75))
        last = runs[2][-1]
        self.assertEqual(last["chain_index"], 18446744073709551615)
        self.assertTrue(last["debug_entry"]["output"]["bool_val"])
        # the reference: packed, exactly the bytes used
        ref = self.debug_events(out["reference_etdump"])
        self.assertEqual([d["debug_entry"]["tensor"]["offset"] for r in ref for d in r],
                         [0, 16, 32, 64, 72, 80, 96, 112, 144, 152])
        with open(out["reference_debug_buffer"], "rb") as f:
            self.assertEqual(len(f.read()), 160)

    def test_misaligned_base_empty_tensor_and_forced_offset(self):
        d = self.desc["debug"]
        d["base"] = 16                      # an allocator that only aligns to 16
        d["buffer_size"] = None
        d["tensors"]["aten_relu_default"] = {"shape": [0, 4], "values": []}
        d["tensors"]["aten_addmm_default"]["offset"] = 4096
        del d["reference"]
        out = mkfixture.build_desc(self.desc, self.out, SAMPLES)
        self.assertNotIn("reference_etdump", out)
        if not have_schemas():
            self.skipTest(NO_SCHEMA)
        runs = self.debug_events(out["etdump"])
        offs = [t["debug_entry"]["tensor"]["offset"] for t in runs[1]]
        self.assertEqual(offs, [48, -1, 112, 4096, 4096])   # the program output is the same tensor

    def test_values_must_match_the_shape(self):
        self.desc["debug"]["tensors"]["aten_mul_tensor"] = {"values": [1.0, 2.0]}
        with self.assertRaisesRegex(ValueError, r"debug tensor 'aten_mul_tensor': 2 values for shape \[1, 4\]"):
            mkfixture.build_desc(self.desc, self.out, SAMPLES)

    def test_delegate_arguments_and_delegate_ids(self):
        desc = {"name": "deleg", "inputs": [{"name": "x", "shape": [2]}],
                "nodes": [{"name": "a", "op": "aten.relu.default", "args": {"self": "x"}, "shape": [2]},
                          {"name": "b", "op": "aten.neg.default", "args": {"self": "a"}, "shape": [2]}],
                "outputs": ["b"],
                "plan": [{"delegate": ["a", "b"], "delegate_map": {"op_a": [1]}}],
                "debug": {"layout": "packed",
                          "tensors": {"x": {"values": [1, -1]}, "a": {"values": [1, 0]},
                                      "b": {"values": [-1, 0]}},
                          "delegate_ops": [{"tensor": "a", "id": "op_a"}]}}
        out = mkfixture.build_desc(desc, self.out, SAMPLES)
        if not have_schemas():
            self.skipTest(NO_SCHEMA)
        ev = self.debug_events(out["etdump"])[1]
        # the backend's own output (by delegate debug id), then the call's arguments: input, output
        self.assertEqual([e.get("delegate_debug_id_str") for e in ev], ["op_a", None, None])
        self.assertEqual([e["debug_entry"]["tensor"]["offset"] for e in ev], [0, 8, 16])
        self.assertEqual([e["instruction_id"] for e in ev], [0, 0, 0])


if __name__ == "__main__":
    unittest.main()
