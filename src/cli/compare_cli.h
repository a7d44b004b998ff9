/*
 * compare_cli.h - the `mlia compare` command: printing and exit statuses
 * (see compare_cli.c and docs/compare.md); its options are rows of the one
 * option table, parsed and checked with the others (cli/args.h).
 */
#ifndef MLIA_CLI_COMPARE_CLI_H
#define MLIA_CLI_COMPARE_CLI_H

#include "cli/args.h"

/* Exit status of a failed --fail-on-regression gate. */
#define MLIA_EXIT_REGRESSION 3

/* Runs the validated `mlia compare` command line; returns the exit status. */
int mlia_cli_compare(const mlia_cli_args *a);

#endif
