/*
 * test_spirv.c - SPIR-V reader on hand-built modules: graph structure,
 * operand classes, debug names, constant decoding (composite, null,
 * replicate, sign extension) and every structural error with its exact
 * message.
 */
#include "test.h"

#include <stdbool.h>

#include "backends/vgf/formats/spirv.h"
#include "backends/vgf/formats/tosa.h"

typedef struct words {
    uint32_t w[256];
    size_t n;
} words;

static void emit(words *b, uint16_t op, size_t n, const uint32_t *ops)
{
    b->w[b->n++] = (uint32_t)((n + 1) << 16) | op;
    for (size_t i = 0; i < n; i++)
        b->w[b->n++] = ops[i];
}
#define EMIT(b, op, ...)                                                                   \
    do {                                                                                   \
        const uint32_t ops_[] = {__VA_ARGS__};                                             \
        emit(b, op, sizeof ops_ / sizeof ops_[0], ops_);                                   \
    } while (0)

/* Packs a string (with NUL, zero padded) after `pre` words. */
static void emit_str(words *b, uint16_t op, size_t npre, const uint32_t *pre, const char *s, size_t npost,
                     const uint32_t *post)
{
    size_t len = strlen(s) + 1, sw = (len + 3) / 4;
    b->w[b->n++] = (uint32_t)((1 + npre + sw + npost) << 16) | op;
    for (size_t i = 0; i < npre; i++)
        b->w[b->n++] = pre[i];
    memset(&b->w[b->n], 0, sw * 4);
    memcpy(&b->w[b->n], s, len - 1);
    b->n += sw;
    for (size_t i = 0; i < npost; i++)
        b->w[b->n++] = post[i];
}

/* The reference module described in the file comment of this test. */
static void build(words *b, uint32_t bound)
{
    b->n = 0;
    uint32_t hdr[5] = {SPV_MAGIC, 0x00010600, 7, bound, 0};
    for (int i = 0; i < 5; i++)
        b->w[b->n++] = hdr[i];
    uint32_t one = 1, two = 2;
    emit_str(b, SPV_OP_EXT_INST_IMPORT, 1, &one, "TOSA.001000.1", 0, NULL);
    emit_str(b, SPV_OP_EXT_INST_IMPORT, 1, &two, "NonSemantic.Graph.DebugInfo.1", 0, NULL);
    EMIT(b, SPV_OP_TYPE_INT, 3, 32, 0);
    EMIT(b, SPV_OP_TYPE_INT, 4, 8, 0);
    EMIT(b, SPV_OP_CONSTANT, 3, 5, 1);
    EMIT(b, SPV_OP_CONSTANT, 3, 6, 4);
    EMIT(b, SPV_OP_TYPE_ARRAY, 7, 3, 5);
    EMIT(b, SPV_OP_CONSTANT_COMPOSITE, 7, 8, 6);
    EMIT(b, SPV_OP_TYPE_TENSOR_ARM, 9, 4, 5, 8);
    EMIT(b, SPV_OP_CONSTANT, 3, 10, 0);
    EMIT(b, SPV_OP_TYPE_GRAPH_ARM, 11, 1, 9, 9);
    EMIT(b, SPV_OP_TYPE_VOID, 12);
    uint32_t thirteen = 13;
    emit_str(b, SPV_OP_STRING, 1, &thirteen, "my_abs", 0, NULL);
    EMIT(b, SPV_OP_CONSTANT, 4, 19, 186);
    EMIT(b, SPV_OP_CONSTANT_NULL, 9, 22);
    EMIT(b, SPV_OP_CONSTANT_COMPOSITE_REPLICATE, 9, 23, 19);
    EMIT(b, SPV_OP_CONSTANT_COMPOSITE, 9, 24, 19, 19, 19, 19);
    EMIT(b, SPV_OP_GRAPH_CONSTANT_ARM, 9, 25, 3);
    EMIT(b, SPV_OP_DECORATE, 20, 33, 0);
    EMIT(b, SPV_OP_DECORATE, 20, 34, 0);
    uint32_t fourteen = 14, iface[2] = {20, 21};
    emit_str(b, SPV_OP_GRAPH_ENTRY_POINT_ARM, 1, &fourteen, "g", 2, iface);
    EMIT(b, SPV_OP_GRAPH_ARM, 11, 14);
    EMIT(b, SPV_OP_GRAPH_INPUT_ARM, 9, 15, 10);
    EMIT(b, SPV_OP_EXT_INST, 9, 16, 1, 31, 15);          /* ABS(input 0) */
    EMIT(b, SPV_OP_EXT_INST, 9, 26, 1, 14, 16, 25);      /* ADD(%16, graph constant 3) */
    EMIT(b, SPV_OP_EXT_INST, 12, 17, 2, 1, 14, 13);      /* DebugGraph */
    EMIT(b, SPV_OP_EXT_INST, 12, 18, 2, 2, 17, 13, 16, 13); /* DebugOperation "my_abs" -> %16 (and the string, skipped) */
    EMIT(b, SPV_OP_GRAPH_SET_OUTPUT_ARM, 26, 10);
    EMIT(b, SPV_OP_GRAPH_END_ARM);
}

