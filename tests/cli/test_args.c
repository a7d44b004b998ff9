/*
 * test_args.c - parsing and usage rules of the command line, without the
 * executable. src/cli/ is not part of libmlia.a, so the parser is compiled
 * into this test directly. tests/py/test_cli.py covers the same rules
 * end to end through the binary.
 */
#include "cli/args.c"

#include "analysis/run.h"
#include "test.h"

/* Parses then validates a NULL-terminated list; returns the status and
 * leaves the message in msg. */
static char msg[1024];
static mlia_cli_args *args;
#define V(id) (args->set.v[MLIA_OPT_##id])

static int parse_list(const char *const *list)
{
    char *argv[256];
    int argc = 0;
    argv[argc++] = "mlia";
    for (; *list; list++)
        argv[argc++] = (char *)*list;
    argv[argc] = NULL;
    static mlia_cli_args a;
    int rc = mlia_cli_parse(argc, argv, &a, msg, sizeof msg);
    args = &a;
    if (rc == 0 && !args->help && !args->version)
        rc = mlia_cli_validate(args, msg, sizeof msg);
    return rc;
}

#define PARSE(...) parse_list((const char *const[]){__VA_ARGS__, NULL})
#define BASE "check", "m.etrecord", "-t", "neural-technology", "--performance", "--profiling-data", "d.etdump"

TEST(valid_full_command_line)
{
    CHECK_INT(PARSE(BASE, "--companion-model", "c.pte", "--output-dir=out", "--model-explorer", "open",
                    "--neural-technology-profiling-data.etrecord-method", "decode", "--json", "-q",
                    "-d", "-b", "neural-technology-profiling-data"),
              0);
    CHECK_INT(args->set.command, MLIA_CMD_CHECK);
    CHECK_STR(args->check.etrecord_path, "m.etrecord");
    CHECK_STR(V(TARGET).text, "neural-technology");
    CHECK_INT(args->check.n_etdump_paths, 1);
    CHECK_STR(args->check.etdump_paths[0], "d.etdump");
    CHECK_STR(args->check.companion_path, "c.pte");
    CHECK_STR(args->check.output_dir, "out");
    CHECK_STR(args->check.model_explorer, "open");
    CHECK_STR(args->check.method, "decode");
    CHECK(args->json && args->quiet && args->debug && V(PERFORMANCE).on && !V(COMPATIBILITY).count);
    CHECK_INT(V(BACKEND).count, 1);
}

TEST(attached_and_repeated_values)
{
    CHECK_INT(PARSE("check", "-tneural-technology", "--profiling-data=d.etdp", "--performance",
                    "--output-dir", "a", "--output-dir", "b", "--", "-model.etrecord"),
              0);
    CHECK_STR(args->check.output_dir, "b");
    CHECK_STR(args->check.etrecord_path, "-model.etrecord");
    CHECK_STR(args->check.etdump_paths[0], "d.etdp");
}

TEST(global_flags_before_command)
{
    CHECK_INT(PARSE("-q", "--debug", BASE), 0);
    CHECK(args->quiet && args->debug);
}

TEST(help_and_version)
{
    CHECK_INT(PARSE("check", "--frob", "-h"), 0);
    CHECK(args->help);
    CHECK_INT(args->set.command, MLIA_CMD_CHECK);
    CHECK_INT(PARSE("-v"), 0);
    CHECK(args->version);
    CHECK_INT(PARSE("--help", "frob"), 0); /* help wins over a bad command */
    CHECK(args->help);
}

