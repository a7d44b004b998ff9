"""The memory view (issue 32, docs/memory.md) end to end: the real LeNet PTE
(lenet.pte) as companion of the LeNet capture (lenet.etdp) and an ETRecord
built for that program (samples/lenet.json), against the hand derivation of
docs/memory.md; a PTE with a VGF delegate and one with no pools (fixture
builder); a truncated PTE; and no PTE at all."""
import copy
import json
import os
import tempfile
import unittest

from helpers import ROOT, Result, build_fixture, check_args, fixture, load_sample, need_binary, run_mlia

# docs/memory.md, "LeNet by hand": live bytes of pool 1 at each instruction
LENET_LIVE = [22912, 37632, 32928, 11104, 12800, 11200, 193600, 194080, 960, 40800, 41136, 672, 3696, 3736]


def sid(node):
    return f"source_operator/forward/{node}"


def bytes_metrics(metrics, name):
    return [m for m in metrics if m["name"] == name]


class LenetMemory(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-memory-")
        paths = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), cls.tmp)
        cls.etrecord = paths["etrecord"]
        cls.etdump = fixture("executorch/lenet.etdp")
        cls.pte = fixture("executorch/lenet.pte")
        cls.out = os.path.join(cls.tmp, "run")
        p = run_mlia(*check_args(cls.etrecord, cls.etdump, "--companion-model", cls.pte, "--output-dir",
                                 cls.out, "--json", "--csv"))
        if p.returncode != 0:
            raise AssertionError(f"mlia check failed: {p.returncode} {p.stderr}")
        cls.res = Result(json.loads(p.stdout))

    def test_model_metrics(self):
        r = self.res
        self.assertEqual(r.model_metric("planned_memory")["value"], 194080)
        self.assertEqual(r.model_metric("peak_activation_memory")["value"], 194080)
        self.assertEqual(r.model_metric("peak_activation_memory")["unit"], "bytes")
        self.assertEqual(r.model_metric("model_weight_memory")["value"], 246824)
        size = bytes_metrics(r.r["metrics"], "memory_pool_size")
        self.assertEqual([(m["value"], m["qualifiers"]) for m in size], [(194080, {"pool": "1"})])
        peak = bytes_metrics(r.r["metrics"], "memory_pool_peak")
        self.assertEqual([(m["value"], m["qualifiers"]) for m in peak], [(194080, {"pool": "1"})])
        self.assertEqual(bytes_metrics(r.r["metrics"], "memory_pool_waste")[0]["value"], 0)

    def test_live_bytes_per_instruction(self):
        live = bytes_metrics(self.res.r["metrics"], "live_bytes")
        self.assertEqual([int(m["qualifiers"]["instruction"]) for m in live], list(range(14)))
        self.assertEqual([m["value"] for m in live], LENET_LIVE)
        self.assertTrue(all(m["unit"] == "bytes" for m in live))

    def test_peak_operator_is_addmm_not_permute(self):
        # instructions 6 (permute_copy) and 7 (addmm) share debug handle 8:
        # the join picks the node whose target is the instruction's op
        r = self.res
        addmm = r.m(sid("aten_addmm_default"), "live_bytes")
        permute = r.m(sid("aten_permute_copy_default"), "live_bytes")
        self.assertEqual(addmm["value"], 194080)
        self.assertEqual(permute["value"], 193600)
        self.assertEqual(r.m(sid("aten_addmm_default"), "allocated_bytes")["value"], 480)
        self.assertEqual(r.m(sid("aten_max_pool2d_with_indices_default"), "allocated_bytes")["value"], 14112)
        # the static view has no instruction, hence no memory figure
        self.assertIsNone(r.m(sid("aten_view_copy_default"), "live_bytes"))

    def test_memory_csv(self):
        with open(os.path.join(self.out, "mlia-output", "csv", "memory.csv"), encoding="utf-8") as f:
            rows = f.read().splitlines()
        self.assertEqual(rows[0], "instruction,operator,source_operator,live_bytes,allocated_bytes,live_tensors")
        self.assertEqual(rows[8], "7,aten::addmm.out,aten_addmm_default,194080,480,4")
        self.assertEqual(len(rows), 15)

    def test_console_section(self):
        p = run_mlia(*check_args(self.etrecord, self.etdump, "--companion-model", self.pte, "--output-dir",
                                 os.path.join(self.tmp, "console")))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("Memory plan (forward): 1 pool, 194,080 bytes planned", p.stdout)
        text = " ".join(p.stdout.split())
        self.assertIn("pool 1: size 194,080 bytes, peak 194,080 bytes at instruction 7 (aten::addmm.out, "
                      "aten_addmm_default), waste 0 bytes", text)
        self.assertIn("1 7 aten_addmm_default 194,080 480", text)
        self.assertIn("Runtime allocations: not recorded in the ETDump", text)

    def test_memory_tensors_csv(self):
        with open(os.path.join(self.out, "mlia-output", "csv", "memory_tensors.csv"), encoding="utf-8") as f:
            rows = f.read().splitlines()
        self.assertEqual(rows[0], "value,pool,offset,bytes,dtype,first,last,producer,last_consumer,view_of,role")
        self.assertIn("10,1,37632,4096,FLOAT,0,0,,0,,input", rows)
        self.assertIn("71,1,192000,1600,FLOAT,5,7,,7,57,", rows)
        self.assertIn("92,1,193600,40,FLOAT,13,13,13,13,,output", rows)
        self.assertEqual(len(rows), 19)


