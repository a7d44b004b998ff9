/*
 * outdir.c - building DIR/mlia-output aside and swapping it in (see outdir.h).
 *
 * Every operation below DIR goes through directory file descriptors
 * (mkdirat/openat/renameat/unlinkat) and every open of an existing name uses
 * O_NOFOLLOW, so a symbolic link planted at DIR/mlia-output or anywhere inside
 * an old tree is never traversed: it is refused (at DIR/mlia-output) or
 * unlinked as a link (inside the old tree). DIR itself is the user's choice
 * and may be reached through links.
 *
 * The temporary and "old" siblings carry the process id and a counter so
 * that concurrent runs in the same DIR never share a temporary tree; mkdirat
 * is the atomic claim of a temporary name.
 *
 * Commit (docs/hardening.md "Output folder"): under an exclusive flock on
 * DIR itself (no lock file to leave behind), the temporary tree and
 * DIR/mlia-output swap places in one renameat2(RENAME_EXCHANGE); the
 * temporary name then holds the previous output, which is deleted. There is
 * no instant at which DIR/mlia-output is missing. When the file system
 * refuses the exchange (EINVAL/ENOSYS/ENOTSUP, e.g. some network file
 * systems), the old two-rename protocol runs under the same lock; a process
 * killed between its two renames leaves `.mlia-output.old-<pid>-<n>` and no
 * mlia-output, and the next run in DIR restores it.
 *
 * Cleanup: the temporary tree is removed on every error return; on SIGINT,
 * SIGTERM and SIGHUP by the handler of mlia_outdir_cleanup_on_signals()
 * (async-signal-safe: openat, getdents64, unlinkat); on SIGKILL or a crash
 * by the next run in DIR, which removes `.mlia-output.tmp-<pid>-<n>` and
 * `.mlia-output.old-<pid>-<n>` siblings whose process no longer exists
 * (kill(pid, 0) fails with ESRCH).
 */
#include "report/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "core/oom.h"

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* Siblings of DIR/<name>: ".<name>.tmp-<pid>-<n>" and ".<name>.old-<pid>-<n>"
 * (".mlia-output.tmp-..." for mlia check, ".compare.tmp-..." for mlia
 * compare). */
#define MLIA_OUTDIR_NAME_MAX 64

static void sibling_prefix(char *out, size_t cap, const char *name, const char *kind)
{
    snprintf(out, cap, ".%s.%s", name, kind);
}

/* MLIA_TEST_HOOK=<point>[,<point>...]: lets the tests stop the process at a
 * precise step of the commit (kill-before-exchange, kill-after-exchange,
 * kill-between-renames), stop it with SIGSTOP before the commit with the
 * temporary tree complete (stop-before-commit), force the two-rename
 * fallback (no-exchange), make every file write fail with ENOSPC
 * (enospc), or stop it before trace.json is written (stop-before-trace,
 * check.c). Reading one environment variable is the whole cost when it is
 * unset. */
static bool test_hook(const char *point);

bool mlia_outdir_test_hook(const char *point)
{
    return test_hook(point);
}

