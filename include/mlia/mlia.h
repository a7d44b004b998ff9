/*
 * mlia.h - public API of libmlia: `mlia check` for ExecuTorch ETRecord
 * profiling views (Neural Technology profiling data).
 *
 * One call runs the whole job: read the ETRecord, the ETDump and the optional
 * companion PTE, analyse runtime timings and VGF neural statistics, and write
 * DIR/mlia-output/ (result JSON, logs, and with model_explorer set the Model
 * Explorer artifacts and the standalone page).
 *
 * Ownership: strings returned through out-parameters are malloc'ed and must be
 * released with mlia_free(). Input strings are borrowed for the call only.
 *
 * NULL: mlia_free, mlia_check_output_free and mlia_compare_output_free accept
 * NULL and do nothing, like free(NULL). A NULL pointer argument that a
 * function needs (the options, the output struct, a required path in the
 * options such as etrecord_path, new_run or an element of etdump_paths, a
 * request, inspect's json or FILE) is a usage error: the function returns 2
 * with *error = "<function>: <argument> is NULL" (for example "mlia_check:
 * opts->etrecord_path is NULL"). `error` itself may always be NULL (the
 * return code alone then tells what happened); so may the `result` of the
 * JSON entry points (the result text is then dropped).
 *
 * Strings in: every const char * is a NUL-terminated C string, and the
 * library uses its bytes up to the first NUL, nothing after it; paths are
 * passed to the OS byte for byte (no encoding is assumed). A caller that
 * holds counted strings (another language's) must refuse values with a NUL
 * inside before calling, or the value is silently cut there: the Python
 * package does (MliaUsageError naming the argument), and the JSON entry
 * points below do for their request (a "\u0000" in any request string is a
 * usage error, return 2, "request: \"<member>\" contains a NUL byte (at
 * byte N)"). JSON requests are UTF-8, so a path that is not valid UTF-8 can
 * only be given through mlia_check/mlia_compare's option structs.
 *
 * Numbers: the library writes and reads every number in the "C" locale
 * ('.' decimal point) whatever the host's setlocale; each call switches
 * only its own threads (uselocale) and restores them before returning.
 * The library keeps no global state (with the one exception below); calls
 * may run concurrently on different inputs.
 *
 * Process-wide state, SIGBUS: the ETDump is read from a file mapping
 * (docs/streaming.md). Another process truncating that file during a call
 * would make the next read raise SIGBUS; so when it maps a file the library
 * installs a SIGBUS handler (unless it is in place already) (sigaction, SA_SIGINFO) that turns such a fault
 * into the ordinary error "<etdump>: file changed while being read (truncated
 * while mapped)". Every other SIGBUS (a fault elsewhere, a signal sent with
 * kill or raise) is passed to the handler that was installed before: called
 * with the same arguments, or, when the disposition was the default one, the
 * default action happens as without the library. A host that installs its
 * own SIGBUS handler between two calls gets it back as the handler the
 * library's passes signals to at the next mapping. To keep the library away from
 * signal dispositions altogether call mlia_sigbus_guard(0) before any other
 * call: no handler is installed (one already installed is removed if it is
 * still in place), and a truncation while mapped then raises SIGBUS as in any
 * program that maps a file. Returns the previous setting (1 by default).
 * Environment: MLIA_SIGBUS_GUARD=0 has the same effect for hosts that cannot
 * call C.
 */
#ifndef MLIA_MLIA_H
#define MLIA_MLIA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define MLIA_VERSION "0.1.0"

/* Marks the public functions: libmlia is built with hidden visibility, so
 * these are the only symbols its shared library exports. */
#if defined(__GNUC__) || defined(__clang__)
#define MLIA_API __attribute__((visibility("default")))
#else
#define MLIA_API
#endif

/* What a call returns: 0 on success, else why it failed. The low byte is
 * the class, the command line's exit status (MLIA_STATUS_CLASS): 1 an input
 * or analysis error, 2 a usage error, 3 regressions found (mlia_compare_json
 * with "fail_on_regression"); an input or analysis error says more in the
 * byte above (as SQLite's extended result codes), so `rc != 0` and
 * `MLIA_STATUS_CLASS(rc) == 1` keep working as new reasons are added. The
 * message (*error) comes with every failure; mlia_error_byte_offset() reads
 * the byte position it names. The Python binding raises one exception class
 * per status (MliaInputFormatError, ...), all MliaError. */