static int parse(words *b, mlia_arena *a, spv_module **m, mlia_error *err)
{
    mlia_error_clear(err);
    return spv_read((const uint8_t *)b->w, b->n, 1000, "t.vgf", "module 0", a, m, err);
}

TEST(reads_graph_ops_and_debug_names)
{
    words b;
    build(&b, 40);
    mlia_arena a;
    mlia_arena_init(&a);
    spv_module *m;
    mlia_error err;
    int rc = parse(&b, &a, &m, &err);
    if (rc) printf("%s\n", err.text);
    CHECK_INT(rc, 0);
    CHECK_UINT(m->version, 0x00010600);
    CHECK_UINT(m->bound, 40);
    CHECK_INT(m->n_imports, 2);
    CHECK_INT(spv_find_set(m, SPV_SET_TOSA), 1);
    CHECK_INT(spv_find_set(m, SPV_SET_DEBUG_GRAPH), 2);
    CHECK_INT(m->n_graphs, 1);
    const spv_graph *g = &m->graphs[0];
    CHECK_INT(g->id, 14);
    CHECK_INT(g->num_inputs, 1);
    CHECK(g->entry != NULL);
    CHECK_STR(g->entry->name, "g");
    CHECK_INT(g->entry->n_interface, 2);
    CHECK_INT(g->n_inputs, 1);
    CHECK_INT(g->inputs[0].index, 0);
    CHECK_INT(g->n_ops, 2); /* debug records are not operations */
    CHECK_INT(g->ops[0].instruction, 31);
    CHECK_INT(g->ops[0].operands[0].cls, SPV_VALUE_GRAPH_INPUT);
    CHECK_STR(g->ops[0].debug_name, "my_abs");
    CHECK(g->ops[1].debug_name == NULL);
    CHECK_INT(g->ops[1].operands[0].cls, SPV_VALUE_OP_RESULT);
    CHECK_INT(g->ops[1].operands[0].index, 0);
    CHECK_INT(g->ops[1].operands[1].cls, SPV_VALUE_GRAPH_CONSTANT);
    CHECK_INT(g->ops[1].operands[1].index, 3);
    CHECK_INT(g->n_outputs, 1);
    CHECK_INT(g->outputs[0].value.cls, SPV_VALUE_OP_RESULT);
    CHECK_INT(m->ids[20].binding, 0);
    CHECK_INT(m->ids[20].set, 0);
    CHECK_INT(m->n_graph_constants, 1);
    CHECK_INT(m->graph_constants[0].constant_id, 3);
    CHECK_INT(spv_count_opcode(m, SPV_OP_EXT_INST), 4);
    CHECK_INT(m->n_warnings, 0);
    mlia_buf t;
    mlia_buf_init(&t);
    spv_type_text(m, 9, &t);
    mlia_buf_putc(&t, 0);
    CHECK_STR(t.data, "!spirv.arm.tensor<4xi8>");
    t.len = 0;
    spv_type_text(m, 3, &t);
    mlia_buf_putc(&t, 0);
    CHECK_STR(t.data, "i32");
    mlia_buf_free(&t);
    mlia_arena_free(&a);
}

