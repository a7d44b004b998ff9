"""`mlia check ... --model-explorer files`: shapes of the Model Explorer artifacts and the
page (docs/views.md, docs/page.md), on the demo sample, the vww4 sample with its companion
PTE, and a demo variant whose node name is hostile markup."""
import copy
import json
import os
import re
import shutil
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, load_sample, need_binary, run_mlia

HOSTILE = "</script><img src=x onerror=alert(1)>"
VIEW_IDS = ["source_model", "segment_cascade_chain", "etrecord_chain_mapping",
            "etdump_backend_trace", "pte_vgf_backend_hierarchy"]
COLOR = re.compile(r"^#[0-9a-f]{6}$")


def run_check(desc, tmp, companion=False):
    paths = build_fixture(desc, tmp)
    extra = ["--model-explorer", "files", "--output-dir", tmp, "--quiet"]
    if companion:
        extra += ["--companion-model", paths["pte"]]
    p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], *extra))
    if p.returncode != 0:
        raise AssertionError(f"mlia check failed ({p.returncode}): {p.stderr}")
    return os.path.join(tmp, "mlia-output", "model-explorer")


def load(base, rel):
    with open(os.path.join(base, rel), encoding="utf-8") as f:
        return json.load(f)


def page_data(base):
    with open(os.path.join(base, "bundle", "index.html"), encoding="utf-8") as f:
        html = f.read()
    m = re.search(r'<script type="application/json" id="mlia-data">(.*?)</script>', html, re.S)
    return html, json.loads(m.group(1))


