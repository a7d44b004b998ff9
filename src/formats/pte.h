/*
 * pte.h - ExecuTorch program (.pte) and BundledProgram (.bpte/.bp) readers
 * (docs/formats/pte.md; § numbers below are its sections), plus file-kind
 * detection (docs/formats/README.md).
 *
 * A PTE is a FlatBuffer (identifier "ET12") optionally carrying an extended
 * header ("eh00" at byte 8) that locates segment data appended after the
 * FlatBuffer. pte_read validates the header (§2), decodes every execution
 * plan (values with their kinds, tensors, chains and instructions, operator
 * and delegate tables), the program-level tables (segments, constant
 * segment, deprecated constant buffers, inline delegate data, mutable data
 * segments, named data), resolves each delegate's blob and each constant
 * tensor's bytes, and checks every cross-reference index of §4.
 *
 * A BundledProgram (identifier "BP08") embeds a complete PTE in its
 * `program` byte vector; that PTE is decoded with the same code, its offsets
 * relative to the vector's first byte, while error messages and the
 * `offset` fields below are file offsets of the outer file.
 *
 * Ownership: every structure belongs to the arena passed in; mlia_str,
 * blob and data pointers point into the caller's bytes, which must outlive
 * the result.
 */
#ifndef MLIA_FORMATS_PTE_H
#define MLIA_FORMATS_PTE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"
#include "formats/schema_bundled_program.h"
#include "formats/schema_program.h"

/* ---- ScalarType (§1; shared with ETDump and BundledProgram) ---- */

/* Name ("FLOAT") or NULL when the value is not a known ScalarType. */
const char *et_scalar_type_name(int scalar_type);
/* Element size in bytes, 0 when unknown. */
unsigned et_scalar_type_size(int scalar_type);

/* ---- file kinds (docs/formats/README.md) ---- */

/* "etdump", "pte", "bundled_program", "etrecord" (ZIP local header at 0),
 * "vgf" ("VGF1" or the deprecated magic C3 D2 E1 F0 at 0), or NULL. */
const char *pte_file_kind(const uint8_t *data, size_t size);

/* ---- PTE ---- */

typedef enum {
    PTE_VALUE_NONE = PROGRAM_KERNEL_TYPES_NONE,
    PTE_VALUE_NULL = PROGRAM_KERNEL_TYPES_NULL,
    PTE_VALUE_INT = PROGRAM_KERNEL_TYPES_INT,
    PTE_VALUE_BOOL = PROGRAM_KERNEL_TYPES_BOOL,
    PTE_VALUE_DOUBLE = PROGRAM_KERNEL_TYPES_DOUBLE,
    PTE_VALUE_TENSOR = PROGRAM_KERNEL_TYPES_TENSOR,
    PTE_VALUE_STRING = PROGRAM_KERNEL_TYPES_STRING,
    PTE_VALUE_INT_LIST = PROGRAM_KERNEL_TYPES_INT_LIST,
    PTE_VALUE_DOUBLE_LIST = PROGRAM_KERNEL_TYPES_DOUBLE_LIST,
    PTE_VALUE_BOOL_LIST = PROGRAM_KERNEL_TYPES_BOOL_LIST,
    PTE_VALUE_TENSOR_LIST = PROGRAM_KERNEL_TYPES_TENSOR_LIST,
    PTE_VALUE_OPTIONAL_TENSOR_LIST = PROGRAM_KERNEL_TYPES_OPTIONAL_TENSOR_LIST
} pte_value_kind;
#define PTE_VALUE_KIND_COUNT (PTE_VALUE_OPTIONAL_TENSOR_LIST + 1)
/* KernelTypes member name ("Tensor", "IntList"...) or NULL when unknown. */
const char *pte_value_kind_name(int kind);

typedef enum {
    PTE_INSTR_NONE = PROGRAM_INSTRUCTION_ARGUMENTS_NONE,
    PTE_INSTR_KERNEL = PROGRAM_INSTRUCTION_ARGUMENTS_KERNEL_CALL,
    PTE_INSTR_DELEGATE = PROGRAM_INSTRUCTION_ARGUMENTS_DELEGATE_CALL,
    PTE_INSTR_MOVE = PROGRAM_INSTRUCTION_ARGUMENTS_MOVE_CALL,
    PTE_INSTR_JUMP_FALSE = PROGRAM_INSTRUCTION_ARGUMENTS_JUMP_FALSE_CALL,
    PTE_INSTR_FREE = PROGRAM_INSTRUCTION_ARGUMENTS_FREE_CALL
} pte_instr_kind;
/* "none", "kernel", "delegate", "move", "jump_false", "free", NULL when unknown. */
const char *pte_instr_kind_name(int kind);

