/*
 * test_outdir.c - the DIR/mlia-output protocol: checks, temporary tree,
 * commit/abort, and never following symbolic links out of DIR.
 *
 * Every test works in a fresh mkdtemp() folder under $TMPDIR (or /tmp) and
 * removes it at the end.
 */
#include "report/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"

static char root[512];

static void make_root(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(root, sizeof root, "%s/mlia-outdir-XXXXXX", t && *t ? t : "/tmp");
    if (!mkdtemp(root)) {
        perror("mkdtemp");
        exit(2);
    }
}

static void drop_root(void)
{
    int fd = open("/", O_RDONLY | O_DIRECTORY);
    char *slash = strrchr(root, '/');
    *slash = 0;
    int parent = open(root[0] ? root : "/", O_RDONLY | O_DIRECTORY);
    mlia_remove_tree_at(parent, slash + 1);
    close(parent);
    close(fd);
    *slash = '/';
}

static const char *p(const char *rel)
{
    static char buf[4][PATH_MAX];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", root, rel);
    return buf[k];
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        perror(path);
        exit(2);
    }
    fputs(text, f);
    fclose(f);
}

static int read_text(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t got = fread(buf, 1, n - 1, f);
    buf[got] = 0;
    fclose(f);
    return 0;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Number of entries in a folder other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            n++;
    closedir(d);
    return n;
}

TEST(creates_missing_dir_and_commits)
{
    make_root();
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(p("out"), &od, &err), 0);
    CHECK(exists(p("out")));
    CHECK_STR(mlia_outdir_final_path(&od), p("out/mlia-output"));
    char expect_tmp[PATH_MAX];
    snprintf(expect_tmp, sizeof expect_tmp, "%s/.mlia-output.tmp-%ld-0", p("out"), (long)getpid());
    CHECK_STR(mlia_outdir_tmp_root(&od), expect_tmp);
    const char *log = mlia_outdir_path(&od, "logs/mlia.log", &err);
    CHECK(log != NULL);
    char expect_log[PATH_MAX + 32];
    snprintf(expect_log, sizeof expect_log, "%s/logs/mlia.log", expect_tmp);
    CHECK_STR(log, expect_log);
    write_text(log, "log\n");
    const char *deep = mlia_outdir_path(&od, "model-explorer/node-data/Source Model/runtime.json", &err);
    CHECK(deep != NULL);
    write_text(deep, "{}\n");
    CHECK(!exists(p("out/mlia-output")));
    CHECK_INT(mlia_outdir_commit(&od, &err), 0);
    CHECK_STR(mlia_outdir_final_path(&od), p("out/mlia-output")); /* still readable */
    mlia_outdir_abort(&od); /* releases; removes nothing after a commit */
    CHECK(mlia_outdir_final_path(&od) == NULL);
    char buf[64];
    CHECK_INT(read_text(p("out/mlia-output/logs/mlia.log"), buf, sizeof buf), 0);
    CHECK_STR(buf, "log\n");
    CHECK(exists(p("out/mlia-output/model-explorer/node-data/Source Model/runtime.json")));
    CHECK_INT(count_entries(p("out")), 1); /* no temporary or old sibling left */
    CHECK_INT(err.set, 0);
    drop_root();
}

TEST(replaces_previous_output)
{
    make_root();
    CHECK_INT(mkdir(p("mlia-output"), 0755), 0);
    CHECK_INT(mkdir(p("mlia-output/logs"), 0755), 0);
    write_text(p("mlia-output/logs/mlia.log"), "old\n");
    write_text(p("mlia-output/stale.json"), "{}\n");
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(root, &od, &err), 0);
    write_text(mlia_outdir_path(&od, "logs/mlia.log", &err), "new\n");
    CHECK_INT(mlia_outdir_commit(&od, &err), 0);
    mlia_outdir_abort(&od); /* releases; removes nothing after a commit */
    char buf[64];
    CHECK_INT(read_text(p("mlia-output/logs/mlia.log"), buf, sizeof buf), 0);
    CHECK_STR(buf, "new\n");
    CHECK(!exists(p("mlia-output/stale.json")));
    CHECK_INT(count_entries(root), 1);
    drop_root();
}

