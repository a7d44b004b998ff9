/*
 * compare.c - the `mlia compare BASELINE NEW` pipeline (docs/compare.md):
 * locate and read the runs (and their pages) as bounded streams, check that
 * they are runs of the same program, compare (analysis/compare.c) and write
 * DIR/compare/{compare.json,compare.html} (report/compare/) as one folder
 * swapped into place. Public entry points: mlia_compare() and
 * mlia_compare_json() in src/api/compare.c.
 */
#include "pipeline/compare.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "core/json_write.h"
#include "history/history.h"
#include "pipeline/inputs.h"
#include "report/compare/compare_out.h"

#define RESULT_NAME "mlia-output.json"
#define PAGE_REL "model-explorer/bundle/index.html"

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Path of the mlia-output.json a run designates (arena string). */
static const char *locate(const char *path, mlia_arena *a, mlia_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, path, "%s", strerror(errno)), NULL;
    if (!S_ISDIR(st.st_mode)) {
        /* an input of mlia check given in a run's place (issue 29, 6) */
        const char *kind = mlia_input_kind_name(mlia_input_kind(path));
        if (kind)
            return mlia_error_setkf(err, MLIA_ERROR_KIND_FORMAT, path,
                                    "is %s, not an mlia output: give the folder mlia check wrote (DIR/mlia-output, "
                                    "or DIR) or its mlia-output.json",
                                    kind),
                   NULL;
        return path;
    }
    const char *direct = mlia_arena_printf(a, "%s/" RESULT_NAME, path);
    if (is_file(direct))
        return direct;
    const char *nested = mlia_arena_printf(a, "%s/mlia-output/" RESULT_NAME, path);
    if (is_file(nested))
        return nested;
    return mlia_error_setf(err, path, "not an mlia output (no %s in the folder)", RESULT_NAME), NULL;
}

/* The folder holding a file path ("." for a bare name). */
static const char *folder_of(const char *file, mlia_arena *a)
{
    const char *slash = strrchr(file, '/');
    if (!slash)
        return ".";
    if (slash == file)
        return "/";
    return mlia_arena_strndup(a, file, (size_t)(slash - file));
}

static int read_run(const char *path, compare_input *s, mlia_arena *a, mlia_error *err)
{
    s->json_path = locate(path, a, err);
    if (!s->json_path)
        return -1;
    /* kept in s until read: an out-of-memory jump out of the reader leaves
     * it to compare_session_free */
    s->json_fd = result_open_input(s->json_path, COMPARE_MAX_INPUT, "an mlia output", NULL, err);
    if (s->json_fd < 0)
        return mlia_error_mark(err, MLIA_ERROR_KIND_IO);
    int rc = result_doc_read_fd(s->json_fd, s->json_path, a, &s->doc, err);
    close(s->json_fd);
    s->json_fd = -1;
    if (rc)
        return mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT);
    /* the run's page, next to mlia-output.json */
    const char *page = mlia_arena_printf(a, "%s/" PAGE_REL, folder_of(s->json_path, a));
    struct stat st;
    if (stat(page, &st) != 0 && errno == ENOENT)
        return 0;
    s->page_fd = result_open_input(page, COMPARE_MAX_INPUT, "an mlia page", NULL, err);
    if (s->page_fd < 0)
        return -1;
    s->page_path = page;
    return result_page_data(s->page_fd, page, NULL, NULL, err);
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void warn(compare_session *cs, const char *fmt, const char *a, const char *b, const char *c)
{
    if (cs->n_warnings == COMPARE_MAX_WARNINGS)
        cs->n_warnings--; /* the last slot holds the latest */
    cs->warnings[cs->n_warnings++] = mlia_arena_printf(&cs->arena, fmt, a, b, c);
}

/* Identity (docs/compare.md "Identity"): the same schema, and the same
 * program by fingerprint whatever the files are called. */
