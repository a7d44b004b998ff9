/*
 * test_api_options.c - the C API checks its option structs with the one
 * option table (src/pipeline/options.c): the same usage errors (return 2,
 * the command line's message) as the command line and the JSON requests,
 * also for what only C can pass (NaN, infinities, a version from a newer
 * header); versioned structs and their initialisers; the table as JSON.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mlia/mlia.h"
#include "test.h"

#define TICKS_DOMAIN "(ticks per second: a number from 1 to 1e15, e.g. 250e6)"

static void check_usage(const mlia_check_options *o, const char *expect)
{
    mlia_check_output out;
    char *error = NULL;
    int rc = mlia_check(o, &out, &error);
    CHECK_INT(rc, 2);
    CHECK_STR(error ? error : "(none)", expect);
    CHECK(out.result_json == NULL && out.console == NULL);
    mlia_free(error);
}

static mlia_check_options base(void)
{
    mlia_check_options o = MLIA_CHECK_OPTIONS_INIT;
    o.etrecord_path = "m.etrecord";
    o.etdump_path = "d.etdump";
    return o;
}

TEST(numbers_outside_their_domain)
{
    const struct {
        double v;
        const char *text;
    } bad[] = {{NAN, "nan"}, {INFINITY, "inf"}, {-INFINITY, "-inf"}, {-1, "-1"}, {0.5, "0.5"}, {2e15, "2e+15"}};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mlia_check_options o = base();
        o.ticks_per_second = bad[i].v;
        char want[256];
        snprintf(want, sizeof want,
                 "argument --neural-technology-profiling-data.ticks-per-second: invalid value: '%s' " TICKS_DOMAIN,
                 bad[i].text);
        check_usage(&o, want);
    }
    mlia_check_options o = base();
    o.warmup_executions = 1000000000u;
    check_usage(&o, "argument --neural-technology-profiling-data.warmup-executions: invalid value: '1000000000' "
                    "(a whole number of executions, 0 to 999999999)");
    o = base();
    o.memory_limit = 1000;
    check_usage(&o, "argument memory_limit: invalid value: '1000' (a whole number of bytes, 65536 to 1e18)");
}

TEST(unknown_enum_values)
{
    mlia_check_options o = base();
    o.trace = "xml";
    check_usage(&o, "argument --trace-format: invalid choice: 'xml' (choose from 'perfetto', 'json')");
    o = base();
    o.model_explorer = "bogus";
    check_usage(&o, "argument --model-explorer: invalid choice: 'bogus' (choose from 'files', 'open')");
    /* the value is the caller's text: escaped, the message stays one line (found by fuzz_options) */
    o.model_explorer = "a\nb\x1b";
    check_usage(&o, "argument --model-explorer: invalid choice: 'a\\nb\\x1b' (choose from 'files', 'open')");
}

TEST(rules_and_required)
{
    mlia_check_options o = base();
    o.reference_etdump_path = "r.etdump";
    check_usage(&o, "--reference-profiling-data requires --reference-debug-buffer.");
    o = base();
    o.etdump_path = NULL; /* a NULL pointer is named as such (issue 30) */
    check_usage(&o, "mlia_check: opts->etdump_path is NULL");
    const char *none[1] = {NULL};
    o.etdump_paths = none;
    o.n_etdump_paths = 0; /* no path at all: the option is missing */
    o.etdump_path = "";
    check_usage(&o, "argument --profiling-data: expected a non-empty value");
    o = base();
    o.companion_path = "c.vgf";
    check_usage(&o, "c.vgf: unsupported companion model file; expected a PTE (.pte).");
    const char *dumps[] = {"a.etdump", "a.etdump"};
    o = base();
    o.etdump_paths = dumps;
    o.n_etdump_paths = 2;
    check_usage(&o, "--profiling-data: a.etdump is given more than once.");
}

TEST(versions)
{
    mlia_check_options o = MLIA_CHECK_OPTIONS_INIT;
    CHECK_INT(o.version, MLIA_CHECK_OPTIONS_VERSION);
    memset(&o, 0xff, sizeof o);
    CHECK_INT(mlia_check_options_init(&o, MLIA_CHECK_OPTIONS_VERSION), 0);
    CHECK_INT(o.version, MLIA_CHECK_OPTIONS_VERSION);
    CHECK(o.etrecord_path == NULL && o.memory_limit == 0);
    CHECK_INT(mlia_check_options_init(&o, MLIA_CHECK_OPTIONS_VERSION + 1), -1);
    CHECK_INT(mlia_check_options_init(&o, 0), -1);
    mlia_compare_options c;
    CHECK_INT(mlia_compare_options_init(&c, MLIA_COMPARE_OPTIONS_VERSION), 0);
    CHECK_INT(c.version, MLIA_COMPARE_OPTIONS_VERSION);
    CHECK_INT(mlia_compare_options_init(&c, 7), -1);
    /* a struct from a newer header: refused, not misread */
    o = base();
    o.version = MLIA_CHECK_OPTIONS_VERSION + 1;
    char want[160];
    snprintf(want, sizeof want, "mlia_check_options.version %u is newer than this library's (%u)",
             MLIA_CHECK_OPTIONS_VERSION + 1, MLIA_CHECK_OPTIONS_VERSION);
    check_usage(&o, want);
    /* zeroed by a caller written before the field: read as version 1 */
    memset(&o, 0, sizeof o);
    o.etrecord_path = "m.etrecord";
    o.etdump_path = "d.etdump";
    o.trace = "xml";
    check_usage(&o, "argument --trace-format: invalid choice: 'xml' (choose from 'perfetto', 'json')");
}

