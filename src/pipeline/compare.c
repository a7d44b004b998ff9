/*
 * compare.c - the `mlia compare BASELINE NEW` pipeline (docs/compare.md):
 * locate and read both results (and their pages), check that they are runs
 * of the same kind, compare (analysis/compare.c) and write compare.json and
 * compare.html (report/compare/). Public entry points: mlia_compare() and
 * mlia_compare_json() in src/api/compare.c.
 */
#include "pipeline/compare.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analysis/compare.h"
#include "core/file.h"
#include "core/json_read.h"
#include "core/json_write.h"
#include "report/compare/compare_out.h"

#define RESULT_NAME "mlia-output.json"
#define PAGE_REL "model-explorer/bundle/index.html"
#define DATA_OPEN "<script type=\"application/json\" id=\"mlia-data\">"

static bool is_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

/* Path of the mlia-output.json a side designates (arena string). */
static const char *locate(const char *path, mlia_arena *a, mlia_error *err)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return mlia_error_setf(err, path, "%s", strerror(errno)), NULL;
    if (!S_ISDIR(st.st_mode))
        return path;
    const char *direct = mlia_arena_printf(a, "%s/" RESULT_NAME, path);
    if (is_file(direct))
        return direct;
    const char *nested = mlia_arena_printf(a, "%s/mlia-output/" RESULT_NAME, path);
    if (is_file(nested))
        return nested;
    return mlia_error_setf(err, path, "not an mlia output (no %s in the folder)", RESULT_NAME), NULL;
}

static int read_side(const char *path, compare_input *s, mlia_arena *a, mlia_error *err)
{
    memset(s, 0, sizeof *s);
    s->json_path = locate(path, a, err);
    if (!s->json_path)
        return -1;
    if (mlia_file_slurp(s->json_path, &s->text, &s->len, err))
        return -1;
    if (result_doc_read(s->text, s->len, s->json_path, a, &s->doc, err))
        return -1;
    /* the run's page, next to mlia-output.json */
    const char *slash = strrchr(s->json_path, '/');
    const char *page = slash ? mlia_arena_printf(a, "%.*s/" PAGE_REL, (int)(slash - s->json_path), s->json_path)
                             : PAGE_REL;
    if (!is_file(page))
        return 0;
    if (mlia_file_slurp(page, &s->page, &s->page_len, err))
        return -1;
    /* The page data is copied into compare.html as it is: it must be what our
     * writer produces, one JSON object with <, > and & escaped, so nothing in
     * it can change how the HTML around it is parsed. */
    const char *open = strstr(s->page, DATA_OPEN);
    const char *start = open ? open + strlen(DATA_OPEN) : NULL;
    const char *end = start ? strstr(start, "</script>") : NULL;
    if (!end || end == start || *start != '{')
        return mlia_error_setf(err, page, "not an mlia page (no page data)");
    size_t len = (size_t)(end - start);
    if (memchr(start, '<', len) || memchr(start, '>', len) || memchr(start, '&', len))
        return mlia_error_setf(err, page, "not an mlia page (unescaped markup in the page data)");
    mlia_json *doc = NULL;
    mlia_error perr;
    mlia_error_clear(&perr);
    mlia_json_opts jo = {false, 0};
    if (mlia_json_parse(start, len, &jo, a, &doc, NULL, &perr) || doc->type != MLIA_JSON_OBJECT)
        return mlia_error_setf(err, page, "not an mlia page (%s)", perr.set ? perr.text : "page data is not an object");
    s->data = start;
    s->data_len = len;
    return 0;
}

static void free_side(compare_input *s)
{
    free(s->text);
    free(s->page);
}

