/*
 * views_model.c - the graph model of the Model Explorer views: hashed
 * string map, graph/node/overlay construction and the kind-wide colour
 * scales (see views_model.h for the why).
 *
 * Colour scale (documented in docs/views.md): one linear three-stop ramp,
 * light yellow #ffffcc (minimum) -> orange #fd8d3c (midpoint) -> dark red
 * #800026 (maximum), computed per scale key "<entity kind>|<metric>" over
 * every value of every view, so equal values get equal colours everywhere.
 * A scale whose minimum equals its maximum colours every value with the
 * midpoint. Text is black on the lighter half and white on the darker part.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/json_write.h"
#include "report/views/views_model.h"

#include "report/format.h"

/* ---- string map ---- */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

void vw_map_init(vw_map *m, mlia_arena *a, uint32_t expected)
{
    uint32_t cap = 16;
    while (cap < expected * 2u && cap < (1u << 30))
        cap <<= 1;
    m->cap = cap;
    m->n = 0;
    m->keys = mlia_arena_array(a, cap, sizeof *m->keys);
    m->vals = mlia_arena_array(a, cap, sizeof *m->vals);
}

uint32_t vw_map_get(const vw_map *m, const char *key)
{
    if (!m->cap)
        return VW_NONE;
    uint32_t mask = m->cap - 1, i = (uint32_t)hash_str(key) & mask;
    while (m->keys[i]) {
        if (strcmp(m->keys[i], key) == 0)
            return m->vals[i];
        i = (i + 1) & mask;
    }
    return VW_NONE;
}

static void map_grow(vw_map *m, mlia_arena *a)
{
    vw_map big;
    vw_map_init(&big, a, m->cap);
    for (uint32_t i = 0; i < m->cap; i++)
        if (m->keys[i]) {
            uint32_t mask = big.cap - 1, j = (uint32_t)hash_str(m->keys[i]) & mask;
            while (big.keys[j])
                j = (j + 1) & mask;
            big.keys[j] = m->keys[i];
            big.vals[j] = m->vals[i];
            big.n++;
        }
    *m = big;
}

uint32_t vw_map_put(vw_map *m, mlia_arena *a, const char *key, uint32_t val)
{
    if (!m->cap)
        vw_map_init(m, a, 8);
    if ((m->n + 1) * 2 > m->cap)
        map_grow(m, a);
    uint32_t mask = m->cap - 1, i = (uint32_t)hash_str(key) & mask;
    while (m->keys[i]) {
        if (strcmp(m->keys[i], key) == 0)
            return m->vals[i];
        i = (i + 1) & mask;
    }
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
    return val;
}

void vw_strs_add(vw_strs *l, mlia_arena *a, const char *s)
{
    *VW_PUSH(a, l->n, l->cap, l->v) = s;
}

/* ---- graphs and nodes ---- */

uint32_t vw_graph_add(vw_ctx *c, vw_view *v, const char *id)
{
    vw_graph *g = VW_PUSH(c->a, v->n_graphs, v->cap_graphs, v->graphs);
    g->id = id;
    vw_map_init(&g->index, c->a, 64);
    vw_map_init(&g->group_index, c->a, 8);
    return v->n_graphs - 1;
}

uint32_t vw_node_add(vw_ctx *c, vw_graph *g, const char *id, const char *label, const char *ns,
                     const char *entity)
{
    const char *uid = id;
    for (uint32_t k = 2; vw_map_get(&g->index, uid) != VW_NONE; k++)
        uid = mlia_arena_printf(c->a, "%s#%u", id, k);
    uint32_t i = g->n_nodes;
    vw_node *n = VW_PUSH(c->a, g->n_nodes, g->cap_nodes, g->nodes);
    n->id = uid;
    n->label = label ? label : uid;
    n->ns = ns ? ns : "";
    n->entity = entity;
    vw_map_put(&g->index, c->a, uid, i);
    return i;
}

vw_node *vw_node_find(vw_graph *g, const char *id)
{
    uint32_t i = vw_map_get(&g->index, id);
    return i == VW_NONE ? NULL : &g->nodes[i];
}

