/*
 * views.c - writes the Model Explorer artifacts and the standalone page
 * (design in docs/views.md and docs/page.md).
 *
 * Order of work:
 *   1. build every view of the table VIEWS below into the graph model
 *      (one file per view, view_<name>.c); an unavailable view keeps its
 *      reason; a measured group gets a summary op node that carries its
 *      measurement (Model Explorer colours op nodes only);
 *   2. drop overlays without values, name the others, add the graph-level
 *      summaries, colour every overlay value from one scale per entity
 *      kind + metric across all views (views_model.c);
 *   3. index entity -> nodes of every view, then derive the sync mapping:
 *      for each node, the nodes of OTHER views that show the same entity or
 *      an entity related to it (parent, children, associations, and the
 *      builders' extra links such as compiler operation <-> SPIR-V
 *      operation), at most VW_SYNC_CAP targets per node so the mapping is
 *      linear in the number of nodes, never quadratic; split it by pair of
 *      views into Model Explorer mapping entries (left nodes with the same
 *      right nodes share an entry);
 *   4. write models/, node-data/, manifest.json, view-links.json,
 *      sync/<left>--<right>.json, entity-node-mappings.json and
 *      bundle/index.html (the page template with the page data JSON written
 *      html_safe, so no input string can close the <script> element that
 *      holds it).
 *
 * Every list is emitted in a deterministic order (builders' insertion
 * order, entity ids sorted bytewise); no timestamps are written here.
 *
 * Ownership: all working memory lives in a private arena freed on return.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/runtime.h"
#include "core/json_write.h"
#include "core/oom.h"
#include "core/side_job.h"
#include "formats/exported_program.h"
#include "formats/pte.h"
#include "mlia/mlia.h"
#include "report/views/page_asset.h"
#include "report/trace/trace.h"
#include "report/views/views.h"
#include "report/result/headline.h"
#include "report/result/result_json.h"
#include "report/views/views_model.h"
#include "report/backend_out.h"

#define VW_SYNC_CAP 64       /* sync targets per node */
#define VW_RELATED_CHILDREN 200 /* children listed per entity in the page */
#define VW_PLACEHOLDER "@@MLIA_DATA@@"

/* ------------------------------------------------------------------ */
/* the view table                                                       */

#define OVERLAY VW_OVERLAY
#define MS_P50 VW_MS_P50
#define CYCLES_P50 VW_CYCLES_P50
#define LIST VW_LIST
#define OVERLAYS VW_OVERLAYS
#define SNR_P50 VW_SNR_P50
#define ERR_P50(id, label, kind) OVERLAY(id, label, "", kind, "output_max_abs_error:p50", false)
#define CHAIN_GROUP VW_CHAIN_GROUP

/* The shared views; with the rows the run's backends add (their
 * mlia_backend_out.views, e.g. src/backends/vgf/report/views_nx.c) they are
 * shown in manifest and page order by `order` (the last member of a row). A
 * new view is one file (view_<name>.c: its availability and builder,
 * declared in views_model.h) plus one row here or in its backend's table;
 * docs/views.md describes each view. */
static const vw_view_def VIEWS[] = {
    {"source_model", "Source Model", vw_source_unavailable, vw_source_build,
     LIST("execution_time", "execution_time:avg", "kernel_time", "unattributed_time", "module_total_time", "execution_coverage"),
     OVERLAYS(MS_P50("execution_time_p50", "Execution time P50", "source_operator", "p50"),
              MS_P50("execution_time_min", "Execution time min", "source_operator", "min"),
              MS_P50("execution_time_max", "Execution time max", "source_operator", "max"),
              OVERLAY("kernel_time_p50", "Kernel time P50", "ms", "source_operator", "kernel_time:p50", false),
              SNR_P50("output_snr_db_p50", "Output SNR P50 (low = red)", "source_operator"),
              ERR_P50("output_max_abs_error_p50", "Output max abs error P50", "source_operator"),
              OVERLAY("memory_live_bytes", "Memory: live bytes while it runs", "bytes", "source_operator",
                      "live_bytes", false)),
     false, 10, false, NULL, "The ETRecord graph of the method: one node per operator, timed by the ETDump."},
    {"etdump_backend_trace", "ETDump Backend Trace", vw_trace_unavailable, vw_trace_build,
     LIST("total_cycles", "execution_time", "unattributed_time"),
     OVERLAYS(CHAIN_GROUP,
              MS_P50("runtime_event_execution_time_p50", "Runtime event execution time P50", "runtime_event", "p50"),
              MS_P50("delegate_call_execution_time_p50", "Delegate call execution time P50", "delegate_call", "p50"),
              SNR_P50("delegate_call_output_snr_db_p50", "Delegate call output SNR P50 (low = red)", "delegate_call"),
              /* delegate events in units of their own (docs/delegates.md), never mixed with ms */
              OVERLAY("runtime_event_cycles_p50", "Runtime event cycles P50", "cycles", "runtime_event", "cycles:p50",
                      false),
              OVERLAY("runtime_event_execution_cycles_p50", "Runtime event execution cycles P50", "cycles",
                      "runtime_event", "execution_cycles:p50", false),
              OVERLAY("runtime_event_count_p50", "Runtime event count P50", "count", "runtime_event", "count:p50",
                      false)),
     false, 40, false, NULL,
     "The compiler (TOSA) operations, grouped by the chain that ran them, and the runtime events of each "
     "delegate call."},
};

#define N_VIEWS ((uint32_t)(sizeof VIEWS / sizeof VIEWS[0]))

/* The rows of the run: the shared ones and every backend's, by order (ties:
 * shared rows first, then backends in registration order). Arena memory. */
static const vw_view_def **view_rows(vw_ctx *c, uint32_t *n_out)
{
    const mlia_run_record *s = c->s;
    uint32_t n = N_VIEWS;
    for (uint32_t b = 0; b < s->n_backends; b++)
        n += s->backends[b].out->n_views;
    const vw_view_def **rows = mlia_arena_array(c->a, n, sizeof *rows);
    uint32_t m = 0;
    for (uint32_t i = 0; i < N_VIEWS; i++)
        rows[m++] = &VIEWS[i];
    for (uint32_t b = 0; b < s->n_backends; b++)
        for (uint32_t i = 0; i < s->backends[b].out->n_views; i++)
            rows[m++] = &s->backends[b].out->views[i];
    for (uint32_t i = 1; i < m; i++) /* insertion sort: stable, a handful of rows */
        for (uint32_t j = i; j > 0 && rows[j - 1]->order > rows[j]->order; j--) {
            const vw_view_def *t = rows[j - 1];
            rows[j - 1] = rows[j];
            rows[j] = t;
        }
    *n_out = m;
    return rows;
}

/* The metric standing for "%s" in overlay rows: the first backend's that
 * has one, else total cycles. */
static const char *view_metric(const mlia_run_record *s)
{
    for (uint32_t b = 0; b < s->n_backends; b++)
        if (s->backends[b].out->view_metric)
            return s->backends[b].out->view_metric(s->backends[b].state);
    return "total_cycles";
}

void **vw_backend_scratch(vw_ctx *c, const char *name)
{
    for (uint32_t b = 0; b < c->s->n_backends; b++)
        if (strcmp(c->s->backends[b].name, name) == 0)
            return &c->backend_scratch[b];
    void **slot = mlia_arena_alloc(c->a, sizeof *slot);
    *slot = NULL;
    return slot;
}

/* The companion PTE's plan of the method calls a delegate: a PTE without
 * one gives the memory view only (docs/memory.md), so the companion views
 * of delegates are not applicable rather than unavailable. */
static bool companion_has_delegates(const mlia_run_record *s)
{
    const pte_program *p = s->companion;
    if (!p)
        return false;
    for (uint32_t i = 0; i < p->n_plans; i++)
        if ((p->n_plans == 1 || (s->method_name && mlia_str_eq(p->plans[i].name, s->method_name))) &&
            p->plans[i].n_delegates > 0)
            return true;
    return false;
}