static int check_identity(compare_session *cs, const compare_input *b, const compare_input *n, bool allow,
                          compare_identity *idp, mlia_error *err)
{
    if (!same(b->doc.schema_version, n->doc.schema_version))
        return mlia_error_setf(err, n->json_path,
                               "schema version %s differs from the baseline's %s (%s); compare outputs of the "
                               "same schema",
                               n->doc.schema_version, b->doc.schema_version, b->json_path);
    char what[1024];
    compare_identity id = compare_programs(&b->doc, &n->doc, what, sizeof what);
    *idp = id;
    if (id == COMPARE_DIFFERENT_PROGRAMS && !allow)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_MISMATCH, n->json_path,
                               "a different program from the baseline's (%s): %s; compare runs of the same "
                               "program, or add --allow-different-programs to compare them by entity id",
                               b->json_path, what);
    if (id == COMPARE_DIFFERENT_PROGRAMS)
        warn(cs, "%s: a different program from the baseline's (%s): %s; compared by entity id "
                 "(--allow-different-programs)", n->json_path, b->json_path, what);
    else if (id == COMPARE_UNVERIFIED)
        warn(cs, "%s: no program fingerprint (written by an older mlia); assumed to be the same program as %s "
                 "because the method is the same%s",
             !b->doc.fingerprint.program ? b->json_path : n->json_path,
             !b->doc.fingerprint.program ? n->json_path : b->json_path, "");
    return 0;
}

/* A baseline run's captures (by SHA-256) met in another baseline run: one
 * capture would count twice in the pool (docs/compare.md "Duplicates"). */
static int check_duplicates(const compare_input *bs, uint32_t nb, mlia_error *err)
{
    for (uint32_t j = 1; j < nb; j++)
        for (uint32_t i = 0; i < j; i++) {
            const rr_settings *a = &bs[i].doc.settings, *b = &bs[j].doc.settings;
            for (uint32_t x = 0; x < b->n_captures; x++)
                for (uint32_t y = 0; y < a->n_captures; y++)
                    if (strcmp(b->captures[x], a->captures[y]) == 0)
                        return mlia_error_setf(err, bs[j].json_path,
                                               "analyses the same capture as %s (SHA-256 %.12s); a capture counts "
                                               "once in a pooled baseline: give each run once",
                                               bs[i].json_path, b->captures[x]);
        }
    return 0;
}

/* The new run analysing a capture of the baseline: nothing can have changed. */
static void warn_same_capture(compare_session *cs, const compare_input *b, const compare_input *n)
{
    const rr_settings *a = &b->doc.settings, *c = &n->doc.settings;
    for (uint32_t x = 0; x < c->n_captures; x++)
        for (uint32_t y = 0; y < a->n_captures; y++)
            if (strcmp(c->captures[x], a->captures[y]) == 0) {
                char d[16];
                snprintf(d, sizeof d, "%.12s", c->captures[x]);
                warn(cs, "%s: analyses the same capture as the baseline run %s (SHA-256 %s); the comparison "
                         "measures the analysis, not a change of the model",
                     n->json_path, b->json_path, d);
                return;
            }
}

/* Settings (docs/compare.md "Settings"): the clock and the statistics mode
 * or device make the numbers incomparable (an error unless allowed); the
 * others are warnings. Every difference is kept for compare.json. */
