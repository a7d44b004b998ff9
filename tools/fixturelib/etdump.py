"""ETDump writer (docs/formats/etdump.md).

Design: the caller gives a list of RunData blocks as plain dicts; this module
only encodes them, in the given order, exactly like the runtime's flatcc
writer would: size-prefixed by default, identifier ED00, scalars equal to
their schema default omitted (chain_index 0 absent, instruction_id 0 present
because its default is -1), delegate events always carry a (possibly empty)
delegate_debug_metadata vector, strings are not deduplicated.

Block:  {"name": str, "bundled_input_index": int|None,
         "allocators": [str]|None, "events": [event]}
Event:  {"profile": {...}} | {"allocation": {...}} | {"debug": {...}}
  profile:    name, chain_index (0), instruction_id (-1),
              delegate_debug_id_int (-1), delegate_debug_id_str, metadata
              (bytes; None = absent), start, end
  allocation: allocator_id (1-based), size
  debug:      chain_index (u64; -1 is stored as 2**64-1), instruction_id,
              value {"int": n} | {"bool": b} | {"double": x} | {"float": x}
              | {"tensor": {scalar_type, sizes, strides, offset}}
              | {"tensor_list": [tensor...]}, "output": bool,
              delegate_debug_id_int, delegate_debug_id_str
"""

from . import schema_etdump as S
from .flatbuf import Builder

VALUE_TYPES = {"null": S.ETDUMP_VALUE_TYPE_NULL, "int": S.ETDUMP_VALUE_TYPE_INT,
               "bool": S.ETDUMP_VALUE_TYPE_BOOL, "float": S.ETDUMP_VALUE_TYPE_FLOAT,
               "double": S.ETDUMP_VALUE_TYPE_DOUBLE, "tensor": S.ETDUMP_VALUE_TYPE_TENSOR,
               "tensor_list": S.ETDUMP_VALUE_TYPE_TENSOR_LIST}


def _tensor(b, t):
    sizes = b.create_scalar_vector("long", t.get("sizes", []))
    strides = b.create_scalar_vector("long", t.get("strides", []))
    b.start_table()
    b.add_field(S.ETDUMP_SLOT_TENSOR_OFFSET, "long", t.get("offset", 0))
    b.add_field_ref(S.ETDUMP_SLOT_TENSOR_SIZES, sizes)
    b.add_field_ref(S.ETDUMP_SLOT_TENSOR_STRIDES, strides)
    b.add_field(S.ETDUMP_SLOT_TENSOR_SCALAR_TYPE, "byte", t.get("scalar_type", 0))
    return b.end_table()


def _value(b, v, output):
    kind = next(k for k in v if k in VALUE_TYPES)
    refs = {}
    if kind == "tensor":
        refs[S.ETDUMP_SLOT_VALUE_TENSOR] = _tensor(b, v["tensor"])
    elif kind == "tensor_list":
        items = [_tensor(b, t) for t in v["tensor_list"]]
        vec = b.create_offset_vector(items)
        b.start_table()
        b.add_field_ref(S.ETDUMP_SLOT_TENSOR_LIST_TENSORS, vec)
        refs[S.ETDUMP_SLOT_VALUE_TENSOR_LIST] = b.end_table()
    elif kind in ("int", "bool", "float", "double"):
        # (member slot in Value, scalar slot in the member table, type)
        slot, inner, ftype = {
            "int": (S.ETDUMP_SLOT_VALUE_INT_VALUE, S.ETDUMP_SLOT_INT_INT_VAL, "long"),
            "bool": (S.ETDUMP_SLOT_VALUE_BOOL_VALUE, S.ETDUMP_SLOT_BOOL_BOOL_VAL, "bool"),
            "float": (S.ETDUMP_SLOT_VALUE_FLOAT_VALUE, S.ETDUMP_SLOT_FLOAT_FLOAT_VAL, "float"),
            "double": (S.ETDUMP_SLOT_VALUE_DOUBLE_VALUE, S.ETDUMP_SLOT_DOUBLE_DOUBLE_VAL, "double")}[kind]
        b.start_table()
        b.add_field(inner, ftype, int(v[kind]) if kind == "bool" else v[kind])
        refs[slot] = b.end_table()
    out_ref = None
    if output:
        b.start_table()
        b.add_field(S.ETDUMP_SLOT_BOOL_BOOL_VAL, "bool", 1)
        out_ref = b.end_table()
    b.start_table()
    for slot, ref in refs.items():
        b.add_field_ref(slot, ref)
    b.add_field_ref(S.ETDUMP_SLOT_VALUE_OUTPUT, out_ref)
    b.add_field(S.ETDUMP_SLOT_VALUE_VAL, "byte", VALUE_TYPES[kind])
    return b.end_table()


