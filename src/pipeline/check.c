/*
 * check.c - the `mlia check` pipeline: files -> readers -> analysis -> writers
 * (public entry: mlia_check() in src/api/check.c, declared in check.h here).
 *
 * The stages are the table STAGES below (name, function, the input an
 * error names, whether the stage applies to this run), run in order and
 * each timed into the log:
 *   open the inputs (the ETRecord is read on the second core while the main
 *   thread reads the ETDumps), read the ETDumps, read the companion PTE,
 *   select the method and its executions and run the runtime analysis,
 *   locate the companion's delegate, run every registered backend
 *   (src/backends/registry.c), check the companion, intermediate outputs,
 *   model metrics and status, then write DIR/mlia-output/ through a
 *   temporary sibling tree that replaces the old one only when everything
 *   was written. A new stage is one row and its function.
 *
 * All memory of a run belongs to the session arena; the mapped files stay
 * open until the end of the run.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <signal.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/alloc.h"
#include "core/cnum.h"
#include "analysis/advice.h"
#include "analysis/display_name.h"
#include "analysis/modules.h"
#include "analysis/runtime.h"
#include "backends/registry.h"
#include "pipeline/check.h"
#include "analysis/memory.h"
#include "pipeline/stages.h"
#include "pipeline/session.h"
#include "pipeline/trace_source.h"
#include "core/json_write.h"
#include "core/oom.h"
#include "core/sha256.h"
#include "core/side_job.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"
#include "formats/pte.h"
#include "formats/result_read.h"
#include "history/history.h"
#include "report/csv/csv.h"
#include "report/result/console.h"
#include "report/outdir.h"
#include "report/result/result_json.h"
#include "report/views/views.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static void progress(mlia_session *s, const char *stage)
{
    if (s->opts->progress)
        s->opts->progress(s->opts->progress_ctx, stage);
}

static const char *basename_of(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static int open_input(mlia_session *s, mlia_file *f, mlia_input_digest *d, const char *path, bool map,
                      mlia_error *err)
{
    (void)s;
    if (map ? mlia_file_map(f, path, err) : mlia_file_open(f, path, err))
        return -1;
    d->path = path;
    d->name = basename_of(path);
    d->size = f->size;
    return 0;
}

/* The second core works while the main thread reads the ETDump: it reads the
 * ETRecord (and, when the method is already known, its edge program) into an
 * arena of its own - phase 1, which the main thread waits for before the
 * analysis - then digests the inputs, which only the outputs need: the main
 * thread joins the worker just before writing them, so hashing a gigabyte
 * capture overlaps the whole analysis. Results and errors are picked up in
 * the same order as a sequential run would report them. */
typedef struct worker_job {
    mlia_session *s;
    mlia_arena arena;            /* ETRecord and program memory (freed with the session) */
    int rc_read, rc_program, rc_digest;
    mlia_error err_read, err_program, err_digest;
    const etrecord_method *method; /* method whose program was loaded, or NULL */
    ep_program *program;
    double read_ms;
    double program_ms;           /* reading + parsing the method's edge program */
    uint64_t program_bytes;      /* its uncompressed JSON size */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    mlia_ledger *ledger;         /* the call's (core/alloc.h), adopted by the worker */
    bool read_done;              /* ETRecord read (rc_read final) */
    bool phase1_done;            /* ETRecord and program results are final */
} worker_job;

static void job_signal(worker_job *job, bool *flag)
{
    pthread_mutex_lock(&job->mu);
    job->read_done = true; /* implied by either flag */
    *flag = true;
    pthread_cond_broadcast(&job->cv);
    pthread_mutex_unlock(&job->mu);
}

static void job_wait(worker_job *job, const bool *flag)
{
    pthread_mutex_lock(&job->mu);
    while (!*flag)
        pthread_cond_wait(&job->cv, &job->mu);
    pthread_mutex_unlock(&job->mu);
}

static void phase1_finished(worker_job *job)
{
    job_signal(job, &job->phase1_done);
}

static void wait_phase1(worker_job *job) { job_wait(job, &job->phase1_done); }

/* Waits for the digests (and the worker's end). Idempotent. */
static void join_worker(mlia_session *s)
{
    if (s->worker_running) {
        pthread_join(s->worker, NULL);
        s->worker_running = false;
    }
}

static void *worker_body(void *arg)
{
    worker_job *job = arg;
    mlia_session *s = job->s;
    const mlia_check_config *o = s->opts;
    mlia_oom_point oom;
    mlia_oom_enter(&oom);
    if (setjmp(oom.jump)) {
        /* out of memory (or over the memory limit) on this thread. Before
         * phase 1 ends the main thread reads rc_read; after it, only the
         * digests' result is read (stage_outputs): an allocation failing while
         * hashing must fail the run there, never leave a digest empty. */
        mlia_error *e = job->phase1_done ? &job->err_digest : &job->err_read;
        mlia_error_clear(e);
        mlia_oom_error(e, o->etrecord_path, &oom, o->memory_limit ? &MLIA_OOM_ANALYSIS_BY_HOST : &MLIA_OOM_ANALYSIS);
        if (job->phase1_done) {
            job->rc_digest = -1;
            return NULL;
        }
        job->rc_read = -1;
        phase1_finished(job);
        return NULL;
    }
    double t0 = now_ms();
    job->rc_read = etrecord_read(s->etrecord_file.data, s->etrecord_file.size, o->etrecord_path, &job->arena,
                                 &s->etrecord, &job->err_read);
    job->read_ms = now_ms() - t0;
    job_signal(job, &job->read_done);
    if (!job->rc_read) {
        const etrecord *r = s->etrecord;
        const etrecord_method *m = o->method ? etrecord_find_method(r, o->method)
                                   : (r->n_methods == 1 ? &r->methods[0] : NULL);
        if (m) {
            job->method = m;
            double tp = now_ms();
            job->rc_program = etrecord_load_method_program(s->etrecord, m, &job->arena, &job->program,
                                                           &job->err_program);
            job->program_ms = now_ms() - tp;
            const etrecord_entry *en = m->program_entry ? etrecord_find_entry(s->etrecord, m->program_entry) : NULL;
            job->program_bytes = en ? en->size : 0;
        }
    }
    phase1_finished(job);
    /* in the order of the command line: ETRecord, ETDumps, companion. The
     * mapped ETDumps are hashed with pread: their pages never enter this
     * process, and a truncation is an error, not a SIGBUS on this thread */
    job->rc_digest = mlia_file_sha256_hex(&s->etrecord_file, s->etrecord_digest.sha256, &job->err_digest);
    for (uint32_t i = 0; i < s->n_captures && !job->rc_digest; i++)
        if (!s->capture_backend[i]) /* an unwrapped capture has its file's digest already (captures.c) */
            job->rc_digest =
                mlia_file_sha256_hex(&s->etdump_files[i], s->captures[i].digest.sha256, &job->err_digest);
    if (s->has_companion && !job->rc_digest)
        job->rc_digest = mlia_file_sha256_hex(&s->companion_file, s->companion_digest.sha256, &job->err_digest);
    if (s->has_debug_buffer && !job->rc_digest)
        job->rc_digest = mlia_file_sha256_hex(&s->debug_file, s->debug_digest.sha256, &job->err_digest);
    if (s->has_reference && !job->rc_digest)
        job->rc_digest = mlia_file_sha256_hex(&s->ref_etdump_file, s->ref_etdump_digest.sha256, &job->err_digest);
    if (s->has_reference && !job->rc_digest)
        job->rc_digest = mlia_file_sha256_hex(&s->ref_debug_file, s->ref_debug_digest.sha256, &job->err_digest);
    mlia_oom_leave(&oom);
    return NULL;
}

