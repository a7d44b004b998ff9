/*
 * backend.c - the XNNPACK backend (ExecuTorch's XnnpackBackend delegate on
 * CPUs; docs/delegates.md, "XNNPACK"), registered in
 * src/backends/registry.c.
 *
 * XNNPACK's profiler logs one event per runtime operator inside the
 * delegate call, named "<operator type> #k", with durations measured in
 * whole microseconds and converted to CPU ticks, laid back to back. The
 * runtime analysis (analysis/runtime.c) already makes each event an
 * entity under its DELEGATE_CALL with P50/min/max over the executions (CPU
 * ticks like every CPU event: they scale with a declared tick rate). This
 * backend adds what the events mean: the operator type and its repeat,
 * and the mapping to source operators. XNNPACK's preprocess returns an
 * empty debug handle map, so the inner delegate map is {}: every operator
 * is "unmapped" (an exact key lookup is still made, so a map that does name
 * an event is used), never matched to a source operator by its name; the
 * warning says so once.
 */
#include <string.h>

#include "analysis/delegate_map.h"
#include "analysis/runtime.h"
#include "backends/backend.h"
#include "backends/xnnpack/analysis/xnn_ops.h"

#define XNN_ID "XnnpackBackend"

typedef struct xnn_state {
    uint32_t n_calls;        /* delegate call entities of the backend */
    uint32_t n_ops;          /* operator event entities */
    uint32_t n_unmapped;     /* of those, without a source operator */
} xnn_state;

static void *xnn_begin(const mlia_backend_ctx *c)
{
    xnn_state *st = mlia_arena_alloc(c->arena, sizeof *st);
    memset(st, 0, sizeof *st);
    return st;
}

static int xnn_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    (void)err;
    xnn_state *st = state;
    const runtime_analysis *ra = c->runtime;
    if (!ra)
        return 0;
    delegate_map_index idx;
    bool have_idx = false;
    for (uint32_t i = 0; i < ra->n_calls; i++) {
        const runtime_delegate_call *call = &ra->calls[i];
        if (!call->backend || strcmp(call->backend, XNN_ID) != 0)
            continue;
        if (!have_idx) {
            delegate_map_index_init(&idx, c->maps, c->program, c->method_name, c->arena);
            have_idx = true;
        }
        st->n_calls++;
        for (uint32_t k = 0; k < call->n_events; k++) {
            const runtime_event_node *ev = &call->events[k];
            mlia_entity *e = mlia_result_find(c->result, ev->entity_id);
            if (!e)
                continue;
            st->n_ops++;
            size_t type_len;
            uint32_t repeat;
            bool numbered = xnn_split_name(ev->name, &type_len, &repeat);
            mlia_entity_set_str(c->result, e, "backend", XNN_ID);
            mlia_entity_set_str(c->result, e, "operator_type", mlia_arena_strndup(c->arena, ev->name, type_len));
            if (numbered)
                mlia_entity_set_int(c->result, e, "repeat", repeat);
            uint32_t linked = 0;
            delegate_mapping m = call->instruction >= 0
                                     ? delegate_map_link(&idx, (uint32_t)call->instruction, ev->name, c->result, e,
                                                         &linked)
                                     : DELEGATE_MAP_NONE;
            mlia_entity_set_str(c->result, e, "source_mapping", delegate_mapping_name(m));
            if (m != DELEGATE_MAP_LINKED)
                st->n_unmapped++;
        }
    }
    if (st->n_calls)
        mlia_backend_log(c, "XNNPACK: %u delegate call(s), %u operator(s), %u without a source operator",
                         st->n_calls, st->n_ops, st->n_unmapped);
    if (st->n_unmapped)
        mlia_result_warnf(c->result,
                          "XNNPACK: %u of %u operator(s) have no source operator: XnnpackBackend records no "
                          "delegate map ({}), so only its delegate call maps to source operators; the operators "
                          "are listed unmapped, never matched by name.",
                          st->n_unmapped, st->n_ops);
    return 0;
}

static const char *const DELEGATE_IDS[] = {XNN_ID, NULL};

const mlia_backend mlia_backend_xnnpack = {
    .name = "xnnpack",
    .label = "XNNPACK",
    .delegate_ids = DELEGATE_IDS,
    .begin = xnn_begin,
    .analyse = xnn_analyse,
};
