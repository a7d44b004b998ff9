/*
 * check.c - mlia_check(), the public face of the check pipeline
 * (src/pipeline/check.c), run through the entry guard (guard.h).
 *
 * The public options are read into the option set of pipeline/options.h and
 * checked by the same rules as the command line and the JSON request
 * (usage error: return 2, the command line's message); the pipeline gets
 * only the resolved configuration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/guard.h"
#include "core/alloc.h"
#include "core/oom.h"
#include "mlia/mlia.h"
#include "pipeline/check.h"
#include "pipeline/options.h"

#include "analysis/run.h"

_Static_assert(MLIA_CSV_OPERATORS == MLIA_RUN_CSV_OPERATORS && MLIA_CSV_CHAINS == MLIA_RUN_CSV_CHAINS &&
                   MLIA_CSV_EXECUTIONS == MLIA_RUN_CSV_EXECUTIONS && MLIA_CSV_MEMORY == MLIA_RUN_CSV_MEMORY &&
                   MLIA_CSV_MODULES == MLIA_RUN_CSV_MODULES,
               "the public CSV bits are the run record's");

typedef struct check_call {
    const mlia_check_options *opts;
    mlia_opt_set set; /* what cfg borrows the ETDump list from */
    mlia_check_config cfg;
    mlia_session *s;
    mlia_check_output *out;
} check_call;

/* The struct's members as option values (0 / NULL: not given). 0, or 2. */
static int read_options(const mlia_check_options *o, mlia_opt_set *set, char *msg, size_t n)
{
    if (o->version > MLIA_CHECK_OPTIONS_VERSION) {
        snprintf(msg, n, "mlia_check_options.version %u is newer than this library's (%u)", o->version,
                 MLIA_CHECK_OPTIONS_VERSION);
        return 2;
    }
    mlia_opt_set_init(set, MLIA_CMD_CHECK, false);
    const struct {
        mlia_opt_id id;
        const char *text;
    } texts[] = {
        {MLIA_OPT_MODEL, o->etrecord_path},
        {MLIA_OPT_COMPANION, o->companion_path},
        {MLIA_OPT_OUTPUT_DIR, o->output_dir},
        {MLIA_OPT_MODEL_EXPLORER, o->model_explorer},
        {MLIA_OPT_METHOD, o->method},
        {MLIA_OPT_DEBUG_BUFFER, o->debug_buffer_path},
        {MLIA_OPT_REF_PROFILING, o->reference_etdump_path},
        {MLIA_OPT_REF_DEBUG_BUFFER, o->reference_debug_buffer_path},
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (texts[i].text && mlia_opt_set_text(set, texts[i].id, texts[i].text, msg, n))
            return 2;
    if (o->n_etdump_paths > 0) {
        for (int i = 0; i < o->n_etdump_paths; i++)
            if (mlia_opt_set_text(set, MLIA_OPT_PROFILING, o->etdump_paths[i] ? o->etdump_paths[i] : "", msg, n))
                return 2;
    } else if (o->etdump_path && mlia_opt_set_text(set, MLIA_OPT_PROFILING, o->etdump_path, msg, n)) {
        return 2;
    }
    if (o->ticks_per_second != 0 && mlia_opt_set_number(set, MLIA_OPT_TICKS, o->ticks_per_second, NULL, msg, n))
        return 2;
    if (o->warmup_executions && mlia_opt_set_number(set, MLIA_OPT_WARMUP, o->warmup_executions, NULL, msg, n))
        return 2;
    if (o->trace && *o->trace) {
        mlia_opt_set_flag(set, MLIA_OPT_TRACE, true);
        if (mlia_opt_set_text(set, MLIA_OPT_TRACE_FORMAT, o->trace, msg, n))
            return 2;
    }
    if (o->csv) {
        mlia_opt_set_flag(set, MLIA_OPT_CSV, true);
        /* the MLIA_CSV_* bits as --csv-tables' names (1: the default tables) */
        static const struct {
            int bit;
            const char *name;
        } tables[] = {{MLIA_CSV_OPERATORS, "operators"},
                      {MLIA_CSV_CHAINS, "chains"},
                      {MLIA_CSV_EXECUTIONS, "executions"},
                      {MLIA_CSV_MEMORY, "memory"},
                      {MLIA_CSV_MODULES, "modules"}};
        for (size_t i = 0; i < sizeof tables / sizeof *tables; i++)
            if ((o->csv & tables[i].bit) && mlia_opt_set_text(set, MLIA_OPT_CSV_TABLES, tables[i].name, msg, n))
                return 2;
    }
    if (o->memory_limit &&
        mlia_opt_set_number(set, MLIA_OPT_MEMORY_LIMIT, (double)o->memory_limit, NULL, msg, n))
        return 2;
    if (o->version < 2)
        return 0; /* the members below came with version 2 */
    if (o->history) {
        if (*o->history) {
            if (mlia_opt_set_text(set, MLIA_OPT_HISTORY, o->history, msg, n))
                return 2;
        } else {
            mlia_opt_set_flag(set, MLIA_OPT_HISTORY, true); /* "": the default history */
        }
    }
    if (o->n_history_labels > 0 && !o->history_labels)
        return snprintf(msg, n, "mlia_check: opts->history_labels is NULL"), 2;
    for (int i = 0; i < o->n_history_labels; i++)
        if (mlia_opt_set_text(set, MLIA_OPT_LABEL, o->history_labels[i] ? o->history_labels[i] : "", msg, n))
            return 2;
    return 0;
}

static int check_body(void *ctx, mlia_error *err, char **message)
{
    check_call *c = ctx;
    const mlia_check_options *o = c->opts;
    char msg[4096];
    if (read_options(o, &c->set, msg, sizeof msg) || mlia_check_resolve(&c->set, &c->cfg, msg, sizeof msg)) {
        *message = mlia_guard_usage(msg);
        return 2;
    }
    mlia_check_config *cfg = &c->cfg;
    cfg->cli_args = o->cli_args;
    cfg->n_cli_args = o->n_cli_args;
    cfg->progress = o->progress;
    cfg->progress_ctx = o->progress_ctx;
    cfg->skip_result_json_text = o->skip_result_json_text != 0;
    cfg->console_width = o->console_width;
    size_t cap = cfg->memory_limit;
    if (!cap) {
        /* the memory cap counts every input, each ETDump included (the
         * debug buffers are read piece by piece: memory does not follow
         * them) */
        int n_dumps = cfg->n_etdump_paths;
        size_t bytes = ((size_t)n_dumps + 3) * sizeof(const char *);
        const char **inputs = malloc(bytes);
        if (!inputs)
            mlia_oom(bytes);
        inputs[0] = cfg->etrecord_path;
        for (int i = 0; i < n_dumps; i++)
            inputs[1 + i] = cfg->etdump_paths[i];
        inputs[1 + n_dumps] = cfg->companion_path;
        inputs[2 + n_dumps] = cfg->reference_etdump_path;
        cap = mlia_guard_cap(inputs, n_dumps + 3);
        free(inputs);
    }
    c->s = check_session_new(cfg, cap);
    if (!c->s)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, NULL, "out of memory"), 1;
    check_outputs res;
    memset(&res, 0, sizeof res);
    int rc = check_session_run(c->s, &res, err);
    c->out->result_json = res.result_json;
    c->out->console = res.console;
    c->out->output_path = res.output_path;
    c->out->page_path = res.page_path;
    c->out->model_explorer_command = res.model_explorer_command;
    c->out->model_explorer_hint = res.model_explorer_hint;
    c->out->status_error = res.status_error;
    return rc;
}

