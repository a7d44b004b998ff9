"""model-explorer/open_in_model_explorer.py, the launcher `mlia check
--model-explorer` writes (issue 19, 1): it drives Model Explorer's Python API
(model_explorer.config(), add_model_from_path, add_node_data_from_path,
visualize_from_config) with every model and node-data file of the manifest,
the overlay to pick first at the top. Model Explorer is not installed here:
a stand-in module records the calls."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, need_binary, run_mlia

FAKE = '''
import json, os
_calls = []
class _Config:
    def add_model_from_path(self, path, adapterId=""):
        _calls.append(["model", path]); return self
    def add_node_data_from_path(self, path):
        _calls.append(["node_data", path]); return self
def config():
    return _Config()
def visualize_from_config(config=None, **kw):
    _calls.append(["visualize", sorted(kw)])
    with open(os.environ["FAKE_ME_OUT"], "w") as f:
        json.dump(_calls, f)
'''


class Launcher(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.TemporaryDirectory(prefix="mlia-launcher-")
        paths = build_fixture(os.path.join(ROOT, "samples", "vww4.json"), os.path.join(cls.tmp.name, "in"))
        out = os.path.join(cls.tmp.name, "out")
        p = run_mlia(*check_args(paths["etrecord"], paths["etdump"], "--companion-model", paths["pte"],
                                 "--output-dir", out, "--model-explorer", "files"))
        assert p.returncode == 0, p.stderr
        cls.stdout = p.stdout
        cls.base = os.path.join(out, "mlia-output", "model-explorer")
        with open(os.path.join(cls.base, "manifest.json"), encoding="utf-8") as f:
            cls.me = json.load(f)["model_explorer"]
        fake = os.path.join(cls.tmp.name, "fake")
        os.makedirs(os.path.join(fake, "model_explorer"))
        with open(os.path.join(fake, "model_explorer", "__init__.py"), "w") as f:
            f.write(FAKE)
        cls.fake = fake

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_launcher(self, *args, fake=True):
        record = os.path.join(self.tmp.name, "calls.json")
        env = dict(os.environ, FAKE_ME_OUT=record, PYTHONPATH=self.fake if fake else "")
        # run from elsewhere: the launcher finds its files next to itself
        p = subprocess.run([sys.executable, os.path.join(self.base, "open_in_model_explorer.py"), *args],
                           capture_output=True, text=True, env=env, cwd=self.tmp.name)
        return p, record

    def test_loads_every_model_and_overlay_first_overlay_on_top(self):
        p, record = self.run_launcher()
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(record) as f:
            calls = json.load(f)
        first = self.me["first_overlay"]["file"]
        data = [first] + [d for d in self.me["node_data_paths"] if d != first]
        want = [["model", os.path.join(self.base, m)] for m in self.me["models"]] + \
               [["node_data", os.path.join(self.base, d)] for d in data] + [["visualize", []]]
        self.assertEqual(calls, want)
        self.assertGreater(len(self.me["node_data_paths"]), 40)  # the list the old command line carried
        self.assertEqual(p.stdout, f"In Model Explorer, pick the node data '{self.me['first_overlay']['name']}' "
                                   "first: nodes are coloured only once an overlay is picked.\n")

    def test_list_and_missing_model_explorer(self):
        p, _ = self.run_launcher("--list", fake=False)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), len(self.me["models"]) + len(self.me["node_data_paths"]))
        p, _ = self.run_launcher(fake=False)
        self.assertEqual((p.returncode, p.stderr), (1, "open_in_model_explorer: Model Explorer is not installed "
                                                       "here: pip install ai-edge-model-explorer\n"))

    def test_printed_command_is_short(self):
        # issue 19, 1: one line of about 2,900 characters before
        tail = self.stdout.split("Open in Google's Model Explorer", 1)[1].splitlines()
        self.assertEqual(len(tail), 3)
        self.assertTrue(tail[1].startswith("  python3 '") and tail[1].endswith("/open_in_model_explorer.py'"))
        self.assertLess(len(tail[1]), 200)
        self.assertIn("Chain total_cycles P50 (cycles) - ETRecord Chain Mapping", tail[2])


if __name__ == "__main__":
    unittest.main()
