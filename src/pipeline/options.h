/*
 * options.h - the one option table of every command, the values a front end
 * gathered, and the resolved configuration the pipelines receive.
 *
 * Every option of `mlia check`, `mlia inspect` and `mlia compare` is one row
 * of MLIA_OPTS (options.c): its command-line flag (short form, shorter
 * alias), its JSON request member (= the Python keyword), the backend that
 * also takes it under "backend_options", its type, bounds, choices, default
 * and help text. The three front ends only gather values into an
 * mlia_opt_set, each in its own grammar:
 *   - the command line (src/cli/args.c), from argv;
 *   - the JSON requests (mlia_run_advisor_json, mlia_compare_json: the
 *     Python binding), with mlia_opt_set_from_json() below;
 *   - the C option structs (mlia_check, mlia_compare), in src/api;
 * and the library checks them once: a value as it is gathered
 * (mlia_opt_set_text and friends), then the rules of the command in their
 * documented order (mlia_check_resolve, mlia_compare_resolve; docs/cli.md).
 * So a usage error has the same text from every front end, and the options
 * are named in it by their command-line flag. Unknown options are refused
 * with the nearest known one ("did you mean").
 *
 * The pipelines receive only the resolved configurations (mlia_check_config,
 * mlia_compare_config): defaults applied, rules checked; they never see the
 * public option structs.
 *
 * Nothing here keeps state: the table is const data, a set lives on its
 * caller's stack or arena, and its strings are borrowed from the caller.
 */
#ifndef MLIA_PIPELINE_OPTIONS_H
#define MLIA_PIPELINE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct mlia_json;
struct mlia_arena;

typedef enum mlia_cmd {
    MLIA_CMD_NONE = 0, /* before the command word: the global options */
    MLIA_CMD_CHECK,
    MLIA_CMD_INSPECT,
    MLIA_CMD_COMPARE,
    MLIA_CMD_HISTORY,
    MLIA_CMD_N
} mlia_cmd;

/* One row per option (a flag that reads differently in two commands, such as
 * --output-dir, is one row per command). */
typedef enum mlia_opt_id {
    /* mlia check */
    MLIA_OPT_MODEL,
    MLIA_OPT_TARGET,
    MLIA_OPT_CATEGORY,
    MLIA_OPT_PERFORMANCE,
    MLIA_OPT_COMPATIBILITY,
    MLIA_OPT_PROFILING,
    MLIA_OPT_BACKEND,
    MLIA_OPT_COMPANION,
    MLIA_OPT_OUTPUT_DIR,
    MLIA_OPT_MODEL_EXPLORER,
    MLIA_OPT_TRACE,
    MLIA_OPT_TRACE_FORMAT,
    MLIA_OPT_METHOD,
    MLIA_OPT_DEBUG_BUFFER,
    MLIA_OPT_REF_PROFILING,
    MLIA_OPT_REF_DEBUG_BUFFER,
    MLIA_OPT_TICKS,
    MLIA_OPT_WARMUP,
    MLIA_OPT_CSV,
    MLIA_OPT_CSV_TABLES,
    MLIA_OPT_HISTORY,
    MLIA_OPT_LABEL,
    MLIA_OPT_JSON,
    MLIA_OPT_MEMORY_LIMIT,
    /* mlia inspect */
    MLIA_OPT_FILE,
    /* mlia compare */
    MLIA_OPT_BASELINE,
    MLIA_OPT_NEW,
    MLIA_OPT_CMP_OUTPUT_DIR,
    MLIA_OPT_THRESHOLD,
    MLIA_OPT_ALLOW_DIFFERENT,
    MLIA_OPT_ALLOW_SETTINGS,
    MLIA_OPT_CMP_JSON,
    MLIA_OPT_FAIL_ON_REGRESSION,
    MLIA_OPT_TESTED_ONLY,
    MLIA_OPT_BASELINE_HISTORY,
    MLIA_OPT_CMP_LAST,
    MLIA_OPT_CMP_LABEL,
    MLIA_OPT_CMP_MEMORY_LIMIT,
    /* mlia history */
    MLIA_OPT_HIST_LOCATION,
    MLIA_OPT_HIST_PROGRAM,
    MLIA_OPT_HIST_MODEL,
    MLIA_OPT_HIST_LABEL,
    MLIA_OPT_HIST_METRIC,
    MLIA_OPT_HIST_ENTITY,
    MLIA_OPT_HIST_LAST,
    MLIA_OPT_HIST_FORMAT,
    MLIA_OPT_HIST_OUTPUT_DIR,
    MLIA_OPT_HIST_MEMORY_LIMIT,
    /* every command */
    MLIA_OPT_QUIET,
    MLIA_OPT_DEBUG,
    MLIA_OPT_HELP,
    MLIA_OPT_VERSION,
    MLIA_OPT_N
} mlia_opt_id;