/* Availability, the row's columns and overlays, then the builder. */
static void build_view(vw_ctx *c, const vw_view_def *d, vw_view *v)
{
    v->id = d->id;
    v->label = d->label;
    v->title = d->title;
    v->help = d->help;
    v->reason = d->unavailable(c->s);
    if (v->reason) {
        /* docs/page.md, "Not applicable to this capture": a run whose
         * ETDump has no delegate call ran on the CPU, so the NX views have
         * nothing to show by nature; a companion's view needs --companion-model */
        if (d->needs_companion) {
            /* no PTE, or one whose method calls no delegate (docs/memory.md) */
            v->not_applicable = !c->s->has_companion || !companion_has_delegates(c->s);
        } else if (strcmp(d->id, "source_model") != 0 && vw_cpu_only(c->s)) {
            v->not_applicable = true;
            v->reason = "The model ran on the CPU only (no delegate call in the ETDump), so there are no NX "
                        "statistics to show.";
        } else if (strcmp(d->id, "source_model") != 0 && vw_other_delegates_only(c->s)) {
            v->not_applicable = true;
            v->reason = MLIA_OTHER_DELEGATES_VIEW_REASON;
        }
        return;
    }
    v->available = true;
    for (uint32_t k = 0; d->columns && d->columns[k]; k++)
        vw_strs_add(&v->columns, c->a, d->columns[k]);
    const char *metric = view_metric(c->s);
    for (uint32_t k = 0; d->overlays && d->overlays[k]; k++) {
        const vw_overlay_def *o = d->overlays[k];
        uint32_t ov = vw_overlay_add(c, v, mlia_arena_printf(c->a, o->id, metric),
                                     mlia_arena_printf(c->a, o->label, metric), o->unit, o->entity_kind,
                                     mlia_arena_printf(c->a, o->metric, metric), o->group_measurement);
        v->overlays[ov].reversed = o->reversed;
    }
    d->build(c, v);
}

typedef struct vw_ref {
    uint32_t view, graph, node;
} vw_ref;

typedef struct vw_reflist {
    uint32_t n, cap;
    vw_ref *v;
} vw_reflist;

typedef struct vw_sync {
    vw_ref from;
    uint32_t first, n;         /* range in targets */
} vw_sync;

/* One related pair of nodes of two views: l in the left view, r in the right. */
typedef struct vw_rel {
    vw_ref l, r;
} vw_rel;

/* One Model Explorer mapping entry: every left node whose related nodes in
 * the right view are exactly rels[first_rel .. first_rel + n_right).r. */
typedef struct vw_pair_entry {
    uint32_t first_rel, n_right;
    uint32_t n_left, cap_left;
    uint32_t *left;            /* rel indexes; their .l are the left nodes */
    uint32_t seq;              /* creation order (tie-break of the order) */
} vw_pair_entry;

/* The sync file of one pair of views (left < right in view order). */
typedef struct vw_pair {
    uint32_t left, right;
    uint32_t n_rels, cap_rels;
    vw_rel *rels;              /* sorted by left node, then right node; unique */
    uint32_t n_entries, cap_entries;
    vw_pair_entry *entries;
    uint32_t *order;           /* entries by ascending n_left, then seq */
} vw_pair;

typedef struct vw_out {
    vw_ctx *c;
    /* entity -> refs */
    vw_map entity_index;
    uint32_t n_entities, cap_entities;
    const char **entity_ids;
    vw_reflist *entity_refs;
    /* sync */
    uint32_t n_sync, cap_sync;
    vw_sync *sync;
    uint32_t n_targets, cap_targets;
    vw_ref *targets;
    vw_links children;
    const char *initial_view;
    /* Model Explorer sync files, pairs with at least one relation */
    uint32_t n_pairs;
    vw_pair *pairs;            /* at most n_views * (n_views - 1) / 2 */
    const char *me_command;    /* "model-explorer <models> --node_data_paths=<files>" */
    const vw_view *first_view; /* the overlay to pick first in Model Explorer: the initial */
    const vw_overlay *first_overlay; /* view's first overlay (NULL without overlays) */
} vw_out;

static vw_node *ref_node(const vw_ctx *c, vw_ref r)
{
    return &c->views[r.view].graphs[r.graph].nodes[r.node];
}

/* ------------------------------------------------------------------ */
/* entity index and sync mapping                                        */

/* Calls fn for every node that represents an entity, in view, graph and
 * node order. */
static void for_entity_nodes(vw_out *o, void (*fn)(vw_out *o, vw_ref at, const char *entity))
{
    const vw_ctx *c = o->c;
    for (uint32_t v = 0; v < c->n_views; v++)
        for (uint32_t g = 0; g < c->views[v].n_graphs; g++) {
            const vw_graph *gr = &c->views[v].graphs[g];
            for (uint32_t n = 0; n < gr->n_nodes; n++)
                if (gr->nodes[n].entity)
                    fn(o, (vw_ref){v, g, n}, gr->nodes[n].entity);
        }
}

static void index_node(vw_out *o, vw_ref at, const char *e)
{
    vw_ctx *c = o->c;
    uint32_t slot = vw_map_get(&o->entity_index, e);
    if (slot == VW_NONE) {
        uint32_t old_cap = o->cap_entities;
        VW_PUSH(c->a, o->n_entities, o->cap_entities, o->entity_ids);
        if (o->cap_entities != old_cap)
            o->entity_refs =
                mlia_arena_grow(c->a, o->entity_refs, o->n_entities - 1, o->cap_entities, sizeof *o->entity_refs);
        slot = o->n_entities - 1;
        o->entity_ids[slot] = e;
        memset(&o->entity_refs[slot], 0, sizeof o->entity_refs[slot]);
        vw_map_put(&o->entity_index, c->a, e, slot);
    }
    vw_reflist *l = &o->entity_refs[slot];
    *VW_PUSH(c->a, l->n, l->cap, l->v) = at;
}

static void index_entities(vw_out *o)
{
    vw_ctx *c = o->c;
    vw_map_init(&o->entity_index, c->a, 1024);
    for_entity_nodes(o, index_node);
    /* children of every result entity (for sync and the page's related links) */
    const mlia_result *r = c->s->result;
    vw_map_init(&o->children.index, c->a, r->n_entities);
    for (uint32_t i = 0; i < r->n_entities; i++)
        for (uint32_t k = 0; k < r->entities[i]->n_children; k++)
            vw_multi_add(c->a, &o->children, r->entities[i]->id, r->entities[i]->children[k]->id, false);
}

static const vw_strs *children_of(const vw_out *o, const char *id)
{
    uint32_t slot = vw_map_get(&o->children.index, id);
    return slot == VW_NONE ? NULL : &o->children.lists[slot];
}

static void sync_add_entity(vw_out *o, vw_ref from, const char *entity, uint32_t first)
{
    uint32_t slot = vw_map_get(&o->entity_index, entity);
    if (slot == VW_NONE)
        return;
    const vw_reflist *l = &o->entity_refs[slot];
    for (uint32_t k = 0; k < l->n; k++) {
        vw_ref to = l->v[k];
        if (to.view == from.view)
            continue;
        uint32_t have = o->n_targets - first;
        if (have >= VW_SYNC_CAP)
            return;
        bool dup = false;
        for (uint32_t q = first; q < o->n_targets && !dup; q++)
            dup = o->targets[q].view == to.view && o->targets[q].graph == to.graph && o->targets[q].node == to.node;
        if (dup)
            continue;
        *VW_PUSH(o->c->a, o->n_targets, o->cap_targets, o->targets) = to;
    }
}

/* The sync targets of one node: the same entity, its parents, children and
 * extra links in other views. */
static void sync_node(vw_out *o, vw_ref from, const char *e)
{
    vw_ctx *c = o->c;
    uint32_t first = o->n_targets;
    sync_add_entity(o, from, e, first);
    const mlia_entity *ent = mlia_result_find(c->s->result, e);
    if (ent) {
        for (uint32_t k = 0; k < ent->n_parents; k++)
            sync_add_entity(o, from, ent->parents[k]->id, first);
        const vw_strs *ch = children_of(o, e);
        for (uint32_t k = 0; ch && k < ch->n && o->n_targets - first < VW_SYNC_CAP; k++)
            sync_add_entity(o, from, ch->v[k], first);
    }
    const vw_strs *ln = vw_links_of(c, e);
    for (uint32_t k = 0; ln && k < ln->n; k++)
        sync_add_entity(o, from, ln->v[k], first);
    if (o->n_targets > first)
        *VW_PUSH(c->a, o->n_sync, o->cap_sync, o->sync) = (vw_sync){from, first, o->n_targets - first};
}

static void compute_sync(vw_out *o)
{
    for_entity_nodes(o, sync_node);
}

/* ------------------------------------------------------------------ */
/* Model Explorer sync files                                            */

static int cmp_ref(vw_ref a, vw_ref b)
{
    if (a.view != b.view)
        return a.view < b.view ? -1 : 1;
    if (a.graph != b.graph)
        return a.graph < b.graph ? -1 : 1;
    if (a.node != b.node)
        return a.node < b.node ? -1 : 1;
    return 0;
}

