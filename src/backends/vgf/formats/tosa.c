/*
 * tosa.c - static tables of the TOSA.001000.1 instruction set (see tosa.h).
 *
 * One operand list per opcode (opcodes with the same list share it), in
 * grammar order (attributes first, then tensors), as listed in
 * docs/formats/spirv-tosa.md §7. The MLIR names follow
 * its rule (words capitalised, 2D/3D kept upper-case) with its five exceptions
 * written out literally.
 */
#include "backends/vgf/formats/tosa.h"

#include <stddef.h>

/* argmax, reduce_max, reduce_min */
static const tosa_operand_desc ops_axis_nan_mode_input[] = {{"axis", TOSA_ATTR_SCALAR}, {"nan_mode", TOSA_ATTR_NAN_MODE}, {"input", TOSA_TENSOR}};
static const tosa_operand_desc ops_avg_pool2d[] = {{"kernel", TOSA_ATTR_LIST}, {"stride", TOSA_ATTR_LIST}, {"pad", TOSA_ATTR_LIST}, {"acc_type", TOSA_ATTR_ACC_TYPE}, {"input", TOSA_TENSOR}, {"input_zp", TOSA_TENSOR}, {"output_zp", TOSA_TENSOR}};
/* conv2d, conv3d, depthwise_conv2d */
static const tosa_operand_desc ops_conv[] = {{"pad", TOSA_ATTR_LIST}, {"stride", TOSA_ATTR_LIST}, {"dilation", TOSA_ATTR_LIST}, {"acc_type", TOSA_ATTR_ACC_TYPE}, {"local_bound", TOSA_ATTR_BOOL}, {"input", TOSA_TENSOR}, {"weight", TOSA_TENSOR}, {"bias", TOSA_TENSOR}, {"input_zp", TOSA_TENSOR}, {"weight_zp", TOSA_TENSOR}};
static const tosa_operand_desc ops_fft2d[] = {{"inverse", TOSA_ATTR_BOOL}, {"local_bound", TOSA_ATTR_BOOL}, {"input_real", TOSA_TENSOR}, {"input_imag", TOSA_TENSOR}};
static const tosa_operand_desc ops_matmul[] = {{"A", TOSA_TENSOR}, {"B", TOSA_TENSOR}, {"A_zp", TOSA_TENSOR}, {"B_zp", TOSA_TENSOR}};
static const tosa_operand_desc ops_max_pool2d[] = {{"kernel", TOSA_ATTR_LIST}, {"stride", TOSA_ATTR_LIST}, {"pad", TOSA_ATTR_LIST}, {"nan_mode", TOSA_ATTR_NAN_MODE}, {"input", TOSA_TENSOR}};
static const tosa_operand_desc ops_rfft2d[] = {{"local_bound", TOSA_ATTR_BOOL}, {"input_real", TOSA_TENSOR}};
static const tosa_operand_desc ops_transpose_conv2d[] = {{"out_pad", TOSA_ATTR_LIST}, {"stride", TOSA_ATTR_LIST}, {"acc_type", TOSA_ATTR_ACC_TYPE}, {"local_bound", TOSA_ATTR_BOOL}, {"input", TOSA_TENSOR}, {"weight", TOSA_TENSOR}, {"bias", TOSA_TENSOR}, {"input_zp", TOSA_TENSOR}, {"weight_zp", TOSA_TENSOR}};
static const tosa_operand_desc ops_clamp[] = {{"min_val", TOSA_ATTR_ELEM_SCALAR}, {"max_val", TOSA_ATTR_ELEM_SCALAR}, {"nan_mode", TOSA_ATTR_NAN_MODE}, {"input", TOSA_TENSOR}};
/* erf, sigmoid, tanh, cast */
static const tosa_operand_desc ops_input[] = {{"input", TOSA_TENSOR}};
/* add, bitwise_and, bitwise_or, bitwise_xor, intdiv, logical_and, logical_left_shift, logical_right_shift, logical_or, logical_xor, pow, sub, equal, greater, greater_equal */
static const tosa_operand_desc ops_input1_input2[] = {{"input1", TOSA_TENSOR}, {"input2", TOSA_TENSOR}};
static const tosa_operand_desc ops_arithmetic_right_shift[] = {{"round", TOSA_ATTR_BOOL}, {"input1", TOSA_TENSOR}, {"input2", TOSA_TENSOR}};
/* maximum, minimum */
static const tosa_operand_desc ops_nan_mode_input1_input2[] = {{"nan_mode", TOSA_ATTR_NAN_MODE}, {"input1", TOSA_TENSOR}, {"input2", TOSA_TENSOR}};
static const tosa_operand_desc ops_mul[] = {{"input1", TOSA_TENSOR}, {"input2", TOSA_TENSOR}, {"shift", TOSA_TENSOR}};
static const tosa_operand_desc ops_table[] = {{"input1", TOSA_TENSOR}, {"table", TOSA_TENSOR}};
/* abs, bitwise_not, ceil, clz, cos, exp, floor, log, logical_not, reciprocal, rsqrt, sin */
static const tosa_operand_desc ops_input1[] = {{"input1", TOSA_TENSOR}};
static const tosa_operand_desc ops_negate[] = {{"input1", TOSA_TENSOR}, {"input1_zp", TOSA_TENSOR}, {"output_zp", TOSA_TENSOR}};
static const tosa_operand_desc ops_select[] = {{"input1", TOSA_TENSOR}, {"input2", TOSA_TENSOR}, {"input3", TOSA_TENSOR}};
/* reduce_all, reduce_any, reduce_product, reduce_sum */
static const tosa_operand_desc ops_axis_input[] = {{"axis", TOSA_ATTR_SCALAR}, {"input", TOSA_TENSOR}};
/* concat, reverse */
static const tosa_operand_desc ops_axis_input1[] = {{"axis", TOSA_ATTR_SCALAR}, {"input1", TOSA_TENSOR}};
static const tosa_operand_desc ops_pad[] = {{"input1", TOSA_TENSOR}, {"padding", TOSA_TENSOR}, {"pad_const", TOSA_TENSOR}};
static const tosa_operand_desc ops_reshape[] = {{"input1", TOSA_TENSOR}, {"shape", TOSA_TENSOR}};
static const tosa_operand_desc ops_slice[] = {{"input1", TOSA_TENSOR}, {"start", TOSA_TENSOR}, {"size", TOSA_TENSOR}};
static const tosa_operand_desc ops_tile[] = {{"input1", TOSA_TENSOR}, {"multiples", TOSA_TENSOR}};
static const tosa_operand_desc ops_transpose[] = {{"perms", TOSA_ATTR_LIST}, {"input1", TOSA_TENSOR}};
static const tosa_operand_desc ops_gather[] = {{"values", TOSA_TENSOR}, {"indices", TOSA_TENSOR}};
static const tosa_operand_desc ops_scatter[] = {{"values_in", TOSA_TENSOR}, {"indices", TOSA_TENSOR}, {"input", TOSA_TENSOR}};
static const tosa_operand_desc ops_resize[] = {{"mode", TOSA_ATTR_RESIZE_MODE}, {"input", TOSA_TENSOR}, {"scale", TOSA_TENSOR}, {"offset", TOSA_TENSOR}, {"border", TOSA_TENSOR}};
static const tosa_operand_desc ops_rescale[] = {{"scale32", TOSA_ATTR_BOOL}, {"rounding_mode", TOSA_ATTR_ROUNDING}, {"per_channel", TOSA_ATTR_BOOL}, {"input_unsigned", TOSA_ATTR_BOOL}, {"output_unsigned", TOSA_ATTR_BOOL}, {"input", TOSA_TENSOR}, {"multiplier", TOSA_TENSOR}, {"shift", TOSA_TENSOR}, {"input_zp", TOSA_TENSOR}, {"output_zp", TOSA_TENSOR}};

