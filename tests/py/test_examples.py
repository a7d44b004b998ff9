"""The README's Python example (issue 19, 10) is examples/top_operators.py,
shown verbatim in README.md, and runs on the demo sample."""
import os
import subprocess
import sys
import tempfile
import unittest

from helpers import BUILD, ROOT, build_fixture

LIB = os.environ.get("MLIA_LIB", os.path.join(ROOT, BUILD, "libmlia.so"))
EXAMPLE = os.path.join(ROOT, "examples", "top_operators.py")


class Examples(unittest.TestCase):
    def test_readme_shows_the_example_verbatim(self):
        with open(EXAMPLE, encoding="utf-8") as f:
            code = f.read()
        with open(os.path.join(ROOT, "README.md"), encoding="utf-8") as f:
            self.assertIn("```python\n" + code + "```\n", f.read())

    def test_example_runs(self):
        if not os.path.exists(LIB):
            self.skipTest(f"{LIB} not built")
        with tempfile.TemporaryDirectory(prefix="mlia-example-") as tmp:
            paths = build_fixture(os.path.join(ROOT, "samples", "demo.json"), tmp)
            p = subprocess.run([sys.executable, EXAMPLE, paths["etrecord"], paths["etdump"]],
                               capture_output=True, text=True, env=dict(os.environ, MLIA_LIB=LIB), cwd=tmp)
        self.assertEqual(p.returncode, 0, p.stderr)
        lines = p.stdout.splitlines()
        self.assertEqual(lines[0], "status ok, inference 0.5179 ms")
        self.assertEqual(len(lines), 6)
        self.assertIn("0.412 ms  shared     aten.relu.default  (aten_relu_default_1)", p.stdout)


if __name__ == "__main__":
    unittest.main()