void vw_graph_reserve(vw_ctx *c, vw_graph *g, uint32_t n)
{
    if (n > g->cap_nodes) {
        g->nodes = mlia_arena_grow(c->a, g->nodes, g->n_nodes, n, sizeof *g->nodes);
        g->cap_nodes = n;
    }
    if (g->index.n == 0 && g->index.cap < 2 * n)
        vw_map_init(&g->index, c->a, n);
}

void vw_node_reserve_attrs(vw_ctx *c, vw_node *n, uint32_t attrs)
{
    if (attrs > n->cap_attrs) {
        n->attrs = mlia_arena_grow(c->a, n->attrs, n->n_attrs, attrs, sizeof *n->attrs);
        n->cap_attrs = attrs;
    }
}

void vw_overlay_reserve(vw_ctx *c, vw_overlay *o, uint32_t n)
{
    if (n > o->cap_values) {
        o->values = mlia_arena_grow(c->a, o->values, o->n_values, n, sizeof *o->values);
        o->cap_values = n;
    }
}

const char *vw_key(vw_ctx *c, const char *a, const char *b)
{
    char buf[256];
    int len = snprintf(buf, sizeof buf, "%s_%s", a, b);
    if (len < 0 || (size_t)len >= sizeof buf)
        return mlia_arena_printf(c->a, "%s_%s", a, b);
    uint32_t i = vw_map_get(&c->keys, buf);
    if (i != VW_NONE)
        return c->key_list.v[i];
    const char *k = mlia_arena_strdup(c->a, buf);
    vw_map_put(&c->keys, c->a, k, c->key_list.n);
    vw_strs_add(&c->key_list, c->a, k);
    return k;
}

const char *vw_index_text(vw_ctx *c, uint32_t i)
{
    static const char *const small[] = {"0", "1", "2", "3", "4", "5", "6", "7",
                                        "8", "9", "10", "11", "12", "13", "14", "15"};
    return i < sizeof small / sizeof small[0] ? small[i] : mlia_arena_printf(c->a, "%u", i);
}

void vw_node_attr(vw_ctx *c, vw_node *n, const char *key, const char *value)
{
    *VW_PUSH(c->a, n->n_attrs, n->cap_attrs, n->attrs) = (vw_kv){key, value ? value : ""};
}

void vw_node_attrf(vw_ctx *c, vw_node *n, const char *key, const char *fmt, ...)
{
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    vw_node_attr(c, n, key, mlia_arena_strdup(c->a, buf));
}

void vw_node_edge(vw_ctx *c, vw_node *n, const char *source, const char *source_output)
{
    const char *target_input = vw_index_text(c, n->n_edges);
    *VW_PUSH(c->a, n->n_edges, n->cap_edges, n->edges) =
        (vw_edge){source, source_output ? source_output : "0", target_input};
}

static void meta_add(vw_ctx *c, uint32_t *n, uint32_t *cap, vw_meta **list, const char *id, const char *key,
                     const char *value)
{
    vw_meta *m = VW_PUSH(c->a, *n, *cap, *list);
    m->id = id;
    if (key)
        *VW_PUSH(c->a, m->n_attrs, m->cap_attrs, m->attrs) = (vw_kv){key, value ? value : ""};
}

void vw_node_output(vw_ctx *c, vw_node *n, const char *id, const char *key, const char *value)
{
    meta_add(c, &n->n_outputs, &n->cap_outputs, &n->outputs, id, key, value);
}

void vw_node_input(vw_ctx *c, vw_node *n, const char *id, const char *key, const char *value)
{
    meta_add(c, &n->n_inputs, &n->cap_inputs, &n->inputs, id, key, value);
}