/* The worker thread: in the "C" locale like the calling thread
 * (core/cnum.h; a new thread starts in the host's global locale). */
static void *worker_thread(void *arg)
{
    mlia_ledger *outer = mlia_ledger_current();
    mlia_ledger_set(((worker_job *)arg)->ledger); /* blocks of the call, whichever thread */
    mlia_c_locale_scope loc;
    mlia_c_locale_enter(&loc);
    void *r = worker_body(arg);
    mlia_c_locale_leave(&loc);
    mlia_ledger_set(outer);
    return r;
}

/* run_id (UUID4) and timestamp; both fixed by SOURCE_DATE_EPOCH. */
static void identify_run(mlia_session *s)
{
    const char *sde = getenv("SOURCE_DATE_EPOCH");
    uint8_t b[16];
    time_t t;
    if (sde && *sde) {
        t = (time_t)strtoll(sde, NULL, 10);
        uint8_t d[32];
        char seed[256];
        snprintf(seed, sizeof seed, "%s:%s:%s", sde, s->etrecord_digest.sha256, s->captures[0].digest.sha256);
        mlia_sha256(seed, strlen(seed), d);
        memcpy(b, d, 16);
    } else {
        t = time(NULL);
        if (getrandom(b, sizeof b, 0) != (ssize_t)sizeof b) {
            uint8_t d[32];
            char seed[64];
            snprintf(seed, sizeof seed, "%lld:%d", (long long)t, (int)clock());
            mlia_sha256(seed, strlen(seed), d);
            memcpy(b, d, 16);
        }
    }
    b[6] = (uint8_t)((b[6] & 0x0F) | 0x40);
    b[8] = (uint8_t)((b[8] & 0x3F) | 0x80);
    s->run_id = mlia_arena_printf(&s->arena,
                                  "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
                                  b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
                                  b[15]);
    struct tm tm;
    gmtime_r(&t, &tm);
    char ts[64];
    strftime(ts, sizeof ts, "%Y-%m-%dT%H:%M:%SZ", &tm);
    s->timestamp = mlia_arena_strdup(&s->arena, ts);
}

static const char *const OTHER_METRICS[] = {"cache_cycles", "dram_cycles", "dram_read_bytes", "dram_write_bytes",
                                            "cache_read_bytes", "cache_write_bytes"};

static const struct {
    const char *name, *unit, *reason;
} STANDARD_UNAVAILABLE[] = {
    {"accelerator_operator_percentage", "%",
     "ETDump profiling data does not record the placement of every operator on the accelerator."},
    {"cpu_utilization", "%", "ETDump profiling data does not record CPU utilization."},
    {"model_weight_memory", "bytes", "ETDump profiling data does not record model weight memory."},
    {"peak_activation_memory", "bytes", "ETDump profiling data does not record activation memory."},
    {"average_memory", "bytes", "ETDump profiling data does not record memory use over time."},
};

static void model_metrics(mlia_session *s)
{
    mlia_result *r = &s->result;
    const runtime_analysis *ra = s->runtime;
    if (ra && ra->has_inference) {
        /* p50, min and max like every timing (docs/result-format.md), so
         * mlia compare has the spread of the metric users watch most */
        static const char *const stats[3] = {"p50", "min", "max"};
        double t[3] = {ra->inference_p50, ra->inference_min, ra->inference_max};
        for (int i = 0; i < 3; i++) {
            mlia_metric it = mlia_metric_double("inference_time", "ms", t[i], stats[i], ra->inference_samples);
            mlia_metric_qualify(&it, "statistic", stats[i]);
            mlia_result_add_metric(r, it);
        }
        if (ra->inference_p50 > 0 && ra->inference_min > 0) {
            /* the fastest execution gives the most inferences per second */
            double ips[3] = {1000.0 / ra->inference_p50, 1000.0 / ra->inference_max, 1000.0 / ra->inference_min};
            for (int i = 0; i < 3; i++) {
                mlia_metric im =
                    mlia_metric_double("inferences_per_second", "inferences/s", ips[i], stats[i], ra->inference_samples);
                mlia_metric_qualify(&im, "statistic", stats[i]);
                mlia_result_add_metric(r, im);
            }
        } else {
            mlia_result_add_metric(r, mlia_metric_unavailable("inferences_per_second", "inferences/s",
                                                              "The measured inference time is zero."));
        }
    } else {
        const char *why = "No Method::execute event was recorded for the selected method.";
        mlia_result_add_metric(r, mlia_metric_unavailable("inference_time", "ms", why));
        mlia_result_add_metric(r, mlia_metric_unavailable("inferences_per_second", "inferences/s", why));
    }
    backends_metrics(s);
    /* MLIA's standard performance metrics that the ETDump cannot give
     * (ensure_standard_performance_metrics in MLIA): present, unavailable */
    for (size_t i = 0; i < sizeof STANDARD_UNAVAILABLE / sizeof *STANDARD_UNAVAILABLE; i++)
        if (!mlia_result_metric(r, STANDARD_UNAVAILABLE[i].name))
            mlia_result_add_metric(r, mlia_metric_unavailable(STANDARD_UNAVAILABLE[i].name,
                                                              STANDARD_UNAVAILABLE[i].unit,
                                                              STANDARD_UNAVAILABLE[i].reason));
    for (size_t i = 0; i < sizeof OTHER_METRICS / sizeof *OTHER_METRICS; i++) {
        const char *unit = strstr(OTHER_METRICS[i], "bytes") ? "bytes" : "cycles";
        mlia_result_add_metric(r, mlia_metric_unavailable(OTHER_METRICS[i], unit,
                                                          "Backend output did not provide a numeric value for "
                                                          "this metric."));
    }
    /* the memory plan's figures (docs/memory.md): peak_activation_memory
     * and model_weight_memory in place, the others after */
    memory_add_metrics(s->memory, r);
}

