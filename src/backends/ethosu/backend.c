/*
 * backend.c - the Arm Ethos-U backend (ExecuTorch's EthosUBackend on a
 * Corstone FVP or board, bare-metal runner; docs/delegates.md, "Arm
 * Ethos-U"), registered in src/backends/registry.c.
 *
 * The runner's console log is a capture: --profiling-data RUN.log is
 * unwrapped into the base64 ETDump it carries (formats/runner_log.c), and
 * its "Ethos-U PMU" report becomes model metrics named after the runner's
 * counters: totals over every inference and per inference, NPU active
 * cycles and the NPU-cycle counters in `cycles`, bus beat counters in
 * `count`, the CPU-side figures in `cycles` (never converted to time).
 * Several logs pool their totals and inferences.
 *
 * Clock: on the runner the ETDump's ticks are Cortex-M CPU cycles, which
 * the runner declares as ns. Without a rate
 * (--neural-technology-profiling-data.ticks-per-second) the backend's own
 * figures are in `cycles` (execution_cycles of its scopes and of its
 * delegate calls); the run's common times are kept as that declaration
 * gives them and a warning says they are CPU cycles / 10^6, not ms. With a
 * rate the scopes are timed in ms.
 *
 * Scopes: the backend logs named events (no delegate id) with its call's
 * chain and instruction: EthosUBackend::execute() and the "+"-prefixed
 * scopes inside it. Each name (whole) becomes a runtime_event entity under
 * the call, nested in the scope that contains it, with P50/min/max over
 * the executions.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/runtime.h"
#include "backends/backend.h"
#include "backends/ethosu/formats/runner_log.h"
#include "formats/etdump.h"

typedef struct ethosu_state {
    uint32_t n_logs;              /* captures that were runner logs */
    ethosu_pmu_report pmu;        /* their reports, totals pooled */
    uint32_t n_reports;           /* logs with a PMU report */
    bool events_differ;           /* the logs name different counters */
    bool cycles_as_ns;            /* no tick rate was given */
    uint32_t n_debug_buffers;     /* logs that also carried a debug buffer */
    uint64_t debug_buffer_bytes;
    uint32_t n_scopes;            /* scope entities made */
} ethosu_state;

static int eu_unwrap(const uint8_t *data, size_t size, const char *path, mlia_arena *a, const uint8_t **out_dump,
                     size_t *n, void **extra, mlia_error *err)
{
    if (!ethosu_is_runner_log(data, size))
        return 0;
    ethosu_runner_log *log;
    if (ethosu_read_runner_log(data, size, path, a, &log, err))
        return -1;
    *out_dump = log->etdump;
    *n = log->etdump_size;
    *extra = log;
    return 1;
}

static void pool(ethosu_state *st, const ethosu_pmu_report *r)
{
    ethosu_pmu_report *t = &st->pmu;
    if (st->n_reports && (t->n_events != r->n_events || t->n_counters != r->n_counters))
        st->events_differ = true;
    for (uint32_t i = 0; i < r->n_events && i < t->n_events && !st->events_differ; i++)
        st->events_differ = strcmp(t->events[i], r->events[i]) != 0;
    if (!st->n_reports) {
        t->n_events = r->n_events;
        memcpy(t->events, r->events, sizeof t->events);
        t->n_counters = r->n_counters;
    }
#define ADD(f)                           \
    if (r->has_##f) {                    \
        t->f += r->f;                    \
        t->has_##f = true;               \
    }
    ADD(inferences)
    ADD(delegations)
    ADD(backend_cycles)
    ADD(operator_cycles)
    ADD(runtime_cycles)
    ADD(wait_cycles)
    ADD(npu_cycles)
#undef ADD
    for (uint32_t i = 0; i < r->n_counters && i < ETHOSU_MAX_PMU_COUNTERS; i++)
        if (r->counter_seen[i]) {
            t->counters[i] += r->counters[i];
            t->counter_seen[i] = true;
        }
    t->present = true;
    st->n_reports++;
}

