"""Minimal VGF writer for fixtures (standard library only).

Design: tests need VGF files that the shared fixtures do not have, above
all COMPUTE segments (vgf.md §17) next to GRAPH segments.  `build(desc)`
turns a plain dict description into the bytes of a 0.4.3 container
(vgf.md §1-7): the 128-byte header, then the Module Table, Model Sequence
Table and Model Resource Table as FlatBuffers without file identifier
(written with flatbuf.Builder), then a raw `CONST00` constants section.
Each section starts at a multiple of 8 with zero padding in between, as
the 0.4.3 encoder does.  Field slots and defaults follow the vgf.md tables;
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
from . import vgf as vgf_read

MODULE_TYPES = {"compute": 0, "graph": 1}
CODE_TYPES = {"none": 0, "spirv": 1, "glsl": 2, "hlsl": 3}
CATEGORIES = {"input": 0, "output": 1, "intermediate": 2, "constant": 3}
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
        refs.append(flatbuf.table(b, [(0, "uint", binding), (1, "uint", mrt)]))
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
        if code_type == 1 and words is not None:
            wv = b.create_scalar_vector("uint", list(words))
            code = flatbuf.table(b, [(0, "ref", wv)])
        elif code_type in (2, 3) and source is not None:
            sv = b.create_string(source)
            code = flatbuf.table(b, [(0, "ref", sv)])
        name = b.create_string(m["name"]) if m.get("name") is not None else None
        entry = b.create_string(m["entry_point"]) if m.get("entry_point") is not None else None
        b.start_table()
        b.add_field(0, "ubyte", _enum(MODULE_TYPES, m.get("type")))
        b.add_field_ref(1, name)
        b.add_field_ref(2, entry)
        b.add_field(3, "ubyte", code_type)
        b.add_field_ref(4, code)
        refs.append(b.end_table())
    vec = b.create_offset_vector(refs)
    root = flatbuf.table(b, [(0, "ref", vec)])
    return b.finish(root)


def sequence_section(desc):
    b = flatbuf.Builder()
    seg_refs = []
    for s in desc.get("segments", []):
        set_refs = []
        for st in s.get("set_infos", []):
            bv = _bindings(b, st.get("bindings", []))
            set_index = st.get("set_index")
            set_refs.append(flatbuf.table(b, [(0, "ref", bv),
                                              (1, "uint", 0xFFFFFFFF if set_index is None else set_index,
                                               0xFFFFFFFF)]))
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
            prefs = [flatbuf.table(b, [(0, "uint", p[0]), (1, "uint", p[1]), (2, "uint", p[2])])
                     for p in s["push_constant_ranges"]]
            push = b.create_offset_vector(prefs)
        name = b.create_string(s["name"]) if s.get("name") is not None else None
        b.start_table()
        b.add_field(0, "ubyte", _enum(MODULE_TYPES, s.get("type")))
        b.add_field_ref(1, name)
        b.add_field(2, "uint", int(s.get("module_index", 0)))
        b.add_field_ref(3, sets)
        b.add_field_ref(4, ins)
        b.add_field_ref(5, outs)
        b.add_field_ref(6, consts)
        b.add_field_ref(7, disp)
        b.add_field_ref(8, push)
        seg_refs.append(b.end_table())
    segs = b.create_offset_vector(seg_refs)
    ins = _bindings(b, desc.get("inputs", []))
    outs = _bindings(b, desc.get("outputs", []))
    in_names = b.create_offset_vector([b.create_string(n) for n in desc.get("input_names", [])])
    out_names = b.create_offset_vector([b.create_string(n) for n in desc.get("output_names", [])])
    root = flatbuf.table(b, [(0, "ref", segs), (1, "ref", ins), (2, "ref", outs),
                             (3, "ref", in_names), (4, "ref", out_names)])
    return b.finish(root)


def resource_section(resources):
    b = flatbuf.Builder()
    refs = []
    for r in resources:
        shape = b.create_scalar_vector("long", list(r.get("shape", [])))
        fields = [(0, "ref", shape)]
        if r.get("strides"):
            fields.append((1, "ref", b.create_scalar_vector("long", list(r["strides"]))))
        dref = flatbuf.table(b, fields)
        alias = r.get("alias_group_id")
        refs.append(flatbuf.table(b, [
            (0, "uint", int(r.get("vk_descriptor_type", 0))),
            (1, "uint", int(r.get("vk_format", 0))),
            (2, "ubyte", _enum(CATEGORIES, r.get("category"))),
            (3, "ref", dref),
            (6, "uint", 0xFFFFFFFF if alias is None else alias, 0xFFFFFFFF),
        ]))
    vec = b.create_offset_vector(refs)
    root = flatbuf.table(b, [(0, "ref", vec)])
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
    return [[_scalar(sec, t, 0, "<I"), _scalar(sec, t, 1, "<I")] for t in _tables(sec, table, slot)]


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
    for m in _tables(sec, root, 0):
        ct = _scalar(sec, m, 3, "<B")
        mod = {"type": _scalar(sec, m, 0, "<B"), "name": _string(sec, m, 1),
               "entry_point": _string(sec, m, 2), "code_type": ct}
        f = vgf_read._field(sec, m, 4)
        if f is not None:
            code = vgf_read._ref(sec, f)
            if ct == 1:
                mod["words"] = _scalars(sec, code, 0, "<I") or []
            elif ct in (2, 3):
                mod["source"] = _string(sec, code, 0)
        mods.append(mod)
    desc["modules"] = mods

    sec = secs[1]
    root = _u32(sec, 0)
    segs = []
    for s in _tables(sec, root, 0):
        sets = []
        for st in _tables(sec, s, 3):
            idx = _scalar(sec, st, 1, "<I", 0xFFFFFFFF)
            sets.append({"bindings": _slots(sec, st, 0), "set_index": None if idx == 0xFFFFFFFF else idx})
        push = [[_scalar(sec, p, 0, "<I"), _scalar(sec, p, 1, "<I"), _scalar(sec, p, 2, "<I")]
                for p in _tables(sec, s, 8)] if vgf_read._field(sec, s, 8) is not None else None
        segs.append({"type": _scalar(sec, s, 0, "<B"), "name": _string(sec, s, 1),
                     "module_index": _scalar(sec, s, 2, "<I"), "set_infos": sets,
                     "inputs": _slots(sec, s, 4), "outputs": _slots(sec, s, 5),
                     "constants": _scalars(sec, s, 6, "<I"),
                     "dispatch_shape": _scalars(sec, s, 7, "<I"),
                     "push_constant_ranges": push})
    desc["segments"] = segs
    desc["inputs"] = _slots(sec, root, 1)
    desc["outputs"] = _slots(sec, root, 2)
    for slot, key in ((3, "input_names"), (4, "output_names")):
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
    for r in _tables(sec, root, 0):
        f = vgf_read._field(sec, r, 3)
        shape, strides = [], []
        if f is not None:
            d = vgf_read._ref(sec, f)
            shape = _scalars(sec, d, 0, "<q") or []
            strides = _scalars(sec, d, 1, "<q") or []
        alias = _scalar(sec, r, 6, "<I", 0xFFFFFFFF)
        res.append({"vk_descriptor_type": _scalar(sec, r, 0, "<I"), "vk_format": _scalar(sec, r, 1, "<I"),
                    "category": _scalar(sec, r, 2, "<B"), "shape": shape, "strides": strides,
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
        for c in _tables(sec, root, 0):
            raw = _vector(sec, c, 2)
            consts.append({"mrt_index": _scalar(sec, c, 0, "<I"),
                           "sparsity_dimension": _scalar(sec, c, 1, "<q"),
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
