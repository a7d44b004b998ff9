/*
 * compare_cli.c - `mlia compare BASELINE NEW [--output-dir DIR]
 * [--threshold PCT] [--json] [--fail-on-regression] [-q]`: argument
 * handling and exit statuses only; the job is mlia_compare() of libmlia.
 *
 * Grammar as for `mlia check` (docs/cli.md): `--opt value` or `--opt=value`,
 * last value wins, `--` ends the options. Exit statuses: 0 success (also
 * with regressions unless --fail-on-regression), 1 input error, 2 usage
 * error, 3 regressions found with --fail-on-regression.
 */
#include "cli/compare_cli.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/args.h"
#include "cli/console.h"
#include "core/cnum.h"
#include "mlia/mlia.h"

#define COMPARE_USAGE                                                                                              \
    "usage: mlia compare BASELINE NEW [--baseline RUN]... [--output-dir DIR] [--threshold PCT] "                     \
    "[--allow-different-programs] [--allow-different-settings] [--json] [--fail-on-regression] [--tested-only]"

const char *mlia_cli_compare_help(void)
{
    return COMPARE_USAGE "\n"
           "\n"
           "Compare two runs of `mlia check` on the same program (recognised by the program\n"
           "fingerprint mlia check records, whatever the files are called): every metric of\n"
           "every entity present in both, baseline P50 against new P50.\n"
           "\n"
           "positional arguments:\n"
           "  BASELINE, NEW          an mlia-output folder, a folder holding one, or an\n"
           "                         mlia-output.json file; BASELINE may also be a folder\n"
           "                         of runs (pooled)\n"
           "\n"
           "options:\n"
           "  --baseline RUN         one more baseline run, pooled with BASELINE by execution;\n"
           "                         repeat it (with it, BASELINE may be left out); a folder\n"
           "                         of runs stands for every run in it\n"
           "  --output-dir DIR       write DIR/compare/compare.json (and compare.html, when\n"
           "                         both runs have their page); default: the new run's\n"
           "                         mlia-output folder (NEW/mlia-output/compare/)\n"
           "  --threshold PCT        smallest change, in percent, that can be a regression or\n"
           "                         an improvement (default: 5)\n"
           "  --allow-different-programs\n"
           "                         compare runs of different programs by entity id\n"
           "                         (default: an error, see docs/compare.md \"Identity\")\n"
           "  --allow-different-settings\n"
           "                         compare runs analysed with a different clock or NX\n"
           "                         statistics mode/device (a warning; default: an error)\n"
           "  --json                 print compare.json on standard output instead of tables\n"
           "  --fail-on-regression   exit with status 3 when there is a regression, tested or\n"
           "                         likely (fewer than 3 samples on a side)\n"
           "  --tested-only          --fail-on-regression counts tested regressions only\n"
           "                         (at least 3 samples on each side); likely ones are listed\n"
           "  -q, --quiet            print nothing on success\n"
           "  -h, --help             show this help and exit\n"
           "\n"
           "A change is a regression or an improvement when the new P50 lies outside the\n"
           "baseline's [min, max] and differs by more than the threshold; with fewer than 3\n"
           "samples on a side it is a likely regression or improvement, not tested for\n"
           "noise (docs/compare.md).\n"
           "\n"
           "Exit status: 0 success, 1 input error, 2 usage error,\n"
           "3 regression found with --fail-on-regression\n";
}

static int usage(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "mlia: error: ");
    fprintf(stderr, fmt, a, b);
    fprintf(stderr, "\n%s\n", COMPARE_USAGE);
    return 2;
}

/* The parsed command line. */
typedef struct compare_args {
    const char *pos[2];
    int n_pos;
    const char **baselines;     /* --baseline values in order (malloc'd, argc entries) */
    int n_baselines;
    const char *output_dir, *threshold_text;
    bool json, fail, quiet, help, allow, allow_settings, tested_only;
    char extra[1024];           /* unrecognized arguments */
} compare_args;

static void add_extra(compare_args *a, const char *arg)
{
    size_t n = strlen(a->extra);
    if (n + strlen(arg) + 2 < sizeof a->extra)
        snprintf(a->extra + n, sizeof a->extra - n, "%s%s", n ? " " : "", arg);
}

