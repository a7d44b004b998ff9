"""PTE (ExecuTorch program) writer (docs/formats/pte.md).

Design: a plain-dict program model is encoded with the FlatBuffers builder;
segment data (the constant segment, then delegate blobs stored as SEGMENT) is
laid out after the FlatBuffer the way ExecuTorch's serializer does it: the
program is zero-padded to the segment alignment (128), each segment starts at
a multiple of 128 relative to segment_base_offset, and the `eh00` extended
header (24 or 32 bytes, padded to 32) is inserted at byte 8 with the root
offset shifted by the padded header length.  Without segment bytes no header
is written (like add.pte).

Program model:
  {"plans": [plan], "constants": [bytes],     # data_buffer_idx 1..n
   "inline_blobs": [bytes], "segment_blobs": [bytes],
   "header_length": 32, "segment_alignment": 128}
  plan = {"name", "values": [value], "inputs", "outputs",
          "chains": [{"inputs", "outputs", "instructions": [instr]}],
          "operators": [(name, overload)],
          "delegates": [{"id", "location": "inline"|"segment", "index",
                         "compile_specs": [(key, bytes)]}],
          "non_const_buffer_sizes": [int], "container_meta": (inp, out)}
  value = {"null": None} | {"int": n} | {"bool": b} | {"double": x}
        | {"string": s} | {"int_list": [value index]} | {"double_list": []}
        | {"bool_list": []} | {"tensor_list": [value index]}
        | {"optional_tensor_list": [value index or -1]}
        | {"tensor": {"scalar_type", "sizes", "dim_order",
                      "data_buffer_idx", "allocation": (memory_id, offset)}}
  instr = {"kernel": (op_index, args)} | {"delegate": (delegate_index, args)}
        | {"move": (from, to)} | {"jump_false": (cond, dest)} | {"free": v}
"""

import struct

from . import schema_program as S
from .flatbuf import Builder

KERNEL_TYPES = {"null": S.PROGRAM_KERNEL_TYPES_NULL, "int": S.PROGRAM_KERNEL_TYPES_INT,
                "bool": S.PROGRAM_KERNEL_TYPES_BOOL, "double": S.PROGRAM_KERNEL_TYPES_DOUBLE,
                "tensor": S.PROGRAM_KERNEL_TYPES_TENSOR, "string": S.PROGRAM_KERNEL_TYPES_STRING,
                "int_list": S.PROGRAM_KERNEL_TYPES_INT_LIST, "double_list": S.PROGRAM_KERNEL_TYPES_DOUBLE_LIST,
                "bool_list": S.PROGRAM_KERNEL_TYPES_BOOL_LIST, "tensor_list": S.PROGRAM_KERNEL_TYPES_TENSOR_LIST,
                "optional_tensor_list": S.PROGRAM_KERNEL_TYPES_OPTIONAL_TENSOR_LIST}
INSTR_TYPES = {"kernel": S.PROGRAM_INSTRUCTION_ARGUMENTS_KERNEL_CALL,
               "delegate": S.PROGRAM_INSTRUCTION_ARGUMENTS_DELEGATE_CALL,
               "move": S.PROGRAM_INSTRUCTION_ARGUMENTS_MOVE_CALL,
               "jump_false": S.PROGRAM_INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL,
               "free": S.PROGRAM_INSTRUCTION_ARGUMENTS_FREE_CALL}
# slot of the one field of each scalar / list member table of EValue
VALUE_SLOTS = {"int": S.PROGRAM_SLOT_INT_INT_VAL, "bool": S.PROGRAM_SLOT_BOOL_BOOL_VAL,
               "double": S.PROGRAM_SLOT_DOUBLE_DOUBLE_VAL, "string": S.PROGRAM_SLOT_STRING_STRING_VAL,
               "int_list": S.PROGRAM_SLOT_INT_LIST_ITEMS, "double_list": S.PROGRAM_SLOT_DOUBLE_LIST_ITEMS,
               "bool_list": S.PROGRAM_SLOT_BOOL_LIST_ITEMS, "tensor_list": S.PROGRAM_SLOT_TENSOR_LIST_ITEMS,
               "optional_tensor_list": S.PROGRAM_SLOT_OPTIONAL_TENSOR_LIST_ITEMS}


def _align(n, a):
    return (n + a - 1) // a * a