TEST(trailing_slash_dir)
{
    make_root();
    char dir[PATH_MAX + 8];
    snprintf(dir, sizeof dir, "%s/x//", root);
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(dir, &od, &err), 0);
    CHECK_STR(mlia_outdir_final_path(&od), p("x/mlia-output"));
    CHECK_INT(mlia_outdir_commit(&od, &err), 0);
    mlia_outdir_abort(&od); /* releases; removes nothing after a commit */
    CHECK(exists(p("x/mlia-output")));
    drop_root();
}

/* Issue 29, 5: missing parents are created (mkdir -p); "x/mlia-output"
 * names the output folder itself, never x/mlia-output/mlia-output. */
TEST(parent_missing)
{
    make_root();
    mlia_outdir od;
    mlia_error err = {0};
    const char *dir = p("nope/deeper/out");
    mlia_error err2 = {0};
    CHECK_INT(mlia_outdir_check(dir, &err2), 0);
    CHECK(!exists(p("nope")));
    CHECK_INT(mlia_outdir_begin(dir, &od, &err), 0);
    CHECK_INT(mlia_outdir_commit(&od, &err), 0);
    mlia_outdir_abort(&od);
    CHECK(exists(p("nope/deeper/out/mlia-output")));
    drop_root();
}

TEST(output_folder_named_directly)
{
    make_root();
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(p("runs/mlia-output"), &od, &err), 0);
    CHECK_INT(mlia_outdir_commit(&od, &err), 0);
    mlia_outdir_abort(&od);
    CHECK(exists(p("runs/mlia-output")));
    CHECK(!exists(p("runs/mlia-output/mlia-output")));
    drop_root();
}

TEST(parent_is_a_file)
{
    make_root();
    write_text(p("f"), "x");
    mlia_error err = {0};
    const char *dir = p("f/out/more");
    CHECK_INT(mlia_outdir_check(dir, &err), -1);
    char expect[2 * PATH_MAX + 64];
    snprintf(expect, sizeof expect, "%s: cannot create it: %s is not a directory", dir, p("f"));
    CHECK_STR(err.text, expect);
    drop_root();
}

TEST(dir_is_a_file)
{
    make_root();
    write_text(p("file"), "x");
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(p("file"), &od, &err), -1);
    char expect[PATH_MAX + 64];
    snprintf(expect, sizeof expect, "%s: exists and is not a directory", p("file"));
    CHECK_STR(err.text, expect);
    CHECK(od.active == false);
    drop_root();
}

TEST(output_is_a_file)
{
    make_root();
    write_text(p("mlia-output"), "precious");
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(root, &od, &err), -1);
    char expect[PATH_MAX + 64];
    snprintf(expect, sizeof expect, "%s: exists and is not a directory", p("mlia-output"));
    CHECK_STR(err.text, expect);
    char buf[32];
    CHECK_INT(read_text(p("mlia-output"), buf, sizeof buf), 0);
    CHECK_STR(buf, "precious");
    CHECK_INT(count_entries(root), 1); /* no temporary tree left behind */
    drop_root();
}

TEST(output_symlink_refused)
{
    make_root();
    CHECK_INT(mkdir(p("outside"), 0755), 0);
    write_text(p("outside/keep.txt"), "keep");
    CHECK_INT(mkdir(p("dir"), 0755), 0);
    CHECK_INT(symlink(p("outside"), p("dir/mlia-output")), 0);
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(p("dir"), &od, &err), -1);
    char expect[PATH_MAX + 64];
    snprintf(expect, sizeof expect, "%s: is a symbolic link; refusing to replace it",
             p("dir/mlia-output"));
    CHECK_STR(err.text, expect);
    mlia_error err2 = {0};
    CHECK_INT(mlia_outdir_check(p("dir"), &err2), -1);
    CHECK_STR(err2.text, expect);
    CHECK(exists(p("outside/keep.txt")));
    CHECK_INT(count_entries(p("outside")), 1);
    CHECK_INT(count_entries(p("dir")), 1);
    drop_root();
}