static bool same(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static void warn(compare_session *cs, const char *fmt, const char *a, const char *b, const char *c)
{
    if (cs->n_warnings == COMPARE_MAX_WARNINGS)
        return;
    cs->warnings[cs->n_warnings++] = mlia_arena_printf(&cs->arena, fmt, a, b, c);
}

/* Identity (docs/compare.md "Identity"): the same schema, and the same
 * program by fingerprint whatever the files are called. */
static int check_identity(compare_session *cs, const compare_input *b, const compare_input *n, bool allow,
                          mlia_error *err)
{
    if (!same(b->doc.schema_version, n->doc.schema_version))
        return mlia_error_setf(err, n->json_path,
                               "schema version %s differs from the baseline's %s (%s); compare outputs of the "
                               "same schema",
                               n->doc.schema_version, b->doc.schema_version, b->json_path);
    char what[1024];
    compare_identity id = compare_programs(&b->doc, &n->doc, what, sizeof what);
    if (id == COMPARE_DIFFERENT_PROGRAMS && !allow)
        return mlia_error_setf(err, n->json_path,
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

/* Write `len` bytes to dir/name through a temporary file and a rename. */
static int write_file(const char *dir, const char *name, const char *data, size_t len, mlia_arena *a, char **final,
                      mlia_error *err)
{
    const char *path = mlia_arena_printf(a, "%s/%s", dir, name);
    const char *tmp = mlia_arena_printf(a, "%s/.%s.tmp-%ld", dir, name, (long)getpid());
    FILE *fp = fopen(tmp, "wb");
    if (!fp)
        return mlia_error_setf(err, path, "cannot write: %s", strerror(errno));
    bool ok = fwrite(data, 1, len, fp) == len;
    ok = (fclose(fp) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return mlia_error_setf(err, path, "write failed: %s", strerror(e));
    }
    *final = strdup(path);
    return 0;
}

static int prepare_dir(const char *dir, mlia_error *err)
{
    struct stat st;
    if (stat(dir, &st) == 0)
        return S_ISDIR(st.st_mode) ? 0 : mlia_error_setf(err, dir, "exists and is not a directory");
    if (errno != ENOENT || mkdir(dir, 0755) != 0)
        return mlia_error_setf(err, dir, "%s", strerror(errno));
    return 0;
}

int compare_session_run(compare_session *cs, const mlia_compare_options *opts, mlia_compare_output *out,
                        mlia_error *err)
{
    mlia_arena *arena = &cs->arena;
    compare_input *b = &cs->baseline, *n = &cs->new_run;
    int rc = -1;
    double threshold = opts->threshold < 0 ? COMPARE_DEFAULT_THRESHOLD : opts->threshold;
    if (read_side(opts->baseline, b, arena, err) || read_side(opts->new_run, n, arena, err) ||
        check_identity(cs, b, n, opts->allow_different_programs != 0, err))
        goto done;

    compare_result cr;
    compare_run(&b->doc, &n->doc, threshold, arena, &cr);
    compare_inputs in = {b->json_path, n->json_path, &b->doc, &n->doc, cs->warnings, cs->n_warnings};
    mlia_buf json;
    mlia_buf_init(&json);
    mlia_jw w;
    mlia_jw_init_buf(&w, &json, true);
    compare_write_json(&in, &cr, &w);
    size_t json_len = json.len;
    out->json = mlia_buf_take(&json);
    out->console = compare_console(&in, &cr);
    out->regressions = cr.counts[COMPARE_REGRESSION];
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
    out->improvements = cr.counts[COMPARE_IMPROVEMENT];
    if (opts->output_dir) {
        if (prepare_dir(opts->output_dir, err) ||
            write_file(opts->output_dir, "compare.json", out->json, json_len, arena, &out->json_path, err))
            goto done;
        if (b->data && n->data) {
            mlia_buf page;
            mlia_buf_init(&page);
            int prc = compare_write_page(&in, &cr, b->data, b->data_len, n->data, n->data_len, &page);
            if (!prc)
                prc = write_file(opts->output_dir, "compare.html", page.data, page.len, arena, &out->page_path,
                                 err);
            else
                mlia_error_setf(err, n->json_path, "the run's page data could not be read");
            mlia_buf_free(&page);
            if (prc)
                goto done;
        }
    }
    rc = 0;
done:
    return rc ? 1 : 0;
}

void compare_session_init(compare_session *cs, size_t memory_limit)
{
    memset(cs, 0, sizeof *cs);
    mlia_arena_init(&cs->arena);
    cs->arena.limit = memory_limit;
}

void compare_session_free(compare_session *cs)
{
    free_side(&cs->baseline);
    free_side(&cs->new_run);
    mlia_arena_free(&cs->arena);
}