static bool test_hook(const char *point)
{
    const char *v = getenv("MLIA_TEST_HOOK");
    if (!v || !*v)
        return false;
    size_t n = strlen(point);
    for (const char *p = v; (p = strstr(p, point)) != NULL; p += n)
        if ((p == v || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

static void test_kill_point(const char *point)
{
    if (test_hook(point))
        raise(SIGKILL);
}

/* ---- cleanup on signals ------------------------------------------------
 * The one piece of process-wide state: what the signal handler must remove.
 * It is written only by the thread that owns the mlia_outdir, before
 * `armed` is set and after it is cleared. */
static volatile sig_atomic_t signal_cleanup_installed;
static volatile sig_atomic_t armed;
static int armed_dir_fd = -1;
static char armed_name[128];

static void arm(int dir_fd, const char *name)
{
    if (!signal_cleanup_installed)
        return;
    armed = 0;
    atomic_thread_fence(memory_order_seq_cst);
    armed_dir_fd = dir_fd;
    snprintf(armed_name, sizeof armed_name, "%s", name);
    /* the handler may run on another thread: publish the name first */
    atomic_thread_fence(memory_order_seq_cst);
    armed = 1;
}

static void disarm(void)
{
    armed = 0;
    atomic_thread_fence(memory_order_seq_cst);
}

/* Blocks SIGINT, SIGTERM and SIGHUP in the calling thread (the handler must
 * not run between two steps that belong together); *saved restores them. */
static void block_cleanup_signals(sigset_t *saved)
{
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGINT);
    sigaddset(&s, SIGTERM);
    sigaddset(&s, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &s, saved);
}

struct linux_dirent64 {
    unsigned long long d_ino;
    long long d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

/* Async-signal-safe recursive removal (no malloc, no stdio, no DIR*). */
static void signal_safe_remove(int dir_fd, const char *name, int depth)
{
    if (depth > 32)
        return;
    int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        unlinkat(dir_fd, name, 0);
        return;
    }
    char buf[2048] __attribute__((aligned(8)));
    for (int pass = 0; pass < 64; pass++) {
        int removed = 0;
        lseek(fd, 0, SEEK_SET);
        for (;;) {
            long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n <= 0)
                break;
            for (long off = 0; off < n;) {
                struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
                off += d->d_reclen;
                const char *e = d->d_name;
                if (e[0] == '.' && (e[1] == 0 || (e[1] == '.' && e[2] == 0)))
                    continue;
                if (unlinkat(fd, e, 0) != 0)
                    signal_safe_remove(fd, e, depth + 1);
                removed++;
            }
        }
        if (!removed)
            break;
    }
    close(fd);
    unlinkat(dir_fd, name, AT_REMOVEDIR);
}

static void on_fatal_signal(int sig)
{
    int saved = errno;
    if (armed) {
        armed = 0;
        atomic_thread_fence(memory_order_seq_cst);
        signal_safe_remove(armed_dir_fd, armed_name, 0);
    }
    signal(sig, SIG_DFL);
    errno = saved;
    raise(sig);
}

void mlia_outdir_cleanup_on_signals(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_fatal_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++)
        sigaddset(&sa.sa_mask, sigs[i]);
    sa.sa_flags = SA_RESETHAND;
    signal_cleanup_installed = 1;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old;
        /* keep an inherited "ignore" (nohup, background jobs) */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
}

/* Deeper old trees are left in place rather than risking fd exhaustion. */
#define MLIA_OUTDIR_MAX_DEPTH 200
/* Attempts at a unique temporary name before giving up. */
#define MLIA_OUTDIR_MAX_TRIES 1000

struct mlia_outdir_string {
    mlia_outdir_string *next;
    char text[];
};

static char *dup_or_die(const char *s)
{
    char *p = strdup(s);
    if (!p) {
        mlia_oom(0);
    }
    return p;
}

static char *printf_or_die(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *p = malloc(n);
    if (!p) {
        mlia_oom(0);
    }
    snprintf(p, n, fmt, a, b);
    return p;
}

/* DIR without trailing slashes ("/" stays "/", "" becomes "."). */
static char *trim_dir(const char *dir)
{
    if (!dir || !*dir)
        return dup_or_die(".");
    char *t = dup_or_die(dir);
    size_t n = strlen(t);
    while (n > 1 && t[n - 1] == '/')
        t[--n] = 0;
    return t;
}

/* "<dir>/<name>" without doubling the slash after "/". */
static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    return printf_or_die(n && dir[n - 1] == '/' ? "%s%s" : "%s/%s", dir, name);
}

/* Parent folder of a trimmed path: "a/b" -> "a", "b" -> ".", "/b" -> "/". */
static char *parent_of(const char *trimmed)
{
    char *p = dup_or_die(trimmed);
    char *slash = strrchr(p, '/');
    if (!slash) {
        free(p);
        return dup_or_die(".");
    }
    while (slash > p && slash[-1] == '/')
        slash--;
    if (slash == p)
        p[1] = 0;
    else
        *slash = 0;
    return p;
}

/* Checks DIR/<name> given an open DIR (or the path when dir_fd < 0). */
static int check_entry(int dir_fd, const char *name, const char *final_path, mlia_error *err)
{
    struct stat st;
    int rc = dir_fd >= 0 ? fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW)
                         : lstat(final_path, &st);
    if (rc != 0) {
        if (errno == ENOENT)
            return 0;
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, final_path, "%s", strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, final_path, "is a symbolic link; refusing to replace it");
    if (!S_ISDIR(st.st_mode))
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, final_path, "exists and is not a directory");
    return 0;
}

