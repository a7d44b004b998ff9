/*
 * test_pte.c - PTE and BundledProgram readers: fixture facts of
 * docs/formats/pte.md §6, exact error messages for bad headers,
 * identifiers and indexes, every truncation and byte flip of add.pte, file
 * kind detection, and the inspect JSON.
 *
 * Run as `test_pte --inspect FILE` it prints the inspect JSON of FILE
 * (ETDump, PTE or BundledProgram) instead of testing; the flatc cross-check
 * (tests/py/test_flatc_crosscheck.py) uses that when the CLI has no
 * `inspect` command.
 */
#include <stdbool.h>

#include "core/arena.h"
#include "core/file.h"
#include "core/json_write.h"
#include "fb_test_builder.h"
#include "formats/etdump.h"
#include "formats/fb.h"
#include "formats/pte.h"
#include "report/inspect/inspect_et.h"
#include "test.h"

static uint8_t *load(const char *rel, size_t *size)
{
    char *data = NULL;
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_file_slurp(test_fixture(rel), &data, size, &err) < 0) {
        printf("cannot read fixture %s: %s\n", rel, err.text);
        return NULL;
    }
    return (uint8_t *)data;
}

static const char *pte_err(const uint8_t *d, size_t n, mlia_error *err)
{
    mlia_arena a;
    mlia_arena_init(&a);
    pte_program *p;
    mlia_error_clear(err);
    int rc = pte_read(d, n, "x.pte", &a, &p, err);
    mlia_arena_free(&a);
    return rc == 0 ? "" : err->text;
}

static char *op_display(const pte_plan *pl, uint32_t i, mlia_arena *a) { return pte_operator_display(&pl->operators[i], a); }

