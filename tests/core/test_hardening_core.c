/* core pieces of the hardening (docs/hardening.md): message escaping, input
 * files that are not regular, the arena memory limit and the out-of-memory
 * recovery point. */
#include "test.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/arena.h"
#include "core/cnum.h"
#include "core/error.h"
#include "core/file.h"
#include "core/oom.h"
#include "core/utf8.h"

static const char *esc(const char *s, size_t n)
{
    static char out[256];
    mlia_escape_text(out, sizeof out, s, n);
    return out;
}

TEST(escape_controls_and_invalid_utf8)
{
    CHECK_STR(esc("plain text: ok", 14), "plain text: ok");
    CHECK_STR(esc("a\nb\r\tc", 6), "a\\nb\\r\\tc");
    CHECK_STR(esc("\x1b[2J\x07\x7f", 6), "\\x1b[2J\\x07\\x7f");
    /* valid UTF-8 is kept, C1 controls and bidi overrides are escaped */
    CHECK_STR(esc("caf\xc3\xa9 \xc2\x85 \xe2\x80\xae!", 13), "caf\xc3\xa9 \\u0085 \\u202e!");
    /* invalid: lone continuation, overlong, truncated sequence, surrogate */
    CHECK_STR(esc("\x80\xc0\xaf\xe2\x82\xed\xa0\x80", 8), "\\x80\\xc0\\xaf\\xe2\\x82\\xed\\xa0\\x80");
    /* NUL inside the given length */
    CHECK_STR(esc("a\0b", 3), "a\\x00b");
    /* idempotent: escaping the escaped text changes nothing */
    const char *once = esc("x\ny\x1b", 4);
    char copy[64];
    strcpy(copy, once);
    CHECK_STR(esc(copy, strlen(copy)), "x\\ny\\x1b");
}

TEST(escape_cuts_before_an_escape_that_does_not_fit)
{
    char out[6];
    CHECK_UINT(mlia_escape_text(out, sizeof out, "abc\nd", 5), 5);
    CHECK_STR(out, "abc\\n");
    CHECK_UINT(mlia_escape_text(out, sizeof out, "abcd\ne", 6), 4);
    CHECK_STR(out, "abcd");
}

TEST(error_text_is_escaped)
{
    mlia_error err;
    mlia_error_clear(&err);
    mlia_error_setf(&err, "dev\nname", "device '%s' unknown", "G\x1b]0;t\x07");
    CHECK_STR(err.text, "dev\\nname: device 'G\\x1b]0;t\\x07' unknown");
    mlia_error_prefix(&err, "run %d\n: ", 1);
    CHECK_STR(err.text, "run 1\\n: dev\\nname: device 'G\\x1b]0;t\\x07' unknown");
}

TEST(non_regular_inputs_are_refused)
{
    char dir[] = "/tmp/mlia-core-XXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char fifo[64];
    snprintf(fifo, sizeof fifo, "%s/p", dir);
    CHECK_INT(mkfifo(fifo, 0600), 0);
    mlia_file f;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_open(&f, fifo, &err), -1); /* returns at once: no writer needed */
    char want[128];
    snprintf(want, sizeof want, "%s: is a FIFO (named pipe), not a regular file", fifo);
    CHECK_STR(err.text, want);
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_open(&f, "/dev/null", &err), -1);
    CHECK_STR(err.text, "/dev/null: is a character device, not a regular file");
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_open(&f, dir, &err), -1);
    snprintf(want, sizeof want, "%s: is a directory", dir);
    CHECK_STR(err.text, want);
    unlink(fifo);
    rmdir(dir);
}

TEST(file_is_a_private_copy)
{
    char path[] = "/tmp/mlia-core-file-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    CHECK_INT((int)write(fd, "0123456789", 10), 10);
    mlia_file f;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_open(&f, path, &err), 0);
    /* truncating the file afterwards cannot affect (or SIGBUS) the reader */
    CHECK_INT(ftruncate(fd, 0), 0);
    CHECK_UINT(f.size, 10);
    CHECK(memcmp(f.data, "0123456789", 10) == 0);
    mlia_file_close(&f);
    close(fd);
    unlink(path);
}

/* The streamed ETDump is mapped: a truncation by another process while it
 * is being read becomes an error through the recovery point, not SIGBUS. */
