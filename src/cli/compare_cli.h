/*
 * compare_cli.h - the `mlia compare` command (argument handling, printing,
 * exit statuses; see compare_cli.c and docs/compare.md).
 */
#ifndef MLIA_CLI_COMPARE_CLI_H
#define MLIA_CLI_COMPARE_CLI_H

/* Exit status of a failed --fail-on-regression gate. */
#define MLIA_EXIT_REGRESSION 3

/* Run `mlia compare`; argv[1] is "compare". Returns the exit status. */
int mlia_cli_compare(int argc, char **argv);
const char *mlia_cli_compare_help(void);

#endif
