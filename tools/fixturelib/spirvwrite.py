"""SPIR-V TOSA graph writer for fixtures (standard library only).

Design: the companion sample and tests need a VGF whose GRAPH segment holds
a real SPIR-V graph (SPV_ARM_graph + SPV_ARM_tensors, ops from the
`TOSA.001000.1` set) without any third-party file.  `graph_module(desc)`
writes such a module from a short description; `graph_vgf(desc)` wraps it
into a vgfwrite description (one GRAPH segment, weights as graph constants
backed by CONSTANT resources, one INPUT and one OUTPUT tensor resource bound
at set 0, bindings 0 and 1) so that `vgfwrite.build(graph_vgf(desc))` gives
the container bytes.

The module follows the layout of a model-converter module
(docs/formats/spirv-tosa.md §1-5):
capabilities, extensions, the TOSA import, the memory model, the graph
entry point, Binding/DescriptorSet decorations of the interface variables,
then types, constants, variables and graph constants in definition order,
then the graph (inputs, operations, outputs).  Every operand list follows
docs/formats/spirv-tosa.md §7 (attributes first, then tensors), so the library decodes the
module without a warning.  Result ids are allocated in writing order, so
the same description always gives the same words.

Description:
  name             module and entry point name (default "graph_partition_0")
  segment_name     segment name (default "graph_segment_0")
  input            {name, shape, dtype "i8"}   (one graph input)
  output_name      name of the model output (default "output")
  ops: [{op, shape, name?, input?, ...}] in graph order; `input` names an
       earlier op (default: the previous op, or the graph input for the
       first); `shape` is the result shape.  Per op:
    CONV2D / DEPTHWISE_CONV2D: weight [shape] (graph constant, i8),
        stride [2], pad [4], dilation [2]; result i32
    RESCALE: multiplier, shift, output_zp; result i8
    AVG_POOL2D / MAX_POOL2D: kernel, stride, pad; result = input type
    RESHAPE: result = input element type with the new shape
    CLAMP: min, max; result = input type
  The last op is the graph output.
"""

import struct

TOSA_SET = "TOSA.001000.1"
OPCODES = {"AVG_POOL2D": 1, "CONV2D": 2, "DEPTHWISE_CONV2D": 4, "MAX_POOL2D": 7, "CLAMP": 10,
           "RESHAPE": 56, "RESCALE": 65}
VK_FORMAT = {"i8": 14, "i32": 99}          # VK_FORMAT_R8_SINT, VK_FORMAT_R32_SINT
DESCRIPTOR_NONE = 0xFFFFFFFF
DESCRIPTOR_TENSOR_ARM = 1000460000

# opcodes (docs/formats/spirv-tosa.md §2)
OP_NAME, OP_EXTENSION, OP_IMPORT, OP_EXT_INST, OP_MEMORY_MODEL = 5, 10, 11, 12, 14
OP_CAPABILITY, OP_TYPE_BOOL, OP_TYPE_INT, OP_TYPE_ARRAY, OP_TYPE_POINTER = 17, 20, 21, 28, 32
OP_CONSTANT_TRUE, OP_CONSTANT_FALSE, OP_CONSTANT, OP_CONSTANT_COMPOSITE = 41, 42, 43, 44
OP_CONSTANT_NULL, OP_VARIABLE, OP_DECORATE = 46, 59, 71
OP_TYPE_TENSOR, OP_GRAPH_CONSTANT, OP_GRAPH_ENTRY_POINT = 4163, 4181, 4182
OP_GRAPH, OP_GRAPH_INPUT, OP_GRAPH_SET_OUTPUT, OP_GRAPH_END, OP_TYPE_GRAPH = 4183, 4184, 4185, 4186, 4190
CAPABILITIES = (4191, 4174, 39, 1, 5345)   # GraphARM, TensorsARM, Int8, Shader, VulkanMemoryModel
EXTENSIONS = ("SPV_ARM_graph", "SPV_ARM_tensors", "SPV_KHR_vulkan_memory_model")


