/*
 * test_json_read.c - JSON reader: RFC 8259 examples, Python's non-finite
 * tokens, UTF-8 and escape handling, limits, and exact error messages.
 */
#include "test.h"

#include <time.h>

#include "core/json_read.h"
#include "core/str.h"

/* Parses s (strlen) with the given options; returns the root or NULL and
 * leaves the message in *err. */
static mlia_json *parse_opts(mlia_arena *a, const char *s, bool nonfinite, unsigned depth,
                             mlia_error *err)
{
    mlia_json_opts o = {.allow_nonfinite = nonfinite, .max_depth = depth};
    mlia_json *v = NULL;
    mlia_error_clear(err);
    if (mlia_json_parse(s, strlen(s), &o, a, &v, "t.json", err) < 0)
        return NULL;
    return v;
}

static const char *parse_error(mlia_arena *a, const char *s, bool nonfinite)
{
    static mlia_error err;
    if (parse_opts(a, s, nonfinite, 0, &err))
        return "(parsed)";
    return err.text;
}

TEST(rfc_example_object)
{
    /* RFC 8259 section 13, first example. */
    const char *s =
        "{\n"
        "  \"Image\": {\n"
        "    \"Width\":  800,\n"
        "    \"Height\": 600,\n"
        "    \"Title\":  \"View from 15th Floor\",\n"
        "    \"Thumbnail\": {\n"
        "      \"Url\":    \"http://www.example.com/image/481989943\",\n"
        "      \"Height\": 125,\n"
        "      \"Width\":  100\n"
        "    },\n"
        "    \"Animated\" : false,\n"
        "    \"IDs\": [116, 943, 234, 38793]\n"
        "  }\n"
        "}";
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_json *v = parse_opts(&a, s, false, 0, &err);
    CHECK(v);
    CHECK_INT(v->type, MLIA_JSON_OBJECT);
    CHECK_UINT(v->offset, 0);
    mlia_json *img = mlia_json_get(v, "Image");
    CHECK(mlia_json_is(img, MLIA_JSON_OBJECT));
    CHECK_UINT(img->u.object.n, 6);
    CHECK_STR(img->u.object.members[0].key, "Width");
    CHECK_STR(img->u.object.members[5].key, "IDs");
    mlia_json *w = mlia_json_get(img, "Width");
    CHECK(w->num_is_integer && w->num_int_fits);
    CHECK_INT(w->u.number.i, 800);
    CHECK_STR(w->u.number.text, "800");
    CHECK_STR(mlia_json_get_str(img, "Title"), "View from 15th Floor");
    CHECK(mlia_json_get_str(img, "Width") == NULL);
    CHECK_INT(mlia_json_get(mlia_json_get(img, "Thumbnail"), "Height")->u.number.i, 125);
    mlia_json *an = mlia_json_get(img, "Animated");
    CHECK(mlia_json_is(an, MLIA_JSON_BOOL) && !an->u.boolean);
    mlia_json *ids = mlia_json_get(img, "IDs");
    CHECK(mlia_json_is(ids, MLIA_JSON_ARRAY));
    CHECK_UINT(ids->u.array.n, 4);
    CHECK_INT(ids->u.array.items[3]->u.number.i, 38793);
    CHECK(mlia_json_get(img, "Missing") == NULL);
    CHECK(mlia_json_get(ids, "x") == NULL);
    size_t n;
    char *d = mlia_json_dump(img, &a, &n);
    CHECK_STR(d, "{\"Width\":800,\"Height\":600,\"Title\":\"View from 15th Floor\","
                 "\"Thumbnail\":{\"Url\":\"http://www.example.com/image/481989943\","
                 "\"Height\":125,\"Width\":100},\"Animated\":false,\"IDs\":[116,943,234,38793]}");
    CHECK_UINT(n, strlen(d));
    mlia_arena_free(&a);
}

