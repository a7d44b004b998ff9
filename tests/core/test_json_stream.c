/*
 * test_json_stream.c - the pull reader (core/json_stream.h) against the
 * tree reader (core/json_read.h): the same values for valid documents
 * (also across the 64 KiB window and from a file), the same message for
 * every bad input of test_json_read.c, skipping without keeping strings,
 * the tap, and a value embedded in a larger file (value_only + peek).
 */
#include "test.h"

#include <unistd.h>

#include "core/json_read.h"
#include "core/json_stream.h"
#include "core/json_write.h"
#include "core/str.h"

/* Re-serialises the token stream compactly, as mlia_json_dump does for a tree. */
static int stream_dump(mlia_jstream *js, mlia_buf *b)
{
    int prev_value = 0; /* a value or key was written at this level: needs ',' */
    for (;;) {
        mlia_jtok t = mlia_jstream_next(js);
        if (t == MLIA_JTOK_ERROR)
            return -1;
        if (t == MLIA_JTOK_EOF)
            return 0;
        bool closing = t == MLIA_JTOK_OBJ_END || t == MLIA_JTOK_ARR_END;
        if (!closing && prev_value && !(b->len && b->data[b->len - 1] == ':'))
            mlia_buf_putc(b, ',');
        prev_value = !(t == MLIA_JTOK_OBJ_BEGIN || t == MLIA_JTOK_ARR_BEGIN);
        switch (t) {
        case MLIA_JTOK_OBJ_BEGIN: mlia_buf_putc(b, '{'); break;
        case MLIA_JTOK_ARR_BEGIN: mlia_buf_putc(b, '['); break;
        case MLIA_JTOK_OBJ_END: mlia_buf_putc(b, '}'); break;
        case MLIA_JTOK_ARR_END: mlia_buf_putc(b, ']'); break;
        case MLIA_JTOK_KEY:
            mlia_json_escape(b, js->text, js->text_len, false);
            mlia_buf_putc(b, ':');
            break;
        case MLIA_JTOK_STRING: mlia_json_escape(b, js->text, js->text_len, false); break;
        case MLIA_JTOK_NUMBER: mlia_buf_append(b, js->text, js->text_len); break;
        case MLIA_JTOK_TRUE: mlia_buf_puts(b, "true"); break;
        case MLIA_JTOK_FALSE: mlia_buf_puts(b, "false"); break;
        default: mlia_buf_puts(b, "null"); break;
        }
    }
}

/* Both readers on the same text: equal dumps, or equal messages. */
static void same_as_tree(const char *text, size_t len)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error te, se;
    mlia_error_clear(&te);
    mlia_error_clear(&se);
    mlia_json *v = NULL;
    int trc = mlia_json_parse(text, len, NULL, &a, &v, "t.json", &te);
    mlia_jstream js;
    mlia_jstream_init_mem(&js, text, len, "t.json", false, &se);
    mlia_buf b;
    mlia_buf_init(&b);
    int src = stream_dump(&js, &b);
    if (trc == 0) {
        CHECK_INT(src, 0);
        if (src)
            printf("  stream: %s (input %.60s)\n", se.text, text);
        else
            CHECK_STR(b.data ? b.data : "", mlia_json_dump(v, &a, NULL));
    } else {
        CHECK_INT(src, -1);
        CHECK_STR(se.text, te.text);
    }
    mlia_buf_free(&b);
    mlia_jstream_close(&js);
    mlia_arena_free(&a);
}

static void same(const char *text)
{
    same_as_tree(text, strlen(text));
}

TEST(valid_documents)
{
    same("{\"Image\":{\"Width\":800,\"Height\":600,\"Title\":\"View from 15th Floor\",\"Thumbnail\":{\"Url\":"
         "\"http://www.example.com/image/481989943\",\"Height\":125,\"Width\":100},\"Animated\":false,"
         "\"IDs\":[116,943,234,38793]}}");
    same(" [ {\"a\" : [ ] , \"b\" : { } } , 1.5e-3 , -0 , true , null , \"\\u00e9\\ud83d\\ude00\\n\\/\" ] ");
    same("\"plain\"");
    same("-12345678901234567890");
    same("{\"k\":{\"k\":{\"k\":[[[[1]]]]}}}");
}