static int check_settings(compare_session *cs, const compare_input *b, const compare_input *n, bool allow,
                          mlia_error *err)
{
    compare_setting diff[COMPARE_N_SETTINGS];
    uint32_t nd = compare_settings(&b->doc, &n->doc, diff, &cs->arena);
    if (!nd)
        return 0;
    mlia_buf what;
    mlia_buf_init(&what);
    bool blocking = false;
    for (uint32_t i = 0; i < nd; i++) {
        mlia_buf_printf(&what, "%s%s %s instead of %s", i ? ", " : "", diff[i].name, diff[i].new_, diff[i].baseline);
        blocking |= diff[i].blocking;
    }
    const char *text = mlia_arena_strndup(&cs->arena, what.data, what.len);
    mlia_buf_free(&what);
    if (blocking && !allow)
        return mlia_error_setf(err, n->json_path,
                               "analysed with other settings than the baseline (%s): %s; the numbers cannot be "
                               "compared: analyse both runs with the same clock and statistics options, or add "
                               "--allow-different-settings",
                               b->json_path, text);
    warn(cs, "%s: analysed with other settings than the baseline (%s): %s", n->json_path, b->json_path, text);
    if (blocking)
        cs->warnings[cs->n_warnings - 1] =
            mlia_arena_printf(&cs->arena, "%s; compared anyway (--allow-different-settings)",
                              cs->warnings[cs->n_warnings - 1]);
    compare_setting *grown = mlia_arena_array(&cs->arena, cs->n_settings + nd, sizeof *grown);
    if (cs->n_settings)
        memcpy(grown, cs->settings, cs->n_settings * sizeof *grown);
    for (uint32_t i = 0; i < nd; i++) {
        diff[i].run = b->json_path;
        grown[cs->n_settings + i] = diff[i];
    }
    cs->settings = grown;
    cs->n_settings += nd;
    return 0;
}

typedef struct page_job {
    const compare_inputs *in;
    const compare_result *r;
} page_job;

static int write_page(void *ctx, FILE *fp, const char *shown, mlia_error *err)
{
    const page_job *j = ctx;
    return compare_write_page(j->in, j->r, fp, err);
}

/* DIR/compare/ with compare.json (and compare.html when both runs have a
 * page), built aside and swapped in (report/outdir.h): the pair is always
 * the one of the same comparison, and no page of an earlier comparison
 * stays beside a newer compare.json. */
static int write_outputs(compare_session *cs, const char *dir, const compare_inputs *in, const compare_result *r,
                         const char *json, size_t json_len, compare_outputs *out, mlia_error *err)
{
    mlia_outdir *od = &cs->outdir;
    /* open before the folder exists: an out-of-memory jump out of
     * mlia_outdir_begin_named after its mkdir reaches
     * compare_session_abort_outputs, which removes it (a library host never
     * exits, so nothing else would) */
    cs->outdir_open = true;
    if (mlia_outdir_begin_named(dir, COMPARE_OUTDIR_NAME, od, err)) {
        cs->outdir_open = false;
        return -1;
    }
    bool page = in->base_page_fd >= 0 && in->new_page_fd >= 0;
    page_job job = {in, r};
    int rc = mlia_outdir_write(od, "compare.json", json, json_len, err);
    if (!rc && page)
        rc = mlia_outdir_stream(od, "compare.html", write_page, &job, err);
    if (!rc)
        rc = mlia_outdir_commit(od, err);
    if (!rc) {
        const char *final = mlia_outdir_final_path(od);
        size_t n = strlen(final) + 32;
        out->json_path = malloc(n);
        if (out->json_path)
            snprintf(out->json_path, n, "%s/compare.json", final);
        if (page) {
            out->page_path = malloc(n);
            if (out->page_path)
                snprintf(out->page_path, n, "%s/compare.html", final);
        }
    }
    mlia_outdir_abort(od); /* releases od; removes the temporary folder unless committed */
    cs->outdir_open = false;
    return rc;
}

/* A folder that is not a run but holds runs (one level down, hidden
 * entries skipped): their paths in name order, or 0 when it holds none. */
static uint32_t runs_in(const char *dir, mlia_arena *a, const char ***out)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    uint32_t k = 0;
    if (n <= 0) {
        free(names);
        return 0;
    }
    *out = mlia_arena_array(a, (size_t)n, sizeof **out);
    for (int i = 0; i < n; i++) {
        const char *name = names[i]->d_name;
        if (name[0] != '.') {
            const char *sub = mlia_arena_printf(a, "%s/%s", dir, name);
            if (is_file(mlia_arena_printf(a, "%s/" RESULT_NAME, sub)) ||
                is_file(mlia_arena_printf(a, "%s/mlia-output/" RESULT_NAME, sub)))
                (*out)[k++] = sub;
        }
        free(names[i]);
    }
    free(names);
    return k;
}