TEST(truncated_mapping_is_an_error_not_sigbus)
{
    char path[] = "/tmp/mlia-core-map-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    static char block[3 * 4096];
    memset(block, 'x', sizeof block);
    CHECK_INT((int)write(fd, block, sizeof block), (int)sizeof block);
    mlia_file f;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_map(&f, path, &err), 0);
    CHECK_INT(f.mapped, 1);
    CHECK_UINT(f.size, sizeof block);
    CHECK_INT(f.data[8191], 'x');
    /* releasing consumed pages keeps the bytes readable */
    mlia_file_release(&f, 0, sizeof block, MLIA_FILE_RELEASE_EVENTS);
    CHECK_INT(f.data[5000], 'x');
    char hex[65];
    CHECK_INT(mlia_file_sha256_hex(&f, hex, &err), 0);
    CHECK_INT(ftruncate(fd, 4096), 0);
    mlia_oom_point p;
    mlia_oom_enter(&p);
    volatile int reached = 0, jumped = 0;
    if (setjmp(p.jump) == 0) {
        volatile uint8_t v = f.data[3 * 4096 - 1]; /* beyond the new end */
        (void)v;
        reached = 1;
    } else {
        jumped = 1;
    }
    mlia_oom_leave(&p);
    CHECK_INT(reached, 0);
    CHECK_INT(jumped, 1);
    CHECK(p.fault_file != NULL && strcmp(p.fault_file, path) == 0);
    /* the digest reads with pread: a shrunken file is an error */
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_sha256_hex(&f, hex, &err), -1);
    char want[256];
    snprintf(want, sizeof want, "%s: file changed while being read (%u bytes expected)", path, 3 * 4096);
    CHECK_STR(err.text, want);
    mlia_file_close(&f);
    close(fd);
    unlink(path);
}

TEST(arena_limit_jumps_to_the_recovery_point)
{
    mlia_arena a;
    mlia_arena_init(&a);
    a.limit = 1 << 20;
    mlia_oom_point p;
    mlia_oom_enter(&p);
    volatile int reached = 0;
    if (setjmp(p.jump) == 0) {
        for (int i = 0; i < 100; i++) {
            mlia_arena_alloc(&a, 64 * 1024);
            reached = i + 1;
        }
    }
    mlia_oom_leave(&p);
    CHECK_INT(reached, 16); /* 16 x 64 KiB fill the 1 MiB limit exactly; the 17th does not fit */
    CHECK_UINT(p.limit, 1u << 20);
    CHECK_UINT(p.requested, 64u * 1024u);
    mlia_arena_free(&a);
}

/* A scratch arena may use what its owner has left under the owner's limit;
 * an out-of-memory jump releases it (its cleanup runs on the way to the
 * recovery point), and mlia_scratch_end releases it on the normal path.
 * Its chunks are mapped (8 MiB), so freed memory goes back to the system. */
TEST(scratch_arena_inherits_the_limit_and_is_released_by_a_jump)
{
    mlia_arena owner;
    mlia_arena_init(&owner);
    owner.limit = 1 << 20;
    mlia_arena_alloc(&owner, 256 * 1024);
    mlia_oom_point p;
    mlia_oom_enter(&p);
    static mlia_scratch s; /* static: still defined after the longjmp */
    volatile int reached = 0;
    if (setjmp(p.jump) == 0) {
        mlia_scratch_begin(&s, &owner);
        CHECK_UINT(s.a.limit, 768u * 1024u);
        for (int i = 0; i < 100; i++) {
            char *m = mlia_arena_alloc(&s.a, 64 * 1024);
            m[0] = m[64 * 1024 - 1] = 1;
            reached = i + 1;
        }
        mlia_scratch_end(&s);
    }
    mlia_oom_leave(&p);
    CHECK_INT(reached, 12); /* 12 x 64 KiB fill the 768 KiB left */
    CHECK_UINT(p.limit, 768u * 1024u);
    CHECK(s.a.head == NULL); /* freed by the jump's cleanup */
    /* the normal path, without a limit */
    mlia_arena_free(&owner);
    owner.limit = 0;
    mlia_scratch_begin(&s, &owner);
    CHECK_UINT(s.a.limit, 0);
    CHECK(mlia_arena_alloc(&s.a, 100) != NULL);
    mlia_scratch_end(&s);
    CHECK(s.a.head == NULL);
    mlia_arena_free(&owner);
}

/* Arena arrays grow by doubling from 4 and keep their elements; a bounded
 * warning list takes max entries, then the slot for its "suppressed" line,
 * then nothing. */