TEST(decodes_constants)
{
    words b;
    build(&b, 40);
    mlia_arena a;
    mlia_arena_init(&a);
    spv_module *m;
    mlia_error err;
    CHECK_INT(parse(&b, &a, &m, &err), 0);
    spv_const c;
    CHECK_INT(spv_const_decode(m, 19, &a, 0, &c), 0);
    CHECK_INT(c.n_values, 1);
    CHECK_INT(c.values[0], -70); /* i8 word 186, sign-extended */
    CHECK_INT(spv_const_decode(m, 22, &a, 0, &c), 0);
    CHECK_INT(c.n_values, 4);
    CHECK_INT(c.values[3], 0);
    CHECK_STR(spv_const_kind(m, 22), "null");
    CHECK_INT(spv_const_decode(m, 23, &a, 0, &c), 0);
    CHECK_INT(c.count, 4);
    CHECK_INT(c.values[0], -70);
    CHECK_INT(c.values[3], -70);
    CHECK_STR(spv_const_kind(m, 23), "replicate");
    CHECK_INT(spv_const_decode(m, 24, &a, 0, &c), 0);
    CHECK_INT(c.n_values, 4);
    CHECK_INT(c.values[2], -70);
    CHECK_INT(spv_const_decode(m, 8, &a, 0, &c), 0);
    CHECK_INT(c.n_values, 1);
    CHECK_INT(c.values[0], 4);
    /* value budget */
    CHECK_INT(spv_const_decode(m, 24, &a, 2, &c), 0);
    CHECK_INT(c.n_values, 2);
    CHECK(c.truncated);
    CHECK_INT(spv_const_decode(m, 9, &a, 0, &c), -1); /* a type, not a constant */
    mlia_arena_free(&a);
}

static void expect_error(words *b, const char *msg)
{
    mlia_arena a;
    mlia_arena_init(&a);
    spv_module *m;
    mlia_error err;
    int rc = parse(b, &a, &m, &err);
    mlia_arena_free(&a);
    if (rc != -1) {
        TEST_FAIL_AT("expected error \"%s\"", msg);
        return;
    }
    if (strcmp(err.text, msg) != 0)
        TEST_FAIL_AT("error \"%s\", expected \"%s\"", err.text, msg);
}

/* Word index of the n-th instruction with this opcode. */
static size_t find_inst(const words *b, uint16_t op, int nth)
{
    size_t w = 5;
    while (w < b->n) {
        if ((b->w[w] & 0xFFFF) == op && nth-- == 0)
            return w;
        w += b->w[w] >> 16;
    }
    return 0;
}

TEST(error_word_count_zero)
{
    words b;
    build(&b, 40);
    size_t w = find_inst(&b, SPV_OP_TYPE_INT, 0);
    b.w[w] = SPV_OP_TYPE_INT; /* count 0 */
    char msg[200];
    snprintf(msg, sizeof msg, "t.vgf: SPIR-V instruction with word count 0 (opcode 21) (module 0, byte %zu)", 1000 + 4 * w);
    expect_error(&b, msg);
}

