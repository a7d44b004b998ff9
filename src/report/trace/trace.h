/*
 * trace.h - the executions of the selected method as a timeline: the
 * Perfetto protobuf trace `mlia-output/trace.pftrace` or the Chrome
 * trace-event file `mlia-output/trace.json` (written on request, --trace)
 * and the compact timeline of the standalone page.
 *
 * The writer is an independent consumer of a narrow interface
 * (trace_source): it never looks at the ETDump, the ETRecord or the
 * analyses. The pipeline fills a trace_source (src/pipeline/trace_source.c, the
 * one place that knows how ETDump events map to entities) and the writer
 * asks it for one execution's events at a time. Memory is bounded by the
 * largest execution: events are collected per execution, ordered so that a
 * wrapper precedes what it contains (start ascending, end descending, the
 * later-written event first on equal intervals, as ExecuTorch writes
 * children before their wrapper), written, and forgotten.
 *
 * Format decisions are documented in docs/trace.md.
 *
 * Ownership: the writer borrows everything in the source for the duration
 * of the call; it allocates only scratch memory that it frees before
 * returning.
 */
#ifndef MLIA_REPORT_TRACE_H
#define MLIA_REPORT_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "core/error.h"
#include "core/json_write.h"

/* One runtime event of one execution, as the writer sees it. */
typedef struct trace_event {
    uint64_t start, end;            /* ticks; end >= start */
    uint32_t index;                 /* index of the event in its ETDump run (event block) */
    const char *name;               /* display name (operator, backend event, ...) */
    const char *category;           /* framework | operator | kernel | delegate | backend | other */
    const char *etdump_name;        /* the event's own name or delegate debug id */
    int64_t chain, instruction;     /* -1 when the event has none */
    uint32_t n_entities;
    const char *const *entities;    /* entity ids (borrowed) */
    uint32_t n_handles;
    const int64_t *handles;         /* debug handles of the instruction (borrowed) */
} trace_event;

typedef void (*trace_emit_fn)(void *ctx, const trace_event *ev);

/* One counter series: one value per execution where present. */
typedef struct trace_counter {
    const char *name;               /* track name, e.g. "NX cycles segment/0" */
    const char *key;                /* value name, e.g. "total_cycles" */
    uint32_t n;                     /* values */
    const uint32_t *executions;     /* 0-based execution ordinals, ascending */
    const uint64_t *values;
} trace_counter;

typedef struct trace_input {
    const char *role;               /* etrecord | etdump | companion */
    const char *name;               /* basename */
    const char *sha256;             /* 64 hex digits */
    uint64_t size;
} trace_input;

typedef struct trace_source {
    const char *tool;               /* "mlia 0.1.0" */
    const char *method;
    const char *time_unit;          /* "ns" */
    double ticks_per_second;        /* the ETDump clock's rate the times were converted from, when
                                       given (written to the metadata), else 0 */
    uint32_t us_decimals;           /* ticks per microsecond = 10^us_decimals (3 for ns) */
    uint32_t n_executions;
    const uint32_t *execution_runs; /* [n_executions] ETDump run index of each execution (in its capture) */
    const char *const *execution_captures; /* [n_executions] capture (ETDump) name of each execution
                                              when there are several, else NULL */
    /* Calls emit(emit_ctx, ev) for every profile event of execution `exec`
     * (any order). ev->name and ev->etdump_name need only be valid during
     * the emit call (the writer copies them); category, entities and
     * handles must stay valid until the writer returns (the glue keeps one
     * copy per instruction in the run's arena, so memory does not grow with
     * the number of events). */
    void (*events)(const void *ctx, uint32_t exec, trace_emit_fn emit, void *emit_ctx);
    const void *ctx;
    /* Optional, for writing trace.json on two cores: parallel(ctx) prepares
     * the source so that events() may run on two threads at once and says
     * whether it can; thread_begin/thread_end are called on the second
     * thread around its work (e.g. to guard mapped inputs there). */
    bool (*parallel)(const void *ctx);
    void (*thread_begin)(const void *ctx);
    void (*thread_end)(const void *ctx);
    uint32_t n_counters;
    const trace_counter *counters;
    const char *counter_group;      /* name of the counters' process track, e.g. "NX statistics" */
    uint32_t n_inputs;
    const trace_input *inputs;
} trace_source;

/* Executions below which trace.json is written on one thread. */
#define TRACE_PARALLEL_MIN_EXECUTIONS 4u

/* Stream the Chrome trace-event JSON object to fp. Returns 0, or -1 with
 * err = "<path>: write failed" when fp reports an error ("<path>: out of
 * memory"; "<input>: file changed while being read (truncated while
 * mapped)" when the second thread met a shrinking input). */
int trace_write_chrome(const trace_source *src, FILE *fp, const char *path, mlia_error *err);

/* Stream the same executions as a Perfetto protobuf trace (docs/trace.md,
 * "trace.pftrace"): one track per execution with its events as nested
 * slices (interned names and categories, entity id and debug handle
 * annotations), one counter track per counter series (a backend's). Same errors as
 * trace_write_chrome. */
int trace_write_perfetto(const trace_source *src, FILE *fp, const char *path, mlia_error *err);

/* Most events the page's timeline carries; later executions are left out
 * (the page says so; trace.json always has all of them). */
#define TRACE_PAGE_MAX_EVENTS 2500000u

/* Write the page's compact timeline (docs/trace.md, "Page timeline") as one
 * JSON value at the writer's current position. */
void trace_write_page_timeline(const trace_source *src, mlia_jw *w);

/* Exposed for tests: `ticks` as a decimal number of microseconds with
 * `decimals` fraction digits, exact, trailing zeros trimmed ("1.5", "7").
 * buf must hold 32 bytes. */
void trace_format_us(char *buf, uint64_t ticks, uint32_t decimals);

#endif