class ArtifactChecks:
    """Checks shared by the sample runs; subclasses set cls.base."""

    def manifest(self):
        return load(self.base, "manifest.json")

    def test_manifest_shape(self):
        m = self.manifest()
        self.assertEqual(m["version"], 1)
        self.assertEqual([v["id"] for v in m["views"]], VIEW_IDS)
        self.assertEqual(m["view_links"], "view-links.json")
        for p in m["sync_navigation"]:
            self.assertEqual(p["file"], f"sync/{p['left_view']}--{p['right_view']}.json")
        self.assertEqual(m["entity_node_mappings"], "entity-node-mappings.json")
        self.assertEqual(m["page"], "bundle/index.html")
        ids = [v["id"] for v in m["views"] if v["available"]]
        self.assertIn(m["initial_view"], ids)
        for v in m["views"]:
            if v["available"]:
                self.assertIsNone(v["reason"])
                self.assertEqual(v["model"], f"models/{v['id']}.json")
                self.assertTrue(os.path.exists(os.path.join(self.base, v["model"])))
                for o in v["overlays"]:
                    self.assertTrue(os.path.exists(os.path.join(self.base, o["file"])), o["file"])
                    self.assertLessEqual(o["scale"]["min"], o["scale"]["max"])
                    for k in ("id", "label", "unit", "entity_kind", "group_measurement"):
                        self.assertIn(k, o)
            else:
                self.assertTrue(v["reason"])
                self.assertIsNone(v["model"])
                self.assertFalse(os.path.exists(os.path.join(self.base, "models", v["id"] + ".json")))

    def test_models_are_model_explorer_collections(self):
        for v in self.manifest()["views"]:
            if not v["available"]:
                continue
            col = load(self.base, v["model"])
            self.assertEqual(col["label"], v["label"])
            self.assertTrue(col["graphs"])
            for g in col["graphs"]:
                self.assertIsInstance(g["id"], str)
                ids = [n["id"] for n in g["nodes"]]
                self.assertEqual(len(ids), len(set(ids)), f"{v['id']}/{g['id']}: duplicate node ids")
                idset = set(ids)
                for n in g["nodes"]:
                    for k in ("id", "label", "namespace", "attrs", "incomingEdges", "subgraphIds",
                              "inputsMetadata", "outputsMetadata"):
                        self.assertIn(k, n)
                    self.assertTrue(n["style"] is None or isinstance(n["style"], dict))
                    for a in n["attrs"]:
                        self.assertIsInstance(a["key"], str)
                        self.assertIsInstance(a["value"], str)
                    for e in n["incomingEdges"]:
                        self.assertIn(e["sourceNodeId"], idset)
                        self.assertIsInstance(e["sourceNodeOutputId"], str)
                        self.assertIsInstance(e["targetNodeInputId"], str)
                ga = g["groupNodeAttributes"]
                self.assertTrue(ga is None or isinstance(ga, dict))

    def test_node_data_colours_follow_kind_scale(self):
        m = self.manifest()
        colour_of = {}   # (entity_kind, value) -> {(colour, scale min, scale max)}
        for v in m["views"]:
            for o in v["overlays"]:
                nd = load(self.base, o["file"])
                for gid, gdata in nd.items():
                    self.assertEqual(len(gdata["gradient"]), 3)
                    for node, r in gdata["results"].items():
                        self.assertRegex(r["bgColor"], COLOR)
                        self.assertIn(r["textColor"], ("#000000", "#ffffff"))
                        self.assertGreaterEqual(r["value"], o["scale"]["min"])
                        self.assertLessEqual(r["value"], o["scale"]["max"])
                        colour_of.setdefault((o["entity_kind"], r["value"]), set()).add(
                            (r["bgColor"], o["scale"]["min"], o["scale"]["max"]))
        # same kind + same value + same scale => same colour, in every view
        for (kind, value), cols in colour_of.items():
            by_scale = {}
            for c, lo, hi in cols:
                by_scale.setdefault((lo, hi), set()).add(c)
            for s, cs in by_scale.items():
                self.assertEqual(len(cs), 1, f"{kind} value {value} has colours {cs}")

    def test_sync_entries_reference_existing_nodes(self):
        nodes = {}
        for v in self.manifest()["views"]:
            if v["available"]:
                for g in load(self.base, v["model"])["graphs"]:
                    nodes[f"{v['id']}/{g['id']}"] = {n["id"] for n in g["nodes"]}
        links = load(self.base, "view-links.json")
        self.assertEqual(links["schema"], "mlia.view-links/1")
        for e in links["links"]:
            self.assertIn(e["from"]["node"], nodes[f"{e['from']['view']}/{e['from']['graph']}"])
            for t in e["to"]:
                self.assertIn(t["node"], nodes[f"{t['view']}/{t['graph']}"])
                self.assertNotEqual(t["view"], e["from"]["view"])
        enm = load(self.base, "entity-node-mappings.json")
        self.assertEqual(list(enm), sorted(enm))
        for ent, refs in enm.items():
            for r in refs:
                self.assertIn(r["node"], nodes[f"{r['view']}/{r['graph']}"])

    def test_page_data_contract(self):
        html, d = page_data(self.base)
        self.assertNotIn("@@MLIA_DATA@@", html)
        self.assertEqual(d["schema"], "mlia.page/1")
        self.assertEqual([v["id"] for v in d["views"]], VIEW_IDS)
        self.assertEqual(d["initial_view"], self.manifest()["initial_view"])
        for k in ("title", "warnings", "assumptions", "notes", "sync", "entities", "entity_nodes",
                  "table_columns"):
            self.assertIn(k, d)
        with open(os.path.join(self.base, "..", "mlia-output.json"), encoding="utf-8") as f:
            result = json.load(f)["results"][0]
        self.assertEqual(sorted(d["entities"]), sorted(e["id"] for e in result["entities"]))
        for v in d["views"]:
            if not v["available"]:
                self.assertIsNone(v["collection"])
                continue
            graph_ids = {g["id"] for g in v["collection"]["graphs"]}
            for o in v["overlays"]:
                for key, val in o["values"].items():
                    self.assertIn(key.split("/", 1)[0], graph_ids)
                    self.assertRegex(val["color"], COLOR)
                    self.assertIsInstance(val["text"], str)

    def test_group_measurements_only_on_summary_nodes(self):
        """A group measurement is keyed to the summary node of its group (an op
        node inside the group, pinned to its top), never to a member."""
        for v in self.manifest()["views"]:
            if not v["available"]:
                continue
            col = load(self.base, v["model"])
            for o in v["overlays"]:
                nd = load(self.base, o["file"])
                for g in col["graphs"]:
                    if g["id"] not in nd:
                        continue
                    by_id = {n["id"]: n for n in g["nodes"]}
                    for key in nd[g["id"]]["results"]:
                        self.assertIn(key, by_id)
                        pinned = (by_id[key].get("config") or {}).get("pinToGroupTop", False)
                        if o["group_measurement"]:
                            self.assertTrue(pinned, f"{o['file']}: {key} is not a summary node")
                            self.assertTrue(by_id[key]["namespace"])


