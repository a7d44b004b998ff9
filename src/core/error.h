/*
 * error.h - one error message per failed operation.
 *
 * Every fallible function takes an `mlia_error *err` and returns 0 on success
 * or -1 on failure after filling err->text. The text is the part of the CLI
 * line after "mlia: error: ", i.e. "<file>: <what>" where <what> names the
 * byte offset or field path for binary formats. The caller owns the struct
 * (usually on the stack); nothing in it needs freeing.
 */
#ifndef MLIA_CORE_ERROR_H
#define MLIA_CORE_ERROR_H

#include <stddef.h>

#define MLIA_ERROR_MAX 2048

typedef struct mlia_error {
    int set;                   /* nonzero once an error was recorded */
    char text[MLIA_ERROR_MAX]; /* "<file>: <what>" (or just "<what>" when file is NULL) */
} mlia_error;

/* Reset to "no error". */
void mlia_error_clear(mlia_error *err);
/* Record "<file>: <formatted>" (file may be NULL). Keeps the first error:
 * a second call while err->set is nonzero does nothing. Returns -1 so callers
 * can write `return mlia_error_setf(...)`. err may be NULL. */
int mlia_error_setf(mlia_error *err, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Prefix an existing message: "<prefix><old text>" (used to add context such
 * as a run/segment position). Returns -1. */
int mlia_error_prefix(mlia_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
