/*
 * test_vgf.c - VGF reader, SPIR-V graph decoding and the Model Explorer
 * reproduction against the facts of docs/formats/vgf.md §11 and
 * docs/formats/spirv-tosa.md §10, plus hostile inputs
 * (truncations, bit flips, bad header fields, broken SPIR-V).
 *
 * Extra mode for the Python oracle test:
 *   test_vgf --me-dump IN.vgf OUT.json [LABEL]
 * writes vgf_write_model_explorer_graph's JSON and exits.
 */
#include "test.h"

#include <stdbool.h>
#include <stdint.h>

#include "core/file.h"
#include "core/json_write.h"
#include "backends/vgf/formats/vgf.h"
#include "backends/vgf/report/inspect_vgf.h"

typedef struct loaded {
    char *data;
    size_t size;
} loaded;

static loaded load(const char *rel)
{
    loaded l = {NULL, 0};
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_file_slurp(test_fixture(rel), &l.data, &l.size, &err) != 0)
        printf("cannot load %s: %s\n", rel, err.text);
    return l;
}

/* Decodes the hex text of synthetic-0.4.0-payload.hex ('#' lines are comments). */
static size_t unhex(const char *text, uint8_t *out, size_t cap)
{
    size_t n = 0;
    int hi = -1;
    bool comment = false;
    for (const char *p = text; *p; p++) {
        if (*p == '\n') {
            comment = false;
            continue;
        }
        if (comment)
            continue;
        if (*p == '#') {
            comment = true;
            continue;
        }
        int v = (*p >= '0' && *p <= '9') ? *p - '0' : (*p >= 'a' && *p <= 'f') ? *p - 'a' + 10
              : (*p >= 'A' && *p <= 'F') ? *p - 'A' + 10 : -1;
        if (v < 0)
            continue;
        if (hi < 0) {
            hi = v;
        } else {
            if (n < cap)
                out[n++] = (uint8_t)(hi << 4 | v);
            hi = -1;
        }
    }
    return n;
}

static int read_vgf(const void *data, size_t size, mlia_arena *a, vgf_file **f, mlia_error *err)
{
    mlia_error_clear(err);
    return vgf_read(data, size, "x.vgf", a, f, err);
}

static bool has_warning(const vgf_file *f, const char *text)
{
    for (uint32_t i = 0; i < f->n_warnings; i++)
        if (strcmp(f->warnings[i], text) == 0)
            return true;
    return false;
}

static const char *value_text(const vgf_operand *o, char *buf, size_t cap)
{
    size_t k = 0;
    buf[0] = 0;
    for (uint64_t i = 0; i < o->value.n_values && k + 24 < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, "%s%lld", i ? "," : "", (long long)o->value.values[i]);
    return buf;
}

/* ------------------------------------------------------------ vww4 */

static loaded vww4;
static mlia_arena vww4_arena;
static vgf_file *vww4_file;

TEST(vww4_container)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    CHECK(vww4_file != NULL);
    const vgf_file *f = vww4_file;
    CHECK_INT(f->size, 412728);
    CHECK(!f->legacy_magic);
    CHECK_INT(f->vk_header_version, 0);
    CHECK_INT(f->major, 0);
    CHECK_INT(f->minor, 3);
    CHECK_INT(f->patch, 0);
    const uint64_t sec[4][2] = {{128, 152576}, {152704, 680}, {153384, 6432}, {159816, 252912}};
    for (int i = 0; i < 4; i++) {
        CHECK_UINT(f->sections[i].offset, sec[i][0]);
        CHECK_UINT(f->sections[i].size, sec[i][1]);
    }
    CHECK_INT(f->n_warnings, 0);
    CHECK_INT(f->n_modules, 1);
    const vgf_module *m = &f->modules[0];
    CHECK_INT(m->type, VGF_MODULE_GRAPH);
    CHECK(mlia_str_eq(m->name, "graph_partition_0"));
    CHECK(mlia_str_eq(m->entry_point, "graph_partition_0"));
    CHECK_INT(m->code_type, VGF_CODE_SPIRV);
    CHECK_INT(m->n_words, 38114);
    CHECK_UINT(m->words_offset, 248);
    CHECK(!m->placeholder);
    CHECK(m->spirv != NULL);

    CHECK_INT(f->n_segments, 1);
    const vgf_segment *s = &f->segments[0];
    CHECK(mlia_str_eq(s->name, "graph_segment_0"));
    CHECK_INT(s->type, VGF_MODULE_GRAPH);
    CHECK_INT(s->module_index, 0);
    CHECK_INT(s->n_sets, 1);
    CHECK(!s->sets[0].has_set_index);
    CHECK_INT(s->sets[0].set_index, 0);
    CHECK_INT(s->sets[0].n_bindings, 2);
    CHECK_INT(s->sets[0].bindings[0].binding, 0);
    CHECK_INT(s->sets[0].bindings[0].mrt_index, 95);
    CHECK_INT(s->sets[0].bindings[1].binding, 1);
    CHECK_INT(s->sets[0].bindings[1].mrt_index, 96);
    CHECK_INT(s->n_inputs, 1);
    CHECK_INT(s->inputs[0].binding, 0);
    CHECK_INT(s->inputs[0].mrt_index, 95);
    CHECK_INT(s->n_outputs, 1);
    CHECK_INT(s->outputs[0].binding, 1);
    CHECK_INT(s->outputs[0].mrt_index, 96);
    CHECK_INT(s->n_constants, 95);
    for (uint32_t i = 0; i < 95; i++)
        CHECK_INT(s->constants[i], i);
    CHECK(s->has_dispatch);
    CHECK_INT(s->dispatch[0] | s->dispatch[1] | s->dispatch[2], 0);
    CHECK(s->has_push_ranges);
    CHECK_INT(s->n_push_ranges, 0);

    CHECK_INT(f->n_model_inputs, 1);
    CHECK_INT(f->model_inputs[0].binding, 0);
    CHECK_INT(f->model_inputs[0].mrt_index, 95);
    CHECK_INT(f->n_input_names, 1);
    CHECK(mlia_str_eq(f->input_names[0], "input"));
    CHECK_INT(f->n_model_outputs, 1);
    CHECK_INT(f->model_outputs[0].binding, 1);
    CHECK_INT(f->model_outputs[0].mrt_index, 96);
    CHECK(mlia_str_eq(f->output_names[0], "Identity"));
}

