/*
 * views_model.h - in-memory Model Explorer graphs shared by the view
 * builders and the writers (internal to the .c files of src/report/views/).
 *
 * Why a model instead of streaming each view straight to JSON: the colour
 * scales are kind-wide across all views, the sync mapping relates nodes of
 * different views and the page embeds every view again, so every view is
 * built once into this model and then written several times.
 *
 * A graph keeps its nodes in insertion order (the output order) with a
 * hashed id index, so node ids stay unique and edges can be checked in
 * constant time. Node pointers are invalidated by the next vw_node_add()
 * on the same graph: builders hold node indexes, not pointers.
 *
 * Ownership: everything lives in the arena of the vw_ctx; strings given to
 * the add functions are borrowed (pass arena or session strings).
 */
#ifndef MLIA_REPORT_VIEWS_MODEL_H
#define MLIA_REPORT_VIEWS_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "analysis/run.h"
#include "core/arena.h"

#define VW_NONE UINT32_MAX

/* Node styles (docs/views.md): unmatched compiler operations (no chain or
 * no association recorded) and compute segments (not estimated). */
#define VW_STYLE_UNMATCHED_BG "#eeeeee"
#define VW_STYLE_UNMATCHED_BORDER "#c62828"
#define VW_STYLE_COMPUTE_BG "#e3f2fd"
#define VW_STYLE_COMPUTE_BORDER "#1565c0"

/* String -> uint32 map, open addressing, keys borrowed. */
typedef struct vw_map {
    uint32_t cap, n;
    const char **keys;
    uint32_t *vals;
} vw_map;

void vw_map_init(vw_map *m, mlia_arena *a, uint32_t expected);
/* Value of key, or VW_NONE. */
uint32_t vw_map_get(const vw_map *m, const char *key);
/* Insert when absent; returns the existing value when present, else val. */
uint32_t vw_map_put(vw_map *m, mlia_arena *a, const char *key, uint32_t val);

/* Growable list of strings (arena). */
typedef struct vw_strs {
    uint32_t n, cap;
    const char **v;
} vw_strs;
void vw_strs_add(vw_strs *l, mlia_arena *a, const char *s);

/* Appends one zeroed element to an arena array (n, cap, ptr); evaluates to
 * its address. */
#define VW_PUSH(a, n, cap, ptr)                                                                        \
    ((ptr) = mlia_arena_room((a), (ptr), (n), &(cap), sizeof *(ptr)),                                  \
     memset(&(ptr)[(n)], 0, sizeof *(ptr)), &(ptr)[(n)++])

typedef struct vw_kv {
    const char *key, *value;
} vw_kv;

typedef struct vw_edge {
    const char *source;        /* source node id */
    const char *source_output; /* "0" ... */
    const char *target_input;  /* "0" ... */
} vw_edge;

typedef struct vw_meta {
    const char *id;
    uint32_t n_attrs, cap_attrs;
    vw_kv *attrs;
} vw_meta;

typedef struct vw_node {
    const char *id, *label, *ns;
    const char *entity;        /* represented entity id, or NULL */
    uint32_t n_attrs, cap_attrs;
    vw_kv *attrs;
    uint32_t n_edges, cap_edges;
    vw_edge *edges;
    uint32_t n_inputs, cap_inputs;
    vw_meta *inputs;
    uint32_t n_outputs, cap_outputs;
    vw_meta *outputs;
    vw_strs subgraphs;         /* subgraphIds: graphs of the same view this node opens */
    bool pin_top;              /* config.pinToGroupTop: the summary node of its group */
    const char *style_bg, *style_border; /* GraphNodeStyle colours, or NULL */
} vw_node;

typedef struct vw_group {
    const char *ns;
    uint32_t n_attrs, cap_attrs;
    vw_kv *attrs;
} vw_group;

typedef struct vw_graph {
    const char *id;
    uint32_t n_nodes, cap_nodes;
    vw_node *nodes;
    vw_map index;              /* node id -> node index */
    uint32_t n_groups, cap_groups;
    vw_group *groups;
    vw_map group_index;
} vw_graph;

typedef struct vw_value {
    uint32_t graph;            /* index in the view's graphs */
    const char *key;           /* op node id (a group measurement is keyed to the group's summary node) */
    double value;
    const char *text;          /* display text, e.g. "1.25 ms (shared)" */
    const char *color, *text_color; /* filled by vw_colour_overlays */
} vw_value;

typedef struct vw_overlay {
    const char *id, *label, *unit, *entity_kind;
    const char *name;          /* Model Explorer name "<label> (<unit>) - <view label>", set by views.c */
    const char *scale_key;     /* "<kind>|<metric>": one colour scale per key across all views */
    bool group_measurement;
    bool reversed;             /* lower is worse (e.g. SNR): the minimum gets the dark red end */
    uint32_t n_values, cap_values;
    vw_value *values;
    double min, max;           /* the kind-wide scale */
} vw_overlay;

