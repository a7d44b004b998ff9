#!/usr/bin/env bash
# `make bench`: speed and memory of `mlia check` on generated captures.
#
#  0. issue 33's table (always; alone unless BENCH_FULL=1): bench/side_by_side.py
#     runs the bare walk (bench/bare_walk.c), `mlia check` (plain, --trace,
#     --csv, --model-explorer files), flatc --json at 1x and check at 4x,
#     interleaved, and prints medians, ratios and which goals are met;
#     BENCH_INSTR=1 (`make bench-instr`) gives instruction counts instead.
#
# With BENCH_FULL=1, then:
# (tools/mkfixture.py --large; 1x = BENCH_EVENTS, default 1,000,000 events,
# a 70 MB ETDump). Prints, in order:
#
#  0. the run history (bench/history.sh, docs/history.md): 10,000 recorded
#     runs on SQLite and on a throwaway PostgreSQL cluster, insert and query
#     times, a 2,000-operator run, size per run (BENCH_HISTORY_ONLY=1: only
#     this step);
#  1. `bench_etdump` (the ETDump reader alone, best/median of 5) on the 1x file;
#  2. the scale series, one line per scale (BENCH_SCALES, default 0.1x 1x 4x
#     16x; 16x is a 1.1 GB ETDump): events, ETDump size, `mlia check` (result
#     JSON and log, no trace since issue 20: --output-dir TMP --quiet) wall (best of 3, of 2 at
#     16x), CPU (user+sys), peak RSS, events/s = events / best wall, the same
#     with --trace (CPU as a multiple of check's, trace.pftrace bytes per
#     event), and the time of one `flatc --json` on the same file as a
#     multiple of check's wall;
#  3. `mlia inspect` (standard output to /dev/null) and `mlia check
#     --model-explorer files` on the 1x file, same figures;
#  4. issue 20: `mlia check` without and with --trace (Perfetto, and
#     --trace-format json) on the 1x file: CPU as a multiple of check's CPU
#     in the same run and the trace's exact bytes per event;
#  5. the issue-11 and issue-20 figures: peak RSS 16x / 1x, peak RSS 16x and
#     1x / 1x ETDump size, events/s at 1x, flatc / check at 1x, time per event
#     4x / 1x, --trace CPU / check CPU and trace bytes per event at 1x (with
#     the goals, nothing asserted);
#  6. wide graphs (issue 20, item 3): `mlia check --model-explorer files` on
#     graphs of BENCH_WIDE_NODES nodes (default 20000 100000) x 2 executions
#     (wall, CPU, peak RSS, best of 2) and the page's first paint at the
#     smallest of them (viewer/bench/page-file.mjs, headless Chromium);
#  7. the page benchmark (viewer/bench/bench.mjs: first paint, expand, sync
#     and its own lastSync record on a 5,000-node page; the linear layout of
#     a 1,000-operation level), when Node and viewer/node_modules are there.
#     These times are measured here, never asserted by the page tests.
#
# Figures only, no assertion: the machines are shared and noisy, so compare
# ratios within one run. Wall is the best run, CPU the least, peak RSS the
# largest of the runs' own peaks (each child's rusage from wait4, never the
# cumulative RUSAGE_CHILDREN maximum). flatc is skipped, with the reason, when
# its time estimated from the previous scale exceeds BENCH_FLATC_MAX_S
# (default 180 s) or its memory 80% of MemAvailable.
#
# 0.1x and 1x are cached in $BUILD/bench-data/<events>; larger scales are
# generated into a mktemp directory under ${TMPDIR:-/tmp} and deleted right
# after they are measured (and on exit or interrupt). A scale is skipped, with
# the reason, unless the disk has room for twice the capture and for its
# largest output (trace.json, flatc's JSON: about 4x the ETDump each).
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${BENCH_EVENTS:-1000000}
SCALES=${BENCH_SCALES:-0.1 1 4 16}
CACHE=$BUILD/bench-data

work=$(mktemp -d "${TMPDIR:-/tmp}/mlia-bench.XXXXXX")
trap 'rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
export BENCH_WORK=$work BENCH_MLIA=$BUILD/mlia BENCH_SCHEMA=tools/schema/etdump.fbs BENCH_SPAWN=$BUILD/bench/bench_spawn
export BENCH_FLATC_MAX_S=${BENCH_FLATC_MAX_S:-180}

