/*
 * file.h - an input file read into private memory.
 *
 * Inputs are read once into a buffer owned by the mlia_file instead of being
 * mapped: a shared mapping of a file that another process truncates raises
 * SIGBUS on the next access (file.c explains the choice). Empty files are
 * represented with data == NULL and size == 0.
 *
 * Only regular files are accepted: FIFOs and devices are refused before any
 * read could block (see mlia_file_check_regular).
 *
 * Ownership: the bytes belong to the mlia_file; every pointer a reader
 * returns into them is valid until mlia_file_close().
 */
#ifndef MLIA_CORE_FILE_H
#define MLIA_CORE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Largest input read (a guard against reading a sparse or huge file that no
 * real ExecuTorch artifact comes close to). */
#define MLIA_FILE_MAX_SIZE (16ull << 30)

typedef struct mlia_file {
    const char *path;      /* borrowed from the caller */
    const uint8_t *data;   /* the bytes (one spare byte after them), or NULL when size == 0 */
    size_t size;
    int mapped;            /* 2 when data must be free()'d */
} mlia_file;

/* Read `path`. Errors: "<path>: No such file or directory" style messages,
 * "<path>: is a directory", "<path>: is a FIFO (named pipe), not a regular
 * file" (also character/block device, socket), "<path>: file changed while
 * being read (...)". */
int mlia_file_open(mlia_file *f, const char *path, mlia_error *err);
void mlia_file_close(mlia_file *f);
/* Read a whole file into a malloc'ed NUL-terminated buffer. Caller frees *out. */
int mlia_file_slurp(const char *path, char **out, size_t *size, mlia_error *err);

/* "a FIFO (named pipe)", "a character device", ... for a st_mode value. */
const char *mlia_file_kind(unsigned mode);
/* 0 for a regular file; otherwise sets "<path>: is a directory" or
 * "<path>: is <kind>, not a regular file" and returns -1. */
int mlia_file_check_regular(const char *path, unsigned mode, mlia_error *err);

#endif
