/*
 * captures.c - the ETDumps of a check run: --profiling-data given once or
 * several times (docs/captures.md).
 *
 * Several captures are analysed as one sample set. Each capture's executions
 * of the selected method are found on their own (the method's maps decide,
 * as for one capture), the first N of each are left out as warm-up, and the
 * kept ones are pooled: s->dump becomes etdump_pool() of the captures, where
 * run k of capture i is run first_run(i) + k. The analyses, the trace and
 * the companion checks then read the pool exactly as they read one ETDump,
 * and every event is still decoded from its own capture's bytes.
 *
 * One capture without warm-up takes the same path as before captures could
 * be pooled (same messages, same outputs).
 *
 * Ownership: the capture arrays are calloc'ed by captures_open() and
 * released by captures_free(); selections and the pool live in the session
 * arena.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "analysis/runtime.h"
#include "backends/registry.h"
#include "core/sha256.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/pte.h"
#include "pipeline/stages.h"

/* A capture that is no ETDump may be a backend's container of one (e.g.
 * the Ethos-U runner's console log, docs/delegates.md): the first
 * registered backend that recognises it gives the ETDump bytes, which
 * replace the mapping; the digest stays the file's own. */
static int unwrap(mlia_session *s, uint32_t i, mlia_error *err)
{
    mlia_file *f = &s->etdump_files[i];
    if (!f->size || pte_file_kind(f->data, f->size))
        return 0;
    for (uint32_t b = 0; b < mlia_backend_count(); b++) {
        const mlia_backend *be = mlia_backend_at(b);
        if (!be->unwrap_capture)
            continue;
        const uint8_t *bytes;
        size_t n;
        void *extra = NULL;
        int r = be->unwrap_capture(f->data, f->size, s->etdump_paths[i], &s->arena, &bytes, &n, &extra, err);
        if (r < 0)
            return -1;
        if (r == 0)
            continue;
        mlia_sha256_hex(f->data, f->size, s->captures[i].digest.sha256); /* the file given */
        mlia_file_close(f);
        f->path = s->etdump_paths[i];
        f->data = bytes; /* arena memory: mapped 0, nothing to free or release */
        f->size = n;
        f->mapped = 0;
        f->fd = -1;
        s->capture_backend[i] = b + 1;
        s->capture_extra[i] = extra;
        mlia_log_add(s, "capture %s: %s container, %zu bytes of ETDump", s->etdump_paths[i], be->label, n);
        return 0;
    }
    return 0;
}

int captures_open(mlia_session *s, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    /* at least one: the options were resolved (pipeline/options.c) */
    s->n_captures = (uint32_t)o->n_etdump_paths;
    s->etdump_paths = o->etdump_paths;
    s->etdump_files = calloc(s->n_captures, sizeof *s->etdump_files);
    s->captures = calloc(s->n_captures, sizeof *s->captures);
    s->dumps = calloc(s->n_captures, sizeof *s->dumps);
    s->capture_backend = calloc(s->n_captures, sizeof *s->capture_backend);
    s->capture_extra = calloc(s->n_captures, sizeof *s->capture_extra);
    if (!s->etdump_files || !s->captures || !s->dumps || !s->capture_backend || !s->capture_extra)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, NULL, "out of memory");
    for (uint32_t i = 0; i < s->n_captures; i++)
        s->etdump_files[i].fd = -1; /* closable before being opened */
    for (uint32_t i = 0; i < s->n_captures; i++) {
        const char *path = s->etdump_paths[i];
        if (!path)
            return mlia_error_setf(err, NULL, "the path of ETDump %u is missing", i + 1);
        /* the ETDump is mapped and streamed (formats/etdump.h): memory
         * follows the graph and the runs, not the events */
        mlia_file *f = &s->etdump_files[i];
        if (mlia_file_map(f, path, err))
            return -1;
        mlia_input_digest *d = &s->captures[i].digest;
        d->path = path;
        const char *b = strrchr(path, '/');
        d->name = b ? b + 1 : path;
        d->size = f->size;
        if (unwrap(s, i, err))
            return -1;
        /* the same file twice would count its executions twice */
        struct stat st;
        if (s->n_captures > 1 && stat(path, &st) == 0)
            for (uint32_t j = 0; j < i; j++) {
                struct stat sj;
                if (stat(s->etdump_paths[j], &sj) == 0 && sj.st_dev == st.st_dev && sj.st_ino == st.st_ino)
                    return mlia_error_setf(err, path,
                                           "the same file as %s: a capture given twice would count its "
                                           "executions twice",
                                           s->etdump_paths[j]);
            }
    }
    return 0;
}

