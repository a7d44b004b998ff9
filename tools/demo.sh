#!/usr/bin/env bash
# The main job on the repository's own sample: builds the demo capture from
# samples/demo.json with the fixture builder (ETRecord + ETDump with VGF
# neural statistics + a companion PTE embedding a VGF), then runs
#   mlia check demo.etrecord --target-profile neural-technology --performance \
#       --profiling-data demo.etdump --companion-model demo.pte \
#       --output-dir build/demo --model-explorer files
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
out="$BUILD/demo"
rm -rf "$out/sample"
mkdir -p "$out/sample"
python3 tools/mkfixture.py samples/demo.json "$out/sample" >/dev/null
args=(check "$out/sample/demo.etrecord" --target-profile neural-technology --performance
      --profiling-data "$out/sample/demo.etdump" --output-dir "$out" --model-explorer files)
[ -f "$out/sample/demo.pte" ] && args+=(--companion-model "$out/sample/demo.pte")
echo "+ mlia ${args[*]}"
"$BUILD/mlia" "${args[@]}"
echo
echo "Result:  $out/mlia-output/mlia-output.json"
echo "Page:    file://$(cd "$out" && pwd)/mlia-output/model-explorer/bundle/index.html"