TEST(arena_room_and_bounded_warning_list)
{
    mlia_arena a;
    mlia_arena_init(&a);
    uint32_t cap = 0, *v = NULL;
    for (uint32_t i = 0; i < 9; i++) {
        v = mlia_arena_room(&a, v, i, &cap, sizeof *v);
        v[i] = i * 10;
    }
    CHECK_UINT(cap, 16u);
    CHECK_UINT(v[0], 0u);
    CHECK_UINT(v[8], 80u);
    const char **list = NULL;
    uint32_t n = 0, lcap = 0;
    int stored = 0;
    for (int i = 0; i < 10; i++) {
        const char **slot = mlia_arena_warning_slot(&a, &list, &n, &lcap, 3, "further warnings suppressed");
        if (!slot)
            continue;
        *slot = "w";
        stored++;
    }
    CHECK_INT(stored, 3);
    CHECK_UINT(n, 4u);
    CHECK_STR(list[2], "w");
    CHECK_STR(list[3], "further warnings suppressed");
    mlia_arena_free(&a);
}

TEST(memory_limit_formula)
{
    CHECK_UINT(mlia_memory_limit(0), (size_t)512 << 20);
    CHECK_UINT(mlia_memory_limit(1000), ((size_t)512 << 20) + 64000u);
    CHECK_UINT(mlia_memory_limit(~0ull), SIZE_MAX);
}

/* The pieces both JSON readers share (core/utf8.h, core/cnum.h). */
TEST(json_codec_helpers)
{
    unsigned v = 0;
    CHECK_UINT(mlia_hex_digits((const unsigned char *)"1aF0", 4, &v), 4u);
    CHECK_UINT(v, 0x1af0u);
    CHECK_UINT(mlia_hex_digits((const unsigned char *)"12g4", 4, &v), 2u); /* stops at the first non-digit */
    CHECK_UINT(v, 0x12u);
    CHECK_UINT(mlia_hex_digits((const unsigned char *)"Z", 1, &v), 0u);
    const struct {
        const char *s;
        size_t avail, len;
    } seqs[] = {{"\xc3\xa9", 2, 2},         {"\xe2\x82\xac", 3, 3}, {"\xf0\x9f\x98\x80", 4, 4},
                {"\xe2\x82", 2, 0},         {"\xc0\xaf", 2, 0},      {"\xe0\x80\x80", 3, 0},
                {"\xed\xa0\x80", 3, 0},     {"\xf4\x90\x80\x80", 4, 0}, {"\x80", 1, 0}};
    for (size_t i = 0; i < sizeof seqs / sizeof seqs[0]; i++)
        CHECK_UINT(mlia_utf8_seq_len((const unsigned char *)seqs[i].s, seqs[i].avail), seqs[i].len);
    char o[4];
    CHECK_UINT(mlia_utf8_put(o, 0x41), 1u);
    CHECK_UINT(mlia_utf8_put(o, 0xe9), 2u);
    CHECK_INT(memcmp(o, "\xc3\xa9", 2), 0);
    CHECK_UINT(mlia_utf8_put(o, 0x20ac), 3u);
    CHECK_INT(memcmp(o, "\xe2\x82\xac", 3), 0);
    CHECK_UINT(mlia_utf8_put(o, 0x1f600), 4u);
    CHECK_INT(memcmp(o, "\xf0\x9f\x98\x80", 4), 0);
    int64_t i64 = 1;
    CHECK_INT(mlia_json_digits_i64("9223372036854775807", 19, false, &i64), 1);
    CHECK_INT(i64 == INT64_MAX, 1);
    CHECK_INT(mlia_json_digits_i64("9223372036854775808", 19, true, &i64), 1);
    CHECK_INT(i64 == INT64_MIN, 1);
    CHECK_INT(mlia_json_digits_i64("9223372036854775808", 19, false, &i64), 0);
    CHECK_INT(i64 == 0, 1);
    CHECK_INT(mlia_json_digits_i64("99999999999999999999", 20, true, &i64), 0);
    CHECK_INT(mlia_json_digits_i64("042", 3, true, &i64), 1);
    CHECK_INT(i64 == -42, 1);
}