TEST(rfc_example_array_and_scalars)
{
    const char *s = "[{\"precision\": \"zip\", \"Latitude\": 37.7668, \"Longitude\": -122.3959,"
                    " \"Zip\": \"94107\"}, 1e3, -0, 0.5E-2, true, null, \"\"]";
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_json *v = parse_opts(&a, s, false, 0, &err);
    CHECK(v);
    CHECK_UINT(v->u.array.n, 7);
    mlia_json *lat = mlia_json_get(v->u.array.items[0], "Latitude");
    CHECK(!lat->num_is_integer && !lat->num_int_fits);
    CHECK_DBL(lat->u.number.d, 37.7668);
    CHECK_DBL(mlia_json_get(v->u.array.items[0], "Longitude")->u.number.d, -122.3959);
    mlia_json *e = v->u.array.items[1];
    CHECK(!e->num_is_integer);
    CHECK_DBL(e->u.number.d, 1000.0);
    CHECK_STR(e->u.number.text, "1e3");
    CHECK_UINT(e->offset, 84);
    CHECK(v->u.array.items[2]->num_is_integer);
    CHECK_INT(v->u.array.items[2]->u.number.i, 0);
    CHECK_DBL(v->u.array.items[3]->u.number.d, 0.005);
    CHECK(v->u.array.items[4]->u.boolean);
    CHECK_INT(v->u.array.items[5]->type, MLIA_JSON_NULL);
    CHECK_UINT(v->u.array.items[6]->u.string.len, 0);
    /* Scalars at top level (RFC 8259 allows any value). */
    v = parse_opts(&a, "  \"Hello world!\" ", false, 0, &err);
    CHECK(v && v->type == MLIA_JSON_STRING);
    CHECK_STR(v->u.string.s, "Hello world!");
    CHECK_UINT(v->offset, 2);
    v = parse_opts(&a, "42", false, 0, &err);
    CHECK(v && v->u.number.i == 42);
    v = parse_opts(&a, "[]", false, 0, &err);
    CHECK(v && v->u.array.n == 0);
    v = parse_opts(&a, "{ }", false, 0, &err);
    CHECK(v && v->u.object.n == 0);
    mlia_arena_free(&a);
}

TEST(nonfinite_tokens)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_json *v = parse_opts(&a, "{\"min_val\": -Infinity, \"max_val\": Infinity, \"x\": NaN}",
                              true, 0, &err);
    CHECK(v);
    mlia_json *mn = mlia_json_get(v, "min_val");
    CHECK(mn->num_nonfinite && !mn->num_is_integer && !mn->num_int_fits);
    CHECK(isinf(mn->u.number.d) && mn->u.number.d < 0);
    CHECK_STR(mn->u.number.text, "-Infinity");
    mlia_json *mx = mlia_json_get(v, "max_val");
    CHECK(isinf(mx->u.number.d) && mx->u.number.d > 0);
    CHECK(isnan(mlia_json_get(v, "x")->u.number.d));
    CHECK_STR(mlia_json_dump(v, &a, NULL),
              "{\"min_val\":-Infinity,\"max_val\":Infinity,\"x\":NaN}");
    /* Refused in strict mode, with the position of the token. */
    CHECK_STR(parse_error(&a, "[1, NaN]", false), "t.json: invalid JSON at byte 4: NaN is not allowed");
    CHECK_STR(parse_error(&a, "{\"a\":Infinity}", false),
              "t.json: invalid JSON at byte 5: Infinity is not allowed");
    CHECK_STR(parse_error(&a, "-Infinity", false),
              "t.json: invalid JSON at byte 0: -Infinity is not allowed");
    /* Near misses are plain syntax errors even when allowed. */
    CHECK_STR(parse_error(&a, "[nan]", true),
              "t.json: invalid JSON at byte 1: unexpected 'n', expected a value");
    CHECK_STR(parse_error(&a, "[Inf]", true),
              "t.json: invalid JSON at byte 1: unexpected 'I', expected a value");
    CHECK_STR(parse_error(&a, "-Inf", true),
              "t.json: invalid JSON at byte 1: unexpected 'I', expected a digit");
    mlia_arena_free(&a);
}

TEST(big_integers)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_json *v = parse_opts(&a,
                              "[9223372036854775807, -9223372036854775808, 9223372036854775808,"
                              " -9223372036854775809, 123456789012345678901234567890, 1.0, 1E2]",
                              false, 0, &err);
    CHECK(v);
    mlia_json **it = v->u.array.items;
    CHECK(it[0]->num_int_fits);
    CHECK(it[0]->u.number.i == INT64_MAX);
    CHECK(it[1]->num_int_fits);
    CHECK(it[1]->u.number.i == INT64_MIN);
    CHECK(it[2]->num_is_integer && !it[2]->num_int_fits);
    CHECK_DBL(it[2]->u.number.d, 9223372036854775808.0);
    CHECK(it[3]->num_is_integer && !it[3]->num_int_fits);
    CHECK(it[4]->num_is_integer && !it[4]->num_int_fits);
    CHECK_STR(it[4]->u.number.text, "123456789012345678901234567890");
    CHECK_DBL(it[4]->u.number.d, 1.2345678901234568e29);
    CHECK(!it[5]->num_is_integer);
    CHECK(!it[6]->num_is_integer);
    mlia_arena_free(&a);
}

