/*
 * test_format.c - the shared number formatter (src/report/format.c) against
 * tests/data/format-table.json, the table that viewer/tests/format.test.mjs
 * checks the page's copy (viewer/src/format.js) against: both print the
 * same text for every value.
 */
#include "report/format.h"

#include "core/arena.h"
#include "core/file.h"
#include "core/json_read.h"
#include "test.h"

TEST(table_of_values)
{
    char *text = NULL;
    size_t size = 0;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(mlia_file_slurp(MLIA_SOURCE_DIR "/tests/data/format-table.json", &text, &size, &err) == 0);
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_json *doc = NULL;
    mlia_json_opts o = {.allow_nonfinite = false, .max_depth = 16};
    int rc = mlia_json_parse(text, size, &o, &a, &doc, "format-table.json", &err);
    free(text);
    if (rc != 0) {
        mlia_arena_free(&a);
        CHECK(rc == 0);
    }
    const mlia_json *rows = mlia_json_get(doc, "rows");
    int checked = 0, bad = 0;
    for (size_t i = 0; rows && i < rows->u.array.n; i++) {
        const mlia_json *r = rows->u.array.items[i];
        double v = r->u.array.items[0]->u.number.d;
        const mlia_json *u = r->u.array.items[1];
        const char *unit = u->type == MLIA_JSON_STRING ? u->u.string.s : NULL;
        const char *want = r->u.array.items[2]->u.string.s;
        char got[MLIA_FMT_CAP];
        mlia_fmt_value(got, sizeof got, v, unit);
        if (strcmp(got, want) != 0) {
            TEST_FAIL_AT("row %zu: %.17g %s -> \"%s\", expected \"%s\"", i, v, unit ? unit : "(none)", got, want);
            bad++;
        }
        checked++;
    }
    mlia_arena_free(&a);
    CHECK_INT(bad, 0);
    CHECK(checked >= 40);
}

TEST(quantities_and_specials)
{
    char s[MLIA_FMT_CAP];
    mlia_fmt_quantity(s, sizeof s, 0.412, "ms");
    CHECK_STR(s, "0.4120 ms");
    mlia_fmt_quantity(s, sizeof s, 4000, "cycles");
    CHECK_STR(s, "4,000 cycles");
    mlia_fmt_quantity(s, sizeof s, 100, "%");
    CHECK_STR(s, "100 %");
    mlia_fmt_quantity(s, sizeof s, 107526.88172043012, "inferences/s");
    CHECK_STR(s, "107,527 inferences/s");
    mlia_fmt_sig4(s, sizeof s, NAN);
    CHECK_STR(s, "-");
    mlia_fmt_int(s, sizeof s, INFINITY);
    CHECK_STR(s, "-");
    /* a short buffer is cut, never overrun */
    char small[4];
    CHECK_INT(mlia_fmt_int(small, sizeof small, 1234567), 3);
    CHECK_STR(small, "1,2");
}

int main(void)
{
    RUN(table_of_values);
    RUN(quantities_and_specials);
    return test_summary();
}
