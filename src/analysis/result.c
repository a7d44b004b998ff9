/*
 * result.c - the standardized result model (see result.h).
 */
#include "result.h"
#include "core/cnum.h"
#include "core/str.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void mlia_result_init(mlia_result *r, mlia_arena *arena)
{
    memset(r, 0, sizeof *r);
    r->arena = arena;
    r->status = "ok";
}

#define GROW(r, arr, n, cap, type)                                                         \
    do {                                                                                   \
        if ((n) == (cap)) {                                                                \
            uint32_t nc = (cap) ? (cap) * 2 : 8;                                           \
            arr = mlia_arena_grow((r)->arena, arr, (n), nc, sizeof(type));                 \
            cap = nc;                                                                      \
        }                                                                                  \
    } while (0)

bool mlia_result_has_warning(const mlia_result *r, const char *text)
{
    for (uint32_t i = 0; i < r->n_warnings; i++)
        if (strcmp(r->warnings[i], text) == 0)
            return true;
    return false;
}

void mlia_result_warn(mlia_result *r, const char *text)
{
    if (mlia_result_has_warning(r, text))
        return;
    GROW(r, r->warnings, r->n_warnings, r->cap_warnings, const char *);
    r->warnings[r->n_warnings++] = mlia_arena_strdup(r->arena, text);
}

void mlia_result_warnf(mlia_result *r, const char *fmt, ...)
{
    char buf[4096];
    MLIA_FORMAT_ARGS(buf, fmt);
    mlia_result_warn(r, buf);
}

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

static void index_insert(mlia_entity **index, uint32_t cap, mlia_entity *e)
{
    uint32_t i = (uint32_t)(hash_str(e->id) & (cap - 1));
    while (index[i])
        i = (i + 1) & (cap - 1);
    index[i] = e;
}

mlia_entity *mlia_result_find(const mlia_result *r, const char *id)
{
    if (!r->index_cap)
        return NULL;
    uint32_t i = (uint32_t)(hash_str(id) & (r->index_cap - 1));
    while (r->index[i]) {
        if (strcmp(r->index[i]->id, id) == 0)
            return r->index[i];
        i = (i + 1) & (r->index_cap - 1);
    }
    return NULL;
}

mlia_entity *mlia_result_entity(mlia_result *r, const char *id, const char *kind, const char *name)
{
    mlia_entity *e = mlia_result_find(r, id);
    if (e)
        return e;
    if ((r->n_entities + 1) * 2 > r->index_cap) {
        uint32_t nc = r->index_cap ? r->index_cap * 2 : 64;
        mlia_entity **ni = mlia_arena_array(r->arena, nc, sizeof *ni);
        for (uint32_t i = 0; i < r->n_entities; i++)
            index_insert(ni, nc, r->entities[i]);
        r->index = ni;
        r->index_cap = nc;
    }
    e = mlia_arena_alloc(r->arena, sizeof *e);
    e->id = mlia_arena_strdup(r->arena, id);
    e->kind = mlia_arena_strdup(r->arena, kind);
    e->name = mlia_arena_strdup(r->arena, name ? name : id);
    GROW(r, r->entities, r->n_entities, r->cap_entities, mlia_entity *);
    r->entities[r->n_entities++] = e;
    index_insert(r->index, r->index_cap, e);
    return e;
}

void mlia_result_kind(mlia_result *r, const char *kind, const char *description,
                      const char *parent_kinds, const char *child_kinds)
{
    for (uint32_t i = 0; i < r->n_kinds; i++)
        if (strcmp(r->kinds[i].kind, kind) == 0)
            return;
    GROW(r, r->kinds, r->n_kinds, r->cap_kinds, mlia_entity_kind);
    mlia_entity_kind *k = &r->kinds[r->n_kinds++];
    k->kind = kind;
    k->description = description;
    k->parent_kinds = parent_kinds;
    k->child_kinds = child_kinds;
}

static mlia_attr *attr_slot(mlia_result *r, mlia_entity *e, const char *key)
{
    for (uint32_t i = 0; i < e->n_attrs; i++)
        if (mlia_cstr_eq(e->attrs[i].key, key)) {
            const char *kept = e->attrs[i].key; /* the result's copy */
            memset(&e->attrs[i], 0, sizeof e->attrs[i]);
            e->attrs[i].key = kept;
            return &e->attrs[i];
        }
    GROW(r, e->attrs, e->n_attrs, e->cap_attrs, mlia_attr);
    mlia_attr *a = &e->attrs[e->n_attrs++];
    memset(a, 0, sizeof *a);
    a->key = mlia_arena_strdup(r->arena, key);
    return a;
}

