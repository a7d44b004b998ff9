/*
 * view_memory.c - the page's memory data (docs/memory.md, "The page"):
 * the memory view of the run record (analysis/memory.h) as the page data's
 * "memory" object, which the page's Memory tab draws (viewer/src/memory.js):
 * the live-bytes curve over the instructions, linked to the graph views
 * through each instruction's source operator entity, and the pool layout
 * (tensor by offset over the instructions). Written only when a PTE was
 * given, so pages without one are unchanged.
 */
#include <stdio.h>

#include "analysis/memory.h"
#include "core/json_write.h"
#include "formats/pte.h"
#include "report/views/views_model.h"

void vw_memory_write(const mlia_run_record *s, mlia_arena *a, mlia_jw *w)
{
    const memory_analysis *ma = s->memory;
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "method", ma->method);
    mlia_jw_kbool(w, "available", ma->available);
    if (!ma->available) {
        mlia_jw_kstr(w, "reason", ma->reason);
        mlia_jw_obj_end(w);
        return;
    }
    mlia_jw_kuint(w, "total_planned", ma->total_planned);
    mlia_jw_kuint(w, "peak", ma->peak);
    mlia_jw_kint(w, "peak_instruction", ma->peak_instruction);
    mlia_jw_kuint(w, "alignment", MEMORY_DEFAULT_ALIGNMENT);
    mlia_jw_karr_begin(w, "pools");
    for (uint32_t p = 0; p < ma->n_pools; p++) {
        const memory_pool *pl = &ma->pools[p];
        mlia_jw_obj_begin(w);
        mlia_jw_kuint(w, "id", pl->id);
        mlia_jw_kuint(w, "size", pl->size);
        mlia_jw_kuint(w, "peak", pl->peak);
        mlia_jw_kint(w, "peak_instruction", pl->peak_instruction);
        mlia_jw_kuint(w, "waste", pl->waste);
        mlia_jw_kuint(w, "peak_aligned", pl->peak_aligned);
        mlia_jw_kuint(w, "no_reuse_bytes", pl->no_reuse_bytes);
        mlia_jw_karr_begin(w, "live");
        for (uint32_t k = 0; k < ma->n_instructions; k++)
            mlia_jw_uint(w, pl->live[k]);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "instructions");
    for (uint32_t k = 0; k < ma->n_instructions; k++) {
        const memory_instruction *mi = &ma->instructions[k];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "op", mi->op);
        mlia_jw_kstr(w, "node", mi->node_name);
        const char *eid = NULL;
        if (mi->node_name) {
            eid = mlia_arena_printf(a, "source_operator/%s/%s", ma->method, mi->node_name);
            if (!mlia_result_find(s->result, eid))
                eid = NULL;
        }
        mlia_jw_kstr(w, "entity", eid);
        mlia_jw_kuint(w, "live", mi->live);
        mlia_jw_kuint(w, "allocates", mi->allocates);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "tensors");
    for (uint32_t i = 0; i < ma->n_tensors; i++) {
        const memory_tensor *m = &ma->tensors[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kuint(w, "value", m->value);
        mlia_jw_kuint(w, "pool", m->pool);
        mlia_jw_kuint(w, "offset", m->offset);
        mlia_jw_kuint(w, "bytes", m->nbytes);
        const char *dt = et_scalar_type_name(m->scalar_type);
        mlia_jw_kstr(w, "dtype", dt ? dt : "");
        mlia_jw_kint(w, "first", m->first);
        mlia_jw_kint(w, "last", m->last);
        mlia_jw_kint(w, "view_of", m->alias_of);
        mlia_jw_kstr(w, "role", m->is_mutable ? "mutable" : m->is_input ? "input" : m->is_output ? "output" : "");
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    if (ma->has_runtime) {
        mlia_jw_karr_begin(w, "runtime");
        for (uint32_t i = 0; i < ma->n_allocators; i++) {
            mlia_jw_obj_begin(w);
            mlia_jw_kstr(w, "name", ma->allocators[i].name);
            mlia_jw_kuint(w, "count", ma->allocators[i].count);
            mlia_jw_kuint(w, "bytes", ma->allocators[i].bytes);
            mlia_jw_obj_end(w);
        }
        mlia_jw_arr_end(w);
    } else {
        mlia_jw_knull(w, "runtime");
    }
    mlia_jw_obj_end(w);
}