static int cmp_rel(const void *pa, const void *pb)
{
    const vw_rel *a = pa, *b = pb;
    int d = cmp_ref(a->l, b->l);
    return d ? d : cmp_ref(a->r, b->r);
}

static int cmp_u64(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* Model Explorer keeps, for each node id, the last entry that lists it.
 * Entries group the left nodes with identical right sets, so a left node is
 * in exactly one entry (left -> right is exact) and every entry is a
 * complete bipartite block of the relation (right -> left is never wrong).
 * Entries with more left nodes come later, so a right node resolves to its
 * largest block. */
static void build_pair(vw_ctx *c, vw_pair *p)
{
    qsort(p->rels, p->n_rels, sizeof *p->rels, cmp_rel);
    uint32_t k = 0;
    for (uint32_t i = 0; i < p->n_rels; i++)
        if (!k || cmp_rel(&p->rels[k - 1], &p->rels[i]) != 0)
            p->rels[k++] = p->rels[i];
    p->n_rels = k;
    vw_map by_rights;
    vw_map_init(&by_rights, c->a, p->n_rels);
    mlia_buf key;
    mlia_buf_init(&key);
    for (uint32_t i = 0; i < p->n_rels;) {
        uint32_t j = i;
        while (j < p->n_rels && cmp_ref(p->rels[j].l, p->rels[i].l) == 0)
            j++;
        key.len = 0;
        for (uint32_t q = i; q < j; q++)
            mlia_buf_printf(&key, "%u:%u;", p->rels[q].r.graph, p->rels[q].r.node);
        const char *ks = mlia_arena_strndup(c->a, key.data, key.len);
        uint32_t e = vw_map_get(&by_rights, ks);
        if (e == VW_NONE) {
            e = p->n_entries;
            *VW_PUSH(c->a, p->n_entries, p->cap_entries, p->entries) =
                (vw_pair_entry){.first_rel = i, .n_right = j - i, .seq = e};
            vw_map_put(&by_rights, c->a, ks, e);
        }
        vw_pair_entry *en = &p->entries[e];
        *VW_PUSH(c->a, en->n_left, en->cap_left, en->left) = i;
        i = j;
    }
    mlia_buf_free(&key);
    /* order: (n_left, seq) packed in one sortable key */
    uint64_t *keys = mlia_arena_array(c->a, p->n_entries ? p->n_entries : 1, sizeof *keys);
    for (uint32_t e = 0; e < p->n_entries; e++)
        keys[e] = ((uint64_t)p->entries[e].n_left << 32) | p->entries[e].seq;
    qsort(keys, p->n_entries, sizeof *keys, cmp_u64);
    p->order = mlia_arena_array(c->a, p->n_entries ? p->n_entries : 1, sizeof *p->order);
    for (uint32_t e = 0; e < p->n_entries; e++)
        p->order[e] = (uint32_t)keys[e];
}

/* Every related pair of the graph-qualified sync data, split by pair of
 * views (either direction of a relation counts). */
static void compute_pairs(vw_out *o)
{
    vw_ctx *c = o->c;
    uint32_t nv = c->n_views;
    vw_pair *all = mlia_arena_array(c->a, (size_t)nv * nv, sizeof *all); /* [left][right] */
    o->pairs = mlia_arena_array(c->a, nv * (nv - 1) / 2 + 1, sizeof *o->pairs);
    for (uint32_t i = 0; i < o->n_sync; i++) {
        const vw_sync *sy = &o->sync[i];
        for (uint32_t k = 0; k < sy->n; k++) {
            vw_ref a = sy->from, b = o->targets[sy->first + k];
            if (a.view == b.view)
                continue;
            if (a.view > b.view) {
                vw_ref t = a;
                a = b;
                b = t;
            }
            vw_pair *p = &all[a.view * nv + b.view];
            *VW_PUSH(c->a, p->n_rels, p->cap_rels, p->rels) = (vw_rel){a, b};
        }
    }
    for (uint32_t a = 0; a < nv; a++)
        for (uint32_t b = a + 1; b < nv; b++) {
            vw_pair *p = &all[a * nv + b];
            if (!p->n_rels)
                continue;
            p->left = a;
            p->right = b;
            build_pair(c, p);
            o->pairs[o->n_pairs++] = *p;
        }
}

static const char *pair_path(vw_ctx *c, const vw_pair *p)
{
    return mlia_arena_printf(c->a, "sync/%s--%s.json", c->views[p->left].id, c->views[p->right].id);
}

/* ------------------------------------------------------------------ */
/* names, graph summaries, the Model Explorer command                    */

/* "<label> (<unit>) - <view label>": unique across views. */
static void name_overlays(vw_ctx *c)
{
    for (uint32_t i = 0; i < c->n_views; i++)
        for (uint32_t k = 0; k < c->views[i].n_overlays; k++) {
            vw_overlay *ov = &c->views[i].overlays[k];
            ov->name = ov->unit && *ov->unit
                           ? mlia_arena_printf(c->a, "%s (%s) - %s", ov->label, ov->unit, c->views[i].label)
                           : mlia_arena_printf(c->a, "%s - %s", ov->label, c->views[i].label);
        }
}

/* groupNodeAttributes[""]: what Model Explorer shows with nothing selected. */
static void graph_summaries(vw_ctx *c)
{
    const mlia_run_record *s = c->s;
    const mlia_result *r = s->result;
    for (uint32_t i = 0; i < c->n_views; i++) {
        vw_view *v = &c->views[i];
        for (uint32_t g = 0; v->available && g < v->n_graphs; g++) {
            vw_graph *gr = &v->graphs[g];
            vw_group_attr(c, gr, "", "view", v->label);
            vw_group_attr(c, gr, "", "graph", gr->id);
            vw_group_attr(c, gr, "", "method", s->method_name ? s->method_name : "forward");
            vw_group_attr(c, gr, "", "nodes", mlia_arena_printf(c->a, "%u", gr->n_nodes));
            vw_group_attr(c, gr, "", "executions", mlia_arena_printf(c->a, "%u", s->n_executions));
            for (uint32_t k = 0; k < r->n_metrics; k++) {
                const mlia_metric *m = &r->metrics[k];
                const char *st = mlia_metric_qualifier(m, "statistic");
                const char *key = st ? mlia_arena_printf(c->a, "%s_%s", m->name, st) : m->name;
                if (m->type == MLIA_VALUE_UNAVAILABLE)
                    vw_group_attr(c, gr, "", key,
                                  mlia_arena_printf(c->a, "unavailable: %s", m->reason ? m->reason : "not measured"));
                else
                    vw_group_attr(c, gr, "", key,
                                  vw_qty(c, m->type == MLIA_VALUE_UINT ? (double)m->u : m->d, m->unit));
            }
        }
    }
}

/* The command that opens the files in Google's Model Explorer, relative to
 * the model-explorer directory: models in manifest order, every node-data
 * file (Model Explorer offers each one on the graphs whose id it names). */
static const char *me_command(vw_ctx *c)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "model-explorer ");
    bool first = true;
    for (uint32_t i = 0; i < c->n_views; i++)
        if (c->views[i].available) {
            mlia_buf_printf(&b, "%smodels/%s.json", first ? "" : ",", c->views[i].id);
            first = false;
        }
    first = true;
    for (uint32_t i = 0; i < c->n_views; i++)
        for (uint32_t k = 0; c->views[i].available && k < c->views[i].n_overlays; k++) {
            mlia_buf_printf(&b, "%s%s", first ? " --node_data_paths=" : ",",
                            mlia_arena_printf(c->a, "node-data/%s/%s.json", c->views[i].id, c->views[i].overlays[k].id));
            first = false;
        }
    const char *r = mlia_arena_strndup(c->a, b.data, b.len);
    mlia_buf_free(&b);
    return r;
}


/* model-explorer/open_in_model_explorer.py: the same bytes in every run; it
 * reads manifest.json beside it (docs/views.md, "Open in Model Explorer").
 * Model Explorer's Python API: model_explorer.config(),
 * add_model_from_path(), add_node_data_from_path(), visualize_from_config(). */