TEST(usage_messages)
{
    const struct {
        const char *const *argv;
        const char *expect;
    } cases[] = {
        {(const char *const[]){"frob", NULL},
         "argument command: invalid choice: 'frob' (choose from 'check', 'inspect', 'compare', 'history')"},
        {(const char *const[]){"check", NULL},
         "the following arguments are required: MODEL, -t/--target-profile, --profiling-data"},
        {(const char *const[]){BASE, "--frob", "x", NULL},
         "unrecognized arguments: --frob x"},
        {(const char *const[]){BASE, "-qd", NULL},
         "unrecognized arguments: -qd"},
        {(const char *const[]){"check", "m.etrecord", "-t", "ethos-u55-128", "--performance", "--profiling-data", "d.etdump", NULL},
         "Target profile 'ethos-u55-128' is not supported; supported: neural-technology."},
        {(const char *const[]){"check", "m.etrecord", "-t", "neural-technology", "--profiling-data", "d.etdump", NULL},
         "Neural Technology profiling data currently supports performance analysis only."},
        {(const char *const[]){BASE, "--compatibility", NULL},
         "Backend does not support --compatibility with --profiling-data. Use --performance instead."},
        {(const char *const[]){BASE, "--profiling-data", "d.etdump", NULL},
         "--profiling-data: d.etdump is given more than once."},
        {(const char *const[]){BASE, "--profiling-data", "e.bin", NULL},
         "e.bin: unsupported profiling data file; expected an ETDump (.etdump or .etdp)."},
        {(const char *const[]){BASE, "-b", "a", "-b", "b", NULL},
         "--profiling-data requires exactly one --backend value."},
        {(const char *const[]){BASE, "-bethos-u", NULL},
         "Backend 'ethos-u' does not support profiling data."},
        {(const char *const[]){"check", "m.tflite", "-t", "neural-technology", "--performance", "--profiling-data", "d.etdump", NULL},
         "m.tflite: unsupported model file; expected an ETRecord (.etrecord or .bin)."},
        {(const char *const[]){"check", "m.etrecord", "-t", "neural-technology", "--performance", "--profiling-data", "d.bin", NULL},
         "d.bin: unsupported profiling data file; expected an ETDump (.etdump or .etdp)."},
        {(const char *const[]){"check", "m.etrecord", "-t", "neural-technology", "--performance", "--profiling-data", ".etdump", NULL},
         ".etdump: unsupported profiling data file; expected an ETDump (.etdump or .etdp)."},
        {(const char *const[]){BASE, "--companion-model", "c.vgf", NULL},
         "c.vgf: unsupported companion model file; expected a PTE (.pte)."},
        {(const char *const[]){BASE, "--model-explorer", "x", NULL},
         "argument --model-explorer: invalid choice: 'x' (choose from 'files', 'open')"},
        {(const char *const[]){BASE, "-t", NULL},
         "argument -t/--target-profile: expected one argument"},
        {(const char *const[]){BASE, "--method", NULL},
         "unrecognized arguments: --method"},
        {(const char *const[]){BASE, "--companion-model=", NULL},
         "argument --companion-model: expected a non-empty value"},
        {(const char *const[]){BASE, "--performance=1", NULL},
         "argument --performance: ignored explicit argument '1'"},
        {(const char *const[]){"inspect", NULL},
         "the following arguments are required: FILE"},
        {(const char *const[]){"inspect", "a", "b", "--json", NULL},
         "unrecognized arguments: b --json"},
        {(const char *const[]){"", NULL},
         "argument command: invalid choice: '' (choose from 'check', 'inspect', 'compare', 'history')"},
        {(const char *const[]){"-x", NULL},
         "unrecognized arguments: -x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(parse_list(cases[i].argv), 2);
        CHECK_STR(msg, cases[i].expect);
    }
}

TEST(several_etdumps_are_kept_in_order)
{
    CHECK_INT(PARSE(BASE, "--profiling-data", "2.etdump", "--profiling-data", "3.etdump", "--profiling-data",
                    "4.etdump", "--profiling-data", "5.etdump", "--profiling-data", "6.etdump",
                    "--profiling-data", "7.etdump", "--profiling-data", "8.etdump", "--profiling-data",
                    "9.etdump", "--profiling-data=10.etdp"),
              0);
    CHECK_INT(args->check.n_etdump_paths, 10);
    CHECK_STR(args->check.etdump_paths[0], "d.etdump");
    CHECK_STR(args->check.etdump_paths[8], "9.etdump");
    CHECK_STR(args->check.etdump_paths[9], "10.etdp");
}

TEST(tick_rate_and_warmup)
{
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "250e6",
                    "--neural-technology-profiling-data.warmup-executions=3"),
              0);
    CHECK(args->check.ticks_per_second == 250e6);
    CHECK_INT(args->check.warmup_executions, 3);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second=19.2E6"), 0);
    CHECK(args->check.ticks_per_second == 19.2e6);
    CHECK_INT(args->check.warmup_executions, 0);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "1e15"), 0);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", ".5e1"), 0);
    CHECK(args->check.ticks_per_second == 5.0);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "0.5"), 2);
    CHECK_STR(msg, "argument --neural-technology-profiling-data.ticks-per-second: invalid value: '0.5' (ticks per "
                   "second: a number from 1 to 1e15, e.g. 250e6)");
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "nan"), 2);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.warmup-executions", "999999999"), 0);
    CHECK_INT(args->check.warmup_executions, 999999999);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.warmup-executions", "-1"), 2);
    CHECK_STR(msg, "argument --neural-technology-profiling-data.warmup-executions: expected one argument");
    CHECK_INT(PARSE("inspect", "x.etdump", "--neural-technology-profiling-data.warmup-executions", "1"), 2);
    CHECK_STR(msg, "unrecognized arguments: --neural-technology-profiling-data.warmup-executions 1");
}