static void declare_kinds(mlia_result *r)
{
    /* source_operator (ETRecord edge-program node) and code_stack (innermost
     * user frame of its stack trace) are MLIA well-known kinds: not declared */
    mlia_result_kind(r, "nn_module", "nn.Module from the node's nn_module_stack", "nn_module",
                     "nn_module,source_operator");
    mlia_result_kind(r, "delegate_call", "DELEGATE_CALL instruction of the method", NULL,
                     "runtime_event,source_operator");
    mlia_result_kind(r, "runtime_event", "backend event inside a delegate call", "delegate_call,runtime_event",
                     "runtime_event");
}

static void compute_status(mlia_session *s)
{
    mlia_result *r = &s->result;
    bool partial = false;
    for (uint32_t i = 0; i < r->n_entities && !partial; i++) {
        const mlia_metric *m = mlia_entity_metric(r->entities[i], "execution_coverage", NULL);
        if (m && m->type == MLIA_VALUE_DOUBLE && m->d < 100.0)
            partial = true;
    }
    if (backends_incomplete(s))
        partial = true;
    r->status = partial ? "partial" : "ok";
    /* measured, but nothing attributed to the program: not ok (MLIA's
     * "incompatible": the capture does not fit the model) */
    if (s->runtime && s->runtime->nothing_attributed)
        r->status = "incompatible";
}

/* mlia-output/trace.pftrace or trace.json, streamed to the file (docs/trace.md). */
static int trace_to(void *vs, FILE *fp, const char *path, mlia_error *err)
{
    mlia_session *s = vs;
    if (strcmp(s->opts->trace, "json") == 0)
        return trace_write_chrome(s->trace, fp, path, err);
    return trace_write_perfetto(s->trace, fp, path, err);
}

/* The result document streamed through a 64 KiB chunk: never held whole. */
static int record_to(const mlia_run_record *rec, FILE *fp, const char *path, mlia_error *err)
{
    mlia_buf chunk;
    mlia_buf_init(&chunk);
    mlia_buf_reserve(&chunk, MLIA_JW_STREAM_CHUNK + 4096);
    mlia_jw w;
    mlia_jw_init_stream(&w, &chunk, fp, true);
    result_json_write(rec, &w); /* ends with the newline */
    mlia_jw_flush(&w);
    mlia_buf_free(&chunk);
    if (w.failed)
        return mlia_error_setf(err, path, "write failed: %s", strerror(errno ? errno : EIO));
    return 0;
}

static int result_to(void *vs, FILE *fp, const char *path, mlia_error *err)
{
    return record_to(mlia_session_record(vs), fp, path, err);
}

/* mlia-output.json on the second core while the main thread writes the
 * trace, the CSV tables and the views (issue 33: at 100,000 operators the
 * result document is ~0.8 s of a ~6 s run, and the second core is idle once
 * the digests are done); the console summary follows it there (~0.2 s at
 * that size). Both only read the run record, which nothing changes any
 * more (core/side_job.h sets the thread up and joins it before anything
 * unwinds). The document's write error is reported before the main
 * thread's, in the order a sequential run has. */
typedef struct result_writer {
    const mlia_run_record *rec;  /* mlia_session_record(s), taken before the job starts */
    mlia_outdir_file file;       /* opened by the main thread (od is its) */
    unsigned console_width;
    char *console;               /* the console summary, made after the document (malloc'd) */
    int rc;
    mlia_error err;
} result_writer;

static void result_work(void *arg)
{
    result_writer *rw = arg;
    errno = 0;
    rw->rc = record_to(rw->rec, rw->file.fp, rw->file.shown, &rw->err);
    if (!rw->rc)
        rw->console = mlia_console_summary(rw->rec, rw->console_width);
}

/* An out-of-memory jump past write_outputs closes the document's file
 * (a library host keeps running: no descriptor may leak). */
static void close_result_file(void *arg)
{
    mlia_outdir_file *f = arg;
    if (f->fp)
        fclose(f->fp);
    free(f->shown);
    f->fp = NULL;
    f->shown = NULL;
}

/* Only on request (--trace): a summary does not pay for a large file. */
static int write_trace(mlia_session *s, mlia_outdir *od, mlia_error *err)
{
    const char *fmt = s->opts->trace;
    if (!fmt || !*fmt)
        return 0;
    if (mlia_outdir_test_hook("stop-before-trace"))
        raise(SIGSTOP); /* the tests change the inputs, then continue the process */
    return mlia_outdir_stream(od, strcmp(fmt, "json") == 0 ? "trace.json" : "trace.pftrace", trace_to, s, err);
}

/* The outputs after mlia-output.json, in their order: the trace, the CSV
 * tables, the views. */
typedef struct other_outputs {
    mlia_session *s;
    mlia_outdir *od;
    const mlia_run_record *rec;
    char *me_rel;                /* views_write's relative command, malloc'd */
    char **me_hint;
    mlia_error *err;
    int rc;
} other_outputs;