static const char LAUNCHER[] =
    "#!/usr/bin/env python3\n"
    "\"\"\"Opens this folder's files in Google's Model Explorer.\n"
    "\n"
    "Written by `mlia check --model-explorer` next to manifest.json. Needs\n"
    "`pip install ai-edge-model-explorer`. Loads the graph of every available view and\n"
    "every node-data file that manifest.json lists (model_explorer), the overlay to pick\n"
    "first at the top, then starts Model Explorer's local server in the browser.\n"
    "Model Explorer colours the nodes only once a node-data overlay is picked.\n"
    "\n"
    "  python3 open_in_model_explorer.py          open\n"
    "  python3 open_in_model_explorer.py --list   print what would be loaded\n"
    "\"\"\"\n"
    "import json\n"
    "import os\n"
    "import sys\n"
    "\n"
    "HERE = os.path.dirname(os.path.abspath(__file__))\n"
    "\n"
    "\n"
    "def plan():\n"
    "    with open(os.path.join(HERE, \"manifest.json\"), encoding=\"utf-8\") as f:\n"
    "        me = json.load(f)[\"model_explorer\"]\n"
    "    data = list(me.get(\"node_data_paths\", []))\n"
    "    first = me.get(\"first_overlay\") or {}\n"
    "    if first.get(\"file\") in data:\n"
    "        data.remove(first[\"file\"])\n"
    "        data.insert(0, first[\"file\"])\n"
    "    models = [os.path.join(HERE, m) for m in me[\"models\"]]\n"
    "    return models, [os.path.join(HERE, d) for d in data], first.get(\"name\")\n"
    "\n"
    "\n"
    "def main(argv):\n"
    "    models, node_data, first = plan()\n"
    "    if \"--list\" in argv:\n"
    "        print(\"\\n\".join([\"model \" + m for m in models] + [\"node-data \" + d for d in node_data]))\n"
    "        return 0\n"
    "    try:\n"
    "        import model_explorer\n"
    "    except ImportError:\n"
    "        sys.stderr.write(\"open_in_model_explorer: Model Explorer is not installed here: \"\n"
    "                         \"pip install ai-edge-model-explorer\\n\")\n"
    "        return 1\n"
    "    config = model_explorer.config()\n"
    "    for m in models:\n"
    "        config.add_model_from_path(m)\n"
    "    for d in node_data:\n"
    "        config.add_node_data_from_path(d)\n"
    "    if first:\n"
    "        print(\"In Model Explorer, pick the node data '%s' first: nodes are coloured only \"\n"
    "              \"once an overlay is picked.\" % first)\n"
    "    model_explorer.visualize_from_config(config=config)\n"
    "    return 0\n"
    "\n"
    "\n"
    "if __name__ == \"__main__\":\n"
    "    sys.exit(main(sys.argv[1:]))\n";

#define LAUNCHER_NAME "open_in_model_explorer.py"

/* ------------------------------------------------------------------ */
/* writers                                                              */

/* One file written by streaming (mlia_outdir_stream): `fn` writes the JSON
 * document through a 64 KiB chunk, so no file is ever held whole in memory
 * (the page of a 100,000-node graph is hundreds of megabytes). `head` and
 * `tail` (the page template around its data) are copied as they are;
 * `newline` ends a compact document with '\n'. */
typedef struct vw_file vw_file;
typedef void (*vw_doc_fn)(vw_out *o, mlia_jw *w);
struct vw_file {
    void (*fn)(const vw_file *f, mlia_jw *w);
    vw_doc_fn doc;        /* a document of the whole output (file_doc) */
    vw_out *o;
    const vw_view *view;
    const void *item;     /* the overlay or the pair of the file */
    bool pretty, html_safe, newline;
    const char *head, *tail;
    size_t head_len, tail_len;
};

static int put_raw(FILE *fp, const char *s, size_t n, const char *path, mlia_error *err)
{
    errno = 0;
    if (n && fwrite(s, 1, n, fp) != n)
        return mlia_error_setf(err, path, "write failed: %s", strerror(errno ? errno : EIO));
    return 0;
}

static int file_to(void *ctx, FILE *fp, const char *path, mlia_error *err)
{
    const vw_file *f = ctx;
    if (put_raw(fp, f->head, f->head_len, path, err))
        return -1;
    mlia_buf chunk;
    mlia_buf_init(&chunk);
    mlia_buf_reserve(&chunk, MLIA_JW_STREAM_CHUNK + 4096);
    mlia_jw w;
    mlia_jw_init_stream(&w, &chunk, fp, f->pretty);
    w.html_safe = f->html_safe;
    f->fn(f, &w);
    if (f->newline)
        mlia_buf_putc(&chunk, '\n');
    mlia_jw_flush(&w);
    mlia_buf_free(&chunk);
    if (w.failed)
        return mlia_error_setf(err, path, "write failed: %s", strerror(errno ? errno : EIO));
    return put_raw(fp, f->tail, f->tail_len, path, err);
}

static int write_file(mlia_outdir *od, const char *rel, vw_file *f, mlia_error *err)
{
    return mlia_outdir_stream(od, rel, file_to, f, err);
}

static void kv_members(mlia_jw *w, const void *item, uint32_t i)
{
    const vw_kv *kv = item;
    mlia_jw_kstr(w, "key", kv->key);
    mlia_jw_kstr(w, "value", kv->value);
}

static void meta_members(mlia_jw *w, const void *item, uint32_t i)
{
    const vw_meta *m = item;
    mlia_jw_kstr(w, "id", m->id);
    mlia_jw_kobjects(w, "attrs", m->attrs, m->n_attrs, sizeof *m->attrs, kv_members);
}

/* A node of a Model Explorer graph. Edges whose source is not a node of
 * the graph are left out (Model Explorer drops them anyway). */
static void write_node(mlia_jw *w, const vw_graph *gr, const vw_node *n)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", n->id);
    mlia_jw_kstr(w, "label", n->label);
    mlia_jw_kstr(w, "namespace", n->ns);
    mlia_jw_karray(w, "subgraphIds", n->subgraphs.n, mlia_jw_item_str, n->subgraphs.v);
    mlia_jw_kobjects(w, "attrs", n->attrs, n->n_attrs, sizeof *n->attrs, kv_members);
    mlia_jw_karr_begin(w, "incomingEdges");
    for (uint32_t e = 0; e < n->n_edges; e++) {
        if (vw_map_get(&gr->index, n->edges[e].source) == VW_NONE)
            continue;
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "sourceNodeId", n->edges[e].source);
        mlia_jw_kstr(w, "sourceNodeOutputId", n->edges[e].source_output);
        mlia_jw_kstr(w, "targetNodeInputId", n->edges[e].target_input);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_kobjects(w, "inputsMetadata", n->inputs, n->n_inputs, sizeof *n->inputs, meta_members);
    mlia_jw_kobjects(w, "outputsMetadata", n->outputs, n->n_outputs, sizeof *n->outputs, meta_members);
    if (n->style_bg || n->style_border) {
        mlia_jw_kobj_begin(w, "style");
        if (n->style_bg)
            mlia_jw_kstr(w, "backgroundColor", n->style_bg);
        if (n->style_border) {
            mlia_jw_kstr(w, "borderColor", n->style_border);
            mlia_jw_kdouble(w, "borderWidth", 2);
        }
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_knull(w, "style");
    }
    if (n->pin_top) {
        mlia_jw_kobj_begin(w, "config");
        mlia_jw_kbool(w, "pinToGroupTop", true);
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);
}

static void graph_members(mlia_jw *w, const void *item, uint32_t g)
{
    const vw_graph *gr = item;
    mlia_jw_kstr(w, "id", gr->id);
    mlia_jw_karr_begin(w, "nodes");
    for (uint32_t i = 0; i < gr->n_nodes; i++)
        write_node(w, gr, &gr->nodes[i]);
    mlia_jw_arr_end(w);
    if (!gr->n_groups) {
        mlia_jw_knull(w, "groupNodeAttributes");
        return;
    }
    mlia_jw_kobj_begin(w, "groupNodeAttributes");
    for (uint32_t k = 0; k < gr->n_groups; k++) {
        mlia_jw_kobj_begin(w, gr->groups[k].ns);
        for (uint32_t q = 0; q < gr->groups[k].n_attrs; q++)
            mlia_jw_kstr(w, gr->groups[k].attrs[q].key, gr->groups[k].attrs[q].value);
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);
}

/* Model Explorer graph collection of a view. */
static void write_collection(const vw_view *v, mlia_jw *w)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "label", v->label);
    mlia_jw_kobjects(w, "graphs", v->graphs, v->n_graphs, sizeof *v->graphs, graph_members);
    mlia_jw_obj_end(w);
}

