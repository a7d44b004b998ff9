"""The Python package installed with pip into a temporary virtual
environment (issue 10): `pip install --no-build-isolation --no-index` of a
copy of the package sources (pyproject.toml + setup.py compile the C library
and CLI into the package), then, from another directory and with nothing of
the repository on the path: `import mlia`, `mlia.run_advisor(...)` on the
LeNet example (the real lenet.etdp: skipped with the reason when absent) and
on the generated companion sample (all five views), the `mlia` console
script and `python -m mlia` with the CLI's behaviour.

The interpreter must provide venv, setuptools and wheel without PyPI: the
first of Debian's /usr/bin/python3 (python3-venv, python3-setuptools,
python3-wheel; tools/setup.sh installs them) and the running python3 that
has them is used (venv --system-site-packages). Skipped, with the reason,
under the sanitizer build (MLIA_SAN): the package's library is a plain
build and the normal run covers it.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT, build_fixture, fixture

SOURCES = ["Makefile", "pyproject.toml", "setup.py", "README.md", "include", "src", "python"]
PROBE = "import ensurepip, setuptools, wheel, venv"


def base_python():
    """An interpreter that can build the package offline, or None."""
    for exe in ("/usr/bin/python3", sys.executable):
        if os.path.exists(exe) and subprocess.run([exe, "-c", PROBE], capture_output=True).returncode == 0:
            return exe
    return None


def clean_env(**extra):
    """No repository paths or library overrides: only the installed package may answer."""
    drop = ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MLIA_LIB", "MLIA_BIN", "PYTHONPATH", "PYTHONHOME")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(extra)
    return env


@unittest.skipIf(os.environ.get("MLIA_SAN"), "sanitizer build: the pip package builds its own plain library; "
                                             "the normal `make check` runs these tests")
class PipInstall(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        py = base_python()
        if py is None:
            raise AssertionError("no python3 with venv, setuptools and wheel (Debian: apt-get install "
                                 "python3-venv python3-setuptools python3-wheel; tools/setup.sh does it)")
        cls.tmp = tempfile.mkdtemp(prefix="mlia-pip-")
        src = os.path.join(cls.tmp, "src")
        os.makedirs(src)
        for name in SOURCES:
            path = os.path.join(ROOT, name)
            (shutil.copytree if os.path.isdir(path) else shutil.copy)(path, os.path.join(src, name))
        cls.venv = os.path.join(cls.tmp, "venv")
        subprocess.run([py, "-m", "venv", "--system-site-packages", cls.venv], check=True, env=clean_env())
        cls.python = os.path.join(cls.venv, "bin", "python")
        p = subprocess.run([cls.python, "-m", "pip", "install", "--no-build-isolation", "--no-index",
                            "--disable-pip-version-check", "-q", src], capture_output=True, text=True,
                           env=clean_env(), cwd=cls.tmp)
        if p.returncode != 0:
            raise AssertionError(f"pip install failed:\n{p.stdout}\n{p.stderr}")
        cls.elsewhere = os.path.join(cls.tmp, "elsewhere")
        os.makedirs(cls.elsewhere)
        cls.companion = build_fixture(os.path.join(ROOT, "samples", "vww4.json"), os.path.join(cls.tmp, "vww4"))
        cls.lenet = build_fixture(os.path.join(ROOT, "samples", "lenet.json"), os.path.join(cls.tmp, "lenet"))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def py(self, code, *args):
        return subprocess.run([self.python, "-c", code, *args], capture_output=True, text=True,
                              cwd=self.elsewhere, env=clean_env())

    def test_import_from_another_directory(self):
        p = self.py("import mlia, os, json; print(json.dumps([mlia.__file__, mlia.__version__, "
                    "sorted(os.listdir(os.path.join(os.path.dirname(mlia.__file__), '_native')))]))")
        self.assertEqual(p.returncode, 0, p.stderr)
        path, version, native = json.loads(p.stdout)
        self.assertTrue(path.startswith(self.venv + os.sep), path)   # the installed copy, not python/
        self.assertEqual(version, "0.1.0")
        self.assertEqual(native, ["libmlia.so", "mlia"])

    def test_run_advisor_lenet_example(self):
        etdump = fixture("executorch/lenet.etdp")
        out = os.path.join(self.tmp, "out-lenet")
        p = self.py("import json, sys, mlia\n"
                    "r = mlia.run_advisor(model=sys.argv[1], profiling_data=[sys.argv[2]], output_dir=sys.argv[3])\n"
                    "print(json.dumps(r))", self.lenet["etrecord"], etdump, out)
        self.assertEqual(p.returncode, 0, p.stderr)
        res = json.loads(p.stdout)
        self.assertEqual(res["schema_version"], "1.2.0")
        metrics = {m["name"]: m for m in res["results"][0]["metrics"]}
        self.assertEqual(metrics["inference_time"]["value"], 1.898821)   # Method::execute of lenet.etdp
        with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
            self.assertEqual(json.load(f), res)

    def test_run_advisor_companion_example(self):
        out = os.path.join(self.tmp, "out-companion")
        p = self.py("import json, sys, mlia\n"
                    "r = mlia.run_advisor(model=sys.argv[1], profiling_data=[sys.argv[2]], companion_model=sys.argv[3],\n"
                    "                     output_dir=sys.argv[4], model_explorer='files')\n"
                    "print(json.dumps(r))", self.companion["etrecord"], self.companion["etdump"],
                    self.companion["pte"], out)
        self.assertEqual(p.returncode, 0, p.stderr)
        res = json.loads(p.stdout)
        ids = {e["id"] for e in res["results"][0]["entities"]}
        self.assertTrue(any(i.startswith("compiler_operation/segment_0/spirv-") for i in ids))
        base = os.path.join(out, "mlia-output", "model-explorer")
        self.assertTrue(os.path.isfile(os.path.join(base, "bundle", "index.html")))
        views = sorted(os.listdir(os.path.join(base, "models")))
        for view in ("source_model", "segment_cascade_chain", "etrecord_chain_mapping", "etdump_backend_trace",
                     "pte_vgf_backend_hierarchy"):
            self.assertIn(view + ".json", views)

    def test_run_advisor_errors_carry_the_cli_message(self):
        p = self.py("import sys, mlia\n"
                    "try:\n    mlia.run_advisor(model=sys.argv[1], profiling_data=['missing.etdump'])\n"
                    "except mlia.MliaError as e:\n    print(type(e).__name__, e)", self.lenet["etrecord"])
        self.assertEqual(p.returncode, 0, p.stderr)
        # an MliaError: its subclass for the status (a missing file is I/O)
        self.assertEqual(p.stdout, "MliaIOError missing.etdump: No such file or directory\n")

    def test_console_script_and_module(self):
        mlia = os.path.join(self.venv, "bin", "mlia")
        for cmd in ([mlia], [self.python, "-m", "mlia"]):
            p = subprocess.run([*cmd, "--version"], capture_output=True, text=True, cwd=self.elsewhere,
                               env=clean_env())
            self.assertEqual((p.returncode, p.stdout), (0, "mlia 0.1.0\n"))
            p = subprocess.run([*cmd, "check", self.lenet["etrecord"], "-t", "x", "--performance",
                                "--profiling-data", self.lenet["etdump"]], capture_output=True, text=True,
                               cwd=self.elsewhere, env=clean_env())
            self.assertEqual(p.returncode, 2)
            self.assertTrue(p.stderr.startswith("mlia: error: Target profile 'x' is not supported"), p.stderr)
        out = os.path.join(self.tmp, "out-cli")
        p = subprocess.run([mlia, "check", self.companion["etrecord"], "--target-profile", "neural-technology",
                            "--performance", "--profiling-data", self.companion["etdump"], "--companion-model",
                            self.companion["pte"], "--output-dir", out, "--json"], capture_output=True,
                           text=True, cwd=self.elsewhere, env=clean_env())
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
            self.assertEqual(json.loads(p.stdout), json.load(f))


if __name__ == "__main__":
    unittest.main()
