/*
 * inspect_et.c - `mlia inspect` JSON for ETDump, PTE and BundledProgram
 * (see inspect_et.h; the key reference is docs/inspect.md).
 *
 * Conventions: absent strings are written as null (flatc omits them), enum
 * values are written by name when known and as the raw integer otherwise,
 * byte vectors are summarised by size and file offset instead of being
 * listed (a 250 KB constant segment would otherwise dominate the output).
 * Lists go through mlia_jw_karray / mlia_jw_kobjects with one writer per
 * element type.
 */
#include "inspect_et.h"

#include <stdio.h>

#include "formats/fb.h"

/* "key": a possibly absent string of the file (null when absent). */
static void kmstr(mlia_jw *w, const char *key, mlia_str s)
{
    mlia_jw_kstrn(w, key, s.ptr, s.len);
}

/* Little-endian int64 values in place (ETDump tensor sizes). */
static void le64_item(mlia_jw *w, const void *v, uint32_t i)
{
    mlia_jw_int(w, (int64_t)fb_le64((const uint8_t *)v + 8 * (size_t)i));
}

static void double_item(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_double(w, ((const double *)v)[i]); }
static void bool_item(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_bool(w, ((const int64_t *)v)[i] != 0); }

/* ---------------------------------------------------------------- ETDump */

static void debug_value(mlia_jw *w, const etdump_debug_value *v)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kname(w, "val", etdump_value_type_name(v->value_type), v->value_type);
    mlia_jw_kbool(w, "output", v->output);
    switch (v->value_type) {
    case ETDUMP_VALUE_INT: mlia_jw_kint(w, "int_val", v->int_val); break;
    case ETDUMP_VALUE_BOOL: mlia_jw_kbool(w, "bool_val", v->bool_val); break;
    case ETDUMP_VALUE_FLOAT:
    case ETDUMP_VALUE_DOUBLE: mlia_jw_kdouble(w, "value", v->double_val); break;
    case ETDUMP_VALUE_TENSOR:
    case ETDUMP_VALUE_TENSOR_LIST:
        mlia_jw_kuint(w, "tensors", v->n_tensors);
        if (v->n_tensors) {
            mlia_jw_kname(w, "scalar_type", et_scalar_type_name(v->scalar_type), v->scalar_type);
            mlia_jw_karray(w, "sizes", v->n_dims, le64_item, v->sizes);
            mlia_jw_kint(w, "offset", v->data_offset);
        }
        mlia_jw_kuint_or_null(w, "nbytes", v->nbytes_known, v->nbytes);
        break;
    default:
        break;
    }
    mlia_jw_obj_end(w);
}

static void event_object(mlia_jw *w, const etdump_event *e, const etdump_debug_value *dv)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kname(w, "kind", etdump_event_kind_name(e->kind), e->kind);
    if (e->kind == ETDUMP_EVENT_ALLOCATION) {
        mlia_jw_kint(w, "allocator_id", e->allocator_id);
        mlia_jw_kuint(w, "allocation_size", e->allocation_size);
    } else {
        kmstr(w, "name", e->name);
        mlia_jw_kint(w, "chain_index", e->chain_index);
        mlia_jw_kint(w, "instruction_id", e->instruction_id);
        mlia_jw_kint(w, "delegate_debug_id_int", e->delegate_debug_id_int);
        kmstr(w, "delegate_debug_id_str", e->delegate_debug_id_str);
    }
    if (e->kind == ETDUMP_EVENT_PROFILE) {
        mlia_jw_kuint(w, "start_time", e->start_time);
        mlia_jw_kuint(w, "end_time", e->end_time);
        mlia_jw_kuint_or_null(w, "metadata_size", e->has_metadata, e->metadata_size);
    }
    if (e->kind == ETDUMP_EVENT_DEBUG) {
        mlia_jw_key(w, "value");
        if (dv->present)
            debug_value(w, dv);
        else
            mlia_jw_null(w);
    }
    mlia_jw_kuint(w, "offset", e->offset);
    mlia_jw_obj_end(w);
}