TEST(error_overrun)
{
    words b;
    build(&b, 40);
    size_t w = find_inst(&b, SPV_OP_GRAPH_END_ARM, 0);
    b.w[w] = (5u << 16) | SPV_OP_GRAPH_END_ARM;
    char msg[200];
    snprintf(msg, sizeof msg,
             "t.vgf: SPIR-V instruction overruns the module (opcode 4186, word count 5, 1 words left) (module 0, byte %zu)",
             1000 + 4 * w);
    expect_error(&b, msg);
    /* A module cut at any length never crashes; a cut inside an instruction
     * or inside the graph body always fails. */
    words full;
    build(&full, 40);
    size_t graph_start = find_inst(&full, SPV_OP_GRAPH_ARM, 0);
    for (size_t n = 5; n < full.n; n++) {
        bool boundary = false;
        for (size_t q = 5; q <= n; q += full.w[q] >> 16)
            if (q == n)
                boundary = true;
        words t = full;
        t.n = n;
        mlia_arena a;
        mlia_arena_init(&a);
        spv_module *m;
        mlia_error err;
        int rc = parse(&t, &a, &m, &err);
        mlia_arena_free(&a);
        bool must_fail = !boundary || n > graph_start;
        if (must_fail && rc == 0) {
            TEST_FAIL_AT("truncation at %zu words accepted", n);
            return;
        }
        if (!must_fail && rc != 0) {
            TEST_FAIL_AT("truncation at instruction boundary %zu rejected: %s", n, err.text);
            return;
        }
    }
}

TEST(error_id_not_below_bound)
{
    words b;
    build(&b, 20);
    size_t w = find_inst(&b, SPV_OP_CONSTANT, 3); /* %19 */
    char msg[200];
    snprintf(msg, sizeof msg, "t.vgf: SPIR-V result id 22 is not below the id bound 20 (opcode 46) (module 0, byte %zu)",
             1000 + 4 * (w + 4));
    expect_error(&b, msg);
}

TEST(error_duplicate_id_and_strings)
{
    words b;
    build(&b, 40);
    size_t w = find_inst(&b, SPV_OP_CONSTANT, 1); /* %6 -> %5 */
    b.w[w + 2] = 5;
    size_t first = find_inst(&b, SPV_OP_CONSTANT, 0);
    char msg[200];
    snprintf(msg, sizeof msg, "t.vgf: SPIR-V result id 5 defined twice (opcode 43, first at byte %zu) (module 0, byte %zu)",
             1000 + 4 * first, 1000 + 4 * w);
    expect_error(&b, msg);

    build(&b, 40);
    w = find_inst(&b, SPV_OP_STRING, 0);
    uint32_t wc = b.w[w] >> 16;
    memset(&b.w[w + 2], 'x', (wc - 2) * 4); /* no NUL left */
    snprintf(msg, sizeof msg, "t.vgf: SPIR-V OpString string not terminated inside its instruction (module 0, byte %zu)",
             1000 + 4 * w);
    expect_error(&b, msg);
}

TEST(error_header_problems)
{
    words b;
    build(&b, 40);
    b.w[0] = 0x03022307u;
    expect_error(&b, "t.vgf: SPIR-V big-endian module (byte-swapped magic) is not supported (module 0, byte 1000)");
    build(&b, 1000000);
    char msg[200];
    snprintf(msg, sizeof msg, "t.vgf: SPIR-V id bound 1000000 is implausible for a module of %zu words (module 0, byte 1012)",
             b.n);
    expect_error(&b, msg);
    build(&b, 40);
    b.n = 4;
    expect_error(&b, "t.vgf: SPIR-V module too short (4 words, a header needs 5) (module 0, byte 1000)");
    build(&b, 40);
    size_t w = find_inst(&b, SPV_OP_GRAPH_END_ARM, 0);
    b.n = w; /* drop OpGraphEndARM */
    snprintf(msg, sizeof msg, "t.vgf: SPIR-V graph %%14 not terminated by OpGraphEndARM (module 0, byte %zu)", 1000 + 4 * w);
    expect_error(&b, msg);
}

