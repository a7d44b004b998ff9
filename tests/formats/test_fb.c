/*
 * test_fb.c - the hardened FlatBuffers core: scalars with defaults,
 * strings, vectors, unions, path formatting, the VGF options
 * (FB_CHECK_ALIGN, FB_LENIENT_VTABLE), depth and budget limits, with exact
 * error messages. Buffers come from fb_test_builder.h.
 */
#include "fb_test_builder.h"
#include "formats/fb.h"
#include "test.h"

/* root table with 6 slots: u8, i32, i64, f64, string, [i64] */
static void build_basic(tb *b, bool with_ident)
{
    b->n = 0;
    size_t root_ref = tb_u32(b, 0);
    if (with_ident)
        tb_bytes(b, "TST0", 4);
    size_t t = tb_table(b, 6, 0x3f & ~2u); /* slot 1 absent */
    tb_ref(b, root_ref, t);
    tb_set64(b, t, 0, 200);
    tb_set64(b, t, 2, (uint64_t)-5);
    double x = 2.5;
    uint64_t u;
    memcpy(&u, &x, 8);
    tb_set64(b, t, 3, u);
    tb_link(b, t, 4, tb_string(b, "hello"));
    size_t v = tb_vector(b, 3, 8);
    for (uint32_t i = 0; i < 3; i++)
        tb_put64(b, tb_elem(v, i, 8), 10 * (uint64_t)i);
    tb_link(b, t, 5, v);
    tb_pad(b, 8);
}

TEST(scalars_strings_vectors)
{
    tb b;
    tb_init(&b);
    build_basic(&b, true);
    fb_buf fb;
    fb_table root;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "t.bin", 0, "TST0", false, 0, &root, &err), 0);
    uint8_t u8;
    int32_t i32;
    int64_t i64;
    double f64;
    CHECK_INT(fb_get_u8(&root, 0, "a", 0, &u8, &err), 0);
    CHECK_UINT(u8, 200);
    CHECK(!fb_has(&root, 1));
    CHECK_INT(fb_get_i32(&root, 1, "b", -1, &i32, &err), 0);
    CHECK_INT(i32, -1);
    CHECK_INT(fb_get_i64(&root, 2, "c", 0, &i64, &err), 0);
    CHECK_INT(i64, -5);
    CHECK_INT(fb_get_f64(&root, 3, "d", 0, &f64, &err), 0);
    CHECK_DBL(f64, 2.5);
    /* slots beyond the vtable are absent */
    CHECK_INT(fb_get_i32(&root, 40, "far", 7, &i32, &err), 0);
    CHECK_INT(i32, 7);
    mlia_str s;
    CHECK_INT(fb_get_string(&root, 4, "s", &s, &err), 1);
    CHECK(mlia_str_eq(s, "hello"));
    CHECK_INT(fb_get_string(&root, 1, "absent", &s, &err), 0);
    CHECK(s.ptr == NULL);
    fb_vec v;
    CHECK_INT(fb_get_vector(&root, 5, "v", 8, &v, &err), 1);
    CHECK_UINT(v.n, 3);
    CHECK_INT(fb_vec_i64(&v, 2), 20);
    CHECK_INT(fb_get_vector(&root, 1, "none", 4, &v, &err), 0);
    CHECK(!v.present);
    CHECK(!err.set);

    /* wrong identifier, no identifier */
    CHECK_INT(fb_open(&fb, b.d, b.n, "t.bin", 0, "XXXX", false, 0, &root, &err), -1);
    CHECK_STR(err.text, "t.bin: file identifier \"TST0\", expected \"XXXX\" at byte 4");
    build_basic(&b, false);
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "t.bin", 1000, NULL, false, 0, &root, &err), 0);
    CHECK_INT(fb_get_string(&root, 4, "s", &s, &err), 1);
    CHECK(mlia_str_eq(s, "hello"));
    tb_free(&b);
}

/* issue 30 item 2: a NUL inside a string is an error with its position, not
 * a shorter name (every reader's strings come through fb_string_at: ETDump
 * names and delegate ids, PTE and VGF strings). */
