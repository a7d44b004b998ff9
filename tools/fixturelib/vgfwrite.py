"""Minimal VGF writer for fixtures (standard library only).

Design: tests need VGF files that the shared fixtures do not have, above
all COMPUTE segments (docs/formats/vgf.md §9) next to GRAPH segments.  `build(desc)`
turns a plain dict description into the bytes of a 0.4.3 container
(docs/formats/vgf.md §1-7): the 128-byte header, then the Module Table, Model Sequence
Table and Model Resource Table as FlatBuffers without file identifier
(written with flatbuf.Builder), then a raw `CONST00` constants section.
Each section starts at a multiple of 8 with zero padding in between, as
the 0.4.3 encoder does.  Field slots and defaults follow the docs/formats/vgf.md tables;
a value equal to its schema default is omitted like the reference builder
does, unless the description asks for an explicitly present empty vector.

`describe(vgf_bytes)` goes the other way for the parts a test wants to copy
from a real VGF (modules with their SPIR-V words, segments, resources,
constants with payload bytes, model IO and names), reading both the raw
and the legacy FlatBuffers constants encodings.  The result can be edited
and passed back to build().  Inputs are trusted fixtures: checks are
asserts, not diagnostics.

Description (every key optional unless noted):
  version [0, 4, 3], vk_header_version 0
  modules: [{type "graph"|"compute"|int, name, entry_point,
             code_type "none"|"spirv"|"glsl"|"hlsl"|int (default: "spirv" when
             words are given, "glsl" when source is given, else "none"),
             words [u32...], source "text"}]
  segments: [{type, name, module_index, set_infos [{bindings [[binding, mrt]],
              set_index}], inputs [[binding, mrt]], outputs [...],
              constants [u32] (None = absent), dispatch_shape [u32] (None = absent),
              push_constant_ranges [[stage_flags, offset, size]] (None = absent)}]
  inputs / outputs: [[binding, mrt]], input_names / output_names: [str]
  resources: [{category "input"|"output"|"intermediate"|"constant"|int,
               vk_descriptor_type (0xFFFFFFFF = none), vk_format, shape [i64],
               strides [i64], alias_group_id}]
  constants: [{mrt_index, data bytes, sparsity_dimension -1}]
A binding may also be given as {"binding": b, "mrt_index": m}.
"""

import struct

from . import flatbuf
from . import schema_vgf as S
from . import vgf as vgf_read

MODULE_TYPES = {"compute": S.VGF_MODULE_TYPE_COMPUTE, "graph": S.VGF_MODULE_TYPE_GRAPH}
CODE_TYPES = {"none": S.VGF_MODULE_CODE_NONE, "spirv": S.VGF_MODULE_CODE_SPIRV,
              "glsl": S.VGF_MODULE_CODE_GLSL, "hlsl": S.VGF_MODULE_CODE_HLSL}
CATEGORIES = {"input": S.VGF_RESOURCE_CATEGORY_INPUT, "output": S.VGF_RESOURCE_CATEGORY_OUTPUT,
              "intermediate": S.VGF_RESOURCE_CATEGORY_INTERMEDIATE, "constant": S.VGF_RESOURCE_CATEGORY_CONSTANT}
DESCRIPTOR_NONE = 0xFFFFFFFF
DESCRIPTOR_TENSOR_ARM = 1000460000
HEADER_SIZE = 128


def _enum(table, value, default=0):
    if value is None:
        return default
    if isinstance(value, str):
        return table[value.lower()]
    return int(value)


def _binding_pair(b):
    if isinstance(b, dict):
        return int(b.get("binding", 0)), int(b.get("mrt_index", 0))
    return int(b[0]), int(b[1])


# ------------------------------------------------------------ sections

def _bindings(b, slots):
    """Vector of BindingSlot tables, one table per slot (the producer
    shares them between model IO and segments; readers must not care)."""
    refs = []
    for s in slots:
        binding, mrt = _binding_pair(s)
        refs.append(flatbuf.table(b, [(S.VGF_SLOT_BINDING_SLOT_BINDING, "uint", binding),
                                      (S.VGF_SLOT_BINDING_SLOT_MRT_INDEX, "uint", mrt)]))
    return b.create_offset_vector(refs)


