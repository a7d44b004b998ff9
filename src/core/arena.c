/*
 * arena.c - chunked bump allocator (see arena.h).
 */
#include "arena.h"
#include "core/assert.h"
#include "core/cnum.h"
#include "oom.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

struct mlia_arena_chunk {
    mlia_arena_chunk *next;
    size_t cap;
    size_t used;
    size_t mapped;      /* bytes mmap'ed (huge blocks), 0 when malloc'ed */
    _Alignas(16) unsigned char data[];
};

#define MLIA_ARENA_MIN_CHUNK ((size_t)64 * 1024)
#define MLIA_ARENA_HUGE ((size_t)8 * 1024 * 1024)

static _Noreturn void arena_oom(size_t size)
{
    mlia_oom(size);
}

void mlia_arena_init(mlia_arena *a)
{
    a->head = NULL;
    a->total = 0;
    a->limit = 0;
    a->chunk = 0;
}

void mlia_arena_free(mlia_arena *a)
{
    mlia_arena_chunk *c = a->head;
    while (c) {
        mlia_arena_chunk *n = c->next;
        if (c->mapped)
            munmap(c, c->mapped);
        else
            free(c);
        c = n;
    }
    a->head = NULL;
    a->total = 0;
}

/* Room for size bytes, aligned to 16, zero-filled: chunks come zero-filled
 * and no byte is handed out twice, so nothing is zeroed here (issue 33
 * item 1: callers that write every byte pay no memset either). */