/* Checks DIR; *missing tells whether it must be created. */
/* DIR as given, except that "x/mlia-output" names the output folder itself
 * (issue 29, 5: it silently became x/mlia-output/mlia-output): its parent is
 * then DIR. Malloc'ed. */
static char *effective_dir(const char *dir, const char *name)
{
    char *t = trim_dir(dir);
    const char *base = strrchr(t, '/');
    base = base ? base + 1 : t;
    if (strcmp(name, MLIA_OUTDIR_NAME) == 0 && strcmp(base, name) == 0) {
        char *parent = parent_of(t);
        free(t);
        return parent;
    }
    return t;
}

/* DIR and its missing parents are created like mkdir -p (issue 29, 5): the
 * nearest existing ancestor must be a directory. */
static int check_dir(const char *dir, const char *trimmed, bool *missing, mlia_error *err)
{
    struct stat st;
    *missing = false;
    if (stat(trimmed, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, dir, "%s", strerror(errno));
        char *up = parent_of(trimmed);
        struct stat pst;
        for (int depth = 0; depth < 4096; depth++) {
            if (stat(up, &pst) == 0 || (errno != ENOENT && errno != ENOTDIR))
                break;
            char *next = parent_of(up);
            bool same = strcmp(next, up) == 0;
            free(up);
            up = next;
            if (same)
                break;
        }
        bool ok = stat(up, &pst) == 0 && S_ISDIR(pst.st_mode);
        if (!ok) {
            mlia_error_setkf(err, MLIA_ERROR_KIND_IO, dir, "cannot create it: %s is not a directory", up);
            free(up);
            return -1;
        }
        free(up);
        *missing = true;
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, dir, "exists and is not a directory");
    return 0;
}

/* mkdir -p: every missing component, 0755. 0, or -1 with errno. */
static int mkdir_p(const char *path)
{
    char *p = dup_or_die(path);
    for (char *q = p + 1; *q; q++) {
        if (*q != '/')
            continue;
        *q = 0;
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            int e = errno;
            free(p);
            errno = e;
            return -1;
        }
        *q = '/';
    }
    int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
    int e = errno;
    free(p);
    errno = e;
    return rc;
}

int mlia_outdir_check(const char *dir, mlia_error *err)
{
    const char *shown = dir && *dir ? dir : ".";
    char *trimmed = effective_dir(dir, MLIA_OUTDIR_NAME);
    bool missing;
    int rc = check_dir(shown, trimmed, &missing, err);
    if (rc == 0 && !missing) {
        char *final_path = join(trimmed, MLIA_OUTDIR_NAME);
        rc = check_entry(-1, MLIA_OUTDIR_NAME, final_path, err);
        free(final_path);
    }
    free(trimmed);
    return rc;
}

static void release(mlia_outdir *od)
{
    if (od->tmp_fd >= 0)
        close(od->tmp_fd);
    if (od->dir_fd >= 0)
        close(od->dir_fd);
    free(od->dir);
    free(od->final_path);
    free(od->tmp_name);
    free(od->tmp_path);
    for (mlia_outdir_string *s = od->strings, *next; s; s = next) {
        next = s->next;
        free(s);
    }
    memset(od, 0, sizeof *od);
    od->dir_fd = od->tmp_fd = -1;
}

/* Claims a fresh sibling name "<prefix>-<pid>-<n>" in DIR. With make_dir the
 * claim is the mkdirat itself; otherwise the name is only checked to be
 * free (the caller renames onto it right away). */
static char *claim_name(int dir_fd, const char *prefix, bool make_dir)
{
    char name[128];
    for (unsigned n = 0; n < MLIA_OUTDIR_MAX_TRIES; n++) {
        snprintf(name, sizeof name, "%s-%ld-%u", prefix, (long)getpid(), n);
        if (make_dir) {
            /* the copy before the folder: out of memory after mkdirat would
             * leave a folder nobody knows (the allocation-failure sweep) */
            char *copy = dup_or_die(name);
            if (mkdirat(dir_fd, name, 0755) == 0)
                return copy;
            int saved = errno;
            free(copy);
            errno = saved;
            if (errno != EEXIST)
                return NULL;
        } else {
            struct stat st;
            if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
                return dup_or_die(name);
        }
    }
    errno = EEXIST;
    return NULL;
}

