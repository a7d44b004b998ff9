/*
 * guard.c - the entry guard shared by every public function (guard.h),
 * mlia_free() and mlia_sigbus_guard().
 */
#include "core/cnum.h"
#include "api/guard.h"
#include "core/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file.h"
#include "core/json_read.h"
#include "mlia/mlia.h"

int mlia_guard_run(const mlia_guard *g, mlia_guard_body body, void *ctx, char **error)
{
    if (error)
        *error = NULL;
    /* On the heap: it must keep its value across the longjmp below, and at
     * 2 KB it is better not on a host thread's small stack. */
    mlia_error *volatile err = malloc(sizeof *err);
    if (!err)
        return mlia_guard_fail(error, MLIA_STATUS_OUT_OF_MEMORY, "out of memory");
    mlia_error_clear(err);
    char *volatile message = NULL;
    /* the calling thread in the "C" locale for the call (core/cnum.h) */
    mlia_c_locale_scope loc;
    mlia_c_locale_enter(&loc);
    mlia_oom_point oom;
    mlia_oom_enter(&oom);
    volatile int rc;
    if (setjmp(oom.jump) == 0) {
        char *m = NULL;
        rc = body(ctx, err, &m);
        message = m;
    } else {
        rc = 1;
        if (g->on_oom)
            g->on_oom(ctx);
        const char *file = g->current_file ? g->current_file(ctx) : g->file;
        mlia_oom_error(err, file, &oom, g->words ? g->words : &MLIA_OOM_ANALYSIS);
    }
    mlia_oom_leave(&oom);
    mlia_c_locale_leave(&loc);
    /* an input or analysis error says why (include/mlia/mlia.h mlia_status) */
    if (rc == 1 && !message && err->set && err->kind)
        rc = 1 | (err->kind << 8);
    if (rc && error) {
        *error = message ? message : strdup(err->set ? err->text : "unknown error");
        message = NULL;
        mlia_ledger_forget(*error); /* the caller's, not the call's (core/alloc.h) */
    }
    free(message);
    free(err);
    return rc;
}

/* 0, or 2 with *message when the string `s` of member `key` has a NUL. */
static int nul_check(const char *key, const mlia_json *s, char **message)
{
    if (s->type != MLIA_JSON_STRING)
        return 0;
    const char *nul = memchr(s->u.string.s, 0, s->u.string.len);
    if (!nul)
        return 0;
    char raw[300], esc[1300];
    snprintf(raw, sizeof raw, "%.200s", key);
    mlia_escape_text(esc, sizeof esc, raw, strlen(raw));
    char msg[1400];
    snprintf(msg, sizeof msg, "request: \"%s\" contains a NUL byte (at byte %zu)", esc,
             (size_t)(nul - s->u.string.s));
    *message = strdup(msg);
    return 2;
}

/* 0, or 2 with *message when a string of v (member `key`, nested members
 * named by their own key) has a NUL. */
static int nul_walk(const char *key, const mlia_json *v, unsigned depth, char **message)
{
    if (nul_check(key, v, message))
        return 2;
    if (depth > 64)
        return 0;
    if (v->type == MLIA_JSON_ARRAY)
        for (size_t k = 0; k < v->u.array.n; k++)
            if (nul_walk(key, v->u.array.items[k], depth + 1, message))
                return 2;
    if (v->type == MLIA_JSON_OBJECT)
        for (size_t i = 0; i < v->u.object.n; i++)
            if (nul_walk(v->u.object.members[i].key, v->u.object.members[i].value, depth + 1, message))
                return 2;
    return 0;
}

int mlia_guard_request_strings(const mlia_json *req, char **message)
{
    if (!req || req->type != MLIA_JSON_OBJECT)
        return 0;
    return nul_walk("", req, 0, message);
}