TEST(duplicate_keys_last_wins)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_json *v = parse_opts(&a, "{\"a\": 1, \"b\": 2, \"a\": 3}", false, 0, &err);
    CHECK(v);
    CHECK_UINT(v->u.object.n, 3); /* all occurrences kept in document order */
    CHECK_INT(mlia_json_get(v, "a")->u.number.i, 3);
    CHECK_INT(v->u.object.members[0].value->u.number.i, 1);
    mlia_arena_free(&a);
}

TEST(escapes_and_utf8)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_json *v = parse_opts(
        &a, "[\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\", \"\\u00e9\\u20AC\\ud83d\\ude00\", \"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\","
            " \"nul\\u0000x\", {\"k\\u0000\": 1}]",
        false, 0, &err);
    CHECK(v);
    CHECK_STR(v->u.array.items[0]->u.string.s, "a\"b\\c/d\b\f\n\r\t");
    CHECK_STR(v->u.array.items[1]->u.string.s, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    CHECK_UINT(v->u.array.items[1]->u.string.len, 9);
    CHECK_STR(v->u.array.items[2]->u.string.s, "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    CHECK_UINT(v->u.array.items[3]->u.string.len, 5);
    CHECK(memcmp(v->u.array.items[3]->u.string.s, "nul\0x", 5) == 0);
    mlia_json *o = v->u.array.items[4];
    CHECK_UINT(o->u.object.members[0].key_len, 2);
    CHECK(mlia_json_get(o, "k") == NULL); /* "k\0" is not "k" */
    mlia_arena_free(&a);
}

TEST(bad_strings)
{
    mlia_arena a;
    mlia_arena_init(&a);
    CHECK_STR(parse_error(&a, "\"ab\xff\"", false),
              "t.json: invalid JSON at byte 3: invalid UTF-8 in string");
    CHECK_STR(parse_error(&a, "\"\xc0\xaf\"", false), /* overlong '/' */
              "t.json: invalid JSON at byte 1: invalid UTF-8 in string");
    CHECK_STR(parse_error(&a, "\"\xed\xa0\x80\"", false), /* encoded surrogate */
              "t.json: invalid JSON at byte 1: invalid UTF-8 in string");
    CHECK_STR(parse_error(&a, "\"\xf4\x90\x80\x80\"", false), /* > U+10FFFF */
              "t.json: invalid JSON at byte 1: invalid UTF-8 in string");
    CHECK_STR(parse_error(&a, "\"\\n\xe2\x82\"", false), /* truncated, slow path */
              "t.json: invalid JSON at byte 3: invalid UTF-8 in string");
    CHECK_STR(parse_error(&a, "\"x\\ud83d\"", false),
              "t.json: invalid JSON at byte 2: lone surrogate in \\u escape");
    CHECK_STR(parse_error(&a, "\"\\ude00\"", false),
              "t.json: invalid JSON at byte 1: lone surrogate in \\u escape");
    CHECK_STR(parse_error(&a, "\"\\ud83d\\u0041\"", false),
              "t.json: invalid JSON at byte 1: lone surrogate in \\u escape");
    CHECK_STR(parse_error(&a, "\"\\u12g4\"", false),
              "t.json: invalid JSON at byte 5: invalid \\u escape");
    CHECK_STR(parse_error(&a, "\"\\x\"", false), "t.json: invalid JSON at byte 1: invalid escape");
    CHECK_STR(parse_error(&a, "\"a\tb\"", false),
              "t.json: invalid JSON at byte 2: control character in string");
    CHECK_STR(parse_error(&a, "\"abc", false), "t.json: invalid JSON at byte 4: unterminated string");
    CHECK_STR(parse_error(&a, "\"a\\", false), "t.json: invalid JSON at byte 3: unterminated string");
    CHECK_STR(parse_error(&a, "\"\\u12", false),
              "t.json: invalid JSON at byte 5: unexpected end of input");
    CHECK_STR(parse_error(&a, "\xef\xbb\xbf{}", false),
              "t.json: invalid JSON at byte 0: byte order mark is not allowed");
    mlia_arena_free(&a);
}

TEST(bad_syntax)
{
    mlia_arena a;
    mlia_arena_init(&a);
    CHECK_STR(parse_error(&a, "", false), "t.json: invalid JSON at byte 0: unexpected end of input");
    CHECK_STR(parse_error(&a, "   ", false), "t.json: invalid JSON at byte 3: unexpected end of input");
    CHECK_STR(parse_error(&a, "[1,]", false),
              "t.json: invalid JSON at byte 3: unexpected ']', expected a value");
    CHECK_STR(parse_error(&a, "{\"a\":1,}", false),
              "t.json: invalid JSON at byte 7: unexpected '}', expected a string key");
    CHECK_STR(parse_error(&a, "{\"a\" 1}", false),
              "t.json: invalid JSON at byte 5: unexpected '1', expected ':'");
    CHECK_STR(parse_error(&a, "{'a':1}", false),
              "t.json: invalid JSON at byte 1: unexpected ''', expected a string key");
    CHECK_STR(parse_error(&a, "[1 2]", false),
              "t.json: invalid JSON at byte 3: unexpected '2', expected ',' or ']'");
    CHECK_STR(parse_error(&a, "{\"a\":1 \"b\":2}", false),
              "t.json: invalid JSON at byte 7: unexpected '\"', expected ',' or '}'");
    CHECK_STR(parse_error(&a, "[1", false), "t.json: invalid JSON at byte 2: unexpected end of input");
    CHECK_STR(parse_error(&a, "{}x", false),
              "t.json: invalid JSON at byte 2: unexpected 'x', expected end of input");
    CHECK_STR(parse_error(&a, "{} {}", false),
              "t.json: invalid JSON at byte 3: unexpected '{', expected end of input");
    CHECK_STR(parse_error(&a, "01", false), "t.json: invalid JSON at byte 1: leading zero in number");
    CHECK_STR(parse_error(&a, "1.", false), "t.json: invalid JSON at byte 2: unexpected end of input");
    CHECK_STR(parse_error(&a, "1.e5", false),
              "t.json: invalid JSON at byte 2: unexpected 'e', expected a digit");
    CHECK_STR(parse_error(&a, "1e+", false), "t.json: invalid JSON at byte 3: unexpected end of input");
    CHECK_STR(parse_error(&a, "+1", false),
              "t.json: invalid JSON at byte 0: unexpected '+', expected a value");
    CHECK_STR(parse_error(&a, ".5", false),
              "t.json: invalid JSON at byte 0: unexpected '.', expected a value");
    CHECK_STR(parse_error(&a, "tru", false),
              "t.json: invalid JSON at byte 0: unexpected 't', expected a value");
    CHECK_STR(parse_error(&a, "[\x01]", false),
              "t.json: invalid JSON at byte 1: unexpected byte 0x01, expected a value");
    /* Without a file name the message has no prefix. */
    mlia_error err;
    mlia_error_clear(&err);
    mlia_json *v;
    CHECK_INT(mlia_json_parse("[", 1, NULL, &a, &v, NULL, &err), -1);
    CHECK_STR(err.text, "invalid JSON at byte 1: unexpected end of input");
    CHECK(v == NULL);
    /* Length is honoured: the text need not be NUL-terminated. */
    mlia_error_clear(&err);
    CHECK_INT(mlia_json_parse("[1]garbage", 3, NULL, &a, &v, NULL, &err), 0);
    CHECK_UINT(v->u.array.n, 1);
    mlia_arena_free(&a);
}

TEST(depth_limit)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    char deep[1200];
    for (int i = 0; i < 512; i++)
        deep[i] = '[';
    for (int i = 0; i < 512; i++)
        deep[512 + i] = ']';
    deep[1024] = 0;
    CHECK(parse_opts(&a, deep, false, 0, &err)); /* exactly the default limit */
    memmove(deep + 1, deep, 1025);
    deep[0] = '[';
    strcat(deep, "]");
    CHECK(!parse_opts(&a, deep, false, 0, &err));
    CHECK_STR(err.text, "t.json: invalid JSON at byte 512: nesting deeper than 512 levels");
    CHECK(!parse_opts(&a, "{\"a\":{\"b\":[1]}}", false, 2, &err));
    CHECK_STR(err.text, "t.json: invalid JSON at byte 10: nesting deeper than 2 levels");
    CHECK(parse_opts(&a, "{\"a\":{\"b\":1}}", false, 2, &err));
    /* A hostile document far deeper than the stack could take. */
    size_t n = 1000000;
    char *huge = malloc(n + 1);
    memset(huge, '[', n);
    huge[n] = 0;
    CHECK(!parse_opts(&a, huge, false, 0, &err));
    free(huge);
    CHECK_STR(err.text, "t.json: invalid JSON at byte 512: nesting deeper than 512 levels");
    mlia_arena_free(&a);
}

