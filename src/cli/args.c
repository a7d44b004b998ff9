/*
 * args.c - parsing and validation of the `mlia` command line (see args.h).
 *
 * The grammar follows the reference tool (Python argparse) so that the same
 * command lines work and errors read alike:
 *   - long options take their value as "--opt value" or "--opt=value";
 *     short options as "-t value" or "-tvalue"; no abbreviations, no
 *     clustering of short flags;
 *   - a value may not start with '-' unless given with '=' (or attached to a
 *     short option), as in argparse; "--" ends the options;
 *   - repeated single-value options: the last one wins; --profiling-data and
 *     --backend accumulate (the rules then count them);
 *   - -h/--help and -v/--version win over every other error except a
 *     malformed option value met before them.
 * Option tables are static const data; nothing here allocates.
 */
#include "cli/args.h"

#include <stdlib.h>

#include "core/cnum.h"
#include "pipeline/inputs.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

enum opt_id {
    OPT_TARGET, OPT_PERFORMANCE, OPT_COMPATIBILITY, OPT_PROFILING, OPT_BACKEND, OPT_COMPANION,
    OPT_OUTPUT_DIR, OPT_MODEL_EXPLORER, OPT_METHOD, OPT_JSON, OPT_QUIET, OPT_DEBUG, OPT_HELP,
    OPT_VERSION, OPT_DEBUG_BUFFER, OPT_REF_PROFILING, OPT_REF_DEBUG_BUFFER, OPT_TICKS, OPT_WARMUP, OPT_TRACE,
    OPT_TRACE_FORMAT, OPT_CSV
};

typedef struct opt_def {
    enum opt_id id;
    const char *long_name;
    char short_name;    /* 0: none */
    bool takes_value;
    bool check_only;    /* only valid after `check` */
} opt_def;

static const opt_def OPTS[] = {
    {OPT_TARGET, "--target-profile", 't', true, true},
    {OPT_PERFORMANCE, "--performance", 0, false, true},
    {OPT_COMPATIBILITY, "--compatibility", 0, false, true},
    {OPT_PROFILING, "--profiling-data", 0, true, true},
    {OPT_BACKEND, "--backend", 'b', true, true},
    {OPT_COMPANION, "--companion-model", 0, true, true},
    {OPT_OUTPUT_DIR, "--output-dir", 0, true, true},
    {OPT_MODEL_EXPLORER, "--model-explorer", 0, true, true},
    {OPT_METHOD, "--neural-technology-profiling-data.etrecord-method", 0, true, true},
    {OPT_TICKS, "--neural-technology-profiling-data.ticks-per-second", 0, true, true},
    {OPT_WARMUP, "--neural-technology-profiling-data.warmup-executions", 0, true, true},
    {OPT_CSV, "--csv", 0, false, true},
    {OPT_JSON, "--json", 0, false, true},
    {OPT_QUIET, "--quiet", 'q', false, false},
    {OPT_DEBUG, "--debug", 'd', false, false},
    {OPT_HELP, "--help", 'h', false, false},
    {OPT_VERSION, "--version", 'v', false, false},
    {OPT_DEBUG_BUFFER, "--debug-buffer", 0, true, true},
    {OPT_REF_PROFILING, "--reference-profiling-data", 0, true, true},
    {OPT_REF_DEBUG_BUFFER, "--reference-debug-buffer", 0, true, true},
    {OPT_TRACE, "--trace", 0, false, true},
    {OPT_TRACE_FORMAT, "--trace-format", 0, true, true},
};