TEST(compare_options)
{
    mlia_compare_options o = MLIA_COMPARE_OPTIONS_INIT;
    o.baseline = "a";
    o.new_run = "b";
    o.threshold = NAN;
    mlia_compare_output out;
    char *error = NULL;
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "argument --threshold: invalid value: 'nan' (expected a non-negative number of percent)");
    mlia_free(error);
    o.threshold = INFINITY;
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "argument --threshold: invalid value: 'inf' (expected a non-negative number of percent)");
    mlia_free(error);
    o.threshold = -1; /* negative: the default, as documented */
    o.new_run = NULL;
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "mlia_compare: opts->new_run is NULL");
    mlia_free(error);
    o.new_run = "b";
    o.version = 9;
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "mlia_compare_options.version 9 is newer than this library's (2)");
    mlia_free(error);
    /* version 2: the baseline from a history, checked by the table's rules */
    o.version = 2;
    o.baseline_history = "h.sqlite";
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "--baseline-history takes the baseline from the history: give NEW only (no BASELINE, no "
                     "--baseline)");
    mlia_free(error);
    o.baseline = NULL;
    o.history_last = 2000;
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "argument --last: invalid value: '2000' (a whole number of runs, 1 to 1024)");
    mlia_free(error);
    o.history_last = 0;
    const char *bad[] = {"no-equals"};
    o.history_labels = bad;
    o.n_history_labels = 1;
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "argument --label: invalid value: 'no-equals' (expected KEY=VALUE (KEY: letters, digits, '_', "
                     "'.', '-'))");
    mlia_free(error);
    /* a version-1 caller has no baseline_history: its baseline is missing */
    o.version = 1;
    CHECK_INT(mlia_compare(&o, &out, &error), 2);
    CHECK_STR(error, "mlia_compare: opts->baseline is NULL");
    mlia_free(error);
}

TEST(history_options)
{
    mlia_history_options o = MLIA_HISTORY_OPTIONS_INIT;
    mlia_history_output out;
    char *error = NULL;
    o.program = "abcdef12";
    o.model = "m";
    CHECK_INT(mlia_history_list(&o, &out, &error), 2);
    CHECK_STR(error, "argument --model: not allowed with argument --program");
    mlia_free(error);
    o.model = NULL;
    o.format = "xml";
    CHECK_INT(mlia_history_list(&o, &out, &error), 2);
    CHECK_STR(error, "argument --format: invalid choice: 'xml' (choose from 'table', 'csv', 'json')");
    mlia_free(error);
    o.format = NULL;
    o.location = "/nonexistent-dir/h.sqlite";
    CHECK_INT(mlia_history_list(&o, &out, &error), MLIA_STATUS_HISTORY);
    CHECK_STR(error, "/nonexistent-dir/h.sqlite: No such file or directory");
    mlia_free(error);
    CHECK_STR(mlia_status_name(MLIA_STATUS_HISTORY), "history");
    o.version = 2;
    CHECK_INT(mlia_history_list(&o, &out, &error), 2);
    CHECK_STR(error, "mlia_history_options.version 2 is newer than this library's (1)");
    mlia_free(error);
    CHECK_INT(mlia_history_list(NULL, &out, &error), 2);
    CHECK_STR(error, "mlia_history_list: opts is NULL");
    mlia_free(error);
    CHECK_INT(mlia_history_options_init(&o, 1), 0);
    CHECK_INT(mlia_history_options_init(&o, 2), -1);
}

TEST(table_as_json)
{
    char *json = NULL;
    CHECK_INT(mlia_options_json(&json), 0);
    CHECK(json && json[0] == '[');
    CHECK(strstr(json, "\"alias\": \"--ticks-per-second\"") != NULL);
    CHECK(strstr(json, "\"key\": \"ticks_per_second\"") != NULL);
    CHECK(strstr(json, "\"backend\": \"neural-technology-profiling-data\"") != NULL);
    mlia_free(json);
}

TEST(statuses)
{
    CHECK_INT(MLIA_STATUS_CLASS(MLIA_STATUS_INPUT_FORMAT), 1);
    CHECK_INT(MLIA_STATUS_CLASS(MLIA_STATUS_PROGRAM_MISMATCH), 1);
    CHECK_INT(MLIA_STATUS_CLASS(MLIA_STATUS_USAGE), 2);
    CHECK_STR(mlia_status_name(MLIA_STATUS_MEMORY_LIMIT), "memory limit");
    CHECK_STR(mlia_status_name(MLIA_STATUS_IO), "I/O error");
    CHECK_STR(mlia_status_name(12345), "unknown status");
    CHECK(mlia_error_byte_offset("d.etdump: offset 9000 out of range at byte 612 (run[0].events[3])") == 612);
    CHECK(mlia_error_byte_offset("d.bin: read of 4 bytes beyond the tensor at byte offset 4096") == 4096);
    CHECK(mlia_error_byte_offset("m.etrecord: No such file or directory") == -1);
    CHECK(mlia_error_byte_offset("x at byte y") == -1);
    CHECK(mlia_error_byte_offset(NULL) == -1);
    /* a missing input is an I/O error, in its class 1 */
    mlia_check_options o = base();
    mlia_check_output out;
    char *error = NULL;
    CHECK_INT(mlia_check(&o, &out, &error), MLIA_STATUS_IO);
    CHECK_STR(error, "m.etrecord: No such file or directory");
    mlia_free(error);
}

int main(void)
{
    RUN(numbers_outside_their_domain);
    RUN(unknown_enum_values);
    RUN(rules_and_required);
    RUN(versions);
    RUN(history_options);
    RUN(compare_options);
    RUN(table_as_json);
    RUN(statuses);
    return test_summary();
}
