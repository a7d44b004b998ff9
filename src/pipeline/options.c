/*
 * options.c - the option table, the checks of a value as it is gathered and
 * the rules of each command (see options.h; docs/cli.md lists the rules and
 * their messages in order). Adding an option is one row of MLIA_OPTS, the
 * field it resolves into (mlia_check_config / mlia_compare_config) and, when
 * it comes with a rule, one rule below.
 */
#include "pipeline/options.h"

#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "core/arena.h"
#include "core/cnum.h"
#include "core/json_read.h"
#include "core/json_write.h"
#include "core/str.h"
#include "analysis/run.h"
#include "history/history.h"
#include "pipeline/inputs.h"

#define CHECK MLIA_OPT_IN(MLIA_CMD_CHECK)
#define INSPECT MLIA_OPT_IN(MLIA_CMD_INSPECT)
#define COMPARE MLIA_OPT_IN(MLIA_CMD_COMPARE)
#define HISTORY MLIA_OPT_IN(MLIA_CMD_HISTORY)
#define GLOBAL MLIA_OPT_IN(MLIA_CMD_NONE)
#define NTPD MLIA_OPT_PROFILING_BACKEND

/* clang-format off */
const mlia_opt MLIA_OPTS[MLIA_OPT_N] = {
    /* id, type, commands, flags, flag, short, alias, key, backend, metavar, choices, min, max, digits, domain,
     * default, help */
    {MLIA_OPT_MODEL, MLIA_OPT_PATH, CHECK, MLIA_OPT_REQUIRED | MLIA_OPT_POSITIONAL, NULL, 0, NULL, "model", NULL,
     "MODEL", NULL, 0, 0, 0, NULL, NULL, "the ETRecord (.etrecord or .bin)"},
    {MLIA_OPT_TARGET, MLIA_OPT_TEXT, CHECK, MLIA_OPT_CLI_REQUIRED, "--target-profile", 't', NULL, "target_profile",
     NULL, "PROFILE", NULL, 0, 0, 0, NULL, "neural-technology", "target profile; only neural-technology"},
    {MLIA_OPT_CATEGORY, MLIA_OPT_TEXT, CHECK, 0, NULL, 0, NULL, "advice_category", NULL, NULL, NULL, 0, 0, 0, NULL,
     "performance", "advice category (--performance, --compatibility); only performance"},
    {MLIA_OPT_PERFORMANCE, MLIA_OPT_FLAG, CHECK, MLIA_OPT_CLI_REQUIRED, "--performance", 0, NULL, NULL, NULL, NULL,
     NULL, 0, 0, 0, NULL, NULL, "performance analysis (required)"},
    {MLIA_OPT_COMPATIBILITY, MLIA_OPT_FLAG, CHECK, 0, "--compatibility", 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0,
     NULL, NULL, "not supported with --profiling-data"},
    {MLIA_OPT_PROFILING, MLIA_OPT_PATHS, CHECK, MLIA_OPT_REQUIRED, "--profiling-data", 0, NULL, "profiling_data",
     NULL, "ETDUMP", NULL, 0, 0, 0, NULL, NULL,
     "an ETDump (.etdump or .etdp); repeat it to pool\nthe executions of several captures"},
    {MLIA_OPT_BACKEND, MLIA_OPT_TEXTS, CHECK, 0, "--backend", 'b', NULL, NULL, NULL, "BACKEND", NULL, 0, 0, 0, NULL,
     NTPD, "optional; only neural-technology-profiling-data"},
    {MLIA_OPT_COMPANION, MLIA_OPT_PATH, CHECK, 0, "--companion-model", 0, NULL, "companion_model", NULL, "PTE", NULL,
     0, 0, 0, NULL, NULL, "the program's .pte: its memory plan (pools, live\nbytes); with a VGF delegate also its SPIR-V view"},
    {MLIA_OPT_OUTPUT_DIR, MLIA_OPT_PATH, CHECK, 0, "--output-dir", 0, NULL, "output_dir", NULL, "DIR", NULL, 0, 0, 0,
     NULL, ".", "where mlia-output/ is written (default: .)"},
    {MLIA_OPT_MODEL_EXPLORER, MLIA_OPT_CHOICE, CHECK, 0, "--model-explorer", 0, NULL, "model_explorer", NULL, NULL,
     "files,open", 0, 0, 0, NULL, NULL,
     "write the Model Explorer views and the page;\n'open' also opens the page in a browser"},
    {MLIA_OPT_TRACE, MLIA_OPT_FLAG, CHECK, 0, "--trace", 0, NULL, "trace", NULL, NULL, NULL, 0, 0, 0,
     "(true, false, 'perfetto' or 'json')", NULL,
     "write the executions as a timeline:\nmlia-output/trace.pftrace (Perfetto)"},
    {MLIA_OPT_TRACE_FORMAT, MLIA_OPT_CHOICE, CHECK, 0, "--trace-format", 0, NULL, NULL, NULL, NULL, "perfetto,json",
     0, 0, 0, NULL, "perfetto",
     "with --trace: 'json' writes trace.json (Chrome\ntrace events) instead (default: perfetto)"},
    {MLIA_OPT_METHOD, MLIA_OPT_TEXT, CHECK, 0, "--neural-technology-profiling-data.etrecord-method", 0,
     "--etrecord-method", "etrecord_method", NTPD, "NAME", NULL, 0, 0, 0, NULL, NULL,
     "method to analyse when the ETRecord has several"},
    {MLIA_OPT_DEBUG_BUFFER, MLIA_OPT_PATH, CHECK, 0, "--debug-buffer", 0, NULL, "debug_buffer", NULL, "BIN", NULL, 0,
     0, 0, NULL, NULL,
     "the debug buffer written with the ETDump: output\nstatistics per operator (docs/accuracy.md)"},
    {MLIA_OPT_REF_PROFILING, MLIA_OPT_PATH, CHECK, 0, "--reference-profiling-data", 0, NULL,
     "reference_profiling_data", NULL, "ETDUMP", NULL, 0, 0, 0, NULL, NULL,
     "a reference capture of the same program (e.g. on\nCPU): error, SNR and cosine similarity per operator"},
    {MLIA_OPT_REF_DEBUG_BUFFER, MLIA_OPT_PATH, CHECK, 0, "--reference-debug-buffer", 0, NULL,
     "reference_debug_buffer", NULL, "BIN", NULL, 0, 0, 0, NULL, NULL, "the reference capture's debug buffer"},
    {MLIA_OPT_TICKS, MLIA_OPT_NUMBER, CHECK, 0, "--neural-technology-profiling-data.ticks-per-second", 0,
     "--ticks-per-second", "ticks_per_second", NTPD, "HZ", NULL, 1, 1e15, 0,
     "(ticks per second: a number from 1 to 1e15, e.g. 250e6)", "1e9",
     "rate of the ETDump's clock (default 1e9: ticks\nare nanoseconds), e.g. 250e6 for a 250 MHz counter"},
    {MLIA_OPT_WARMUP, MLIA_OPT_COUNT, CHECK, 0, "--neural-technology-profiling-data.warmup-executions", 0,
     "--warmup-executions", "warmup_executions", NTPD, "N", NULL, 0, 999999999, 9,
     "(a whole number of executions, 0 to 999999999)", "0",
     "leave the first N executions of each ETDump out\nof every statistic (default 0)"},
    {MLIA_OPT_CSV, MLIA_OPT_FLAG, CHECK, 0, "--csv", 0, NULL, "csv", NULL, NULL, NULL, 0, 0, 0,
     "(true, false, a table name or a list of them)", NULL,
     "also write mlia-output/csv/: operators.csv,\nchains.csv, modules.csv (with a PTE: memory.csv,\n"
     "memory_tensors.csv)"},
    {MLIA_OPT_CSV_TABLES, MLIA_OPT_CHOICES, CHECK, 0, "--csv-tables", 0, NULL, "csv_tables", NULL, "LIST",
     "operators,chains,executions,memory,modules,all", 0, 0, 0, NULL, "operators,chains,memory,modules",
     "the CSV tables to write (implies --csv), comma-\nseparated: operators, chains, executions (long\n"
     "form, one row per execution and value), memory,\nmodules, all"},
    {MLIA_OPT_HISTORY, MLIA_OPT_PATH, CHECK, MLIA_OPT_OPTIONAL_VALUE, "--history", 0, NULL, "history", NULL,
     "LOCATION", NULL, 0, 0, 0, "(true, false or a SQLite file or postgresql:// URI)", NULL,
     "record the run in a history: a SQLite file or a\npostgresql:// URI (default: $MLIA_HISTORY, else\n"
     "$XDG_DATA_HOME/mlia/history.sqlite); alone, put it\nafter MODEL or use --history=LOCATION"},
    {MLIA_OPT_LABEL, MLIA_OPT_TEXTS, CHECK, MLIA_OPT_KEY_VALUE, "--label", 0, NULL, "labels", NULL, "KEY=VALUE",
     NULL, 0, 0, 0, "(KEY=VALUE texts, or an object {KEY: VALUE})", NULL,
     "a label of the recorded run (commit, device,\nbuild...); repeat it (docs/history.md)"},
    {MLIA_OPT_JSON, MLIA_OPT_FLAG, CHECK, MLIA_OPT_CLI_ONLY, "--json", 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0,
     NULL, NULL, "print the result JSON on standard output\ninstead of the summary"},
    {MLIA_OPT_MEMORY_LIMIT, MLIA_OPT_COUNT, CHECK, 0, NULL, 0, NULL, "memory_limit", NULL, "BYTES", NULL, 65536,
     1e18, 19, "(a whole number of bytes, 65536 to 1e18)", "512 MiB + 64 x the inputs' size",
     "largest memory the run may use"},
    {MLIA_OPT_FILE, MLIA_OPT_PATH, INSPECT, MLIA_OPT_REQUIRED | MLIA_OPT_POSITIONAL | MLIA_OPT_CLI_ONLY, NULL, 0,
     NULL, NULL, NULL, "FILE", NULL, 0, 0, 0, NULL, NULL,
     "an ETDump, ETRecord, PTE, BundledProgram or VGF file"},
    {MLIA_OPT_BASELINE, MLIA_OPT_PATHS, COMPARE, MLIA_OPT_REQUIRED, "--baseline", 0, NULL, "baseline", NULL, "RUN",
     NULL, 0, 0, 0, "(a path or a list of paths)", NULL,
     "one more baseline run, pooled with BASELINE by execution;\nrepeat it (with it, BASELINE may be left out); "
     "a folder\nof runs stands for every run in it"},
    {MLIA_OPT_NEW, MLIA_OPT_PATH, COMPARE, MLIA_OPT_REQUIRED | MLIA_OPT_POSITIONAL, NULL, 0, NULL, "new", NULL,
     "NEW", NULL, 0, 0, 0, NULL, NULL, "the new run"},
    {MLIA_OPT_CMP_OUTPUT_DIR, MLIA_OPT_PATH, COMPARE, 0, "--output-dir", 0, NULL, "output_dir", NULL, "DIR", NULL, 0,
     0, 0, NULL, "NEW/mlia-output",
     "write DIR/compare/compare.json (and compare.html, when\nboth runs have their page); default: the new run's\n"
     "mlia-output folder (NEW/mlia-output/compare/)"},
    {MLIA_OPT_THRESHOLD, MLIA_OPT_NUMBER, COMPARE, MLIA_OPT_NO_EXPONENT, "--threshold", 0, NULL, "threshold", NULL, "PCT", NULL, 0,
     DBL_MAX, 0, "(expected a non-negative number of percent)", "5",
     "smallest change, in percent, that can be a regression or\nan improvement (default: 5)"},
    {MLIA_OPT_ALLOW_DIFFERENT, MLIA_OPT_FLAG, COMPARE, 0, "--allow-different-programs", 0, NULL,
     "allow_different_programs", NULL, NULL, NULL, 0, 0, 0, NULL, NULL,
     "compare runs of different programs by entity id\n(default: an error, see docs/compare.md \"Identity\")"},
    {MLIA_OPT_ALLOW_SETTINGS, MLIA_OPT_FLAG, COMPARE, 0, "--allow-different-settings", 0, NULL,
     "allow_different_settings", NULL, NULL, NULL, 0, 0, 0, NULL, NULL,
     "compare runs analysed with a different clock or NX\nstatistics mode/device (a warning; default: an error)"},
    {MLIA_OPT_CMP_JSON, MLIA_OPT_FLAG, COMPARE, MLIA_OPT_CLI_ONLY, "--json", 0, NULL, NULL, NULL, NULL, NULL, 0, 0, 0,
     NULL, NULL, "print compare.json on standard output instead of tables"},
    {MLIA_OPT_FAIL_ON_REGRESSION, MLIA_OPT_FLAG, COMPARE, 0, "--fail-on-regression", 0, NULL, "fail_on_regression",
     NULL, NULL, NULL, 0, 0, 0, NULL, NULL,
     "exit with status 3 when there is a regression, tested or\nlikely (fewer than 3 samples on a side)"},
    {MLIA_OPT_TESTED_ONLY, MLIA_OPT_FLAG, COMPARE, 0, "--tested-only", 0, NULL, "tested_only", NULL, NULL, NULL, 0,
     0, 0, NULL, NULL,
     "--fail-on-regression counts tested regressions only\n(at least 3 samples on each side); likely ones are listed"},
    {MLIA_OPT_BASELINE_HISTORY, MLIA_OPT_PATH, COMPARE, 0, "--baseline-history", 0, NULL, "baseline_history", NULL,
     "LOCATION", NULL, 0, 0, 0, NULL, NULL,
     "the baseline is the newest runs of NEW's program (same\nmethod and settings) recorded in this history (a "
     "SQLite\nfile or a postgresql:// URI, docs/history.md), pooled;\nNEW itself is left out when it was recorded "
     "there"},
    {MLIA_OPT_CMP_LAST, MLIA_OPT_COUNT, COMPARE, 0, "--last", 0, NULL, "last", NULL, "N", NULL, 1, 1024, 4,
     "(a whole number of runs, 1 to 1024)", "10", "with --baseline-history: how many runs (default: 10)"},
    {MLIA_OPT_CMP_LABEL, MLIA_OPT_TEXTS, COMPARE, MLIA_OPT_KEY_VALUE, "--label", 0, NULL, "labels", NULL,
     "KEY=VALUE", NULL, 0, 0, 0, "(KEY=VALUE texts, or an object {KEY: VALUE})", NULL,
     "with --baseline-history: only runs with this label;\nrepeat it (all must match)"},
    {MLIA_OPT_CMP_MEMORY_LIMIT, MLIA_OPT_COUNT, COMPARE, 0, NULL, 0, NULL, "memory_limit", NULL, "BYTES", NULL,
     65536, 1e18, 19, "(a whole number of bytes, 65536 to 1e18)", "512 MiB + 64 x the inputs' size",
     "largest memory the comparison may use"},
    {MLIA_OPT_HIST_LOCATION, MLIA_OPT_PATH, HISTORY, MLIA_OPT_POSITIONAL, NULL, 0, NULL, "location", NULL,
     "LOCATION", NULL, 0, 0, 0, NULL, "$MLIA_HISTORY, else $XDG_DATA_HOME/mlia/history.sqlite",
     "a SQLite history file or a postgresql:// URI\n(default: $MLIA_HISTORY, else\n"
     "$XDG_DATA_HOME/mlia/history.sqlite)"},
    {MLIA_OPT_HIST_PROGRAM, MLIA_OPT_TEXT, HISTORY, 0, "--program", 0, NULL, "program", NULL, "FINGERPRINT", NULL,
     0, 0, 0, NULL, NULL, "only runs of this program (its fingerprint, or a prefix\nof at least 8 hex digits)"},
    {MLIA_OPT_HIST_MODEL, MLIA_OPT_TEXT, HISTORY, 0, "--model", 0, NULL, "model", NULL, "NAME", NULL, 0, 0, 0, NULL,
     NULL, "only runs of this model (the ETRecord's file name)"},
    {MLIA_OPT_HIST_LABEL, MLIA_OPT_TEXTS, HISTORY, MLIA_OPT_KEY_VALUE, "--label", 0, NULL, "labels", NULL,
     "KEY=VALUE", NULL, 0, 0, 0, "(KEY=VALUE texts, or an object {KEY: VALUE})", NULL,
     "only runs with this label; repeat it (all must match)"},
    {MLIA_OPT_HIST_METRIC, MLIA_OPT_TEXT, HISTORY, 0, "--metric", 0, NULL, "metric", NULL, "NAME", NULL, 0, 0, 0,
     NULL, HISTORY_DEFAULT_METRIC, "the trend's metric or series key (default:\ninference_time)"},
    {MLIA_OPT_HIST_ENTITY, MLIA_OPT_TEXT, HISTORY, 0, "--entity", 0, NULL, "entity", NULL, "ID", NULL, 0, 0, 0,
     NULL, NULL, "the trend of this entity (e.g. an operator's id)\ninstead of the model's"},
    {MLIA_OPT_HIST_LAST, MLIA_OPT_COUNT, HISTORY, 0, "--last", 0, NULL, "last", NULL, "N", NULL, 1, 1000000, 7,
     "(a whole number of runs, 1 to 1000000)", "20", "the newest N runs (default: 20)"},
    {MLIA_OPT_HIST_FORMAT, MLIA_OPT_CHOICE, HISTORY, 0, "--format", 0, NULL, "format", NULL, NULL, "table,csv,json",
     0, 0, 0, NULL, "table", "what is printed (default: table)"},
    {MLIA_OPT_HIST_OUTPUT_DIR, MLIA_OPT_PATH, HISTORY, 0, "--output-dir", 0, NULL, "output_dir", NULL, "DIR", NULL,
     0, 0, 0, NULL, NULL, "also write DIR/history/history.html, the trend chart"},
    {MLIA_OPT_HIST_MEMORY_LIMIT, MLIA_OPT_COUNT, HISTORY, 0, NULL, 0, NULL, "memory_limit", NULL, "BYTES", NULL,
     65536, 1e18, 19, "(a whole number of bytes, 65536 to 1e18)", "512 MiB",
     "largest memory the listing may use"},
    {MLIA_OPT_QUIET, MLIA_OPT_FLAG, GLOBAL | CHECK | INSPECT | COMPARE | HISTORY, MLIA_OPT_CLI_ONLY, "--quiet", 'q', NULL, NULL,
     NULL, NULL, NULL, 0, 0, 0, NULL, NULL, "print nothing on success"},
    {MLIA_OPT_DEBUG, MLIA_OPT_FLAG, GLOBAL | CHECK | INSPECT, MLIA_OPT_CLI_ONLY, "--debug", 'd', NULL, NULL, NULL,
     NULL, NULL, 0, 0, 0, NULL, NULL, "print each stage with its timing on stderr"},
    {MLIA_OPT_HELP, MLIA_OPT_FLAG, GLOBAL | CHECK | INSPECT | COMPARE | HISTORY, MLIA_OPT_CLI_ONLY, "--help", 'h', NULL, NULL,
     NULL, NULL, NULL, 0, 0, 0, NULL, NULL, "show this help and exit"},
    {MLIA_OPT_VERSION, MLIA_OPT_FLAG, GLOBAL | CHECK | INSPECT, MLIA_OPT_CLI_ONLY, "--version", 'v', NULL, NULL,
     NULL, NULL, NULL, 0, 0, 0, NULL, NULL, "show the version and exit"},
};
/* clang-format on */

