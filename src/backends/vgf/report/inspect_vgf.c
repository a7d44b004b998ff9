/*
 * inspect_vgf.c - `mlia inspect` JSON for VGF files and the Model Explorer
 * reproduction (see inspect_vgf.h).
 *
 * Everything is streamed through mlia_jw in file order, so the output is
 * deterministic. Constant values are written in full up to
 * INSPECT_MAX_VALUES, then flagged "truncated".
 *
 * Model Explorer numbering (docs/formats/spirv-tosa.md §9): mlir-translate materialises one
 * constant op per use of a module or graph constant, and the adapter numbers
 * every op of a graph body with one counter. Walking the operations in
 * order, each constant operand takes the next number (a hidden node), then
 * the operation itself; the terminator comes last, after its own constant
 * operands. The numbers are computed into a small table per segment and then
 * the nodes are written.
 */
#include "inspect_vgf.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define INSPECT_MAX_VALUES 4096u

/* "key": a possibly absent string of the file (null when absent). */
static void kmstr(mlia_jw *w, const char *key, mlia_str s)
{
    mlia_jw_kstrn(w, key, s.ptr, s.len);
}

/* {"binding", "resource"} of vgf_binding[i]. */
static void binding_json(mlia_jw *w, const void *item, uint32_t i)
{
    const vgf_binding *b = item;
    mlia_jw_kuint(w, "binding", b->binding);
    mlia_jw_kuint(w, "resource", b->mrt_index);
}

static void write_bindings(mlia_jw *w, const char *key, uint32_t n, const vgf_binding *b)
{
    mlia_jw_kobjects(w, key, b, n, sizeof(vgf_binding), binding_json);
}

/* One scalar of a decoded constant as a JSON value. */
static void const_scalar(mlia_jw *w, const spv_const *c, uint64_t i)
{
    if (i >= c->n_values) {
        mlia_jw_null(w);
        return;
    }
    int64_t v = c->values[i];
    if (c->elem_kind == SPV_TYPE_BOOL) {
        mlia_jw_bool(w, v != 0);
    } else if (c->elem_kind == SPV_TYPE_FLOAT && (c->elem_width == 32 || c->elem_width == 64)) {
        double d;
        if (c->elem_width == 32) {
            uint32_t u = (uint32_t)v;
            float fl;
            memcpy(&fl, &u, 4);
            d = fl;
        } else {
            uint64_t u = (uint64_t)v;
            memcpy(&d, &u, 8);
        }
        if (d != d || d - d != 0) {
            char buf[32];
            snprintf(buf, sizeof buf, "%g", d);
            mlia_jw_str(w, buf);
        } else {
            mlia_jw_double(w, d);
        }
    } else {
        mlia_jw_int(w, v);
    }
}

static void const_values(mlia_jw *w, const spv_const *c)
{
    mlia_jw_arr_begin(w);
    for (uint64_t i = 0; i < c->n_values && i < INSPECT_MAX_VALUES; i++)
        const_scalar(w, c, i);
    mlia_jw_arr_end(w);
}

static const char *class_name(uint8_t cls)
{
    switch (cls) {
    case SPV_VALUE_GRAPH_INPUT: return "graph_input";
    case SPV_VALUE_OP_RESULT: return "op_result";
    case SPV_VALUE_GRAPH_CONSTANT: return "graph_constant";
    case SPV_VALUE_MODULE_CONSTANT: return "module_constant";
    default: return "unresolved";
    }
}

static void attribute_value(mlia_jw *w, const vgf_operand *o)
{
    if (!o->has_value) {
        mlia_jw_null(w);
        return;
    }
    const spv_const *c = &o->value;
    if (tosa_kind_is_enum((tosa_operand_kind)o->kind) && c->n_values == 1) {
        const char *name = tosa_enum_name((tosa_operand_kind)o->kind, c->values[0]);
        if (name)
            mlia_jw_str(w, name);
        else
            mlia_jw_int(w, c->values[0]);
        return;
    }
    if (o->kind == TOSA_ATTR_LIST || c->type.kind == SPV_TYPE_TENSOR || c->type.kind == SPV_TYPE_ARRAY) {
        const_values(w, c);
        return;
    }
    const_scalar(w, c, 0);
}

