/*
 * view_mapping.c - the "ETRecord Chain Mapping" view (docs/views.md): the
 * chains of the shown graph segments and, for each, an edge to every
 * ETRecord source operator that one of its compiler operations is
 * associated with (deduplicated).
 */
#include <stdio.h>

#include "report/views/views_model.h"

/* The overlays of the view's row in views.c, in order. */
enum { OV_MAPPING_CHAIN, OV_MAPPING_SOURCE };

const char *vw_mapping_unavailable(const mlia_run_record *s)
{
    return vw_chains_unavailable(s);
}

void vw_mapping_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const nx_result *nx = s->nx;
    const mlia_result *r = s->result;
    const char *metric = vw_chain_metric(nx);
    const char *method = s->method_name ? s->method_name : "forward";
    uint32_t gi = vw_graph_add(c, v, "chain_mapping");
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
                                      c->segment_ns[si], ch->id);
            vw_cycle_attrs(c, &gr->nodes[ni], he);
            vw_overlay_metric(c, v, OV_MAPPING_CHAIN, gi, ch->id, he, metric, "p50");
            for (uint32_t q = 0; q < ch->n_ops; q++) {
                const nx_compiler_op *op = &nx->ops[ch->ops[q]];
                for (uint32_t z = 0; z < op->n_sources; z++) {
                    const char *sid = mlia_arena_printf(c->a, "source_operator/%s/%s", method, op->sources[z]);
                    const mlia_entity *src = mlia_result_find(r, sid);
                    if (!src)
                        continue;
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
                    }
                    vw_node_edge(c, sn, ch->id, "0");
                    v->has_content = true;
                    vw_link(c, ch->id, src->id);
                }
            }
        }
    }
    if (!v->has_content)
        vw_group_attr(c, &v->graphs[gi], "", "note",
                      "No chain is associated with an ETRecord source operator (no association recorded).");
}
