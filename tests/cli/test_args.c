/*
 * test_args.c - parsing and usage rules of the command line, without the
 * executable. src/cli/ is not part of libmlia.a, so the parser is compiled
 * into this test directly. tests/py/test_cli.py covers the same rules
 * end to end through the binary.
 */
#include "cli/args.c"

#include "test.h"

/* Parses then validates a NULL-terminated list; returns the status and
 * leaves the message in msg. */
static char msg[1024];
static mlia_cli_args args;

static int parse_list(const char *const *list)
{
    char *argv[64];
    int argc = 0;
    argv[argc++] = "mlia";
    for (; *list; list++)
        argv[argc++] = (char *)*list;
    argv[argc] = NULL;
    int rc = mlia_cli_parse(argc, argv, &args, msg, sizeof msg);
    if (rc == 0 && !args.help && !args.version)
        rc = mlia_cli_validate(&args, msg, sizeof msg);
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
    CHECK_INT(args.command, MLIA_CLI_CHECK);
    CHECK_STR(args.model, "m.etrecord");
    CHECK_STR(args.target_profile, "neural-technology");
    CHECK_INT(args.n_profiling_data, 1);
    CHECK_STR(args.profiling_data[0], "d.etdump");
    CHECK_STR(args.companion, "c.pte");
    CHECK_STR(args.output_dir, "out");
    CHECK_STR(args.model_explorer, "open");
    CHECK_STR(args.method, "decode");
    CHECK(args.json && args.quiet && args.debug && args.performance && !args.compatibility);
    CHECK_INT(args.n_backends, 1);
}

TEST(attached_and_repeated_values)
{
    CHECK_INT(PARSE("check", "-tneural-technology", "--profiling-data=d.etdp", "--performance",
                    "--output-dir", "a", "--output-dir", "b", "--", "-model.etrecord"),
              0);
    CHECK_STR(args.output_dir, "b");
    CHECK_STR(args.model, "-model.etrecord");
    CHECK_STR(args.profiling_data[0], "d.etdp");
}

TEST(global_flags_before_command)
{
    CHECK_INT(PARSE("-q", "--debug", BASE), 0);
    CHECK(args.quiet && args.debug);
}

TEST(help_and_version)
{
    CHECK_INT(PARSE("check", "--frob", "-h"), 0);
    CHECK(args.help);
    CHECK_INT(args.command, MLIA_CLI_CHECK);
    CHECK_INT(PARSE("-v"), 0);
    CHECK(args.version);
    CHECK_INT(PARSE("--help", "frob"), 0); /* help wins over a bad command */
    CHECK(args.help);
}

TEST(usage_messages)
{
    const struct {
        const char *const *argv;
        const char *expect;
    } cases[] = {
        {(const char *const[]){"frob", NULL},
         "argument command: invalid choice: 'frob' (choose from 'check', 'inspect', 'compare')"},
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
         "argument command: invalid choice: '' (choose from 'check', 'inspect', 'compare')"},
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
    CHECK_INT(args.n_profiling_data, 10);
    CHECK_STR(args.profiling_data[0], "d.etdump");
    CHECK_STR(args.profiling_data[8], "9.etdump");
    CHECK_STR(args.profiling_data[9], "10.etdp");
}

TEST(tick_rate_and_warmup)
{
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "250e6",
                    "--neural-technology-profiling-data.warmup-executions=3"),
              0);
    CHECK(args.ticks_per_second == 250e6);
    CHECK_INT(args.warmup_executions, 3);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second=19.2E6"), 0);
    CHECK(args.ticks_per_second == 19.2e6);
    CHECK_INT(args.warmup_executions, 0);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "1e15"), 0);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", ".5e1"), 0);
    CHECK(args.ticks_per_second == 5.0);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "0.5"), 2);
    CHECK_STR(msg, "argument --neural-technology-profiling-data.ticks-per-second: invalid value: '0.5' (ticks per "
                   "second: a number from 1 to 1e15, e.g. 250e6)");
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.ticks-per-second", "nan"), 2);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.warmup-executions", "999999999"), 0);
    CHECK_INT(args.warmup_executions, 999999999);
    CHECK_INT(PARSE(BASE, "--neural-technology-profiling-data.warmup-executions", "-1"), 2);
    CHECK_STR(msg, "argument --neural-technology-profiling-data.warmup-executions: expected one argument");
    CHECK_INT(PARSE("inspect", "x.etdump", "--neural-technology-profiling-data.warmup-executions", "1"), 2);
    CHECK_STR(msg, "unrecognized arguments: --neural-technology-profiling-data.warmup-executions 1");
}

TEST(too_many_etdumps)
{
    /* 1025 --profiling-data values: counted, the rule names the limit */
    static char names[MLIA_CLI_MAX_PROFILING + 1][24];
    static char *argv[2 * (MLIA_CLI_MAX_PROFILING + 1) + 8];
    int argc = 0;
    const char *head[] = {"mlia", "check", "m.etrecord", "-t", "neural-technology", "--performance"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        argv[argc++] = (char *)head[i];
    for (int i = 0; i <= MLIA_CLI_MAX_PROFILING; i++) {
        snprintf(names[i], sizeof names[i], "%d.etdump", i);
        argv[argc++] = "--profiling-data";
        argv[argc++] = names[i];
    }
    mlia_cli_args a;
    char m[256];
    CHECK_INT(mlia_cli_parse(argc, argv, &a, m, sizeof m), 0);
    CHECK_INT(a.n_profiling_data, MLIA_CLI_MAX_PROFILING + 1);
    CHECK_INT(mlia_cli_validate(&a, m, sizeof m), 2);
    CHECK_STR(m, "At most 1024 ETDumps are supported by --profiling-data; got 1025.");
    CHECK_INT(mlia_cli_parse(argc - 2, argv, &a, m, sizeof m), 0);
    CHECK_INT(mlia_cli_validate(&a, m, sizeof m), 0);
}

TEST(backend_names)
{
    CHECK(mlia_cli_is_profiling_backend("neural-technology-profiling-data"));
    CHECK(mlia_cli_is_profiling_backend("Neural-Technology-Profiling-Data"));
    CHECK(mlia_cli_is_profiling_backend("neuraltechnologyprofilingdata"));
    CHECK(mlia_cli_is_profiling_backend("-neural-technology-profiling-data-"));
    CHECK(!mlia_cli_is_profiling_backend("neural-technology"));
    CHECK(!mlia_cli_is_profiling_backend("neural-technology-profiling-data-x"));
    CHECK(!mlia_cli_is_profiling_backend(""));
    CHECK(!mlia_cli_is_profiling_backend("neural_technology_profiling_data"));
}

TEST(usage_lines)
{
    CHECK_STR(mlia_cli_usage(MLIA_CLI_CHECK),
              "usage: mlia check MODEL -t neural-technology --performance --profiling-data ETDUMP "
              "[options] (see 'mlia check --help')");
    CHECK_STR(mlia_cli_usage(MLIA_CLI_INSPECT), "usage: mlia inspect FILE");
    CHECK_STR(mlia_cli_usage(MLIA_CLI_NONE), "usage: mlia {check,inspect,compare} ... (see 'mlia --help')");
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
    RUN(usage_lines);
    return test_summary();
}
