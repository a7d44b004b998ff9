/*
 * advisor.c - JSON request entry point used by the Python binding
 * (python/mlia, through ctypes). The request's members are the "key"s of
 * the option table (pipeline/options.h): read into the option set, checked
 * with the command line's rules and messages (unknown members with a "did
 * you mean"), then run through mlia_check(); all of it inside the entry
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
#include "pipeline/options.h"

static int advisor_body(void *ctx, mlia_error *err, char **message)
{
    mlia_guard_request *q = ctx;
    mlia_json *req = NULL;
    char msg[4096];
    if (mlia_guard_request_parse(q, &req, err, message))
        return 2;
    mlia_opt_set *set = mlia_arena_alloc(&q->arena, sizeof *set);
    mlia_opt_set_init(set, MLIA_CMD_CHECK, false);
    mlia_check_config cfg;
    if (mlia_opt_set_from_json(set, req, &q->arena, msg, sizeof msg) || mlia_check_resolve(set, &cfg, msg, sizeof msg))
        return (*message = mlia_guard_usage(msg)), 2;
    mlia_check_options o = MLIA_CHECK_OPTIONS_INIT;
    o.etrecord_path = cfg.etrecord_path;
    o.etdump_path = cfg.etdump_paths[0];
    if (cfg.n_etdump_paths > 1) {
        o.etdump_paths = cfg.etdump_paths;
        o.n_etdump_paths = cfg.n_etdump_paths;
    }
    o.companion_path = cfg.companion_path;
    o.output_dir = cfg.output_dir;
    o.model_explorer = cfg.model_explorer;
    o.method = cfg.method;
    o.debug_buffer_path = cfg.debug_buffer_path;
    o.reference_etdump_path = cfg.reference_etdump_path;
    o.reference_debug_buffer_path = cfg.reference_debug_buffer_path;
    o.ticks_per_second = cfg.ticks_per_second;
    o.warmup_executions = cfg.warmup_executions;
    o.trace = cfg.trace;
    o.csv = cfg.csv;
    o.memory_limit = cfg.memory_limit;
    o.history = cfg.history;
    o.history_labels = cfg.history_labels;
    o.n_history_labels = cfg.n_history_labels;
    if (!o.output_dir && (o.model_explorer || o.csv))
        o.output_dir = "."; /* visualization and tables need files: same default as the CLI */
    mlia_check_output co;
    char *error = NULL;
    int rc = mlia_check(&o, &co, &error);
    if (rc) {
        *message = error;
        return rc;
    }
    if (q->result)
        *q->result = co.result_json;
    else
        free(co.result_json);
    co.result_json = NULL;
    mlia_check_output_free(&co);
    (void)err;
    return 0;
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

int mlia_options_json(char **json)
{
    mlia_arena a;
    mlia_arena_init(&a);
    size_t len = 0;
    const char *text = NULL;
    mlia_oom_point oom;
    mlia_oom_enter(&oom);
    if (setjmp(oom.jump) == 0)
        text = mlia_opt_table_json(&a, &len);
    mlia_oom_leave(&oom);
    *json = text ? malloc(len + 1) : NULL;
    if (*json)
        memcpy(*json, text, len + 1);
    mlia_arena_free(&a);
    return *json ? 0 : 1;
}