static int usage_error(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int usage_error(char *msg, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
    return 2;
}

/* "-t/--target-profile" or "--performance", as argparse names options. */
static void display_name(const opt_def *o, char *out, size_t n)
{
    if (o->short_name)
        snprintf(out, n, "-%c/%s", o->short_name, o->long_name);
    else
        snprintf(out, n, "%s", o->long_name);
}

static void push_max(const char **list, uint32_t *count, const char *v, uint32_t max)
{
    if (*count < max)
        list[*count] = v;
    if (*count < UINT32_MAX)
        (*count)++;
}

static void push(const char **list, uint32_t *count, const char *v)
{
    push_max(list, count, v, MLIA_CLI_MAX_VALUES);
}

static const opt_def *find_long(const char *arg, size_t name_len)
{
    for (size_t i = 0; i < sizeof OPTS / sizeof OPTS[0]; i++)
        if (strlen(OPTS[i].long_name) == name_len && strncmp(OPTS[i].long_name, arg, name_len) == 0)
            return &OPTS[i];
    return NULL;
}

static const opt_def *find_short(char c)
{
    for (size_t i = 0; i < sizeof OPTS / sizeof OPTS[0]; i++)
        if (OPTS[i].short_name == c)
            return &OPTS[i];
    return NULL;
}

static void apply(mlia_cli_args *a, const opt_def *o, const char *value)
{
    switch (o->id) {
    case OPT_TARGET: a->target_profile = value; break;
    case OPT_PERFORMANCE: a->performance = true; break;
    case OPT_COMPATIBILITY: a->compatibility = true; break;
    case OPT_PROFILING: push_max(a->profiling_data, &a->n_profiling_data, value, MLIA_CLI_MAX_PROFILING); break;
    case OPT_BACKEND: push(a->backends, &a->n_backends, value); break;
    case OPT_COMPANION: a->companion = value; break;
    case OPT_OUTPUT_DIR: a->output_dir = value; break;
    case OPT_MODEL_EXPLORER: a->model_explorer = value; break;
    case OPT_METHOD: a->method = value; break;
    case OPT_TICKS: a->ticks_per_second = mlia_strtod(value, NULL); break;
    case OPT_WARMUP: a->warmup_executions = (uint32_t)strtoul(value, NULL, 10); break;
    case OPT_CSV: a->csv = true; break;
    case OPT_JSON: a->json = true; break;
    case OPT_QUIET: a->quiet = true; break;
    case OPT_DEBUG: a->debug = true; break;
    case OPT_HELP: a->help = true; break;
    case OPT_VERSION: a->version = true; break;
    case OPT_DEBUG_BUFFER: a->debug_buffer = value; break;
    case OPT_REF_PROFILING: a->reference_profiling_data = value; break;
    case OPT_REF_DEBUG_BUFFER: a->reference_debug_buffer = value; break;
    case OPT_TRACE: a->trace = true; break;
    case OPT_TRACE_FORMAT: a->trace_format = value; break;
    }
}

/* Checks an option value as soon as it is read (argparse does the same for
 * choices), so the message names the option. */
static int check_value(const opt_def *o, const char *value, char *msg, size_t n)
{
    char name[96];
    display_name(o, name, sizeof name);
    if (!*value)
        return usage_error(msg, n, "argument %s: expected a non-empty value", name);
    if (o->id == OPT_MODEL_EXPLORER && strcmp(value, "files") != 0 && strcmp(value, "open") != 0)
        return usage_error(msg, n, "argument %s: invalid choice: '%s' (choose from 'files', 'open')",
                           name, value);
    if (o->id == OPT_TICKS) {
        /* a plain decimal number, optionally with an exponent (250e6), read
         * in the "C" locale; no sign, no hexadecimal, no inf/nan */
        const char *p = value;
        size_t digits = 0;
        while (*p >= '0' && *p <= '9')
            p++, digits++;
        if (*p == '.')
            for (p++; *p >= '0' && *p <= '9'; p++)
                digits++;
        bool ok = digits > 0;
        if (ok && (*p == 'e' || *p == 'E')) {
            p++;
            if (*p == '+' || *p == '-')
                p++;
            ok = *p >= '0' && *p <= '9';
            while (*p >= '0' && *p <= '9')
                p++;
        }
        double hz = ok && !*p ? mlia_strtod(value, NULL) : 0.0;
        if (!(hz >= 1.0 && hz <= MLIA_CLI_MAX_TICKS_PER_SECOND))
            return usage_error(msg, n,
                               "argument %s: invalid value: '%s' (ticks per second: a number from 1 to 1e15, "
                               "e.g. 250e6)",
                               name, value);
    }
    if (o->id == OPT_WARMUP) {
        const char *p = value;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p || p - value > 9)
            return usage_error(msg, n,
                               "argument %s: invalid value: '%s' (a whole number of executions, 0 to 999999999)",
                               name, value);
    }
    if (o->id == OPT_TRACE_FORMAT && strcmp(value, "perfetto") != 0 && strcmp(value, "json") != 0)
        return usage_error(msg, n, "argument %s: invalid choice: '%s' (choose from 'perfetto', 'json')",
                           name, value);
    return 0;
}