typedef enum mlia_opt_type {
    MLIA_OPT_FLAG,   /* no value on the command line; JSON true/false */
    MLIA_OPT_TEXT,   /* one value, the last one given wins */
    MLIA_OPT_PATH,   /* one path (the Python binding takes str, bytes, os.PathLike) */
    MLIA_OPT_PATHS,  /* repeated: every value counts, in order; JSON: a string or a list */
    MLIA_OPT_TEXTS,  /* repeated names */
    MLIA_OPT_CHOICE, /* one of `choices` */
    MLIA_OPT_NUMBER, /* decimal number, optional exponent, in [min, max] */
    MLIA_OPT_COUNT,  /* whole number (digits only), in [min, max] */
    MLIA_OPT_CHOICES /* a comma-separated list of `choices`; repeated: the union
                      * (number: bit i set for the i-th choice) */
} mlia_opt_type;

#define MLIA_OPT_IN(cmd) (1u << (cmd))
#define MLIA_OPT_ALL (MLIA_OPT_IN(MLIA_CMD_NONE) | MLIA_OPT_IN(MLIA_CMD_CHECK) | MLIA_OPT_IN(MLIA_CMD_INSPECT) | \
                      MLIA_OPT_IN(MLIA_CMD_COMPARE) | MLIA_OPT_IN(MLIA_CMD_HISTORY))

/* mlia_opt.flags */
#define MLIA_OPT_REQUIRED 1u     /* every front end requires it */
#define MLIA_OPT_CLI_REQUIRED 2u /* the command line requires it (as Arm's MLIA does); the APIs default it */
#define MLIA_OPT_POSITIONAL 4u   /* a positional argument on the command line (named by its metavar) */
#define MLIA_OPT_CLI_ONLY 8u     /* not an option of the library (printing, help) */
#define MLIA_OPT_NO_EXPONENT 16u /* NUMBER written without an exponent ("1e1" refused) */
#define MLIA_OPT_OPTIONAL_VALUE 32u /* PATH whose value may be left out (argparse's nargs='?': on the
                                       command line it takes the next argument unless that is an
                                       option; JSON true = given alone, false = not given) */
#define MLIA_OPT_KEY_VALUE 64u   /* TEXTS of "KEY=VALUE" labels (history/history.h); JSON also
                                    takes an object {"KEY": "VALUE"} */

typedef struct mlia_opt {
    mlia_opt_id id;
    mlia_opt_type type;
    unsigned commands;       /* MLIA_OPT_IN bits: the commands that take it */
    unsigned flags;          /* MLIA_OPT_REQUIRED, ... */
    const char *flag;        /* "--output-dir"; NULL: not on the command line */
    char short_flag;         /* 't' for -t; 0: none */
    const char *alias;       /* a shorter long flag, or NULL */
    const char *key;         /* JSON request member and Python keyword; NULL: command line only */
    const char *backend;     /* also accepted as backend_options[backend][key]; NULL: no */
    const char *metavar;     /* "DIR"; positionals: their name */
    const char *choices;     /* CHOICE: "files,open" */
    double min, max;         /* NUMBER, COUNT */
    unsigned max_digits;     /* COUNT: at most this many digits */
    const char *domain;      /* the valid values, said in an invalid-value message */
    const char *deflt;       /* the default, as text (documentation); NULL: none */
    const char *help;        /* help lines, '\n'-separated */
} mlia_opt;

/* The table, in help order; MLIA_OPTS[i].id == i. */
extern const mlia_opt MLIA_OPTS[MLIA_OPT_N];

/* The one backend that takes backend options (Arm MLIA's backend name). */
#define MLIA_OPT_PROFILING_BACKEND "neural-technology-profiling-data"

/* Values of a repeated option kept (more are counted; the rules name the
 * count). */