/* Runs the parsed command; returns the exit status. */
static int run(const compare_args *a)
{
    if (a->help) {
        fputs(mlia_cli_compare_help(), stdout);
        return fflush(stdout) ? 1 : 0;
    }
    if (a->extra[0])
        return usage("unrecognized arguments: %s%s", a->extra, "");
    /* with --baseline, the one positional argument is NEW (a second one, BASELINE, is pooled too) */
    if (a->n_pos < (a->n_baselines ? 1 : 2))
        return usage("the following arguments are required: %s%s", a->n_pos == 0 && !a->n_baselines ? "BASELINE, " : "",
                     "NEW");
    const char *baseline = a->n_pos == 2 ? a->pos[0] : NULL, *new_run = a->pos[a->n_pos - 1];
    const char *threshold_text = a->threshold_text;
    bool json = a->json, fail = a->fail, quiet = a->quiet;
    double threshold = -1;
    if (threshold_text) {
        char *end = NULL;
        errno = 0;
        threshold = mlia_strtod(threshold_text, &end);
        if (!mlia_cli_is_decimal(threshold_text) || errno || !end || *end || end == threshold_text || !isfinite(threshold) || threshold < 0)
            return usage("argument --threshold: invalid value: '%s' (expected a non-negative number of percent)%s",
                         threshold_text, "");
    }
    mlia_compare_options o = {.baseline = baseline, .new_run = new_run, .output_dir = a->output_dir,
                              .threshold = threshold, .allow_different_programs = a->allow,
                              .allow_different_settings = a->allow_settings, .tested_only = a->tested_only,
                              .baselines = a->baselines, .n_baselines = a->n_baselines,
                              .output_beside_new = 1, .console_width = mlia_cli_console_width()};
    mlia_compare_output out;
    char *error = NULL;
    if (mlia_compare(&o, &out, &error)) {
        fprintf(stderr, "mlia: error: %s\n", error ? error : "comparison failed");
        mlia_free(error);
        return 1;
    }
    /* warnings are in the tables; without them they go to stderr */
    if ((json || quiet) && out.warnings)
        for (const char *w = out.warnings; *w;) {
            size_t n = strcspn(w, "\n");
            fprintf(stderr, "mlia: warning: %.*s\n", (int)n, w);
            w += n + (w[n] == '\n');
        }
    if (json)
        fputs(out.json, stdout);
    else if (!quiet) {
        fputs(out.console, stdout);
        if (out.json_path)
            printf("\nOutput: %s\n", out.json_path);
        if (out.page_path)
            printf("Page: %s\n", out.page_path);
        else if (out.json_path)
            printf("Page: none (written when both runs were made with --model-explorer)\n");
    }
    unsigned regressions = out.regressions;
    mlia_compare_output_free(&out);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mlia: error: standard output: %s\n", strerror(errno ? errno : EIO));
        return 1;
    }
    return fail && regressions ? 3 : 0;
}

/* Returns -1 when parsing went through, else the exit status of a usage
 * error already reported. */
static int parse(int argc, char **argv, compare_args *a)
{
    bool options_done = false;
    /* argv[1] is "compare" */
    for (int i = 2; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (options_done || arg[0] != '-' || arg[1] == 0) {
            if (a->n_pos < 2)
                a->pos[a->n_pos++] = arg;
            else
                add_extra(a, arg);
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
        const char *flags[] = {"--json", "--fail-on-regression", "-q", "--quiet", "-h", "--help",
                               "--allow-different-programs", "--allow-different-settings", "--tested-only"};
        bool *flag_vars[] = {&a->json, &a->fail, &a->quiet, &a->quiet, &a->help, &a->help, &a->allow,
                             &a->allow_settings, &a->tested_only};
        bool matched = false;
        for (size_t k = 0; k < sizeof flags / sizeof *flags; k++)
            if (strlen(flags[k]) == name_len && strncmp(arg, flags[k], name_len) == 0) {
                if (eq)
                    return usage("argument %s: ignored explicit argument '%s'", flags[k], eq + 1);
                *flag_vars[k] = true;
                matched = true;
            }
        if (matched)
            continue;
        /* --baseline repeats (every value counts); the others: the last value wins */
        const char *valued[] = {"--output-dir", "--threshold", "--baseline"};
        const char *value = NULL;
        for (size_t k = 0; k < 3 && !matched; k++)
            if (strlen(valued[k]) == name_len && strncmp(arg, valued[k], name_len) == 0) {
                value = eq ? eq + 1
                           : (i + 1 < argc && (argv[i + 1][0] != '-' || !argv[i + 1][1]) ? argv[++i] : NULL);
                if (!value)
                    return usage("argument %s: expected one argument%s", valued[k], "");
                if (!*value)
                    return usage("argument %s: expected a non-empty value%s", valued[k], "");
                if (k == 0)
                    a->output_dir = value;
                else if (k == 1)
                    a->threshold_text = value;
                else
                    a->baselines[a->n_baselines++] = value;
                matched = true;
            }
        if (!matched)
            add_extra(a, arg);
    }
    return -1;
}

int mlia_cli_compare(int argc, char **argv)
{
    compare_args a;
    memset(&a, 0, sizeof a);
    a.baselines = calloc((size_t)argc + 1, sizeof *a.baselines);
    if (!a.baselines) {
        fprintf(stderr, "mlia: error: out of memory\n");
        return 1;
    }
    int rc = parse(argc, argv, &a);
    if (rc < 0)
        rc = run(&a);
    free(a.baselines);
    return rc;
}
