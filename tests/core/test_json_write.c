#include "test.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* The fast path gives the printf path's text: short decimals of every
 * magnitude (times in ms from ns ticks, percentages, cycles), their
 * neighbours one ulp away, the boundaries of plain notation, and random
 * bit patterns; one million values. */
TEST(double_format_fast_path_matches_printf)
{
    uint64_t state = 0x9e3779b97f4a7c15ull;
    char got[32], want[32];
    uint32_t bad = 0;
    for (uint32_t i = 0; i < 1000000 && bad < 5; i++) {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        double v;
        switch (i % 5) {
        case 0: v = (double)(state % 100000000000ull) / 1e6; break;               /* ns -> ms */
        case 1: v = (double)(state % 1000000ull) / pow(10, (double)(state >> 60)); break;
        case 2: v = nextafter((double)(state % 10000000ull) / 1e4, (state & 1) ? 1e300 : -1e300); break;
        case 3: {
            static const double edges[] = {1e-4, 1e15, 1e16, 9.999999999999999e14, 0.00010000000000000002, 123456789012345.0};
            v = edges[state % 6] * ((state >> 8) & 1 ? -1 : 1);
            break;
        }
        default: memcpy(&v, &state, sizeof v); break;                          /* any double */
        }
        if (!isfinite(v) || v == 0)
            continue;
        mlia_format_double(got, v);
        mlia_format_double_printf(want, v);
        if (strcmp(got, want) != 0) {
            fprintf(stderr, "  %.17g: got %s, want %s\n", v, got, want);
            bad++;
        }
    }
    CHECK_UINT(bad, 0);
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

/* mlia_jw_uints writes what as many mlia_jw_uint calls write: compact
 * and pretty, first in its array or after other items, into a buffer or
 * streamed to a file through a chunk (issue 33: the page's timeline). */
TEST(uint_runs_write_what_single_uints_write)
{
    const uint64_t v[] = {0, 7, 10, 99, 100, 4294967295u, 4294967296u, UINT64_MAX, 1032230};
    size_t n = sizeof v / sizeof v[0];
    for (int pretty = 0; pretty <= 1; pretty++)
        for (int lead = 0; lead <= 1; lead++) {
            mlia_buf a, b;
            mlia_buf_init(&a);
            mlia_buf_init(&b);
            mlia_jw wa, wb;
            mlia_jw_init_buf(&wa, &a, pretty);
            mlia_jw_init_buf(&wb, &b, pretty);
            mlia_jw_obj_begin(&wa);
            mlia_jw_obj_begin(&wb);
            mlia_jw_karr_begin(&wa, "events");
            mlia_jw_karr_begin(&wb, "events");
            if (lead) {
                mlia_jw_str(&wa, "x");
                mlia_jw_str(&wb, "x");
            }
            for (size_t i = 0; i < n; i++)
                mlia_jw_uint(&wa, v[i]);
            mlia_jw_uints(&wb, v, 4);
            mlia_jw_uints(&wb, v + 4, 0);
            mlia_jw_uints(&wb, v + 4, n - 4);
            mlia_jw_arr_end(&wa);
            mlia_jw_arr_end(&wb);
            mlia_jw_obj_end(&wa);
            mlia_jw_obj_end(&wb);
            CHECK_STR(b.data, a.data);
            mlia_buf_free(&a);
            mlia_buf_free(&b);
        }
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    mlia_jw_arr_begin(&w);
    mlia_jw_uints(&w, v, n);
    mlia_jw_arr_end(&w);
    CHECK_STR(b.data, "[0,7,10,99,100,4294967295,4294967296,18446744073709551615,1032230]");
    mlia_buf_free(&b);
    /* streamed: many numbers through a small chunk, flushed as it fills */
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    CHECK(fp);
    mlia_buf chunk;
    mlia_buf_init(&chunk);
    mlia_jw_init_stream(&w, &chunk, fp, false);
    mlia_jw_arr_begin(&w);
    uint64_t many[1000];
    for (size_t i = 0; i < 1000; i++)
        many[i] = i * 1000003u;
    for (int r = 0; r < 300; r++)
        mlia_jw_uints(&w, many, 1000);
    mlia_jw_arr_end(&w);
    mlia_jw_flush(&w);
    CHECK(chunk.len == 0);
    fclose(fp);
    mlia_buf want;
    mlia_buf_init(&want);
    mlia_jw_init_buf(&w, &want, false);
    mlia_jw_arr_begin(&w);
    for (int r = 0; r < 300; r++)
        for (size_t i = 0; i < 1000; i++)
            mlia_jw_uint(&w, many[i]);
    mlia_jw_arr_end(&w);
    CHECK(len == want.len && memcmp(text, want.data, len) == 0);
    free(text);
    mlia_buf_free(&want);
    mlia_buf_free(&chunk);
}

/* A large raw piece in a streamed document (the page's timeline, formatted
 * on the second core) goes to the file after what was buffered: the same
 * bytes as the same piece written into one buffer, and the chunk does not
 * grow to its size. */
TEST(large_raw_piece_streams_in_order)
{
    size_t big = 3 * (size_t)MLIA_JW_STREAM_CHUNK + 17;
    char *piece = malloc(big + 1);
    CHECK(piece);
    piece[0] = '[';
    for (size_t i = 1; i + 1 < big; i++)
        piece[i] = i % 2 ? '1' : ',';
    piece[big - 1] = ']';
    piece[big] = 0;
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    CHECK(fp);
    mlia_buf chunk;
    mlia_buf_init(&chunk);
    mlia_jw w;
    mlia_jw_init_stream(&w, &chunk, fp, false);
    mlia_jw_obj_begin(&w);
    mlia_jw_kstr(&w, "before", "a");
    mlia_jw_key(&w, "big");
    mlia_jw_raw(&w, piece, big);
    mlia_jw_kstr(&w, "after", "b");
    mlia_jw_obj_end(&w);
    mlia_jw_flush(&w);
    CHECK(!w.failed);
    CHECK(chunk.cap < big); /* never held the piece */
    fclose(fp);
    mlia_buf want;
    mlia_buf_init(&want);
    mlia_jw_init_buf(&w, &want, false);
    mlia_jw_obj_begin(&w);
    mlia_jw_kstr(&w, "before", "a");
    mlia_jw_key(&w, "big");
    mlia_jw_raw(&w, piece, big);
    mlia_jw_kstr(&w, "after", "b");
    mlia_jw_obj_end(&w);
    CHECK(len == want.len && memcmp(text, want.data, len) == 0);
    CHECK(memcmp(text, "{\"before\":\"a\",\"big\":[1,1", 24) == 0);
    free(text);
    free(piece);
    mlia_buf_free(&want);
    mlia_buf_free(&chunk);
}

typedef struct pair_rec {
    const char *name;
    uint32_t n;
} pair_rec;

static void pair_members(mlia_jw *w, const void *item, uint32_t i)
{
    const pair_rec *r = item;
    mlia_jw_kuint(w, "i", i);
    mlia_jw_kstr(w, "name", r->name);
    mlia_jw_kuint(w, "n", r->n);
}

/* The list helpers and the key + value helpers write the same bytes as the
 * calls they replace (issue 17 item 7 moved the report writers onto them). */
TEST(list_and_optional_helpers)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    static const int32_t i32[] = {-1, 7};
    static const uint64_t u64[] = {18446744073709551615ull};
    static const uint8_t u8[] = {0, 255};
    const char *strs[] = {"a", NULL};
    mlia_str ms[] = {{"xy", 1}, {NULL, 0}};
    pair_rec recs[] = {{"p", 1}, {"q", 2}};
    mlia_jw_obj_begin(&w);
    mlia_jw_karray(&w, "i32", 2, mlia_jw_item_i32, i32);
    mlia_jw_karray(&w, "u64", 1, mlia_jw_item_u64, u64);
    mlia_jw_karray(&w, "u8", 2, mlia_jw_item_u8, u8);
    mlia_jw_karray(&w, "s", 2, mlia_jw_item_str, strs);
    mlia_jw_karray(&w, "ms", 2, mlia_jw_item_mstr, ms);
    mlia_jw_karray(&w, "none", 0, mlia_jw_item_str, NULL);
    mlia_jw_kobjects(&w, "recs", recs, 2, sizeof *recs, pair_members);
    mlia_jw_kname(&w, "known", "INT", 3);
    mlia_jw_kname(&w, "raw", NULL, -4);
    mlia_jw_kint_or_null(&w, "h", true, -2);
    mlia_jw_kint_or_null(&w, "no_h", false, -2);
    mlia_jw_kuint_or_null(&w, "sz", true, 9);
    mlia_jw_kuint_or_null(&w, "no_sz", false, 9);
    mlia_jw_kobj_begin(&w, "o");
    mlia_jw_karr_begin(&w, "a");
    mlia_jw_karray(&w, NULL, 1, mlia_jw_item_i32, i32);
    mlia_jw_arr_end(&w);
    mlia_jw_obj_end(&w);
    mlia_jw_obj_end(&w);
    CHECK_STR(b.data, "{\"i32\":[-1,7],\"u64\":[18446744073709551615],\"u8\":[0,255],\"s\":[\"a\",null],"
                      "\"ms\":[\"x\",null],\"none\":[],\"recs\":[{\"i\":0,\"name\":\"p\",\"n\":1},"
                      "{\"i\":1,\"name\":\"q\",\"n\":2}],\"known\":\"INT\",\"raw\":-4,\"h\":-2,"
                      "\"no_h\":null,\"sz\":9,\"no_sz\":null,\"o\":{\"a\":[[-1]]}}");
    mlia_buf_free(&b);
}

int main(void)
{
    RUN(list_and_optional_helpers);
    RUN(integers);
    RUN(uint_runs_write_what_single_uints_write);
    RUN(large_raw_piece_streams_in_order);
    RUN(double_format);
    RUN(double_format_fast_path_matches_printf);
    RUN(pretty_nested);
    RUN(html_safe_and_bad_utf8);
    return test_summary();
}