static void *eu_begin(const mlia_backend_ctx *c)
{
    ethosu_state *st = mlia_arena_alloc(c->arena, sizeof *st);
    memset(st, 0, sizeof *st);
    for (uint32_t i = 0; i < c->n_captures; i++) {
        const ethosu_runner_log *log = c->capture_extra ? c->capture_extra[i] : NULL;
        if (!log)
            continue;
        st->n_logs++;
        if (log->debug_buffer) {
            st->n_debug_buffers++;
            st->debug_buffer_bytes += log->debug_buffer_size;
        }
        if (log->pmu.present)
            pool(st, &log->pmu);
    }
    st->cycles_as_ns = c->ticks_per_second <= 0;
    return st;
}

/* One Ethos-U scope name of a call: its durations over the executions. */
typedef struct eu_scope {
    const char *name;
    uint64_t start, end;   /* in the first execution that has it (nesting) */
    uint64_t *ticks;       /* [n], arena */
    uint32_t n;
    mlia_entity *e;
} eu_scope;

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : (x > y);
}

static bool is_scope_name(mlia_str n)
{
    static const char p1[] = "EthosUBackend::", p2[] = "+EthosUBackend::";
    return (n.len > sizeof p1 - 1 && memcmp(n.ptr, p1, sizeof p1 - 1) == 0) ||
           (n.len > sizeof p2 - 1 && memcmp(n.ptr, p2, sizeof p2 - 1) == 0);
}

/* P50/min/max of v[0, n) (sorted here) as `name`: cycles, or ms at the rate. */
static void add_stats(const mlia_backend_ctx *c, mlia_entity *e, uint64_t *v, uint32_t n)
{
    qsort(v, n, sizeof *v, cmp_u64);
    const char *stats[3] = {"p50", "min", "max"};
    uint64_t sv[3] = {v[(n - 1) / 2], v[0], v[n - 1]};
    for (int q = 0; q < 3; q++) {
        mlia_metric m = c->ticks_per_second > 0
                            ? mlia_metric_double("execution_time", "ms",
                                                 (double)sv[q] / (c->ticks_per_second / 1000.0), stats[q], n)
                            : mlia_metric_uint("execution_cycles", "cycles", sv[q], stats[q], n);
        mlia_metric_qualify(&m, "statistic", stats[q]);
        mlia_entity_add_metric(c->result, e, m);
    }
}

/* The scopes of the call at (chain, instr) and, without a rate, the call's
 * own duration in cycles. */