def _tensor(b, t):
    sizes = b.create_scalar_vector("int", t.get("sizes", []))
    dim_order = b.create_byte_vector(t.get("dim_order", list(range(len(t.get("sizes", []))))))
    alloc = None
    if t.get("allocation") is not None:
        mem_id, off = t["allocation"]
        b.start_table()
        b.add_field(S.PROGRAM_SLOT_ALLOCATION_DETAILS_MEMORY_ID, "uint", mem_id)
        b.add_field(S.PROGRAM_SLOT_ALLOCATION_DETAILS_MEMORY_OFFSET_LOW, "uint", off & 0xFFFFFFFF)
        b.add_field(S.PROGRAM_SLOT_ALLOCATION_DETAILS_MEMORY_OFFSET_HIGH, "uint", off >> 32)
        alloc = b.end_table()
    b.start_table()
    b.add_field_ref(S.PROGRAM_SLOT_TENSOR_SIZES, sizes)
    b.add_field_ref(S.PROGRAM_SLOT_TENSOR_DIM_ORDER, dim_order)
    b.add_field(S.PROGRAM_SLOT_TENSOR_DATA_BUFFER_IDX, "uint", t.get("data_buffer_idx", 0))
    b.add_field_ref(S.PROGRAM_SLOT_TENSOR_ALLOCATION_INFO, alloc)
    b.add_field(S.PROGRAM_SLOT_TENSOR_STORAGE_OFFSET, "int", t.get("storage_offset", 0))
    b.add_field(S.PROGRAM_SLOT_TENSOR_SCALAR_TYPE, "byte", t.get("scalar_type", 0))
    b.add_field(S.PROGRAM_SLOT_TENSOR_REQUIRES_GRAD, "bool", int(t.get("requires_grad", False)))
    b.add_field(S.PROGRAM_SLOT_TENSOR_LAYOUT, "byte", t.get("layout", 0))
    b.add_field(S.PROGRAM_SLOT_TENSOR_SHAPE_DYNAMISM, "byte", t.get("shape_dynamism", 0))
    return b.end_table()


def _evalue(b, v):
    (kind, x), = v.items()
    if kind == "tensor":
        member = _tensor(b, x)
    else:
        vec = None
        if kind == "string":
            vec = b.create_string(x)
        elif kind == "int_list":
            vec = b.create_scalar_vector("long", x)
        elif kind == "double_list":
            vec = b.create_scalar_vector("double", x)
        elif kind == "bool_list":
            vec = b.create_scalar_vector("bool", [int(i) for i in x])
        elif kind in ("tensor_list", "optional_tensor_list"):
            vec = b.create_scalar_vector("int", x)
        b.start_table()
        if kind == "int":
            b.add_field(VALUE_SLOTS[kind], "long", x)
        elif kind == "bool":
            b.add_field(VALUE_SLOTS[kind], "bool", int(x))
        elif kind == "double":
            b.add_field(VALUE_SLOTS[kind], "double", x)
        elif vec is not None:
            b.add_field_ref(VALUE_SLOTS[kind], vec)
        member = b.end_table()
    b.start_table()
    b.add_union(S.PROGRAM_SLOT_E_VALUE_VAL_TYPE, KERNEL_TYPES[kind], member)
    return b.end_table()


def _instruction(b, ins):
    (kind, x), = ins.items()
    if kind in ("kernel", "delegate"):
        idx, args = x
        vec = b.create_scalar_vector("int", args)
        b.start_table()
        if kind == "kernel":
            b.add_field(S.PROGRAM_SLOT_KERNEL_CALL_OP_INDEX, "int", idx)
            b.add_field_ref(S.PROGRAM_SLOT_KERNEL_CALL_ARGS, vec)
        else:
            b.add_field(S.PROGRAM_SLOT_DELEGATE_CALL_DELEGATE_INDEX, "int", idx)
            b.add_field_ref(S.PROGRAM_SLOT_DELEGATE_CALL_ARGS, vec)
    elif kind == "move":
        b.start_table()
        b.add_field(S.PROGRAM_SLOT_MOVE_CALL_MOVE_FROM, "int", x[0])
        b.add_field(S.PROGRAM_SLOT_MOVE_CALL_MOVE_TO, "int", x[1])
    elif kind == "jump_false":
        b.start_table()
        b.add_field(S.PROGRAM_SLOT_JUMP_FALSE_CALL_COND_VALUE_INDEX, "int", x[0])
        b.add_field(S.PROGRAM_SLOT_JUMP_FALSE_CALL_DESTINATION_INSTRUCTION, "int", x[1])
    else:
        b.start_table()
        b.add_field(S.PROGRAM_SLOT_FREE_CALL_VALUE_INDEX, "int", x)
    member = b.end_table()
    b.start_table()
    b.add_union(S.PROGRAM_SLOT_INSTRUCTION_INSTR_ARGS_TYPE, INSTR_TYPES[kind], member)
    return b.end_table()