void captures_free(mlia_session *s)
{
    for (uint32_t i = 0; s->etdump_files && i < s->n_captures; i++)
        mlia_file_close(&s->etdump_files[i]);
    free(s->etdump_files);
    free(s->captures);
    free(s->dumps);
    free(s->capture_backend);
    free(s->capture_extra);
    s->capture_backend = NULL;
    s->capture_extra = NULL;
    s->etdump_files = NULL;
    s->captures = NULL;
    s->dumps = NULL;
}

uint32_t mlia_session_capture_of(const mlia_session *s, uint32_t run, uint32_t *local_run)
{
    uint32_t lo = 0, hi = s->n_captures;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->captures[mid].first_run <= run)
            lo = mid;
        else
            hi = mid;
    }
    *local_run = run - (s->n_captures ? s->captures[lo].first_run : 0);
    return lo;
}

/* With several methods, several captures and no method option: which
 * capture holds which method, for the error message. */
static int methods_per_capture(mlia_session *s, mlia_error *err)
{
    const etrecord *etr = s->etrecord;
    mlia_buf list, m;
    mlia_buf_init(&list);
    mlia_buf_init(&m);
    for (uint32_t i = 0; i < etr->n_methods && i < 10; i++)
        mlia_buf_printf(&list, "%s%s", i ? ", " : "", etr->methods[i].name);
    if (etr->n_methods > 10)
        mlia_buf_printf(&list, " and %u more", etr->n_methods - 10);
    mlia_buf_puts(&list, "); select one with --neural-technology-profiling-data.etrecord-method (");
    for (uint32_t i = 0; i < s->n_captures; i++) {
        m.len = 0;
        if (m.data)
            m.data[0] = 0;
        int n = runtime_capture_methods(etr, s->dumps[i], s->companion, &m, err);
        if (n < 0) {
            mlia_buf_free(&list);
            mlia_buf_free(&m);
            return -1;
        }
        if (i)
            mlia_buf_puts(&list, "; ");
        if (n)
            mlia_buf_printf(&list, "%s holds %s", s->captures[i].digest.name, m.data);
        else
            mlia_buf_printf(&list, "%s holds no execution of a recorded method", s->captures[i].digest.name);
    }
    mlia_error_setf(err, s->opts->etrecord_path, "the ETRecord records several methods (%s)", list.data);
    mlia_buf_free(&list);
    mlia_buf_free(&m);
    return -1;
}