# Sizes of a capture of E events, estimated before it exists: 70 bytes per
# event (the 1,000,000-event ETDump is 69,996,280 bytes) and ~5.5 MB of
# ETRecord (5,000 nodes whatever E).
etdump_bytes() { echo $(($1 * 70)); }
capture_bytes() { echo $(($1 * 70 + 6000000)); }
free_bytes() { df -P -B1 "$1" | awk 'NR == 2 { print $4 }'; }
gb() { awk -v b="$1" 'BEGIN { printf "%.1f GB", b / 1e9 }'; }

# room WHAT DIR BYTES: true when DIR's file system has BYTES free, else prints
# why not.
room() {
  local free
  free=$(free_bytes "$2")
  [ "$free" -ge "$3" ] && return 0
  echo "$1 skipped: needs $(gb "$3") free in $2, $(gb "$free") free"
  return 1
}

# generate E DIR: write DIR/large.etdump and DIR/large.etrecord.
generate() {
  local t0=$EPOCHREALTIME
  echo "generating $1 events in $2 ..."
  python3 tools/mkfixture.py --large "$1" "$2" >/dev/null
  awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "  generated in %.1f s\n", b - a }'
}

# cached E: the cached capture directory of E events, generated when missing.
cached() {
  local dir=$CACHE/$1
  if [ ! -f "$dir/large.etdump" ]; then
    mkdir -p "$CACHE"
    room "the $1-event capture" "$CACHE" $((2 * $(capture_bytes "$1"))) >&2 || return 1
    rm -rf "$dir.partial"
    generate "$1" "$dir.partial" >&2
    mv "$dir.partial" "$dir"
  fi
  echo "$dir"
}

cat >"$work/bench.py" <<'PY'
"""bench/run.sh helper: measure commands, print the figures.

  scale LABEL DIR REPS   mlia check and flatc on DIR/large.*, one line
  extras DIR             mlia inspect and check --model-explorer files on DIR
  summary                the issue-11 figures
Results of previous calls are kept in $BENCH_WORK/results.json.
"""
import json, os, shutil, struct, subprocess, sys, tempfile, time

WORK, MLIA, SCHEMA = os.environ["BENCH_WORK"], os.environ["BENCH_MLIA"], os.environ["BENCH_SCHEMA"]
SPAWN = os.environ["BENCH_SPAWN"]
FLATC_MAX_S = float(os.environ["BENCH_FLATC_MAX_S"])
RESULTS = os.path.join(WORK, "results.json")
MIB = 1 << 20


def measure(reps, argv, probe=None):
    """Run argv reps times; '@OUT@' in an argument is a fresh directory, removed
    right after the run; stdout goes to /dev/null. Returns (best wall s, least
    CPU s, largest peak RSS bytes). Each run goes through bench_spawn, which
    forks the command itself: a child spawned from this (larger) process would
    report this process's peak RSS as its own."""
    walls, cpus, rss = [], [], 0
    for _ in range(reps):
        out = tempfile.mkdtemp(prefix="out-", dir=WORK)
        args = [a.replace("@OUT@", out) for a in argv]
        p = subprocess.run([SPAWN, *args], stdout=subprocess.PIPE, text=True)
        if probe and p.returncode == 0:
            probe(out)
        shutil.rmtree(out, ignore_errors=True)
        if p.returncode:
            raise RuntimeError("bench_spawn failed (exit status %d)" % p.returncode)
        wall, cpu, peak, code = p.stdout.split()
        if int(code):
            raise RuntimeError("%s failed (exit status %s)" % (" ".join(argv[:2]), code))
        walls.append(float(wall))
        cpus.append(float(cpu))
        rss = max(rss, int(peak))
    return min(walls), min(cpus), rss


def etdump_events(path):
    """Number of events in an ETDump, by walking its FlatBuffer (root
    ETDump.run_data[i].events)."""
    # pread, not mmap: touching mapped pages of a freshly written file maps
    # whole page-cache folios into this process, and the kernel reports the
    # parent's peak as part of every spawned child's ru_maxrss
    fd = os.open(path, os.O_RDONLY)
    rd_ = lambda fmt, o: struct.unpack(fmt, os.pread(fd, struct.calcsize(fmt), o))[0]
    u32 = lambda o: rd_("<I", o)

    def field(table, slot):
        vt = table - rd_("<i", table)
        if 4 + 2 * slot >= rd_("<H", vt):
            return None
        off = rd_("<H", vt + 4 + 2 * slot)
        return table + off if off else None

    base = 4 if os.pread(fd, 4, 8) == b"ED00" else 0       # size-prefixed
    root = base + u32(base)
    runs = field(root, 1)                       # ETDump.run_data
    if runs is None:
        os.close(fd)
        return 0
    runs += u32(runs)
    total = 0
    for i in range(u32(runs)):
        rd = runs + 4 + 4 * i
        rd += u32(rd)
        ev = field(rd, 3)                       # RunData.events
        if ev is not None:
            total += u32(ev + u32(ev))
    os.close(fd)
    return total


