"""The run history (issue 34, docs/history.md): `mlia check --history` records runs into a
SQLite file or a PostgreSQL database, `mlia history` lists them with a metric's trend, and
`mlia compare NEW --baseline-history` gates a run against the recorded runs of its program.

The PostgreSQL half runs against a real server: a throwaway cluster (tests/py/pgcluster.py)
started for this module and stopped at its end. Runs get distinct ids and ordered times from
SOURCE_DATE_EPOCH (which fixes both)."""
import copy
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import re
import tempfile
import time
import unittest

from helpers import MLIA, ROOT, build_fixture, check_args, load_sample, need_binary, run_mlia

import pgcluster

sys.path.insert(0, os.path.join(ROOT, "python"))
import mlia  # noqa: E402

RELU = "source_operator/forward/aten_relu_default_2"
EPOCH = 1700000000


def plan_entry(desc, kernel):
    return next(p for p in desc["plan"] if p.get("kernel") == kernel)


VARIANTS = 8


def descriptions():
    """The same program: `base` and `slow` (relu_default_2 20 % slower). Every run of a test
    gets its own capture (mlia compare refuses a capture pooled twice): VARIANTS copies of
    `base` whose permute_copy_default_1 differs by a nanosecond or two."""
    base = load_sample("demo.json")
    plan_entry(base, "aten_relu_default_2")["durations"] = [420, 430, 425]
    slow = copy.deepcopy(base)
    plan_entry(slow, "aten_relu_default_2")["durations"] = [504, 516, 510]
    variants = []
    for i in range(VARIANTS):
        v = copy.deepcopy(base)
        plan_entry(v, "aten_permute_copy_default_1")["durations"] = [2900 + i, 3000, 2950]
        variants.append(v)
    return variants, slow


def slower_everywhere():
    """`base` with every instruction 30 % slower: its inference time rises by more than 5 %."""
    v = copy.deepcopy(descriptions()[0][0])
    for entry in v["plan"]:
        if "duration" in entry:
            entry["duration"] = int(entry["duration"] * 1.3)
        if "durations" in entry:
            entry["durations"] = [int(d * 1.3) for d in entry["durations"]]
    return v


class Fixtures:
    tmp = None
    paths = {}


def setUpModule():
    if not os.path.exists(MLIA):
        return
    Fixtures.tmp = tempfile.mkdtemp(prefix="mlia-history-")
    variants, slow = descriptions()
    for i, v in enumerate(variants):
        Fixtures.paths[f"base{i}"] = build_fixture(v, os.path.join(Fixtures.tmp, f"fx-base{i}"))
    Fixtures.paths["slow"] = build_fixture(slow, os.path.join(Fixtures.tmp, "fx-slow"))
    Fixtures.paths["slower"] = build_fixture(slower_everywhere(), os.path.join(Fixtures.tmp, "fx-slower"))


def tearDownModule():
    if Fixtures.tmp:
        shutil.rmtree(Fixtures.tmp, ignore_errors=True)


def clean_env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("MLIA_HISTORY", "XDG_DATA_HOME")}
    env.update({k: str(v) for k, v in extra.items()})
    return env


def check(out, *extra, fixture="base", epoch=0, env=None, popen=False):
    """`mlia check` of a fixture into out/, with a distinct run id and time per epoch (and,
    for the base program, a capture of its own among VARIANTS)."""
    p = Fixtures.paths[f"base{epoch % VARIANTS}" if fixture == "base" else fixture]
    args = [MLIA, *check_args(p["etrecord"], p["etdump"], "--output-dir", out, "-q", *extra)]
    e = clean_env(SOURCE_DATE_EPOCH=EPOCH + epoch, **(env or {}))
    if popen:
        return subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    return subprocess.run(args, capture_output=True, text=True, env=e)


def history(*args, env=None):
    return subprocess.run([MLIA, "history", *map(str, args)], capture_output=True, text=True,
                          env=clean_env(**(env or {})))


