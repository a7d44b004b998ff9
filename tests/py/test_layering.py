"""Data flows one way (files -> readers -> analysis -> writers): each layer of src/ includes
only the layers below it. In particular the writers in src/report read the run through
analysis/run.h and include nothing from src/api or src/cli."""
import os
import re
import unittest

from helpers import ROOT

# layer -> layers it may include (besides itself and the public include/mlia)
ALLOWED = {
    "core": set(),
    "formats": {"core"},
    "analysis": {"core", "formats"},
    "report": {"core", "formats", "analysis"},
    "api": {"core", "formats", "analysis", "report"},
    "cli": {"core", "formats", "analysis", "report", "api"},
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/', re.M)


def violations():
    found = []
    for layer, allowed in ALLOWED.items():
        d = os.path.join(ROOT, "src", layer)
        for name in sorted(os.listdir(d)):
            if not name.endswith((".c", ".h")):
                continue
            with open(os.path.join(d, name), encoding="utf-8", errors="replace") as f:
                text = f.read(200000)
            for target in INCLUDE.findall(text):
                if target not in allowed | {layer, "mlia"}:
                    found.append(f"src/{layer}/{name} includes {target}/")
    return found


class Layering(unittest.TestCase):
    def test_every_include_points_down(self):
        self.assertEqual(violations(), [])

    def test_report_reads_the_run_record(self):
        with open(os.path.join(ROOT, "src", "report", "result_json.h"), encoding="utf-8") as f:
            self.assertIn('#include "analysis/run.h"', f.read())


if __name__ == "__main__":
    unittest.main()