TEST(large_document_is_fast)
{
    /* 20,000 node-like objects (~3 MB) must parse in well under a second. */
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "{\"nodes\": [");
    for (int i = 0; i < 20000; i++) {
        mlia_buf_printf(&b,
                        "%s{\"name\": \"aten_convolution_default_%d\", \"target\": "
                        "\"executorch.exir.dialects.edge.ops.aten.convolution.default\", "
                        "\"inputs\": [{\"name\": \"input\", \"arg\": {\"as_tensor\": {\"name\": "
                        "\"x%d\"}}}, {\"name\": \"stride\", \"arg\": {\"as_ints\": [1, 1]}}], "
                        "\"metadata\": {\"debug_handle\": \"%d\", \"stack_trace\": \"  File "
                        "\\\"m.py\\\", line 3\\n    x\\n\"}}",
                        i ? ", " : "", i, i, i + 1);
    }
    mlia_buf_puts(&b, "]}");
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_error_clear(&err);
    mlia_json *v;
    clock_t t0 = clock();
    CHECK_INT(mlia_json_parse(b.data, b.len, NULL, &a, &v, NULL, &err), 0);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    mlia_json *nodes = mlia_json_get(v, "nodes");
    CHECK_UINT(nodes->u.array.n, 20000);
    CHECK_STR(mlia_json_get_str(mlia_json_get(nodes->u.array.items[19999], "metadata"),
                                "debug_handle"),
              "20000");
    CHECK(secs < 1.0);
    mlia_buf_free(&b);
    mlia_arena_free(&a);
}