static int fail(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int fail(char *msg, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
    return 2;
}

static bool valid_in(const mlia_opt *o, mlia_cmd command)
{
    return (o->commands & MLIA_OPT_IN(command)) != 0;
}

/* The list a repeated option keeps its values in (index into store). */
static int list_slot(mlia_opt_id id)
{
    switch (id) {
    case MLIA_OPT_PROFILING: return 0;
    case MLIA_OPT_BACKEND: return 1;
    case MLIA_OPT_BASELINE: return 2;
    case MLIA_OPT_LABEL:
    case MLIA_OPT_CMP_LABEL:
    case MLIA_OPT_HIST_LABEL: return 3; /* one --label row per command */
    default: return -1;
    }
}

void mlia_opt_set_init(mlia_opt_set *set, mlia_cmd command, bool cli)
{
    memset(set, 0, sizeof *set);
    set->command = command;
    set->cli = cli;
    for (int i = 0; i < MLIA_OPT_N; i++) {
        int slot = list_slot((mlia_opt_id)i);
        if (slot >= 0)
            set->v[i].items = set->store[slot];
    }
}

const char *mlia_opt_name(const mlia_opt *o, char *buf, size_t n)
{
    if (o->flag && o->short_flag)
        snprintf(buf, n, "-%c/%s", o->short_flag, o->flag);
    else
        snprintf(buf, n, "%s", o->flag ? o->flag : o->flags & MLIA_OPT_POSITIONAL ? o->metavar : o->key);
    return buf;
}

/* "(choose from 'files', 'open')" */
static void choice_list(const char *choices, char *out, size_t n)
{
    size_t off = (size_t)snprintf(out, n, "(choose from ");
    for (const char *c = choices; *c && off < n;) {
        size_t len = strcspn(c, ",");
        off += (size_t)snprintf(out + off, n - off, "%s'%.*s'", c == choices ? "" : ", ", (int)len, c);
        c += len + (c[len] == ',');
    }
    if (off < n)
        snprintf(out + off, n - off, ")");
}

/* The position of v[0..vl) among the comma-separated choices, or -1. */
static int choice_index(const char *choices, const char *v, size_t vl)
{
    int at = 0;
    for (const char *c = choices; *c; at++) {
        size_t len = strcspn(c, ",");
        if (len == vl && strncmp(c, v, len) == 0)
            return at;
        c += len + (c[len] == ',');
    }
    return -1;
}

static bool is_choice(const char *choices, const char *v)
{
    return choice_index(choices, v, strlen(v)) >= 0;
}

/* A plain decimal number with an optional exponent ("250e6", "2.5", ".5";
 * rows with MLIA_OPT_NO_EXPONENT: none),
 * read in the "C" locale: no sign, no hexadecimal, no inf or nan, no blanks
 * (strtod alone would take them, and a typo would mean something else). */
static bool parse_number(const char *text, bool exponent, double *out)
{
    const char *p = text;
    size_t digits = 0;
    while (*p >= '0' && *p <= '9')
        p++, digits++;
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++)
            digits++;
    if (!digits)
        return false;
    if (exponent && (*p == 'e' || *p == 'E')) {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (!(*p >= '0' && *p <= '9'))
            return false;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    if (*p)
        return false;
    *out = mlia_strtod(text, NULL);
    return isfinite(*out);
}

static mlia_opt_value *value_of(mlia_opt_set *set, mlia_opt_id id)
{
    return &set->v[id];
}

static void add_item(mlia_opt_value *v, const char *text)
{
    if (v->items && v->n_items < MLIA_OPT_MAX_ITEMS)
        v->items[v->n_items++] = text;
}

int mlia_opt_set_text(mlia_opt_set *set, mlia_opt_id id, const char *text, char *msg, size_t n)
{
    const mlia_opt *o = &MLIA_OPTS[id];
    mlia_opt_value *v = value_of(set, id);
    char name[96];
    mlia_opt_name(o, name, sizeof name);
    if (!*text && !(o->flags & MLIA_OPT_POSITIONAL))
        return fail(msg, n, "argument %s: expected a non-empty value", name);
    if ((o->flags & MLIA_OPT_KEY_VALUE) && !history_label_valid(text))
        return fail(msg, n, "argument %s: invalid value: '%s' (expected " HISTORY_LABEL_RULE ")", name, text);
    switch (o->type) {
    case MLIA_OPT_CHOICES: {
        unsigned bits = 0;
        for (const char *c = text;;) {
            size_t len = strcspn(c, ",");
            int at = choice_index(o->choices, c, len);
            if (at < 0) {
                char list[160];
                choice_list(o->choices, list, sizeof list);
                return fail(msg, n, "argument %s: invalid choice: '%.*s' %s", name, (int)len, c, list);
            }
            bits |= 1u << at;
            if (!c[len])
                break;
            c += len + 1;
        }
        v->number = (double)((unsigned)v->number | bits);
        break;
    }
    case MLIA_OPT_CHOICE:
        if (!is_choice(o->choices, text)) {
            char list[160];
            choice_list(o->choices, list, sizeof list);
            return fail(msg, n, "argument %s: invalid choice: '%s' %s", name, text, list);
        }
        break;
    case MLIA_OPT_NUMBER: {
        double d = 0;
        if (!parse_number(text, !(o->flags & MLIA_OPT_NO_EXPONENT), &d) || !(d >= o->min && d <= o->max))
            return fail(msg, n, "argument %s: invalid value: '%s' %s", name, text, o->domain);
        v->number = d;
        break;
    }
    case MLIA_OPT_COUNT: {
        size_t len = strspn(text, "0123456789");
        double d = len && !text[len] && len <= o->max_digits ? mlia_strtod(text, NULL) : -1;
        if (!(d >= o->min && d <= o->max))
            return fail(msg, n, "argument %s: invalid value: '%s' %s", name, text, o->domain);
        v->number = d;
        break;
    }
    case MLIA_OPT_FLAG:
        v->on = true;
        break;
    default:
        break;
    }
    if (v->count < UINT32_MAX)
        v->count++;
    v->text = text;
    if (o->type == MLIA_OPT_PATHS || o->type == MLIA_OPT_TEXTS)
        add_item(v, text);
    return 0;
}

void mlia_opt_set_flag(mlia_opt_set *set, mlia_opt_id id, bool on)
{
    mlia_opt_value *v = value_of(set, id);
    if (MLIA_OPTS[id].type != MLIA_OPT_FLAG) {
        /* an optional value left out (true), or not given (false) */
        if (!on)
            return;
        v->text = NULL;
    }
    if (v->count < UINT32_MAX)
        v->count++;
    v->on = on;
}

/* The shortest "%g" text that reads back as d ("0.5", "nan", "-1"). */
static void number_text(double d, char *out, size_t n)
{
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(out, n, "%.*g", prec, d);
        if (!isfinite(d) || mlia_strtod(out, NULL) == d)
            return;
    }
}

