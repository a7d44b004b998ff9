/*
 * inspect_et.h - `mlia inspect` JSON for ETDump, PTE and BundledProgram.
 *
 * Each function writes ONE JSON object value to the writer (the caller
 * opens/closes the document and may embed the object anywhere). Keys follow
 * docs/inspect.md; field names match the FlatBuffer schemas in tools/schema/
 * so the output can be compared with `flatc --json`. Output is a pure
 * function of the decoded structure (stable order, no addresses or times).
 *
 * Ownership: nothing is retained; the structures are only read.
 */
#ifndef MLIA_REPORT_INSPECT_ET_H
#define MLIA_REPORT_INSPECT_ET_H

#include "core/json_write.h"
#include "formats/etdump.h"
#include "formats/pte.h"

/* Optional decoder of delegate blobs (e.g. VGF): called with the writer
 * positioned after the key "blob" of a delegate object; it must write
 * exactly one JSON value (null when it cannot decode the blob). */
typedef void (*inspect_blob_fn)(void *ctx, const pte_delegate *d, mlia_jw *w);

/* The ETDump is written as its events are decoded, one at a time (the
 * writer may stream to a FILE: memory stays bounded whatever the number of
 * events). Returns 0, or -1 with err set when an event cannot be decoded
 * again (the file changed after etdump_read validated it); the output is
 * then incomplete. */
int inspect_etdump(const etdump *d, mlia_jw *w, mlia_error *err);
/* The members of that object without the braces (callers append more keys,
 * e.g. the decoded neural statistics). */
int inspect_etdump_members(const etdump *d, mlia_jw *w, mlia_error *err);
/* blob_fn may be NULL (no "blob" key is written then). */
void inspect_pte(const pte_program *p, mlia_jw *w, inspect_blob_fn blob_fn, void *blob_ctx);
void inspect_bundled_program(const bundled_program *bp, mlia_jw *w, inspect_blob_fn blob_fn, void *blob_ctx);

#endif