static int call_scopes(const mlia_backend_ctx *c, const runtime_delegate_call *call, ethosu_state *st,
                       mlia_error *err)
{
    uint32_t n_sc = 0, cap = 0;
    eu_scope *sc = NULL;
    uint64_t *call_ticks = mlia_arena_alloc(c->arena, (size_t)(c->n_executions + 1) * sizeof *call_ticks);
    uint32_t n_call = 0;
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    for (uint32_t x = 0; x < c->n_executions; x++) {
        if (etdump_read_run(c->dump, c->execution_runs[x], &evs, err)) {
            etdump_events_done(c->dump, &evs);
            return -1;
        }
        for (uint32_t k = 0; k < evs.n; k++) {
            const etdump_event *e = &evs.ev[k];
            if (e->kind != ETDUMP_EVENT_PROFILE || !e->name.ptr || e->chain_index != call->chain ||
                e->instruction_id != call->instruction || e->end_time < e->start_time)
                continue;
            if (e->name.len == 13 && memcmp(e->name.ptr, "DELEGATE_CALL", 13) == 0) {
                if (n_call < c->n_executions)
                    call_ticks[n_call++] = e->end_time - e->start_time;
                continue;
            }
            if (!is_scope_name(e->name))
                continue;
            uint32_t i = 0;
            while (i < n_sc && !(strlen(sc[i].name) == e->name.len &&
                                 memcmp(sc[i].name, e->name.ptr, e->name.len) == 0))
                i++;
            if (i == n_sc) {
                if (n_sc == cap) {
                    uint32_t nc = cap ? cap * 2 : 8;
                    sc = mlia_arena_grow(c->arena, sc, n_sc, nc, sizeof *sc);
                    cap = nc;
                }
                sc[n_sc] = (eu_scope){.name = mlia_arena_strndup(c->arena, e->name.ptr, e->name.len),
                                      .start = e->start_time, .end = e->end_time,
                                      .ticks = mlia_arena_alloc(c->arena, (size_t)c->n_executions * sizeof(uint64_t))};
                n_sc++;
            }
            if (sc[i].n < c->n_executions)
                sc[i].ticks[sc[i].n++] = e->end_time - e->start_time;
        }
    }
    etdump_events_done(c->dump, &evs);
    const char *base = call->entity_id + strlen("delegate_call/");
    mlia_entity *ce = mlia_result_find(c->result, call->entity_id);
    /* outer scopes first, so that a parent exists before its children */
    for (uint32_t i = 0; i < n_sc; i++) {
        sc[i].e = mlia_result_entity(c->result, mlia_arena_printf(c->arena, "runtime_event/%s/%s", base, sc[i].name),
                                     "runtime_event", sc[i].name);
        st->n_scopes++;
    }
    for (uint32_t i = 0; i < n_sc; i++) {
        int32_t parent = -1;
        for (uint32_t j = 0; j < n_sc; j++)
            if (j != i && sc[j].start <= sc[i].start && sc[i].end <= sc[j].end &&
                sc[j].end - sc[j].start > sc[i].end - sc[i].start &&
                (parent < 0 || sc[j].end - sc[j].start < sc[parent].end - sc[parent].start))
                parent = (int32_t)j;
        if (parent >= 0)
            mlia_result_link(c->result, sc[parent].e, sc[i].e);
        else if (ce)
            mlia_result_link(c->result, ce, sc[i].e);
        mlia_entity_set_str(c->result, sc[i].e, "backend", "EthosUBackend");
        mlia_entity_set_str(c->result, sc[i].e, "source_mapping", "unmapped");
        add_stats(c, sc[i].e, sc[i].ticks, sc[i].n);
    }
    if (ce && n_call && c->ticks_per_second <= 0) {
        uint64_t *v = call_ticks;
        qsort(v, n_call, sizeof *v, cmp_u64);
        const char *stats[3] = {"p50", "min", "max"};
        uint64_t sv[3] = {v[(n_call - 1) / 2], v[0], v[n_call - 1]};
        for (int q = 0; q < 3; q++) {
            mlia_metric m = mlia_metric_uint("execution_cycles", "cycles", sv[q], stats[q], n_call);
            mlia_metric_qualify(&m, "statistic", stats[q]);
            mlia_entity_add_metric(c->result, ce, m);
        }
    }
    return 0;
}

static int eu_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    ethosu_state *st = state;
    for (uint32_t i = 0; c->runtime && i < c->runtime->n_calls; i++) {
        const runtime_delegate_call *call = &c->runtime->calls[i];
        if (call->backend && strcmp(call->backend, "EthosUBackend") == 0 && call_scopes(c, call, st, err))
            return -1;
    }
    if (st->n_scopes)
        mlia_backend_log(c, "Ethos-U: %u scope(s) under their delegate calls", st->n_scopes);
    if (!st->n_logs && st->n_scopes && st->cycles_as_ns)
        mlia_result_warn(c->result,
                         "Ethos-U: the EthosUBackend scopes are timed in CPU cycles (execution_cycles): the "
                         "runner's ticks are Cortex-M cycles; give the CPU clock with "
                         "--neural-technology-profiling-data.ticks-per-second for times.");
    if (!st->n_logs)
        return 0;
    mlia_backend_log(c, "Ethos-U: %u runner log(s), %u with a PMU report", st->n_logs, st->n_reports);
    if (st->n_debug_buffers)
        mlia_backend_log(c, "Ethos-U: %u log(s) also carry a debug buffer (%llu bytes), not analysed here: write it "
                            "out and give it with the intermediate-output options (docs/accuracy.md)",
                         st->n_debug_buffers, (unsigned long long)st->debug_buffer_bytes);
    if (st->cycles_as_ns)
        mlia_result_warn(c->result,
                         "Ethos-U runner log: the ETDump's ticks are Cortex-M CPU cycles, which the runner declares "
                         "as nanoseconds, so every time in ms is CPU cycles / 10^6; the Ethos-U scopes and delegate "
                         "calls are also given in cycles (execution_cycles); give the CPU clock with "
                         "--neural-technology-profiling-data.ticks-per-second for times. The PMU figures are in "
                         "cycles and counts.");
    if (st->n_logs > st->n_reports)
        mlia_result_warnf(c->result, "Ethos-U runner log: %u of %u log(s) hold no \"Ethos-U PMU report\"; the PMU "
                                     "metrics are over the others.",
                          st->n_logs - st->n_reports, st->n_logs);
    if (st->events_differ)
        mlia_result_warn(c->result, "Ethos-U runner logs name different PMU counters; each counter metric is "
                                    "named after the first log's event names.");
    return 0;
}