/* Model Explorer node data: {"<graph>": {"results": {...}, "gradient": [...]}}. */
static void write_node_data(const vw_view *v, const vw_overlay *ov, mlia_jw *w)
{
    mlia_jw_obj_begin(w);
    for (uint32_t g = 0; g < v->n_graphs; g++) {
        bool any = false;
        for (uint32_t i = 0; i < ov->n_values && !any; i++)
            any = ov->values[i].graph == g;
        if (!any)
            continue;
        mlia_jw_kobj_begin(w, v->graphs[g].id);
        mlia_jw_kstr(w, "name", ov->name);
        mlia_jw_kobj_begin(w, "results");
        for (uint32_t i = 0; i < ov->n_values; i++) {
            const vw_value *x = &ov->values[i];
            if (x->graph != g)
                continue;
            mlia_jw_kobj_begin(w, x->key);
            mlia_jw_kdouble(w, "value", x->value);
            mlia_jw_kstr(w, "bgColor", x->color);
            mlia_jw_kstr(w, "textColor", x->text_color);
            mlia_jw_obj_end(w);
        }
        mlia_jw_obj_end(w);
        mlia_jw_karr_begin(w, "gradient");
        for (int k = 0; k < 3; k++) {
            mlia_jw_obj_begin(w);
            mlia_jw_kdouble(w, "stop", k * 0.5);
            mlia_jw_kstr(w, "bgColor", vw_gradient_stops[ov->reversed ? 2 - k : k]);
            mlia_jw_obj_end(w);
        }
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);
}

static const char *node_data_path(vw_ctx *c, const vw_view *v, const vw_overlay *ov)
{
    return mlia_arena_printf(c->a, "node-data/%s/%s.json", v->id, ov->id);
}

static void write_overlay_meta(vw_ctx *c, const vw_view *v, const vw_overlay *ov, mlia_jw *w, bool with_file)
{
    mlia_jw_kstr(w, "id", ov->id);
    mlia_jw_kstr(w, "label", ov->label);
    mlia_jw_kstr(w, "name", ov->name);
    mlia_jw_kstr(w, "unit", ov->unit);
    mlia_jw_kstr(w, "entity_kind", ov->entity_kind);
    if (with_file)
        mlia_jw_kstr(w, "file", node_data_path(c, v, ov));
    mlia_jw_kobj_begin(w, "scale");
    mlia_jw_kdouble(w, "min", ov->min);
    mlia_jw_kdouble(w, "max", ov->max);
    mlia_jw_obj_end(w);
    mlia_jw_kbool(w, "group_measurement", ov->group_measurement);
    if (ov->reversed)
        mlia_jw_kbool(w, "reversed", true); /* only then: other overlays keep their bytes */
}

/* "views": one entry per row of the table. The manifest names each
 * available view's model and node-data files; the page embeds the
 * collection and the overlay values instead. */
/* The key "<graph id>/<node key>" of an overlay value: composed on the
 * stack (one per value on the page, no arena copy), in the arena only when
 * longer than the stack buffer. */
static void write_value_key(vw_ctx *c, mlia_jw *w, const char *graph, const char *key)
{
    char buf[512];
    size_t gl = strlen(graph), kl = strlen(key);
    if (gl + 1 + kl > sizeof buf) {
        mlia_jw_key(w, mlia_arena_printf(c->a, "%s/%s", graph, key));
        return;
    }
    memcpy(buf, graph, gl);
    buf[gl] = '/';
    memcpy(buf + gl + 1, key, kl);
    mlia_jw_keyn(w, buf, gl + 1 + kl);
}

static void write_views(vw_ctx *c, bool page, mlia_jw *w)
{
    mlia_jw_karr_begin(w, "views");
    for (uint32_t i = 0; i < c->n_views; i++) {
        const vw_view *v = &c->views[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "id", v->id);
        mlia_jw_kstr(w, "label", v->label);
        mlia_jw_kbool(w, "available", v->available);
        mlia_jw_kstr(w, "reason", v->available ? NULL : v->reason);
        if (page && v->title)
            mlia_jw_kstr(w, "title", v->title);
        if (page && v->help)
            mlia_jw_kstr(w, "help", v->help);
        if (!page) {
            mlia_jw_kstr(w, "model", v->available ? mlia_arena_printf(c->a, "models/%s.json", v->id) : NULL);
        } else if (v->available) {
            mlia_jw_key(w, "collection");
            write_collection(v, w);
        } else {
            mlia_jw_knull(w, "collection");
        }
        mlia_jw_karr_begin(w, "overlays");
        for (uint32_t k = 0; v->available && k < v->n_overlays; k++) {
            const vw_overlay *ov = &v->overlays[k];
            mlia_jw_obj_begin(w);
            write_overlay_meta(c, v, ov, w, !page);
            if (page) {
                mlia_jw_kobj_begin(w, "values");
                for (uint32_t q = 0; q < ov->n_values; q++) {
                    const vw_value *x = &ov->values[q];
                    write_value_key(c, w, v->graphs[x->graph].id, x->key);
                    mlia_jw_obj_begin(w);
                    mlia_jw_kdouble(w, "value", x->value);
                    mlia_jw_kstr(w, "color", x->color);
                    mlia_jw_kstr(w, "text", x->text);
                    mlia_jw_obj_end(w);
                }
                mlia_jw_obj_end(w);
            }
            mlia_jw_obj_end(w);
        }
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

static void write_manifest(vw_out *o, mlia_jw *w)
{
    vw_ctx *c = o->c;
    mlia_jw_obj_begin(w);
    mlia_jw_kint(w, "version", 1);
    write_views(c, false, w);
    mlia_jw_kstr(w, "initial_view", o->initial_view);
    mlia_jw_karr_begin(w, "sync_navigation");
    for (uint32_t i = 0; i < o->n_pairs; i++) {
        const vw_pair *p = &o->pairs[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "left_view", c->views[p->left].id);
        mlia_jw_kstr(w, "right_view", c->views[p->right].id);
        mlia_jw_kstr(w, "file", pair_path(c, p));
        mlia_jw_kuint(w, "entries", p->n_entries);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_kstr(w, "view_links", "view-links.json");
    mlia_jw_kstr(w, "entity_node_mappings", "entity-node-mappings.json");
    mlia_jw_kstr(w, "page", "bundle/index.html");
    mlia_jw_kobj_begin(w, "model_explorer");
    mlia_jw_karr_begin(w, "models");
    for (uint32_t i = 0; i < c->n_views; i++)
        if (c->views[i].available)
            mlia_jw_str(w, mlia_arena_printf(c->a, "models/%s.json", c->views[i].id));
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "node_data_paths");
    for (uint32_t i = 0; i < c->n_views; i++)
        for (uint32_t k = 0; c->views[i].available && k < c->views[i].n_overlays; k++)
            mlia_jw_str(w, node_data_path(c, &c->views[i], &c->views[i].overlays[k]));
    mlia_jw_arr_end(w);
    mlia_jw_kstr(w, "command", o->me_command);
    mlia_jw_kstr(w, "launcher", LAUNCHER_NAME);
    if (o->first_overlay) {
        mlia_jw_key(w, "first_overlay");
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "view", o->first_view->id);
        mlia_jw_kstr(w, "file", node_data_path(c, o->first_view, o->first_overlay));
        mlia_jw_kstr(w, "name", o->first_overlay->name);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_knull(w, "first_overlay");
    }
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_finish(w);
}

static void write_ref(vw_ctx *c, vw_ref r, mlia_jw *w)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "view", c->views[r.view].id);
    mlia_jw_kstr(w, "graph", c->views[r.view].graphs[r.graph].id);
    mlia_jw_kstr(w, "node", ref_node(c, r)->id);
    mlia_jw_obj_end(w);
}

/* "key": [{"from": ref, "to": [ref...]}]: every node's related nodes in
 * other views (view-links.json and the page's "sync"). */
static void write_sync(vw_out *o, const char *key, mlia_jw *w)
{
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < o->n_sync; i++) {
        const vw_sync *sy = &o->sync[i];
        mlia_jw_obj_begin(w);
        mlia_jw_key(w, "from");
        write_ref(o->c, sy->from, w);
        mlia_jw_karr_begin(w, "to");
        for (uint32_t k = 0; k < sy->n; k++)
            write_ref(o->c, o->targets[sy->first + k], w);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

/* view-links.json: every node's related nodes in other views, graph-qualified
 * (the same pairs as the page's "sync"). Not Model Explorer's format: Model
 * Explorer's sync files are sync/<left>--<right>.json. */
static void write_view_links(vw_out *o, mlia_jw *w)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "schema", "mlia.view-links/1");
    write_sync(o, "links", w);
    mlia_jw_obj_end(w);
    mlia_jw_finish(w);
}