static const tosa_op_desc tosa_ops[TOSA_OPCODE_MAX + 1] = {
    {0, "ARGMAX", "ArgMax", 2, 3, false, ops_axis_nan_mode_input},
    {1, "AVG_POOL2D", "AvgPool2D", 4, 7, false, ops_avg_pool2d},
    {2, "CONV2D", "Conv2D", 5, 10, false, ops_conv},
    {3, "CONV3D", "Conv3D", 5, 10, false, ops_conv},
    {4, "DEPTHWISE_CONV2D", "DepthwiseConv2D", 5, 10, false, ops_conv},
    {5, "FFT2D", "FFT2D", 2, 4, false, ops_fft2d},
    {6, "MATMUL", "MatMul", 0, 4, false, ops_matmul},
    {7, "MAX_POOL2D", "MaxPool2D", 4, 5, false, ops_max_pool2d},
    {8, "RFFT2D", "RFFT2D", 1, 2, false, ops_rfft2d},
    {9, "TRANSPOSE_CONV2D", "TransposeConv2D", 4, 9, false, ops_transpose_conv2d},
    {10, "CLAMP", "Clamp", 3, 4, false, ops_clamp},
    {11, "ERF", "Erf", 0, 1, false, ops_input},
    {12, "SIGMOID", "Sigmoid", 0, 1, false, ops_input},
    {13, "TANH", "Tanh", 0, 1, false, ops_input},
    {14, "ADD", "Add", 0, 2, false, ops_input1_input2},
    {15, "ARITHMETIC_RIGHT_SHIFT", "ArithmeticRightShift", 1, 3, false, ops_arithmetic_right_shift},
    {16, "BITWISE_AND", "BitwiseAnd", 0, 2, false, ops_input1_input2},
    {17, "BITWISE_OR", "BitwiseOr", 0, 2, false, ops_input1_input2},
    {18, "BITWISE_XOR", "BitwiseXor", 0, 2, false, ops_input1_input2},
    {19, "INTDIV", "IntDiv", 0, 2, false, ops_input1_input2},
    {20, "LOGICAL_AND", "LogicalAnd", 0, 2, false, ops_input1_input2},
    {21, "LOGICAL_LEFT_SHIFT", "LogicalLeftShift", 0, 2, false, ops_input1_input2},
    {22, "LOGICAL_RIGHT_SHIFT", "LogicalRightShift", 0, 2, false, ops_input1_input2},
    {23, "LOGICAL_OR", "LogicalOr", 0, 2, false, ops_input1_input2},
    {24, "LOGICAL_XOR", "LogicalXor", 0, 2, false, ops_input1_input2},
    {25, "MAXIMUM", "Maximum", 1, 3, false, ops_nan_mode_input1_input2},
    {26, "MINIMUM", "Minimum", 1, 3, false, ops_nan_mode_input1_input2},
    {27, "MUL", "Mul", 0, 3, false, ops_mul},
    {28, "POW", "Pow", 0, 2, false, ops_input1_input2},
    {29, "SUB", "Sub", 0, 2, false, ops_input1_input2},
    {30, "TABLE", "Table", 0, 2, false, ops_table},
    {31, "ABS", "Abs", 0, 1, false, ops_input1},
    {32, "BITWISE_NOT", "BitwiseNot", 0, 1, false, ops_input1},
    {33, "CEIL", "Ceil", 0, 1, false, ops_input1},
    {34, "CLZ", "Clz", 0, 1, false, ops_input1},
    {35, "COS", "Cos", 0, 1, false, ops_input1},
    {36, "EXP", "Exp", 0, 1, false, ops_input1},
    {37, "FLOOR", "Floor", 0, 1, false, ops_input1},
    {38, "LOG", "Log", 0, 1, false, ops_input1},
    {39, "LOGICAL_NOT", "LogicalNot", 0, 1, false, ops_input1},
    {40, "NEGATE", "Negate", 0, 3, false, ops_negate},
    {41, "RECIPROCAL", "Reciprocal", 0, 1, false, ops_input1},
    {42, "RSQRT", "Rsqrt", 0, 1, false, ops_input1},
    {43, "SIN", "Sin", 0, 1, false, ops_input1},
    {44, "SELECT", "Select", 0, 3, false, ops_select},
    {45, "EQUAL", "Equal", 0, 2, false, ops_input1_input2},
    {46, "GREATER", "Greater", 0, 2, false, ops_input1_input2},
    {47, "GREATER_EQUAL", "GreaterEqual", 0, 2, false, ops_input1_input2},
    {48, "REDUCE_ALL", "ReduceAll", 1, 2, false, ops_axis_input},
    {49, "REDUCE_ANY", "ReduceAny", 1, 2, false, ops_axis_input},
    {50, "REDUCE_MAX", "ReduceMax", 2, 3, false, ops_axis_nan_mode_input},
    {51, "REDUCE_MIN", "ReduceMin", 2, 3, false, ops_axis_nan_mode_input},
    {52, "REDUCE_PRODUCT", "ReduceProduct", 1, 2, false, ops_axis_input},
    {53, "REDUCE_SUM", "ReduceSum", 1, 2, false, ops_axis_input},
    {54, "CONCAT", "Concat", 1, 2, true, ops_axis_input1},
    {55, "PAD", "Pad", 0, 3, false, ops_pad},
    {56, "RESHAPE", "Reshape", 0, 2, false, ops_reshape},
    {57, "REVERSE", "Reverse", 1, 2, false, ops_axis_input1},
    {58, "SLICE", "Slice", 0, 3, false, ops_slice},
    {59, "TILE", "Tile", 0, 2, false, ops_tile},
    {60, "TRANSPOSE", "Transpose", 1, 2, false, ops_transpose},
    {61, "GATHER", "Gather", 0, 2, false, ops_gather},
    {62, "SCATTER", "Scatter", 0, 3, false, ops_scatter},
    {63, "RESIZE", "Resize", 1, 5, false, ops_resize},
    {64, "CAST", "Cast", 0, 1, false, ops_input},
    {65, "RESCALE", "Rescale", 5, 10, false, ops_rescale},
};

