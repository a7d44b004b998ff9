/*
 * inspect_etrecord.c - `mlia inspect` JSON for ETRecords (see
 * inspect_etrecord.h and docs/inspect-etrecord.md).
 *
 * The shape is stable: keys are always written in the same order, absent
 * values are null rather than missing, and lists keep archive / document
 * order, so the output can serve as a test oracle.
 */
#include "inspect_etrecord.h"

#include <stdio.h>

static void write_handles(mlia_jw *w, const etrecord_handles *h)
{
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < h->n; i++)
        mlia_jw_int(w, h->v[i]);
    mlia_jw_arr_end(w);
}

static void write_node(mlia_jw *w, const ep_node *nd)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", nd->name);
    mlia_jw_kstr(w, "target", nd->target);
    if (nd->debug_handle)
        mlia_jw_kint(w, "debug_handle", nd->debug_handle);
    else
        mlia_jw_knull(w, "debug_handle");
    mlia_jw_karr_begin(w, "inputs");
    for (uint32_t i = 0; i < nd->n_inputs; i++) {
        const ep_arg *a = &nd->inputs[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "name", a->name);
        mlia_jw_kstr(w, "kind", a->kind_name);
        if (a->n_tensors) {
            mlia_jw_karr_begin(w, "tensors");
            for (uint32_t t = 0; t < a->n_tensors; t++)
                mlia_jw_str(w, a->tensors[t]);
            mlia_jw_arr_end(w);
        } else if (a->kind == EP_ARG_STRING && nd->is_delegate && i == 0) {
            mlia_jw_knull(w, "value"); /* the lowered module payload: too big to print */
        } else {
            mlia_jw_kstr(w, "value", a->value);
        }
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "outputs");
    for (uint32_t i = 0; i < nd->n_outputs; i++)
        mlia_jw_str(w, nd->outputs[i]);
    mlia_jw_arr_end(w);
    mlia_jw_kstr(w, "delegate_backend", nd->delegate_backend);
    mlia_jw_karr_begin(w, "nn_module_stack");
    for (uint32_t i = 0; i < nd->n_modules; i++)
        mlia_jw_str(w, nd->modules[i].path);
    mlia_jw_arr_end(w);
    mlia_jw_kstr(w, "source_fn_stack", nd->source_fn_stack);
    mlia_jw_kbool(w, "has_stack_trace", nd->stack_trace != NULL);
    mlia_jw_obj_end(w);
}

static void write_method(etrecord *rec, const etrecord_method *m, mlia_jw *w, mlia_arena *arena)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", m->name);
    ep_program *p = NULL;
    mlia_error err;
    mlia_error_clear(&err);
    int rc = etrecord_load_method_program(rec, m, arena, &p, &err);
    if (p)
        mlia_jw_kuint(w, "nodes", p->graph.n_nodes);
    else
        mlia_jw_knull(w, "nodes");
    mlia_jw_kuint(w, "debug_handle_map", m->n_debug_handle_keys);
    mlia_jw_kuint(w, "delegate_map", m->n_delegate_keys);
    mlia_jw_kuint(w, "instruction_id_to_num_outs_map", m->n_num_outs_keys);
    mlia_jw_kuint(w, "instructions", m->n_instr);
    mlia_jw_kstr(w, "program_entry", m->program_entry);
    if (rc < 0)
        mlia_jw_kstr(w, "program_error", err.text);
    else
        mlia_jw_knull(w, "program_error");

    mlia_jw_kobj_begin(w, "debug_handles");
    for (uint32_t i = 0; i < m->n_instr; i++) {
        if (!m->debug_handles[i].present)
            continue;
        char key[16];
        snprintf(key, sizeof key, "%u", i);
        mlia_jw_key(w, key);
        write_handles(w, &m->debug_handles[i]);
    }
    mlia_jw_obj_end(w);

    mlia_jw_kobj_begin(w, "delegates");
    for (uint32_t i = 0; i < m->n_instr; i++) {
        const etrecord_delegate_entry *d = &m->delegates[i];
        if (!d->present)
            continue;
        char key[16];
        snprintf(key, sizeof key, "%u", i);
        mlia_jw_kobj_begin(w, key);
        mlia_jw_kstr(w, "name", d->backend);
        mlia_jw_key(w, "delegate_map");
        if (d->inner_null) {
            mlia_jw_null(w);
        } else {
            mlia_jw_obj_begin(w);
            for (uint32_t k = 0; k < d->n_keys; k++) {
                mlia_jw_key(w, d->keys[k]);
                write_handles(w, &d->handles[k]);
            }
            mlia_jw_obj_end(w);
        }
        if (m->num_outs[i] >= 0)
            mlia_jw_kint(w, "num_outs", m->num_outs[i]);
        else
            mlia_jw_knull(w, "num_outs");
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);

    mlia_jw_key(w, "nodes_detail");
    if (p) {
        mlia_jw_arr_begin(w);
        for (uint32_t i = 0; i < p->graph.n_nodes; i++)
            write_node(w, &p->graph.nodes[i]);
        mlia_jw_arr_end(w);
    } else {
        mlia_jw_null(w);
    }
    mlia_jw_karr_begin(w, "graph_inputs");
    if (p) {
        for (uint32_t i = 0; i < p->n_input_specs; i++) {
            mlia_jw_obj_begin(w);
            mlia_jw_kstr(w, "kind", p->input_specs[i].kind);
            mlia_jw_kstr(w, "name", p->input_specs[i].arg_name);
            mlia_jw_kstr(w, "target", p->input_specs[i].target);
            mlia_jw_obj_end(w);
        }
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "graph_outputs");
    if (p)
        for (uint32_t i = 0; i < p->graph.n_outputs; i++)
            mlia_jw_str(w, p->graph.outputs[i]);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

void inspect_etrecord(etrecord *rec, mlia_jw *w, mlia_arena *arena)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "format", "etrecord");
    mlia_jw_kstr(w, "layout", rec->legacy ? "legacy" : "current");
    mlia_jw_karr_begin(w, "entries");
    for (uint32_t i = 0; i < rec->n_entries; i++) {
        const etrecord_entry *e = &rec->entries[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "name", e->name);
        mlia_jw_kuint(w, "size", e->size);
        mlia_jw_kstr(w, "role", e->role);
        mlia_jw_kstr(w, "compression", e->comp_method == 0 ? "stored"
                                       : e->comp_method == 8 ? "deflate" : "other");
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    if (rec->has_export_graph_id)
        mlia_jw_kint(w, "export_graph_id", rec->export_graph_id);
    else
        mlia_jw_knull(w, "export_graph_id");
    mlia_jw_karr_begin(w, "methods");
    for (uint32_t i = 0; i < rec->n_methods; i++)
        write_method(rec, &rec->methods[i], w, arena);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}
