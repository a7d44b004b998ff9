"""Hostile and degenerate inputs for the hardening tests (docs/hardening.md).

Each function writes one file and returns its path. They reuse the ETRecord
writer (fixturelib.etrecord) and the description model (fixturelib.model), so
every file is a real ETRecord apart from the one property under test.
"""

import json
import os
import zipfile

from . import etrecord as etrecord_mod
from .model import Fixture

# The smallest useful program: one input, one relu, one kernel call.
TINY = {
    "name": "tiny",
    "inputs": [{"name": "x", "shape": [1, 4], "dtype": "float32"}],
    "nodes": [{"name": "aten_relu_default", "op": "aten.relu.default", "args": {"self": "x"},
               "shape": [1, 4]}],
    "outputs": ["aten_relu_default"],
    "plan": [{"kernel": "aten_relu_default"}],
    "executions": 1,
}


def tiny_fixture(base_dir=".", **overrides):
    desc = json.loads(json.dumps(TINY))
    desc.update(overrides)
    return Fixture(desc, base_dir)


def many_methods_etrecord(path, n_methods, base_dir="."):
    """An ETRecord recording n_methods copies of the tiny program, methods
    m00000, m00001, ... each with its own edge program and map entries."""
    fx = tiny_fixture(base_dir)
    text = fx.exported_program_text(legacy=False)
    names = [f"m{i:05d}" for i in range(n_methods)]
    dhm, dm, nom = fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map()
    first = next(iter(dhm))
    etrecord_mod.write_etrecord(path, {n: text for n in names},
                                {n: dhm[first] for n in names}, {n: dm.get(first, {}) for n in names},
                                {n: nom.get(first, {}) for n in names})
    return path


def many_map_methods_etrecord(path, n_methods, base_dir="."):
    """The tiny program as `forward`, plus n_methods extra method keys that
    exist only in debug_handle_map (no program)."""
    fx = tiny_fixture(base_dir)
    dhm = dict(fx.debug_handle_map())
    for i in range(n_methods):
        dhm[f"k{i:06d}"] = {"0": [i + 1]}
    etrecord_mod.write_etrecord(path, {"forward": fx.exported_program_text(legacy=False)}, dhm,
                                fx.delegate_map(), fx.num_outs_map())
    return path


def _rewrite_entry(src, dst, name, data, deflate=False):
    """Copy the ETRecord src to dst with entry `name` replaced by data."""
    with zipfile.ZipFile(src) as zin, zipfile.ZipFile(dst, "w") as zout:
        for info in zin.infolist():
            body = data if info.filename == name else zin.read(info.filename)
            ni = zipfile.ZipInfo(info.filename, date_time=(1980, 1, 1, 0, 0, 0))
            ni.compress_type = zipfile.ZIP_DEFLATED if (deflate and info.filename == name) else zipfile.ZIP_STORED
            zout.writestr(ni, body)
    return dst


def zip_bomb_etrecord(path, expanded_bytes, base_dir="."):
    """The tiny ETRecord whose debug_handle_map is deflated JSON padded with
    spaces to expanded_bytes (deflate reaches ~1000:1 on it)."""
    fx = tiny_fixture(base_dir)
    plain = path + ".plain"
    etrecord_mod.write_etrecord(plain, {"forward": fx.exported_program_text(legacy=False)},
                                fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())
    body = json.dumps(fx.debug_handle_map()).encode()
    body += b" " * max(0, expanded_bytes - len(body))
    _rewrite_entry(plain, path, "debug_handle_map", body, deflate=True)
    os.remove(plain)
    return path


def wide_handles_etrecord(path, n_handles, base_dir="."):
    """The tiny ETRecord whose debug_handle_map lists n_handles handles for
    instruction 0, deflated: a small file whose parsed tree is large."""
    fx = tiny_fixture(base_dir)
    plain = path + ".plain"
    etrecord_mod.write_etrecord(plain, {"forward": fx.exported_program_text(legacy=False)},
                                fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())
    body = b'{"forward": {"0": [' + b",".join([b"1"] * n_handles) + b"]}}"
    _rewrite_entry(plain, path, "debug_handle_map", body, deflate=True)
    os.remove(plain)
    return path


def long_name_etrecord(path, name_bytes, base_dir="."):
    """The tiny ETRecord whose relu node is named with name_bytes letters."""
    long_name = "n" * name_bytes
    fx = tiny_fixture(base_dir, nodes=[dict(TINY["nodes"][0], name=long_name)], outputs=[long_name],
                      plan=[{"kernel": long_name}])
    etrecord_mod.write_etrecord(path, {"forward": fx.exported_program_text(legacy=False)},
                                fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())
    return path


def tiny_etdump(path, base_dir="."):
    with open(path, "wb") as f:
        f.write(tiny_fixture(base_dir).etdump_bytes())
    return path


def many_nodes_fixture(n_nodes, base_dir="."):
    """A chain of n_nodes relu nodes, one kernel call each, one execution."""
    nodes, plan, prev = [], [], "x"
    for i in range(n_nodes):
        name = f"aten_relu_default_{i}"
        nodes.append({"name": name, "op": "aten.relu.default", "args": {"self": prev}, "shape": [1, 4]})
        plan.append({"kernel": name})
        prev = name
    return tiny_fixture(base_dir, nodes=nodes, outputs=[prev], plan=plan)


def many_nodes_etrecord(path, n_nodes, base_dir="."):
    """ETRecord and matching ETDump (path with .etdump) of many_nodes_fixture."""
    fx = many_nodes_fixture(n_nodes, base_dir)
    etrecord_mod.write_etrecord(path, {"forward": fx.exported_program_text(legacy=False)},
                                fx.debug_handle_map(), fx.delegate_map(), fx.num_outs_map())
    dump = os.path.splitext(path)[0] + ".etdump"
    with open(dump, "wb") as f:
        f.write(fx.etdump_bytes())
    return path, dump


def long_method_name_etrecord(path, name_bytes, base_dir="."):
    """The tiny program as `forward` plus a debug_handle_map method key of
    name_bytes letters."""
    fx = tiny_fixture(base_dir)
    dhm = dict(fx.debug_handle_map())
    dhm["m" * name_bytes] = {"0": [1]}
    etrecord_mod.write_etrecord(path, {"forward": fx.exported_program_text(legacy=False)}, dhm,
                                fx.delegate_map(), fx.num_outs_map())
    return path
