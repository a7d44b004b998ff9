/*
 * alloc.c - per-call ledger of heap blocks (see alloc.h).
 */
#define MLIA_LEDGER_IMPLEMENTATION
#include "core/alloc.h"

#include <stdint.h>

/* The allocator underneath: the plain one, or in the allocation-failure
 * sweep's build the counting hook (tests/oom/hook.h defines
 * MLIA_OOM_SWEEP_HOOK and is force-included before this file's header).
 * The plain functions are named in parentheses, `(malloc)(n)`: alloc.h and
 * the hook define malloc(...) and friends as function-like macros, which a
 * parenthesised name does not invoke. */
#ifdef MLIA_OOM_SWEEP_HOOK
#define RAW_MALLOC mlia_hook_malloc
#define RAW_CALLOC mlia_hook_calloc
#define RAW_REALLOC mlia_hook_realloc
#define RAW_STRDUP mlia_hook_strdup
#define RAW_REALPATH mlia_hook_realpath
#else
#define RAW_MALLOC (malloc)
#define RAW_CALLOC (calloc)
#define RAW_REALLOC (realloc)
#define RAW_STRDUP (strdup)
#define RAW_REALPATH (realpath)
#endif

#define LEDGER_GONE ((void *)1)

static _Thread_local mlia_ledger *current;

static size_t slot_of(const mlia_ledger *l, const void *p)
{
    uintptr_t h = (uintptr_t)p;
    h ^= h >> 17;
    h *= (uintptr_t)0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
    return (size_t)h & (l->cap - 1);
}

/* Under l->mu. */
static void grow(mlia_ledger *l)
{
    size_t cap = l->cap ? l->cap * 2 : 256;
    void **slots = (calloc)(cap, sizeof *slots); /* the plain allocator: never the sweep's hook */
    if (!slots) {
        l->broken = true;
        return;
    }
    void **old = l->slots;
    size_t old_cap = l->cap;
    l->slots = slots;
    l->cap = cap;
    l->used = l->live = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i] && old[i] != LEDGER_GONE) {
            size_t k = slot_of(l, old[i]);
            while (l->slots[k])
                k = (k + 1) & (l->cap - 1);
            l->slots[k] = old[i];
            l->used++;
            l->live++;
        }
    (free)(old);
}

static void track(void *p)
{
    mlia_ledger *l = current;
    if (!l || !p)
        return;
    pthread_mutex_lock(&l->mu);
    if (!l->broken && (l->used + 1) * 4 >= l->cap * 3)
        grow(l);
    if (!l->broken) {
        size_t k = slot_of(l, p);
        while (l->slots[k] && l->slots[k] != LEDGER_GONE)
            k = (k + 1) & (l->cap - 1);
        if (!l->slots[k])
            l->used++;
        l->slots[k] = p;
        l->live++;
    }
    pthread_mutex_unlock(&l->mu);
}

static void untrack(void *p)
{
    mlia_ledger *l = current;
    if (!l || !p)
        return;
    pthread_mutex_lock(&l->mu);
    if (l->cap) {
        size_t k = slot_of(l, p);
        while (l->slots[k]) {
            if (l->slots[k] == p) {
                l->slots[k] = LEDGER_GONE;
                l->live--;
                break;
            }
            k = (k + 1) & (l->cap - 1);
        }
    }
    pthread_mutex_unlock(&l->mu);
}

void mlia_ledger_open(mlia_ledger *l)
{
    if (current) {
        current->depth++;
        l->depth = -1; /* joined: close only gives the depth back */
        return;
    }
    memset(l, 0, sizeof *l);
    pthread_mutex_init(&l->mu, NULL);
    l->depth = 1;
    current = l;
}

void mlia_ledger_close(mlia_ledger *l, bool failed)
{
    if (l->depth == -1) {
        if (current)
            current->depth--;
        return;
    }
    current = NULL;
    if (failed && l->oom)
        for (size_t i = 0; i < l->cap; i++)
            if (l->slots[i] && l->slots[i] != LEDGER_GONE)
                (free)(l->slots[i]);
    (free)(l->slots);
    pthread_mutex_destroy(&l->mu);
    memset(l, 0, sizeof *l);
}

mlia_ledger *mlia_ledger_current(void) { return current; }
void mlia_ledger_set(mlia_ledger *l) { current = l; }

void mlia_ledger_note_oom(void)
{
    if (current)
        current->oom = true;
}

void mlia_ledger_forget(void *p) { untrack(p); }

void *mlia_ledger_malloc(size_t n)
{
    void *p = RAW_MALLOC(n);
    track(p);
    return p;
}

void *mlia_ledger_calloc(size_t a, size_t b)
{
    void *p = RAW_CALLOC(a, b);
    track(p);
    return p;
}

void *mlia_ledger_realloc(void *p, size_t n)
{
    /* out of the ledger first (the old pointer is not to be used after a
     * successful realloc, not even as a key), back in whichever survives */
    untrack(p);
    void *q = RAW_REALLOC(p, n);
    if (q)
        track(q);
    else if (n)
        track(p); /* failed: p is still the caller's (realloc(p, 0) freed it) */
    return q;
}

void mlia_ledger_free(void *p)
{
    untrack(p);
    (free)(p);
}

char *mlia_ledger_strdup(const char *s)
{
    char *p = RAW_STRDUP(s);
    track(p);
    return p;
}

char *mlia_ledger_realpath(const char *path, char *resolved)
{
    char *p = RAW_REALPATH(path, resolved);
    if (!resolved)
        track(p);
    return p;
}
