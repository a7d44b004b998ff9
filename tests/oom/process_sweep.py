#!/usr/bin/env python3
"""The process-wide allocation-failure sweep of `make oom-sweep`
(docs/hardening.md, "Process-wide sweep").

tests/oom/shim.c, loaded with LD_PRELOAD into the plain `mlia` executable,
fails the Nth allocation of the whole process: the C library's, libzip's,
zlib's and the project's alike. For each run below the sweep first runs the
command unarmed (twice: its outputs must be the same bytes both times, and it
counts the process's allocations A), then once for every N = 1..A (+ a small
margin: the ETRecord is read on a second thread, so the order of allocations
may vary by a few between runs) with allocation N failing. Each armed run must
either
  - succeed (exit 0) with exactly the unarmed run's standard output, standard
    error and output files, byte for byte, or
  - fail (exit 1) with one line `mlia: error: ...` on standard error, nothing
    on standard output for the commands that write files, and no
    `mlia-output` or `.mlia-output.*` folder left behind;
anything else (a signal, another exit status, a hang of 60 s, a different
output) is a failure naming the run and N. `process_sweep.py RUN N` replays
one N and prints what happened.

Runs (inputs built by tools/mkfixture.py from samples/, nothing from
../shared):
  check     samples/lenet.json ETRecord + ETDump, result and trace
  views     samples/demo.json (NX statistics v2), Model Explorer files + page
  compare   `mlia compare` of two results of the `check` run, with --json
  inspect   `mlia inspect` of the companion PTE of samples/vww4.json
  inspect-etrecord  `mlia inspect` of the lenet ETRecord
Environment: MLIA_BUILD (default build), OOM_PROCESS_JOBS (parallel runs,
default 2), OOM_PROCESS_STRIDE (every S-th N after N = 1..64, default 1).
The closing line is "oom-process-sweep: N passed, N failed".
"""
import concurrent.futures
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
BUILD = os.path.join(ROOT, os.environ.get("MLIA_BUILD", "build"))
MLIA = os.path.join(BUILD, "mlia")
SHIM = os.path.join(BUILD, "oom_shim.so")
TIMEOUT = 60
MARGIN = 16


def make_runs(work):
    """The command lines (relative to a worker's own folder) of each run."""
    for sample in ("lenet", "demo", "vww4"):
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "mkfixture.py"),
                        os.path.join(ROOT, "samples", sample + ".json"), os.path.join(work, sample)],
                       check=True, stdout=subprocess.DEVNULL)
    lenet = os.path.join(work, "lenet")
    demo = os.path.join(work, "demo")
    # two results of the check run for compare (written once, read-only after)
    for name in ("base", "new"):
        subprocess.run([MLIA, "check", lenet + "/lenet.etrecord", "-t", "neural-technology", "--performance",
                        "--profiling-data", lenet + "/lenet.etdump", "--output-dir",
                        os.path.join(work, name), "-q"], check=True, env=run_env(None))
    return {
        "check": (["check", lenet + "/lenet.etrecord", "-t", "neural-technology", "--performance",
                   "--profiling-data", lenet + "/lenet.etdump", "--trace", "--output-dir", "out"], True),
        "views": (["check", demo + "/demo.etrecord", "-t", "neural-technology", "--performance",
                   "--profiling-data", demo + "/demo.etdump", "--model-explorer", "files",
                   "--output-dir", "out"], True),
        "compare": (["compare", os.path.join(work, "base"), os.path.join(work, "new"), "--json",
                     "--output-dir", "out"], True),
        "inspect": (["inspect", os.path.join(work, "vww4", "vww4.pte")], False),
        "inspect-etrecord": (["inspect", lenet + "/lenet.etrecord"], False),
    }


