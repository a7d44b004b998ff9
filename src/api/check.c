/*
 * check.c - mlia_check(), the public face of the check pipeline
 * (src/pipeline/check.c), run through the entry guard (guard.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/guard.h"
#include "core/alloc.h"
#include "mlia/mlia.h"
#include "pipeline/check.h"

typedef struct check_call {
    mlia_session *s;
    mlia_check_output *out;
} check_call;

static int check_body(void *ctx, mlia_error *err, char **message)
{
    check_call *c = ctx;
    return check_session_run(c->s, c->out, err);
}

static const char *check_file(void *ctx)
{
    return check_session_stage_file(((check_call *)ctx)->s);
}

static void check_on_oom(void *ctx)
{
    check_session_abort_outputs(((check_call *)ctx)->s);
}

/* A NULL where the API needs a pointer: "mlia_check: <argument> is NULL"
 * into msg (issue 30 item 3), or 0. */
static int null_argument(const mlia_check_options *o, const mlia_check_output *out, char *msg, size_t n)
{
    const char *what = !o                ? "opts"
                       : !out            ? "out"
                       : !o->etrecord_path ? "opts->etrecord_path"
                       : o->n_etdump_paths > 0 && !o->etdump_paths ? "opts->etdump_paths"
                       : o->n_etdump_paths <= 0 && !o->etdump_path ? "opts->etdump_path"
                       : o->n_cli_args > 0 && !o->cli_args ? "opts->cli_args"
                                                             : NULL;
    if (what) {
        snprintf(msg, n, "mlia_check: %s is NULL", what);
        return 1;
    }
    for (int i = 0; i < o->n_etdump_paths; i++)
        if (!o->etdump_paths[i]) {
            snprintf(msg, n, "mlia_check: opts->etdump_paths[%d] is NULL", i);
            return 1;
        }
    return 0;
}

int mlia_check(const mlia_check_options *opts, mlia_check_output *out, char **error)
{
    char null_msg[96];
    if (null_argument(opts, out, null_msg, sizeof null_msg)) {
        if (out)
            memset(out, 0, sizeof *out);
        return mlia_guard_fail(error, 2, null_msg);
    }
    memset(out, 0, sizeof *out);
    if (error)
        *error = NULL;
    mlia_ledger led; /* frees what an out-of-memory jump orphaned (core/alloc.h) */
    mlia_ledger_open(&led);
    /* the memory cap counts every input, each ETDump included */
    int n_dumps = opts->n_etdump_paths > 0 ? opts->n_etdump_paths : 1;
    /* (the debug buffers are read piece by piece: memory does not follow them) */
    const char **inputs = malloc(((size_t)n_dumps + 3) * sizeof *inputs);
    if (!inputs) {
        mlia_ledger_close(&led, false);
        return mlia_guard_fail(error, 1, "out of memory");
    }
    inputs[0] = opts->etrecord_path;
    for (int i = 0; i < n_dumps; i++)
        inputs[1 + i] = opts->n_etdump_paths > 0 ? opts->etdump_paths[i] : opts->etdump_path;
    inputs[1 + n_dumps] = opts->companion_path;
    inputs[2 + n_dumps] = opts->reference_etdump_path;
    size_t cap = mlia_guard_cap(inputs, n_dumps + 3);
    free(inputs);
    check_call c = {check_session_new(opts, cap), out};
    if (!c.s) {
        mlia_ledger_close(&led, false);
        return mlia_guard_fail(error, 1, "out of memory");
    }
    mlia_guard g = {opts->etrecord_path, &MLIA_OOM_ANALYSIS, check_file, check_on_oom};
    int rc = mlia_guard_run(&g, check_body, &c, error);
    check_session_free(c.s);
    if (rc)
        mlia_check_output_free(out);
    mlia_ledger_close(&led, rc != 0);
    return rc ? 1 : 0;
}

void mlia_check_output_free(mlia_check_output *out)
{
    if (!out) /* like free(NULL) */
        return;
    free(out->result_json);
    free(out->console);
    free(out->output_path);
    free(out->page_path);
    free(out->model_explorer_command);
    free(out->model_explorer_hint);
    free(out->status_error);
    memset(out, 0, sizeof *out);
}