static int other_outputs_write(other_outputs *j);

/* other_outputs_write as a side job's other half: the result in j->rc. */
static void other_outputs_work(void *arg)
{
    other_outputs *j = arg;
    j->rc = other_outputs_write(j);
}

static int other_outputs_write(other_outputs *j)
{
    mlia_session *s = j->s;
    if (write_trace(s, j->od, j->err))
        return -1;
    if (s->opts->csv && csv_write(j->rec, j->od, j->err)) /* docs/captures.md */
        return -1;
    if (s->opts->model_explorer) {
        progress(s, "writing views");
        if (s->has_companion && companion_recheck_digest(s, j->err))
            return -1;
        if (views_write(j->rec, j->od, &j->me_rel, j->me_hint, j->err))
            return -1;
    }
    return 0;
}

/* "cd '<output>/model-explorer' && <rel>": the directory single-quoted for a
 * POSIX shell (a ' becomes '\''); the relative paths never need quoting. */
static char *me_shell_command(const char *output_path, const char *rel)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "python3 '");
    for (const char *p = output_path; *p; p++)
        if (*p == '\'')
            mlia_buf_puts(&b, "'\\''");
        else
            mlia_buf_putc(&b, *p);
    mlia_buf_printf(&b, "/model-explorer/%s'", rel);
    return mlia_buf_take(&b);
}

/* *me_command: the shell command that opens the Model Explorer files
 * (malloc'd), and *me_hint the overlay to pick first, when --model-explorer
 * was given. */
/* Whether mlia-output.json is written by a thread of its own: when it is
 * streamed (no text kept) and other outputs give the main thread work
 * meanwhile. */
static bool result_on_thread(const mlia_session *s, const char *result_json)
{
    const mlia_check_config *o = s->opts;
    return o->output_dir && !result_json && ((o->trace && *o->trace) || o->csv || o->model_explorer);
}

/* *console: the console summary when result_on_thread() (computed beside
 * the document), else left alone. */
static int write_outputs(mlia_session *s, const char *result_json, size_t result_len, char **page_path,
                         char **output_path, char **me_command, char **me_hint, char **console, mlia_error *err)
{
    /* in the session, not on this frame: the out-of-memory path (a longjmp
     * past this frame) still finds it to remove the temporary tree */
    mlia_outdir *od = mlia_arena_alloc(&s->arena, sizeof *od);
    memset(od, 0, sizeof *od);
    od->dir_fd = od->tmp_fd = -1;
    s->outdir = od;
    char *me_rel = NULL;
    if (mlia_outdir_begin(s->opts->output_dir, od, err)) {
        s->outdir = NULL;
        return -1;
    }
    double t0 = now_ms();
    const mlia_run_record *rec = mlia_session_record(s); /* final: the threads only read it */
    /* in the session, not on this frame: both are written on both sides
     * of the side job's recovery points */
    other_outputs *job = mlia_arena_alloc(&s->arena, sizeof *job);
    *job = (other_outputs){s, od, rec, NULL, me_hint, err, 0};
    if (!result_on_thread(s, result_json)) {
        if (result_json ? mlia_outdir_write(od, "mlia-output.json", result_json, result_len, err)
                        : mlia_outdir_stream(od, "mlia-output.json", result_to, s, err))
            goto fail;
        other_outputs_work(job);
        me_rel = job->me_rel;
        if (job->rc)
            goto fail;
    } else {
        result_writer *rw = mlia_arena_alloc(&s->arena, sizeof *rw);
        memset(rw, 0, sizeof *rw);
        rw->rec = rec;
        rw->console_width = s->opts->console_width;
        mlia_error_clear(&rw->err);
        if (mlia_outdir_open_file(od, "mlia-output.json", &rw->file, err))
            goto fail;
        mlia_side_job side = {.work = result_work, .arg = rw, .thread_begin = rec->thread_begin,
                              .thread_end = rec->thread_end, .hook_ctx = rec->thread_ctx};
        mlia_oom_cleanup closing;
        mlia_oom_push(&closing, close_result_file, &rw->file);
        mlia_side_job_beside(&side, other_outputs_work, job);
        mlia_oom_pop(&closing);
        me_rel = job->me_rel;
        *console = rw->console; /* the caller's from here, whatever happens next */
        /* the document's failure first, as a sequential run has it */
        if (mlia_outdir_close_file(&rw->file, rw->rc, &rw->err)) {
            *err = rw->err;
            goto fail;
        }
        if (job->rc)
            goto fail;
    }
    mlia_log_add(s, "stage write outputs: %.3f ms (files)", now_ms() - t0);
    {
        mlia_buf log;
        mlia_buf_init(&log);
        for (uint32_t i = 0; i < s->log.n; i++)
            mlia_buf_printf(&log, "%s\n", s->log.lines[i]);
        for (uint32_t i = 0; i < s->result.n_warnings; i++) {
            const char *w = s->result.warnings[i];
            size_t wl = strlen(w), cap = wl * 6 + 1;
            char *safe = mlia_arena_alloc(&s->arena, cap);
            mlia_escape_text(safe, cap, w, wl);
            mlia_buf_printf(&log, "warning: %s\n", safe);
        }
        int rc = mlia_outdir_write(od, "logs/mlia.log", log.data ? log.data : "", log.len, err);
        mlia_buf_free(&log);
        if (rc)
            goto fail;
    }
    {
        /* What the caller gets is allocated before the commit: an
         * allocation failing after it would report an error for an output
         * already in place (the process-wide sweep, docs/hardening.md).
         * DIR exists now and DIR/mlia-output is never a link (outdir.c), so
         * the resolved DIR + "/mlia-output" is the final folder's real path;
         * realpath failing for memory is out of memory, not a reason to
         * show another path. */
        errno = 0;
        char *real_dir = realpath(od->dir, NULL);
        if (!real_dir && errno == ENOMEM)
            mlia_oom(PATH_MAX);
        mlia_buf fp;
        mlia_buf_init(&fp);
        if (real_dir)
            mlia_buf_printf(&fp, "%s/%s", strcmp(real_dir, "/") ? real_dir : "", MLIA_OUTDIR_NAME);
        else
            mlia_buf_puts(&fp, mlia_outdir_final_path(od));
        free(real_dir);
        *output_path = mlia_buf_take(&fp);
        if (s->opts->model_explorer) {
            size_t n = strlen(*output_path) + 64;
            *page_path = malloc(n);
            if (!*page_path)
                mlia_oom(n);
            snprintf(*page_path, n, "%s/model-explorer/bundle/index.html", *output_path);
            if (me_rel)
                *me_command = me_shell_command(*output_path, me_rel);
        }
    }
    if (mlia_outdir_commit(od, err))
        goto fail;
    s->outdir = NULL;
    free(me_rel);
    mlia_outdir_abort(od);
    return 0;
fail:
    s->outdir = NULL;
    free(me_rel);
    mlia_outdir_abort(od);
    return -1;
}

