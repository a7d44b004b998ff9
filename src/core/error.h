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

/* Why an operation failed, beside its text: the public mlia_status codes
 * (include/mlia/mlia.h) are made from it, MLIA_STATUS_INPUT_FORMAT being
 * 1 | (MLIA_ERROR_KIND_FORMAT << 8) and so on. */
typedef enum mlia_error_kind {
    MLIA_ERROR_KIND_NONE = 0,      /* an input or analysis error */
    MLIA_ERROR_KIND_FORMAT,        /* an input's bytes are not what its format says */
    MLIA_ERROR_KIND_IO,            /* a file could not be opened, read or written */
    MLIA_ERROR_KIND_MEMORY_LIMIT,  /* the work outgrew its memory limit */
    MLIA_ERROR_KIND_OUT_OF_MEMORY, /* an allocation failed */
    MLIA_ERROR_KIND_MISMATCH,      /* inputs of different programs */
    MLIA_ERROR_KIND_HISTORY        /* the run history cannot be opened, read or written */
} mlia_error_kind;

typedef struct mlia_error {
    int set;                   /* nonzero once an error was recorded */
    int kind;                  /* mlia_error_kind of the first error */
    char text[MLIA_ERROR_MAX]; /* "<file>: <what>" (or just "<what>" when file is NULL) */
} mlia_error;

/* Copy `len` bytes of untrusted text to `dst` (capacity `cap` > 0, always
 * NUL-terminated) so that it is safe on a terminal and stays on one line:
 *   "\n" "\r" "\t" become the two characters \n \r \t;
 *   other C0 controls, DEL and every byte that is not part of a valid UTF-8
 *   sequence become \xNN (two lower-case hex digits);
 *   C1 controls (U+0080-U+009F) and the bidirectional overrides/isolates
 *   (U+202A-U+202E, U+2066-U+2069) become \uNNNN;
 *   everything else, valid UTF-8 included, is copied unchanged.
 * A backslash is kept as is, so escaping twice changes nothing. Output that
 * does not fit is cut before the escape or character that would not fit.
 * Returns the length written. Every error message goes through it
 * (mlia_error_setf, mlia_error_prefix), so does everything the CLI prints on
 * stderr and every log line. */
size_t mlia_escape_text(char *dst, size_t cap, const char *src, size_t len);

/* Reset to "no error". */
void mlia_error_clear(mlia_error *err);
/* Record "<file>: <formatted>" (file may be NULL). Keeps the first error:
 * a second call while err->set is nonzero does nothing. Returns -1 so callers
 * can write `return mlia_error_setf(...)`. err may be NULL. */
int mlia_error_setf(mlia_error *err, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* mlia_error_setf with the error's kind. Returns -1. */
int mlia_error_setkf(mlia_error *err, mlia_error_kind kind, const char *file, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Gives an error already recorded its kind, unless it has one (the first
 * word stays: a read error inside a reader is I/O, not format). Returns -1. */
int mlia_error_mark(mlia_error *err, mlia_error_kind kind);
/* The byte position a message names ("at byte N", "at byte offset N", the
 * readers' wording), or -1. */
long long mlia_error_text_offset(const char *text);
/* Prefix an existing message: "<prefix><old text>" (used to add context such
 * as a run/segment position). Returns -1. */
int mlia_error_prefix(mlia_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
