/*
 * test_compare_inputs.c - the memory `mlia compare` plans for (issue 28 item
 * 7): compare_input_bytes counts every input the options name, each run's
 * mlia-output.json and page, every run of a folder of runs, --baseline runs
 * and NEW; never a folder's own size, never only the first baseline.
 */
#include "pipeline/compare.h"

#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

static char root[] = "/tmp/mlia-cmp-inputs-XXXXXX";

static void write_file(const char *path, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return;
    for (size_t i = 0; i < n; i++)
        fputc('x', f);
    fclose(f);
}

/* DIR/<name>/mlia-output/mlia-output.json of json bytes (and a page of page bytes). */
static void make_run(const char *dir, const char *name, size_t json, size_t page)
{
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/mlia-output", dir, name);
    mkdir(p, 0755);
    snprintf(p, sizeof p, "%s/%s/mlia-output/mlia-output.json", dir, name);
    write_file(p, json);
    if (page) {
        snprintf(p, sizeof p, "%s/%s/mlia-output/model-explorer", dir, name);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/%s/mlia-output/model-explorer/bundle", dir, name);
        mkdir(p, 0755);
        snprintf(p, sizeof p, "%s/%s/mlia-output/model-explorer/bundle/index.html", dir, name);
        write_file(p, page);
    }
}

TEST(every_input_counts)
{
    char history[1024], base[1024], extra[1024], new_run[1024];
    snprintf(history, sizeof history, "%s/history", root);
    mkdir(history, 0755);
    /* 800 runs in a folder of runs: each counts, not the folder's 4 KB */
    for (int i = 0; i < 800; i++) {
        char name[32];
        snprintf(name, sizeof name, "run-%03d", i);
        make_run(history, name, 1000, 0);
    }
    make_run(root, "base", 3000, 500);
    make_run(root, "extra", 7000, 0);
    make_run(root, "new", 2000, 250);
    snprintf(base, sizeof base, "%s/base", root);
    snprintf(extra, sizeof extra, "%s/extra/mlia-output/mlia-output.json", root);
    snprintf(new_run, sizeof new_run, "%s/new", root);
    /* the resolved options (pipeline/options.h): BASELINE first, then every --baseline */
    const char *one[1] = {base}, *three[3] = {base, history, extra}, *missing[1] = {"/nonexistent/run"};
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_compare_config o;
    memset(&o, 0, sizeof o);
    o.baselines = one;
    o.n_baselines = 1;
    o.new_run = new_run;
    CHECK(compare_input_bytes(&o, &a) == 3000 + 500 + 2000 + 250);
    o.baselines = three;
    o.n_baselines = 3;
    CHECK(compare_input_bytes(&o, &a) == 3000 + 500 + 800 * 1000 + 7000 + 2000 + 250);
    /* a missing run counts nothing (reading it reports the error) */
    o.baselines = missing;
    o.n_baselines = 1;
    CHECK(compare_input_bytes(&o, &a) == 2000 + 250);
    mlia_arena_free(&a);
}

int main(void)
{
    if (!mkdtemp(root))
        return 1;
    RUN(every_input_counts);
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0)
        printf("  could not remove %s\n", root);
    return test_summary();
}
