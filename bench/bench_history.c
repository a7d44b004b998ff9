/*
 * bench_history.c - figures of the run history (docs/history.md "Figures"):
 *
 *   bench_history LOCATION [RUNS [OPERATORS [SERIES]]]
 *
 * records RUNS synthetic runs (default 10,000) of one program with
 * OPERATORS source operators (default 50) of SERIES metric series each
 * (default 8; P50, min and max each, 3 samples) plus the model's, into the
 * history at LOCATION (a fresh SQLite file or an empty PostgreSQL database),
 * labelled with a commit and one of 4 devices. Then prints: insert time per
 * run (mean over all, and over the last 1,000), the `mlia history` queries on
 * the full history (the default newest 20; all 10,000 runs; an operator's
 * trend over all; one device's label), the baseline of the history gate
 * (newest 10 runs as documents), the time to record one 2,000-operator run
 * into the full history, and the size per run (SQLite: the file; PostgreSQL:
 * the tables of the schema).
 *
 * Figures only, nothing asserted; the machine may be shared, so compare
 * ratios within one run.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "history/engine.h"
#include "history/history.h"

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct synth {
    mlia_result result;
    mlia_program_fingerprint fp;
    mlia_capture_info capture;
    mlia_run_record rec;
} synth;

static const char *const SERIES[] = {"execution_time", "kernel_time", "unattributed_time", "call_time",
                                     "total_cycles", "read_bytes", "write_bytes", "stall_cycles",
                                     "s8", "s9", "s10", "s11", "s12", "s13", "s14", "s15"};

static void synth_run(synth *s, mlia_arena *a, uint32_t ops, uint32_t series, uint32_t run, char fp_char)
{
    memset(s, 0, sizeof *s);
    mlia_result_init(&s->result, a);
    s->result.status = "ok";
    double jitter = 1.0 + 0.01 * (double)((run * 2654435761u) % 100) / 100.0;
    const char *st[3] = {"p50", "min", "max"};
    for (int k = 0; k < 3; k++) {
        mlia_metric m = mlia_metric_double("inference_time", "ms", (1.5 + 0.1 * k) * jitter, st[k], 3);
        mlia_metric_qualify(&m, "statistic", st[k]);
        mlia_result_add_metric(&s->result, m);
    }
    for (uint32_t i = 0; i < ops; i++) {
        char id[64], name[48];
        snprintf(id, sizeof id, "source_operator/forward/aten_op_%u", i);
        snprintf(name, sizeof name, "aten.op%u.default", i % 17);
        mlia_entity *e = mlia_result_entity(&s->result, id, "source_operator", name);
        mlia_entity_reserve_metrics(&s->result, e, series * 3);
        for (uint32_t j = 0; j < series; j++)
            for (int k = 0; k < 3; k++) {
                mlia_metric x = mlia_metric_double(SERIES[j % 16], j < 4 ? "ms" : j == 5 || j == 6 ? "bytes"
                                                                                                  : "cycles",
                                                   0.001 * (i + 1) * (1 + 0.1 * k) * jitter, st[k], 3);
                mlia_metric_qualify(&x, "statistic", st[k]);
                if (j < 4)
                    mlia_metric_qualify(&x, "attribution", "exclusive");
                mlia_entity_add_metric(&s->result, e, x);
            }
    }
    s->fp.present = true;
    memset(s->fp.program, fp_char, 64);
    s->fp.method = "forward";
    s->fp.operators = ops;
    s->capture.digest = (mlia_input_digest){"/bench/run.etdp", "run.etdp", 70000000, {0}};
    memset(s->capture.digest.sha256, 'c', 64);
    s->capture.n_executions = 3;
    s->rec.run_id = mlia_arena_printf(a, "%08x-0000-4000-8000-%012u", (unsigned)fp_char, run);
    s->rec.timestamp = mlia_arena_printf(a, "2026-%02u-%02uT%02u:%02u:%02uZ", 1 + run / 100000 % 12,
                                         1 + run / 3600 % 28, run / 60 % 24, run % 60, run / 1440 % 60);
    s->rec.etrecord_digest = (mlia_input_digest){"/bench/model.etrecord", "model.etrecord", 5500000, {0}};
    memset(s->rec.etrecord_digest.sha256, 'e', 64);
    s->rec.n_captures = 1;
    s->rec.captures = &s->capture;
    s->rec.method_name = "forward";
    s->rec.fingerprint = &s->fp;
    s->rec.n_executions = 3;
    s->rec.time_unit = "ns";
    s->rec.result = &s->result;
}

static int die(const mlia_error *err)
{
    fprintf(stderr, "bench_history: %s\n", err->text);
    return 1;
}

static int size_row(void *ctx, const hv *cols, int n, mlia_error *err)
{
    *(double *)ctx = hv_real(&cols[0]);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_history LOCATION [RUNS [OPERATORS [SERIES]]]\n");
        return 2;
    }
    const char *loc = argv[1];
    uint32_t runs = argc > 2 ? (uint32_t)strtoul(argv[2], NULL, 10) : 10000;
    uint32_t ops = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 50;
    uint32_t series = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 8;
    if (series > 16)
        series = 16;
    mlia_error err;
    mlia_error_clear(&err);
    mlia_history *h = NULL;
    if (history_open(loc, true, &h, &err))
        return die(&err);
    const char *engine = history_engine(h);
    printf("history %s (%s): %u runs x (%u operators x %u series + the model's), P50/min/max each\n",
           history_location(h), engine, runs, ops, series);
    double t0 = now_s(), t_last = 0;
    const char *devices[4] = {"pixel8", "s24", "rk3588", "orin"};
    for (uint32_t r = 0; r < runs; r++) {
        mlia_arena a;
        mlia_arena_init(&a);
        synth s;
        synth_run(&s, &a, ops, series, r, 'a');
        char commit[32];
        snprintf(commit, sizeof commit, "c%06u", r);
        history_label labels[2] = {{"commit", commit}, {"device", devices[r % 4]}};
        if (r + 1000 == runs || (runs < 1000 && r == 0))
            t_last = now_s();
        int rc = history_record(h, &s.rec, NULL, labels, 2, &err);
        mlia_arena_free(&a);
        if (rc)
            return die(&err);
    }
    double t_all = now_s() - t0;
    t_last = now_s() - t_last;
    uint32_t n_last = runs < 1000 ? runs : 1000;
    printf("  record: %.2f ms per run (mean of %u), %.2f ms per run over the last %u; %.0f metric rows/s\n",
           1e3 * t_all / runs, runs, 1e3 * t_last / n_last, n_last,
           (double)runs * (ops * series + 1) / t_all);

    /* the `mlia history` queries on the full history */
    struct {
        const char *what;
        history_query q;
    } queries[] = {
        {"mlia history (newest 20, inference_time)", {0}},
        {"mlia history --last 10000 (all runs)", {.last = 10000}},
        {"mlia history --entity op_7 --metric execution_time --last 10000",
         {.last = 10000, .entity = "source_operator/forward/aten_op_7", .metric = "execution_time"}},
        {"mlia history --label device=s24 --last 10000", {.last = 10000, .n_labels = 1}},
    };
    history_label dev = {"device", "s24"};
    queries[3].q.labels = &dev;
    for (size_t i = 0; i < sizeof queries / sizeof *queries; i++) {
        double best = 1e9;
        uint32_t n = 0;
        for (int rep = 0; rep < 3; rep++) {
            mlia_arena a;
            mlia_arena_init(&a);
            history_runs out;
            double t = now_s();
            if (history_list(h, &queries[i].q, &a, &out, &err))
                return die(&err);
            t = now_s() - t;
            n = out.n;
            best = t < best ? t : best;
            mlia_arena_free(&a);
        }
        printf("  query: %-64s %8.1f ms (%u runs, best of 3)\n", queries[i].what, 1e3 * best, n);
    }
    {
        double best = 1e9;
        uint32_t n = 0;
        for (int rep = 0; rep < 3; rep++) {
            mlia_arena a;
            mlia_arena_init(&a);
            char prog[65];
            memset(prog, 'a', 64);
            prog[64] = 0;
            history_query q = {.program = prog, .method = "forward", .last = 11};
            result_doc *docs;
            const char **ids;
            double t = now_s();
            if (history_docs(h, &q, &a, &docs, &ids, &n, &err))
                return die(&err);
            t = now_s() - t;
            best = t < best ? t : best;
            mlia_arena_free(&a);
        }
        printf("  query: %-64s %8.1f ms (%u runs, best of 3)\n", "--baseline-history: the newest 10 (+1) as documents",
               1e3 * best, n);
    }
    /* one big run into the full history */
    {
        mlia_arena a;
        mlia_arena_init(&a);
        synth s;
        synth_run(&s, &a, 2000, series, 0, 'b');
        double t = now_s();
        if (history_record(h, &s.rec, NULL, NULL, 0, &err))
            return die(&err);
        t = now_s() - t;
        printf("  record one 2,000-operator run (%u metric rows, a new program): %.1f ms\n", 2000 * series + 1,
               1e3 * t);
        synth_run(&s, &a, 2000, series, 1, 'b');
        t = now_s();
        if (history_record(h, &s.rec, NULL, NULL, 0, &err))
            return die(&err);
        t = now_s() - t;
        printf("  record one 2,000-operator run (its program known): %.1f ms\n", 1e3 * t);
        mlia_arena_free(&a);
    }
    double bytes = 0;
    if (history_is_server(loc)) {
        /* the engine's own query through the history's connection is not
         * exposed; a second connection reads the sizes */
        void *conn = NULL;
        if (hdb_postgres_open(loc, history_location(h), &conn, &err))
            return die(&err);
        if (HDB_POSTGRES.exec(conn, "SELECT SUM(pg_total_relation_size(c.oid)) FROM pg_class c JOIN pg_namespace n "
                                    "ON n.oid = c.relnamespace WHERE n.nspname = 'mlia' AND c.relkind = 'r'",
                              0, NULL, size_row, &bytes, &err))
            return die(&err);
        HDB_POSTGRES.close(conn);
    }
    history_close(h);
    if (!history_is_server(loc)) {
        struct stat st;
        if (stat(loc, &st) == 0)
            bytes = (double)st.st_size;
    }
    printf("  size: %.1f MB in all, %.1f KB per run of %u operators (%.1f bytes per metric row)\n", bytes / 1e6,
           bytes / 1e3 / (runs + 2), ops, bytes / ((double)runs * (ops * series + 1) + 2.0 * 2000 * series));
    return 0;
}