TEST(vww4_resources_and_constants)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    const vgf_file *f = vww4_file;
    CHECK(f != NULL);
    CHECK_INT(f->n_resources, 97);
    int r8 = 0, r32 = 0;
    for (uint32_t i = 0; i < 95; i++) {
        const vgf_resource *r = &f->resources[i];
        CHECK_INT(r->category, VGF_CATEGORY_CONSTANT);
        CHECK_UINT(r->descriptor_type, 0xFFFFFFFFu);
        r8 += r->format == 14;
        r32 += r->format == 99;
        CHECK_INT(r->n_strides, 0);
        CHECK_UINT(r->alias_group_id, 0xFFFFFFFFu);
    }
    CHECK_INT(r8, 54);
    CHECK_INT(r32, 41);
    const vgf_resource *r0 = &f->resources[0];
    CHECK_INT(r0->rank, 4);
    CHECK_INT(r0->shape[0], 3);
    CHECK_INT(r0->shape[1], 3);
    CHECK_INT(r0->shape[2], 96);
    CHECK_INT(r0->shape[3], 1);
    const vgf_resource *in = &f->resources[95], *out = &f->resources[96];
    CHECK_INT(in->category, VGF_CATEGORY_INPUT);
    CHECK_UINT(in->descriptor_type, VGF_DESCRIPTOR_TENSOR_ARM);
    CHECK_STR(vgf_format_name(in->format), "R8_SINT");
    CHECK_INT(in->rank, 4);
    CHECK_INT(in->shape[1], 128);
    CHECK_INT(out->category, VGF_CATEGORY_OUTPUT);
    CHECK_INT(out->rank, 2);
    CHECK_INT(out->shape[0], 1);
    CHECK_INT(out->shape[1], 2);
    CHECK_STR(vgf_descriptor_type_name(out->descriptor_type), "TENSOR_ARM");

    CHECK(!f->constants_raw);
    CHECK_INT(f->n_constants, 95);
    uint64_t base = f->sections[VGF_SECTION_CONSTANT].offset;
    CHECK_INT(f->constants[0].size, 864);
    CHECK_UINT(f->constants[0].file_offset - base, 252048);
    CHECK_INT(f->constants[94].size, 72);
    CHECK_UINT(f->constants[94].file_offset - base, 432);
    for (uint32_t i = 0; i < 95; i++) {
        const vgf_constant *c = &f->constants[i];
        CHECK_INT(c->mrt_index, i);
        CHECK_INT(c->sparsity_dimension, -1);
        CHECK_INT((c->file_offset - base) % 8, 0);
        if (i)
            CHECK(c->file_offset < f->constants[i - 1].file_offset);
        const vgf_resource *r = &f->resources[i];
        uint64_t n = vgf_format_elem_bytes(r->format);
        for (uint32_t k = 0; k < r->rank; k++)
            n *= (uint64_t)r->shape[k];
        CHECK_UINT(n, c->size);
    }
}

TEST(vww4_spirv)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    const spv_module *m = vww4_file ? vww4_file->modules[0].spirv : NULL;
    CHECK(m != NULL);
    CHECK_UINT(m->version, 0x00010500);
    CHECK_UINT(m->generator, 0x00160016);
    CHECK_INT(m->bound, 6293);
    CHECK_INT(m->n_insts, 6313);
    CHECK_INT(m->n_imports, 1);
    CHECK_INT(m->imports[0].id, 6013);
    CHECK_STR(m->imports[0].name, "TOSA.001000.1");
    static const struct { uint16_t op; uint32_t n; } counts[] = {
        {SPV_OP_CONSTANT, 5554}, {SPV_OP_CONSTANT_COMPOSITE, 312}, {SPV_OP_EXT_INST, 168},
        {SPV_OP_TYPE_TENSOR_ARM, 139}, {SPV_OP_GRAPH_CONSTANT_ARM, 95}, {SPV_OP_CONSTANT_COMPOSITE_REPLICATE, 5},
        {SPV_OP_CONSTANT_NULL, 3}, {SPV_OP_TYPE_ARRAY, 3}, {SPV_OP_DECORATE, 4}, {SPV_OP_NAME, 2},
        {SPV_OP_VARIABLE, 2}, {SPV_OP_TYPE_POINTER, 2}, {SPV_OP_TYPE_INT, 2}, {SPV_OP_TYPE_BOOL, 1},
        {SPV_OP_CONSTANT_TRUE, 1}, {SPV_OP_CONSTANT_FALSE, 1}, {SPV_OP_COMPOSITE_EXTRACT, 0}, {SPV_OP_MEMORY_MODEL, 1},
    };
    for (size_t i = 0; i < sizeof counts / sizeof counts[0]; i++)
        CHECK_INT(spv_count_opcode(m, counts[i].op), counts[i].n);
    CHECK_INT(spv_find_set(m, SPV_SET_DEBUG_GRAPH), 0);
    CHECK_INT(m->ids[3].opcode, SPV_OP_TYPE_INT);
    CHECK_INT(m->words[m->ids[3].word + 2], 8);
    CHECK_INT(m->words[m->ids[4].word + 2], 32);
    CHECK_INT(m->words[m->ids[4].word + 3], 0);
    /* memory model Logical / Vulkan */
    for (uint32_t i = 0; i < m->n_insts; i++)
        if (spv_inst_opcode(m, m->inst_words[i]) == SPV_OP_MEMORY_MODEL) {
            CHECK_INT(m->words[m->inst_words[i] + 1], 0);
            CHECK_INT(m->words[m->inst_words[i] + 2], 3);
        }
    CHECK_STR(m->ids[10].name, "graph_partition_0_arg_0");
    CHECK_STR(m->ids[16].name, "graph_partition_0_res_0");
    CHECK_INT(m->ids[10].binding, 0);
    CHECK_INT(m->ids[10].set, 0);
    CHECK_INT(m->ids[16].binding, 1);
    CHECK_INT(m->ids[16].set, 0);
    CHECK_INT(m->n_entry_points, 1);
    CHECK_INT(m->entry_points[0].graph_id, 17);
    CHECK_STR(m->entry_points[0].name, "graph_partition_0");
    CHECK_INT(m->entry_points[0].n_interface, 2);
    CHECK_INT(m->entry_points[0].interface[0], 10);
    CHECK_INT(m->entry_points[0].interface[1], 16);
    CHECK(m->entry_points[0].word < m->ids[17].word); /* forward reference */
    CHECK_INT(m->n_graphs, 1);
    const spv_graph *g = &m->graphs[0];
    CHECK_INT(g->id, 17);
    CHECK_INT(g->type_id, 18);
    CHECK_INT(g->num_inputs, 1);
    CHECK_INT(g->n_io_types, 2);
    CHECK_INT(g->io_types[0], 2);
    CHECK_INT(g->io_types[1], 12);
    CHECK_INT(g->n_inputs, 1);
    CHECK_INT(g->inputs[0].id, 19);
    CHECK_INT(g->inputs[0].index, 0);
    CHECK_INT(g->n_outputs, 1);
    CHECK_INT(g->outputs[0].value.id, 6292);
    CHECK_INT(g->outputs[0].index, 0);
    mlia_buf t;
    mlia_buf_init(&t);
    spv_type_text(m, g->inputs[0].type, &t);
    mlia_buf_putc(&t, 0);
    CHECK_STR(t.data, "!spirv.arm.tensor<1x128x128x1xi8>");
    t.len = 0;
    spv_type_text(m, spv_value_type(m, 6292), &t);
    mlia_buf_putc(&t, 0);
    CHECK_STR(t.data, "!spirv.arm.tensor<1x2xi8>");
    mlia_buf_free(&t);
    /* graph constants %25 (ID 0) ... %5991 (ID 94), IDs rising with the id */
    CHECK_INT(m->n_graph_constants, 95);
    CHECK_INT(m->graph_constants[0].id, 25);
    CHECK_INT(m->graph_constants[0].constant_id, 0);
    CHECK_INT(m->graph_constants[94].id, 5991);
    CHECK_INT(m->graph_constants[94].constant_id, 94);
    for (uint32_t i = 1; i < 95; i++)
        CHECK(m->graph_constants[i].constant_id > m->graph_constants[i - 1].constant_id &&
              m->graph_constants[i].id > m->graph_constants[i - 1].id);
    /* first-use order 94, 93, 16, 92, 91, 15 */
    const uint32_t first_use[6] = {94, 93, 16, 92, 91, 15};
    uint32_t seen = 0;
    bool used[95] = {false};
    for (uint32_t k = 0; k < g->n_ops && seen < 6; k++)
        for (uint32_t i = 0; i < g->ops[k].n_operands && seen < 6; i++) {
            const spv_operand *o = &g->ops[k].operands[i];
            if (o->cls == SPV_VALUE_GRAPH_CONSTANT && !used[o->index]) {
                used[o->index] = true;
                CHECK_INT(o->index, first_use[seen]);
                seen++;
            }
        }
    CHECK_INT(seen, 6);
}