TEST(too_many_etdumps)
{
    /* 1025 --profiling-data values: counted, the rule names the limit */
    static char names[MLIA_OPT_MAX_ITEMS + 1][24];
    static char *argv[2 * (MLIA_OPT_MAX_ITEMS + 1) + 8];
    int argc = 0;
    const char *head[] = {"mlia", "check", "m.etrecord", "-t", "neural-technology", "--performance"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        argv[argc++] = (char *)head[i];
    for (int i = 0; i <= (int)MLIA_OPT_MAX_ITEMS; i++) {
        snprintf(names[i], sizeof names[i], "%d.etdump", i);
        argv[argc++] = "--profiling-data";
        argv[argc++] = names[i];
    }
    static mlia_cli_args a;
    char m[256];
    CHECK_INT(mlia_cli_parse(argc, argv, &a, m, sizeof m), 0);
    CHECK_INT(a.set.v[MLIA_OPT_PROFILING].count, MLIA_OPT_MAX_ITEMS + 1);
    CHECK_INT(mlia_cli_validate(&a, m, sizeof m), 2);
    CHECK_STR(m, "At most 1024 ETDumps are supported by --profiling-data; got 1025.");
    CHECK_INT(mlia_cli_parse(argc - 2, argv, &a, m, sizeof m), 0);
    CHECK_INT(mlia_cli_validate(&a, m, sizeof m), 0);
}

TEST(backend_names)
{
    /* names compare ignoring case and '-' */
    const char *ok[] = {"neural-technology-profiling-data", "Neural-Technology-Profiling-Data",
                        "neuraltechnologyprofilingdata", "-neural-technology-profiling-data-"};
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        char opt[80];
        snprintf(opt, sizeof opt, "--backend=%s", ok[i]);
        CHECK_INT(PARSE(BASE, opt), 0);
    }
    const char *bad[] = {"neural-technology", "neural-technology-profiling-data-x",
                         "neural_technology_profiling_data"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        CHECK_INT(PARSE(BASE, "-b", bad[i]), 2);
        char want[200];
        snprintf(want, sizeof want, "Backend '%s' does not support profiling data.", bad[i]);
        CHECK_STR(msg, want);
    }
    CHECK_INT(PARSE(BASE, "--backend="), 2);
    CHECK_STR(msg, "argument -b/--backend: expected a non-empty value");
}