int mlia_guard_request_parse(mlia_guard_request *q, mlia_json **req, mlia_error *err, char **message)
{
    mlia_json_opts jo = {.allow_nonfinite = true, .max_depth = 64};
    if (!q->json || mlia_json_parse(q->json, strlen(q->json), &jo, &q->arena, req, NULL, err) ||
        (*req)->type != MLIA_JSON_OBJECT) {
        *message = strdup("invalid request");
        return 2;
    }
    return mlia_guard_request_strings(*req, message);
}

size_t mlia_guard_cap(const char *const *paths, int n)
{
    unsigned long long total = 0;
    for (int i = 0; i < n; i++) {
        struct stat st;
        if (paths[i] && stat(paths[i], &st) == 0 && st.st_size > 0)
            total += (unsigned long long)st.st_size;
    }
    return mlia_memory_limit(total);
}

char *mlia_guard_usage(const char *msg)
{
    size_t n = strlen(msg), cap = n * 6 + 1;
    char *out = malloc(cap);
    if (out)
        mlia_escape_text(out, cap, msg, n);
    return out;
}

int mlia_guard_fail(char **error, int code, const char *msg)
{
    if (error) {
        *error = strdup(msg);
        mlia_ledger_forget(*error);
    }
    return code;
}

const char *mlia_status_name(int status)
{
    switch (status) {
    case MLIA_OK: return "ok";
    case MLIA_STATUS_ERROR: return "input or analysis error";
    case MLIA_STATUS_USAGE: return "usage error";
    case MLIA_STATUS_REGRESSION: return "regression";
    case MLIA_STATUS_INPUT_FORMAT: return "input format";
    case MLIA_STATUS_IO: return "I/O error";
    case MLIA_STATUS_MEMORY_LIMIT: return "memory limit";
    case MLIA_STATUS_OUT_OF_MEMORY: return "out of memory";
    case MLIA_STATUS_PROGRAM_MISMATCH: return "program mismatch";
    case MLIA_STATUS_HISTORY: return "history";
    default: return "unknown status";
    }
}

long long mlia_error_byte_offset(const char *message)
{
    return mlia_error_text_offset(message);
}

/* the public codes are made from the library's error kinds (core/error.h) */
_Static_assert(MLIA_STATUS_INPUT_FORMAT == (1 | (MLIA_ERROR_KIND_FORMAT << 8)), "status");
_Static_assert(MLIA_STATUS_IO == (1 | (MLIA_ERROR_KIND_IO << 8)), "status");
_Static_assert(MLIA_STATUS_MEMORY_LIMIT == (1 | (MLIA_ERROR_KIND_MEMORY_LIMIT << 8)), "status");
_Static_assert(MLIA_STATUS_OUT_OF_MEMORY == (1 | (MLIA_ERROR_KIND_OUT_OF_MEMORY << 8)), "status");
_Static_assert(MLIA_STATUS_PROGRAM_MISMATCH == (1 | (MLIA_ERROR_KIND_MISMATCH << 8)), "status");
_Static_assert(MLIA_STATUS_HISTORY == (1 | (MLIA_ERROR_KIND_HISTORY << 8)), "status");

void mlia_free(void *p)
{
    free(p);
}

int mlia_sigbus_guard(int enable)
{
    return mlia_file_sigbus_guard(enable);
}

int mlia_guard_run_request(const mlia_oom_words *words, mlia_guard_body body, const char *request_json, char **result,
                           char **error)
{
    if (result)
        *result = NULL;
    mlia_ledger led; /* core/alloc.h */
    mlia_ledger_open(&led);
    mlia_guard_request q = {.json = request_json, .result = result};
    mlia_arena_init(&q.arena);
    mlia_guard g = {"request", words, NULL, NULL};
    int rc = mlia_guard_run(&g, body, &q, error);
    if (result && *result)
        mlia_ledger_forget(*result); /* the caller's (core/alloc.h) */
    mlia_arena_free(&q.arena);
    mlia_ledger_close(&led, rc != 0);
    return rc;
}
