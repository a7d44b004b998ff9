/*
 * result_read.h - reader of an mlia standardized output (mlia-output.json)
 * for `mlia compare`: bytes in, a flat read-only view out.
 *
 * It keeps only what stays stable across the result format's revisions
 * (schema 1.x): schema_version, model.name, the selected method, run_id,
 * entities[].id/kind/name, and every metric's name, unit, value, samples and
 * qualifiers, wherever the document holds them (results[0].metrics for the
 * model, results[0].breakdowns[].metrics, results[0].entities[].metrics).
 * Unknown members are ignored.
 *
 * Ownership: everything is allocated in the arena given to result_doc_read.
 */
#ifndef MLIA_FORMATS_RESULT_READ_H
#define MLIA_FORMATS_RESULT_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"

/* Entity id used for model-level metrics. */
#define RESULT_MODEL_ENTITY "model"

typedef struct rr_metric {
    const char *entity;        /* entity id, RESULT_MODEL_ENTITY for model metrics */
    const char *name, *unit;
    const char *statistic;     /* qualifiers.statistic, else aggregation, else NULL */
    const char *series;        /* name + the other qualifiers ("name|k=v|..."), the matching key */
    const char *attribution;   /* qualifiers.attribution or NULL */
    bool available;            /* numeric value present */
    double value;
    uint32_t samples;          /* 0 when absent */
} rr_metric;

typedef struct rr_entity {
    const char *id, *kind, *name;
    const char *code_stack;    /* attributes.code_stack (a code_stack entity's id), or NULL */
} rr_entity;

/* context.runtime_configuration.fingerprint (analysis/fingerprint.h);
 * program == NULL for results written before it existed. */
typedef struct rr_fingerprint {
    const char *program;          /* SHA-256 hex of the program's canonical text, or NULL */
    const char *method;
    int64_t operators, debug_handles, delegate_segments; /* -1 when absent */
    const char *etrecord, *profiling_data, *companion_model; /* inputs' SHA-256, or NULL */
} rr_fingerprint;

/* The settings a run was analysed with (docs/compare.md "Settings"), from
 * tool.version and context.runtime_configuration. */
typedef struct rr_settings {
    const char *tool_version;        /* tool.version, or NULL */
    const char *time_unit;           /* "ns", "tick", or NULL */
    double ticks_per_second;         /* 0 when absent (the ETDump's nanoseconds) */
    int64_t warmup_executions;       /* 0 when absent */
    const char *statistics_mode;     /* statistics.mode as text ("1"), or NULL */
    const char *statistics_device;   /* statistics.device, or NULL */
    bool mode_assumed, device_assumed;
    uint32_t n_captures;             /* fingerprint.inputs.profiling_data: a digest or a list */
    const char **captures;           /* SHA-256 hex of every capture analysed */
} rr_settings;

typedef struct result_doc {
    const char *schema_version, *model_name, *method, *run_id, *timestamp;
    rr_fingerprint fingerprint;
    rr_settings settings;
    uint32_t n_entities;
    rr_entity *entities;       /* document order */
    uint32_t n_metrics;
    rr_metric *metrics;        /* document order */
} result_doc;

/* Read an mlia output document from memory. Errors (file = `file`):
 *   "not an mlia output (invalid JSON at byte N: ...)"
 *   "not an mlia output (not a JSON object)"
 *   "not an mlia output (<what> missing)" for a missing schema_version,
 *   results[0] or model.name;
 *   "not an mlia output (context.runtime_configuration.fingerprint is <a
 *   string|a number|null|...>, not an object)" and "(... fingerprint.program
 *   is not a SHA-256 digest)": a fingerprint is absent (older mlia) or
 *   well-formed, never taken for absent when it is malformed;
 *   "not an mlia output (invalid JSON at byte N: number out of range)" for
 *   a literal such as 1e400 that overflows a double (core/json_stream.h). */
int result_doc_read(const char *text, size_t len, const char *file, mlia_arena *arena, result_doc *out,
                    mlia_error *err);
/* The same from a file descriptor, read as a stream from its current
 * offset: memory follows what is kept (entities, metrics), not the file. */
int result_doc_read_fd(int fd, const char *file, mlia_arena *arena, result_doc *out, mlia_error *err);

/* Open an input of at most `cap` bytes: a regular file (FIFOs and devices
 * are refused without blocking). Returns the descriptor (the caller closes
 * it) and *size, or -1 with "<path>: <strerror>", "<path>: is a directory",
 * "<path>: is <kind>, not a regular file" or "<path>: too large for <what>
 * (<n> bytes; the limit is <cap>)". */
int result_open_input(const char *path, uint64_t cap, const char *what, uint64_t *size, mlia_error *err);

/* The page data of an mlia page (model-explorer/bundle/index.html): the
 * JSON object in <script type="application/json" id="mlia-data">, read as a
 * stream and checked to be one JSON object, not empty, without a '<', '>'
 * or '&' (our writer escapes them), followed by </script>. With copy, the
 * bytes after its '{' (members and the closing brace) are passed to
 * copy(ctx, bytes, n) as they are read. Errors: "<file>: not an mlia page
 * (no page data)", "(unescaped markup in the page data)", "(the page data
 * is empty)", "(invalid JSON at byte <n>: ...)" with n counted from the
 * data's first byte. */
typedef void (*mlia_page_copy_fn)(void *ctx, const char *bytes, size_t n);
int result_page_data(int fd, const char *file, mlia_page_copy_fn copy, void *ctx, mlia_error *err);

#endif
