#!/usr/bin/env bash
# `make bench`: speed and memory of the whole `mlia check` and of the ETDump
# reader on a generated large capture (default 1,000,000 events, ~64 MB).
# Prints figures; asserts nothing (shared, noisy machines: compare ratios
# within one run). BENCH_EVENTS=N changes the size.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
N=${BENCH_EVENTS:-1000000}
dir="$BUILD/bench-data/$N"
if [ ! -f "$dir/large.etdump" ]; then
  mkdir -p "$dir"
  echo "generating a $N-event capture in $dir ..."
  python3 tools/mkfixture.py --large "$N" "$dir" >/dev/null
fi
ls -l "$dir"/large.* | awk '{print "input: " $NF ": " $5 " bytes"}'
"$BUILD/bench/bench_etdump" "$dir/large.etdump" 5
python3 - "$BUILD/mlia" "$dir" <<'PY'
import os, resource, subprocess, sys, time, tempfile, statistics
mlia, d = sys.argv[1], sys.argv[2]
times = []
for i in range(3):
    out = tempfile.mkdtemp(prefix="mlia-bench-")
    t0 = time.perf_counter()
    subprocess.run([mlia, "check", f"{d}/large.etrecord", "--target-profile", "neural-technology",
                    "--performance", "--profiling-data", f"{d}/large.etdump", "--output-dir", out,
                    "--quiet"], check=True)
    times.append((time.perf_counter() - t0) * 1000)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"mlia check (json only): best {min(times):.1f} ms, median {statistics.median(times):.1f} ms, peak RSS {rss:.1f} MB")
times = []
for i in range(3):
    out = tempfile.mkdtemp(prefix="mlia-bench-")
    t0 = time.perf_counter()
    subprocess.run([mlia, "check", f"{d}/large.etrecord", "--target-profile", "neural-technology",
                    "--performance", "--profiling-data", f"{d}/large.etdump", "--output-dir", out,
                    "--quiet", "--model-explorer", "files"], check=True)
    times.append((time.perf_counter() - t0) * 1000)
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
print(f"mlia check --model-explorer files: best {min(times):.1f} ms, median {statistics.median(times):.1f} ms, peak RSS {rss:.1f} MB")
PY