int mlia_opt_set_number(mlia_opt_set *set, mlia_opt_id id, double value, const char *given, char *msg, size_t n)
{
    const mlia_opt *o = &MLIA_OPTS[id];
    char text[64], name[96];
    if (given)
        snprintf(text, sizeof text, "%s", given);
    else
        number_text(value, text, sizeof text);
    bool whole = o->type != MLIA_OPT_COUNT || value == floor(value);
    if (!isfinite(value) || !whole || !(value >= o->min && value <= o->max))
        return fail(msg, n, "argument %s: invalid value: '%s' %s", mlia_opt_name(o, name, sizeof name), text,
                    o->domain);
    mlia_opt_value *v = value_of(set, id);
    if (v->count < UINT32_MAX)
        v->count++;
    v->number = value;
    return 0;
}

void mlia_opt_set_unknown(mlia_opt_set *set, const char *given, const char *near)
{
    if (set->n_unknown < MLIA_OPT_MAX_UNKNOWN) {
        set->unknown[set->n_unknown] = given;
        set->suggest[set->n_unknown] = near;
    }
    if (set->n_unknown < UINT32_MAX)
        set->n_unknown++;
}

const mlia_opt *mlia_opt_by_flag(const char *name, size_t len, mlia_cmd command)
{
    for (int i = 0; i < MLIA_OPT_N; i++) {
        const mlia_opt *o = &MLIA_OPTS[i];
        if (!valid_in(o, command))
            continue;
        if ((o->flag && strlen(o->flag) == len && strncmp(o->flag, name, len) == 0) ||
            (o->alias && strlen(o->alias) == len && strncmp(o->alias, name, len) == 0))
            return o;
    }
    return NULL;
}