def module_section(modules):
    b = flatbuf.Builder()
    refs = []
    for m in modules:
        words = m.get("words")
        source = m.get("source")
        default_code = "spirv" if words is not None else "glsl" if source is not None else "none"
        code_type = _enum(CODE_TYPES, m.get("code_type", default_code))
        code = None
        if code_type == S.VGF_MODULE_CODE_SPIRV and words is not None:
            wv = b.create_scalar_vector("uint", list(words))
            code = flatbuf.table(b, [(S.VGF_SLOT_SPIRV_WORDS, "ref", wv)])
        elif code_type in (S.VGF_MODULE_CODE_GLSL, S.VGF_MODULE_CODE_HLSL) and source is not None:
            sv = b.create_string(source)
            slot = S.VGF_SLOT_GLSL_CODE if code_type == S.VGF_MODULE_CODE_GLSL else S.VGF_SLOT_HLSL_CODE
            code = flatbuf.table(b, [(slot, "ref", sv)])
        name = b.create_string(m["name"]) if m.get("name") is not None else None
        entry = b.create_string(m["entry_point"]) if m.get("entry_point") is not None else None
        b.start_table()
        b.add_field(S.VGF_SLOT_MODULE_TYPE, "ubyte", _enum(MODULE_TYPES, m.get("type")))
        b.add_field_ref(S.VGF_SLOT_MODULE_NAME, name)
        b.add_field_ref(S.VGF_SLOT_MODULE_ENTRY_POINT, entry)
        b.add_field(S.VGF_SLOT_MODULE_CODE_TYPE, "ubyte", code_type)
        b.add_field_ref(S.VGF_SLOT_MODULE_CODE, code)
        refs.append(b.end_table())
    vec = b.create_offset_vector(refs)
    root = flatbuf.table(b, [(S.VGF_SLOT_MODULE_TABLE_MODULES, "ref", vec)])
    return b.finish(root)


def sequence_section(desc):
    b = flatbuf.Builder()
    seg_refs = []
    for s in desc.get("segments", []):
        set_refs = []
        for st in s.get("set_infos", []):
            bv = _bindings(b, st.get("bindings", []))
            set_index = st.get("set_index")
            set_refs.append(flatbuf.table(b, [(S.VGF_SLOT_DESCRIPTOR_SET_INFO_BINDINGS, "ref", bv),
                                              (S.VGF_SLOT_DESCRIPTOR_SET_INFO_SET_INDEX, "uint",
                                               0xFFFFFFFF if set_index is None else set_index, 0xFFFFFFFF)]))
        sets = b.create_offset_vector(set_refs)
        ins = _bindings(b, s.get("inputs", []))
        outs = _bindings(b, s.get("outputs", []))
        consts = None
        if s.get("constants") is not None:
            consts = b.create_scalar_vector("uint", list(s["constants"]))
        disp = None
        if s.get("dispatch_shape") is not None:
            disp = b.create_scalar_vector("uint", list(s["dispatch_shape"]))
        push = None
        if s.get("push_constant_ranges") is not None:
            prefs = [flatbuf.table(b, [(S.VGF_SLOT_PUSH_CONSTANT_RANGE_STAGE_FLAGS, "uint", p[0]),
                                       (S.VGF_SLOT_PUSH_CONSTANT_RANGE_OFFSET, "uint", p[1]),
                                       (S.VGF_SLOT_PUSH_CONSTANT_RANGE_SIZE, "uint", p[2])])
                     for p in s["push_constant_ranges"]]
            push = b.create_offset_vector(prefs)
        name = b.create_string(s["name"]) if s.get("name") is not None else None
        b.start_table()
        b.add_field(S.VGF_SLOT_SEGMENT_INFO_TYPE, "ubyte", _enum(MODULE_TYPES, s.get("type")))
        b.add_field_ref(S.VGF_SLOT_SEGMENT_INFO_NAME, name)
        b.add_field(S.VGF_SLOT_SEGMENT_INFO_MODULE_INDEX, "uint", int(s.get("module_index", 0)))
        b.add_field_ref(S.VGF_SLOT_SEGMENT_INFO_SET_INFOS, sets)
        b.add_field_ref(S.VGF_SLOT_SEGMENT_INFO_INPUTS, ins)
        b.add_field_ref(S.VGF_SLOT_SEGMENT_INFO_OUTPUTS, outs)
        b.add_field_ref(S.VGF_SLOT_SEGMENT_INFO_CONSTANTS, consts)
        b.add_field_ref(S.VGF_SLOT_SEGMENT_INFO_DISPATCH_SHAPE, disp)
        b.add_field_ref(S.VGF_SLOT_SEGMENT_INFO_PUSH_CONSTANT_RANGES, push)
        seg_refs.append(b.end_table())
    segs = b.create_offset_vector(seg_refs)
    ins = _bindings(b, desc.get("inputs", []))
    outs = _bindings(b, desc.get("outputs", []))
    in_names = b.create_offset_vector([b.create_string(n) for n in desc.get("input_names", [])])
    out_names = b.create_offset_vector([b.create_string(n) for n in desc.get("output_names", [])])
    root = flatbuf.table(b, [(S.VGF_SLOT_MODEL_SEQUENCE_TABLE_SEGMENTS, "ref", segs),
                             (S.VGF_SLOT_MODEL_SEQUENCE_TABLE_INPUTS, "ref", ins),
                             (S.VGF_SLOT_MODEL_SEQUENCE_TABLE_OUTPUTS, "ref", outs),
                             (S.VGF_SLOT_MODEL_SEQUENCE_TABLE_INPUT_NAMES, "ref", in_names),
                             (S.VGF_SLOT_MODEL_SEQUENCE_TABLE_OUTPUT_NAMES, "ref", out_names)])
    return b.finish(root)


