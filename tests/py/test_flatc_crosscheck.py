"""Cross-check mlia's ETDump / PTE / BundledProgram decoding against flatc.

flatc (flatbuffers-compiler) decodes each real fixture with the schemas in
tools/schema/ (same names as upstream; docs/formats/flatbuffers.md);
the result is compared field by field with the JSON of `mlia inspect FILE`.
When the CLI is missing or has no `inspect`, the C test binary
`<build>/tests/formats/test_pte --inspect FILE` prints the same JSON.

flatc omits absent strings/vectors and prints enums as names; the
comparisons below account for that (docs/formats/flatbuffers.md §7).
"""
import json
import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCHEMA = os.path.join(ROOT, "tools", "schema")
from helpers import fixture  # noqa: E402  (real fixtures: skip when absent, fail when wrong)

INSTR_KINDS = {"NONE": "none", "KernelCall": "kernel", "DelegateCall": "delegate", "MoveCall": "move",
               "JumpFalseCall": "jump_false", "FreeCall": "free"}


def _inspect_commands():
    cmds = []
    mlia = os.environ.get("MLIA_BIN") or os.path.join(ROOT, "build", "mlia")
    if os.path.exists(mlia):
        cmds.append([mlia, "inspect"])
    for build in (os.path.dirname(mlia), os.path.join(ROOT, "build")):
        drv = os.path.join(build, "tests", "formats", "test_pte")
        if os.path.exists(drv) and [drv, "--inspect"] not in cmds:
            cmds.append([drv, "--inspect"])
    return cmds


def mlia_inspect(path):
    """JSON object of the file from the first inspect command that works."""
    last = None
    for cmd in _inspect_commands():
        p = subprocess.run(cmd + [path], capture_output=True, text=True)
        if p.returncode == 0:
            try:
                doc = json.loads(p.stdout)
            except ValueError as e:
                last = e
                continue
            if isinstance(doc, dict) and doc.get("format"):
                return doc
        last = p.stderr
    raise unittest.SkipTest(f"no working inspect command ({last})")


def flatc_json(schema, path, size_prefixed=False, raw_binary=False):
    out = tempfile.mkdtemp(prefix="mlia-flatc-")
    try:
        cmd = ["flatc", "--json", "--strict-json", "--defaults-json"]
        if size_prefixed:
            cmd.append("--size-prefixed")
        if raw_binary:
            cmd.append("--raw-binary")
        cmd += ["-o", out, os.path.join(SCHEMA, schema), "--", path]
        subprocess.run(cmd, check=True, capture_output=True)
        name = os.path.splitext(os.path.basename(path))[0] + ".json"
        with open(os.path.join(out, name)) as f:
            return json.load(f)
    finally:
        shutil.rmtree(out, ignore_errors=True)