const mlia_opt *mlia_opt_by_short(char c, mlia_cmd command)
{
    for (int i = 0; i < MLIA_OPT_N; i++)
        if (MLIA_OPTS[i].short_flag == c && valid_in(&MLIA_OPTS[i], command))
            return &MLIA_OPTS[i];
    return NULL;
}

/* Levenshtein distance, capped at 64 characters per side (longer names are
 * never near). */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    if (la > 64 || lb > 64)
        return 64;
    size_t row[65];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

/* The candidate nearest to given[0..len) (at most 2 edits, or a third of the
 * name), else the only one it abbreviates (5 characters at least); NULL. */
const char *mlia_opt_nearest(const char *given, size_t len, const char *const *cands, size_t n_cands)
{
    size_t limit = len / 3 > 2 ? len / 3 : 2, best = limit + 1;
    const char *out = NULL, *prefix_of = NULL;
    int n_prefix = 0;
    for (size_t i = 0; i < n_cands; i++) {
        size_t cl = strlen(cands[i]);
        size_t d = edit_distance(given, len, cands[i], cl);
        if (d > 0 && d < best) {
            best = d;
            out = cands[i];
        }
        if (len >= 5 && cl > len && strncmp(cands[i], given, len) == 0) {
            prefix_of = cands[i];
            n_prefix++;
        }
    }
    return out ? out : n_prefix == 1 ? prefix_of : NULL;
}

const char *mlia_opt_suggest_flag(const char *given, mlia_cmd command)
{
    if (given[0] != '-' || given[1] != '-')
        return NULL;
    const char *cands[2 * MLIA_OPT_N];
    size_t k = 0;
    for (int i = 0; i < MLIA_OPT_N; i++) {
        const mlia_opt *o = &MLIA_OPTS[i];
        if (!valid_in(o, command) || !o->flag)
            continue;
        cands[k++] = o->flag;
        if (o->alias)
            cands[k++] = o->alias;
    }
    const char *eq = strchr(given, '=');
    return mlia_opt_nearest(given, eq ? (size_t)(eq - given) : strlen(given), cands, k);
}

int mlia_opt_unknown_error(const mlia_opt_set *set, char *msg, size_t n)
{
    if (!set->n_unknown)
        return 0;
    size_t off = (size_t)snprintf(msg, n, "unrecognized arguments:");
    for (uint32_t i = 0; i < set->n_unknown && i < MLIA_OPT_MAX_UNKNOWN && off < n; i++) {
        if (set->suggest[i])
            off += (size_t)snprintf(msg + off, n - off, " %s (did you mean %s?)", set->unknown[i], set->suggest[i]);
        else
            off += (size_t)snprintf(msg + off, n - off, " %s", set->unknown[i]);
    }
    return 2;
}

/* ---- JSON requests ---- */

#define BACKEND_OPTIONS "backend_options"

/* A value that is not a string, as compact JSON for a message. */
static const char *json_text(const mlia_json *v, mlia_arena *arena)
{
    if (v->type == MLIA_JSON_STRING)
        return v->u.string.s;
    if (v->type == MLIA_JSON_NUMBER)
        return v->u.number.text;
    size_t len;
    char *t = mlia_json_dump(v, arena, &len);
    if (len > 200)
        t[200] = 0;
    return t;
}