void vw_group_attr(vw_ctx *c, vw_graph *g, const char *ns, const char *key, const char *value)
{
    uint32_t i = vw_map_get(&g->group_index, ns);
    if (i == VW_NONE) {
        i = g->n_groups;
        VW_PUSH(c->a, g->n_groups, g->cap_groups, g->groups)->ns = ns;
        vw_map_put(&g->group_index, c->a, ns, i);
    }
    vw_group *gr = &g->groups[i];
    *VW_PUSH(c->a, gr->n_attrs, gr->cap_attrs, gr->attrs) = (vw_kv){key, value ? value : ""};
}

uint32_t vw_summary_node(vw_ctx *c, vw_graph *g, const char *ns, const char *entity, const char *label)
{
    uint32_t i = vw_node_add(c, g, entity, label, ns, entity);
    vw_node *n = &g->nodes[i];
    n->pin_top = true;
    vw_node_attr(c, n, "summary_of_group", ns);
    vw_node_attr(c, n, "note", "measured as a whole; the value is not copied to the members of the group");
    return i;
}

/* ---- overlays ---- */

void vw_drop_empty_overlays(vw_ctx *c)
{
    for (uint32_t v = 0; v < c->n_views; v++) {
        vw_view *view = &c->views[v];
        uint32_t k = 0;
        for (uint32_t i = 0; i < view->n_overlays; i++)
            if (view->overlays[i].n_values)
                view->overlays[k++] = view->overlays[i];
        view->n_overlays = k;
        /* with compared outputs the accuracy overlay (SNR: lower is worse)
         * comes first, so the page and Model Explorer open on it (issue 29, 3) */
        for (uint32_t i = 1; i < k; i++)
            if (view->overlays[i].reversed) {
                vw_overlay first = view->overlays[i];
                memmove(&view->overlays[1], &view->overlays[0], i * sizeof *view->overlays);
                view->overlays[0] = first;
                break;
            }
    }
}

uint32_t vw_overlay_add(vw_ctx *c, vw_view *v, const char *id, const char *label, const char *unit,
                        const char *entity_kind, const char *metric, bool group_measurement)
{
    const char *scale_key = mlia_arena_printf(c->a, "%s|%s", entity_kind, metric);
    *VW_PUSH(c->a, v->n_overlays, v->cap_overlays, v->overlays) =
        (vw_overlay){.id = id, .label = label, .unit = unit, .entity_kind = entity_kind, .scale_key = scale_key,
                     .group_measurement = group_measurement};
    return v->n_overlays - 1;
}

void vw_overlay_value(vw_ctx *c, vw_overlay *o, uint32_t graph, const char *key, double value, const char *text)
{
    *VW_PUSH(c->a, o->n_values, o->cap_values, o->values) =
        (vw_value){.graph = graph, .key = key, .value = value, .text = text};
}

/* ---- links ---- */

void vw_multi_add(mlia_arena *a, vw_links *l, const char *from, const char *to, bool dedupe)
{
    uint32_t slot = vw_map_get(&l->index, from);
    if (slot == VW_NONE) {
        slot = l->n;
        VW_PUSH(a, l->n, l->cap, l->lists);
        vw_map_put(&l->index, a, from, slot);
    }
    vw_strs *s = &l->lists[slot];
    if (dedupe)
        for (uint32_t i = 0; i < s->n; i++)
            if (strcmp(s->v[i], to) == 0)
                return;
    vw_strs_add(s, a, to);
}

void vw_link(vw_ctx *c, const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return;
    vw_multi_add(c->a, &c->links, a, b, true);
    vw_multi_add(c->a, &c->links, b, a, true);
}

const vw_strs *vw_links_of(const vw_ctx *c, const char *entity)
{
    uint32_t slot = vw_map_get(&c->links.index, entity);
    return slot == VW_NONE ? NULL : &c->links.lists[slot];
}

/* ---- colours ---- */

const char *const vw_gradient_stops[3] = {"#ffffcc", "#fd8d3c", "#800026"};
static const int STOPS[3][3] = {{0xff, 0xff, 0xcc}, {0xfd, 0x8d, 0x3c}, {0x80, 0x00, 0x26}};

