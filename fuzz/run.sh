#!/usr/bin/env bash
# `make fuzz`: builds the libFuzzer targets with clang (ASan+UBSan) and runs each
# for FUZZ_SECONDS (default 30): fuzz_readers once per reader (its first byte
# selects the reader), then the whole-pipeline targets of issue 30 (fuzz_debug_buffer,
# fuzz_compare, fuzz_captures, fuzz_options, fuzz_trace; fuzz/fuzz_util.h). Seed
# corpora are made from the repository's samples (and the shared fixtures when
# present); what a run finds is kept in build-fuzz/corpus/<target> for the next.
# Crashes are saved under build-fuzz/crashes/.
# FUZZ_SEED fixes libFuzzer's random seed (CI uses 1 so that a run is
# repeatable); 0 means a fresh seed. FUZZ_TARGETS="readers compare ..." runs
# only those; FUZZ_JOBS=N builds with N compilers at once (default 2).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
SECS=${FUZZ_SECONDS:-30}
FIX=${MLIA_FIXTURES:-../shared/fixtures}
TARGETS=${FUZZ_TARGETS:-readers debug_buffer compare captures options trace}
out=$repo/build-fuzz
mkdir -p "$out/crashes" "$out/obj"
command -v clang >/dev/null || { echo "fuzz: clang is required (apt-get install clang libclang-rt-14-dev)"; exit 1; }
# MLIA_ASSERTIONS=1: the internal invariants are checked (src/core/assert.h)
CFLAGS=(-std=c17 -D_GNU_SOURCE -DMLIA_ASSERTIONS=1 -g -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
        -Iinclude -Isrc $(pkg-config --cflags libpq 2>/dev/null || echo -I/usr/include/postgresql))
