/*
 * spirv.h - SPIR-V module reader for VGF graph modules
 * (docs/formats/spirv-tosa.md §1-6, §8).
 *
 * The reader walks the instruction stream once, checking every word count
 * against the module length, every result id against the id bound and every
 * string's NUL against its instruction, and records for each id what defined
 * it. Names, decorations and entry points may refer forward; they are
 * recorded during the walk and resolved afterwards. A second walk splits the
 * module into graphs (OpGraphARM ... OpGraphEndARM) and classifies every
 * operand of every graph operation (§5): graph input, op result, graph
 * constant, module constant or unresolved.
 *
 * Constants are decoded lazily (spv_const_decode): tensor constants are
 * flattened into row-major values, sign-extended by element width. Decoding
 * is bounded by a depth limit and a value budget, so a replicate-of-replicate
 * or a null tensor with huge dims cannot explode.
 *
 * Ownership: spv_read copies the words into the arena (the VGF blob may be
 * misaligned) and every object of the returned module lives in that arena.
 */
#ifndef MLIA_FORMATS_SPIRV_H
#define MLIA_FORMATS_SPIRV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"

#define SPV_MAGIC 0x07230203u

/* Opcodes used by the reader. */
enum {
    SPV_OP_NAME = 5, SPV_OP_STRING = 7, SPV_OP_EXTENSION = 10, SPV_OP_EXT_INST_IMPORT = 11,
    SPV_OP_EXT_INST = 12, SPV_OP_MEMORY_MODEL = 14, SPV_OP_ENTRY_POINT = 15,
    SPV_OP_CAPABILITY = 17, SPV_OP_TYPE_VOID = 19, SPV_OP_TYPE_BOOL = 20, SPV_OP_TYPE_INT = 21,
    SPV_OP_TYPE_FLOAT = 22, SPV_OP_TYPE_ARRAY = 28, SPV_OP_TYPE_STRUCT = 30,
    SPV_OP_TYPE_POINTER = 32, SPV_OP_CONSTANT_TRUE = 41, SPV_OP_CONSTANT_FALSE = 42,
    SPV_OP_CONSTANT = 43, SPV_OP_CONSTANT_COMPOSITE = 44, SPV_OP_CONSTANT_NULL = 46,
    SPV_OP_SPEC_CONSTANT_TRUE = 48, SPV_OP_SPEC_CONSTANT_FALSE = 49, SPV_OP_SPEC_CONSTANT = 50,
    SPV_OP_VARIABLE = 59, SPV_OP_DECORATE = 71, SPV_OP_COMPOSITE_EXTRACT = 81,
    SPV_OP_TYPE_TENSOR_ARM = 4163, SPV_OP_GRAPH_CONSTANT_ARM = 4181,
    SPV_OP_GRAPH_ENTRY_POINT_ARM = 4182, SPV_OP_GRAPH_ARM = 4183, SPV_OP_GRAPH_INPUT_ARM = 4184,
    SPV_OP_GRAPH_SET_OUTPUT_ARM = 4185, SPV_OP_GRAPH_END_ARM = 4186,
    SPV_OP_TYPE_GRAPH_ARM = 4190, SPV_OP_CONSTANT_COMPOSITE_REPLICATE = 4461
};

/* Extended instruction sets the reader knows by import string. */
typedef enum spv_set_kind {
    SPV_SET_UNKNOWN = 0,
    SPV_SET_TOSA,          /* "TOSA.001000.1" */
    SPV_SET_ARM_EXP_ML,    /* "Arm.ExperimentalMLOperations.1" (CALL with literal opcode) */
    SPV_SET_ARM_MOTION,    /* "Arm.MotionEngine.100" (opaque) */
    SPV_SET_DEBUG_GRAPH    /* "NonSemantic.Graph.DebugInfo.1" */
} spv_set_kind;

typedef enum spv_value_class {
    SPV_VALUE_UNRESOLVED = 0,
    SPV_VALUE_GRAPH_INPUT,     /* index = input index k (InputIndex value) */
    SPV_VALUE_OP_RESULT,       /* index = producer position in spv_graph.ops */
    SPV_VALUE_GRAPH_CONSTANT,  /* index = GraphConstantID */
    SPV_VALUE_MODULE_CONSTANT  /* OpConstant* / composite / null / replicate */
} spv_value_class;

