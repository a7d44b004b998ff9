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
    CHECK_INT(rc->verdict, COMPARE_LIKELY_REGRESSION); /* +100 %, but the baseline has 2 samples */
    CHECK_STR(rc->reason, "fewer than 3 samples on a side: not tested for noise");
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
    /* entities (the model apart): a improved, b unchanged, c likely regressed */
    CHECK_INT(r.n_ents, 3);
    CHECK_INT(r.ent_counts[COMPARE_IMPROVEMENT], 1);
    CHECK_INT(r.ent_counts[COMPARE_UNCHANGED], 1);
    CHECK_INT(r.ent_counts[COMPARE_LIKELY_REGRESSION], 1);
    CHECK_INT(r.model_verdict, COMPARE_REGRESSION);
    CHECK(r.headline[1] == ips && r.headline[0] == NULL && r.headline[2] == tc);
    CHECK_INT(r.base_samples, 2); /* no inference_time: the fewest of any row */
    CHECK(!r.tested);
    const compare_entity *regs[4];
    CHECK_INT(compare_entities_of(&r, true, regs), 1);
    CHECK_STR(regs[0]->id, "op/c");
    CHECK(regs[0]->row == rc);
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

/* program fingerprints: 64 hex digits (a shorter one is malformed) */
#define A16 "aaaaaaaaaaaaaaaa"
#define B16 "bbbbbbbbbbbbbbbb"
#define C16 "cccccccccccccccc"

