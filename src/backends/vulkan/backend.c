/*
 * backend.c - the Vulkan backend (ExecuTorch's VulkanBackend delegate on
 * GPUs; docs/delegates.md, "Vulkan"), registered in src/backends/registry.c.
 *
 * Vulkan logs two kinds of delegate events inside a call:
 * - ETVK_* scopes (ETVK_EXECUTE, ETVK_COPY_INPUTS, ETVK_RESIZE,
 *   ETVK_COMPUTE_GRAPH_EXECUTE, ETVK_COPY_OUTPUTS), timed with the CPU's
 *   platform clock: they stay on the call's clock (nested, scaled by a
 *   declared CPU tick rate) like any CPU event;
 * - one event per shader dispatch, named by a JSON object, whose start and
 *   end are GPU timestamps in ns on an epoch of their own. event_unit puts
 *   them in RUNTIME_UNIT_NS: the runtime analysis books their durations
 *   under the call on their own (execution_time, qualifier clock=backend),
 *   never scaled by --ticks-per-second, never summed with CPU time.
 * This backend decodes each dispatch's name (analysis/vk_dispatch.h) into
 * entity attributes and names the entity after its shader, and maps it to
 * source operators by an exact lookup of operator.delegate_node_id in the
 * call's inner delegate map (generated ids "0", "1", ...). Staging and copy
 * shaders have no operator: no source operator, said once in a warning.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/runtime.h"
#include "formats/etdump.h"
#include "backends/backend.h"
#include "backends/vulkan/analysis/vk_dispatch.h"

#define VK_ID "VulkanBackend"

typedef struct vk_state {
    uint32_t n_calls;
    uint32_t n_dispatches;   /* dispatch events with an entity */
    uint32_t n_operator;     /* of those, with an operator */
    uint32_t n_staging;      /* without one (staging and copy shaders) */
    uint32_t n_unmapped;     /* with an operator whose node id is not in the map */
    uint32_t n_undecoded;    /* names starting with '{' that are not a JSON object */
    uint32_t n_scopes;       /* ETVK_* scopes */
} vk_state;

static runtime_unit vk_event_unit(mlia_str name, const uint8_t *meta, uint32_t n_meta)
{
    (void)meta;
    (void)n_meta;
    return vk_is_dispatch_name(name.ptr, name.len) ? RUNTIME_UNIT_NS : RUNTIME_UNIT_CPU_TICKS;
}

static void *vk_begin(const mlia_backend_ctx *c)
{
    vk_state *st = mlia_arena_alloc(c->arena, sizeof *st);
    memset(st, 0, sizeof *st);
    return st;
}

static int vk_event(const mlia_backend_ctx *c, void *state, const mlia_backend_event *be, mlia_error *err)
{
    (void)err;
    vk_state *st = state;
    mlia_entity *e = be->entity;
    const char *name = be->event->name;
    mlia_entity_set_str(c->result, e, "backend", VK_ID);
    if (!vk_is_dispatch_name(name, strlen(name))) {
        st->n_scopes++;
        mlia_entity_set_str(c->result, e, "role", "scope");
        mlia_entity_set_str(c->result, e, "clock", "CPU ticks (the delegate call's clock)");
        return 0;
    }
    vk_dispatch d;
    if (vk_dispatch_decode(name, strlen(name), c->arena, &d)) {
        st->n_undecoded++;
        mlia_entity_set_str(c->result, e, "role", "dispatch (name not decoded)");
        mlia_entity_set_str(c->result, e, "source_mapping", "none");
        return 0;
    }
    st->n_dispatches++;
    mlia_entity_set_str(c->result, e, "clock", "GPU timestamps (ns), never scaled by the CPU tick rate");
    /* the entity is called by its shader: "linear_texture3d_float (dispatch 0)" */
    if (d.kernel_name) {
        mlia_entity_set_str(c->result, e, "kernel_name", d.kernel_name);
        e->name = d.has_dispatch_id
                      ? mlia_arena_printf(c->arena, "%s (dispatch %lld)", d.kernel_name, (long long)d.dispatch_id)
                      : mlia_arena_strdup(c->arena, d.kernel_name);
    }
    if (d.has_dispatch_id)
        mlia_entity_set_int(c->result, e, "dispatch_id", d.dispatch_id);
    if (d.has_operator_id)
        mlia_entity_set_int(c->result, e, "operator_id", d.operator_id);
    if (!d.has_operator) {
        st->n_staging++;
        mlia_entity_set_str(c->result, e, "role", "staging or copy shader");
        mlia_entity_set_str(c->result, e, "source_mapping", "none");
        return 0;
    }
    st->n_operator++;
    mlia_entity_set_str(c->result, e, "role", "operator dispatch");
    if (d.operator_name)
        mlia_entity_set_str(c->result, e, "operator", d.operator_name);
    mlia_entity_set_int(c->result, e, "operator_args", d.n_args);
    if (!d.has_node_id) {
        st->n_unmapped++;
        mlia_entity_set_str(c->result, e, "source_mapping", "none");
        return 0;
    }
    mlia_entity_set_int(c->result, e, "delegate_node_id", d.delegate_node_id);
    char key[24];
    snprintf(key, sizeof key, "%lld", (long long)d.delegate_node_id);
    if (mlia_backend_map_event(c, be->call, e, key) != DELEGATE_MAP_LINKED)
        st->n_unmapped++;
    return 0;
}

