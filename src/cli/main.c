/*
 * main.c - the `mlia` executable: `mlia check ...`, `mlia inspect FILE`.
 *
 * The executable only does what a library caller would not want: argument
 * handling (cli/args.c), exit statuses, checks that inputs exist before any
 * work, progress on a terminal, printing the summary or the JSON, and opening
 * the browser. The job itself is mlia_check() / mlia_inspect() of libmlia.
 *
 * Exit statuses: 0 success; 1 analysis or input error ("mlia: error:
 * <file>: <what>" on stderr); 2 usage error ("mlia: error: <message>" and
 * one usage line on stderr); 3 regressions found by `mlia compare
 * --fail-on-regression` (cli/compare_cli.c). See docs/cli.md.
 *
 * Progress: mlia_check() reports stage names through a callback. When stderr
 * is a terminal and --quiet is off, a helper thread waits ~0.5 s after the
 * start and then prints the current stage and each later one, so fast runs
 * print nothing. With --debug every stage is printed at once with the
 * elapsed time, terminal or not. All progress state lives in a struct on
 * main's stack.
 *
 * Out of memory: the library never exits (core/oom.h); each entry point
 * turns an allocation failure into its error return, which main prints as
 * any error (exit 1). main also enters a recovery point of its own for the
 * core helpers it calls directly, so the one place that decides to end the
 * process on out of memory is here, in the command line: "mlia: error: out
 * of memory (requested N bytes)", exit 1.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/args.h"
#include "cli/compare_cli.h"
#include "cli/console.h"
#include "cli/history_cli.h"
#include "core/error.h"
#include "core/file.h"
#include "core/oom.h"
#include "mlia/mlia.h"
#include "cli/browser.h"
#include "report/outdir.h"

#define PROGRESS_DELAY_MS 500

typedef struct progress {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct timespec start;       /* CLOCK_MONOTONIC */
    const char *stage;           /* latest stage (static string of the library) */
    unsigned seq, shown_seq;
    bool done;
    bool tty;                    /* helper thread prints delayed stages */
    bool debug;                  /* print every stage at once with timing */
    bool thread_started;
    pthread_t thread;
} progress;

static double elapsed_s(const struct timespec *start)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

static void on_progress(void *ctx, const char *stage)
{
    progress *p = ctx;
    pthread_mutex_lock(&p->mu);
    p->stage = stage;
    p->seq++;
    if (p->debug) {
        fprintf(stderr, "mlia: [%.3f s] %s\n", elapsed_s(&p->start), stage);
        p->shown_seq = p->seq;
    }
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

static void *progress_thread(void *arg)
{
    progress *p = arg;
    struct timespec deadline = p->start;
    deadline.tv_nsec += (long)PROGRESS_DELAY_MS * 1000000L;
    deadline.tv_sec += deadline.tv_nsec / 1000000000L;
    deadline.tv_nsec %= 1000000000L;
    pthread_mutex_lock(&p->mu);
    /* Quiet period: fast runs show nothing. */
    while (!p->done) {
        int rc = pthread_cond_timedwait(&p->cv, &p->mu, &deadline);
        if (rc == ETIMEDOUT)
            break;
    }
    while (!p->done) {
        if (p->stage && p->seq != p->shown_seq) {
            fprintf(stderr, "mlia: %s...\n", p->stage);
            p->shown_seq = p->seq;
        }
        pthread_cond_wait(&p->cv, &p->mu);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

static void progress_start(progress *p, bool tty, bool debug)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->mu, NULL);
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_cond_init(&p->cv, &attr);
    pthread_condattr_destroy(&attr);
    clock_gettime(CLOCK_MONOTONIC, &p->start);
    p->debug = debug;
    p->tty = tty && !debug;
    if (p->tty && pthread_create(&p->thread, NULL, progress_thread, p) == 0)
        p->thread_started = true;
}

static void progress_stop(progress *p)
{
    pthread_mutex_lock(&p->mu);
    p->done = true;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
    if (p->thread_started)
        pthread_join(p->thread, NULL);
    if (p->debug)
        fprintf(stderr, "mlia: [%.3f s] done\n", elapsed_s(&p->start));
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
}

/* Every message on stderr goes through here: one line, input text escaped
 * (mlia_escape_text) so that a file or device name cannot move the cursor,
 * set the terminal title or start a second line. */
static void print_error(const char *msg)
{
    size_t n = strlen(msg), cap = n * 6 + 1;
    char stack[4096];
    char *safe = cap <= sizeof stack ? stack : malloc(cap);
    if (!safe) {
        fputs("mlia: error: out of memory\n", stderr);
        return;
    }
    mlia_escape_text(safe, cap, msg, n);
    fprintf(stderr, "mlia: error: %s\n", safe);
    if (safe != stack)
        free(safe);
}

static int usage_fail(mlia_cmd command, const char *msg)
{
    print_error(msg);
    fprintf(stderr, "%s\n", mlia_cli_usage(command));
    return 2;
}

static int input_fail(const char *msg)
{
    print_error(msg);
    return 1;
}

static int path_fail(const char *path, const char *what)
{
    mlia_error err;
    mlia_error_clear(&err);
    mlia_error_setf(&err, path, "%s", what);
    return input_fail(err.text);
}

/* An input must exist, be a regular file and be readable; reported before
 * any work. stat() never blocks, so a FIFO or a device is refused here,
 * before anything could open it (the readers refuse them too). */
static int check_input(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return path_fail(path, strerror(errno));
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_file_check_regular(path, st.st_mode, &err) != 0)
        return input_fail(err.text);
    if (access(path, R_OK) != 0)
        return path_fail(path, strerror(errno));
    return 0;
}

