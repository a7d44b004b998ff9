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
 */
#include "report/outdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

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
        fputs("mlia: out of memory\n", stderr);
        abort();
    }
    return p;
}

static char *printf_or_die(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *p = malloc(n);
    if (!p) {
        fputs("mlia: out of memory\n", stderr);
        abort();
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

/* Checks DIR/mlia-output given an open DIR (or the path when dir_fd < 0). */
static int check_entry(int dir_fd, const char *final_path, mlia_error *err)
{
    struct stat st;
    int rc = dir_fd >= 0 ? fstatat(dir_fd, MLIA_OUTDIR_NAME, &st, AT_SYMLINK_NOFOLLOW)
                         : lstat(final_path, &st);
    if (rc != 0) {
        if (errno == ENOENT)
            return 0;
        return mlia_error_setf(err, final_path, "%s", strerror(errno));
    }
    if (S_ISLNK(st.st_mode))
        return mlia_error_setf(err, final_path, "is a symbolic link; refusing to replace it");
    if (!S_ISDIR(st.st_mode))
        return mlia_error_setf(err, final_path, "exists and is not a directory");
    return 0;
}

/* Checks DIR; *missing tells whether it must be created. */
static int check_dir(const char *dir, const char *trimmed, bool *missing, mlia_error *err)
{
    struct stat st;
    *missing = false;
    if (stat(trimmed, &st) != 0) {
        if (errno != ENOENT && errno != ENOTDIR)
            return mlia_error_setf(err, dir, "%s", strerror(errno));
        char *parent = parent_of(trimmed);
        struct stat pst;
        int ok = stat(parent, &pst) == 0 && S_ISDIR(pst.st_mode);
        free(parent);
        if (!ok)
            return mlia_error_setf(err, dir, "parent directory does not exist");
        *missing = true;
        return 0;
    }
    if (!S_ISDIR(st.st_mode))
        return mlia_error_setf(err, dir, "exists and is not a directory");
    return 0;
}

int mlia_outdir_check(const char *dir, mlia_error *err)
{
    const char *shown = dir && *dir ? dir : ".";
    char *trimmed = trim_dir(dir);
    bool missing;
    int rc = check_dir(shown, trimmed, &missing, err);
    if (rc == 0 && !missing) {
        char *final_path = join(trimmed, MLIA_OUTDIR_NAME);
        rc = check_entry(-1, final_path, err);
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
            if (mkdirat(dir_fd, name, 0755) == 0)
                return dup_or_die(name);
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

int mlia_outdir_begin(const char *dir, mlia_outdir *od, mlia_error *err)
{
    memset(od, 0, sizeof *od);
    od->dir_fd = od->tmp_fd = -1;
    const char *shown = dir && *dir ? dir : ".";
    od->dir = trim_dir(dir);
    od->final_path = join(od->dir, MLIA_OUTDIR_NAME);

    bool missing;
    if (check_dir(shown, od->dir, &missing, err) != 0)
        goto fail;
    if (missing && mkdir(od->dir, 0755) != 0 && errno != EEXIST) {
        mlia_error_setf(err, shown, "%s", strerror(errno));
        goto fail;
    }
    od->dir_fd = open(od->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (od->dir_fd < 0) {
        mlia_error_setf(err, shown, "%s", strerror(errno));
        goto fail;
    }
    if (check_entry(od->dir_fd, od->final_path, err) != 0)
        goto fail;
    od->tmp_name = claim_name(od->dir_fd, ".mlia-output.tmp", true);
    if (!od->tmp_name) {
        mlia_error_setf(err, shown, "cannot create a temporary output folder: %s", strerror(errno));
        goto fail;
    }
    od->tmp_path = join(od->dir, od->tmp_name);
    od->tmp_fd = openat(od->dir_fd, od->tmp_name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (od->tmp_fd < 0) {
        mlia_error_setf(err, od->tmp_path, "%s", strerror(errno));
        unlinkat(od->dir_fd, od->tmp_name, AT_REMOVEDIR);
        goto fail;
    }
    od->active = true;
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
        fputs("mlia: out of memory\n", stderr);
        abort();
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
        mlia_error_setf(err, NULL, "output folder is not open");
        return NULL;
    }
    if (!valid_rel(rel)) {
        mlia_error_setf(err, od->tmp_path, "invalid output path '%s'", rel ? rel : "");
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
            mlia_error_setf(err, od->tmp_path, "output path component too long in '%s'", rel);
            goto fail;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        if (mkdirat(cur, comp, 0755) != 0 && errno != EEXIST) {
            char *shown = join(od->tmp_path, rel);
            mlia_error_setf(err, shown, "cannot create folder '%s': %s", comp, strerror(errno));
            free(shown);
            goto fail;
        }
        int next = openat(cur, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            char *shown = join(od->tmp_path, rel);
            mlia_error_setf(err, shown, "cannot open folder '%s': %s", comp, strerror(errno));
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

int mlia_outdir_commit(mlia_outdir *od, mlia_error *err)
{
    if (!od->active)
        return mlia_error_setf(err, NULL, "output folder is not open");
    /* DIR/mlia-output may have changed since begin: check it again. */
    if (check_entry(od->dir_fd, od->final_path, err) != 0) {
        mlia_outdir_abort(od);
        return -1;
    }
    char *old_name = NULL;
    struct stat st;
    if (fstatat(od->dir_fd, MLIA_OUTDIR_NAME, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        old_name = claim_name(od->dir_fd, ".mlia-output.old", false);
        if (!old_name || renameat(od->dir_fd, MLIA_OUTDIR_NAME, od->dir_fd, old_name) != 0) {
            mlia_error_setf(err, od->final_path, "cannot move the previous output aside: %s",
                            strerror(errno));
            free(old_name);
            mlia_outdir_abort(od);
            return -1;
        }
    }
    if (renameat(od->dir_fd, od->tmp_name, od->dir_fd, MLIA_OUTDIR_NAME) != 0) {
        int saved = errno;
        if (old_name)
            renameat(od->dir_fd, old_name, od->dir_fd, MLIA_OUTDIR_NAME);
        mlia_error_setf(err, od->final_path, "cannot move the new output into place: %s",
                        strerror(saved));
        free(old_name);
        mlia_outdir_abort(od);
        return -1;
    }
    if (old_name)
        (void)mlia_remove_tree_at(od->dir_fd, old_name);
    free(old_name);
    /* Keep final_path (and the strings) for the caller until
     * mlia_outdir_abort(); the temporary tree no longer exists. */
    close(od->tmp_fd);
    close(od->dir_fd);
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

int mlia_outdir_write(mlia_outdir *od, const char *rel, const void *data, size_t len, mlia_error *err)
{
    const char *p = mlia_outdir_path(od, rel, err);
    if (!p)
        return -1;
    FILE *fp = fopen(p, "wb");
    if (!fp)
        return mlia_error_setf(err, p, "cannot write: %s", strerror(errno));
    size_t n = len ? fwrite(data, 1, len, fp) : 0;
    int bad = (n != len) | (fclose(fp) != 0);
    if (bad)
        return mlia_error_setf(err, p, "write failed");
    return 0;
}
