/*
 * oom.c - the out-of-memory path (see oom.h).
 */
#include "core/oom.h"

#include "core/alloc.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local mlia_oom_point *current_point;
static _Thread_local mlia_oom_cleanup *cleanups;

void mlia_oom_push(mlia_oom_cleanup *c, void (*fn)(void *arg), void *arg)
{
    *c = (mlia_oom_cleanup){.fn = fn, .arg = arg, .next = cleanups};
    cleanups = c;
}

void mlia_oom_pop(mlia_oom_cleanup *c)
{
    if (cleanups == c)
        cleanups = c->next;
}

/* Runs the cleanups of the frames a jump to p unwinds. */
static void unwind_to(mlia_oom_point *p, bool run)
{
    while (cleanups && cleanups != p->cleanups) {
        mlia_oom_cleanup *c = cleanups;
        cleanups = c->next;
        if (run)
            c->fn(c->arg);
    }
}

/* Out of memory on a thread without a recovery point. Every path of the
 * library runs under one (src/api/guard.h for the entry points, their own
 * for the threads the library starts; the command line's main enters one
 * too, src/cli/main.c), so this is a missing recovery point: a bug. The
 * library never calls exit() (the host decides when its process ends), and
 * returning is impossible here (the caller has no error path), so it says
 * what happened and aborts, which a host can see (SIGABRT, core dump) and
 * which runs no atexit handler of the host's in a half-broken state. */
_Noreturn static void no_point(const char *what, size_t requested, size_t limit)
{
    if (limit)
        fprintf(stderr, "mlia: internal error: %s outside a recovery point (limit %zu bytes, requested %zu bytes)\n",
                what, limit, requested);
    else
        fprintf(stderr, "mlia: internal error: %s outside a recovery point (requested %zu bytes)\n", what,
                requested);
    abort();
}

void mlia_oom_enter(mlia_oom_point *p)
{
    p->requested = 0;
    p->limit = 0;
    p->fault_file = NULL;
    p->cleanups = cleanups;
    p->outer = current_point;
    current_point = p;
}

void mlia_oom_leave(mlia_oom_point *p)
{
    if (current_point == p)
        current_point = p->outer;
}

_Noreturn void mlia_oom(size_t requested)
{
    mlia_oom_point *p = current_point;
    if (p) {
        mlia_ledger_note_oom(); /* the call's ledger frees what the jump orphans (alloc.h) */
        unwind_to(p, true);
        /* The point is consumed: a second failure while reporting the first
         * goes to the outer point. */
        current_point = p->outer;
        p->requested = requested;
        longjmp(p->jump, 1);
    }
    no_point("out of memory", requested, 0);
}

_Noreturn void mlia_oom_limit(size_t requested, size_t limit)
{
    mlia_oom_point *p = current_point;
    if (p) {
        mlia_ledger_note_oom();
        unwind_to(p, true);
        current_point = p->outer;
        p->requested = requested;
        p->limit = limit;
        longjmp(p->jump, 1);
    }
    no_point("memory limit exceeded", requested, limit);
}

size_t mlia_memory_limit(unsigned long long input_bytes)
{
    if (input_bytes > (SIZE_MAX - MLIA_MEMORY_BASE) / MLIA_MEMORY_RATIO)
        return SIZE_MAX;
    return MLIA_MEMORY_BASE + (size_t)input_bytes * MLIA_MEMORY_RATIO;
}

void mlia_oom_fault(const char *path)
{
    mlia_oom_point *p = current_point;
    if (p) {
        mlia_ledger_note_oom();
        unwind_to(p, false); /* in a signal handler: nothing may be freed */
        current_point = p->outer;
        p->fault_file = path;
        longjmp(p->jump, 1);
    }
    /* no recovery point: the caller (the SIGBUS handler) passes the fault on */
}

const mlia_oom_words MLIA_OOM_ANALYSIS = {"analysis", "input size"};
const mlia_oom_words MLIA_OOM_INSPECTION = {"inspection", "file size"};
const mlia_oom_words MLIA_OOM_COMPARISON = {"comparison", "input size"};
const mlia_oom_words MLIA_OOM_ANALYSIS_BY_HOST = {"analysis", NULL};
const mlia_oom_words MLIA_OOM_COMPARISON_BY_HOST = {"comparison", NULL};

void mlia_oom_error(mlia_error *err, const char *file, const mlia_oom_point *p, const mlia_oom_words *w)
{
    mlia_error_clear(err);
    if (p->fault_file)
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, p->fault_file, MLIA_FAULT_MESSAGE);
    else if (p->limit && !w->sizes)
        mlia_error_setkf(err, MLIA_ERROR_KIND_MEMORY_LIMIT, file,
                         "%s needs more than the memory limit of %zu bytes (the caller's memory_limit)", w->activity,
                         p->limit);
    else if (p->limit)
        mlia_error_setkf(err, MLIA_ERROR_KIND_MEMORY_LIMIT, file,
                         "%s needs more than the memory limit of %zu bytes (%u MiB + %u x the %s)", w->activity,
                         p->limit, (unsigned)(MLIA_MEMORY_BASE >> 20), MLIA_MEMORY_RATIO, w->sizes);
    else if (p->requested)
        mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, file, "out of memory (requested %zu bytes)",
                         p->requested);
    else
        mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, file, "out of memory");
}

void *mlia_heap_reserve(void *arr, uint32_t want, uint32_t *cap, size_t elem)
{
    if (want <= *cap)
        return arr;
    void *p = realloc(arr, (size_t)want * elem);
    if (!p)
        mlia_oom((size_t)want * elem);
    *cap = want;
    return p;
}

void *mlia_heap_room(void *arr, size_t n, uint32_t *cap, size_t elem, uint32_t first_cap)
{
    if (n < *cap)
        return arr;
    return mlia_heap_reserve(arr, *cap ? *cap * 2 : first_cap, cap, elem);
}
