/*
 * test_compare.c - the verdict rule of `mlia compare` and the result reader
 * on small documents: range + threshold, direction, too few samples, zero
 * baseline, unavailable metrics, entities on one side, stable ordering,
 * tolerance of unknown members.
 */
#include "analysis/compare.h"

#include "test.h"

static const char *doc_text(char *buf, size_t n, const char *model_metrics, const char *entities,
                            const char *breakdowns)
{
    snprintf(buf, n,
             "{\"schema_version\":\"1.2.0\",\"extra\":{\"x\":[1]},\"model\":{\"name\":\"m.etrecord\"},"
             "\"context\":{\"runtime_configuration\":{\"etrecord_method\":\"forward\"}},"
             "\"results\":[{\"metrics\":[%s],\"entities\":[%s],\"breakdowns\":[%s]}]}",
             model_metrics, entities, breakdowns);
    return buf;
}

#define TIMING(name, p50, mn, mx, n)                                                                             \
    "{\"name\":\"" name "\",\"value\":" #p50 ",\"unit\":\"ms\",\"aggregation\":\"p50\",\"samples\":" #n          \
    ",\"qualifiers\":{\"statistic\":\"p50\",\"attribution\":\"exclusive\"}},"                                      \
    "{\"name\":\"" name "\",\"value\":" #mn ",\"unit\":\"ms\",\"aggregation\":\"min\",\"samples\":" #n            \
    ",\"qualifiers\":{\"attribution\":\"exclusive\",\"statistic\":\"min\"}},"                                      \
    "{\"name\":\"" name "\",\"value\":" #mx ",\"unit\":\"ms\",\"aggregation\":\"max\",\"samples\":" #n            \
    ",\"qualifiers\":{\"statistic\":\"max\",\"attribution\":\"exclusive\"},\"future\":true}"

static int read_doc(mlia_arena *a, const char *text, result_doc *d)
{
    mlia_error err;
    mlia_error_clear(&err);
    int rc = result_doc_read(text, strlen(text), "x.json", a, d, &err);
    if (rc)
        printf("  %s\n", err.text);
    return rc;
}

static const compare_row *row(const compare_result *r, const char *entity, const char *series)
{
    for (uint32_t i = 0; i < r->n_rows; i++)
        if (strcmp(r->rows[i].entity_id, entity) == 0 && strcmp(r->rows[i].series, series) == 0)
            return &r->rows[i];
    return NULL;
}

