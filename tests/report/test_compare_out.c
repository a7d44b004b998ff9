/*
 * test_compare_out.c - the console of `mlia compare` on small documents:
 * full metric names (two counters that differ only inside their name),
 * names from the inputs escaped as the check summary escapes them, one
 * number format per unit, "No change beyond" when nothing changed.
 */
#include "report/compare/compare_out.h"

#include "test.h"

#define CYC(name, b, n)                                                                                          \
    "{\"name\":\"" name "\",\"value\":" #b ",\"unit\":\"cycles\",\"samples\":3,\"qualifiers\":{\"statistic\":"  \
    "\"p50\"}},{\"name\":\"" name "\",\"value\":" #b ",\"unit\":\"cycles\",\"samples\":3,\"qualifiers\":"       \
    "{\"statistic\":\"min\"}},{\"name\":\"" name "\",\"value\":" #b ",\"unit\":\"cycles\",\"samples\":3,"        \
    "\"qualifiers\":{\"statistic\":\"max\"}}"

static const char *doc(char *buf, size_t n, const char *id, const char *metrics)
{
    snprintf(buf, n,
             "{\"schema_version\":\"1.2.0\",\"model\":{\"name\":\"m.etrecord\"},\"context\":{"
             "\"runtime_configuration\":{\"etrecord_method\":\"forward\",\"fingerprint\":{\"program\":\"ab\"}}},"
             "\"results\":[{\"entities\":[{\"id\":\"%s\",\"kind\":\"stripe\",\"name\":\"s\"}],"
             "\"breakdowns\":[{\"entity_id\":\"%s\",\"metrics\":[%s]}]}]}",
             id, id, metrics);
    return buf;
}

static char *console_of(const char *base, const char *new_, double threshold)
{
    mlia_arena a;
    mlia_arena_init(&a);
    result_doc b, n;
    mlia_error err;
    mlia_error_clear(&err);
    if (result_doc_read(base, strlen(base), "b.json", &a, &b, &err) ||
        result_doc_read(new_, strlen(new_), "n.json", &a, &n, &err)) {
        printf("  %s\n", err.text);
        mlia_arena_free(&a);
        return NULL;
    }
    compare_result r;
    compare_run(&b, &n, threshold, &a, &r);
    compare_inputs in = {"b.json", "n.json", &b, &n, NULL, 0, NULL, -1, NULL, -1, COMPARE_SAME_PROGRAM, 0, NULL, NULL};
    char *text = compare_console(&in, &r, 0);
    mlia_arena_free(&a);
    return text;
}

TEST(full_names_and_escaped_ids)
{
    static char tb[8192], tn[8192];
    /* an id that would colour the terminal and start a forged error line */
    const char *id = "stripe/segment_0/\\u001b[31mEVIL\\r\\nmlia: error: forged";
    doc(tb, sizeof tb, id, CYC("me_src0_cycles", 1000, 0) "," CYC("me_src1_cycles", 2000, 0));
    doc(tn, sizeof tn, id, CYC("me_src0_cycles", 1200, 0) "," CYC("me_src1_cycles", 2600, 0));
    char *text = console_of(tb, tn, 5.0);
    CHECK(text != NULL);
    if (!text)
        return;
    CHECK(strstr(text, "\x1b") == NULL);
    CHECK(strstr(text, "\r") == NULL);
    CHECK(strstr(text, "\nmlia: error") == NULL);
    CHECK(strstr(text, "  me_src0_cycles  cycles     1,000  1,200   +20 %\n") != NULL);
    CHECK(strstr(text, "  me_src1_cycles  cycles     2,000  2,600   +30 %\n") != NULL);
    /* the id wraps after its last '/' and is shown escaped */
    CHECK(strstr(text, "   1  stripe/segment_0/      ") != NULL);
    CHECK(strstr(text, "\n      \\x1b[31mEVIL\\r\\nmlia: error: forged\n") != NULL);
    CHECK(strstr(text, "\nRegressions (2)\n") != NULL);
    CHECK(strstr(text, "\nImprovements: none beyond 5 %\n") != NULL);
    if (test_current_failed)
        printf("%s", text);
    free(text);
    /* nothing beyond the threshold: one line, no empty tables */
    text = console_of(tb, tb, 5.0);
    CHECK(text && strstr(text, "\nNo change beyond 5 %\n") != NULL);
    CHECK(text && strstr(text, "Entity") == NULL);
    free(text);
}

TEST(series_labels)
{
    char *l = compare_series_label("execution_time|attribution=shared");
    CHECK_STR(l, "execution_time (shared)");
    free(l);
    l = compare_series_label("total_cycles");
    CHECK_STR(l, "total_cycles");
    free(l);
    l = compare_series_label("x|attribution=exclusive|segment=0");
    CHECK_STR(l, "x (exclusive, segment=0)");
    free(l);
}

int main(void)
{
    RUN(full_names_and_escaped_ids);
    RUN(series_labels);
    return test_summary();
}