typedef enum mlia_status {
    MLIA_OK = 0,
    MLIA_STATUS_ERROR = 1,                     /* an input or analysis error (the class) */
    MLIA_STATUS_USAGE = 2,                     /* an option's value or combination */
    MLIA_STATUS_REGRESSION = 3,                /* mlia_compare_json, fail_on_regression */
    MLIA_STATUS_INPUT_FORMAT = 1 | (1 << 8),   /* an input's bytes are not what its format says */
    MLIA_STATUS_IO = 1 | (2 << 8),             /* a file cannot be opened, read or written */
    MLIA_STATUS_MEMORY_LIMIT = 1 | (3 << 8),   /* the call outgrew its memory limit */
    MLIA_STATUS_OUT_OF_MEMORY = 1 | (4 << 8),  /* an allocation failed */
    MLIA_STATUS_PROGRAM_MISMATCH = 1 | (5 << 8), /* inputs of different programs (ETRecord and ETDump,
                                                    companion PTE, compared runs) */
    MLIA_STATUS_HISTORY = 1 | (6 << 8)          /* the run history cannot be opened, read or written
                                                   (missing, damaged, unreachable server); mlia_check's
                                                   outputs are written all the same */
} mlia_status;
#define MLIA_STATUS_CLASS(status) ((status) & 0xff)

/* "input format", "usage error", ...: a static string. */
MLIA_API const char *mlia_status_name(int status);
/* The byte of the input a message names ("... at byte 612 (...)"), or -1. */
MLIA_API long long mlia_error_byte_offset(const char *message);

/* Progress stages reported through mlia_check_options.progress. */
typedef void (*mlia_progress_fn)(void *ctx, const char *stage);

/* Option structs are versioned (as libgit2's): the first member says which
 * layout the caller was compiled against, so that a library with more
 * members appended reads only those the caller has. Initialise with
 * MLIA_CHECK_OPTIONS_INIT / mlia_check_options_init() (or zero the struct:
 * version 0 reads as version 1, the first layout). A version newer than
 * the library's is a usage error (return 2). */
#define MLIA_CHECK_OPTIONS_VERSION 2

/* The options of `mlia check`. Each is a row of the library's one option
 * table (`mlia check --help`, docs/cli.md); the library checks them as the
 * command line's and the JSON request's: an invalid value or combination is
 * a usage error (return 2) with the command line's message, naming the
 * option by its flag. */
