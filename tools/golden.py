#!/usr/bin/env python3
"""Output fingerprints of the repository's samples (issue 11: "no output byte
changes").

Builds the samples with the fixture builder into a temporary folder, runs
`mlia check` (with --model-explorer files, --trace and --csv, and the
companion PTE where the sample has one) and `mlia inspect` on every input, and records the SHA-256
and size of every output file in tests/golden/manifest.json. Runs are made
reproducible with SOURCE_DATE_EPOCH and relative paths from a fixed working
directory; logs/mlia.log (stage timings) is left out.

  python3 tools/golden.py [--mlia build/mlia]            compare, exit 1 on a difference
  python3 tools/golden.py --update [--mlia build/mlia]   rewrite the manifest

Update the manifest only for an intended output change, and say so in the
commit message.
"""
import argparse
import hashlib
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(ROOT, "tests", "golden", "manifest.json")
EPOCH = "1767225600"

# name -> (fixture builder arguments, has companion PTE)
SAMPLES = {
    "demo": (["samples/demo.json"], False),
    "lenet": (["samples/lenet.json"], False),
    "vww4": (["samples/vww4.json"], True),
    # many executions of a 2,000-node graph: the streaming paths
    "large": (["--large", "40000", "--executions", "40"], False),
}


def run(cmd, cwd, env):
    p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True)
    if p.returncode != 0:
        sys.exit(f"golden: {' '.join(cmd)} failed ({p.returncode}): {p.stderr.decode(errors='replace')}")
    return p.stdout


def digest(data):
    return {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}


def fingerprints(mlia):
    out = {}
    env = dict(os.environ, SOURCE_DATE_EPOCH=EPOCH)
    env.pop("BROWSER", None)
    with tempfile.TemporaryDirectory(prefix="mlia-golden-") as tmp:
        for name, (args, companion) in SAMPLES.items():
            work = os.path.join(tmp, name)
            os.makedirs(os.path.join(work, "in"))
            if args[0] == "--large":
                run([sys.executable, os.path.join(ROOT, "tools", "mkfixture.py"), *args, "in"], work, env)
                stem = "large"
            else:
                run([sys.executable, os.path.join(ROOT, "tools", "mkfixture.py"), os.path.join(ROOT, args[0]), "in"],
                    work, env)
                stem = name
            cmd = [mlia, "check", f"in/{stem}.etrecord", "--target-profile", "neural-technology", "--performance",
                   "--profiling-data", f"in/{stem}.etdump", "--output-dir", "out", "--model-explorer", "files",
                   "--trace", "--csv", "--quiet"]
            if companion:
                cmd += ["--companion-model", f"in/{stem}.pte"]
            run(cmd, work, env)
            base = os.path.join(work, "out", "mlia-output")
            for d, _, files in sorted(os.walk(base)):
                for f in sorted(files):
                    rel = os.path.relpath(os.path.join(d, f), base)
                    if rel == os.path.join("logs", "mlia.log"):
                        continue
                    with open(os.path.join(d, f), "rb") as fh:
                        out[f"{name}/check/{rel}"] = digest(fh.read())
            for f in sorted(os.listdir(os.path.join(work, "in"))):
                if f.endswith((".etdump", ".pte")):
                    out[f"{name}/inspect/{f}.json"] = digest(run([mlia, "inspect", f"in/{f}"], work, env))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mlia", default=os.path.join(ROOT, "build", "mlia"))
    ap.add_argument("--update", action="store_true")
    a = ap.parse_args()
    got = fingerprints(os.path.abspath(a.mlia))
    if a.update:
        with open(MANIFEST, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
            f.write("\n")
        print(f"golden: wrote {len(got)} fingerprints to {os.path.relpath(MANIFEST, ROOT)}")
        return 0
    with open(MANIFEST) as f:
        want = json.load(f)
    bad = sorted(k for k in set(want) | set(got) if want.get(k) != got.get(k))
    for k in bad:
        print(f"golden: {k}: expected {want.get(k)}, got {got.get(k)}")
    if bad:
        return 1
    print(f"golden: {len(got)} output files identical")
    return 0


if __name__ == "__main__":
    sys.exit(main())
