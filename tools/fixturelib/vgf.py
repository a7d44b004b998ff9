"""VGF helpers for fixtures: find the TOSA operations of a VGF's SPIR-V.

Design: fixtures need real SPIR-V result ids so that statistics labels such
as `TOSACONV2D_spirv_id_6012` resolve against the VGF stored in a companion
PTE.  This module reads just enough of the container (docs/formats/vgf.md
§2-4, docs/formats/spirv-tosa.md §1-2 and §7): header -> module section -> FlatBuffers ModuleTable -> each
module's SPIRV words, then scans the instructions for the OpExtInstImport of
`TOSA.001000.1` and the OpExtInst (opcode 12) results using that set.
The input is a trusted fixture; checks are asserts, not diagnostics.
"""

import struct

from . import schema_vgf as S

TOSA_OPS = [
    "ARGMAX", "AVG_POOL2D", "CONV2D", "CONV3D", "DEPTHWISE_CONV2D", "FFT2D", "MATMUL",
    "MAX_POOL2D", "RFFT2D", "TRANSPOSE_CONV2D", "CLAMP", "ERF", "SIGMOID", "TANH", "ADD",
    "ARITHMETIC_RIGHT_SHIFT", "BITWISE_AND", "BITWISE_OR", "BITWISE_XOR", "INTDIV",
    "LOGICAL_AND", "LOGICAL_LEFT_SHIFT", "LOGICAL_RIGHT_SHIFT", "LOGICAL_OR", "LOGICAL_XOR",
    "MAXIMUM", "MINIMUM", "MUL", "POW", "SUB", "TABLE", "ABS", "BITWISE_NOT", "CEIL", "CLZ",
    "COS", "EXP", "FLOOR", "LOG", "LOGICAL_NOT", "NEGATE", "RECIPROCAL", "RSQRT", "SIN",
    "SELECT", "EQUAL", "GREATER", "GREATER_EQUAL", "REDUCE_ALL", "REDUCE_ANY", "REDUCE_MAX",
    "REDUCE_MIN", "REDUCE_PRODUCT", "REDUCE_SUM", "CONCAT", "PAD", "RESHAPE", "REVERSE",
    "SLICE", "TILE", "TRANSPOSE", "GATHER", "SCATTER", "RESIZE", "CAST", "RESCALE",
]


def op_type(name):
    """Debug-database op type spelling: CONV2D -> Conv2D, AVG_POOL2D -> AvgPool2D."""
    out = "".join(p.capitalize() for p in name.split("_"))
    return out.replace("2d", "2D").replace("3d", "3D")


def spirv_label(name, result_id):
    """API label naming a SPIR-V result: TOSACONV2D_spirv_id_6012."""
    return "TOSA%s_spirv_id_%d" % (name.replace("_", ""), result_id)


def _u32(b, p):
    return struct.unpack_from("<I", b, p)[0]


def _field(sec, table, slot):
    vt = table - struct.unpack_from("<i", sec, table)[0]
    vt_size = struct.unpack_from("<H", sec, vt)[0]
    if 4 + 2 * slot + 2 > vt_size:
        return None
    off = struct.unpack_from("<H", sec, vt + 4 + 2 * slot)[0]
    return table + off if off else None


def _ref(sec, pos):
    return pos + _u32(sec, pos)


def modules(vgf):
    """[(type, name, spirv words tuple)] of the module table."""
    assert vgf[:4] in (b"VGF1", b"\xc3\xd2\xe1\xf0"), "not a VGF"
    off, size = struct.unpack_from("<QQ", vgf, 16)
    sec = vgf[off:off + size]
    root = _u32(sec, 0)
    vec_f = _field(sec, root, S.VGF_SLOT_MODULE_TABLE_MODULES)
    out = []
    if vec_f is None:
        return out
    vec = _ref(sec, vec_f)
    for i in range(_u32(sec, vec)):
        m = _ref(sec, vec + 4 + 4 * i)
        f = _field(sec, m, S.VGF_SLOT_MODULE_TYPE)
        mtype = sec[f] if f else 0
        f = _field(sec, m, S.VGF_SLOT_MODULE_NAME)
        name = ""
        if f:
            s = _ref(sec, f)
            name = sec[s + 4:s + 4 + _u32(sec, s)].decode("utf-8")
        words = ()
        f = _field(sec, m, S.VGF_SLOT_MODULE_CODE)
        if f:
            code = _ref(sec, f)
            wf = _field(sec, code, S.VGF_SLOT_SPIRV_WORDS)
            if wf:
                w = _ref(sec, wf)
                n = _u32(sec, w)
                words = struct.unpack_from("<%dI" % n, sec, w + 4)
        out.append((mtype, name, words))
    return out


def _string(words, start):
    raw = b"".join(struct.pack("<I", w) for w in words[start:])
    return raw.split(b"\0", 1)[0].decode("utf-8")


def tosa_ops(words):
    """[(result id, op name)] of every TOSA OpExtInst, in module order."""
    if len(words) < 5 or words[0] != 0x07230203:
        return []
    sets = {}
    out = []
    pos = 5
    while pos < len(words):
        wc, opcode = words[pos] >> 16, words[pos] & 0xFFFF
        assert wc > 0 and pos + wc <= len(words), "bad SPIR-V"
        if opcode == 11:
            sets[words[pos + 1]] = _string(words[pos + 2:pos + wc], 0)
        elif opcode == 12 and sets.get(words[pos + 3]) == "TOSA.001000.1":
            num = words[pos + 4]
            out.append((words[pos + 2], TOSA_OPS[num] if num < len(TOSA_OPS) else "OP%d" % num))
        pos += wc
    return out


def segment_tosa_ops(vgf_bytes):
    """TOSA ops of every GRAPH module: [[(result id, op name)] per module]."""
    return [tosa_ops(words) for mtype, _name, words in modules(vgf_bytes) if mtype == S.VGF_MODULE_TYPE_GRAPH]