def _string(s):
    raw = s.encode("utf-8") + b"\0"
    raw += bytes((-len(raw)) % 4)
    return list(struct.unpack("<%dI" % (len(raw) // 4), raw))


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


class _Module:
    def __init__(self):
        self.bound = 1
        self.head = []      # capabilities .. entry point, decorations
        self.decorations = []
        self.globals = []   # types, constants, variables, graph constants
        self.body = []      # the graph
        self._cache = {}

    def new_id(self):
        self.bound += 1
        return self.bound - 1

    @staticmethod
    def inst(where, opcode, *operands):
        where.append(((len(operands) + 1) << 16) | opcode)
        where.extend(operands)

    def cached(self, key, make):
        if key not in self._cache:
            self._cache[key] = make()
        return self._cache[key]

    # -- types and constants --------------------------------------------
    def t_int(self, width):
        def make():
            r = self.new_id()
            self.inst(self.globals, OP_TYPE_INT, r, width, 0)
            return r
        return self.cached(("int", width), make)

    def t_bool(self):
        def make():
            r = self.new_id()
            self.inst(self.globals, OP_TYPE_BOOL, r)
            return r
        return self.cached(("bool",), make)

    def c_int(self, width, value):
        def make():
            t = self.t_int(width)
            r = self.new_id()
            self.inst(self.globals, OP_CONSTANT, t, r, value & ((1 << width) - 1))
            return r
        return self.cached(("const", width, value), make)

    def c_bool(self, value):
        def make():
            t = self.t_bool()
            r = self.new_id()
            self.inst(self.globals, OP_CONSTANT_TRUE if value else OP_CONSTANT_FALSE, t, r)
            return r
        return self.cached(("bool", bool(value)), make)

    def t_tensor(self, elem, shape):
        width = int(elem[1:])

        def make():
            rank = self.c_int(32, len(shape))
            arr = self.cached(("array", len(shape)), lambda: self._array(rank))
            dims = [self.c_int(32, d) for d in shape]
            shape_id = self.new_id()
            self.inst(self.globals, OP_CONSTANT_COMPOSITE, arr, shape_id, *dims)
            r = self.new_id()
            self.inst(self.globals, OP_TYPE_TENSOR, r, self.t_int(width), rank, shape_id)
            return r
        return self.cached(("tensor", elem, tuple(shape)), make)

    def _array(self, rank_id):
        r = self.new_id()
        self.inst(self.globals, OP_TYPE_ARRAY, r, self.t_int(32), rank_id)
        return r

    def c_tensor(self, elem, values):
        """Rank-1 constant tensor<len(values) x elem>."""
        width = int(elem[1:])

        def make():
            t = self.t_tensor(elem, [len(values)])
            parts = [self.c_int(width, v) for v in values]
            r = self.new_id()
            self.inst(self.globals, OP_CONSTANT_COMPOSITE, t, r, *parts)
            return r
        return self.cached(("ctensor", elem, tuple(values)), make)

    def c_null(self, elem, shape):
        def make():
            t = self.t_tensor(elem, shape)
            r = self.new_id()
            self.inst(self.globals, OP_CONSTANT_NULL, t, r)
            return r
        return self.cached(("null", elem, tuple(shape)), make)

    def words(self):
        header = [0x07230203, 0x00010500, 0, self.bound, 0]
        return header + self.head + self.decorations + self.globals + self.body


def graph_module(desc):
    """(SPIR-V words, facts) of a graph description (see the module comment).
    facts: {"ops": [(result id, TOSA name)], "constants": [(shape, elem)],
    "input": (shape, elem), "output": (shape, elem)}."""
    m = _Module()
    for cap in CAPABILITIES:
        m.inst(m.head, OP_CAPABILITY, cap)
    for ext in EXTENSIONS:
        m.inst(m.head, OP_EXTENSION, *_string(ext))
    tosa = m.new_id()
    m.inst(m.head, OP_IMPORT, tosa, *_string(TOSA_SET))
    m.inst(m.head, OP_MEMORY_MODEL, 0, 3)
    graph_id = m.new_id()
    var_in, var_out = m.new_id(), m.new_id()
    name = desc.get("name", "graph_partition_0")
    m.inst(m.head, OP_GRAPH_ENTRY_POINT, graph_id, *_string(name), var_in, var_out)
    for var, binding in ((var_in, 0), (var_out, 1)):
        m.inst(m.decorations, OP_DECORATE, var, 34, 0)        # DescriptorSet 0
        m.inst(m.decorations, OP_DECORATE, var, 33, binding)  # Binding

    inp = desc["input"]
    in_elem = inp.get("dtype", "i8")
    in_type = m.t_tensor(in_elem, inp["shape"])

    # -- operations: operands first (module scope), instructions later --
    constants = []      # graph constants: (shape, elem)
    values = {}         # name -> (id, elem, shape)
    ops_out = []
    body = []
    prev = None
    input_value = m.new_id()
    values[inp.get("name", "input")] = (input_value, in_elem, inp["shape"])

    def graph_constant(elem, shape):
        t = m.t_tensor(elem, shape)
        r = m.new_id()
        m.inst(m.globals, OP_GRAPH_CONSTANT, t, r, len(constants))
        constants.append((list(shape), elem))
        return r

    for i, op in enumerate(desc["ops"]):
        kind = op["op"]
        src = values[op["input"]] if "input" in op else (prev or values[inp.get("name", "input")])
        src_id, src_elem, src_shape = src
        shape = op["shape"]
        if kind in ("CONV2D", "DEPTHWISE_CONV2D"):
            elem = "i32"
            weight = graph_constant("i8", op["weight"])
            channels = shape[-1]
            bias = m.c_tensor("i32", [(k * 37 + 11) % 97 - 48 for k in range(channels)])
            operands = [m.c_tensor("i32", op.get("pad", [0, 0, 0, 0])),
                        m.c_tensor("i32", op.get("stride", [1, 1])),
                        m.c_tensor("i32", op.get("dilation", [1, 1])),
                        m.c_int(32, 1), m.c_bool(False),
                        src_id, weight, bias, m.c_null("i8", [1]), m.c_null("i8", [1])]
        elif kind == "RESCALE":
            elem = "i8"
            operands = [m.c_bool(True), m.c_int(32, 3), m.c_bool(False), m.c_bool(False), m.c_bool(False),
                        src_id, m.c_tensor("i32", [op.get("multiplier", 1518500250)]),
                        m.c_tensor("i8", [op.get("shift", 38)]), m.c_null(src_elem, [1]),
                        m.c_tensor("i8", [op.get("output_zp", -128)])]
        elif kind == "AVG_POOL2D":
            elem = src_elem
            operands = [m.c_tensor("i32", op["kernel"]), m.c_tensor("i32", op.get("stride", [1, 1])),
                        m.c_tensor("i32", op.get("pad", [0, 0, 0, 0])), m.c_int(32, 1),
                        src_id, m.c_null(src_elem, [1]), m.c_null(src_elem, [1])]
        elif kind == "MAX_POOL2D":
            elem = src_elem
            operands = [m.c_tensor("i32", op["kernel"]), m.c_tensor("i32", op.get("stride", [1, 1])),
                        m.c_tensor("i32", op.get("pad", [0, 0, 0, 0])), m.c_int(32, 1), src_id]
        elif kind == "CLAMP":
            elem = src_elem
            width = int(elem[1:])
            operands = [m.c_int(width, op.get("min", -128)), m.c_int(width, op.get("max", 127)),
                        m.c_int(32, 1), src_id]
        elif kind == "RESHAPE":
            elem = src_elem
            operands = [src_id, m.c_tensor("i32", shape)]
        else:
            raise ValueError("spirvwrite: unsupported op %r" % kind)
        rtype = m.t_tensor(elem, shape)
        result = m.new_id()
        body.append((rtype, result, OPCODES[kind], operands))
        prev = (result, elem, shape)
        values[op.get("name", "op%d" % i)] = prev
        ops_out.append((result, kind))

    out_id, out_elem, out_shape = prev
    out_type = m.t_tensor(out_elem, out_shape)
    for var, t in ((var_in, in_type), (var_out, out_type)):
        ptr = m.cached(("ptr", t), lambda t=t: _pointer(m, t))
        m.inst(m.globals, OP_VARIABLE, ptr, var, 0)
    graph_type = m.new_id()
    m.inst(m.globals, OP_TYPE_GRAPH, graph_type, 1, in_type, out_type)
    index0 = m.c_int(32, 0)

    m.inst(m.body, OP_GRAPH, graph_type, graph_id)
    m.inst(m.body, OP_GRAPH_INPUT, in_type, input_value, index0)
    for rtype, result, opcode, operands in body:
        m.inst(m.body, OP_EXT_INST, rtype, result, tosa, opcode, *operands)
    m.inst(m.body, OP_GRAPH_SET_OUTPUT, out_id, index0)
    m.inst(m.body, OP_GRAPH_END)
    facts = {"ops": ops_out, "constants": constants, "input": (list(inp["shape"]), in_elem),
             "output": (list(out_shape), out_elem)}
    return m.words(), facts


def _pointer(m, t):
    r = m.new_id()
    m.inst(m.globals, OP_TYPE_POINTER, r, 0, t)
    return r


def graph_vgf(desc):
    """vgfwrite description of a one-segment VGF holding graph_module(desc)."""
    words, facts = graph_module(desc)
    name = desc.get("name", "graph_partition_0")
    resources, constants = [], []
    for c, (shape, elem) in enumerate(facts["constants"]):
        resources.append({"category": "constant", "vk_descriptor_type": DESCRIPTOR_NONE,
                          "vk_format": VK_FORMAT[elem], "shape": shape})
        size = _numel(shape) * (int(elem[1:]) // 8)
        constants.append({"mrt_index": c, "data": bytes((c * 31 + k * 7) % 251 for k in range(size))})
    in_mrt = len(resources)
    out_mrt = in_mrt + 1
    for cat, (shape, elem) in (("input", facts["input"]), ("output", facts["output"])):
        resources.append({"category": cat, "vk_descriptor_type": DESCRIPTOR_TENSOR_ARM,
                          "vk_format": VK_FORMAT[elem], "shape": shape})
    return {
        "version": desc.get("version", [0, 4, 3]),
        "modules": [{"type": "graph", "name": name, "entry_point": name, "words": words}],
        "segments": [{"type": "graph", "name": desc.get("segment_name", "graph_segment_0"),
                      "module_index": 0,
                      "set_infos": [{"bindings": [[0, in_mrt], [1, out_mrt]], "set_index": 0}],
                      "inputs": [[0, in_mrt]], "outputs": [[1, out_mrt]],
                      "constants": list(range(len(constants))), "dispatch_shape": [0, 0, 0],
                      "push_constant_ranges": []}],
        "inputs": [[0, in_mrt]], "outputs": [[1, out_mrt]],
        "input_names": [desc.get("input", {}).get("name", "input")],
        "output_names": [desc.get("output_name", "output")],
        "resources": resources,
        "constants": constants,
    }