TEST(short_aliases)
{
    /* the 52-character flags have shorter aliases: the same option */
    CHECK_INT(PARSE(BASE, "--ticks-per-second", "250e6", "--warmup-executions=2", "--etrecord-method", "m"), 0);
    CHECK(args->check.ticks_per_second == 250e6);
    CHECK_INT(args->check.warmup_executions, 2);
    CHECK_STR(args->check.method, "m");
    /* the message names the option by its flag */
    CHECK_INT(PARSE(BASE, "--ticks-per-second", "0"), 2);
    CHECK_STR(msg, "argument --neural-technology-profiling-data.ticks-per-second: invalid value: '0' (ticks per "
                   "second: a number from 1 to 1e15, e.g. 250e6)");
    CHECK_INT(PARSE(BASE, "--tick-per-second", "5"), 2);
    CHECK_STR(msg, "unrecognized arguments: --tick-per-second (did you mean --ticks-per-second?) 5");
}

TEST(csv_tables_chosen)
{
    /* issue 29, 7: --csv alone writes the default tables, --csv-tables chooses (implies --csv) */
    CHECK_INT(PARSE(BASE), 0);
    CHECK_INT(args->check.csv, 0);
    CHECK_INT(PARSE(BASE, "--csv"), 0);
    CHECK_INT(args->check.csv, MLIA_RUN_CSV_OPERATORS | MLIA_RUN_CSV_CHAINS | MLIA_RUN_CSV_MEMORY | MLIA_RUN_CSV_MODULES);
    CHECK_INT(PARSE(BASE, "--csv-tables", "executions,operators"), 0);
    CHECK_INT(args->check.csv, MLIA_RUN_CSV_EXECUTIONS | MLIA_RUN_CSV_OPERATORS);
    CHECK_INT(PARSE(BASE, "--csv-tables=chains", "--csv-tables", "memory"), 0); /* repeated: the union */
    CHECK_INT(args->check.csv, MLIA_RUN_CSV_CHAINS | MLIA_RUN_CSV_MEMORY);
    CHECK_INT(PARSE(BASE, "--csv-tables", "all"), 0);
    CHECK_INT(args->check.csv, MLIA_RUN_CSV_ALL);
    CHECK_INT(PARSE(BASE, "--csv-tables", "operators,,chains"), 2);
    CHECK_STR(msg, "argument --csv-tables: invalid choice: '' (choose from 'operators', 'chains', 'executions', "
                   "'memory', 'modules', 'all')");
    CHECK_INT(PARSE(BASE, "--csv-tables", "chain"), 2);
    CHECK_STR(msg, "argument --csv-tables: invalid choice: 'chain' (choose from 'operators', 'chains', 'executions', "
                   "'memory', 'modules', 'all')");
}

TEST(command_typo_suggested)
{
    CHECK_INT(PARSE("chek"), 2);
    CHECK_STR(msg, "argument command: invalid choice: 'chek' (choose from 'check', 'inspect', 'compare', 'history'); did you "
                   "mean 'check'?");
    CHECK_INT(PARSE("frobnicate"), 2);
    CHECK_STR(msg, "argument command: invalid choice: 'frobnicate' (choose from 'check', 'inspect', 'compare', 'history')");
}

