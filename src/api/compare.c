/*
 * compare.c - mlia_compare() and mlia_compare_json(), the public face of the
 * compare pipeline (src/pipeline/compare.c), run through the entry guard.
 */
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

typedef struct compare_call {
    compare_session cs;
    const mlia_compare_options *opts;
    mlia_compare_output *out;
} compare_call;

static int compare_body(void *ctx, mlia_error *err, char **message)
{
    compare_call *c = ctx;
    /* every run's result and page, pooled baselines included, sizes the
     * memory cap; counted here, inside the recovery point */
    size_t cap = mlia_memory_limit(compare_input_bytes(c->opts, &c->cs.arena));
    c->cs.arena.limit = cap > c->cs.arena.total ? cap : c->cs.arena.total + 1;
    int rc = compare_session_run(&c->cs, c->opts, c->out, err);
    if (rc && !err->set)
        mlia_error_setf(err, NULL, "comparison failed");
    return rc;
}

/* Out of memory while writing: the temporary compare/ folder goes. */
static void compare_on_oom(void *ctx)
{
    compare_session_abort_outputs(&((compare_call *)ctx)->cs);
}

int mlia_compare(const mlia_compare_options *opts, mlia_compare_output *out, char **error)
{
    /* a NULL where a pointer is needed is a usage error (issue 30 item 3) */
    const char *null_arg = !opts ? "mlia_compare: opts is NULL"
                           : !out ? "mlia_compare: out is NULL"
                           : !opts->new_run ? "mlia_compare: opts->new_run is NULL"
                           : opts->n_baselines > 0 && !opts->baselines ? "mlia_compare: opts->baselines is NULL"
                           : opts->n_baselines <= 0 && !opts->baseline ? "mlia_compare: opts->baseline is NULL"
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
    compare_call c = {.opts = opts, .out = out};
    compare_session_init(&c.cs, 0); /* the cap is set in compare_body */
    mlia_guard g = {opts->new_run, &MLIA_OOM_COMPARISON, NULL, compare_on_oom};
    int rc = mlia_guard_run(&g, compare_body, &c, error);
    compare_session_free(&c.cs);
    if (rc)
        mlia_compare_output_free(out);
    mlia_ledger_close(&led, rc != 0);
    return rc ? 1 : 0;
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
    mlia_json_opts jo = {.max_depth = 64};
    if (!q->json || mlia_json_parse(q->json, strlen(q->json), &jo, &q->arena, &req, NULL, err) ||
        req->type != MLIA_JSON_OBJECT) {
        *message = strdup("invalid request");
        return 2;
    }
    if (mlia_guard_request_strings(req, message))
        return 2;
    mlia_compare_options o;
    memset(&o, 0, sizeof o);
    /* "baseline": one run, or a list of runs pooled by execution */
    const mlia_json *base = mlia_json_get(req, "baseline");
    if (base && base->type == MLIA_JSON_STRING) {
        o.baseline = base->u.string.s;
    } else if (base && base->type == MLIA_JSON_ARRAY && base->u.array.n) {
        const char **more = mlia_arena_array(&q->arena, base->u.array.n, sizeof *more);
        for (size_t i = 0; i < base->u.array.n; i++) {
            if (base->u.array.items[i]->type != MLIA_JSON_STRING)
                return (*message = strdup("baseline must be a path or a list of paths")), 2;
            more[i] = base->u.array.items[i]->u.string.s;
        }
        o.baselines = more;
        o.n_baselines = (int)base->u.array.n;
    } else if (base && base->type != MLIA_JSON_NULL) {
        return (*message = strdup("baseline must be a path or a list of paths")), 2;
    }
    o.new_run = mlia_json_get_str(req, "new");
    o.output_dir = mlia_json_get_str(req, "output_dir");
    o.output_beside_new = 1; /* as the CLI: without output_dir, NEW/mlia-output/compare/ */
    o.threshold = -1;
    const mlia_json *t = mlia_json_get(req, "threshold");
    if ((!o.baseline && !o.n_baselines) || !o.new_run)
        return (*message = strdup(!o.baseline && !o.n_baselines ? "baseline is required" : "new is required")), 2;
    if (t && t->type != MLIA_JSON_NULL) {
        if (t->type != MLIA_JSON_NUMBER || t->num_nonfinite || t->u.number.d < 0)
            return (*message = strdup("threshold must be a non-negative number of percent")), 2;
        o.threshold = t->u.number.d;
    }
    const mlia_json *allow = mlia_json_get(req, "allow_different_programs");
    if (allow && allow->type != MLIA_JSON_NULL) {
        if (allow->type != MLIA_JSON_BOOL)
            return (*message = strdup("allow_different_programs must be true or false")), 2;
        o.allow_different_programs = allow->u.boolean;
    }
    static const char *const flags[] = {"allow_different_settings", "tested_only"};
    for (int k = 0; k < 2; k++) {
        const mlia_json *f = mlia_json_get(req, flags[k]);
        if (f && f->type != MLIA_JSON_NULL) {
            if (f->type != MLIA_JSON_BOOL)
                return (*message = strdup(k == 0 ? "allow_different_settings must be true or false"
                                                 : "tested_only must be true or false")), 2;
            *(k == 0 ? &o.allow_different_settings : &o.tested_only) = f->u.boolean;
        }
    }
    mlia_compare_output co;
    char *msg = NULL;
    if (mlia_compare(&o, &co, &msg)) {
        *message = msg;
        return 1;
    }
    if (q->result)
        *q->result = co.json;
    else
        free(co.json);
    co.json = NULL;
    mlia_compare_output_free(&co);
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
