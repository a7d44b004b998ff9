/*
 * oom.h - one out-of-memory path for the whole library.
 *
 * Why: allocation failure used to be handled at each call site (exit(1) in
 * the arena, abort() elsewhere), which skipped every cleanup (temporary
 * output folders stayed behind), gave two different messages and exit codes,
 * and killed a Python process that had only called the library.
 *
 * Now every allocation failure calls mlia_oom(). When the calling thread has
 * entered a recovery point (mlia_oom_enter, done by mlia_check, mlia_inspect
 * and the ETRecord worker thread), mlia_oom() records "out of memory
 * (requested N bytes)" in the point and longjmps back to it; the pipeline
 * then reports "<file>: out of memory (requested N bytes)" through its
 * normal error path (exit 1, temporary folder removed). The library never
 * exits: every entry point (src/api/guard.h) and every thread the library
 * starts enters a recovery point, and so does the command line's main
 * (src/cli/main.c). Without one (a bug) mlia_oom prints an internal-error
 * line and aborts.
 *
 * The innermost recovery point is a thread-local pointer: the only mutable
 * state outside an explicit context, because the arena and the buffer
 * helpers have no error return by design. Memory allocated between the
 * recovery point and the failure and not owned by an arena may leak; the
 * process is about to report an error and end.
 */
#ifndef MLIA_CORE_OOM_H
#define MLIA_CORE_OOM_H

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"

/* A resource held in a local variable (a libzip handle) that an
 * out-of-memory jump would skip: registered with mlia_oom_push, released by
 * mlia_oom on its way to the recovery point (innermost first), unregistered
 * with mlia_oom_pop before the frame returns. Heap blocks need none (the
 * call's ledger frees them, core/alloc.h). Not run for a SIGBUS fault (a
 * signal handler must not free): those resources leak on that error. */
typedef struct mlia_oom_cleanup {
    void (*fn)(void *arg);
    void *arg;
    struct mlia_oom_cleanup *next;
} mlia_oom_cleanup;
void mlia_oom_push(mlia_oom_cleanup *c, void (*fn)(void *arg), void *arg);
void mlia_oom_pop(mlia_oom_cleanup *c);

typedef struct mlia_oom_point {
    jmp_buf jump;
    size_t requested;                 /* size of the failed request */
    size_t limit;                     /* nonzero: an arena limit was hit, not malloc */
    const char *fault_file;           /* non-NULL: a mapped input shrank (SIGBUS), see file.h */
    struct mlia_oom_point *outer;     /* restored by mlia_oom_leave */
    mlia_oom_cleanup *cleanups;       /* the thread's cleanups when the point was entered */
} mlia_oom_point;

/* A mapped input file was truncated under the reader (core/file.c's SIGBUS
 * handler): jump to the recovery point with p->fault_file = path. Returns
 * only when the thread has no recovery point; the handler then passes the
 * signal on as if it were not ours. Async-signal-safe. */
void mlia_oom_fault(const char *path);
/* The message for a point that received mlia_oom_fault. */
#define MLIA_FAULT_MESSAGE "file changed while being read (truncated while mapped)"

/* Memory a run may use in its arenas (docs/hardening.md): generous for any
 * real capture, but a few hundred KB of hostile input can no longer claim
 * gigabytes. */
#define MLIA_MEMORY_BASE ((size_t)512 << 20)
#define MLIA_MEMORY_RATIO 64u
/* MLIA_MEMORY_BASE + MLIA_MEMORY_RATIO x input_bytes, saturated. */
size_t mlia_memory_limit(unsigned long long input_bytes);

/* Make `p` the thread's recovery point; pair with mlia_oom_leave. Use as
 *     mlia_oom_enter(&p); if (setjmp(p.jump)) { ...report...; }
 * (setjmp must be called in the function that stays active). */
void mlia_oom_enter(mlia_oom_point *p);
void mlia_oom_leave(mlia_oom_point *p);

/* Allocation of `requested` bytes failed: jump to the recovery point (or,
 * with none, print an internal-error line and abort: see above). */
_Noreturn void mlia_oom(size_t requested);
/* An arena would grow beyond its limit (mlia_arena.limit): jump to the
 * recovery point with p->limit set (with none: as mlia_oom). */
_Noreturn void mlia_oom_limit(size_t requested, size_t limit);

/* How the memory-limit message names the work and what its limit scales
 * with: "<file>: <activity> needs more than the memory limit of N bytes
 * (B MiB + R x the <sizes>)". */
typedef struct mlia_oom_words {
    const char *activity; /* "analysis", "inspection", "comparison" */
    const char *sizes;    /* "input size", "file size"; NULL: the limit is the
                             caller's (mlia_check_options.memory_limit), said so */
} mlia_oom_words;
extern const mlia_oom_words MLIA_OOM_ANALYSIS, MLIA_OOM_INSPECTION, MLIA_OOM_COMPARISON;
/* the same work under a limit its caller set */
extern const mlia_oom_words MLIA_OOM_ANALYSIS_BY_HOST, MLIA_OOM_COMPARISON_BY_HOST;

/* The error for a recovery point that was jumped to, naming `file`:
 * "file changed while being read (truncated while mapped)" for a SIGBUS on
 * a mapped input (naming that input), the memory-limit message, or
 * "out of memory (requested N bytes)". Clears err first. */
void mlia_oom_error(mlia_error *err, const char *file, const mlia_oom_point *p, const mlia_oom_words *w);

/* Room for element n of a malloc'ed array of *cap elements of elem bytes:
 * arr while n < *cap, else arr realloc'ed to twice the room (first_cap the
 * first time) with *cap updated. Out of memory jumps (mlia_oom); the fresh
 * room is not cleared. The caller frees the array. */
void *mlia_heap_room(void *arr, size_t n, uint32_t *cap, size_t elem, uint32_t first_cap);
/* The same for at least `want` elements: arr while want <= *cap, else arr
 * realloc'ed to exactly want elements with *cap = want. */
void *mlia_heap_reserve(void *arr, uint32_t want, uint32_t *cap, size_t elem);

#endif