/* Flushes stdout; a write error (disk full, closed pipe) is an error too. */
static int finish_stdout(int rc)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        path_fail("standard output", strerror(errno ? errno : EIO));
        return rc ? rc : 1;
    }
    return rc;
}

static int run_inspect(const mlia_cli_args *a)
{
    if (check_input(a->file) != 0)
        return 1;
    /* streamed: a capture of millions of events is never held as text */
    char *error = NULL;
    if (mlia_inspect_to(a->file, stdout, &error) != 0) {
        int rc = input_fail(error ? error : "inspect failed");
        mlia_free(error);
        return rc;
    }
    return finish_stdout(0);
}

/* "Files:" lists every file of the output folder a user opens (issue 29, 5:
 * the summary omitted the trace and the CSV tables it wrote), as found on
 * disk after the run, in a fixed order. */
static void print_files(const char *output_path)
{
    static const char *const names[] = {
        "mlia-output.json", "logs/mlia.log",         "trace.pftrace",          "trace.json",
        "csv/operators.csv", "csv/chains.csv",       "csv/executions.csv",     "csv/modules.csv",
        "csv/memory.csv",    "csv/memory_tensors.csv", "model-explorer/manifest.json"};
    bool any = false;
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        /* no allocation: the outputs are committed, nothing may fail now */
        char path[4096];
        struct stat st;
        if (snprintf(path, sizeof path, "%s/%s", output_path, names[i]) < (int)sizeof path && stat(path, &st) == 0 &&
            S_ISREG(st.st_mode)) {
            printf("%s%s", any ? ", " : "Files:  ", names[i]);
            any = true;
        }
    }
    if (any)
        putchar('\n');
}