TEST(verdicts)
{
    mlia_arena a;
    mlia_arena_init(&a);
    static char tb[8192], tn[8192];
    const char *ents = "{\"id\":\"op/a\",\"kind\":\"source_operator\",\"name\":\"a\"},"
                       "{\"id\":\"op/b\",\"kind\":\"source_operator\",\"name\":\"b\"},"
                       "{\"id\":\"op/c\",\"kind\":\"source_operator\",\"name\":\"c\"},"
                       "{\"id\":\"op/gone\",\"kind\":\"source_operator\",\"name\":\"g\"}";
    const char *ents_new = "{\"id\":\"op/c\",\"kind\":\"source_operator\",\"name\":\"c\"},"
                           "{\"id\":\"op/b\",\"kind\":\"source_operator\",\"name\":\"b\"},"
                           "{\"id\":\"op/a\",\"kind\":\"source_operator\",\"name\":\"a\"},"
                           "{\"id\":\"op/new\",\"kind\":\"source_operator\",\"name\":\"n\"}";
    doc_text(tb, sizeof tb,
             "{\"name\":\"inferences_per_second\",\"value\":100.0,\"unit\":\"1/s\",\"samples\":5,"
             "\"qualifiers\":{\"statistic\":\"p50\"}},"
             "{\"name\":\"dram_cycles\",\"unit\":\"cycles\",\"availability\":\"unavailable\",\"reason\":\"r\"},"
             "{\"name\":\"total_cycles\",\"value\":0,\"unit\":\"cycles\",\"samples\":5}",
             ents,
             "{\"entity_id\":\"op/a\",\"metrics\":[" TIMING("execution_time", 1.0, 0.9, 1.1, 5) "]},"
             "{\"entity_id\":\"op/b\",\"metrics\":[" TIMING("execution_time", 1.0, 0.8, 1.5, 5) "]},"
             "{\"entity_id\":\"op/c\",\"metrics\":[" TIMING("execution_time", 1.0, 0.99, 1.01, 2) ","
             "{\"name\":\"execution_coverage\",\"value\":100.0,\"unit\":\"%\",\"samples\":2}]}");
    doc_text(tn, sizeof tn,
             "{\"name\":\"inferences_per_second\",\"value\":80.0,\"unit\":\"1/s\",\"samples\":5,"
             "\"qualifiers\":{\"statistic\":\"p50\"}},"
             "{\"name\":\"dram_cycles\",\"unit\":\"cycles\",\"availability\":\"unavailable\",\"reason\":\"r\"},"
             "{\"name\":\"total_cycles\",\"value\":7,\"unit\":\"cycles\",\"samples\":5}",
             ents_new,
             "{\"entity_id\":\"op/a\",\"metrics\":[" TIMING("execution_time", 0.8, 0.7, 0.9, 5) "]},"
             "{\"entity_id\":\"op/b\",\"metrics\":[" TIMING("execution_time", 1.4, 1.3, 1.5, 5) "]},"
             "{\"entity_id\":\"op/c\",\"metrics\":[" TIMING("execution_time", 2.0, 1.9, 2.1, 5) "]}");
    result_doc b, n;
    CHECK(read_doc(&a, tb, &b) == 0);
    CHECK(read_doc(&a, tn, &n) == 0);
    CHECK(strcmp(b.method, "forward") == 0 && strcmp(b.model_name, "m.etrecord") == 0);
    compare_result r;
    compare_run(&b, &n, 5.0, &a, &r);
    const char *S = "execution_time|attribution=exclusive";
    const compare_row *ra = row(&r, "op/a", S), *rb = row(&r, "op/b", S), *rc = row(&r, "op/c", S);
    CHECK(ra && rb && rc);
    CHECK_INT(ra->verdict, COMPARE_IMPROVEMENT);   /* -20 %, below min 0.9 */
    CHECK_DBL(ra->percent, -20.0);
    CHECK_INT(rb->verdict, COMPARE_UNCHANGED);     /* +40 % but inside [0.8, 1.5] */
    CHECK_INT(rc->verdict, COMPARE_INCONCLUSIVE);  /* baseline has 2 samples */
    CHECK(rc->has_percent && rc->percent > 99);
    const compare_row *ips = row(&r, "model", "inferences_per_second");
    CHECK(ips && ips->higher_is_better);
    CHECK_INT(ips->verdict, COMPARE_REGRESSION);   /* throughput down 20 % */
    const compare_row *tc = row(&r, "model", "total_cycles");
    CHECK(tc && tc->verdict == COMPARE_INCONCLUSIVE && !tc->has_percent);
    CHECK(!row(&r, "model", "dram_cycles"));       /* unavailable on both sides */
    CHECK(!row(&r, "op/c", "execution_coverage")); /* no direction: not compared */
    CHECK_INT(r.n_only_base, 1);
    CHECK(strcmp(r.only_base[0]->id, "op/gone") == 0);
    CHECK_INT(r.n_only_new, 1);
    CHECK(strcmp(r.only_new[0]->id, "op/new") == 0);
    for (uint32_t i = 1; i < r.n_rows; i++) {
        int c = strcmp(r.rows[i - 1].entity_id, r.rows[i].entity_id);
        CHECK(c < 0 || (c == 0 && strcmp(r.rows[i - 1].series, r.rows[i].series) < 0));
    }
    /* a higher threshold turns the -20 % improvement into unchanged */
    compare_run(&b, &n, 25.0, &a, &r);
    CHECK_INT(row(&r, "op/a", S)->verdict, COMPARE_UNCHANGED);
    mlia_arena_free(&a);
}