typedef struct mlia_check_options {
    unsigned version;            /* MLIA_CHECK_OPTIONS_VERSION */
    const char *etrecord_path;   /* required */
    const char *etdump_path;     /* required unless etdump_paths is set */
    const char *companion_path;  /* optional companion PTE, NULL if none */
    const char *output_dir;      /* NULL: write no files (API use); CLI passes "." by default */
    const char *model_explorer;  /* NULL, "files" or "open" */
    const char *method;          /* --neural-technology-profiling-data.etrecord-method or NULL */
    const char *const *cli_args; /* recorded in context.cli_arguments (may be NULL) */
    int n_cli_args;
    mlia_progress_fn progress;   /* optional */
    void *progress_ctx;
    int skip_result_json_text;   /* 1 with output_dir: mlia-output.json is streamed to its file and
                                    result_json stays NULL (memory bounded); 0: result_json is set */
    unsigned console_width;      /* columns of the console summary: 0 = 100 (not a terminal),
                                    else clamped to 80..400 (the CLI passes the terminal's) */
    /* Several ETDumps (--profiling-data given more than once): when
     * n_etdump_paths > 0 these are the captures, in order, and etdump_path is
     * not read. The executions of the selected method in every capture are
     * pooled into one sample set (docs/captures.md). */
    const char *const *etdump_paths;
    int n_etdump_paths;
    /* Numerical accuracy from intermediate outputs (docs/accuracy.md), all optional. These
     * fields came after the ones above: callers zero-initialise the struct (memset, or
     * `= {0}`), so code written before them leaves them NULL and gets the same results. */
    const char *debug_buffer_path;           /* the run's debug buffer (--debug-buffer) or NULL */
    const char *reference_etdump_path;       /* a reference capture of the same program
                                                (--reference-profiling-data) or NULL */
    const char *reference_debug_buffer_path; /* its debug buffer (--reference-debug-buffer); required
                                                with reference_etdump_path, which needs
                                                debug_buffer_path */
    /* Rate of the ETDump's clock in ticks per second; 0 means 1e9 (ticks are
     * nanoseconds). Every time metric, the timeline and the notes follow it
     * (--neural-technology-profiling-data.ticks-per-second). */
    double ticks_per_second;
    /* The first warmup_executions executions of the method in each ETDump are
     * left out of every statistic (runtime and NX) and listed in the context
     * (--neural-technology-profiling-data.warmup-executions). */
    unsigned warmup_executions;
    /* The timeline file (docs/trace.md), written only on request. NULL or "": none; "perfetto":
     * mlia-output/trace.pftrace (Perfetto's protobuf trace, --trace); "json":
     * mlia-output/trace.json (Chrome trace-event JSON, --trace --trace-format json). Ignored
     * without output_dir. Added after the fields above: zero-initialised callers get no trace. */
    const char *trace;
    /* Nonzero with output_dir: also write CSV tables under csv/ (--csv,
     * docs/captures.md). 1 (or any value without an MLIA_CSV_* bit) writes
     * operators.csv, chains.csv and modules.csv (and memory.csv,
     * memory_tensors.csv with a PTE); otherwise the MLIA_CSV_* bits choose (--csv-tables). Only
     * MLIA_CSV_EXECUTIONS writes the long-form executions.csv, whose
     * per-execution values are then kept in memory until the file is
     * written. */
    int csv;
    /* The most memory the run's arenas may hold, in bytes (at least 64 KiB);
     * 0: the default, 512 MiB + 64 x the inputs' total size. Going past it
     * ends the run with "<file>: analysis needs more than the memory limit of
     * N bytes" (MLIA_STATUS_MEMORY_LIMIT). */
    size_t memory_limit;
    /* Version 2 (MLIA_CHECK_OPTIONS_VERSION >= 2): the run history
     * (docs/history.md, --history, --label). NULL records nothing; ""
     * records into the default history ($XDG_DATA_HOME/mlia/history.sqlite);
     * else a SQLite file path or a postgresql:// URI. The run is recorded
     * after its outputs are written, in one transaction; a history that
     * cannot be opened or written (damaged, unreachable, refused) fails the
     * call with MLIA_STATUS_HISTORY and "<history>: <what>", the outputs
     * written and kept. */
    const char *history;
    const char *const *history_labels; /* "KEY=VALUE" labels of the recorded run (--label) */
    int n_history_labels;
} mlia_check_options;

#define MLIA_CHECK_OPTIONS_INIT {.version = MLIA_CHECK_OPTIONS_VERSION}
/* Zeroes *opts and sets its version; returns 0, or -1 when `version` is not
 * one this library knows (0 or above MLIA_CHECK_OPTIONS_VERSION). */
MLIA_API int mlia_check_options_init(mlia_check_options *opts, unsigned version);

/* mlia_check_options.csv: the CSV tables (--csv-tables). */
#define MLIA_CSV_OPERATORS 0x2
#define MLIA_CSV_CHAINS 0x4
#define MLIA_CSV_EXECUTIONS 0x8 /* the long form, one row per execution and value */
#define MLIA_CSV_MEMORY 0x10    /* memory.csv and memory_tensors.csv (with a PTE) */
#define MLIA_CSV_MODULES 0x20   /* modules.csv: the total time of each nn.Module */
#define MLIA_CSV_ALL (MLIA_CSV_OPERATORS | MLIA_CSV_CHAINS | MLIA_CSV_EXECUTIONS | MLIA_CSV_MEMORY | MLIA_CSV_MODULES)

/* Result of one run. */
typedef struct mlia_check_output {
    char *result_json;   /* the standardized result, pretty-printed, trailing newline (NULL with
                            skip_result_json_text) */
    char *console;       /* the console summary text (tables, warnings) */
    char *output_path;   /* DIR/mlia-output or NULL when no output_dir */
    char *page_path;     /* absolute path of bundle/index.html or NULL */
    char *model_explorer_command; /* shell command opening the files in Google's Model Explorer
                                     (python3 '<DIR>/mlia-output/model-explorer/open_in_model_explorer.py'),
                                     or NULL */
    char *model_explorer_hint;    /* one line: the node-data overlay to pick first in Model Explorer
                                     (it colours nodes only once one is picked), or NULL */
    char *status_error;  /* the run's status is "incompatible" (the outputs were written): why, one
                            line, e.g. no measurement could be attributed to the program; the CLI
                            prints it as an error and exits 1. NULL otherwise */
} mlia_check_output;

