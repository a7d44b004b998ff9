#!/usr/bin/env python3
"""mkfixture: write coherent ETRecord + ETDump (+ PTE) sets from a description.

Usage:
  python3 tools/mkfixture.py DESC.json OUTDIR      -> OUTDIR/<name>.etrecord,
                                                      OUTDIR/<name>.etdump,
                                                      OUTDIR/<name>.pte (if "pte"),
                                                      OUTDIR/<name>.log (if "ethosu_log"),
                                                      OUTDIR/<name>.debug.bin (if "debug"),
                                                      OUTDIR/<name>.ref.etdump and
                                                      <name>.ref.debug.bin (if
                                                      "debug" has "reference")
  python3 tools/mkfixture.py --large N OUTDIR [--executions E]
                                                   -> OUTDIR/large.etdump,
                                                      OUTDIR/large.etrecord
Design: this file only parses arguments and orchestrates; all encoding lives
in tools/fixturelib (see its package docstring). The description format is
documented in docs/fixture-builder.md. Standard library only.
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fixturelib import etrecord as etrecord_mod  # noqa: E402
from fixturelib import large as large_mod        # noqa: E402
from fixturelib.model import Fixture             # noqa: E402


def build(desc_path, outdir):
    """Build one description; returns {kind: path}."""
    with open(desc_path, encoding="utf-8") as f:
        desc = json.load(f)
    return build_desc(desc, outdir, os.path.dirname(os.path.abspath(desc_path)))


def build_desc(desc, outdir, base_dir="."):
    fx = Fixture(desc, base_dir)
    os.makedirs(outdir, exist_ok=True)
    out = {}
    er = desc.get("etrecord", {})
    layout = er.get("layout", "current")
    legacy = layout == "legacy"
    path = os.path.join(outdir, fx.name + ".etrecord")
    etrecord_mod.write_etrecord(
        path, {fx.method: fx.exported_program_text(legacy=legacy)},
        fx.debug_handle_map(), fx.delegate_map(),
        None if legacy else fx.num_outs_map(), layout=layout)
    out["etrecord"] = path
    path = os.path.join(outdir, fx.name + ".etdump")
    if fx.debug_spec() is None:
        with open(path, "wb") as f:
            f.write(fx.etdump_bytes())
        out["etdump"] = path
    else:
        # intermediate outputs: the ETDump, its debug buffer and optionally a
        # reference capture of the same program (docs/fixture-builder.md)
        for kind, ref, suffix in (("", False, ""), ("reference_", True, ".ref")):
            if ref and fx.debug_spec(True) is None:
                continue
            dump, buf, size = fx.debug_capture(ref)
            path = os.path.join(outdir, fx.name + suffix + ".etdump")
            with open(path, "wb") as f:
                f.write(dump)
            out[kind + "etdump"] = path
            path = os.path.join(outdir, fx.name + suffix + ".debug.bin")
            buf.write(path, size)
            out[kind + "debug_buffer"] = path
    if desc.get("ethosu_log"):
        # the Ethos-U runner's console log carrying the ETDump (docs/delegates.md)
        from fixturelib import ethosu_log
        with open(out["etdump"], "rb") as f:
            text = ethosu_log.runner_log(f.read(), desc["ethosu_log"])
        path = os.path.join(outdir, fx.name + ".log")
        with open(path, "w", encoding="ascii", newline="") as f:
            f.write(text)
        out["log"] = path
    if desc.get("pte"):
        data, _layout = fx.pte_bytes()
        path = os.path.join(outdir, fx.name + ".pte")
        with open(path, "wb") as f:
            f.write(data)
        out["pte"] = path
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--large", type=int, metavar="N",
                    help="write a benchmark capture with about N events")
    ap.add_argument("--executions", type=int, default=None,
                    help="with --large: number of executions (default N // 10000, >= 1)")
    ap.add_argument("args", nargs="+", help="DESC.json OUTDIR, or OUTDIR with --large")
    a = ap.parse_args(argv)
    try:
        if a.large is not None:
            if len(a.args) != 1:
                ap.error("--large takes exactly one OUTDIR")
            out = large_mod.build_large(a.large, a.args[0], a.executions)
        else:
            if len(a.args) != 2:
                ap.error("expected DESC.json OUTDIR")
            out = build(a.args[0], a.args[1])
    except (OSError, ValueError, KeyError) as e:
        print("mkfixture: error: %s" % e, file=sys.stderr)
        return 1
    for kind in sorted(out):
        print("%s %s" % (kind, out[kind]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
