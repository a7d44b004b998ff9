/*
 * compare.c - mlia_compare() and mlia_compare_json(), the public face of the
 * compare pipeline (src/pipeline/compare.c), run through the entry guard.
 * Both read their options into the option set of pipeline/options.h and
 * check them with the command line's rules; the pipeline gets only the
 * resolved configuration.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/guard.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/json_read.h"
#include "core/oom.h"
#include "mlia/mlia.h"
#include "pipeline/compare.h"
#include "pipeline/options.h"

typedef struct compare_call {
    compare_session cs;
    const mlia_compare_options *opts;
    mlia_opt_set set;
    mlia_compare_config cfg;
    compare_outputs res;
} compare_call;

/* The struct's members as option values; 0, or 2 with msg. */
static int read_options(const mlia_compare_options *o, mlia_opt_set *set, char *msg, size_t n)
{
    if (o->version > MLIA_COMPARE_OPTIONS_VERSION) {
        snprintf(msg, n, "mlia_compare_options.version %u is newer than this library's (%u)", o->version,
                 MLIA_COMPARE_OPTIONS_VERSION);
        return 2;
    }
    mlia_opt_set_init(set, MLIA_CMD_COMPARE, false);
    if (o->baseline && mlia_opt_set_text(set, MLIA_OPT_BASELINE, o->baseline, msg, n))
        return 2;
    for (int i = 0; i < o->n_baselines; i++)
        if (mlia_opt_set_text(set, MLIA_OPT_BASELINE, o->baselines[i] ? o->baselines[i] : "", msg, n))
            return 2;
    if (o->new_run && mlia_opt_set_text(set, MLIA_OPT_NEW, o->new_run, msg, n))
        return 2;
    if (o->output_dir && mlia_opt_set_text(set, MLIA_OPT_CMP_OUTPUT_DIR, o->output_dir, msg, n))
        return 2;
    /* a negative threshold is the default (5 %); NaN and infinities are refused */
    if (!(o->threshold < 0) && mlia_opt_set_number(set, MLIA_OPT_THRESHOLD, o->threshold, NULL, msg, n))
        return 2;
    if (o->allow_different_programs)
        mlia_opt_set_flag(set, MLIA_OPT_ALLOW_DIFFERENT, true);
    if (o->allow_different_settings)
        mlia_opt_set_flag(set, MLIA_OPT_ALLOW_SETTINGS, true);
    if (o->tested_only)
        mlia_opt_set_flag(set, MLIA_OPT_TESTED_ONLY, true);
    if (o->memory_limit &&
        mlia_opt_set_number(set, MLIA_OPT_CMP_MEMORY_LIMIT, (double)o->memory_limit, NULL, msg, n))
        return 2;
    if (o->version < 2)
        return 0; /* the members below came with version 2 */
    if (o->baseline_history && mlia_opt_set_text(set, MLIA_OPT_BASELINE_HISTORY, o->baseline_history, msg, n))
        return 2;
    if (o->history_last && mlia_opt_set_number(set, MLIA_OPT_CMP_LAST, o->history_last, NULL, msg, n))
        return 2;
    if (o->n_history_labels > 0 && !o->history_labels)
        return snprintf(msg, n, "mlia_compare: opts->history_labels is NULL"), 2;
    for (int i = 0; i < o->n_history_labels; i++)
        if (mlia_opt_set_text(set, MLIA_OPT_CMP_LABEL, o->history_labels[i] ? o->history_labels[i] : "", msg, n))
            return 2;
    return 0;
}

static int compare_body(void *ctx, mlia_error *err, char **message)
{
    compare_call *c = ctx;
    char msg[4096];
    if (read_options(c->opts, &c->set, msg, sizeof msg) || mlia_compare_resolve(&c->set, &c->cfg, msg, sizeof msg)) {
        *message = mlia_guard_usage(msg);
        return 2;
    }
    c->cfg.output_beside_new = c->opts->output_beside_new != 0;
    c->cfg.console_width = c->opts->console_width;
    size_t cap = c->cfg.memory_limit;
    if (!cap) {
        /* every run's result and page, pooled baselines included, sizes the
         * memory cap; counted here, inside the recovery point */
        cap = mlia_memory_limit(compare_input_bytes(&c->cfg, &c->cs.arena));
        cap = cap > c->cs.arena.total ? cap : c->cs.arena.total + 1;
    }
    c->cs.arena.limit = cap;
    int rc = compare_session_run(&c->cs, &c->cfg, &c->res, err);
    if (rc && !err->set)
        mlia_error_setf(err, NULL, "comparison failed");
    return rc;
}

/* Out of memory while writing: the temporary compare/ folder goes. */
static void compare_on_oom(void *ctx)
{
    compare_session_abort_outputs(&((compare_call *)ctx)->cs);
}

int mlia_compare_options_init(mlia_compare_options *opts, unsigned version)
{
    if (!opts || version == 0 || version > MLIA_COMPARE_OPTIONS_VERSION)
        return -1;
    memset(opts, 0, sizeof *opts);
    opts->version = version;
    return 0;
}