def check_argv(d, *extra):
    return [MLIA, "check", d + "/large.etrecord", "--target-profile", "neural-technology",
            "--performance", "--profiling-data", d + "/large.etdump", "--output-dir", "@OUT@",
            "--quiet", *extra]


def figures(m):
    wall, cpu, rss = m
    return "%s ms, CPU %.2f s, peak RSS %.0f MiB" % (format(round(wall * 1000), ","), cpu, rss / MIB)


def mem_available():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    return 0


def flatc_skip(events, size, results):
    """Why flatc is not run on this file, or None."""
    if not shutil.which("flatc"):
        return "flatc not installed"
    done = [r for r in results.values() if r.get("flatc_s")]
    if done:
        prev = max(done, key=lambda r: r["events"])
        k = events / prev["events"]
        if prev["flatc_s"] * k > FLATC_MAX_S:
            return "estimated %.0f s from the %s run (> %.0f s)" % (prev["flatc_s"] * k, prev["label"],
                                                                    FLATC_MAX_S)
        if prev["flatc_rss"] * k > 0.8 * mem_available():
            return "estimated %.1f GB of memory (%.1f GB available)" % (
                prev["flatc_rss"] * k / 1e9, mem_available() / 1e9)
    if shutil.disk_usage(WORK).free < 5 * size:
        return "its JSON (~4x the ETDump) would not fit in %s" % WORK
    return None


def load():
    try:
        with open(RESULTS) as f:
            return json.load(f)
    except FileNotFoundError:
        return {}


def save(results):
    with open(RESULTS, "w") as f:
        json.dump(results, f)


def scale(label, d, reps):
    results = load()
    etdump = d + "/large.etdump"
    size = os.path.getsize(etdump)
    events = etdump_events(etdump)
    r = {"label": label, "events": events, "size": size}
    head = "%5s: %s events, ETDump %.1f MB" % (label, format(events, ","), size / 1e6)
    try:
        wall, cpu, rss = m = measure(reps, check_argv(d))
    except RuntimeError as e:
        print("%s | %s" % (head, e), flush=True)
        return
    r.update(check_s=wall, check_cpu=cpu, check_rss=rss)
    line = "%s | mlia check %s (best of %d), %.2f M events/s" % (head, figures(m), reps,
                                                                  events / wall / 1e6)
    # the same with --trace (trace.pftrace): CPU as a multiple of check's, bytes per event
    sizes = []
    try:
        tm = measure(reps, check_argv(d, "--trace"), lambda out: sizes.append(
            os.path.getsize(os.path.join(out, "mlia-output", "trace.pftrace"))))
        r.update(trace_cpu=tm[1], trace_bytes=sizes[0], trace_rss=tm[2])
        line += " | --trace %s, CPU %.2fx check, %.1f B/event" % (figures(tm), tm[1] / cpu, sizes[0] / events)
    except RuntimeError as e:
        line += " | --trace: %s" % e
    why = flatc_skip(events, size, results)
    if why is None:
        try:
            fwall, _, frss = measure(1, ["flatc", "--json", "--strict-json", "--defaults-json",
                                         "--size-prefixed", "-o", "@OUT@", SCHEMA, "--", etdump])
            r.update(flatc_s=fwall, flatc_rss=frss)
            line += " | flatc --json %s ms (%.0f MiB) = %.1fx check" % (
                format(round(fwall * 1000), ","), frss / MIB, fwall / wall)
        except RuntimeError as e:
            line += " | %s" % e
    else:
        line += " | flatc skipped: " + why
    results[label] = r
    save(results)
    print(line, flush=True)


def extras(d):
    results = load()
    flatc_s = results.get("1x", {}).get("flatc_s")
    try:
        m = measure(3, [MLIA, "inspect", d + "/large.etdump"])
        ratio = ", flatc / inspect %.1fx" % (flatc_s / m[0]) if flatc_s else ""
        print("mlia inspect, 1x (best of 3): %s%s" % (figures(m), ratio), flush=True)
    except RuntimeError as e:
        print("mlia inspect, 1x: %s" % e, flush=True)
    try:
        m = measure(3, check_argv(d, "--model-explorer", "files"))
        print("mlia check --model-explorer files, 1x (best of 3): %s" % figures(m), flush=True)
    except RuntimeError as e:
        print("mlia check --model-explorer files, 1x: %s" % e, flush=True)


