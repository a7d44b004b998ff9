/*
 * history.c - the `mlia history LOCATION` pipeline (docs/history.md): read
 * the runs (history/history.h), write the table, CSV or JSON and, with an
 * output folder, DIR/history/history.html (report/history/) swapped into
 * place like every output folder (report/outdir.h).
 */
#include "pipeline/history.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/history/history_out.h"

typedef struct page_job {
    const history_runs *r;
    const char *location;
} page_job;

static int write_page(void *ctx, FILE *fp, const char *shown, mlia_error *err)
{
    const page_job *j = ctx;
    return history_page(j->r, j->location, fp, err);
}

int history_session_run(history_session *hs, const mlia_history_config *o, history_outputs *out, mlia_error *err)
{
    const char *format = o->format ? o->format : "table";
    if (strcmp(format, "table") != 0 && strcmp(format, "csv") != 0 && strcmp(format, "json") != 0)
        return mlia_error_setf(err, NULL, "format '%s': expected table, csv or json", format), 1;
    history_label *labels = NULL;
    uint32_t nl = o->n_labels > 0 ? (uint32_t)o->n_labels : 0;
    for (uint32_t i = 0; i < nl; i++)
        if (!history_label_valid(o->labels[i]))
            return mlia_error_setf(err, NULL, "label '%s': expected " HISTORY_LABEL_RULE, o->labels[i]), 1;
    nl = history_labels_split(o->labels, nl, &hs->arena, &labels);
    if (history_open(o->location, false, &hs->h, err))
        return 1;
    history_query q = {o->program, o->model, NULL, labels, nl, o->last, o->metric, o->entity, NULL};
    history_runs r;
    if (history_list(hs->h, &q, &hs->arena, &r, err))
        return 1;
    const char *loc = history_location(hs->h);
    if (strcmp(format, "csv") == 0)
        out->text = history_csv(&r);
    else if (strcmp(format, "json") == 0)
        out->text = history_json(&r, loc);
    else
        out->text = history_table(&r, loc, o->console_width ? o->console_width : 100);
    out->n_runs = r.n;
    if (o->output_dir) {
        mlia_outdir *od = &hs->outdir;
        if (mlia_outdir_begin_named(o->output_dir, HISTORY_OUTDIR_NAME, od, err))
            return mlia_error_mark(err, MLIA_ERROR_KIND_IO), 1;
        hs->outdir_open = true;
        page_job job = {&r, loc};
        int rc = mlia_outdir_stream(od, "history.html", write_page, &job, err);
        if (!rc)
            rc = mlia_outdir_commit(od, err);
        if (!rc) {
            const char *final = mlia_outdir_final_path(od);
            size_t n = strlen(final) + 16;
            out->page_path = malloc(n);
            if (out->page_path)
                snprintf(out->page_path, n, "%s/history.html", final);
        }
        mlia_outdir_abort(od);
        hs->outdir_open = false;
        if (rc)
            return mlia_error_mark(err, MLIA_ERROR_KIND_IO), 1;
    }
    return 0;
}

void history_session_init(history_session *hs, size_t memory_limit)
{
    memset(hs, 0, sizeof *hs);
    mlia_arena_init(&hs->arena);
    hs->arena.limit = memory_limit;
    hs->outdir.dir_fd = hs->outdir.tmp_fd = -1;
}

void history_session_abort_outputs(history_session *hs)
{
    if (hs->outdir_open) {
        mlia_outdir_abort(&hs->outdir);
        hs->outdir_open = false;
    }
}

void history_session_free(history_session *hs)
{
    history_session_abort_outputs(hs);
    history_close(hs->h);
    hs->h = NULL;
    mlia_arena_free(&hs->arena);
}
