/*
 * tosa.h - the TOSA.001000.1 extended instruction set as seen from SPIR-V.
 *
 * A TOSA operation in a SPIR-V graph is an OpExtInst whose operands are all
 * ids: first the attributes ("A" operands, constants), then the tensors ("T").
 * This table (docs/formats/spirv-tosa.md §7) gives, per opcode 0..65, the TOSA name, the MLIR op
 * name that Model Explorer shows, and per operand its name and how its
 * constant value is meant to be read (list, enum, bool, scalar, tensor).
 * Everything here is static read-only data; nothing is allocated.
 */
#ifndef MLIA_FORMATS_TOSA_H
#define MLIA_FORMATS_TOSA_H

#include <stdbool.h>
#include <stdint.h>

#define TOSA_SET_NAME "TOSA.001000.1"
#define TOSA_OPCODE_MAX 65

typedef enum tosa_operand_kind {
    TOSA_TENSOR = 0,       /* T operand: a tensor value */
    TOSA_ATTR_LIST,        /* rank-1 i32 tensor constant (kernel, stride, pad...) */
    TOSA_ATTR_BOOL,        /* OpConstantTrue/False */
    TOSA_ATTR_SCALAR,      /* i32 OpConstant shown as a number (axis) */
    TOSA_ATTR_ELEM_SCALAR, /* scalar of the tensor element type (CLAMP min/max) */
    TOSA_ATTR_ACC_TYPE,    /* enum, 1-based: INT32 FP16 FP32 INT48 */
    TOSA_ATTR_ROUNDING,    /* enum: SINGLE_ROUND INEXACT_ROUND DOUBLE_ROUND */
    TOSA_ATTR_NAN_MODE,    /* enum: PROPAGATE IGNORE */
    TOSA_ATTR_RESIZE_MODE  /* enum: NEAREST_NEIGHBOR BILINEAR */
} tosa_operand_kind;

typedef struct tosa_operand_desc {
    const char *name;
    uint8_t kind; /* tosa_operand_kind */
} tosa_operand_desc;

typedef struct tosa_op_desc {
    uint32_t opcode;
    const char *name;        /* "CONV2D" */
    const char *mlir_name;   /* "Conv2D" */
    uint8_t n_attrs;         /* leading A operands */
    uint8_t n_operands;      /* A + T operands (for CONCAT: A + the first variadic slot) */
    bool variadic;           /* CONCAT: the last operand repeats 0..n times */
    const tosa_operand_desc *operands;
} tosa_op_desc;

/* Descriptor of a TOSA opcode, or NULL when opcode > 65. Static storage. */
const tosa_op_desc *tosa_op(uint32_t opcode);

/* Name of operand `index` of an operation with `n_operands` actual operands
 * (handles CONCAT's variadic tail). NULL when the op has no such operand. */
const tosa_operand_desc *tosa_operand(const tosa_op_desc *op, uint32_t index);

/* Name of a 1-based enum value of the given kind; NULL when 0 or out of
 * range (callers print the raw value then). Static storage. */
const char *tosa_enum_name(tosa_operand_kind kind, int64_t value);

/* True for the enum kinds above. */
bool tosa_kind_is_enum(tosa_operand_kind kind);

#endif