/* "<prefix>-<pid>-<n>" -> pid, or 0 when name is not of that form. */
static long sibling_pid(const char *name, const char *prefix)
{
    size_t pl = strlen(prefix);
    if (strncmp(name, prefix, pl) != 0 || name[pl] != '-')
        return 0;
    char *end;
    long pid = strtol(name + pl + 1, &end, 10);
    if (pid <= 0 || *end != '-' || !end[1] || strspn(end + 1, "0123456789") != strlen(end + 1))
        return 0;
    return pid;
}

static bool process_is_gone(long pid)
{
    return pid != (long)getpid() && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
}

/* Removes the temporary and old siblings left in DIR by processes that no
 * longer exist (killed with SIGKILL, crashed, power loss). An old tree whose
 * run died between the two renames of the fallback commit is put back as
 * DIR/mlia-output when that name is free. Runs under the DIR lock so that it
 * never races with another run's commit. Best effort: failures are ignored
 * (the leftovers are only clutter). */
static void remove_stale_siblings(int dir_fd, const char *final_name)
{
    char tmp_prefix[MLIA_OUTDIR_NAME_MAX + 8], old_prefix[MLIA_OUTDIR_NAME_MAX + 8];
    sibling_prefix(tmp_prefix, sizeof tmp_prefix, final_name, "tmp");
    sibling_prefix(old_prefix, sizeof old_prefix, final_name, "old");
    int fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return;
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return;
    }
    char (*names)[128] = NULL;
    size_t n = 0, cap = 0;
    struct dirent *ent;
    while ((ent = readdir(d)) != NULL) {
        long pid = sibling_pid(ent->d_name, tmp_prefix);
        if (!pid)
            pid = sibling_pid(ent->d_name, old_prefix);
        if (!pid || strlen(ent->d_name) >= sizeof names[0] || !process_is_gone(pid))
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 8;
            void *p = realloc(names, nc * sizeof *names);
            if (!p)
                break;
            names = p;
            cap = nc;
        }
        memcpy(names[n++], ent->d_name, strlen(ent->d_name) + 1); /* length checked above */
    }
    closedir(d);
    if (n && flock(dir_fd, LOCK_EX) == 0) {
        /* old trees first: one may have to become mlia-output again */
        for (int want_old = 1; want_old >= 0; want_old--) {
            for (size_t i = 0; i < n; i++) {
                bool is_old = sibling_pid(names[i], old_prefix) != 0;
                if (is_old != (bool)want_old)
                    continue;
                struct stat st;
                if (is_old && fstatat(dir_fd, final_name, &st, AT_SYMLINK_NOFOLLOW) != 0 &&
                    errno == ENOENT && renameat(dir_fd, names[i], dir_fd, final_name) == 0)
                    continue;
                (void)mlia_remove_tree_at(dir_fd, names[i]);
            }
        }
        flock(dir_fd, LOCK_UN);
    }
    free(names);
}

int mlia_outdir_begin(const char *dir, mlia_outdir *od, mlia_error *err)
{
    return mlia_outdir_begin_named(dir, MLIA_OUTDIR_NAME, od, err);
}

int mlia_outdir_begin_named(const char *dir, const char *name, mlia_outdir *od, mlia_error *err)
{
    memset(od, 0, sizeof *od);
    od->dir_fd = od->tmp_fd = -1;
    if (!name || !*name || strlen(name) > MLIA_OUTDIR_NAME_MAX || strchr(name, '/') || name[0] == '.')
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, NULL, "invalid output folder name '%s'", name ? name : "");
    od->name = name;
    const char *shown = dir && *dir ? dir : ".";
    od->dir = effective_dir(dir, name);
    od->final_path = join(od->dir, name);

    bool missing;
    if (check_dir(shown, od->dir, &missing, err) != 0)
        goto fail;
    if (missing && mkdir_p(od->dir) != 0) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, shown, "%s", strerror(errno));
        goto fail;
    }
    od->dir_fd = open(od->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (od->dir_fd < 0) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, shown, "%s", strerror(errno));
        goto fail;
    }
    remove_stale_siblings(od->dir_fd, name);
    if (check_entry(od->dir_fd, name, od->final_path, err) != 0)
        goto fail;
    /* No signal between creating the temporary folder and arming its
     * removal: the handler would not know the folder yet. */
    sigset_t saved_mask;
    block_cleanup_signals(&saved_mask);
    char tmp_prefix[MLIA_OUTDIR_NAME_MAX + 8];
    sibling_prefix(tmp_prefix, sizeof tmp_prefix, name, "tmp");
    od->tmp_name = claim_name(od->dir_fd, tmp_prefix, true);
    if (od->tmp_name)
        arm(od->dir_fd, od->tmp_name);
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
    if (!od->tmp_name) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, shown, "cannot create a temporary output folder: %s", strerror(errno));
        goto fail;
    }
    /* From here the folder exists: an out-of-memory jump out of join()
     * below reaches mlia_outdir_abort, which must remove it (the
     * allocation-failure sweep left it behind). */
    od->active = true;
    od->tmp_path = join(od->dir, od->tmp_name);
    od->tmp_fd = openat(od->dir_fd, od->tmp_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (od->tmp_fd < 0) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->tmp_path, "%s", strerror(errno));
        unlinkat(od->dir_fd, od->tmp_name, AT_REMOVEDIR);
        disarm();
        od->active = false;
        goto fail;
    }
    return 0;