static void *arena_take(mlia_arena *a, size_t size)
{
    size_t need = (size + 15u) & ~(size_t)15u;
    if (need < size)
        arena_oom(size);
    if (a->limit && (need > a->limit || a->total > a->limit - need))
        mlia_oom_limit(size, a->limit);
    mlia_arena_chunk *c = a->head;
    if (!c || c->cap - c->used < need) {
        size_t min_chunk = a->chunk > MLIA_ARENA_MIN_CHUNK ? a->chunk : MLIA_ARENA_MIN_CHUNK;
        bool big = need > min_chunk / 2;
        size_t cap = big ? need : min_chunk;
        if (cap > SIZE_MAX - sizeof(mlia_arena_chunk))
            arena_oom(size);
        /* Every chunk comes zero-filled (calloc: fresh kernel pages need no
         * memset; mapped blocks are anonymous zero pages), so an allocation
         * never zeroes again: a bump allocator never hands out a byte twice,
         * so the room past `used` is still 0 (one touch instead of two). */
        mlia_arena_chunk *n = NULL;
        size_t mapped = 0;
        if (cap >= MLIA_ARENA_HUGE) {
            /* Huge blocks (parsed trees of large programs): anonymous
             * zero pages, with transparent huge pages requested so that
             * first-touch page faults come in 2 MB units. */
            mapped = sizeof(mlia_arena_chunk) + cap;
            void *p = mmap(NULL, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            if (p == MAP_FAILED)
                arena_oom(size);
#ifdef MADV_HUGEPAGE
            madvise(p, mapped, MADV_HUGEPAGE);
#endif
            n = p;
        } else {
            n = calloc(1, sizeof(mlia_arena_chunk) + cap);
        }
        if (!n)
            arena_oom(size);
        n->mapped = mapped;
        n->cap = cap;
        n->used = 0;
        if (c && big) {
            /* Large block: link behind the head so the head's free space stays usable. */
            n->next = c->next;
            c->next = n;
        } else {
            n->next = c;
            a->head = n;
        }
        c = n;
    }
    /* the chunk chosen above has room, and every block stays 16-aligned */
    MLIA_ASSERT(c->used <= c->cap && c->cap - c->used >= need);
    void *p = c->data + c->used;
    MLIA_ASSERT(((uintptr_t)p & 15u) == 0);
    c->used += need;
    a->total += need;
    return p;
}

void *mlia_arena_alloc(mlia_arena *a, size_t size)
{
    return arena_take(a, size);
}

void *mlia_arena_array(mlia_arena *a, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        arena_oom(SIZE_MAX);
    return mlia_arena_alloc(a, n * size);
}

char *mlia_arena_strndup(mlia_arena *a, const char *s, size_t len)
{
    if (len == SIZE_MAX)
        arena_oom(SIZE_MAX);
    char *p = arena_take(a, len + 1); /* every byte written below */
    if (len)
        memcpy(p, s, len);
    p[len] = 0;
    return p;
}

char *mlia_arena_strdup(mlia_arena *a, const char *s)
{
    return mlia_arena_strndup(a, s, strlen(s));
}

char *mlia_arena_vprintf(mlia_arena *a, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    int n = mlia_vsnprintf(NULL, 0, fmt, ap);
    if (n < 0)
        n = 0;
    char *p = arena_take(a, (size_t)n + 1); /* written whole by the second call */
    mlia_vsnprintf(p, (size_t)n + 1, fmt, again);
    va_end(again);
    return p;
}

char *mlia_arena_printf(mlia_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = mlia_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void *mlia_arena_grow(mlia_arena *a, void *old, size_t old_n, size_t new_n, size_t size)
{
    /* The newest allocation of the head chunk grows in place when the chunk
     * has room: arrays grown by doubling (metrics per entity, slots) no
     * longer leave their previous copies behind. */
    mlia_arena_chunk *c = a->head;
    if (old && c && size && new_n >= old_n && new_n <= SIZE_MAX / size - 16) {
        size_t old_need = (old_n * size + 15u) & ~(size_t)15u;
        size_t new_need = (new_n * size + 15u) & ~(size_t)15u;
        size_t extra = new_need - old_need;
        if ((unsigned char *)old + old_need == c->data + c->used && c->cap - c->used >= extra &&
            !(a->limit && (extra > a->limit || a->total > a->limit - extra))) {
            c->used += extra;
            a->total += extra;
            return old;
        }
    }
    if (size && new_n > SIZE_MAX / size)
        arena_oom(SIZE_MAX);
    /* the copied part is written by memcpy; the fresh room is zero already */
    size_t keep = old ? (old_n < new_n ? old_n : new_n) * size : 0;
    unsigned char *p = arena_take(a, new_n * size);
    if (keep)
        memcpy(p, old, keep);
    return p;
}

void *mlia_arena_room(mlia_arena *a, void *arr, size_t n, uint32_t *cap, size_t elem)
{
    if (n < *cap)
        return arr;
    uint32_t nc = *cap ? *cap * 2 : 4;
    arr = mlia_arena_grow(a, arr, n, nc, elem);
    *cap = nc;
    return arr;
}

const char **mlia_arena_warning_slot(mlia_arena *a, const char ***list, uint32_t *n, uint32_t *cap, uint32_t max,
                                     const char *suppressed)
{
    if (*n > max)
        return NULL;
    *list = mlia_arena_room(a, (void *)*list, *n, cap, sizeof **list);
    const char **slot = &(*list)[(*n)++];
    if (*n <= max)
        return slot;
    *slot = suppressed;
    return NULL;
}

static void scratch_free(void *a)
{
    mlia_arena_free(a);
}

void mlia_scratch_begin(mlia_scratch *s, const mlia_arena *owner)
{
    mlia_arena_init(&s->a);
    /* mapped chunks: freed memory goes back to the system at once (a parse
     * tree read on the worker thread would otherwise stay in that thread's
     * malloc arena, where the main thread never reuses it) */
    s->a.chunk = MLIA_ARENA_HUGE;
    if (owner->limit)
        s->a.limit = owner->limit > owner->total ? owner->limit - owner->total : 1;
    mlia_oom_push(&s->cleanup, scratch_free, &s->a);
}

void mlia_scratch_end(mlia_scratch *s)
{
    mlia_oom_pop(&s->cleanup);
    mlia_arena_free(&s->a);
}
