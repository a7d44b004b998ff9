/*
 * backend.h - the backend interface: everything one ExecuTorch delegate
 * needs lives in one folder src/backends/<name>/ behind one mlia_backend
 * (docs/architecture.md, "add a backend"). Models: SQLite's VFS, libgit2's
 * ODB backends - a table of function pointers the core calls, registered
 * with one line in src/backends/registry.c.
 *
 * A backend
 *   - recognises its delegate ids (a PTE's delegates, DELEGATE_CALL names)
 *     and its companion blob (magic bytes);
 *   - reads its companion blob from the companion PTE (companion_locate)
 *     and checks it against the capture (companion_check);
 *   - decodes its event metadata and statistics from the ETDump, maps its
 *     operators to source operators and adds entities and metrics to the
 *     result (analyse, model_metrics);
 *   - says when its associations are incomplete (status "partial");
 *   - decodes its blobs and ETDump records for `mlia inspect`;
 *   - contributes to the writers through `out` (report/backend_out.h):
 *     result JSON members, console lines, CSV rows, view rows, timeline
 *     counter tracks.
 *
 * Floors: a backend may include src/core, src/formats, src/analysis and
 * src/report, and its own folder, never another backend nor src/pipeline.
 * Inside its folder the house floors repeat (formats/ -> analysis/ ->
 * report/ -> the folder's top files); tests/py/test_layering.py checks it.
 * The pipeline sees a backend only through this header and the registry.
 *
 * Ownership: every hook allocates from c->arena (the run's); the state a
 * backend returns from begin() lives there and is freed with the run.
 * Fallible hooks return 0, or -1 with *err set (docs/architecture.md,
 * "Errors").
 */
#ifndef MLIA_BACKENDS_BACKEND_H
#define MLIA_BACKENDS_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/delegate_map.h"
#include "analysis/result.h"
#include "analysis/runtime.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/json_write.h"
#include "report/backend_out.h"

struct etdump;
struct etrecord_method;
struct runtime_analysis;
struct ep_program;
struct pte_program;
struct pte_plan;

/* What a backend's hooks see of the run (filled by the pipeline; borrowed). */
typedef struct mlia_backend_ctx {
    mlia_arena *arena;                   /* the run's */
    mlia_result *result;
    const char *method_name;
    const struct etdump *dump;           /* the pooled captures */
    const char *etdump_path;             /* the first capture (errors) */
    uint32_t n_executions;
    const uint32_t *execution_runs;      /* pooled run index of each analysed execution */
    const struct ep_program *program;    /* the method's edge program, may be NULL */
    const struct etrecord_method *maps;  /* the method's ETRecord maps (delegate map), may be NULL */
    const struct runtime_analysis *runtime; /* delegate calls and their events (analysis/runtime.h) */
    double ticks_per_second;             /* the CPU tick rate given (--...ticks-per-second), else 0 */
    uint32_t n_captures;                 /* --profiling-data files */
    const char *const *capture_paths;    /* [n_captures] */
    /* [n_captures]: what this backend's unwrap_capture returned for each
     * capture it unwrapped, NULL for the others */
    void *const *capture_extra;
    const char *companion_path;          /* --companion-model, or NULL */
    const struct pte_program *companion; /* the companion PTE as read, or NULL */
    const struct pte_plan *plan;         /* its plan of the selected method, or NULL */
    /* one line of logs/mlia.log (escaped by the pipeline) */
    void (*log)(void *log_ctx, const char *line);
    void *log_ctx;
} mlia_backend_ctx;