/* One run; its events are decoded one at a time, straight to the writer. */
static int write_run(const etdump *d, uint32_t r, mlia_jw *w, mlia_error *err)
{
    const etdump_run *run = &d->runs[r];
    mlia_jw_obj_begin(w);
    kmstr(w, "name", run->name);
    mlia_jw_kint(w, "bundled_input_index", run->bundled_input_index);
    mlia_jw_kuint(w, "offset", run->offset);
    mlia_jw_karray(w, "allocators", run->n_allocators, mlia_jw_item_mstr, run->allocators);
    mlia_jw_karr_begin(w, "events");
    etdump_cursor cur;
    etdump_event e;
    etdump_debug_value dv;
    if (etdump_run_begin(d, r, &cur, err) < 0)
        return -1;
    int more;
    while ((more = etdump_run_next(&cur, &e, &dv, err)) > 0)
        event_object(w, &e, &dv);
    if (more < 0)
        return -1;
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    return 0;
}

int inspect_etdump_members(const etdump *d, mlia_jw *w, mlia_error *err)
{
    mlia_jw_kstr(w, "format", "etdump");
    mlia_jw_kuint(w, "version", d->version);
    mlia_jw_kbool(w, "size_prefixed", d->size_prefixed);
    mlia_jw_kuint(w, "file_size", d->size);
    mlia_jw_karr_begin(w, "runs");
    for (uint32_t r = 0; r < d->n_runs; r++)
        if (write_run(d, r, w, err) < 0)
            return -1;
    mlia_jw_arr_end(w);
    return 0;
}

int inspect_etdump(const etdump *d, mlia_jw *w, mlia_error *err)
{
    mlia_jw_obj_begin(w);
    if (inspect_etdump_members(d, w, err) < 0)
        return -1;
    mlia_jw_obj_end(w);
    return 0;
}

/* ---------------------------------------------------------------- PTE */

static void operator_name(mlia_jw *w, const pte_operator *op)
{
    /* "<name>.<overload>" without an arena: build in a bounded buffer */
    char buf[1024];
    int n = snprintf(buf, sizeof buf, "%.*s%s%.*s", (int)(op->name.len > 500 ? 500 : op->name.len),
                     op->name.ptr ? op->name.ptr : "", op->overload.len ? "." : "",
                     (int)(op->overload.len > 500 ? 500 : op->overload.len), op->overload.ptr ? op->overload.ptr : "");
    mlia_jw_strn(w, buf, n < 0 ? 0 : (size_t)n);
}

static void operator_item(mlia_jw *w, const void *v, uint32_t i)
{
    operator_name(w, &((const pte_operator *)v)[i]);
}

/* "key": {"a": a, "b": b} of two unsigned numbers. */
static void kpair(mlia_jw *w, const char *key, const char *ka, uint64_t a, const char *kb, uint64_t b)
{
    mlia_jw_kobj_begin(w, key);
    mlia_jw_kuint(w, ka, a);
    mlia_jw_kuint(w, kb, b);
    mlia_jw_obj_end(w);
}

/* scalar_type and sizes (PTE and BundledProgram tensors, plan inputs/outputs). */
static void tensor_shape(mlia_jw *w, uint8_t scalar_type, const int32_t *sizes, uint32_t n_sizes)
{
    mlia_jw_kname(w, "scalar_type", et_scalar_type_name(scalar_type), scalar_type);
    mlia_jw_karray(w, "sizes", n_sizes, mlia_jw_item_i32, sizes);
}

static void tensor_summary(mlia_jw *w, const pte_tensor *t)
{
    tensor_shape(w, t->scalar_type, t->sizes, t->n_sizes);
    mlia_jw_karray(w, "dim_order", t->n_dim_order, mlia_jw_item_u8, t->dim_order);
    mlia_jw_kuint(w, "nbytes", t->nbytes);
    mlia_jw_kuint(w, "data_buffer_idx", t->data_buffer_idx);
    if (t->has_allocation)
        kpair(w, "allocation_info", "memory_id", t->memory_id, "memory_offset", t->memory_offset);
    if (t->is_constant)
        kpair(w, "constant", "offset", t->data_offset, "size", t->data_size);
    if (t->shape_dynamism)
        mlia_jw_kuint(w, "shape_dynamism", t->shape_dynamism);
    if (t->has_extra)
        kmstr(w, "fully_qualified_name", t->fully_qualified_name);
}