static void write_operand(mlia_jw *w, const vgf_operation *op, const vgf_operand *o)
{
    mlia_jw_obj_begin(w);
    if (o->name)
        mlia_jw_kstr(w, "name", o->name);
    mlia_jw_kstr(w, "class", class_name(o->ref.cls));
    mlia_jw_kuint(w, "id", o->ref.id);
    mlia_jw_kstr(w, "type", o->type_text);
    switch (o->ref.cls) {
    case SPV_VALUE_GRAPH_INPUT:
        mlia_jw_kuint(w, "input", o->ref.index);
        break;
    case SPV_VALUE_OP_RESULT:
        mlia_jw_kuint(w, "producer", o->producer_id);
        break;
    case SPV_VALUE_GRAPH_CONSTANT:
        mlia_jw_kuint(w, "constant", o->ref.index);
        break;
    case SPV_VALUE_MODULE_CONSTANT:
        if (o->const_kind)
            mlia_jw_kstr(w, "kind", o->const_kind);
        if (o->has_value) {
            mlia_jw_key(w, "values");
            const_values(w, &o->value);
            if (o->value.truncated || o->value.n_values > INSPECT_MAX_VALUES) {
                mlia_jw_kbool(w, "truncated", true);
                mlia_jw_kuint(w, "count", o->value.count);
            }
        }
        break;
    default:
        break;
    }
    if (o->resource >= 0)
        mlia_jw_kint(w, "resource", o->resource);
    mlia_jw_obj_end(w);
    (void)op;
}

static void write_operation(mlia_jw *w, const vgf_operation *op)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "id", op->id);
    mlia_jw_kstr(w, "op", op->op);
    mlia_jw_kstr(w, "label", op->label);
    if (op->spv->has_literal)
        mlia_jw_kuint(w, "call_opcode", op->spv->literal);
    if (op->spv->opcode == SPV_OP_COMPOSITE_EXTRACT)
        mlia_jw_karray(w, "indexes", op->spv->n_indexes, mlia_jw_item_u32, op->spv->indexes);
    mlia_jw_karr_begin(w, "inputs");
    for (uint32_t i = 0; i < op->n_operands; i++)
        if (op->operands[i].kind == TOSA_TENSOR)
            write_operand(w, op, &op->operands[i]);
    mlia_jw_arr_end(w);
    mlia_jw_kobj_begin(w, "attributes");
    for (uint32_t i = 0; i < op->n_operands; i++) {
        const vgf_operand *o = &op->operands[i];
        if (o->kind == TOSA_TENSOR)
            continue;
        mlia_jw_key(w, o->name);
        attribute_value(w, o);
    }
    mlia_jw_obj_end(w);
    mlia_jw_kstr(w, "result_type", op->result_type);
    mlia_jw_kstr(w, "debug_name", op->debug_name);
    mlia_jw_obj_end(w);
}

static void import_json(mlia_jw *w, const void *item, uint32_t i)
{
    const spv_import *im = item;
    mlia_jw_kuint(w, "id", im->id);
    mlia_jw_kstr(w, "name", im->name);
}

static void graph_summary(mlia_jw *w, const void *item, uint32_t i)
{
    const spv_graph *g = item;
    mlia_jw_kuint(w, "id", g->id);
    mlia_jw_kstr(w, "entry_point", g->entry ? g->entry->name : NULL);
    mlia_jw_kuint(w, "inputs", g->n_inputs);
    mlia_jw_kuint(w, "operations", g->n_ops);
    mlia_jw_kuint(w, "outputs", g->n_outputs);
}