static bool is_directory(const char *path)
{
    struct stat st;
    return path && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* A folder where a file goes (issue 29, 6: it was "unsupported ... file"),
 * before the usage rules, which judge names: 1 with msg set, else 0. */
static int check_folders(const mlia_opt_set *s, char *msg, size_t n)
{
    static const char *const etdump = "an ETDump file (.etdump or .etdp)", *dbuf = "the debug buffer file";
    const struct {
        mlia_opt_id id;
        const char *what;
    } places[] = {{MLIA_OPT_MODEL, "the ETRecord file itself (.etrecord or .bin)"},
                  {MLIA_OPT_PROFILING, etdump},
                  {MLIA_OPT_COMPANION, "the PTE file (.pte)"},
                  {MLIA_OPT_DEBUG_BUFFER, dbuf},
                  {MLIA_OPT_REF_PROFILING, etdump},
                  {MLIA_OPT_REF_DEBUG_BUFFER, dbuf}};
    for (size_t i = 0; i < sizeof places / sizeof *places; i++) {
        const mlia_opt_value *v = &s->v[places[i].id];
        uint32_t k = v->items ? v->n_items : v->count ? 1 : 0;
        for (uint32_t j = 0; j < k; j++) {
            const char *path = v->items ? v->items[j] : v->text;
            if (is_directory(path)) {
                mlia_error err;
                mlia_error_clear(&err);
                mlia_error_setf(&err, path, "is a directory; give %s", places[i].what);
                snprintf(msg, n, "%s", err.text);
                return 1;
            }
        }
    }
    return 0;
}

static int run_check(const mlia_cli_args *a, int argc, char **argv)
{
    const mlia_check_config *c = &a->check;
    /* Inputs exist, and the output folder is usable, before any work. */
    if (check_input(c->etrecord_path) != 0)
        return 1;
    for (int i = 0; i < c->n_etdump_paths; i++)
        if (check_input(c->etdump_paths[i]) != 0)
            return 1;
    if ((c->companion_path && check_input(c->companion_path) != 0) ||
        (c->debug_buffer_path && check_input(c->debug_buffer_path) != 0) ||
        (c->reference_etdump_path && check_input(c->reference_etdump_path) != 0) ||
        (c->reference_debug_buffer_path && check_input(c->reference_debug_buffer_path) != 0))
        return 1;
    const char *output_dir = c->output_dir ? c->output_dir : ".";
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_outdir_check(output_dir, &err) != 0)
        return input_fail(err.text);

    mlia_check_options opts = MLIA_CHECK_OPTIONS_INIT;
    opts.etrecord_path = c->etrecord_path;
    opts.etdump_path = c->etdump_paths[0];
    if (c->n_etdump_paths > 1) {
        opts.etdump_paths = c->etdump_paths;
        opts.n_etdump_paths = c->n_etdump_paths;
    }
    opts.companion_path = c->companion_path;
    opts.output_dir = output_dir;
    opts.model_explorer = c->model_explorer;
    opts.method = c->method;
    opts.debug_buffer_path = c->debug_buffer_path;
    opts.trace = c->trace;
    opts.reference_etdump_path = c->reference_etdump_path;
    opts.reference_debug_buffer_path = c->reference_debug_buffer_path;
    opts.ticks_per_second = c->ticks_per_second;
    opts.warmup_executions = c->warmup_executions;
    opts.csv = c->csv;
    opts.history = c->history;
    opts.history_labels = c->history_labels;
    opts.n_history_labels = c->n_history_labels;
    opts.cli_args = (const char *const *)(argv + 1);
    opts.n_cli_args = argc - 1;
    opts.console_width = mlia_cli_console_width();

    progress prog;
    progress_start(&prog, !a->quiet && isatty(STDERR_FILENO), a->debug);
    opts.progress = on_progress;
    /* the document goes to its file as it is written; the text is only
     * needed to print it */
    opts.skip_result_json_text = !a->json;
    opts.progress_ctx = &prog;

    mlia_check_output out;
    memset(&out, 0, sizeof out);
    char *error = NULL;
    int rc = mlia_check(&opts, &out, &error);
    progress_stop(&prog);
    if (rc != 0) {
        input_fail(error ? error : "analysis failed");
        mlia_free(error);
        return 1;
    }
    if (a->json) {
        if (out.result_json)
            fputs(out.result_json, stdout);
    } else if (!a->quiet) {
        if (out.console)
            fputs(out.console, stdout);
        if (out.output_path) {
            printf("\nOutput: %s\n", out.output_path);
            print_files(out.output_path);
        }
        if (out.page_path)
            printf("Page: %s\n", out.page_path);
        else if (out.output_path && !c->model_explorer)
            printf("Page: not written (--model-explorer files writes it, --model-explorer open opens it too)\n");
        if (out.model_explorer_command)
            printf("Open in Google's Model Explorer (pip install ai-edge-model-explorer; man mlia, FILES):\n  %s\n",
                   out.model_explorer_command);
        if (out.model_explorer_command && out.model_explorer_hint)
            printf("  %s\n", out.model_explorer_hint);
    }
    if (c->model_explorer && strcmp(c->model_explorer, "open") == 0 && out.page_path) {
        fflush(stdout);
        /* Keep stdout pure JSON with --json, and silent with --quiet. */
        mlia_browser_open(out.page_path, a->json || a->quiet ? stderr : stdout);
    }
    /* status incompatible: the outputs are written, the run is not ok */
    int status = 0;
    if (out.status_error) {
        fflush(stdout);
        input_fail(out.status_error);
        status = 1;
    }
    mlia_check_output_free(&out);
    return finish_stdout(status);
}

