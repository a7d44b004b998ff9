/*
 * MLIA_ASSERT (src/core/assert.h): the macro fires with its one-line
 * message and aborts, and a real invariant of the library fires in a
 * build with assertions (make DEBUG=1, make asan, make oom-sweep, make
 * fuzz) and is compiled out of a release build.
 *
 * The library's assertions are on exactly when this file's build has
 * MLIA_ASSERTIONS=1 (the Makefile passes the same flags to both).
 */
#include "test.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#ifdef MLIA_ASSERTIONS
#define BUILD_ASSERTIONS MLIA_ASSERTIONS
#else
#define BUILD_ASSERTIONS 0
#endif
/* this file's own MLIA_ASSERT is always on: the mechanism is tested in
 * every build */
#undef MLIA_ASSERTIONS
#define MLIA_ASSERTIONS 1
#include "core/assert.h"
#include "core/json_write.h"

/* Runs fn in a child with stderr captured; returns the child's status and
 * its stderr text in buf. */
static int run_child(void (*fn)(void), char *buf, size_t cap)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        signal(SIGABRT, SIG_DFL);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t got = 0;
    ssize_t k;
    while (got < cap - 1 && (k = read(fds[0], buf + got, cap - 1 - got)) > 0)
        got += (size_t)k;
    buf[got] = 0;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    return st;
}

static void failing_macro(void)
{
    int answer = 41;
    MLIA_ASSERT(answer == 42);
}

static void passing_macro(void)
{
    int answer = 42;
    MLIA_ASSERT(answer == 42);
}

/* An object closed as an array: the JSON writer's nesting invariant
 * (src/core/json_write.c). */
static void misnested_json(void)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    mlia_jw_obj_begin(&w);
    mlia_jw_arr_end(&w);
    mlia_buf_free(&b);
}

TEST(macro_fires_with_its_message)
{
    char err[1024];
    int st = run_child(failing_macro, err, sizeof err);
    CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
    CHECK(strstr(err, "mlia: internal error: assertion failed: answer == 42 (") == err);
    CHECK(strstr(err, "test_assert.c:") != NULL);
    CHECK(strstr(err, ", failing_macro)\n") != NULL);
    st = run_child(passing_macro, err, sizeof err);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    CHECK_INT((int)strlen(err), 0);
}

TEST(library_invariant_fires_in_a_debug_build)
{
    CHECK_INT(mlia_assertions_enabled(), BUILD_ASSERTIONS);
    char err[1024];
    int st = run_child(misnested_json, err, sizeof err);
    if (mlia_assertions_enabled()) {
        CHECK(WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT);
        CHECK(strstr(err, "mlia: internal error: assertion failed: ") == err);
        CHECK(strstr(err, "json_write.c:") != NULL);
    } else {
        /* release: compiled out, the call returns */
        CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        CHECK_INT((int)strlen(err), 0);
    }
}

int main(void)
{
    RUN(macro_fires_with_its_message);
    RUN(library_invariant_fires_in_a_debug_build);
    return test_summary();
}
