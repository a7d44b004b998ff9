/*
 * test_history.c - the run history on its SQLite engine (history/history.h):
 * labels and locations, a synthetic run recorded and read back (series keys
 * as `mlia compare` reads them, unavailable metrics, labels, the documents
 * of the gate), the same run twice, four threads writing one file at once,
 * and the errors of a damaged, foreign or newer file. The PostgreSQL engine
 * and the command line are tested in tests/py/test_history.py against a
 * throwaway server.
 */
#include "history/history.h"

#include <pthread.h>
#include <sqlite3.h>
#include <unistd.h>

#include "test.h"

static char tmpdir[256];

static const char *tmp_path(const char *name)
{
    static __thread char buf[512];
    snprintf(buf, sizeof buf, "%s/%s", tmpdir, name);
    return buf;
}

/* A run of `n_ops` operators: model inference_time (p50/min/max), per
 * operator execution_time|attribution=exclusive (p50/min/max) and an
 * unavailable kernel_time. Everything in `a`. */
typedef struct synth {
    mlia_result result;
    mlia_program_fingerprint fp;
    mlia_capture_info capture;
    mlia_run_record rec;
} synth;

static void synth_run(synth *s, mlia_arena *a, uint32_t n_ops, int run, double scale)
{
    memset(s, 0, sizeof *s);
    mlia_result_init(&s->result, a);
    s->result.status = "ok";
    mlia_metric m = mlia_metric_double("inference_time", "ms", 1.5 * scale, "p50", 3);
    mlia_metric_qualify(&m, "statistic", "p50");
    mlia_result_add_metric(&s->result, m);
    m = mlia_metric_double("inference_time", "ms", 1.4 * scale, "min", 3);
    mlia_metric_qualify(&m, "statistic", "min");
    mlia_result_add_metric(&s->result, m);
    m = mlia_metric_double("inference_time", "ms", 1.7 * scale, "max", 3);
    mlia_metric_qualify(&m, "statistic", "max");
    mlia_result_add_metric(&s->result, m);
    mlia_result_add_metric(&s->result, mlia_metric_uint("delegate_calls", "count", 4, "sum", 0));
    for (uint32_t i = 0; i < n_ops; i++) {
        char id[64], name[32];
        snprintf(id, sizeof id, "source_operator/forward/op_%u", i);
        snprintf(name, sizeof name, "aten.op%u.default", i % 7);
        mlia_entity *e = mlia_result_entity(&s->result, id, "source_operator", name);
        const char *st[3] = {"p50", "min", "max"};
        double v[3] = {0.01 * (i + 1) * scale, 0.009 * (i + 1) * scale, 0.012 * (i + 1) * scale};
        for (int k = 0; k < 3; k++) {
            mlia_metric x = mlia_metric_double("execution_time", "ms", v[k], st[k], 3);
            mlia_metric_qualify(&x, "statistic", st[k]);
            mlia_metric_qualify(&x, "attribution", "exclusive");
            mlia_entity_add_metric(&s->result, e, x);
        }
        mlia_entity_add_metric(&s->result, e, mlia_metric_unavailable("kernel_time", "ms", "no kernel events"));
    }
    s->fp.present = true;
    memset(s->fp.program, 'a', 64);
    s->fp.method = "forward";
    s->fp.operators = n_ops;
    s->capture.digest = (mlia_input_digest){"/x/run.etdp", "run.etdp", 1234, {0}};
    memset(s->capture.digest.sha256, 'c', 64);
    s->capture.n_executions = 3;
    s->rec.run_id = mlia_arena_printf(a, "00000000-0000-4000-8000-%012d", run);
    s->rec.timestamp = mlia_arena_printf(a, "2026-01-01T00:00:%02dZ", run % 60);
    s->rec.etrecord_digest = (mlia_input_digest){"/x/model.etrecord", "model.etrecord", 99, {0}};
    memset(s->rec.etrecord_digest.sha256, 'e', 64);
    s->rec.n_captures = 1;
    s->rec.captures = &s->capture;
    s->rec.method_name = "forward";
    s->rec.fingerprint = &s->fp;
    s->rec.n_executions = 3;
    s->rec.time_unit = "ns";
    s->rec.result = &s->result;
}

static int record(const char *loc, const synth *s, const history_label *labels, uint32_t n, mlia_error *err)
{
    mlia_history *h = NULL;
    if (history_open(loc, true, &h, err))
        return -1;
    int rc = history_record(h, &s->rec, NULL, labels, n, err);
    history_close(h);
    return rc;
}

