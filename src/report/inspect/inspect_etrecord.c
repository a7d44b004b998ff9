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

/* An archive entry (the document lists them first). */
static void entry_members(mlia_jw *w, const void *item, uint32_t i)
{
    const etrecord_entry *e = item;
    mlia_jw_kstr(w, "name", e->name);
    mlia_jw_kuint(w, "size", e->size);
    mlia_jw_kstr(w, "role", e->role);
    mlia_jw_kstr(w, "compression", e->comp_method == 0 ? "stored" : e->comp_method == 8 ? "deflate" : "other");
}

static void write_handles(mlia_jw *w, const etrecord_handles *h)
{
    mlia_jw_karray(w, NULL, h->n, mlia_jw_item_i64, h->v);
}

static void module_path(mlia_jw *w, const void *v, uint32_t i)
{
    mlia_jw_str(w, ((const ep_module_entry *)v)[i].path);
}

/* An argument of a node: name, kind and its tensors or value. The first
 * string argument of a delegate call is the lowered module payload: too big
 * to print, written as null. */
static void write_arg(mlia_jw *w, const ep_node *nd, uint32_t i)
{
    const ep_arg *a = &nd->inputs[i];
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", a->name);
    mlia_jw_kstr(w, "kind", a->kind_name);
    if (a->n_tensors)
        mlia_jw_karray(w, "tensors", a->n_tensors, mlia_jw_item_str, a->tensors);
    else
        mlia_jw_kstr(w, "value", a->kind == EP_ARG_STRING && nd->is_delegate && i == 0 ? NULL : a->value);
    mlia_jw_obj_end(w);
}

static void write_node(mlia_jw *w, const void *v, uint32_t k)
{
    const ep_node *nd = &((const ep_node *)v)[k];
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", nd->name);
    mlia_jw_kstr(w, "target", nd->target);
    mlia_jw_kint_or_null(w, "debug_handle", nd->debug_handle != 0, nd->debug_handle);
    mlia_jw_karr_begin(w, "inputs");
    for (uint32_t i = 0; i < nd->n_inputs; i++)
        write_arg(w, nd, i);
    mlia_jw_arr_end(w);
    mlia_jw_karray(w, "outputs", nd->n_outputs, mlia_jw_item_str, nd->outputs);
    mlia_jw_kstr(w, "delegate_backend", nd->delegate_backend);
    mlia_jw_karray(w, "nn_module_stack", nd->n_modules, module_path, nd->modules);
    mlia_jw_kstr(w, "source_fn_stack", nd->source_fn_stack);
    mlia_jw_kbool(w, "has_stack_trace", nd->stack_trace != NULL);
    mlia_jw_obj_end(w);
}

static void input_spec_members(mlia_jw *w, const void *item, uint32_t i)
{
    const ep_spec *sp = item;
    mlia_jw_kstr(w, "kind", sp->kind);
    mlia_jw_kstr(w, "name", sp->arg_name);
    mlia_jw_kstr(w, "target", sp->target);
}

/* Key "<instruction index>" of the per-instruction maps. */
static void instruction_key(mlia_jw *w, uint32_t i)
{
    char key[16];
    snprintf(key, sizeof key, "%u", i);
    mlia_jw_key(w, key);
}

static void write_delegate(mlia_jw *w, const etrecord_method *m, uint32_t i)
{
    const etrecord_delegate_entry *d = &m->delegates[i];
    instruction_key(w, i);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", d->backend);
    if (d->inner_null) {
        mlia_jw_knull(w, "delegate_map");
    } else {
        mlia_jw_kobj_begin(w, "delegate_map");
        for (uint32_t k = 0; k < d->n_keys; k++) {
            mlia_jw_key(w, d->keys[k]);
            write_handles(w, &d->handles[k]);
        }
        mlia_jw_obj_end(w);
    }
    mlia_jw_kint_or_null(w, "num_outs", m->num_outs[i] >= 0, m->num_outs[i]);
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
    mlia_jw_kint_or_null(w, "nodes", p != NULL, p ? p->graph.n_nodes : 0);
    mlia_jw_kuint(w, "debug_handle_map", m->n_debug_handle_keys);
    mlia_jw_kuint(w, "delegate_map", m->n_delegate_keys);
    mlia_jw_kuint(w, "instruction_id_to_num_outs_map", m->n_num_outs_keys);
    mlia_jw_kuint(w, "instructions", m->n_instr);
    mlia_jw_kstr(w, "program_entry", m->program_entry);
    mlia_jw_kstr(w, "program_error", rc < 0 ? err.text : NULL);

    mlia_jw_kobj_begin(w, "debug_handles");
    for (uint32_t i = 0; i < m->n_instr; i++)
        if (m->debug_handles[i].present) {
            instruction_key(w, i);
            write_handles(w, &m->debug_handles[i]);
        }
    mlia_jw_obj_end(w);
    mlia_jw_kobj_begin(w, "delegates");
    for (uint32_t i = 0; i < m->n_instr; i++)
        if (m->delegates[i].present)
            write_delegate(w, m, i);
    mlia_jw_obj_end(w);

    if (p)
        mlia_jw_karray(w, "nodes_detail", p->graph.n_nodes, write_node, p->graph.nodes);
    else
        mlia_jw_knull(w, "nodes_detail");
    mlia_jw_kobjects(w, "graph_inputs", p ? p->input_specs : NULL, p ? p->n_input_specs : 0, sizeof(ep_spec),
                     input_spec_members);
    mlia_jw_karray(w, "graph_outputs", p ? p->graph.n_outputs : 0, mlia_jw_item_str, p ? p->graph.outputs : NULL);
    mlia_jw_obj_end(w);
}

void inspect_etrecord(etrecord *rec, mlia_jw *w, mlia_arena *arena)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "format", "etrecord");
    mlia_jw_kstr(w, "layout", rec->legacy ? "legacy" : "current");
    mlia_jw_kobjects(w, "entries", rec->entries, rec->n_entries, sizeof *rec->entries, entry_members);
    mlia_jw_kint_or_null(w, "export_graph_id", rec->has_export_graph_id, rec->export_graph_id);
    mlia_jw_karr_begin(w, "methods");
    for (uint32_t i = 0; i < rec->n_methods; i++)
        write_method(rec, &rec->methods[i], w, arena);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}
