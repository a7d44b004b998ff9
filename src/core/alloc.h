/*
 * alloc.h - the library's heap allocations, accounted per public call.
 *
 * Why: out of memory is a longjmp to the call's recovery point (oom.h). The
 * arenas and the structures their owners free on the error path are fine,
 * but plain malloc'd buffers held in the frames the jump unwinds (a trace
 * writer's chunk, a joined path, a stream's buffer) were lost: the
 * allocation-failure sweep (`make oom-sweep`, docs/hardening.md) found them
 * on most failure points. Rather than a cleanup handler at each of those
 * frames, each public call keeps a ledger of the heap blocks the library
 * allocated during the call and has not freed. When the call ends with an
 * error after an out-of-memory jump, every owner has run its cleanup by the
 * time the ledger closes, so what is left in it is exactly what the jump
 * orphaned, and the ledger frees it. On success (or an ordinary error) the
 * ledger forgets its blocks: they belong to their owners and to the caller.
 *
 * How: this header is force-included (-include, Makefile LIB_CFLAGS) into
 * every library object after the system headers it needs, so that malloc,
 * calloc, realloc, free, strdup and realpath(p, NULL) in src/ are these
 * wrappers; code outside the library (the CLI, tests, hosts) is untouched.
 * Without an open ledger on the calling thread the wrappers are the plain
 * functions. A ledger is a hash set of pointers (no header in the blocks,
 * so any block may still be released with plain free by whoever owns it);
 * its own table uses the plain allocator, and if that fails it stops
 * tracking (blocks may then leak on an out-of-memory error, never be freed
 * twice).
 */
#ifndef MLIA_CORE_ALLOC_H
#define MLIA_CORE_ALLOC_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct mlia_ledger {
    pthread_mutex_t mu;     /* threads of the call share it */
    void **slots;           /* open addressing; NULL empty, LEDGER_GONE removed */
    size_t cap, used, live;
    bool broken;            /* the table could not grow: tracking stopped */
    bool oom;               /* an out-of-memory jump happened in this call */
    int depth;              /* nested public calls join the outermost ledger */
    struct mlia_ledger *outer_current; /* the thread's ledger before open */
} mlia_ledger;

/* Opens the ledger of a public call on this thread (or joins the one
 * already open: a public call made inside another). */
void mlia_ledger_open(mlia_ledger *l);
/* Ends the call: with `failed` and an out-of-memory jump noted, frees every
 * block still in the ledger; otherwise forgets them. Restores the thread's
 * previous ledger. */
void mlia_ledger_close(mlia_ledger *l, bool failed);
/* The calling thread's open ledger (NULL none), and adopting it on a thread
 * the library started (pair with mlia_ledger_set(NULL) before it ends). */
mlia_ledger *mlia_ledger_current(void);
void mlia_ledger_set(mlia_ledger *l);
/* An out-of-memory jump reached a recovery point of this call. */
void mlia_ledger_note_oom(void);
/* `p` is handed to the caller (an error text): never freed by the ledger. */
void mlia_ledger_forget(void *p);

void *mlia_ledger_malloc(size_t n);
void *mlia_ledger_calloc(size_t a, size_t b);
void *mlia_ledger_realloc(void *p, size_t n);
void mlia_ledger_free(void *p);
char *mlia_ledger_strdup(const char *s);
char *mlia_ledger_realpath(const char *path, char *resolved);

#ifndef MLIA_LEDGER_IMPLEMENTATION
#undef malloc
#undef calloc
#undef realloc
#undef free
#undef strdup
#undef realpath
#define malloc(n) mlia_ledger_malloc(n)
#define calloc(a, b) mlia_ledger_calloc(a, b)
#define realloc(p, n) mlia_ledger_realloc(p, n)
#define free(p) mlia_ledger_free(p)
#define strdup(s) mlia_ledger_strdup(s)
#define realpath(p, r) mlia_ledger_realpath(p, r)
#endif

#endif
