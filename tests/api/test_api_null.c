/*
 * The public API's pointer arguments (issue 30 item 3): every _free accepts
 * NULL, and a NULL pointer argument (other than `error`, which may always be
 * NULL) is a usage error: the function returns 2 with the one-line message
 * "<function>: <argument> is NULL", the way `free(NULL)` and the JSON entry
 * points' "invalid request" behave. Each call runs in a child process so that
 * a crash is a failure of that case, not of the whole binary.
 */
#include "test.h"

#include <sys/wait.h>
#include <unistd.h>

#include "mlia/mlia.h"

/* Runs fn in a child; the child exits with fn's return value (0..125). */
static int in_child(int (*fn)(void))
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(fn());
    int st = 0;
    waitpid(pid, &st, 0);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* 0 when rc and the message are what is expected, else 1. */
static int expect(int rc, char *error, int want_rc, const char *want)
{
    int ok = rc == want_rc && (want ? error && strcmp(error, want) == 0 : error == NULL);
    if (!ok)
        fprintf(stderr, "got %d \"%s\", want %d \"%s\"\n", rc, error ? error : "(null)", want_rc,
                want ? want : "(null)");
    mlia_free(error);
    return !ok;
}

static int free_check_null(void)
{
    mlia_check_output_free(NULL);
    return 0;
}
static int free_compare_null(void)
{
    mlia_compare_output_free(NULL);
    return 0;
}
static int free_null(void)
{
    mlia_free(NULL);
    return 0;
}
static int check_null_opts(void)
{
    mlia_check_output out;
    char *e = NULL;
    int rc = mlia_check(NULL, &out, &e);
    return expect(rc, e, 2, "mlia_check: opts is NULL");
}
static int check_null_out(void)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = "m.etrecord";
    o.etdump_path = "d.etdump";
    char *e = NULL;
    int rc = mlia_check(&o, NULL, &e);
    return expect(rc, e, 2, "mlia_check: out is NULL");
}
static int check_null_error_too(void)
{
    /* error may be NULL: the code alone tells the usage error */
    return mlia_check(NULL, NULL, NULL) == 2 ? 0 : 1;
}
static int check_null_etrecord(void)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etdump_path = "d.etdump";
    mlia_check_output out;
    char *e = NULL;
    int rc = mlia_check(&o, &out, &e);
    return expect(rc, e, 2, "mlia_check: opts->etrecord_path is NULL");
}
static int check_null_etdump(void)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = "m.etrecord";
    mlia_check_output out;
    char *e = NULL;
    int rc = mlia_check(&o, &out, &e);
    return expect(rc, e, 2, "mlia_check: opts->etdump_path is NULL");
}
static int check_null_in_etdump_paths(void)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = "m.etrecord";
    const char *dumps[2] = {"a.etdump", NULL};
    o.etdump_paths = dumps;
    o.n_etdump_paths = 2;
    mlia_check_output out;
    char *e = NULL;
    int rc = mlia_check(&o, &out, &e);
    return expect(rc, e, 2, "mlia_check: opts->etdump_paths[1] is NULL");
}
static int check_null_etdump_paths(void)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = "m.etrecord";
    o.n_etdump_paths = 2;
    mlia_check_output out;
    char *e = NULL;
    int rc = mlia_check(&o, &out, &e);
    return expect(rc, e, 2, "mlia_check: opts->etdump_paths is NULL");
}
static int check_null_cli_args(void)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = "m.etrecord";
    o.etdump_path = "d.etdump";
    o.n_cli_args = 3;
    mlia_check_output out;
    char *e = NULL;
    int rc = mlia_check(&o, &out, &e);
    return expect(rc, e, 2, "mlia_check: opts->cli_args is NULL");
}
static int inspect_null_path(void)
{
    char *json = NULL, *e = NULL;
    int rc = mlia_inspect(NULL, &json, &e);
    return expect(rc, e, 2, "mlia_inspect: path is NULL") || json != NULL;
}
static int inspect_null_json(void)
{
    char *e = NULL;
    int rc = mlia_inspect("x.pte", NULL, &e);
    return expect(rc, e, 2, "mlia_inspect: json is NULL");
}
static int inspect_to_null_path(void)
{
    char *e = NULL;
    int rc = mlia_inspect_to(NULL, stdout, &e);
    return expect(rc, e, 2, "mlia_inspect_to: path is NULL");
}
static int inspect_to_null_out(void)
{
    char *e = NULL;
    int rc = mlia_inspect_to("x.pte", NULL, &e);
    return expect(rc, e, 2, "mlia_inspect_to: out is NULL");
}
static int compare_null_opts(void)
{
    mlia_compare_output out;
    char *e = NULL;
    int rc = mlia_compare(NULL, &out, &e);
    return expect(rc, e, 2, "mlia_compare: opts is NULL");
}
static int compare_null_out(void)
{
    mlia_compare_options o;
    memset(&o, 0, sizeof o);
    o.baseline = "a.json";
    o.new_run = "b.json";
    char *e = NULL;
    int rc = mlia_compare(&o, NULL, &e);
    return expect(rc, e, 2, "mlia_compare: out is NULL");
}
static int compare_null_new(void)
{
    mlia_compare_options o;
    memset(&o, 0, sizeof o);
    o.baseline = "a.json";
    mlia_compare_output out;
    char *e = NULL;
    int rc = mlia_compare(&o, &out, &e);
    return expect(rc, e, 2, "mlia_compare: opts->new_run is NULL");
}
static int compare_null_baseline(void)
{
    mlia_compare_options o;
    memset(&o, 0, sizeof o);
    o.new_run = "b.json";
    mlia_compare_output out;
    char *e = NULL;
    int rc = mlia_compare(&o, &out, &e);
    return expect(rc, e, 2, "mlia_compare: opts->baseline is NULL");
}
static int compare_null_in_baselines(void)
{
    mlia_compare_options o;
    memset(&o, 0, sizeof o);
    o.new_run = "b.json";
    o.n_baselines = 1;
    mlia_compare_output out;
    char *e = NULL;
    int rc = mlia_compare(&o, &out, &e);
    return expect(rc, e, 2, "mlia_compare: opts->baselines is NULL");
}
static int advisor_null_request(void)
{
    char *r = NULL, *e = NULL;
    int rc = mlia_run_advisor_json(NULL, &r, &e);
    return expect(rc, e, 2, "mlia_run_advisor_json: request_json is NULL");
}
static int compare_json_null_request(void)
{
    char *r = NULL, *e = NULL;
    int rc = mlia_compare_json(NULL, &r, &e);
    return expect(rc, e, 2, "mlia_compare_json: request_json is NULL");
}