TEST(vww4_tosa_graph)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    const vgf_segment *s = vww4_file ? &vww4_file->segments[0] : NULL;
    CHECK(s != NULL && s->graph != NULL);
    CHECK_INT(s->n_operations, 168);
    static const char *const names[] = {"RESCALE", "CONV2D", "DEPTHWISE_CONV2D", "ADD", "PAD", "AVG_POOL2D", "RESHAPE"};
    static const int expect[] = {94, 37, 17, 10, 8, 1, 1};
    int hist[7] = {0}, i32_results = 0, i32_rescale = 0;
    int cls[5] = {0}, graph_in = 0;
    int kinds[5] = {0}; /* bool composite null scalar replicate */
    int conv_w = 0, conv_b = 0, dw_w = 0, dw_b = 0;
    for (uint32_t k = 0; k < s->n_operations; k++) {
        const vgf_operation *op = &s->operations[k];
        CHECK(op->is_tosa);
        for (int n = 0; n < 7; n++)
            hist[n] += strcmp(op->op, names[n]) == 0;
        size_t rl = strlen(op->result_type);
        if (rl > 4 && strcmp(op->result_type + rl - 4, "i32>") == 0) {
            i32_results++;
            i32_rescale += strcmp(op->op, "RESCALE") == 0;
        }
        for (uint32_t i = 0; i < op->n_operands; i++) {
            const vgf_operand *o = &op->operands[i];
            cls[o->ref.cls]++;
            graph_in += o->ref.cls == SPV_VALUE_GRAPH_INPUT;
            if (o->ref.cls == SPV_VALUE_MODULE_CONSTANT) {
                CHECK(o->has_value);
                static const char *const kn[] = {"bool", "composite", "null", "scalar", "replicate"};
                for (int n = 0; n < 5; n++)
                    kinds[n] += strcmp(o->const_kind, kn[n]) == 0;
            }
            if (o->ref.cls == SPV_VALUE_GRAPH_CONSTANT) {
                bool conv = strcmp(op->op, "CONV2D") == 0, dw = strcmp(op->op, "DEPTHWISE_CONV2D") == 0;
                bool w = strcmp(o->name, "weight") == 0, b = strcmp(o->name, "bias") == 0;
                conv_w += conv && w;
                conv_b += conv && b;
                dw_w += dw && w;
                dw_b += dw && b;
                CHECK_INT(o->resource, o->ref.index);
            }
        }
    }
    for (int n = 0; n < 7; n++)
        CHECK_INT(hist[n], expect[n]);
    CHECK_INT(i32_results, 94);
    CHECK_INT(i32_rescale, 30);
    CHECK_INT(cls[SPV_VALUE_GRAPH_INPUT], 1);
    CHECK_INT(cls[SPV_VALUE_OP_RESULT], 177);
    CHECK_INT(cls[SPV_VALUE_GRAPH_CONSTANT], 95);
    CHECK_INT(cls[SPV_VALUE_MODULE_CONSTANT], 1260);
    CHECK_INT(cls[SPV_VALUE_UNRESOLVED], 0);
    CHECK_INT(kinds[0], 430);
    CHECK_INT(kinds[1], 353);
    CHECK_INT(kinds[2], 204);
    CHECK_INT(kinds[3], 149);
    CHECK_INT(kinds[4], 124);
    CHECK_INT(conv_w, 37);
    CHECK_INT(conv_b, 27);
    CHECK_INT(dw_w, 17);
    CHECK_INT(dw_b, 14);
}