static void write_spirv_summary(mlia_jw *w, const spv_module *m)
{
    mlia_jw_obj_begin(w);
    char v[32];
    snprintf(v, sizeof v, "%u.%u", (m->version >> 16) & 0xFF, (m->version >> 8) & 0xFF);
    mlia_jw_kstr(w, "version", v);
    mlia_jw_kuint(w, "generator", m->generator);
    mlia_jw_kuint(w, "bound", m->bound);
    mlia_jw_kuint(w, "instructions", m->n_insts);
    mlia_jw_kobjects(w, "imports", m->imports, m->n_imports, sizeof(spv_import), import_json);
    mlia_jw_kobjects(w, "graphs", m->graphs, m->n_graphs, sizeof(spv_graph), graph_summary);
    mlia_jw_kuint(w, "graph_constants", m->n_graph_constants);
    mlia_jw_obj_end(w);
}

/* A shape or strides list; an unknown dimension (INT64_MIN) is -1. */
static void dim_json(mlia_jw *w, const void *v, uint32_t i)
{
    int64_t d = ((const int64_t *)v)[i];
    mlia_jw_int(w, d == INT64_MIN ? -1 : d);
}

static void module_json(mlia_jw *w, const void *item, uint32_t i)
{
    const vgf_module *m = item;
    mlia_jw_kuint(w, "index", i);
    mlia_jw_kname(w, "type", vgf_module_type_name(m->type), m->type);
    kmstr(w, "name", m->name);
    kmstr(w, "entry_point", m->entry_point);
    mlia_jw_kname(w, "code_type", vgf_code_type_name(m->code_type), m->code_type);
    mlia_jw_kbool(w, "placeholder", m->placeholder);
    if (m->code_type == VGF_CODE_SPIRV && m->has_words) {
        mlia_jw_kuint(w, "words", m->n_words);
        mlia_jw_kuint(w, "words_offset", m->words_offset);
    }
    if (m->source.ptr)
        mlia_jw_kuint(w, "source_bytes", m->source.len);
    if (m->spirv) {
        mlia_jw_key(w, "spirv");
        write_spirv_summary(w, m->spirv);
    }
}

static void set_json(mlia_jw *w, const void *item, uint32_t k)
{
    const vgf_set_info *set = item;
    mlia_jw_kuint(w, "set_index", set->set_index);
    mlia_jw_kbool(w, "explicit_index", set->has_set_index);
    write_bindings(w, "bindings", set->n_bindings, set->bindings);
}

static void push_range_json(mlia_jw *w, const void *item, uint32_t k)
{
    const vgf_push_range *p = item;
    mlia_jw_kuint(w, "stage_flags", p->stage_flags);
    mlia_jw_kuint(w, "offset", p->offset);
    mlia_jw_kuint(w, "size", p->size);
}

/* A graph input or output: its id key and value, its index and type text. */
static void graph_io(mlia_jw *w, const spv_module *m, const char *id_key, uint32_t id, uint32_t index,
                     uint32_t type)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, id_key, id);
    mlia_jw_kuint(w, "index", index);
    mlia_buf tb;
    mlia_buf_init(&tb);
    spv_type_text(m, type, &tb);
    mlia_jw_kstrn(w, "type", tb.data, tb.len);
    mlia_buf_free(&tb);
    mlia_jw_obj_end(w);
}

static void write_graph(mlia_jw *w, const vgf_segment *s)
{
    const spv_graph *g = s->graph;
    mlia_jw_kobj_begin(w, "graph");
    mlia_jw_kuint(w, "id", g->id);
    mlia_jw_kstr(w, "entry_point", g->entry ? g->entry->name : NULL);
    mlia_jw_karr_begin(w, "inputs");
    for (uint32_t k = 0; k < g->n_inputs; k++)
        graph_io(w, s->spirv, "id", g->inputs[k].id, g->inputs[k].index, g->inputs[k].type);
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "outputs");
    for (uint32_t k = 0; k < g->n_outputs; k++)
        graph_io(w, s->spirv, "value", g->outputs[k].value.id, g->outputs[k].index,
                 spv_value_type(s->spirv, g->outputs[k].value.id));
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