/* Model Explorer sync file of one pair of views. */
static void write_pair(vw_out *o, const vw_pair *p, mlia_jw *w)
{
    vw_ctx *c = o->c;
    mlia_jw_obj_begin(w);
    mlia_jw_karr_begin(w, "mappingEntries");
    for (uint32_t e = 0; e < p->n_entries; e++) {
        const vw_pair_entry *en = &p->entries[p->order[e]];
        mlia_jw_obj_begin(w);
        mlia_jw_karr_begin(w, "leftNodeIds");
        for (uint32_t k = 0; k < en->n_left; k++)
            mlia_jw_str(w, ref_node(c, p->rels[en->left[k]].l)->id);
        mlia_jw_arr_end(w);
        mlia_jw_karr_begin(w, "rightNodeIds");
        for (uint32_t k = 0; k < en->n_right; k++)
            mlia_jw_str(w, ref_node(c, p->rels[en->first_rel + k].r)->id);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_finish(w);
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* {entity id: [{view, graph, node}]} sorted by entity id. */
static void write_entity_nodes(vw_out *o, mlia_jw *w)
{
    vw_ctx *c = o->c;
    const char **ids = mlia_arena_array(c->a, o->n_entities ? o->n_entities : 1, sizeof *ids);
    memcpy(ids, o->entity_ids, o->n_entities * sizeof *ids);
    qsort(ids, o->n_entities, sizeof *ids, cmp_str_ptr);
    mlia_jw_obj_begin(w);
    for (uint32_t i = 0; i < o->n_entities; i++) {
        const vw_reflist *l = &o->entity_refs[vw_map_get(&o->entity_index, ids[i])];
        mlia_jw_karr_begin(w, ids[i]);
        for (uint32_t k = 0; k < l->n; k++)
            write_ref(c, l->v[k], w);
        mlia_jw_arr_end(w);
    }
    mlia_jw_obj_end(w);
}

/* ------------------------------------------------------------------ */
/* page data                                                            */

static bool is_assumption(const char *w)
{
    return strncmp(w, "Statistics mode not recorded", 28) == 0 || strncmp(w, "Device not recorded", 19) == 0;
}

static void write_metric(const mlia_metric *m, mlia_jw *w)
{
    mlia_jw_obj_begin(w);
    if (!result_json_metric_head(w, m, m->reason)) {
        mlia_jw_obj_end(w);
        return;
    }
    const char *st = mlia_metric_qualifier(m, "statistic");
    if (st)
        mlia_jw_kstr(w, "statistic", st);
    const char *at = mlia_metric_qualifier(m, "attribution");
    if (at)
        mlia_jw_kstr(w, "attribution", at);
    if (m->aggregation)
        mlia_jw_kstr(w, "aggregation", m->aggregation);
    if (m->samples)
        mlia_jw_kuint(w, "samples", m->samples);
    mlia_jw_obj_end(w);
}

static void write_entities(vw_out *o, mlia_jw *w)
{
    vw_ctx *c = o->c;
    const mlia_run_record *s = c->s;
    const mlia_result *r = s->result;
    /* stack traces of source operators: entity id -> graph node */
    vw_map traces;
    vw_map_init(&traces, c->a, s->runtime ? s->runtime->n_nodes : 8);
    if (s->program)
        for (uint32_t i = 0; i < s->program->graph.n_nodes; i++) {
            const ep_node *nd = &s->program->graph.nodes[i];
            if (!nd->stack_trace)
                continue;
            if (s->runtime && i < s->runtime->n_nodes && s->runtime->node_entities[i])
                vw_map_put(&traces, c->a, s->runtime->node_entities[i]->id, i);
            else
                vw_map_put(&traces, c->a,
                           mlia_arena_printf(c->a, "source_operator/%s/%s", s->method_name ? s->method_name : "forward",
                                             nd->name ? nd->name : ""),
                           i);
        }
    mlia_jw_obj_begin(w);
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        mlia_jw_kobj_begin(w, e->id);
        mlia_jw_kstr(w, "kind", e->kind);
        mlia_jw_kstr(w, "name", e->name);
        mlia_jw_kobj_begin(w, "attributes");
        for (uint32_t k = 0; k < e->n_attrs; k++) {
            mlia_jw_key(w, e->attrs[k].key);
            result_json_attr_value(w, &e->attrs[k]);
        }
        mlia_jw_obj_end(w);
        mlia_jw_karr_begin(w, "metrics");
        for (uint32_t k = 0; k < e->n_metrics; k++)
            write_metric(&e->metrics[k], w);
        mlia_jw_arr_end(w);
        const mlia_metric *cov = mlia_entity_metric(e, "execution_coverage", NULL);
        if (cov && cov->type == MLIA_VALUE_DOUBLE)
            mlia_jw_kdouble(w, "coverage", cov->d);
        else
            mlia_jw_knull(w, "coverage");
        mlia_jw_karr_begin(w, "related");
        for (uint32_t k = 0; k < e->n_parents; k++) {
            mlia_jw_obj_begin(w);
            mlia_jw_kstr(w, "id", e->parents[k]->id);
            mlia_jw_kstr(w, "relation", "parent");
            mlia_jw_obj_end(w);
        }
        const vw_strs *ch = children_of(o, e->id);
        for (uint32_t k = 0; ch && k < ch->n && k < VW_RELATED_CHILDREN; k++) {
            mlia_jw_obj_begin(w);
            mlia_jw_kstr(w, "id", ch->v[k]);
            mlia_jw_kstr(w, "relation", "child");
            mlia_jw_obj_end(w);
        }
        mlia_jw_arr_end(w);
        uint32_t ti = vw_map_get(&traces, e->id);
        mlia_jw_kstr(w, "stack_trace", ti != VW_NONE ? s->program->graph.nodes[ti].stack_trace : NULL);
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);
}

/* The page's headline strip (docs/page.md, "Headline"): the numbers the
 * console prints first, from report/result/headline.h. */
static void write_headline(vw_out *o, mlia_jw *w)
{
    const mlia_run_record *s = o->c->s;
    mlia_headline h;
    mlia_headline_compute(s->result, &h);
    mlia_jw_kobj_begin(w, "headline");
    mlia_jw_kstr(w, "status", h.status);
    mlia_jw_kstr(w, "status_text", h.status_text[0] ? h.status_text : NULL);
    mlia_jw_kuint(w, "executions", s->n_executions);
    if (h.has_inference) {
        mlia_jw_kobj_begin(w, "inference_time");
        mlia_jw_kdouble(w, "p50", h.inference_p50);
        mlia_jw_kdouble(w, "min", h.inference_min);
        mlia_jw_kdouble(w, "max", h.inference_max);
        if (h.has_spread) {
            mlia_jw_kdouble(w, "avg", h.inference_avg);
            mlia_jw_kdouble(w, "p10", h.inference_p10);
            mlia_jw_kdouble(w, "p90", h.inference_p90);
        }
        mlia_jw_kuint(w, "samples", h.inference_samples);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_knull(w, "inference_time");
    }
    mlia_jw_kstr(w, "inference_reason", h.has_inference ? NULL : h.inference_reason);
    if (h.top) {
        mlia_jw_kobj_begin(w, "top_operator");
        mlia_jw_kstr(w, "id", h.top->id);
        mlia_jw_kdouble(w, "p50", h.top_p50);
        mlia_jw_kstr(w, "attribution", h.top_attribution);
        mlia_jw_kuint(w, "members", h.top_members);
        mlia_jw_kstr(w, "call", h.top_call ? (h.top_call->name ? h.top_call->name : h.top_call->id) : NULL);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_knull(w, "top_operator");
    }
    if (h.has_nx) {
        mlia_jw_kobj_begin(w, "nx_total_cycles");
        mlia_jw_kuint(w, "p50", h.nx_total_cycles);
        mlia_jw_kuint(w, "samples", h.nx_samples);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_knull(w, "nx_total_cycles");
    }
    mlia_jw_kbool(w, "cpu_only", h.cpu_only);
    mlia_jw_obj_end(w);
    /* the result's ranked advice (analysis/advice.h): the page's advice
     * strip under the headline; the same texts as the console's Advice */
    mlia_jw_karr_begin(w, "advice");
    for (uint32_t i = 0; i < s->result->n_advice; i++) {
        const mlia_advice *a = &s->result->advice[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "id", a->id);
        mlia_jw_kstr(w, "severity", a->severity);
        mlia_jw_kstr(w, "message", a->message);
        mlia_jw_karr_begin(w, "entities");
        for (uint32_t k = 0; k < a->n_affected; k++)
            mlia_jw_str(w, a->affected[k]);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

/* The page's sections before its timeline, on the calling thread. */
typedef struct page_sections {
    vw_out *o;
    mlia_jw *w;
} page_sections;

/* The page's timeline, formatted into memory on the second core while the
 * sections before it are written (issue 33: 0.31 s of a 100,000-operator
 * run): the same writer settings as the page's (compact, html_safe), so the
 * text is the same bytes, and bounded (TRACE_PAGE_MAX_EVENTS). */
typedef struct page_timeline {
    const trace_source *src;
    mlia_buf text;               /* malloc'd; the caller frees it */
} page_timeline;

static void page_timeline_work(void *arg)
{
    page_timeline *pt = arg;
    mlia_jw tw;
    mlia_jw_init_buf(&tw, &pt->text, false);
    tw.html_safe = true;
    trace_write_page_timeline(pt->src, &tw);
}

static void write_page_sections(void *arg);

static void write_page_data(vw_out *o, mlia_jw *w)
{
    vw_ctx *c = o->c;
    const mlia_run_record *s = c->s;
    mlia_jw_obj_begin(w);
    page_sections ps = {o, w};
    if (s->trace) { /* the Timeline tab (docs/trace.md) */
        page_timeline *pt = mlia_arena_alloc(c->a, sizeof *pt);
        pt->src = s->trace;
        mlia_buf_init(&pt->text);
        mlia_side_job job = {.work = page_timeline_work, .arg = pt, .thread_begin = s->thread_begin,
                             .thread_end = s->thread_end, .hook_ctx = s->thread_ctx};
        mlia_side_job_beside(&job, write_page_sections, &ps);
        mlia_jw_key(w, "timeline");
        mlia_jw_raw(w, pt->text.data ? pt->text.data : "", pt->text.len);
        mlia_buf_free(&pt->text);
    } else {
        write_page_sections(&ps);
    }
    if (s->memory) { /* the Memory tab (docs/memory.md) */
        mlia_jw_key(w, "memory");
        vw_memory_write(s, c->a, w);
    }
    mlia_jw_obj_end(w);
}

static void write_page_sections(void *arg)
{
    page_sections *ps = arg;
    vw_out *o = ps->o;
    mlia_jw *w = ps->w;
    vw_ctx *c = o->c;
    const mlia_run_record *s = c->s;
    const mlia_result *r = s->result;
    mlia_jw_kstr(w, "schema", "mlia.page/1");
    mlia_jw_kstr(w, "title",
                 mlia_arena_printf(c->a, "mlia check: %s (method %s)",
                                   s->etrecord_digest.name ? s->etrecord_digest.name : "ETRecord",
                                   s->method_name ? s->method_name : "?"));
    mlia_jw_kstr(w, "generated_by", "mlia " MLIA_VERSION);
    write_headline(o, w);
    mlia_headline h;
    mlia_headline_compute(r, &h);
    mlia_jw_karr_begin(w, "warnings");
    for (uint32_t i = 0; i < r->n_warnings; i++)
        if (!is_assumption(r->warnings[i]) && !mlia_headline_is_not_applicable(&h, r->warnings[i]) &&
            !mlia_warning_is_note(r->warnings[i]))
            mlia_jw_str(w, r->warnings[i]);
    mlia_jw_arr_end(w);
    /* docs/page.md: what this capture cannot have, apart from what went wrong */
    mlia_jw_karr_begin(w, "not_applicable");
    for (uint32_t i = 0; i < c->n_views; i++)
        if (!c->views[i].available && c->views[i].not_applicable)
            mlia_jw_str(w, c->views[i].id);
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "assumptions");
    for (uint32_t i = 0; i < r->n_warnings; i++)
        if (is_assumption(r->warnings[i]))
            mlia_jw_str(w, r->warnings[i]);
    if (s->has_companion && companion_has_delegates(s))
        mlia_jw_str(w, "The companion PTE passed the structural compatibility checks only (segments, SPIR-V result "
                       "ids, instruction count); this does not prove that this PTE produced the capture.");
    else if (s->has_companion)
        mlia_jw_str(w, "The companion PTE passed the structural compatibility checks only (instruction ids and "
                       "kinds); this does not prove that this PTE produced the capture, nor that its memory plan is "
                       "the one that ran.");
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "notes");
    if (s->ticks_per_second > 0 && s->ticks_per_second != 1e9) { /* docs/captures.md */
        char rate[48];
        mlia_format_hz(rate, sizeof rate, s->ticks_per_second);
        mlia_jw_str(w, mlia_arena_printf(c->a, "Times are in milliseconds (ETDump ticks read at %s).", rate));
    } else {
        mlia_jw_str(w, mlia_arena_printf(c->a, "Times are in milliseconds (ETDump ticks read as %s).",
                                         s->time_unit ? s->time_unit : "ns"));
    }
    mlia_jw_str(w, "Cycle counters describe captured activity, not elapsed time; they are never converted to time.");
    for (uint32_t i = 0; i < r->n_warnings; i++) /* options the user chose (issue 29, 6) */
        if (mlia_warning_is_note(r->warnings[i]))
            mlia_jw_str(w, r->warnings[i]);
    /* unavailable views and their reasons are listed by the page from "views" */
    mlia_jw_str(w, mlia_arena_printf(c->a, "Colours use one linear scale per entity kind and metric across all "
                                           "views (%s to %s to %s).",
                                     vw_gradient_stops[0], vw_gradient_stops[1], vw_gradient_stops[2]));
    mlia_jw_arr_end(w);
    mlia_jw_kstr(w, "initial_view", o->initial_view);
    write_views(c, true, w);
    write_sync(o, "sync", w);
    mlia_jw_key(w, "entities");
    write_entities(o, w);
    mlia_jw_key(w, "entity_nodes");
    write_entity_nodes(o, w);
    mlia_jw_kobj_begin(w, "table_columns");
    for (uint32_t i = 0; i < c->n_views; i++) {
        mlia_jw_karr_begin(w, c->views[i].id);
        for (uint32_t k = 0; k < c->views[i].columns.n; k++)
            mlia_jw_str(w, c->views[i].columns.v[k]);
        mlia_jw_arr_end(w);
    }
    mlia_jw_obj_end(w);
}

static void file_page(const vw_file *f, mlia_jw *w)
{
    write_page_data(f->o, w);
}

/* The page template with the page data in place of its placeholder, the
 * data written html_safe (see the file comment). */
static int write_page(vw_out *o, mlia_outdir *od, mlia_error *err)
{
    const char *tpl = mlia_page_template;
    size_t tlen = (size_t)mlia_page_template_len;
    const char *at = memmem(tpl, tlen, VW_PLACEHOLDER, strlen(VW_PLACEHOLDER));
    if (!at)
        return mlia_error_setf(err, NULL, "page template: placeholder %s not found", VW_PLACEHOLDER);
    size_t after = (size_t)(at - tpl) + strlen(VW_PLACEHOLDER);
    vw_file f = {.fn = file_page, .o = o, .html_safe = true, .head = tpl, .head_len = (size_t)(at - tpl),
                 .tail = tpl + after, .tail_len = tlen - after};
    return write_file(od, "model-explorer/bundle/index.html", &f, err);
}

static void file_doc(const vw_file *f, mlia_jw *w)
{
    f->doc(f->o, w);
}

static int write_doc(vw_out *o, mlia_outdir *od, const char *rel, vw_doc_fn fn, bool pretty, mlia_error *err)
{
    vw_file f = {.fn = file_doc, .o = o, .doc = fn, .pretty = pretty, .newline = !pretty};
    return write_file(od, rel, &f, err);
}

static void doc_entity_nodes(vw_out *o, mlia_jw *w)
{
    write_entity_nodes(o, w);
}

static void file_collection(const vw_file *f, mlia_jw *w)
{
    write_collection(f->view, w);
}

static void file_node_data(const vw_file *f, mlia_jw *w)
{
    write_node_data(f->view, f->item, w);
}

static void file_pair(const vw_file *f, mlia_jw *w)
{
    write_pair(f->o, f->item, w);
}

/* The Model Explorer graph collections and node data of every view: pure
 * functions of the built views, so they are written on the second core
 * while this thread writes the page and the other documents (issue 33: 0.45
 * s of a 100,000-operator run; core/side_job.h). Every file is opened here
 * (the output folder is this thread's) and closed here after the join, in
 * order, so the first failure in the sequential order is the one reported. */
typedef struct view_files {
    uint32_t n;
    vw_file *files;              /* [n] */
    mlia_outdir_file *out;       /* [n]; fp NULL once closed */
    int *rc;                     /* [n], set by the job */
    mlia_error *errs;            /* [n] */
} view_files;

static void view_files_work(void *arg)
{
    view_files *vf = arg;
    for (uint32_t i = 0; i < vf->n; i++) {
        errno = 0;
        vf->rc[i] = file_to(&vf->files[i], vf->out[i].fp, vf->out[i].shown, &vf->errs[i]);
        if (vf->rc[i])
            return; /* the ones after it are not written, as in sequence */
    }
}

/* Closes what is still open, without messages (an out-of-memory jump past
 * views_write, or a failure before the job ran). */
static void view_files_close(void *arg)
{
    view_files *vf = arg;
    for (uint32_t i = 0; i < vf->n; i++)
        (void)mlia_outdir_close_file(&vf->out[i], -1, &vf->errs[i]);
}

/* Opens the files of every available view; on failure the ones opened are
 * closed and err says why. */
static int view_files_open(vw_out *o, mlia_outdir *od, view_files *vf, mlia_error *err)
{
    vw_ctx *c = o->c;
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->n_views; i++)
        if (c->views[i].available)
            n += 1 + c->views[i].n_overlays;
    vf->n = 0;
    vf->files = mlia_arena_array(c->a, n ? n : 1, sizeof *vf->files);
    vf->out = mlia_arena_array(c->a, n ? n : 1, sizeof *vf->out);
    vf->rc = mlia_arena_array(c->a, n ? n : 1, sizeof *vf->rc);
    vf->errs = mlia_arena_array(c->a, n ? n : 1, sizeof *vf->errs);
    for (uint32_t i = 0; i < c->n_views; i++) {
        const vw_view *v = &c->views[i];
        if (!v->available)
            continue;
        for (uint32_t k = 0; k <= v->n_overlays; k++) {
            const char *rel = k == 0 ? mlia_arena_printf(c->a, "model-explorer/models/%s.json", v->id)
                                     : mlia_arena_printf(c->a, "model-explorer/%s",
                                                         node_data_path(c, v, &v->overlays[k - 1]));
            vw_file f = {.fn = k == 0 ? file_collection : file_node_data, .o = o, .view = v,
                         .item = k == 0 ? NULL : &v->overlays[k - 1], .newline = true};
            if (mlia_outdir_open_file(od, rel, &vf->out[vf->n], err)) {
                view_files_close(vf);
                return -1;
            }
            vf->files[vf->n] = f;
            vf->rc[vf->n] = 0;
            mlia_error_clear(&vf->errs[vf->n]);
            vf->n++;
        }
    }
    return 0;
}