int captures_select(mlia_session *s, method_selection *out, mlia_error *err)
{
    const mlia_check_config *o = s->opts;
    uint32_t n = s->n_captures;
    bool several = n > 1;
    if (several && !o->method && s->etrecord->n_methods > 1)
        return methods_per_capture(s, err);
    method_selection *sel = mlia_arena_array(&s->arena, n, sizeof *sel);
    mlia_buf misfit;
    mlia_buf_init(&misfit);
    uint32_t misfit_capture = UINT32_MAX, fitting_capture = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        s->stage_file = s->captures[i].digest.path;
        if (!several) {
            if (runtime_select_method(s->etrecord, o->etrecord_path, o->method, s->dumps[i], s->companion,
                                      &s->arena, &s->result, &sel[i], err))
                return -1;
            continue;
        }
        /* the capture's own warnings, named after it */
        mlia_result tmp;
        mlia_result_init(&tmp, &s->arena);
        size_t before = misfit.len;
        if (runtime_select_method_capture(s->etrecord, o->etrecord_path, o->method, s->dumps[i], s->companion,
                                          &s->arena, &tmp, &sel[i], &misfit, err)) {
            mlia_buf_free(&misfit);
            return -1;
        }
        for (uint32_t k = 0; k < tmp.n_warnings; k++)
            mlia_result_warnf(&s->result, "%s: %s", s->captures[i].digest.name, tmp.warnings[k]);
        if (sel[i].n_executions && fitting_capture == UINT32_MAX)
            fitting_capture = i;
        if (!sel[i].n_executions && sel[i].n_unmatched && misfit_capture == UINT32_MAX)
            misfit_capture = i;
        else if (misfit.len != before) {
            misfit.len = before; /* only the first misfit is reported */
            misfit.data[before] = 0;
        }
    }
    s->stage_file = o->etrecord_path;
    if (misfit_capture != UINT32_MAX) {
        const mlia_input_digest *bad = &s->captures[misfit_capture].digest;
        if (fitting_capture != UINT32_MAX)
            mlia_error_setkf(err, MLIA_ERROR_KIND_MISMATCH, bad->path,
                            "not recorded from the same program as %s: no execution fits method '%s' of the "
                            "ETRecord (%s)",
                            s->captures[fitting_capture].digest.name, sel[misfit_capture].name, misfit.data);
        else
            mlia_error_setkf(err, MLIA_ERROR_KIND_MISMATCH, bad->path,
                             "not recorded from the program of %s: no execution fits method '%s' (%s); "
                             RUNTIME_MISMATCH_FIX,
                             o->etrecord_path, sel[misfit_capture].name, misfit.data);
        mlia_buf_free(&misfit);
        return -1;
    }
    mlia_buf_free(&misfit);

    /* warm-up: the first executions of each capture */
    uint32_t total = 0, warm = 0, runs = 0;
    for (uint32_t i = 0; i < n; i++) {
        mlia_capture_info *c = &s->captures[i];
        c->n_runs = s->dumps[i]->n_runs;
        c->first_run = runs;
        runs += c->n_runs;
        uint32_t w = s->warmup_executions;
        if (w && sel[i].n_executions && w >= sel[i].n_executions)
            return mlia_error_setf(err, c->digest.path,
                                   "%u warm-up execution(s) requested, but the capture holds only %u execution(s) "
                                   "of method '%s'",
                                   w, sel[i].n_executions, sel[i].name);
        if (w > sel[i].n_executions)
            w = sel[i].n_executions;
        c->n_warmup = w;
        c->warmup_runs = sel[i].execution_runs;
        c->n_executions = sel[i].n_executions - w;
        c->execution_runs = sel[i].execution_runs + w;
        total += c->n_executions;
        warm += w;
        if (several && !sel[i].n_executions)
            mlia_result_warnf(&s->result, "%s holds no execution of method '%s'; it adds nothing to the analysis.",
                              c->digest.name, sel[i].name);
    }

    /* the pool: one dump, executions in capture order */
    if (several) {
        const etdump **ds = mlia_arena_array(&s->arena, n, sizeof *ds);
        for (uint32_t i = 0; i < n; i++)
            ds[i] = s->dumps[i];
        etdump_pool(ds, n, &s->arena, &s->dump);
    } else {
        s->dump = s->dumps[0];
    }
    *out = sel[0];
    out->n_executions = total;
    out->execution_runs = mlia_arena_array(&s->arena, total ? total : 1, sizeof(uint32_t));
    s->execution_capture = mlia_arena_array(&s->arena, total ? total : 1, sizeof(uint32_t));
    s->warmup_runs = mlia_arena_array(&s->arena, warm ? warm : 1, sizeof(uint32_t));
    s->n_warmup = 0;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const mlia_capture_info *c = &s->captures[i];
        for (uint32_t x = 0; x < c->n_warmup; x++)
            s->warmup_runs[s->n_warmup++] = c->first_run + c->warmup_runs[x];
        for (uint32_t x = 0; x < c->n_executions; x++) {
            s->execution_capture[k] = i;
            out->execution_runs[k++] = c->first_run + c->execution_runs[x];
        }
    }
    return 0;
}