TEST(vww4_first_ops)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    const vgf_segment *s = vww4_file ? &vww4_file->segments[0] : NULL;
    CHECK(s != NULL && s->n_operations == 168);
    char buf[512];
    const vgf_operation *c = &s->operations[0];
    CHECK_INT(c->id, 6012);
    CHECK_STR(c->op, "CONV2D");
    CHECK_STR(c->label, "Conv2D");
    CHECK_STR(c->result_type, "!spirv.arm.tensor<1x64x64x8xi32>");
    CHECK(c->debug_name == NULL);
    CHECK_INT(c->n_operands, 10);
    CHECK_STR(c->operands[0].name, "pad");
    CHECK_STR(c->operands[0].const_kind, "composite");
    CHECK_STR(value_text(&c->operands[0], buf, sizeof buf), "0,1,0,1");
    CHECK_STR(c->operands[1].const_kind, "replicate");
    CHECK_STR(value_text(&c->operands[1], buf, sizeof buf), "2,2");
    CHECK_STR(c->operands[2].const_kind, "replicate");
    CHECK_STR(value_text(&c->operands[2], buf, sizeof buf), "1,1");
    CHECK_INT(c->operands[3].ref.id, 8);
    CHECK_INT(c->operands[3].kind, TOSA_ATTR_ACC_TYPE);
    CHECK_STR(tosa_enum_name(TOSA_ATTR_ACC_TYPE, c->operands[3].value.values[0]), "INT32");
    CHECK_STR(c->operands[4].name, "local_bound");
    CHECK_INT(c->operands[4].value.values[0], 0);
    CHECK_INT(c->operands[5].ref.cls, SPV_VALUE_GRAPH_INPUT);
    CHECK_INT(c->operands[5].ref.index, 0);
    CHECK_INT(c->operands[5].resource, 95);
    CHECK_INT(c->operands[6].ref.cls, SPV_VALUE_GRAPH_CONSTANT);
    CHECK_INT(c->operands[6].ref.index, 94);
    CHECK_STR(c->operands[7].name, "bias");
    CHECK_STR(c->operands[7].type_text, "!spirv.arm.tensor<8xi32>");
    CHECK_STR(value_text(&c->operands[7], buf, sizeof buf), "-27360,1636,7154,-24806,30480,73967,71076,6582");
    CHECK_STR(c->operands[8].type_text, "!spirv.arm.tensor<1xi8>");
    CHECK_STR(value_text(&c->operands[8], buf, sizeof buf), "-70");
    CHECK_STR(c->operands[9].const_kind, "null");

    const vgf_operation *r = &s->operations[1];
    CHECK_INT(r->id, 6017);
    CHECK_STR(r->op, "RESCALE");
    CHECK_STR(r->result_type, "!spirv.arm.tensor<1x64x64x8xi8>");
    CHECK_INT(r->operands[0].value.values[0], 1);
    CHECK_INT(r->operands[1].ref.id, 23);
    CHECK_STR(tosa_enum_name(TOSA_ATTR_ROUNDING, r->operands[1].value.values[0]), "DOUBLE_ROUND");
    CHECK_INT(r->operands[2].value.values[0], 1);
    CHECK_INT(r->operands[3].value.values[0], 0);
    CHECK_INT(r->operands[4].value.values[0], 0);
    CHECK_INT(r->operands[5].ref.cls, SPV_VALUE_OP_RESULT);
    CHECK_INT(r->operands[5].producer_id, 6012);
    CHECK_INT(r->operands[6].value.values[0], 1123639058);
    CHECK_STR(value_text(&r->operands[7], buf, sizeof buf), "39,40,39,41,39,40,40,38");
    CHECK_STR(r->operands[8].const_kind, "null");
    CHECK_STR(r->operands[8].type_text, "!spirv.arm.tensor<1xi32>");
    CHECK_STR(value_text(&r->operands[9], buf, sizeof buf), "-128");

    const vgf_operation *c2 = &s->operations[2];
    CHECK_STR(c2->op, "CONV2D");
    CHECK_STR(c2->result_type, "!spirv.arm.tensor<1x64x64x4xi32>");
    CHECK_STR(c2->operands[0].const_kind, "null");
    CHECK_INT(c2->operands[6].ref.index, 93);
    CHECK_STR(value_text(&c2->operands[7], buf, sizeof buf), "-24357,7757,44896,9379");
    CHECK_STR(value_text(&c2->operands[8], buf, sizeof buf), "-128");
    CHECK_STR(s->operations[3].op, "RESCALE");
    CHECK_STR(s->operations[3].result_type, "!spirv.arm.tensor<1x64x64x4xi8>");
    const vgf_operation *dw = &s->operations[4];
    CHECK_STR(dw->op, "DEPTHWISE_CONV2D");
    CHECK_STR(dw->operands[0].const_kind, "replicate");
    CHECK_STR(value_text(&dw->operands[0], buf, sizeof buf), "1,1,1,1");
    CHECK_INT(dw->operands[6].ref.index, 16);

    /* first PAD, first ADD, the AVG_POOL2D, the tail */
    const vgf_operation *pad = NULL, *add = NULL, *pool = NULL;
    for (uint32_t k = 0; k < s->n_operations; k++) {
        const vgf_operation *op = &s->operations[k];
        if (!pad && strcmp(op->op, "PAD") == 0)
            pad = op;
        if (!add && strcmp(op->op, "ADD") == 0)
            add = op;
        if (!pool && strcmp(op->op, "AVG_POOL2D") == 0)
            pool = op;
    }
    CHECK(pad && add && pool);
    CHECK_STR(pad->result_type, "!spirv.arm.tensor<1x32x32x16xi8>");
    CHECK_STR(pad->operands[0].type_text, "!spirv.arm.tensor<1x32x32x12xi8>");
    CHECK_STR(value_text(&pad->operands[1], buf, sizeof buf), "0,0,0,0,0,0,0,4");
    CHECK_STR(value_text(&pad->operands[2], buf, sizeof buf), "-30");
    CHECK_STR(add->result_type, "!spirv.arm.tensor<1x32x32x16xi32>");
    CHECK_INT(add->operands[0].ref.cls, SPV_VALUE_OP_RESULT);
    CHECK_INT(add->operands[1].ref.cls, SPV_VALUE_OP_RESULT);
    CHECK_STR(pool->result_type, "!spirv.arm.tensor<1x1x1x128xi8>");
    CHECK_INT(pool->operands[0].ref.id, pool->operands[1].ref.id);
    CHECK_STR(value_text(&pool->operands[0], buf, sizeof buf), "4,4");
    CHECK_STR(pool->operands[2].const_kind, "null");
    CHECK_INT(pool->operands[3].value.values[0], 1);
    CHECK_STR(s->operations[165].op, "CONV2D");
    CHECK_STR(s->operations[165].result_type, "!spirv.arm.tensor<1x1x1x2xi32>");
    CHECK_STR(s->operations[166].op, "RESCALE");
    CHECK_STR(value_text(&s->operations[166].operands[9], buf, sizeof buf), "-17");
    const vgf_operation *last = &s->operations[167];
    CHECK_INT(last->id, 6292);
    CHECK_STR(last->op, "RESHAPE");
    CHECK_STR(last->result_type, "!spirv.arm.tensor<1x2xi8>");
    CHECK_STR(value_text(&last->operands[1], buf, sizeof buf), "1,2");
}

