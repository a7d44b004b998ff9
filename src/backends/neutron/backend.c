/*
 * backend.c - the NXP Neutron backend (ExecuTorch's NeutronBackend
 * delegate; docs/delegates.md, "NXP Neutron"), registered in
 * src/backends/registry.c.
 *
 * A model converted with profiling on logs one delegate event per Neutron
 * kernel, named by an integer id (the Neutron operator index, 0 is valid),
 * with a one-byte metadata (the kernel's function code), and one last
 * event, the "Profiling dump", whose end adds CPU ticks to the Neutron
 * timer's value. The runtime analysis makes each id an entity under its
 * DELEGATE_CALL; this backend adds what the events mean:
 *   - the times are the Neutron profiling timer's, which ExecuTorch records
 *     no rate for and which shares no epoch with the CPU ticks: durations
 *     are kept in `cycles` (metric execution_cycles, P50/min/max over the
 *     executions), the timer's 32-bit wrap undone ((end - start) mod 2^32),
 *     never converted to ms; the runtime's ms figures of these events are
 *     taken off their entities;
 *   - the kernel function code decoded into attributes;
 *   - the mapping to source operators by exact lookup of the id in the
 *     instruction's inner delegate map (neutron_to_edge_map);
 *   - the dump event named as such, without a duration, and a warning.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/delegate_map.h"
#include "analysis/runtime.h"
#include "backends/backend.h"
#include "backends/neutron/analysis/neutron_events.h"
#include "formats/etdump.h"

#define NEUTRON_ID "NeutronBackend"

typedef struct neutron_state {
    uint32_t n_calls;
    uint32_t n_ops;          /* kernel entities */
    uint32_t n_unmapped;     /* of those, without a source operator */
    uint32_t n_wrapped;      /* kernel events whose timer wrapped */
    uint32_t n_dumps;        /* calls with a "Profiling dump" event */
} neutron_state;

typedef struct nev {
    int32_t id;
    int32_t code;            /* function code, -1 when the metadata is not one byte */
    uint32_t dur;            /* (end - start) mod 2^32 */
    bool wrapped;
    bool last;               /* the call's last Neutron event in its execution */
} nev;

