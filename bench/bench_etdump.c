/*
 * bench_etdump.c - reader throughput on a large ETDump.
 *
 *   build/bench/bench_etdump FILE [repeat]
 *
 * Maps FILE once, then parses it `repeat` times (default 5) and prints the
 * best and median wall time, events per second and the peak RSS. Figures, not
 * assertions: machines here are shared and noisy, so compare ratios within
 * one run (bench/run.sh prints the reader time next to the whole check).
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

#include "core/arena.h"
#include "core/file.h"
#include "formats/etdump.h"

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FILE [repeat]\n", argv[0]);
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    if (repeat < 1 || repeat > 100)
        repeat = 5;
    mlia_error err;
    mlia_error_clear(&err);
    mlia_file f;
    if (mlia_file_open(&f, argv[1], &err)) {
        fprintf(stderr, "%s\n", err.text);
        return 1;
    }
    double t[100];
    uint64_t events = 0;
    for (int i = 0; i < repeat; i++) {
        mlia_arena a;
        mlia_arena_init(&a);
        etdump *d;
        double t0 = now_ms();
        if (etdump_read(f.data, f.size, argv[1], &a, &d, &err)) {
            fprintf(stderr, "%s\n", err.text);
            return 1;
        }
        t[i] = now_ms() - t0;
        events = 0;
        for (uint32_t r = 0; r < d->n_runs; r++)
            events += d->runs[r].n_events;
        mlia_arena_free(&a);
    }
    qsort(t, (size_t)repeat, sizeof *t, cmp_d);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    printf("etdump_read: %llu events, %.1f MB, best %.1f ms, median %.1f ms, %.1f M events/s, peak RSS %.1f MB\n",
           (unsigned long long)events, (double)f.size / 1e6, t[0], t[repeat / 2],
           (double)events / (t[0] / 1000.0) / 1e6, (double)ru.ru_maxrss / 1024.0);
    mlia_file_close(&f);
    return 0;
}
