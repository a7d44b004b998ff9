"""mlia-output.json against Arm MLIA's output contract (issue 8).

1. Explicit runs, one per kind of input, each checked by tests/py/conformance/validate.py
   (schema rules, MLIA's semantic rules, loader, standard metrics) with zero problems.
   (Every other `mlia check` in the suite is checked too, by helpers.run_mlia.)
2. The checker itself fails on each problem the old writer had (so a regression cannot pass).
3. Relationships round-trip: from parent_ids/child_ids alone, the segment/cascade/chain/stripe
   tree and the chain <-> source operator associations equal what the views show.
"""
import copy
import json
import os
import tempfile
import unittest

from conformance import validate
from helpers import ROOT, build_fixture, check_args, fixture, load_sample, need_binary, run_mlia

LENET_ETDUMP = fixture("executorch/lenet.etdp")


def delegate_entry(desc):
    return next(p for p in desc["plan"] if "delegate" in p)


def output_doc(out):
    with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
        return json.load(f)


class ExplicitRuns(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-conformance-")

    def check_run(self, name, etrecord, etdump, *extra):
        out = os.path.join(self.tmp, name, "out")
        os.makedirs(out, exist_ok=True)
        p = run_mlia(*check_args(etrecord, etdump, "--output-dir", out, *extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(validate.validate_file(os.path.join(out, "mlia-output", "mlia-output.json")), [])
        return output_doc(out), out

    def desc_run(self, name, desc, *extra):
        paths = build_fixture(desc, os.path.join(self.tmp, name))
        return self.check_run(name, paths["etrecord"], paths["etdump"], *extra)

    def test_runtime_only(self):
        paths = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(self.tmp, "lenet"))
        doc, _ = self.check_run("lenet", paths["etrecord"], LENET_ETDUMP)
        r = doc["results"][0]
        kinds = {e["kind"] for e in r["entities"]}
        self.assertTrue({"source_operator", "nn_module", "code_stack"} <= kinds, kinds)
        self.assertEqual({k["id"] for k in r["entity_kinds"]} & validate.WELL_KNOWN_KINDS, set())
        total = next(m for m in r["metrics"] if m["name"] == "total_cycles")
        self.assertEqual(total["availability"], "unavailable")

    def test_nx_v2(self):
        doc, _ = self.desc_run("v2", load_sample("demo.json"))
        ips = next(m for m in doc["results"][0]["metrics"] if m["name"] == "inferences_per_second")
        self.assertEqual(ips["unit"], "inferences/s")

    def test_nx_v1(self):
        desc = load_sample("demo.json")
        desc["nx"] = {"schema_version": 1}
        doc, _ = self.desc_run("v1", desc)
        self.assertTrue(doc["context"]["runtime_configuration"]["statistics"]["mode_assumed"])

    def test_partial_coverage_and_multi_segment(self):
        desc = load_sample("demo.json")
        entry = delegate_entry(desc)
        second = copy.deepcopy(entry["nx_segments"][0])
        second["segment_id"] = 1
        second["executions"] = [0, 1]
        entry["nx_segments"].append(second)
        doc, _ = self.desc_run("partial", desc)
        r = doc["results"][0]
        self.assertEqual(r["status"], "partial")
        segments = [e for e in r["entities"] if e["kind"] == "segment"]
        self.assertEqual(len(segments), 2)
        for m in r["metrics"]:
            if m["name"] in ("total_cycles", "compute_cycles", "target_utilization"):
                self.assertEqual(set(m), {"name", "unit", "availability", "reason"})

    def test_multi_segment_full_coverage(self):
        desc = load_sample("demo.json")
        entry = delegate_entry(desc)
        second = copy.deepcopy(entry["nx_segments"][0])
        second["segment_id"] = 1
        entry["nx_segments"].append(second)
        doc, _ = self.desc_run("multi", desc)
        ids = {e["id"] for e in doc["results"][0]["entities"]}
        self.assertIn("segment/1", ids)

    def test_companion(self):
        from test_companion import build as build_companion
        d = os.path.join(self.tmp, "companion")
        paths = build_companion(load_sample("vww4.json"), d)
        doc, _ = self.check_run("companion", paths["etrecord"], paths["etdump"], "--companion-model", paths["pte"])
        tu = next(m for m in doc["results"][0]["metrics"] if m["name"] == "target_utilization")
        self.assertIsInstance(tu.get("aggregation", ""), str)  # never null

    def test_code_stack_file_uses_forward_slashes(self):
        desc = load_sample("demo.json")
        node = next(n for n in desc["nodes"] if n.get("source"))
        node["source"][-1]["file"] = "C:\\Users\\me\\demo\\layers.py"
        doc, _ = self.desc_run("windows", desc)
        files = [e["attributes"]["file"] for e in doc["results"][0]["entities"] if e["kind"] == "code_stack"]
        self.assertIn("C:/Users/me/demo/layers.py", files)
        self.assertFalse(any("\\" in f for f in files), files)

    def test_empty_method_without_errors(self):
        # a method with no execution in the ETDump: nothing measured, no error, still valid
        import mkfixture  # noqa: F401  (tools/ on the path)
        from fixturelib.model import Fixture
        from fixturelib import etrecord as etrecord_mod
        lenet = Fixture(load_sample("lenet.json"), ROOT)
        demo_desc = load_sample("demo.json")
        demo_desc["method"] = "decode"
        demo = Fixture(demo_desc, ROOT)
        etrecord = os.path.join(self.tmp, "two.etrecord")
        maps = []
        for getter in ("debug_handle_map", "delegate_map", "num_outs_map"):
            merged = {}
            for fx in (lenet, demo):
                merged.update(getattr(fx, getter)())
            maps.append(merged)
        etrecord_mod.write_etrecord(etrecord, {"forward": lenet.exported_program_text(legacy=False),
                                               "decode": demo.exported_program_text(legacy=False)},
                                    maps[0], maps[1], maps[2], layout="current")
        doc, _ = self.check_run("empty", etrecord, LENET_ETDUMP,
                                "--neural-technology-profiling-data.etrecord-method", "decode")
        r = doc["results"][0]
        self.assertEqual(r["errors"], [])
        self.assertEqual(doc["context"]["runtime_configuration"]["executions"], 0)
        self.assertEqual(r["breakdowns"], [])
        self.assertEqual({m["name"] for m in r["metrics"]} & set(validate.STANDARD_METRICS),
                         set(validate.STANDARD_METRICS))


class CheckerCatchesOldProblems(unittest.TestCase):
    """Each problem of the writer before issue 8, applied to a valid document, is reported."""

    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-conformance-bad-")
        paths = build_fixture(load_sample("demo.json"), cls.tmp)
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--output-dir", cls.tmp))
        if p.returncode:
            raise AssertionError(p.stderr)
        cls.good = output_doc(cls.tmp)

    def problems(self, mutate):
        doc = copy.deepcopy(self.good)
        mutate(doc["results"][0], doc)
        return validate.validate(doc)

    def assert_reported(self, mutate, *fragments):
        errors = self.problems(mutate)
        for fragment in fragments:
            self.assertTrue(any(fragment in e for e in errors), (fragment, errors[:5]))

    def entity(self, r, kind):
        return next(e for e in r["entities"] if e["kind"] == kind)

    def test_the_valid_document_is_valid(self):
        self.assertEqual(validate.validate(self.good), [])

    def test_old_entity_kind_items(self):
        def old(r, _):
            r["entity_kinds"] = [{"kind": k["id"], "description": "x", "parent_kinds": [], "child_kinds": []}
                                 for k in r["entity_kinds"]]
        self.assert_reported(old, "required property 'id' missing", "additional property 'kind'",
                             "additional property 'description'")

    def test_declared_well_known_kind(self):
        self.assert_reported(lambda r, _: r["entity_kinds"].append({"id": "source_operator"}),
                             "Well-known entity kind 'source_operator' must not be declared")

    def test_parent_id_and_associations(self):
        def old(r, _):
            e = self.entity(r, "stripe")
            e["parent_id"] = e.pop("parent_ids")[0]
            e["associations"] = []
        self.assert_reported(old, "additional property 'parent_id'", "additional property 'associations'",
                             "legacy field 'parent_id'")

    def test_null_aggregation(self):
        def old(r, _):
            m = next(m for b in r["breakdowns"] for m in b["metrics"] if m["name"] == "execution_coverage")
            m["aggregation"] = None
        self.assert_reported(old, "matches 0 of the 2 alternatives")

    def test_null_where_a_string_is_required(self):
        self.assert_reported(lambda r, _: self.entity(r, "chain").update(stack_trace=None),
                             "stack_trace: null is not of type string")

    def test_inferences_per_second_unit(self):
        def old(r, _):
            next(m for m in r["metrics"] if m["name"] == "inferences_per_second")["unit"] = "1/s"
        self.assert_reported(old, "must use unit 'inferences/s', got '1/s'")

    def test_missing_standard_metric(self):
        def old(r, _):
            r["metrics"] = [m for m in r["metrics"] if m["name"] != "average_memory"]
        self.assert_reported(old, "standard performance metric 'average_memory' is missing")

    def test_unresolved_reference_and_cycle(self):
        self.assert_reported(lambda r, _: self.entity(r, "stripe").update(parent_ids=["chain/nowhere"]),
                             "Entity reference 'chain/nowhere'")

        def cycle(r, _):
            stripe = self.entity(r, "stripe")
            stripe["child_ids"] = [stripe["parent_ids"][0]]
        self.assert_reported(cycle, "contains a directed cycle")

    def test_relationship_not_covered_by_kinds(self):
        def old(r, _):
            for k in r["entity_kinds"]:
                if k["id"] in ("chain", "stripe"):
                    k.pop("child_kinds", None)
                    k.pop("parent_kinds", None)
        self.assert_reported(old, "is not covered by a declared or well-known entity kind relationship")

    def test_unavailable_metric_with_samples(self):
        def old(r, _):
            next(m for m in r["metrics"] if m.get("availability"))["samples"] = 1
        self.assert_reported(old, "matches 0 of the 2 alternatives",
                             "unavailable metrics cannot include aggregation or samples")

    def test_bad_placement_qualifier_and_component(self):
        def old(r, doc):
            next(m for b in r["breakdowns"] for m in b["metrics"])["qualifiers"]["placement"] = "Accelerator"
            doc["target"]["components"][0]["type"] = "accelerator"
        self.assert_reported(old, '"Accelerator" is not one of', '"accelerator" is not one of')


class RulesFileAgainstJsonSchemaLibrary(CheckerCatchesOldProblems):
    """When the `jsonschema` package is importable (optional), our rules file must be a
    valid draft 2020-12 schema and the library must agree with our structural checker on
    the valid document and on every mutated one of CheckerCatchesOldProblems."""

    @classmethod
    def setUpClass(cls):
        try:
            import jsonschema
        except ImportError:
            raise unittest.SkipTest("jsonschema is not installed (optional cross-check)")
        super().setUpClass()
        rules = validate.load_rules()
        jsonschema.Draft202012Validator.check_schema(rules)
        cls.library = jsonschema.Draft202012Validator(rules)
        cls.ours = validate.SchemaChecker(rules)

    def problems(self, mutate):
        doc = copy.deepcopy(self.good)
        mutate(doc["results"][0], doc)
        library_ok = not list(self.library.iter_errors(doc))
        ours_ok = not self.ours.check(doc)
        self.assertEqual(library_ok, ours_ok)
        return validate.validate(doc)


class RelationshipsRoundTrip(unittest.TestCase):
    """The DAG in the result alone gives the trees and associations the views draw."""

    def produce(self, name, etrecord, etdump, *extra):
        out = os.path.join(self.tmp, name)
        os.makedirs(out, exist_ok=True)
        p = run_mlia(*check_args(etrecord, etdump, "--output-dir", out, "--model-explorer", "files", *extra))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "mlia-output", "model-explorer", "models", "segment_cascade_chain.json"),
                  encoding="utf-8") as f:
            hierarchy = f.read()
        with open(os.path.join(out, "mlia-output", "model-explorer", "models", "etrecord_chain_mapping.json"),
                  encoding="utf-8") as f:
            mapping = f.read()
        return output_doc(out), json.loads(hierarchy), json.loads(mapping)

    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-roundtrip-")

    @staticmethod
    def result_tree(doc):
        """{child id: parent id} for stripes, chains, cascades, from parent_ids/child_ids only."""
        r = doc["results"][0]
        kind = {e["id"]: e["kind"] for e in r["entities"]}
        _, parents = validate.entity_graph(r["entities"])
        up = {"stripe": "chain", "chain": ("cascade", "segment"), "cascade": "segment"}
        tree = {}
        for eid, k in kind.items():
            if k not in up:
                continue
            want = up[k] if isinstance(up[k], tuple) else (up[k],)
            ps = [p for p in parents[eid] if kind[p] in want]
            # the structural tree is a tree: exactly one structural parent
            assert len(ps) == 1, (eid, ps)
            tree[eid] = ps[0]
        assoc = {(p, eid) for eid, k in kind.items() if k == "source_operator"
                 for p in parents[eid] if kind[p] == "chain"}
        return tree, assoc

    @staticmethod
    def view_tree(hierarchy):
        """{child id: parent id} from the hierarchy view's node namespaces."""
        tree = {}
        for g in hierarchy["graphs"]:
            for n in g["nodes"]:
                nid = n["id"]
                if not nid.startswith(("stripe/", "chain/", "cascade/")):
                    continue
                parts = [p for p in n.get("namespace", "").split("/") if p]
                seg = parts[0][len("segment_"):]

                def entity_of(part):
                    for prefix in ("cascade", "chain"):
                        if part.startswith(prefix + "_"):
                            return f"{prefix}/segment_{seg}/{part[len(prefix) + 1:]}"
                    return f"segment/{part[len('segment_'):]}"
                # every namespace level is a group whose parent is the level above
                path = [entity_of(p) for p in parts] + [nid]
                for child, parent in zip(path[1:], path):
                    tree[child] = parent
        return tree

    @staticmethod
    def view_associations(mapping):
        assoc = set()
        for g in mapping["graphs"]:
            for n in g["nodes"]:
                if not n["id"].startswith("source_operator/"):
                    continue
                for e in n.get("incomingEdges", []):
                    if str(e.get("sourceNodeId", "")).startswith("chain/"):
                        assoc.add((e["sourceNodeId"], n["id"]))
        return assoc

    def compare(self, doc, hierarchy, mapping):
        tree, assoc = self.result_tree(doc)
        self.assertTrue(tree)
        self.assertEqual(tree, self.view_tree(hierarchy))
        self.assertTrue(assoc)
        self.assertEqual(assoc, self.view_associations(mapping))

    def test_demo_two_segments(self):
        desc = load_sample("demo.json")
        entry = delegate_entry(desc)
        second = copy.deepcopy(entry["nx_segments"][0])
        second["segment_id"] = 1
        entry["nx_segments"].append(second)
        paths = build_fixture(desc, os.path.join(self.tmp, "demo"))
        self.compare(*self.produce("demo-out", paths["etrecord"], paths["etdump"]))

    def test_companion_vww4(self):
        from test_companion import build as build_companion
        paths = build_companion(load_sample("vww4.json"), os.path.join(self.tmp, "vww4"))
        self.compare(*self.produce("vww4-out", paths["etrecord"], paths["etdump"], "--companion-model",
                                   paths["pte"]))


if __name__ == "__main__":
    unittest.main()