def _profile_event(b, p):
    meta = p.get("metadata")
    meta_ref = b.create_byte_vector(meta) if meta is not None else None
    sid = p.get("delegate_debug_id_str")
    sid_ref = b.create_string(sid) if sid is not None else None
    name = p.get("name")
    name_ref = b.create_string(name) if name is not None else None
    b.start_table()
    b.add_field(S.ETDUMP_SLOT_PROFILE_EVENT_START_TIME, "ulong", p.get("start", 0))
    b.add_field(S.ETDUMP_SLOT_PROFILE_EVENT_END_TIME, "ulong", p.get("end", 0))
    b.add_field_ref(S.ETDUMP_SLOT_PROFILE_EVENT_NAME, name_ref)
    b.add_field(S.ETDUMP_SLOT_PROFILE_EVENT_CHAIN_INDEX, "int", p.get("chain_index", 0), 0)
    b.add_field(S.ETDUMP_SLOT_PROFILE_EVENT_INSTRUCTION_ID, "int", p.get("instruction_id", -1), -1)
    b.add_field(S.ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, "int", p.get("delegate_debug_id_int", -1), -1)
    b.add_field_ref(S.ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR, sid_ref)
    b.add_field_ref(S.ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_METADATA, meta_ref)
    return b.end_table()


def _allocation_event(b, a):
    b.start_table()
    b.add_field(S.ETDUMP_SLOT_ALLOCATION_EVENT_ALLOCATION_SIZE, "ulong", a.get("size", 0))
    b.add_field(S.ETDUMP_SLOT_ALLOCATION_EVENT_ALLOCATOR_ID, "int", a.get("allocator_id", 0))
    return b.end_table()


def _debug_event(b, d):
    val = _value(b, d.get("value", {"null": None}), d.get("output", False))
    sid = d.get("delegate_debug_id_str")
    sid_ref = b.create_string(sid) if sid is not None else None
    name_ref = b.create_string(d["name"]) if d.get("name") is not None else None
    chain = d.get("chain_index", 0)
    if chain < 0:
        chain &= (1 << 64) - 1
    b.start_table()
    b.add_field(S.ETDUMP_SLOT_DEBUG_EVENT_CHAIN_INDEX, "ulong", chain)
    b.add_field_ref(S.ETDUMP_SLOT_DEBUG_EVENT_DEBUG_ENTRY, val)
    b.add_field(S.ETDUMP_SLOT_DEBUG_EVENT_INSTRUCTION_ID, "int", d.get("instruction_id", -1), -1)
    b.add_field(S.ETDUMP_SLOT_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT, "int", d.get("delegate_debug_id_int", -1), -1)
    b.add_field_ref(S.ETDUMP_SLOT_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR, sid_ref)
    b.add_field_ref(S.ETDUMP_SLOT_DEBUG_EVENT_NAME, name_ref)
    return b.end_table()


def _event(b, e):
    if "profile" in e:
        slot, ref = S.ETDUMP_SLOT_EVENT_PROFILE_EVENT, _profile_event(b, e["profile"])
    elif "allocation" in e:
        slot, ref = S.ETDUMP_SLOT_EVENT_ALLOCATION_EVENT, _allocation_event(b, e["allocation"])
    else:
        slot, ref = S.ETDUMP_SLOT_EVENT_DEBUG_EVENT, _debug_event(b, e["debug"])
    b.start_table()
    b.add_field_ref(slot, ref)
    return b.end_table()


def _run_data(b, run):
    # Back to front: the events are written last-first so that, like
    # flatcc, later objects sit earlier in the file; the order inside the
    # vector is the logical (completion) order either way.
    event_refs = [_event(b, e) for e in reversed(run.get("events", []))]
    event_refs.reverse()
    events = b.create_offset_vector(event_refs)
    alloc = None
    if run.get("allocators") is not None:
        names = []
        for a in reversed(run["allocators"]):
            s = b.create_string(a)
            b.start_table()
            b.add_field_ref(S.ETDUMP_SLOT_ALLOCATOR_NAME, s)
            names.append(b.end_table())
        names.reverse()
        alloc = b.create_offset_vector(names)
    name = b.create_string(run["name"])
    b.start_table()
    b.add_field_ref(S.ETDUMP_SLOT_RUN_DATA_NAME, name)
    bii = run.get("bundled_input_index")
    b.add_field(S.ETDUMP_SLOT_RUN_DATA_BUNDLED_INPUT_INDEX, "int", -1 if bii is None else bii, -1)
    b.add_field_ref(S.ETDUMP_SLOT_RUN_DATA_ALLOCATORS, alloc)
    b.add_field_ref(S.ETDUMP_SLOT_RUN_DATA_EVENTS, events)
    return b.end_table()


def write_etdump(runs, size_prefixed=True, version=0):
    """Encode RunData blocks into ETDump bytes (caller owns the result)."""
    b = Builder(1 << 16)
    refs = [_run_data(b, r) for r in reversed(runs)]
    refs.reverse()
    vec = b.create_offset_vector(refs)
    b.start_table()
    b.add_field(S.ETDUMP_SLOT_ET_DUMP_VERSION, "uint", version)
    b.add_field_ref(S.ETDUMP_SLOT_ET_DUMP_RUN_DATA, vec)
    root = b.end_table()
    return b.finish(root, S.ETDUMP_FILE_IDENTIFIER, size_prefix=size_prefixed)
