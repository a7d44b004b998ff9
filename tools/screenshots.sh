#!/usr/bin/env bash
# Pages of the samples in Chromium at 1280x800 (issue 29, "screenshots checked
# by eye"): LeNet (CPU only), the NX capture (samples/demo), the companion
# capture (samples/vww4 with its PTE), accuracy (debug buffers and a
# reference) and a comparison of two runs of the NX capture (the second
# without its first execution). Writes OUT/*.png and prints
# each page's headline and any token broken inside a word (viewer/tools/
# screenshots.mjs). Needs `make` and the viewer's npm packages
# (tools/setup.sh --page).
#   tools/screenshots.sh [OUT] [WIDTH] [HEIGHT]
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=$(mkdir -p "${1:-build/screenshots}" && cd "${1:-build/screenshots}" && pwd)
W=${2:-1280}
H=${3:-800}
MLIA=${MLIA_BIN:-build/mlia}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

for s in lenet demo vww4 accuracy; do
  python3 tools/mkfixture.py "samples/$s.json" "$WORK/$s" >/dev/null
done
check() { # name out args...
  local out=$1; shift
  "$MLIA" check -t neural-technology --performance --model-explorer files --output-dir "$out" -q "$@"
}
check "$WORK/run-lenet" "$WORK/lenet/lenet.etrecord" --profiling-data "$WORK/lenet/lenet.etdump"
check "$WORK/run-demo" "$WORK/demo/demo.etrecord" --profiling-data "$WORK/demo/demo.etdump"
check "$WORK/run-vww4" "$WORK/vww4/vww4.etrecord" --profiling-data "$WORK/vww4/vww4.etdump" \
  --companion-model "$WORK/vww4/vww4.pte"
A="$WORK/accuracy"
check "$WORK/run-acc" "$A/accuracy.etrecord" --profiling-data "$A/accuracy.etdump" \
  --debug-buffer "$A/accuracy.debug.bin" --reference-profiling-data "$A/accuracy.ref.etdump" \
  --reference-debug-buffer "$A/accuracy.ref.debug.bin"
check "$WORK/run-demo2" "$WORK/demo/demo.etrecord" --profiling-data "$WORK/demo/demo.etdump" --warmup-executions 1
"$MLIA" compare "$WORK/run-demo" "$WORK/run-demo2" -q || true
page() { echo "$1/mlia-output/model-explorer/bundle/index.html"; }
node viewer/tools/screenshots.mjs "$OUT" "$W" "$H" \
  "lenet=$(page "$WORK/run-lenet")" "nx=$(page "$WORK/run-demo")" "companion=$(page "$WORK/run-vww4")" \
  "accuracy=$(page "$WORK/run-acc")" "compare=$WORK/run-demo2/mlia-output/compare/compare.html"