TEST(vww4_name_map)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    vgf_name_map nm;
    vgf_segment_name_map(vww4_file, 0, &nm);
    CHECK_INT(nm.n, 168);
    CHECK_INT(nm.ids[0], 6012);
    CHECK_INT(nm.ids[1], 6017);
    CHECK_INT(nm.ids[167], 6292);
    for (uint32_t i = 0; i < nm.n; i++)
        CHECK(nm.names[i] == NULL); /* no debug info in vww4 */
    CHECK(vgf_segment_has_spirv_id(vww4_file, 0, 6012));
    CHECK(vgf_segment_has_spirv_id(vww4_file, 0, 6292));
    CHECK(!vgf_segment_has_spirv_id(vww4_file, 0, 19));   /* graph input */
    CHECK(!vgf_segment_has_spirv_id(vww4_file, 0, 5991)); /* graph constant */
    CHECK(!vgf_segment_has_spirv_id(vww4_file, 0, 999999));
    CHECK(!vgf_segment_has_spirv_id(vww4_file, 1, 6012));
    vgf_segment_name_map(vww4_file, 7, &nm);
    CHECK_INT(nm.n, 0);
}

TEST(vww4_model_explorer_in_c)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    vgf_write_model_explorer_graph_labelled(vww4_file, "input", &w);
    mlia_buf_putc(&b, 0);
    const char *j = b.data;
    int nodes = 0, edges = 0;
    for (const char *p = j; (p = strstr(p, "\"subgraphIds\"")); p++)
        nodes++;
    for (const char *p = j; (p = strstr(p, "\"sourceNodeId\"")); p++)
        edges++;
    CHECK_INT(nodes, 173);
    CHECK_INT(edges, 1537);
    const char *head = "{\"label\":\"input\",\"graphs\":[{\"id\":\"Main\",\"nodes\":[{\"id\":\"GraphInputs\"";
    CHECK(strncmp(j, head, strlen(head)) == 0);
    CHECK_CONTAINS(j, "{\"id\":\"9\",\"label\":\"Conv2D\",\"namespace\":\"graph_partition_0\"");
    CHECK_CONTAINS(j, "{\"id\":\"19\",\"label\":\"Rescale\"");
    CHECK_CONTAINS(j, "{\"id\":\"1522\",\"label\":\"Reshape\"");
    CHECK_CONTAINS(j, "{\"id\":\"1523\",\"label\":\"GraphOutputs\"");
    CHECK_CONTAINS(j, "{\"key\":\"rounding_mode\",\"value\":\"DOUBLE_ROUND\"}");
    CHECK_CONTAINS(j, "{\"sourceNodeId\":\"mrt_95\",\"sourceNodeOutputId\":\"0\",\"targetNodeInputId\":\"5\"}");
    CHECK_CONTAINS(j, "{\"key\":\"Shape\",\"value\":\"[1, 128, 128, 1]\"}");
    CHECK_CONTAINS(j, "\"layoutConfigs\":null}]}");
    mlia_buf_free(&b);
}

TEST(vww4_inspect_json)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    inspect_vgf(vww4_file, &w);
    mlia_buf_putc(&b, 0);
    const char *j = b.data;
    CHECK(strncmp(j, "{\"format\":\"vgf\",\"version\":\"0.3.0\",\"header\":{", 44) == 0);
    CHECK_CONTAINS(j, "\"segments\":[{\"index\":0,\"type\":\"graph\",\"name\":\"graph_segment_0\",\"module\":0,\"placeholder\":false");
    CHECK_CONTAINS(j, "{\"id\":6012,\"op\":\"CONV2D\",\"label\":\"Conv2D\",\"inputs\":[{\"name\":\"input\",\"class\":\"graph_input\",\"id\":19");
    CHECK_CONTAINS(j, "{\"name\":\"bias\",\"class\":\"module_constant\",\"id\":5992,\"type\":\"!spirv.arm.tensor<8xi32>\",\"kind\":\"composite\",\"values\":[-27360,1636,7154,-24806,30480,73967,71076,6582]}");
    CHECK_CONTAINS(j, "\"attributes\":{\"pad\":[0,1,0,1],\"stride\":[2,2],\"dilation\":[1,1],\"acc_type\":\"INT32\",\"local_bound\":false},\"result_type\":\"!spirv.arm.tensor<1x64x64x8xi32>\",\"debug_name\":null}");
    CHECK_CONTAINS(j, "{\"index\":95,\"category\":\"INPUT\",\"shape\":[1,128,128,1],\"format\":\"R8_SINT\",\"descriptor_type\":\"TENSOR_ARM\"}");
    CHECK_CONTAINS(j, "{\"index\":0,\"resource\":0,\"size\":864,\"sparsity_dimension\":-1,\"offset\":411864}");
    CHECK_CONTAINS(j, "\"warnings\":[]}");
    mlia_buf_free(&b);
}

/* ------------------------------------------------------ library files */

typedef struct lib_case {
    const char *file;
    size_t size;
    uint8_t minor, patch;
    uint64_t sec[4][2];
    bool raw;
    const char *module, *segment;
    uint32_t n_resources, n_constants;
} lib_case;

static const lib_case lib_cases[4] = {
    {"vgf/simple_conv2d_rescale_graph_outdated.vgf", 1940, 3, 0, {{128, 112}, {240, 316}, {556, 288}, {844, 1096}},
     false, "conv2d_rescale", "segment_conv2d_rescale_graph2", 3, 1},
    {"vgf/simple_conv2d_rescale_graph_v0_4_3.vgf", 1912, 4, 3, {{128, 112}, {240, 316}, {560, 288}, {848, 1064}},
     true, "conv2d_rescale", "segment_conv2d_rescale_graph2", 3, 1},
    {"vgf/single_maxpool_graph_pre_v0_4_0.vgf", 776, 3, 0, {{128, 112}, {240, 304}, {544, 208}, {752, 24}}, false,
     "single_maxpool", "segment_maxpool_graph1", 2, 0},
    {"vgf/single_maxpool_graph_v0_4_3.vgf", 768, 4, 3, {{128, 112}, {240, 304}, {544, 208}, {752, 16}}, true,
     "single_maxpool", "segment_maxpool_graph1", 2, 0},
};