/* The baseline runs the options name: BASELINE, then every --baseline, a
 * folder of runs standing for the runs it holds. */
static int baseline_runs(const mlia_compare_config *opts, mlia_arena *a, const char ***out, uint32_t *n_out,
                         mlia_error *err)
{
    uint32_t n_args = opts->n_baselines > 0 ? (uint32_t)opts->n_baselines : 0u;
    const char **args = mlia_arena_array(a, n_args ? n_args : 1, sizeof *args);
    uint32_t k = 0;
    for (int i = 0; i < opts->n_baselines; i++)
        args[k++] = opts->baselines[i];
    if (!n_args)
        return mlia_error_setf(err, NULL, "no baseline given");
    /* first pass: how many runs */
    uint32_t total = 0;
    const char ***lists = mlia_arena_array(a, n_args, sizeof *lists);
    uint32_t *counts = mlia_arena_array(a, n_args, sizeof *counts);
    for (uint32_t i = 0; i < n_args; i++) {
        struct stat st;
        counts[i] = 1;
        lists[i] = &args[i];
        if (stat(args[i], &st) == 0 && S_ISDIR(st.st_mode) &&
            !is_file(mlia_arena_printf(a, "%s/" RESULT_NAME, args[i])) &&
            !is_file(mlia_arena_printf(a, "%s/mlia-output/" RESULT_NAME, args[i]))) {
            const char **runs = NULL;
            uint32_t r = runs_in(args[i], a, &runs);
            if (r) {
                counts[i] = r;
                lists[i] = runs;
            }
        }
        total += counts[i];
        if (total > COMPARE_MAX_BASELINES)
            return mlia_error_setf(err, args[i], "more than %u baseline runs", COMPARE_MAX_BASELINES);
    }
    *out = mlia_arena_array(a, total, sizeof **out);
    k = 0;
    for (uint32_t i = 0; i < n_args; i++)
        for (uint32_t j = 0; j < counts[i]; j++)
            (*out)[k++] = lists[i][j];
    *n_out = total;
    return 0;
}

/* The baseline runs of --baseline-history: the newest runs of NEW's program
 * and method (and labels) in the history, NEW itself left out when it was
 * recorded there. Each is named "<history>#<run id>". */
static int history_baselines(compare_session *cs, const mlia_compare_config *opts, mlia_error *err)
{
    mlia_arena *arena = &cs->arena;
    const result_doc *nd = &cs->new_run.doc;
    if (!nd->fingerprint.program)
        return mlia_error_setf(err, cs->new_run.json_path,
                               "no program fingerprint (written by an older mlia): the history gate finds the "
                               "baseline by it; run mlia check again");
    history_label *labels = NULL;
    uint32_t nl = opts->n_history_labels > 0 ? (uint32_t)opts->n_history_labels : 0;
    for (uint32_t i = 0; i < nl; i++)
        if (!history_label_valid(opts->history_labels[i]))
            return mlia_error_setf(err, NULL, "label '%s': expected " HISTORY_LABEL_RULE, opts->history_labels[i]);
    nl = history_labels_split(opts->history_labels, nl, arena, &labels);
    uint32_t last = opts->history_last ? opts->history_last : HISTORY_DEFAULT_BASELINE_LAST;
    if (last > COMPARE_MAX_BASELINES)
        last = COMPARE_MAX_BASELINES;
    if (history_open(opts->baseline_history, false, &cs->history, err))
        return -1;
    /* one more than asked: NEW itself may be among them */
    /* runs analysed with NEW's settings (docs/history.md "The history gate") */
    history_settings st = {nd->settings.ticks_per_second, nd->settings.warmup_executions,
                           nd->settings.statistics_mode != NULL,
                           nd->settings.statistics_mode ? strtoll(nd->settings.statistics_mode, NULL, 10) : 0,
                           nd->settings.statistics_device};
    history_query q = {nd->fingerprint.program, NULL, nd->method, labels, nl, last + 1, NULL, NULL, &st};
    result_doc *docs = NULL;
    const char **ids = NULL;
    uint32_t n = 0;
    if (history_docs(cs->history, &q, arena, &docs, &ids, &n, err))
        return -1;
    const char *shown = mlia_arena_strdup(arena, history_location(cs->history));
    history_close(cs->history);
    cs->history = NULL;
    compare_input *bs = mlia_arena_array(arena, n ? n : 1, sizeof *bs);
    uint32_t k = 0;
    for (uint32_t i = n; i-- > 0 && k < last;) { /* newest first, then back to oldest first */
        if (nd->run_id && strcmp(ids[i], nd->run_id) == 0)
            continue;
        memset(&bs[k], 0, sizeof bs[k]);
        bs[k].page_fd = bs[k].json_fd = -1;
        bs[k].doc = docs[i];
        bs[k].json_path = mlia_arena_printf(arena, "%s#%s", shown, ids[i]);
        k++;
    }
    for (uint32_t i = 0; i < k / 2; i++) {
        compare_input t = bs[i];
        bs[i] = bs[k - 1 - i];
        bs[k - 1 - i] = t;
    }
    if (!k)
        return mlia_error_setf(err, shown, "no recorded run of this program to compare with (fingerprint %.12s, "
                                           "method '%s', the same settings%s)",
                               nd->fingerprint.program, nd->method ? nd->method : "",
                               nl ? ", with the labels given" : "");
    cs->baselines = bs;
    cs->n_baselines = k;
    return 0;
}

