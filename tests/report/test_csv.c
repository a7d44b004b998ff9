/*
 * test_csv.c - one CSV text cell as report/csv/csv.c writes it: RFC 4180
 * quoting, formula-like text neutralised with an apostrophe, invalid UTF-8
 * repaired with U+FFFD. (The tables themselves: tests/py/test_captures.py.)
 */
#include "report/csv/csv.h"

#include <string.h>

#include "test.h"

static char got[256];

static const char *cell(const char *s)
{
    mlia_buf b;
    mlia_buf_init(&b);
    csv_text_cell(&b, s);
    size_t n = b.len < sizeof got - 1 ? b.len : sizeof got - 1;
    memcpy(got, b.data ? b.data : "", n);
    got[n] = 0;
    mlia_buf_free(&b);
    return got;
}

TEST(plain_text_is_written_as_is)
{
    CHECK_STR(cell("aten.relu.default"), "aten.relu.default");
    CHECK_STR(cell(""), "");
    CHECK_STR(cell(NULL), "");
    CHECK_STR(cell("a=b+c-d@e"), "a=b+c-d@e"); /* only the first character matters */
    CHECK_STR(cell("caf\xc3\xa9"), "caf\xc3\xa9");
}

TEST(quoting_follows_rfc_4180)
{
    CHECK_STR(cell("a,b"), "\"a,b\"");
    CHECK_STR(cell("say \"hi\""), "\"say \"\"hi\"\"\"");
    CHECK_STR(cell("two\nlines"), "\"two\nlines\"");
    CHECK_STR(cell("cr\rhere"), "\"cr\rhere\"");
}

TEST(formula_like_cells_are_neutralised)
{
    CHECK_STR(cell("=1+2"), "'=1+2");
    CHECK_STR(cell("+1"), "'+1");
    CHECK_STR(cell("-1"), "'-1");
    CHECK_STR(cell("@SUM(A1)"), "'@SUM(A1)");
    CHECK_STR(cell("\tx"), "'\tx");
    CHECK_STR(cell("\rx"), "\"'\rx\"");
    CHECK_STR(cell("=HYPERLINK(\"u\",\"t\")"), "\"'=HYPERLINK(\"\"u\"\",\"\"t\"\")\"");
    CHECK_STR(cell("'quoted"), "'quoted"); /* an apostrophe alone is not a formula */
}

TEST(invalid_utf8_becomes_replacement_characters)
{
    CHECK_STR(cell("a\xff" "b"), "a\xef\xbf\xbd" "b");
    CHECK_STR(cell("\xc3"), "\xef\xbf\xbd");
    CHECK_STR(cell("\xe2\x82" "x"), "\xef\xbf\xbd\xef\xbf\xbdx");
    CHECK_STR(cell("\xff=1"), "\xef\xbf\xbd=1"); /* repaired first: no longer formula-like */
}

int main(void)
{
    RUN(plain_text_is_written_as_is);
    RUN(quoting_follows_rfc_4180);
    RUN(formula_like_cells_are_neutralised);
    RUN(invalid_utf8_becomes_replacement_characters);
    return test_summary();
}
