/*
 * args.h - the command line of the `mlia` executable: argv into the option
 * set of pipeline/options.h, the usage rules, the usage lines and --help.
 *
 * Every option is a row of the one option table (MLIA_OPTS,
 * src/pipeline/options.c): this file only knows the grammar of argv
 * (argparse's, docs/cli.md) and lays the table out as --help. Parsing and
 * validation read argv and keep pointers into it (no allocation, no file
 * written); a usage error returns 2 with a message. Whether input files
 * exist and the output folder is usable belongs to main.c (exit 1).
 */
#ifndef MLIA_CLI_ARGS_H
#define MLIA_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pipeline/options.h"

typedef struct mlia_cli_args {
    mlia_opt_set set;              /* the command and the values of its options */
    bool help, version, quiet, debug, json;
    uint32_t n_pos;                /* compare: BASELINE and NEW as given */
    const char *pos[2];
    /* after mlia_cli_validate: what the command runs on */
    mlia_check_config check;
    mlia_compare_config compare;
    mlia_history_config history;
    const char *file;              /* inspect: FILE */
} mlia_cli_args;

/* Parse argv (argv[0] is the program). Returns 0, or 2 with msg set to the
 * text after "mlia: error: ". Values point into argv. Help and version
 * requests are recorded, not acted on; the caller checks them before
 * mlia_cli_validate(). */
int mlia_cli_parse(int argc, char **argv, mlia_cli_args *a, char *msg, size_t msg_size);

/* Apply the usage rules (the library's: mlia_check_resolve,
 * mlia_compare_resolve) and fill a->check / a->compare / a->file. Returns
 * 0, or 2 with msg set. */
int mlia_cli_validate(mlia_cli_args *a, char *msg, size_t msg_size);

/* One-line usage hint for the command ("usage: mlia check MODEL ..."). */
const char *mlia_cli_usage(mlia_cmd command);
/* The --help text of the command into buf (always terminated); returns its
 * length. 8 KB is enough for every command. */
size_t mlia_cli_help(mlia_cmd command, char *buf, size_t n);

#endif