int mlia_cli_parse(int argc, char **argv, mlia_cli_args *a, char *msg, size_t msg_size)
{
    memset(a, 0, sizeof *a);
    msg[0] = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        bool is_option = !options_done && arg[0] == '-' && arg[1] != 0;
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (!is_option) {
            if (a->command == MLIA_CLI_NONE) {
                if (strcmp(arg, "check") == 0)
                    a->command = MLIA_CLI_CHECK;
                else if (strcmp(arg, "inspect") == 0)
                    a->command = MLIA_CLI_INSPECT;
                else if (!a->help && !a->version)
                    return usage_error(msg, msg_size,
                                       "argument command: invalid choice: '%s' (choose from 'check', "
                                       "'inspect', 'compare')",
                                       arg);
            } else if (!a->model) {
                a->model = arg;
            } else {
                push(a->unrecognized, &a->n_unrecognized, arg);
            }
            continue;
        }
        const opt_def *o = NULL;
        const char *value = NULL;
        bool attached = false;
        if (arg[1] == '-') {
            const char *eq = strchr(arg, '=');
            size_t name_len = eq ? (size_t)(eq - arg) : strlen(arg);
            o = find_long(arg, name_len);
            if (o && eq) {
                value = eq + 1;
                attached = true;
            }
        } else {
            o = find_short(arg[1]);
            if (o && arg[2]) {
                if (!o->takes_value)
                    o = NULL; /* "-qd" style clusters are not supported */
                else {
                    value = arg + 2;
                    attached = true;
                }
            }
        }
        if (!o || (o->check_only && a->command != MLIA_CLI_CHECK)) {
            push(a->unrecognized, &a->n_unrecognized, arg);
            continue;
        }
        char name[96];
        display_name(o, name, sizeof name);
        if (!o->takes_value) {
            if (attached)
                return usage_error(msg, msg_size, "argument %s: ignored explicit argument '%s'", name,
                                   value);
            apply(a, o, NULL);
            continue;
        }
        if (!attached) {
            if (i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] != 0))
                return usage_error(msg, msg_size, "argument %s: expected one argument", name);
            value = argv[++i];
        }
        if (check_value(o, value, msg, msg_size) != 0)
            return 2;
        apply(a, o, value);
    }
    return 0;
}

/* A file whose bytes are no known kind: its reader explains (exit 1). */
static bool by_content(const char *kind)
{
    return kind && strcmp(kind, "unknown") == 0;
}

static bool has_suffix_ci(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n > m && strcasecmp(s + n - m, suffix) == 0;
}

bool mlia_cli_is_decimal(const char *text)
{
    size_t digits = 0, i = 0;
    while (text[i] >= '0' && text[i] <= '9')
        i++, digits++;
    if (text[i] == '.') {
        i++;
        while (text[i] >= '0' && text[i] <= '9')
            i++, digits++;
    }
    return digits > 0 && text[i] == 0;
}

bool mlia_cli_is_profiling_backend(const char *name)
{
    const char *want = MLIA_CLI_PROFILING_BACKEND;
    const char *p = name, *q = want;
    for (;;) {
        while (*p == '-')
            p++;
        while (*q == '-')
            q++;
        if (!*p || !*q)
            return !*p && !*q;
        char cp = *p >= 'A' && *p <= 'Z' ? (char)(*p - 'A' + 'a') : *p;
        if (cp != *q)
            return false;
        p++;
        q++;
    }
}

/* Levenshtein distance of a[0..la) and b[0..lb), both at most 63 bytes
 * (longer names are not compared: returns a large number). */
