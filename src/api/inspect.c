/*
 * inspect.c - `mlia inspect FILE`: the decoded structure of any supported
 * artifact as JSON (docs/inspect.md). The file kind is detected from its
 * bytes (executorch-formats.md section 0, vgf.md section 2), not its name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/file.h"
#include "core/json_write.h"
#include "core/oom.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/pte.h"
#include "formats/vgf.h"
#include "mlia/mlia.h"
#include "report/inspect_et.h"
#include "report/inspect_etrecord.h"
#include "report/inspect_nx.h"
#include "report/inspect_vgf.h"

typedef struct blob_ctx {
    const char *file;
} blob_ctx;

/* VGF delegates of a PTE are decoded inline. */
static void inspect_delegate_blob(void *ctx, const pte_delegate *d, mlia_jw *w)
{
    const blob_ctx *bc = ctx;
    if (!mlia_str_eq(d->id, "VgfBackend") || !d->blob) {
        mlia_jw_null(w);
        return;
    }
    inspect_vgf_value(d->blob, (size_t)d->size, bc->file, w);
}

/* Writes the document for `path` to w. The ETDump is mapped and streamed
 * event by event (pages released as they are consumed); other kinds are
 * read into memory and decoded whole (they are small). */
static int inspect_file(const char *path, mlia_jw *wp, mlia_error *err)
{
    mlia_jw *w = wp;
    mlia_file f;
    if (mlia_file_map(&f, path, err))
        return -1;
    const char *kind = f.size ? pte_file_kind(f.data, f.size) : NULL;
    if (kind && strcmp(kind, "etdump") != 0) {
        mlia_file_close(&f);
        if (mlia_file_open(&f, path, err))
            return -1;
        kind = f.size ? pte_file_kind(f.data, f.size) : NULL;
    }
    mlia_arena arena;
    mlia_arena_init(&arena);
    arena.limit = mlia_memory_limit(f.size);
    int rc = 0;
    blob_ctx bc = {path};
    if (f.size == 0) {
        rc = mlia_error_setf(err, path, "is empty: not an ETDump, ETRecord, PTE, BundledProgram or VGF file");
    } else if (!kind) {
        rc = mlia_error_setf(err, path,
                             "unrecognised file: not an ETDump, ETRecord, PTE, BundledProgram or VGF file");
    } else if (strcmp(kind, "etdump") == 0) {
        etdump *d;
        rc = etdump_read_releasing(f.data, f.size, path, mlia_file_release, &f, &arena, &d, err);
        if (!rc) {
            mlia_jw_obj_begin(w);
            rc = inspect_etdump_members(d, w, err);
            if (!rc) {
                mlia_jw_key(w, "neural_statistics");
                rc = inspect_nx_records(d, w, &arena, err);
            }
            mlia_jw_obj_end(w);
        }
    } else if (strcmp(kind, "pte") == 0) {
        pte_program *p;
        rc = pte_read(f.data, f.size, path, &arena, &p, err);
        if (!rc)
            inspect_pte(p, w, inspect_delegate_blob, &bc);
    } else if (strcmp(kind, "bundled_program") == 0) {
        bundled_program *bp;
        rc = bundled_program_read(f.data, f.size, path, &arena, &bp, err);
        if (!rc)
            inspect_bundled_program(bp, w, inspect_delegate_blob, &bc);
    } else if (strcmp(kind, "etrecord") == 0) {
        etrecord *r;
        rc = etrecord_read(f.data, f.size, path, &arena, &r, err);
        if (!rc)
            rc = etrecord_keep_open(r, err); /* one archive handle for every method's program */
        if (!rc)
            inspect_etrecord(r, w, &arena);
        if (r)
            etrecord_close(r);
    } else if (strcmp(kind, "vgf") == 0) {
        vgf_file *v;
        rc = vgf_read(f.data, f.size, path, &arena, &v, err);
        if (!rc)
            inspect_vgf(v, w);
    } else {
        rc = mlia_error_setf(err, path, "unsupported file kind '%s'", kind);
    }
    if (!rc)
        mlia_jw_finish(w);
    mlia_arena_free(&arena);
    mlia_file_close(&f);
    return rc;
}

/* The inspection error for a recovery point that was jumped to. */
static void inspect_oom_error(mlia_error *err, const char *path, const mlia_oom_point *oom)
{
    mlia_error_clear(err);
    if (oom->fault_file)
        mlia_error_setf(err, oom->fault_file, MLIA_FAULT_MESSAGE);
    else if (oom->limit)
        mlia_error_setf(err, path, "inspection needs more than the memory limit of %zu bytes (%u MiB + %u x the file size)",
                        oom->limit, (unsigned)(MLIA_MEMORY_BASE >> 20), MLIA_MEMORY_RATIO);
    else if (oom->requested)
        mlia_error_setf(err, path, "out of memory (requested %zu bytes)", oom->requested);
    else
        mlia_error_setf(err, path, "out of memory");
}

int mlia_inspect(const char *path, char **json, char **error)
{
    *json = NULL;
    if (error)
        *error = NULL;
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_error err;
    mlia_error_clear(&err);
    mlia_oom_point oom;
    mlia_oom_enter(&oom);
    volatile int rc;
    if (setjmp(oom.jump) == 0) {
        mlia_jw w;
        mlia_jw_init_buf(&w, &b, true);
        rc = inspect_file(path, &w, &err);
    } else {
        /* memory of the aborted inspection is not reclaimed: the caller
         * reports the error and, for the CLI, exits */
        rc = -1;
        inspect_oom_error(&err, path, &oom);
        mlia_buf_init(&b);
    }
    mlia_oom_leave(&oom);
    if (rc) {
        mlia_buf_free(&b);
        if (error)
            *error = strdup(err.text);
        return 1;
    }
    *json = mlia_buf_take(&b);
    return 0;
}

int mlia_inspect_to(const char *path, FILE *out, char **error)
{
    if (error)
        *error = NULL;
    mlia_buf chunk;
    mlia_buf_init(&chunk);
    mlia_error err;
    mlia_error_clear(&err);
    mlia_oom_point oom;
    mlia_oom_enter(&oom);
    volatile int rc;
    mlia_jw w;
    mlia_jw_init_stream(&w, &chunk, out, true);
    if (setjmp(oom.jump) == 0) {
        rc = inspect_file(path, &w, &err);
        mlia_jw_flush(&w);
    } else {
        rc = -1;
        inspect_oom_error(&err, path, &oom);
    }
    mlia_oom_leave(&oom);
    mlia_buf_free(&chunk);
    if (rc) {
        if (error)
            *error = strdup(err.text);
        return 1;
    }
    return 0;
}
