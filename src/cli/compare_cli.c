/*
 * compare_cli.c - `mlia compare BASELINE NEW [--baseline RUN]...
 * [--output-dir DIR] [--threshold PCT] [--allow-different-programs] [--json]
 * [--allow-different-settings] [--fail-on-regression] [--tested-only] [-q]`:
 * printing and exit statuses only; the
 * options are parsed and checked with every other (cli/args.c, the option
 * table of pipeline/options.c) and the job is mlia_compare() of libmlia.
 *
 * Exit statuses: 0 success (also with regressions unless
 * --fail-on-regression), 1 input error, 2 usage error, 3 regressions found
 * with --fail-on-regression.
 */
#include "cli/compare_cli.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/console.h"
#include "mlia/mlia.h"

int mlia_cli_compare(const mlia_cli_args *args)
{
    const mlia_compare_config *c = &args->compare;
    bool json = args->json, quiet = args->quiet;
    mlia_compare_options o = MLIA_COMPARE_OPTIONS_INIT;
    o.baselines = c->baselines;
    o.n_baselines = c->n_baselines;
    o.new_run = c->new_run;
    o.output_dir = c->output_dir;
    o.threshold = c->threshold;
    o.allow_different_programs = c->allow_different_programs;
    o.allow_different_settings = c->allow_different_settings;
    o.tested_only = c->tested_only;
    o.baseline_history = c->baseline_history;
    o.history_last = c->history_last;
    o.history_labels = c->history_labels;
    o.n_history_labels = c->n_history_labels;
    o.output_beside_new = 1;
    o.console_width = mlia_cli_console_width();
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
    return c->fail_on_regression && regressions ? MLIA_EXIT_REGRESSION : 0;
}

