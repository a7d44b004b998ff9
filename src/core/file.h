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

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

/* Largest input read (a guard against reading a sparse or huge file that no
 * real ExecuTorch artifact comes close to). */
#define MLIA_FILE_MAX_SIZE (16ull << 30)

typedef struct mlia_file {
    const char *path;      /* borrowed from the caller */
    const uint8_t *data;   /* the bytes (one spare byte after them when read), or NULL when size == 0 */
    size_t size;
    int mapped;            /* 1 mmap'ed (mlia_file_map), 2 malloc'ed (mlia_file_open),
                              3 opened only (mlia_file_open_unread: data NULL, read with mlia_file_pread) */
    int fd;                /* mapped and opened-only files: kept open; else -1 */
    /* mapped files: consumed spans not yet released (mlia_file_release),
     * under release_mu (two threads may decode the same mapping) */
    struct {
        uint64_t lo, hi;
    } pending[4];
    uint32_t n_pending;
    uint64_t pending_events;
    pthread_mutex_t release_mu;
} mlia_file;

/* Read `path`. Errors: "<path>: No such file or directory" style messages,
 * "<path>: is a directory", "<path>: is a FIFO (named pipe), not a regular
 * file" (also character/block device, socket), "<path>: file changed while
 * being read (...)". */
int mlia_file_open(mlia_file *f, const char *path, mlia_error *err);
void mlia_file_close(mlia_file *f);

/* Map `path` read-only instead of reading it: for the ETDump, which is read
 * as a stream (formats/etdump.h) and may be gigabytes. Same checks and
 * messages as mlia_file_open. The pages the reader has consumed are dropped
 * from the process with mlia_file_release; the bytes stay readable (they are
 * read again from the page cache when touched).
 *
 * Truncation by another process: a SIGBUS handler (installed at the first
 * mapping unless the host opted out, passing every SIGBUS that is not a
 * fault in a mapping of this thread to the previous handler) turns an access beyond the new end into
 * mlia_oom_fault(path), i.e. "<path>: file changed while being read
 * (truncated while mapped)" through the calling thread's recovery point.
 * Only the thread that mapped the file is covered: other threads must read
 * the file with pread (mlia_file_sha256_hex does). */
int mlia_file_map(mlia_file *f, const char *path, mlia_error *err);
/* Put a mapped file under the calling thread's SIGBUS guard too (a second
 * thread reading it); undo with mlia_file_unguard on that thread. No-op for
 * files that are not mapped. */
void mlia_file_guard(const mlia_file *f);
/* The host's opt-out of the SIGBUS handler (mlia_sigbus_guard, mlia.h):
 * enable 0 removes the handler when it is still the installed one and keeps
 * later mappings from installing it; 1 allows it again. Returns the previous
 * setting. */
int mlia_file_sigbus_guard(int enable);
void mlia_file_unguard(const mlia_file *f);
/* The reader has consumed bytes [lo, hi) (n_events events): once enough
 * has accumulated (MLIA_FILE_RELEASE_EVENTS), the pages of the accumulated
 * span are dropped from the process with madvise(MADV_DONTNEED). Batching
 * keeps the system calls rare; the span keeps them cheap (madvise costs
 * grow with the range, so the whole mapping is never passed). No-op for
 * files that are not mapped. `f` is an mlia_file *; void * so that it fits
 * etdump.release. */
#define MLIA_FILE_RELEASE_EVENTS 32768u
#define MLIA_FILE_PENDING_SPANS 4u
void mlia_file_release(void *f, uint64_t lo, uint64_t hi, uint32_t n_events);
/* Open `path` without reading or mapping it (same checks and messages as
 * mlia_file_open): size is set, data stays NULL, and the bytes are read on
 * demand with mlia_file_pread. For inputs that are consumed piece by piece
 * and may be far larger than the memory they deserve (the ETDump debug
 * buffer: formats/debug_buffer.h). */
int mlia_file_open_unread(mlia_file *f, const char *path, mlia_error *err);
/* Copy bytes [off, off + n) of the file to dst: from memory, or with pread
 * for files opened with mlia_file_open_unread. The range must lie within
 * f->size; a file that became shorter meanwhile fails with "<path>: file
 * changed while being read (it ends before byte offset <N>)". */
int mlia_file_pread(const mlia_file *f, uint64_t off, void *dst, size_t n, mlia_error *err);
/* SHA-256 of the file's bytes: from memory, or with pread for mapped files.
 * Returns -1 with "<path>: file changed while being read ..." when the file
 * shrank. */
int mlia_file_sha256_hex(const mlia_file *f, char out[65], mlia_error *err);
/* Read a whole file into a malloc'ed NUL-terminated buffer. Caller frees *out. */
int mlia_file_slurp(const char *path, char **out, size_t *size, mlia_error *err);

/* "a FIFO (named pipe)", "a character device", ... for a st_mode value. */
const char *mlia_file_kind(unsigned mode);
/* 0 for a regular file; otherwise sets "<path>: is a directory" or
 * "<path>: is <kind>, not a regular file" and returns -1. */
int mlia_file_check_regular(const char *path, unsigned mode, mlia_error *err);
/* Open path read-only without blocking (O_NONBLOCK, O_NOCTTY, O_CLOEXEC) and
 * check that it is a regular file; *size its size. Returns the fd, or -1 with
 * err set (the strerror text, or mlia_file_check_regular's). The caller closes it. */
int mlia_file_open_regular_fd(const char *path, uint64_t *size, mlia_error *err);

#endif