static int json_value(mlia_opt_set *set, const mlia_opt *o, const mlia_json *v, mlia_arena *arena, char *msg,
                      size_t n)
{
    char name[96];
    mlia_opt_name(o, name, sizeof name);
    if (v->type == MLIA_JSON_NULL)
        return 0; /* as if not given (Python's None) */
    mlia_opt_value *val = value_of(set, o->id);
    switch (o->type) {
    case MLIA_OPT_FLAG:
        if (v->type == MLIA_JSON_BOOL) {
            mlia_opt_set_flag(set, o->id, v->u.boolean);
            return 0;
        }
        if (o->id == MLIA_OPT_CSV && (v->type == MLIA_JSON_STRING || v->type == MLIA_JSON_ARRAY)) {
            /* "csv": "all" or ["operators", "executions"] is --csv --csv-tables <it> */
            mlia_opt_set_flag(set, o->id, true);
            return json_value(set, &MLIA_OPTS[MLIA_OPT_CSV_TABLES], v, arena, msg, n);
        }
        if (o->id == MLIA_OPT_TRACE && v->type == MLIA_JSON_STRING) {
            /* "trace": "perfetto" | "json" is --trace --trace-format <it> */
            mlia_opt_set_flag(set, o->id, true);
            return mlia_opt_set_text(set, MLIA_OPT_TRACE_FORMAT, v->u.string.s, msg, n);
        }
        return fail(msg, n, "argument %s: invalid value: '%s' %s", name, json_text(v, arena),
                    o->domain ? o->domain : "(true or false)");
    case MLIA_OPT_PATHS:
    case MLIA_OPT_TEXTS:
        /* a later member of the same key replaces the list (the last one wins) */
        val->n_items = 0;
        val->count = 0;
        if ((o->flags & MLIA_OPT_KEY_VALUE) && v->type == MLIA_JSON_OBJECT) {
            /* {"commit": "abc", "device": "board-3"}: one KEY=VALUE each */
            for (size_t i = 0; i < v->u.object.n; i++) {
                const mlia_json_member *m = &v->u.object.members[i];
                if (m->value->type != MLIA_JSON_STRING)
                    return fail(msg, n, "argument %s: invalid value: '%s' (a label's value is a string)", name,
                                json_text(m->value, arena));
                if (mlia_opt_set_text(set, o->id, mlia_arena_printf(arena, "%s=%s", m->key, m->value->u.string.s),
                                      msg, n))
                    return 2;
            }
            return 0;
        }
        if (v->type == MLIA_JSON_STRING)
            return mlia_opt_set_text(set, o->id, v->u.string.s, msg, n);
        if (v->type == MLIA_JSON_ARRAY) {
            for (size_t i = 0; i < v->u.array.n; i++) {
                const mlia_json *it = v->u.array.items[i];
                if (it->type != MLIA_JSON_STRING)
                    return fail(msg, n, "argument %s: invalid value: '%s' (a path or a list of paths)", name,
                                json_text(it, arena));
                if (mlia_opt_set_text(set, o->id, it->u.string.s, msg, n))
                    return 2;
            }
            return 0;
        }
        return fail(msg, n, "argument %s: invalid value: '%s' (a path or a list of paths)", name,
                    json_text(v, arena));
    case MLIA_OPT_CHOICES:
        /* "a,b" or ["a", "b"]: the union */
        if (v->type == MLIA_JSON_ARRAY) {
            if (!v->u.array.n)
                return fail(msg, n, "argument %s: expected a non-empty value", name);
            for (size_t i = 0; i < v->u.array.n; i++) {
                const mlia_json *it = v->u.array.items[i];
                if (it->type != MLIA_JSON_STRING)
                    return fail(msg, n, "argument %s: invalid value: '%s' (a name or a list of names)", name,
                                json_text(it, arena));
                if (mlia_opt_set_text(set, o->id, it->u.string.s, msg, n))
                    return 2;
            }
            return 0;
        }
        if (v->type != MLIA_JSON_STRING)
            return fail(msg, n, "argument %s: invalid value: '%s' (a name or a list of names)", name,
                        json_text(v, arena));
        return mlia_opt_set_text(set, o->id, v->u.string.s, msg, n);
    case MLIA_OPT_NUMBER:
    case MLIA_OPT_COUNT:
        /* a JSON number by its value (quoted by its source text); a
         * string as on the command line */
        if (v->type == MLIA_JSON_NUMBER)
            return mlia_opt_set_number(set, o->id, v->u.number.d, v->u.number.text, msg, n);
        if (v->type == MLIA_JSON_STRING || v->type == MLIA_JSON_BOOL)
            return mlia_opt_set_text(set, o->id, json_text(v, arena), msg, n);
        return fail(msg, n, "argument %s: invalid value: '%s' %s", name, json_text(v, arena), o->domain);
    default:
        if ((o->flags & MLIA_OPT_OPTIONAL_VALUE) && v->type == MLIA_JSON_BOOL) {
            mlia_opt_set_flag(set, o->id, v->u.boolean); /* true: given alone; false: not given */
            return 0;
        }
        if (v->type != MLIA_JSON_STRING)
            return fail(msg, n, "argument %s: invalid value: '%s' %s", name, json_text(v, arena),
                        o->domain ? o->domain : "(a string)");
        return mlia_opt_set_text(set, o->id, v->u.string.s, msg, n);
    }
}

/* The row of JSON member `key` for set's command (backend: inside
 * backend_options[backend]), or NULL. */
static const mlia_opt *by_key(const char *key, mlia_cmd command, const char *backend)
{
    for (int i = 0; i < MLIA_OPT_N; i++) {
        const mlia_opt *o = &MLIA_OPTS[i];
        if (!valid_in(o, command) || !o->key || (o->flags & MLIA_OPT_CLI_ONLY))
            continue;
        if (backend ? o->backend && strcmp(o->backend, backend) == 0 && strcmp(o->key, key) == 0
                    : strcmp(o->key, key) == 0)
            return o;
    }
    return NULL;
}

static size_t keys_of(mlia_cmd command, const char *backend, const char **out)
{
    size_t k = 0;
    for (int i = 0; i < MLIA_OPT_N; i++) {
        const mlia_opt *o = &MLIA_OPTS[i];
        if (!valid_in(o, command) || !o->key || (o->flags & MLIA_OPT_CLI_ONLY))
            continue;
        if (!backend || (o->backend && strcmp(o->backend, backend) == 0))
            out[k++] = o->key;
    }
    return k;
}

static bool has_backend_options(mlia_cmd command)
{
    for (int i = 0; i < MLIA_OPT_N; i++)
        if (MLIA_OPTS[i].backend && valid_in(&MLIA_OPTS[i], command))
            return true;
    return false;
}

static int json_backend_options(mlia_opt_set *set, const mlia_json *v, mlia_arena *arena, char *msg, size_t n)
{
    if (v->type == MLIA_JSON_NULL)
        return 0;
    if (v->type != MLIA_JSON_OBJECT)
        return fail(msg, n, "argument " BACKEND_OPTIONS ": invalid value: '%s' (an object: {\"" NTPD "\": {...}})",
                    json_text(v, arena));
    static const char *const backends[] = {NTPD};
    for (size_t i = 0; i < v->u.object.n; i++) {
        const mlia_json_member *m = &v->u.object.members[i];
        if (strcmp(m->key, NTPD) != 0) {
            /* a backend option given one level too high reads as its full path */
            const char *near = NULL;
            if (by_key(m->key, set->command, NTPD))
                near = mlia_arena_printf(arena, BACKEND_OPTIONS ".%s.%s", NTPD, m->key);
            else if ((near = mlia_opt_nearest(m->key, m->key_len, backends, 1)) != NULL)
                near = mlia_arena_printf(arena, BACKEND_OPTIONS ".%s", near);
            mlia_opt_set_unknown(set, mlia_arena_printf(arena, BACKEND_OPTIONS ".%s", m->key), near);
            continue;
        }
        if (m->value->type == MLIA_JSON_NULL)
            continue;
        if (m->value->type != MLIA_JSON_OBJECT)
            return fail(msg, n, "argument " BACKEND_OPTIONS ".%s: invalid value: '%s' (an object of backend options)",
                        NTPD, json_text(m->value, arena));
        const mlia_json *opts = m->value;
        for (size_t k = 0; k < opts->u.object.n; k++) {
            const mlia_json_member *om = &opts->u.object.members[k];
            const mlia_opt *o = by_key(om->key, set->command, NTPD);
            if (!o) {
                const char *cands[MLIA_OPT_N];
                size_t nc = keys_of(set->command, NTPD, cands);
                const char *near = mlia_opt_nearest(om->key, om->key_len, cands, nc);
                mlia_opt_set_unknown(set, mlia_arena_printf(arena, BACKEND_OPTIONS ".%s.%s", NTPD, om->key),
                                     near ? mlia_arena_printf(arena, BACKEND_OPTIONS ".%s.%s", NTPD, near) : NULL);
                continue;
            }
            if (json_value(set, o, om->value, arena, msg, n))
                return 2;
        }
    }
    return 0;
}

