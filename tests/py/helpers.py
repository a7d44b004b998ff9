"""Shared helpers for the Python tests: paths, running the CLI, building fixtures."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", "build")
MLIA = os.environ.get("MLIA_BIN", os.path.join(ROOT, BUILD, "mlia"))
FIXTURES = os.environ.get("MLIA_FIXTURES", os.path.join(ROOT, "..", "shared", "fixtures"))
sys.path.insert(0, os.path.join(ROOT, "tools"))


def fixture(rel):
    return os.path.join(FIXTURES, rel)


def need_binary(test):
    if not os.path.exists(MLIA):
        raise unittest.SkipTest(f"{MLIA} not built")


def run_mlia(*args, cwd=None, env=None):
    e = dict(os.environ)
    e.pop("BROWSER", None)
    if env:
        e.update(env)
    p = subprocess.run([MLIA, *map(str, args)], capture_output=True, text=True, cwd=cwd, env=e)
    assert_conformant_output(args, cwd, p)
    return p


def assert_conformant_output(args, cwd, proc):
    """Every mlia-output.json a successful `mlia check` writes must pass Arm MLIA's output
    contract (tests/py/conformance/validate.py); raises AssertionError otherwise."""
    args = [str(a) for a in args]
    if not args or args[0] != "check" or proc.returncode != 0:
        return
    out = "."
    for i, a in enumerate(args):
        if a == "--output-dir" and i + 1 < len(args):
            out = args[i + 1]
        elif a.startswith("--output-dir="):
            out = a.split("=", 1)[1]
    path = os.path.join(cwd or os.getcwd(), out, "mlia-output", "mlia-output.json")
    if not os.path.exists(path):
        return
    from conformance import validate
    errors = validate.validate_file(path)
    if errors:
        raise AssertionError(f"{path} breaks the MLIA output contract ({len(errors)} error(s)):\n  "
                             + "\n  ".join(errors[:20]))


def build_fixture(desc, outdir):
    """desc: path of a description JSON or a dict. Returns {kind: path}."""
    import mkfixture  # tools/mkfixture.py
    if isinstance(desc, str):
        return mkfixture.build(desc, outdir)
    return mkfixture.build_desc(desc, outdir, ROOT)


def load_sample(name):
    with open(os.path.join(ROOT, "samples", name), encoding="utf-8") as f:
        return json.load(f)


def check_args(etrecord, etdump, *extra):
    return ["check", etrecord, "--target-profile", "neural-technology", "--performance",
            "--profiling-data", etdump, *extra]


def metric(entity_metrics, name, statistic=None):
    for m in entity_metrics:
        if m["name"] != name:
            continue
        if statistic and m.get("qualifiers", {}).get("statistic") != statistic:
            continue
        return m
    return None


class Result:
    """Convenience view of a standardized result document."""

    def __init__(self, doc):
        self.doc = doc
        self.r = doc["results"][0]
        self.entities = {e["id"]: e for e in self.r["entities"]}
        self.breakdowns = {b["entity_id"]: b["metrics"] for b in self.r["breakdowns"]}

    def model_metric(self, name):
        return metric(self.r["metrics"], name)

    def m(self, entity_id, name, statistic=None):
        return metric(self.breakdowns.get(entity_id, []), name, statistic)

    @property
    def warnings(self):
        return self.r["warnings"]