TEST(reader_errors)
{
    mlia_arena a;
    mlia_arena_init(&a);
    result_doc d;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(result_doc_read("[1]", 3, "f.json", &a, &d, &err) != 0);
    CHECK_STR(err.text, "f.json: not an mlia output (not a JSON object)");
    mlia_error_clear(&err);
    const char *t = "{\"schema_version\":\"1.2.0\",\"results\":[]}";
    CHECK(result_doc_read(t, strlen(t), "f.json", &a, &d, &err) != 0);
    CHECK_STR(err.text, "f.json: not an mlia output (results[0] missing)");
    mlia_error_clear(&err);
    t = "{\"schema_version\":\"1.2.0\",\"results\":[{}]}";
    CHECK(result_doc_read(t, strlen(t), "f.json", &a, &d, &err) != 0);
    CHECK_STR(err.text, "f.json: not an mlia output (model.name missing)");
    mlia_arena_free(&a);
}

static const char *fp_doc(char *buf, size_t n, const char *method, const char *fingerprint)
{
    snprintf(buf, n,
             "{\"schema_version\":\"1.2.0\",\"model\":{\"name\":\"m.etrecord\"},"
             "\"context\":{\"runtime_configuration\":{\"etrecord_method\":\"%s\"%s%s}},\"results\":[{}]}",
             method, fingerprint ? ",\"fingerprint\":" : "", fingerprint ? fingerprint : "");
    return buf;
}

TEST(identity)
{
    mlia_arena a;
    mlia_arena_init(&a);
    char tb[1024], tn[1024], what[512];
    result_doc b, n;
    const char *fa = "{\"program\":\"aa\",\"method\":\"forward\",\"operators\":12,\"debug_handles\":10,"
                     "\"delegate_segments\":1}";
    const char *fb = "{\"program\":\"bb\",\"method\":\"forward\",\"operators\":13,\"debug_handles\":10,"
                     "\"delegate_segments\":2}";
    const char *fc = "{\"program\":\"cc\",\"method\":\"forward\",\"operators\":12,\"debug_handles\":10,"
                     "\"delegate_segments\":1}";
    CHECK(!read_doc(&a, fp_doc(tb, sizeof tb, "forward", fa), &b));
    CHECK(!read_doc(&a, fp_doc(tn, sizeof tn, "forward", fa), &n));
    CHECK_STR(b.fingerprint.program, "aa");
    CHECK_INT(b.fingerprint.operators, 12);
    CHECK_INT(compare_programs(&b, &n, what, sizeof what), COMPARE_SAME_PROGRAM);
    CHECK_STR(what, "");
    CHECK(!read_doc(&a, fp_doc(tn, sizeof tn, "forward", fb), &n));
    CHECK_INT(compare_programs(&b, &n, what, sizeof what), COMPARE_DIFFERENT_PROGRAMS);
    CHECK_STR(what, "13 operators instead of 12, 2 delegate segments instead of 1");
    CHECK(!read_doc(&a, fp_doc(tn, sizeof tn, "forward", fc), &n));
    CHECK_INT(compare_programs(&b, &n, what, sizeof what), COMPARE_DIFFERENT_PROGRAMS);
    CHECK_STR(what, "the same method and counts (12 operators, 1 delegate segment) but a different graph: node "
                    "names, targets, debug handles or delegated handles");
    /* results written before the fingerprint: the method decides */
    CHECK(!read_doc(&a, fp_doc(tn, sizeof tn, "forward", NULL), &n));
    CHECK(n.fingerprint.program == NULL);
    CHECK_INT(n.fingerprint.operators, -1);
    CHECK_INT(compare_programs(&b, &n, what, sizeof what), COMPARE_UNVERIFIED);
    CHECK(!read_doc(&a, fp_doc(tn, sizeof tn, "decode", "{}"), &n));
    CHECK_INT(compare_programs(&b, &n, what, sizeof what), COMPARE_DIFFERENT_PROGRAMS);
    CHECK_STR(what, "method 'decode' instead of 'forward'");
    mlia_arena_free(&a);
}

