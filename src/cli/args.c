/*
 * args.c - the grammar of the `mlia` command line over the option table
 * (see args.h; the rows are MLIA_OPTS of src/pipeline/options.c).
 *
 * The grammar follows the reference tool (Python argparse) so that the same
 * command lines work and errors read alike:
 *   - long options take their value as "--opt value" or "--opt=value";
 *     short options as "-t value" or "-tvalue"; no abbreviations, no
 *     clustering of short flags;
 *   - a value may not start with '-' unless given with '=' (or attached to a
 *     short option), as in argparse; "--" ends the options;
 *   - repeated single-value options: the last one wins; repeated options
 *     (--profiling-data, --backend, --baseline) accumulate;
 *   - -h/--help and -v/--version win over every other error except a
 *     malformed option value met before them.
 * A value is checked as soon as it is read (argparse does the same for
 * choices), by the library (mlia_opt_set_text), so the message names the
 * option; the rules of the command are the library's too.
 */
#include "cli/args.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int usage_error(char *msg, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int usage_error(char *msg, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, n, fmt, ap);
    va_end(ap);
    return 2;
}

static const char *const COMMANDS[] = {"check", "inspect", "compare", "history"};

/* A positional argument: the command word, then the command's own. */
static int positional(mlia_cli_args *a, const char *arg, char *msg, size_t n)
{
    mlia_opt_set *s = &a->set;
    switch (s->command) {
    case MLIA_CMD_NONE:
        for (int c = 0; c < 4; c++)
            if (strcmp(arg, COMMANDS[c]) == 0) {
                s->command = (mlia_cmd)(MLIA_CMD_CHECK + c);
                return 0;
            }
        if (a->help || a->version)
            return 0;
    {
        /* `mlia chek`: the nearest command word (issue 29, 6) */
        const char *near = mlia_opt_nearest(arg, strlen(arg), COMMANDS, 3);
        return usage_error(msg, n,
                           "argument command: invalid choice: '%s' (choose from 'check', 'inspect', 'compare', "
                           "'history')%s%s%s",
                           arg, near ? "; did you mean '" : "", near ? near : "", near ? "'?" : "");
    }
    case MLIA_CMD_CHECK:
    case MLIA_CMD_INSPECT: {
        mlia_opt_id id = s->command == MLIA_CMD_CHECK ? MLIA_OPT_MODEL : MLIA_OPT_FILE;
        if (!s->v[id].count)
            return mlia_opt_set_text(s, id, arg, msg, n);
        break;
    }
    case MLIA_CMD_COMPARE:
        if (a->n_pos < 2) {
            a->pos[a->n_pos++] = arg;
            return 0;
        }
        break;
    case MLIA_CMD_HISTORY:
        if (!s->v[MLIA_OPT_HIST_LOCATION].count)
            return mlia_opt_set_text(s, MLIA_OPT_HIST_LOCATION, arg, msg, n);
        break;
    default:
        break;
    }
    mlia_opt_set_unknown(s, arg, NULL);
    return 0;
}

/* compare: BASELINE NEW, or NEW alone after --baseline or with
 * --baseline-history (BASELINE comes before the --baseline runs). */
static void bind_compare(mlia_cli_args *a)
{
    mlia_opt_set *s = &a->set;
    mlia_opt_value *b = &s->v[MLIA_OPT_BASELINE];
    const char *base = NULL;
    if (a->n_pos == 2) {
        base = a->pos[0];
        s->v[MLIA_OPT_NEW].text = a->pos[1];
        s->v[MLIA_OPT_NEW].count = 1;
    } else if (a->n_pos == 1 && (b->count || s->v[MLIA_OPT_BASELINE_HISTORY].count)) {
        s->v[MLIA_OPT_NEW].text = a->pos[0];
        s->v[MLIA_OPT_NEW].count = 1;
    } else if (a->n_pos == 1) {
        base = a->pos[0];
    }
    if (base) {
        uint32_t keep = b->n_items < MLIA_OPT_MAX_ITEMS ? b->n_items : MLIA_OPT_MAX_ITEMS - 1;
        memmove(b->items + 1, b->items, keep * sizeof *b->items);
        b->items[0] = base;
        b->n_items = keep + 1;
        b->count++;
    }
}