/* What views_write writes after the view files, in order. */
typedef struct other_docs {
    vw_out *o;
    mlia_outdir *od;
    mlia_error *err;
    int rc;
} other_docs;

static void other_docs_work(void *arg)
{
    other_docs *d = arg;
    vw_out *o = d->o;
    vw_ctx *c = o->c;
    mlia_outdir *od = d->od;
    mlia_error *err = d->err;
    int rc = write_doc(o, od, "model-explorer/manifest.json", write_manifest, true, err);
    if (!rc)
        rc = write_doc(o, od, "model-explorer/view-links.json", write_view_links, false, err);
    for (uint32_t i = 0; !rc && i < o->n_pairs; i++) {
        vw_file f = {.fn = file_pair, .o = o, .item = &o->pairs[i], .newline = true};
        rc = write_file(od, mlia_arena_printf(c->a, "model-explorer/%s", pair_path(c, &o->pairs[i])), &f, err);
    }
    if (!rc)
        rc = write_doc(o, od, "model-explorer/entity-node-mappings.json", doc_entity_nodes, false, err);
    if (!rc)
        rc = mlia_outdir_write(od, "model-explorer/" LAUNCHER_NAME, LAUNCHER, sizeof LAUNCHER - 1, err);
    if (!rc)
        rc = write_page(o, od, err);
    d->rc = rc;
}