static void operation_json(mlia_jw *w, const void *v, uint32_t k)
{
    write_operation(w, &((const vgf_operation *)v)[k]);
}

static void segment_json(mlia_jw *w, const void *v, uint32_t i)
{
    const vgf_file *f = v;
    const vgf_segment *s = &f->segments[i];
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "index", i);
    mlia_jw_kname(w, "type", s->type <= 1 ? (s->type ? "graph" : "compute") : NULL, s->type);
    kmstr(w, "name", s->name);
    mlia_jw_kuint(w, "module", s->module_index);
    mlia_jw_kbool(w, "placeholder", f->modules[s->module_index].placeholder);
    mlia_jw_kobjects(w, "descriptor_sets", s->sets, s->n_sets, sizeof(vgf_set_info), set_json);
    write_bindings(w, "inputs", s->n_inputs, s->inputs);
    write_bindings(w, "outputs", s->n_outputs, s->outputs);
    mlia_jw_karray(w, "constants", s->n_constants, mlia_jw_item_u32, s->constants);
    if (s->has_dispatch)
        mlia_jw_karray(w, "dispatch_shape", 3, mlia_jw_item_u32, s->dispatch);
    else
        mlia_jw_knull(w, "dispatch_shape");
    mlia_jw_kobjects(w, "push_constant_ranges", s->push_ranges, s->n_push_ranges, sizeof(vgf_push_range), push_range_json);
    if (s->graph)
        write_graph(w, s);
    mlia_jw_karray(w, "operations", s->n_operations, operation_json, s->operations);
    mlia_jw_obj_end(w);
}

static void resource_json(mlia_jw *w, const void *item, uint32_t i)
{
    const vgf_resource *r = item;
    mlia_jw_kuint(w, "index", i);
    mlia_jw_kname(w, "category", vgf_category_name(r->category), r->category);
    mlia_jw_karray(w, "shape", r->rank, dim_json, r->shape);
    mlia_jw_kname(w, "format", vgf_format_name(r->format), r->format);
    mlia_jw_kname(w, "descriptor_type", vgf_descriptor_type_name(r->descriptor_type), r->descriptor_type);
    if (r->n_strides)
        mlia_jw_karray(w, "strides", r->n_strides, dim_json, r->strides);
    if (r->alias_group_id != 0xFFFFFFFFu)
        mlia_jw_kuint(w, "alias_group_id", r->alias_group_id);
    if (r->extra_config_type == 1) {
        static const char *const names[5] = {"min_filter", "mag_filter", "address_mode_u", "address_mode_v",
                                             "border_color"};
        mlia_jw_kobj_begin(w, "sampler");
        for (int k = 0; k < 5; k++)
            mlia_jw_kuint(w, names[k], r->sampler[k]);
        mlia_jw_obj_end(w);
    }
}

static void constant_json(mlia_jw *w, const void *item, uint32_t i)
{
    const vgf_constant *c = item;
    mlia_jw_kuint(w, "index", i);
    mlia_jw_kuint(w, "resource", c->mrt_index);
    mlia_jw_kuint(w, "size", c->size);
    mlia_jw_kint(w, "sparsity_dimension", c->sparsity_dimension);
    mlia_jw_kuint(w, "offset", c->file_offset);
}

