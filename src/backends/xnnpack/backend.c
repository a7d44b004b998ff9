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

static int xnn_event(const mlia_backend_ctx *c, void *state, const mlia_backend_event *be, mlia_error *err)
{
    (void)err;
    xnn_state *st = state;
    const runtime_event_node *ev = be->event;
    mlia_entity *e = be->entity;
    st->n_ops++;
    size_t type_len;
    uint32_t repeat;
    bool numbered = xnn_split_name(ev->name, &type_len, &repeat);
    mlia_entity_set_str(c->result, e, "backend", XNN_ID);
    mlia_entity_set_str(c->result, e, "operator_type", mlia_arena_strndup(c->arena, ev->name, type_len));
    if (numbered)
        mlia_entity_set_int(c->result, e, "repeat", repeat);
    if (mlia_backend_map_event(c, be->call, e, ev->name) != DELEGATE_MAP_LINKED)
        st->n_unmapped++;
    return 0;
}

static int xnn_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    xnn_state *st = state;
    int64_t calls = mlia_backend_each_event(c, XNN_ID, xnn_event, st, err);
    if (calls < 0)
        return -1;
    st->n_calls = (uint32_t)calls;
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
