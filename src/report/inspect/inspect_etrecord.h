/*
 * inspect_etrecord.h - `mlia inspect` output for an ETRecord.
 *
 * Writes one JSON object describing the archive (entries and their roles),
 * the layout, and per method the map sizes and a summary of its edge
 * program (documented in docs/inspect-etrecord.md).
 *
 * Ownership: programs loaded while inspecting are cached on `rec` and live
 * in `arena`; nothing is returned.
 */
#ifndef MLIA_REPORT_INSPECT_ETRECORD_H
#define MLIA_REPORT_INSPECT_ETRECORD_H

#include "core/arena.h"
#include "core/json_write.h"
#include "formats/etrecord.h"

/* Writes the inspect object for `rec` as one JSON value. Edge programs are
 * loaded (and cached on rec); a program that cannot be read is reported in
 * the method's "program_error" with "nodes": null, so inspecting never fails
 * halfway through the document. */
void inspect_etrecord(etrecord *rec, mlia_jw *w, mlia_arena *arena);

#endif
