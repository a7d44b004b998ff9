/*
 * inspect_nx.h - decoded VGF neural statistics records for `mlia inspect`.
 *
 * `mlia inspect run.etdump` shows, under "neural_statistics", one object per
 * statistics record of every run (not only executions: inspect has no method
 * selection): its position, the wrapper fields, per segment the blob sizes
 * and, when the record is interpretable on its own, the resolved mode, device
 * and layout and the stripe rows with their counters. A record that cannot
 * be decoded is shown with an "error" member holding the decoder's message, so the
 * whole capture can still be inspected.
 *
 * Shape (stable): [{"run", "event", "chain_index", "instruction_id",
 * "ordinal", "schema_version", "available", "reason", "interpretation":
 * {"mode", "device", "mode_assumed", "device_assumed", "device_name",
 * "leading_block_count"} | null, "segments": [{"segment_id",
 * "is_data_graph_pipeline", "blobs": {<key>: {"available", "is_text",
 * "declared_size", "decoded_size", "reason"}}, "stripe_ids", "stripes":
 * [{"stripe", "op_cycles", "total_cycles", "counters": {<label>: n}}],
 * "error"?}], "error"?}]
 */
#ifndef MLIA_REPORT_INSPECT_NX_H
#define MLIA_REPORT_INSPECT_NX_H

#include "core/arena.h"
#include "core/json_write.h"
#include "formats/etdump.h"

/* Write the records as one JSON array value, decoding the ETDump's events
 * one at a time (bounded memory). Returns 0, or -1 with err set when an
 * event can no longer be decoded (file changed after validation). */
int inspect_nx_records(const etdump *dump, mlia_jw *w, mlia_arena *arena, mlia_error *err);

#endif
