/*
 * inspect.c - the `mlia inspect FILE` pipeline: the decoded structure of any
 * supported artifact as JSON (docs/inspect.md). The file kind is detected
 * from its bytes (docs/inspect.md), not its name. Public entry points:
 * mlia_inspect(), mlia_inspect_to() in src/api/inspect.c.
 */
#include "pipeline/inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_write.h"
#include "core/oom.h"
#include "formats/etdump.h"
#include "formats/pte.h"
#include "backends/registry.h"
#include "report/inspect/inspect_et.h"
#include "report/inspect/inspect_etrecord.h"

typedef struct blob_ctx {
    const char *file;
} blob_ctx;

/* A delegate's blob is decoded inline by the backend of its id, when that
 * backend decodes blobs (src/backends/registry.c). */
static void inspect_delegate_blob(void *ctx, const pte_delegate *d, mlia_jw *w)
{
    const blob_ctx *bc = ctx;
    const mlia_backend *b = mlia_backend_for_delegate(d->id);
    if (!b || !b->inspect_blob || !d->blob) {
        mlia_jw_null(w);
        return;
    }
    b->inspect_blob(d->blob, (size_t)d->size, bc->file, w);
}

/* "ETDump, ETRecord, PTE, BundledProgram or <the backends' blob formats>"
 * (arena memory). */
static const char *known_kinds(mlia_arena *a)
{
    const char *names[16] = {"ETDump", "ETRecord", "PTE", "BundledProgram"};
    uint32_t n = 4;
    for (uint32_t i = 0; i < mlia_backend_count() && n < 16; i++)
        if (mlia_backend_at(i)->inspect_file)
            names[n++] = mlia_backend_at(i)->label;
    const char *text = names[0];
    for (uint32_t i = 1; i < n; i++)
        text = mlia_arena_printf(a, "%s%s%s", text, i + 1 == n ? " or " : ", ", names[i]);
    return text;
}

/* Writes the document for `path` to w. The ETDump is mapped and streamed
 * event by event (pages released as they are consumed); other kinds are
 * read into memory and decoded whole (they are small). */
int inspect_session_run(inspect_session *is, const char *path, mlia_jw *w, mlia_error *err)
{
    mlia_file *fp = &is->file;
#define f (*fp)
    if (mlia_file_map(&f, path, err))
        return -1;
    const char *kind = f.size ? pte_file_kind(f.data, f.size) : NULL;
    if (kind && strcmp(kind, "etdump") != 0) {
        mlia_file_close(&f);
        if (mlia_file_open(&f, path, err))
            return -1;
        kind = f.size ? pte_file_kind(f.data, f.size) : NULL;
    }
    mlia_arena *arena = &is->arena;
    arena->limit = mlia_memory_limit(f.size);
    int rc = 0;
    blob_ctx bc = {path};
    if (f.size == 0) {
        rc = mlia_error_setf(err, path, "is empty: not an %s file", known_kinds(arena));
    } else if (!kind) {
        rc = mlia_error_setf(err, path, "unrecognised file: not an %s file", known_kinds(arena));
    } else if (strcmp(kind, "etdump") == 0) {
        etdump *d;
        rc = etdump_read_releasing(f.data, f.size, path, mlia_file_release, &f, arena, &d, err);
        if (!rc) {
            mlia_jw_obj_begin(w);
            rc = inspect_etdump_members(d, w, err);
            /* each backend's records of the ETDump, as members of its own */
            for (uint32_t i = 0; !rc && i < mlia_backend_count(); i++)
                if (mlia_backend_at(i)->inspect_records)
                    rc = mlia_backend_at(i)->inspect_records(d, w, arena, err) < 0 ? -1 : 0;
            mlia_jw_obj_end(w);
        }
    } else if (strcmp(kind, "pte") == 0) {
        pte_program *p;
        rc = pte_read(f.data, f.size, path, arena, &p, err);
        if (!rc)
            inspect_pte(p, w, inspect_delegate_blob, &bc);
    } else if (strcmp(kind, "bundled_program") == 0) {
        bundled_program *bp;
        rc = bundled_program_read(f.data, f.size, path, arena, &bp, err);
        if (!rc)
            inspect_bundled_program(bp, w, inspect_delegate_blob, &bc);
    } else if (strcmp(kind, "etrecord") == 0) {
        rc = etrecord_read(f.data, f.size, path, arena, &is->etrecord, err);
        if (!rc)
            rc = etrecord_keep_open(is->etrecord, err); /* one archive handle for every method's program */
        if (!rc)
            inspect_etrecord(is->etrecord, w, arena);
    } else if (mlia_backend_named(kind) && mlia_backend_named(kind)->inspect_file) {
        rc = mlia_backend_named(kind)->inspect_file(f.data, f.size, path, arena, w, err);
    } else {
        rc = mlia_error_setf(err, path, "unsupported file kind '%s'", kind);
    }
    if (!rc)
        mlia_jw_finish(w);
    else
        mlia_error_mark(err, MLIA_ERROR_KIND_FORMAT); /* what the reader found (a read error is I/O already) */
    return rc;
#undef f
}

void inspect_session_init(inspect_session *is)
{
    memset(is, 0, sizeof *is);
    mlia_arena_init(&is->arena);
}

void inspect_session_free(inspect_session *is)
{
    if (is->etrecord)
        etrecord_close(is->etrecord);
    is->etrecord = NULL;
    mlia_arena_free(&is->arena);
    mlia_file_close(&is->file);
}