#define CASE(fn) do { int rc_ = in_child(fn); if (rc_ != 0) TEST_FAIL_AT("%s: child ended with %d%s", #fn, rc_, rc_ > 128 ? " (a signal)" : ""); } while (0)

TEST(free_functions_accept_null)
{
    CASE(free_check_null);
    CASE(free_compare_null);
    CASE(free_null);
}

TEST(check_pointer_arguments)
{
    CASE(check_null_opts);
    CASE(check_null_out);
    CASE(check_null_error_too);
    CASE(check_null_etrecord);
    CASE(check_null_etdump);
    CASE(check_null_in_etdump_paths);
    CASE(check_null_etdump_paths);
    CASE(check_null_cli_args);
}

TEST(inspect_pointer_arguments)
{
    CASE(inspect_null_path);
    CASE(inspect_null_json);
    CASE(inspect_to_null_path);
    CASE(inspect_to_null_out);
}

TEST(compare_pointer_arguments)
{
    CASE(compare_null_opts);
    CASE(compare_null_out);
    CASE(compare_null_new);
    CASE(compare_null_baseline);
    CASE(compare_null_in_baselines);
}

TEST(json_requests_pointer_arguments)
{
    CASE(advisor_null_request);
    CASE(compare_json_null_request);
}

int main(void)
{
    RUN(free_functions_accept_null);
    RUN(check_pointer_arguments);
    RUN(inspect_pointer_arguments);
    RUN(compare_pointer_arguments);
    RUN(json_requests_pointer_arguments);
    return test_summary();
}