int mlia_opt_set_from_json(mlia_opt_set *set, const mlia_json *req, mlia_arena *arena, char *msg, size_t n)
{
    for (size_t i = 0; i < req->u.object.n; i++) {
        const mlia_json_member *m = &req->u.object.members[i];
        if (has_backend_options(set->command) && strcmp(m->key, BACKEND_OPTIONS) == 0) {
            if (json_backend_options(set, m->value, arena, msg, n))
                return 2;
            continue;
        }
        const mlia_opt *o = by_key(m->key, set->command, NULL);
        if (!o) {
            const char *cands[MLIA_OPT_N + 1];
            size_t nc = keys_of(set->command, NULL, cands);
            if (has_backend_options(set->command))
                cands[nc++] = BACKEND_OPTIONS;
            mlia_opt_set_unknown(set, m->key, mlia_opt_nearest(m->key, m->key_len, cands, nc));
            continue;
        }
        if (json_value(set, o, m->value, arena, msg, n))
            return 2;
    }
    return 0;
}

/* ---- the table as JSON ---- */

static const char *type_name(mlia_opt_type t)
{
    static const char *const names[] = {"flag", "text", "path", "paths", "texts", "choice", "number", "count",
                                        "choices"};
    return names[t];
}

char *mlia_opt_table_json(mlia_arena *arena, size_t *len)
{
    static const char *const commands[] = {"", "check", "inspect", "compare", "history"};
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, true);
    mlia_jw_arr_begin(&w);
    for (int i = 0; i < MLIA_OPT_N; i++) {
        const mlia_opt *o = &MLIA_OPTS[i];
        bool numeric = o->type == MLIA_OPT_NUMBER || o->type == MLIA_OPT_COUNT;
        mlia_jw_obj_begin(&w);
        mlia_jw_karr_begin(&w, "commands");
        for (int c = MLIA_CMD_CHECK; c < MLIA_CMD_N; c++)
            if (valid_in(o, (mlia_cmd)c))
                mlia_jw_str(&w, commands[c]);
        mlia_jw_arr_end(&w);
        char s[3] = {'-', o->short_flag, 0};
        mlia_jw_kstr(&w, "flag", o->flag);
        mlia_jw_kstr(&w, "short", o->short_flag ? s : NULL);
        mlia_jw_kstr(&w, "alias", o->alias);
        mlia_jw_kstr(&w, "key", o->flags & MLIA_OPT_CLI_ONLY ? NULL : o->key);
        mlia_jw_kstr(&w, "backend", o->backend);
        mlia_jw_kstr(&w, "type", type_name(o->type));
        mlia_jw_kbool(&w, "positional", (o->flags & MLIA_OPT_POSITIONAL) != 0);
        mlia_jw_kbool(&w, "optional_value", (o->flags & MLIA_OPT_OPTIONAL_VALUE) != 0);
        mlia_jw_kstr(&w, "required",
                     o->flags & MLIA_OPT_REQUIRED ? "always" : o->flags & MLIA_OPT_CLI_REQUIRED ? "cli" : "no");
        mlia_jw_kstr(&w, "metavar", o->metavar);
        if (o->choices) {
            mlia_jw_karr_begin(&w, "choices");
            for (const char *c = o->choices; *c;) {
                size_t l = strcspn(c, ",");
                mlia_jw_strn(&w, c, l);
                c += l + (c[l] == ',');
            }
            mlia_jw_arr_end(&w);
        } else {
            mlia_jw_knull(&w, "choices");
        }
        if (numeric)
            mlia_jw_kdouble(&w, "min", o->min);
        else
            mlia_jw_knull(&w, "min");
        if (numeric && o->max < DBL_MAX)
            mlia_jw_kdouble(&w, "max", o->max);
        else
            mlia_jw_knull(&w, "max");
        mlia_jw_kstr(&w, "default", o->deflt);
        mlia_jw_kstr(&w, "help", o->help);
        mlia_jw_obj_end(&w);
    }
    mlia_jw_arr_end(&w);
    mlia_jw_finish(&w);
    *len = b.len;
    char *out = mlia_arena_alloc(arena, b.len + 1);
    memcpy(out, b.data, b.len);
    out[b.len] = 0;
    mlia_buf_free(&b);
    return out;
}

/* ---- the rules ---- */

static bool has_suffix_ci(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a > b && strcasecmp(s + a - b, suffix) == 0; /* a name before the suffix */
}

/* A file whose bytes are no known kind: its reader explains (exit 1). */
static bool by_content(const char *kind)
{
    return kind && strcmp(kind, "unknown") == 0;
}

/* Backend names compare ignoring case and '-'. */
static bool is_profiling_backend(const char *name)
{
    const char *want = NTPD;
    for (;;) {
        while (*name == '-')
            name++;
        while (*want == '-')
            want++;
        if (!*name || !*want)
            return !*name && !*want;
        char a = *name >= 'A' && *name <= 'Z' ? (char)(*name - 'A' + 'a') : *name;
        if (a != *want)
            return false;
        name++, want++;
    }
}

static int required_error(const mlia_opt_set *set, const mlia_opt_id *ids, size_t n_ids, char *msg, size_t n)
{
    const char *missing[8];
    char names[8][96];
    size_t n_missing = 0;
    for (size_t i = 0; i < n_ids && n_missing < 8; i++) {
        const mlia_opt *o = &MLIA_OPTS[ids[i]];
        bool required = (o->flags & MLIA_OPT_REQUIRED) || (set->cli && (o->flags & MLIA_OPT_CLI_REQUIRED));
        if (required && !set->v[ids[i]].count) {
            missing[n_missing] = mlia_opt_name(o, names[n_missing], sizeof names[n_missing]);
            n_missing++;
        }
    }
    if (!n_missing)
        return 0;
    size_t off = (size_t)snprintf(msg, n, "the following arguments are required: ");
    for (size_t i = 0; i < n_missing && off < n; i++)
        off += (size_t)snprintf(msg + off, n - off, "%s%s", i ? ", " : "", missing[i]);
    return 2;
}

static const char *text_or(const mlia_opt_set *set, mlia_opt_id id, const char *deflt)
{
    return set->v[id].count && set->v[id].text ? set->v[id].text : deflt;
}

static bool flag_on(const mlia_opt_set *set, mlia_opt_id id)
{
    return set->v[id].count && set->v[id].on;
}

/* "X requires Y.": one row per rule, in the order they are checked
 * (docs/cli.md, rules 16-21); `single` rules allow only one value of Y. */
typedef struct opt_rule {
    mlia_opt_id option, other;
    enum { RULE_REQUIRES, RULE_SINGLE } kind;
    const char *why; /* " (...)" said after the rule, or "" */
} opt_rule;

static const opt_rule CHECK_RULES[] = {
    {MLIA_OPT_REF_PROFILING, MLIA_OPT_REF_DEBUG_BUFFER, RULE_REQUIRES, ""},
    {MLIA_OPT_REF_DEBUG_BUFFER, MLIA_OPT_REF_PROFILING, RULE_REQUIRES, ""},
    {MLIA_OPT_DEBUG_BUFFER, MLIA_OPT_PROFILING, RULE_SINGLE, ""},
    {MLIA_OPT_REF_PROFILING, MLIA_OPT_DEBUG_BUFFER, RULE_REQUIRES,
     " (the run's intermediate outputs it is compared with)"},
    {MLIA_OPT_TRACE_FORMAT, MLIA_OPT_TRACE, RULE_REQUIRES, ""},
    {MLIA_OPT_LABEL, MLIA_OPT_HISTORY, RULE_REQUIRES, " (or MLIA_HISTORY): labels belong to a recorded run"},
};

