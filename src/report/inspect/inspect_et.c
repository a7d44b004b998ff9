/*
 * inspect_et.c - `mlia inspect` JSON for ETDump, PTE and BundledProgram
 * (see inspect_et.h; the key reference is docs/inspect.md).
 *
 * Conventions: absent strings are written as null (flatc omits them), enum
 * values are written by name when known and as the raw integer otherwise,
 * byte vectors are summarised by size and file offset instead of being
 * listed (a 250 KB constant segment would otherwise dominate the output).
 */
#include "inspect_et.h"

#include <stdio.h>

#include "formats/fb.h"

static void kstr_opt(mlia_jw *w, const char *key, mlia_str s)
{
    mlia_jw_key(w, key);
    if (s.ptr)
        mlia_jw_strn(w, s.ptr, s.len);
    else
        mlia_jw_null(w);
}

static void enum_value(mlia_jw *w, const char *name, int raw)
{
    if (name)
        mlia_jw_str(w, name);
    else
        mlia_jw_int(w, raw);
}

static void i32_array(mlia_jw *w, const char *key, const int32_t *v, uint32_t n)
{
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < n; i++)
        mlia_jw_int(w, v[i]);
    mlia_jw_arr_end(w);
}

static void u8_array(mlia_jw *w, const char *key, const uint8_t *v, uint32_t n)
{
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < n; i++)
        mlia_jw_uint(w, v[i]);
    mlia_jw_arr_end(w);
}

/* ---------------------------------------------------------------- ETDump */

static void debug_value(mlia_jw *w, const etdump_debug_value *v)
{
    mlia_jw_obj_begin(w);
    mlia_jw_key(w, "val");
    enum_value(w, etdump_value_type_name(v->value_type), v->value_type);
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
            mlia_jw_key(w, "scalar_type");
            enum_value(w, et_scalar_type_name(v->scalar_type), v->scalar_type);
            mlia_jw_karr_begin(w, "sizes");
            for (uint32_t i = 0; i < v->n_dims; i++)
                mlia_jw_int(w, (int64_t)fb_le64(v->sizes + 8 * (size_t)i));
            mlia_jw_arr_end(w);
            mlia_jw_kint(w, "offset", v->data_offset);
        }
        mlia_jw_key(w, "nbytes");
        if (v->nbytes_known)
            mlia_jw_uint(w, v->nbytes);
        else
            mlia_jw_null(w);
        break;
    default:
        break;
    }
    mlia_jw_obj_end(w);
}

