/*
 * run.h - the read-only record of one analysed `mlia check` run, as the
 * writers (result JSON, console summary, Model Explorer views) see it.
 *
 * Data flows one way: files -> readers -> analysis -> writers. The pipeline
 * (src/pipeline) owns the run and its memory; once the analysis is finished it
 * fills one mlia_run_record with borrowed pointers and hands it, const, to the
 * writers in src/report, which therefore include nothing from src/pipeline or src/api.
 *
 * Ownership: every pointer is borrowed from the pipeline's session and stays
 * valid until the session is freed; writers never free or change anything
 * reachable from the record.
 */
#ifndef MLIA_ANALYSIS_RUN_H
#define MLIA_ANALYSIS_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/fingerprint.h"
#include "analysis/result.h"

struct ep_program;
struct pte_program;
struct mlia_backend_out;
struct trace_source;
struct runtime_analysis;
struct accuracy_analysis;
struct memory_analysis;

/* The analyses' products the writers read, one row each: (type, member).
 * The session (src/pipeline/session.h) holds each as a `type *member` that
 * its stage fills; the run record holds it as `const type *member`, and
 * mlia_session_record copies every row. Adding a product is one row here
 * plus the stage that computes it (a row of STAGES in src/pipeline/check.c);
 * a backend's product lives in the backend's state instead
 * (docs/architecture.md, "a new stage"). Every member may be NULL: a stage
 * that does not apply leaves its product out. */
#define MLIA_RUN_PRODUCTS(X)                                                                                      \
    X(struct runtime_analysis, runtime)   /* timings per operator (analysis/runtime.h) */                       \
    X(struct memory_analysis, memory)     /* memory view (analysis/memory.h), NULL without a PTE plan */       \
    X(struct accuracy_analysis, accuracy) /* intermediate outputs (analysis/accuracy.h), NULL: none analysed */ \
    X(struct trace_source, trace)         /* timeline input (trace.json, page) */

/* Identity of one input file (result context and log). */
typedef struct mlia_input_digest {
    const char *path;
    const char *name;        /* basename */
    uint64_t size;
    char sha256[65];
} mlia_input_digest;

/* One ETDump of the analysis (--profiling-data may be given several times:
 * the executions of every capture are pooled, docs/captures.md). */
typedef struct mlia_capture_info {
    mlia_input_digest digest;
    uint32_t n_runs;                         /* event blocks in the capture */
    uint32_t first_run;                      /* index of its first block among the pooled blocks */
    uint32_t n_executions;                   /* analysed executions of the method (after warm-up) */
    const uint32_t *execution_runs;          /* their block indexes in this capture, ascending */
    uint32_t n_warmup;                       /* executions left out as warm-up */
    const uint32_t *warmup_runs;             /* their block indexes in this capture */
} mlia_capture_info;

/* One backend that ran (src/backends/<name>/): its writers' hooks
 * (report/backend_out.h) and its analysis, both borrowed. */
typedef struct mlia_backend_run {
    const char *name;                        /* the backend's folder name, e.g. "vgf" */
    const struct mlia_backend_out *out;
    const void *state;                       /* the backend's analysis (owned by the run) */
} mlia_backend_run;

typedef struct mlia_run_record {
    const char *run_id;                      /* UUID4 */
    const char *timestamp;                   /* ISO-8601 UTC */
    const char *const *cli_args;             /* argv after the program name, may be NULL */
    int n_cli_args;
    mlia_input_digest etrecord_digest, etdump_digest, companion_digest; /* etdump: the first capture */
    bool has_companion;
    uint32_t n_captures;                     /* ETDumps (1 unless --profiling-data was repeated) */
    const mlia_capture_info *captures;       /* [n_captures], in command-line order */
    /* intermediate outputs (docs/accuracy.md): the run's debug buffer, a
     * reference capture and its buffer, when given */
    mlia_input_digest debug_digest, ref_etdump_digest, ref_debug_digest;
    bool has_debug_buffer, has_reference;
    uint32_t ref_n_executions;
    const uint32_t *ref_execution_runs;

    const char *method_name;                 /* selected ETRecord method */
    const struct ep_program *program;        /* its edge program, may be NULL */
    const mlia_program_fingerprint *fingerprint; /* identity of the program (compare), never NULL */
    const struct pte_program *companion;     /* parsed companion PTE or NULL */

    uint32_t n_executions;
    const uint32_t *execution_runs;          /* run indexes of the method's executions (pooled
                                                block indexes with several captures) */
    const char *time_unit;                   /* "ns", or "tick" when ticks_per_second is not 1e9 */
    double ticks_per_second;                 /* the ETDump clock's rate when given, else 0 (ns ticks) */
    uint32_t warmup_executions;              /* first executions of each capture left out (0: none) */
    uint32_t n_warmup;                       /* executions left out, all captures */
    const uint32_t *warmup_runs;             /* their pooled block indexes */

    uint32_t n_backends;                     /* the registered backends, in registration order */
    const mlia_backend_run *backends;
    const mlia_result *result;
#define MLIA_RUN_PRODUCT_MEMBER(type, member) const type *member;
    MLIA_RUN_PRODUCTS(MLIA_RUN_PRODUCT_MEMBER)
#undef MLIA_RUN_PRODUCT_MEMBER
    unsigned csv;                            /* the CSV tables asked for: MLIA_RUN_CSV_* bits (0: none) */
    /* Run by a thread a writer starts (core/side_job.h) around its work:
     * the SIGBUS guards of the mapped inputs, whose bytes the record's
     * strings may point into (core/file.h). NULL: nothing to guard. */
    void (*thread_begin)(const void *ctx);
    void (*thread_end)(const void *ctx);
    const void *thread_ctx;
} mlia_run_record;

/* The CSV tables of mlia_run_record.csv (--csv-tables; the same values as
 * the public MLIA_CSV_* of include/mlia/mlia.h, checked in src/api/check.c). */
#define MLIA_RUN_CSV_OPERATORS 0x2u
#define MLIA_RUN_CSV_CHAINS 0x4u
#define MLIA_RUN_CSV_EXECUTIONS 0x8u
#define MLIA_RUN_CSV_MEMORY 0x10u
#define MLIA_RUN_CSV_MODULES 0x20u
#define MLIA_RUN_CSV_ALL                                                                                        \
    (MLIA_RUN_CSV_OPERATORS | MLIA_RUN_CSV_CHAINS | MLIA_RUN_CSV_EXECUTIONS | MLIA_RUN_CSV_MEMORY |                \
     MLIA_RUN_CSV_MODULES)

#endif