def result(out):
    with open(os.path.join(out, "mlia-output", "mlia-output.json"), encoding="utf-8") as f:
        return json.load(f)


def model_p50(doc, name="inference_time"):
    for m in doc["results"][0]["metrics"]:
        if m["name"] == name and (m.get("qualifiers") or {}).get("statistic", m.get("aggregation")) == "p50":
            return m["value"]
    raise KeyError(name)


class HistoryCases:
    """Shared by both engines: self.location() names a fresh, empty history."""

    def dir(self, name):
        d = os.path.join(self.tmp, name)
        os.makedirs(d, exist_ok=True)
        return d

    def record(self, loc, n, first_epoch=0, fixture="base", labels=(), extra=()):
        outs = []
        for i in range(n):
            out = self.dir(f"run-{first_epoch + i}-{fixture}")
            args = ["--history", loc, *extra]
            for lab in labels:
                args += ["--label", lab.format(i=first_epoch + i)]
            p = check(out, *args, fixture=fixture, epoch=first_epoch + i)
            self.assertEqual(p.returncode, 0, p.stderr)
            outs.append(out)
        return outs

    def test_record_and_list(self):
        loc = self.location()
        outs = self.record(loc, 3, labels=("commit=c{i}", "device=pixel"))
        p = history(loc, "--format", "json")
        self.assertEqual(p.returncode, 0, p.stderr)
        doc = json.loads(p.stdout)
        runs = doc["runs"]
        self.assertEqual([r["run_id"] for r in runs], [result(o)["run_id"] for o in outs])  # oldest first
        self.assertEqual([r["labels"] for r in runs], [{"commit": f"c{i}", "device": "pixel"} for i in range(3)])
        self.assertEqual((doc["metric"], doc["entity"], doc["series"], doc["unit"]),
                         ("inference_time", "model", "inference_time", "ms"))
        first = result(outs[0])
        self.assertEqual(runs[0]["p50"], model_p50(first))
        self.assertEqual(runs[0]["samples"], 3)
        fp = first["context"]["runtime_configuration"]["fingerprint"]["program"]
        self.assertEqual({r["program"] for r in runs}, {fp})
        self.assertEqual(runs[0]["model"], "demo.etrecord")
        self.assertEqual(runs[0]["settings"], "time_unit=ns ticks_per_second=0 warmup_executions=0 "
                                              "statistics_mode=1 statistics_device=Mali-G2")
        # filters
        one = json.loads(history(loc, "--label", "commit=c1", "--format", "json").stdout)["runs"]
        self.assertEqual([r["run_id"] for r in one], [runs[1]["run_id"]])
        both = json.loads(history(loc, "--label", "commit=c1", "--label", "device=other",
                                  "--format", "json").stdout)["runs"]
        self.assertEqual(both, [])
        last2 = json.loads(history(loc, "--last", "2", "--format", "json").stdout)["runs"]
        self.assertEqual([r["run_id"] for r in last2], [r["run_id"] for r in runs[1:]])
        self.assertEqual(len(json.loads(history(loc, "--program", fp[:8], "--format", "json").stdout)["runs"]), 3)
        self.assertEqual(json.loads(history(loc, "--program", "0" * 64, "--format", "json").stdout)["runs"], [])
        self.assertEqual(len(json.loads(history(loc, "--model", "demo.etrecord", "--format", "json").stdout)["runs"]),
                         3)
        # the table: one line per run and the sparkline
        t = history(loc)
        self.assertEqual(t.returncode, 0, t.stderr)
        lines = t.stdout.splitlines()
        self.assertIn("(3 runs)", lines[0])
        self.assertEqual(sum(1 for line in lines if line.startswith("2023-11-14T22:13:2")), 3)
        trend = [line for line in lines if line.startswith("Trend (oldest to newest): ")]
        self.assertEqual(len(trend), 1, t.stdout)
        # the variants' inference times rise by a few ns from run to run: lowest, middle, highest
        self.assertIn("\u2581\u2585\u2588  P50 from 0.5179 ms to 0.5179 ms", trend[0])

    def test_entity_trend_csv_and_page(self):
        loc = self.location()
        self.record(loc, 2)
        slow = self.record(loc, 1, first_epoch=2, fixture="slow")
        p = history(loc, "--entity", RELU, "--metric", "execution_time", "--format", "csv")
        self.assertEqual(p.returncode, 0, p.stderr)
        rows = p.stdout.splitlines()
        self.assertEqual(rows[0], "recorded_at,run_id,program,method,model,status,executions,labels,entity,series,"
                                  "unit,p50,min,max,samples")
        cells = [r.split(",") for r in rows[1:] if r]
        self.assertEqual(len(cells), 3)
        self.assertEqual({c[9] for c in cells}, {"execution_time|attribution=exclusive"})
        self.assertEqual([float(c[11]) for c in cells], [0.000425, 0.000425, 0.00051])
        doc = result(slow[0])
        ms = next(b["metrics"] for b in doc["results"][0]["breakdowns"] if b["entity_id"] == RELU)
        p50 = next(m["value"] for m in ms if m["name"] == "execution_time"
                   and m["qualifiers"].get("attribution") == "exclusive" and m["qualifiers"]["statistic"] == "p50")
        self.assertEqual(float(cells[2][11]), p50)
        # the sparkline rises at the end; the page draws the same runs
        t = history(loc, "--entity", RELU, "--metric", "execution_time|attribution=exclusive",
                    "--output-dir", self.dir("page"))
        self.assertEqual(t.returncode, 0, t.stderr)
        self.assertIn("Trend (oldest to newest): \u2581\u2581\u2588", t.stdout)
        page = os.path.join(self.tmp, "page", "history", "history.html")
        self.assertIn(f"Page: {page}", t.stdout)
        with open(page, encoding="utf-8") as f:
            html = f.read()
        self.assertEqual(html.count("<circle class=\"pt\""), 3)
        self.assertIn("<polyline class=\"line\"", html)
        self.assertNotIn("<script", html)
        # a metric no run has
        none = history(loc, "--metric", "no_such_metric")
        self.assertEqual(none.returncode, 0)
        self.assertIn("no_such_metric: not recorded in these runs", none.stdout)

    def test_gate_equals_the_files(self):
        loc = self.location()
        outs = self.record(loc, 3)
        # the newest recorded run against the two before it: as with the files themselves
        via_history = run_mlia("compare", outs[2], "--baseline-history", loc, "--json")
        self.assertEqual(via_history.returncode, 0, via_history.stderr)
        via_files = run_mlia("compare", "--baseline", outs[0], "--baseline", outs[1], outs[2], "--json")
        self.assertEqual(via_files.returncode, 0, via_files.stderr)
        h, f = json.loads(via_history.stdout), json.loads(via_files.stdout)
        self.assertEqual(h["metrics"], f["metrics"])
        self.assertEqual(h["summary"], f["summary"])
        # a slower run, not recorded: a regression, exit 3 with --fail-on-regression
        slow = self.dir("slow-new")
        self.assertEqual(check(slow, fixture="slow", epoch=50).returncode, 0)
        gate = run_mlia("compare", slow, "--baseline-history", loc, "--last", "2", "--fail-on-regression", "--json")
        self.assertEqual(gate.returncode, 3, gate.stderr)
        doc = json.loads(gate.stdout)
        regressed = {m["entity_id"] for m in doc["metrics"] if m["verdict"] == "regression"}
        self.assertEqual(regressed, {RELU})
        # labels select the baseline runs; none matching is an error
        miss = run_mlia("compare", slow, "--baseline-history", loc, "--label", "device=none")
        self.assertEqual(miss.returncode, 1)
        self.assertEqual(miss.stderr, f"mlia: error: {self.shown(loc)}: no recorded run of this program to compare "
                                      f"with (fingerprint {doc['new']['program'][:12]}, method 'forward', the same "
                                      f"settings, with the labels given)\n")
        # other settings (a warm-up): not the same numbers, so no baseline
        warm = self.dir("warm-new")
        self.assertEqual(check(warm, "--neural-technology-profiling-data.warmup-executions", "1", epoch=51).returncode, 0)
        other = run_mlia("compare", warm, "--baseline-history", loc)
        self.assertEqual(other.returncode, 1)
        self.assertIn("no recorded run of this program to compare with", other.stderr)
        # recorded with that warm-up, it is the baseline of such runs only
        self.record(loc, 1, first_epoch=52, extra=("--neural-technology-profiling-data.warmup-executions", "1"))
        ok = run_mlia("compare", warm, "--baseline-history", loc, "--json")
        self.assertEqual(ok.returncode, 0, ok.stderr)
        base = json.loads(ok.stdout)["baseline"]
        self.assertEqual(len(base["runs"]), 1)
        self.assertEqual(base["path"], f"{self.shown(loc)}#{base['run_id']}")

    def test_concurrent_writers_lose_nothing(self):
        loc = self.location()
        writers = 6
        procs = [check(self.dir(f"conc-{i}"), "--history", loc, "--label", f"writer={i}", epoch=100 + i, popen=True)
                 for i in range(writers)]
        for p in procs:
            out, err = p.communicate(timeout=300)
            self.assertEqual(p.returncode, 0, err)
        doc = json.loads(history(loc, "--last", "100", "--format", "json").stdout)
        self.assertEqual(sorted(r["labels"]["writer"] for r in doc["runs"]), [str(i) for i in range(writers)])
        self.assertTrue(all(r["p50"] is not None for r in doc["runs"]))
        counts = self.metric_rows_per_run(loc)
        self.assertEqual(len(counts), writers)
        self.assertEqual(len(set(counts)), 1, counts)  # every run whole
        self.assertGreater(counts[0], 400)

    def test_unwritable_history_keeps_the_outputs(self):
        loc = self.broken_location()
        out = self.dir("broken")
        p = check(out, "--history", loc)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(len(p.stderr.splitlines()), 1, p.stderr)
        self.assertTrue(p.stderr.startswith(self.broken_message(loc)), p.stderr)
        self.assertTrue(os.path.isfile(os.path.join(out, "mlia-output", "mlia-output.json")))
        q = history(loc)
        self.assertEqual(q.returncode, 1)
        self.assertTrue(q.stderr.startswith(self.broken_message(loc)), q.stderr)
        # the library's status says it is the history (MLIA_STATUS_HISTORY), the outputs written
        fx = Fixtures.paths["base7"]
        py_out = self.dir("broken-py")
        with self.assertRaises(mlia.MliaHistoryError) as cm:
            mlia.run_advisor(model=fx["etrecord"], profiling_data=fx["etdump"], output_dir=py_out, history=loc)
        self.assertEqual(cm.exception.status, 1 | (6 << 8))
        self.assertTrue(str(cm.exception).startswith(self.broken_message(loc)[len("mlia: error: "):].rstrip("\n")),
                        str(cm.exception))
        self.assertTrue(os.path.isfile(os.path.join(py_out, "mlia-output", "mlia-output.json")))
        c = run_mlia("compare", os.path.join(out, "mlia-output"), "--baseline-history", loc)
        self.assertEqual(c.returncode, 1)
        self.assertEqual(len(c.stderr.splitlines()), 1, c.stderr)
        self.assertTrue(c.stderr.startswith(self.broken_message(loc)), c.stderr)


