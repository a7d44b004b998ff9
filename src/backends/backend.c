/*
 * backend.c - the helpers every backend may call (backends/backend.h), kept
 * apart from the registration table (registry.c) so that no backend calls
 * back into the file that lists it (tests/py/test_layering.py: no circle of
 * files through calls and includes).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "core/cnum.h"

void mlia_backend_log(const mlia_backend_ctx *c, const char *fmt, ...)
{
    char line[4096];
    MLIA_FORMAT_ARGS(line, fmt);
    if (c->log)
        c->log(c->log_ctx, line);
}

int64_t mlia_backend_each_call(const mlia_backend_ctx *c, const char *backend_id,
                               int (*fn)(const mlia_backend_ctx *c, void *state, const mlia_backend_call *call,
                                         mlia_error *err),
                               void *state, mlia_error *err)
{
    const runtime_analysis *ra = c->runtime;
    if (!ra)
        return 0;
    delegate_map_index idx;
    bool have_idx = false;
    int64_t n = 0;
    for (uint32_t i = 0; i < ra->n_calls; i++) {
        const runtime_delegate_call *rc = &ra->calls[i];
        if (!rc->backend || strcmp(rc->backend, backend_id) != 0)
            continue;
        if (!have_idx) {
            delegate_map_index_init(&idx, c->maps, c->program, c->method_name, c->arena);
            have_idx = true;
        }
        n++;
        mlia_backend_call call = {rc, &idx};
        if (fn(c, state, &call, err))
            return -1;
    }
    return n;
}

typedef struct each_event_ctx {
    int (*fn)(const mlia_backend_ctx *c, void *state, const mlia_backend_event *ev, mlia_error *err);
    void *state;
} each_event_ctx;

static int each_event_of_call(const mlia_backend_ctx *c, void *state, const mlia_backend_call *call, mlia_error *err)
{
    each_event_ctx *x = state;
    for (uint32_t k = 0; k < call->call->n_events; k++) {
        const runtime_event_node *ev = &call->call->events[k];
        mlia_entity *e = mlia_result_find(c->result, ev->entity_id);
        if (!e)
            continue;
        mlia_backend_event be = {call, ev, e};
        if (x->fn(c, x->state, &be, err))
            return -1;
    }
    return 0;
}

int64_t mlia_backend_each_event(const mlia_backend_ctx *c, const char *backend_id,
                                int (*fn)(const mlia_backend_ctx *c, void *state, const mlia_backend_event *ev,
                                          mlia_error *err),
                                void *state, mlia_error *err)
{
    each_event_ctx x = {fn, state};
    return mlia_backend_each_call(c, backend_id, each_event_of_call, &x, err);
}

delegate_mapping mlia_backend_map_event(const mlia_backend_ctx *c, const mlia_backend_call *call, mlia_entity *e,
                                        const char *key)
{
    uint32_t linked = 0;
    delegate_mapping m = call->call->instruction >= 0
                             ? delegate_map_link(call->map, (uint32_t)call->call->instruction, key, c->result, e,
                                                 &linked)
                             : DELEGATE_MAP_NONE;
    mlia_entity_set_str(c->result, e, "source_mapping", delegate_mapping_name(m));
    return m;
}