TEST(unresolved_operand_warns)
{
    words b;
    build(&b, 40);
    size_t w = find_inst(&b, SPV_OP_EXT_INST, 0);
    b.w[w + 5] = 39; /* ABS operand: undefined id */
    mlia_arena a;
    mlia_arena_init(&a);
    spv_module *m;
    mlia_error err;
    CHECK_INT(parse(&b, &a, &m, &err), 0);
    CHECK_INT(m->graphs[0].ops[0].operands[0].cls, SPV_VALUE_UNRESOLVED);
    CHECK_INT(m->n_warnings, 1);
    char msg[200];
    snprintf(msg, sizeof msg,
             "SPIR-V operand 0 (%%39) of operation %%16 is not a graph input, earlier result or constant (module 0, byte %zu)",
             1000 + 4 * w);
    CHECK_STR(m->warnings[0], msg);
    mlia_arena_free(&a);
}

TEST(tosa_table)
{
    CHECK_STR(tosa_op(2)->name, "CONV2D");
    CHECK_STR(tosa_op(2)->mlir_name, "Conv2D");
    CHECK_STR(tosa_op(1)->mlir_name, "AvgPool2D");
    CHECK_STR(tosa_op(4)->mlir_name, "DepthwiseConv2D");
    CHECK_STR(tosa_op(15)->mlir_name, "ArithmeticRightShift");
    CHECK_STR(tosa_op(47)->mlir_name, "GreaterEqual");
    CHECK_STR(tosa_op(34)->mlir_name, "Clz");
    CHECK_STR(tosa_op(42)->mlir_name, "Rsqrt");
    CHECK_STR(tosa_op(0)->mlir_name, "ArgMax");
    CHECK_STR(tosa_op(6)->mlir_name, "MatMul");
    CHECK_STR(tosa_op(19)->mlir_name, "IntDiv");
    CHECK_STR(tosa_op(5)->mlir_name, "FFT2D");
    CHECK_STR(tosa_op(8)->mlir_name, "RFFT2D");
    CHECK_STR(tosa_op(65)->name, "RESCALE");
    CHECK(tosa_op(66) == NULL);
    for (uint32_t i = 0; i <= TOSA_OPCODE_MAX; i++)
        CHECK_INT(tosa_op(i)->opcode, i);
    const tosa_op_desc *conv = tosa_op(2);
    CHECK_INT(conv->n_attrs, 5);
    CHECK_INT(conv->n_operands, 10);
    CHECK_STR(tosa_operand(conv, 3)->name, "acc_type");
    CHECK_INT(tosa_operand(conv, 3)->kind, TOSA_ATTR_ACC_TYPE);
    CHECK_STR(tosa_operand(conv, 9)->name, "weight_zp");
    CHECK(tosa_operand(conv, 10) == NULL);
    const tosa_op_desc *concat = tosa_op(54);
    CHECK_STR(tosa_operand(concat, 7)->name, "input1");
    CHECK_STR(tosa_enum_name(TOSA_ATTR_ACC_TYPE, 4), "INT48");
    CHECK_STR(tosa_enum_name(TOSA_ATTR_ROUNDING, 3), "DOUBLE_ROUND");
    CHECK_STR(tosa_enum_name(TOSA_ATTR_NAN_MODE, 2), "IGNORE");
    CHECK_STR(tosa_enum_name(TOSA_ATTR_RESIZE_MODE, 1), "NEAREST_NEIGHBOR");
    CHECK(tosa_enum_name(TOSA_ATTR_ACC_TYPE, 0) == NULL);
    CHECK(tosa_enum_name(TOSA_ATTR_ACC_TYPE, 5) == NULL);
}

int main(void)
{
    RUN(reads_graph_ops_and_debug_names);
    RUN(decodes_constants);
    RUN(error_word_count_zero);
    RUN(error_overrun);
    RUN(error_id_not_below_bound);
    RUN(error_duplicate_id_and_strings);
    RUN(error_header_problems);
    RUN(unresolved_operand_warns);
    RUN(tosa_table);
    return test_summary();
}
