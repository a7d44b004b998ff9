#!/usr/bin/env bash
# Runs every test of the project and prints one closing line, alone:
#   N passed, N failed, N skipped
# (CI parses that form). C unit tests are the binaries under $BUILD/tests;
# Python tests (CLI, end to end, fixture builder, Python API, install) live
# under tests/py; the page tests under viewer/tests.
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
if [ "${ONLY:-}" = "" ] && [ -z "${MLIA_SAN:-}" ] && [ -d viewer/node_modules ]; then
  (cd viewer && npm test --silent) >"$log" 2>&1; rc=$?
  vp=$(grep -E '^# pass [0-9]+' "$log" | tail -n 1 | awk '{print $3}')
  vf=$(grep -E '^# fail [0-9]+' "$log" | tail -n 1 | awk '{print $3}')
  vs=$(grep -E '^# skipped [0-9]+' "$log" | tail -n 1 | awk '{print $3}')
  if [ -z "$vp" ]; then
    echo "BROKEN viewer tests (exit $rc)"; tail -n 40 "$log"; failed=$((failed+1))
  else
    passed=$((passed+vp)); failed=$((failed+${vf:-0})); skipped=$((skipped+${vs:-0}))
    grep -E '# SKIP' "$log" | sed -E 's/^ *(not )?ok [0-9]+ - /SKIP viewer: /' >>"$skips" || true
    echo "viewer: $vp passed, ${vf:-0} failed, ${vs:-0} skipped"
    { [ "${vf:-0}" -eq 0 ] && [ "$rc" -eq 0 ]; } || { grep -E '^not ok|# Subtest' "$log" | head -n 40; [ "$rc" -eq 0 ] || failed=$((failed+1)); }
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