void inspect_vgf(const vgf_file *f, mlia_jw *w)
{
    static const char *const secnames[4] = {"module", "sequence", "resource", "constant"};
    char ver[32];
    snprintf(ver, sizeof ver, "%u.%u.%u", f->major, f->minor, f->patch);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "format", "vgf");
    mlia_jw_kstr(w, "version", ver);
    mlia_jw_kobj_begin(w, "header");
    mlia_jw_kstr(w, "magic", f->legacy_magic ? "0xF0E1D2C3" : "VGF1");
    mlia_jw_kuint(w, "vk_header_version", f->vk_header_version);
    mlia_jw_kuint(w, "size", f->size);
    mlia_jw_kobj_begin(w, "sections");
    for (int s = 0; s < 4; s++) {
        mlia_jw_kobj_begin(w, secnames[s]);
        mlia_jw_kuint(w, "offset", f->sections[s].offset);
        mlia_jw_kuint(w, "size", f->sections[s].size);
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_kobjects(w, "modules", f->modules, f->n_modules, sizeof(vgf_module), module_json);
    mlia_jw_karray(w, "segments", f->n_segments, segment_json, f);
    mlia_jw_kobj_begin(w, "model");
    write_bindings(w, "inputs", f->n_model_inputs, f->model_inputs);
    mlia_jw_karray(w, "input_names", f->n_input_names, mlia_jw_item_mstr, f->input_names);
    write_bindings(w, "outputs", f->n_model_outputs, f->model_outputs);
    mlia_jw_karray(w, "output_names", f->n_output_names, mlia_jw_item_mstr, f->output_names);
    mlia_jw_obj_end(w);
    mlia_jw_kobjects(w, "resources", f->resources, f->n_resources, sizeof(vgf_resource), resource_json);
    mlia_jw_kstr(w, "constants_encoding", f->constants_raw ? "CONST00" : "legacy");
    mlia_jw_kobjects(w, "constants", f->constants, f->n_constants, sizeof(vgf_constant), constant_json);
    mlia_jw_karray(w, "warnings", f->n_warnings, mlia_jw_item_str, f->warnings);
    mlia_jw_obj_end(w);
}

void inspect_vgf_value(const uint8_t *data, size_t size, const char *file, mlia_jw *w)
{
    mlia_arena arena;
    mlia_arena_init(&arena);
    mlia_error err;
    mlia_error_clear(&err);
    vgf_file *f;
    if (vgf_read(data, size, file, &arena, &f, &err) == 0) {
        inspect_vgf(f, w);
    } else {
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "format", "vgf");
        mlia_jw_kstr(w, "error", err.text);
        mlia_jw_obj_end(w);
    }
    mlia_arena_free(&arena);
}

/* ------------------------------------------------------ Model Explorer */

/* Per-segment numbering: for op k, hidden[k][i] = number of constant operand
 * i (or -1) and number[k] = the op's own number. */
typedef struct me_numbers {
    int64_t *op_number;      /* [n_ops] */
    int64_t **hidden;        /* [n_ops][n_operands] */
    int64_t *out_hidden;     /* [n_outputs] */
    int64_t terminator;
} me_numbers;

static bool is_constant_class(uint8_t cls)
{
    return cls == SPV_VALUE_GRAPH_CONSTANT || cls == SPV_VALUE_MODULE_CONSTANT;
}

static void me_number(const vgf_segment *s, mlia_arena *a, me_numbers *n)
{
    const spv_graph *g = s->graph;
    int64_t counter = 0;
    n->op_number = mlia_arena_array(a, g->n_ops ? g->n_ops : 1, sizeof *n->op_number);
    n->hidden = mlia_arena_array(a, g->n_ops ? g->n_ops : 1, sizeof *n->hidden);
    for (uint32_t k = 0; k < g->n_ops; k++) {
        const spv_op *op = &g->ops[k];
        n->hidden[k] = mlia_arena_array(a, op->n_operands ? op->n_operands : 1, sizeof **n->hidden);
        for (uint32_t i = 0; i < op->n_operands; i++)
            n->hidden[k][i] = is_constant_class(op->operands[i].cls) ? counter++ : -1;
        n->op_number[k] = counter++;
    }
    n->out_hidden = mlia_arena_array(a, g->n_outputs ? g->n_outputs : 1, sizeof *n->out_hidden);
    for (uint32_t j = 0; j < g->n_outputs; j++)
        n->out_hidden[j] = is_constant_class(g->outputs[j].value.cls) ? counter++ : -1;
    n->terminator = counter;
}

static void me_attr(mlia_jw *w, const char *key, const char *value)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "key", key);
    mlia_jw_kstr(w, "value", value);
    mlia_jw_obj_end(w);
}