/* ---- the stages ------------------------------------------------------ */

/* Open the inputs (the ETRecord, every ETDump, the companion, the
 * intermediate-output files) and start the second core on the ETRecord. */
static int stage_open(mlia_session *s, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    if (o->output_dir && mlia_outdir_check(o->output_dir, err))
        return mlia_error_mark(err, MLIA_ERROR_KIND_IO);
    if (open_input(s, &s->etrecord_file, &s->etrecord_digest, o->etrecord_path, false, err))
        return -1;
    if (captures_open(s, err))
        return -1;
    if (o->companion_path) {
        if (open_input(s, &s->companion_file, &s->companion_digest, o->companion_path, false, err))
            return -1;
        s->has_companion = true;
    }
    if (accuracy_open(s, err))
        return -1;
    worker_job *job = mlia_arena_alloc(&s->arena, sizeof *job);
    job->s = s;
    mlia_arena_init(&job->arena);
    job->arena.limit = s->arena.limit;
    s->worker_arena = &job->arena;
    mlia_error_clear(&job->err_read);
    mlia_error_clear(&job->err_program);
    mlia_error_clear(&job->err_digest);
    pthread_mutex_init(&job->mu, NULL);
    pthread_cond_init(&job->cv, NULL);
    s->job = job;
    job->ledger = mlia_ledger_current();
    s->worker_running = pthread_create(&s->worker, NULL, worker_thread, job) == 0;
    if (!s->worker_running)
        worker_thread(job);
    return 0;
}

static runtime_unit backend_event_unit(const void *ctx, const char *backend, mlia_str name, const uint8_t *meta,
                                       uint32_t n_meta);

/* Read the ETDumps on this core while the second reads the ETRecord; then
 * take the ETRecord and the method's program from it. */
static int stage_read(mlia_session *s, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    worker_job *job = s->job;
    double t1 = now_ms();
    mlia_error dump_err;
    mlia_error_clear(&dump_err);
    /* A recovery point of its own: the worker must be joined before an
     * out-of-memory error unwinds the session. */
    mlia_oom_point dump_oom;
    mlia_oom_enter(&dump_oom);
    volatile int rc_dump = 0;
    volatile uint32_t reading = 0;
    if (setjmp(dump_oom.jump) == 0) {
        /* decode once: method selection's fit check rides on the validation
         * pass, so it waits for the ETRecord's maps (not its program) */
        job_wait(job, &job->read_done);
        etdump_visitor fit;
        bool fold = !job->rc_read && runtime_fit_visitor(s->etrecord, &fit);
        /* one pass (issue 33): one capture of a one-method ETRecord, the
         * common case, is also scanned as it is validated */
        if (fold && s->n_captures == 1 && !s->prescan)
            s->prescan = runtime_prescan_new(s->etrecord, o->warmup_executions, backend_event_unit, NULL,
                                             &s->arena, &fit);
        for (uint32_t i = 0; i < s->n_captures && !rc_dump; i++) {
            reading = i;
            s->stage_file = s->etdump_paths[i];
            mlia_file *f = &s->etdump_files[i];
            rc_dump = etdump_read_visiting(f->data, f->size, s->etdump_paths[i], mlia_file_release, f,
                                           fold ? &fit : NULL, &s->arena, &s->dumps[i], &dump_err);
        }
    } else {
        rc_dump = -1;
        mlia_error_clear(&dump_err);
        mlia_oom_error(&dump_err, s->etdump_paths[reading], &dump_oom,
                       s->opts->memory_limit ? &MLIA_OOM_ANALYSIS_BY_HOST : &MLIA_OOM_ANALYSIS);
    }
    mlia_oom_leave(&dump_oom);
    s->dump = s->dumps[0];
    double dump_ms = now_ms() - t1;
    s->stage_file = o->etrecord_path;
    wait_phase1(job);
    /* report in the order of a sequential run: ETRecord, ETDump, program */
    if (job->rc_read) {
        *err = job->err_read;
        return mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT); /* (a read error is I/O already) */
    }
    mlia_log_add(s, "stage read ETRecord: %.3f ms (%u method(s), %s layout; on the second core)", job->read_ms,
                 s->etrecord->n_methods, s->etrecord->legacy ? "legacy" : "current");
    if (rc_dump) {
        *err = dump_err;
        return mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT);
    }
    if (s->n_captures == 1) {
        mlia_log_add(s, "stage read ETDump: %.3f ms on this core (%u event block(s))", dump_ms, s->dump->n_runs);
    } else {
        uint64_t blocks = 0;
        for (uint32_t i = 0; i < s->n_captures; i++)
            blocks += s->dumps[i]->n_runs;
        mlia_log_add(s, "stage read ETDump: %.3f ms on this core (%u ETDumps, %llu event block(s))", dump_ms,
                     s->n_captures, (unsigned long long)blocks);
    }
    if (job->method && job->rc_program) {
        *err = job->err_program;
        return mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT);
    }
    if (job->method)
        s->program = job->program;
    if (job->method && job->program)
        mlia_log_add(s, "stage parse edge program: %.3f ms (%.1f MB of JSON, %.0f MB/s; on the second core)",
                     job->program_ms, (double)job->program_bytes / 1e6,
                     job->program_ms > 0 ? (double)job->program_bytes / 1e3 / job->program_ms : 0.0);
    s->preloaded = job->method;
    return 0;
}

