/*
 * assert.c - the failure path of MLIA_ASSERT (see assert.h).
 */
#include "core/assert.h"

#include <stdio.h>
#include <stdlib.h>

void mlia_assert_fail(const char *expr, const char *file, int line, const char *func)
{
    fprintf(stderr, "mlia: internal error: assertion failed: %s (%s:%d, %s)\n", expr, file, line, func);
    fflush(stderr);
    abort();
}

bool mlia_assertions_enabled(void)
{
    return MLIA_ASSERTIONS != 0;
}