/* printf-style line into the run's log. */
void mlia_backend_log(const mlia_backend_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

typedef struct mlia_backend {
    const char *name;                    /* folder name and `mlia inspect` kind, e.g. "vgf" */
    const char *label;                   /* in messages, e.g. "VGF" */
    const char *const *delegate_ids;     /* NULL-terminated, e.g. {"VgfBackend", NULL} */
    /* the companion blob's magic (NULL: the backend has no blob format) */
    bool (*is_blob)(const uint8_t *data, uint64_t size);
    /* A --profiling-data file that is this backend's container of an
     * ETDump (e.g. the Ethos-U runner's console log): returns 1 with the
     * ETDump bytes (*etdump, *n, arena memory) and what else the container
     * held (*extra, arena memory; the backend's hooks find it in
     * ctx->capture_extra), 0 when the bytes are not its container, or -1
     * with *err set. */
    int (*unwrap_capture)(const uint8_t *data, size_t size, const char *path, mlia_arena *a, const uint8_t **etdump,
                          size_t *n, void **extra, mlia_error *err);

    /* Units and clocks (docs/delegates.md, "Units and clocks"): the unit
     * class of one of the backend's delegate events, asked by the runtime
     * analysis for every delegate event inside a call of this backend
     * (name = the string id, or the int id in decimal; meta = its
     * delegate_debug_metadata, possibly empty). NULL, or
     * RUNTIME_UNIT_CPU_TICKS, keeps the event on the call's CPU clock
     * (nested, scaled by the CPU tick rate). Any other class books the
     * event under its call on its own: never summed with CPU time, never
     * scaled by the CPU tick rate, summarised as execution_time (ms from ns
     * or us, qualifier clock=backend), cycles, count or bytes. Pure: no
     * state, no allocation. */
    runtime_unit (*event_unit)(mlia_str name, const uint8_t *meta, uint32_t n_meta);

    /* The run: begin() returns the backend's state (arena memory); the
     * pipeline then calls, when a companion PTE was given,
     * companion_locate(), then analyse(), then companion_check() (after the
     * pipeline's own instruction checks), then model_metrics() in the
     * result's metric order. */
    void *(*begin)(const mlia_backend_ctx *c);
    int (*companion_locate)(const mlia_backend_ctx *c, void *state, mlia_error *err);
    int (*analyse)(const mlia_backend_ctx *c, void *state, mlia_error *err);
    int (*companion_check)(const mlia_backend_ctx *c, void *state, mlia_error *err);
    void (*model_metrics)(const void *state, mlia_result *r);
    bool (*incomplete)(const void *state); /* associations incomplete: status "partial" */

    /* `mlia inspect`: a standalone blob file (the whole document); a blob
     * inside a PTE (one JSON value); the backend's records of an ETDump
     * (its members, key and value, of the ETDump's object) */
    int (*inspect_file)(const uint8_t *data, size_t size, const char *path, mlia_arena *a, mlia_jw *w,
                        mlia_error *err);
    void (*inspect_blob)(const uint8_t *data, size_t size, const char *file, mlia_jw *w);
    int (*inspect_records)(const struct etdump *d, mlia_jw *w, mlia_arena *a, mlia_error *err);

    mlia_backend_out out;                /* the writers' hooks */
} mlia_backend;

/* One delegate call of a backend, as mlia_backend_each_call hands it: the
 * runtime analysis's call and the index for exact lookups in the call's
 * inner delegate map (built once, on the first call of the backend). */
typedef struct mlia_backend_call {
    const runtime_delegate_call *call;
    const delegate_map_index *map;
} mlia_backend_call;

/* One operator event of such a call (mlia_backend_each_event): the event
 * and the entity the runtime analysis made of it. */
typedef struct mlia_backend_event {
    const mlia_backend_call *call;
    const runtime_event_node *event;
    mlia_entity *entity;
} mlia_backend_event;

/* Calls fn for every delegate call of the runtime analysis whose backend
 * id is `backend_id`, in call order; returns the number of such calls, or
 * -1 as soon as fn returns nonzero (its *err set). */
int64_t mlia_backend_each_call(const mlia_backend_ctx *c, const char *backend_id,
                               int (*fn)(const mlia_backend_ctx *c, void *state, const mlia_backend_call *call,
                                         mlia_error *err),
                               void *state, mlia_error *err);
/* Same, per event of those calls that has an entity, in event order. */
int64_t mlia_backend_each_event(const mlia_backend_ctx *c, const char *backend_id,
                                int (*fn)(const mlia_backend_ctx *c, void *state, const mlia_backend_event *ev,
                                          mlia_error *err),
                                void *state, mlia_error *err);
/* The exact lookup of `key` in the call's inner delegate map
 * (analysis/delegate_map.h): links the entity to the source operators it
 * names and sets its "source_mapping" attribute; never a match by name. */
delegate_mapping mlia_backend_map_event(const mlia_backend_ctx *c, const mlia_backend_call *call, mlia_entity *e,
                                        const char *key);

#endif
