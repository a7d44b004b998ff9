"""trace.pftrace (issue 20): `mlia check --trace` writes Perfetto's protobuf trace. The
file is decoded by an independent reader, `protoc --decode_raw` (Debian's
protobuf-compiler, tools/setup.sh), and every slice is checked against the capture as
`mlia inspect` decodes it and against trace.json (--trace-format json) of the same run
inputs. Field numbers: docs/trace.md."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest
from decimal import Decimal

from helpers import ROOT, build_fixture, check_args, load_sample, need_binary, run_mlia

MASK = (1 << 64) - 1
PROTOC = shutil.which("protoc")


def parse_decode_raw(text):
    """protoc --decode_raw's text into nested lists of (field, value): value is an int,
    bytes, or a list for a nested message."""
    root = []
    stack = [root]
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        if line == "}":
            stack.pop()
            continue
        m = re.fullmatch(r"(\d+) \{", line)
        if m:
            child = []
            stack[-1].append((int(m.group(1)), child))
            stack.append(child)
            continue
        m = re.fullmatch(r"(\d+): (.*)", line)
        assert m, line
        v = m.group(2)
        if v.startswith('"'):
            raw = v[1:-1].encode("latin-1").decode("unicode_escape").encode("latin-1")
            stack[-1].append((int(m.group(1)), raw))
        else:
            stack[-1].append((int(m.group(1)), int(v, 0)))
    assert len(stack) == 1
    return root


def fields(msg, num):
    return [v for f, v in msg if f == num]


def one(msg, num, default=None):
    vs = fields(msg, num)
    assert len(vs) <= 1, (num, msg)
    return vs[0] if vs else default


def text(v):
    """A string field; protoc may show a string that happens to parse as a message
    as one: the tests' strings are chosen so it does not happen (asserted)."""
    assert isinstance(v, bytes), v
    return v.decode("utf-8")


def read_trace(path):
    """The trace as the tests see it: tracks, slices per track (in begin order) and
    counter values, resolved the way Perfetto's reader does (sequence clock deltas,
    packet defaults, interned names)."""
    with open(path, "rb") as f:
        p = subprocess.run([PROTOC, "--decode_raw"], stdin=f, capture_output=True, check=True)
    packets = fields(parse_decode_raw(p.stdout.decode("latin-1")), 1)
    interned = {1: {}, 2: {}, 3: {}, 29: {}}
    tracks, slices, counters = {}, {}, {}
    open_ = {}
    clock = None
    default_track = None
    for pk in packets:
        assert one(pk, 10) == 1  # one sequence
        cs = one(pk, 6)
        if cs is not None:
            clocks = {one(c, 1): c for c in fields(cs, 1)}
            assert one(clocks[64], 3) == 1 and one(clocks[64], 2) == 0 and one(clocks[6], 2) == 0
            clock = 0
        d = one(pk, 59)
        if d is not None:
            assert one(d, 58) == 64
            default_track = one(one(d, 11), 11)
        idata = one(pk, 12)
        if idata is not None:
            for kind in interned:
                for entry in fields(idata, kind):
                    iid, s = one(entry, 1), text(one(entry, 2))
                    assert iid not in interned[kind], "iids are defined once"
                    interned[kind][iid] = s
        td = one(pk, 60)
        if td is not None:
            t = {"parent": one(td, 5)}
            if one(td, 2) is not None:
                t["name"] = text(one(td, 2))
            proc, thr = one(td, 3), one(td, 4)
            if proc is not None:
                t.update(pid=one(proc, 1), name=text(one(proc, 6)))
            if thr is not None:
                t.update(pid=one(thr, 1), tid=one(thr, 2), name=text(one(thr, 5)))
            t["counter"] = one(td, 8) is not None
            tracks[one(td, 1)] = t
        te = one(pk, 11)
        if te is None:
            continue
        if one(pk, 58) == 6:  # absolute BOOTTIME
            ts = one(pk, 8)
        else:
            clock = (clock + one(pk, 8)) & MASK
            ts = clock
        track = one(te, 11, default_track)
        kind = one(te, 9)
        if kind == 4:
            counters.setdefault(track, []).append((ts, one(te, 30)))
        elif kind == 1:
            args = {}
            for da in fields(te, 4):
                key = interned[3][one(da, 1)]
                if one(da, 17) is not None:
                    args[key] = interned[29][one(da, 17)]
                elif one(da, 4) is not None:
                    args[key] = one(da, 4)
                else:
                    items = fields(da, 12)
                    args[key] = [interned[29][one(i, 17)] if one(i, 17) is not None else one(i, 4)
                                 for i in items]
            s = {"name": interned[2][one(te, 10)], "cat": [interned[1][c] for c in fields(te, 3)],
                 "ts": ts, "args": args}
            slices.setdefault(track, []).append(s)
            open_.setdefault(track, []).append(s)
        elif kind == 2:
            s = open_[track].pop()
            s["dur"] = ts - s["ts"]
        else:
            raise AssertionError(f"unexpected track event type {kind}")
    assert all(not v for v in open_.values()), "every slice is closed"
    return tracks, slices, counters