@unittest.skipUnless(shutil.which("flatc"), "flatc not installed")
class FlatcCrossCheck(unittest.TestCase):
    maxDiff = None

    # ------------------------------------------------------------ ETDump
    def test_etdump_lenet(self):
        path = fixture("executorch/lenet.etdp")
        ours = mlia_inspect(path)
        ref = flatc_json("etdump.fbs", path, size_prefixed=True)
        self.assertEqual(ours["format"], "etdump")
        self.assertEqual(ours["version"], ref["version"])
        self.assertEqual(len(ours["runs"]), len(ref["run_data"]))
        n_events = 0
        for run, rref in zip(ours["runs"], ref["run_data"]):
            self.assertEqual(run["name"], rref.get("name"))
            self.assertEqual(run["bundled_input_index"], rref["bundled_input_index"])
            self.assertEqual(run["allocators"], [a.get("name") for a in rref.get("allocators", [])])
            self.assertEqual(len(run["events"]), len(rref.get("events", [])))
            for ev, eref in zip(run["events"], rref.get("events", [])):
                n_events += 1
                self.assertEqual(len(eref), 1)
                if "profile_event" in eref:
                    p = eref["profile_event"]
                    self.assertEqual(ev["kind"], "profile")
                    for key in ("chain_index", "instruction_id", "delegate_debug_id_int", "start_time", "end_time"):
                        self.assertEqual(ev[key], p[key], key)
                    self.assertEqual(ev["name"], p.get("name"))
                    self.assertEqual(ev["delegate_debug_id_str"], p.get("delegate_debug_id_str"))
                    md = p.get("delegate_debug_metadata")
                    self.assertEqual(ev["metadata_size"], None if md is None else len(md))
                elif "allocation_event" in eref:
                    a = eref["allocation_event"]
                    self.assertEqual(ev["kind"], "allocation")
                    self.assertEqual(ev["allocator_id"], a["allocator_id"])
                    self.assertEqual(ev["allocation_size"], a["allocation_size"])
                else:
                    self.assertEqual(ev["kind"], "debug")
        self.assertEqual(n_events, 31)

    # ------------------------------------------------------------ PTE
    def _compare_program(self, ours, ref):
        self.assertEqual(ours["format"], "pte")
        self.assertEqual(ours["version"], ref["version"])
        self.assertEqual([(s["offset"], s["size"]) for s in ours["segments"]],
                         [(s["offset"], s["size"]) for s in ref.get("segments", [])])
        cs = ref.get("constant_segment")
        if cs is None:
            self.assertIsNone(ours["constant_segment"])
        else:
            self.assertEqual(ours["constant_segment"]["segment_index"], cs["segment_index"])
            self.assertEqual(ours["constant_segment"]["offsets"], cs.get("offsets", []))
        if "constant_buffer" in ref:
            self.assertEqual([b["size"] for b in ours["constant_buffer"]],
                             [len(b.get("storage", [])) for b in ref["constant_buffer"]])
        self.assertEqual([b["size"] for b in ours["backend_delegate_data"]],
                         [len(b.get("data", [])) for b in ref.get("backend_delegate_data", [])])
        self.assertEqual([(n["key"], n["segment_index"]) for n in ours["named_data"]],
                         [(n.get("key"), n["segment_index"]) for n in ref.get("named_data", [])])
        plans = ref.get("execution_plan", [])
        self.assertEqual(len(ours["methods"]), len(plans))
        for m, p in zip(ours["methods"], plans):
            self.assertEqual(m["name"], p.get("name"))
            self.assertEqual(m["inputs"], p.get("inputs", []))
            self.assertEqual(m["outputs"], p.get("outputs", []))
            self.assertEqual(m["non_const_buffer_sizes"], p.get("non_const_buffer_sizes", []))
            values = p.get("values", [])
            counts = {}
            for v in values:
                counts[v["val_type"]] = counts.get(v["val_type"], 0) + 1
            self.assertEqual(m["values"], counts)
            self.assertEqual(m["n_values"], len(values))
            for ov, rv in zip(m["value_list"], values):
                self.assertEqual(ov["kind"], rv["val_type"])
                val = rv.get("val", {})
                if rv["val_type"] == "Tensor":
                    self.assertEqual(ov["scalar_type"], val["scalar_type"])
                    self.assertEqual(ov["sizes"], val.get("sizes", []))
                    self.assertEqual(ov["dim_order"], val.get("dim_order", []))
                    self.assertEqual(ov["data_buffer_idx"], val["data_buffer_idx"])
                    ai = val.get("allocation_info")
                    if ai is None:
                        self.assertNotIn("allocation_info", ov)
                    else:
                        self.assertEqual(ov["allocation_info"]["memory_id"], ai["memory_id"])
                        self.assertEqual(ov["allocation_info"]["memory_offset"],
                                         (ai["memory_offset_high"] << 32) | ai["memory_offset_low"])
                elif rv["val_type"] in ("Int", "Bool"):
                    self.assertEqual(ov["value"], val["int_val" if rv["val_type"] == "Int" else "bool_val"])
                elif rv["val_type"] == "Double":
                    self.assertAlmostEqual(ov["value"], val["double_val"])
                elif rv["val_type"] in ("IntList", "TensorList", "OptionalTensorList", "BoolList"):
                    self.assertEqual(ov["items"], val.get("items", []))
            ops = [o.get("name", "") + ("." + o["overload"] if o.get("overload") else "")
                   for o in p.get("operators", [])]
            self.assertEqual(m["operators"], ops)
            instrs = [i for c in p.get("chains", []) for i in c.get("instructions", [])]
            self.assertEqual(m["chains"], len(p.get("chains", [])))
            self.assertEqual(len(m["instructions"]), len(instrs))
            for oi, ri in zip(m["instructions"], instrs):
                kind = INSTR_KINDS[ri["instr_args_type"]]
                self.assertEqual(oi["kind"], kind)
                args = ri.get("instr_args", {})
                if kind == "kernel":
                    self.assertEqual(oi["op_index"], args["op_index"])
                    self.assertEqual(oi["operator"], ops[args["op_index"]])
                    self.assertEqual(oi["args"], args.get("args", []))
                elif kind == "delegate":
                    self.assertEqual(oi["delegate_index"], args["delegate_index"])
                    self.assertEqual(oi["args"], args.get("args", []))
            dels = p.get("delegates", [])
            self.assertEqual(len(m["delegates"]), len(dels))
            for od, rd in zip(m["delegates"], dels):
                self.assertEqual(od["backend"], rd.get("id"))
                self.assertEqual(od["location"], rd["processed"]["location"].lower())
                self.assertEqual(od["index"], rd["processed"]["index"])

    def _check_pte(self, name):
        path = fixture("executorch/" + name)
        self._compare_program(mlia_inspect(path), flatc_json("program.fbs", path))

    def test_pte_add(self):
        self._check_pte("add.pte")

    def test_pte_lenet(self):
        self._check_pte("lenet.pte")

    def test_pte_kws(self):
        self._check_pte("kws-cortex-m.pte")

    def test_pte_module_linear(self):
        self._check_pte("module-linear-no-constant-segment.pte")

    # ------------------------------------------------------------ BundledProgram
    def _check_bp(self, name):
        path = fixture("executorch/" + name)
        ours = mlia_inspect(path)
        ref = flatc_json("bundled_program.fbs", path, raw_binary=True)
        self.assertEqual(ours["format"], "bundled_program")
        self.assertEqual(ours["version"], ref["version"])
        self.assertEqual(ours["program_size"], len(ref["program"]))
        suites = ref.get("method_test_suites", [])
        self.assertEqual(len(ours["method_test_suites"]), len(suites))
        for s, rs in zip(ours["method_test_suites"], suites):
            self.assertEqual(s["method_name"], rs.get("method_name"))
            cases = rs.get("test_cases", [])
            self.assertEqual(s["test_cases"], len(cases))
            for c, rc in zip(s["cases"], cases):
                for key in ("inputs", "expected_outputs"):
                    self.assertEqual(len(c[key]), len(rc.get(key, [])))
                    for v, rv in zip(c[key], rc.get(key, [])):
                        self.assertEqual(v["kind"], rv["val_type"])
                        if rv["val_type"] == "Tensor":
                            t = rv["val"]
                            self.assertEqual(v["scalar_type"], t["scalar_type"])
                            self.assertEqual(v["sizes"], t.get("sizes", []))
                            self.assertEqual(v["dim_order"], t.get("dim_order", []))
                            self.assertEqual(v["data_size"], len(t.get("data", [])))
        # the embedded program decodes like the standalone PTE flatc sees
        with tempfile.TemporaryDirectory() as tmp:
            inner = os.path.join(tmp, "inner.pte")
            with open(inner, "wb") as f:
                f.write(bytes(ref["program"]))
            self._compare_program(ours["program"], flatc_json("program.fbs", inner))

    def test_bundled_mul_add(self):
        self._check_bp("bundled-mul-add.bpte")

    def test_bundled_lenet(self):
        self._check_bp("lenet.bp")


if __name__ == "__main__":
    unittest.main()
