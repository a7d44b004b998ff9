"""ETRecord writer (docs/formats/etrecord.md).

Design: ExecuTorch writes ETRecords with Python's zipfile `writestr`, so every
entry is STORED, with no extra fields and no comment; this module does the
same, in the writer's entry order (marker, programs, graph map, maps).  The
torch.save siblings are opaque to the product; they are written as small
stand-in ZIPs with the archive/ member names torch uses (or empty bytes for
`_example_inputs`).
"""

import io
import json
import zipfile


def _torch_save_stub(what):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for name, data in (("archive/data.pkl", b"\x80\x02}q\x00."),  # pickled {}
                           ("archive/byteorder", b"little"), ("archive/version", b"3"),
                           ("archive/.data/serialization_id", what.encode("ascii"))):
            z.writestr(zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0)), data)
    return buf.getvalue()


def write_etrecord(path, programs, debug_handle_map, delegate_map,
                   num_outs_map=None, layout="current", graph_map=None,
                   export_program=None):
    """Write an ETRecord ZIP to `path`.
    programs: {method: ExportedProgram JSON text}; a single method is stored
    as `edge_dialect_exported_program/forward` (current) or as the bare
    `edge_dialect_exported_program` (legacy).
    graph_map: {"module/method": JSON text} extra recorded programs.
    Returns the list of entry names in order."""
    entries = []

    def put(z, name, data):
        info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
        info.compress_type = zipfile.ZIP_STORED
        z.writestr(info, data)
        entries.append(name)

    legacy = layout == "legacy"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        put(z, "ETRECORD_V0", b"")
        if export_program is not None and not legacy:
            put(z, "exported_program", export_program)
            for suffix in ("_state_dict", "_constants"):
                put(z, "exported_program" + suffix, _torch_save_stub(suffix))
            put(z, "exported_program_example_inputs", b"")
        if legacy:
            (_m, text), = programs.items()
            for name, t in (graph_map or {}).items():
                put(z, name, t)
                put(z, name + "_state_dict", _torch_save_stub("state_dict"))
            put(z, "edge_dialect_exported_program", text)
            put(z, "edge_dialect_exported_program_state_dict", _torch_save_stub("state_dict"))
        else:
            methods = sorted(programs)
            for m in methods:
                name = "edge_dialect_exported_program/" + ("forward" if len(methods) == 1 else m)
                put(z, name, programs[m])
                put(z, name + "_state_dict", _torch_save_stub("state_dict"))
                put(z, name + "_constants", _torch_save_stub("constants"))
                put(z, name + "_example_inputs", b"")
            for name, t in (graph_map or {}).items():
                put(z, name, t)
                put(z, name + "_state_dict", _torch_save_stub("state_dict"))
                put(z, name + "_constants", _torch_save_stub("constants"))
                put(z, name + "_example_inputs", b"")
        put(z, "debug_handle_map", json.dumps(debug_handle_map))
        put(z, "delegate_map", json.dumps(delegate_map))
        if not legacy and num_outs_map is not None:
            put(z, "instruction_id_to_num_outs_map", json.dumps(num_outs_map))
        if export_program is not None and not legacy:
            put(z, "export_graph_id", json.dumps(1))
    return entries