def _refs(b, items, fn):
    refs = [fn(b, i) for i in reversed(items)]
    refs.reverse()
    return b.create_offset_vector(refs)


def _chain(b, c):
    instrs = _refs(b, c["instructions"], _instruction)
    outs = b.create_scalar_vector("int", c.get("outputs", []))
    ins = b.create_scalar_vector("int", c.get("inputs", []))
    b.start_table()
    b.add_field_ref(S.PROGRAM_SLOT_CHAIN_INPUTS, ins)
    b.add_field_ref(S.PROGRAM_SLOT_CHAIN_OUTPUTS, outs)
    b.add_field_ref(S.PROGRAM_SLOT_CHAIN_INSTRUCTIONS, instrs)
    return b.end_table()


def _operator(b, op):
    name, overload = op
    ov = b.create_string(overload)
    nm = b.create_string(name)
    b.start_table()
    b.add_field_ref(S.PROGRAM_SLOT_OPERATOR_NAME, nm)
    b.add_field_ref(S.PROGRAM_SLOT_OPERATOR_OVERLOAD, ov)
    return b.end_table()


def _delegate(b, d):
    def spec(bb, kv):
        val = bb.create_byte_vector(kv[1])
        key = bb.create_string(kv[0])
        bb.start_table()
        bb.add_field_ref(S.PROGRAM_SLOT_COMPILE_SPEC_KEY, key)
        bb.add_field_ref(S.PROGRAM_SLOT_COMPILE_SPEC_VALUE, val)
        return bb.end_table()
    specs = _refs(b, d.get("compile_specs", []), spec)
    b.start_table()
    b.add_field(S.PROGRAM_SLOT_BACKEND_DELEGATE_DATA_REFERENCE_LOCATION, "byte",
                S.PROGRAM_DATA_LOCATION_SEGMENT if d.get("location") == "segment" else S.PROGRAM_DATA_LOCATION_INLINE)
    b.add_field(S.PROGRAM_SLOT_BACKEND_DELEGATE_DATA_REFERENCE_INDEX, "uint", d.get("index", 0))
    processed = b.end_table()
    ident = b.create_string(d["id"])
    b.start_table()
    b.add_field_ref(S.PROGRAM_SLOT_BACKEND_DELEGATE_ID, ident)
    b.add_field_ref(S.PROGRAM_SLOT_BACKEND_DELEGATE_PROCESSED, processed)
    b.add_field_ref(S.PROGRAM_SLOT_BACKEND_DELEGATE_COMPILE_SPECS, specs)
    return b.end_table()


def _plan(b, p):
    nbs = b.create_scalar_vector("long", p.get("non_const_buffer_sizes", [0]))
    delegates = _refs(b, p.get("delegates", []), _delegate)
    operators = _refs(b, p.get("operators", []), _operator)
    chains = _refs(b, p["chains"], _chain)
    outputs = b.create_scalar_vector("int", p.get("outputs", []))
    inputs = b.create_scalar_vector("int", p.get("inputs", []))
    values = _refs(b, p["values"], _evalue)
    inp, out = p.get("container_meta", ("T2#1#1($,$)", "$"))
    o = b.create_string(out)
    i = b.create_string(inp)
    b.start_table()
    b.add_field_ref(S.PROGRAM_SLOT_CONTAINER_METADATA_ENCODED_INP_STR, i)
    b.add_field_ref(S.PROGRAM_SLOT_CONTAINER_METADATA_ENCODED_OUT_STR, o)
    meta = b.end_table()
    name = b.create_string(p["name"])
    b.start_table()
    for slot, ref in ((S.PROGRAM_SLOT_EXECUTION_PLAN_NAME, name),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_CONTAINER_META_TYPE, meta),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_VALUES, values),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_INPUTS, inputs),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_OUTPUTS, outputs),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_CHAINS, chains),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_OPERATORS, operators),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_DELEGATES, delegates),
                      (S.PROGRAM_SLOT_EXECUTION_PLAN_NON_CONST_BUFFER_SIZES, nbs)):
        b.add_field_ref(slot, ref)
    return b.end_table()