typedef struct vw_view {
    const char *id, *label;
    const char *title, *help;  /* page name and tooltip (vw_view_def), may be NULL */
    bool available;
    const char *reason;        /* why unavailable, or NULL */
    bool not_applicable;       /* unavailable by what the capture is or was given, not by a fault
                                  (a CPU-only run's NX views, the PTE view without companion) */
    bool has_content;          /* mapping view: at least one chain -> source edge */
    uint32_t n_graphs, cap_graphs;
    vw_graph *graphs;
    uint32_t n_overlays, cap_overlays;
    vw_overlay *overlays;
    vw_strs columns;           /* table_columns of the page */
} vw_view;

/* Extra links between entities that the result does not record (e.g. a
 * compiler operation and the SPIR-V operation node it names). */
typedef struct vw_links {
    vw_map index;              /* entity id -> slot */
    uint32_t n, cap;
    vw_strs *lists;
} vw_links;

typedef struct vw_ctx {
    const mlia_run_record *s;
    mlia_arena *a;
    uint32_t n_views;
    vw_view *views;            /* one per row of the view table (views.c), in its order */
    vw_links links;
    /* one slot per backend of the run (s->backends), for what its view
     * builders compute once per views_write (vw_backend_scratch) */
    void **backend_scratch;
    vw_map keys;               /* vw_key(): "<metric>_<stat>" -> index in key_list */
    vw_strs key_list;
} vw_ctx;

/* Graph and node construction. */
uint32_t vw_graph_add(vw_ctx *c, vw_view *v, const char *id);
/* Adds a node; a duplicate id gets a "#<n>" suffix so ids stay unique.
 * Returns the node index. */
uint32_t vw_node_add(vw_ctx *c, vw_graph *g, const char *id, const char *label, const char *ns,
                     const char *entity);
vw_node *vw_node_find(vw_graph *g, const char *id);
/* Room for n nodes in g (its array and its id index) and for `attrs`
 * attributes in a node, allocated once: a 100,000-node graph then leaves
 * no abandoned copies of doubled arrays behind. */
