#!/usr/bin/env bash
# The main job on the repository's own samples (built by the fixture builder,
# nothing from ../shared):
#  1. samples/demo.json: a small CNN, 3 executions, one VGF delegate call each
#     with NX statistics (v2, mode 1, Mali-G2)          -> build/demo/
#  2. samples/vww4.json: the same flow with a companion PTE whose VgfBackend
#     delegate is a VGF generated from the description (a SPIR-V TOSA graph,
#     tools/fixturelib/spirvwrite.py), so all five views exist
#                                                       -> build/demo-companion/
# Each run is:
#   mlia check X.etrecord --target-profile neural-technology --performance \
#       --profiling-data X.etdump [--companion-model X.pte] \
#       --output-dir DIR --model-explorer files
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}

run_sample() { # sample-name output-dir [companion]
  local name=$1 out=$2 companion=${3:-}
  rm -rf "$out/sample"
  mkdir -p "$out/sample"
  python3 tools/mkfixture.py "samples/$name.json" "$out/sample" >/dev/null
  local args=(check "$out/sample/$name.etrecord" --target-profile neural-technology --performance
              --profiling-data "$out/sample/$name.etdump" --output-dir "$out" --model-explorer files)
  [ -n "$companion" ] && args+=(--companion-model "$out/sample/$name.pte")
  # the command as it can be pasted: mlia is not on PATH after make demo (issue 29, 5)
  echo "+ $BUILD/mlia ${args[*]}"
  "$BUILD/mlia" "${args[@]}"
  echo
}

run_sample demo "$BUILD/demo"
run_sample vww4 "$BUILD/demo-companion" companion
echo "Results: $BUILD/demo/mlia-output/mlia-output.json, $BUILD/demo-companion/mlia-output/mlia-output.json"
echo "Pages:   file://$(cd "$BUILD/demo" && pwd)/mlia-output/model-explorer/bundle/index.html"
echo "         file://$(cd "$BUILD/demo-companion" && pwd)/mlia-output/model-explorer/bundle/index.html"
echo "The command is $BUILD/mlia (not on PATH: make install, or pip install ., puts mlia there)."