TEST(symlink_planted_before_commit_refused)
{
    make_root();
    CHECK_INT(mkdir(p("outside"), 0755), 0);
    write_text(p("outside/keep.txt"), "keep");
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(root, &od, &err), 0);
    write_text(mlia_outdir_path(&od, "mlia-output.json", &err), "{}\n");
    CHECK_INT(symlink(p("outside"), p("mlia-output")), 0);
    CHECK_INT(mlia_outdir_commit(&od, &err), -1);
    char expect[PATH_MAX + 64];
    snprintf(expect, sizeof expect, "%s: is a symbolic link; refusing to replace it",
             p("mlia-output"));
    CHECK_STR(err.text, expect);
    CHECK(exists(p("outside/keep.txt")));
    CHECK_INT(count_entries(p("outside")), 1);
    CHECK_INT(count_entries(root), 2); /* outside + the link; temporary tree removed */
    drop_root();
}

TEST(symlink_inside_old_tree_not_followed)
{
    make_root();
    CHECK_INT(mkdir(p("outside"), 0755), 0);
    CHECK_INT(mkdir(p("outside/sub"), 0755), 0);
    write_text(p("outside/keep.txt"), "keep");
    write_text(p("outside/sub/keep2.txt"), "keep");
    write_text(p("outside/file.txt"), "keep");
    CHECK_INT(mkdir(p("dir"), 0755), 0);
    CHECK_INT(mkdir(p("dir/mlia-output"), 0755), 0);
    CHECK_INT(mkdir(p("dir/mlia-output/logs"), 0755), 0);
    CHECK_INT(symlink(p("outside"), p("dir/mlia-output/logs/escape")), 0);
    CHECK_INT(symlink(p("outside/file.txt"), p("dir/mlia-output/file-link")), 0);
    CHECK_INT(symlink(p("outside/sub"), p("dir/mlia-output/sub")), 0);
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(p("dir"), &od, &err), 0);
    write_text(mlia_outdir_path(&od, "logs/mlia.log", &err), "new\n");
    CHECK_INT(mlia_outdir_commit(&od, &err), 0);
    mlia_outdir_abort(&od); /* releases; removes nothing after a commit */
    CHECK(!exists(p("dir/mlia-output/logs/escape")));
    CHECK(!exists(p("dir/mlia-output/file-link")));
    CHECK(exists(p("dir/mlia-output/logs/mlia.log")));
    CHECK(exists(p("outside/keep.txt")));
    CHECK(exists(p("outside/file.txt")));
    CHECK(exists(p("outside/sub/keep2.txt")));
    CHECK_INT(count_entries(p("outside")), 3);
    CHECK_INT(count_entries(p("dir")), 1);
    drop_root();
}

TEST(abort_leaves_previous_output_untouched)
{
    make_root();
    CHECK_INT(mkdir(p("mlia-output"), 0755), 0);
    write_text(p("mlia-output/mlia-output.json"), "old\n");
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(root, &od, &err), 0);
    write_text(mlia_outdir_path(&od, "mlia-output.json", &err), "half");
    write_text(mlia_outdir_path(&od, "logs/mlia.log", &err), "half");
    CHECK_INT(count_entries(root), 2);
    mlia_outdir_abort(&od);
    CHECK_INT(count_entries(root), 1);
    char buf[32];
    CHECK_INT(read_text(p("mlia-output/mlia-output.json"), buf, sizeof buf), 0);
    CHECK_STR(buf, "old\n");
    CHECK_INT(count_entries(p("mlia-output")), 1);
    mlia_outdir_abort(&od); /* second abort is harmless */
    drop_root();
}

TEST(abort_without_previous_output)
{
    make_root();
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(root, &od, &err), 0);
    write_text(mlia_outdir_path(&od, "a/b/c.json", &err), "x");
    mlia_outdir_abort(&od);
    CHECK_INT(count_entries(root), 0);
    drop_root();
}