TEST(compare_command_line)
{
    CHECK_INT(PARSE("compare", "a", "b", "--threshold", "2.5", "--json", "--fail-on-regression"), 0);
    CHECK_INT(args->compare.n_baselines, 1);
    CHECK_STR(args->compare.baselines[0], "a");
    CHECK_STR(args->compare.new_run, "b");
    CHECK(args->compare.threshold == 2.5 && args->compare.fail_on_regression && args->json);
    /* BASELINE before the --baseline runs; with them, one positional is NEW */
    CHECK_INT(PARSE("compare", "--baseline", "x", "a", "b", "--baseline=y"), 0);
    CHECK_INT(args->compare.n_baselines, 3);
    CHECK_STR(args->compare.baselines[0], "a");
    CHECK_STR(args->compare.baselines[1], "x");
    CHECK_STR(args->compare.baselines[2], "y");
    CHECK_INT(PARSE("compare", "--baseline", "x", "n"), 0);
    CHECK_INT(args->compare.n_baselines, 1);
    CHECK_STR(args->compare.new_run, "n");
    CHECK(args->compare.threshold < 0);
    const struct {
        const char *const *argv;
        const char *expect;
    } cases[] = {
        {(const char *const[]){"compare", NULL}, "the following arguments are required: BASELINE, NEW"},
        {(const char *const[]){"compare", "a", NULL}, "the following arguments are required: NEW"},
        {(const char *const[]){"compare", "a", "b", "c", NULL}, "unrecognized arguments: c"},
        {(const char *const[]){"compare", "a", "b", "--treshold", "1", NULL},
         "unrecognized arguments: --treshold (did you mean --threshold?) 1"},
        {(const char *const[]){"compare", "a", "b", "--threshold", "nan", NULL},
         "argument --threshold: invalid value: 'nan' (expected a non-negative number of percent)"},
        {(const char *const[]){"compare", "a", "b", "--threshold=-1", NULL},
         "argument --threshold: invalid value: '-1' (expected a non-negative number of percent)"},
        {(const char *const[]){"compare", "a", "b", "--csv", NULL}, "unrecognized arguments: --csv"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(parse_list(cases[i].argv), 2);
        CHECK_STR(msg, cases[i].expect);
    }
}

TEST(history_options)
{
    /* --history with a location, alone (argparse's nargs='?'), and --label repeated */
    CHECK_INT(PARSE(BASE, "--history", "h.sqlite", "--label", "commit=abc", "--label=device=board-3"), 0);
    CHECK_STR(args->check.history, "h.sqlite");
    CHECK_INT(args->check.n_history_labels, 2);
    CHECK_STR(args->check.history_labels[0], "commit=abc");
    CHECK_STR(args->check.history_labels[1], "device=board-3");
    CHECK_INT(PARSE(BASE, "--history", "-q"), 0);
    CHECK_STR(args->check.history, "");
    CHECK(args->quiet);
    CHECK_INT(PARSE(BASE, "--history"), 0);
    CHECK_STR(args->check.history, "");
    CHECK_INT(PARSE(BASE), 0);
    CHECK(args->check.history == NULL);
    /* compare: NEW alone with --baseline-history */
    CHECK_INT(PARSE("compare", "n", "--baseline-history", "h.sqlite", "--last", "3", "--label", "device=x"), 0);
    CHECK_STR(args->compare.new_run, "n");
    CHECK_INT(args->compare.n_baselines, 0);
    CHECK_STR(args->compare.baseline_history, "h.sqlite");
    CHECK_INT(args->compare.history_last, 3);
    CHECK_INT(args->compare.n_history_labels, 1);
    /* history */
    CHECK_INT(PARSE("history", "h.sqlite", "--model", "m", "--last", "5", "--format", "csv", "--entity", "op"), 0);
    CHECK_INT(args->set.command, MLIA_CMD_HISTORY);
    CHECK_STR(args->history.location, "h.sqlite");
    CHECK_STR(args->history.model, "m");
    CHECK_STR(args->history.format, "csv");
    CHECK_STR(args->history.entity, "op");
    CHECK_INT(args->history.last, 5);
    CHECK_INT(PARSE("history"), 0);
    CHECK(args->history.location == NULL);
    CHECK_STR(args->history.format, "table");
    const struct {
        const char *const *argv;
        const char *expect;
    } cases[] = {
        {(const char *const[]){BASE, "--label", "commit=abc", NULL},
         "--label requires --history (or MLIA_HISTORY): labels belong to a recorded run."},
        {(const char *const[]){BASE, "--history", "h", "--label", "=abc", NULL},
         "argument --label: invalid value: '=abc' (expected KEY=VALUE (KEY: letters, digits, '_', '.', '-'))"},
        {(const char *const[]){BASE, "--history", "h", "--label", "commit", NULL},
         "argument --label: invalid value: 'commit' (expected KEY=VALUE (KEY: letters, digits, '_', '.', '-'))"},
        {(const char *const[]){BASE, "--history=", NULL}, "argument --history: expected a non-empty value"},
        {(const char *const[]){"compare", "a", "n", "--baseline-history", "h", NULL},
         "--baseline-history takes the baseline from the history: give NEW only (no BASELINE, no --baseline)"},
        {(const char *const[]){"compare", "a", "n", "--last", "3", NULL}, "--last requires --baseline-history."},
        {(const char *const[]){"compare", "a", "n", "--label", "a=b", NULL}, "--label requires --baseline-history."},
        {(const char *const[]){"compare", "n", "--baseline-history", "h", "--last", "0", NULL},
         "argument --last: invalid value: '0' (a whole number of runs, 1 to 1024)"},
        {(const char *const[]){"history", "--program", "abcdef12", "--model", "m", NULL},
         "argument --model: not allowed with argument --program"},
        {(const char *const[]){"history", "--format", "xml", NULL},
         "argument --format: invalid choice: 'xml' (choose from 'table', 'csv', 'json')"},
        {(const char *const[]){"history", "--last", "x", NULL},
         "argument --last: invalid value: 'x' (a whole number of runs, 1 to 1000000)"},
        {(const char *const[]){"history", "a", "b", NULL}, "unrecognized arguments: b"},
        {(const char *const[]){"history", "h", "--metrc", "x", NULL},
         "unrecognized arguments: --metrc (did you mean --metric?) x"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        CHECK_INT(parse_list(cases[i].argv), 2);
        CHECK_STR(msg, cases[i].expect);
    }
    /* at most 64 labels */
    const char *many[16 + 2 * 65];
    size_t k = 0;
    const char *base[] = {BASE, "--history", "h"};
    for (size_t i = 0; i < sizeof base / sizeof *base; i++)
        many[k++] = base[i];
    for (int i = 0; i < 65; i++) {
        many[k++] = "--label";
        many[k++] = "k=v";
    }
    many[k] = NULL;
    CHECK_INT(parse_list(many), 2);
    CHECK_STR(msg, "At most 64 --label values are supported; got 65.");
}

TEST(help_from_the_table)
{
    /* every row with a flag starts a line of the --help of each command that takes it */
    static char help[8192];
    for (int c = MLIA_CMD_NONE; c < MLIA_CMD_N; c++) {
        size_t len = mlia_cli_help((mlia_cmd)c, help, sizeof help);
        CHECK(len > 100 && len < sizeof help - 1);
        for (int i = 0; i < MLIA_OPT_N; i++) {
            const mlia_opt *o = &MLIA_OPTS[i];
            if (!o->flag || !(o->commands & MLIA_OPT_IN(c)))
                continue;
            char line[160];
            snprintf(line, sizeof line, "\n  %s%s%s", o->short_flag ? "-" : "", o->short_flag ? (char[]){o->short_flag, ',', ' ', 0} : "",
                     o->flag);
            CHECK(strstr(help, line) != NULL);
        }
    }
}

TEST(usage_lines)
{
    CHECK_STR(mlia_cli_usage(MLIA_CMD_CHECK),
              "usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP "
              "[options] (see 'mlia check --help')");
    CHECK_STR(mlia_cli_usage(MLIA_CMD_INSPECT), "usage: mlia inspect FILE");
    CHECK_STR(mlia_cli_usage(MLIA_CMD_NONE), "usage: mlia {check,inspect,compare,history} ... (see 'mlia --help')");
}

int main(void)
{
    RUN(valid_full_command_line);
    RUN(attached_and_repeated_values);
    RUN(global_flags_before_command);
    RUN(help_and_version);
    RUN(usage_messages);
    RUN(several_etdumps_are_kept_in_order);
    RUN(too_many_etdumps);
    RUN(tick_rate_and_warmup);
    RUN(backend_names);
    RUN(short_aliases);
    RUN(csv_tables_chosen);
    RUN(command_typo_suggested);
    RUN(compare_command_line);
    RUN(history_options);
    RUN(help_from_the_table);
    RUN(usage_lines);
    return test_summary();
}