static void on_flag(mlia_cli_args *a, const mlia_opt *o)
{
    switch (o->id) {
    case MLIA_OPT_HELP: a->help = true; break;
    case MLIA_OPT_VERSION: a->version = true; break;
    case MLIA_OPT_QUIET: a->quiet = true; break;
    case MLIA_OPT_DEBUG: a->debug = true; break;
    case MLIA_OPT_JSON:
    case MLIA_OPT_CMP_JSON: a->json = true; break;
    default: break;
    }
    mlia_opt_set_flag(&a->set, o->id, true);
}

int mlia_cli_parse(int argc, char **argv, mlia_cli_args *a, char *msg, size_t msg_size)
{
    memset(a, 0, sizeof *a);
    mlia_opt_set_init(&a->set, MLIA_CMD_NONE, true);
    msg[0] = 0;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!options_done && strcmp(arg, "--") == 0) {
            options_done = true;
            continue;
        }
        if (options_done || arg[0] != '-' || arg[1] == 0) {
            if (positional(a, arg, msg, msg_size))
                return 2;
            continue;
        }
        mlia_cmd command = a->set.command;
        const mlia_opt *o = NULL;
        const char *value = NULL;
        bool attached = false;
        if (arg[1] == '-') {
            const char *eq = strchr(arg, '=');
            o = mlia_opt_by_flag(arg, eq ? (size_t)(eq - arg) : strlen(arg), command);
            if (o && eq) {
                value = eq + 1;
                attached = true;
            }
        } else {
            o = mlia_opt_by_short(arg[1], command);
            if (o && arg[2]) {
                if (o->type == MLIA_OPT_FLAG)
                    o = NULL; /* "-qd" style clusters are not supported */
                else {
                    value = arg + 2;
                    attached = true;
                }
            }
        }
        if (!o) {
            mlia_opt_set_unknown(&a->set, arg, mlia_opt_suggest_flag(arg, command));
            continue;
        }
        char name[96];
        mlia_opt_name(o, name, sizeof name);
        if (o->type == MLIA_OPT_FLAG) {
            if (attached)
                return usage_error(msg, msg_size, "argument %s: ignored explicit argument '%s'", name, value);
            on_flag(a, o);
            continue;
        }
        bool next_is_option = i + 1 >= argc || (argv[i + 1][0] == '-' && argv[i + 1][1] != 0);
        if (!attached && next_is_option && (o->flags & MLIA_OPT_OPTIONAL_VALUE)) {
            /* --history alone (argparse's nargs='?') */
            mlia_opt_set_flag(&a->set, o->id, true);
            continue;
        }
        if (!attached) {
            if (next_is_option)
                return usage_error(msg, msg_size, "argument %s: expected one argument", name);
            value = argv[++i];
        }
        if (mlia_opt_set_text(&a->set, o->id, value, msg, msg_size))
            return 2;
    }
    if (a->set.command == MLIA_CMD_COMPARE)
        bind_compare(a);
    return 0;
}

int mlia_cli_validate(mlia_cli_args *a, char *msg, size_t n)
{
    msg[0] = 0;
    const mlia_opt_set *s = &a->set;
    switch (s->command) {
    case MLIA_CMD_CHECK:
        return mlia_check_resolve(s, &a->check, msg, n);
    case MLIA_CMD_COMPARE:
        return mlia_compare_resolve(s, &a->compare, msg, n);
    case MLIA_CMD_HISTORY:
        return mlia_history_resolve(s, &a->history, msg, n);
    case MLIA_CMD_INSPECT:
        if (mlia_opt_unknown_error(s, msg, n))
            return 2;
        if (!s->v[MLIA_OPT_FILE].count)
            return usage_error(msg, n, "the following arguments are required: FILE");
        a->file = s->v[MLIA_OPT_FILE].text;
        return 0;
    default:
        if (mlia_opt_unknown_error(s, msg, n))
            return 2;
        return usage_error(msg, n, "the following arguments are required: command");
    }
}

#define COMPARE_USAGE                                                                                              \
    "usage: mlia compare BASELINE NEW [--baseline RUN]... [--output-dir DIR] [--threshold PCT] "                     \
    "[--allow-different-programs] [--allow-different-settings] [--json] [--fail-on-regression] [--tested-only]"

