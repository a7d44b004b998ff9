/*
 * sweep.c - `make oom-sweep`: fail the Nth allocation of the library for
 * every N on three representative runs (docs/hardening.md, "Allocation-
 * failure sweep").
 *
 * Runs (inputs built by tools/mkfixture.py from samples/, plus the real
 * LeNet ETDump of tests/fixtures.lock):
 *   lenet      samples/lenet.json ETRecord + executorch/lenet.etdp: runtime
 *              only (no NX statistics), result + trace;
 *   nx-v2      samples/demo.json: NX statistics schema v2, with the Model
 *              Explorer files and the page;
 *   companion  samples/vww4.json with its companion PTE (VGF, SPIR-V, TOSA),
 *              with the Model Explorer files and the page.
 * Each run is first made without failures to count its allocations A (the
 * library is built with tests/oom/hook.h: every malloc, calloc, realloc,
 * strdup, realpath, fopen and fdopendir of src/ is counted; threads are run
 * inline so the count is deterministic). Then, for N = 1..A, a child
 * process fails allocation N and runs mlia_check again; the child must
 * return 0 (the failure was absorbed: then every file it wrote must equal
 * the run without failures, tree_digest.h; SOURCE_DATE_EPOCH is set so
 * that runs are reproducible) or 1 with a one-line error, leave no
 * temporary output folder and no half-written mlia-output, and exit without
 * a leak (LeakSanitizer at the child's exit: the sweep is built with
 * ASan+UBSan); a crash, a sanitizer report, an exit() or a hang (60 s) is a
 * failure naming the run and N, so that `build-oom/oom_sweep RUN N`
 * replays it.
 *
 * OOM_SWEEP_STRIDE=S (default 1) tries every S-th N on runs whose count is
 * above OOM_SWEEP_STRIDE_ABOVE (default 0: all runs); N = 1..64 are always
 * tried. The closing line is "oom-sweep: N passed, N failed".
 */
#define MLIA_HOOK_IMPLEMENTATION /* the driver's own allocations are not counted */
#include "hook.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "mlia/mlia.h"
#include "tree_digest.h"

#ifndef MLIA_SOURCE_DIR
#define MLIA_SOURCE_DIR "."
#endif

typedef struct sweep_run {
    const char *name;
    char etrecord[1024], etdump[1024], companion[1024], out[1024];
    bool views;
    long allocations;
    char *digest; /* the output of the run without failures (tree_digest.h) */
} sweep_run;

static char root[] = "/tmp/mlia-oom-sweep-XXXXXX";
static sweep_run runs[3];

static int sh(const char *cmd)
{
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int check_once(const sweep_run *r, char **error)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = r->etrecord;
    o.etdump_path = r->etdump;
    o.companion_path = r->companion[0] ? r->companion : NULL;
    o.output_dir = r->out;
    o.model_explorer = r->views ? "files" : NULL;
    o.skip_result_json_text = 1;
    mlia_check_output out;
    int rc = mlia_check(&o, &out, error);
    if (rc == 0)
        mlia_check_output_free(&out);
    /* the sweep judges the status's class (the command line's exit status);
     * its reason, above the low byte, says what failed (mlia/mlia.h) */
    return MLIA_STATUS_CLASS(rc);
}

/* No temporary or old sibling left; mlia-output absent or complete. */
static const char *output_problem(const char *dir)
{
    static char why[700];
    DIR *d = opendir(dir);
    if (!d)
        return NULL;
    struct dirent *e;
    why[0] = 0;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, ".mlia-output", 12) == 0)
            snprintf(why, sizeof why, "left %s behind", e->d_name);
    closedir(d);
    if (why[0])
        return why;
    char p[1200];
    struct stat st;
    snprintf(p, sizeof p, "%s/mlia-output", dir);
    if (stat(p, &st) == 0) {
        snprintf(p, sizeof p, "%s/mlia-output/mlia-output.json", dir);
        if (stat(p, &st) != 0)
            return "mlia-output without mlia-output.json";
    }
    return NULL;
}

/* The child: fail allocation n, run, check; exit 0 when everything holds,
 * 10 + reason otherwise (LeakSanitizer exits 23 on a leak). Writes one
 * outcome line to fd. */
