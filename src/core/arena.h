/*
 * arena.h - bump allocator that owns every object of one analysis.
 *
 * Why: readers produce many small read-only objects (strings, node records,
 * index arrays). Freeing them one by one is error-prone and slow, so every
 * reader and analysis step allocates from an arena owned by the caller and
 * everything is released at once with mlia_arena_free().
 *
 * Ownership: memory returned by mlia_arena_* belongs to the arena; never
 * free() it. Allocation failure (or exceeding `limit`) never returns: it goes
 * to mlia_oom() / mlia_oom_limit() (core/oom.h), which jumps back to the
 * pipeline's recovery point so that the run ends with one error line, or
 * exits with status 1 when there is none.
 */
#ifndef MLIA_CORE_ARENA_H
#define MLIA_CORE_ARENA_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "core/oom.h"

typedef struct mlia_arena_chunk mlia_arena_chunk;

typedef struct mlia_arena {
    mlia_arena_chunk *head;   /* newest chunk */
    size_t total;             /* bytes handed out, for statistics and the limit */
    size_t limit;             /* 0: none; else an allocation that would take total
                               * beyond it calls mlia_oom_limit() (core/oom.h) */
    size_t chunk;             /* 0: 64 KiB chunks from malloc; else chunks of this size,
                               * mapped from 8 MiB up (mlia_scratch: given back to the
                               * system when freed, whichever thread allocated them) */
} mlia_arena;

/* Initialise an empty arena (no allocation happens until first use). */
void mlia_arena_init(mlia_arena *a);
/* Release every chunk; the arena may be reused afterwards. */
void mlia_arena_free(mlia_arena *a);
/* Zero-filled allocation aligned to 16 bytes. size 0 returns a valid pointer. */
void *mlia_arena_alloc(mlia_arena *a, size_t size);
/* Zero-filled array of n elements of size each; aborts on overflow. */
void *mlia_arena_array(mlia_arena *a, size_t n, size_t size);
/* Copy len bytes and append a NUL. */
char *mlia_arena_strndup(mlia_arena *a, const char *s, size_t len);
char *mlia_arena_strdup(mlia_arena *a, const char *s);
/* printf into the arena. */
char *mlia_arena_printf(mlia_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *mlia_arena_vprintf(mlia_arena *a, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
/* Grow an arena array: returns a new array of new_n elements holding the old_n
 * old ones (old storage is simply abandoned inside the arena). */
void *mlia_arena_grow(mlia_arena *a, void *old, size_t old_n, size_t new_n, size_t size);
/* Room for element n of an arena array of *cap elements: arr itself while
 * n < *cap, else a copy with twice the room (at least 4) and *cap updated.
 * Fresh room is zero-filled. */
void *mlia_arena_room(mlia_arena *a, void *arr, size_t n, uint32_t *cap, size_t elem);
/* A scratch arena for intermediate data whose results go to `owner` (a
 * parse tree read into a program): it may use what owner has left under
 * owner's limit, and it is released by mlia_scratch_end() or by an
 * out-of-memory jump (its huge chunks are mapped, not on the heap ledger). */
typedef struct mlia_scratch {
    mlia_arena a;
    mlia_oom_cleanup cleanup;
} mlia_scratch;
void mlia_scratch_begin(mlia_scratch *s, const mlia_arena *owner);
void mlia_scratch_end(mlia_scratch *s);
/* Next slot of a reader's bounded warning list (*n entries, *cap slots):
 * counts the entry and returns its slot for the caller's warning, while the
 * list holds fewer than max. The call after that stores `suppressed` (the
 * reader's "further warnings suppressed" line) as entry max + 1 and returns
 * NULL, as does every later call (vgf.c, spirv.c). */
const char **mlia_arena_warning_slot(mlia_arena *a, const char ***list, uint32_t *n, uint32_t *cap, uint32_t max,
                                     const char *suppressed);

#endif