TEST(nul_inside_a_string)
{
    tb b;
    tb_init(&b);
    build_basic(&b, false);
    size_t at = 0;
    for (size_t i = 0; i + 5 < b.n; i++)
        if (!memcmp(b.d + i, "hello", 5))
            at = i;
    b.d[at + 2] = 0; /* "he\0lo" */
    fb_buf fb;
    fb_table root;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "t.bin", 1000, NULL, false, 0, &root, &err), 0);
    mlia_str s;
    CHECK_INT(fb_get_string(&root, 4, "delegate_debug_id_str", &s, &err), -1);
    char want[256];
    snprintf(want, sizeof want,
             "t.bin: string of 5 bytes holds a NUL byte at byte 2 of it at byte %zu (delegate_debug_id_str)",
             1000 + at + 2);
    CHECK_STR(err.text, want);
    CHECK(s.ptr == NULL);
    tb_free(&b);
}

TEST(error_messages_with_paths)
{
    tb b;
    tb_init(&b);
    build_basic(&b, false);
    fb_buf fb;
    fb_table root;
    mlia_error err;
    mlia_error_clear(&err);
    /* file offset of base is added to every byte position */
    CHECK_INT(fb_open(&fb, b.d, b.n, "t.bin", 1000, NULL, false, 0, &root, &err), 0);
    mlia_str s;
    /* break the NUL of "hello" */
    size_t at = 0;
    for (size_t i = 0; i + 5 < b.n; i++)
        if (!memcmp(b.d + i, "hello", 5))
            at = i;
    b.d[at + 5] = '!';
    CHECK_INT(fb_get_string(&root, 4, "greeting", &s, &err), -1);
    char want[256];
    snprintf(want, sizeof want, "t.bin: string not NUL-terminated at byte %zu (greeting)", 1000 + at + 5);
    CHECK_STR(err.text, want);
    /* string length beyond the buffer */
    tb_put32(&b, at - 4, 100000);
    mlia_error_clear(&err);
    CHECK_INT(fb_get_string(&root, 4, "greeting", &s, &err), -1);
    snprintf(want, sizeof want, "t.bin: string of 100000 bytes extends past the end of the buffer at byte %zu (greeting)",
             1000 + at - 4);
    CHECK_STR(err.text, want);
    /* path of nested tables and vector elements */
    fb_table child = root;
    child.parent = &root;
    child.name = "run_data";
    child.index = 1;
    fb_table grand = root;
    grand.parent = &child;
    grand.name = "events";
    grand.index = 3;
    fb_table leaf = root;
    leaf.parent = &grand;
    leaf.name = "profile_event";
    leaf.index = -1;
    char path[256];
    fb_path_format(&leaf, "name", -1, path, sizeof path);
    CHECK_STR(path, "run_data[1].events[3].profile_event.name");
    fb_path_format(&root, NULL, -1, path, sizeof path);
    CHECK_STR(path, "root");
    fb_path_format(&root, "items", 4, path, sizeof path);
    CHECK_STR(path, "items[4]");
    /* truncated path buffers stay terminated */
    fb_path_format(&leaf, "name", -1, path, 10);
    CHECK_STR(path, "run_data[");
    mlia_error_clear(&err);
    fb_fail(&leaf, "name", -1, 7, &err, "bad %s", "thing");
    CHECK_STR(err.text, "t.bin: bad thing at byte 1007 (run_data[1].events[3].profile_event.name)");
    tb_free(&b);
}

TEST(open_errors)
{
    mlia_error err;
    fb_buf fb;
    fb_table root;
    uint8_t small[12] = {9, 0, 0, 0, 'A', 'B', 'C', 'D', 0, 0, 0, 0};
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, small, 3, "s", 0, NULL, true, 0, &root, &err), -1);
    CHECK_STR(err.text, "s: truncated size prefix (3 bytes) at byte 0");
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, small, 12, "s", 0, "ABCD", false, 0, &root, &err), -1);
    CHECK_STR(err.text, "s: root offset 9 out of range at byte 0");
    small[0] = 8;
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, small, 12, "s", 0, "ABCD", false, 0, &root, &err), -1);
    CHECK_STR(err.text, "s: invalid vtable size 0 at byte 8 (root)");
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, small, 7, "s", 0, "ABCD", false, 0, &root, &err), -1);
    CHECK_STR(err.text, "s: FlatBuffer too small (7 bytes) at byte 0");
    /* VGF: root offset 0 is an error */
    uint8_t zero[24] = {0};
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, zero, 24, "v", 216, NULL, false, FB_CHECK_ALIGN, &root, &err), -1);
    CHECK_STR(err.text, "v: root offset 0 out of range at byte 216");
}