static void child(const sweep_run *r, long n, int fd)
{
    char *error = NULL;
    char clear[1200];
    snprintf(clear, sizeof clear, "rm -rf '%s/mlia-output'", r->out);
    if (sh(clear) != 0)
        exit(14);
    mlia_hook_arm(n);
    int rc = check_once(r, &error);
    int fired = mlia_hook_fired();
    mlia_hook_arm(0);
    char line[2600];
    int code = 0;
    const char *problem = output_problem(r->out);
    char *got = rc == 0 && fired ? oom_tree_digest(r->out) : NULL;
    if (rc != 0 && rc != 1) {
        snprintf(line, sizeof line, "returned %d", rc);
        code = 11;
    } else if (rc == 1 && (!error || strchr(error, '\n'))) {
        snprintf(line, sizeof line, "error text is %s", error ? "not one line" : "missing");
        code = 12;
    } else if (problem) {
        snprintf(line, sizeof line, "output folder: %s (after %s%.1000s)", problem, rc ? "error: " : "ok",
                 rc && error ? error : "");
        code = 13;
    } else if (rc == 0 && fired && (!got || !r->digest || strcmp(got, r->digest) != 0)) {
        char why[400];
        snprintf(line, sizeof line, "ok, but the output differs from the run without failures: %s",
                 got && r->digest ? oom_digest_difference(r->digest, got, why, sizeof why) : "(unreadable)");
        code = 15;
    } else {
        snprintf(line, sizeof line, "%s%s%.2000s", rc ? "error: " : "ok", fired ? "" : " (not reached)",
                 rc ? error : "");
    }
    free(error);
    free(got);
    ssize_t w = write(fd, line, strlen(line));
    (void)w;
    close(fd);
    exit(code); /* the sweep driver, not the library: LeakSanitizer runs here */
}

typedef struct tally {
    long tried, ok, errors, oom_errors, failed;
} tally;