def resource_section(resources):
    b = flatbuf.Builder()
    refs = []
    for r in resources:
        shape = b.create_scalar_vector("long", list(r.get("shape", [])))
        fields = [(S.VGF_SLOT_DESCRIPTION_SHAPE, "ref", shape)]
        if r.get("strides"):
            fields.append((S.VGF_SLOT_DESCRIPTION_STRIDES, "ref", b.create_scalar_vector("long", list(r["strides"]))))
        dref = flatbuf.table(b, fields)
        alias = r.get("alias_group_id")
        refs.append(flatbuf.table(b, [
            (S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_VK_DESCRIPTOR_TYPE, "uint", int(r.get("vk_descriptor_type", 0))),
            (S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_VK_FORMAT, "uint", int(r.get("vk_format", 0))),
            (S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_CATEGORY, "ubyte", _enum(CATEGORIES, r.get("category"))),
            (S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_DESCRIPTION, "ref", dref),
            (S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_ALIAS_GROUP_ID, "uint", 0xFFFFFFFF if alias is None else alias,
             0xFFFFFFFF),
        ]))
    vec = b.create_offset_vector(refs)
    root = flatbuf.table(b, [(S.VGF_SLOT_MODEL_RESOURCE_TABLE_MRT_ENTRY, "ref", vec)])
    return b.finish(root)


def constant_section(constants):
    """Raw CONST00: version, count, 24-byte records, payload padded to 8."""
    records = []
    payload = bytearray()
    for c in constants:
        data = bytes(c.get("data", b""))
        records.append(struct.pack("<IiQQ", int(c.get("mrt_index", 0)),
                                   int(c.get("sparsity_dimension", -1)), len(data), len(payload)))
        payload += data
        payload += bytes((-len(payload)) % 8)
    return b"CONST00\0" + struct.pack("<Q", len(constants)) + b"".join(records) + bytes(payload)


def build(desc):
    """VGF bytes of a description (see the module comment)."""
    sections = [module_section(desc.get("modules", [])), sequence_section(desc),
                resource_section(desc.get("resources", [])),
                constant_section(desc.get("constants", []))]
    major, minor, patch = desc.get("version", (0, 4, 3))
    body = bytearray()
    table = []
    pos = HEADER_SIZE
    for sec in sections:
        pad = (-pos) % 8
        body += bytes(pad)
        pos += pad
        table.append((pos, len(sec)))
        body += sec
        pos += len(sec)
    header = bytearray(HEADER_SIZE)
    header[0:4] = b"VGF1"
    struct.pack_into("<H", header, 4, int(desc.get("vk_header_version", 0)))
    header[8:11] = bytes((major, minor, patch))
    for i, (off, size) in enumerate(table):
        struct.pack_into("<QQ", header, 16 + 16 * i, off, size)
    return bytes(header) + bytes(body)


# ------------------------------------------------------------ reading back

def _u32(b, p):
    return struct.unpack_from("<I", b, p)[0]


def _vector(sec, table, slot):
    """(start of elements, count) of a vector field, or None if absent."""
    f = vgf_read._field(sec, table, slot)
    if f is None:
        return None
    v = vgf_read._ref(sec, f)
    return v + 4, _u32(sec, v)


def _tables(sec, table, slot):
    v = _vector(sec, table, slot)
    if v is None:
        return []
    start, n = v
    return [vgf_read._ref(sec, start + 4 * i) for i in range(n)]


def _scalar(sec, table, slot, fmt, default=0):
    f = vgf_read._field(sec, table, slot)
    return default if f is None else struct.unpack_from(fmt, sec, f)[0]


def _string(sec, table, slot):
    f = vgf_read._field(sec, table, slot)
    if f is None:
        return None
    s = vgf_read._ref(sec, f)
    return sec[s + 4:s + 4 + _u32(sec, s)].decode("utf-8")


