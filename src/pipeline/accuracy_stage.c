/*
 * accuracy_stage.c - the intermediate-outputs stage of the check pipeline
 * (docs/accuracy.md).
 *
 * Opens the run's debug buffer and the reference capture (its ETDump is
 * mapped and streamed like the run's, its buffer is read piece by piece),
 * selects the reference's executions of the selected method, and hands
 * everything to accuracy_analyse() (analysis/accuracy.c), which adds the
 * output metrics to the session's result.
 */
#include <string.h>

#include "analysis/accuracy.h"
#include "analysis/runtime.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "pipeline/stages.h"

static const char *basename_of(const char *p)
{
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

static int open_unread(mlia_file *f, mlia_input_digest *d, const char *path, mlia_error *err)
{
    if (mlia_file_open_unread(f, path, err))
        return -1;
    d->path = path;
    d->name = basename_of(path);
    d->size = f->size;
    return 0;
}

int accuracy_open(mlia_session *s, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    /* the options were resolved with their rules (pipeline/options.c): a
     * reference comes with its buffer and the run's, for one ETDump */
    if (o->debug_buffer_path) {
        if (open_unread(&s->debug_file, &s->debug_digest, o->debug_buffer_path, err))
            return -1;
        s->has_debug_buffer = true;
    }
    if (o->reference_etdump_path) {
        if (mlia_file_map(&s->ref_etdump_file, o->reference_etdump_path, err))
            return -1;
        s->ref_etdump_digest.path = o->reference_etdump_path;
        s->ref_etdump_digest.name = basename_of(o->reference_etdump_path);
        s->ref_etdump_digest.size = s->ref_etdump_file.size;
        if (open_unread(&s->ref_debug_file, &s->ref_debug_digest, o->reference_debug_buffer_path, err))
            return -1;
        s->has_reference = true;
    }
    return 0;
}

static int file_read(void *ctx, uint64_t off, void *dst, size_t n, mlia_error *err)
{
    return mlia_file_pread(ctx, off, dst, n, err);
}

/* The reference's executions of the selected method; its warnings are the
 * reference's, so they say so. */
static int select_reference(mlia_session *s, mlia_error *err)
{
    const char *path = s->opts->reference_etdump_path;
    mlia_result scratch;
    mlia_result_init(&scratch, &s->arena);
    method_selection sel;
    if (runtime_select_method(s->etrecord, path, s->method_name, s->ref_dump, NULL, &s->arena, &scratch, &sel,
                              err))
        return -1;
    for (uint32_t i = 0; i < scratch.n_warnings; i++)
        mlia_result_warnf(&s->result, "Reference capture %s: %s", path, scratch.warnings[i]);
    /* the run's warm-up executions are left out of the reference too, so
     * that the executions pair in order (docs/captures.md) */
    uint32_t w = s->warmup_executions < sel.n_executions ? s->warmup_executions : sel.n_executions;
    s->ref_n_executions = sel.n_executions - w;
    s->ref_execution_runs = sel.execution_runs + w;
    return 0;
}

int accuracy_stage(mlia_session *s, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    uint64_t logged = 0;
    for (uint32_t x = 0; x < s->n_executions; x++)
        logged += s->dump->runs[s->execution_runs[x]].n_debug_tensors;
    if (!s->has_debug_buffer && !logged)
        return 0; /* nothing asked, nothing logged: the result is as before */
    if (s->has_reference) {
        s->stage_file = o->reference_etdump_path;
        if (etdump_read_releasing(s->ref_etdump_file.data, s->ref_etdump_file.size, o->reference_etdump_path,
                                  mlia_file_release, &s->ref_etdump_file, &s->arena, &s->ref_dump, err))
            return mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT);
        if (select_reference(s, err))
            return -1;
    }
    debug_buffer run_buf = {o->debug_buffer_path, s->debug_file.size, NULL, file_read, &s->debug_file};
    debug_buffer ref_buf = {o->reference_debug_buffer_path, s->ref_debug_file.size, NULL, file_read,
                            &s->ref_debug_file};
    accuracy_capture ref = {s->ref_dump, "reference", s->ref_execution_runs, s->ref_n_executions, &ref_buf};
    accuracy_inputs in;
    memset(&in, 0, sizeof in);
    in.method = s->method_name;
    in.maps = s->method;
    in.program = s->program;
    in.node_entities = s->runtime ? s->runtime->node_entities : NULL;
    in.run = (accuracy_capture){s->dump, "run", s->execution_runs, s->n_executions,
                                s->has_debug_buffer ? &run_buf : NULL};
    in.reference = s->has_reference ? &ref : NULL;
    s->stage_file = o->debug_buffer_path ? o->debug_buffer_path : s->etdump_paths[0];
    if (accuracy_analyse(&in, &s->result, &s->arena, &s->accuracy, err)) {
        /* a buffer too short for its capture's events most often belongs to
         * the other capture (issue 29, 6): say which goes with which */
        if (err->set && strstr(err->text, "runs past the end of the debug buffer")) {
            size_t len = strlen(err->text);
            snprintf(err->text + len, sizeof err->text - len,
                     s->has_reference ? "; is it this capture's buffer? --debug-buffer goes with --profiling-data, "
                                        "--reference-debug-buffer with --reference-profiling-data"
                                      : "; is it the debug buffer this ETDump's run wrote?");
        }
        return -1;
    }
    const accuracy_analysis *a = s->accuracy;
    mlia_log_add(s, "intermediate outputs: %llu operator output(s), %llu program output(s), %llu unmatched; "
                 "%u entit%s measured, %u compared%s",
                 (unsigned long long)a->n_run_outputs, (unsigned long long)a->n_program_outputs,
                 (unsigned long long)a->n_unmatched, a->n_measured, a->n_measured == 1 ? "y" : "ies",
                 a->n_compared, s->has_reference ? "" : " (no reference)");
    if (s->has_reference)
        mlia_log_add(s, "reference capture %s: %u execution(s), %u paired with the run's", o->reference_etdump_path,
                     s->ref_n_executions, a->n_pairs);
    return 0;
}