int compare_session_run(compare_session *cs, const mlia_compare_config *opts, compare_outputs *out,
                        mlia_error *err)
{
    mlia_arena *arena = &cs->arena;
    double threshold = opts->threshold < 0 ? COMPARE_DEFAULT_THRESHOLD : opts->threshold;
    compare_input *n = &cs->new_run;
    compare_input *bs = NULL;
    uint32_t nb = 0;
    if (opts->baseline_history) {
        /* the baseline from the run history (docs/history.md "The history gate") */
        if (read_run(opts->new_run, n, arena, err) || history_baselines(cs, opts, err))
            return 1;
        bs = cs->baselines;
        nb = cs->n_baselines;
    } else {
        const char **paths = NULL;
        if (baseline_runs(opts, arena, &paths, &nb, err))
            return 1;
        /* counted only once allocated: an out-of-memory jump may come from the allocation */
        bs = mlia_arena_array(arena, nb, sizeof *bs);
        for (uint32_t i = 0; i < nb; i++)
            bs[i].page_fd = bs[i].json_fd = -1;
        cs->baselines = bs;
        cs->n_baselines = nb;
        for (uint32_t i = 0; i < nb; i++)
            if (read_run(paths[i], &bs[i], arena, err))
                return 1;
        if (read_run(opts->new_run, n, arena, err))
            return 1;
    }
    compare_identity identity = COMPARE_SAME_PROGRAM;
    for (uint32_t i = 0; i < nb; i++) {
        compare_identity id;
        if (check_identity(cs, &bs[i], n, opts->allow_different_programs, &id, err))
            return 1;
        if (id > identity)
            identity = id;
    }
    if (check_duplicates(bs, nb, err))
        return 1;
    for (uint32_t i = 0; i < nb; i++) {
        if (check_settings(cs, &bs[i], n, opts->allow_different_settings != 0, err))
            return 1;
        warn_same_capture(cs, &bs[i], n);
    }
    /* several baselines: one pooled document (analysis/compare.h compare_pool) */
    const result_doc **docs = mlia_arena_array(arena, nb, sizeof *docs);
    const char **base_paths = mlia_arena_array(arena, nb, sizeof *base_paths);
    const compare_input *paged = NULL;
    for (uint32_t i = 0; i < nb; i++) {
        docs[i] = &bs[i].doc;
        base_paths[i] = bs[i].json_path;
        if (!paged && bs[i].page_fd >= 0)
            paged = &bs[i];
    }
    result_doc pooled;
    const result_doc *base = docs[0];
    if (nb > 1) {
        compare_pool(docs, nb, arena, &pooled);
        base = &pooled;
    }

    compare_result cr;
    compare_run(base, &n->doc, threshold, arena, &cr);
    compare_inputs in = {bs[0].json_path, n->json_path, base, &n->doc, cs->warnings, cs->n_warnings,
                         paged ? paged->page_path : NULL, paged ? paged->page_fd : -1, n->page_path, n->page_fd,
                         identity, nb, base_paths, docs, cs->n_settings, cs->settings, opts->tested_only != 0};
    mlia_buf json;
    mlia_buf_init(&json);
    mlia_jw w;
    mlia_jw_init_buf(&w, &json, true);
    compare_write_json(&in, &cr, &w);
    size_t json_len = json.len;
    out->json = mlia_buf_take(&json);
    out->console = compare_console(&in, &cr, opts->console_width);
    out->regressions = compare_gate_count(&cr, opts->tested_only != 0);
    out->improvements = cr.ent_counts[COMPARE_IMPROVEMENT] + cr.ent_counts[COMPARE_LIKELY_IMPROVEMENT];
    if (cs->n_warnings) {
        mlia_buf wb;
        mlia_buf_init(&wb);
        for (uint32_t i = 0; i < cs->n_warnings; i++) {
            const char *text = cs->warnings[i];
            size_t wl = strlen(text), cap = wl * 6 + 1;
            char *safe = mlia_arena_alloc(arena, cap);
            mlia_escape_text(safe, cap, text, wl);
            mlia_buf_printf(&wb, "%s\n", safe);
        }
        out->warnings = mlia_buf_take(&wb);
    }
    const char *dir = opts->output_dir ? opts->output_dir
                      : opts->output_beside_new ? folder_of(n->json_path, arena) : NULL;
    if (dir && write_outputs(cs, dir, &in, &cr, out->json, json_len, out, err))
        return mlia_error_mark(err, MLIA_ERROR_KIND_IO), 1;
    return 0;
}