void vw_graph_reserve(vw_ctx *c, vw_graph *g, uint32_t n);
void vw_node_reserve_attrs(vw_ctx *c, vw_node *n, uint32_t attrs);
void vw_overlay_reserve(vw_ctx *c, vw_overlay *o, uint32_t n);
/* "<a>_<b>" once per text (attribute keys repeated on every node). */
const char *vw_key(vw_ctx *c, const char *a, const char *b);
/* Decimal text of i: constant for small numbers (port and output ids). */
const char *vw_index_text(vw_ctx *c, uint32_t i);
void vw_node_attr(vw_ctx *c, vw_node *n, const char *key, const char *value);
void vw_node_attrf(vw_ctx *c, vw_node *n, const char *key, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* Edge source -> n; target input id = current number of edges. */
void vw_node_edge(vw_ctx *c, vw_node *n, const char *source, const char *source_output);
/* Adds outputsMetadata (or inputsMetadata) entry with one attribute. */
void vw_node_output(vw_ctx *c, vw_node *n, const char *id, const char *key, const char *value);
void vw_node_input(vw_ctx *c, vw_node *n, const char *id, const char *key, const char *value);
/* Attribute of the group `ns`; ns "" is the graph-level summary (shown by
 * Model Explorer when nothing is selected). */
void vw_group_attr(vw_ctx *c, vw_graph *g, const char *ns, const char *key, const char *value);
/* Adds the summary op node of a measured group: id = the group's entity id,
 * namespace = the group itself, pinned to the group's top. Model Explorer
 * colours op nodes only and dissolves a group with a single op child, so a
 * group measurement is keyed to this node (never copied to the members) and
 * the group always keeps at least two children. Returns the node index. */
uint32_t vw_summary_node(vw_ctx *c, vw_graph *g, const char *ns, const char *entity, const char *label);

uint32_t vw_overlay_add(vw_ctx *c, vw_view *v, const char *id, const char *label, const char *unit,
                        const char *entity_kind, const char *metric, bool group_measurement);
void vw_overlay_value(vw_ctx *c, vw_overlay *o, uint32_t graph, const char *key, double value, const char *text);

void vw_link(vw_ctx *c, const char *a, const char *b);
const vw_strs *vw_links_of(const vw_ctx *c, const char *entity);

/* Drops overlays without any value (they would be empty node-data files). */
void vw_drop_empty_overlays(vw_ctx *c);
/* Kind-wide scales and explicit colours for every overlay value. */
void vw_colour_overlays(vw_ctx *c);
/* Colour of t in [0, 1] on the documented scale ("#rrggbb" into out[8]). */
void vw_colour(double t, char out[8], const char **text_color);
extern const char *const vw_gradient_stops[3];

/* Metric helpers: value of the metric `name` with qualifier statistic =
 * `stat`, falling back to a metric without a statistic qualifier (single
 * execution, aggregation sum). Returns false when absent or unavailable. */
bool vw_metric(const mlia_entity *e, const char *name, const char *stat, double *out, const mlia_metric **m);
/* A number by its unit's rule of the shared formatter (report/format.h), in the arena. */
const char *vw_num(vw_ctx *c, double v, const char *unit);
/* "<value> <unit>" by the shared formatter (report/format.h), in the arena. */
const char *vw_qty(vw_ctx *c, double v, const char *unit);

/* Multimap add (a -> b); dedupe checks b against a's list (linear). */
void vw_multi_add(mlia_arena *a, vw_links *l, const char *from, const char *to, bool dedupe);
/* ---- what the builders share (views_build.c) ---- */

/* s without a leading prefix (unless nothing would remain). */
const char *vw_strip_prefix(const char *s, const char *prefix);
/* Overlay value "<value> <unit>[ (shared|exclusive)]" of an entity metric
 * (nothing when ov is VW_NONE or the metric is absent). */
void vw_overlay_metric(vw_ctx *c, vw_view *v, uint32_t ov, uint32_t graph, const char *key,
                       const mlia_entity *e, const char *metric, const char *stat);
/* Node attribute "<metric>_<stat>" with the metric's value and unit. */
void vw_attr_metric(vw_ctx *c, vw_node *n, const mlia_entity *e, const char *metric, const char *stat);
/* "a, b, c" of at most cap items, then ", ... (<n> more)". */
const char *vw_list_text(vw_ctx *c, const char *const *v, uint32_t n, uint32_t cap);
/* The run had no delegate call in its ETDump and no NX measurement: it ran on
 * the CPU only (docs/page.md, "Not applicable to this capture"). */
bool vw_cpu_only(const mlia_run_record *s);
/* Delegate calls of other backends only and no NX statistics (headline.h other_delegates_only). */
bool vw_other_delegates_only(const mlia_run_record *s);
/* The slot of backend `name` in c->backend_scratch (NULL until the backend
 * fills it; for a backend that did not run, a fresh slot of the arena). */
void **vw_backend_scratch(vw_ctx *c, const char *name);
/* The page data's "memory" object (view_memory.c; s->memory not NULL). */
struct mlia_jw;
void vw_memory_write(const mlia_run_record *s, mlia_arena *a, struct mlia_jw *w);

/* ---- the view table (views.c) ---- */

/* An overlay a view declares up front. In id, label and metric "%s" stands
 * for the chain metric of the NX views (vw_chain_metric). */
typedef struct vw_overlay_def {
    const char *id, *label, *unit, *entity_kind, *metric;
    bool group_measurement;
    bool reversed;             /* vw_overlay.reversed */
} vw_overlay_def;

/* One row of the view table: everything views.c needs to know of a view.
 * Before build() runs on an available view, views.c adds the row's columns
 * and overlays, so overlays[i] of the row is v->overlays[i] (overlays
 * without values are dropped later); build() may add more of both. */
typedef struct vw_view_def {
    const char *id;            /* models/<id>.json, manifest and page id */
    const char *label;         /* Model Explorer collection label */
    /* NULL when the session has what the view shows, else the reason
     * shown in the manifest and the page */
    const char *(*unavailable)(const mlia_run_record *s);
    void (*build)(vw_ctx *c, vw_view *v);
    const char *const *columns;          /* page table columns, NULL-terminated, or NULL */
    const vw_overlay_def *const *overlays; /* NULL-terminated, or NULL */
    bool preferred;            /* the initial view when available and has_content */
    uint32_t order;            /* place among all rows (shared and backends'), ascending */
    bool needs_companion;      /* shows the companion PTE: not applicable without one */
    /* the page only (issue 29, 4): a readable name when the Model Explorer
     * label is an internal id (NULL: the label), and what the view shows
     * (the view selector's tooltip) */
    const char *title;
    const char *help;
} vw_view_def;

/* Row-building shorthands of the view tables (views.c, a backend's views). */
#define VW_OVERLAY(id, label, unit, kind, metric, group) \
    (&(const vw_overlay_def){id, label, unit, kind, metric, group, false})
#define VW_MS_P50(id, label, kind, stat) VW_OVERLAY(id, label, "ms", kind, "execution_time:" stat, false)
#define VW_CYCLES_P50(id, label, kind, group) VW_OVERLAY(id, label, "cycles", kind, "%s:p50", group)
#define VW_LIST(...) ((const char *const[]){__VA_ARGS__, NULL})
#define VW_OVERLAYS(...) ((const vw_overlay_def *const[]){__VA_ARGS__, NULL})
/* Numerical accuracy (docs/accuracy.md): values only with intermediate
 * outputs compared with a reference, so these overlays are dropped (and the
 * outputs unchanged) otherwise. A low SNR is bad: its scale is reversed. */
#define VW_SNR_P50(id, label, kind) \
    (&(const vw_overlay_def){id, label, "dB", kind, "output_snr_db:p50", false, true})
/* Chain cycles as a group measurement (trace and PTE views). */
#define VW_CHAIN_GROUP VW_CYCLES_P50("chain_group_%s", "Chain group %s P50", "chain", true)

/* The views, one file each (view_<name>.c): availability and builder. */
const char *vw_source_unavailable(const mlia_run_record *s);
void vw_source_build(vw_ctx *c, vw_view *v);
const char *vw_trace_unavailable(const mlia_run_record *s);
void vw_trace_build(vw_ctx *c, vw_view *v);

#endif
