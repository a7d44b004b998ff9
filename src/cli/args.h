/*
 * args.h - command-line parsing and validation of the `mlia` executable.
 *
 * Parsing and validation are pure: they read argv and fill an mlia_cli_args
 * with pointers into argv (no allocation, no file-system access), and
 * return 2 with a message for every usage error. Checks that need the file
 * system (input files exist, output folder usable) belong to main.c and are
 * input errors (exit 1). docs/cli.md lists every message and the order in
 * which the rules are applied.
 */
#ifndef MLIA_CLI_ARGS_H
#define MLIA_CLI_ARGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef enum mlia_cli_command {
    MLIA_CLI_NONE = 0,
    MLIA_CLI_CHECK,
    MLIA_CLI_INSPECT
} mlia_cli_command;

/* Repeated values beyond this are counted but not kept (only counts and the
 * first values matter to the rules). */
#define MLIA_CLI_MAX_VALUES 8
/* --profiling-data may be given this many times (docs/captures.md). */
#define MLIA_CLI_MAX_PROFILING 1024
/* Largest --neural-technology-profiling-data.ticks-per-second (1 PHz). */
#define MLIA_CLI_MAX_TICKS_PER_SECOND 1e15

typedef struct mlia_cli_args {
    mlia_cli_command command;
    bool help, version, quiet, debug, json, performance, compatibility, csv;
    const char *model;            /* check: MODEL; inspect: FILE */
    const char *target_profile;
    const char *companion;
    const char *output_dir;
    const char *model_explorer;
    const char *method;           /* --neural-technology-profiling-data.etrecord-method */
    const char *debug_buffer;     /* --debug-buffer */
    const char *reference_profiling_data; /* --reference-profiling-data */
    const char *reference_debug_buffer;   /* --reference-debug-buffer */
    double ticks_per_second;      /* --neural-technology-profiling-data.ticks-per-second (0: not given) */
    uint32_t warmup_executions;   /* --neural-technology-profiling-data.warmup-executions */
    bool trace;                   /* --trace */
    const char *trace_format;     /* --trace-format: perfetto | json (requires --trace) */
    uint32_t n_profiling_data, n_backends, n_unrecognized;
    const char *profiling_data[MLIA_CLI_MAX_PROFILING];
    const char *backends[MLIA_CLI_MAX_VALUES];
    const char *unrecognized[MLIA_CLI_MAX_VALUES];
    /* Kinds of MODEL, the ETDump and the companion by content
     * (pipeline/inputs.h mlia_input_kind), set by the caller before
     * mlia_cli_validate; NULL: not looked at (missing file, or a pure
     * parse): the file-name rules apply. */
    const char *model_kind, *companion_kind;
    const char *profiling_kinds[MLIA_CLI_MAX_PROFILING];
} mlia_cli_args;

#define MLIA_CLI_PROFILING_BACKEND "neural-technology-profiling-data"
#define MLIA_CLI_TARGET_PROFILE "neural-technology"

/* Parse argv (argv[0] is the program). Returns 0, or 2 with msg set to the
 * text after "mlia: error: ". Values point into argv. Help and version
 * requests are recorded, not acted on; the caller checks them before
 * mlia_cli_validate(). */
int mlia_cli_parse(int argc, char **argv, mlia_cli_args *a, char *msg, size_t msg_size);

/* Apply the usage rules in the order docs/cli.md lists them. Returns 0,
 * or 2 with msg set. */
int mlia_cli_validate(const mlia_cli_args *a, char *msg, size_t msg_size);

/* True when name designates the profiling-data backend: compared ignoring
 * case and '-' (so "Neural-Technology-Profiling-Data" and
 * "neuraltechnologyprofilingdata" match). */
bool mlia_cli_is_profiling_backend(const char *name);

/* Numeric option values are plain decimal: digits with an optional fraction
 * ("5", "2.5", ".5", "5."), nothing else. strtod alone would also take hex
 * ("0x10" = 16), exponents, "inf", "nan", signs and leading blanks, so a
 * typo could silently mean something else (docs/cli.md). */
bool mlia_cli_is_decimal(const char *text);

/* One-line usage hint for the command ("usage: mlia check MODEL ..."), and
 * the full --help text. Static strings. */
const char *mlia_cli_usage(mlia_cli_command command);
const char *mlia_cli_help(mlia_cli_command command);

#endif