typedef struct pte_tensor {
    uint8_t scalar_type;           /* raw ScalarType */
    int8_t layout;
    uint8_t shape_dynamism;        /* STATIC 0, DYNAMIC_BOUND 1, DYNAMIC_UNBOUND 2 */
    bool requires_grad;
    int32_t storage_offset;
    uint32_t n_sizes;
    int32_t *sizes;
    uint32_t n_dim_order;
    const uint8_t *dim_order;      /* in place */
    uint32_t data_buffer_idx;      /* 0 = no serialized data */
    bool has_allocation;           /* allocation_info present (memory planned) */
    uint32_t memory_id;            /* 1-based arena index into non_const_buffer_sizes */
    uint64_t memory_offset;        /* high << 32 | low */
    uint64_t allocation_offset;    /* file offset of the allocation_info table (diagnostics), 0 when absent */
    bool has_extra;                /* extra_tensor_info present */
    uint64_t mutable_data_segments_idx;
    mlia_str fully_qualified_name;
    uint8_t extra_location;        /* SEGMENT 0, EXTERNAL 1 */
    uint64_t nbytes;               /* Π sizes × element size (0 if unknown type) */
    /* constant data (data_buffer_idx > 0 and no allocation_info) */
    bool is_constant;
    const uint8_t *data;           /* resolved bytes, NULL when not resolvable in this file */
    uint64_t data_offset;          /* file offset of data */
    uint64_t data_size;            /* bytes available for the tensor (= nbytes when resolved) */
} pte_tensor;

typedef struct pte_value {
    uint8_t kind;                  /* pte_value_kind, raw when unknown */
    bool bool_val;
    int64_t int_val;
    double double_val;
    mlia_str string_val;
    uint32_t n_items;              /* IntList, BoolList, TensorList, OptionalTensorList, DoubleList */
    int64_t *items;                /* IntList values, BoolList 0/1, (Optional)TensorList indexes */
    double *double_items;          /* DoubleList */
    pte_tensor tensor;             /* kind == PTE_VALUE_TENSOR */
} pte_value;

typedef struct pte_instruction {
    uint8_t kind;                  /* pte_instr_kind, raw when unknown */
    int32_t op_index;              /* KernelCall */
    int32_t delegate_index;        /* DelegateCall */
    uint32_t n_args;
    int32_t *args;
    int32_t a, b;                  /* move: from, to; jump_false: cond value, destination; free: value */
} pte_instruction;

typedef struct pte_frame {
    mlia_str filename, name, context;
    int32_t lineno;
} pte_frame;

typedef struct pte_frame_list {
    uint32_t n_frames;
    pte_frame *frames;
} pte_frame_list;

typedef struct pte_chain {
    uint32_t n_inputs;
    int32_t *inputs;
    uint32_t n_outputs;
    int32_t *outputs;
    uint32_t n_instructions;
    pte_instruction *instructions;
    bool has_stacktrace;
    uint32_t n_stacktrace;
    pte_frame_list *stacktrace;
} pte_chain;

typedef struct pte_operator {
    mlia_str name, overload;
} pte_operator;

typedef struct pte_compile_spec {
    mlia_str key;
    const uint8_t *value;
    uint32_t value_size;
} pte_compile_spec;

typedef struct pte_delegate {
    mlia_str id;                   /* backend id, e.g. "VgfBackend" */
    uint8_t location;              /* 0 inline, 1 segment */
    uint32_t index;                /* into backend_delegate_data or segments */
    uint64_t offset;               /* file offset of blob */
    uint64_t size;
    const uint8_t *blob;
    uint32_t n_compile_specs;
    pte_compile_spec *compile_specs;
} pte_delegate;

typedef struct pte_buffer_device {
    int32_t buffer_idx;
    uint8_t device_type;
    int8_t device_index;
} pte_buffer_device;

typedef struct pte_plan {
    mlia_str name;
    bool has_container_meta;
    mlia_str encoded_inp_str, encoded_out_str;
    uint32_t n_values;
    pte_value *values;
    uint32_t value_counts[PTE_VALUE_KIND_COUNT]; /* per kind; unknown kinds in n_unknown_values */
    uint32_t n_unknown_values;
    uint32_t n_inputs;
    int32_t *inputs;
    uint32_t n_outputs;
    int32_t *outputs;
    uint32_t n_chains;
    pte_chain *chains;
    uint32_t n_operators;
    pte_operator *operators;
    uint32_t n_delegates;
    pte_delegate *delegates;
    uint32_t n_non_const_buffer_sizes;
    int64_t *non_const_buffer_sizes;
    uint64_t non_const_buffer_sizes_offset; /* file offset of the vector's first entry (diagnostics) */
    uint32_t n_non_const_buffer_device;
    pte_buffer_device *non_const_buffer_device;
} pte_plan;