void mlia_entity_set_str(mlia_result *r, mlia_entity *e, const char *key, const char *value)
{
    mlia_attr *a = attr_slot(r, e, key);
    a->type = MLIA_ATTR_STRING;
    a->s = mlia_arena_strdup(r->arena, value ? value : "");
}

void mlia_entity_set_int(mlia_result *r, mlia_entity *e, const char *key, int64_t value)
{
    mlia_attr *a = attr_slot(r, e, key);
    a->type = MLIA_ATTR_INT;
    a->i = value;
}

void mlia_entity_set_double(mlia_result *r, mlia_entity *e, const char *key, double value)
{
    mlia_attr *a = attr_slot(r, e, key);
    a->type = MLIA_ATTR_DOUBLE;
    a->d = value;
}

void mlia_entity_set_bool(mlia_result *r, mlia_entity *e, const char *key, bool value)
{
    mlia_attr *a = attr_slot(r, e, key);
    a->type = MLIA_ATTR_BOOL;
    a->b = value;
}

void mlia_entity_set_str_list(mlia_result *r, mlia_entity *e, const char *key,
                              const char *const *values, uint32_t n)
{
    mlia_attr *a = attr_slot(r, e, key);
    a->type = MLIA_ATTR_STRING_LIST;
    a->n = n;
    a->list_s = mlia_arena_array(r->arena, n ? n : 1, sizeof *a->list_s);
    for (uint32_t i = 0; i < n; i++)
        a->list_s[i] = mlia_arena_strdup(r->arena, values[i] ? values[i] : "");
}

void mlia_entity_set_int_list(mlia_result *r, mlia_entity *e, const char *key,
                              const int64_t *values, uint32_t n)
{
    mlia_attr *a = attr_slot(r, e, key);
    a->type = MLIA_ATTR_INT_LIST;
    a->n = n;
    a->list_i = mlia_arena_array(r->arena, n ? n : 1, sizeof *a->list_i);
    if (n)
        memcpy(a->list_i, values, n * sizeof *values);
}

const mlia_attr *mlia_entity_attr(const mlia_entity *e, const char *key)
{
    for (uint32_t i = 0; i < e->n_attrs; i++)
        if (mlia_cstr_eq(e->attrs[i].key, key))
            return &e->attrs[i];
    return NULL;
}

bool mlia_kind_is_well_known(const char *kind)
{
    return strcmp(kind, "source_operator") == 0 || strcmp(kind, "model") == 0 ||
           strcmp(kind, "code_stack") == 0 || strcmp(kind, "code_line") == 0;
}

bool mlia_kind_edge_is_well_known(const char *parent_kind, const char *child_kind)
{
    if (strcmp(parent_kind, "code_line") == 0)
        return strcmp(child_kind, "code_stack") == 0;
    if (strcmp(parent_kind, "code_stack") == 0)
        return strcmp(child_kind, "code_stack") == 0 || strcmp(child_kind, "source_operator") == 0;
    return false;
}

static void note_kind_edge(mlia_result *r, const char *pk, const char *ck)
{
    /* the last pair is the likeliest repeat: links come in runs of one type */
    for (uint32_t i = r->n_kind_edges; i-- > 0;)
        if (strcmp(r->kind_edges[i].parent_kind, pk) == 0 && strcmp(r->kind_edges[i].child_kind, ck) == 0)
            return;
    GROW(r, r->kind_edges, r->n_kind_edges, r->cap_kind_edges, mlia_kind_edge);
    r->kind_edges[r->n_kind_edges++] = (mlia_kind_edge){pk, ck};
}

void mlia_result_link(mlia_result *r, mlia_entity *parent, mlia_entity *child)
{
    if (!parent || !child || parent == child)
        return;
    /* parents lists are short (a handful per entity), so this scan is the
     * duplicate check for both directions */
    for (uint32_t i = 0; i < child->n_parents; i++)
        if (child->parents[i] == parent)
            return;
    GROW(r, child->parents, child->n_parents, child->cap_parents, mlia_entity *);
    child->parents[child->n_parents++] = parent;
    GROW(r, parent->children, parent->n_children, parent->cap_children, mlia_entity *);
    parent->children[parent->n_children++] = child;
    note_kind_edge(r, parent->kind, child->kind);
}

