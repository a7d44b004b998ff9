/*
 * backend.c - the helpers every backend may call (backends/backend.h), kept
 * apart from the registration table (registry.c) so that no backend calls
 * back into the file that lists it (tests/py/test_layering.py: no circle of
 * files through calls and includes).
 */
#include <stdarg.h>
#include <stdio.h>

#include "backends/backend.h"
#include "core/cnum.h"

void mlia_backend_log(const mlia_backend_ctx *c, const char *fmt, ...)
{
    char line[4096];
    MLIA_FORMAT_ARGS(line, fmt);
    if (c->log)
        c->log(c->log_ctx, line);
}
