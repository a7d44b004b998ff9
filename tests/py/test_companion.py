"""Companion PTE (docs/analysis.md, issue 4): a PTE embedding the vww4
sample's generated VGF (a SPIR-V TOSA graph) as its VgfBackend delegate with a
matching capture, and the rejection cases."""
import json
import os
import shutil
import tempfile
import unittest

from helpers import ROOT, Result, check_args, fixture, load_sample, need_binary, run_mlia


def build(desc, out, vgf_override=None):
    import mkfixture  # noqa: F401  (puts tools/ on the path)
    from fixturelib.model import Fixture
    from fixturelib import etrecord as etrecord_mod
    fx = Fixture(desc, ROOT)
    os.makedirs(out, exist_ok=True)
    paths = {"etrecord": os.path.join(out, "m.etrecord"), "etdump": os.path.join(out, "m.etdump"),
             "pte": os.path.join(out, "m.pte")}
    etrecord_mod.write_etrecord(paths["etrecord"], {fx.method: fx.exported_program_text(legacy=False)},
                                fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map(), layout="current")
    with open(paths["etdump"], "wb") as f:
        f.write(fx.etdump_bytes())
    if vgf_override is not None:
        with open(vgf_override, "rb") as f:
            fx.vgf_bytes = f.read()
    with open(paths["pte"], "wb") as f:
        f.write(fx.pte_bytes()[0])
    return paths


class CompanionTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-companion-")
        cls.desc = load_sample("vww4.json")
        cls.paths = build(cls.desc, os.path.join(cls.tmp, "ok"))

    def run_check(self, companion, *extra, etdump=None):
        out = tempfile.mkdtemp(prefix="mlia-out-", dir=self.tmp)
        p = run_mlia(*check_args(self.paths["etrecord"], etdump or self.paths["etdump"],
                                 "--companion-model", companion, "--output-dir", out, "--json", *extra))
        return p, out

    def test_associations_for_every_labelled_spirv_id(self):
        p, out = self.run_check(self.paths["pte"])
        self.assertEqual(p.returncode, 0, p.stderr)
        res = Result(json.loads(p.stdout))
        labelled = [e for e in res.entities.values()
                    if e["kind"] == "compiler_operation" and "spirv_id" in e["attributes"]
                    and "/tosa-" in e["id"]]
        self.assertGreater(len(labelled), 0)
        for e in labelled:
            spirv = f"compiler_operation/segment_0/spirv-{e['attributes']['spirv_id']}"
            self.assertIn(spirv, res.entities, spirv)
            # debug-database operation -> SPIR-V operation -> source operators
            self.assertIn(spirv, e["child_ids"])
            self.assertIn(e["id"], res.entities[spirv]["parent_ids"])
            chains = [p for p in e["parent_ids"] if p.startswith("chain/")]
            self.assertTrue(chains, e["id"])
            for chain in chains:
                self.assertIn(chain, res.entities[spirv]["parent_ids"])
                self.assertIn(spirv, res.entities[chain]["child_ids"])
            for src in (a for a in e["child_ids"] if a.startswith("source_operator/")):
                self.assertIn(spirv, res.entities[src]["parent_ids"])
        # every TOSA operation of the VGF becomes an entity
        from fixturelib.model import Fixture
        tosa = Fixture(self.desc, ROOT).vgf_ops[0]
        spirv_ops = [i for i in res.entities if i.startswith("compiler_operation/segment_0/spirv-")]
        self.assertEqual(sorted(spirv_ops), sorted(f"compiler_operation/segment_0/spirv-{rid}" for rid, _ in tosa))
        self.assertEqual(len(tosa), 25)
        cm = res.doc["context"]["runtime_configuration"]["companion_model"]
        self.assertEqual(cm["name"], "m.pte")
        self.assertEqual(cm["size_bytes"], os.path.getsize(self.paths["pte"]))
        self.assertEqual(len(cm["sha256"]), 64)
        with open(os.path.join(out, "mlia-output", "logs", "mlia.log")) as f:
            self.assertIn("structural compatibility only", f.read())

    def test_pte_without_vgf_delegate(self):
        # any PTE of the program is a companion (issue 32): no VGF views, a
        # memory view from its plan
        import mkfixture
        lenet = mkfixture.build(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(self.tmp, "lenet-pte"))
        out = tempfile.mkdtemp(prefix="mlia-out-", dir=self.tmp)
        p = run_mlia(*check_args(lenet["etrecord"], lenet["etdump"], "--companion-model", lenet["pte"],
                                 "--output-dir", out, "--json"))
        self.assertEqual(p.returncode, 0, p.stderr)
        res = Result(json.loads(p.stdout))
        self.assertGreater(res.model_metric("planned_memory")["value"], 0)
        self.assertNotIn("compiler_operation", {e["kind"] for e in res.entities.values()})
        with open(os.path.join(out, "mlia-output", "logs", "mlia.log")) as f:
            self.assertIn("companion: method 'forward' calls no delegate; no VGF views", f.read())

    def test_bundled_program_rejected(self):
        path = os.path.join(self.tmp, "bundled.pte")
        shutil.copy(fixture("executorch/bundled-mul-add.bpte"), path)
        p, _ = self.run_check(path)
        # told by content (issue 19, 8): a usage error naming where the PTE is
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines()[0],
                         f"mlia: error: --companion-model {path} is a BundledProgram, not a PTE program: give the "
                         "PTE whose VgfBackend delegate ran with --companion-model; a BundledProgram wraps the PTE: "
                         "give the PTE itself with --companion-model.")

    def test_pte_embedding_a_different_vgf(self):
        # a one-op graph (spirvwrite): the capture's labels name ids it lacks
        from fixturelib import spirvwrite, vgfwrite
        other_vgf = os.path.join(self.tmp, "maxpool.vgf")
        with open(other_vgf, "wb") as f:
            f.write(vgfwrite.build(spirvwrite.graph_vgf({
                "input": {"shape": [1, 4, 4, 1], "dtype": "i8"},
                "ops": [{"op": "MAX_POOL2D", "kernel": [2, 2], "stride": [2, 2], "shape": [1, 2, 2, 1]}]})))
        other = build(self.desc, os.path.join(self.tmp, "other"), vgf_override=other_vgf)
        p, _ = self.run_check(other["pte"])
        self.assertEqual(p.returncode, 1)
        # the PTE is blamed, not the ETDump (issue 19, 4)
        self.assertEqual(p.stderr,
                         f"mlia: error: {other['pte']}: Companion model does not match the capture (the neural "
                         f"statistics of {self.paths['etdump']}, run 1): Debug label 'TOSACONV2D_spirv_id_47' "
                         "references SPIR-V result ID 47, which is not present in supplied VGF segment 0. Give "
                         "the PTE of the program that wrote this ETDump.\n")

    def test_companion_of_another_program_blames_the_companion(self):
        # The LeNet capture has no statistics, but the first problem is that
        # the vww4 PTE is not LeNet's program: the message says so and names
        # the companion (issue 12 item 9), not the ETDump's missing statistics.
        lenet = os.path.join(self.tmp, "lenet")
        import mkfixture
        paths = mkfixture.build(os.path.join(ROOT, "samples", "lenet.json"), lenet)
        out = tempfile.mkdtemp(prefix="mlia-out-", dir=self.tmp)
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"],
                                 "--companion-model", self.paths["pte"], "--output-dir", out))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.strip(),
                         f"mlia: error: {self.paths['pte']}: Companion model does not match the capture: "
                         "instruction 0 of chain 0 is a delegate in the PTE but the ETDump records a "
                         "OPERATOR_CALL.")

    def test_instruction_count_mismatch(self):
        # the LeNet capture addresses 14 instructions; the vww4 PTE has 1
        lenet = os.path.join(self.tmp, "lenet2")
        import mkfixture
        paths = mkfixture.build(os.path.join(ROOT, "samples", "lenet.json"), lenet)
        p = run_mlia(*check_args(self.paths["etrecord"], self.paths["etdump"], "--companion-model",
                                 paths["pte"], "--output-dir", tempfile.mkdtemp(dir=self.tmp)))
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stderr.strip(),
                         f"mlia: error: {paths['pte']}: Companion model does not match the capture: instruction 0 "
                         "of chain 0 is a kernel in the PTE but the ETDump records a DELEGATE_CALL.")


if __name__ == "__main__":
    unittest.main()