typedef struct pte_segment {
    uint64_t offset, size;         /* offset relative to segment_base_offset */
    uint64_t file_offset;          /* absolute, valid when in_file */
    bool in_file;                  /* base != 0 and the bytes lie inside the file */
} pte_segment;

typedef struct pte_blob {
    const uint8_t *data;
    uint64_t size;
    uint64_t file_offset;
} pte_blob;

typedef struct pte_subsegment {
    uint32_t segment_index;
    uint32_t n_offsets;
    uint64_t *offsets;
} pte_subsegment;

typedef struct pte_named_data {
    mlia_str key;
    uint32_t segment_index;
} pte_named_data;

typedef struct pte_program {
    bool has_extended_header;
    uint32_t header_length;
    uint64_t program_size, segment_base_offset, segment_data_size;
    uint32_t version;
    uint32_t n_plans;
    pte_plan *plans;
    bool segments_present;         /* `segments` vector present (possibly empty) */
    uint32_t n_segments;
    pte_segment *segments;
    bool has_constant_segment;
    pte_subsegment constant_segment;
    bool constant_buffer_present;
    uint32_t n_constant_buffers;   /* deprecated constant_buffer */
    pte_blob *constant_buffers;
    uint32_t n_inline_delegates;   /* backend_delegate_data */
    pte_blob *inline_delegates;
    uint32_t n_mutable_data_segments;
    pte_subsegment *mutable_data_segments;
    uint32_t n_named_data;
    pte_named_data *named_data;
    uint64_t file_size;            /* bytes of the PTE itself */
    uint64_t file_offset;          /* offset of the PTE inside the outer file (BundledProgram) */
} pte_program;

/* Decode a PTE held in data[0, size). Errors: "<file>: <what> at byte <N>
 * (<field path>)" or "<file>: <what>" for header problems. */
int pte_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, pte_program **out,
             mlia_error *err);
/* Same for a PTE embedded at file offset file_offset of a larger file (used
 * by the BundledProgram reader); every offset in messages and results is a
 * file offset. */
int pte_read_at(const uint8_t *data, size_t size, const char *file, uint64_t file_offset, mlia_arena *arena,
                pte_program **out, mlia_error *err);
/* "<name>.<overload>" (no dot when the overload is empty), arena copy. */
char *pte_operator_display(const pte_operator *op, mlia_arena *arena);

/* ---- BundledProgram (§5) ---- */

typedef enum {
    BP_VALUE_NONE = BUNDLED_PROGRAM_VALUE_UNION_NONE,
    BP_VALUE_TENSOR = BUNDLED_PROGRAM_VALUE_UNION_TENSOR,
    BP_VALUE_INT = BUNDLED_PROGRAM_VALUE_UNION_INT,
    BP_VALUE_BOOL = BUNDLED_PROGRAM_VALUE_UNION_BOOL,
    BP_VALUE_DOUBLE = BUNDLED_PROGRAM_VALUE_UNION_DOUBLE
} bp_value_kind;

typedef struct bp_value {
    uint8_t kind;                  /* bp_value_kind, raw when unknown */
    bool bool_val;
    int64_t int_val;
    double double_val;
    uint8_t scalar_type;           /* Tensor */
    uint32_t n_sizes;
    int32_t *sizes;
    const uint8_t *data;           /* in place */
    uint32_t data_size;
    uint64_t data_offset;          /* file offset of data */
    uint32_t n_dim_order;
    const uint8_t *dim_order;
} bp_value;

typedef struct bp_test_case {
    uint32_t n_inputs;
    bp_value *inputs;
    uint32_t n_expected_outputs;
    bp_value *expected_outputs;
} bp_test_case;

typedef struct bp_method_test_suite {
    mlia_str method_name;
    uint32_t n_test_cases;
    bp_test_case *test_cases;
} bp_method_test_suite;

typedef struct bundled_program {
    uint32_t version;
    uint32_t n_method_test_suites;
    bp_method_test_suite *method_test_suites;
    const uint8_t *program_data;   /* embedded PTE bytes, in place */
    uint64_t program_size;
    uint64_t program_offset;       /* file offset of the embedded PTE */
    pte_program *program;          /* decoded embedded PTE */
} bundled_program;

int bundled_program_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena,
                         bundled_program **out, mlia_error *err);

#endif