class MemoryFixtures(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-memory-fx-")

    def run_check(self, desc, name, *extra):
        paths = build_fixture(desc, os.path.join(self.tmp, name))
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--companion-model", paths["pte"],
                                 "--output-dir", os.path.join(self.tmp, name + "-out"), "--json", *extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        return Result(json.loads(p.stdout)), paths

    def test_with_a_delegate(self):
        # vww4: one VgfBackend delegate call; its planned input (int8
        # [1, 128, 128, 1], 16,384 bytes) and output (int8 [1, 2], 2 bytes)
        # are live while it runs; the builder's plan rounds each to 16 bytes
        res, _ = self.run_check(load_sample("vww4.json"), "vww4")
        self.assertEqual(res.model_metric("planned_memory")["value"], 16400)
        live = bytes_metrics(res.r["metrics"], "live_bytes")
        self.assertEqual([(m["qualifiers"], m["value"]) for m in live], [({"instruction": "0"}, 16386)])
        self.assertEqual(res.model_metric("peak_activation_memory")["value"], 16386)
        self.assertEqual(bytes_metrics(res.r["metrics"], "memory_pool_waste")[0]["value"], 14)
        # the delegate call writes its output (2 bytes: the ETRecord's output count)
        self.assertEqual(res.m("delegate_call/forward/0/0", "live_bytes")["value"], 16386)
        self.assertEqual(res.m("delegate_call/forward/0/0", "allocated_bytes")["value"], 2)
        self.assertTrue(any(e.startswith("compiler_operation/") for e in res.entities))

    def test_no_pools(self):
        desc = copy.deepcopy(load_sample("vww4.json"))
        desc["pte"]["memory_plan"] = False
        res, _ = self.run_check(desc, "nopool")
        self.assertEqual(res.model_metric("planned_memory")["value"], 0)
        self.assertEqual(bytes_metrics(res.r["metrics"], "memory_pool_size"), [])
        m = res.model_metric("peak_activation_memory")
        self.assertEqual(m["availability"], "unavailable")
        self.assertEqual(m["reason"], "The method has no planned memory pool: its tensors live in delegate or "
                                      "caller memory.")

    def test_runtime_allocation_events(self):
        desc = copy.deepcopy(load_sample("lenet.json"))
        desc.setdefault("etdump", {})["allocators"] = ["method", "temp"]
        desc["etdump"]["allocations"] = [[1, 100], [2, 64], [1, 28]]
        res, _ = self.run_check(desc, "alloc")
        got = [(m["qualifiers"]["allocator"], m["value"], m["aggregation"])
               for m in bytes_metrics(res.r["metrics"], "runtime_allocated_bytes")]
        self.assertEqual(got, [("method", 128, "sum"), ("temp", 64, "sum")])

    def test_truncated_pte(self):
        paths = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(self.tmp, "trunc"))
        cut = os.path.join(self.tmp, "cut.pte")
        with open(fixture("executorch/lenet.pte"), "rb") as f, open(cut, "wb") as g:
            g.write(f.read(1000))
        out = os.path.join(self.tmp, "trunc-out")
        p = run_mlia(*check_args(paths["etrecord"], fixture("executorch/lenet.etdp"), "--companion-model", cut,
                                 "--output-dir", out))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr, f"mlia: error: {cut}: extended header program_size 5744 exceeds the file "
                                   "length 1000 at byte 16\n")
        self.assertFalse(os.path.exists(os.path.join(out, "mlia-output")))

    def test_without_pte_no_figures(self):
        paths = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(self.tmp, "nopte"))
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--output-dir",
                                 os.path.join(self.tmp, "nopte-out"), "--json"))
        self.assertEqual(p.returncode, 0, p.stderr)
        res = Result(json.loads(p.stdout))
        names = {m["name"] for m in res.r["metrics"]}
        self.assertFalse(names & {"planned_memory", "memory_pool_size", "memory_pool_peak", "live_bytes"})
        self.assertEqual(res.model_metric("peak_activation_memory")["availability"], "unavailable")


if __name__ == "__main__":
    unittest.main()