TEST(vgf_options)
{
    mlia_error err;
    fb_buf fb;
    fb_table root;
    /* synthetic-0.4.0 constant section: root at 4, soffset 0, vtable size 0 */
    uint8_t lenient[16] = {4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, lenient, 16, "c", 240, NULL, false, 0, &root, &err), -1);
    CHECK_STR(err.text, "c: invalid vtable size 0 at byte 244 (root)");
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, lenient, 16, "c", 240, NULL, false, FB_CHECK_ALIGN | FB_LENIENT_VTABLE, &root, &err), 0);
    CHECK_UINT(fb.warnings, 1);
    CHECK_UINT(fb.first_warning_pos, 4);
    CHECK(!fb_has(&root, 0));
    fb_vec v;
    CHECK_INT(fb_get_vector(&root, 0, "data", 4, &v, &err), 0);

    /* misaligned table with FB_CHECK_ALIGN */
    tb b;
    tb_init(&b);
    b.n = 0;
    tb_u32(&b, 0);
    size_t t = tb_table(&b, 2, 3);
    tb_set64(&b, t, 1, 5);
    /* move the table one... two bytes: make a copy shifted by 2 */
    uint8_t *shifted = calloc(1, b.n + 8);
    memcpy(shifted + 2, b.d, b.n);
    tb_put32(&(tb){shifted, b.n + 8, b.n + 8}, 0, (uint32_t)(t + 2));
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, shifted, b.n + 2, "m", 0, NULL, false, FB_CHECK_ALIGN, &root, &err), -1);
    char want[128];
    snprintf(want, sizeof want, "m: table not 4-byte aligned at byte %zu (root)", t + 2);
    CHECK_STR(err.text, want);
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, shifted, b.n + 2, "m", 0, NULL, false, 0, &root, &err), 0);
    free(shifted);

    /* misaligned 8-byte scalar with FB_CHECK_ALIGN: field offset 12 */
    tb_put32(&b, 0, (uint32_t)t);
    size_t vt = t - (size_t)fb_le32(b.d + t);
    b.d[vt + 6] = 12;
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "m", 0, NULL, false, FB_CHECK_ALIGN, &root, &err), 0);
    uint64_t x;
    CHECK_INT(fb_get_u64(&root, 1, "size", 0, &x, &err), -1);
    snprintf(want, sizeof want, "m: field not 8-byte aligned at byte %zu (size)", t + 12);
    CHECK_STR(err.text, want);
    tb_free(&b);
}

