#!/usr/bin/env bash
# The run history's figures (docs/history.md "Figures"), step 0 of `make bench`
# (alone: `BENCH_HISTORY_ONLY=1 make bench`, or `bash bench/history.sh` after
# `make build/bench/bench_history`): bench_history records BENCH_HISTORY_RUNS
# (default 10,000) synthetic runs into a fresh SQLite file, then into a fresh
# database of a throwaway PostgreSQL cluster (tests/py/pgcluster.py, started
# and stopped here as the tests do; skipped with the reason when the server
# binaries are missing), and prints insert and query times and the size per
# run, then times the `mlia history` command on the SQLite file. Figures only:
# compare the two engines within one run.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
RUNS=${BENCH_HISTORY_RUNS:-10000}
OPS=${BENCH_HISTORY_OPERATORS:-50}
bin=$BUILD/bench/bench_history
[ -x "$bin" ] || { echo "history: $bin not built"; exit 0; }
work=$(mktemp -d "${TMPDIR:-/tmp}/mlia-bench-history.XXXXXX")
trap 'rm -rf "$work"' EXIT
echo "run history (docs/history.md): $RUNS runs of $OPS operators, SQLite then PostgreSQL"
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) cores)"
"$bin" "$work/history.sqlite" "$RUNS" "$OPS"
# the command itself on the full history (process start, open, query, print)
cat >"$work/time_cli.py" <<'PY'
import os, subprocess, sys, time
mlia, h = os.environ["MLIA"], sys.argv[1]
for what, args in (("mlia history (newest 20, table)", []),
                   ("mlia history --last 10000 --format csv", ["--last", "10000", "--format", "csv"]),
                   ("mlia history --last 10000 --format json", ["--last", "10000", "--format", "json"])):
    best = None
    for _ in range(3):
        t = time.monotonic()
        p = subprocess.run([mlia, "history", h, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        t = time.monotonic() - t
        if p.returncode:
            print(f"  {what}: failed: {p.stderr.decode(errors='replace').strip()}")
            break
        best = t if best is None or t < best else best
    else:
        print(f"  command: {what:<56} {1e3 * best:8.1f} ms ({len(p.stdout)} bytes out, best of 3)")
PY
export MLIA=$BUILD/mlia WORK=$work
python3 "$work/time_cli.py" "$work/history.sqlite"
BIN=$bin RUNS=$RUNS OPS=$OPS python3 - <<'PY'
import os, subprocess, sys
sys.path.insert(0, os.path.join("tests", "py"))
import pgcluster
try:
    c = pgcluster.Cluster().start()
except RuntimeError as e:
    print(f"history on PostgreSQL skipped: {e}")
    sys.exit(0)
try:
    uri = c.createdb("bench")
    sys.stdout.flush()
    rc = subprocess.run([os.environ["BIN"], uri, os.environ["RUNS"], os.environ["OPS"]]).returncode
    if rc:
        print(f"bench_history on PostgreSQL failed (exit {rc})")
    else:
        sys.stdout.flush()
        subprocess.run([sys.executable, os.path.join(os.environ["WORK"], "time_cli.py"), uri])
finally:
    c.stop()
PY
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