static int read_ok(const char *rel, const char *name, uint8_t **data, size_t *n, mlia_arena *a, pte_program **p)
{
    *data = load(rel, n);
    if (!*data)
        return -1;
    mlia_error err;
    mlia_error_clear(&err);
    if (pte_read(*data, *n, name, a, p, &err) < 0) {
        printf("error: %s\n", err.text);
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- fixtures */

TEST(lenet_pte_facts)
{
    uint8_t *d;
    size_t n;
    mlia_arena a;
    mlia_arena_init(&a);
    pte_program *p;
    CHECK_INT(read_ok("executorch/lenet.pte", "lenet.pte", &d, &n, &a, &p), 0);
    CHECK_UINT(n, 252600);
    CHECK(p->has_extended_header);
    CHECK_UINT(p->header_length, 24);
    CHECK_UINT(p->program_size, 5744);
    CHECK_UINT(p->segment_base_offset, 5760);
    CHECK_UINT(p->segment_data_size, 0);
    CHECK_UINT(p->version, 0);
    CHECK_UINT(p->n_plans, 1);
    const pte_plan *pl = &p->plans[0];
    CHECK(mlia_str_eq(pl->name, "forward"));
    CHECK_UINT(pl->n_values, 95);
    CHECK_UINT(pl->value_counts[PTE_VALUE_TENSOR], 28);
    CHECK_UINT(pl->value_counts[PTE_VALUE_INT], 42);
    CHECK_UINT(pl->value_counts[PTE_VALUE_INT_LIST], 19);
    CHECK_UINT(pl->value_counts[PTE_VALUE_BOOL], 4);
    CHECK_UINT(pl->value_counts[PTE_VALUE_TENSOR_LIST], 2);
    CHECK_UINT(pl->n_inputs, 1);
    CHECK_INT(pl->inputs[0], 10);
    const pte_tensor *in = &pl->values[10].tensor;
    CHECK_INT(pl->values[10].kind, PTE_VALUE_TENSOR);
    CHECK_STR(et_scalar_type_name(in->scalar_type), "FLOAT");
    CHECK_UINT(in->n_sizes, 4);
    CHECK(in->sizes[0] == 1 && in->sizes[1] == 1 && in->sizes[2] == 32 && in->sizes[3] == 32);
    CHECK_UINT(pl->n_outputs, 1);
    CHECK_INT(pl->outputs[0], 92);
    const pte_tensor *out = &pl->values[92].tensor;
    CHECK_STR(et_scalar_type_name(out->scalar_type), "FLOAT");
    CHECK(out->n_sizes == 2 && out->sizes[0] == 1 && out->sizes[1] == 10);
    CHECK_UINT(pl->n_non_const_buffer_sizes, 2);
    CHECK_INT(pl->non_const_buffer_sizes[0], 0);
    CHECK_INT(pl->non_const_buffer_sizes[1], 194080);
    CHECK_UINT(pl->n_chains, 1);
    CHECK_UINT(pl->n_delegates, 0);
    CHECK(!pl->chains[0].has_stacktrace);
    CHECK_UINT(pl->chains[0].n_instructions, 14);
    CHECK_UINT(pl->n_operators, 5);
    CHECK_STR(op_display(pl, 0, &a), "aten::convolution.out");
    CHECK_STR(op_display(pl, 1, &a), "aten::relu.out");
    CHECK_STR(op_display(pl, 2, &a), "aten::max_pool2d_with_indices.out");
    CHECK_STR(op_display(pl, 3, &a), "aten::permute_copy.out");
    CHECK_STR(op_display(pl, 4, &a), "aten::addmm.out");
    static const int ops[14] = {0, 1, 2, 0, 1, 2, 3, 4, 1, 3, 4, 1, 3, 4};
    for (int i = 0; i < 14; i++) {
        CHECK_INT(pl->chains[0].instructions[i].kind, PTE_INSTR_KERNEL);
        CHECK_INT(pl->chains[0].instructions[i].op_index, ops[i]);
        CHECK_INT(pl->chains[0].instructions[i].delegate_index, -1);
    }
    CHECK_UINT(p->n_segments, 1);
    CHECK_UINT(p->segments[0].offset, 0);
    CHECK_UINT(p->segments[0].size, 246840);
    CHECK(p->segments[0].in_file);
    CHECK_UINT(p->segments[0].file_offset, 5760);
    CHECK_UINT(5760 + 246840, n);
    CHECK(p->has_constant_segment);
    CHECK_UINT(p->constant_segment.segment_index, 0);
    static const uint64_t offs[11] = {0, 0, 608, 640, 10240, 10304, 202304, 202784, 243104, 243440, 246800};
    CHECK_UINT(p->constant_segment.n_offsets, 11);
    for (int i = 0; i < 11; i++)
        CHECK_UINT(p->constant_segment.offsets[i], offs[i]);
    for (int v = 0; v < 10; v++) {
        const pte_tensor *t = &pl->values[v].tensor;
        CHECK_INT(pl->values[v].kind, PTE_VALUE_TENSOR);
        CHECK(t->is_constant);
        CHECK_UINT(t->data_buffer_idx, (unsigned)v + 1);
        CHECK_UINT(t->data_offset, 5760 + offs[v + 1]);
    }
    const pte_tensor *c0 = &pl->values[0].tensor;
    CHECK(c0->n_sizes == 4 && c0->sizes[0] == 6 && c0->sizes[1] == 1 && c0->sizes[2] == 5 && c0->sizes[3] == 5);
    CHECK_UINT(c0->nbytes, 600);
    CHECK(c0->data == d + 5760);
    const pte_tensor *c9 = &pl->values[9].tensor;
    CHECK(c9->n_sizes == 1 && c9->sizes[0] == 10);
    CHECK_UINT(c9->data_offset + c9->nbytes, 5760 + 246840);
    CHECK(!pl->values[10].tensor.is_constant);
    CHECK(pl->values[10].tensor.has_allocation);
    CHECK(p->constant_buffer_present); /* an empty vector */
    CHECK_UINT(p->n_constant_buffers, 0);
    CHECK_UINT(p->n_inline_delegates, 0);
    mlia_arena_free(&a);
    free(d);
}

TEST(add_pte_facts)
{
    uint8_t *d;
    size_t n;
    mlia_arena a;
    mlia_arena_init(&a);
    pte_program *p;
    CHECK_INT(read_ok("executorch/add.pte", "add.pte", &d, &n, &a, &p), 0);
    CHECK_UINT(n, 728);
    CHECK(!p->has_extended_header);
    CHECK_UINT(p->segment_base_offset, 0);
    CHECK_UINT(p->program_size, 728);
    CHECK(p->segments_present);
    CHECK_UINT(p->n_segments, 1);
    CHECK_UINT(p->segments[0].offset, 0);
    CHECK_UINT(p->segments[0].size, 0);
    CHECK(!p->segments[0].in_file);
    CHECK(p->has_constant_segment);
    CHECK_UINT(p->constant_segment.n_offsets, 1);
    CHECK_UINT(p->constant_segment.offsets[0], 0);
    const pte_plan *pl = &p->plans[0];
    CHECK(mlia_str_eq(pl->name, "forward"));
    CHECK_UINT(pl->n_values, 4);
    CHECK_UINT(pl->value_counts[PTE_VALUE_TENSOR], 3);
    CHECK_UINT(pl->value_counts[PTE_VALUE_INT], 1);
    static const uint64_t planned[3] = {0, 16, 32};
    for (int v = 0; v < 3; v++) {
        const pte_tensor *t = &pl->values[v].tensor;
        CHECK_STR(et_scalar_type_name(t->scalar_type), "FLOAT");
        CHECK(t->n_sizes == 1 && t->sizes[0] == 1);
        CHECK(t->has_allocation);
        CHECK_UINT(t->memory_id, 1);
        CHECK_UINT(t->memory_offset, planned[v]);
        CHECK(!t->is_constant);
    }
    CHECK_INT(pl->values[3].int_val, 1);
    CHECK(pl->n_inputs == 2 && pl->inputs[0] == 0 && pl->inputs[1] == 1);
    CHECK(pl->n_outputs == 1 && pl->outputs[0] == 2);
    CHECK(pl->n_non_const_buffer_sizes == 2 && pl->non_const_buffer_sizes[1] == 48);
    CHECK_UINT(pl->chains[0].n_instructions, 1);
    const pte_instruction *in = &pl->chains[0].instructions[0];
    CHECK_INT(in->kind, PTE_INSTR_KERNEL);
    CHECK_INT(in->op_index, 0);
    static const int args[5] = {0, 1, 3, 2, 2};
    CHECK_UINT(in->n_args, 5);
    for (int i = 0; i < 5; i++)
        CHECK_INT(in->args[i], args[i]);
    CHECK_STR(op_display(pl, 0, &a), "aten::add.out");
    CHECK(pl->has_container_meta);
    CHECK(mlia_str_eq(pl->encoded_inp_str, "T2#2#0(T2#1#1($,$),D0())"));
    CHECK(mlia_str_eq(pl->encoded_out_str, "$"));
    mlia_arena_free(&a);
    free(d);
}

TEST(kws_facts)
{
    uint8_t *d;
    size_t n;
    mlia_arena a;
    mlia_arena_init(&a);
    pte_program *p;
    CHECK_INT(read_ok("executorch/kws-cortex-m.pte", "kws.pte", &d, &n, &a, &p), 0);
    CHECK_UINT(n, 54192);
    CHECK(p->has_extended_header);
    CHECK_UINT(p->header_length, 32);
    CHECK_UINT(p->program_size, 14904);
    CHECK_UINT(p->segment_base_offset, 14976);
    CHECK_UINT(p->segment_data_size, 39216);
    CHECK_UINT(p->n_segments, 1);
    CHECK_UINT(p->segments[0].size, 39216);
    CHECK_UINT(p->constant_segment.n_offsets, 64);
    static const uint64_t first[6] = {0, 0, 256, 768, 1024, 1280};
    for (int i = 0; i < 6; i++)
        CHECK_UINT(p->constant_segment.offsets[i], first[i]);
    const pte_plan *pl = &p->plans[0];
    CHECK_UINT(pl->n_values, 289);
    CHECK_UINT(pl->value_counts[PTE_VALUE_TENSOR], 111);
    CHECK_UINT(pl->value_counts[PTE_VALUE_INT], 136);
    CHECK_UINT(pl->value_counts[PTE_VALUE_INT_LIST], 36);
    CHECK_UINT(pl->value_counts[PTE_VALUE_BOOL], 3);
    CHECK_UINT(pl->value_counts[PTE_VALUE_DOUBLE], 2);
    CHECK_UINT(pl->value_counts[PTE_VALUE_NULL], 1);
    CHECK(pl->n_inputs == 1 && pl->inputs[0] == 83);
    const pte_tensor *t = &pl->values[83].tensor;
    CHECK(t->n_sizes == 4 && t->sizes[0] == 1 && t->sizes[1] == 1 && t->sizes[2] == 49 && t->sizes[3] == 10);
    CHECK(pl->n_outputs == 1 && pl->outputs[0] == 283);
    t = &pl->values[283].tensor;
    CHECK(t->n_sizes == 2 && t->sizes[0] == 1 && t->sizes[1] == 12);
    CHECK(pl->n_non_const_buffer_sizes == 2 && pl->non_const_buffer_sizes[1] == 16000);
    CHECK_UINT(pl->n_delegates, 0);
    static const char *names[8] = {
        "cortex_m::quantize_per_tensor.out", "cortex_m::quantized_depthwise_conv2d.out",
        "dim_order_ops::_clone_dim_order.out", "cortex_m::quantized_conv2d.out", "cortex_m::pad.out",
        "cortex_m::quantized_avg_pool2d.out", "cortex_m::quantized_linear.out", "cortex_m::dequantize_per_tensor.out"};
    CHECK_UINT(pl->n_operators, 8);
    for (uint32_t i = 0; i < 8; i++)
        CHECK_STR(op_display(pl, i, &a), names[i]);
    static const int ops[16] = {0, 1, 2, 1, 3, 1, 3, 1, 3, 1, 3, 2, 4, 5, 6, 7};
    CHECK_UINT(pl->chains[0].n_instructions, 16);
    for (int i = 0; i < 16; i++) {
        CHECK_INT(pl->chains[0].instructions[i].kind, PTE_INSTR_KERNEL);
        CHECK_INT(pl->chains[0].instructions[i].op_index, ops[i]);
    }
    mlia_arena_free(&a);
    free(d);
}

TEST(module_linear_facts)
{
    uint8_t *d;
    size_t n;
    mlia_arena a;
    mlia_arena_init(&a);
    pte_program *p;
    CHECK_INT(read_ok("executorch/module-linear-no-constant-segment.pte", "m.pte", &d, &n, &a, &p), 0);
    CHECK_UINT(n, 1040);
    CHECK(!p->has_extended_header);
    CHECK(p->constant_buffer_present);
    CHECK_UINT(p->n_constant_buffers, 3);
    CHECK_UINT(p->constant_buffers[0].size, 0);
    CHECK_UINT(p->constant_buffers[1].size, 16);
    CHECK_UINT(p->constant_buffers[2].size, 16);
    CHECK_UINT(p->constant_buffers[1].file_offset % 16, 0);
    CHECK_UINT(p->constant_buffers[2].file_offset % 16, 0);
    CHECK(p->segments_present);
    CHECK_UINT(p->n_segments, 0);
    CHECK(p->has_constant_segment);
    CHECK_UINT(p->constant_segment.n_offsets, 0);
    const pte_plan *pl = &p->plans[0];
    CHECK_UINT(pl->n_values, 6);
    CHECK_UINT(pl->value_counts[PTE_VALUE_TENSOR], 5);
    CHECK_UINT(pl->value_counts[PTE_VALUE_INT], 1);
    CHECK(pl->n_inputs == 1 && pl->inputs[0] == 2);
    const pte_tensor *t = &pl->values[2].tensor;
    CHECK(t->n_sizes == 2 && t->sizes[0] == 2 && t->sizes[1] == 2);
    CHECK_STR(et_scalar_type_name(t->scalar_type), "FLOAT");
    CHECK(pl->n_outputs == 1 && pl->outputs[0] == 4);
    CHECK(pl->n_non_const_buffer_sizes == 2 && pl->non_const_buffer_sizes[1] == 32);
    /* the constants come from the deprecated constant_buffer */
    int constants = 0;
    for (uint32_t v = 0; v < pl->n_values; v++)
        if (pl->values[v].kind == PTE_VALUE_TENSOR && pl->values[v].tensor.is_constant) {
            constants++;
            CHECK(pl->values[v].tensor.data == p->constant_buffers[pl->values[v].tensor.data_buffer_idx].data);
        }
    CHECK_INT(constants, 2);
    CHECK_UINT(pl->chains[0].n_instructions, 2);
    const pte_instruction *i0 = &pl->chains[0].instructions[0], *i1 = &pl->chains[0].instructions[1];
    CHECK_STR(op_display(pl, (uint32_t)i0->op_index, &a), "aten::mul.out");
    CHECK_STR(op_display(pl, (uint32_t)i1->op_index, &a), "aten::add.out");
    static const int a0[4] = {0, 2, 3, 3}, a1[5] = {3, 1, 5, 4, 4};
    CHECK_UINT(i0->n_args, 4);
    CHECK_UINT(i1->n_args, 5);
    for (int i = 0; i < 4; i++)
        CHECK_INT(i0->args[i], a0[i]);
    for (int i = 0; i < 5; i++)
        CHECK_INT(i1->args[i], a1[i]);
    mlia_arena_free(&a);
    free(d);
}

TEST(lenet_bp_facts)
{
    size_t n, pn;
    uint8_t *d = load("executorch/lenet.bp", &n);
    uint8_t *pd = load("executorch/lenet.pte", &pn);
    CHECK(d && pd);
    CHECK_UINT(n, 261344);
    mlia_arena a;
    mlia_arena_init(&a);
    bundled_program *bp;
    mlia_error err;
    mlia_error_clear(&err);
    int rc = bundled_program_read(d, n, "lenet.bp", &a, &bp, &err);
    if (rc)
        printf("%s\n", err.text);
    CHECK_INT(rc, 0);
    CHECK_UINT(bp->version, 2);
    CHECK_UINT(bp->program_offset, 64);
    CHECK_UINT(bp->program_size, 252600);
    CHECK(memcmp(bp->program_data, pd, pn) == 0);
    CHECK_UINT(bp->program->file_offset, 64);
    CHECK_UINT(bp->program->n_plans, 1);
    CHECK_UINT(bp->program->plans[0].n_values, 95);
    /* embedded offsets are relative to the vector; results are file offsets */
    CHECK_UINT(bp->program->segments[0].file_offset, 64 + 5760);
    CHECK_UINT(bp->program->plans[0].values[0].tensor.data_offset, 64 + 5760);
    CHECK_UINT(bp->n_method_test_suites, 1);
    const bp_method_test_suite *s = &bp->method_test_suites[0];
    CHECK(mlia_str_eq(s->method_name, "forward"));
    CHECK_UINT(s->n_test_cases, 2);
    for (int k = 0; k < 2; k++) {
        const bp_test_case *tc = &s->test_cases[k];
        CHECK_UINT(tc->n_inputs, 1);
        CHECK_UINT(tc->n_expected_outputs, 1);
        const bp_value *in = &tc->inputs[0], *out = &tc->expected_outputs[0];
        CHECK_INT(in->kind, BP_VALUE_TENSOR);
        CHECK_STR(et_scalar_type_name(in->scalar_type), "FLOAT");
        CHECK(in->n_sizes == 4 && in->sizes[0] == 1 && in->sizes[1] == 1 && in->sizes[2] == 32 && in->sizes[3] == 32);
        CHECK_UINT(in->data_size, 4096);
        CHECK_UINT(in->n_dim_order, 4);
        for (int i = 0; i < 4; i++)
            CHECK_UINT(in->dim_order[i], (unsigned)i);
        CHECK_STR(et_scalar_type_name(out->scalar_type), "FLOAT");
        CHECK(out->n_sizes == 2 && out->sizes[0] == 1 && out->sizes[1] == 10);
        CHECK_UINT(out->data_size, 40);
    }
    mlia_arena_free(&a);
    free(d);
    free(pd);
}

static int32_t le_i32(const uint8_t *p) { return (int32_t)fb_le32(p); }

TEST(bundled_mul_add_facts)
{
    size_t n;
    uint8_t *d = load("executorch/bundled-mul-add.bpte", &n);
    CHECK(d);
    CHECK_UINT(n, 4608);
    mlia_arena a;
    mlia_arena_init(&a);
    bundled_program *bp;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(bundled_program_read(d, n, "b.bpte", &a, &bp, &err), 0);
    CHECK_UINT(bp->version, 2);
    CHECK_UINT(bp->program_offset, 64);
    CHECK_UINT(bp->program_size, 1696);
    const pte_program *p = bp->program;
    CHECK(p->has_extended_header);
    CHECK_UINT(p->header_length, 24);
    CHECK_UINT(p->program_size, 1584);
    CHECK_UINT(p->segment_base_offset, 1664);
    CHECK_UINT(p->n_segments, 1);
    CHECK_UINT(p->segments[0].offset, 0);
    CHECK_UINT(p->segments[0].size, 32);
    CHECK_UINT(1664 + 32, 1696);
    CHECK_UINT(p->constant_segment.n_offsets, 3);
    CHECK(p->constant_segment.offsets[0] == 0 && p->constant_segment.offsets[1] == 0 &&
          p->constant_segment.offsets[2] == 16);
    const pte_plan *pl = &p->plans[0];
    CHECK_UINT(pl->n_values, 9);
    for (int v = 0; v < 2; v++) {
        const pte_tensor *t = &pl->values[v].tensor;
        CHECK(t->is_constant);
        CHECK_STR(et_scalar_type_name(t->scalar_type), "INT");
        CHECK(t->n_sizes == 2 && t->sizes[0] == 2 && t->sizes[1] == 2);
        CHECK_UINT(t->nbytes, 16);
        CHECK_UINT(t->data_offset, 64 + 1664 + (v ? 16 : 0));
        for (int k = 0; k < 4; k++)
            CHECK_INT(le_i32(t->data + 4 * k), v ? 2 : 3);
    }
    CHECK(pl->n_inputs == 2 && pl->inputs[0] == 2 && pl->inputs[1] == 3);
    CHECK(pl->n_outputs == 1 && pl->outputs[0] == 7);
    CHECK_UINT(pl->chains[0].n_instructions, 3);
    static const char *ops[3] = {"aten::mul.out", "aten::add.out", "aten::add.out"};
    for (int i = 0; i < 3; i++)
        CHECK_STR(op_display(pl, (uint32_t)pl->chains[0].instructions[i].op_index, &a), ops[i]);
    CHECK_UINT(bp->n_method_test_suites, 1);
    const bp_method_test_suite *s = &bp->method_test_suites[0];
    CHECK(mlia_str_eq(s->method_name, "forward"));
    CHECK_UINT(s->n_test_cases, 10);
    for (uint32_t k = 0; k < 10; k++) {
        const bp_test_case *tc = &s->test_cases[k];
        CHECK_UINT(tc->n_inputs, 2);
        CHECK_UINT(tc->n_expected_outputs, 1);
        for (int i = 0; i < 2; i++) {
            const bp_value *v = &tc->inputs[i];
            CHECK_STR(et_scalar_type_name(v->scalar_type), "INT");
            CHECK(v->n_sizes == 2 && v->sizes[0] == 2 && v->sizes[1] == 2);
            CHECK_UINT(v->data_size, 16);
            CHECK(v->n_dim_order == 2 && v->dim_order[0] == 0 && v->dim_order[1] == 1);
            for (int b = 0; b < 16; b++)
                CHECK_UINT(v->data[b], 0);
        }
        const bp_value *o = &tc->expected_outputs[0];
        CHECK(o->n_sizes == 2 && o->sizes[0] == 2 && o->sizes[1] == 2);
        for (int b = 0; b < 4; b++)
            CHECK_INT(le_i32(o->data + 4 * b), 2);
    }
    mlia_arena_free(&a);
    free(d);
}

TEST(file_kinds)
{
    static const struct {
        const char *rel, *kind;
    } cases[] = {
        {"executorch/lenet.etdp", "etdump"},
        {"executorch/lenet.pte", "pte"},
        {"executorch/add.pte", "pte"},
        {"executorch/lenet.bp", "bundled_program"},
        {"executorch/bundled-mul-add.bpte", "bundled_program"},
        {"executorch/legacy-mul.etrecord.bin", "etrecord"},
        {"vgf/vww4.vgf", "vgf"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t n;
        uint8_t *d = load(cases[i].rel, &n);
        CHECK(d);
        const char *k = pte_file_kind(d, n);
        CHECK_STR(k, cases[i].kind);
        if (i == 0) /* unprefixed ETDump */
            CHECK_STR(pte_file_kind(d + 4, n - 4), "etdump");
        free(d);
    }
    CHECK(pte_file_kind((const uint8_t *)"\xC3\xD2\xE1\xF0....", 8) != NULL);
    CHECK_STR(pte_file_kind((const uint8_t *)"\xC3\xD2\xE1\xF0....", 8), "vgf");
    CHECK(pte_file_kind((const uint8_t *)"hello world!", 12) == NULL);
    CHECK(pte_file_kind((const uint8_t *)"ab", 2) == NULL);
    CHECK(pte_file_kind(NULL, 0) == NULL);
}

/* ---------------------------------------------------------------- bad inputs */

TEST(identifier_and_header_errors)
{
    size_t n;
    uint8_t *d = load("executorch/add.pte", &n);
    CHECK(d);
    mlia_error err;
    CHECK_STR(pte_err(d, 0, &err), "x.pte: empty PTE file");
    memcpy(d + 4, "ET13", 4);
    CHECK_STR(pte_err(d, n, &err), "x.pte: unsupported PTE version \"ET13\" (expected \"ET12\") at byte 4");
    memcpy(d + 4, "BP08", 4);
    CHECK_STR(pte_err(d, n, &err), "x.pte: file identifier \"BP08\", expected \"ET12\" at byte 4");
    memcpy(d + 4, "\x01\"AB", 4);
    CHECK_STR(pte_err(d, n, &err), "x.pte: file identifier \"\\x01\\x22AB\", expected \"ET12\" at byte 4");
    memcpy(d + 4, "ET12", 4);
    CHECK_STR(pte_err(d, n, &err), "");
    CHECK_STR(pte_err(d, 6, &err), "x.pte: FlatBuffer too small (6 bytes) at byte 0");
    /* root offset beyond the buffer */
    tb w = {d, n, n};
    tb_put32(&w, 0, 5000);
    CHECK_STR(pte_err(d, n, &err), "x.pte: root offset 5000 out of range at byte 0");
    tb_put32(&w, 0, 4);
    CHECK_STR(pte_err(d, n, &err), "x.pte: root offset 4 out of range at byte 0");
    free(d);

    d = load("executorch/lenet.pte", &n);
    CHECK(d);
    w = (tb){d, n, n};
    tb_put32(&w, 12, 20);
    CHECK_STR(pte_err(d, n, &err), "x.pte: extended header length 20 is less than 24 at byte 12");
    tb_put32(&w, 12, 24);
    tb_put64(&w, 16, 300000);
    CHECK_STR(pte_err(d, n, &err), "x.pte: extended header program_size 300000 exceeds the file length 252600 at byte 16");
    tb_put64(&w, 16, 5744);
    tb_put64(&w, 24, 4000);
    CHECK_STR(pte_err(d, n, &err),
              "x.pte: extended header segment_base_offset 4000 lies inside the program (program_size 5744) at byte 24");
    tb_put64(&w, 24, 5760);
    CHECK_STR(pte_err(d, 14, &err), "x.pte: truncated extended header at byte 8");
    CHECK_STR(pte_err(d, 20, &err), "x.pte: truncated extended header (20 bytes, header needs 32) at byte 8");
    /* the segment is cut: the 24-byte header declares no size, the segment check catches it */
    const char *e = pte_err(d, n - 1, &err);
    CHECK_CONTAINS(e, "x.pte: segment (offset 0, size 246840) extends past the end of the file (252599 bytes from "
                      "segment_base_offset 5760) at byte ");
    CHECK_CONTAINS(e, " (segments[0])");
    free(d);

    d = load("executorch/kws-cortex-m.pte", &n);
    CHECK(d);
    CHECK_STR(pte_err(d, n - 16, &err), "x.pte: file is truncated: 54176 bytes, the extended header declares 54192 at byte 8");
    free(d);
}

/* Locate the i32 element `elem` of vector `field` in table t. */
static uint64_t vec_elem_pos(const fb_table *t, unsigned slot, const char *field, unsigned es, uint32_t elem)
{
    fb_vec v;
    mlia_error err;
    mlia_error_clear(&err);
    if (fb_get_vector(t, slot, field, es, &v, &err) <= 0 || elem >= v.n)
        return 0;
    return v.pos + (uint64_t)elem * es;
}

TEST(index_errors)
{
    size_t n;
    uint8_t *d = load("executorch/add.pte", &n);
    CHECK(d);
    mlia_error err;
    /* navigate with the fb API to the bytes to corrupt */
    fb_buf b;
    fb_table root, plan, chain, instr, kc;
    mlia_error_clear(&err);
    fb_vec plans, chains, instrs;
    uint8_t type;
    CHECK_INT(fb_open(&b, d, n, "x.pte", 0, "ET12", false, 0, &root, &err), 0);
    CHECK_INT(fb_get_vector(&root, 1, "execution_plan", 4, &plans, &err), 1);
    CHECK_INT(fb_vec_table(&plans, 0, &plan, &err), 0);
    CHECK_INT(fb_get_vector(&plan, 5, "chains", 4, &chains, &err), 1);
    CHECK_INT(fb_vec_table(&chains, 0, &chain, &err), 0);
    CHECK_INT(fb_get_vector(&chain, 2, "instructions", 4, &instrs, &err), 1);
    CHECK_INT(fb_vec_table(&instrs, 0, &instr, &err), 0);
    CHECK_INT(fb_get_union(&instr, 0, "instr_args", 5, &type, &kc, &err), 1);
    CHECK_INT(type, 1);
    uint64_t arg2 = vec_elem_pos(&kc, 1, "args", 4, 2);
    CHECK(arg2 > 0);
    uint64_t out0 = vec_elem_pos(&plan, 4, "outputs", 4, 0);
    CHECK(out0 > 0);
    uint64_t ops_count = vec_elem_pos(&plan, 6, "operators", 4, 0) - 4;
    uint64_t type_pos = instr.pos + fb_field_off(&instr, 0);

    char want[512];
    tb w = {d, n, n};
    tb_put32(&w, arg2, 9);
    snprintf(want, sizeof want,
             "x.pte: value index 9 out of range (4 values) at byte %" PRIu64
             " (execution_plan[0].chains[0].instructions[0].instr_args.args[2])",
             arg2);
    CHECK_STR(pte_err(d, n, &err), want);
    tb_put32(&w, arg2, (uint32_t)-1);
    CHECK_CONTAINS(pte_err(d, n, &err), "x.pte: value index -1 out of range (4 values) at byte ");
    tb_put32(&w, arg2, 3);
    CHECK_STR(pte_err(d, n, &err), "");

    tb_put32(&w, out0, 4);
    snprintf(want, sizeof want, "x.pte: value index 4 out of range (4 values) at byte %" PRIu64 " (execution_plan[0].outputs[0])",
             out0);
    CHECK_STR(pte_err(d, n, &err), want);
    tb_put32(&w, out0, 2);

    tb_put32(&w, ops_count, 0);
    CHECK_CONTAINS(pte_err(d, n, &err), "x.pte: operator index 0 out of range (0 operators) at byte ");
    CHECK_CONTAINS(err.text, "(execution_plan[0].chains[0].instructions[0].instr_args.op_index)");
    tb_put32(&w, ops_count, 1);

    /* instruction union: DelegateCall without delegates, then an unknown member */
    d[type_pos] = 2;
    CHECK_CONTAINS(pte_err(d, n, &err), "x.pte: delegate index 0 out of range (0 delegates) at byte ");
    d[type_pos] = 9;
    CHECK_STR(pte_err(d, n, &err), "");
    {
        mlia_arena a;
        mlia_arena_init(&a);
        pte_program *p;
        mlia_error_clear(&err);
        CHECK_INT(pte_read(d, n, "x.pte", &a, &p, &err), 0);
        CHECK_INT(p->plans[0].chains[0].instructions[0].kind, 9); /* kept raw, not dereferenced */
        mlia_arena_free(&a);
    }
    d[type_pos] = 1;
    CHECK_STR(pte_err(d, n, &err), "");
    free(d);
}

/* Synthetic PTE with one plan holding one DelegateCall to a delegate. */
static void build_pte_delegate(tb *b, uint8_t location, uint32_t index, int32_t jf_dest)
{
    b->n = 0;
    size_t root_ref = tb_u32(b, 0);
    tb_bytes(b, "ET12", 4);
    size_t root = tb_table(b, 8, 2 | 8);
    tb_ref(b, root_ref, root);
    size_t inl = tb_vector(b, 1, 4);
    tb_link(b, root, 3, inl);
    size_t blob = tb_table(b, 1, 1);
    tb_ref(b, tb_elem(inl, 0, 4), blob);
    size_t data = tb_vector(b, 8, 1);
    memcpy(b->d + data + 4, "VGF1blob", 8);
    tb_link(b, blob, 0, data);
    size_t plans = tb_vector(b, 1, 4);
    tb_link(b, root, 1, plans);
    size_t plan = tb_table(b, 10, 1 | 4 | 32 | 128);
    tb_ref(b, tb_elem(plans, 0, 4), plan);
    tb_link(b, plan, 0, tb_string(b, "forward"));
    size_t values = tb_vector(b, 1, 4);
    tb_link(b, plan, 2, values);
    size_t ev = tb_table(b, 2, 3);
    tb_ref(b, tb_elem(values, 0, 4), ev);
    tb_set64(b, ev, 0, 2); /* Int */
    size_t iv = tb_table(b, 1, 1);
    tb_link(b, ev, 1, iv);
    tb_set64(b, iv, 0, 7);
    size_t dels = tb_vector(b, 1, 4);
    tb_link(b, plan, 7, dels);
    size_t del = tb_table(b, 3, 1 | 2);
    tb_ref(b, tb_elem(dels, 0, 4), del);
    tb_link(b, del, 0, tb_string(b, "VgfBackend"));
    size_t ref = tb_table(b, 2, 3);
    tb_link(b, del, 1, ref);
    tb_set64(b, ref, 0, location);
    tb_set64(b, ref, 1, index);
    size_t chains = tb_vector(b, 1, 4);
    tb_link(b, plan, 5, chains);
    size_t chain = tb_table(b, 4, 4);
    tb_ref(b, tb_elem(chains, 0, 4), chain);
    size_t instrs = tb_vector(b, 2, 4);
    tb_link(b, chain, 2, instrs);
    size_t in0 = tb_table(b, 2, 3);
    tb_ref(b, tb_elem(instrs, 0, 4), in0);
    tb_set64(b, in0, 0, 2);
    size_t dc = tb_table(b, 2, 1 | 2);
    tb_link(b, in0, 1, dc);
    tb_set64(b, dc, 0, 0);
    size_t args = tb_vector(b, 1, 4);
    tb_link(b, dc, 1, args);
    size_t in1 = tb_table(b, 2, 3);
    tb_ref(b, tb_elem(instrs, 1, 4), in1);
    tb_set64(b, in1, 0, 4); /* JumpFalseCall */
    size_t jf = tb_table(b, 2, 3);
    tb_link(b, in1, 1, jf);
    tb_set64(b, jf, 0, 0);
    tb_set64(b, jf, 1, (uint64_t)(int64_t)jf_dest);
    tb_pad(b, 4);
}

TEST(synthetic_delegates)
{
    tb b;
    tb_init(&b);
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    pte_program *p;
    build_pte_delegate(&b, 0, 0, 1);
    mlia_error_clear(&err);
    int rc = pte_read(b.d, b.n, "s.pte", &a, &p, &err);
    if (rc)
        printf("%s\n", err.text);
    CHECK_INT(rc, 0);
    const pte_delegate *dl = &p->plans[0].delegates[0];
    CHECK(mlia_str_eq(dl->id, "VgfBackend"));
    CHECK_INT(dl->location, 0);
    CHECK_UINT(dl->size, 8);
    CHECK(memcmp(dl->blob, "VGF1blob", 8) == 0);
    CHECK_UINT(dl->offset, (uint64_t)(dl->blob - b.d));
    CHECK_INT(p->plans[0].chains[0].instructions[0].kind, PTE_INSTR_DELEGATE);
    CHECK_INT(p->plans[0].chains[0].instructions[0].delegate_index, 0);
    CHECK_INT(p->plans[0].chains[0].instructions[1].kind, PTE_INSTR_JUMP_FALSE);
    CHECK_INT(p->plans[0].chains[0].instructions[1].b, 1);
    CHECK_INT(p->plans[0].values[0].int_val, 7);

    build_pte_delegate(&b, 0, 1, 1);
    CHECK_CONTAINS(pte_err(b.d, b.n, &err),
                   "x.pte: inline delegate index 1 out of range (1 backend_delegate_data entries) at byte ");
    CHECK_CONTAINS(err.text, "(execution_plan[0].delegates[0].processed.index)");
    build_pte_delegate(&b, 1, 0, 1);
    CHECK_CONTAINS(pte_err(b.d, b.n, &err),
                   "x.pte: delegate data in a segment but the file has no segment data (no extended header) at byte ");
    build_pte_delegate(&b, 7, 0, 1);
    CHECK_CONTAINS(pte_err(b.d, b.n, &err), "x.pte: invalid delegate data location 7 at byte ");
    build_pte_delegate(&b, 0, 0, 2);
    CHECK_CONTAINS(pte_err(b.d, b.n, &err), "x.pte: instruction index 2 out of range (2 instructions) at byte ");
    CHECK_CONTAINS(err.text, "(execution_plan[0].chains[0].instructions[1].instr_args.destination_instruction)");
    mlia_arena_free(&a);
    tb_free(&b);
}

TEST(every_truncation_and_flip)
{
    static const char *files[] = {"executorch/add.pte", "executorch/module-linear-no-constant-segment.pte",
                                  "executorch/bundled-mul-add.bpte"};
    for (size_t f = 0; f < 3; f++) {
        size_t n;
        uint8_t *d = load(files[f], &n);
        CHECK(d);
        bool bundled = f == 2;
        mlia_error err;
        mlia_arena a;
        mlia_arena_init(&a);
        for (size_t len = 0; len <= n; len++) {
            uint8_t *copy = malloc(len ? len : 1);
            memcpy(copy, d, len);
            mlia_error_clear(&err);
            int rc;
            if (bundled) {
                bundled_program *bp;
                rc = bundled_program_read(copy, len, "x", &a, &bp, &err);
            } else {
                pte_program *p;
                rc = pte_read(copy, len, "x", &a, &p, &err);
            }
            CHECK(rc == 0 ? len == n : (strncmp(err.text, "x: ", 3) == 0 && !strchr(err.text, '\n')));
            free(copy);
        }
        static const uint8_t masks[] = {0xff, 0x01, 0x80};
        for (size_t m = 0; m < sizeof masks; m++)
            for (size_t i = 0; i < n; i++) {
                d[i] ^= masks[m];
                mlia_error_clear(&err);
                int rc;
                if (bundled) {
                    bundled_program *bp;
                    rc = bundled_program_read(d, n, "x", &a, &bp, &err);
                } else {
                    pte_program *p;
                    rc = pte_read(d, n, "x", &a, &p, &err);
                }
                CHECK(rc == 0 || (strncmp(err.text, "x: ", 3) == 0 && !strchr(err.text, '\n')));
                d[i] ^= masks[m];
            }
        mlia_arena_free(&a);
        free(d);
    }
}

/* ---------------------------------------------------------------- inspect */

static char *inspect_json(const char *path, mlia_error *err)
{
    mlia_file f;
    if (mlia_file_open(&f, path, err) < 0)
        return NULL;
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_buf buf;
    mlia_buf_init(&buf);
    mlia_jw w;
    mlia_jw_init_buf(&w, &buf, true);
    const char *kind = pte_file_kind(f.data, f.size);
    int rc = -1;
    if (kind && !strcmp(kind, "etdump")) {
        etdump *d;
        if ((rc = etdump_read(f.data, f.size, path, &a, &d, err)) == 0)
            rc = inspect_etdump(d, &w, err);
    } else if (kind && !strcmp(kind, "pte")) {
        pte_program *p;
        if ((rc = pte_read(f.data, f.size, path, &a, &p, err)) == 0)
            inspect_pte(p, &w, NULL, NULL);
    } else if (kind && !strcmp(kind, "bundled_program")) {
        bundled_program *bp;
        if ((rc = bundled_program_read(f.data, f.size, path, &a, &bp, err)) == 0)
            inspect_bundled_program(bp, &w, NULL, NULL);
    } else {
        mlia_error_setf(err, path, "not an ETDump, PTE or BundledProgram");
    }
    mlia_jw_finish(&w);
    mlia_arena_free(&a);
    mlia_file_close(&f);
    if (rc != 0) {
        mlia_buf_free(&buf);
        return NULL;
    }
    return mlia_buf_take(&buf);
}

static void blob_stub(void *ctx, const pte_delegate *d, mlia_jw *w)
{
    (*(int *)ctx)++;
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "stub_size", d->size);
    mlia_jw_obj_end(w);
}

TEST(inspect_output)
{
    mlia_error err;
    mlia_error_clear(&err);
    char *j = inspect_json(test_fixture("executorch/lenet.etdp"), &err);
    CHECK(j);
    CHECK_CONTAINS(j, "\"format\": \"etdump\"");
    CHECK_CONTAINS(j, "\"name\": \"Execute\"");
    CHECK_CONTAINS(j, "\"kind\": \"profile\"");
    CHECK_CONTAINS(j, "\"name\": \"Method::execute\",\n          \"chain_index\": -1,\n          \"instruction_id\": 0,\n"
                      "          \"delegate_debug_id_int\": -1,\n          \"delegate_debug_id_str\": null,\n"
                      "          \"start_time\": 425313,\n          \"end_time\": 2324134,\n          \"metadata_size\": null");
    free(j);
    j = inspect_json(test_fixture("executorch/lenet.pte"), &err);
    CHECK(j);
    CHECK_CONTAINS(j, "\"format\": \"pte\"");
    CHECK_CONTAINS(j, "\"extended_header\": {\n    \"header_length\": 24,\n    \"program_size\": 5744,\n"
                      "    \"segment_base_offset\": 5760,\n    \"segment_data_size\": 0\n  }");
    CHECK_CONTAINS(j, "\"values\": {\n        \"Int\": 42,\n        \"Bool\": 4,\n        \"Tensor\": 28,\n"
                      "        \"IntList\": 19,\n        \"TensorList\": 2\n      }");
    CHECK_CONTAINS(j, "\"kind\": \"kernel\",\n          \"operator\": \"aten::convolution.out\"");
    free(j);
    j = inspect_json(test_fixture("executorch/bundled-mul-add.bpte"), &err);
    CHECK(j);
    CHECK_CONTAINS(j, "\"format\": \"bundled_program\"");
    CHECK_CONTAINS(j, "\"method_name\": \"forward\",\n      \"test_cases\": 10,");
    free(j);

    /* blob callback */
    tb b;
    tb_init(&b);
    build_pte_delegate(&b, 0, 0, 1);
    mlia_arena a;
    mlia_arena_init(&a);
    pte_program *p;
    mlia_error_clear(&err);
    CHECK_INT(pte_read(b.d, b.n, "s.pte", &a, &p, &err), 0);
    mlia_buf buf;
    mlia_buf_init(&buf);
    mlia_jw w;
    mlia_jw_init_buf(&w, &buf, false);
    int calls = 0;
    inspect_pte(p, &w, blob_stub, &calls);
    CHECK_INT(calls, 1);
    buf.data[buf.len] = 0;
    CHECK_CONTAINS(buf.data, "\"delegates\":[{\"backend\":\"VgfBackend\",\"location\":\"inline\",\"index\":0,");
    CHECK_CONTAINS(buf.data, "\"size\":8,\"compile_specs\":[],\"blob\":{\"stub_size\":8}}]");
    CHECK_CONTAINS(buf.data, "\"kind\":\"delegate\",\"delegate_index\":0,\"args\":[0]");
    CHECK_CONTAINS(buf.data, "\"kind\":\"jump_false\",\"cond_value_index\":0,\"destination_instruction\":1");
    mlia_buf_free(&buf);
    mlia_arena_free(&a);
    tb_free(&b);
}

int main(int argc, char **argv)
{
    if (argc == 3 && !strcmp(argv[1], "--inspect")) {
        mlia_error err;
        mlia_error_clear(&err);
        char *j = inspect_json(argv[2], &err);
        if (!j) {
            fprintf(stderr, "mlia: error: %s\n", err.text);
            return 1;
        }
        fputs(j, stdout);
        free(j);
        return 0;
    }
    RUN(lenet_pte_facts);
    RUN(add_pte_facts);
    RUN(kws_facts);
    RUN(module_linear_facts);
    RUN(lenet_bp_facts);
    RUN(bundled_mul_add_facts);
    RUN(file_kinds);
    RUN(identifier_and_header_errors);
    RUN(index_errors);
    RUN(synthetic_delegates);
    RUN(every_truncation_and_flip);
    RUN(inspect_output);
    return test_summary();
}