static const char *check_file(void *ctx)
{
    check_call *c = ctx;
    return c->s ? check_session_stage_file(c->s) : c->opts->etrecord_path;
}

static void check_on_oom(void *ctx)
{
    check_call *c = ctx;
    if (c->s)
        check_session_abort_outputs(c->s);
}

int mlia_check_options_init(mlia_check_options *opts, unsigned version)
{
    if (!opts || version == 0 || version > MLIA_CHECK_OPTIONS_VERSION)
        return -1;
    memset(opts, 0, sizeof *opts);
    opts->version = version;
    return 0;
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
    /* ~25 KB (the option set keeps every ETDump path): on the heap */
    check_call *c = calloc(1, sizeof *c);
    if (!c) {
        mlia_ledger_close(&led, false);
        return mlia_guard_fail(error, MLIA_STATUS_OUT_OF_MEMORY, "out of memory");
    }
    c->opts = opts;
    c->out = out;
    /* a limit the caller set is named as theirs in the memory-limit message */
    bool by_host = opts->memory_limit != 0 && opts->version <= MLIA_CHECK_OPTIONS_VERSION;
    mlia_guard g = {opts->etrecord_path, by_host ? &MLIA_OOM_ANALYSIS_BY_HOST : &MLIA_OOM_ANALYSIS, check_file, check_on_oom};
    int rc = mlia_guard_run(&g, check_body, c, error);
    check_session_free(c->s);
    free(c);
    if (rc)
        mlia_check_output_free(out);
    mlia_ledger_close(&led, rc != 0);
    return rc;
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