static int cmp_nev(const void *a, const void *b)
{
    const nev *x = a, *y = b;
    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

static void *nt_begin(const mlia_backend_ctx *c)
{
    neutron_state *st = mlia_arena_alloc(c->arena, sizeof *st);
    memset(st, 0, sizeof *st);
    return st;
}

/* The call's Neutron events over the analysed executions (arena). */
static int collect(const mlia_backend_ctx *c, const runtime_delegate_call *call, nev **out, uint32_t *n_out,
                   mlia_error *err)
{
    uint32_t n = 0, cap = 0;
    nev *v = NULL;
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    for (uint32_t x = 0; x < c->n_executions; x++) {
        if (etdump_read_run(c->dump, c->execution_runs[x], &evs, err)) {
            etdump_events_done(c->dump, &evs);
            return -1;
        }
        uint32_t first = n;
        for (uint32_t k = 0; k < evs.n; k++) {
            const etdump_event *e = &evs.ev[k];
            if (e->kind != ETDUMP_EVENT_PROFILE || e->delegate_debug_id_int < 0 || e->delegate_debug_id_str.ptr ||
                e->chain_index != call->chain || e->instruction_id != call->instruction)
                continue;
            if (n == cap) {
                uint32_t nc = cap ? cap * 2 : 16;
                v = mlia_arena_grow(c->arena, v, n, nc, sizeof *v);
                cap = nc;
            }
            nev *q = &v[n++];
            q->id = e->delegate_debug_id_int;
            q->code = neutron_function_code(e->metadata, e->has_metadata ? e->metadata_size : 0);
            q->dur = neutron_duration(e->start_time, e->end_time);
            q->wrapped = e->end_time < e->start_time;
            q->last = false;
        }
        /* the dump is the execution's last event of the call, by index */
        int32_t top = -1;
        uint32_t at = n;
        for (uint32_t k = first; k < n; k++)
            if (v[k].id > top) {
                top = v[k].id;
                at = k;
            }
        if (at < n && at != first)
            v[at].last = true;
    }
    etdump_events_done(c->dump, &evs);
    *out = v;
    *n_out = n;
    return 0;
}

/* Takes the runtime's ms figures off a Neutron event entity: its times are
 * not CPU ticks; and its coverage, which misses the wrapped events the
 * runtime dropped (the backend writes its own). */
static void drop_ms(mlia_entity *e)
{
    uint32_t w = 0;
    for (uint32_t i = 0; i < e->n_metrics; i++)
        if ((!e->metrics[i].unit || strcmp(e->metrics[i].unit, "ms") != 0) &&
            strcmp(e->metrics[i].name, "execution_coverage") != 0)
            e->metrics[w++] = e->metrics[i];
    e->n_metrics = w;
}

/* One delegate call: its events grouped by Neutron operator index, each
 * group's durations undone from the 32-bit wrap (collect). */
static int nt_call(const mlia_backend_ctx *c, void *state, const mlia_backend_call *bc, mlia_error *err)
{
    neutron_state *st = state;
    const runtime_delegate_call *call = bc->call;
    nev *v;
    uint32_t n;
    if (collect(c, call, &v, &n, err))
        return -1;
    qsort(v, n, sizeof *v, cmp_nev);
    bool dump_seen = false;
    uint64_t *vals = n ? mlia_arena_alloc(c->arena, (size_t)n * sizeof *vals) : NULL;
    for (uint32_t a = 0; a < n;) {
        uint32_t b = a;
        bool dump = false;
        int32_t code = v[a].code;
        while (b < n && v[b].id == v[a].id) {
            dump |= v[b].last && v[b].code == 0;
            if (v[b].wrapped)
                st->n_wrapped++;
            b++;
        }
        char key[16];
        snprintf(key, sizeof key, "%d", (int)v[a].id);
        /* the runtime's event id: runtime_event/<method>/<chain>/<instr>/<name> */
        mlia_entity *e = mlia_result_find(c->result,
                             mlia_arena_printf(c->arena, "runtime_event/%s/%s", call->entity_id +
                                               strlen("delegate_call/"), key));
        if (!e) {
            /* every execution of this id wrapped: the runtime dropped it */
            e = mlia_result_entity(c->result,
                                   mlia_arena_printf(c->arena, "runtime_event/%s/%s",
                                                     call->entity_id + strlen("delegate_call/"), key),
                                   "runtime_event", key);
            mlia_result_link_ids(c->result, call->entity_id, e->id);
        }
        drop_ms(e);
        if (c->n_executions) {
            mlia_metric cov = mlia_metric_double("execution_coverage", "%",
                                                 100.0 * (double)(b - a) / (double)c->n_executions, NULL, b - a);
            mlia_entity_add_metric(c->result, e, cov);
        }
        mlia_entity_set_str(c->result, e, "backend", NEUTRON_ID);
        mlia_entity_set_int(c->result, e, "neutron_op_index", v[a].id);
        mlia_entity_set_str(c->result, e, "clock", "Neutron profiling timer (32-bit, no rate recorded)");
        if (dump) {
            dump_seen = true;
            mlia_entity_set_str(c->result, e, "event", "Profiling dump");
            mlia_entity_set_str(c->result, e, "duration",
                                "not comparable: its end adds CPU ticks to the Neutron timer");
        } else {
            st->n_ops++;
            if (code >= 0) {
                mlia_entity_set_int(c->result, e, "kernel_function_code", code);
                mlia_entity_set_str(c->result, e, "kernel",
                                    mlia_arena_printf(c->arena, "Neutron kernel %d", (int)code));
            }
            for (uint32_t k = a; k < b; k++)
                vals[k - a] = v[k].dur;
            uint32_t m = b - a;
            qsort(vals, m, sizeof *vals, cmp_u64);
            const char *stats[3] = {"p50", "min", "max"};
            uint64_t sv[3] = {vals[(m - 1) / 2], vals[0], vals[m - 1]};
            for (int q = 0; q < 3; q++) {
                mlia_metric mm = mlia_metric_uint("execution_cycles", "cycles", sv[q], stats[q], m);
                mlia_metric_qualify(&mm, "statistic", stats[q]);
                mlia_entity_add_metric(c->result, e, mm);
            }
        }
        delegate_mapping map = mlia_backend_map_event(c, bc, e, key);
        if (!dump && map != DELEGATE_MAP_LINKED)
            st->n_unmapped++;
        a = b;
    }
    if (dump_seen)
        st->n_dumps++;
    return 0;
}

static int nt_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    neutron_state *st = state;
    int64_t calls = mlia_backend_each_call(c, NEUTRON_ID, nt_call, st, err);
    if (calls < 0)
        return -1;
    st->n_calls = (uint32_t)calls;
    if (!st->n_calls)
        return 0;
    mlia_backend_log(c, "Neutron: %u delegate call(s), %u kernel(s), %u without a source operator, %u wrapped timer "
                        "value(s)",
                     st->n_calls, st->n_ops, st->n_unmapped, st->n_wrapped);
    mlia_result_warn(c->result,
                     "Neutron: kernel times are the Neutron profiling timer's ticks (no rate recorded, another "
                     "clock than the CPU ticks of DELEGATE_CALL): they are reported in cycles (execution_cycles), "
                     "never as ms nor added to CPU times.");
    if (st->n_dumps)
        mlia_result_warnf(c->result,
                          "Neutron: the final \"Profiling dump\" event of %u delegate call(s) mixes two clocks (its "
                          "end adds CPU ticks to the Neutron timer): it is not an operator and its duration is not "
                          "reported.",
                          st->n_dumps);
    if (st->n_wrapped)
        mlia_result_warnf(c->result,
                          "Neutron: %u kernel event(s) span a wrap of the 32-bit Neutron timer (end below start); "
                          "their durations are (end - start) mod 2^32.",
                          st->n_wrapped);
    if (st->n_unmapped)
        mlia_result_warnf(c->result,
                          "Neutron: %u of %u kernel(s) have no source operator in the ETRecord's delegate map "
                          "(exact lookup of the Neutron operator index).",
                          st->n_unmapped, st->n_ops);
    return 0;
}