static int stage_companion_read(mlia_session *s, mlia_error *err)
{
    return companion_read(s, err);
}

/* Select the method and its executions (warm-up left out), load its
 * program, then the runtime timing analysis. */
/* runtime_inputs.event_unit: the delegate's backend says the unit class of
 * its events (backend.h event_unit); CPU ticks for delegates without one. */
static runtime_unit backend_event_unit(const void *ctx, const char *backend, mlia_str name, const uint8_t *meta,
                                       uint32_t n_meta)
{
    (void)ctx;
    const mlia_backend *b = mlia_backend_for_delegate(mlia_str_c(backend));
    return b && b->event_unit ? b->event_unit(name, meta, n_meta) : RUNTIME_UNIT_CPU_TICKS;
}

static int stage_runtime(mlia_session *s, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    mlia_result_init(&s->result, &s->arena);
    method_selection sel;
    s->warmup_executions = o->warmup_executions;
    if (captures_select(s, &sel, err))
        return -1;
    s->method = sel.method;
    s->method_name = sel.name;
    s->n_executions = sel.n_executions;
    s->execution_runs = sel.execution_runs;
    /* the ETDump's clock (docs/captures.md): ticks are ns unless told */
    double hz = o->ticks_per_second > 0 ? o->ticks_per_second : 1e9;
    s->time_unit = hz == 1e9 ? "ns" : "tick";
    mlia_log_add(s, "method: %s (%s), %u execution(s)", sel.name, o->method ? "selected" : "only method",
                 sel.n_executions);
    if (o->ticks_per_second > 0) {
        char rate[48];
        mlia_format_hz(rate, sizeof rate, hz);
        mlia_log_add(s, "ETDump ticks read at %s (%.17g ticks per second)", rate, hz);
        if (hz != 1e9)
            mlia_result_warnf(&s->result, "ETDump ticks read at %s (%.17g ticks per second), not as nanoseconds: "
                                          "every time is the recorded ticks divided by that rate.", rate, hz);
    }
    if (s->n_warmup) {
        mlia_buf runs;
        mlia_buf_init(&runs);
        for (uint32_t i = 0; i < s->n_warmup && i < 10; i++)
            mlia_buf_printf(&runs, "%s%u", i ? ", " : "", s->warmup_runs[i]);
        if (s->n_warmup > 10)
            mlia_buf_printf(&runs, ", ... (%u more omitted)", s->n_warmup - 10);
        if (s->n_captures > 1)
            mlia_result_warnf(&s->result,
                              "The first %u execution(s) of each ETDump were left out as warm-up (%u in all, pooled "
                              "event block(s) %s); every statistic and execution coverage is over the other %u "
                              "execution(s).",
                              s->warmup_executions, s->n_warmup, runs.data, sel.n_executions);
        else
            mlia_result_warnf(&s->result,
                              "The first %u execution(s) of the ETDump were left out as warm-up (event block(s) %s); "
                              "every statistic and execution coverage is over the other %u execution(s).",
                              s->warmup_executions, runs.data, sel.n_executions);
        mlia_buf_free(&runs);
    }
    for (uint32_t i = 0; i < s->n_captures && (s->n_captures > 1 || s->n_warmup); i++)
        mlia_log_add(s, "capture %s: %u execution(s) analysed, %u left out as warm-up", s->captures[i].digest.name,
                     s->captures[i].n_executions, s->captures[i].n_warmup);
    if (!sel.n_executions && s->n_captures == 1)
        mlia_result_warn(&s->result, "The ETDump holds no execution of the selected method (no \"Execute\" "
                                     "event block); no runtime timing is available.");
    else if (!sel.n_executions)
        mlia_result_warnf(&s->result, "None of the %u ETDumps holds an execution of the selected method (no "
                                      "\"Execute\" event block); no runtime timing is available.", s->n_captures);
    if (s->method != s->preloaded &&
        etrecord_load_method_program(s->etrecord, s->method, &s->arena, &s->program, err))
        return -1;
    if (!s->program)
        mlia_result_warnf(&s->result, "The ETRecord holds no edge program for method '%s'; source operators "
                                      "cannot be listed.", sel.name);
    /* kernels against the operators at their instructions: a capture of
     * another program that fits the maps by chance (issue 29, 6) */
    for (uint32_t i = 0; i < s->n_captures; i++) {
        const mlia_capture_info *c = &s->captures[i];
        if (!c->n_warmup && !c->n_executions)
            continue;
        mlia_buf why;
        mlia_buf_init(&why);
        s->stage_file = c->digest.path;
        int rc = runtime_check_kernels(s->dumps[i], c->warmup_runs[0], s->method, s->program, &s->arena, &why, err);
        if (rc == 1)
            mlia_error_setkf(err, MLIA_ERROR_KIND_MISMATCH, c->digest.path,
                             "not recorded from the program of %s: %s; " RUNTIME_MISMATCH_FIX, o->etrecord_path,
                             why.data);
        mlia_buf_free(&why);
        if (rc)
            return -1;
    }
    s->stage_file = o->etrecord_path;
    mlia_program_fingerprint_compute(sel.name, s->program, s->method, &s->arena, &s->fingerprint);
    declare_kinds(&s->result);

    runtime_inputs rin;
    memset(&rin, 0, sizeof rin);
    rin.event_unit = backend_event_unit;
    rin.method = sel.name;
    rin.dump = s->dump;
    rin.execution_runs = sel.execution_runs;
    rin.n_executions = sel.n_executions;
    rin.maps = s->method;
    rin.program = s->program;
    rin.time_unit = s->time_unit;
    rin.ticks_per_ms = hz / 1000.0;
    rin.keep_series = (o->csv & MLIA_RUN_CSV_EXECUTIONS) && o->output_dir; /* executions.csv */
    rin.prescan = s->n_captures == 1 ? s->prescan : NULL;
    int rc_runtime = runtime_analyse(&rin, &s->result, &s->arena, &s->runtime, err);
    runtime_prescan_free(s->prescan); /* taken or not, no longer needed */
    s->prescan = NULL;
    if (rc_runtime)
        return -1;
    /* one name per operator for every output and message (docs/analysis.md, "Display names") */
    mlia_display_names(&s->result);
    mlia_module_totals(&s->result); /* Inspector's find_total_for_module (docs/analysis.md) */
    mlia_log_add(s, "runtime analysis: %u timed source operator(s), %u delegate call(s)%s", s->runtime->n_timed_nodes,
                 s->runtime->n_calls, s->runtime->one_pass ? "; executions scanned on the validation pass" : "");
    backends_begin(s);
    return 0;
}