TEST(labels_and_locations)
{
    CHECK(history_label_valid("commit=abc"));
    CHECK(history_label_valid("device.name-2_x="));
    CHECK(!history_label_valid("=x"));
    CHECK(!history_label_valid("noequals"));
    CHECK(!history_label_valid("bad key=x"));
    CHECK(!history_label_valid("k=line\nbreak"));
    const char *texts[3] = {"a=1", "b=2", "a=3"};
    mlia_arena a;
    mlia_arena_init(&a);
    history_label *l = NULL;
    CHECK_UINT(history_labels_split(texts, 3, &a, &l), 2);
    CHECK_STR(l[0].key, "a");
    CHECK_STR(l[0].value, "3"); /* the last value wins */
    CHECK(history_is_server("postgresql://h/db"));
    CHECK(history_is_server("postgres://h/db"));
    CHECK(!history_is_server("/tmp/postgresql://x"));
    CHECK_STR(history_shown("postgresql://u:secret@h:5/db?sslmode=require", &a), "postgresql://u@h:5/db?sslmode=require");
    CHECK_STR(history_shown("postgresql://h/db?password=pw&x=1", &a), "postgresql://h/db?password=***&x=1");
    CHECK_STR(history_shown("postgresql://h/db?xpassword=pw", &a), "postgresql://h/db?xpassword=pw");
    CHECK_STR(history_shown("/a/b.sqlite", &a), "/a/b.sqlite");
    mlia_arena_free(&a);
}

TEST(record_list_and_documents)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_error_clear(&err);
    const char *loc = tmp_path("one.sqlite");
    history_label labels[2] = {{"commit", "c1"}, {"device", "d"}};
    for (int r = 0; r < 3; r++) {
        synth s;
        synth_run(&s, &a, 5, r, r == 2 ? 1.2 : 1.0);
        labels[0].value = r == 1 ? "c2" : "c1";
        CHECK_INT(record(loc, &s, labels, 2, &err), 0);
    }
    mlia_history *h = NULL;
    CHECK_INT(history_open(loc, false, &h, &err), 0);
    CHECK_STR(history_engine(h), "sqlite");
    history_query q = {0};
    history_runs out;
    CHECK_INT(history_list(h, &q, &a, &out, &err), 0);
    CHECK_UINT(out.n, 3);
    CHECK_STR(out.runs[0].run_id, "00000000-0000-4000-8000-000000000000");
    CHECK_STR(out.series, "inference_time");
    CHECK_STR(out.unit, "ms");
    CHECK(out.runs[2].has_value);
    CHECK_DBL(out.runs[2].p50, 1.5 * 1.2);
    CHECK_DBL(out.runs[2].max, 1.7 * 1.2);
    CHECK_UINT(out.runs[0].n_labels, 2);
    CHECK_STR(out.runs[1].labels[0].value, "c2");
    /* an operator's series by name: the qualified key */
    history_query qe = {.entity = "source_operator/forward/op_3", .metric = "execution_time", .last = 2};
    CHECK_INT(history_list(h, &qe, &a, &out, &err), 0);
    CHECK_UINT(out.n, 2);
    CHECK_STR(out.series, "execution_time|attribution=exclusive");
    CHECK_DBL(out.runs[0].p50, 0.04);
    CHECK_DBL(out.runs[1].min, 0.009 * 4 * 1.2);
    /* labels filter; an unavailable series has no value */
    history_label want = {"commit", "c2"};
    history_query ql = {.labels = &want, .n_labels = 1, .entity = "source_operator/forward/op_0", .metric = "kernel_time"};
    CHECK_INT(history_list(h, &ql, &a, &out, &err), 0);
    CHECK_UINT(out.n, 1);
    CHECK_STR(out.series, "kernel_time");
    CHECK(!out.runs[0].has_value);
    /* the gate's documents: the series as mlia compare reads them */
    history_query qd = {.program = "aaaaaaaa"};
    result_doc *docs = NULL;
    const char **ids = NULL;
    uint32_t n = 0;
    CHECK_INT(history_docs(h, &qd, &a, &docs, &ids, &n, &err), 0);
    CHECK_UINT(n, 3);
    CHECK_UINT(docs[0].n_entities, 5);
    CHECK_STR(docs[0].method, "forward");
    CHECK_INT(docs[0].fingerprint.operators, 5);
    uint32_t p50s = 0, unavailable = 0;
    for (uint32_t i = 0; i < docs[0].n_metrics; i++) {
        const rr_metric *m = &docs[0].metrics[i];
        if (strcmp(m->entity, "source_operator/forward/op_1") == 0 && strcmp(m->statistic, "p50") == 0 &&
            strcmp(m->series, "execution_time|attribution=exclusive") == 0) {
            CHECK_DBL(m->value, 0.02);
            CHECK_UINT(m->samples, 3);
            CHECK_STR(m->attribution, "exclusive");
            p50s++;
        }
        if (!m->available)
            unavailable++;
    }
    CHECK_UINT(p50s, 1);
    CHECK_UINT(unavailable, 5);
    CHECK_INT(history_docs(h, &(history_query){.program = "bbbbbbbb"}, &a, &docs, &ids, &n, &err), 0);
    CHECK_UINT(n, 0);
    history_close(h);
    /* the same run again */
    synth s;
    synth_run(&s, &a, 5, 0, 1.0);
    CHECK_INT(record(loc, &s, NULL, 0, &err), -1);
    char want_err[600];
    snprintf(want_err, sizeof want_err, "%s: run 00000000-0000-4000-8000-000000000000 is recorded already", loc);
    CHECK_STR(err.text, want_err);
    mlia_arena_free(&a);
}