static const opt_rule COMPARE_RULES[] = {
    {MLIA_OPT_CMP_LAST, MLIA_OPT_BASELINE_HISTORY, RULE_REQUIRES, ""},
    {MLIA_OPT_CMP_LABEL, MLIA_OPT_BASELINE_HISTORY, RULE_REQUIRES, ""},
};

static bool given(const mlia_opt_set *set, mlia_opt_id id)
{
    return MLIA_OPTS[id].type == MLIA_OPT_FLAG ? flag_on(set, id) : set->v[id].count > 0;
}

/* At most HISTORY_MAX_LABELS labels (docs/history.md). */
static int labels_error(const mlia_opt_set *set, mlia_opt_id id, char *msg, size_t n)
{
    uint32_t count = set->v[id].count;
    if (count > HISTORY_MAX_LABELS)
        return fail(msg, n, "At most %u --label values are supported; got %u.", HISTORY_MAX_LABELS, count);
    return 0;
}

static int apply_rules(const mlia_opt_set *set, const opt_rule *rules, size_t n_rules, char *msg, size_t n)
{
    for (size_t i = 0; i < n_rules; i++) {
        const opt_rule *r = &rules[i];
        if (!given(set, r->option))
            continue;
        const char *a = MLIA_OPTS[r->option].flag, *b = MLIA_OPTS[r->other].flag;
        if (r->kind == RULE_REQUIRES && !given(set, r->other))
            return fail(msg, n, "%s requires %s%s.", a, b, r->why);
        if (r->kind == RULE_SINGLE && set->v[r->other].count > 1)
            return fail(msg, n, "%s belongs to one ETDump: give exactly one %s with it (got %u).", a, b,
                        set->v[r->other].count);
    }
    return 0;
}

/* The CSV tables asked for: --csv-tables' choices (operators, chains,
 * executions, memory, modules, all) as MLIA_RUN_CSV_* bits; --csv alone:
 * all but executions; neither: 0. */
static unsigned csv_tables(const mlia_opt_set *set)
{
    static const unsigned table[] = {MLIA_RUN_CSV_OPERATORS, MLIA_RUN_CSV_CHAINS, MLIA_RUN_CSV_EXECUTIONS,
                                     MLIA_RUN_CSV_MEMORY, MLIA_RUN_CSV_MODULES, MLIA_RUN_CSV_ALL};
    unsigned chosen = set->v[MLIA_OPT_CSV_TABLES].count ? (unsigned)set->v[MLIA_OPT_CSV_TABLES].number : 0, out = 0;
    for (unsigned i = 0; i < sizeof table / sizeof *table; i++)
        if (chosen & (1u << i))
            out |= table[i];
    if (out)
        return out;
    return flag_on(set, MLIA_OPT_CSV)
               ? MLIA_RUN_CSV_OPERATORS | MLIA_RUN_CSV_CHAINS | MLIA_RUN_CSV_MEMORY | MLIA_RUN_CSV_MODULES
               : 0;
}

int mlia_check_resolve(const mlia_opt_set *set, mlia_check_config *cfg, char *msg, size_t n)
{
    msg[0] = 0;
    memset(cfg, 0, sizeof *cfg);
    /* 4. unknown options and extra positionals: usually a typo of one of the
     *    options below, so they come first; an ETDump given as a positional
     *    without --profiling-data says so (issue 29, 6) */
    for (uint32_t i = 0; !set->v[MLIA_OPT_PROFILING].count && i < set->n_unknown && i < MLIA_OPT_MAX_UNKNOWN; i++) {
        const char *u = set->unknown[i];
        const char *kind = u[0] != '-' ? mlia_input_kind(u) : NULL;
        if (kind && strcmp(kind, "etdump") == 0)
            return fail(msg, n, "%s is an ETDump given without --profiling-data: give it as --profiling-data %s.", u,
                        u);
    }
    if (mlia_opt_unknown_error(set, msg, n))
        return 2;
    /* 5. required arguments, all named at once */
    static const mlia_opt_id required[] = {MLIA_OPT_MODEL, MLIA_OPT_TARGET, MLIA_OPT_PROFILING};
    if (required_error(set, required, sizeof required / sizeof *required, msg, n))
        return 2;
    /* 6. target profile */
    const char *target = text_or(set, MLIA_OPT_TARGET, "neural-technology");
    if (strcmp(target, "neural-technology") != 0)
        return fail(msg, n, "Target profile '%s' is not supported; supported: neural-technology.", target);
    /* 7-8. advice category: --performance / --compatibility, or the API's advice_category */
    const char *category = text_or(set, MLIA_OPT_CATEGORY, set->cli ? NULL : "performance");
    if (flag_on(set, MLIA_OPT_COMPATIBILITY) || (category && strcmp(category, "compatibility") == 0))
        return fail(msg, n,
                    "Backend does not support --compatibility with --profiling-data. Use --performance instead.");
    if (!flag_on(set, MLIA_OPT_PERFORMANCE) && !(category && strcmp(category, "performance") == 0))
        return fail(msg, n, "Neural Technology profiling data currently supports performance analysis only.");
    /* 9. ETDumps: several are pooled (docs/captures.md), each once */
    const mlia_opt_value *pd = &set->v[MLIA_OPT_PROFILING];
    if (pd->count > MLIA_OPT_MAX_ITEMS)
        return fail(msg, n, "At most %u ETDumps are supported by --profiling-data; got %u.", MLIA_OPT_MAX_ITEMS,
                    pd->count);
    for (uint32_t i = 1; i < pd->n_items; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(pd->items[i], pd->items[j]) == 0)
                return fail(msg, n, "--profiling-data: %s is given more than once.", pd->items[i]);
    /* 10-11. backend selection */
    const mlia_opt_value *be = &set->v[MLIA_OPT_BACKEND];
    if (be->count > 1)
        return fail(msg, n, "--profiling-data requires exactly one --backend value.");
    if (be->count == 1 && !is_profiling_backend(be->items[0]))
        return fail(msg, n, "Backend '%s' does not support profiling data.", be->items[0]);
    /* 12. file kinds by content: a file in another's place says where it
     *     goes, whatever it is called (pipeline/inputs.h) */
    const char *model = set->v[MLIA_OPT_MODEL].text;
    const char *companion = text_or(set, MLIA_OPT_COMPANION, NULL);
    const char *model_kind = mlia_input_kind(model);
    const char *companion_kind = companion ? mlia_input_kind(companion) : NULL;
    const char *kinds[MLIA_OPT_MAX_ITEMS];
    for (uint32_t i = 0; i < pd->n_items; i++) {
        kinds[i] = mlia_input_kind(pd->items[i]);
        if (mlia_input_kind_error(model, model_kind, pd->items[i], kinds[i], companion, companion_kind, msg, n))
            return 2;
    }
    /*     a debug buffer is raw tensor bytes: an ETDump, ETRecord or PTE in
     *     its place says where that file goes */
    const char *dbuf = text_or(set, MLIA_OPT_DEBUG_BUFFER, NULL), *ref_dbuf = text_or(set, MLIA_OPT_REF_DEBUG_BUFFER, NULL);
    if (mlia_input_debug_buffer_error("--debug-buffer", dbuf, dbuf ? mlia_input_kind(dbuf) : NULL, msg, n) ||
        mlia_input_debug_buffer_error("--reference-debug-buffer", ref_dbuf, ref_dbuf ? mlia_input_kind(ref_dbuf) : NULL,
                                      msg, n))
        return 2;
    /* 13-15. file kinds by suffix, for files whose content is the expected
     *        kind or was not looked at; bytes of no known kind are the
     *        readers' to explain (exit 1), so a name never changes the
     *        exit status */
    if (!by_content(model_kind) && !has_suffix_ci(model, ".etrecord") && !has_suffix_ci(model, ".bin"))
        return fail(msg, n, "%s: unsupported model file; expected an ETRecord (.etrecord or .bin).", model);
    for (uint32_t i = 0; i < pd->n_items; i++)
        if (!by_content(kinds[i]) && !has_suffix_ci(pd->items[i], ".etdump") && !has_suffix_ci(pd->items[i], ".etdp"))
            return fail(msg, n, "%s: unsupported profiling data file; expected an ETDump (.etdump or .etdp).",
                        pd->items[i]);
    if (companion && !by_content(companion_kind) && !has_suffix_ci(companion, ".pte"))
        return fail(msg, n, "%s: unsupported companion model file; expected a PTE (.pte).", companion);
    /* 16-20. what an option requires */
    if (apply_rules(set, CHECK_RULES, sizeof CHECK_RULES / sizeof *CHECK_RULES, msg, n))
        return 2;
    if (labels_error(set, MLIA_OPT_LABEL, msg, n))
        return 2;
    /* 21. reference ETDump suffix */
    const char *ref = text_or(set, MLIA_OPT_REF_PROFILING, NULL);
    if (ref && !has_suffix_ci(ref, ".etdump") && !has_suffix_ci(ref, ".etdp"))
        return fail(msg, n,
                    "%s: unsupported reference profiling data file; expected an ETDump (.etdump or .etdp).", ref);

    cfg->etrecord_path = model;
    cfg->etdump_paths = pd->items;
    cfg->n_etdump_paths = (int)pd->n_items;
    cfg->companion_path = companion;
    cfg->output_dir = text_or(set, MLIA_OPT_OUTPUT_DIR, NULL);
    cfg->model_explorer = text_or(set, MLIA_OPT_MODEL_EXPLORER, NULL);
    cfg->method = text_or(set, MLIA_OPT_METHOD, NULL);
    cfg->debug_buffer_path = text_or(set, MLIA_OPT_DEBUG_BUFFER, NULL);
    cfg->reference_etdump_path = ref;
    cfg->reference_debug_buffer_path = text_or(set, MLIA_OPT_REF_DEBUG_BUFFER, NULL);
    cfg->ticks_per_second = set->v[MLIA_OPT_TICKS].count ? set->v[MLIA_OPT_TICKS].number : 0;
    cfg->warmup_executions = set->v[MLIA_OPT_WARMUP].count ? (unsigned)set->v[MLIA_OPT_WARMUP].number : 0;
    cfg->trace = flag_on(set, MLIA_OPT_TRACE) ? text_or(set, MLIA_OPT_TRACE_FORMAT, "perfetto") : NULL;
    cfg->csv = csv_tables(set);
    if (set->v[MLIA_OPT_HISTORY].count)
        cfg->history = text_or(set, MLIA_OPT_HISTORY, "");
    cfg->history_labels = set->v[MLIA_OPT_LABEL].items;
    cfg->n_history_labels = (int)set->v[MLIA_OPT_LABEL].n_items;
    cfg->memory_limit = set->v[MLIA_OPT_MEMORY_LIMIT].count ? (size_t)set->v[MLIA_OPT_MEMORY_LIMIT].number : 0;
    return 0;
}

