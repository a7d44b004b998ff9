/*
 * session.h - everything one `mlia check` run reads, derives and writes.
 *
 * Data flows one way: files -> readers -> analysis -> writers. The session is
 * the context object that owns the memory of a run (one arena, the mapped
 * input files) and carries the typed views from stage to stage. Writers get
 * only the const record of the run (analysis/run.h), never the session.
 */
#ifndef MLIA_API_SESSION_H
#define MLIA_API_SESSION_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis/result.h"
#include "analysis/run.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/file.h"
#include "core/str.h"
#include "pipeline/options.h"

struct etrecord;
struct etrecord_method;
struct etdump;
struct pte_program;
struct pte_plan;
struct ep_program;
struct runtime_analysis;
struct trace_source;
struct accuracy_analysis;
struct memory_analysis;

/* Log of decisions, written to logs/mlia.log. Lines are arena strings. */
typedef struct mlia_log {
    uint32_t n, cap;
    const char **lines;
} mlia_log;

typedef struct mlia_session {
    mlia_arena arena;
    mlia_arena *worker_arena;   /* ETRecord memory read on the second core (in arena) */
    struct runtime_prescan *prescan; /* the runtime scan done on the ETDump's validation pass, or NULL
                                        (runtime.h runtime_prescan_new; freed with the session) */
    struct worker_job *job;     /* the second core's job (check.c) */
    pthread_t worker;           /* valid while worker_running */
    bool worker_running;        /* started and not yet joined */
    const char *stage_file;     /* input named by an out-of-memory error at this point */
    struct mlia_outdir *outdir; /* output tree being written (removed on out of memory) */
    struct mlia_history *history; /* the run history being written (--history), closed by check_session_free */
    const char *history_note;     /* "History: recorded in ..." for the console, or NULL */
    const mlia_check_config *opts; /* the resolved options (pipeline/options.h) */
    mlia_file etrecord_file, companion_file;
    mlia_input_digest etrecord_digest, companion_digest;
    bool has_companion;
    /* The ETDumps (captures.c): one unless --profiling-data was repeated.
     * Arrays of n_captures, calloc'ed (files are closed, the arrays freed by
     * check_session_free). */
    uint32_t n_captures;
    const char *const *etdump_paths;        /* the options' paths, borrowed */
    mlia_file *etdump_files;
    mlia_capture_info *captures;            /* digests, executions (what the writers read) */
    struct etdump **dumps;                  /* each capture as read */
    /* a capture a backend unwrapped (its container, e.g. an Ethos-U runner
     * log): the backend's index in the registry + 1 (0: a plain ETDump) and
     * what its unwrap_capture returned besides the ETDump */
    uint32_t *capture_backend;
    void **capture_extra;

    /* intermediate outputs (accuracy_stage.c): the run's debug buffer and a
     * reference capture with its buffer; the buffers are read piece by piece */
    mlia_file debug_file, ref_etdump_file, ref_debug_file;
    mlia_input_digest debug_digest, ref_etdump_digest, ref_debug_digest;
    bool has_debug_buffer, has_reference;
    struct etdump *ref_dump;
    uint32_t ref_n_executions;
    uint32_t *ref_execution_runs;

    struct etrecord *etrecord;
    const struct etrecord_method *method;   /* selected method */
    const char *method_name;
    struct ep_program *program;             /* edge program of the method, may be NULL */
    mlia_program_fingerprint fingerprint;   /* identity of the method's program (analysis/fingerprint.h) */
    struct etdump *dump;                    /* dumps[0], or the pool of all captures (etdump_pool) */
    struct pte_program *companion;          /* parsed companion PTE or NULL */
    const struct pte_plan *companion_plan;  /* its plan of the selected method (companion.c) */

    uint32_t n_executions;
    uint32_t *execution_runs;               /* run indexes of the selected method's executions in
                                               `dump` (ascending; pooled indexes with several captures) */
    uint32_t *execution_capture;            /* capture of each execution */
    const char *time_unit;                  /* "ns" */
    uint32_t warmup_executions;             /* first executions of each capture left out */
    uint32_t n_warmup;
    uint32_t *warmup_runs;                  /* their run indexes in `dump` */

    /* the registered backends (src/backends/registry.c), in its order: each
     * one's state and writers' hooks (backends_stage.c) */
    uint32_t n_backends;
    mlia_backend_run *backends;
    mlia_result result;
    mlia_log log;
    /* the analyses' products (analysis/run.h MLIA_RUN_PRODUCTS: runtime,
     * memory, accuracy, trace), each filled by its stage */
#define MLIA_SESSION_PRODUCT_MEMBER(type, member) type *member;
    MLIA_RUN_PRODUCTS(MLIA_SESSION_PRODUCT_MEMBER)
#undef MLIA_SESSION_PRODUCT_MEMBER


    /* the stage table's run (check.c): its timings for the log, indexed
     * like the table; what the stages need besides the record */
    double *stage_ms;
    struct check_outputs *out;              /* the caller's outputs (output stage) */
    const struct etrecord_method *preloaded; /* method whose program the second core loaded, or NULL */
    const char *run_id;
    const char *timestamp;
    mlia_run_record record;                 /* what the writers read; see mlia_session_record() */
} mlia_session;

/* Fills s->record from the finished analysis (borrowed pointers) and returns it. */
const mlia_run_record *mlia_session_record(mlia_session *s);

void mlia_log_add(mlia_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The capture that run `run` of s->dump belongs to, and the run's index in
 * it (captures.c). */
uint32_t mlia_session_capture_of(const mlia_session *s, uint32_t run, uint32_t *local_run);

#endif