static int stage_companion_locate(mlia_session *s, mlia_error *err)
{
    return companion_locate(s, err);
}

static int stage_backends(mlia_session *s, mlia_error *err)
{
    return backends_analyse(s, err);
}

static int stage_companion_check(mlia_session *s, mlia_error *err)
{
    return companion_check(s, err);
}

static int stage_accuracy(mlia_session *s, mlia_error *err)
{
    return accuracy_stage(s, err);
}

static int stage_memory(mlia_session *s, mlia_error *err)
{
    return memory_stage(s, err);
}

/* Model metrics, status and the timeline's input. */
static int stage_results(mlia_session *s, mlia_error *err)
{
    (void)err;
    model_metrics(s);
    compute_status(s);
    trace_source *ts = mlia_arena_alloc(&s->arena, sizeof *ts);
    trace_source_init(s, &s->arena, ts);
    s->trace = ts;
    return 0;
}

/* Ranked next steps from the finished result (analysis/advice.h,
 * docs/advice.md): after the status and model metrics, before any writer. */
static int stage_advice(mlia_session *s, mlia_error *err)
{
    (void)err;
    mlia_advice_inputs in = {s->n_executions, s->warmup_executions};
    mlia_advise(&s->result, &in);
    return 0;
}

/* Records the run into the history the options name (docs/history.md).
 * The settings are the ones the written result states (its context, read
 * back with formats/result_read.h as `mlia compare` reads them): the text
 * when it was built, else DIR/mlia-output/mlia-output.json. */
static int record_history(mlia_session *s, const char *json_text, size_t json_len, const char *outp,
                          mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    result_doc doc;
    if (json_text) {
        if (result_doc_read(json_text, json_len, "mlia-output.json", &s->arena, &doc, err))
            return -1;
    } else {
        const char *path = mlia_arena_printf(&s->arena, "%s/mlia-output.json", outp ? outp : ".");
        int fd = result_open_input(path, UINT64_MAX, "an mlia output", NULL, err);
        if (fd < 0)
            return -1;
        int rrc = result_doc_read_fd(fd, path, &s->arena, &doc, err);
        close(fd);
        if (rrc)
            return -1;
    }
    history_label *labels = NULL;
    for (int i = 0; i < o->n_history_labels; i++)
        if (!history_label_valid(o->history_labels[i]))
            return mlia_error_setf(err, NULL, "label '%s': expected " HISTORY_LABEL_RULE, o->history_labels[i]);
    uint32_t n = history_labels_split(o->history_labels, o->n_history_labels > 0 ? (uint32_t)o->n_history_labels : 0,
                                      &s->arena, &labels);
    progress(s, "recording the run in the history");
    if (history_open(o->history, true, &s->history, err))
        return -1;
    int rc = history_record(s->history, mlia_session_record(s), &doc.settings, labels, n, err);
    if (!rc)
        s->history_note = mlia_arena_printf(&s->arena, "History: recorded in %s (%s)\n", history_location(s->history),
                                            history_engine(s->history));
    history_close(s->history);
    s->history = NULL;
    return rc;
}

/* The outputs: needs the digests (result context, run id, log). */
static int stage_outputs(mlia_session *s, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    check_outputs *out = s->out;
    join_worker(s);
    if (s->job->rc_digest) {
        *err = s->job->err_digest;
        return -1;
    }
    /* the same capture twice (by content, whatever the files are called)
     * would count its executions twice (docs/captures.md) */
    for (uint32_t j = 1; j < s->n_captures; j++)
        for (uint32_t i = 0; i < j; i++)
            if (strcmp(s->captures[i].digest.sha256, s->captures[j].digest.sha256) == 0)
                return mlia_error_setf(err, s->captures[j].digest.path,
                                       "the same capture as %s (SHA-256 %.12s): a capture given twice would "
                                       "count its executions twice",
                                       s->captures[i].digest.path, s->captures[j].digest.sha256);
    identify_run(s);
    const mlia_input_digest *ds[3] = {&s->etrecord_digest, NULL, &s->companion_digest};
    for (int i = 0; i < (s->has_companion ? 3 : 2); i++)
        for (uint32_t k = 0; k < (i == 1 ? s->n_captures : 1); k++) {
            const mlia_input_digest *d = i == 1 ? &s->captures[k].digest : ds[i];
            mlia_log_add(s, "input %s: %llu bytes, sha256 %s", d->path, (unsigned long long)d->size, d->sha256);
        }
    const mlia_input_digest *extra[3] = {&s->debug_digest, &s->ref_etdump_digest, &s->ref_debug_digest};
    for (int i = 0; i < 3; i++)
        if (i == 0 ? s->has_debug_buffer : s->has_reference)
            mlia_log_add(s, "input %s: %llu bytes, sha256 %s", extra[i]->path, (unsigned long long)extra[i]->size,
                         extra[i]->sha256);

    /* The result text is built only when the caller wants it; otherwise
     * the document is streamed into its file (bounded memory). */
    char *json_text = NULL;
    size_t json_len = 0;
    if (!o->output_dir || !o->skip_result_json_text) {
        mlia_buf json;
        mlia_buf_init(&json);
        mlia_buf_reserve(&json, 65536 + (size_t)s->result.n_entities * 512);
        mlia_jw w;
        mlia_jw_init_buf(&w, &json, true);
        result_json_write(mlia_session_record(s), &w);
        json_len = json.len;
        json_text = mlia_buf_take(&json);
    }

    /* the summary before the outputs are committed: after the commit
     * nothing may fail (docs/hardening.md, "Process-wide sweep"); when the
     * document has a thread of its own, the summary is made there
     * (write_outputs), still before the commit */
    char *console = result_on_thread(s, json_text) ? NULL
                                                   : mlia_console_summary(mlia_session_record(s), s->opts->console_width);
    char *status_error = NULL;
    if (s->runtime && s->runtime->nothing_attributed) {
        /* "<etdump>: None of ... (status incompatible; the outputs were written)" */
        const char *why = mlia_arena_printf(&s->arena, "%s: %s (status incompatible; the outputs were written)",
                                            s->captures[0].digest.path, s->runtime->nothing_attributed);
        status_error = strdup(why);
        if (!status_error) {
            free(console);
            free(json_text);
            mlia_oom(strlen(why) + 1);
        }
    }
    char *page = NULL, *outp = NULL, *me_cmd = NULL, *me_hint = NULL;
    if (o->output_dir && write_outputs(s, json_text, json_len, &page, &outp, &me_cmd, &me_hint, &console, err)) {
        mlia_error_mark(err, MLIA_ERROR_KIND_IO); /* (a companion changed meanwhile is a mismatch already) */
        free(page);
        free(outp);
        free(me_cmd);
        free(me_hint);
        free(json_text);
        free(console);
        free(status_error);
        return -1;
    }
    /* the history last: a history that cannot be written fails the run
     * with its outputs kept (docs/history.md) */
    if (o->history && record_history(s, json_text, json_len, outp, err)) {
        free(page);
        free(outp);
        free(me_cmd);
        free(me_hint);
        free(json_text);
        free(console);
        free(status_error);
        return -1;
    }
    out->result_json = json_text;
    out->page_path = page;
    out->model_explorer_command = me_cmd;
    out->model_explorer_hint = me_hint;
    out->output_path = outp;
    if (s->history_note && console) {
        mlia_buf b;
        mlia_buf_init(&b);
        mlia_buf_puts(&b, console);
        mlia_buf_puts(&b, s->history_note);
        free(console);
        console = mlia_buf_take(&b);
    }
    out->console = console;
    out->status_error = status_error;
    return 0;
}