/* The view files on the second core beside the other documents and the
 * page; errors in the order a sequential run reports them. */
static int write_all_files(vw_out *o, mlia_outdir *od, mlia_error *err)
{
    const mlia_run_record *s = o->c->s;
    view_files *vf = mlia_arena_alloc(o->c->a, sizeof *vf);
    if (view_files_open(o, od, vf, err))
        return -1;
    other_docs *d = mlia_arena_alloc(o->c->a, sizeof *d);
    *d = (other_docs){o, od, err, 0};
    mlia_side_job job = {.work = view_files_work, .arg = vf, .thread_begin = s->thread_begin,
                         .thread_end = s->thread_end, .hook_ctx = s->thread_ctx};
    mlia_oom_cleanup closing;
    mlia_oom_push(&closing, view_files_close, vf);
    mlia_side_job_beside(&job, other_docs_work, d);
    mlia_oom_pop(&closing);
    int rc = 0;
    for (uint32_t i = 0; i < vf->n; i++) {
        int r = mlia_outdir_close_file(&vf->out[i], rc ? -1 : vf->rc[i], &vf->errs[i]);
        if (r && !rc) {
            *err = vf->errs[i];
            rc = -1;
        }
    }
    return rc ? rc : d->rc;
}

int views_write(const mlia_run_record *s, mlia_outdir *od, char **me_cmd, char **me_hint, mlia_error *err)
{
    if (me_cmd)
        *me_cmd = NULL;
    mlia_arena arena;
    mlia_arena_init(&arena);
    vw_ctx c;
    memset(&c, 0, sizeof c);
    c.s = s;
    c.a = &arena;
    vw_map_init(&c.links.index, &arena, 256);
    c.backend_scratch = mlia_arena_array(&arena, s->n_backends ? s->n_backends : 1, sizeof *c.backend_scratch);
    for (uint32_t b = 0; b < s->n_backends; b++)
        c.backend_scratch[b] = NULL;
    uint32_t n_rows;
    const vw_view_def **rows = view_rows(&c, &n_rows);
    c.n_views = n_rows;
    c.views = mlia_arena_array(&arena, n_rows, sizeof *c.views);
    for (uint32_t i = 0; i < n_rows; i++)
        build_view(&c, rows[i], &c.views[i]);
    vw_drop_empty_overlays(&c);
    name_overlays(&c);
    graph_summaries(&c);
    vw_colour_overlays(&c);

    vw_out o;
    memset(&o, 0, sizeof o);
    o.c = &c;
    index_entities(&o);
    compute_sync(&o);
    compute_pairs(&o);
    o.me_command = me_command(&c);
    /* the preferred view when it has content, else the first available one */
    for (uint32_t i = 0; i < n_rows && !o.initial_view; i++)
        if (rows[i]->preferred && c.views[i].available && c.views[i].has_content)
            o.initial_view = rows[i]->id;
    for (uint32_t i = 0; i < n_rows && !o.initial_view; i++)
        if (c.views[i].available)
            o.initial_view = rows[i]->id;
    if (!o.initial_view)
        o.initial_view = rows[0]->id;
    /* the overlay to pick first: the initial view's first one, else the
     * first overlay of any available view */
    for (uint32_t i = 0; i < c.n_views && !o.first_overlay; i++)
        if (c.views[i].available && c.views[i].n_overlays && strcmp(c.views[i].id, o.initial_view) == 0) {
            o.first_view = &c.views[i];
            o.first_overlay = &c.views[i].overlays[0];
        }
    for (uint32_t i = 0; i < c.n_views && !o.first_overlay; i++)
        if (c.views[i].available && c.views[i].n_overlays) {
            o.first_view = &c.views[i];
            o.first_overlay = &c.views[i].overlays[0];
        }

    int rc = write_all_files(&o, od, err);
    if (!rc && me_cmd) {
        *me_cmd = strdup(LAUNCHER_NAME);
        if (!*me_cmd)
            rc = mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, NULL, "out of memory");
    }
    if (!rc && me_hint && o.first_overlay) {
        *me_hint = strdup(mlia_arena_printf(c.a, "Then pick the overlay '%s' first (nodes are coloured only "
                                                 "once one is picked).",
                                            o.first_overlay->name));
        if (!*me_hint)
            rc = mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, NULL, "out of memory");
    }
    mlia_arena_free(&arena);
    return rc;
}