def write_pte(program):
    """Encode a program model into PTE file bytes (caller owns the result).
    Returns (bytes, layout) where layout gives the header fields and every
    segment's absolute file offset (for tests)."""
    seg_align = program.get("segment_alignment", 128)
    blobs = []  # segment payloads in segment order
    constants = program.get("constants", [])
    const_offsets = None
    if constants:
        const_offsets = [0]
        data = bytearray()
        for c in constants:
            const_offsets.append(len(data))
            data += c
            data += bytes(_align(len(data), 16) - len(data))
        # The segment size excludes trailing padding after the last tensor.
        last_end = const_offsets[-1] + len(constants[-1])
        blobs.append(bytes(data[:last_end]))
    blobs.extend(program.get("segment_blobs", []))
    seg_table = []
    off = 0
    for blob in blobs:
        off = _align(off, seg_align)
        seg_table.append((off, len(blob)))
        off += len(blob)

    b = Builder(1 << 16)
    named = None
    const_seg = None
    seg_vec = None
    if seg_table or program.get("empty_segment_entry"):
        entries = seg_table or [(0, 0)]

        def seg(bb, e):
            bb.start_table()
            bb.add_field(S.PROGRAM_SLOT_DATA_SEGMENT_OFFSET, "ulong", e[0])
            bb.add_field(S.PROGRAM_SLOT_DATA_SEGMENT_SIZE, "ulong", e[1])
            return bb.end_table()
        seg_vec = _refs(b, entries, seg)
    offs = b.create_scalar_vector("ulong", const_offsets if const_offsets else [0])
    b.start_table()
    b.add_field(S.PROGRAM_SLOT_SUBSEGMENT_OFFSETS_SEGMENT_INDEX, "uint", 0)
    b.add_field_ref(S.PROGRAM_SLOT_SUBSEGMENT_OFFSETS_OFFSETS, offs)
    const_seg = b.end_table()

    def inline(bb, data):
        vec = bb.create_byte_vector(data, align=16)
        bb.start_table()
        bb.add_field_ref(S.PROGRAM_SLOT_BACKEND_DELEGATE_INLINE_DATA_DATA, vec)
        return bb.end_table()
    inline_vec = _refs(b, program.get("inline_blobs", []), inline) \
        if program.get("inline_blobs") else None
    plans = _refs(b, program["plans"], _plan)
    b.start_table()
    b.add_field(S.PROGRAM_SLOT_PROGRAM_VERSION, "uint", 0)
    b.add_field_ref(S.PROGRAM_SLOT_PROGRAM_EXECUTION_PLAN, plans)
    b.add_field_ref(S.PROGRAM_SLOT_PROGRAM_BACKEND_DELEGATE_DATA, inline_vec)
    b.add_field_ref(S.PROGRAM_SLOT_PROGRAM_SEGMENTS, seg_vec)
    b.add_field_ref(S.PROGRAM_SLOT_PROGRAM_CONSTANT_SEGMENT, const_seg)
    b.add_field_ref(S.PROGRAM_SLOT_PROGRAM_NAMED_DATA, named)
    root = b.end_table()
    fb = b.finish(root, S.PROGRAM_FILE_IDENTIFIER)

    layout = {"header": False, "segments": []}
    if not blobs:
        return fb, layout
    hlen = program.get("header_length", 32)
    padded = _align(hlen, 32)
    program_size = len(fb) + padded
    base = _align(program_size, seg_align)
    seg_data_size = seg_table[-1][0] + seg_table[-1][1]
    header = b"eh00" + struct.pack("<IQQ", hlen, program_size, base)
    if hlen >= 32:
        header += struct.pack("<Q", seg_data_size)
    header += bytes(padded - len(header))
    root_off = struct.unpack_from("<I", fb, 0)[0] + padded
    out = bytearray(struct.pack("<I", root_off) + fb[4:8] + header + fb[8:])
    out += bytes(base - len(out))
    for (soff, _size), blob in zip(seg_table, blobs):
        out += bytes(base + soff - len(out))
        out += blob
    layout = {"header": True, "header_length": hlen, "program_size": program_size,
              "segment_base_offset": base, "segment_data_size": seg_data_size,
              "segments": [(base + o, s) for o, s in seg_table]}
    return bytes(out), layout