fail:
    release(od);
    return -1;
}

static const char *keep(mlia_outdir *od, char *text)
{
    size_t n = strlen(text) + 1;
    mlia_outdir_string *s = malloc(sizeof *s + n);
    if (!s) {
        mlia_oom(0);
    }
    memcpy(s->text, text, n);
    free(text);
    s->next = od->strings;
    od->strings = s;
    return s->text;
}

/* rel must be a plain relative path: no leading '/', no empty, "." or ".."
 * component. These are programming errors of the writers, not user input, but
 * refusing them keeps every write inside the temporary tree. */
static bool valid_rel(const char *rel)
{
    if (!rel || !*rel || rel[0] == '/')
        return false;
    const char *p = rel;
    while (*p) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.') || (n == 2 && p[0] == '.' && p[1] == '.'))
            return false;
        if (!slash)
            break;
        p = slash + 1;
        if (!*p)
            return false;
    }
    return true;
}

const char *mlia_outdir_path(mlia_outdir *od, const char *rel, mlia_error *err)
{
    if (!od->active) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, NULL, "output folder is not open");
        return NULL;
    }
    if (!valid_rel(rel)) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->tmp_path, "invalid output path '%s'", rel ? rel : "");
        return NULL;
    }
    /* Create each parent component under the temporary tree, never
     * following a link (the tree is ours, but stay strict anyway). */
    int cur = od->tmp_fd;
    const char *p = rel;
    char comp[256];
    for (const char *slash; (slash = strchr(p, '/')) != NULL; p = slash + 1) {
        size_t n = (size_t)(slash - p);
        if (n >= sizeof comp) {
            mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->tmp_path, "output path component too long in '%s'", rel);
            goto fail;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        if (mkdirat(cur, comp, 0755) != 0 && errno != EEXIST) {
            char *shown = join(od->tmp_path, rel);
            mlia_error_setkf(err, MLIA_ERROR_KIND_IO, shown, "cannot create folder '%s': %s", comp, strerror(errno));
            free(shown);
            goto fail;
        }
        int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            char *shown = join(od->tmp_path, rel);
            mlia_error_setkf(err, MLIA_ERROR_KIND_IO, shown, "cannot open folder '%s': %s", comp, strerror(errno));
            free(shown);
            goto fail;
        }
        if (cur != od->tmp_fd)
            close(cur);
        cur = next;
    }
    if (cur != od->tmp_fd)
        close(cur);
    return keep(od, join(od->tmp_path, rel));
fail:
    if (cur != od->tmp_fd)
        close(cur);
    return NULL;
}

const char *mlia_outdir_tmp_root(const mlia_outdir *od)
{
    return od->tmp_path;
}

const char *mlia_outdir_final_path(const mlia_outdir *od)
{
    return od->final_path;
}

/* The two-rename commit, for file systems without RENAME_EXCHANGE. Called
 * under the DIR lock with DIR/mlia-output present. */
