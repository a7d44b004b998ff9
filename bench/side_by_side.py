"""Issue 33's table: `mlia check` beside the bare walk and flatc, one run.

  python3 bench/side_by_side.py DIR1X [DIR4X]

Environment: BENCH_MLIA (mlia), BENCH_SPAWN (bench_spawn), BENCH_WALK
(bare_walk), BENCH_SCHEMA (etdump.fbs), BENCH_REPS (rounds, default 5),
BENCH_INSTR=1 (instruction counts under valgrind instead of times),
BENCH_INSTR_FLATC=1 (also flatc under valgrind: minutes at 1x).

Times: every round runs each command once, in the same order (bare walk,
check, flatc, check --trace, check --csv, check --model-explorer files, and
at 4x check and check --trace), so a burst of load hits all of them alike;
each figure is the median over the rounds. Wall and CPU (user + sys) and peak
RSS come from bench/bench_spawn (wait4 of the command alone). The machine's
load (/proc/loadavg) is printed before and after: wall figures taken while
the load exceeds the core count are not idle figures.

Instruction counts: each command once under `valgrind --tool=cachegrind
--cache-sim=no` (instructions executed, all threads): repeatable under load.
Valgrind reports a reduced CPU to the program, so the SHA-256 library may run
its generic code there (more instructions than on the real CPU); ratios of
two `mlia check` runs are still comparable.
"""
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

MLIA = os.environ.get("BENCH_MLIA", "build/mlia")
SPAWN = os.environ.get("BENCH_SPAWN", "build/bench/bench_spawn")
WALK = os.environ.get("BENCH_WALK", "build/bench/bare_walk")
SCHEMA = os.environ.get("BENCH_SCHEMA", "tools/schema/etdump.fbs")
REPS = int(os.environ.get("BENCH_REPS", "5"))
MIB = 1 << 20


def loadavg():
    with open("/proc/loadavg") as f:
        one = f.read().split()[0]
    return "load average %s on %d cores" % (one, os.cpu_count() or 1)


def check_argv(d, *extra):
    return [MLIA, "check", d + "/large.etrecord", "--target-profile", "neural-technology",
            "--performance", "--profiling-data", d + "/large.etdump", "--output-dir", "@OUT@",
            "--quiet", *extra]


def commands(d1, d4):
    """(key, label, argv) in the order of a round."""
    cmds = [("walk", "bare walk", [WALK, d1 + "/large.etdump"]),
            ("check", "mlia check", check_argv(d1))]
    if shutil.which("flatc"):
        cmds.append(("flatc", "flatc --json", ["flatc", "--json", "--strict-json", "--defaults-json",
                                               "--size-prefixed", "-o", "@OUT@", SCHEMA, "--",
                                               d1 + "/large.etdump"]))
    cmds += [("trace", "check --trace", check_argv(d1, "--trace")),
             ("csv", "check --csv", check_argv(d1, "--csv")),
             ("me", "check --model-explorer files", check_argv(d1, "--model-explorer", "files"))]
    if d4:
        cmds += [("check4", "mlia check (4x)", check_argv(d4)),
                 ("trace4", "check --trace (4x)", check_argv(d4, "--trace"))]
    return cmds