def _scalars(sec, table, slot, fmt):
    v = _vector(sec, table, slot)
    if v is None:
        return None
    start, n = v
    size = struct.calcsize(fmt)
    return [struct.unpack_from(fmt, sec, start + size * i)[0] for i in range(n)]


def _slots(sec, table, slot):
    return [[_scalar(sec, t, S.VGF_SLOT_BINDING_SLOT_BINDING, "<I"),
             _scalar(sec, t, S.VGF_SLOT_BINDING_SLOT_MRT_INDEX, "<I")] for t in _tables(sec, table, slot)]


def describe(data):
    """Description of an existing VGF (the inverse of build, for copying)."""
    assert data[:4] in (b"VGF1", b"\xc3\xd2\xe1\xf0"), "not a VGF"
    secs = []
    for i in range(4):
        off, size = struct.unpack_from("<QQ", data, 16 + 16 * i)
        secs.append(bytes(data[off:off + size]))
    desc = {"version": list(data[8:11]), "vk_header_version": struct.unpack_from("<H", data, 4)[0]}

    sec = secs[0]
    root = _u32(sec, 0)
    mods = []
    for m in _tables(sec, root, S.VGF_SLOT_MODULE_TABLE_MODULES):
        ct = _scalar(sec, m, S.VGF_SLOT_MODULE_CODE_TYPE, "<B")
        mod = {"type": _scalar(sec, m, S.VGF_SLOT_MODULE_TYPE, "<B"), "name": _string(sec, m, S.VGF_SLOT_MODULE_NAME),
               "entry_point": _string(sec, m, S.VGF_SLOT_MODULE_ENTRY_POINT), "code_type": ct}
        f = vgf_read._field(sec, m, S.VGF_SLOT_MODULE_CODE)
        if f is not None:
            code = vgf_read._ref(sec, f)
            if ct == S.VGF_MODULE_CODE_SPIRV:
                mod["words"] = _scalars(sec, code, S.VGF_SLOT_SPIRV_WORDS, "<I") or []
            elif ct in (S.VGF_MODULE_CODE_GLSL, S.VGF_MODULE_CODE_HLSL):
                mod["source"] = _string(sec, code, S.VGF_SLOT_GLSL_CODE if ct == S.VGF_MODULE_CODE_GLSL
                                        else S.VGF_SLOT_HLSL_CODE)
        mods.append(mod)
    desc["modules"] = mods

    sec = secs[1]
    root = _u32(sec, 0)
    segs = []
    for s in _tables(sec, root, S.VGF_SLOT_MODEL_SEQUENCE_TABLE_SEGMENTS):
        sets = []
        for st in _tables(sec, s, S.VGF_SLOT_SEGMENT_INFO_SET_INFOS):
            idx = _scalar(sec, st, S.VGF_SLOT_DESCRIPTOR_SET_INFO_SET_INDEX, "<I", 0xFFFFFFFF)
            sets.append({"bindings": _slots(sec, st, S.VGF_SLOT_DESCRIPTOR_SET_INFO_BINDINGS),
                         "set_index": None if idx == 0xFFFFFFFF else idx})
        push = None
        if vgf_read._field(sec, s, S.VGF_SLOT_SEGMENT_INFO_PUSH_CONSTANT_RANGES) is not None:
            push = [[_scalar(sec, p, S.VGF_SLOT_PUSH_CONSTANT_RANGE_STAGE_FLAGS, "<I"),
                     _scalar(sec, p, S.VGF_SLOT_PUSH_CONSTANT_RANGE_OFFSET, "<I"),
                     _scalar(sec, p, S.VGF_SLOT_PUSH_CONSTANT_RANGE_SIZE, "<I")]
                    for p in _tables(sec, s, S.VGF_SLOT_SEGMENT_INFO_PUSH_CONSTANT_RANGES)]
        segs.append({"type": _scalar(sec, s, S.VGF_SLOT_SEGMENT_INFO_TYPE, "<B"),
                     "name": _string(sec, s, S.VGF_SLOT_SEGMENT_INFO_NAME),
                     "module_index": _scalar(sec, s, S.VGF_SLOT_SEGMENT_INFO_MODULE_INDEX, "<I"), "set_infos": sets,
                     "inputs": _slots(sec, s, S.VGF_SLOT_SEGMENT_INFO_INPUTS),
                     "outputs": _slots(sec, s, S.VGF_SLOT_SEGMENT_INFO_OUTPUTS),
                     "constants": _scalars(sec, s, S.VGF_SLOT_SEGMENT_INFO_CONSTANTS, "<I"),
                     "dispatch_shape": _scalars(sec, s, S.VGF_SLOT_SEGMENT_INFO_DISPATCH_SHAPE, "<I"),
                     "push_constant_ranges": push})
    desc["segments"] = segs
    desc["inputs"] = _slots(sec, root, S.VGF_SLOT_MODEL_SEQUENCE_TABLE_INPUTS)
    desc["outputs"] = _slots(sec, root, S.VGF_SLOT_MODEL_SEQUENCE_TABLE_OUTPUTS)
    for slot, key in ((S.VGF_SLOT_MODEL_SEQUENCE_TABLE_INPUT_NAMES, "input_names"),
                      (S.VGF_SLOT_MODEL_SEQUENCE_TABLE_OUTPUT_NAMES, "output_names")):
        v = _vector(sec, root, slot)
        names = []
        if v:
            for i in range(v[1]):
                s = vgf_read._ref(sec, v[0] + 4 * i)
                names.append(sec[s + 4:s + 4 + _u32(sec, s)].decode("utf-8"))
        desc[key] = names

    sec = secs[2]
    root = _u32(sec, 0)
    res = []
    for r in _tables(sec, root, S.VGF_SLOT_MODEL_RESOURCE_TABLE_MRT_ENTRY):
        f = vgf_read._field(sec, r, S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_DESCRIPTION)
        shape, strides = [], []
        if f is not None:
            d = vgf_read._ref(sec, f)
            shape = _scalars(sec, d, S.VGF_SLOT_DESCRIPTION_SHAPE, "<q") or []
            strides = _scalars(sec, d, S.VGF_SLOT_DESCRIPTION_STRIDES, "<q") or []
        alias = _scalar(sec, r, S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_ALIAS_GROUP_ID, "<I", 0xFFFFFFFF)
        res.append({"vk_descriptor_type":
                    _scalar(sec, r, S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_VK_DESCRIPTOR_TYPE, "<I"),
                    "vk_format": _scalar(sec, r, S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_VK_FORMAT, "<I"),
                    "category": _scalar(sec, r, S.VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_CATEGORY, "<B"),
                    "shape": shape, "strides": strides,
                    "alias_group_id": None if alias == 0xFFFFFFFF else alias})
    desc["resources"] = res

    sec = secs[3]
    consts = []
    if sec[:8] == b"CONST00\0":
        count = struct.unpack_from("<Q", sec, 8)[0]
        base = 16 + 24 * count
        for i in range(count):
            mrt, sparsity, size, off = struct.unpack_from("<IiQQ", sec, 16 + 24 * i)
            consts.append({"mrt_index": mrt, "sparsity_dimension": sparsity,
                           "data": sec[base + off:base + off + size]})
    else:
        root = _u32(sec, 0)
        for c in _tables(sec, root, S.VGF_SLOT_CONSTANT_SECTION_DATA):
            raw = _vector(sec, c, S.VGF_SLOT_CONSTANT_DATA_RAW)
            consts.append({"mrt_index": _scalar(sec, c, S.VGF_SLOT_CONSTANT_DATA_MRT_INDEX, "<I"),
                           "sparsity_dimension": _scalar(sec, c, S.VGF_SLOT_CONSTANT_DATA_SPARSITY_DIMENSION, "<q"),
                           "data": sec[raw[0]:raw[0] + raw[1]] if raw else b""})
    desc["constants"] = consts
    return desc


# A tiny GLCompute shader (SPIR-V 1.0, `main`, local size 1x1x1) for
# COMPUTE modules with embedded code: header, OpCapability Shader,
# OpMemoryModel Logical GLSL450, OpEntryPoint GLCompute %1 "main",
# OpExecutionMode %1 LocalSize 1 1 1, %2 = OpTypeVoid, %3 = OpTypeFunction %2,
# %1 = OpFunction %2 None %3, OpLabel %4, OpReturn, OpFunctionEnd.
TINY_COMPUTE_SPIRV = (
    0x07230203, 0x00010000, 0, 5, 0,
    (2 << 16) | 17, 1,
    (3 << 16) | 14, 0, 1,
    (5 << 16) | 15, 5, 1, 0x6E69616D, 0,
    (6 << 16) | 16, 1, 17, 1, 1, 1,
    (2 << 16) | 19, 2,
    (3 << 16) | 33, 3, 2,
    (5 << 16) | 54, 2, 1, 0, 3,
    (2 << 16) | 248, 4,
    (1 << 16) | 253,
    (1 << 16) | 56,
)
