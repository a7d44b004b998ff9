/*
 * result.h - the in-memory form of the MLIA standardized result (schema 1.2.0).
 *
 * The analysis steps (runtime timings, NX statistics, companion checks) add
 * entities, metrics and warnings to one mlia_result; the writers (result JSON,
 * console summary, Model Explorer views, trace) only read it. Keeping one
 * neutral model means every writer shows the same numbers.
 *
 * Metric values are either an unsigned integer (cycles, counts) or a double
 * (milliseconds, percentages); an unavailable metric has a reason instead of a
 * value, never both. Qualifiers are an ordered list of key/value pairs
 * (e.g. statistic=p50, attribution=shared).
 *
 * Ownership: every string and array hangs off the arena given to
 * mlia_result_init(); the result never frees anything itself. Strings passed
 * to the add functions are NOT copied unless the function says so: pass
 * arena-owned or static strings.
 *
 * Lookups by entity id use an open-addressing hash index so that attaching
 * metrics to 100,000 entities stays linear.
 */
#ifndef MLIA_ANALYSIS_RESULT_H
#define MLIA_ANALYSIS_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"

typedef enum mlia_value_type {
    MLIA_VALUE_UNAVAILABLE = 0,
    MLIA_VALUE_UINT,
    MLIA_VALUE_DOUBLE
} mlia_value_type;

typedef struct mlia_qualifier {
    const char *key;
    const char *value;
} mlia_qualifier;

/* The analyses qualify a metric by "statistic" and "attribution" only; a
 * further key would be dropped by mlia_metric_qualify(), so raise this with
 * the first analysis that needs one. */
#define MLIA_MAX_QUALIFIERS 2

/* Compact (80 bytes): a graph of 100,000 operators carries about a million
 * of them (docs/benchmarks.md, "Wide graphs"). The value is one union: read
 * u or d according to type (an unavailable metric reads 0 in both). */
typedef struct mlia_metric {
    const char *name;
    const char *unit;
    const char *aggregation; /* "sum", "p50", "min", "max" or NULL */
    const char *reason;    /* unavailable only */
    union {
        uint64_t u;        /* MLIA_VALUE_UINT */
        double d;          /* MLIA_VALUE_DOUBLE (always finite) */
    };
    uint32_t samples;      /* 0 = not emitted */
    uint8_t type;          /* mlia_value_type */
    uint8_t n_qualifiers;
    mlia_qualifier qualifiers[MLIA_MAX_QUALIFIERS];
} mlia_metric;

typedef enum mlia_attr_type {
    MLIA_ATTR_STRING = 0,
    MLIA_ATTR_INT,
    MLIA_ATTR_DOUBLE,
    MLIA_ATTR_BOOL,
    MLIA_ATTR_STRING_LIST,
    MLIA_ATTR_INT_LIST
} mlia_attr_type;

typedef struct mlia_attr {
    const char *key;
    mlia_attr_type type;
    const char *s;
    int64_t i;
    double d;
    bool b;
    uint32_t n;            /* list length */
    const char **list_s;
    int64_t *list_i;
} mlia_attr;

typedef struct mlia_entity mlia_entity;

/* Relationships form a directed acyclic graph (MLIA schema 1.2.0 parent_ids /
 * child_ids): an entity may have several parents, e.g. a source operator under
 * its nn_module, the delegate call that ran it, the chains and compiler
 * operations that served it. Both directions are kept, in link order, without
 * duplicates; mlia_result_link() is the only writer of these lists. */
struct mlia_entity {
    const char *id;
    const char *kind;
    const char *name;
    const char *placement;       /* MLIA placement ("NX", "CPU", ...) or NULL (static string) */
    uint32_t n_attrs, cap_attrs;
    mlia_attr *attrs;
    uint32_t n_parents, cap_parents;
    mlia_entity **parents;
    uint32_t n_children, cap_children;
    mlia_entity **children;
    /* Breakdown metrics of this entity, in emission order. */
    uint32_t n_metrics, cap_metrics;
    mlia_metric *metrics;
};

/* A backend-defined entity kind (MLIA's well-known kinds source_operator,
 * model, code_stack and code_line are never declared). The description is
 * documentation only; it is not written to the result. */
typedef struct mlia_entity_kind {
    const char *kind;
    const char *description;
    const char *parent_kinds;    /* comma-separated, may be NULL */
    const char *child_kinds;     /* comma-separated, may be NULL */
} mlia_entity_kind;

/* One (parent kind, child kind) pair that some link in the result uses. */
typedef struct mlia_kind_edge {
    const char *parent_kind;
    const char *child_kind;
} mlia_kind_edge;

/* One advice entry (MLIA schema 1.2.0 results[].advice; analysis/advice.h
 * derives them): a ranked next step with the rule that produced it, the
 * entities it names (ids that resolve in the result) and its figures. */