typedef struct writer {
    int id;
    int rc;
    char err[MLIA_ERROR_MAX];
} writer;

static void *write_runs(void *arg)
{
    writer *w = arg;
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_error_clear(&err);
    w->rc = 0;
    for (int r = 0; r < 3 && !w->rc; r++) {
        synth s;
        synth_run(&s, &a, 50, 100 + w->id * 10 + r, 1.0);
        w->rc = record(tmp_path("shared.sqlite"), &s, NULL, 0, &err);
    }
    snprintf(w->err, sizeof w->err, "%s", err.text);
    mlia_arena_free(&a);
    return NULL;
}

TEST(concurrent_writers_lose_nothing)
{
    enum { N = 6 };
    pthread_t t[N];
    writer w[N];
    for (int i = 0; i < N; i++) {
        w[i].id = i;
        CHECK_INT(pthread_create(&t[i], NULL, write_runs, &w[i]), 0);
    }
    for (int i = 0; i < N; i++)
        pthread_join(t[i], NULL);
    for (int i = 0; i < N; i++) {
        if (w[i].rc)
            printf("  writer %d: %s\n", i, w[i].err);
        CHECK_INT(w[i].rc, 0);
    }
    sqlite3 *db = NULL;
    CHECK_INT(sqlite3_open(tmp_path("shared.sqlite"), &db), SQLITE_OK);
    sqlite3_stmt *st = NULL;
    CHECK_INT(sqlite3_prepare_v2(db, "SELECT COUNT(DISTINCT run_id), COUNT(*) FROM metrics", -1, &st, NULL), SQLITE_OK);
    CHECK_INT(sqlite3_step(st), SQLITE_ROW);
    int64_t runs = sqlite3_column_int64(st, 0), rows = sqlite3_column_int64(st, 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    CHECK_INT(runs, N * 3);
    CHECK_INT(rows, (int64_t)N * 3 * (50 * 2 + 2)); /* per run: 2 series per operator, 2 model series */
}

TEST(damaged_foreign_and_newer_files)
{
    mlia_error err;
    mlia_history *h = NULL;
    const char *bad = tmp_path("damaged.sqlite");
    FILE *f = fopen(bad, "wb");
    CHECK(f != NULL);
    for (int i = 0; i < 400; i++)
        fputs("not a database at all ", f);
    fclose(f);
    char want[700];
    for (int write = 0; write < 2; write++) {
        mlia_error_clear(&err);
        CHECK_INT(history_open(bad, write, &h, &err), -1);
        snprintf(want, sizeof want, "%s: damaged or not an mlia history (file is not a database)", bad);
        CHECK_STR(err.text, want);
        CHECK(h == NULL);
    }
    mlia_error_clear(&err);
    CHECK_INT(history_open(tmp_path("missing.sqlite"), false, &h, &err), -1);
    snprintf(want, sizeof want, "%s: No such file or directory", tmp_path("missing.sqlite"));
    CHECK_STR(err.text, want);
    sqlite3 *db = NULL;
    const char *foreign = tmp_path("foreign.sqlite");
    CHECK_INT(sqlite3_open(foreign, &db), SQLITE_OK);
    CHECK_INT(sqlite3_exec(db, "CREATE TABLE t (x)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    mlia_error_clear(&err);
    CHECK_INT(history_open(foreign, true, &h, &err), -1);
    snprintf(want, sizeof want, "%s: not an mlia history (it holds other tables)", foreign);
    CHECK_STR(err.text, want);
    const char *newer = tmp_path("newer.sqlite");
    mlia_error_clear(&err);
    CHECK_INT(history_open(newer, true, &h, &err), 0);
    history_close(h);
    CHECK_INT(sqlite3_open(newer, &db), SQLITE_OK);
    CHECK_INT(sqlite3_exec(db, "INSERT INTO mlia_schema VALUES (7, 'x', '9')", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    for (int write = 0; write < 2; write++) {
        mlia_error_clear(&err);
        CHECK_INT(history_open(newer, write, &h, &err), -1);
        snprintf(want, sizeof want, "%s: written by a newer mlia (history schema 7; this mlia reads up to 1)", newer);
        CHECK_STR(err.text, want);
    }
}

int main(void)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/mlia-test-history-XXXXXX");
    if (!mkdtemp(tmpdir))
        return 1;
    RUN(labels_and_locations);
    RUN(record_list_and_documents);
    RUN(concurrent_writers_lose_nothing);
    RUN(damaged_foreign_and_newer_files);
    char cmd[400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0)
        printf("  could not remove %s\n", tmpdir);
    return test_summary();
}