static unsigned long long size_of_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? (unsigned long long)st.st_size : 0;
}

/* One run's result and page; 0 for what cannot be located (the run's
 * reading reports that). */
static unsigned long long run_bytes(const char *path, mlia_arena *a)
{
    mlia_error e;
    mlia_error_clear(&e);
    const char *json = locate(path, a, &e);
    if (!json)
        return 0;
    return size_of_file(json) + size_of_file(mlia_arena_printf(a, "%s/" PAGE_REL, folder_of(json, a)));
}

unsigned long long compare_input_bytes(const mlia_compare_config *opts, mlia_arena *a)
{
    unsigned long long total = 0;
    const char **paths = NULL;
    uint32_t nb = 0;
    mlia_error e;
    mlia_error_clear(&e);
    if (baseline_runs(opts, a, &paths, &nb, &e) == 0)
        for (uint32_t i = 0; i < nb; i++)
            total += run_bytes(paths[i], a);
    if (opts->new_run)
        total += run_bytes(opts->new_run, a);
    return total;
}

void compare_session_init(compare_session *cs, size_t memory_limit)
{
    memset(cs, 0, sizeof *cs);
    mlia_arena_init(&cs->arena);
    cs->arena.limit = memory_limit;
    cs->new_run.page_fd = cs->new_run.json_fd = -1;
    cs->outdir.dir_fd = cs->outdir.tmp_fd = -1;
}

void compare_session_abort_outputs(compare_session *cs)
{
    if (cs->outdir_open) {
        mlia_outdir_abort(&cs->outdir);
        cs->outdir_open = false;
    }
}

void compare_session_free(compare_session *cs)
{
    compare_session_abort_outputs(cs);
    history_close(cs->history);
    cs->history = NULL;
    for (uint32_t i = 0; i <= cs->n_baselines; i++) {
        compare_input *s = i < cs->n_baselines ? &cs->baselines[i] : &cs->new_run;
        if (s->json_fd >= 0)
            close(s->json_fd);
        if (s->page_fd >= 0)
            close(s->page_fd);
    }
    mlia_arena_free(&cs->arena);
}