static void me_edge(mlia_jw *w, const char *source, uint32_t target)
{
    char t[16];
    snprintf(t, sizeof t, "%u", target);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "sourceNodeId", source);
    mlia_jw_kstr(w, "sourceNodeOutputId", "0");
    mlia_jw_kstr(w, "targetNodeInputId", t);
    mlia_jw_obj_end(w);
}

/* Source node id of an operand (edge rules of docs/formats/spirv-tosa.md §9). */
static void me_source(const vgf_segment *s, const me_numbers *n, spv_operand ref, int64_t hidden, char *buf,
                      size_t cap)
{
    if (hidden >= 0) {
        snprintf(buf, cap, "%" PRId64, hidden);
    } else if (ref.cls == SPV_VALUE_OP_RESULT) {
        snprintf(buf, cap, "%" PRId64, n->op_number[ref.index]);
    } else if (ref.cls == SPV_VALUE_GRAPH_INPUT && ref.index < s->n_inputs) {
        snprintf(buf, cap, "mrt_%u", s->inputs[ref.index].mrt_index);
    } else {
        snprintf(buf, cap, "spirv_%u", ref.id);
    }
}

/* Attribute text as the adapter prints it. */
static void me_attr_text(const vgf_operand *o, mlia_buf *b)
{
    const spv_const *c = &o->value;
    if (!o->has_value) {
        mlia_buf_puts(b, "?");
        return;
    }
    if (c->type.kind == SPV_TYPE_TENSOR || c->type.kind == SPV_TYPE_ARRAY) {
        mlia_buf_putc(b, '[');
        for (uint64_t i = 0; i < c->n_values; i++) {
            if (i)
                mlia_buf_puts(b, ", ");
            spv_value_text(c, i, b);
        }
        mlia_buf_putc(b, ']');
        return;
    }
    if (c->elem_kind == SPV_TYPE_BOOL) {
        mlia_buf_puts(b, c->values[0] ? "true" : "false");
        return;
    }
    if (o->kind == TOSA_ATTR_ACC_TYPE || o->kind == TOSA_ATTR_ROUNDING) {
        const char *name = tosa_enum_name((tosa_operand_kind)o->kind, c->values[0]);
        if (name) {
            mlia_buf_puts(b, name);
            return;
        }
    }
    /* MLIR scalar attribute text: "<value> : <type>". */
    if (c->elem_kind == SPV_TYPE_FLOAT && (c->elem_width == 32 || c->elem_width == 64)) {
        double d;
        if (c->elem_width == 32) {
            uint32_t u = (uint32_t)c->values[0];
            float fl;
            memcpy(&fl, &u, 4);
            d = fl;
        } else {
            uint64_t u = (uint64_t)c->values[0];
            memcpy(&d, &u, 8);
        }
        mlia_buf_printf(b, "%e", d);
    } else {
        spv_value_text(c, 0, b);
    }
    mlia_buf_puts(b, " : ");
    spv_elem_text(&c->type, b);
}

static void me_node_begin(mlia_jw *w, const char *id, const char *label, const char *ns)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", id);
    mlia_jw_kstr(w, "label", label);
    mlia_jw_kstr(w, "namespace", ns);
    mlia_jw_karr_begin(w, "subgraphIds");
    mlia_jw_arr_end(w);
}

static void me_node_end(mlia_jw *w)
{
    mlia_jw_knull(w, "style");
    mlia_jw_knull(w, "config");
    mlia_jw_obj_end(w);
}

/* An inputsMetadata / outputsMetadata entry: {"id": id, "attrs": [...]};
 * the attributes go between begin and end. */
static void me_meta_begin(mlia_jw *w, const char *id)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", id);
    mlia_jw_karr_begin(w, "attrs");
}