static int run_n(const sweep_run *r, long n, tally *t, bool verbose)
{
    int fds[2];
    if (pipe(fds) != 0)
        return -1;
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        alarm(60);
        child(r, n, fds[1]);
    }
    close(fds[1]);
    char line[2600] = {0};
    size_t got = 0;
    ssize_t k;
    while (got < sizeof line - 1 && (k = read(fds[0], line + got, sizeof line - 1 - got)) > 0)
        got += (size_t)k;
    close(fds[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    t->tried++;
    bool bad = !WIFEXITED(st) || WEXITSTATUS(st) != 0;
    if (bad) {
        t->failed++;
        if (WIFSIGNALED(st))
            printf("FAIL %s N=%ld: killed by signal %d (%s)\n", r->name, n, WTERMSIG(st), line);
        else if (WEXITSTATUS(st) == 23)
            printf("FAIL %s N=%ld: leak (LeakSanitizer report above; %s)\n", r->name, n, line);
        else
            printf("FAIL %s N=%ld: exit %d: %s\n", r->name, n, WEXITSTATUS(st), line);
    } else if (strncmp(line, "error: ", 7) == 0) {
        t->errors++;
        if (strstr(line, "out of memory"))
            t->oom_errors++;
    } else {
        t->ok++;
    }
    if (verbose)
        printf("%s N=%ld: %s\n", r->name, n, line);
    return bad;
}

static int setup(const char *fixtures)
{
    if (!mkdtemp(root))
        return -1;
    char cmd[4096];
    const char *samples[3] = {"lenet", "demo", "vww4"};
    for (int i = 0; i < 3; i++) {
        snprintf(cmd, sizeof cmd, "cd '%s' && python3 tools/mkfixture.py samples/%s.json '%s/%s' >/dev/null",
                 MLIA_SOURCE_DIR, samples[i], root, samples[i]);
        if (sh(cmd) != 0) {
            printf("FAIL setup: %s\n", cmd);
            return -1;
        }
    }
    sweep_run *r = &runs[0];
    r->name = "lenet";
    snprintf(r->etrecord, sizeof r->etrecord, "%s/lenet/lenet.etrecord", root);
    snprintf(r->etdump, sizeof r->etdump, "%s/executorch/lenet.etdp", fixtures);
    r = &runs[1];
    r->name = "nx-v2";
    r->views = true;
    snprintf(r->etrecord, sizeof r->etrecord, "%s/demo/demo.etrecord", root);
    snprintf(r->etdump, sizeof r->etdump, "%s/demo/demo.etdump", root);
    r = &runs[2];
    r->name = "companion";
    r->views = true;
    snprintf(r->etrecord, sizeof r->etrecord, "%s/vww4/vww4.etrecord", root);
    snprintf(r->etdump, sizeof r->etdump, "%s/vww4/vww4.etdump", root);
    snprintf(r->companion, sizeof r->companion, "%s/vww4/vww4.pte", root);
    for (int i = 0; i < 3; i++) {
        snprintf(runs[i].out, sizeof runs[i].out, "%s/out-%s", root, runs[i].name);
        mkdir(runs[i].out, 0755);
    }
    return 0;
}

static long env_long(const char *name, long dflt)
{
    const char *v = getenv(name);
    return v && *v ? strtol(v, NULL, 10) : dflt;
}

int main(int argc, char **argv)
{
    const char *fx = getenv("MLIA_FIXTURES");
    char fixtures[512];
    snprintf(fixtures, sizeof fixtures, "%s", fx && *fx ? fx : MLIA_SOURCE_DIR "/../shared/fixtures");
    char lenet[700];
    snprintf(lenet, sizeof lenet, "%s/executorch/lenet.etdp", fixtures);
    if (access(lenet, R_OK) != 0) {
        /* the LeNet run needs the real ETDump (tests/fixtures.lock) */
        printf("SKIP oom-sweep: fixture executorch/lenet.etdp is absent (looked in %s)\n", fixtures);
        printf("oom-sweep: 0 passed, %d failed, 1 skipped\n", getenv("MLIA_REQUIRE_FIXTURES") ? 1 : 0);
        return getenv("MLIA_REQUIRE_FIXTURES") ? 1 : 0;
    }
    if (setup(fixtures) != 0)
        return 1;
    setenv("SOURCE_DATE_EPOCH", "1767225600", 1); /* reproducible run_id and timestamp */
    long stride = env_long("OOM_SWEEP_STRIDE", 1), above = env_long("OOM_SWEEP_STRIDE_ABOVE", 0);
    if (stride < 1)
        stride = 1;
    int only = -1;
    long only_n = 0;
    if (argc >= 2) {
        for (int i = 0; i < 3; i++)
            if (strcmp(argv[1], runs[i].name) == 0)
                only = i;
        if (only < 0) {
            fprintf(stderr, "usage: oom_sweep [lenet|nx-v2|companion [N]]\n");
            return 2;
        }
        if (argc >= 3)
            only_n = strtol(argv[2], NULL, 10);
    }
    long total_tried = 0, total_failed = 0;
    time_t t0 = time(NULL);
    for (int i = 0; i < 3; i++) {
        if (only >= 0 && i != only)
            continue;
        sweep_run *r = &runs[i];
        char *error = NULL;
        mlia_hook_arm(0);
        int rc = check_once(r, &error);
        r->allocations = mlia_hook_count();
        r->digest = oom_tree_digest(r->out);
        if (rc == 0 && (!r->digest || !*r->digest)) {
            printf("FAIL %s: the output of the run without failures cannot be read\n", r->name);
            total_failed++;
            continue;
        }
        if (rc != 0) {
            printf("FAIL %s: the run fails without injected failures: %s\n", r->name, error ? error : "?");
            free(error);
            total_failed++;
            continue;
        }
        if (only_n) {
            printf("%s: %ld allocations without failures\n", r->name, r->allocations);
            tally t = {0};
            total_failed += run_n(r, only_n, &t, true) != 0;
            total_tried++;
            continue;
        }
        long s = r->allocations > above ? stride : 1;
        tally t = {0};
        time_t r0 = time(NULL);
        for (long n = 1; n <= r->allocations; n += (n < 64 ? 1 : s))
            run_n(r, n, &t, false);
        printf("%s: %ld allocations, %ld runs (every %s), %ld ok, %ld errors (%ld say out of memory), "
               "%ld failed, %lld s\n",
               r->name, r->allocations, t.tried, s == 1 ? "N" : "N up to 64, then every stride-th", t.ok,
               t.errors, t.oom_errors, t.failed, (long long)(time(NULL) - r0));
        if (t.oom_errors == 0) {
            printf("FAIL %s: no run reported out of memory\n", r->name);
            t.failed++;
        }
        total_tried += t.tried;
        total_failed += t.failed;
    }
    char cmd[700];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    sh(cmd);
    printf("oom-sweep: %ld runs in %lld s\n", total_tried, (long long)(time(NULL) - t0));
    printf("oom-sweep: %ld passed, %ld failed\n", total_tried - total_failed, total_failed);
    return total_failed ? 1 : 0;
}