def documented_queries():
    """The SQL blocks of docs/history.md "Querying it with SQL", as written there."""
    with open(os.path.join(ROOT, "docs", "history.md"), encoding="utf-8") as f:
        text = f.read()
    section = text.split("## Querying it with SQL", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sql\n(.*?)```", section, re.S)


class DocumentedQueries:
    """The three example queries of docs/history.md run unchanged (self.sql: rows as tuples of
    text) on a history holding: 3 runs of device a, then a run 30 % slower on a, 2 runs on
    device b, all in the last days, and one run of 2023 (outside "this week")."""

    def test_documented_queries(self):
        queries = documented_queries()
        self.assertEqual(len(queries), 3, "docs/history.md should hold three example queries")
        slowest, trend, rises = queries
        # the week the first query names (a fixed date, since the relative one is written
        # differently in each engine): the recent runs below are after it
        since = re.search(r"recorded_at >= '([0-9TZ:-]+)'", slowest).group(1)
        now = int(time.time())
        self.assertGreater(now, int(time.mktime(time.strptime(since, "%Y-%m-%dT%H:%M:%SZ"))) + 86400)
        loc = self.location()
        hours = lambda h: now - 3600 * h - EPOCH  # noqa: E731 (epoch offsets of check())
        self.record(loc, 1, first_epoch=0, labels=("device=a",))  # 2023
        uuids = {}
        plan = [(hours(50), "base", "a"), (hours(40), "base", "a"), (hours(30), "base", "a"),
                (hours(20), "slower", "a"), (hours(10), "base", "b"), (hours(5), "base", "b")]
        for i, (epoch, fixture, device) in enumerate(plan):
            out = self.dir(f"doc-{i}")
            p = check(out, "--history", loc, "--label", f"device={device}", fixture=fixture, epoch=epoch)
            self.assertEqual(p.returncode, 0, p.stderr)
            uuids[i] = result(out)["run_id"]

        rows = self.sql(loc, slowest)
        self.assertTrue(rows)
        self.assertTrue(all(r[0].startswith("source_operator/") for r in rows), rows)
        means = [float(r[3]) for r in rows]
        self.assertEqual(means, sorted(means, reverse=True))
        self.assertEqual({int(r[2]) for r in rows}, {6})  # this week's runs, not the 2023 one

        rows = self.sql(loc, trend)
        self.assertEqual([r[0] for r in rows], ["a"] * 5 + ["b"] * 2)
        times = [r[1] for r in rows]
        self.assertEqual(times, sorted(times[:5]) + sorted(times[5:]))
        self.assertLess(times[0], since)  # the 2023 run is in the trend
        self.assertEqual(len(set(times)), 7)

        rows = self.sql(loc, rises)
        self.assertEqual([r[0] for r in rows], [uuids[3]])
        self.assertGreater(float(rows[0][4]), 5.0)


class SQLiteHistory(HistoryCases, DocumentedQueries, unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        cls.tmp = tempfile.mkdtemp(prefix="mlia-history-sqlite-")
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def location(self):
        type(self).n += 1
        return os.path.join(self.tmp, f"h{self.n}.sqlite")

    def shown(self, loc):
        return loc

    def metric_rows_per_run(self, loc):
        with sqlite3.connect(loc) as db:
            return [n for (n,) in db.execute("SELECT COUNT(*) FROM metrics GROUP BY run_id ORDER BY run_id")]

    def sql(self, loc, query):
        with sqlite3.connect(loc) as db:
            return [tuple("" if v is None else str(v) for v in row) for row in db.execute(query)]

    def broken_location(self):
        path = os.path.join(self.tmp, "damaged.sqlite")
        with open(path, "wb") as f:
            f.write(b"this is not a database, it was damaged on the way " * 200)
        return path

    def broken_message(self, loc):
        return f"mlia: error: {loc}: damaged or not an mlia history (file is not a database)\n"

    def test_nothing_is_recorded_unless_asked(self):
        xdg = self.dir("xdg-none")
        p = check(self.dir("plain"), env={"XDG_DATA_HOME": xdg})
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertEqual(os.listdir(xdg), [])

    def test_default_location_and_environment(self):
        xdg = self.dir("xdg")
        p = check(self.dir("dflt"), "--history", env={"XDG_DATA_HOME": xdg})
        self.assertEqual(p.returncode, 0, p.stderr)
        default = os.path.join(xdg, "mlia", "history.sqlite")
        self.assertTrue(os.path.isfile(default))
        env_loc = os.path.join(self.tmp, "from-env.sqlite")
        p = check(self.dir("env"), "--label", "ci=yes", epoch=1, env={"MLIA_HISTORY": env_loc})
        self.assertEqual(p.returncode, 0, p.stderr)
        runs = json.loads(history("--format", "json", env={"MLIA_HISTORY": env_loc}).stdout)["runs"]
        self.assertEqual([r["labels"] for r in runs], [{"ci": "yes"}])
        runs = json.loads(history("--format", "json", env={"XDG_DATA_HOME": xdg}).stdout)["runs"]
        self.assertEqual(len(runs), 1)

    def test_usage_errors(self):
        p = check(self.dir("u1"), "--label", "commit=x")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines()[0], "mlia: error: --label requires --history (or MLIA_HISTORY): "
                                                   "labels belong to a recorded run.")
        p = check(self.dir("u2"), "--history", self.location(), "--label", "no equals")
        self.assertEqual(p.returncode, 2)
        self.assertEqual(p.stderr.splitlines()[0], "mlia: error: argument --label: invalid value: 'no equals' "
                                                   "(expected KEY=VALUE (KEY: letters, digits, '_', '.', '-'))")
        q = history(self.location(), "--last", "0")
        self.assertEqual(q.returncode, 2)
        self.assertEqual(q.stderr.splitlines()[0], "mlia: error: argument --last: invalid value: '0' (a whole "
                                                   "number of runs, 1 to 1000000)")
        q = history(self.location(), "--format", "xml")
        self.assertEqual((q.returncode, q.stderr.splitlines()[0]),
                         (2, "mlia: error: argument --format: invalid choice: 'xml' (choose from 'table', 'csv', "
                             "'json')"))
        c = run_mlia("compare", "a", "b", "--baseline-history", "h.sqlite")
        self.assertEqual(c.returncode, 2)
        self.assertEqual(c.stderr.splitlines()[0], "mlia: error: --baseline-history takes the baseline from the "
                                                   "history: give NEW only (no BASELINE, no --baseline)")
        c = run_mlia("compare", "a", "b", "--last", "3")
        self.assertEqual((c.returncode, c.stderr.splitlines()[0]),
                         (2, "mlia: error: --last requires --baseline-history."))

    def test_missing_foreign_and_newer_histories(self):
        missing = os.path.join(self.tmp, "missing.sqlite")
        p = history(missing)
        self.assertEqual((p.returncode, p.stderr), (1, f"mlia: error: {missing}: No such file or directory\n"))
        foreign = os.path.join(self.tmp, "foreign.sqlite")
        with sqlite3.connect(foreign) as db:
            db.execute("CREATE TABLE notes (x TEXT)")
        p = check(self.dir("foreign"), "--history", foreign)
        self.assertEqual((p.returncode, p.stderr),
                         (1, f"mlia: error: {foreign}: not an mlia history (it holds other tables)\n"))
        p = history(foreign)
        self.assertEqual((p.returncode, p.stderr),
                         (1, f"mlia: error: {foreign}: no mlia history here (nothing recorded yet)\n"))
        newer = self.location()
        self.record(newer, 1)
        with sqlite3.connect(newer) as db:
            db.execute("INSERT INTO mlia_schema VALUES (99, 'later', '9.0')")
        msg = f"mlia: error: {newer}: written by a newer mlia (history schema 99; this mlia reads up to 1)\n"
        self.assertEqual(history(newer).stderr, msg)
        p = check(self.dir("newer"), "--history", newer, epoch=7)
        self.assertEqual((p.returncode, p.stderr), (1, msg))

    def test_same_run_twice(self):
        loc = self.location()
        self.record(loc, 1)
        p = check(self.dir("again"), "--history", loc, epoch=0)
        self.assertEqual(p.returncode, 1)
        run_id = json.loads(history(loc, "--format", "json").stdout)["runs"][0]["run_id"]
        self.assertEqual(p.stderr, f"mlia: error: {loc}: run {run_id} is recorded already\n")

    def test_python_history(self):
        loc = self.location()
        p = Fixtures.paths["base7"]
        env = os.environ.get("SOURCE_DATE_EPOCH")
        os.environ["SOURCE_DATE_EPOCH"] = str(EPOCH + 300)
        try:
            res = mlia.run_advisor(model=p["etrecord"], profiling_data=p["etdump"], output_dir=self.dir("py"),
                                   history=loc, labels={"commit": "abc123"})
        finally:
            if env is None:
                del os.environ["SOURCE_DATE_EPOCH"]
            else:
                os.environ["SOURCE_DATE_EPOCH"] = env
        runs = json.loads(history(loc, "--format", "json").stdout)["runs"]
        self.assertEqual([(r["run_id"], r["labels"]) for r in runs], [(res["run_id"], {"commit": "abc123"})])
        with self.assertRaises(mlia.MliaUsageError):
            mlia.run_advisor(model=p["etrecord"], profiling_data=p["etdump"], history=42)
        with self.assertRaises(mlia.MliaUsageError):
            mlia.run_advisor(model=p["etrecord"], profiling_data=p["etdump"], history=loc, labels={"bad key": "x"})


class PostgresHistory(HistoryCases, DocumentedQueries, unittest.TestCase):
    cluster = None

    @classmethod
    def setUpClass(cls):
        need_binary(cls)
        try:
            cls.cluster = pgcluster.Cluster().start()
        except RuntimeError as e:
            if cls.cluster is None and "not installed" in str(e):
                raise unittest.SkipTest(str(e))
            raise
        cls.tmp = tempfile.mkdtemp(prefix="mlia-history-pg-")
        cls.n = 0

    @classmethod
    def tearDownClass(cls):
        if cls.cluster:
            cls.cluster.stop()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def location(self):
        type(self).n += 1
        return self.cluster.createdb(f"h{self.n}")

    def shown(self, loc):
        return loc

    def metric_rows_per_run(self, loc):
        db = loc.rsplit("/", 1)[1]
        return [int(n) for (n,) in self.cluster.psql(db, "SELECT COUNT(*) FROM mlia.metrics GROUP BY run_id "
                                                         "ORDER BY run_id")]

    def sql(self, loc, query):
        # docs/history.md: "in PostgreSQL run SET search_path TO mlia; first"
        rows = self.cluster.psql(loc.rsplit("/", 1)[1], "SET search_path TO mlia; " + query)
        return rows[1:] if rows[:1] == [("SET",)] else rows

    def broken_location(self):
        return f"postgresql://mlia@127.0.0.1:{pgcluster.free_port()}/nowhere"

    def broken_message(self, loc):
        return f"mlia: error: {loc}: cannot connect to the history server: connection to server at \"127.0.0.1\""

    def test_password_is_never_shown(self):
        port = pgcluster.free_port()
        p = history(f"postgresql://mlia:s3cret@127.0.0.1:{port}/x?password=other&sslmode=disable")
        self.assertEqual(p.returncode, 1)
        self.assertNotIn("s3cret", p.stderr)
        self.assertNotIn("other", p.stderr)
        self.assertTrue(p.stderr.startswith(f"mlia: error: postgresql://mlia@127.0.0.1:{port}/x?password=***&"
                                            "sslmode=disable: cannot connect"), p.stderr)

    def test_tables_live_in_their_own_schema(self):
        loc = self.location()
        self.record(loc, 1)
        db = loc.rsplit("/", 1)[1]
        tables = {t for (t,) in self.cluster.psql(db, "SELECT table_name FROM information_schema.tables WHERE "
                                                      "table_schema = 'mlia'")}
        self.assertEqual(tables, {"mlia_schema", "programs", "runs", "run_labels", "captures", "entities", "series",
                                  "metrics"})
        self.assertEqual(self.cluster.psql(db, "SELECT version FROM mlia.mlia_schema"), [("1",)])


if __name__ == "__main__":
    unittest.main()