TEST(library_files)
{
    for (int c = 0; c < 4; c++) {
        const lib_case *lc = &lib_cases[c];
        loaded l = load(lc->file);
        CHECK(l.data != NULL);
        CHECK_INT(l.size, lc->size);
        mlia_arena a;
        mlia_arena_init(&a);
        vgf_file *f;
        mlia_error err;
        int rc = read_vgf(l.data, l.size, &a, &f, &err);
        if (rc)
            printf("%s\n", err.text);
        CHECK_INT(rc, 0);
        CHECK_INT(f->vk_header_version, 999);
        CHECK_INT(f->minor, lc->minor);
        CHECK_INT(f->patch, lc->patch);
        for (int s = 0; s < 4; s++) {
            CHECK_UINT(f->sections[s].offset, lc->sec[s][0]);
            CHECK_UINT(f->sections[s].size, lc->sec[s][1]);
        }
        CHECK_INT(f->constants_raw, lc->raw);
        CHECK_INT(f->n_modules, 1);
        const vgf_module *m = &f->modules[0];
        CHECK_INT(m->type, VGF_MODULE_GRAPH);
        CHECK_INT(m->code_type, VGF_CODE_SPIRV);
        CHECK_INT(m->n_words, 1);
        CHECK(m->placeholder);
        CHECK(m->spirv == NULL);
        CHECK(mlia_str_eq(m->entry_point, "main"));
        CHECK(mlia_str_eq(m->name, lc->module));
        CHECK_INT(f->n_segments, 1);
        const vgf_segment *s = &f->segments[0];
        CHECK(mlia_str_eq(s->name, lc->segment));
        CHECK_INT(s->module_index, 0);
        CHECK_INT(s->n_sets, 1);
        CHECK(!s->sets[0].has_set_index);
        CHECK_INT(s->sets[0].n_bindings, 2);
        CHECK_INT(s->sets[0].bindings[1].binding, 1);
        CHECK_INT(s->sets[0].bindings[1].mrt_index, 1);
        CHECK_INT(s->inputs[0].mrt_index, 0);
        CHECK_INT(s->outputs[0].binding, 1);
        CHECK(s->has_dispatch);
        CHECK_INT(s->n_push_ranges, 0);
        CHECK(s->graph == NULL);
        CHECK_INT(s->n_operations, 0);
        CHECK(mlia_str_eq(f->input_names[0], "input_0"));
        CHECK(mlia_str_eq(f->output_names[0], "output_0"));
        CHECK_INT(f->n_resources, lc->n_resources);
        CHECK_INT(f->resources[0].category, VGF_CATEGORY_INPUT);
        CHECK_INT(f->resources[0].shape[1], 16);
        CHECK_INT(f->resources[1].category, VGF_CATEGORY_OUTPUT);
        CHECK_INT(f->resources[1].shape[1], 8);
        CHECK_INT(f->resources[1].format, 14);
        CHECK_INT(f->n_constants, lc->n_constants);
        CHECK(s->has_constants);
        CHECK_INT(s->n_constants, lc->n_constants);
        if (lc->n_constants) {
            const vgf_constant *k = &f->constants[0];
            CHECK_INT(k->mrt_index, 2);
            CHECK_INT(k->sparsity_dimension, -1);
            CHECK_INT(k->size, 1024);
            CHECK_UINT(k->file_offset, lc->raw ? 848 + 40 : 916);
            for (int i = 0; i < 1024; i++)
                CHECK_INT(k->data[i], 0);
            CHECK_INT(f->resources[2].category, VGF_CATEGORY_CONSTANT);
            CHECK_UINT(f->resources[2].descriptor_type, 0xFFFFFFFFu);
            CHECK_INT(f->resources[2].shape[0], 16);
        }
        char w1[200], w2[200];
        snprintf(w1, sizeof w1, "module 0 (%s): placeholder module (no embedded SPIR-V code)", lc->module);
        snprintf(w2, sizeof w2, "segment 0 (%s): graph segment with a placeholder module; no operation graph", lc->segment);
        CHECK_INT(f->n_warnings, 2);
        CHECK(has_warning(f, w1));
        CHECK(has_warning(f, w2));
        /* within a pair, the first three sections are byte-identical */
        if (c % 2 == 1) {
            loaded o = load(lib_cases[c - 1].file);
            for (int s2 = 0; s2 < 3; s2++)
                CHECK(memcmp(l.data + lc->sec[s2][0], o.data + lib_cases[c - 1].sec[s2][0], lc->sec[s2][1]) == 0);
            free(o.data);
        }
        mlia_arena_free(&a);
        free(l.data);
    }
}

TEST(synthetic_payload_resource_section_invalid)
{
    loaded l = load("vgf/synthetic-0.4.0-payload.hex");
    CHECK(l.data != NULL);
    uint8_t bytes[1024];
    size_t n = unhex(l.data, bytes, sizeof bytes);
    free(l.data);
    CHECK_INT(n, 264);
    mlia_arena a;
    mlia_arena_init(&a);
    vgf_file *f;
    mlia_error err;
    CHECK_INT(read_vgf(bytes, n, &a, &f, &err), -1);
    CHECK_STR(err.text, "x.vgf: resource section invalid: root offset 0 out of range at byte 216");
    mlia_arena_free(&a);
}

/* ------------------------------------------------------ bad inputs */

static void expect_fail(const void *data, size_t size, const char *msg)
{
    mlia_arena a;
    mlia_arena_init(&a);
    vgf_file *f;
    mlia_error err;
    int rc = read_vgf(data, size, &a, &f, &err);
    mlia_arena_free(&a);
    if (rc != -1)
        TEST_FAIL_AT("accepted, expected \"%s\"", msg);
    else if (strcmp(err.text, msg) != 0)
        TEST_FAIL_AT("error \"%s\", expected \"%s\"", err.text, msg);
}