TEST(weighted_median)
{
    mlia_arena a;
    mlia_arena_init(&a);
    /* one execution per run: the nearest-rank median of the executions */
    double v3[] = {440, 420, 430};
    uint32_t w1[] = {1, 1, 1};
    CHECK(compare_weighted_median(v3, w1, 3, &a) == 430);
    double v4[] = {4, 1, 3, 2};
    uint32_t w4[] = {1, 1, 1, 1};
    CHECK(compare_weighted_median(v4, w4, 4, &a) == 2); /* lower median, as runtime_p50_u64 */
    /* a run of 5 executions outweighs two runs of one */
    double vw[] = {10, 20, 30};
    uint32_t ww[] = {1, 5, 1};
    CHECK(compare_weighted_median(vw, ww, 3, &a) == 20);
    uint32_t wz[] = {0, 0, 3}; /* no samples count as one */
    CHECK(compare_weighted_median(vw, wz, 3, &a) == 30);
    mlia_arena_free(&a);
}

TEST(pooled_baselines)
{
    mlia_arena a;
    mlia_arena_init(&a);
    static char t1[4096], t2[4096], t3[4096], tn[4096];
    const char *e1 = "{\"id\":\"op/a\",\"kind\":\"source_operator\",\"name\":\"a\"}";
    const char *e2 = "{\"id\":\"op/a\",\"kind\":\"source_operator\",\"name\":\"a\"},"
                     "{\"id\":\"op/b\",\"kind\":\"source_operator\",\"name\":\"b\"}";
#define ONE(v) "{\"entity_id\":\"op/a\",\"metrics\":[" TIMING("execution_time", v, v, v, 1) "]}"
    doc_text(t1, sizeof t1, "", e1, ONE(0.420));
    doc_text(t2, sizeof t2, "", e2, ONE(0.440));
    doc_text(t3, sizeof t3, "", e1, ONE(0.430));
    doc_text(tn, sizeof tn, "", e1, "{\"entity_id\":\"op/a\",\"metrics\":[" TIMING("execution_time", 0.510, 0.504, 0.516, 3) "]}");
#undef ONE
    result_doc d1, d2, d3, n, pooled;
    CHECK(!read_doc(&a, t1, &d1) && !read_doc(&a, t2, &d2) && !read_doc(&a, t3, &d3) && !read_doc(&a, tn, &n));
    const result_doc *docs[3] = {&d1, &d2, &d3};
    compare_pool(docs, 3, &a, &pooled);
    CHECK_INT(pooled.n_entities, 2); /* the union */
    CHECK_STR(pooled.schema_version, "1.2.0");
    compare_result r;
    compare_run(&pooled, &n, 5.0, &a, &r);
    const char *S = "execution_time|attribution=exclusive";
    const compare_row *x = row(&r, "op/a", S);
    CHECK(x != NULL);
    if (!x)
        return;
    CHECK(x->base.p50 == 0.430 && x->base.min == 0.420 && x->base.max == 0.440);
    CHECK_INT(x->base.samples, 3);
    CHECK_INT(x->verdict, COMPARE_REGRESSION); /* three one-execution runs decide; one alone would not */
    compare_run(&d1, &n, 5.0, &a, &r);
    CHECK_INT(row(&r, "op/a", S)->verdict, COMPARE_INCONCLUSIVE);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(weighted_median);
    RUN(pooled_baselines);
    RUN(verdicts);
    RUN(reader_errors);
    RUN(identity);
    return test_summary();
}
