/*
 * backend.c - the Apple CoreML backend (ExecuTorch's CoreMLBackend
 * delegate; docs/delegates.md, "Apple CoreML"), registered in
 * src/backends/registry.c.
 *
 * CoreML's profiler logs one delegate event per MIL operation, named
 * "<output name>:<operator>", with a JSON metadata object. Its times are
 * not measured per operation: the model's wall time (absolute ns) is split
 * by each operation's estimatedCost from the compiler's cost model, so
 * every per-operator time is an estimate; the warning says so. The
 * runtime analysis makes each event an entity under its DELEGATE_CALL with
 * P50/min/max (ns are the CPU clock's); this backend adds the decoded
 * metadata (preferred compute unit, supported units, operator, estimated
 * cost) and the mapping by exact lookup of the name in the inner delegate
 * map (debugSymbolToHandles), never by prefix.
 */
#include <string.h>

#include "analysis/delegate_map.h"
#include "analysis/runtime.h"
#include "backends/backend.h"
#include "backends/coreml/analysis/coreml_meta.h"
#include "formats/etdump.h"

#define COREML_ID "CoreMLBackend"

typedef struct coreml_state {
    uint32_t n_calls;
    uint32_t n_ops;
    uint32_t n_unmapped;
    uint32_t n_bad_meta;     /* events whose metadata is not a JSON object */
} coreml_state;

static void *cm_begin(const mlia_backend_ctx *c)
{
    coreml_state *st = mlia_arena_alloc(c->arena, sizeof *st);
    memset(st, 0, sizeof *st);
    return st;
}

/* The first metadata of the event named `name` at the call's instruction in
 * the analysed executions (decoded into *m). false when none decodes. */
static bool find_meta(const mlia_backend_ctx *c, const runtime_delegate_call *call, const char *name,
                      etdump_events *evs, coreml_meta *m, bool *bad, mlia_error *err, int *rc)
{
    for (uint32_t x = 0; x < c->n_executions; x++) {
        if (etdump_read_run(c->dump, c->execution_runs[x], evs, err)) {
            *rc = -1;
            return false;
        }
        for (uint32_t k = 0; k < evs->n; k++) {
            const etdump_event *e = &evs->ev[k];
            if (e->kind != ETDUMP_EVENT_PROFILE || !e->delegate_debug_id_str.ptr ||
                e->chain_index != call->chain || e->instruction_id != call->instruction ||
                strlen(name) != e->delegate_debug_id_str.len ||
                memcmp(name, e->delegate_debug_id_str.ptr, e->delegate_debug_id_str.len) != 0)
                continue;
            if (!e->has_metadata || !e->metadata_size)
                continue;
            if (coreml_meta_decode(e->metadata, e->metadata_size, c->arena, m) == 0)
                return true;
            *bad = true;
        }
    }
    return false;
}

/* The walk's context: the state and the event buffer find_meta reads into. */
typedef struct cm_walk {
    coreml_state *st;
    etdump_events evs;
} cm_walk;

static int cm_event(const mlia_backend_ctx *c, void *state, const mlia_backend_event *be, mlia_error *err)
{
    cm_walk *wk = state;
    coreml_state *st = wk->st;
    const runtime_event_node *ev = be->event;
    mlia_entity *e = be->entity;
    st->n_ops++;
    mlia_entity_set_str(c->result, e, "backend", COREML_ID);
    mlia_entity_set_str(c->result, e, "time_source", "estimated (CoreML cost model)");
    coreml_meta m;
    bool bad = false;
    int rc = 0;
    if (find_meta(c, be->call->call, ev->name, &wk->evs, &m, &bad, err, &rc)) {
        if (m.operator_name)
            mlia_entity_set_str(c->result, e, "operator_type", m.operator_name);
        if (m.preferred_compute_unit)
            mlia_entity_set_str(c->result, e, "preferred_compute_unit",
                                coreml_compute_unit_name(m.preferred_compute_unit));
        if (m.n_supported) {
            const char *names[8];
            for (uint32_t q = 0; q < m.n_supported; q++)
                names[q] = coreml_compute_unit_name(m.supported[q]);
            mlia_entity_set_str_list(c->result, e, "supported_compute_units", names, m.n_supported);
        }
        if (m.has_cost)
            mlia_entity_set_double(c->result, e, "estimated_cost", m.estimated_cost);
    } else if (bad) {
        st->n_bad_meta++;
    }
    if (rc)
        return -1;
    if (mlia_backend_map_event(c, be->call, e, ev->name) != DELEGATE_MAP_LINKED)
        st->n_unmapped++;
    return 0;
}

