/*
 * error.c - formatting of error messages (see error.h).
 */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void mlia_error_clear(mlia_error *err)
{
    if (!err)
        return;
    err->set = 0;
    err->text[0] = 0;
}

int mlia_error_setf(mlia_error *err, const char *file, const char *fmt, ...)
{
    if (!err || err->set)
        return -1;
    size_t off = 0;
    if (file) {
        int n = snprintf(err->text, sizeof err->text, "%s: ", file);
        off = n < 0 ? 0 : ((size_t)n >= sizeof err->text ? sizeof err->text - 1 : (size_t)n);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text + off, sizeof err->text - off, fmt, ap);
    va_end(ap);
    err->set = 1;
    return -1;
}

int mlia_error_prefix(mlia_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char prefix[MLIA_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[MLIA_ERROR_MAX];
    memcpy(old, err->text, sizeof old);
    size_t pl = strnlen(prefix, sizeof prefix - 1);
    size_t ol = strnlen(old, sizeof old - 1);
    if (pl > sizeof err->text - 1)
        pl = sizeof err->text - 1;
    if (ol > sizeof err->text - 1 - pl)
        ol = sizeof err->text - 1 - pl;
    memcpy(err->text, prefix, pl);
    memcpy(err->text + pl, old, ol);
    err->text[pl + ol] = 0;
    err->set = 1;
    return -1;
}