typedef struct mlia_advice {
    const char *id;              /* the rule's id, e.g. "hot-chain" (static string) */
    const char *category;        /* "performance", "optimization" or "compatibility" (static) */
    const char *severity;        /* "info", "warning" or "error" (static) */
    const char *message;         /* arena-owned */
    uint32_t n_affected;
    const char **affected;       /* entity ids (borrowed from the entities) */
    uint32_t n_details;
    mlia_attr *details;          /* figures behind the message: numbers and strings */
} mlia_advice;

typedef struct mlia_result {
    mlia_arena *arena;
    const char *status;          /* "ok" or "partial" */
    /* Warnings in emission order, deduplicated by text. */
    uint32_t n_warnings, cap_warnings;
    const char **warnings;
    uint32_t n_errors, cap_errors;
    const char **errors;
    /* Model-level metrics in order. */
    uint32_t n_metrics, cap_metrics;
    mlia_metric *metrics;
    /* Entities in deterministic emission order. */
    uint32_t n_entities, cap_entities;
    mlia_entity **entities;
    uint32_t n_kinds, cap_kinds;
    mlia_entity_kind *kinds;
    /* Kind pairs used by links, in first-use order (small: one per relationship type). */
    uint32_t n_kind_edges, cap_kind_edges;
    mlia_kind_edge *kind_edges;
    /* Advice, ranked (analysis/advice.h; empty until mlia_advise() runs). */
    uint32_t n_advice;
    mlia_advice *advice;
    /* id -> entity hash index (private). */
    uint32_t index_cap;
    mlia_entity **index;
} mlia_result;

void mlia_result_init(mlia_result *r, mlia_arena *arena);

/* Warnings: identical texts are kept once. The text is copied. */
void mlia_result_warn(mlia_result *r, const char *text);
void mlia_result_warnf(mlia_result *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
bool mlia_result_has_warning(const mlia_result *r, const char *text);

/* Entities. mlia_result_entity() returns the existing entity with that id or
 * creates it (id, kind, name copied into the arena). */
mlia_entity *mlia_result_entity(mlia_result *r, const char *id, const char *kind, const char *name);
mlia_entity *mlia_result_find(const mlia_result *r, const char *id);
void mlia_result_kind(mlia_result *r, const char *kind, const char *description,
                      const char *parent_kinds, const char *child_kinds);

/* Attributes (key and string values copied). Setting an existing key replaces it. */
void mlia_entity_set_str(mlia_result *r, mlia_entity *e, const char *key, const char *value);
void mlia_entity_set_int(mlia_result *r, mlia_entity *e, const char *key, int64_t value);
void mlia_entity_set_double(mlia_result *r, mlia_entity *e, const char *key, double value);
void mlia_entity_set_bool(mlia_result *r, mlia_entity *e, const char *key, bool value);
void mlia_entity_set_str_list(mlia_result *r, mlia_entity *e, const char *key,
                              const char *const *values, uint32_t n);
void mlia_entity_set_int_list(mlia_result *r, mlia_entity *e, const char *key,
                              const int64_t *values, uint32_t n);
const mlia_attr *mlia_entity_attr(const mlia_entity *e, const char *key);
/* Adds the edge parent -> child (both directions, deduplicated; a self link is
 * ignored). Callers keep the graph acyclic by linking only from a containing or
 * serving entity to a contained or served one (docs/result-format.md). */
void mlia_result_link(mlia_result *r, mlia_entity *parent, mlia_entity *child);
/* Same, by ids; does nothing when either entity does not exist. */
void mlia_result_link_ids(mlia_result *r, const char *parent_id, const char *child_id);
/* True for MLIA's well-known kinds (source_operator, model, code_stack, code_line). */
bool mlia_kind_is_well_known(const char *kind);
/* True when MLIA's schema itself allows parent_kind -> child_kind. */
bool mlia_kind_edge_is_well_known(const char *parent_kind, const char *child_kind);

/* Metric constructors (name/unit/aggregation must outlive the result: use
 * literals or arena strings). */
mlia_metric mlia_metric_uint(const char *name, const char *unit, uint64_t v, const char *aggregation,
                             uint32_t samples);
mlia_metric mlia_metric_double(const char *name, const char *unit, double v, const char *aggregation,
                               uint32_t samples);
mlia_metric mlia_metric_unavailable(const char *name, const char *unit, const char *reason);
void mlia_metric_qualify(mlia_metric *m, const char *key, const char *value);
const char *mlia_metric_qualifier(const mlia_metric *m, const char *key);

void mlia_result_add_metric(mlia_result *r, mlia_metric m);
void mlia_entity_add_metric(mlia_result *r, mlia_entity *e, mlia_metric m);
/* Room for n more metrics of e in one block, for an analysis that knows how
 * many it adds (runtime.c: ~10 per source operator): growing by doubling
 * would leave the smaller block behind in the arena and room unused. */
void mlia_entity_reserve_metrics(mlia_result *r, mlia_entity *e, uint32_t n);
/* First metric of the entity with this name and (optional) qualifier statistic. */
const mlia_metric *mlia_entity_metric(const mlia_entity *e, const char *name, const char *statistic);
const mlia_metric *mlia_result_metric(const mlia_result *r, const char *name);

#endif