/* "ETHOSU_PMU_NPU_IDLE" -> "ethosu_pmu_npu_idle" (arena). */
static const char *metric_name(mlia_arena *a, const char *event)
{
    char *m = mlia_arena_strdup(a, event);
    for (char *p = m; *p; p++)
        *p = (char)tolower((unsigned char)*p);
    return m;
}

/* NPU_IDLE, MAC_ACTIVE and WD_ACTIVE count NPU cycles; the beat counters
 * count bus beats. */
static const char *counter_unit(const char *event)
{
    static const char *const cyc[] = {"NPU_IDLE", "MAC_ACTIVE", "WD_ACTIVE", "NPU_ACTIVE"};
    size_t n = strlen(event);
    for (size_t i = 0; i < sizeof cyc / sizeof cyc[0]; i++) {
        size_t k = strlen(cyc[i]);
        if (n >= k && strcmp(event + n - k, cyc[i]) == 0)
            return "cycles";
    }
    return "count";
}

/* name (total), and its per-inference value when the inferences are known. */
static void total_and_per(mlia_result *r, const ethosu_state *st, const char *name, const char *unit, uint64_t v)
{
    mlia_metric t = mlia_metric_uint(name, unit, v, "sum", st->pmu.has_inferences ? (uint32_t)st->pmu.inferences : 1);
    mlia_metric_qualify(&t, "statistic", "total");
    mlia_metric_qualify(&t, "source", "Ethos-U PMU report");
    mlia_result_add_metric(r, t);
    if (st->pmu.has_inferences && st->pmu.inferences) {
        mlia_metric p = mlia_metric_double(name, unit, (double)v / (double)st->pmu.inferences, "mean",
                                           (uint32_t)st->pmu.inferences);
        mlia_metric_qualify(&p, "statistic", "per_inference");
        mlia_metric_qualify(&p, "source", "Ethos-U PMU report");
        mlia_result_add_metric(r, p);
    }
}

static void eu_model_metrics(const void *state, mlia_result *r)
{
    const ethosu_state *st = state;
    if (!st || !st->n_reports)
        return;
    const ethosu_pmu_report *p = &st->pmu;
    mlia_arena *a = r->arena;
    if (p->has_inferences)
        mlia_result_add_metric(r, mlia_metric_uint("npu_inferences", "count", p->inferences, "sum", 1));
    if (p->has_delegations)
        total_and_per(r, st, "npu_delegations", "count", p->delegations);
    if (p->has_npu_cycles)
        total_and_per(r, st, "npu_active_cycles", "cycles", p->npu_cycles);
    for (uint32_t i = 0; i < p->n_counters; i++) {
        if (!p->counter_seen[i])
            continue;
        const char *event = i < p->n_events ? p->events[i] : NULL;
        char fallback[32];
        snprintf(fallback, sizeof fallback, "ethosu_pmu_cntr%u", i);
        total_and_per(r, st, event ? metric_name(a, event) : mlia_arena_strdup(a, fallback),
                      event ? counter_unit(event) : "count", p->counters[i]);
    }
    if (p->has_backend_cycles)
        total_and_per(r, st, "ethosu_backend_cpu_cycles", "cycles", p->backend_cycles);
    if (p->has_operator_cycles)
        total_and_per(r, st, "operator_cpu_cycles", "cycles", p->operator_cycles);
    if (p->has_runtime_cycles)
        total_and_per(r, st, "inference_cpu_cycles", "cycles", p->runtime_cycles);
    if (p->has_wait_cycles)
        total_and_per(r, st, "cpu_wait_for_npu_cycles", "cycles", p->wait_cycles);
}

static const char *const DELEGATE_IDS[] = {"EthosUBackend", NULL};

const mlia_backend mlia_backend_ethosu = {
    .name = "ethosu",
    .label = "Ethos-U",
    .delegate_ids = DELEGATE_IDS,
    .unwrap_capture = eu_unwrap,
    .begin = eu_begin,
    .analyse = eu_analyse,
    .model_metrics = eu_model_metrics,
};