class DemoSample(ArtifactChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-me-demo-")
        cls.base = run_check(os.path.join(ROOT, "samples", "demo.json"), cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_views_available(self):
        m = self.manifest()
        avail = {v["id"]: v["available"] for v in m["views"]}
        self.assertEqual(avail, {"source_model": True, "segment_cascade_chain": True,
                                 "etrecord_chain_mapping": True, "etdump_backend_trace": True,
                                 "pte_vgf_backend_hierarchy": False})
        self.assertEqual(m["views"][4]["reason"], "No companion PTE was given.")
        self.assertEqual(m["initial_view"], "etrecord_chain_mapping")

    def test_source_model_graph(self):
        col = load(self.base, "models/source_model.json")
        g = col["graphs"][0]
        self.assertEqual(g["id"], "forward")
        by_id = {n["id"]: n for n in g["nodes"]}
        conv = by_id["source_operator/forward/aten_convolution_default"]
        self.assertEqual(conv["namespace"], "features/conv1")
        self.assertEqual(conv["label"], "aten.convolution.default")
        self.assertEqual([e["sourceNodeId"] for e in conv["incomingEdges"]],
                         ["input/x", "input/p_features_conv1_weight", "input/p_features_conv1_bias"])
        attrs = {a["key"]: a["value"] for a in conv["attrs"]}
        self.assertEqual(attrs["shape"], "[1, 8, 32, 32]")
        self.assertEqual(attrs["dtype"], "float32")
        self.assertEqual(conv["outputsMetadata"][0]["attrs"][0],
                         {"key": "tensor_shape", "value": "float32[1,8,32,32]"})
        self.assertIn("stack_trace", attrs)
        self.assertIn("output/aten_addmm_default_1", by_id)

    def test_backend_trace_groups(self):
        col = load(self.base, "models/etdump_backend_trace.json")
        graphs = {g["id"]: g for g in col["graphs"]}
        self.assertEqual(sorted(graphs), ["compiler_operations", "runtime_events"])
        ops = graphs["compiler_operations"]
        for n in ops["nodes"]:
            self.assertTrue(n["namespace"] == "unmatched" or n["namespace"].startswith("segment_"))
            keys = {a["key"] for a in n["attrs"]}
            self.assertFalse(any("group measurement" in k for k in keys))
        self.assertTrue(ops["groupNodeAttributes"])
        rt = graphs["runtime_events"]
        labels = [n["label"] for n in rt["nodes"]]
        self.assertIn("DELEGATE_CALL", labels)
        self.assertIn("VGF_EXECUTE", labels)

    def test_same_chain_same_colour_across_views(self):
        a = load(self.base, "node-data/segment_cascade_chain/chain_total_cycles.json")
        b = load(self.base, "node-data/etrecord_chain_mapping/chain_total_cycles.json")
        ra = a["nx_hierarchy"]["results"]
        rb = b["chain_mapping"]["results"]
        common = set(ra) & set(rb)
        self.assertTrue(common)
        for k in common:
            self.assertEqual(ra[k], rb[k])


class HostileNames(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-me-xss-")
        desc = copy.deepcopy(load_sample("demo.json"))
        old = "aten_relu_default"
        text = json.dumps(desc)
        text = re.sub(r'"%s"' % old, json.dumps(HOSTILE), text)
        desc = json.loads(text)
        for n in desc["nodes"]:
            for fr in n.get("source", []):
                fr["code"] = "<b>" + fr.get("code", "") + "</b>"
        cls.base = run_check(desc, cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_hostile_name_never_unescaped(self):
        html, d = page_data(self.base)
        self.assertNotIn(HOSTILE, html)
        self.assertNotIn("<img", html)
        self.assertEqual(html.count("</script>"), html.count("<script"))
        self.assertIn("source_operator/forward/" + HOSTILE, d["entities"])
        col = load(self.base, "models/source_model.json")
        self.assertIn("source_operator/forward/" + HOSTILE, {n["id"] for n in col["graphs"][0]["nodes"]})


class Vww4Companion(ArtifactChecks, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-me-vww4-")
        cls.base = run_check(os.path.join(ROOT, "samples", "vww4.json"), cls.tmp, companion=True)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_pte_view(self):
        m = self.manifest()
        self.assertTrue(m["views"][4]["available"])
        col = load(self.base, "models/pte_vgf_backend_hierarchy.json")
        graphs = {g["id"]: g for g in col["graphs"]}
        self.assertIn("plan", graphs)
        self.assertIn("segment_0", graphs)
        seg = graphs["segment_0"]
        ops = [n for n in seg["nodes"] if n["id"].startswith("compiler_operation/segment_0/spirv-")]
        # every TOSA operation of the sample's generated VGF, in module order
        from fixturelib.model import Fixture
        tosa = Fixture(load_sample("vww4.json"), ROOT).vgf_ops[0]
        self.assertEqual(len(ops), len(tosa))
        self.assertEqual(len(tosa), 25)
        self.assertEqual(ops[0]["label"], "Conv2D")
        self.assertEqual(ops[0]["id"], f"compiler_operation/segment_0/spirv-{tosa[0][0]}")
        self.assertTrue(any(n["incomingEdges"] for n in ops))
        _, d = page_data(self.base)
        self.assertTrue(any("structural compatibility" in a for a in d["assumptions"]))


if __name__ == "__main__":
    unittest.main()