/* mlia_json_clone: a deep copy that outlives the tree it came from (the
 * ExportedProgram reader releases its parse tree and keeps clones of the
 * raw members). The source arena is freed before the copy is read, so
 * ASan reports any pointer left into it. */
TEST(clone_outlives_its_tree)
{
    mlia_arena src, dst;
    mlia_arena_init(&src);
    mlia_arena_init(&dst);
    mlia_error err;
    mlia_json *v = parse_opts(&src, "{\"s0\": {\"min\": 2, \"max\": Infinity}, \"k\\u0000ey\": [\"a\\u0000b\", true, null, -1.5e3], \"s0\": 7}",
                              true, 0, &err);
    CHECK(v);
    mlia_json *c = mlia_json_clone(v, &dst);
    mlia_arena_free(&src);
    CHECK_INT(c->type, MLIA_JSON_OBJECT);
    CHECK_UINT(c->u.object.n, 3);
    CHECK_INT(mlia_json_get(c, "s0")->u.number.i, 7); /* duplicates kept, last wins */
    const mlia_json *s0 = c->u.object.members[0].value;
    CHECK_STR(mlia_json_dump(s0, &dst, NULL), "{\"min\":2,\"max\":Infinity}");
    CHECK(mlia_json_get(s0, "max")->num_nonfinite);
    CHECK_UINT(c->u.object.members[1].key_len, 4);
    CHECK(memcmp(c->u.object.members[1].key, "k\0ey", 5) == 0);
    const mlia_json *arr = c->u.object.members[1].value;
    CHECK_UINT(arr->u.array.n, 4);
    CHECK_UINT(arr->u.array.items[0]->u.string.len, 3);
    CHECK(memcmp(arr->u.array.items[0]->u.string.s, "a\0b", 4) == 0);
    CHECK(arr->u.array.items[1]->u.boolean);
    CHECK_INT(arr->u.array.items[2]->type, MLIA_JSON_NULL);
    CHECK_STR(arr->u.array.items[3]->u.number.text, "-1.5e3");
    CHECK(mlia_json_clone(NULL, &dst) == NULL);
    mlia_arena_free(&dst);
}

/* Repeated short keys share one copy per parse (json_read.c intern_key);
 * long keys, escaped keys and keys beyond the full table are copied, and
 * every key keeps its own bytes and length. */
