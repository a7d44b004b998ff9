/*
 * file.h - read-only memory mapping of an input file.
 *
 * Inputs can be hundreds of MB (1,000,000-event ETDumps); mapping them lets
 * readers work in place without copying. Empty files are represented with
 * data == NULL and size == 0 (mmap of length 0 is invalid).
 *
 * Ownership: the mapping belongs to the mlia_file; every pointer a reader
 * returns into it is valid until mlia_file_close().
 */
#ifndef MLIA_CORE_FILE_H
#define MLIA_CORE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

typedef struct mlia_file {
    const char *path;      /* borrowed from the caller */
    const uint8_t *data;   /* mapped bytes, or NULL when size == 0 */
    size_t size;
    int mapped;            /* 1 when data must be munmap'ed, 2 when free()'d */
} mlia_file;

/* Map `path`. Errors: "<path>: No such file or directory" style messages,
 * and "<path>: is a directory". */
int mlia_file_open(mlia_file *f, const char *path, mlia_error *err);
void mlia_file_close(mlia_file *f);
/* Read a whole file into a malloc'ed NUL-terminated buffer (for small files
 * and tests). Caller frees *out. */
int mlia_file_slurp(const char *path, char **out, size_t *size, mlia_error *err);

#endif