TEST(bad_inputs_same_messages)
{
    static const char *const bad[] = {
        "\"ab\xff\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"\\n\xe2\x82\"",
        "\"x\\ud83d\"", "\"\\ude00\"", "\"\\ud83d\\u0041\"", "\"\\u12g4\"", "\"\\x\"", "\"a\tb\"", "\"abc",
        "\"a\\", "\"\\u12", "\xef\xbb\xbf{}", "", "   ", "[1,]", "{\"a\":1,}", "{\"a\" 1}", "{'a':1}", "[1 2]",
        "{\"a\":1 \"b\":2}", "[1", "{}x", "{} {}", "01", "1.", "1.e5", "1e+", "+1", ".5", "tru", "[\x01]",
        "NaN", "[Infinity]", "-Infinity", "{\"a\":}", "[-]", "{\"a\"", "{\"a\":1", "nul", "[1]]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        same(bad[i]);
    /* one absolute check besides the parity */
    mlia_error err;
    mlia_error_clear(&err);
    mlia_jstream js;
    mlia_jstream_init_mem(&js, "hello", 5, "f.json", false, &err);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_ERROR);
    CHECK_STR(err.text, "f.json: invalid JSON at byte 0: unexpected 'h', expected a value");
    mlia_jstream_close(&js);
}

/* issue 28 item 7: a literal beyond a double's range is refused like
 * Infinity, never read as an infinite value */
TEST(overflowing_numbers_refused)
{
    static const struct {
        const char *doc, *msg;
    } cases[] = {
        {"[1e400]", "f.json: invalid JSON at byte 1: number out of range (1e400 is not a finite double)"},
        {"{\"v\": -1.5E+309}", "f.json: invalid JSON at byte 6: number out of range (-1.5E+309 is not a finite double)"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        mlia_error err;
        mlia_error_clear(&err);
        mlia_jstream js;
        mlia_jstream_init_mem(&js, cases[i].doc, strlen(cases[i].doc), "f.json", false, &err);
        mlia_jtok t;
        while ((t = mlia_jstream_next(&js)) != MLIA_JTOK_ERROR && t != MLIA_JTOK_EOF)
            ;
        CHECK_INT(t, MLIA_JTOK_ERROR);
        CHECK_STR(err.text, cases[i].msg);
        mlia_jstream_close(&js);
    }
    /* the largest finite literal and an underflow to 0 are numbers */
    mlia_jstream js;
    mlia_jstream_init_mem(&js, "[1.7976931348623157e308, 1e-400]", 32, NULL, false, NULL);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_ARR_BEGIN);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_NUMBER);
    CHECK(js.number > 1.79e308);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_NUMBER);
    CHECK(js.number == 0.0);
    mlia_jstream_close(&js);
}

TEST(depth_limit)
{
    char deep[1100];
    memset(deep, '[', 513);
    deep[513] = 0;
    mlia_error err;
    mlia_error_clear(&err);
    mlia_jstream js;
    mlia_jstream_init_mem(&js, deep, strlen(deep), NULL, false, &err);
    mlia_jtok t;
    while ((t = mlia_jstream_next(&js)) == MLIA_JTOK_ARR_BEGIN)
        ;
    CHECK_INT(t, MLIA_JTOK_ERROR);
    CHECK_STR(err.text, "invalid JSON at byte 512: nesting deeper than 512 levels");
    mlia_jstream_close(&js);
}

/* A document of several windows: strings, escapes and numbers that straddle
 * every window boundary, read from memory and from a file. */
static char *big_document(size_t *len)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "{\"items\":[");
    for (int i = 0; i < 6000; i++) {
        mlia_buf_printf(&b, "%s{\"id\":\"item/%d\",\"v\":%d.%03d,\"s\":\"", i ? "," : "", i, i, i % 1000);
        for (int k = 0; k < i % 37; k++)
            mlia_buf_puts(&b, k % 5 == 0 ? "\\u00e9" : k % 7 == 0 ? "\xe2\x82\xac" : k % 3 ? "x" : "\\n");
        mlia_buf_puts(&b, "\"}");
    }
    mlia_buf_puts(&b, "],\"long\":\"");
    for (int k = 0; k < 200000; k++)
        mlia_buf_putc(&b, (char)('a' + k % 26));
    mlia_buf_puts(&b, "\"}\n");
    *len = b.len;
    return mlia_buf_take(&b);
}