static int cm_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    coreml_state *st = state;
    cm_walk wk;
    memset(&wk, 0, sizeof wk);
    wk.st = st;
    int64_t calls = mlia_backend_each_event(c, COREML_ID, cm_event, &wk, err);
    etdump_events_done(c->dump, &wk.evs);
    if (calls < 0)
        return -1;
    st->n_calls = (uint32_t)calls;
    if (!st->n_calls)
        return 0;
    mlia_backend_log(c, "CoreML: %u delegate call(s), %u operator(s), %u without a source operator", st->n_calls,
                     st->n_ops, st->n_unmapped);
    if (st->n_ops)
        mlia_result_warnf(c->result,
                          "CoreML: the %u operator time(s) are estimated, not measured: CoreML splits the model's "
                          "measured time by each operation's estimatedCost from the compiler's cost model.",
                          st->n_ops);
    if (st->n_unmapped)
        mlia_result_warnf(c->result,
                          "CoreML: %u of %u operator(s) are not in the ETRecord's delegate map (exact lookup of "
                          "\"<output>:<operator>\"; operations CoreML inserted itself have none), never matched by "
                          "prefix.",
                          st->n_unmapped, st->n_ops);
    if (st->n_bad_meta)
        mlia_result_warnf(c->result, "CoreML: %u operator(s) carry metadata that is not a JSON object; left undecoded.",
                          st->n_bad_meta);
    return 0;
}

/* `mlia inspect ETDUMP`: the events whose metadata is CoreML's JSON object
 * (it has estimatedCost), decoded. The member is written only when there is
 * such an event (other ETDumps keep their bytes). */
static int cm_inspect_records(const etdump *d, mlia_jw *w, mlia_arena *a, mlia_error *err)
{
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    bool open = false;
    for (uint32_t r = 0; r < d->n_runs; r++) {
        if (etdump_read_run(d, r, &evs, err)) {
            etdump_events_done(d, &evs);
            return -1;
        }
        for (uint32_t k = 0; k < evs.n; k++) {
            const etdump_event *e = &evs.ev[k];
            coreml_meta m;
            if (e->kind != ETDUMP_EVENT_PROFILE || !e->delegate_debug_id_str.ptr || !e->has_metadata ||
                e->metadata_size < 2 || e->metadata[0] != '{' ||
                coreml_meta_decode(e->metadata, e->metadata_size, a, &m) || !m.has_cost)
                continue;
            if (!open) {
                mlia_jw_karr_begin(w, "coreml_events");
                open = true;
            }
            mlia_jw_obj_begin(w);
            mlia_jw_kuint(w, "run", r);
            mlia_jw_kint(w, "instruction_id", e->instruction_id);
            mlia_jw_kstrn(w, "id", e->delegate_debug_id_str.ptr, e->delegate_debug_id_str.len);
            mlia_jw_kstr(w, "operator", m.operator_name);
            mlia_jw_kstr(w, "preferred_compute_unit", coreml_compute_unit_name(m.preferred_compute_unit));
            mlia_jw_kdouble(w, "estimated_cost", m.estimated_cost);
            mlia_jw_kuint(w, "estimated_duration_ns", e->end_time >= e->start_time ? e->end_time - e->start_time : 0);
            mlia_jw_obj_end(w);
        }
    }
    etdump_events_done(d, &evs);
    if (open)
        mlia_jw_arr_end(w);
    return 0;
}

static const char *const DELEGATE_IDS[] = {COREML_ID, NULL};

const mlia_backend mlia_backend_coreml = {
    .name = "coreml",
    .label = "CoreML",
    .delegate_ids = DELEGATE_IDS,
    .begin = cm_begin,
    .analyse = cm_analyse,
    .inspect_records = cm_inspect_records,
};