#define HISTORY_USAGE                                                                                              \
    "usage: mlia history [LOCATION] [--program FINGERPRINT | --model NAME] [--label KEY=VALUE]... "                \
    "[--metric NAME] [--entity ID] [--last N] [--format {table,csv,json}] [--output-dir DIR]"

const char *mlia_cli_usage(mlia_cmd command)
{
    switch (command) {
    case MLIA_CMD_CHECK:
        return "usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP "
               "[options] (see 'mlia check --help')";
    case MLIA_CMD_INSPECT:
        return "usage: mlia inspect FILE";
    case MLIA_CMD_COMPARE:
        return COMPARE_USAGE;
    case MLIA_CMD_HISTORY:
        return HISTORY_USAGE;
    default:
        return "usage: mlia {check,inspect,compare,history} ... (see 'mlia --help')";
    }
}

/* What --help says before and after the options of each command. */
static const struct {
    const char *head, *tail;
    size_t column; /* where the help of an option starts */
} HELP[MLIA_CMD_N] = {
    [MLIA_CMD_NONE] = {"usage: mlia [-h] [-v] {check,inspect,compare,history} ...\n"
                       "\n"
                       "ML Inference Advisor: ExecuTorch ETRecord profiling views for Arm GPUs with\n"
                       "neural accelerators (Neural Technology profiling data).\n"
                       "\n"
                       "commands:\n"
                       "  check     analyse an ETRecord with its ETDump; write DIR/mlia-output/\n"
                       "  inspect   print the decoded structure of an ExecuTorch or delegate file as JSON\n"
                       "  compare   compare two mlia outputs of the same model ('mlia compare --help')\n"
                       "  history   list the runs of a run history and a metric's trend ('mlia history --help')\n",
                       "\n"
                       "'mlia COMMAND --help' describes the options of a command.\n"
                       "\n"
                       "Exit status: 0 success, 1 analysis or input error, 2 usage error,\n"
                       "3 regression found by 'mlia compare --fail-on-regression'.\n",
                       17},
    [MLIA_CMD_CHECK] = {"usage: mlia check MODEL -t PROFILE --performance --profiling-data ETDUMP\n"
                        "                  [--companion-model PTE] [--output-dir DIR]\n"
                        "                  [--model-explorer {files,open}]\n"
                        "                  [--trace [--trace-format {perfetto,json}]]\n"
                        "                  [--neural-technology-profiling-data.etrecord-method NAME]\n"
                        "                  [--debug-buffer BIN [--reference-profiling-data ETDUMP\n"
                        "                   --reference-debug-buffer BIN]]\n"
                        "                  [--neural-technology-profiling-data.ticks-per-second HZ]\n"
                        "                  [--neural-technology-profiling-data.warmup-executions N]\n"
                        "                  [--history [LOCATION]] [--label KEY=VALUE]...\n"
                        "                  [-b BACKEND] [--csv] [--json] [-q] [-d]\n"
                        "\n"
                        "Analyse an ExecuTorch ETDump (runtime timings and its delegates' neural\n"
                        "statistics) against its ETRecord and write DIR/mlia-output/.\n"
                        "\n"
                        "positional arguments:\n"
                        "  MODEL                         the ETRecord (.etrecord or .bin)\n",
                        "\n"
                        "Exit status: 0 success, 1 analysis or input error, 2 usage error.\n",
                        32},
    [MLIA_CMD_INSPECT] = {"usage: mlia inspect FILE\n"
                          "\n"
                          "Print the decoded structure of FILE as JSON on standard output.\n"
                          "\n"
                          "positional arguments:\n"
                          "  FILE           ", /* + the row's help (the file kinds) */
                          "\n"
                          "Exit status: 0 success, 1 input error, 2 usage error.\n",
                          17},
    [MLIA_CMD_COMPARE] = {COMPARE_USAGE "\n"
                                        "       mlia compare NEW --baseline-history LOCATION [--last N] "
                                        "[--label KEY=VALUE]...\n"
                                        "\n"
                                        "Compare two runs of `mlia check` on the same program (recognised by the "
                                        "program\n"
                                        "fingerprint mlia check records, whatever the files are called): every "
                                        "metric of\n"
                                        "every entity present in both, baseline P50 against new P50.\n"
                                        "\n"
                                        "positional arguments:\n"
                                        "  BASELINE, NEW          an mlia-output folder, a folder holding one, or an\n"
                                        "                         mlia-output.json file; BASELINE may also be a "
                                        "folder\n"
                                        "                         of runs (pooled)\n",
                          "\n"
                          "A change is a regression or an improvement when the new P50 lies outside the\n"
                          "baseline's [min, max] and differs by more than the threshold; with fewer than 3\n"
                          "samples on a side it is a likely regression or improvement, not tested for\n"
                          "noise (docs/compare.md).\n"
                          "\n"
                          "Exit status: 0 success, 1 input error, 2 usage error,\n"
                          "3 regression found with --fail-on-regression\n",
                          25},
    [MLIA_CMD_HISTORY] = {HISTORY_USAGE "\n"
                                        "\n"
                                        "List the runs recorded with `mlia check --history` and a metric's trend "
                                        "over\n"
                                        "them, oldest to newest, with a sparkline (docs/history.md).\n"
                                        "\n"
                                        "positional arguments:\n"
                                        "  LOCATION               ", /* + the row's help */
                          "\n"
                          "Exit status: 0 success, 1 history error, 2 usage error.\n",
                          25},
};