typedef struct spv_id_info {
    uint16_t opcode;        /* defining opcode; 0 = never defined */
    uint32_t word;          /* first word of the defining instruction */
    const char *name;       /* OpName (first one), NULL if none */
    const char *debug_name; /* NonSemantic DebugOperation name (first one), NULL if none */
    int64_t binding;        /* Binding decoration, -1 if absent */
    int64_t set;            /* DescriptorSet decoration, -1 if absent */
    uint32_t graph;         /* graph values: 1 + index of the graph, else 0 */
    uint32_t pos;           /* graph input: position in inputs; op: position in ops */
} spv_id_info;

typedef struct spv_operand {
    uint32_t id;
    uint8_t cls;            /* spv_value_class */
    uint32_t index;         /* see spv_value_class */
} spv_operand;

typedef struct spv_op {
    uint32_t word;          /* first word of the instruction */
    uint16_t opcode;        /* SPV_OP_EXT_INST or SPV_OP_COMPOSITE_EXTRACT */
    uint32_t result_type;
    uint32_t result_id;
    uint32_t set_id;        /* ext inst: the import id */
    uint8_t set_kind;       /* spv_set_kind */
    uint32_t instruction;   /* ext inst number (TOSA opcode) */
    bool has_literal;       /* Arm.ExperimentalMLOperations CALL: first operand literal */
    uint32_t literal;
    uint32_t n_operands;
    spv_operand *operands;  /* ids after [type, result, set, instr (, literal)];
                               extract: one operand (the composite) */
    uint32_t n_indexes;     /* composite extract literal indexes */
    const uint32_t *indexes;
    const char *debug_name; /* DebugOperation name, NULL if none */
} spv_op;

typedef struct spv_graph_input {
    uint32_t id, type;
    uint32_t index;         /* value of the InputIndex constant */
    bool has_element;
    uint32_t element;
} spv_graph_input;

typedef struct spv_graph_output {
    spv_operand value;
    uint32_t index;         /* value of the OutputIndex constant */
    bool has_element;
    uint32_t element;
} spv_graph_output;

typedef struct spv_entry_point {
    uint32_t word;
    uint32_t graph_id;
    const char *name;
    uint32_t n_interface;
    const uint32_t *interface;  /* OpVariable ids: all inputs, then all outputs */
} spv_entry_point;

typedef struct spv_graph {
    uint32_t id, type_id;
    uint32_t num_inputs;        /* OpTypeGraphARM NumInputs */
    uint32_t n_io_types;
    const uint32_t *io_types;   /* inputs then outputs */
    const spv_entry_point *entry; /* NULL when no OpGraphEntryPointARM names it */
    uint32_t n_inputs, n_ops, n_outputs;
    spv_graph_input *inputs;
    spv_op *ops;                /* OpExtInst (non-debug) and OpCompositeExtract, in order */
    spv_graph_output *outputs;
} spv_graph;

typedef struct spv_graph_constant {
    uint32_t id, type, constant_id;
} spv_graph_constant;

typedef struct spv_import {
    uint32_t id;
    const char *name;
    uint8_t kind;               /* spv_set_kind */
} spv_import;

typedef struct spv_module {
    const uint32_t *words;      /* arena copy, 4-aligned */
    size_t n_words;
    uint64_t file_offset;       /* of word 0 in the file, for messages */
    uint32_t version, generator, bound;
    uint32_t n_insts;
    const uint32_t *inst_words; /* first word of each instruction */
    spv_id_info *ids;           /* [bound] */
    uint32_t n_imports;
    spv_import *imports;
    uint32_t n_entry_points;
    spv_entry_point *entry_points;
    uint32_t n_graphs;
    spv_graph *graphs;
    uint32_t n_graph_constants;
    spv_graph_constant *graph_constants; /* module order */
    uint32_t n_warnings;
    const char **warnings;
} spv_module;

/* Parse `n_words` little-endian words at `bytes` (any alignment). `file` and
 * `file_offset` (of word 0) only serve messages; `context` (e.g. "module 0")
 * is added to each message. The caller must have checked the magic and
 * n_words >= 5 (docs/formats/vgf.md §4 placeholder rule); spv_read checks again.
 * Errors: "<file>: SPIR-V <what> (<context>, byte <n>)". */