static int vk_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    vk_state *st = state;
    int64_t calls = mlia_backend_each_event(c, VK_ID, vk_event, st, err);
    if (calls < 0)
        return -1;
    st->n_calls = (uint32_t)calls;
    if (!st->n_calls)
        return 0;
    mlia_backend_log(c, "Vulkan: %u delegate call(s), %u shader dispatch(es) (%u of operators, %u staging), %u "
                        "scope(s), %u without a source operator",
                     st->n_calls, st->n_dispatches, st->n_operator, st->n_staging, st->n_scopes,
                     st->n_unmapped + st->n_staging);
    if (st->n_dispatches)
        mlia_result_warnf(c->result,
                          "Vulkan: the %u shader dispatch time(s) are GPU timestamps in ns on the GPU's own clock: "
                          "reported as execution_time with qualifier clock=backend, never scaled by "
                          "--ticks-per-second and never added to the CPU times of the delegate call.",
                          st->n_dispatches);
    if (st->n_staging)
        mlia_result_warnf(c->result,
                          "Vulkan: %u shader dispatch(es) have no operator (staging or copy shaders): no source "
                          "operator.",
                          st->n_staging);
    if (st->n_unmapped)
        mlia_result_warnf(c->result,
                          "Vulkan: %u of %u operator dispatch(es) have no source operator: their delegate_node_id is "
                          "not a key of VulkanBackend's delegate map (exact lookup, never matched by text).",
                          st->n_unmapped, st->n_operator);
    if (st->n_undecoded)
        mlia_result_warnf(c->result,
                          "Vulkan: %u dispatch event name(s) are not a JSON object; left undecoded.", st->n_undecoded);
    return 0;
}

/* `mlia inspect ETDUMP`: the shader dispatches (string ids that decode as
 * Vulkan's JSON object with a kernel_name), decoded, with their GPU
 * duration in ns. The member is written only when there is such an event
 * (other ETDumps keep their bytes). */
static int vk_inspect_records(const etdump *d, mlia_jw *w, mlia_arena *a, mlia_error *err)
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
            vk_dispatch v;
            if (e->kind != ETDUMP_EVENT_PROFILE || !e->delegate_debug_id_str.ptr ||
                vk_dispatch_decode(e->delegate_debug_id_str.ptr, e->delegate_debug_id_str.len, a, &v) ||
                !v.kernel_name)
                continue;
            if (!open) {
                mlia_jw_karr_begin(w, "vulkan_dispatches");
                open = true;
            }
            mlia_jw_obj_begin(w);
            mlia_jw_kuint(w, "run", r);
            mlia_jw_kint(w, "instruction_id", e->instruction_id);
            mlia_jw_kstr(w, "kernel_name", v.kernel_name);
            if (v.has_dispatch_id)
                mlia_jw_kint(w, "dispatch_id", v.dispatch_id);
            if (v.operator_name)
                mlia_jw_kstr(w, "operator", v.operator_name);
            if (v.has_node_id)
                mlia_jw_kint(w, "delegate_node_id", v.delegate_node_id);
            mlia_jw_kuint(w, "gpu_duration_ns", e->end_time >= e->start_time ? e->end_time - e->start_time : 0);
            mlia_jw_obj_end(w);
        }
    }
    etdump_events_done(d, &evs);
    if (open)
        mlia_jw_arr_end(w);
    return 0;
}

static const char *const DELEGATE_IDS[] = {VK_ID, NULL};

const mlia_backend mlia_backend_vulkan = {
    .name = "vulkan",
    .label = "Vulkan",
    .delegate_ids = DELEGATE_IDS,
    .event_unit = vk_event_unit,
    .begin = vk_begin,
    .analyse = vk_analyse,
    .inspect_records = vk_inspect_records,
};