TEST(header_errors)
{
    loaded l = load("vgf/single_maxpool_graph_v0_4_3.vgf");
    CHECK(l.data != NULL);
    uint8_t *d = (uint8_t *)l.data;
    expect_fail(d, 127, "x.vgf: file too short for a VGF header (127 bytes, need 128)");
    expect_fail(d, 0, "x.vgf: file too short for a VGF header (0 bytes, need 128)");
    d[0] = 'X';
    expect_fail(d, l.size, "x.vgf: not a VGF file: bad magic 58 47 46 31 (byte 0)");
    d[0] = 'V';
    d[8] = 1;
    expect_fail(d, l.size, "x.vgf: unsupported VGF version 1.4.3 (supported: 0.0 to 0.4) (byte 8)");
    d[8] = 0;
    d[9] = 5;
    expect_fail(d, l.size, "x.vgf: unsupported VGF version 0.5.3 (supported: 0.0 to 0.4) (byte 8)");
    d[9] = 4;
    /* constant section size one byte too large */
    d[72] = 17;
    expect_fail(d, l.size, "x.vgf: constant section (offset 752, size 17) lies outside the 768-byte file (byte 64)");
    d[72] = 16;
    /* huge offset: overflow-safe */
    memset(d + 64, 0xFF, 8);
    expect_fail(d, l.size,
                "x.vgf: constant section (offset 18446744073709551615, size 16) lies outside the 768-byte file (byte 64)");
    memcpy(d + 64, "\xf0\x02\0\0\0\0\0\0", 8);
    /* legacy magic is accepted with a warning; reserved fields warn */
    memcpy(d, "\xc3\xd2\xe1\xf0", 4);
    d[11] = 7;
    mlia_arena a;
    mlia_arena_init(&a);
    vgf_file *f;
    mlia_error err;
    CHECK_INT(read_vgf(d, l.size, &a, &f, &err), 0);
    CHECK(f->legacy_magic);
    CHECK(has_warning(f, "header: deprecated magic 0xF0E1D2C3"));
    CHECK(has_warning(f, "header: reserved field at byte 11 is 7, expected 0"));
    mlia_arena_free(&a);
    /* overlapping sections warn (resource grown into the constant section) */
    memcpy(d, "VGF1", 4);
    d[11] = 0;
    d[56] = 216;
    mlia_arena_init(&a);
    CHECK_INT(read_vgf(d, l.size, &a, &f, &err), 0);
    CHECK_INT(f->n_warnings, 3);
    CHECK(has_warning(f, "header: resource and constant sections overlap"));
    mlia_arena_free(&a);
    free(l.data);
}

TEST(section_and_cross_reference_errors)
{
    loaded l = load("vgf/single_maxpool_graph_v0_4_3.vgf");
    CHECK(l.data != NULL);
    uint8_t *d = (uint8_t *)l.data;
    /* module section shorter than a FlatBuffer */
    d[24] = 8;
    expect_fail(d, l.size, "x.vgf: module section invalid: size 8 is below the 12 bytes of a FlatBuffer (byte 128)");
    d[24] = 112;
    /* constant section: CONST00 count too large */
    d[752 + 8] = 1;
    expect_fail(d, l.size, "x.vgf: constant section invalid: count 1 does not fit the 16-byte section (byte 760)");
    d[752 + 8] = 0;
    /* module root offset 0 */
    memset(d + 128, 0, 4);
    expect_fail(d, l.size, "x.vgf: module section invalid: root offset 0 out of range at byte 128");
    free(l.data);

    loaded c = load("vgf/simple_conv2d_rescale_graph_v0_4_3.vgf");
    CHECK(c.data != NULL);
    d = (uint8_t *)c.data;
    /* CONST00 record: data beyond the payload */
    d[848 + 16 + 16] = 1; /* offset 1 */
    expect_fail(d, c.size,
                "x.vgf: constant section invalid: constant 0 data (offset 1, size 1024) exceeds the 1024-byte payload (byte 864)");
    d[848 + 16 + 16] = 0;
    /* sparsity below -1 */
    memcpy(d + 848 + 16 + 4, "\xfe\xff\xff\xff", 4);
    expect_fail(d, c.size, "x.vgf: constant section invalid: constant 0 sparsity_dimension -2 is below -1 (byte 868)");
    memcpy(d + 848 + 16 + 4, "\xff\xff\xff\xff", 4);
    /* constant record pointing at a missing resource (X3) */
    d[848 + 16] = 9;
    expect_fail(d, c.size, "x.vgf: constant section invalid: constant 0 mrt_index 9 is out of range (3 resources)");
    d[848 + 16] = 2;
    free(c.data);
}

TEST(truncations_never_accepted)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    /* Every section ends at EOF in these files, so every shorter length must
     * fail (and never crash under ASan). */
    for (int c = 0; c < 4; c++) {
        loaded l = load(lib_cases[c].file);
        CHECK(l.data != NULL);
        for (size_t n = 0; n < l.size; n++) {
            uint8_t *copy = malloc(n ? n : 1);
            memcpy(copy, l.data, n);
            mlia_arena a;
            mlia_arena_init(&a);
            vgf_file *f;
            mlia_error err;
            int rc = read_vgf(copy, n, &a, &f, &err);
            mlia_arena_free(&a);
            free(copy);
            if (rc != -1) {
                TEST_FAIL_AT("%s truncated to %zu bytes accepted", lib_cases[c].file, n);
                return;
            }
        }
        free(l.data);
    }
    /* vww4: the header area, every section boundary +-64, and a stride */
    CHECK(vww4.data != NULL);
    size_t lens[2048], nl = 0;
    for (size_t n = 0; n < 300; n++)
        lens[nl++] = n;
    for (int s = 0; s < 4; s++)
        for (int dlt = -64; dlt <= 64; dlt += 4) {
            int64_t n = (int64_t)vww4_file->sections[s].offset + dlt;
            if (n > 0 && (uint64_t)n < vww4.size)
                lens[nl++] = (size_t)n;
        }
    for (size_t n = 300; n < vww4.size && nl < 2048; n += 997)
        lens[nl++] = n;
    lens[nl++] = vww4.size - 1;
    for (size_t i = 0; i < nl; i++) {
        uint8_t *copy = malloc(lens[i] ? lens[i] : 1);
        memcpy(copy, vww4.data, lens[i]);
        mlia_arena a;
        mlia_arena_init(&a);
        vgf_file *f;
        mlia_error err;
        int rc = read_vgf(copy, lens[i], &a, &f, &err);
        mlia_arena_free(&a);
        free(copy);
        if (rc != -1) {
            TEST_FAIL_AT("vww4 truncated to %zu bytes accepted", lens[i]);
            return;
        }
    }
    /* exact message of one truncation */
    expect_fail(vww4.data, 412727,
                "x.vgf: constant section (offset 159816, size 252912) lies outside the 412727-byte file (byte 64)");
}

