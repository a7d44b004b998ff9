/*
 * outdir.h - the DIR/mlia-output folder: built aside, swapped in on success.
 *
 * Why: a failed or interrupted run must never leave a half-written
 * mlia-output tree that looks complete, and replacing the previous tree must
 * never follow a symbolic link out of DIR (a planted link at
 * DIR/mlia-output, or inside the old tree, could otherwise make the tool
 * delete or overwrite files elsewhere).
 *
 * Protocol:
 *   mlia_outdir_begin()   checks DIR and DIR/mlia-output, creates DIR when
 *                         missing (its parent must exist) and a private
 *                         temporary sibling DIR/.mlia-output.tmp-<pid>-<n>;
 *   mlia_outdir_path()    paths inside the temporary tree (parents created);
 *   mlia_outdir_commit()  under a lock on DIR, exchanges the temporary tree
 *                         with DIR/mlia-output atomically (renameat2
 *                         RENAME_EXCHANGE; two renames where unsupported),
 *                         then deletes the old tree without following any
 *                         symbolic link;
 *   mlia_outdir_abort()   deletes the temporary tree; DIR/mlia-output is
 *                         left exactly as it was.
 * Always end with mlia_outdir_abort(), also after a successful commit: it
 * releases the mlia_outdir (after a commit it removes nothing).
 *
 * Ownership: the mlia_outdir owns every string it returns (paths from
 * mlia_outdir_path() and mlia_outdir_final_path()); they stay valid until
 * mlia_outdir_abort(), which releases them (a successful commit keeps them,
 * so the caller can still read the final path).
 */
#ifndef MLIA_REPORT_OUTDIR_H
#define MLIA_REPORT_OUTDIR_H

#include <stdbool.h>
#include <stddef.h>

#include <stdio.h>

#include "core/error.h"

#define MLIA_OUTDIR_NAME "mlia-output"

typedef struct mlia_outdir_string mlia_outdir_string;

typedef struct mlia_outdir {
    const char *name;     /* the folder's name in DIR: "mlia-output" (mlia check), "compare" (borrowed) */
    char *dir;            /* DIR as given, without trailing slashes */
    char *final_path;     /* DIR/mlia-output */
    char *tmp_name;       /* .mlia-output.tmp-<pid>-<n> (relative to DIR) */
    char *tmp_path;       /* DIR/.mlia-output.tmp-<pid>-<n> */
    int dir_fd;           /* DIR, opened O_DIRECTORY; -1 when inactive */
    int tmp_fd;           /* temporary tree, opened O_DIRECTORY; -1 when inactive */
    bool active;
    mlia_outdir_string *strings; /* paths handed out, released at the end */
} mlia_outdir;

/* Check, without changing anything, that a run could write DIR/mlia-output:
 * DIR exists as a directory, or is missing and its nearest existing ancestor
 * is a directory (DIR and its parents are then created, like mkdir -p); a DIR
 * named ".../mlia-output" is the output folder itself (its parent is DIR);
 * DIR/mlia-output is absent or a real directory. Errors:
 *   "<dir>: cannot create it: <ancestor> is not a directory"
 *   "<dir>: exists and is not a directory"
 *   "<dir>/mlia-output: exists and is not a directory"
 *   "<dir>/mlia-output: is a symbolic link; refusing to replace it"
 * or "<path>: <strerror>" for other failures. Returns 0 or -1. */
int mlia_outdir_check(const char *dir, mlia_error *err);

/* Start an output tree under dir (NULL means "."). Performs the checks of
 * mlia_outdir_check(), creates DIR when missing (mode 0755) and the temporary
 * tree. On failure nothing is left behind and od is inactive. */
int mlia_outdir_begin(const char *dir, mlia_outdir *od, mlia_error *err);

/* The same for DIR/<name> (e.g. "compare" for `mlia compare`): the same
 * protocol, messages and sibling names (".<name>.tmp-<pid>-<n>"). name is a
 * plain file name (no '/', not starting with '.', at most 64 bytes) that
 * must outlive od. */