/* The inputs an error of a stage names (and an out-of-memory error there). */
static const char *in_etrecord(const mlia_session *s) { return s->opts->etrecord_path; }
static const char *in_etdump(const mlia_session *s) { return s->etdump_paths ? s->etdump_paths[0] : NULL; }
static const char *in_companion(const mlia_session *s) { return s->opts->companion_path; }
static bool with_companion(const mlia_session *s) { return s->has_companion; }

/* One stage of `mlia check`. */
typedef struct check_stage {
    const char *name;                            /* "stage <name>: <ms> ms" in logs/mlia.log */
    int (*run)(mlia_session *s, mlia_error *err);
    const char *(*input)(const mlia_session *s); /* the file its errors name */
    bool (*applies)(const mlia_session *s);      /* NULL: always; else an optional stage */
    const char *progress;                        /* the progress callback's text on entry, or NULL */
} check_stage;

static const check_stage STAGES[] = {
    {"open inputs", stage_open, in_etrecord, NULL, "reading ETRecord"},
    {"read inputs", stage_read, in_etrecord, NULL, "reading ETDump"},
    {"read companion", stage_companion_read, in_companion, with_companion, NULL},
    {"runtime analysis", stage_runtime, in_etrecord, NULL, NULL},          /* the method's maps and program */
    {"locate companion delegate", stage_companion_locate, in_companion, with_companion, NULL},
    {"backends", stage_backends, in_etdump, NULL, "decoding statistics"}, /* their records in the ETDump */
    {"check companion", stage_companion_check, in_etrecord, with_companion, NULL},
    {"intermediate outputs", stage_accuracy, in_etrecord, NULL, NULL},
    {"memory view", stage_memory, in_companion, with_companion, NULL},
    {"results", stage_results, in_etrecord, NULL, NULL},
    {"advice", stage_advice, in_etrecord, NULL, NULL},
    {"outputs", stage_outputs, in_etrecord, NULL, NULL},
};

#define N_STAGES ((uint32_t)(sizeof STAGES / sizeof STAGES[0]))

mlia_session *check_session_new(const mlia_check_config *opts, size_t memory_limit)
{
    mlia_session *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    mlia_arena_init(&s->arena);
    s->opts = opts;
    s->arena.limit = memory_limit;
    s->stage_file = opts->etrecord_path;
    return s;
}

int check_session_run(mlia_session *s, check_outputs *out, mlia_error *err)
{
    s->out = out;
    s->stage_ms = mlia_arena_array(&s->arena, N_STAGES, sizeof *s->stage_ms);
    for (uint32_t i = 0; i < N_STAGES; i++) {
        const check_stage *st = &STAGES[i];
        s->stage_ms[i] = 0;
        if (st->applies && !st->applies(s))
            continue;
        if (st->progress)
            progress(s, st->progress);
        s->stage_file = st->input(s);
        double t0 = now_ms();
        if (st->run(s, err))
            return 1;
        s->stage_ms[i] = now_ms() - t0;
        if (i + 1 < N_STAGES) /* the output stage has written the log already */
            mlia_log_add(s, "stage %s: %.3f ms", st->name, s->stage_ms[i]);
    }
    return 0;
}

const char *check_session_stage_file(const mlia_session *s)
{
    return s->stage_file;
}

void check_session_abort_outputs(mlia_session *s)
{
    if (s->outdir) {
        mlia_outdir_abort(s->outdir);
        s->outdir = NULL;
    }
}

void check_session_free(mlia_session *s)
{
    if (!s)
        return;
    join_worker(s); /* before its inputs and arenas go */
    if (s->job) {
        pthread_cond_destroy(&s->job->cv);
        pthread_mutex_destroy(&s->job->mu);
    }
    history_close(s->history);
    mlia_file_close(&s->etrecord_file);
    captures_free(s);
    mlia_file_close(&s->companion_file);
    mlia_file_close(&s->debug_file);
    mlia_file_close(&s->ref_etdump_file);
    mlia_file_close(&s->ref_debug_file);
    runtime_prescan_free(s->prescan);
    if (s->worker_arena)
        mlia_arena_free(s->worker_arena);
    mlia_arena_free(&s->arena);
    free(s);
}