TEST(unions_depth_budget)
{
    tb b;
    tb_init(&b);
    b.n = 0;
    size_t root_ref = tb_u32(&b, 0);
    size_t t = tb_table(&b, 2, 1); /* union type present, value absent */
    tb_ref(&b, root_ref, t);
    tb_set64(&b, t, 0, 3);
    fb_buf fb;
    fb_table root, out;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "u", 0, NULL, false, 0, &root, &err), 0);
    uint8_t type;
    CHECK_INT(fb_get_union(&root, 0, "val", 5, &type, &out, &err), -1);
    char want[128];
    snprintf(want, sizeof want, "u: union of type 3 has no value at byte %zu (val)", t);
    CHECK_STR(err.text, want);
    mlia_error_clear(&err);
    CHECK_INT(fb_get_union(&root, 0, "val", 2, &type, &out, &err), 0); /* unknown: not dereferenced */
    CHECK_UINT(type, 3);

    /* a chain of 70 nested tables exceeds the depth limit of 64 */
    b.n = 0;
    root_ref = tb_u32(&b, 0);
    size_t prev = tb_table(&b, 1, 1);
    tb_ref(&b, root_ref, prev);
    for (int i = 0; i < 70; i++) {
        size_t c = tb_table(&b, 1, i < 69 ? 1 : 0);
        tb_link(&b, prev, 0, c);
        prev = c;
    }
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "d", 0, NULL, false, 0, &root, &err), 0);
    fb_table chain[70];
    const fb_table *cur = &root;
    int rc = 0, depth = 0;
    for (int i = 0; i < 70 && rc >= 0; i++) {
        rc = fb_get_table(cur, 0, "next", &chain[i], &err);
        if (rc > 0) {
            cur = &chain[i];
            depth++;
        }
    }
    CHECK_INT(rc, -1);
    CHECK_INT(depth, 64);
    CHECK_CONTAINS(err.text, "d: tables nested deeper than 64 at byte ");
    CHECK_CONTAINS(err.text, " (next.next.next.");

    /* budget */
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "d", 0, NULL, false, 0, &root, &err), 0);
    fb.tables_left = 2;
    CHECK(fb_budget_allows(&fb, 2));
    CHECK(!fb_budget_allows(&fb, 3));
    CHECK_INT(fb_get_table(&root, 0, "next", &chain[0], &err), 1);
    CHECK_INT(fb_get_table(&chain[0], 0, "next", &chain[1], &err), 1);
    CHECK_INT(fb_get_table(&chain[1], 0, "next", &chain[2], &err), -1);
    CHECK_CONTAINS(err.text, "d: table budget exhausted (too many tables) at byte ");
    tb_free(&b);
}

static int read_rec(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    uint64_t *out = item;
    (*(int *)ctx)++;
    if (fb_get_u64(t, 0, "x", 0, out, err) < 0)
        return -1;
    if (*out == 99)
        return fb_fail(t, "x", -1, t->pos, err, "bad value %u", (unsigned)i);
    return 0;
}

/* fb_read_records: one record per table, count and presence, an absent
 * vector (one zeroed record, count 0) and a record reader's error with the
 * element's path. */
TEST(read_records)
{
    tb b;
    tb_init(&b);
    size_t root_ref = tb_u32(&b, 0);
    size_t root_t = tb_table(&b, 2, 1); /* slot 1 absent */
    tb_ref(&b, root_ref, root_t);
    size_t v = tb_vector(&b, 3, 4);
    tb_link(&b, root_t, 0, v);
    size_t elems[3];
    for (uint32_t i = 0; i < 3; i++) {
        elems[i] = tb_table(&b, 1, 1);
        tb_set64(&b, elems[i], 0, 10 * (uint64_t)(i + 1));
        tb_ref(&b, tb_elem(v, i, 4), elems[i]);
    }
    tb_pad(&b, 8);
    fb_buf fb;
    fb_table root;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(fb_open(&fb, b.d, b.n, "t.bin", 0, NULL, false, 0, &root, &err), 0);
    mlia_arena a;
    mlia_arena_init(&a);
    int calls = 0;
    uint32_t n = 7;
    bool present = false;
    uint64_t *r = fb_read_records(&root, 0, "recs", &a, sizeof *r, read_rec, &calls, &n, &present, &err);
    CHECK(r != NULL);
    CHECK_UINT(n, 3);
    CHECK(present);
    CHECK_INT(calls, 3);
    CHECK_UINT(r[0], 10);
    CHECK_UINT(r[2], 30);
    r = fb_read_records(&root, 1, "none", &a, sizeof *r, read_rec, &calls, &n, &present, &err);
    CHECK(r != NULL);
    CHECK_UINT(n, 0);
    CHECK(!present);
    CHECK_UINT(r[0], 0);
    tb_set64(&b, elems[1], 0, 99);
    CHECK(fb_read_records(&root, 0, "recs", &a, sizeof *r, read_rec, &calls, &n, NULL, &err) == NULL);
    char want[128];
    snprintf(want, sizeof want, "t.bin: bad value 1 at byte %zu (recs[1].x)", elems[1]);
    CHECK_STR(err.text, want);
    mlia_arena_free(&a);
    tb_free(&b);
}

int main(void)
{
    RUN(read_records);
    RUN(scalars_strings_vectors);
    RUN(error_messages_with_paths);
    RUN(nul_inside_a_string);
    RUN(open_errors);
    RUN(vgf_options);
    RUN(unions_depth_budget);
    return test_summary();
}