void mlia_result_link_ids(mlia_result *r, const char *parent_id, const char *child_id)
{
    mlia_result_link(r, mlia_result_find(r, parent_id), mlia_result_find(r, child_id));
}

/* The fields every metric form sets; value, reason and qualifiers zero. */
static mlia_metric metric_of(const char *name, const char *unit, mlia_value_type type, const char *aggregation,
                             uint32_t samples)
{
    return (mlia_metric){.name = name, .unit = unit, .type = type, .aggregation = aggregation, .samples = samples};
}

mlia_metric mlia_metric_uint(const char *name, const char *unit, uint64_t v, const char *aggregation,
                             uint32_t samples)
{
    mlia_metric m = metric_of(name, unit, MLIA_VALUE_UINT, aggregation, samples);
    m.u = v;
    return m;
}

mlia_metric mlia_metric_double(const char *name, const char *unit, double v, const char *aggregation,
                               uint32_t samples)
{
    mlia_metric m = metric_of(name, unit, MLIA_VALUE_DOUBLE, aggregation, samples);
    m.d = v;
    return m;
}

mlia_metric mlia_metric_unavailable(const char *name, const char *unit, const char *reason)
{
    mlia_metric m = metric_of(name, unit, MLIA_VALUE_UNAVAILABLE, NULL, 0);
    m.reason = reason;
    return m;
}

void mlia_metric_qualify(mlia_metric *m, const char *key, const char *value)
{
    for (uint8_t i = 0; i < m->n_qualifiers; i++)
        if (strcmp(m->qualifiers[i].key, key) == 0) {
            m->qualifiers[i].value = value;
            return;
        }
    if (m->n_qualifiers < MLIA_MAX_QUALIFIERS) {
        m->qualifiers[m->n_qualifiers].key = key;
        m->qualifiers[m->n_qualifiers].value = value;
        m->n_qualifiers++;
    }
}

const char *mlia_metric_qualifier(const mlia_metric *m, const char *key)
{
    for (uint8_t i = 0; i < m->n_qualifiers; i++)
        if (mlia_cstr_eq(m->qualifiers[i].key, key))
            return m->qualifiers[i].value;
    return NULL;
}

_Static_assert(sizeof(mlia_metric) == 80, "mlia_metric is kept compact (result.h)");

void mlia_result_add_metric(mlia_result *r, mlia_metric m)
{
    GROW(r, r->metrics, r->n_metrics, r->cap_metrics, mlia_metric);
    r->metrics[r->n_metrics++] = m;
}

void mlia_entity_reserve_metrics(mlia_result *r, mlia_entity *e, uint32_t n)
{
    if (e->cap_metrics - e->n_metrics >= n)
        return;
    e->metrics = mlia_arena_grow(r->arena, e->metrics, e->n_metrics, (size_t)e->n_metrics + n, sizeof(mlia_metric));
    e->cap_metrics = e->n_metrics + n;
}

void mlia_entity_add_metric(mlia_result *r, mlia_entity *e, mlia_metric m)
{
    /* Steps of 4 up to 16, then doubling: an entity's metrics are added one
     * after the other, so its array is mostly the arena's newest allocation
     * and grows in place (mlia_arena_grow); doubling from 8 left up to half
     * of every operator's array unused (10 metrics in 16 slots). */
    if (e->n_metrics == e->cap_metrics) {
        uint32_t nc = e->cap_metrics < 16 ? e->cap_metrics + 4 : e->cap_metrics * 2;
        e->metrics = mlia_arena_grow(r->arena, e->metrics, e->n_metrics, nc, sizeof(mlia_metric));
        e->cap_metrics = nc;
    }
    e->metrics[e->n_metrics++] = m;
}

const mlia_metric *mlia_entity_metric(const mlia_entity *e, const char *name, const char *statistic)
{
    for (uint32_t i = 0; i < e->n_metrics; i++) {
        const mlia_metric *m = &e->metrics[i];
        if (!mlia_cstr_eq(m->name, name))
            continue;
        if (statistic) {
            const char *s = mlia_metric_qualifier(m, "statistic");
            if (!s || !mlia_cstr_eq(s, statistic))
                continue;
        }
        return m;
    }
    return NULL;
}

const mlia_metric *mlia_result_metric(const mlia_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_metrics; i++)
        if (mlia_cstr_eq(r->metrics[i].name, name))
            return &r->metrics[i];
    return NULL;
}