static int commit_by_two_renames(mlia_outdir *od, mlia_error *err)
{
    char old_prefix[MLIA_OUTDIR_NAME_MAX + 8];
    sibling_prefix(old_prefix, sizeof old_prefix, od->name, "old");
    char *old_name = claim_name(od->dir_fd, old_prefix, false);
    /* Ctrl-C between the two renames would leave no DIR/mlia-output: the
     * signals wait until both are done (a SIGKILL there is repaired by the
     * next run, see remove_stale_siblings). */
    sigset_t saved_mask;
    block_cleanup_signals(&saved_mask);
    if (!old_name || renameat(od->dir_fd, od->name, od->dir_fd, old_name) != 0) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->final_path, "cannot move the previous output aside: %s", strerror(errno));
        pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
        free(old_name);
        return -1;
    }
    test_kill_point("kill-between-renames");
    if (renameat(od->dir_fd, od->tmp_name, od->dir_fd, od->name) != 0) {
        int saved = errno;
        renameat(od->dir_fd, old_name, od->dir_fd, od->name);
        pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->final_path, "cannot move the new output into place: %s", strerror(saved));
        free(old_name);
        return -1;
    }
    /* the signal handler now removes the old tree instead */
    arm(od->dir_fd, old_name);
    pthread_sigmask(SIG_SETMASK, &saved_mask, NULL);
    (void)mlia_remove_tree_at(od->dir_fd, old_name);
    disarm();
    free(old_name);
    return 0;
}

int mlia_outdir_commit(mlia_outdir *od, mlia_error *err)
{
    if (!od->active)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, NULL, "output folder is not open");
    if (test_hook("stop-before-commit"))
        raise(SIGSTOP); /* the tests signal the stopped process */
    /* Concurrent runs in DIR commit one at a time. */
    while (flock(od->dir_fd, LOCK_EX) != 0) {
        if (errno != EINTR) {
            mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->dir, "cannot lock the output folder: %s", strerror(errno));
            mlia_outdir_abort(od);
            return -1;
        }
    }
    /* DIR/mlia-output may have changed since begin: check it again. */
    if (check_entry(od->dir_fd, od->name, od->final_path, err) != 0) {
        mlia_outdir_abort(od);
        return -1;
    }
    struct stat st;
    int rc = 0;
    if (fstatat(od->dir_fd, od->name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        test_kill_point("kill-before-exchange");
        long x = test_hook("no-exchange") ? (errno = EINVAL, -1)
                                          : syscall(SYS_renameat2, od->dir_fd, od->tmp_name, od->dir_fd,
                                                    od->name, RENAME_EXCHANGE);
        if (x == 0) {
            /* tmp_name now holds the previous output: the signal handler
             * (still armed on that name) and the removal below delete it. */
            test_kill_point("kill-after-exchange");
            (void)mlia_remove_tree_at(od->dir_fd, od->tmp_name);
        } else if (errno == EINVAL || errno == ENOSYS || errno == ENOTSUP || errno == EOPNOTSUPP) {
            rc = commit_by_two_renames(od, err);
        } else {
            rc = mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->final_path, "cannot move the new output into place: %s",
                                 strerror(errno));
        }
    } else if (renameat(od->dir_fd, od->tmp_name, od->dir_fd, od->name) != 0) {
        rc = mlia_error_setkf(err, MLIA_ERROR_KIND_IO, od->final_path, "cannot move the new output into place: %s", strerror(errno));
    }
    if (rc != 0) {
        mlia_outdir_abort(od); /* also releases the lock (closes DIR) */
        return -1;
    }
    disarm();
    /* Keep final_path (and the strings) for the caller until
     * mlia_outdir_abort(); the temporary tree no longer exists. */
    close(od->tmp_fd);
    close(od->dir_fd); /* releases the lock */
    od->tmp_fd = od->dir_fd = -1;
    od->active = false;
    return 0;
}

void mlia_outdir_abort(mlia_outdir *od)
{
    if (od->active && od->dir_fd >= 0 && od->tmp_name) {
        if (od->tmp_fd >= 0) {
            close(od->tmp_fd);
            od->tmp_fd = -1;
        }
        (void)mlia_remove_tree_at(od->dir_fd, od->tmp_name);
    }
    disarm();
    release(od);
}

