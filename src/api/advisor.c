/*
 * advisor.c - JSON request entry point used by the Python binding
 * (python/mlia, through ctypes). Validates the request like the CLI does for
 * the same options, then runs mlia_check(); all of it inside the entry
 * guard (guard.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/guard.h"
#include "core/alloc.h"
#include "core/arena.h"
#include "core/json_read.h"
#include "mlia/mlia.h"
#include "pipeline/inputs.h"

static int usage(char **message, const char *msg)
{
    *message = strdup(msg);
    return 2;
}

static bool has_suffix(const char *s, const char *suf)
{
    size_t a = strlen(s), b = strlen(suf);
    return a >= b && strcmp(s + a - b, suf) == 0;
}

static int advisor_body(void *ctx, mlia_error *err, char **message)
{
    mlia_guard_request *q = ctx;
    const char *request_json = q->json;
    char **result = q->result, **error = message;
    mlia_json *req = NULL;
    mlia_json_opts jo = {.max_depth = 64};
    int rc;
    if (!request_json || mlia_json_parse(request_json, strlen(request_json), &jo, &q->arena, &req, NULL, err) ||
        req->type != MLIA_JSON_OBJECT) {
        rc = usage(error, "invalid request");
        goto out;
    }
    if ((rc = mlia_guard_request_strings(req, error)) != 0)
        goto out;
    const char *model = mlia_json_get_str(req, "model");
    const mlia_json *pd = mlia_json_get(req, "profiling_data");
    const char *etdump = NULL;
    const char **etdumps = NULL; /* several captures (docs/captures.md), in q->arena */
    size_t n_etdumps = 0;
    if (pd && pd->type == MLIA_JSON_STRING)
        etdump = pd->u.string.s;
    else if (pd && pd->type == MLIA_JSON_ARRAY && pd->u.array.n) {
        n_etdumps = pd->u.array.n;
        etdumps = mlia_arena_array(&q->arena, n_etdumps, sizeof *etdumps);
        for (size_t i = 0; i < n_etdumps; i++) {
            if (pd->u.array.items[i]->type != MLIA_JSON_STRING) {
                rc = usage(error, "profiling_data must be a list of paths");
                goto out;
            }
            etdumps[i] = pd->u.array.items[i]->u.string.s;
            for (size_t j = 0; j < i; j++)
                if (strcmp(etdumps[j], etdumps[i]) == 0) {
                    char msg[4200];
                    snprintf(msg, sizeof msg, "--profiling-data: %s is given more than once.", etdumps[i]);
                    rc = usage(error, msg);
                    goto out;
                }
        }
        etdump = etdumps[0];
    }
    const char *category = mlia_json_get_str(req, "advice_category");
    const char *profile = mlia_json_get_str(req, "target_profile");
    if (category && strcmp(category, "performance") != 0) {
        if (strcmp(category, "compatibility") == 0)
            rc = usage(error, "Backend does not support --compatibility with --profiling-data. Use --performance instead.");
        else
            rc = usage(error, "Neural Technology profiling data currently supports performance analysis only.");
        goto out;
    }
    if (profile && strcmp(profile, "neural-technology") != 0) {
        char msg[512];
        snprintf(msg, sizeof msg, "Target profile '%s' is not supported; supported: neural-technology.", profile);
        rc = usage(error, msg);
        goto out;
    }
    if (!model || !etdump) {
        rc = usage(error, !model ? "model is required" : "profiling_data is required");
        goto out;
    }
    /* what each input is by content: the CLI's usage errors (pipeline/inputs.h) */
    const char *companion = mlia_json_get_str(req, "companion_model");
    const char *model_kind = mlia_input_kind(model);
    const char *companion_kind = companion ? mlia_input_kind(companion) : NULL;
    for (size_t i = 0; i < (n_etdumps ? n_etdumps : 1); i++) {
        const char *dump = n_etdumps ? etdumps[i] : etdump;
        char msg[4200];
        if (mlia_input_kind_error(model, model_kind, dump, mlia_input_kind(dump), companion, companion_kind, msg,
                                  sizeof msg) != 0) {
            rc = usage(error, msg);
            goto out;
        }
    }
    if (!(model_kind && strcmp(model_kind, "unknown") == 0) && !has_suffix(model, ".etrecord") &&
        !has_suffix(model, ".bin")) {
        char msg[4200];
        snprintf(msg, sizeof msg, "%s: unsupported model file; expected an ETRecord (.etrecord or .bin).", model);
        rc = usage(error, msg);
        goto out;
    }
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = model;
    o.etdump_path = etdump;
    if (n_etdumps > 1) {
        o.etdump_paths = (const char *const *)etdumps;
        o.n_etdump_paths = (int)n_etdumps;
    }
    o.companion_path = mlia_json_get_str(req, "companion_model");
    o.output_dir = mlia_json_get_str(req, "output_dir");
    o.model_explorer = mlia_json_get_str(req, "model_explorer");
    o.method = mlia_json_get_str(req, "etrecord_method");
    /* intermediate outputs: the CLI's rules and messages (src/cli/args.c, rule 8) */
    o.debug_buffer_path = mlia_json_get_str(req, "debug_buffer");
    o.reference_etdump_path = mlia_json_get_str(req, "reference_profiling_data");
    o.reference_debug_buffer_path = mlia_json_get_str(req, "reference_debug_buffer");
    if (o.reference_etdump_path && !o.reference_debug_buffer_path) {
        rc = usage(error, "--reference-profiling-data requires --reference-debug-buffer.");
        goto out;
    }
    if (o.reference_debug_buffer_path && !o.reference_etdump_path) {
        rc = usage(error, "--reference-debug-buffer requires --reference-profiling-data.");
        goto out;
    }
    if (o.debug_buffer_path && n_etdumps > 1) {
        char msg[160];
        snprintf(msg, sizeof msg, "--debug-buffer belongs to one ETDump: give exactly one --profiling-data with it "
                                  "(got %zu).", n_etdumps);
        rc = usage(error, msg);
        goto out;
    }
    if (o.reference_etdump_path && !o.debug_buffer_path) {
        rc = usage(error, "--reference-profiling-data requires --debug-buffer (the run's intermediate outputs it "
                          "is compared with).");
        goto out;
    }
    /* the ETDump's clock and warm-up executions (docs/captures.md) */
    const mlia_json *tps = mlia_json_get(req, "ticks_per_second");
    if (tps && tps->type != MLIA_JSON_NULL) {
        if (tps->type != MLIA_JSON_NUMBER || tps->num_nonfinite || !(tps->u.number.d >= 1.0) ||
            tps->u.number.d > 1e15) {
            rc = usage(error, "ticks_per_second must be a number of ticks per second from 1 to 1e15");
            goto out;
        }
        o.ticks_per_second = tps->u.number.d;
    }
    const mlia_json *wu = mlia_json_get(req, "warmup_executions");
    if (wu && wu->type != MLIA_JSON_NULL) {
        if (wu->type != MLIA_JSON_NUMBER || !wu->num_int_fits || wu->u.number.i < 0 ||
            wu->u.number.i > 999999999) {
            rc = usage(error, "warmup_executions must be a whole number of executions, 0 to 999999999");
            goto out;
        }
        o.warmup_executions = (unsigned)wu->u.number.i;
    }
    if (o.model_explorer && strcmp(o.model_explorer, "files") != 0 && strcmp(o.model_explorer, "open") != 0) {
        rc = usage(error, "model_explorer must be 'files' or 'open'");
        goto out;
    }
    /* "trace": true | "perfetto" (trace.pftrace), "json" (trace.json), false/absent: none */
    {
        const mlia_json *t = mlia_json_get(req, "trace");
        if (t && t->type == MLIA_JSON_BOOL)
            o.trace = t->u.boolean ? "perfetto" : NULL;
        else if (t && t->type == MLIA_JSON_STRING && (strcmp(t->u.string.s, "perfetto") == 0 || strcmp(t->u.string.s, "json") == 0))
            o.trace = t->u.string.s;
        else if (t && t->type != MLIA_JSON_NULL) {
            rc = usage(error, "trace must be true, false, 'perfetto' or 'json'");
            goto out;
        }
    }
    const mlia_json *csv = mlia_json_get(req, "csv");
    if (csv && csv->type != MLIA_JSON_NULL && csv->type != MLIA_JSON_BOOL) {
        rc = usage(error, "csv must be true or false");
        goto out;
    }
    o.csv = csv && csv->type == MLIA_JSON_BOOL && csv->u.boolean;
    if (!o.output_dir && (o.model_explorer || o.csv))
        o.output_dir = "."; /* visualization and tables need files: same default as the CLI */
    mlia_check_output co;
    char *msg = NULL;
    if (mlia_check(&o, &co, &msg)) {
        *error = msg;
        rc = 1;
        goto out;
    }
    if (result)
        *result = co.result_json;
    else
        free(co.result_json);
    co.result_json = NULL;
    mlia_check_output_free(&co);
    rc = 0;
out:
    return rc;
}

int mlia_run_advisor_json(const char *request_json, char **result, char **error)
{
    if (!request_json) { /* a usage error, like every NULL pointer argument (issue 30 item 3) */
        if (result)
            *result = NULL;
        return mlia_guard_fail(error, 2, "mlia_run_advisor_json: request_json is NULL");
    }
    return mlia_guard_run_request(&MLIA_OOM_ANALYSIS, advisor_body, request_json, result, error);
}