# the library's objects, as the Makefile builds them (alloc.h force-included);
# all of them again whenever any source or header changed since the last build
# (a struct that grew in a header must not meet objects built with the old one)
lib_srcs=$(ls src/core/*.c src/formats/*.c src/analysis/*.c src/report/*.c src/report/*/*.c src/pipeline/*.c \
              src/api/*.c src/backends/*.c src/backends/*/*.c src/backends/*/*/*.c src/history/*.c)
if [ ! -e "$out/obj/.stamp" ] || [ -n "$(find src include fuzz -newer "$out/obj/.stamp" -print -quit)" ]; then
  rm -f "$out"/obj/*.o
  printf '%s\n' $lib_srcs | FLAGS="${CFLAGS[*]}" OUT="$out/obj" xargs -P "${FUZZ_JOBS:-2}" -I{} sh -c '
    clang $FLAGS -include src/core/alloc.h -c {} -o "$OUT/$(echo {} | tr / _).o" || exit 255'
  touch "$out/obj/.stamp"
fi
objs=$(for s in $lib_srcs; do echo "$out/obj/$(echo "$s" | tr / _).o"; done)
for t in $TARGETS; do
  clang "${CFLAGS[@]}" -fsanitize=fuzzer fuzz/fuzz_$t.c $objs -lzip -lnettle -lsqlite3 -lpq -lm -pthread -o "$out/fuzz_$t"
done

# seed corpora
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for s in demo vww4 accuracy lenet; do python3 tools/mkfixture.py samples/$s.json "$tmp/s" >/dev/null; done
seed() { # selector dir files...
  local sel=$1 dir=$2; shift 2; mkdir -p "$dir"
  for f in "$@"; do [ -f "$f" ] && { printf "\\x$(printf %02x "$sel")"; cat "$f"; } > "$dir/$(basename "$f")"; done
  return 0
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
python3 - "$tmp/c9" <<'PY'
import base64, os, sys
os.makedirs(sys.argv[1], exist_ok=True)
log = ("boot\r\nI [executorch:arm_perf_monitor.cpp:120 StopMeasurements()] NPU Inferences : 2\r\n"
       "Ethos-U PMU report:\r\nethosu_pmu_cycle_cntr :  10 (5.00 per inference)\r\n"
       "ethosu_pmu_cntr0 : 4 (2.00 per inference)\r\nEthos-U PMU Events:[ETHOSU_PMU_NPU_IDLE]\r\n"
       "#[RUN THIS]\r\n# Writing etdump.bin [base64]\r\necho \"%s\" | base64 -d >etdump.bin\r\n#[END]\r\n"
       % base64.b64encode(b"\0\0\0\0ED00").decode())
open(os.path.join(sys.argv[1], "log"), "wb").write(b"\x09" + log.encode())
PY
# the whole-pipeline targets: their fixed inputs (FUZZ_WORK) and seeds
mlia=""
for m in build/mlia build-asan/mlia; do [ -x "$m" ] && { mlia=$m; break; }; done
if [ -z "$mlia" ]; then make --no-print-directory -s all >/dev/null; mlia=build/mlia; fi
python3 - "$repo" "$tmp" "$out" "$mlia" <<'PY'
import json, os, shutil, struct, subprocess, sys
repo, tmp, out, mlia = sys.argv[1:5]
sys.path.insert(0, os.path.join(repo, "tools"))
from fixturelib import hostile
s = os.path.join(tmp, "s")
def rd(name):
    return open(os.path.join(s, name), "rb").read()
def parts(*chunks):
    body = b""
    for c in chunks[:-1]:
        body += struct.pack("<I", len(c)) + c
    return body + chunks[-1]
def seeds(target, items):
    d = os.path.join(tmp, "seed-" + target)
    os.makedirs(d, exist_ok=True)
    for i, data in enumerate(items):
        open(os.path.join(d, "seed%02d" % i), "wb").write(data)
def work(target, files):
    w = os.path.join(out, "work-" + target)
    os.makedirs(w, exist_ok=True)
    for name, data in files.items():
        open(os.path.join(w, name), "wb").write(data)
# results of the samples, for compare (run once with the plain CLI)
res = {}
for name, ext in (("lenet", "etdump"), ("demo", "etdump")):
    o = os.path.join(tmp, "res-" + name)
    subprocess.run([mlia, "check", os.path.join(s, name + ".etrecord"), "-t", "neural-technology",
                    "--performance", "--profiling-data", os.path.join(s, name + "." + ext), "--output-dir", o,
                    "-q"], check=True, env=dict(os.environ, SOURCE_DATE_EPOCH="1700000000"))
    res[name] = open(os.path.join(o, "mlia-output", "mlia-output.json"), "rb").read()
tiny_rec = os.path.join(tmp, "tiny.etrecord")
fx = hostile.tiny_fixture(repo)
from fixturelib import etrecord as etrecord_mod
etrecord_mod.write_etrecord(tiny_rec, {"forward": fx.exported_program_text(legacy=False)},
                            fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())
aliased = open(hostile.aliased_events_etdump(os.path.join(tmp, "aliased.etdump"), 40), "rb").read()
aliased_name = open(hostile.aliased_name_etdump(os.path.join(tmp, "aliasedn.etdump"), 8, b"n" * 300), "rb").read()
tiny_dump = fx.etdump_bytes()

work("debug_buffer", {"accuracy.etrecord": rd("accuracy.etrecord")})
seeds("debug_buffer", [parts(rd("accuracy.etdump"), rd("accuracy.debug.bin")),
                       parts(rd("accuracy.etdump"), rd("accuracy.debug.bin"), rd("accuracy.ref.etdump"),
                             rd("accuracy.ref.debug.bin"))])
work("compare", {})
seeds("compare", [parts(res["lenet"], res["lenet"]), parts(res["demo"], res["demo"]),
                  parts(res["lenet"], res["lenet"], res["lenet"]), parts(res["lenet"], res["demo"])])
work("captures", {"demo.etrecord": rd("demo.etrecord")})
seeds("captures", [rd("demo.etdump"), parts(rd("demo.etdump"), rd("demo.etdump")),
                   parts(rd("demo.etdump"), rd("demo.etdump"), rd("demo.etdump"))])
work("options", {"lenet.etrecord": rd("lenet.etrecord"), "lenet.etdump": rd("lenet.etdump"),
                 "ra.json": res["lenet"], "rb.json": res["lenet"]})
req = {"model": "lenet.etrecord", "profiling_data": ["lenet.etdump"], "output_dir": "req-out",
       "trace": "json", "model_explorer": "files", "etrecord_method": "forward"}
creq = {"baseline": "ra.json", "new": "rb.json", "threshold": 2.5}
seeds("options", [b"\x00" + json.dumps(req).encode(), b"\x00" + json.dumps(dict(req, trace=True)).encode(),
                  b"\x01" + json.dumps(creq).encode(),
                  b"\x02" + struct.pack("<dI", 1e9, 0) + b"\x01json\x00files\x00forward",
                  b"\x02" + struct.pack("<dI", float("nan"), 7) + b"\x00perfetto\x00\x00"])
work("trace", {"tiny.etrecord": open(tiny_rec, "rb").read(), "lenet.etrecord": rd("lenet.etrecord")})
seeds("trace", [bytes([sel]) + d for sel in (0, 2, 4, 6) for d in (aliased, aliased_name, tiny_dump)] +
               [bytes([sel]) + rd("lenet.etdump") for sel in (1, 3, 5, 7)])
PY
rc=0
run() { # binary corpus-dirs...
  local bin=$1; shift
  "$bin" -max_total_time="$SECS" -seed="${FUZZ_SEED:-0}" -max_len=65536 -artifact_prefix="$out/crashes/" \
     -print_final_stats=1 "$@" > "$tmp/log" 2>&1 || rc=1
  grep -E "^Done [0-9]+ runs|ERROR|SUMMARY|stat::number_of_executed_units" "$tmp/log" || true
}
for t in $TARGETS; do
  if [ "$t" = readers ]; then
    for c in 0 1 2 3 4 5 6 7 8 9; do
      mkdir -p "$tmp/c$c"
      echo "fuzz: readers, selector $c for ${SECS}s"
      run "$out/fuzz_readers" "$tmp/c$c"
    done
    continue
  fi
  mkdir -p "$out/corpus/$t"
  echo "fuzz: $t for ${SECS}s"
  FUZZ_WORK="$out/work-$t" run "$out/fuzz_$t" "$out/corpus/$t" "$tmp/seed-$t"
done
exit $rc