@unittest.skipUnless(PROTOC, "protoc (protobuf-compiler) is not installed: bash tools/setup.sh")
class PerfettoTrace(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-pftrace-")
        cls.paths = build_fixture(load_sample("demo.json"), cls.tmp)
        cls.out = os.path.join(cls.tmp, "pf")
        p = run_mlia(*check_args(cls.paths["etrecord"], cls.paths["etdump"], "--output-dir", cls.out, "--trace",
                                 "--quiet"))
        assert p.returncode == 0, p.stderr
        cls.path = os.path.join(cls.out, "mlia-output", "trace.pftrace")
        cls.tracks, cls.slices, cls.counters = read_trace(cls.path)
        js = os.path.join(cls.tmp, "js")
        p = run_mlia(*check_args(cls.paths["etrecord"], cls.paths["etdump"], "--output-dir", js, "--trace",
                                 "--trace-format", "json", "--quiet"))
        assert p.returncode == 0, p.stderr
        with open(os.path.join(js, "mlia-output", "trace.json"), encoding="utf-8") as f:
            cls.json = json.load(f, parse_float=Decimal)
        cls.dump = json.loads(run_mlia("inspect", cls.paths["etdump"]).stdout)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def exec_tracks(self):
        return {t["tid"]: uuid for uuid, t in self.tracks.items() if t.get("tid")}

    def test_only_the_requested_file(self):
        self.assertEqual(sorted(os.listdir(os.path.join(self.out, "mlia-output"))),
                         ["logs", "mlia-output.json", "trace.pftrace"])

    def test_processes_and_tracks(self):
        procs = {t["pid"]: t["name"] for t in self.tracks.values() if "pid" in t and "tid" not in t}
        self.assertEqual(procs, {1: "forward", 2: "NX statistics"})
        names = {t["tid"]: (t["pid"], t["name"]) for t in self.tracks.values() if t.get("tid")}
        self.assertEqual(names, {k: (1, f"execution {k} (event block {k})") for k in (1, 2, 3)})
        counters = sorted(t["name"] for t in self.tracks.values() if t["counter"])
        self.assertEqual(counters, ["NX compute cycles (model)", "NX cycles (model)", "NX cycles segment/0"])

    def test_every_slice_equals_the_capture(self):
        # times: each execution's slices are exactly the profile events of its ETDump
        # block (start and end in ticks = ns)
        runs = self.dump["runs"]
        for k, uuid in self.exec_tracks().items():
            got = sorted((s["ts"], s["ts"] + s["dur"]) for s in self.slices[uuid])
            want = sorted((e["start_time"], e["end_time"]) for e in runs[k]["events"]
                          if e["kind"] == "profile" and e["end_time"] >= e["start_time"])
            self.assertEqual(got, want, f"execution {k}")
            self.assertGreater(len(got), 10)

    def test_every_slice_equals_trace_json(self):
        # names, categories, entity ids and debug handles: slice for slice the events of
        # trace.json (same order: wrapper first)
        xs = [e for e in self.json["traceEvents"] if e["ph"] == "X"]
        n = kernels = 0
        for k, uuid in self.exec_tracks().items():
            want = [e for e in xs if e["tid"] == k]
            got = self.slices[uuid]
            self.assertEqual(len(got), len(want))
            for s, e in zip(got, want):
                self.assertEqual((s["name"], s["cat"]), (e["name"], [e["cat"]]))
                self.assertEqual(s["ts"], e["ts"] * 1000)
                self.assertEqual(s["dur"], e["dur"] * 1000)
                a = e["args"]
                if "entity_ids" in a:
                    self.assertEqual(s["args"].get("entity_ids"), a["entity_ids"])
                    self.assertNotIn("entity_id", s["args"])
                else:
                    self.assertEqual(s["args"].get("entity_id"), a.get("entity_id"))
                if e["cat"] == "kernel":
                    # a kernel slice leaves its handles to its OPERATOR_CALL slice, which
                    # encloses it and has the same ones
                    self.assertNotIn("debug_handle", s["args"])
                    self.assertNotIn("debug_handles", s["args"])
                    op = [o for o in got if o["cat"] == ["operator"] and o["ts"] <= s["ts"] and
                          s["ts"] + s["dur"] <= o["ts"] + o["dur"] and
                          o["args"].get("entity_id") == s["args"].get("entity_id")]
                    self.assertTrue(op, s)
                    self.assertEqual(op[0]["args"].get("debug_handle"), a.get("debug_handle"))
                    self.assertEqual(op[0]["args"].get("debug_handles"), a.get("debug_handles"))
                    kernels += 1
                else:
                    self.assertEqual(s["args"].get("debug_handle"), a.get("debug_handle"))
                    self.assertEqual(s["args"].get("debug_handles"), a.get("debug_handles"))
                n += 1
        self.assertEqual(n, len(xs))
        self.assertGreater(kernels, 0)
        dc = [s for s in self.slices[self.exec_tracks()[1]] if s["name"] == "DELEGATE_CALL VgfBackend"]
        self.assertEqual(dc[0]["args"], {"entity_id": "delegate_call/forward/0/0",
                                         "debug_handles": [1, 2, 3, 4, 5, 6]})

    def test_slices_nest_on_their_track(self):
        for uuid in self.exec_tracks().values():
            stack = []
            for s in self.slices[uuid]:
                while stack and stack[-1]["ts"] + stack[-1]["dur"] <= s["ts"] and \
                        not (stack[-1]["dur"] == 0 and stack[-1]["ts"] == s["ts"]):
                    stack.pop()
                if stack:
                    self.assertLessEqual(s["ts"] + s["dur"], stack[-1]["ts"] + stack[-1]["dur"])
                stack.append(s)
        self.assertFalse([t for t in self.tracks.values() if "overlapping" in t.get("name", "")])

    def test_counters_equal_trace_json(self):
        want = {}
        for e in self.json["traceEvents"]:
            if e["ph"] == "C":
                want.setdefault(e["name"], []).append((e["ts"] * 1000, next(iter(e["args"].values()))))
        got = {self.tracks[u]["name"]: v for u, v in self.counters.items()}
        self.assertEqual(got, want)

    def test_deterministic(self):
        d = os.path.join(self.tmp, "again")
        p = run_mlia(*check_args(self.paths["etrecord"], self.paths["etdump"], "--output-dir", d, "--trace"))
        self.assertEqual(p.returncode, 0, p.stderr)
        with open(self.path, "rb") as a, open(os.path.join(d, "mlia-output", "trace.pftrace"), "rb") as b:
            self.assertEqual(a.read(), b.read())


class TraceOnRequest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-trace-req-")
        cls.paths = build_fixture(load_sample("demo.json"), cls.tmp)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_no_trace_by_default(self):
        out = os.path.join(self.tmp, "none")
        p = run_mlia(*check_args(self.paths["etrecord"], self.paths["etdump"], "--output-dir", out, "--quiet"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(sorted(os.listdir(os.path.join(out, "mlia-output"))), ["logs", "mlia-output.json"])

    def test_page_timeline_without_a_trace_file(self):
        out = os.path.join(self.tmp, "page")
        p = run_mlia(*check_args(self.paths["etrecord"], self.paths["etdump"], "--output-dir", out, "--quiet",
                                 "--model-explorer", "files"))
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertNotIn("trace.json", os.listdir(os.path.join(out, "mlia-output")))
        page = os.path.join(out, "mlia-output", "model-explorer", "bundle", "index.html")
        with open(page, encoding="utf-8") as f:
            html = f.read()
        m = re.search(r'<script type="application/json" id="mlia-data">(.*?)</script>', html, re.S)
        timeline = json.loads(m.group(1))["timeline"]
        self.assertEqual(timeline["n_executions"], 3)
        self.assertGreater(timeline["shown_events"], 30)

    def test_usage_errors(self):
        base = check_args(self.paths["etrecord"], self.paths["etdump"], "--output-dir", self.tmp)
        p = run_mlia(*base, "--trace", "--trace-format", "xml")
        self.assertEqual(p.returncode, 2)
        usage = "usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP [options] " \
                "(see 'mlia check --help')\n"
        self.assertEqual(p.stderr, "mlia: error: argument --trace-format: invalid choice: 'xml' (choose from "
                         "'perfetto', 'json')\n" + usage)
        p = run_mlia(*base, "--trace-format", "json")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr, "mlia: error: --trace-format requires --trace.\n" + usage)

    def test_python_option(self):
        code = r"""
import sys
sys.path.insert(0, sys.argv[1])
import mlia
etrecord, etdump, out = sys.argv[2:5]
mlia.run_advisor(model=etrecord, profiling_data=[etdump], output_dir=out, trace=True)
try:
    mlia.run_advisor(model=etrecord, profiling_data=[etdump], output_dir=out, trace="xml")
except mlia.MliaUsageError as e:
    print("usage:", e)
"""
        out = os.path.join(self.tmp, "py")
        env = dict(os.environ, MLIA_LIB=os.path.join(ROOT, os.environ.get("BUILD", "build"), "libmlia.so"))
        p = subprocess.run([sys.executable, "-c", code, os.path.join(ROOT, "python"), self.paths["etrecord"],
                            self.paths["etdump"], out], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(p.stdout, "usage: argument --trace-format: invalid choice: 'xml' (choose from 'perfetto', "
                                   "'json')\n")
        self.assertIn("trace.pftrace", os.listdir(os.path.join(out, "mlia-output")))


if __name__ == "__main__":
    unittest.main()