static void value_json(mlia_jw *w, const void *values, uint32_t i)
{
    const pte_value *v = &((const pte_value *)values)[i];
    mlia_jw_obj_begin(w);
    mlia_jw_kname(w, "kind", pte_value_kind_name(v->kind), v->kind);
    switch (v->kind) {
    case PTE_VALUE_INT: mlia_jw_kint(w, "value", v->int_val); break;
    case PTE_VALUE_BOOL: mlia_jw_kbool(w, "value", v->bool_val); break;
    case PTE_VALUE_DOUBLE: mlia_jw_kdouble(w, "value", v->double_val); break;
    case PTE_VALUE_STRING: kmstr(w, "value", v->string_val); break;
    case PTE_VALUE_TENSOR: tensor_summary(w, &v->tensor); break;
    case PTE_VALUE_DOUBLE_LIST: mlia_jw_karray(w, "items", v->n_items, double_item, v->double_items); break;
    case PTE_VALUE_BOOL_LIST: mlia_jw_karray(w, "items", v->n_items, bool_item, v->items); break;
    case PTE_VALUE_INT_LIST:
    case PTE_VALUE_TENSOR_LIST:
    case PTE_VALUE_OPTIONAL_TENSOR_LIST: mlia_jw_karray(w, "items", v->n_items, mlia_jw_item_i64, v->items); break;
    default:
        break;
    }
    mlia_jw_obj_end(w);
}