def trace(d):
    """Issue 20: the cost of --trace at 1x, as ratios within this run (CPU from
    getrusage of each child, bytes exact): the machine is shared, absolute wall
    times are not comparable between runs."""
    events = etdump_events(d + "/large.etdump")
    print("trace on request (issue 20), 1x = %s events; CPU = least of 3 runs:" % format(events, ","))
    base = None
    for label, extra, name in (("mlia check", [], None),
                               ("mlia check --trace", ["--trace"], "trace.pftrace"),
                               ("mlia check --trace --trace-format json", ["--trace", "--trace-format", "json"],
                                "trace.json")):
        sizes = []
        probe = (lambda out, n=name: sizes.append(os.path.getsize(os.path.join(out, "mlia-output", n)))) \
            if name else None
        try:
            m = measure(3, check_argv(d, *extra), probe)
        except RuntimeError as e:
            print("  %s: %s" % (label, e), flush=True)
            continue
        line = "  %-40s %s" % (label + ":", figures(m))
        if base is None:
            base = m[1]
        else:
            line += " | CPU %.2fx check%s" % (m[1] / base, " (<= 1.5x)" if name == "trace.pftrace" else "")
        if sizes:
            line += " | %s %s bytes = %.1f B/event%s" % (name, format(sizes[0], ","), sizes[0] / events,
                                                         " (<= 40)" if name == "trace.pftrace" else "")
        print(line, flush=True)


def summary():
    results = load()
    one, big = results.get("1x", {}), results.get("16x", {})
    print("issue 11 and 20 figures (goal in brackets; nothing asserted):")
    if one.get("check_rss") and big.get("check_rss"):
        print("  peak RSS 16x / 1x:             %.2f  (<= 1.5)" % (big["check_rss"] / one["check_rss"]))
        print("  peak RSS 16x / 1x ETDump size: %.2f  (< 0.75)" % (big["check_rss"] / one["size"]))
    else:
        print("  RSS ratios: n/a (1x or 16x not measured)")
    if one.get("check_s"):
        print("  events/s at 1x:                %.2f M  (>= 10 M)" % (one["events"] / one["check_s"] / 1e6))
    if one.get("check_s") and one.get("flatc_s"):
        print("  flatc / mlia check at 1x:      %.1fx  (>= 20x)" % (one["flatc_s"] / one["check_s"]))
    if one.get("check_rss"):
        print("  peak RSS 1x / 1x ETDump size:  %.2f  (< 0.75)" % (one["check_rss"] / one["size"]))
    four = results.get("4x", {})
    if one.get("check_s") and four.get("check_s"):
        # "4x within 1.5x of 1x": time per event at 4x over time per event at 1x
        print("  time per event 4x / 1x:        %.2f  (<= 1.5)" % (
            four["check_s"] / four["events"] / (one["check_s"] / one["events"])))
    if one.get("trace_cpu"):
        print("  --trace CPU / check CPU at 1x: %.2f  (<= 1.5)" % (one["trace_cpu"] / one["check_cpu"]))
        print("  trace.pftrace at 1x:           %.1f B/event  (<= 40)" % (one["trace_bytes"] / one["events"]))


def wide(nodes, d, paint):
    """Issue 20, item 3: a graph of `nodes` operators x 2 executions with
    every Model Explorer file and the page; with paint, the page's first
    paint in headless Chromium (viewer/bench/page-file.mjs) on the first
    run's index.html."""
    nodes, painted = int(nodes), []

    def probe(out):
        if paint and not painted:
            page = os.path.join(out, "mlia-output", "model-explorer", "bundle", "index.html")
            p = subprocess.run(["node", "viewer/bench/page-file.mjs", page, "3"], capture_output=True, text=True)
            painted.append(p.stdout.strip() if p.returncode == 0 else
                           "page benchmark failed: " + (p.stderr.strip().splitlines() or ["?"])[-1])
    try:
        m = measure(2, check_argv(d, "--model-explorer", "files"), probe)
    except RuntimeError as e:
        print("  %s nodes: %s" % (format(nodes, ","), e), flush=True)
        return
    goal = " (goals <= 5 s, <= 1 GB)" if nodes >= 100000 else " (goal <= 250 MB)" if nodes <= 20000 else ""
    print("  %7s nodes x 2 executions: %s%s" % (format(nodes, ","), figures(m), goal), flush=True)
    for line in painted:
        print("  page at %s nodes: %s (goal <= 2,000 ms)" % (format(nodes, ","), line), flush=True)