static int remove_tree(int dir_fd, const char *name, int depth)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        /* A link (ELOOP) or any non-directory is removed as a name. */
        if (errno == ELOOP || errno == ENOTDIR)
            return unlinkat(dir_fd, name, 0) == 0 || errno == ENOENT ? 0 : -1;
        return -1;
    }
    if (depth >= MLIA_OUTDIR_MAX_DEPTH) {
        close(fd);
        errno = ELOOP;
        return -1;
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        int saved = errno;
        close(fd);
        if (saved == ENOMEM) {
            /* no memory for a DIR: the removal that needs none (the signal
             * handler's), then say whether the name is gone */
            signal_safe_remove(dir_fd, name, depth);
            if (faccessat(dir_fd, name, F_OK, AT_SYMLINK_NOFOLLOW) != 0 && errno == ENOENT)
                return 0;
        }
        errno = saved;
        return -1;
    }
    int rc = 0, first_errno = 0;
    /* Two passes at most: removing entries while reading a directory may
     * make readdir skip some on some file systems. */
    for (int pass = 0; pass < 2; pass++) {
        struct dirent *ent;
        errno = 0;
        while ((ent = readdir(d)) != NULL) {
            const char *n = ent->d_name;
            if (n[0] == '.' && (n[1] == 0 || (n[1] == '.' && n[2] == 0)))
                continue;
            struct stat st;
            int sub;
            if (fstatat(fd, n, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode))
                sub = remove_tree(fd, n, depth + 1);
            else
                sub = unlinkat(fd, n, 0) == 0 || errno == ENOENT ? 0 : -1;
            if (sub != 0 && !first_errno)
                first_errno = errno ? errno : EIO;
        }
        if (unlinkat(dir_fd, name, AT_REMOVEDIR) == 0) {
            closedir(d);
            return 0;
        }
        if (errno != ENOTEMPTY && errno != EEXIST)
            break;
        rewinddir(d);
    }
    if (!first_errno)
        first_errno = errno ? errno : ENOTEMPTY;
    rc = -1;
    closedir(d);
    errno = first_errno;
    return rc;
}

int mlia_remove_tree_at(int dir_fd, const char *name)
{
    return remove_tree(dir_fd, name, 0);
}

int mlia_outdir_open_file(mlia_outdir *od, const char *rel, mlia_outdir_file *out, mlia_error *err)
{
    out->fp = NULL;
    out->shown = NULL;
    const char *p = mlia_outdir_path(od, rel, err);
    if (!p)
        return -1;
    /* Messages name the final path (DIR/mlia-output/<rel>): the temporary
     * tree is removed on failure, its name would mean nothing. */
    char *shown = join(od->final_path, rel);
    /* The file is new in our private tree: created exclusively, and a link
     * planted there (a race with another user of DIR) is never followed. */
    int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    FILE *fp = fd >= 0 ? fdopen(fd, "wb") : NULL;
    if (!fp) {
        mlia_error_setkf(err, MLIA_ERROR_KIND_IO, shown, "cannot write: %s", strerror(errno));
        if (fd >= 0)
            close(fd);
        free(shown);
        return -1;
    }
    setvbuf(fp, NULL, _IOFBF, 1 << 16);
    out->fp = fp;
    out->shown = shown;
    return 0;
}

int mlia_outdir_close_file(mlia_outdir_file *f, int rc, mlia_error *err)
{
    if (!f->fp)
        return rc;
    int saved = 0;
    if (!rc && (fflush(f->fp) != 0 || ferror(f->fp)))
        saved = errno ? errno : EIO;
    if (!rc && !saved && test_hook("enospc"))
        saved = ENOSPC;
    if (fclose(f->fp) != 0 && !rc && !saved)
        saved = errno ? errno : EIO;
    if (!rc && saved)
        rc = mlia_error_setkf(err, MLIA_ERROR_KIND_IO, f->shown, "write failed: %s", strerror(saved));
    free(f->shown);
    f->fp = NULL;
    f->shown = NULL;
    return rc;
}

int mlia_outdir_stream(mlia_outdir *od, const char *rel, mlia_outdir_stream_fn write, void *ctx, mlia_error *err)
{
    mlia_outdir_file f;
    if (mlia_outdir_open_file(od, rel, &f, err))
        return -1;
    errno = 0;
    int rc = write(ctx, f.fp, f.shown, err);
    return mlia_outdir_close_file(&f, rc, err);
}

typedef struct bytes_ctx {
    const void *data;
    size_t len;
} bytes_ctx;

static int write_bytes(void *vctx, FILE *fp, const char *shown, mlia_error *err)
{
    const bytes_ctx *b = vctx;
    errno = 0;
    if (b->len && fwrite(b->data, 1, b->len, fp) != b->len)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, shown, "write failed: %s", strerror(errno ? errno : EIO));
    return 0;
}

int mlia_outdir_write(mlia_outdir *od, const char *rel, const void *data, size_t len, mlia_error *err)
{
    bytes_ctx b = {data, len};
    return mlia_outdir_stream(od, rel, write_bytes, &b, err);
}
