/*
 * view_chains.c - the "segment_cascade_chain" view (docs/views.md): the NX
 * hierarchy of every shown graph segment, segment and cascade groups with
 * their summary nodes, chains linked in execution order and, for a chain
 * with few enough stripes, its stripes as child nodes.
 */
#include <stdio.h>
#include <string.h>

#include "backends/vgf/report/views_nx.h"

/* Counter label -> overlay id characters ([A-Za-z0-9_-], others '_'). */
static const char *safe_id(vw_ctx *c, const char *s)
{
    char *r = mlia_arena_strdup(c->a, s);
    for (char *p = r; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '-'))
            *p = '_';
    return r;
}

#define VW_MAX_STRIPE_NODES 64

/* A chain or stripe node of a sequence: cycle attributes, the edge from the
 * previous node (*prev, then this node) and its overlay value. */
static void sequence_node(vw_ctx *c, vw_view *v, uint32_t gi, vw_node *n, const char *id, const char **prev,
                          uint32_t ov, const char *metric)
{
    const mlia_entity *e = mlia_result_find(c->s->result, id);
    vw_cycle_attrs(c, n, e);
    if (*prev)
        vw_node_edge(c, n, *prev, "0");
    *prev = n->id;
    vw_overlay_metric(c, v, ov, gi, id, e, metric, "p50");
}

/* The overlays of the view's row (views_nx.c), in order; one per counter follows. */
enum { OV_CHAINS_CHAIN, OV_CHAINS_STRIPE, OV_CHAINS_CASCADE, OV_CHAINS_SEGMENT, OV_CHAINS_COUNTER0 };

const char *vw_chains_unavailable(const mlia_run_record *s)
{
    return vw_nx_measured(vgf_nx_of(s)) ? NULL : vw_nx_reason(vgf_nx_of(s));
}

void vw_chains_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const nx_result *nx = vgf_nx_of(s);
    const vgf_views_ns *ns = vgf_views_ns_of(c);
    const mlia_result *r = s->result;
    const char *metric = vw_chain_metric(nx);
    uint32_t gi = vw_graph_add(c, v, "nx_hierarchy");
    for (uint32_t k = 0; k < nx->n_counters; k++) {
        const char *cm = mlia_arena_printf(c->a, "%s_cycles", nx->counter_labels[k]);
        vw_overlay_add(c, v, mlia_arena_printf(c->a, "chain_%s", safe_id(c, cm)),
                       mlia_arena_printf(c->a, "Chain %s P50", cm), "cycles", "chain",
                       mlia_arena_printf(c->a, "%s:p50", cm), false);
    }
    vw_strs_add(&v->columns, c->a, "total_cycles");
    vw_strs_add(&v->columns, c->a, "op_cycles");
    for (uint32_t k = 0; k < nx->n_counters; k++)
        vw_strs_add(&v->columns, c->a, mlia_arena_printf(c->a, "%s_cycles", nx->counter_labels[k]));
    vw_strs_add(&v->columns, c->a, "execution_coverage");

    for (uint32_t si = 0; si < nx->n_segments; si++) {
        const nx_segment *seg = &nx->segments[si];
        if (!vw_segment_shown(seg) || !seg->n_chains)
            continue;
        vw_graph *gr = &v->graphs[gi];
        /* the group measurement lives on the segment's summary node */
        vw_measured_group(c, v, gi, ns->segment_ns[si], "segment", seg->id, seg->display_name,
                          mlia_arena_printf(c->a, "Segment %s", seg->token), OV_CHAINS_SEGMENT, metric);
        for (uint32_t k = 0; k < seg->n_cascades; k++) {
            const nx_cascade *ca = &nx->cascades[seg->first_cascade + k];
            const char *cx = vw_strip_prefix(ca->raw_id, "cascade_");
            vw_measured_group(c, v, gi, mlia_arena_printf(c->a, "%s/cascade_%s", ns->segment_ns[si], cx), "cascade",
                              ca->id, ca->name, mlia_arena_printf(c->a, "Cascade %s", cx), OV_CHAINS_CASCADE, metric);
        }
        const char *prev = NULL;
        for (uint32_t k = 0; k < seg->n_chains; k++) {
            uint32_t chi = seg->first_chain + k;
            const nx_chain *ch = &nx->chains[chi];
            const mlia_entity *he = mlia_result_find(r, ch->id);
            /* a chain with stripe nodes sits inside its own group, pinned to
             * its top, so the group never has a single child */
            bool own_group = ch->n_stripes > 0 && ch->n_stripes <= VW_MAX_STRIPE_NODES;
            uint32_t ni = vw_node_add(c, gr, ch->id,
                                      mlia_arena_printf(c->a, "Chain %s", vw_strip_prefix(ch->raw_id, "chain_")),
                                      own_group ? ns->chain_path[chi] : ns->chain_parent[chi], ch->id);
            vw_node *n = &gr->nodes[ni];
            n->pin_top = own_group;
            vw_node_attr(c, n, "chain", ch->id);
            vw_node_attr(c, n, "name", ch->name);
            vw_node_attrf(c, n, "stripes", "%u", ch->n_stripes);
            if (ch->n_stripes > VW_MAX_STRIPE_NODES) {
                /* too many stripes for child nodes: ids and values as attributes */
                mlia_buf ids, vals;
                mlia_buf_init(&ids);
                mlia_buf_init(&vals);
                for (uint32_t q = 0; q < seg->n_stripes; q++) {
                    const nx_stripe *st = &nx->stripes[seg->first_stripe + q];
                    if (st->chain != chi)
                        continue;
                    if (ids.len) {
                        mlia_buf_puts(&ids, ", ");
                        mlia_buf_puts(&vals, "; ");
                    }
                    mlia_buf_printf(&ids, "%u", st->stripe);
                    double sv;
                    if (vw_metric(mlia_result_find(r, st->id), metric, "p50", &sv, NULL))
                        mlia_buf_puts(&vals, vw_num(c, sv, "cycles"));
                    else
                        mlia_buf_puts(&vals, "-");
                }
                vw_node_attr(c, n, "stripe_ids", mlia_arena_strndup(c->a, ids.data ? ids.data : "", ids.len));
                vw_node_attr(c, n, mlia_arena_printf(c->a, "stripe_%s_p50", metric),
                             mlia_arena_strndup(c->a, vals.data ? vals.data : "", vals.len));
                mlia_buf_free(&ids);
                mlia_buf_free(&vals);
            }
            vw_node_attrf(c, n, "compiler_operations", "%u", ch->n_ops);
            sequence_node(c, v, gi, n, ch->id, &prev, OV_CHAINS_CHAIN, metric);
            for (uint32_t q = 0; q < nx->n_counters; q++)
                vw_overlay_metric(c, v, OV_CHAINS_COUNTER0 + q, gi, ch->id, he,
                               mlia_arena_printf(c->a, "%s_cycles", nx->counter_labels[q]), "p50");
            if (ch->n_stripes > VW_MAX_STRIPE_NODES)
                continue;
            const char *sprev = NULL;
            for (uint32_t q = 0; q < seg->n_stripes; q++) {
                const nx_stripe *st = &nx->stripes[seg->first_stripe + q];
                if (st->chain != chi)
                    continue;
                uint32_t ti = vw_node_add(c, gr, st->id, st->name, ns->chain_path[chi], st->id);
                n = &gr->nodes[ti];
                vw_node_attrf(c, n, "stripe", "%u", st->stripe);
                sequence_node(c, v, gi, n, st->id, &sprev, OV_CHAINS_STRIPE, metric);
            }
        }
    }
}
