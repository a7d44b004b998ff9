/* core pieces of the hardening (docs/hardening.md): message escaping, input
 * files that are not regular, the arena memory limit and the out-of-memory
 * recovery point. */
#include "test.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/file.h"
#include "core/oom.h"

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
    return test_summary();
}