TEST(repeated_keys_are_interned)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_json *v = parse_opts(&a,
                              "[{\"name\": 1, \"op\": 2}, {\"op\": 3, \"name\": 4, \"nam\\u0065\": 5},"
                              " {\"a_key_that_is_longer_than_forty_eight_bytes_in_all\": 6},"
                              " {\"a_key_that_is_longer_than_forty_eight_bytes_in_all\": 7}]",
                              false, 0, &err);
    CHECK(v);
    const mlia_json_member *m0 = v->u.array.items[0]->u.object.members;
    const mlia_json_member *m1 = v->u.array.items[1]->u.object.members;
    CHECK(m0[0].key == m1[1].key); /* "name" */
    CHECK(m0[1].key == m1[0].key); /* "op" */
    CHECK(m1[2].key != m0[0].key); /* escaped: decoded into a copy of its own */
    CHECK_STR(m1[2].key, "name");
    CHECK_INT(mlia_json_get(v->u.array.items[1], "name")->u.number.i, 5);
    const char *l0 = v->u.array.items[2]->u.object.members[0].key;
    const char *l1 = v->u.array.items[3]->u.object.members[0].key;
    CHECK(l0 != l1);
    CHECK_STR(l0, l1);
    mlia_arena_free(&a);

    /* 1,000 distinct keys (beyond the 384 interned), then all again */
    mlia_buf s;
    mlia_buf_init(&s);
    mlia_buf_putc(&s, '[');
    for (int pass = 0; pass < 2; pass++) {
        mlia_buf_puts(&s, pass ? ",{" : "{");
        for (int i = 0; i < 1000; i++)
            mlia_buf_printf(&s, "%s\"k%d\": %d", i ? "," : "", i, i + pass);
        mlia_buf_putc(&s, '}');
    }
    mlia_buf_putc(&s, ']');
    mlia_arena_init(&a);
    v = parse_opts(&a, s.data, false, 0, &err);
    CHECK(v);
    for (int pass = 0; pass < 2; pass++) {
        const mlia_json *o = v->u.array.items[pass];
        CHECK_UINT(o->u.object.n, 1000);
        for (int i = 0; i < 1000; i += 37) {
            char k[16];
            snprintf(k, sizeof k, "k%d", i);
            CHECK_STR(o->u.object.members[i].key, k);
            CHECK_UINT(o->u.object.members[i].key_len, strlen(k));
            CHECK_INT(o->u.object.members[i].value->u.number.i, i + pass);
        }
    }
    CHECK(v->u.array.items[0]->u.object.members[5].key == v->u.array.items[1]->u.object.members[5].key);
    mlia_arena_free(&a);
    mlia_buf_free(&s);
}

/* issue 30 item 2: a decoded \u0000 is kept (with its length) by default,
 * and refused, with its byte offset, when the caller's names are C strings. */
TEST(nul_in_strings_kept_or_refused)
{
    mlia_arena a;
    mlia_arena_init(&a);
    const char *s = "{\"n\\u0000a\": \"x\\u0000y\"}";
    mlia_error err;
    mlia_json *v = parse_opts(&a, s, false, 0, &err);
    CHECK(v);
    CHECK_UINT(v->u.object.members[0].key_len, 3);
    CHECK_UINT(v->u.object.members[0].value->u.string.len, 3);
    CHECK(memcmp(v->u.object.members[0].value->u.string.s, "x\0y", 4) == 0);
    mlia_json_opts o = {.refuse_nul = true};
    mlia_error_clear(&err);
    CHECK_INT(mlia_json_parse(s, strlen(s), &o, &a, &v, "t.json", &err), -1);
    CHECK_STR(err.text, "t.json: NUL character (\\u0000) in a string at byte 3: refused (names are compared "
                        "and written up to their first NUL, so two names could merge)");
    const char *t = "[\"ok\", \"\\u0000\"]";
    mlia_error_clear(&err);
    CHECK_INT(mlia_json_parse(t, strlen(t), &o, &a, &v, "t.json", &err), -1);
    CHECK_STR(err.text, "t.json: NUL character (\\u0000) in a string at byte 8: refused (names are compared "
                        "and written up to their first NUL, so two names could merge)");
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(rfc_example_object);
    RUN(rfc_example_array_and_scalars);
    RUN(nonfinite_tokens);
    RUN(big_integers);
    RUN(duplicate_keys_last_wins);
    RUN(escapes_and_utf8);
    RUN(bad_strings);
    RUN(bad_syntax);
    RUN(depth_limit);
    RUN(large_document_is_fast);
    RUN(clone_outlives_its_tree);
    RUN(repeated_keys_are_interned);
    RUN(nul_in_strings_kept_or_refused);
    return test_summary();
}
