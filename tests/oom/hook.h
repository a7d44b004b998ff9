/*
 * hook.h - the allocation-failure hook of `make oom-sweep` (tests/oom/README
 * in docs/hardening.md, "Allocation-failure sweep").
 *
 * Force-included (-include) into every library object of the sweep build
 * only; the normal build never sees it. Every allocation the library's own
 * code makes (malloc, calloc, realloc, strdup, realpath(p, NULL), fopen,
 * fdopendir) goes through a counting wrapper (tests/oom/hook.c) that fails
 * the Nth one with ENOMEM once armed. pthread_create is wrapped too and
 * always fails in the sweep: the library then does the worker's and the
 * trace helper's work on the calling thread (its documented fallback), so
 * the Nth allocation is the same one in every run and a failure can be
 * replayed by its number.
 *
 * The system headers come first so that their declarations are read before
 * the macros exist (their include guards keep them from being read again).
 */
#ifndef MLIA_TESTS_OOM_HOOK_H
#define MLIA_TESTS_OOM_HOOK_H
/* tells src/core/alloc.c to allocate through these wrappers */
#define MLIA_OOM_SWEEP_HOOK 1

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *mlia_hook_malloc(size_t n);
void *mlia_hook_calloc(size_t a, size_t b);
void *mlia_hook_realloc(void *p, size_t n);
char *mlia_hook_strdup(const char *s);
char *mlia_hook_realpath(const char *path, char *resolved);
FILE *mlia_hook_fopen(const char *path, const char *mode);
DIR *mlia_hook_fdopendir(int fd);
int mlia_hook_pthread_create(pthread_t *t, const pthread_attr_t *a, void *(*fn)(void *), void *arg);

#ifndef MLIA_HOOK_IMPLEMENTATION
#undef malloc
#undef calloc
#undef realloc
#undef strdup
#define malloc(n) mlia_hook_malloc(n)
#define calloc(a, b) mlia_hook_calloc(a, b)
#define realloc(p, n) mlia_hook_realloc(p, n)
#define strdup(s) mlia_hook_strdup(s)
#define realpath(p, r) mlia_hook_realpath(p, r)
#define fopen(p, m) mlia_hook_fopen(p, m)
#define fdopendir(fd) mlia_hook_fdopendir(fd)
#define pthread_create(t, a, f, x) mlia_hook_pthread_create(t, a, f, x)
#endif

/* The sweep's control (tests/oom/hook.c): allocations counted since the
 * last reset, and the one to fail (0: none). */
long mlia_hook_count(void);
void mlia_hook_arm(long fail_at);
int mlia_hook_fired(void);

#endif
