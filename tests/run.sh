#!/usr/bin/env bash
# Runs every test of the project and prints one closing line, alone:
#   N passed, N failed, N skipped
# (CI parses that form). C unit tests are the binaries under $BUILD/tests;
# Python tests (CLI, end to end, fixture builder, Python API, install) live
# under tests/py; the page tests under viewer/tests (all counted: skipped
# with the reason when viewer/node_modules is missing or in a sanitizer
# build; viewer/tests/count.mjs declares them without running them).
# Tests that need a real third-party fixture (tests/fixtures.lock) that is
# absent are SKIPPED with the reason; the skips are summarised at the end,
# one "SKIP <n> test(s): <reason>" line per distinct reason (SKIP_DETAIL=1
# lists every skipped test instead);
# MLIA_REQUIRE_FIXTURES=1 makes every skip a failure (CI's full run).
# ONLY=unit runs the C tests alone; ONLY=py the Python ones.
set -u
BUILD=${BUILD:-build}
export MLIA_BIN="$PWD/$BUILD/mlia"
export MLIA_LIB="$PWD/$BUILD/libmlia.so"
export MLIA_FIXTURES=${MLIA_FIXTURES:-$PWD/../shared/fixtures}
passed=0; failed=0; skipped=0
log=$(mktemp)
skips=$(mktemp)   # "SKIP <test>: <reason>" lines of every runner
trap 'rm -f "$log" "$skips"' EXIT

# "N passed, N failed[, N skipped]" -> sets p f s
parse_counts() {
  local line=$1
  p=${line%% passed*}
  f=${line#*, }; f=${f%% failed*}
  s=0
  case "$line" in *skipped) s=${line##*failed, }; s=${s%% skipped} ;; esac
}

if [ "${ONLY:-}" != py ]; then
  for t in $(find "$BUILD/tests" -type f -perm -u+x | sort); do
    "$t" >"$log" 2>&1; rc=$?
    grep -E '^FAIL' "$log" || true
    grep -E '^SKIP' "$log" >>"$skips" || true
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
    if [ -z "$line" ]; then
      echo "BROKEN $t (exit $rc, no summary)"; tail -n 20 "$log"; failed=$((failed+1)); continue
    fi
    parse_counts "$line"
    passed=$((passed+p)); failed=$((failed+f)); skipped=$((skipped+s))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then echo "BROKEN $t (exit $rc)"; tail -n 20 "$log"; failed=$((failed+1)); fi
    echo "$(basename "$t"): $line"
  done
fi
if [ "${ONLY:-}" != unit ] && [ -d tests/py ]; then
  if [ -n "${MLIA_SAN:-}" ]; then
    # libmlia.so is instrumented: python3 needs the ASan runtime preloaded;
    # CPython's own allocations are not ours, so leak checks are off here.
    py_env=(env LD_PRELOAD="$(${CC:-cc} -print-file-name=libasan.so)" ASAN_OPTIONS=detect_leaks=0)
  else
    py_env=(env)
  fi
  "${py_env[@]}" python3 tests/py/run.py >"$log" 2>&1; rc=$?
  grep -E '^(FAIL|ERROR)' "$log" || true
  grep -E '^SKIP' "$log" >>"$skips" || true
  line=$(grep -E '^py: [0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?$' "$log" | tail -n 1)
  if [ -z "$line" ]; then
    echo "BROKEN python tests (exit $rc)"; tail -n 40 "$log"; failed=$((failed+1))
  else
    line=${line#py: }
    parse_counts "$line"
    passed=$((passed+p)); failed=$((failed+f)); skipped=$((skipped+s))
    echo "python: $line"
    [ "$f" -eq 0 ] || sed -n '/^=\{10,\}/,$p' "$log" | head -n 200
  fi
fi
# The page tests: run when viewer/node_modules is there (tools/setup.sh
# --page), else every one of them is counted as skipped with the reason;
# viewer/tests/count.mjs declares them without running them (node only,
# no node_modules) and also counts the tests of a skipped describe(),
# which node's own totals leave out.
viewer_counts() { # "viewer: P passed, F failed, S skipped" -> adds to the totals
  local line=$1
  line=${line#viewer: }
  parse_counts "$line"
  passed=$((passed+p)); failed=$((failed+f)); skipped=$((skipped+s))
}
if [ "${ONLY:-}" = "" ]; then
  why=""
  if [ -n "${MLIA_SAN:-}" ]; then
    why="page tests run in the plain build only (the page does not use the instrumented library)"
  elif [ ! -d viewer/node_modules ]; then
    why="viewer/node_modules is missing (tools/setup.sh --page installs it)"
  fi
  if ! command -v node >/dev/null; then
    n=$(grep -hcE '^\s*(test|it)\(' viewer/tests/*.test.mjs | awk '{ s += $1 } END { print s + 0 }')
    echo "viewer: node is not installed: $n page tests (counted from the sources) skipped"
    for _ in $(seq 1 "$n"); do echo "SKIP viewer: node is not installed (tools/setup.sh --page)"; done >>"$skips"
    skipped=$((skipped+n))
  elif [ -n "$why" ]; then
    (cd viewer && node tests/count.mjs --missing "$why") >"$log" 2>&1; rc=$?
    line=$(grep -E '^viewer: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1)
    if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
      echo "BROKEN viewer test count (exit $rc)"; tail -n 20 "$log"; failed=$((failed+1))
    else
      grep -E '^SKIP viewer: ' "$log" >>"$skips" || true
      viewer_counts "$line"; echo "$line"
    fi
  else
    (cd viewer && npm test --silent) >"$log" 2>&1; rc=$?
    vlog=$(mktemp)
    (cd viewer && node tests/count.mjs --tap "$log") >"$vlog" 2>&1; crc=$?
    line=$(grep -E '^viewer: [0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$vlog" | tail -n 1)
    if [ -z "$line" ]; then
      echo "BROKEN viewer tests (exit $rc)"; tail -n 40 "$log"; tail -n 5 "$vlog"; failed=$((failed+1))
    else
      grep -E '^SKIP viewer: ' "$vlog" >>"$skips" || true
      viewer_counts "$line"; echo "$line"
      [ "$crc" -eq 0 ] || { echo "BROKEN viewer test count: $(tail -n 1 "$vlog")"; failed=$((failed+1)); }
      { [ "$f" -eq 0 ] && [ "$rc" -eq 0 ]; } || { grep -E '^not ok|# Subtest' "$log" | head -n 40; [ "$rc" -eq 0 ] || failed=$((failed+1)); }
    fi
    rm -f "$vlog"
  fi
fi
# skips: one line per reason with its count ("SKIP <name>: <reason>"; the
# viewer's "# SKIP <reason>" marker is its reason)
if [ -s "$skips" ]; then
  if [ "${SKIP_DETAIL:-}" = 1 ]; then
    cat "$skips"
  else
    sed -E 's/^SKIP [^:]*: //; s/^.*# SKIP *//' "$skips" | sort | uniq -c | sort -k1,1nr -k2 |
      awk '{ n = $1; sub(/^ *[0-9]+ /, ""); printf "SKIP %d test%s: %s\n", n, n == 1 ? "" : "s", $0 }'
  fi
fi
if [ "${MLIA_REQUIRE_FIXTURES:-}" = 1 ] && [ "$skipped" -gt 0 ]; then
  echo "MLIA_REQUIRE_FIXTURES=1: $skipped skipped test(s) count as failures"
  failed=$((failed+skipped)); skipped=0
fi
echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