TEST(windows_memory_and_file)
{
    size_t len;
    char *doc = big_document(&len);
    CHECK(len > 3 * MLIA_JSTREAM_WINDOW);
    same_as_tree(doc, len);
    /* from a file */
    FILE *f = tmpfile();
    CHECK(f != NULL);
    CHECK_UINT(fwrite(doc, 1, len, f), len);
    fflush(f);
    lseek(fileno(f), 0, SEEK_SET);
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_json *v = NULL;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(mlia_json_parse(doc, len, NULL, &a, &v, NULL, &err), 0);
    mlia_jstream js;
    mlia_jstream_init(&js, fileno(f), NULL, false, &err);
    mlia_buf b;
    mlia_buf_init(&b);
    CHECK_INT(stream_dump(&js, &b), 0);
    CHECK_STR(b.data, mlia_json_dump(v, &a, NULL));
    mlia_buf_free(&b);
    mlia_jstream_close(&js);
    fclose(f);
    mlia_arena_free(&a);
    free(doc);
}

static void append_tap(void *ctx, const char *bytes, size_t n)
{
    mlia_buf_append((mlia_buf *)ctx, bytes, n);
}

TEST(skip_keeps_nothing_and_tap_copies)
{
    size_t len;
    char *doc = big_document(&len);
    mlia_error err;
    mlia_error_clear(&err);
    mlia_jstream js;
    mlia_jstream_init_mem(&js, doc, len, NULL, false, &err);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_OBJ_BEGIN);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_KEY);
    CHECK_STR(js.text, "items");
    /* the array's raw bytes, through the tap, while it is skipped */
    mlia_buf raw;
    mlia_buf_init(&raw);
    mlia_jstream_tap_begin(&js, append_tap, &raw);
    CHECK_INT(mlia_jstream_skip_value(&js), 0);
    mlia_jstream_tap_end(&js);
    const char *start = strstr(doc, "[{");
    const char *end = strstr(doc, "],\"long\"");
    CHECK_UINT(raw.len, (size_t)(end + 1 - start));
    CHECK(raw.data && memcmp(raw.data, start, raw.len) == 0);
    CHECK(js.text_cap <= 256); /* no string of the array was kept */
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_KEY);
    CHECK_INT(mlia_jstream_skip_value(&js), 0); /* a 200,000-byte string, not kept */
    CHECK(js.text_cap <= 256);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_OBJ_END);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_EOF);
    CHECK(!err.set);
    mlia_buf_free(&raw);
    mlia_jstream_close(&js);
    free(doc);
}

TEST(value_only_then_peek)
{
    const char *page = "{\"a\":[1,2,{\"b\":\"</x>\"}]}</script>\n<p>tail";
    mlia_error err;
    mlia_error_clear(&err);
    mlia_jstream js;
    mlia_jstream_init_mem(&js, page, strlen(page), NULL, true, &err);
    CHECK_INT(mlia_jstream_skip_value(&js), 0);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_EOF);
    char tail[16];
    CHECK_UINT(mlia_jstream_peek(&js, tail, 9), 9);
    CHECK(memcmp(tail, "</script>", 9) == 0);
    CHECK_UINT(mlia_jstream_offset(&js), strlen("{\"a\":[1,2,{\"b\":\"</x>\"}]}"));
    mlia_jstream_close(&js);
    /* a string kept longer than the limit is an error, not an allocation */
    size_t n = (1u << 20) + 16;
    char *s = malloc(n + 3);
    s[0] = '"';
    memset(s + 1, 'y', n);
    s[n + 1] = '"';
    s[n + 2] = 0;
    mlia_error_clear(&err);
    mlia_jstream_init_mem(&js, s, n + 2, "s.json", false, &err);
    CHECK_INT(mlia_jstream_next(&js), MLIA_JTOK_ERROR);
    CHECK_STR(err.text, "s.json: string at byte 0 longer than 1048576 bytes");
    mlia_jstream_close(&js);
    free(s);
}

int main(void)
{
    RUN(valid_documents);
    RUN(bad_inputs_same_messages);
    RUN(overflowing_numbers_refused);
    RUN(depth_limit);
    RUN(windows_memory_and_file);
    RUN(skip_keeps_nothing_and_tap_copies);
    RUN(value_only_then_peek);
    return test_summary();
}
