/*
 * Error text never loses its reason (issue 21 item 5, core/error.c): a
 * message longer than MLIA_ERROR_MAX is cut in the middle, at whole
 * characters and escapes, so that the start (the file) and the end (the
 * reason) both survive.
 */
#include "test.h"

#include "core/error.h"

static char path[6000];

TEST(short_message_unchanged)
{
    mlia_error err;
    mlia_error_clear(&err);
    mlia_error_setf(&err, "/tmp/x", "cannot write: %s", "No space left on device");
    CHECK_STR(err.text, "/tmp/x: cannot write: No space left on device");
}

TEST(long_path_keeps_reason_and_start)
{
    memset(path, 'p', 4500);
    path[0] = '/';
    memcpy(path + 4490, "/last.json", 10);
    path[4500] = 0;
    mlia_error err;
    mlia_error_clear(&err);
    mlia_error_setf(&err, path, "cannot write: %s", "File name too long");
    size_t n = strlen(err.text);
    CHECK(n <= MLIA_ERROR_MAX - 1);
    CHECK(n >= MLIA_ERROR_MAX - 40); /* the room is used */
    const char *end = "ppp/last.json: cannot write: File name too long";
    CHECK(strcmp(err.text + n - strlen(end), end) == 0);
    CHECK(strncmp(err.text, "/pppp", 5) == 0);
    /* the marker says how much is gone, and head + cut + tail = everything */
    const char *m = strstr(err.text, "[... ");
    CHECK(m != NULL);
    unsigned long cut = 0;
    CHECK(sscanf(m, "[... %lu bytes cut ...]", &cut) == 1);
    const char *tail = strstr(m, " ...]") + 5;
    size_t whole = strlen(path) + strlen(": cannot write: File name too long");
    CHECK_UINT((size_t)(m - err.text) + cut + strlen(tail), whole);
    CHECK(m - err.text > 500);   /* about a third for the start */
    CHECK(strlen(tail) > 1200);  /* two thirds for the end */
}

TEST(cut_respects_escapes_and_utf8)
{
    /* 3000 bytes alternating a control byte (escaped as \x01, 4 bytes) and
     * a two-byte UTF-8 letter: no escape or character may be split */
    char raw[3001];
    for (int i = 0; i < 3000; i += 3) {
        raw[i] = 1;
        raw[i + 1] = (char)0xc3;
        raw[i + 2] = (char)0xa9;
    }
    raw[3000] = 0;
    mlia_error err;
    mlia_error_clear(&err);
    mlia_error_setf(&err, NULL, "%s: the reason", raw);
    size_t n = strlen(err.text);
    CHECK(n < MLIA_ERROR_MAX);
    CHECK(strcmp(err.text + n - 12, ": the reason") == 0);
    const char *m = strstr(err.text, "[... ");
    CHECK(m != NULL);
    /* before the marker: whole units "\x01" "é" */
    CHECK(m[-1] == (char)0xa9 || m[-1] == '1');
    const char *tail = strstr(m, " ...]") + 5;
    CHECK(tail[0] == '\\' || tail[0] == (char)0xc3);
    if (tail[0] == '\\')
        CHECK(strncmp(tail, "\\x01", 4) == 0);
    else
        CHECK((unsigned char)tail[1] == 0xa9);
}

TEST(prefix_keeps_reason)
{
    memset(path, 'q', 2000);
    path[2000] = 0;
    mlia_error err;
    mlia_error_clear(&err);
    mlia_error_setf(&err, path, "bad magic");
    mlia_error_prefix(&err, "run %d, event %d: %s", 3, 7, path);
    size_t n = strlen(err.text);
    CHECK(n < MLIA_ERROR_MAX);
    CHECK(strncmp(err.text, "run 3, event 7: qqq", 19) == 0);
    CHECK(strcmp(err.text + n - 11, ": bad magic") == 0);
}

int main(void)
{
    RUN(short_message_unchanged);
    RUN(long_path_keeps_reason_and_start);
    RUN(cut_respects_escapes_and_utf8);
    RUN(prefix_keeps_reason);
    return test_summary();
}