void vw_colour(double t, char out[8], const char **text_color)
{
    if (!(t >= 0.0))
        t = 0.0;
    if (t > 1.0)
        t = 1.0;
    int lo = t < 0.5 ? 0 : 1;
    double u = t < 0.5 ? t * 2.0 : (t - 0.5) * 2.0;
    int rgb[3];
    for (int k = 0; k < 3; k++) {
        double x = STOPS[lo][k] + (STOPS[lo + 1][k] - STOPS[lo][k]) * u;
        rgb[k] = (int)(x + 0.5);
    }
    static const char hex[] = "0123456789abcdef"; /* "#rrggbb" without printf */
    out[0] = '#';
    for (int k = 0; k < 3; k++) {
        out[1 + 2 * k] = hex[(rgb[k] >> 4) & 0xf];
        out[2 + 2 * k] = hex[rgb[k] & 0xf];
    }
    out[7] = 0;
    *text_color = t < 0.6 ? "#000000" : "#ffffff";
}

void vw_colour_overlays(vw_ctx *c)
{
    /* pass 1: min/max per scale key over all views */
    vw_map keys;
    vw_map_init(&keys, c->a, 32);
    uint32_t n_scales = 0, cap_scales = 0;
    double(*mm)[2] = NULL;
    for (uint32_t v = 0; v < c->n_views; v++)
        for (uint32_t i = 0; i < c->views[v].n_overlays; i++) {
            vw_overlay *o = &c->views[v].overlays[i];
            uint32_t k = vw_map_get(&keys, o->scale_key);
            for (uint32_t j = 0; j < o->n_values; j++) {
                double x = o->values[j].value;
                if (k == VW_NONE) {
                    VW_PUSH(c->a, n_scales, cap_scales, mm);
                    k = n_scales - 1;
                    vw_map_put(&keys, c->a, o->scale_key, k);
                    mm[k][0] = mm[k][1] = x;
                }
                if (x < mm[k][0])
                    mm[k][0] = x;
                if (x > mm[k][1])
                    mm[k][1] = x;
            }
        }
    /* pass 2: explicit colours */
    for (uint32_t v = 0; v < c->n_views; v++)
        for (uint32_t i = 0; i < c->views[v].n_overlays; i++) {
            vw_overlay *o = &c->views[v].overlays[i];
            uint32_t k = vw_map_get(&keys, o->scale_key);
            if (k == VW_NONE)
                continue;
            o->min = mm[k][0];
            o->max = mm[k][1];
            double span = o->max - o->min;
            for (uint32_t j = 0; j < o->n_values; j++) {
                vw_value *x = &o->values[j];
                double t = span > 0 ? (x->value - o->min) / span : 0.5;
                if (o->reversed)
                    t = 1.0 - t;
                char buf[8];
                vw_colour(t, buf, &x->text_color);
                x->color = mlia_arena_strdup(c->a, buf);
            }
        }
}

/* ---- metrics ---- */

bool vw_metric(const mlia_entity *e, const char *name, const char *stat, double *out, const mlia_metric **mout)
{
    if (!e)
        return false;
    const mlia_metric *m = mlia_entity_metric(e, name, stat);
    if (!m && stat) {
        for (uint32_t i = 0; i < e->n_metrics && !m; i++)
            if (strcmp(e->metrics[i].name, name) == 0 && !mlia_metric_qualifier(&e->metrics[i], "statistic"))
                m = &e->metrics[i];
    }
    if (!m || m->type == MLIA_VALUE_UNAVAILABLE)
        return false;
    *out = m->type == MLIA_VALUE_UINT ? (double)m->u : m->d;
    if (mout)
        *mout = m;
    return true;
}

const char *vw_num(vw_ctx *c, double v, const char *unit)
{
    char buf[MLIA_FMT_CAP];
    mlia_fmt_value(buf, sizeof buf, v, unit);
    return mlia_arena_strdup(c->a, buf);
}

const char *vw_qty(vw_ctx *c, double v, const char *unit)
{
    char buf[MLIA_FMT_CAP + 64];
    mlia_fmt_quantity(buf, sizeof buf, v, unit);
    return mlia_arena_strdup(c->a, buf);
}