try:
    if sys.argv[1] == "scale":
        scale(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1] == "extras":
        extras(sys.argv[2])
    elif sys.argv[1] == "trace":
        trace(sys.argv[2])
    elif sys.argv[1] == "wide":
        wide(sys.argv[2], sys.argv[3], sys.argv[4] == "1")
    else:
        summary()
except KeyboardInterrupt:
    sys.exit(130)
PY
py() { python3 "$work/bench.py" "$@"; }

# 0. the run history (bench/history.sh; BENCH_HISTORY_ONLY=1 stops after it)
bash bench/history.sh
[ "${BENCH_HISTORY_ONLY:-}" = 1 ] && exit 0

# 1. the reader alone, on the 1x capture
d1=$(cached "$N")
ls -l "$d1"/large.* | awk '{ print "input: " $NF ": " $5 " bytes" }'

# 0. issue 33: the bare walk, flatc and mlia check side by side, interleaved
# (bench/side_by_side.py; BENCH_INSTR=1: instruction counts under valgrind).
# The 4x capture is cached too (280 MB) for the peak-RSS and --trace ratios.
d4=$(cached $((4 * N))) || d4=
BENCH_WALK=$BUILD/bench/bare_walk python3 bench/side_by_side.py "$d1" "$d4"
if [ "${BENCH_FULL:-0}" != 1 ] || [ "${BENCH_INSTR:-0}" = 1 ]; then
  echo "(BENCH_FULL=1 make bench adds the reader alone, the scale series to 16x, wide graphs and the page)"
  exit 0
fi
if [ -x "$BUILD/bench/bench_etdump" ]; then
  "$BUILD/bench/bench_etdump" "$d1/large.etdump" 5 ||
    echo "bench_etdump failed (exit $?; the reader API may be changing), continuing"
else
  echo "bench_etdump: $BUILD/bench/bench_etdump not built, continuing"
fi

# 2. the scale series
echo "scale series, 1x = $N events:"
for s in $SCALES; do
  e=$(awk -v n="$N" -v s="$s" 'BEGIN { printf "%d", n * s }')
  reps=3
  awk -v s="$s" 'BEGIN { exit !(s > 4) }' && reps=2
  room "${s}x (outputs)" "$work" $((5 * $(etdump_bytes "$e"))) || continue
  if awk -v s="$s" 'BEGIN { exit !(s <= 1) }'; then
    d=$(cached "$e") || continue
    py scale "${s}x" "$d" "$reps"
  else
    room "${s}x" "$work" $((2 * $(capture_bytes "$e"))) || continue
    d=$(mktemp -d "$work/capture.XXXXXX")
    generate "$e" "$d"
    py scale "${s}x" "$d" "$reps"
    rm -rf "$d"
  fi
done

# 3. inspect and the full check with all views, on the 1x capture
py extras "$d1"

# 4. the cost of --trace (issue 20)
py trace "$d1"

# 5. the issue's targets
py summary

# 6. wide graphs (issue 20, item 3): captures of N operators x 2 executions
# (mkfixture --large 2 * (2N + 1) --executions 2), cached in
# $CACHE/wide-<N>; the page's first paint at the smallest N when Node and
# Chromium are there (the page tests need them too).
paint=1
paint_tools=1
if ! command -v node >/dev/null || [ ! -d viewer/node_modules ]; then
  paint_tools=0
  echo "wide graphs: page first paint skipped (node or viewer/node_modules missing)"
  paint=0
fi
echo "wide graphs (issue 20, item 3): mlia check --model-explorer files, best of 2:"
for nodes in ${BENCH_WIDE_NODES:-20000 100000}; do
  d=$CACHE/wide-$nodes
  if [ ! -f "$d/large.etrecord" ]; then
    room "the $nodes-node capture" "$work" $((nodes * 12000)) || continue
    mkdir -p "$CACHE"
    rm -rf "$d.partial"
    python3 tools/mkfixture.py --large $((2 * (2 * nodes + 1))) --executions 2 "$d.partial" >/dev/null
    mv "$d.partial" "$d"
  fi
  room "$nodes nodes (outputs)" "$work" $((nodes * 12000)) || continue
  py wide "$nodes" "$d" "$paint"
  paint=0
done

# 7. the page benchmark (medians of 5; "OVER BUDGET" is reported, not fatal)
if [ "$paint_tools" = 1 ]; then
  echo "page (viewer/bench/bench.mjs, medians of 5 runs):"
  node viewer/bench/bench.mjs || echo "page: at least one figure over its budget (above)"
else
  echo "page: skipped (node or viewer/node_modules missing)"
fi