static void io_tensors(mlia_jw *w, const char *key, const pte_plan *pl, const int32_t *idx, uint32_t n)
{
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < n; i++) {
        const pte_value *v = &pl->values[idx[i]];
        mlia_jw_obj_begin(w);
        mlia_jw_kint(w, "value", idx[i]);
        mlia_jw_kname(w, "kind", pte_value_kind_name(v->kind), v->kind);
        if (v->kind == PTE_VALUE_TENSOR)
            tensor_shape(w, v->tensor.scalar_type, v->tensor.sizes, v->tensor.n_sizes);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

/* The kind-specific members of an instruction. */
static void instruction_members(mlia_jw *w, const pte_plan *pl, const pte_instruction *in)
{
    switch (in->kind) {
    case PTE_INSTR_KERNEL:
        mlia_jw_key(w, "operator");
        operator_name(w, &pl->operators[in->op_index]);
        mlia_jw_kint(w, "op_index", in->op_index);
        mlia_jw_karray(w, "args", in->n_args, mlia_jw_item_i32, in->args);
        break;
    case PTE_INSTR_DELEGATE:
        mlia_jw_kint(w, "delegate_index", in->delegate_index);
        mlia_jw_karray(w, "args", in->n_args, mlia_jw_item_i32, in->args);
        break;
    case PTE_INSTR_MOVE:
        mlia_jw_kint(w, "move_from", in->a);
        mlia_jw_kint(w, "move_to", in->b);
        break;
    case PTE_INSTR_JUMP_FALSE:
        mlia_jw_kint(w, "cond_value_index", in->a);
        mlia_jw_kint(w, "destination_instruction", in->b);
        break;
    case PTE_INSTR_FREE:
        mlia_jw_kint(w, "value_index", in->a);
        break;
    default:
        break;
    }
}

static void compile_spec_members(mlia_jw *w, const void *item, uint32_t k)
{
    const pte_compile_spec *cs = item;
    kmstr(w, "key", cs->key);
    mlia_jw_kuint(w, "size", cs->value_size);
}

static void plan_json(mlia_jw *w, const pte_plan *pl, inspect_blob_fn blob_fn, void *blob_ctx)
{
    mlia_jw_obj_begin(w);
    kmstr(w, "name", pl->name);
    mlia_jw_kuint(w, "n_values", pl->n_values);
    mlia_jw_kobj_begin(w, "values");
    for (int k = 0; k < PTE_VALUE_KIND_COUNT; k++)
        if (pl->value_counts[k])
            mlia_jw_kuint(w, pte_value_kind_name(k), pl->value_counts[k]);
    if (pl->n_unknown_values)
        mlia_jw_kuint(w, "unknown", pl->n_unknown_values);
    mlia_jw_obj_end(w);
    mlia_jw_karray(w, "inputs", pl->n_inputs, mlia_jw_item_i32, pl->inputs);
    mlia_jw_karray(w, "outputs", pl->n_outputs, mlia_jw_item_i32, pl->outputs);
    io_tensors(w, "input_tensors", pl, pl->inputs, pl->n_inputs);
    io_tensors(w, "output_tensors", pl, pl->outputs, pl->n_outputs);
    mlia_jw_karray(w, "non_const_buffer_sizes", pl->n_non_const_buffer_sizes, mlia_jw_item_i64,
                   pl->non_const_buffer_sizes);
    if (pl->has_container_meta) {
        mlia_jw_kobj_begin(w, "container_meta_type");
        kmstr(w, "encoded_inp_str", pl->encoded_inp_str);
        kmstr(w, "encoded_out_str", pl->encoded_out_str);
        mlia_jw_obj_end(w);
    }
    mlia_jw_karray(w, "operators", pl->n_operators, operator_item, pl->operators);
    mlia_jw_kuint(w, "chains", pl->n_chains);
    mlia_jw_karr_begin(w, "instructions");
    for (uint32_t c = 0; c < pl->n_chains; c++)
        for (uint32_t i = 0; i < pl->chains[c].n_instructions; i++) {
            const pte_instruction *in = &pl->chains[c].instructions[i];
            mlia_jw_obj_begin(w);
            mlia_jw_kuint(w, "chain", c);
            mlia_jw_kuint(w, "index", i);
            mlia_jw_kname(w, "kind", pte_instr_kind_name(in->kind), in->kind);
            instruction_members(w, pl, in);
            mlia_jw_obj_end(w);
        }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "delegates");
    for (uint32_t i = 0; i < pl->n_delegates; i++) {
        const pte_delegate *d = &pl->delegates[i];
        mlia_jw_obj_begin(w);
        kmstr(w, "backend", d->id);
        mlia_jw_kname(w, "location", d->location == 0 ? "inline" : d->location == 1 ? "segment" : NULL, d->location);
        mlia_jw_kuint(w, "index", d->index);
        mlia_jw_kuint(w, "offset", d->offset);
        mlia_jw_kuint(w, "size", d->size);
        mlia_jw_kobjects(w, "compile_specs", d->compile_specs, d->n_compile_specs, sizeof *d->compile_specs,
                         compile_spec_members);
        if (blob_fn) {
            mlia_jw_key(w, "blob");
            blob_fn(blob_ctx, d, w);
        }
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karray(w, "value_list", pl->n_values, value_json, pl->values);
    mlia_jw_obj_end(w);
}

static void blob_members(mlia_jw *w, const void *item, uint32_t i)
{
    const pte_blob *b = item;
    mlia_jw_kuint(w, "offset", b->file_offset);
    mlia_jw_kuint(w, "size", b->size);
}

static void subsegment(mlia_jw *w, const void *v, uint32_t i)
{
    const pte_subsegment *s = &((const pte_subsegment *)v)[i];
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "segment_index", s->segment_index);
    mlia_jw_karray(w, "offsets", s->n_offsets, mlia_jw_item_u64, s->offsets);
    mlia_jw_obj_end(w);
}

static void segment_members(mlia_jw *w, const void *item, uint32_t i)
{
    const pte_segment *s = item;
    mlia_jw_kuint(w, "offset", s->offset);
    mlia_jw_kuint(w, "size", s->size);
    mlia_jw_kuint_or_null(w, "file_offset", s->in_file, s->file_offset);
}

static void named_data_members(mlia_jw *w, const void *item, uint32_t i)
{
    const pte_named_data *nd = item;
    kmstr(w, "key", nd->key);
    mlia_jw_kuint(w, "segment_index", nd->segment_index);
}

