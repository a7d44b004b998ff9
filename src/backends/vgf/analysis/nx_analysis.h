/*
 * nx_analysis.h - NX cycle analysis of VGF neural statistics in an ETDump
 * (docs/formats/nx-statistics.md §8-9, whose sections the § below cite;
 * docs/analysis.md).
 *
 * Input: the decoded ETDump, the run indexes of the analysed method's
 * executions, optionally the VGF segment names and SPIR-V name maps (from a
 * companion PTE) and the ETRecord node names. Output: one nx_result holding
 * everything the product emits - resolved mode/device, the warning list in
 * catalogue order (W1-W11), and the segment > cascade > NX chain > stripe
 * hierarchy with per-execution values and their P50/min/max summaries,
 * compiler (TOSA) operations with labels and ETRecord associations, and the
 * model cycle summaries or the reason they are unavailable.
 *
 * Processing (see the .c for the why): pass 1 identifies every record and
 * validates its wrapper, collecting the first copy of each segment's static
 * blobs (debug database, statistics info); pass 2 interprets each record's
 * statistics memory, combining records of a call site within an execution
 * before anything is summarised across executions.
 *
 * Values: every metric of an entity has one value per execution in which
 * its segment was recorded; arrays are indexed like the segment's
 * recorded_runs. Counters are in the label order of `counter_labels`.
 *
 * Ownership: nx_result and everything it points to live in the arena given
 * to nx_analyse. Input strings are copied or borrowed from inputs that must
 * outlive the result (the ETDump mapping, source node names).
 */
#ifndef MLIA_ANALYSIS_NX_ANALYSIS_H
#define MLIA_ANALYSIS_NX_ANALYSIS_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "formats/etdump.h"
#include "backends/vgf/formats/nx_debugdb.h"
#include "backends/vgf/formats/nx_stats.h"

/* Optional VGF information for one model-sequence segment, indexed by the
 * statistics' segment_id (vgf_segments[segment_id]). */
typedef struct nx_segment_vgf {
    const char *name;        /* model-sequence name, NULL/"" when unknown */
    bool has_name_map;       /* SPIR-V available: name_map is authoritative */
    nx_name_map name_map;    /* known ids in order + debug names (§7.9) */
} nx_segment_vgf;

typedef struct nx_inputs {
    const char *etdump_path;             /* error file prefix */
    const etdump *dump;
    const uint32_t *execution_runs;      /* run indexes of the executions, ascending */
    uint32_t n_executions;
    const nx_segment_vgf *vgf_segments;  /* optional */
    uint32_t n_vgf_segments;
    const char *const *source_node_names; /* ETRecord nodes of the method (optional) */
    uint32_t n_source_nodes;
    const char *vgf_source_path;         /* file the VGF segments come from (the companion
                                            PTE): a statistics label that the VGF does not
                                            define is that file's mismatch, reported on it */
} nx_inputs;

/* Summary of per-execution values (§9.4). samples == 1: p50 == min == max and
 * breakdown aggregation is `sum`; samples > 1: p50/min/max. */
typedef struct nx_stat {
    bool available;
    uint32_t samples;
    uint64_t p50, min, max;
} nx_stat;

typedef struct nx_dstat {
    bool available;
    uint32_t samples;
    double p50, min, max;
} nx_dstat;

/* Cycle values of one entity. Per-execution arrays have the segment's
 * n_recorded elements; counters are [execution][counter] row-major. */
typedef struct nx_metrics {
    uint64_t *total_cycles;
    uint64_t *op_cycles;
    bool has_counters;        /* some contributing row carried counters */
    uint64_t *counters;       /* n_recorded * n_counters, when has_counters */
    nx_stat total, op;        /* summaries */
    nx_stat *counter_stats;   /* n_counters, when has_counters */
} nx_metrics;

typedef struct nx_segment {
    const char *token;        /* <L> */
    const char *id;           /* segment/<L> */
    const char *name;         /* VGF model-sequence name or "" */
    const char *display_name; /* name, else id */
    int64_t chain_index;      /* call site */
    int32_t instruction_id;
    uint64_t segment_id;
    bool is_graph;
    bool analysed;            /* listed in an available record (graph only) */
    bool measured;            /* at least one measurement: hierarchy built */
    uint32_t n_recorded;      /* |E_s| */
    uint32_t *recorded_runs;  /* E_s, ascending run indexes */
    double coverage;          /* 100 * n_recorded / N */
    nx_metrics m;
    uint32_t first_cascade, n_cascades; /* ranges in nx_result arrays */
    uint32_t first_chain, n_chains;
    uint32_t first_stripe, n_stripes;
    uint32_t first_op, n_ops;
} nx_segment;