def run_once(argv, wrap=()):
    out = tempfile.mkdtemp(prefix="mlia-sbs-")
    try:
        args = [a.replace("@OUT@", out) for a in argv]
        return subprocess.run([*wrap, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    finally:
        shutil.rmtree(out, ignore_errors=True)


def times(cmds):
    res = {k: [] for k, _, _ in cmds}
    for r in range(REPS):
        for key, label, argv in cmds:
            p = run_once(argv, [SPAWN])
            wall, cpu, rss, code = p.stdout.split()
            if p.returncode or int(code):
                raise SystemExit("%s failed (exit status %s)" % (label, code))
            res[key].append((float(wall), float(cpu), int(rss)))
        print("  round %d/%d done (%s)" % (r + 1, REPS, loadavg()), flush=True)
    med = {}
    for key, label, _ in cmds:
        walls, cpus, rsss = zip(*res[key])
        med[key] = (statistics.median(walls), statistics.median(cpus), max(rsss))
        print("  %-30s wall %8.0f ms  CPU %6.2f s  peak RSS %5.0f MiB  (medians of %d; wall %s ms)" % (
            label, med[key][0] * 1000, med[key][1], med[key][2] / MIB, REPS,
            "/".join("%.0f" % (w * 1000) for w in walls)), flush=True)
    return med


def instructions(cmds):
    res = {}
    for key, label, argv in cmds:
        if key == "flatc" and os.environ.get("BENCH_INSTR_FLATC") != "1":
            continue
        p = run_once(argv, ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"])
        m = re.search(r"I\s+refs:\s+([\d,]+)", p.stderr)
        if p.returncode or not m:
            raise SystemExit("%s under valgrind failed (exit status %d)" % (label, p.returncode))
        res[key] = int(m.group(1).replace(",", ""))
        print("  %-30s %15s instructions" % (label, format(res[key], ",")), flush=True)
    return res


def goal(name, value, ok, target, fmt="%.2f"):
    state = "n/a" if value is None else ("met" if ok(value) else "NOT met")
    shown = "-" if value is None else fmt % value
    print("  %-46s %10s  goal %-14s %s" % (name, shown, target, state), flush=True)


def events_in(path):
    p = subprocess.run([WALK, path], stdout=subprocess.PIPE, text=True, check=True)
    return int(p.stdout.split()[0])


def main():
    d1 = sys.argv[1]
    d4 = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
    events = events_in(d1 + "/large.etdump")
    cmds = commands(d1, d4)
    print("issue 33, side by side on %s (%s events, %.1f MB)%s; %s" % (
        d1, format(events, ","), os.path.getsize(d1 + "/large.etdump") / 1e6,
        " and 4x" if d4 else "", loadavg()), flush=True)
    if os.environ.get("BENCH_INSTR") == "1":
        if not shutil.which("valgrind"):
            raise SystemExit("BENCH_INSTR=1 needs valgrind")
        print("instruction counts (valgrind cachegrind, one run each; repeatable under load):", flush=True)
        n = instructions(cmds)
        r = lambda a, b: n[a] / n[b] if a in n and b in n else None
        print("ratios of instructions:", flush=True)
        goal("check / bare walk", r("check", "walk"), lambda v: v <= 2, "(time <= 2x)")
        goal("flatc / check", r("flatc", "check"), lambda v: v >= 20, "(time >= 20x)", "%.1f")
        goal("--trace / check at 1x", r("trace", "check"), lambda v: v <= 1.5, "<= 1.5x")
        goal("--trace / check at 4x", r("trace4", "check4"), lambda v: v <= 1.5, "<= 1.5x")
        goal("--csv / check", r("csv", "check"), lambda v: v <= 1.5, "<= 1.5x")
        goal("--model-explorer files / check", r("me", "check"), lambda v: v <= 1.3, "<= 1.3x")
        print("(%s)" % loadavg())
        return
    med = times(cmds)
    w = lambda k: med[k][0] if k in med else None
    c = lambda k: med[k][1] if k in med else None
    ratio = lambda a, b: a / b if a is not None and b is not None else None
    busy = float(open("/proc/loadavg").read().split()[0]) > (os.cpu_count() or 1)
    print("issue 33 goals (medians of this run; %s%s):" % (
        loadavg(), ", LOADED: wall figures are not idle figures" if busy else ""), flush=True)
    goal("check / bare walk (wall)", ratio(w("check"), w("walk")), lambda v: v <= 2, "<= 2x")
    goal("check / bare walk (CPU)", ratio(c("check"), c("walk")), lambda v: v <= 2, "(<= 2x)")
    goal("flatc --json / check (wall)", ratio(w("flatc"), w("check")), lambda v: v >= 20, ">= 20x", "%.1f")
    goal("flatc --json / check (CPU)", ratio(c("flatc"), c("check")), lambda v: v >= 20, "(>= 20x)", "%.1f")
    goal("events/s at 1x (M, wall)", ratio(events / 1e6, w("check")), lambda v: v >= 10, ">= 10 M (idle)")
    goal("peak RSS 4x / 1x", ratio(med["check4"][2], med["check"][2]) if d4 else None,
         lambda v: v <= 1.5, "<= 1.5")
    goal("--trace CPU / check at 1x", ratio(c("trace"), c("check")), lambda v: v <= 1.5, "<= 1.5x")
    goal("--trace CPU / check at 4x", ratio(c("trace4"), c("check4")), lambda v: v <= 1.5, "<= 1.5x")
    goal("--csv CPU / check", ratio(c("csv"), c("check")), lambda v: v <= 1.5, "<= 1.5x")
    goal("--model-explorer files CPU / check", ratio(c("me"), c("check")), lambda v: v <= 1.3, "<= 1.3x")
    print("  (100k-node and first-paint goals: BENCH_FULL=1 make bench, section 'wide graphs')", flush=True)
    print("(%s)" % loadavg(), flush=True)


if __name__ == "__main__":
    main()
