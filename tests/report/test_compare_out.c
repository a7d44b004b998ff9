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
             "\"runtime_configuration\":{\"etrecord_method\":\"forward\",\"fingerprint\":{\"program\":\""
             "abababababababababababababababababababababababababababababababab\"}}},"
             "\"results\":[{\"entities\":[{\"id\":\"%s\",\"kind\":\"stripe\",\"name\":\"s\"}],"
             "\"breakdowns\":[{\"entity_id\":\"%s\",\"metrics\":[%s]}]}]}",
             id, id, metrics);
    return buf;
}

static char *console_of(const char *base, const char *new_, double threshold, unsigned width)
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
    compare_inputs in = {"b.json", "n.json", &b, &n, NULL, 0, NULL, -1, NULL, -1, COMPARE_SAME_PROGRAM, 0, NULL, NULL,
                         0, NULL, false};
    char *text = compare_console(&in, &r, width);
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
    char *text = console_of(tb, tn, 5.0, 0);
    CHECK(text != NULL);
    if (!text)
        return;
    if (getenv("MLIA_TEST_SHOW"))
        printf("%s", text);
    CHECK(strstr(text, "\x1b") == NULL);
    CHECK(strstr(text, "\r") == NULL);
    CHECK(strstr(text, "\nmlia: error") == NULL);
    /* one row per entity, its worst metric (+600 cycles before +200), whole and on one line
     * (not a terminal), the id escaped */
    CHECK(strstr(text, "\n  1   +30 %   +600  cycles     2,000  2,600  tested, 3 samples each  "
                       "stripe/segment_0/\\x1b[31mEVIL\\r\\nmlia: error: forged  me_src1_cycles  s\n") != NULL);
    CHECK(strstr(text, "me_src0_cycles") == NULL); /* in compare.json */
    CHECK(strstr(text, "\nVerdicts:  1 regression (of 1 entity; 2 metrics in compare.json)\n") != NULL);
    CHECK(strstr(text, "\nRegressions (1 entity)\n") != NULL);
    CHECK(strstr(text, "\nImprovements: none beyond 5 %\n") != NULL);
    if (test_current_failed)
        printf("%s", text);
    free(text);
    /* nothing beyond the threshold: one line, no empty tables */
    text = console_of(tb, tb, 5.0, 0);
    CHECK(text && strstr(text, "\nNo change beyond 5 %\n") != NULL);
    CHECK(text && strstr(text, "Entity") == NULL);
    free(text);
}

/* On a terminal, a row wider than the screen continues between names,
 * never inside one; no line but a name alone is wider than the screen. */
TEST(terminal_wraps_between_names)
{
    static char tb[8192], tn[8192];
    const char *id = "source_operator/forward/a_very_long_operator_name_that_does_not_fit_beside_the_numbers_at_all";
    doc(tb, sizeof tb, id, CYC("total_cycles", 1000, 0));
    doc(tn, sizeof tn, id, CYC("total_cycles", 1500, 0));
    char *text = console_of(tb, tn, 5.0, 80);
    CHECK(text != NULL);
    if (!text)
        return;
    if (getenv("MLIA_TEST_SHOW"))
        printf("%s", text);
    /* the id stays on the line of its numbers (a grep finds both), whole; the
     * other names continue near the margin (the id would not fit under the names) */
    CHECK(strstr(text, "\n  1   +50 %   +500  cycles     1,000  1,500  tested, 3 samples each  source_operator/forward/"
                       "a_very_long_operator_name_that_does_not_fit_beside_the_numbers_at_all\n"
                       "      total_cycles  s\n") != NULL);
    if (test_current_failed)
        printf("%s", text);
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
    RUN(terminal_wraps_between_names);
    RUN(series_labels);
    return test_summary();
}
