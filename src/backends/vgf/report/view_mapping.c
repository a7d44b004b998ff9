/*
 * view_mapping.c - the "ETRecord Chain Mapping" view (docs/views.md): the
 * chains of the shown graph segments and, for each, an edge to every
 * ETRecord source operator that one of its compiler operations is
 * associated with (deduplicated).
 */
#include <stdio.h>

#include "backends/vgf/report/views_nx.h"

/* The overlays of the view's row (views_nx.c), in order. */
enum { OV_MAPPING_CHAIN, OV_MAPPING_SOURCE, OV_MAPPING_SOURCE_SNR, OV_MAPPING_CHAIN_SNR };

/* Accuracy through the associations (docs/accuracy.md): a chain shows the
 * lowest P50 output SNR among the source operators it serves (with a
 * numeric SNR), e.g. a delegate's output operator. */
typedef struct chain_snr {
    double min;
    uint32_t n;
    const char *worst;
} chain_snr;

static void chain_snr_note(vw_ctx *c, vw_view *v, uint32_t gi, const char *chain_id, const chain_snr *cs)
{
    if (!cs->n)
        return;
    vw_node *n = vw_node_find(&v->graphs[gi], chain_id);
    const char *text = mlia_arena_printf(c->a, "%s (lowest of %u source operator%s: %s)", vw_qty(c, cs->min, "dB"),
                                         cs->n, cs->n == 1 ? "" : "s", cs->worst);
    if (n)
        vw_node_attr(c, n, "output_snr_db_p50_lowest_source", text);
    vw_overlay_value(c, &v->overlays[OV_MAPPING_CHAIN_SNR], gi, chain_id, cs->min, text);
}

const char *vw_mapping_unavailable(const mlia_run_record *s)
{
    return vw_chains_unavailable(s);
}

void vw_mapping_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const nx_result *nx = vgf_nx_of(s);
    const vgf_views_ns *ns = vgf_views_ns_of(c);
    const mlia_result *r = s->result;
    const char *metric = vw_chain_metric(nx);
    const char *method = s->method_name ? s->method_name : "forward";
    uint32_t gi = vw_graph_add(c, v, "chain_mapping");
    /* a chain's value is a source operator's SNR: the same colour scale */
    v->overlays[OV_MAPPING_CHAIN_SNR].scale_key = "source_operator|output_snr_db:p50";
    vw_map pairs;
    vw_map_init(&pairs, c->a, 64);
    for (uint32_t si = 0; si < nx->n_segments; si++) {
        const nx_segment *seg = &nx->segments[si];
        if (!vw_segment_shown(seg))
            continue;
        for (uint32_t k = 0; k < seg->n_chains; k++) {
            uint32_t chi = seg->first_chain + k;
            const nx_chain *ch = &nx->chains[chi];
            vw_graph *gr = &v->graphs[gi];
            const mlia_entity *he = mlia_result_find(r, ch->id);
            uint32_t ni = vw_node_add(c, gr, ch->id, mlia_arena_printf(c->a, "Chain %s", vw_strip_prefix(ch->raw_id, "chain_")),
                                      ns->segment_ns[si], ch->id);
            vw_cycle_attrs(c, &gr->nodes[ni], he);
            vw_overlay_metric(c, v, OV_MAPPING_CHAIN, gi, ch->id, he, metric, "p50");
            chain_snr cs = {0, 0, NULL};
            for (uint32_t q = 0; q < ch->n_ops; q++) {
                const nx_compiler_op *op = &nx->ops[ch->ops[q]];
                for (uint32_t z = 0; z < op->n_sources; z++) {
                    const char *sid = mlia_arena_printf(c->a, "source_operator/%s/%s", method, op->sources[z]);
                    const mlia_entity *src = mlia_result_find(r, sid);
                    if (!src)
                        continue;
                    double snr;
                    if (vw_metric(src, "output_snr_db", "p50", &snr, NULL) && (!cs.n || snr < cs.min)) {
                        const mlia_attr *na = mlia_entity_attr(src, "node_name");
                        cs.worst = na && na->type == MLIA_ATTR_STRING ? na->s : src->id;
                        cs.min = snr;
                    }
                    cs.n += vw_metric(src, "output_snr_db", "p50", &snr, NULL);
                    const char *pair = mlia_arena_printf(c->a, "%s\x1f%s", ch->id, sid);
                    if (vw_map_get(&pairs, pair) != VW_NONE)
                        continue;
                    vw_map_put(&pairs, c->a, pair, 1);
                    vw_node *sn = vw_node_find(gr, src->id);
                    if (!sn) {
                        uint32_t sni = vw_node_add(c, gr, src->id, src->name, "source", src->id);
                        sn = &gr->nodes[sni];
                        const mlia_attr *at = mlia_entity_attr(src, "node_name");
                        if (at && at->type == MLIA_ATTR_STRING)
                            vw_node_attr(c, sn, "node_name", at->s);
                        vw_attr_metric(c, sn, src, "execution_time", "p50");
                        vw_overlay_metric(c, v, OV_MAPPING_SOURCE, gi, src->id, src, "execution_time", "p50");
                        vw_attr_metric(c, sn, src, "output_snr_db", "p50");
                        vw_overlay_metric(c, v, OV_MAPPING_SOURCE_SNR, gi, src->id, src, "output_snr_db", "p50");
                    }
                    vw_node_edge(c, sn, ch->id, "0");
                    v->has_content = true;
                    vw_link(c, ch->id, src->id);
                }
            }
            chain_snr_note(c, v, gi, ch->id, &cs);
        }
    }
    if (!v->has_content)
        vw_group_attr(c, &v->graphs[gi], "", "note",
                      "No chain is associated with an ETRecord source operator (no association recorded).");
}