static void event_object(mlia_jw *w, const etdump_event *e, const etdump_debug_value *dv)
{
    mlia_jw_obj_begin(w);
    mlia_jw_key(w, "kind");
    enum_value(w, etdump_event_kind_name(e->kind), e->kind);
    if (e->kind == ETDUMP_EVENT_ALLOCATION) {
        mlia_jw_kint(w, "allocator_id", e->allocator_id);
        mlia_jw_kuint(w, "allocation_size", e->allocation_size);
    } else {
        kstr_opt(w, "name", e->name);
        mlia_jw_kint(w, "chain_index", e->chain_index);
        mlia_jw_kint(w, "instruction_id", e->instruction_id);
        mlia_jw_kint(w, "delegate_debug_id_int", e->delegate_debug_id_int);
        kstr_opt(w, "delegate_debug_id_str", e->delegate_debug_id_str);
    }
    if (e->kind == ETDUMP_EVENT_PROFILE) {
        mlia_jw_kuint(w, "start_time", e->start_time);
        mlia_jw_kuint(w, "end_time", e->end_time);
        mlia_jw_key(w, "metadata_size");
        if (e->has_metadata)
            mlia_jw_uint(w, e->metadata_size);
        else
            mlia_jw_null(w);
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

int inspect_etdump_members(const etdump *d, mlia_jw *w, mlia_error *err)
{
    mlia_jw_kstr(w, "format", "etdump");
    mlia_jw_kuint(w, "version", d->version);
    mlia_jw_kbool(w, "size_prefixed", d->size_prefixed);
    mlia_jw_kuint(w, "file_size", d->size);
    mlia_jw_karr_begin(w, "runs");
    for (uint32_t r = 0; r < d->n_runs; r++) {
        const etdump_run *run = &d->runs[r];
        mlia_jw_obj_begin(w);
        kstr_opt(w, "name", run->name);
        mlia_jw_kint(w, "bundled_input_index", run->bundled_input_index);
        mlia_jw_kuint(w, "offset", run->offset);
        mlia_jw_karr_begin(w, "allocators");
        for (uint32_t i = 0; i < run->n_allocators; i++) {
            if (run->allocators[i].ptr)
                mlia_jw_strn(w, run->allocators[i].ptr, run->allocators[i].len);
            else
                mlia_jw_null(w);
        }
        mlia_jw_arr_end(w);
        mlia_jw_karr_begin(w, "events");
        /* one event at a time, straight to the writer */
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
    }
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

static void tensor_summary(mlia_jw *w, const pte_tensor *t)
{
    mlia_jw_key(w, "scalar_type");
    enum_value(w, et_scalar_type_name(t->scalar_type), t->scalar_type);
    i32_array(w, "sizes", t->sizes, t->n_sizes);
    u8_array(w, "dim_order", t->dim_order, t->n_dim_order);
    mlia_jw_kuint(w, "nbytes", t->nbytes);
    mlia_jw_kuint(w, "data_buffer_idx", t->data_buffer_idx);
    if (t->has_allocation) {
        mlia_jw_kobj_begin(w, "allocation_info");
        mlia_jw_kuint(w, "memory_id", t->memory_id);
        mlia_jw_kuint(w, "memory_offset", t->memory_offset);
        mlia_jw_obj_end(w);
    }
    if (t->is_constant) {
        mlia_jw_kobj_begin(w, "constant");
        mlia_jw_kuint(w, "offset", t->data_offset);
        mlia_jw_kuint(w, "size", t->data_size);
        mlia_jw_obj_end(w);
    }
    if (t->shape_dynamism)
        mlia_jw_kuint(w, "shape_dynamism", t->shape_dynamism);
    if (t->has_extra)
        kstr_opt(w, "fully_qualified_name", t->fully_qualified_name);
}

static void value_json(mlia_jw *w, const pte_value *v)
{
    mlia_jw_obj_begin(w);
    mlia_jw_key(w, "kind");
    enum_value(w, pte_value_kind_name(v->kind), v->kind);
    switch (v->kind) {
    case PTE_VALUE_INT: mlia_jw_kint(w, "value", v->int_val); break;
    case PTE_VALUE_BOOL: mlia_jw_kbool(w, "value", v->bool_val); break;
    case PTE_VALUE_DOUBLE: mlia_jw_kdouble(w, "value", v->double_val); break;
    case PTE_VALUE_STRING: kstr_opt(w, "value", v->string_val); break;
    case PTE_VALUE_TENSOR: tensor_summary(w, &v->tensor); break;
    case PTE_VALUE_DOUBLE_LIST:
        mlia_jw_karr_begin(w, "items");
        for (uint32_t i = 0; i < v->n_items; i++)
            mlia_jw_double(w, v->double_items[i]);
        mlia_jw_arr_end(w);
        break;
    case PTE_VALUE_BOOL_LIST:
        mlia_jw_karr_begin(w, "items");
        for (uint32_t i = 0; i < v->n_items; i++)
            mlia_jw_bool(w, v->items[i] != 0);
        mlia_jw_arr_end(w);
        break;
    case PTE_VALUE_INT_LIST:
    case PTE_VALUE_TENSOR_LIST:
    case PTE_VALUE_OPTIONAL_TENSOR_LIST:
        mlia_jw_karr_begin(w, "items");
        for (uint32_t i = 0; i < v->n_items; i++)
            mlia_jw_int(w, v->items[i]);
        mlia_jw_arr_end(w);
        break;
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
        mlia_jw_key(w, "kind");
        enum_value(w, pte_value_kind_name(v->kind), v->kind);
        if (v->kind == PTE_VALUE_TENSOR) {
            mlia_jw_key(w, "scalar_type");
            enum_value(w, et_scalar_type_name(v->tensor.scalar_type), v->tensor.scalar_type);
            i32_array(w, "sizes", v->tensor.sizes, v->tensor.n_sizes);
        }
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

static void plan_json(mlia_jw *w, const pte_plan *pl, inspect_blob_fn blob_fn, void *blob_ctx)
{
    mlia_jw_obj_begin(w);
    kstr_opt(w, "name", pl->name);
    mlia_jw_kuint(w, "n_values", pl->n_values);
    mlia_jw_kobj_begin(w, "values");
    for (int k = 0; k < PTE_VALUE_KIND_COUNT; k++)
        if (pl->value_counts[k])
            mlia_jw_kuint(w, pte_value_kind_name(k), pl->value_counts[k]);
    if (pl->n_unknown_values)
        mlia_jw_kuint(w, "unknown", pl->n_unknown_values);
    mlia_jw_obj_end(w);
    i32_array(w, "inputs", pl->inputs, pl->n_inputs);
    i32_array(w, "outputs", pl->outputs, pl->n_outputs);
    io_tensors(w, "input_tensors", pl, pl->inputs, pl->n_inputs);
    io_tensors(w, "output_tensors", pl, pl->outputs, pl->n_outputs);
    mlia_jw_karr_begin(w, "non_const_buffer_sizes");
    for (uint32_t i = 0; i < pl->n_non_const_buffer_sizes; i++)
        mlia_jw_int(w, pl->non_const_buffer_sizes[i]);
    mlia_jw_arr_end(w);
    if (pl->has_container_meta) {
        mlia_jw_kobj_begin(w, "container_meta_type");
        kstr_opt(w, "encoded_inp_str", pl->encoded_inp_str);
        kstr_opt(w, "encoded_out_str", pl->encoded_out_str);
        mlia_jw_obj_end(w);
    }
    mlia_jw_karr_begin(w, "operators");
    for (uint32_t i = 0; i < pl->n_operators; i++)
        operator_name(w, &pl->operators[i]);
    mlia_jw_arr_end(w);
    mlia_jw_kuint(w, "chains", pl->n_chains);
    mlia_jw_karr_begin(w, "instructions");
    for (uint32_t c = 0; c < pl->n_chains; c++) {
        const pte_chain *ch = &pl->chains[c];
        for (uint32_t i = 0; i < ch->n_instructions; i++) {
            const pte_instruction *in = &ch->instructions[i];
            mlia_jw_obj_begin(w);
            mlia_jw_kuint(w, "chain", c);
            mlia_jw_kuint(w, "index", i);
            mlia_jw_key(w, "kind");
            enum_value(w, pte_instr_kind_name(in->kind), in->kind);
            switch (in->kind) {
            case PTE_INSTR_KERNEL:
                mlia_jw_key(w, "operator");
                operator_name(w, &pl->operators[in->op_index]);
                mlia_jw_kint(w, "op_index", in->op_index);
                i32_array(w, "args", in->args, in->n_args);
                break;
            case PTE_INSTR_DELEGATE:
                mlia_jw_kint(w, "delegate_index", in->delegate_index);
                i32_array(w, "args", in->args, in->n_args);
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
            mlia_jw_obj_end(w);
        }
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "delegates");
    for (uint32_t i = 0; i < pl->n_delegates; i++) {
        const pte_delegate *d = &pl->delegates[i];
        mlia_jw_obj_begin(w);
        kstr_opt(w, "backend", d->id);
        mlia_jw_key(w, "location");
        enum_value(w, d->location == 0 ? "inline" : d->location == 1 ? "segment" : NULL, d->location);
        mlia_jw_kuint(w, "index", d->index);
        mlia_jw_kuint(w, "offset", d->offset);
        mlia_jw_kuint(w, "size", d->size);
        mlia_jw_karr_begin(w, "compile_specs");
        for (uint32_t k = 0; k < d->n_compile_specs; k++) {
            mlia_jw_obj_begin(w);
            kstr_opt(w, "key", d->compile_specs[k].key);
            mlia_jw_kuint(w, "size", d->compile_specs[k].value_size);
            mlia_jw_obj_end(w);
        }
        mlia_jw_arr_end(w);
        if (blob_fn) {
            mlia_jw_key(w, "blob");
            blob_fn(blob_ctx, d, w);
        }
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "value_list");
    for (uint32_t i = 0; i < pl->n_values; i++)
        value_json(w, &pl->values[i]);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

static void blob_list(mlia_jw *w, const char *key, const pte_blob *b, uint32_t n)
{
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < n; i++) {
        mlia_jw_obj_begin(w);
        mlia_jw_kuint(w, "offset", b[i].file_offset);
        mlia_jw_kuint(w, "size", b[i].size);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

static void subsegment(mlia_jw *w, const pte_subsegment *s)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "segment_index", s->segment_index);
    mlia_jw_karr_begin(w, "offsets");
    for (uint32_t i = 0; i < s->n_offsets; i++)
        mlia_jw_uint(w, s->offsets[i]);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

void inspect_pte(const pte_program *p, mlia_jw *w, inspect_blob_fn blob_fn, void *blob_ctx)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "format", "pte");
    mlia_jw_kuint(w, "version", p->version);
    mlia_jw_kuint(w, "file_size", p->file_size);
    mlia_jw_key(w, "extended_header");
    if (p->has_extended_header) {
        mlia_jw_obj_begin(w);
        mlia_jw_kuint(w, "header_length", p->header_length);
        mlia_jw_kuint(w, "program_size", p->program_size);
        mlia_jw_kuint(w, "segment_base_offset", p->segment_base_offset);
        mlia_jw_kuint(w, "segment_data_size", p->segment_data_size);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_null(w);
    }
    mlia_jw_karr_begin(w, "segments");
    for (uint32_t i = 0; i < p->n_segments; i++) {
        const pte_segment *s = &p->segments[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kuint(w, "offset", s->offset);
        mlia_jw_kuint(w, "size", s->size);
        mlia_jw_key(w, "file_offset");
        if (s->in_file)
            mlia_jw_uint(w, s->file_offset);
        else
            mlia_jw_null(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "constant_segment");
    if (p->has_constant_segment)
        subsegment(w, &p->constant_segment);
    else
        mlia_jw_null(w);
    if (p->constant_buffer_present)
        blob_list(w, "constant_buffer", p->constant_buffers, p->n_constant_buffers);
    blob_list(w, "backend_delegate_data", p->inline_delegates, p->n_inline_delegates);
    mlia_jw_karr_begin(w, "mutable_data_segments");
    for (uint32_t i = 0; i < p->n_mutable_data_segments; i++)
        subsegment(w, &p->mutable_data_segments[i]);
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "named_data");
    for (uint32_t i = 0; i < p->n_named_data; i++) {
        mlia_jw_obj_begin(w);
        kstr_opt(w, "key", p->named_data[i].key);
        mlia_jw_kuint(w, "segment_index", p->named_data[i].segment_index);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "methods");
    for (uint32_t i = 0; i < p->n_plans; i++)
        plan_json(w, &p->plans[i], blob_fn, blob_ctx);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

/* ---------------------------------------------------------------- BundledProgram */

static void bp_values(mlia_jw *w, const char *key, const bp_value *v, uint32_t n)
{
    static const char *const kinds[] = {"NONE", "Tensor", "Int", "Bool", "Double"};
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < n; i++) {
        const bp_value *x = &v[i];
        mlia_jw_obj_begin(w);
        mlia_jw_key(w, "kind");
        enum_value(w, x->kind <= BP_VALUE_DOUBLE ? kinds[x->kind] : NULL, x->kind);
        switch (x->kind) {
        case BP_VALUE_TENSOR:
            mlia_jw_key(w, "scalar_type");
            enum_value(w, et_scalar_type_name(x->scalar_type), x->scalar_type);
            i32_array(w, "sizes", x->sizes, x->n_sizes);
            u8_array(w, "dim_order", x->dim_order, x->n_dim_order);
            mlia_jw_kuint(w, "data_size", x->data_size);
            mlia_jw_kuint(w, "data_offset", x->data_offset);
            break;
        case BP_VALUE_INT: mlia_jw_kint(w, "value", x->int_val); break;
        case BP_VALUE_BOOL: mlia_jw_kbool(w, "value", x->bool_val); break;
        case BP_VALUE_DOUBLE: mlia_jw_kdouble(w, "value", x->double_val); break;
        default: break;
        }
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
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
    mlia_jw_karr_begin(w, "method_test_suites");
    for (uint32_t i = 0; i < bp->n_method_test_suites; i++) {
        const bp_method_test_suite *s = &bp->method_test_suites[i];
        mlia_jw_obj_begin(w);
        kstr_opt(w, "method_name", s->method_name);
        mlia_jw_kuint(w, "test_cases", s->n_test_cases);
        mlia_jw_karr_begin(w, "cases");
        for (uint32_t k = 0; k < s->n_test_cases; k++) {
            mlia_jw_obj_begin(w);
            bp_values(w, "inputs", s->test_cases[k].inputs, s->test_cases[k].n_inputs);
            bp_values(w, "expected_outputs", s->test_cases[k].expected_outputs, s->test_cases[k].n_expected_outputs);
            mlia_jw_obj_end(w);
        }
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}