int spv_read(const uint8_t *bytes, size_t n_words, uint64_t file_offset, const char *file,
             const char *context, mlia_arena *arena, spv_module **out, mlia_error *err);

/* Instruction helpers. */
static inline uint16_t spv_inst_opcode(const spv_module *m, uint32_t word)
{
    return (uint16_t)(m->words[word] & 0xFFFFu);
}
static inline uint16_t spv_inst_count(const spv_module *m, uint32_t word)
{
    return (uint16_t)(m->words[word] >> 16);
}
/* Number of instructions with this opcode. */
uint32_t spv_count_opcode(const spv_module *m, uint16_t opcode);
/* Defining opcode of an id (0 for undefined or out-of-range ids). */
uint16_t spv_id_opcode(const spv_module *m, uint32_t id);
/* Set kind of an import id. */
spv_set_kind spv_set_kind_of(const spv_module *m, uint32_t set_id);
/* Import id of the set with this kind, 0 if not imported. */
uint32_t spv_find_set(const spv_module *m, spv_set_kind kind);

/* ---- types ---- */
typedef enum spv_type_kind {
    SPV_TYPE_OTHER = 0, SPV_TYPE_BOOL, SPV_TYPE_INT, SPV_TYPE_FLOAT,
    SPV_TYPE_ARRAY, SPV_TYPE_TENSOR, SPV_TYPE_STRUCT
} spv_type_kind;

#define SPV_MAX_RANK 16

typedef struct spv_type {
    uint8_t kind;           /* spv_type_kind */
    uint32_t width;         /* scalars and element of arrays/tensors */
    uint32_t encoding;      /* float: FP encoding, 0xFFFFFFFF when absent */
    uint8_t elem_kind;      /* element kind for arrays/tensors */
    bool ranked, shaped;    /* tensors */
    uint32_t rank;
    uint64_t dims[SPV_MAX_RANK]; /* tensors: shape; arrays: dims[0] = length */
} spv_type;

/* Describe a type id. Returns -1 (no message) when the id is not a
 * supported type or its rank/shape/length constants cannot be read. */
int spv_type_of(const spv_module *m, uint32_t type_id, spv_type *out);
/* Textual type: "!spirv.arm.tensor<1x64x64x8xi32>", "i32", "i1", "f32",
 * "bf16"; "?" for unknown. Appends to b. */
void spv_type_text(const spv_module *m, uint32_t type_id, mlia_buf *b);
/* Element type text only ("i8"). */
void spv_elem_text(const spv_type *t, mlia_buf *b);
/* Result type id of a value (0 if none). */
uint32_t spv_value_type(const spv_module *m, uint32_t id);

/* ---- constants ---- */
#define SPV_CONST_MAX_VALUES (1u << 20)

typedef struct spv_const {
    uint16_t opcode;        /* defining opcode */
    spv_type type;          /* the constant's type */
    uint8_t elem_kind;      /* SPV_TYPE_BOOL / INT / FLOAT */
    uint32_t elem_width;
    uint64_t count;         /* number of scalar values the constant holds */
    uint64_t n_values;      /* values decoded (== count unless truncated) */
    int64_t *values;        /* ints sign-extended by width; bools 0/1; floats raw bits */
    bool truncated;
} spv_const;

/* Decode a module constant (scalar, composite, null, replicate; spec
 * constants by their default). max_values bounds the decoded values (0 means
 * SPV_CONST_MAX_VALUES). Returns -1 (no message) if id is not a decodable
 * constant. Values are allocated in arena. */
int spv_const_decode(const spv_module *m, uint32_t id, mlia_arena *arena, uint64_t max_values,
                     spv_const *out);
/* Scalar integer value of a constant (for InputIndex, rank, ...). */
int spv_const_u32(const spv_module *m, uint32_t id, uint32_t *out);
/* Format one decoded value (ints decimal, bools true/false, floats shortest). */
void spv_value_text(const spv_const *c, uint64_t i, mlia_buf *b);
/* Whether a module constant is OpConstantNull, composite, replicate, scalar
 * or bool: a short kind word ("null", "composite", "replicate", "scalar",
 * "bool"), NULL for non-constants. */
const char *spv_const_kind(const spv_module *m, uint32_t id);

#endif