/* `mlia inspect ETDUMP`: the events that read as Neutron's (an integer
 * delegate id with exactly one byte of metadata), decoded: function code,
 * and the duration on the 32-bit timer (mod 2^32). The member is written
 * only when there is such an event (other ETDumps keep their bytes). */
static int nt_inspect_records(const etdump *d, mlia_jw *w, mlia_arena *a, mlia_error *err)
{
    (void)a;
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
            if (e->kind != ETDUMP_EVENT_PROFILE || e->delegate_debug_id_int < 0 || e->delegate_debug_id_str.ptr ||
                !e->has_metadata || e->metadata_size != 1)
                continue;
            if (!open) {
                mlia_jw_karr_begin(w, "neutron_events");
                open = true;
            }
            int code = neutron_function_code(e->metadata, e->metadata_size);
            mlia_jw_obj_begin(w);
            mlia_jw_kuint(w, "run", r);
            mlia_jw_kint(w, "instruction_id", e->instruction_id);
            mlia_jw_kint(w, "id", e->delegate_debug_id_int);
            mlia_jw_kint(w, "function_code", code);
            mlia_jw_kuint(w, "timer_duration", neutron_duration(e->start_time, e->end_time));
            mlia_jw_kbool(w, "timer_wrapped", e->end_time < e->start_time);
            mlia_jw_obj_end(w);
        }
    }
    etdump_events_done(d, &evs);
    if (open)
        mlia_jw_arr_end(w);
    return 0;
}

static const char *const DELEGATE_IDS[] = {NEUTRON_ID, NULL};

const mlia_backend mlia_backend_neutron = {
    .name = "neutron",
    .label = "Neutron",
    .delegate_ids = DELEGATE_IDS,
    .begin = nt_begin,
    .analyse = nt_analyse,
    .inspect_records = nt_inspect_records,
};
