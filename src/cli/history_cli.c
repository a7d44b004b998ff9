/*
 * history_cli.c - `mlia history [LOCATION] [--program FINGERPRINT | --model
 * NAME] [--label KEY=VALUE]... [--metric NAME] [--entity ID] [--last N]
 * [--format table|csv|json] [--output-dir DIR]`: printing and exit statuses
 * only; the options are parsed and checked with every other (cli/args.c,
 * the option table of pipeline/options.c) and the job is
 * mlia_history_list() of libmlia. LOCATION defaults to $MLIA_HISTORY (read
 * by main.c), else the default history.
 *
 * Exit statuses: 0 success, 1 history error, 2 usage error.
 */
#include "cli/history_cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/console.h"
#include "mlia/mlia.h"

int mlia_cli_history(const mlia_cli_args *args)
{
    const mlia_history_config *c = &args->history;
    mlia_history_options o = MLIA_HISTORY_OPTIONS_INIT;
    o.location = c->location;
    o.program = c->program;
    o.model = c->model;
    o.labels = c->labels;
    o.n_labels = c->n_labels;
    o.metric = c->metric;
    o.entity = c->entity;
    o.last = c->last;
    o.format = c->format;
    o.output_dir = c->output_dir;
    o.console_width = mlia_cli_console_width();
    mlia_history_output out;
    char *error = NULL;
    if (mlia_history_list(&o, &out, &error)) {
        fprintf(stderr, "mlia: error: %s\n", error ? error : "history query failed");
        mlia_free(error);
        return 1;
    }
    bool table = !c->format || strcmp(c->format, "table") == 0;
    if (!args->quiet) {
        fputs(out.text, stdout);
        if (out.page_path && table)
            printf("\nPage: %s\n", out.page_path);
    }
    mlia_history_output_free(&out);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        fprintf(stderr, "mlia: error: standard output: %s\n", strerror(errno ? errno : EIO));
        return 1;
    }
    return 0;
}