/* MLIA_HISTORY (docs/history.md): the history `mlia check` records every
 * run into (also --history given alone) and `mlia history` lists when no
 * LOCATION is given. Set as if given on the command line; 0, or 2. */
static int history_from_env(mlia_cli_args *a, char *msg, size_t n)
{
    const char *env = getenv("MLIA_HISTORY");
    if (!env || !*env)
        return 0;
    mlia_opt_id id = a->set.command == MLIA_CMD_CHECK     ? MLIA_OPT_HISTORY
                     : a->set.command == MLIA_CMD_HISTORY ? MLIA_OPT_HIST_LOCATION
                                                          : MLIA_OPT_N;
    if (id == MLIA_OPT_N || a->set.v[id].text)
        return 0;
    return mlia_opt_set_text(&a->set, id, env, msg, n);
}

static int run_main(int argc, char **argv)
{
    /* about 30 KB (the option set keeps up to 1024 values of each repeated
     * option): off the stack */
    mlia_cli_args *a = malloc(sizeof *a);
    if (!a)
        return input_fail("out of memory");
    char msg[4096];
    int rc;
    if (mlia_cli_parse(argc, argv, a, msg, sizeof msg) != 0) {
        rc = usage_fail(a->set.command, msg);
    } else if (a->help) {
        char help[8192];
        mlia_cli_help(a->set.command, help, sizeof help);
        fputs(help, stdout);
        rc = finish_stdout(0);
    } else if (a->version) {
        puts("mlia " MLIA_VERSION);
        rc = finish_stdout(0);
    } else if (a->set.command == MLIA_CMD_CHECK && check_folders(&a->set, msg, sizeof msg) != 0) {
        rc = input_fail(msg);
    } else if (history_from_env(a, msg, sizeof msg) || mlia_cli_validate(a, msg, sizeof msg) != 0) {
        rc = usage_fail(a->set.command, msg);
    } else if (a->set.command == MLIA_CMD_INSPECT) {
        rc = run_inspect(a);
    } else if (a->set.command == MLIA_CMD_COMPARE) {
        rc = mlia_cli_compare(a);
    } else if (a->set.command == MLIA_CMD_HISTORY) {
        rc = mlia_cli_history(a);
    } else {
        /* Ctrl-C, kill and hang-up remove the temporary output tree. */
        mlia_outdir_cleanup_on_signals();
        rc = run_check(a, argc, argv);
    }
    free(a);
    return rc;
}

int main(int argc, char **argv)
{
    mlia_oom_point oom;
    mlia_oom_enter(&oom);
    if (setjmp(oom.jump)) {
        mlia_error err;
        mlia_oom_error(&err, NULL, &oom, &MLIA_OOM_ANALYSIS);
        fprintf(stderr, "mlia: error: %s\n", err.text);
        return 1;
    }
    int rc = run_main(argc, argv);
    mlia_oom_leave(&oom);
    return rc;
}