int mlia_outdir_begin_named(const char *dir, const char *name, mlia_outdir *od, mlia_error *err);

/* Path of `rel` (e.g. "logs/mlia.log", relative, no "." or ".." components)
 * inside the temporary tree; every parent folder of it is created. Returns
 * NULL and sets err on failure. The string belongs to od. */
const char *mlia_outdir_path(mlia_outdir *od, const char *rel, mlia_error *err);

/* Write `len` bytes to `rel` inside the temporary tree (parents created).
 * Messages name DIR/mlia-output/<rel> (the path the file will have):
 * "<path>: cannot write: <strerror>", "<path>: write failed: <strerror>". */
int mlia_outdir_write(mlia_outdir *od, const char *rel, const void *data, size_t len, mlia_error *err);

/* Write `rel` by streaming: write(ctx, fp, shown_path, err) produces the
 * text into fp (64 KiB buffered) and returns 0 or -1 with err set, naming
 * shown_path. Afterwards the same checks and messages as mlia_outdir_write
 * apply ("<final path>: write failed: <strerror>"). */
typedef int (*mlia_outdir_stream_fn)(void *ctx, FILE *fp, const char *shown_path, mlia_error *err);
int mlia_outdir_stream(mlia_outdir *od, const char *rel, mlia_outdir_stream_fn write, void *ctx, mlia_error *err);

/* mlia_outdir_stream in two halves, for a file written by another thread
 * (check.c writes mlia-output.json beside the other outputs): open_file
 * creates `rel` as mlia_outdir_stream does (same messages) and fills *f,
 * whose fp and shown (DIR/mlia-output/<rel>, malloc'd) belong to f until
 * close_file. Only open_file touches od, so it runs on od's thread; the
 * writing needs nothing of od. close_file(f, rc, err), rc being the
 * writer's result, flushes and closes f->fp with mlia_outdir_stream's
 * checks and messages, frees f->shown and returns rc or -1; it accepts an
 * f whose open failed (returns rc). */
typedef struct mlia_outdir_file {
    FILE *fp;
    char *shown;
} mlia_outdir_file;
int mlia_outdir_open_file(mlia_outdir *od, const char *rel, mlia_outdir_file *f, mlia_error *err);
int mlia_outdir_close_file(mlia_outdir_file *f, int rc, mlia_error *err);

/* True when MLIA_TEST_HOOK names `point` (tests stop or break a run at a
 * precise step; see outdir.c). */
bool mlia_outdir_test_hook(const char *point);

/* Root of the temporary tree (where the files are being written). */
const char *mlia_outdir_tmp_root(const mlia_outdir *od);

/* DIR/mlia-output: where the tree will be after commit. Owned by od. */
const char *mlia_outdir_final_path(const mlia_outdir *od);

/* Put the temporary tree in place of DIR/mlia-output. Returns 0 on success
 * (the previous tree has been removed; a failure to remove parts of it is not
 * an error because the new result is already in place; od stays readable
 * until mlia_outdir_abort()). On failure the temporary tree is removed, the
 * previous DIR/mlia-output is restored when it had been moved, and od is
 * released. */
int mlia_outdir_commit(mlia_outdir *od, mlia_error *err);

/* CLI only: on SIGINT, SIGTERM and SIGHUP remove the temporary tree of the
 * mlia_outdir currently being written (if any), then die of the signal as
 * before. Signals already ignored stay ignored. Libraries embedding mlia do
 * not call it (their host owns the signal handlers). */
void mlia_outdir_cleanup_on_signals(void);

/* Remove the temporary tree (unless committed) and release od. Safe to call
 * more than once and on an inactive od. */
void mlia_outdir_abort(mlia_outdir *od);

/* Remove the tree `name` inside the directory dir_fd without following any
 * symbolic link (links are unlinked, never traversed). Exposed for tests and
 * for the writers' own cleanup. Returns 0, or -1 with errno set when some
 * entry could not be removed (removal continues with the other entries). */
int mlia_remove_tree_at(int dir_fd, const char *name);

#endif