def run_env(fail_at, count_fd=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OOM_SHIM_", "LD_PRELOAD", "ASAN_"))}
    env["SOURCE_DATE_EPOCH"] = "1700000000"
    env["LC_ALL"] = "C"
    if fail_at is not None:
        env["LD_PRELOAD"] = SHIM
        env["OOM_SHIM_FAIL_AT"] = str(fail_at)
    if count_fd is not None:
        env["OOM_SHIM_COUNT_FD"] = str(count_fd)
    return env


def snapshot(folder):
    """Every file under folder/out as {relative path: sha256}."""
    files = {}
    out = os.path.join(folder, "out")
    for d, dirs, names in os.walk(out):
        dirs.sort()
        for n in sorted(names):
            p = os.path.join(d, n)
            if os.path.relpath(p, out) == os.path.join("mlia-output", "logs", "mlia.log"):
                # stage timings: the one file that differs between two runs
                files["mlia-output/logs/mlia.log"] = "present"
                continue
            with open(p, "rb") as f:
                files[os.path.relpath(p, out)] = hashlib.sha256(f.read()).hexdigest()
    return files


def run_once(args, folder, fail_at):
    """Run mlia in folder with allocation fail_at failing (None: no shim;
    0: shim counting only). Returns (status, stdout, stderr, files, count, fired)."""
    out = os.path.join(folder, "out")
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    r, w = os.pipe()
    try:
        p = subprocess.run([MLIA] + args, cwd=folder, env=run_env(fail_at, w), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, timeout=TIMEOUT,
                           pass_fds=(w,))
        status = p.returncode
        # the output folder's absolute path differs between workers
        stdout = p.stdout.replace(os.path.realpath(folder).encode(), b"WORKER")
        stderr = p.stderr.replace(os.path.realpath(folder).encode(), b"WORKER")
    except subprocess.TimeoutExpired:
        status, stdout, stderr = "timeout", b"", b""
    os.close(w)
    with os.fdopen(r, "rb") as f:
        report = f.read().split()
    count, fired = (int(report[0]), report[1] == b"1") if len(report) == 2 else (0, False)
    return status, stdout, stderr, snapshot(folder), count, fired


def judge(name, n, writes_files, expected, got):
    """None when the armed run is acceptable, else the reason."""
    status, stdout, stderr, files, _, fired = got
    if status == "timeout":
        return "hang (no exit within %d s)" % TIMEOUT
    if status < 0:
        return "killed by signal %d; stderr: %r" % (-status, stderr[-600:])
    if status == 0:
        e = expected
        if (stdout, stderr, files) != (e[1], e[2], e[3]):
            diff = [k for k in sorted(set(files) | set(e[3])) if files.get(k) != e[3].get(k)]
            return "exit 0 with a different output (stdout %s, stderr %r, files %s)" % (
                "same" if stdout == e[1] else "differs", stderr[-300:], diff[:5])
        return None
    if status != 1:
        return "exit status %d; stderr: %r" % (status, stderr[-600:])
    lines = stderr.decode("utf-8", "replace").splitlines()
    if len(lines) != 1 or not lines[0].startswith("mlia: error: "):
        return "exit 1 without one error line: %r" % stderr[-600:]
    if writes_files and files:
        return "exit 1 but left output files: %s" % sorted(files)[:5]
    if writes_files and stdout and name != "compare":
        return "exit 1 with standard output: %r" % stdout[-300:]
    return None


def leftovers(folder):
    out = os.path.join(folder, "out")
    return [n for n in os.listdir(out) if n.startswith(".mlia-output")] if os.path.isdir(out) else []


def sweep(name, args, writes_files, work, jobs, stride):
    folders = [tempfile.mkdtemp(prefix=name + "-", dir=work) for _ in range(jobs)]
    first = run_once(args, folders[0], 0)
    second = run_once(args, folders[0], None)
    if first[0] != 0 or first[1:4] != second[1:4]:
        print("FAIL %s: the unarmed run fails or is not reproducible (exit %s, %r)" % (name, first[0],
                                                                                          first[2][-300:]))
        return 1, 1, {}
    count = first[4]
    ns = [n for n in range(1, count + MARGIN + 1) if n <= 64 or (n - 64) % stride == 0 or n > count]
    failed = 0
    kinds = {}
    free = list(folders)

    def one(n):
        folder = free.pop()
        try:
            got = run_once(args, folder, n)
            why = judge(name, n, writes_files, first, got)
            if why is None and leftovers(folder):
                why = "left %s behind" % leftovers(folder)
            return n, got, why
        finally:
            free.append(folder)

    t0 = time.time()
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for n, got, why in pool.map(one, ns):
            if why:
                failed += 1
                print("FAIL %s N=%d: %s (replay: python3 tests/oom/process_sweep.py %s %d)" % (
                    name, n, why, name, n), flush=True)
                continue
            if got[0] == 0:
                key = "ok" if got[5] else "ok (not reached)"
            else:
                key = got[2].decode("utf-8", "replace").strip()
                key = key.split(": ", 2)[-1] if "out of memory" not in key else "out of memory"
            kinds[key] = kinds.get(key, 0) + 1
    print("%s: %d allocations in the process, %d runs, %d failed, %.0f s" % (
        name, count, len(ns), failed, time.time() - t0), flush=True)
    for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]):
        print("  %6d  %s" % (v, k[:160]))
    return len(ns), failed, kinds


def main(argv):
    if not os.path.exists(SHIM) or not os.path.exists(MLIA):
        print("process_sweep: build %s and %s first (make oom-sweep)" % (MLIA, SHIM), file=sys.stderr)
        return 2
    jobs = max(1, int(os.environ.get("OOM_PROCESS_JOBS", "2")))
    stride = max(1, int(os.environ.get("OOM_PROCESS_STRIDE", "1")))
    work = tempfile.mkdtemp(prefix="mlia-oom-process-")
    try:
        runs = make_runs(work)
        if len(argv) >= 2:
            if argv[1] not in runs:
                print("usage: process_sweep.py [%s [N]]" % "|".join(runs), file=sys.stderr)
                return 2
            args, writes = runs[argv[1]]
            if len(argv) >= 3:
                folder = tempfile.mkdtemp(dir=work)
                expected = run_once(args, folder, 0)
                got = run_once(args, folder, int(argv[2]))
                print("exit %s, %d allocations, fired %s\nstdout: %r\nstderr: %r\n%s" % (
                    got[0], got[4], got[5], got[1][-400:], got[2][-1000:],
                    judge(argv[1], int(argv[2]), writes, expected, got) or "acceptable"))
                return 0
            runs = {argv[1]: runs[argv[1]]}
        total = bad = 0
        t0 = time.time()
        for name, (args, writes) in runs.items():
            n, f, _ = sweep(name, args, writes, work, jobs, stride)
            total += n
            bad += f
        print("oom-process-sweep: %d runs in %.0f s" % (total, time.time() - t0))
        print("oom-process-sweep: %d passed, %d failed" % (total - bad, bad))
        return 1 if bad else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