#define MLIA_OPT_MAX_ITEMS 1024u
/* Unknown names and stray positionals kept for the message. */
#define MLIA_OPT_MAX_UNKNOWN 8u

typedef struct mlia_opt_value {
    uint32_t count;          /* times given (0: not given) */
    const char *text;        /* the last value as given (FLAG: NULL) */
    double number;           /* NUMBER, COUNT: the value */
    bool on;                 /* FLAG: the value (JSON false gives count 1, on false) */
    uint32_t n_items;        /* PATHS, TEXTS: values kept, in order, in items */
    const char **items;
} mlia_opt_value;

/* The values one front end gathered for one command. Strings are borrowed
 * (argv, the request's arena, the caller's struct). */
typedef struct mlia_opt_set {
    mlia_cmd command;
    bool cli;                /* from the command line: CLI_REQUIRED applies */
    mlia_opt_value v[MLIA_OPT_N];
    uint32_t n_unknown;
    const char *unknown[MLIA_OPT_MAX_UNKNOWN]; /* as given: "--frob", "x", "backend_options.y" */
    const char *suggest[MLIA_OPT_MAX_UNKNOWN]; /* the nearest known name, or NULL */
    /* the repeated options' values: --profiling-data, --backend, --baseline
     * and the --label of the set's command (one list: each command has at
     * most one --label row) */
    const char *store[4][MLIA_OPT_MAX_ITEMS];
} mlia_opt_set;

/* An empty set for `command` (about 33 KB: on the heap or in an arena). */
void mlia_opt_set_init(mlia_opt_set *set, mlia_cmd command, bool cli);

/* "-t/--target-profile", "--output-dir", "MODEL" (positionals), or the key
 * of a row without a flag, written into buf; returns buf. */
const char *mlia_opt_name(const mlia_opt *o, char *buf, size_t n);

/* Record one value of option `id`, checked by its type (empty, choice,
 * number and range); 0, or 2 with msg "argument <name>: ...". */
int mlia_opt_set_text(mlia_opt_set *set, mlia_opt_id id, const char *text, char *msg, size_t n);
/* A flag: on or off (off counts as given, e.g. JSON false). An
 * MLIA_OPT_OPTIONAL_VALUE row given without its value: on. */
void mlia_opt_set_flag(mlia_opt_set *set, mlia_opt_id id, bool on);
/* A number from a typed caller (a C double, a JSON number): NaN, infinities,
 * values out of range and (COUNT) fractions are refused with the option's
 * message, quoting `text` (the JSON source text) or else the value as %g;
 * 0 or 2. */
int mlia_opt_set_number(mlia_opt_set *set, mlia_opt_id id, double value, const char *text, char *msg, size_t n);
/* An unknown name, with `near` suggested (may be NULL). */
void mlia_opt_set_unknown(mlia_opt_set *set, const char *given, const char *near);

/* The row of a command-line name ("--x", with its '=' part cut off by
 * len) valid for `command`, or NULL. */
const mlia_opt *mlia_opt_by_flag(const char *name, size_t len, mlia_cmd command);
const mlia_opt *mlia_opt_by_short(char c, mlia_cmd command);
/* The known command-line flag nearest to an unknown "--name[=value]" (at
 * most 2 edits, or a third of its length; else the only flag it
 * abbreviates), valid for `command`; NULL when none is near. */
const char *mlia_opt_suggest_flag(const char *given, mlia_cmd command);

/* The candidate nearest to given[0..len) (at most 2 edits, or a third of
 * its length), else the only one it abbreviates (5 characters at least);
 * NULL when none is near. Returns one of cands. */
const char *mlia_opt_nearest(const char *given, size_t len, const char *const *cands, size_t n_cands);

/* Reads a JSON request object into set (request members are the rows' keys;
 * "backend_options": {"<backend>": {"<key>": value}}). Unknown members go to
 * set->unknown with a suggestion; values are checked as on the command line.
 * Strings are borrowed from the tree; names of nested unknowns are made in
 * `arena`. 0, or 2 with msg. */
int mlia_opt_set_from_json(mlia_opt_set *set, const struct mlia_json *req, struct mlia_arena *arena, char *msg,
                           size_t n);

/* "unrecognized arguments: --frob (did you mean --from?) x": 2 when the set
 * has unknown names (msg set), else 0. */
int mlia_opt_unknown_error(const mlia_opt_set *set, char *msg, size_t n);

