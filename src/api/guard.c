/*
 * guard.c - the entry guard shared by every public function (guard.h),
 * mlia_free() and mlia_sigbus_guard().
 */
#include "api/guard.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/file.h"
#include "mlia/mlia.h"

int mlia_guard_run(const mlia_guard *g, mlia_guard_body body, void *ctx, char **error)
{
    if (error)
        *error = NULL;
    /* On the heap: it must keep its value across the longjmp below, and at
     * 2 KB it is better not on a host thread's small stack. */
    mlia_error *volatile err = malloc(sizeof *err);
    if (!err)
        return mlia_guard_fail(error, 1, "out of memory");
    mlia_error_clear(err);
    char *volatile message = NULL;
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
    if (rc && error) {
        *error = message ? message : strdup(err->set ? err->text : "unknown error");
        message = NULL;
    }
    free(message);
    free(err);
    return rc;
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

int mlia_guard_fail(char **error, int code, const char *msg)
{
    if (error)
        *error = strdup(msg);
    return code;
}

void mlia_free(void *p)
{
    free(p);
}

int mlia_sigbus_guard(int enable)
{
    return mlia_file_sigbus_guard(enable);
}