/* Run the job. Returns 0 (MLIA_OK) on success; on failure an mlia_status
 * (class 1: input or analysis error, with its reason; 2: usage error, an
 * option's value or combination, or a NULL argument, see NULL above) and
 * sets *error to the one-line message
 * "<file>: <what>" (without the "mlia: error: " prefix).
 * `out` fields are set only on success; release them with
 * mlia_check_output_free(). */
MLIA_API int mlia_check(const mlia_check_options *opts, mlia_check_output *out, char **error);
MLIA_API void mlia_check_output_free(mlia_check_output *out);

/* `mlia inspect FILE`: decoded structure as pretty JSON (trailing newline).
 * Returns 0 or an mlia_status of class 1 with *error set (2: a NULL argument). */
MLIA_API int mlia_inspect(const char *path, char **json, char **error);
/* The same document written to `out` as it is produced (memory bounded by
 * the largest ETDump run's metadata, not by the number of events). On an
 * error found before the first byte (any invalid input) nothing is written;
 * write errors on `out` are the caller's to check (ferror). Returns 0 or an
 * mlia_status of class 1 with *error set. */
MLIA_API int mlia_inspect_to(const char *path, FILE *out, char **error);

/* Python binding entry point: request is a JSON object whose members are
 * the "key"s of the option table (mlia_options_json: "model",
 * "profiling_data" (a path or a list), "companion_model", "output_dir",
 * "model_explorer", "trace" (true, false, "perfetto" or "json"), "csv",
 * "debug_buffer", "reference_profiling_data", "reference_debug_buffer",
 * "advice_category", "target_profile", "etrecord_method",
 * "ticks_per_second", "warmup_executions", "memory_limit", "history"
 * (true, false or a location), "labels" ({"KEY": "VALUE"} or a list of
 * "KEY=VALUE")), and
 * "backend_options": {"neural-technology-profiling-data": {the members the
 * table gives that backend}}; null is "not given". An unknown member is a
 * usage error with the nearest known name ("did you mean"); values and rules
 * are checked as on the command line, with its messages. On success *result
 * is the result JSON text. Returns 0, or an mlia_status (with *error):
 * class 1 (input or analysis) or 2 (usage). */
MLIA_API int mlia_run_advisor_json(const char *request_json, char **result, char **error);

/* `mlia compare BASELINE NEW` (docs/compare.md). Each side is an mlia-output
 * folder, a folder holding one, or an mlia-output.json file; a baseline may
 * also be a folder of runs. Runs are matched by the program fingerprint
 * `mlia check` records, not by file name. */
#define MLIA_COMPARE_OPTIONS_VERSION 2

typedef struct mlia_compare_options {
    unsigned version;            /* MLIA_COMPARE_OPTIONS_VERSION (0 reads as 1) */
    const char *baseline;        /* required unless n_baselines > 0 */
    const char *new_run;         /* required */
    const char *output_dir;      /* where the compare/ folder goes: NULL = none, unless output_beside_new */
    double threshold;            /* percent; negative = default 5 */
    const char *const *baselines; /* more baselines, pooled with `baseline` by execution (may be NULL) */
    int n_baselines;
    int allow_different_programs; /* compare different programs by entity id instead of failing */
    int output_beside_new;       /* with output_dir NULL: write into the new run's mlia-output folder */
    unsigned console_width;      /* columns of the console tables: 0 = not a terminal (nothing wraps),
                                    else clamped to 80..400 */
    int tested_only;             /* the gate (regressions) counts tested regressions only, not likely ones */
    int allow_different_settings; /* compare runs analysed with a different clock or statistics mode
                                     (a warning) instead of failing */
    size_t memory_limit;         /* bytes (at least 64 KiB); 0: 512 MiB + 64 x the inputs' size */
    /* Version 2: the baseline from a run history instead (docs/history.md,
     * --baseline-history): a SQLite file or a postgresql:// URI ("" = the
     * default history); baseline and baselines are then not given. The
     * newest history_last runs (0 = 10) of new_run's program with the same
     * method, settings and labels are pooled as the baseline. */
    const char *baseline_history;
    unsigned history_last;               /* --last */
    const char *const *history_labels;   /* --label "KEY=VALUE": only runs with every one of them */
    int n_history_labels;
} mlia_compare_options;

#define MLIA_COMPARE_OPTIONS_INIT {.version = MLIA_COMPARE_OPTIONS_VERSION}
/* As mlia_check_options_init. */
MLIA_API int mlia_compare_options_init(mlia_compare_options *opts, unsigned version);