void inspect_pte(const pte_program *p, mlia_jw *w, inspect_blob_fn blob_fn, void *blob_ctx)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "format", "pte");
    mlia_jw_kuint(w, "version", p->version);
    mlia_jw_kuint(w, "file_size", p->file_size);
    if (p->has_extended_header) {
        mlia_jw_kobj_begin(w, "extended_header");
        mlia_jw_kuint(w, "header_length", p->header_length);
        mlia_jw_kuint(w, "program_size", p->program_size);
        mlia_jw_kuint(w, "segment_base_offset", p->segment_base_offset);
        mlia_jw_kuint(w, "segment_data_size", p->segment_data_size);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_knull(w, "extended_header");
    }
    mlia_jw_kobjects(w, "segments", p->segments, p->n_segments, sizeof *p->segments, segment_members);
    mlia_jw_key(w, "constant_segment");
    if (p->has_constant_segment)
        subsegment(w, &p->constant_segment, 0);
    else
        mlia_jw_null(w);
    if (p->constant_buffer_present)
        mlia_jw_kobjects(w, "constant_buffer", p->constant_buffers, p->n_constant_buffers, sizeof(pte_blob),
                         blob_members);
    mlia_jw_kobjects(w, "backend_delegate_data", p->inline_delegates, p->n_inline_delegates, sizeof(pte_blob),
                     blob_members);
    mlia_jw_karray(w, "mutable_data_segments", p->n_mutable_data_segments, subsegment, p->mutable_data_segments);
    mlia_jw_kobjects(w, "named_data", p->named_data, p->n_named_data, sizeof *p->named_data, named_data_members);
    mlia_jw_karr_begin(w, "methods");
    for (uint32_t i = 0; i < p->n_plans; i++)
        plan_json(w, &p->plans[i], blob_fn, blob_ctx);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

/* ---------------------------------------------------------------- BundledProgram */

static void bp_value_members(mlia_jw *w, const void *item, uint32_t i)
{
    static const char *const kinds[] = {"NONE", "Tensor", "Int", "Bool", "Double"};
    const bp_value *x = item;
    mlia_jw_kname(w, "kind", x->kind <= BP_VALUE_DOUBLE ? kinds[x->kind] : NULL, x->kind);
    switch (x->kind) {
    case BP_VALUE_TENSOR:
        tensor_shape(w, x->scalar_type, x->sizes, x->n_sizes);
        mlia_jw_karray(w, "dim_order", x->n_dim_order, mlia_jw_item_u8, x->dim_order);
        mlia_jw_kuint(w, "data_size", x->data_size);
        mlia_jw_kuint(w, "data_offset", x->data_offset);
        break;
    case BP_VALUE_INT: mlia_jw_kint(w, "value", x->int_val); break;
    case BP_VALUE_BOOL: mlia_jw_kbool(w, "value", x->bool_val); break;
    case BP_VALUE_DOUBLE: mlia_jw_kdouble(w, "value", x->double_val); break;
    default: break;
    }
}

static void test_case_members(mlia_jw *w, const void *item, uint32_t k)
{
    const bp_test_case *tc = item;
    mlia_jw_kobjects(w, "inputs", tc->inputs, tc->n_inputs, sizeof(bp_value), bp_value_members);
    mlia_jw_kobjects(w, "expected_outputs", tc->expected_outputs, tc->n_expected_outputs, sizeof(bp_value),
                     bp_value_members);
}

static void test_suite_members(mlia_jw *w, const void *item, uint32_t i)
{
    const bp_method_test_suite *s = item;
    kmstr(w, "method_name", s->method_name);
    mlia_jw_kuint(w, "test_cases", s->n_test_cases);
    mlia_jw_kobjects(w, "cases", s->test_cases, s->n_test_cases, sizeof *s->test_cases, test_case_members);
}

void inspect_bundled_program(const bundled_program *bp, mlia_jw *w, inspect_blob_fn blob_fn, void *blob_ctx)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "format", "bundled_program");
    mlia_jw_kuint(w, "version", bp->version);
    mlia_jw_kuint(w, "program_offset", bp->program_offset);
    mlia_jw_kuint(w, "program_size", bp->program_size);
    mlia_jw_key(w, "program");
    inspect_pte(bp->program, w, blob_fn, blob_ctx);
    mlia_jw_kobjects(w, "method_test_suites", bp->method_test_suites, bp->n_method_test_suites,
                     sizeof *bp->method_test_suites, test_suite_members);
    mlia_jw_obj_end(w);
}
