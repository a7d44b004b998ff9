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
 * (--neural-technology-profiling-data.ticks-per-second) the times are kept
 * as that declaration gives them and a warning says they are CPU cycles /
 * 10^6, not ms.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "backends/backend.h"
#include "backends/ethosu/formats/runner_log.h"

typedef struct ethosu_state {
    uint32_t n_logs;              /* captures that were runner logs */
    ethosu_pmu_report pmu;        /* their reports, totals pooled */
    uint32_t n_reports;           /* logs with a PMU report */
    bool events_differ;           /* the logs name different counters */
    bool cycles_as_ns;            /* no tick rate was given */
    uint32_t n_debug_buffers;     /* logs that also carried a debug buffer */
    uint64_t debug_buffer_bytes;
} ethosu_state;

static int eu_unwrap(const uint8_t *data, size_t size, const char *path, mlia_arena *a, const uint8_t **etdump,
                     size_t *n, void **extra, mlia_error *err)
{
    if (!ethosu_is_runner_log(data, size))
        return 0;
    ethosu_runner_log *log;
    if (ethosu_read_runner_log(data, size, path, a, &log, err))
        return -1;
    *etdump = log->etdump;
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

static int eu_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    (void)err;
    ethosu_state *st = state;
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
                         "as nanoseconds, so every time in ms is CPU cycles / 10^6; give the CPU clock with "
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
