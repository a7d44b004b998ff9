/*
 * backend_out.h - what a backend (src/backends/<name>/) contributes to the
 * writers: the writers' half of the backend interface (the pipeline's half
 * is src/backends/backend.h, which embeds this struct).
 *
 * The run record (analysis/run.h) lists the backends that ran, each as one
 * mlia_backend_run: these hooks and the backend's analysis state. A writer
 * calls the hooks it knows at its own place in the output (so the bytes of
 * every output keep one order) and never includes anything from
 * src/backends: the dependency points up through function pointers only,
 * like SQLite's VFS or libgit2's ODB backends. Every hook is optional (NULL:
 * the backend adds nothing there).
 *
 * Ownership: hooks borrow `state` (the backend's analysis, owned by the
 * run's arena) and write through the writer they are given; anything they
 * allocate comes from the arena they are given.
 */
#ifndef MLIA_REPORT_BACKEND_OUT_H
#define MLIA_REPORT_BACKEND_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/result.h"
#include "analysis/run.h"
#include "core/arena.h"
#include "core/json_write.h"

struct vw_ctx;
struct vw_view;
struct vw_view_def;

/* One execution's rows of csv/executions.csv (csv/csv.c). */
typedef struct mlia_csv_exec mlia_csv_exec;
void mlia_csv_exec_u64(const mlia_csv_exec *x, const char *entity, const char *metric, uint64_t value,
                       const char *unit);
void mlia_csv_exec_double(const mlia_csv_exec *x, const char *entity, const char *metric, double value,
                          const char *unit);

/* A counter series of the timeline: values per pooled run index. */
typedef struct mlia_backend_counter {
    const char *name;            /* track name, e.g. "NX cycles (model)" */
    const char *key;             /* value name, e.g. "total_cycles" */
    uint32_t n;
    const uint32_t *runs;        /* [n] pooled run indexes, ascending */
    const uint64_t *values;      /* [n] */
} mlia_backend_counter;

/* The console summary's field lines (result/console.c): a backend's
 * console_fields hook writes its lines ("NX total cycles:   230,600") with
 * these, so that they align and wrap like the summary's own. */
typedef struct mlia_console mlia_console;
/* "label" padded to the value column, then value wrapped at the width. */
void mlia_console_field(mlia_console *c, const char *label, const char *value);
/* "label" then "unavailable: <reason>" (reason NULL: "no reason given"). */
void mlia_console_unavailable(mlia_console *c, const char *label, const char *reason);

typedef struct mlia_backend_out {
    /* mlia-output.json: the "target" member's value (the first backend of
     * the run that has one writes it); members of
     * context.runtime_configuration.statistics; members after it (e.g.
     * "associations") */
    void (*json_target)(const void *state, mlia_jw *w);
    void (*json_statistics)(const void *state, mlia_jw *w);
    void (*json_context)(const void *state, const mlia_run_record *rec, mlia_jw *w);
    /* console summary: the backend's field lines after the inference time
     * (state may be NULL when the summary is made from a result alone) */
    void (*console_fields)(const void *state, const mlia_result *r, mlia_console *c);
    /* csv/chains.csv lists the entities of these kinds (NULL-terminated;
     * group_top_kind names the outermost, shown in its "segment" column) */
    const char *const *csv_group_kinds;
    const char *csv_group_top_kind;
    /* csv/executions.csv: rows of pooled run `run` */
    void (*csv_execution)(const void *state, uint32_t run, const mlia_csv_exec *x, mlia_arena *names);
    /* timeline: counter series in arena memory (*out), their group's name */
    uint32_t (*timeline_counters)(const void *state, mlia_arena *a, const mlia_backend_counter **out);
    const char *timeline_group;
    /* Model Explorer views (report/views): rows of the view table this
     * backend adds (placed by their `order`); the metric that stands for
     * "%s" in the overlays of the rows (NULL: "total_cycles"); rows of the
     * shared "ETDump Backend Trace" view (whether there are any, the rows,
     * and the view's reason when neither a backend nor the runtime has any:
     * a static sentence) */
    const struct vw_view_def *views;
    uint32_t n_views;
    const char *(*view_metric)(const void *state);
    bool (*trace_view_has_rows)(const void *state);
    void (*trace_view_rows)(struct vw_ctx *c, struct vw_view *v, const void *state, uint32_t group_overlay);
    const char *trace_view_unavailable;
} mlia_backend_out;

/* The run's entry of the backend named `name` (its state), or NULL. */
const mlia_backend_run *mlia_run_backend(const mlia_run_record *rec, const char *name);

#endif
