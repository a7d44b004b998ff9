/*
 * history.c - mlia_history_list(), the public face of the `mlia history`
 * pipeline (src/pipeline/history.c), run through the entry guard. The
 * public options are read into the option set of pipeline/options.h and
 * checked by the command line's rules (usage error: return 2); the pipeline
 * gets only the resolved configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/guard.h"
#include "core/alloc.h"
#include "mlia/mlia.h"
#include "pipeline/history.h"
#include "pipeline/options.h"

typedef struct history_call {
    history_session hs;
    const mlia_history_options *opts;
    mlia_opt_set set;
    mlia_history_config cfg;
    mlia_history_output *out;
} history_call;

/* The struct's members as option values (0 / NULL: not given). 0, or 2. */
static int read_options(const mlia_history_options *o, mlia_opt_set *set, char *msg, size_t n)
{
    if (o->version > MLIA_HISTORY_OPTIONS_VERSION) {
        snprintf(msg, n, "mlia_history_options.version %u is newer than this library's (%u)", o->version,
                 MLIA_HISTORY_OPTIONS_VERSION);
        return 2;
    }
    mlia_opt_set_init(set, MLIA_CMD_HISTORY, false);
    const struct {
        mlia_opt_id id;
        const char *text;
    } texts[] = {
        {MLIA_OPT_HIST_LOCATION, o->location && *o->location ? o->location : NULL},
        {MLIA_OPT_HIST_PROGRAM, o->program},
        {MLIA_OPT_HIST_MODEL, o->model},
        {MLIA_OPT_HIST_METRIC, o->metric},
        {MLIA_OPT_HIST_ENTITY, o->entity},
        {MLIA_OPT_HIST_FORMAT, o->format},
        {MLIA_OPT_HIST_OUTPUT_DIR, o->output_dir},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (texts[i].text && mlia_opt_set_text(set, texts[i].id, texts[i].text, msg, n))
            return 2;
    if (o->n_labels > 0 && !o->labels)
        return snprintf(msg, n, "mlia_history_list: opts->labels is NULL"), 2;
    for (int i = 0; i < o->n_labels; i++)
        if (mlia_opt_set_text(set, MLIA_OPT_HIST_LABEL, o->labels[i] ? o->labels[i] : "", msg, n))
            return 2;
    if (o->last && mlia_opt_set_number(set, MLIA_OPT_HIST_LAST, o->last, NULL, msg, n))
        return 2;
    if (o->memory_limit &&
        mlia_opt_set_number(set, MLIA_OPT_HIST_MEMORY_LIMIT, (double)o->memory_limit, NULL, msg, n))
        return 2;
    return 0;
}

static int history_body(void *ctx, mlia_error *err, char **message)
{
    history_call *c = ctx;
    char msg[4096];
    if (read_options(c->opts, &c->set, msg, sizeof msg) || mlia_history_resolve(&c->set, &c->cfg, msg, sizeof msg)) {
        *message = mlia_guard_usage(msg);
        return 2;
    }
    c->cfg.console_width = c->opts->console_width;
    if (c->cfg.memory_limit)
        c->hs.arena.limit = c->cfg.memory_limit;
    history_outputs res;
    memset(&res, 0, sizeof res);
    int rc = history_session_run(&c->hs, &c->cfg, &res, err);
    c->out->text = res.text;
    c->out->page_path = res.page_path;
    c->out->n_runs = res.n_runs;
    if (rc && !err->set)
        mlia_error_setf(err, NULL, "history query failed");
    return rc;
}

static void history_on_oom(void *ctx)
{
    history_session_abort_outputs(&((history_call *)ctx)->hs);
}

int mlia_history_options_init(mlia_history_options *opts, unsigned version)
{
    if (!opts || version == 0 || version > MLIA_HISTORY_OPTIONS_VERSION)
        return -1;
    memset(opts, 0, sizeof *opts);
    opts->version = version;
    return 0;
}

int mlia_history_list(const mlia_history_options *opts, mlia_history_output *out, char **error)
{
    const char *null_arg = !opts ? "mlia_history_list: opts is NULL" : !out ? "mlia_history_list: out is NULL" : NULL;
    if (null_arg) {
        if (out)
            memset(out, 0, sizeof *out);
        return mlia_guard_fail(error, 2, null_arg);
    }
    memset(out, 0, sizeof *out);
    if (error)
        *error = NULL;
    mlia_ledger led; /* core/alloc.h */
    mlia_ledger_open(&led);
    /* ~33 KB (the option set): on the heap */
    history_call *c = calloc(1, sizeof *c);
    if (!c) {
        mlia_ledger_close(&led, false);
        return mlia_guard_fail(error, MLIA_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    c->opts = opts;
    c->out = out;
    history_session_init(&c->hs, mlia_guard_cap(NULL, 0));
    mlia_guard g = {opts->location, &MLIA_OOM_COMPARISON, NULL, history_on_oom};
    int rc = mlia_guard_run(&g, history_body, c, error);
    history_session_free(&c->hs);
    free(c);
    if (rc)
        mlia_history_output_free(out);
    mlia_ledger_close(&led, rc != 0);
    return rc;
}

void mlia_history_output_free(mlia_history_output *out)
{
    if (!out)
        return;
    free(out->text);
    free(out->page_path);
    memset(out, 0, sizeof *out);
}