TEST(bit_flips_never_crash)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    int accepted = 0, rejected = 0;
    for (int c = 0; c < 4; c++) {
        loaded l = load(lib_cases[c].file);
        CHECK(l.data != NULL);
        uint8_t *d = (uint8_t *)l.data;
        for (size_t i = 0; i < l.size; i++)
            for (int bit = 0; bit < 8; bit++) {
                d[i] ^= (uint8_t)(1u << bit);
                mlia_arena a;
                mlia_arena_init(&a);
                vgf_file *f;
                mlia_error err;
                if (read_vgf(d, l.size, &a, &f, &err) == 0) {
                    accepted++;
                    mlia_buf b;
                    mlia_buf_init(&b);
                    mlia_jw w;
                    mlia_jw_init_buf(&w, &b, false);
                    inspect_vgf(f, &w);
                    mlia_buf_free(&b);
                } else {
                    rejected++;
                    CHECK(strncmp(err.text, "x.vgf: ", 7) == 0);
                }
                mlia_arena_free(&a);
                d[i] ^= (uint8_t)(1u << bit);
            }
        free(l.data);
    }
    CHECK(accepted > 0 && rejected > 0);
    /* vww4: flip bits over the header, the FlatBuffers tables, the SPIR-V
     * header and a sample of the instruction stream */
    CHECK(vww4.data != NULL);
    uint8_t *d = malloc(vww4.size);
    memcpy(d, vww4.data, vww4.size);
    size_t spots[512], ns = 0;
    for (size_t i = 0; i < 128; i += 2)
        spots[ns++] = i;
    for (size_t i = 128; i < 300; i += 3)
        spots[ns++] = i;
    for (size_t i = 152704; i < 152704 + 680; i += 11)
        spots[ns++] = i;
    for (size_t i = 153384; i < 153384 + 6432; i += 97)
        spots[ns++] = i;
    for (size_t i = 300; i < 152704; i += 1999)
        spots[ns++] = i;
    for (size_t k = 0; k < ns; k++) {
        size_t i = spots[k];
        int bit = (int)(k * 5 % 8);
        d[i] ^= (uint8_t)(1u << bit);
        mlia_arena a;
        mlia_arena_init(&a);
        vgf_file *f;
        mlia_error err;
        if (read_vgf(d, vww4.size, &a, &f, &err) == 0) {
            mlia_buf b;
            mlia_buf_init(&b);
            mlia_jw w;
            mlia_jw_init_buf(&w, &b, false);
            inspect_vgf(f, &w);
            vgf_write_model_explorer_graph(f, &w);
            mlia_buf_free(&b);
        }
        mlia_arena_free(&a);
        d[i] ^= (uint8_t)(1u << bit);
    }
    free(d);
}

TEST(spirv_errors_inside_vgf)
{
    TEST_NEED_FIXTURE("vgf/vww4.vgf");
    CHECK(vww4.data != NULL);
    uint8_t *d = malloc(vww4.size);
    memcpy(d, vww4.data, vww4.size);
    /* first instruction after the 5-word header (file offset 248 + 20) */
    size_t at = 248 + 20;
    uint8_t saved[4];
    memcpy(saved, d + at, 4);
    d[at + 2] = 0;
    d[at + 3] = 0; /* word count 0 */
    char msg[256];
    snprintf(msg, sizeof msg, "x.vgf: SPIR-V instruction with word count 0 (opcode %u) (module 0, byte 268)",
             (unsigned)(saved[0] | saved[1] << 8));
    expect_fail(d, vww4.size, msg);
    d[at + 2] = 0xFF;
    d[at + 3] = 0xFF; /* overrun */
    snprintf(msg, sizeof msg,
             "x.vgf: SPIR-V instruction overruns the module (opcode %u, word count 65535, 38109 words left) (module 0, byte 268)",
             (unsigned)(saved[0] | saved[1] << 8));
    expect_fail(d, vww4.size, msg);
    memcpy(d + at, saved, 4);
    /* id bound lowered below the ids in use */
    memcpy(d + 248 + 12, "\x10\x00\x00\x00", 4);
    mlia_arena a;
    mlia_arena_init(&a);
    vgf_file *f;
    mlia_error err;
    CHECK_INT(read_vgf(d, vww4.size, &a, &f, &err), -1);
    CHECK_CONTAINS(err.text, "x.vgf: SPIR-V result id ");
    CHECK_CONTAINS(err.text, " is not below the id bound 16 (opcode ");
    mlia_arena_free(&a);
    free(d);
}

static int me_dump(const char *in, const char *out, const char *label)
{
    mlia_file fl;
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_file_open(&fl, in, &err) != 0) {
        fprintf(stderr, "%s\n", err.text);
        return 1;
    }
    mlia_arena a;
    mlia_arena_init(&a);
    vgf_file *f;
    int rc = 1;
    if (vgf_read(fl.data, fl.size, in, &a, &f, &err) != 0) {
        fprintf(stderr, "%s\n", err.text);
    } else {
        FILE *o = fopen(out, "w");
        if (o) {
            mlia_jw w;
            mlia_jw_init_file(&w, o, true);
            if (label)
                vgf_write_model_explorer_graph_labelled(f, label, &w);
            else
                vgf_write_model_explorer_graph(f, &w);
            mlia_jw_finish(&w);
            rc = fclose(o) == 0 && !w.failed ? 0 : 1;
        }
    }
    mlia_arena_free(&a);
    mlia_file_close(&fl);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc >= 4 && strcmp(argv[1], "--me-dump") == 0)
        return me_dump(argv[2], argv[3], argc >= 5 ? argv[4] : NULL);
    setvbuf(stdout, NULL, _IOLBF, 0);
    vww4 = load("vgf/vww4.vgf");
    mlia_arena_init(&vww4_arena);
    if (vww4.data) {
        mlia_error err;
        if (read_vgf(vww4.data, vww4.size, &vww4_arena, &vww4_file, &err) != 0) {
            printf("vww4: %s\n", err.text);
            vww4_file = NULL;
        }
    }
    RUN(vww4_container);
    RUN(vww4_resources_and_constants);
    RUN(vww4_spirv);
    RUN(vww4_tosa_graph);
    RUN(vww4_first_ops);
    RUN(vww4_name_map);
    RUN(vww4_model_explorer_in_c);
    RUN(vww4_inspect_json);
    RUN(library_files);
    RUN(synthetic_payload_resource_section_invalid);
    RUN(header_errors);
    RUN(section_and_cross_reference_errors);
    RUN(truncations_never_accepted);
    RUN(bit_flips_never_crash);
    RUN(spirv_errors_inside_vgf);
    mlia_arena_free(&vww4_arena);
    free(vww4.data);
    return test_summary();
}
