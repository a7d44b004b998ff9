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


def aliased_events_etdump(path, n_events):
    """An ETDump whose one run lists `n_events` events that all point at the
    same Event table (legal FlatBuffers: offsets may alias). About 4 bytes
    per event, so a 5 MB file holds 1.25 million events (issue 12 item 10:
    `mlia inspect` must stream them)."""
    import struct
    e = 60 + 4 * n_events                                    # the one Event table
    b = bytearray()
    b += struct.pack("<I", 16) + b"ED00"                      # 0: root offset, identifier
    b += struct.pack("<HHHH", 8, 12, 4, 8)                   # 8: root vtable (version, run_data)
    b += struct.pack("<iII", 8, 0, 28 - 24)                  # 16: root table -> run_data at 28
    b += struct.pack("<II", 1, 48 - 32)                      # 28: run_data vector -> run table at 48
    b += struct.pack("<HHHHHH", 12, 8, 0, 0, 0, 4)           # 36: run vtable (events)
    b += struct.pack("<iI", 48 - 36, 56 - 52)                # 48: run table -> events vector at 56
    b += struct.pack("<I", n_events)                         # 56: events vector, all -> e
    b += b"".join(struct.pack("<I", e - (60 + 4 * i)) for i in range(n_events))
    assert len(b) == e
    b += struct.pack("<iI", -60, 4)                          # e: event -> profile table at e+8
    b += struct.pack("<iIiIQQ", -60, 28, 0, 0, 100, 250)      # e+8: name at e+40, instruction 0, times
    b += struct.pack("<I", 13) + b"OPERATOR_CALL\0" + b"\0" * 2  # e+40: name string
    b += struct.pack("<HHHH", 6, 8, 4, 0)                    # e+60: event vtable (profile_event)
    b += struct.pack("<10H", 20, 32, 4, 0, 8, 0, 0, 0, 16, 24)  # e+68: profile vtable
    with open(path, "wb") as f:
        f.write(b)
    return path


def aliased_name_etdump(path, n_events, name):
    """Like aliased_events_etdump, but the one Event table every entry points
    at has the name `name` (bytes, e.g. 1 MiB): the name is stored once and
    read n_events times (issue 21: outputs must not multiply it)."""
    import struct
    e = 60 + 4 * n_events                                    # the one Event table
    b = bytearray()
    b += struct.pack("<I", 16) + b"ED00"                      # 0: root offset, identifier
    b += struct.pack("<HHHH", 8, 12, 4, 8)                   # 8: root vtable (version, run_data)
    b += struct.pack("<iII", 8, 0, 28 - 24)                  # 16: root table -> run_data at 28
    b += struct.pack("<II", 1, 48 - 32)                      # 28: run_data vector -> run table at 48
    b += struct.pack("<HHHHHH", 12, 8, 0, 0, 0, 4)           # 36: run vtable (events)
    b += struct.pack("<iI", 48 - 36, 56 - 52)                # 48: run table -> events vector at 56
    b += struct.pack("<I", n_events)                         # 56: events vector, all -> e
    b += b"".join(struct.pack("<I", e - (60 + 4 * i)) for i in range(n_events))
    assert len(b) == e
    b += struct.pack("<iI", -60, 4)                          # e: event -> profile table at e+8
    b += struct.pack("<iIiIQQ", -60, 76, 0, 0, 100, 250)      # e+8: name at e+88, instruction 0, times
    b += b"\0" * 20                                          # e+40: unused
    b += struct.pack("<HHHH", 6, 8, 4, 0)                    # e+60: event vtable (profile_event)
    b += struct.pack("<10H", 20, 32, 4, 0, 8, 0, 0, 0, 16, 24)  # e+68: profile vtable
    b += struct.pack("<I", len(name)) + name + b"\0"         # e+88: the name
    with open(path, "wb") as f:
        f.write(b)
    return path
