/*
 * session.c - what a check session owns besides its stages: the log of
 * decisions (logs/mlia.log) and the run record the writers read.
 */
#include "pipeline/session.h"
#include "core/cnum.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void mlia_log_add(mlia_session *s, const char *fmt, ...)
{
    char buf[4096];
    MLIA_FORMAT_ARGS(buf, fmt);
    /* log lines quote input names: one line each, no terminal controls */
    char safe[4096];
    mlia_escape_text(safe, sizeof safe, buf, strlen(buf));
    if (s->log.n == s->log.cap) {
        uint32_t nc = s->log.cap ? s->log.cap * 2 : 64;
        s->log.lines = mlia_arena_grow(&s->arena, s->log.lines, s->log.n, nc, sizeof *s->log.lines);
        s->log.cap = nc;
    }
    s->log.lines[s->log.n++] = mlia_arena_strdup(&s->arena, safe);
}

/* The mapped inputs, for a writer thread's SIGBUS guard. */
static uint32_t mapped_inputs(const mlia_session *s, const mlia_file *out[5])
{
    uint32_t n = 0;
    out[n++] = &s->etrecord_file;
    if (s->has_companion)
        out[n++] = &s->companion_file;
    if (s->has_debug_buffer)
        out[n++] = &s->debug_file;
    if (s->has_reference) {
        out[n++] = &s->ref_etdump_file;
        out[n++] = &s->ref_debug_file;
    }
    return n;
}

static void guard_inputs(const void *ctx)
{
    const mlia_session *s = ctx;
    const mlia_file *files[5];
    uint32_t n = mapped_inputs(s, files);
    for (uint32_t i = 0; i < n; i++)
        mlia_file_guard(files[i]);
    for (uint32_t i = 0; s->etdump_files && i < s->n_captures; i++)
        mlia_file_guard(&s->etdump_files[i]);
}

static void unguard_inputs(const void *ctx)
{
    const mlia_session *s = ctx;
    const mlia_file *files[5];
    uint32_t n = mapped_inputs(s, files);
    for (uint32_t i = 0; s->etdump_files && i < s->n_captures; i++)
        mlia_file_unguard(&s->etdump_files[i]);
    for (uint32_t i = 0; i < n; i++)
        mlia_file_unguard(files[i]);
}

const mlia_run_record *mlia_session_record(mlia_session *s)
{
    mlia_run_record *rec = &s->record;
    rec->thread_begin = guard_inputs;
    rec->thread_end = unguard_inputs;
    rec->thread_ctx = s;
    rec->run_id = s->run_id;
    rec->timestamp = s->timestamp;
    rec->cli_args = s->opts->cli_args;
    rec->n_cli_args = s->opts->n_cli_args;
    rec->csv = s->opts->csv;
    rec->etrecord_digest = s->etrecord_digest;
    if (s->captures && s->n_captures)
        rec->etdump_digest = s->captures[0].digest;
    else
        memset(&rec->etdump_digest, 0, sizeof rec->etdump_digest);
    rec->n_captures = s->n_captures;
    rec->captures = s->captures;
    rec->companion_digest = s->companion_digest;
    rec->has_companion = s->has_companion;
    rec->debug_digest = s->debug_digest;
    rec->ref_etdump_digest = s->ref_etdump_digest;
    rec->ref_debug_digest = s->ref_debug_digest;
    rec->has_debug_buffer = s->has_debug_buffer;
    rec->has_reference = s->has_reference;
    rec->ref_n_executions = s->ref_n_executions;
    rec->ref_execution_runs = s->ref_execution_runs;
    rec->method_name = s->method_name;
    rec->program = s->program;
    rec->fingerprint = &s->fingerprint;
    rec->companion = s->companion;
    rec->n_executions = s->n_executions;
    rec->execution_runs = s->execution_runs;
    rec->time_unit = s->time_unit;
    rec->warmup_executions = s->warmup_executions;
    rec->ticks_per_second = s->opts->ticks_per_second > 0 ? s->opts->ticks_per_second : 0;
    rec->n_warmup = s->n_warmup;
    rec->warmup_runs = s->warmup_runs;
    rec->n_backends = s->n_backends;
    rec->backends = s->backends;
    rec->result = &s->result;
#define MLIA_RECORD_PRODUCT(type, member) rec->member = s->member;
    MLIA_RUN_PRODUCTS(MLIA_RECORD_PRODUCT)
#undef MLIA_RECORD_PRODUCT
    return rec;
}
