/*
 * hook.c - the counting allocation wrappers of the sweep build (hook.h).
 */
#define MLIA_HOOK_IMPLEMENTATION
#include "hook.h"

#include <errno.h>
#include <stdatomic.h>

static atomic_long counted, fail_at;
static atomic_int fired;

void __sanitizer_print_stack_trace(void) __attribute__((weak));

static int should_fail(void)
{
    long n = atomic_fetch_add(&counted, 1) + 1;
    long f = atomic_load(&fail_at);
    if (f && n == f) {
        atomic_store(&fired, 1);
        /* OOM_SWEEP_TRACE=1: where the failed allocation was (replaying one N) */
        if (getenv("OOM_SWEEP_TRACE") && __sanitizer_print_stack_trace)
            __sanitizer_print_stack_trace();
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

long mlia_hook_count(void) { return atomic_load(&counted); }
int mlia_hook_fired(void) { return atomic_load(&fired); }

void mlia_hook_arm(long n)
{
    atomic_store(&counted, 0);
    atomic_store(&fired, 0);
    atomic_store(&fail_at, n);
}

void *mlia_hook_malloc(size_t n) { return should_fail() ? NULL : malloc(n); }
void *mlia_hook_calloc(size_t a, size_t b) { return should_fail() ? NULL : calloc(a, b); }
void *mlia_hook_realloc(void *p, size_t n) { return should_fail() ? NULL : realloc(p, n); }
char *mlia_hook_strdup(const char *s) { return should_fail() ? NULL : strdup(s); }

char *mlia_hook_realpath(const char *path, char *resolved)
{
    if (!resolved && should_fail())
        return NULL;
    return realpath(path, resolved);
}

FILE *mlia_hook_fopen(const char *path, const char *mode) { return should_fail() ? NULL : fopen(path, mode); }
DIR *mlia_hook_fdopendir(int fd) { return should_fail() ? NULL : fdopendir(fd); }

int mlia_hook_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg)
{
    (void)t, (void)a, (void)fn, (void)arg;
    return EAGAIN;
}