/* The table as JSON (an array of rows: flag, short, alias, key, backend,
 * type, commands, required, metavar, choices, min, max, default, help), in
 * `arena`. */
char *mlia_opt_table_json(struct mlia_arena *arena, size_t *len);

/* Progress callback of a check run (the public mlia_progress_fn). */
typedef void (*mlia_config_progress_fn)(void *ctx, const char *stage);

/* What `mlia check` runs on: the options resolved (defaults applied, rules
 * checked). Strings borrowed from the caller for the run. */
typedef struct mlia_check_config {
    const char *etrecord_path;
    const char *const *etdump_paths; /* n_etdump_paths >= 1 captures, in order */
    int n_etdump_paths;
    const char *companion_path;      /* NULL: none */
    const char *output_dir;          /* NULL: no files */
    const char *model_explorer;      /* NULL, "files" or "open" */
    const char *method;              /* NULL: the only method */
    const char *debug_buffer_path, *reference_etdump_path, *reference_debug_buffer_path;
    double ticks_per_second;         /* 0: not given (ticks are ns) */
    unsigned warmup_executions;
    const char *trace;               /* NULL, "perfetto" or "json" */
    unsigned csv;                    /* the CSV tables (MLIA_RUN_CSV_* of analysis/run.h); 0: none */
    const char *history;             /* NULL: not recorded; "": the default history; else its location */
    const char *const *history_labels; /* "KEY=VALUE" of the recorded run, in order */
    int n_history_labels;
    /* host settings (not options) */
    const char *const *cli_args;
    int n_cli_args;
    mlia_config_progress_fn progress;
    void *progress_ctx;
    bool skip_result_json_text;
    unsigned console_width;
    size_t memory_limit;             /* 0: the default for the inputs (core/oom.h) */
} mlia_check_config;

/* Applies the rules of `mlia check` to set in the order docs/cli.md lists
 * (unknown names, required, target profile, category, ETDumps, backend,
 * input kinds by content, suffixes, requires) and fills cfg. Returns 0, or
 * 2 with msg. cfg->etdump_paths points into set (the set must outlive it). */
int mlia_check_resolve(const mlia_opt_set *set, mlia_check_config *cfg, char *msg, size_t n);

typedef struct mlia_compare_config {
    const char *const *baselines;    /* every baseline argument, in order (n_baselines >= 1) */
    int n_baselines;
    const char *new_run;
    const char *output_dir;          /* NULL: none unless output_beside_new */
    bool output_beside_new;          /* with output_dir NULL: NEW's mlia-output folder */
    double threshold;                /* percent */
    bool allow_different_programs;
    bool allow_different_settings;   /* a different clock or statistics mode: a warning */
    bool fail_on_regression;
    bool tested_only;                /* the gate counts tested regressions only */
    const char *baseline_history;    /* --baseline-history: the baseline from a history ("": the default
                                        one); then baselines is empty */
    unsigned history_last;           /* --last: recorded runs pooled (0: HISTORY_DEFAULT_BASELINE_LAST) */
    const char *const *history_labels; /* --label: only recorded runs with every one */
    int n_history_labels;
    unsigned console_width;
    size_t memory_limit;             /* 0: the default for the inputs */
} mlia_compare_config;

/* The rules of `mlia compare` (unknown names, required); 0, or 2 with msg. */
int mlia_compare_resolve(const mlia_opt_set *set, mlia_compare_config *cfg, char *msg, size_t n);

/* What `mlia history` runs on (docs/history.md). */
typedef struct mlia_history_config {
    const char *location;            /* NULL: the default history */
    const char *program, *model;     /* at most one of them; NULL: every run */
    const char *const *labels;       /* "KEY=VALUE": only runs with every one */
    int n_labels;
    const char *metric, *entity;     /* NULL: inference_time of the model */
    unsigned last;                   /* 0: HISTORY_DEFAULT_LAST */
    const char *format;              /* "table", "csv" or "json" */
    const char *output_dir;          /* NULL: no page */
    unsigned console_width;
    size_t memory_limit;             /* 0: the default */
} mlia_history_config;

/* The rules of `mlia history` (unknown names, --program or --model); 0, or
 * 2 with msg. */
int mlia_history_resolve(const mlia_opt_set *set, mlia_history_config *cfg, char *msg, size_t n);

#endif