typedef struct help_out {
    char *buf;
    size_t n, off;
} help_out;

static void put(help_out *h, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(help_out *h, const char *fmt, ...)
{
    if (h->off >= h->n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(h->buf + h->off, h->n - h->off, fmt, ap);
    va_end(ap);
    if (k > 0)
        h->off = h->off + (size_t)k < h->n ? h->off + (size_t)k : h->n - 1;
}

/* "-t, --target-profile PROFILE", "--model-explorer {files,open}" */
static void option_names(const mlia_opt *o, char *out, size_t n)
{
    size_t off = 0;
    if (o->short_flag)
        off = (size_t)snprintf(out, n, "-%c, ", o->short_flag);
    off += (size_t)snprintf(out + off, n - off, "%s", o->flag);
    if (o->type == MLIA_OPT_CHOICE && off < n) {
        off += (size_t)snprintf(out + off, n - off, " {");
        for (const char *c = o->choices; *c && off < n; c++)
            out[off++] = *c;
        if (off + 1 < n)
            out[off++] = '}';
        out[off < n ? off : n - 1] = 0;
    } else if (o->type != MLIA_OPT_FLAG && o->metavar && off < n) {
        snprintf(out + off, n - off, (o->flags & MLIA_OPT_OPTIONAL_VALUE) ? " [%s]" : " %s", o->metavar);
    }
}

size_t mlia_cli_help(mlia_cmd command, char *buf, size_t n)
{
    help_out h = {buf, n, 0};
    buf[0] = 0;
    if (command >= MLIA_CMD_N)
        command = MLIA_CMD_NONE;
    size_t col = HELP[command].column;
    put(&h, "%s", HELP[command].head);
    if (command == MLIA_CMD_INSPECT || command == MLIA_CMD_HISTORY) {
        /* the positional's help, its later lines at the column */
        const char *line = MLIA_OPTS[command == MLIA_CMD_INSPECT ? MLIA_OPT_FILE : MLIA_OPT_HIST_LOCATION].help;
        for (bool first = true; *line; first = false) {
            size_t l = strcspn(line, "\n");
            put(&h, "%*s%.*s\n", first ? 0 : (int)col, "", (int)l, line);
            line += l + (line[l] == '\n');
        }
    }
    put(&h, "\noptions:\n");
    for (int i = 0; i < MLIA_OPT_N; i++) {
        const mlia_opt *o = &MLIA_OPTS[i];
        if (!o->flag || !(o->commands & MLIA_OPT_IN(command)))
            continue;
        char names[128];
        option_names(o, names, sizeof names);
        size_t len = 2 + strlen(names);
        put(&h, "  %s", names);
        const char *line = o->help;
        if (len + 1 > col)
            put(&h, "\n%*s", (int)col, "");
        else
            put(&h, "%*s", (int)(col - len), "");
        for (bool first = true; *line; first = false) {
            size_t l = strcspn(line, "\n");
            put(&h, "%*s%.*s\n", first ? 0 : (int)col, "", (int)l, line);
            line += l + (line[l] == '\n');
        }
        if (o->alias)
            put(&h, "%*s(or %s%s%s)\n", (int)col, "", o->alias, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    }
    put(&h, "%s", HELP[command].tail);
    return h.off;
}