const tosa_op_desc *tosa_op(uint32_t opcode)
{
    return opcode <= TOSA_OPCODE_MAX ? &tosa_ops[opcode] : NULL;
}

const tosa_operand_desc *tosa_operand(const tosa_op_desc *op, uint32_t index)
{
    if (!op)
        return NULL;
    if (index < op->n_operands)
        return &op->operands[index];
    /* CONCAT: every operand after the attributes is another input1. */
    if (op->variadic && op->n_operands > 0)
        return &op->operands[op->n_operands - 1];
    return NULL;
}

bool tosa_kind_is_enum(tosa_operand_kind kind)
{
    return kind == TOSA_ATTR_ACC_TYPE || kind == TOSA_ATTR_ROUNDING ||
           kind == TOSA_ATTR_NAN_MODE || kind == TOSA_ATTR_RESIZE_MODE;
}

const char *tosa_enum_name(tosa_operand_kind kind, int64_t value)
{
    static const char *const acc[] = {"INT32", "FP16", "FP32", "INT48"};
    static const char *const rounding[] = {"SINGLE_ROUND", "INEXACT_ROUND", "DOUBLE_ROUND"};
    static const char *const nan[] = {"PROPAGATE", "IGNORE"};
    static const char *const mode[] = {"NEAREST_NEIGHBOR", "BILINEAR"};
    const char *const *names;
    int64_t n;
    switch (kind) {
    case TOSA_ATTR_ACC_TYPE: names = acc; n = 4; break;
    case TOSA_ATTR_ROUNDING: names = rounding; n = 3; break;
    case TOSA_ATTR_NAN_MODE: names = nan; n = 2; break;
    case TOSA_ATTR_RESIZE_MODE: names = mode; n = 2; break;
    default: return NULL;
    }
    /* Enums are 1-based; 0 and out-of-range values have no name. */
    if (value < 1 || value > n)
        return NULL;
    return names[value - 1];
}