static void format_into(char *out, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void format_into(char *out, size_t n, const char *fmt, ...)
{
    char buf[8];
    MLIA_FORMAT_ARGS(buf, fmt);
    snprintf(out, n, "%s", buf);
}

static char *arena_format(mlia_arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *arena_format(mlia_arena *a, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *p = mlia_arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

/* Heap arrays that grow or jump (core/oom.h) and the formatting helpers. */
TEST(heap_room_and_formatting_helpers)
{
    uint32_t cap = 0, *v = NULL;
    for (uint32_t i = 0; i < 9; i++) {
        v = mlia_heap_room(v, i, &cap, sizeof *v, 4);
        v[i] = i;
    }
    CHECK_UINT(cap, 16u); /* 4, 8, 16 */
    CHECK_UINT(v[8], 8u);
    v = mlia_heap_reserve(v, 10, &cap, sizeof *v);
    CHECK_UINT(cap, 16u); /* already room */
    v = mlia_heap_reserve(v, 40, &cap, sizeof *v);
    CHECK_UINT(cap, 40u); /* exactly what was asked */
    CHECK_UINT(v[8], 8u);
    free(v);
    char out[32];
    format_into(out, sizeof out, "%s-%d", "abcdef", 42); /* "abcdef-42" cut to the 8-byte buffer */
    CHECK_STR(out, "abcdef-");
    mlia_arena a;
    mlia_arena_init(&a);
    CHECK_STR(arena_format(&a, "%s %u %.2f", "x", 7u, 1.5), "x 7 1.50");
    mlia_arena_free(&a);
}

/* mlia_file_open_regular_fd: a regular file opens with its size; anything
 * else is refused with the same words as mlia_file_check_regular. */
TEST(open_regular_fd)
{
    char path[] = "/tmp/mlia-open-regular-XXXXXX";
    int fd = mkstemp(path);
    CHECK_INT(fd >= 0, 1);
    CHECK_INT(write(fd, "12345", 5), 5);
    close(fd);
    mlia_error err;
    mlia_error_clear(&err);
    uint64_t size = 0;
    fd = mlia_file_open_regular_fd(path, &size, &err);
    CHECK_INT(fd >= 0, 1);
    CHECK_UINT(size, 5u);
    close(fd);
    unlink(path);
    CHECK_INT(mlia_file_open_regular_fd("/tmp", &size, &err), -1);
    CHECK_STR(err.text, "/tmp: is a directory");
}

/* issue 33 item 1: copies and grown arrays skip zeroing the bytes they write,
 * yet a grown array still holds its old elements and zeroes its new room,
 * also when it moves behind other allocations (the in-place path cannot be
 * taken) and the chunk's fresh bytes were never zeroed. */
TEST(arena_grow_copies_old_and_zeroes_new_room)
{
    mlia_arena a;
    mlia_arena_init(&a);
    uint32_t *v = mlia_arena_array(&a, 3, sizeof *v);
    v[0] = 7, v[1] = 8, v[2] = 9;
    const char *s = mlia_arena_strndup(&a, "abcdefghijklmnopqrstu", 21); /* blocks the in-place path */
    uint32_t *w = mlia_arena_grow(&a, v, 3, 11, sizeof *w);
    CHECK(w != v);
    CHECK(w[0] == 7 && w[1] == 8 && w[2] == 9);
    int zero = 1;
    for (int i = 3; i < 11; i++)
        zero &= w[i] == 0;
    CHECK(zero);
    CHECK_STR(s, "abcdefghijklmnopqrstu");
    CHECK_STR(mlia_arena_printf(&a, "%s-%d", "x", 42), "x-42");
    /* shrinking keeps the first new_n elements */
    uint32_t *u = mlia_arena_grow(&a, w, 11, 2, sizeof *u);
    CHECK(u[0] == 7 && u[1] == 8);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(escape_controls_and_invalid_utf8);
    RUN(escape_cuts_before_an_escape_that_does_not_fit);
    RUN(error_text_is_escaped);
    RUN(non_regular_inputs_are_refused);
    RUN(file_is_a_private_copy);
    RUN(truncated_mapping_is_an_error_not_sigbus);
    RUN(arena_limit_jumps_to_the_recovery_point);
    RUN(arena_room_and_bounded_warning_list);
    RUN(scratch_arena_inherits_the_limit_and_is_released_by_a_jump);
    RUN(memory_limit_formula);
    RUN(json_codec_helpers);
    RUN(heap_room_and_formatting_helpers);
    RUN(open_regular_fd);
    RUN(arena_grow_copies_old_and_zeroes_new_room);
    return test_summary();
}
