/*
 * views_nx.h - what the VGF backend's Model Explorer views share
 * (views_nx.c): the backend's state in the run record, the NX namespaces of
 * segments and chains, the NX view helpers, and the backend's rows of the
 * view table (placed among the shared rows by their order, views.c).
 */
#ifndef MLIA_BACKENDS_VGF_VIEWS_NX_H
#define MLIA_BACKENDS_VGF_VIEWS_NX_H

#include "backends/vgf/analysis/state.h"
#include "report/backend_out.h"
#include "report/views/views_model.h"

/* The VGF backend's state in the run record, or NULL when it did not run. */
const vgf_state *vgf_state_of(const mlia_run_record *s);
/* Its NX analysis and companion VGF (NULL when absent). */
const nx_result *vgf_nx_of(const mlia_run_record *s);

/* NX chain namespaces, indexed like nx_result.chains:
 * chain_parent = "segment_<L>/cascade_<x>" (or "segment_<L>"),
 * chain_path = chain_parent + "/chain_<y>"; segment_ns = "segment_<L>",
 * indexed like nx_result.segments. Computed once per views_write (kept in
 * the context's slot of the backend); all NULL without NX. */
typedef struct vgf_views_ns {
    const char **chain_parent, **chain_path;
    const char **segment_ns;
} vgf_views_ns;
const vgf_views_ns *vgf_views_ns_of(vw_ctx *c);

/* Some graph segment has a measured chain; else vw_nx_reason() says why not. */
bool vw_nx_measured(const nx_result *nx);
const char *vw_nx_reason(const nx_result *nx);
/* A segment the NX views show: a graph segment that was analysed. */
bool vw_segment_shown(const nx_segment *seg);
/* total/op cycle attributes (p50, min, max), per-counter cycles, coverage. */
void vw_cycle_attrs(vw_ctx *c, vw_node *n, const mlia_entity *e);
/* A measured group `ns` of graph gi: group attributes <kind> = id, "name"
 * (when not NULL) and "<metric>_p50 (group measurement)"; its summary node
 * (label) with the cycle attributes, which carries overlay value ov. */
void vw_measured_group(vw_ctx *c, vw_view *v, uint32_t gi, const char *ns, const char *kind, const char *id,
                       const char *name, const char *label, uint32_t ov, const char *metric);
/* The chain metric of the NX views: "total_cycles" when some chain has it
 * (or without NX), else "op_cycles" (the backend's view_metric hook). */
const char *vw_chain_metric(const nx_result *nx);
const char *vgf_view_metric(const void *state);

/* The backend's views, one file each (view_<name>.c). */
const char *vw_chains_unavailable(const mlia_run_record *s);
void vw_chains_build(vw_ctx *c, vw_view *v);
const char *vw_mapping_unavailable(const mlia_run_record *s);
void vw_mapping_build(vw_ctx *c, vw_view *v);
const char *vw_pte_unavailable(const mlia_run_record *s);
void vw_pte_build(vw_ctx *c, vw_view *v);

/* Its rows of the shared "ETDump Backend Trace" view: graph
 * "compiler_operations" (the NX compiler operations of the shown segments,
 * grouped by their first chain). */
bool vgf_trace_view_has_rows(const void *state);
void vgf_trace_view_rows(vw_ctx *c, vw_view *v, const void *state, uint32_t group_overlay);

/* The backend's rows of the view table. */
#define VGF_N_VIEWS 3
extern const vw_view_def vgf_views[VGF_N_VIEWS];

#endif
