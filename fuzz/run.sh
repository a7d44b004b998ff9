#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer harness with clang (ASan+UBSan) and runs it
# for FUZZ_SECONDS (default 30) per reader, seeded with the shared fixtures and
# the repository's samples. Crashes are saved under build-fuzz/crashes/.
# FUZZ_SEED fixes libFuzzer's random seed (CI uses 1 so that a run is
# repeatable); 0 means a fresh seed.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${FUZZ_SECONDS:-30}
FIX=${MLIA_FIXTURES:-../shared/fixtures}
out=build-fuzz
mkdir -p "$out/crashes"
command -v clang >/dev/null || { echo "fuzz: clang is required (apt-get install clang libclang-rt-14-dev)"; exit 1; }
srcs=$(ls src/core/*.c src/formats/*.c src/backends/*/formats/*.c)
clang -std=c17 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
  -Iinclude -Isrc fuzz/fuzz_readers.c $srcs -lzip -lcrypto -lm -o "$out/fuzz_readers"
# seed corpora: selector byte + file
tmp=$(mktemp -d)
python3 tools/mkfixture.py samples/demo.json "$tmp/s" >/dev/null
python3 tools/mkfixture.py samples/vww4.json "$tmp/s" >/dev/null
python3 tools/mkfixture.py samples/accuracy.json "$tmp/s" >/dev/null
seed() { # selector dir files...
  local sel=$1 dir=$2; shift 2; mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && { printf "\\x$(printf %02x "$sel")"; cat "$f"; } > "$dir/$(basename "$f")"; done
}
seed 0 "$tmp/c0" "$FIX/executorch/lenet.etdp" "$tmp/s/demo.etdump" "$tmp/s/accuracy.etdump"
seed 1 "$tmp/c1" "$FIX/executorch/add.pte" "$FIX/executorch/module-linear-no-constant-segment.pte"
seed 2 "$tmp/c2" "$FIX/executorch/bundled-mul-add.bpte"
seed 3 "$tmp/c3" "$FIX/executorch/legacy-mul.etrecord.bin" "$tmp/s/demo.etrecord"
seed 4 "$tmp/c4" "$FIX/vgf/single_maxpool_graph_v0_4_3.vgf" "$FIX/vgf/simple_conv2d_rescale_graph_outdated.vgf"
python3 - "$tmp/s/demo.etdump" "$tmp/c5" <<'PY'
import os, sys
data = open(sys.argv[1], "rb").read()
os.makedirs(sys.argv[2], exist_ok=True)
i = data.find(b'{"schema":"executorch.vgf.neural_statistics"')
if i >= 0:
    j = data.find(b"}]}", i)
    open(os.path.join(sys.argv[2], "wrapper"), "wb").write(b"\x05" + data[i:j + 3])
PY
python3 - "$tmp/s/demo.etdump" "$tmp/c8" <<'PY'
import os, sys
os.makedirs(sys.argv[2], exist_ok=True)
doc = ('{"schema_version":"1.2.0","model":{"name":"m.etrecord"},"context":{"runtime_configuration":'
       '{"etrecord_method":"forward"}},"results":[{"metrics":[{"name":"inference_time","value":0.5,'
       '"unit":"ms","aggregation":"p50","samples":3,"qualifiers":{"statistic":"p50"}}],"entities":'
       '[{"id":"a","kind":"k","name":"n"}],"breakdowns":[{"entity_id":"a","metrics":[{"name":"total_cycles",'
       '"value":1,"unit":"cycles","samples":3,"qualifiers":{"statistic":"min","attribution":"shared"}}]}]}]}')
open(os.path.join(sys.argv[2], "result"), "wb").write(b"\x08" + doc.encode())
PY
rc=0
for c in 0 1 2 3 4 5 6 7 8; do
  mkdir -p "$tmp/c$c"
  echo "fuzz: selector $c for ${SECS}s"
  "$out/fuzz_readers" -max_total_time="$SECS" -seed="${FUZZ_SEED:-0}" -max_len=65536 -artifact_prefix="$out/crashes/" \
     -print_final_stats=0 "$tmp/c$c" 2>&1 | grep -E "^Done [0-9]+ runs|ERROR|SUMMARY" ; [ "${PIPESTATUS[0]}" -eq 0 ] || rc=1
done
rm -rf "$tmp"
exit $rc
