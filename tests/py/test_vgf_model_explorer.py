"""Model Explorer oracle: our reproduction of Arm's VGF adapter graph for
vww4.vgf must equal the adapter's expected.json (docs/formats/spirv-tosa.md §9), node for node,
except the `loc` attributes that only mlir-translate's text can give."""
import json
import os
import subprocess
import tempfile
import unittest

from helpers import BUILD, ROOT, fixture

DRIVER = os.path.join(ROOT, BUILD, "tests", "backends", "vgf", "test_vgf")


def strip_loc(doc):
    for graph in doc["graphs"]:
        for node in graph["nodes"]:
            node["attrs"] = [a for a in node["attrs"] if a["key"] != "loc"]
    return doc


class ModelExplorerOracle(unittest.TestCase):
    def setUp(self):
        if not os.path.exists(DRIVER):
            self.fail(f"test driver not built: {DRIVER}")
        self.vgf = fixture("vgf/vww4.vgf")
        with open(fixture("vgf/vww4.model-explorer.json")) as f:
            self.expected = strip_loc(json.load(f))
        fd, self.out = tempfile.mkstemp(suffix=".json")
        os.close(fd)

    def tearDown(self):
        os.unlink(self.out)

    def dump(self, *label):
        subprocess.run([DRIVER, "--me-dump", self.vgf, self.out, *label], check=True)
        with open(self.out) as f:
            return json.load(f)

    def test_all_173_nodes_match(self):
        got = self.dump("input")
        exp_nodes = self.expected["graphs"][0]["nodes"]
        got_nodes = got["graphs"][0]["nodes"]
        self.assertEqual(len(exp_nodes), 173)
        self.assertEqual([n["id"] for n in got_nodes], [n["id"] for n in exp_nodes])
        for i, (e, g) in enumerate(zip(exp_nodes, got_nodes)):
            self.assertEqual(g, e, f"node {i} (id {e['id']})")
        self.assertEqual(got, self.expected)

    def test_fixture_facts(self):
        nodes = self.dump("input")["graphs"][0]["nodes"]
        labels = {}
        for n in nodes:
            if n["namespace"] == "graph_partition_0" and n["label"] != "GraphOutputs":
                labels[n["label"]] = labels.get(n["label"], 0) + 1
        self.assertEqual(labels, {"Rescale": 94, "Conv2D": 37, "DepthwiseConv2D": 17, "Add": 10,
                                  "Pad": 8, "AvgPool2D": 1, "Reshape": 1})
        ids = {n["id"] for n in nodes}
        edges = [(e["sourceNodeId"], n["id"]) for n in nodes for e in n["incomingEdges"]]
        self.assertEqual(len(edges), 1537)
        self.assertEqual(sum(1 for s, _ in edges if s in ids), 182)
        counts = {}
        for n in nodes:
            k = len(n["incomingEdges"])
            counts[k] = counts.get(k, 0) + 1
        self.assertEqual(counts, {10: 148, 2: 11, 3: 8, 1: 4, 7: 1, 0: 1})

    def test_default_label_is_file_stem(self):
        self.assertEqual(self.dump()["label"], "vww4")


if __name__ == "__main__":
    unittest.main()