static size_t edit_distance(const char *a, size_t la, const char *b, size_t lb)
{
    if (la > 63 || lb > 63)
        return 1000;
    size_t row[64];
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

/* The long option nearest to an unknown "--name[=value]" (at most 2 edits,
 * or a third of the name; else the only option the name abbreviates), valid
 * for the command; NULL when none is near. */
static const char *nearest_option(const char *arg, mlia_cli_command command)
{
    if (arg[0] != '-' || arg[1] != '-')
        return NULL;
    const char *eq = strchr(arg, '=');
    size_t len = eq ? (size_t)(eq - arg) : strlen(arg);
    size_t limit = len / 3 > 2 ? len / 3 : 2, best = limit + 1;
    const char *out = NULL;
    for (size_t i = 0; i < sizeof OPTS / sizeof OPTS[0]; i++) {
        if (OPTS[i].check_only && command != MLIA_CLI_CHECK)
            continue;
        size_t d = edit_distance(arg, len, OPTS[i].long_name, strlen(OPTS[i].long_name));
        if (d > 0 && d < best) {
            best = d;
            out = OPTS[i].long_name;
        }
    }
    /* else the one option that the name abbreviates ("--companion") */
    const char *prefix_of = NULL;
    int n_prefix = 0;
    for (size_t i = 0; !out && len >= 5 && i < sizeof OPTS / sizeof OPTS[0]; i++)
        if (!(OPTS[i].check_only && command != MLIA_CLI_CHECK) && strlen(OPTS[i].long_name) > len &&
            strncmp(OPTS[i].long_name, arg, len) == 0) {
            prefix_of = OPTS[i].long_name;
            n_prefix++;
        }
    return out ? out : n_prefix == 1 ? prefix_of : NULL;
}

static int unrecognized_error(const mlia_cli_args *a, char *msg, size_t n)
{
    size_t off = (size_t)snprintf(msg, n, "unrecognized arguments:");
    for (uint32_t i = 0; i < a->n_unrecognized && i < MLIA_CLI_MAX_VALUES && off < n; i++) {
        const char *near = nearest_option(a->unrecognized[i], a->command);
        if (near)
            off += (size_t)snprintf(msg + off, n - off, " %s (did you mean %s?)", a->unrecognized[i], near);
        else
            off += (size_t)snprintf(msg + off, n - off, " %s", a->unrecognized[i]);
    }
    return 2;
}

static int validate_inspect(const mlia_cli_args *a, char *msg, size_t n)
{
    if (a->n_unrecognized)
        return unrecognized_error(a, msg, n);
    if (!a->model)
        return usage_error(msg, n, "the following arguments are required: FILE");
    return 0;
}

int mlia_cli_validate(const mlia_cli_args *a, char *msg, size_t n)
{
    msg[0] = 0;
    if (a->command == MLIA_CLI_NONE) {
        if (a->n_unrecognized)
            return unrecognized_error(a, msg, n);
        return usage_error(msg, n, "the following arguments are required: command");
    }
    if (a->command == MLIA_CLI_INSPECT)
        return validate_inspect(a, msg, n);

    /* 1. Unknown options and extra positionals: usually a typo of one of the
     *    options below, so they are reported first. */
    if (a->n_unrecognized)
        return unrecognized_error(a, msg, n);
    /* 2. Required arguments, all named at once. */
    const char *missing[3];
    int n_missing = 0;
    if (!a->model)
        missing[n_missing++] = "MODEL";
    if (!a->target_profile)
        missing[n_missing++] = "-t/--target-profile";
    if (!a->n_profiling_data)
        missing[n_missing++] = "--profiling-data";
    if (n_missing) {
        size_t off = (size_t)snprintf(msg, n, "the following arguments are required: ");
        for (int i = 0; i < n_missing && off < n; i++)
            off += (size_t)snprintf(msg + off, n - off, "%s%s", i ? ", " : "", missing[i]);
        return 2;
    }
    /* 3. Target profile. */
    if (strcmp(a->target_profile, MLIA_CLI_TARGET_PROFILE) != 0)
        return usage_error(msg, n, "Target profile '%s' is not supported; supported: %s.",
                           a->target_profile, MLIA_CLI_TARGET_PROFILE);
    /* 4. Advice category. */
    if (a->compatibility)
        return usage_error(msg, n,
                           "Backend does not support --compatibility with --profiling-data. "
                           "Use --performance instead.");
    if (!a->performance)
        return usage_error(msg, n,
                           "Neural Technology profiling data currently supports performance "
                           "analysis only.");
    /* 5. ETDumps: several are pooled (docs/captures.md), each once. */
    if (a->n_profiling_data > MLIA_CLI_MAX_PROFILING)
        return usage_error(msg, n, "At most %u ETDumps are supported by --profiling-data; got %u.",
                           MLIA_CLI_MAX_PROFILING, a->n_profiling_data);
    for (uint32_t i = 1; i < a->n_profiling_data; i++)
        for (uint32_t j = 0; j < i; j++)
            if (strcmp(a->profiling_data[i], a->profiling_data[j]) == 0)
                return usage_error(msg, n, "--profiling-data: %s is given more than once.", a->profiling_data[i]);
    /* 6. Backend selection. */
    if (a->n_backends > 1)
        return usage_error(msg, n, "--profiling-data requires exactly one --backend value.");
    if (a->n_backends == 1 && !mlia_cli_is_profiling_backend(a->backends[0]))
        return usage_error(msg, n, "Backend '%s' does not support profiling data.", a->backends[0]);
    /* 7. File kinds by content: a file in another's place says where it goes,
     *    whatever it is called (pipeline/inputs.h). */
    for (uint32_t i = 0; i < a->n_profiling_data && i < MLIA_CLI_MAX_PROFILING; i++)
        if (mlia_input_kind_error(a->model, a->model_kind, a->profiling_data[i], a->profiling_kinds[i],
                                  a->companion, a->companion_kind, msg, n) != 0)
            return 2;
    /* 8. File kinds by suffix, for files whose content is the expected kind or
     *    was not looked at; bytes of no known kind are the readers' to
     *    explain (exit 1), so that a name never changes the exit status. */
    if (!by_content(a->model_kind) && !has_suffix_ci(a->model, ".etrecord") && !has_suffix_ci(a->model, ".bin"))
        return usage_error(msg, n,
                           "%s: unsupported model file; expected an ETRecord (.etrecord or .bin).",
                           a->model);
    for (uint32_t i = 0; i < a->n_profiling_data && i < MLIA_CLI_MAX_PROFILING; i++) {
        const char *dump = a->profiling_data[i];
        if (!by_content(a->profiling_kinds[i]) && !has_suffix_ci(dump, ".etdump") && !has_suffix_ci(dump, ".etdp"))
            return usage_error(msg, n,
                               "%s: unsupported profiling data file; expected an ETDump (.etdump or .etdp).",
                               dump);
    }
    if (a->companion && !by_content(a->companion_kind) && !has_suffix_ci(a->companion, ".pte"))
        return usage_error(msg, n, "%s: unsupported companion model file; expected a PTE (.pte).",
                           a->companion);
    /* 8. Intermediate outputs (docs/accuracy.md): a reference capture comes
     *    with its buffer and is compared with the run's buffer. */
    if (a->reference_profiling_data && !a->reference_debug_buffer)
        return usage_error(msg, n, "--reference-profiling-data requires --reference-debug-buffer.");
    if (a->reference_debug_buffer && !a->reference_profiling_data)
        return usage_error(msg, n, "--reference-debug-buffer requires --reference-profiling-data.");
    if (a->debug_buffer && a->n_profiling_data > 1)
        return usage_error(msg, n, "--debug-buffer belongs to one ETDump: give exactly one --profiling-data with it "
                           "(got %u).", a->n_profiling_data);
    if (a->reference_profiling_data && !a->debug_buffer)
        return usage_error(msg, n, "--reference-profiling-data requires --debug-buffer (the run's intermediate "
                           "outputs it is compared with).");
    /* 9. The timeline is written on request only (docs/trace.md). */
    if (a->trace_format && !a->trace)
        return usage_error(msg, n, "--trace-format requires --trace.");
    const char *ref = a->reference_profiling_data;
    if (ref && !has_suffix_ci(ref, ".etdump") && !has_suffix_ci(ref, ".etdp"))
        return usage_error(msg, n,
                           "%s: unsupported reference profiling data file; expected an ETDump (.etdump or .etdp).",
                           ref);
    return 0;
}

const char *mlia_cli_usage(mlia_cli_command command)
{
    switch (command) {
    case MLIA_CLI_CHECK:
        return "usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP "
               "[options] (see 'mlia check --help')";
    case MLIA_CLI_INSPECT:
        return "usage: mlia inspect FILE";
    default:
        return "usage: mlia {check,inspect,compare} ... (see 'mlia --help')";
    }
}

const char *mlia_cli_help(mlia_cli_command command)
{
    if (command == MLIA_CLI_CHECK)
        return "usage: mlia check MODEL -t PROFILE --performance --profiling-data ETDUMP\n"
               "                  [--companion-model PTE] [--output-dir DIR]\n"
               "                  [--model-explorer {files,open}]\n"
               "                  [--trace [--trace-format {perfetto,json}]]\n"
               "                  [--neural-technology-profiling-data.etrecord-method NAME]\n"
               "                  [--debug-buffer BIN [--reference-profiling-data ETDUMP\n"
               "                   --reference-debug-buffer BIN]]\n"
               "                  [--neural-technology-profiling-data.ticks-per-second HZ]\n"
               "                  [--neural-technology-profiling-data.warmup-executions N]\n"
               "                  [-b BACKEND] [--csv] [--json] [-q] [-d]\n"
               "\n"
               "Analyse an ExecuTorch ETDump (runtime timings and VGF neural statistics)\n"
               "against its ETRecord and write DIR/mlia-output/.\n"
               "\n"
               "positional arguments:\n"
               "  MODEL                         the ETRecord (.etrecord or .bin)\n"
               "\n"
               "options:\n"
               "  -t, --target-profile PROFILE  target profile; only neural-technology\n"
               "  --performance                 performance analysis (required)\n"
               "  --compatibility               not supported with --profiling-data\n"
               "  --profiling-data ETDUMP       an ETDump (.etdump or .etdp); repeat it to pool\n"
               "                                the executions of several captures\n"
               "  -b, --backend BACKEND         optional; only neural-technology-profiling-data\n"
               "  --companion-model PTE         the program's .pte: its memory plan (pools, live\n"
               "                                bytes); with a VGF delegate also its SPIR-V view\n"
               "  --output-dir DIR              where mlia-output/ is written (default: .)\n"
               "  --model-explorer {files,open} write the Model Explorer views and the page;\n"
               "                                'open' also opens the page in a browser\n"
               "  --trace                       write the executions as a timeline:\n"
               "                                mlia-output/trace.pftrace (Perfetto)\n"
               "  --trace-format {perfetto,json}\n"
               "                                with --trace: 'json' writes trace.json (Chrome\n"
               "                                trace events) instead (default: perfetto)\n"
               "  --neural-technology-profiling-data.etrecord-method NAME\n"
               "                                method to analyse when the ETRecord has several\n"
               "  --debug-buffer BIN            the debug buffer written with the ETDump: output\n"
               "                                statistics per operator (docs/accuracy.md)\n"
               "  --reference-profiling-data ETDUMP\n"
               "                                a reference capture of the same program (e.g. on\n"
               "                                CPU): error, SNR and cosine similarity per operator\n"
               "  --reference-debug-buffer BIN  the reference capture's debug buffer\n"
               "  --neural-technology-profiling-data.ticks-per-second HZ\n"
               "                                rate of the ETDump's clock (default 1e9: ticks\n"
               "                                are nanoseconds), e.g. 250e6 for a 250 MHz counter\n"
               "  --neural-technology-profiling-data.warmup-executions N\n"
               "                                leave the first N executions of each ETDump out\n"
               "                                of every statistic (default 0)\n"
               "  --csv                         also write mlia-output/csv/: operators.csv,\n"
               "                                chains.csv, executions.csv\n"
               "  --json                        print the result JSON on standard output\n"
               "                                instead of the summary\n"
               "  -q, --quiet                   print nothing on success\n"
               "  -d, --debug                   print each stage with its timing on stderr\n"
               "  -h, --help                    show this help and exit\n"
               "  -v, --version                 show the version and exit\n"
               "\n"
               "Exit status: 0 success, 1 analysis or input error, 2 usage error.\n";
    if (command == MLIA_CLI_INSPECT)
        return "usage: mlia inspect FILE\n"
               "\n"
               "Print the decoded structure of an ETDump, ETRecord, PTE, BundledProgram or VGF\n"
               "file as JSON on standard output.\n"
               "\n"
               "options:\n"
               "  -h, --help     show this help and exit\n"
               "  -v, --version  show the version and exit\n"
               "\n"
               "Exit status: 0 success, 1 input error, 2 usage error.\n";
    return "usage: mlia [-h] [-v] {check,inspect,compare} ...\n"
           "\n"
           "ML Inference Advisor: ExecuTorch ETRecord profiling views for Arm GPUs with\n"
           "neural accelerators (Neural Technology profiling data).\n"
           "\n"
           "commands:\n"
           "  check     analyse an ETRecord with its ETDump; write DIR/mlia-output/\n"
           "  inspect   print the decoded structure of an ExecuTorch or VGF file as JSON\n"
           "  compare   compare two mlia outputs of the same model ('mlia compare --help')\n"
           "\n"
           "options:\n"
           "  -h, --help     show this help and exit ('mlia check --help' for check)\n"
           "  -v, --version  show the version and exit\n"
           "  -q, --quiet    print nothing on success\n"
           "  -d, --debug    print each stage with its timing on stderr\n"
           "\n"
           "Exit status: 0 success, 1 analysis or input error, 2 usage error,\n"
           "3 regression found by 'mlia compare --fail-on-regression'.\n";
}
