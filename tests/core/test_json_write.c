#include "test.h"

#include "core/json_write.h"

TEST(double_format)
{
    char b[32];
    mlia_format_double(b, 100.0);
    CHECK_STR(b, "100.0");
    mlia_format_double(b, 200.0 / 3.0);
    CHECK_STR(b, "66.66666666666667");
    mlia_format_double(b, 1.032230);
    CHECK_STR(b, "1.03223");
    mlia_format_double(b, 0.0);
    CHECK_STR(b, "0.0");
    mlia_format_double(b, 1e-5);
    CHECK_STR(b, "1e-05");
    mlia_format_double(b, 1e20);
    CHECK_STR(b, "1e+20");
}

TEST(pretty_nested)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, true);
    mlia_jw_obj_begin(&w);
    mlia_jw_kstr(&w, "a", "x\"<\n");
    mlia_jw_key(&w, "l");
    mlia_jw_arr_begin(&w);
    mlia_jw_int(&w, -3);
    mlia_jw_arr_end(&w);
    mlia_jw_key(&w, "e");
    mlia_jw_arr_begin(&w);
    mlia_jw_arr_end(&w);
    mlia_jw_obj_end(&w);
    mlia_jw_finish(&w);
    CHECK_STR(b.data, "{\n  \"a\": \"x\\\"<\\n\",\n  \"l\": [\n    -3\n  ],\n  \"e\": []\n}\n");
    mlia_buf_free(&b);
}

TEST(html_safe_and_bad_utf8)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_json_escape(&b, "</script>\xff", 10, true);
    CHECK_STR(b.data, "\"\\u003c/script\\u003e\\ufffd\"");
    mlia_buf_free(&b);
}

TEST(integers)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    mlia_jw_arr_begin(&w);
    mlia_jw_int(&w, 0);
    mlia_jw_int(&w, -1);
    mlia_jw_int(&w, INT64_MIN);
    mlia_jw_int(&w, INT64_MAX);
    mlia_jw_uint(&w, UINT64_MAX);
    mlia_jw_uint(&w, 1032230);
    mlia_jw_arr_end(&w);
    CHECK_STR(b.data, "[0,-1,-9223372036854775808,9223372036854775807,18446744073709551615,1032230]");
    mlia_buf_free(&b);
}

int main(void)
{
    RUN(integers);
    RUN(double_format);
    RUN(pretty_nested);
    RUN(html_safe_and_bad_utf8);
    return test_summary();
}