TEST(two_trees_get_distinct_names)
{
    make_root();
    mlia_outdir a, b;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(root, &a, &err), 0);
    CHECK_INT(mlia_outdir_begin(root, &b, &err), 0);
    CHECK(strcmp(mlia_outdir_tmp_root(&a), mlia_outdir_tmp_root(&b)) != 0);
    char expect[PATH_MAX];
    snprintf(expect, sizeof expect, "%s/.mlia-output.tmp-%ld-1", root, (long)getpid());
    CHECK_STR(mlia_outdir_tmp_root(&b), expect);
    mlia_outdir_abort(&a);
    mlia_outdir_abort(&b);
    CHECK_INT(count_entries(root), 0);
    drop_root();
}

TEST(invalid_relative_paths)
{
    make_root();
    mlia_outdir od;
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_begin(root, &od, &err), 0);
    const char *bad[] = {"", "/etc/passwd", "../x", "a/../../x", "a//b", "a/./b", "a/", "."};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mlia_error e = {0};
        CHECK(mlia_outdir_path(&od, bad[i], &e) == NULL);
        char expect[PATH_MAX + 64];
        snprintf(expect, sizeof expect, "%s: invalid output path '%s'", mlia_outdir_tmp_root(&od),
                 bad[i]);
        CHECK_STR(e.text, expect);
    }
    CHECK(mlia_outdir_path(&od, "ok.json", &err) != NULL);
    mlia_outdir_abort(&od);
    CHECK_INT(count_entries(root), 0);
    drop_root();
}

TEST(inactive_outdir_errors)
{
    mlia_outdir od;
    memset(&od, 0, sizeof od);
    mlia_error err = {0};
    CHECK(mlia_outdir_path(&od, "x", &err) == NULL);
    CHECK_STR(err.text, "output folder is not open");
    mlia_error err2 = {0};
    CHECK_INT(mlia_outdir_commit(&od, &err2), -1);
    CHECK_STR(err2.text, "output folder is not open");
}

TEST(check_existing_and_missing_dir_ok)
{
    make_root();
    mlia_error err = {0};
    CHECK_INT(mlia_outdir_check(root, &err), 0);
    CHECK_INT(mlia_outdir_check(p("new"), &err), 0);
    CHECK(!exists(p("new"))); /* check never creates */
    CHECK_INT(err.set, 0);
    drop_root();
}

TEST(remove_tree_keeps_link_targets)
{
    make_root();
    CHECK_INT(mkdir(p("t"), 0755), 0);
    CHECK_INT(mkdir(p("t/a"), 0755), 0);
    CHECK_INT(mkdir(p("t/a/b"), 0755), 0);
    CHECK_INT(mkdir(p("target"), 0755), 0);
    write_text(p("target/x"), "x");
    write_text(p("t/a/b/f"), "f");
    CHECK_INT(symlink(p("target"), p("t/a/b/l")), 0);
    CHECK_INT(symlink("/nonexistent/dangling", p("t/dangling")), 0);
    int fd = open(root, O_RDONLY | O_DIRECTORY);
    CHECK_INT(mlia_remove_tree_at(fd, "t"), 0);
    CHECK_INT(mlia_remove_tree_at(fd, "t"), 0); /* already gone: fine */
    close(fd);
    CHECK(!exists(p("t")));
    CHECK(exists(p("target/x")));
    drop_root();
}

int main(void)
{
    RUN(creates_missing_dir_and_commits);
    RUN(replaces_previous_output);
    RUN(trailing_slash_dir);
    RUN(parent_missing);
    RUN(output_folder_named_directly);
    RUN(parent_is_a_file);
    RUN(dir_is_a_file);
    RUN(output_is_a_file);
    RUN(output_symlink_refused);
    RUN(symlink_planted_before_commit_refused);
    RUN(symlink_inside_old_tree_not_followed);
    RUN(abort_leaves_previous_output_untouched);
    RUN(abort_without_previous_output);
    RUN(two_trees_get_distinct_names);
    RUN(invalid_relative_paths);
    RUN(inactive_outdir_errors);
    RUN(check_existing_and_missing_dir_ok);
    RUN(remove_tree_keeps_link_targets);
    return test_summary();
}