int mlia_compare(const mlia_compare_options *opts, mlia_compare_output *out, char **error)
{
    /* a NULL where a pointer is needed is a usage error (issue 30 item 3) */
    const char *null_arg = !opts ? "mlia_compare: opts is NULL"
                           : !out ? "mlia_compare: out is NULL"
                           : !opts->new_run ? "mlia_compare: opts->new_run is NULL"
                           : opts->n_baselines > 0 && !opts->baselines ? "mlia_compare: opts->baselines is NULL"
                           : opts->n_baselines <= 0 && !opts->baseline &&
                                   !(opts->version >= 2 && opts->baseline_history)
                               ? "mlia_compare: opts->baseline is NULL"
                                                                       : NULL;
    for (int i = 0; !null_arg && i < opts->n_baselines; i++)
        if (!opts->baselines[i])
            null_arg = "mlia_compare: an element of opts->baselines is NULL";
    if (null_arg) {
        if (out)
            memset(out, 0, sizeof *out);
        return mlia_guard_fail(error, 2, null_arg);
    }
    memset(out, 0, sizeof *out);
    mlia_ledger led; /* core/alloc.h */
    mlia_ledger_open(&led);
    compare_call *c = calloc(1, sizeof *c); /* ~25 KB: the option set */
    if (!c) {
        mlia_ledger_close(&led, false);
        return mlia_guard_fail(error, MLIA_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    c->opts = opts;
    compare_session_init(&c->cs, 0);
    bool by_host = opts->memory_limit != 0 && opts->version <= MLIA_COMPARE_OPTIONS_VERSION;
    mlia_guard g = {opts->new_run, by_host ? &MLIA_OOM_COMPARISON_BY_HOST : &MLIA_OOM_COMPARISON, NULL, compare_on_oom};
    int rc = mlia_guard_run(&g, compare_body, c, error);
    compare_session_free(&c->cs);
    out->json = c->res.json;
    out->console = c->res.console;
    out->json_path = c->res.json_path;
    out->page_path = c->res.page_path;
    out->regressions = c->res.regressions;
    out->improvements = c->res.improvements;
    out->warnings = c->res.warnings;
    free(c);
    if (rc)
        mlia_compare_output_free(out);
    mlia_ledger_close(&led, rc != 0);
    return rc;
}

void mlia_compare_output_free(mlia_compare_output *out)
{
    if (!out) /* like free(NULL) */
        return;
    free(out->json);
    free(out->console);
    free(out->json_path);
    free(out->page_path);
    free(out->warnings);
    memset(out, 0, sizeof *out);
}

/* The request of mlia_compare_json, parsed in an arena of its own. */

static int compare_request_body(void *ctx, mlia_error *err, char **message)
{
    mlia_guard_request *q = ctx;
    mlia_json *req = NULL;
    mlia_opt_set *set = NULL;
    char msg[4096];
    if (mlia_guard_request_parse(q, &req, err, message))
        return 2;
    set = mlia_arena_alloc(&q->arena, sizeof *set);
    mlia_opt_set_init(set, MLIA_CMD_COMPARE, false);
    mlia_compare_config cfg;
    if (mlia_opt_set_from_json(set, req, &q->arena, msg, sizeof msg) || mlia_compare_resolve(set, &cfg, msg, sizeof msg))
        return (*message = mlia_guard_usage(msg)), 2;
    mlia_compare_options o = MLIA_COMPARE_OPTIONS_INIT;
    o.baselines = cfg.baselines;
    o.n_baselines = cfg.n_baselines;
    o.new_run = cfg.new_run;
    o.output_dir = cfg.output_dir;
    o.output_beside_new = 1; /* as the CLI: without output_dir, NEW/mlia-output/compare/ */
    o.threshold = cfg.threshold;
    o.allow_different_programs = cfg.allow_different_programs;
    o.allow_different_settings = cfg.allow_different_settings;
    o.tested_only = cfg.tested_only;
    o.memory_limit = cfg.memory_limit;
    o.baseline_history = cfg.baseline_history;
    o.history_last = cfg.history_last;
    o.history_labels = cfg.history_labels;
    o.n_history_labels = cfg.n_history_labels;
    mlia_compare_output co;
    char *error = NULL;
    int rc = mlia_compare(&o, &co, &error);
    if (rc) {
        *message = error;
        return rc;
    }
    unsigned regressions = co.regressions, likely = 0;
    if (cfg.fail_on_regression && regressions && !cfg.tested_only) {
        /* how many of them are likely ones: the report's summary says */
        mlia_json *doc = NULL, *sum = NULL;
        mlia_json_opts jo = {.max_depth = 64};
        if (mlia_json_parse(co.json, strlen(co.json), &jo, &q->arena, &doc, NULL, err) == 0 &&
            (sum = mlia_json_get(doc, "summary")) != NULL) {
            const mlia_json *n = mlia_json_get(sum, "likely_regressions");
            const char *model = mlia_json_get_str(sum, "model");
            likely = (n && n->num_int_fits ? (unsigned)n->u.number.i : 0) +
                     (model && strcmp(model, "likely_regression") == 0 ? 1u : 0u);
        }
        mlia_error_clear(err);
    }
    if (q->result)
        *q->result = co.json;
    else
        free(co.json);
    co.json = NULL;
    mlia_compare_output_free(&co);
    if (cfg.fail_on_regression && regressions) {
        /* the command's exit status 3: the report is still handed back */
        double t = cfg.threshold < 0 ? 5 : cfg.threshold;
        char detail[48] = "";
        if (likely)
            snprintf(detail, sizeof detail, "%u likely; ", likely);
        snprintf(msg, sizeof msg, "%u regression%s (%sthreshold %g %%)", regressions, regressions != 1 ? "s" : "",
                 detail, t);
        *message = strdup(msg);
        return 3;
    }
    return 0;
}

int mlia_compare_json(const char *request_json, char **result, char **error)
{
    if (!request_json) {
        if (result)
            *result = NULL;
        return mlia_guard_fail(error, 2, "mlia_compare_json: request_json is NULL");
    }
    return mlia_guard_run_request(&MLIA_OOM_COMPARISON, compare_request_body, request_json, result, error);
}
