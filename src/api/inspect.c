/*
 * inspect.c - mlia_inspect() and mlia_inspect_to(), the public face of the
 * inspect pipeline (src/pipeline/inspect.c), run through the entry guard.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/guard.h"
#include "core/alloc.h"
#include "core/str.h"
#include "mlia/mlia.h"
#include "pipeline/inspect.h"

typedef struct inspect_call {
    inspect_session is;
    const char *path;
    mlia_buf buf;     /* the document (mlia_inspect) or the stream's chunk (mlia_inspect_to) */
    FILE *out;        /* NULL: into buf */
} inspect_call;

static int inspect_body(void *ctx, mlia_error *err, char **message)
{
    inspect_call *c = ctx;
    mlia_jw w;
    if (c->out)
        mlia_jw_init_stream(&w, &c->buf, c->out, true);
    else
        mlia_jw_init_buf(&w, &c->buf, true);
    int rc = inspect_session_run(&c->is, c->path, &w, err);
    if (c->out)
        mlia_jw_flush(&w);
    return rc ? 1 : 0;
}

static int inspect_guarded(inspect_call *c, char **error)
{
    inspect_session_init(&c->is);
    mlia_buf_init(&c->buf);
    mlia_guard g = {c->path, &MLIA_OOM_INSPECTION, NULL, NULL};
    int rc = mlia_guard_run(&g, inspect_body, c, error);
    inspect_session_free(&c->is);
    return rc;
}

int mlia_inspect(const char *path, char **json, char **error)
{
    /* a NULL where a pointer is needed is a usage error (issue 30 item 3) */
    if (json)
        *json = NULL;
    if (!path || !json)
        return mlia_guard_fail(error, 2, !path ? "mlia_inspect: path is NULL" : "mlia_inspect: json is NULL");
    mlia_ledger led; /* core/alloc.h */
    mlia_ledger_open(&led);
    inspect_call c = {.path = path};
    int rc = inspect_guarded(&c, error);
    if (rc) {
        mlia_buf_free(&c.buf);
        mlia_ledger_close(&led, true);
        return rc;
    }
    *json = mlia_buf_take(&c.buf);
    mlia_ledger_close(&led, false);
    return 0;
}

int mlia_inspect_to(const char *path, FILE *out, char **error)
{
    if (!path || !out)
        return mlia_guard_fail(error, 2, !path ? "mlia_inspect_to: path is NULL" : "mlia_inspect_to: out is NULL");
    mlia_ledger led; /* core/alloc.h */
    mlia_ledger_open(&led);
    inspect_call c = {.path = path, .out = out};
    int rc = inspect_guarded(&c, error);
    mlia_buf_free(&c.buf);
    mlia_ledger_close(&led, rc != 0);
    return rc;
}