TEST(identity)
{
    mlia_arena a;
    mlia_arena_init(&a);
    char tb[1024], tn[1024], what[512];
    result_doc b, n;
    const char *fa = "{\"program\":\"" A16 A16 A16 A16 "\",\"method\":\"forward\",\"operators\":12,\"debug_handles\":10,"
                     "\"delegate_segments\":1}";
    const char *fb = "{\"program\":\"" B16 B16 B16 B16 "\",\"method\":\"forward\",\"operators\":13,\"debug_handles\":10,"
                     "\"delegate_segments\":2}";
    const char *fc = "{\"program\":\"" C16 C16 C16 C16 "\",\"method\":\"forward\",\"operators\":12,\"debug_handles\":10,"
                     "\"delegate_segments\":1}";
    CHECK(!read_doc(&a, fp_doc(tb, sizeof tb, "forward", fa), &b));
    CHECK(!read_doc(&a, fp_doc(tn, sizeof tn, "forward", fa), &n));
    CHECK_STR(b.fingerprint.program, A16 A16 A16 A16);
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

/* issue 28 item 7: a malformed fingerprint is an error, not "an older mlia" */
TEST(malformed_fingerprints)
{
    mlia_arena a;
    mlia_arena_init(&a);
    char t[1024];
    static const struct {
        const char *fp, *msg;
    } cases[] = {
        {"\"0f12affc85bb\"", "x.json: not an mlia output (context.runtime_configuration.fingerprint is a string, "
                             "not an object)"},
        {"42", "x.json: not an mlia output (context.runtime_configuration.fingerprint is a number, not an object)"},
        {"null", "x.json: not an mlia output (context.runtime_configuration.fingerprint is null, not an object)"},
        {"[]", "x.json: not an mlia output (context.runtime_configuration.fingerprint is an array, not an object)"},
        {"{\"program\":7}", "x.json: not an mlia output (context.runtime_configuration.fingerprint.program is not a "
                            "SHA-256 digest)"},
        {"{\"program\":\"abc\"}", "x.json: not an mlia output (context.runtime_configuration.fingerprint.program "
                                  "is not a SHA-256 digest)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        result_doc d;
        mlia_error err;
        mlia_error_clear(&err);
        fp_doc(t, sizeof t, "forward", cases[i].fp);
        CHECK_INT(result_doc_read(t, strlen(t), "x.json", &a, &d, &err), -1);
        CHECK_STR(err.text, cases[i].msg);
    }
    /* absent, or an object without program (mlia check could not compute it): older */
    result_doc d;
    CHECK(!read_doc(&a, fp_doc(t, sizeof t, "forward", "{\"format\":\"mlia.fingerprint/1\"}"), &d));
    CHECK(d.fingerprint.program == NULL);
    /* a number beyond a double's range is refused like Infinity */
    mlia_error err;
    mlia_error_clear(&err);
    const char *big = "{\"schema_version\":\"1.2.0\",\"model\":{\"name\":\"m\"},\"results\":[{\"metrics\":"
                      "[{\"name\":\"inference_time\",\"unit\":\"ms\",\"value\":1e400}]}]}";
    CHECK_INT(result_doc_read(big, strlen(big), "x.json", &a, &d, &err), -1);
    CHECK_STR(err.text, "x.json: not an mlia output (invalid JSON at byte 115: number out of range (1e400 is not a "
                        "finite double))");
    mlia_arena_free(&a);
}

/* Settings that differ (docs/compare.md "Settings"): the clock blocks. */
TEST(settings)
{
    mlia_arena a;
    mlia_arena_init(&a);
    char tb[1024], tn[1024];
    result_doc b, n;
    snprintf(tb, sizeof tb, "{\"schema_version\":\"1.2.0\",\"tool\":{\"version\":\"0.1.0\"},\"model\":{\"name\":"
             "\"m\"},\"context\":{\"runtime_configuration\":{\"time_unit\":\"ns\",\"statistics\":{\"mode\":1,"
             "\"device\":\"Mali-G2\"}}},\"results\":[{}]}");
    snprintf(tn, sizeof tn, "{\"schema_version\":\"1.2.0\",\"tool\":{\"version\":\"0.2.0\"},\"model\":{\"name\":"
             "\"m\"},\"context\":{\"runtime_configuration\":{\"time_unit\":\"tick\",\"ticks_per_second\":"
             "250000000,\"warmup_executions\":2,\"statistics\":{\"mode\":0,\"mode_assumed\":true,\"device\":"
             "\"Mali-G2\"}}},\"results\":[{}]}");
    CHECK(!read_doc(&a, tb, &b) && !read_doc(&a, tn, &n));
    compare_setting s[COMPARE_N_SETTINGS];
    CHECK_INT(compare_settings(&b, &b, s, &a), 0);
    CHECK_INT(compare_settings(&b, &n, s, &a), 4);
    CHECK_STR(s[0].name, "clock");
    CHECK_STR(s[0].baseline, "nanoseconds (the default)");
    CHECK_STR(s[0].new_, "250000000 ticks/s");
    CHECK(s[0].blocking);
    CHECK_STR(s[1].name, "warm-up");
    CHECK_STR(s[1].new_, "2 executions");
    CHECK(!s[1].blocking);
    CHECK_STR(s[2].name, "statistics mode");
    CHECK_STR(s[2].new_, "0 (assumed)");
    CHECK(s[2].blocking);
    CHECK_STR(s[3].name, "mlia version");
    CHECK(!s[3].blocking);
    /* an explicit 1e9 ticks per second is the default's nanoseconds: no difference */
    n.settings = b.settings;
    n.settings.ticks_per_second = 1e9;
    CHECK_INT(compare_settings(&b, &n, s, &a), 0);
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
    CHECK_INT(x->verdict, COMPARE_REGRESSION); /* three one-execution runs test it; one alone only suggests it */
    compare_run(&d1, &n, 5.0, &a, &r);
    CHECK_INT(row(&r, "op/a", S)->verdict, COMPARE_LIKELY_REGRESSION);
    mlia_arena_free(&a);
}

/* Memory plan figures are exact (docs/memory.md): one sample is enough, and
 * a peak that grows past the threshold is a regression. */
TEST(memory_plan_metrics)
{
    mlia_arena a;
    mlia_arena_init(&a);
    static char tb[4096], tn[4096];
#define BYTES(name, q, v) "{\"name\":\"" name "\",\"value\":" #v ",\"unit\":\"bytes\",\"samples\":1" q "}"
    const char *ent = "{\"id\":\"op/a\",\"kind\":\"source_operator\",\"name\":\"a\"}";
    doc_text(tb, sizeof tb,
             BYTES("peak_activation_memory", "", 194080) "," BYTES("memory_pool_size", ",\"qualifiers\":{\"pool\":\"1\"}", 194080)
             "," BYTES("memory_pool_waste", ",\"qualifiers\":{\"pool\":\"1\"}", 0)
             "," BYTES("live_bytes", ",\"qualifiers\":{\"instruction\":\"7\"}", 194080)
             "," BYTES("model_weight_memory", "", 1000),
             ent, "{\"entity_id\":\"op/a\",\"metrics\":[" BYTES("live_bytes", "", 100) "]}");
    doc_text(tn, sizeof tn,
             BYTES("peak_activation_memory", "", 220000) "," BYTES("memory_pool_size", ",\"qualifiers\":{\"pool\":\"1\"}", 194080)
             "," BYTES("memory_pool_waste", ",\"qualifiers\":{\"pool\":\"1\"}", 16)
             "," BYTES("live_bytes", ",\"qualifiers\":{\"instruction\":\"7\"}", 195000)
             "," BYTES("model_weight_memory", "", 500),
             ent, "{\"entity_id\":\"op/a\",\"metrics\":[" BYTES("live_bytes", "", 100) "]}");
#undef BYTES
    result_doc b, n;
    CHECK(read_doc(&a, tb, &b) == 0);
    CHECK(read_doc(&a, tn, &n) == 0);
    compare_result r;
    compare_run(&b, &n, 5.0, &a, &r);
    const compare_row *peak = row(&r, "model", "peak_activation_memory");
    CHECK(peak && peak->verdict == COMPARE_REGRESSION && !peak->reason); /* +13.4 %, one sample */
    CHECK_INT(row(&r, "model", "memory_pool_size|pool=1")->verdict, COMPARE_UNCHANGED);
    CHECK_INT(row(&r, "model", "memory_pool_waste|pool=1")->verdict, COMPARE_REGRESSION); /* from 0 */
    CHECK_INT(row(&r, "model", "live_bytes|instruction=7")->verdict, COMPARE_UNCHANGED); /* +0.5 % < 5 % */
    CHECK_INT(row(&r, "model", "model_weight_memory")->verdict, COMPARE_IMPROVEMENT);
    CHECK_INT(row(&r, "op/a", "live_bytes")->verdict, COMPARE_UNCHANGED);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(weighted_median);
    RUN(pooled_baselines);
    RUN(verdicts);
    RUN(reader_errors);
    RUN(identity);
    RUN(malformed_fingerprints);
    RUN(settings);
    RUN(memory_plan_metrics);
    return test_summary();
}