int mlia_compare_resolve(const mlia_opt_set *set, mlia_compare_config *cfg, char *msg, size_t n)
{
    msg[0] = 0;
    memset(cfg, 0, sizeof *cfg);
    if (mlia_opt_unknown_error(set, msg, n))
        return 2;
    /* required: BASELINE (or --baseline) and NEW, named as the command line's positionals; with
     * --baseline-history, NEW only */
    bool has_base = set->v[MLIA_OPT_BASELINE].count > 0, has_new = set->v[MLIA_OPT_NEW].count > 0;
    if (set->v[MLIA_OPT_BASELINE_HISTORY].count) {
        if (has_base)
            return fail(msg, n, "--baseline-history takes the baseline from the history: give NEW only (no "
                                "BASELINE, no --baseline)");
        has_base = true;
    }
    if (!has_base || !has_new)
        return fail(msg, n, "the following arguments are required: %s%s%s", has_base ? "" : "BASELINE",
                    !has_base && !has_new ? ", " : "", has_new ? "" : "NEW");
    const mlia_opt_value *b = &set->v[MLIA_OPT_BASELINE];
    if (b->count > MLIA_OPT_MAX_ITEMS)
        return fail(msg, n, "At most %u baselines are supported by --baseline; got %u.", MLIA_OPT_MAX_ITEMS,
                    b->count);
    if (apply_rules(set, COMPARE_RULES, sizeof COMPARE_RULES / sizeof *COMPARE_RULES, msg, n) ||
        labels_error(set, MLIA_OPT_CMP_LABEL, msg, n))
        return 2;
    cfg->baselines = b->items;
    cfg->n_baselines = (int)b->n_items;
    cfg->baseline_history = text_or(set, MLIA_OPT_BASELINE_HISTORY, NULL);
    cfg->history_last = set->v[MLIA_OPT_CMP_LAST].count ? (unsigned)set->v[MLIA_OPT_CMP_LAST].number : 0;
    cfg->history_labels = set->v[MLIA_OPT_CMP_LABEL].items;
    cfg->n_history_labels = (int)set->v[MLIA_OPT_CMP_LABEL].n_items;
    cfg->new_run = set->v[MLIA_OPT_NEW].text;
    cfg->output_dir = text_or(set, MLIA_OPT_CMP_OUTPUT_DIR, NULL);
    cfg->output_beside_new = true;
    cfg->threshold = set->v[MLIA_OPT_THRESHOLD].count ? set->v[MLIA_OPT_THRESHOLD].number : -1;
    cfg->allow_different_programs = flag_on(set, MLIA_OPT_ALLOW_DIFFERENT);
    cfg->allow_different_settings = flag_on(set, MLIA_OPT_ALLOW_SETTINGS);
    cfg->fail_on_regression = flag_on(set, MLIA_OPT_FAIL_ON_REGRESSION);
    cfg->tested_only = flag_on(set, MLIA_OPT_TESTED_ONLY);
    cfg->memory_limit =
        set->v[MLIA_OPT_CMP_MEMORY_LIMIT].count ? (size_t)set->v[MLIA_OPT_CMP_MEMORY_LIMIT].number : 0;
    return 0;
}

int mlia_history_resolve(const mlia_opt_set *set, mlia_history_config *cfg, char *msg, size_t n)
{
    msg[0] = 0;
    memset(cfg, 0, sizeof *cfg);
    if (mlia_opt_unknown_error(set, msg, n))
        return 2;
    if (set->v[MLIA_OPT_HIST_PROGRAM].count && set->v[MLIA_OPT_HIST_MODEL].count)
        return fail(msg, n, "argument --model: not allowed with argument --program");
    if (labels_error(set, MLIA_OPT_HIST_LABEL, msg, n))
        return 2;
    cfg->location = text_or(set, MLIA_OPT_HIST_LOCATION, NULL);
    cfg->program = text_or(set, MLIA_OPT_HIST_PROGRAM, NULL);
    cfg->model = text_or(set, MLIA_OPT_HIST_MODEL, NULL);
    cfg->labels = set->v[MLIA_OPT_HIST_LABEL].items;
    cfg->n_labels = (int)set->v[MLIA_OPT_HIST_LABEL].n_items;
    cfg->metric = text_or(set, MLIA_OPT_HIST_METRIC, NULL);
    cfg->entity = text_or(set, MLIA_OPT_HIST_ENTITY, NULL);
    cfg->last = set->v[MLIA_OPT_HIST_LAST].count ? (unsigned)set->v[MLIA_OPT_HIST_LAST].number : 0;
    cfg->format = text_or(set, MLIA_OPT_HIST_FORMAT, "table");
    cfg->output_dir = text_or(set, MLIA_OPT_HIST_OUTPUT_DIR, NULL);
    cfg->memory_limit =
        set->v[MLIA_OPT_HIST_MEMORY_LIMIT].count ? (size_t)set->v[MLIA_OPT_HIST_MEMORY_LIMIT].number : 0;
    return 0;
}
