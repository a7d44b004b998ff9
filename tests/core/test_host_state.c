/*
 * The library and its host's process (issue 21 item 6): no exit, and the
 * SIGBUS handler of core/file.c passes every signal that is not its own to
 * the handler the host installed before, and a host can opt out
 * (mlia_sigbus_guard, include/mlia/mlia.h).
 */
#include "test.h"

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/file.h"
#include "core/oom.h"
#include "mlia/mlia.h"

static volatile sig_atomic_t host_calls, host_code;
static sigjmp_buf host_jump;
static volatile sig_atomic_t host_jump_armed;

static void host_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    host_calls++;
    host_code = si->si_code;
    if (host_jump_armed) {
        host_jump_armed = 0;
        siglongjmp(host_jump, 1);
    }
}

static void install_host_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = host_handler;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, NULL);
}

static int current_is_host(void)
{
    struct sigaction cur;
    sigaction(SIGBUS, NULL, &cur);
    return (cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == host_handler;
}

static char path[] = "/tmp/mlia-host-state-XXXXXX";

/* Maps `path` with the library (installs its handler unless opted out). */
static int library_map(mlia_file *f)
{
    mlia_error err;
    mlia_error_clear(&err);
    return mlia_file_map(f, path, &err);
}

TEST(sigbus_raised_by_host_reaches_host_handler)
{
    install_host_handler();
    mlia_sigbus_guard(1);
    mlia_file f;
    CHECK_INT(library_map(&f), 0);
    CHECK(!current_is_host()); /* the library's handler is in place */
    host_calls = 0;
    raise(SIGBUS);
    CHECK_INT(host_calls, 1);   /* passed on, not swallowed */
    CHECK_INT(host_code, SI_TKILL);
    raise(SIGBUS);
    CHECK_INT(host_calls, 2);   /* and again: the chain stays */
    CHECK(!current_is_host());
    mlia_file_close(&f);
}

TEST(sigbus_fault_outside_library_mapping_reaches_host_handler)
{
    install_host_handler();
    mlia_sigbus_guard(1);
    mlia_file lib;
    CHECK_INT(library_map(&lib), 0);
    /* the host's own mapping of a file it then truncates */
    char own[] = "/tmp/mlia-host-own-XXXXXX";
    int fd = mkstemp(own);
    CHECK(fd >= 0);
    CHECK_INT(ftruncate(fd, 2 * 4096), 0);
    volatile char *p = mmap(NULL, 2 * 4096, PROT_READ, MAP_SHARED, fd, 0);
    CHECK(p != MAP_FAILED);
    CHECK_INT(ftruncate(fd, 0), 0);
    host_calls = 0;
    host_jump_armed = 1;
    if (sigsetjmp(host_jump, 1) == 0) {
        char c = p[4096];
        (void)c;
    }
    host_jump_armed = 0;
    munmap((void *)p, 2 * 4096);
    close(fd);
    unlink(own);
    CHECK_INT(host_calls, 1);
    CHECK_INT(host_code, BUS_ADRERR);
    mlia_file_close(&lib);
}

TEST(sigbus_guard_opt_out_leaves_host_handler)
{
    install_host_handler();
    mlia_sigbus_guard(1);
    mlia_file f;
    CHECK_INT(library_map(&f), 0);
    CHECK(!current_is_host());
    CHECK_INT(mlia_sigbus_guard(0), 1);   /* removes the library's handler */
    CHECK(current_is_host());
    mlia_file_close(&f);
    mlia_file g;
    CHECK_INT(library_map(&g), 0);        /* later mappings install nothing */
    CHECK(current_is_host());
    mlia_file_close(&g);
    CHECK_INT(mlia_sigbus_guard(1), 0);
}

TEST(sigbus_guard_env_opt_out)
{
    install_host_handler();
    mlia_sigbus_guard(0);
    mlia_sigbus_guard(1);
    setenv("MLIA_SIGBUS_GUARD", "0", 1);
    mlia_file f;
    CHECK_INT(library_map(&f), 0);
    unsetenv("MLIA_SIGBUS_GUARD");
    CHECK(current_is_host());
    mlia_file_close(&f);
}

/* A default disposition before the library: a SIGBUS sent to the process
 * still ends it by SIGBUS (the library does not swallow it). */
TEST(sigbus_default_disposition_kept)
{
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        signal(SIGBUS, SIG_DFL);
        mlia_sigbus_guard(1);
        mlia_file f;
        if (library_map(&f) != 0)
            _exit(3);
        raise(SIGBUS);
        _exit(0); /* not reached when the default action happened */
    }
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(WIFSIGNALED(st));
    CHECK_INT(WTERMSIG(st), SIGBUS);
}

/* Out of memory outside any recovery point does not exit() the host with a
 * success-looking status: it is an internal error that aborts (every library
 * path has a recovery point; see core/oom.h). */
TEST(oom_without_recovery_point_aborts_not_exits)
{
    fflush(stdout);
    int fds[2];
    CHECK_INT(pipe(fds), 0);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 2);
        mlia_oom(123);
    }
    close(fds[1]);
    char buf[512] = {0};
    ssize_t n = read(fds[0], buf, sizeof buf - 1);
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    CHECK(n > 0);
    CHECK_STR(buf, "mlia: internal error: out of memory outside a recovery point (requested 123 bytes)\n");
    CHECK(WIFSIGNALED(st));
    CHECK_INT(WTERMSIG(st), SIGABRT);
}

int main(void)
{
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, "0123456789abcdef", 16) != 16)
        return 1;
    close(fd);
    RUN(sigbus_raised_by_host_reaches_host_handler);
    RUN(sigbus_fault_outside_library_mapping_reaches_host_handler);
    RUN(sigbus_guard_opt_out_leaves_host_handler);
    RUN(sigbus_guard_env_opt_out);
    RUN(sigbus_default_disposition_kept);
    RUN(oom_without_recovery_point_aborts_not_exits);
    unlink(path);
    return test_summary();
}
