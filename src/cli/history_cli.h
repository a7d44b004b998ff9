/*
 * history_cli.h - `mlia history [LOCATION] ...` (docs/history.md): printing
 * and exit statuses; the options are parsed and checked with every other
 * (cli/args.c over the option table of pipeline/options.c).
 */
#ifndef MLIA_CLI_HISTORY_CLI_H
#define MLIA_CLI_HISTORY_CLI_H

#include "cli/args.h"

/* Runs `mlia history` on the validated arguments; returns the exit status
 * (0 success, 1 history error, with the error line on stderr). */
int mlia_cli_history(const mlia_cli_args *a);

#endif