typedef struct mlia_compare_output {
    char *json;                  /* compare.json text (pretty, trailing newline) */
    char *console;               /* the console tables */
    char *json_path;             /* .../compare/compare.json or NULL */
    char *page_path;             /* .../compare/compare.html or NULL (written when both runs have views) */
    unsigned regressions;        /* what --fail-on-regression counts: entities (the model included) with a
                                    regression, or a likely one unless tested_only */
    unsigned improvements;       /* entities with an improvement (tested or likely) */
    char *warnings;              /* one line per warning (escaped, '\n'-terminated), or NULL */
} mlia_compare_output;

/* Returns 0, or an mlia_status with *error = "<file>: <what>": class 1
 * (MLIA_STATUS_PROGRAM_MISMATCH for different programs, MLIA_STATUS_IO,
 * MLIA_STATUS_INPUT_FORMAT for non-mlia inputs, ...), or 2 (usage error: an
 * option's value, or a NULL argument). */
MLIA_API int mlia_compare(const mlia_compare_options *opts, mlia_compare_output *out, char **error);
MLIA_API void mlia_compare_output_free(mlia_compare_output *out);

/* Python binding entry point: request {"baseline" (a path or a list),
 * "new", "threshold", "output_dir", "allow_different_programs",
 * "allow_different_settings", "tested_only", "fail_on_regression",
 * "memory_limit", "baseline_history", "last", "labels"} checked as
 * mlia_run_advisor_json's; *result =
 * compare.json text. Returns 0, 1, 2 (usage) or, with "fail_on_regression":
 * true, 3 when the gate fails (*result set, *error "<n> regression(s)
 * (<k> likely; threshold <t> %)"). */
MLIA_API int mlia_compare_json(const char *request_json, char **result, char **error);

/* The option table of every command as JSON text (malloc'd, free with
 * mlia_free): an array of {"commands", "flag", "short", "alias", "key",
 * "backend", "type", "positional", "required", "metavar", "choices", "min",
 * "max", "default", "help"}; the Python binding and the tests read it.
 * Returns 0, or 1 when out of memory. */
MLIA_API int mlia_options_json(char **json);

/* `mlia history [LOCATION]` (docs/history.md): the runs of a run history and
 * a metric's trend over them. Each member is a row of the option table, as
 * for mlia_check. */
#define MLIA_HISTORY_OPTIONS_VERSION 1

typedef struct mlia_history_options {
    unsigned version;            /* MLIA_HISTORY_OPTIONS_VERSION (0 reads as 1) */
    const char *location;        /* SQLite file or postgresql:// URI; NULL: the default history */
    const char *program;         /* only this program fingerprint (or a prefix of 8+ hex digits), or NULL */
    const char *model;           /* only this model name, or NULL (not with program) */
    const char *const *labels;   /* "KEY=VALUE": only runs with every one of them */
    int n_labels;
    const char *metric;          /* the trend's metric or series key; NULL: inference_time */
    const char *entity;          /* the trend's entity id; NULL: the model */
    unsigned last;               /* the newest N runs; 0: 20 */
    const char *format;          /* "table" (NULL), "csv" or "json" */
    const char *output_dir;      /* also write DIR/history/history.html (the trend page), or NULL */
    unsigned console_width;      /* as for mlia_compare */
    size_t memory_limit;         /* bytes (at least 64 KiB); 0: 512 MiB */
} mlia_history_options;

#define MLIA_HISTORY_OPTIONS_INIT {.version = MLIA_HISTORY_OPTIONS_VERSION}
/* As mlia_check_options_init. */
MLIA_API int mlia_history_options_init(mlia_history_options *opts, unsigned version);

typedef struct mlia_history_output {
    char *text;                  /* the table, CSV or JSON */
    char *page_path;             /* .../history/history.html or NULL */
    unsigned n_runs;
} mlia_history_output;

/* Returns 0, or an mlia_status with *error = "<history>: <what>":
 * MLIA_STATUS_HISTORY (missing, damaged or unreachable history), another of
 * class 1 (the page's folder, memory), or 2 (usage: an option's value or
 * combination, or a NULL argument). */
MLIA_API int mlia_history_list(const mlia_history_options *opts, mlia_history_output *out, char **error);
MLIA_API void mlia_history_output_free(mlia_history_output *out);

MLIA_API void mlia_free(void *p);

/* Whether the library may install its SIGBUS handler (see the top of this
 * file); 1 by default. Returns the previous setting. */
MLIA_API int mlia_sigbus_guard(int enable);

#ifdef __cplusplus
}
#endif
#endif