static void me_meta_end(mlia_jw *w)
{
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

static void me_shape_meta(mlia_jw *w, uint32_t index, const char *shape)
{
    char id[16];
    snprintf(id, sizeof id, "%u", index);
    me_meta_begin(w, id);
    me_attr(w, "tensor_shape", shape);
    me_meta_end(w);
}

/* "<prefix><name>" of a value with a name, else its number. */
static void name_text(char *buf, size_t cap, const char *prefix, const char *name, uint32_t raw)
{
    if (name)
        snprintf(buf, cap, "%s%s", prefix, name);
    else
        snprintf(buf, cap, "%u", raw);
}

static void me_segment(const vgf_file *f, const vgf_segment *s, mlia_arena *a, mlia_jw *w)
{
    const spv_graph *g = s->graph;
    const vgf_module *mod = &f->modules[s->module_index];
    me_numbers n;
    me_number(s, a, &n);
    char ns[512];
    if (g->entry)
        snprintf(ns, sizeof ns, "%s", g->entry->name);
    else
        snprintf(ns, sizeof ns, "%.*s", (int)mod->name.len, mod->name.ptr ? mod->name.ptr : "");
    char idbuf[64], src[64];
    mlia_buf text;
    mlia_buf_init(&text);
    for (uint32_t k = 0; k < s->n_operations; k++) {
        const vgf_operation *op = &s->operations[k];
        if (op->spv->opcode == SPV_OP_COMPOSITE_EXTRACT)
            continue; /* numbered, but not a node of its own */
        snprintf(idbuf, sizeof idbuf, "%" PRId64, n.op_number[k]);
        me_node_begin(w, idbuf, op->label, ns);
        mlia_jw_karr_begin(w, "attrs");
        for (uint32_t i = 0; i < op->n_operands; i++) {
            const vgf_operand *o = &op->operands[i];
            if (o->kind == TOSA_TENSOR)
                continue;
            text.len = 0;
            me_attr_text(o, &text);
            mlia_buf_putc(&text, 0);
            me_attr(w, o->name, text.data);
        }
        mlia_jw_arr_end(w);
        mlia_jw_karr_begin(w, "incomingEdges");
        for (uint32_t i = 0; i < op->n_operands; i++) {
            me_source(s, &n, op->operands[i].ref, n.hidden[k][i], src, sizeof src);
            me_edge(w, src, i);
        }
        mlia_jw_arr_end(w);
        mlia_jw_karr_begin(w, "outputsMetadata");
        me_meta_begin(w, "0");
        me_attr(w, "tensor_index", "0");
        me_attr(w, "tensor_shape", op->result_type);
        me_meta_end(w);
        mlia_jw_arr_end(w);
        mlia_jw_karr_begin(w, "inputsMetadata");
        for (uint32_t i = 0; i < op->n_operands; i++)
            me_shape_meta(w, i, op->operands[i].type_text);
        mlia_jw_arr_end(w);
        me_node_end(w);
    }
    /* The in-graph terminator. */
    char term[32];
    snprintf(term, sizeof term, "%" PRId64, n.terminator);
    me_node_begin(w, term, "GraphOutputs", ns);
    mlia_jw_karr_begin(w, "attrs");
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "incomingEdges");
    for (uint32_t j = 0; j < g->n_outputs; j++) {
        me_source(s, &n, g->outputs[j].value, n.out_hidden[j], src, sizeof src);
        me_edge(w, src, j);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "outputsMetadata");
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "inputsMetadata");
    for (uint32_t j = 0; j < g->n_outputs; j++) {
        text.len = 0;
        spv_type_text(s->spirv, spv_value_type(s->spirv, g->outputs[j].value.id), &text);
        mlia_buf_putc(&text, 0);
        me_shape_meta(w, j, text.data);
    }
    mlia_jw_arr_end(w);
    me_node_end(w);

    /* Resource nodes: segment inputs, then segment outputs. */
    for (int io = 0; io < 2; io++) {
        uint32_t cnt = io ? s->n_outputs : s->n_inputs;
        const vgf_binding *bs = io ? s->outputs : s->inputs;
        for (uint32_t k = 0; k < cnt; k++) {
            const vgf_resource *r = &f->resources[bs[k].mrt_index];
            char label[96];
            name_text(label, sizeof label, "VK_DESCRIPTOR_TYPE_", vgf_descriptor_type_name(r->descriptor_type),
                      r->descriptor_type);
            snprintf(idbuf, sizeof idbuf, "mrt_%u", bs[k].mrt_index);
            me_node_begin(w, idbuf, label, "");
            mlia_jw_karr_begin(w, "attrs");
            if (!io) {
                text.len = 0;
                mlia_buf_putc(&text, '[');
                for (uint32_t d = 0; d < r->rank; d++)
                    mlia_buf_printf(&text, "%s%" PRId64, d ? ", " : "", r->shape[d] == INT64_MIN ? -1 : r->shape[d]);
                mlia_buf_putc(&text, ']');
                mlia_buf_putc(&text, 0);
                me_attr(w, "Shape", text.data);
                char name[96];
                name_text(name, sizeof name, "", vgf_category_name(r->category), r->category);
                me_attr(w, "Category", name);
                name_text(name, sizeof name, "VK_FORMAT_", vgf_format_name(r->format), r->format);
                me_attr(w, "Format", name);
            }
            mlia_jw_arr_end(w);
            mlia_jw_karr_begin(w, "incomingEdges");
            if (!io && r->category == VGF_CATEGORY_INPUT)
                me_edge(w, "GraphInputs", 0);
            if (io)
                me_edge(w, term, 0);
            mlia_jw_arr_end(w);
            mlia_jw_karr_begin(w, "outputsMetadata");
            if (!io) {
                const char *mt = vgf_module_type_name(mod->type);
                me_meta_begin(w, "0");
                me_attr(w, "type", mt ? mt : "UNKNOWN");
                me_meta_end(w);
            }
            mlia_jw_arr_end(w);
            mlia_jw_karr_begin(w, "inputsMetadata");
            mlia_jw_arr_end(w);
            me_node_end(w);
        }
    }
    mlia_buf_free(&text);
}

