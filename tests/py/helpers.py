"""Shared helpers for the Python tests: paths, running the CLI, building fixtures.

Real third-party fixtures (tests/fixtures.lock) are reached through
fixture(rel): under $MLIA_FIXTURES, else ../shared/fixtures beside the
repository root. An absent fixture skips the calling test (or class, or
module) with the reason; a fixture whose SHA-256 differs from the list, or
that the list does not name, fails it; MLIA_REQUIRE_FIXTURES=1 turns the
skip into a failure. fixture_path(rel) only builds the path, for module
level constants whose tests call fixture() when they run.
"""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("BUILD", "build")
MLIA = os.environ.get("MLIA_BIN", os.path.join(ROOT, BUILD, "mlia"))
FIXTURES = os.environ.get("MLIA_FIXTURES") or os.path.join(ROOT, "..", "shared", "fixtures")
LOCK = os.path.join(ROOT, "tests", "fixtures.lock")
sys.path.insert(0, os.path.join(ROOT, "tools"))


class FixtureError(AssertionError):
    """A fixture that is present but is not the file tests/fixtures.lock names
    (or is absent while MLIA_REQUIRE_FIXTURES=1): a test failure."""


def fixture_lock():
    """{relative path: (sha256, bytes, origin)} of tests/fixtures.lock."""
    out = {}
    with open(LOCK, encoding="utf-8") as f:
        for line in f:
            if not line.strip() or line.startswith("#"):
                continue
            sha, size, rel, origin = (line.rstrip("\n").split(None, 3) + [""])[:4]
            out[rel] = (sha, int(size), origin)
    return out


_verified = {}


def fixture_path(rel):
    """Path of a real fixture, without any check."""
    return os.path.join(FIXTURES, rel)


def fixture_state(rel):
    """(state, reason): "ok", "absent" or "wrong" for a real fixture."""
    path = fixture_path(rel)
    if path in _verified:
        return _verified[path]
    lock = fixture_lock()
    if not os.path.exists(path):
        state = ("absent", f"fixture {rel} is absent (looked in {path}; set MLIA_FIXTURES, "
                           "see tests/fixtures.lock)")
    elif rel not in lock:
        state = ("wrong", f"fixture {rel} is not listed in tests/fixtures.lock")
    else:
        with open(path, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
        want = lock[rel][0]
        state = ("ok", "") if got == want else (
            "wrong", f"fixture {path} has SHA-256 {got}, tests/fixtures.lock says {want}")
    _verified[path] = state
    return state


def require_fixtures():
    return os.environ.get("MLIA_REQUIRE_FIXTURES") == "1"


def fixture(rel):
    """Path of a real fixture, checked: raises unittest.SkipTest when it is
    absent (FixtureError with MLIA_REQUIRE_FIXTURES=1) and FixtureError when
    its SHA-256 is not the listed one."""
    state, reason = fixture_state(rel)
    if state == "absent":
        if require_fixtures():
            raise FixtureError(reason + " (MLIA_REQUIRE_FIXTURES=1)")
        raise unittest.SkipTest(reason)
    if state == "wrong":
        raise FixtureError(reason)
    return fixture_path(rel)


def fixture_refs(desc):
    """The `fixture:<rel>` paths a fixture description uses."""
    if isinstance(desc, dict):
        return [r for v in desc.values() for r in fixture_refs(v)]
    if isinstance(desc, list):
        return [r for v in desc for r in fixture_refs(v)]
    if isinstance(desc, str) and desc.startswith("fixture:"):
        return [desc[len("fixture:"):]]
    return []


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
        with open(desc, encoding="utf-8") as f:
            refs = fixture_refs(json.load(f))
    else:
        refs = fixture_refs(desc)
    for rel in refs:        # skip (or fail) like fixture() before building
        fixture(rel)
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


class DelegateCapture(unittest.TestCase):
    """The shared set-up of the delegate tests (tests/py/test_delegate_*.py): builds the
    capture of DESC (a fixture-builder description) and runs `mlia check` on it once
    with EXTRA arguments; the test class reads cls.p (the process), cls.files (the built
    inputs), cls.base (DIR/mlia-output) and cls.res (the Result)."""
    DESC = None
    EXTRA = ()

    @classmethod
    def setUpClass(cls):
        if cls.DESC is None:
            raise unittest.SkipTest("the shared base class itself")
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-%s-" % os.path.splitext(os.path.basename(cls.DESC))[0])
        cls.files = build_fixture(cls.DESC, os.path.join(cls.tmp, "in"))
        out = os.path.join(cls.tmp, "out")
        cls.p = run_mlia(*check_args(cls.files["etrecord"], cls.files["etdump"], "--output-dir", out, *cls.EXTRA))
        cls.base = os.path.join(out, "mlia-output")
        with open(os.path.join(cls.base, "mlia-output.json"), encoding="utf-8") as f:
            cls.res = Result(json.load(f))

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)
