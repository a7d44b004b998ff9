/*
 * shim.c - the process-wide allocation-failure shim of `make oom-sweep`
 * (tests/oom/process_sweep.py; docs/hardening.md, "Process-wide sweep").
 *
 * Built as a shared object and loaded with LD_PRELOAD into a plain (not
 * sanitized) `mlia` process. It replaces malloc, calloc, realloc,
 * reallocarray and the aligned allocators for the whole process: glibc lets
 * a program or a preloaded object do that, and then its own internal
 * allocations (strdup, fopen, opendir, getline, locale objects, thread
 * structures, ...) and those of every library (libzip, zlib, the C library)
 * come here too. The Nth allocation of the process, counted from the shim's
 * load, fails with ENOMEM; every other one goes to glibc's allocator
 * (__libc_malloc & co., which allocate nothing themselves on the way).
 *
 * Environment:
 *   OOM_SHIM_FAIL_AT=N      fail allocation N (1-based); absent or 0: none
 *   OOM_SHIM_COUNT_FD=fd    at exit, write the number of allocations made
 *                           and whether N was reached ("count fired\n") to
 *                           that descriptor (the driver's pipe)
 * The shim allocates nothing and keeps its state in three atomics; it reads
 * the environment in its constructor, before main.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);
extern void *__libc_memalign(size_t, size_t);
extern void __libc_free(void *);

static atomic_long counted;
static atomic_long fail_at;
static atomic_int fired;
static int count_fd = -1;

static long parse_env(const char *name, long dflt)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return dflt;
    long n = 0;
    for (; *v >= '0' && *v <= '9'; v++)
        n = n * 10 + (*v - '0');
    return n;
}

__attribute__((constructor(101))) static void shim_init(void)
{
    atomic_store(&fail_at, parse_env("OOM_SHIM_FAIL_AT", 0));
    count_fd = (int)parse_env("OOM_SHIM_COUNT_FD", -1);
}

/* Called at exit and from the driver's point of view the last word of the
 * process: no allocation, one write. */
__attribute__((destructor(101))) static void shim_report(void)
{
    if (count_fd < 0)
        return;
    char line[48];
    int k = snprintf(line, sizeof line, "%ld %d\n", atomic_load(&counted), atomic_load(&fired));
    if (k > 0) {
        ssize_t w = write(count_fd, line, (size_t)k);
        (void)w;
    }
}

static int should_fail(void)
{
    long n = atomic_fetch_add(&counted, 1) + 1;
    long f = atomic_load(&fail_at);
    if (f && n == f) {
        atomic_store(&fired, 1);
        errno = ENOMEM;
        return 1;
    }
    return 0;
}

void *malloc(size_t n)
{
    return should_fail() ? NULL : __libc_malloc(n);
}

void *calloc(size_t a, size_t b)
{
    return should_fail() ? NULL : __libc_calloc(a, b);
}

void *realloc(void *p, size_t n)
{
    /* realloc(p, 0) frees: not an allocation */
    if (p && n == 0)
        return __libc_realloc(p, n);
    return should_fail() ? NULL : __libc_realloc(p, n);
}

void *reallocarray(void *p, size_t a, size_t b)
{
    size_t n;
    if (__builtin_mul_overflow(a, b, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, n);
}

void free(void *p)
{
    __libc_free(p);
}

void *memalign(size_t align, size_t n)
{
    return should_fail() ? NULL : __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
    return should_fail() ? NULL : __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    if (align < sizeof(void *) || (align & (align - 1)))
        return EINVAL;
    if (should_fail())
        return ENOMEM;
    void *p = __libc_memalign(align, n);
    if (!p)
        return ENOMEM;
    *out = p;
    return 0;
}

void *valloc(size_t n)
{
    return memalign((size_t)sysconf(_SC_PAGESIZE), n);
}

void *pvalloc(size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return memalign(page, (n + page - 1) / page * page);
}