static void me_simple_node(mlia_jw *w, const char *id, const char *label)
{
    me_node_begin(w, id, label, "");
    static const char *const lists[] = {"attrs", "incomingEdges", "outputsMetadata", "inputsMetadata"};
    for (int i = 0; i < 4; i++) {
        mlia_jw_karr_begin(w, lists[i]);
        mlia_jw_arr_end(w);
    }
    me_node_end(w);
}

void vgf_write_model_explorer_graph_labelled(const vgf_file *f, const char *label, mlia_jw *w)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "label", label);
    mlia_jw_karr_begin(w, "graphs");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", "Main");
    mlia_jw_karr_begin(w, "nodes");
    me_simple_node(w, "GraphInputs", "Graph Inputs");
    for (uint32_t i = 0; i < f->n_segments; i++)
        if (f->segments[i].graph)
            me_segment(f, &f->segments[i], &a, w);
    /* Graph Outputs, fed by the model output resources. */
    me_node_begin(w, "GraphOutputs", "Graph Outputs", "");
    mlia_jw_karr_begin(w, "attrs");
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "incomingEdges");
    for (uint32_t i = 0; i < f->n_model_outputs; i++) {
        char src[32];
        snprintf(src, sizeof src, "mrt_%u", f->model_outputs[i].mrt_index);
        me_edge(w, src, i);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "outputsMetadata");
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "inputsMetadata");
    mlia_jw_arr_end(w);
    me_node_end(w);
    mlia_jw_arr_end(w);
    static const char *const nulls[] = {"groupNodeAttributes", "groupNodeConfigs", "nodeLabelsToHide", "tasksData",
                                        "layoutConfigs"};
    for (int i = 0; i < 5; i++)
        mlia_jw_knull(w, nulls[i]);
    mlia_jw_obj_end(w);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    mlia_arena_free(&a);
}

void vgf_write_model_explorer_graph(const vgf_file *f, mlia_jw *w)
{
    const char *path = f->file ? f->file : "";
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    size_t len = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    char label[512];
    snprintf(label, sizeof label, "%.*s", (int)len, base);
    vgf_write_model_explorer_graph_labelled(f, label, w);
}