typedef struct nx_cascade {
    const char *id;           /* cascade/segment_<L>/<c> */
    const char *raw_id;       /* c */
    const char *name;
    uint32_t segment;
    uint32_t n_stripes;
    uint32_t *stripe_ids;     /* row order */
    uint32_t n_chains;        /* children: chains sharing a stripe */
    uint32_t *chains;
    nx_metrics m;
} nx_cascade;

typedef struct nx_chain {
    const char *id;           /* chain/segment_<L>/<h> */
    const char *raw_id;       /* h */
    const char *name;
    uint32_t segment;
    uint32_t parent_cascade;  /* last cascade (in cascade order) sharing its stripes */
    uint32_t n_stripes;
    uint32_t *stripe_ids;
    uint32_t n_tosa;          /* TOSA ops of the chain, duplicates kept (§7.7.2) */
    uint32_t *tosa_ops;       /* indexes into nx_result.ops */
    uint32_t n_ops;           /* distinct compiler operations (children), first-seen order */
    uint32_t *ops;
    nx_metrics m;
} nx_chain;

typedef struct nx_stripe {
    const char *id;           /* stripe/segment_<L>/<s> */
    const char *name;         /* Stripe <s> */
    uint32_t stripe;
    uint32_t segment;
    uint32_t chain, cascade;
    nx_metrics m;
} nx_stripe;

typedef struct nx_compiler_op {
    const char *id;           /* compiler_operation/segment_<L>/tosa-<t> */
    const char *tosa_id;      /* t */
    const char *name;         /* op types joined by '/' */
    uint32_t segment;
    uint32_t n_types;
    const char **types;
    bool has_spirv_id;        /* first SPIR-V label */
    const char *spirv_id;     /* decimal text */
    uint32_t n_labels;
    const char **labels;
    const char *display_label;  /* of the first label ("" when none) */
    const char *operator_name;  /* first JSON operator_name, NULL when none */
    uint32_t n_vgf_ids;         /* source_operator/segment_<L>/spirv-<N> */
    const char **vgf_ids;
    uint32_t n_parents;         /* chains that reach it */
    uint32_t *parents;
    uint32_t n_sources;         /* associated ETRecord node names */
    const char **sources;
    nx_label_info *label_info;  /* n_labels parsed labels (provenance) */
} nx_compiler_op;

/* Model cycle summaries (§9.6). */
typedef struct nx_model {
    bool available;
    const char *reason;       /* when unavailable */
    uint32_t n_exec;          /* |E*| */
    uint32_t *runs;           /* E* */
    uint64_t *total_cycles;   /* per execution in E* */
    uint64_t *compute_cycles;
    double *utilization;
    nx_stat total, compute;
    nx_dstat utilization_stat;
} nx_model;

typedef struct nx_result {
    bool any_record;          /* at least one statistics record */
    bool any_measurement;
    bool resolved;            /* mode/device resolved from some record */
    int mode;
    const char *device;       /* "Mali-G1" / "Mali-G2" (when resolved) */
    nx_device device_kind;
    bool mode_assumed, device_assumed;
    const char *device_name;  /* target.device_name when recorded, else NULL */
    bool has_leading_block_count;
    int64_t leading_block_count;
    uint32_t n_records;

    uint32_t n_counters;
    const char *const *counter_labels; /* e.g. "nx_active"; metric = <label>_cycles */

    uint32_t n_warnings;
    const char **warnings;    /* catalogue order, deduplicated */

    uint32_t n_executions;    /* N */
    uint32_t n_segments;      /* sorted by (chain_index, instruction_id, segment_id) */
    nx_segment *segments;
    uint32_t n_cascades;
    nx_cascade *cascades;
    uint32_t n_chains;
    nx_chain *chains;
    uint32_t n_stripes;
    nx_stripe *stripes;
    uint32_t n_ops;
    nx_compiler_op *ops;

    uint32_t n_ops_associated;      /* compiler operations with >= 1 source node */
    uint32_t n_sources_associated;  /* distinct source nodes with >= 1 operation */

    nx_model model;
} nx_result;

/* Run the analysis. On error returns -1 with err = "<etdump_path>: <what>"
 * where <what> carries the record context of §0. */
int nx_analyse(const nx_inputs *in, mlia_arena *arena, nx_result **out, mlia_error *err);

/* P50 (nearest rank, lower median), min and max of n values (n >= 1). */
nx_stat nx_summarise(const uint64_t *v, uint32_t n);
nx_dstat nx_summarise_double(const double *v, uint32_t n);

#endif
