/*
 * out.h - the VGF backend's writers' hooks (out.c), gathered into its
 * mlia_backend_out by backends/vgf/backend.c.
 */
#ifndef MLIA_BACKENDS_VGF_OUT_H
#define MLIA_BACKENDS_VGF_OUT_H

#include "backends/vgf/analysis/state.h"
#include "report/backend_out.h"

void vgf_json_target(const void *state, mlia_jw *w);
/* console_nx.c: the NX lines of the console summary (reads the result only) */
void vgf_console_fields(const void *state, const mlia_result *r, mlia_console *c);
void vgf_json_statistics(const void *state, mlia_jw *w);
void vgf_json_context(const void *state, const mlia_run_record *s, mlia_jw *w);
extern const char *const vgf_csv_group_kinds[];
void vgf_csv_execution(const void *state, uint32_t run, const mlia_csv_exec *row, mlia_arena *names);
/* NX counter series (model total and compute cycles, each measured graph
 * segment's total cycles), in arena memory. */
uint32_t vgf_timeline_counters(const void *state, mlia_arena *a, const mlia_backend_counter **out);

#endif
