/*
 * views_nx.c - what the VGF backend's views share: the backend's state in
 * the run record, the NX namespaces, cycle attributes and measured groups,
 * and its rows of the shared "ETDump Backend Trace" view. Its rows of the
 * view table are in views_rows.c (apart, so that the builders calling these
 * helpers are not called back through the table: no circle of files).
 */
#include <stdio.h>
#include <string.h>

#include "backends/vgf/report/views_nx.h"

const vgf_state *vgf_state_of(const mlia_run_record *s)
{
    const mlia_backend_run *b = mlia_run_backend(s, "vgf");
    return b ? b->state : NULL;
}

const nx_result *vgf_nx_of(const mlia_run_record *s)
{
    const vgf_state *st = vgf_state_of(s);
    return st ? st->nx : NULL;
}

static void vw_nx_namespaces(vw_ctx *c, vgf_views_ns *ns);

const vgf_views_ns *vgf_views_ns_of(vw_ctx *c)
{
    void **slot = vw_backend_scratch(c, "vgf");
    if (!*slot) {
        vgf_views_ns *ns = mlia_arena_alloc(c->a, sizeof *ns);
        memset(ns, 0, sizeof *ns);
        vw_nx_namespaces(c, ns);
        *slot = ns;
    }
    return *slot;
}

/* ------------------------------------------------------------------ */
/* NX namespaces                                                        */

bool vw_nx_measured(const nx_result *nx)
{
    if (!nx)
        return false;
    for (uint32_t i = 0; i < nx->n_segments; i++)
        if (nx->segments[i].is_graph && nx->segments[i].analysed && nx->segments[i].n_chains)
            return true;
    return false;
}

const char *vw_nx_reason(const nx_result *nx)
{
    if (!nx || !nx->any_record)
        return "No VGF neural statistics in the ETDump.";
    return "The VGF neural statistics in the ETDump hold no measured chain.";
}

bool vw_segment_shown(const nx_segment *seg)
{
    return seg->is_graph && seg->analysed;
}

/* Computes the namespace strings of every segment and chain once. */
static void vw_nx_namespaces(vw_ctx *c, vgf_views_ns *ns)
{
    const nx_result *nx = vgf_nx_of(c->s);
    if (!nx)
        return;
    ns->segment_ns = mlia_arena_array(c->a, nx->n_segments ? nx->n_segments : 1, sizeof *ns->segment_ns);
    ns->chain_parent = mlia_arena_array(c->a, nx->n_chains ? nx->n_chains : 1, sizeof *ns->chain_parent);
    ns->chain_path = mlia_arena_array(c->a, nx->n_chains ? nx->n_chains : 1, sizeof *ns->chain_path);
    for (uint32_t i = 0; i < nx->n_segments; i++)
        ns->segment_ns[i] = mlia_arena_printf(c->a, "segment_%s", nx->segments[i].token);
    for (uint32_t i = 0; i < nx->n_chains; i++) {
        const nx_chain *ch = &nx->chains[i];
        const char *seg = ch->segment < nx->n_segments ? ns->segment_ns[ch->segment] : "segment";
        if (ch->parent_cascade < nx->n_cascades)
            ns->chain_parent[i] = mlia_arena_printf(c->a, "%s/cascade_%s", seg,
                                                   vw_strip_prefix(nx->cascades[ch->parent_cascade].raw_id, "cascade_"));
        else
            ns->chain_parent[i] = seg;
        ns->chain_path[i] = mlia_arena_printf(c->a, "%s/chain_%s", ns->chain_parent[i], vw_strip_prefix(ch->raw_id, "chain_"));
    }
}

void vw_measured_group(vw_ctx *c, vw_view *v, uint32_t gi, const char *ns, const char *kind, const char *id,
                       const char *name, const char *label, uint32_t ov, const char *metric)
{
    vw_graph *gr = &v->graphs[gi];
    const mlia_entity *e = mlia_result_find(c->s->result, id);
    vw_group_attr(c, gr, ns, kind, id);
    if (name)
        vw_group_attr(c, gr, ns, "name", name);
    double x;
    if (vw_metric(e, metric, "p50", &x, NULL))
        vw_group_attr(c, gr, ns, mlia_arena_printf(c->a, "%s_p50 (group measurement)", metric),
                      vw_num(c, x, "cycles"));
    uint32_t si = vw_summary_node(c, gr, ns, id, label);
    vw_cycle_attrs(c, &gr->nodes[si], e);
    vw_overlay_metric(c, v, ov, gi, id, e, metric, "p50");
}

const char *vw_chain_metric(const nx_result *nx)
{
    for (uint32_t i = 0; nx && i < nx->n_chains; i++)
        if (nx->chains[i].m.total.available)
            return "total_cycles";
    return nx ? "op_cycles" : "total_cycles";
}

void vw_cycle_attrs(vw_ctx *c, vw_node *n, const mlia_entity *e)
{
    const nx_result *nx = vgf_nx_of(c->s);
    static const char *const stats[3] = {"p50", "min", "max"};
    for (int q = 0; q < 3; q++)
        vw_attr_metric(c, n, e, "total_cycles", stats[q]);
    vw_attr_metric(c, n, e, "op_cycles", "p50");
    for (uint32_t k = 0; nx && k < nx->n_counters; k++)
        vw_attr_metric(c, n, e, mlia_arena_printf(c->a, "%s_cycles", nx->counter_labels[k]), "p50");
    vw_attr_metric(c, n, e, "execution_coverage", NULL);
}

static bool has_compiler_ops(const nx_result *nx)
{
    for (uint32_t si = 0; nx && si < nx->n_segments; si++)
        if (vw_segment_shown(&nx->segments[si]) && nx->segments[si].n_ops)
            return true;
    return false;
}

bool vgf_trace_view_has_rows(const void *state)
{
    const vgf_state *st = state;
    return has_compiler_ops(st ? st->nx : NULL);
}

const char *vgf_view_metric(const void *state)
{
    const vgf_state *st = state;
    return vw_chain_metric(st ? st->nx : NULL);
}

void vgf_trace_view_rows(vw_ctx *c, vw_view *v, const void *state, uint32_t group_overlay)
{
    const vgf_state *st = state;
    const nx_result *nx = st ? st->nx : NULL;
    if (!has_compiler_ops(nx))
        return;
    const vgf_views_ns *vns = vgf_views_ns_of(c);
    const mlia_result *r = c->s->result;
    const char *method = c->s->method_name ? c->s->method_name : "forward";
    const char *metric = vw_chain_metric(nx);
    uint32_t gi = vw_graph_add(c, v, "compiler_operations");
    uint8_t *group_done = mlia_arena_array(c->a, nx->n_chains ? nx->n_chains : 1, 1);
    for (uint32_t si = 0; si < nx->n_segments; si++) {
        const nx_segment *seg = &nx->segments[si];
        if (!vw_segment_shown(seg))
            continue;
        for (uint32_t k = 0; k < seg->n_ops; k++) {
            const nx_compiler_op *op = &nx->ops[seg->first_op + k];
            vw_graph *gr = &v->graphs[gi];
            const char *ns = op->n_parents ? vns->chain_path[op->parents[0]] : "unmatched";
            if (op->n_parents && !group_done[op->parents[0]]) {
                /* the chain's cycles: on its summary node inside the group */
                uint32_t chi = op->parents[0];
                group_done[chi] = 1;
                const nx_chain *ch = &nx->chains[chi];
                vw_measured_group(c, v, gi, vns->chain_path[chi], "chain", ch->id, NULL,
                                  mlia_arena_printf(c->a, "Chain %s", vw_strip_prefix(ch->raw_id, "chain_")),
                                  group_overlay, metric);
            }
            uint32_t ni = vw_node_add(c, gr, op->id, op->name, ns, op->id);
            vw_node *n = &gr->nodes[ni];
            if (!op->n_parents) {
                n->style_bg = VW_STYLE_UNMATCHED_BG;
                n->style_border = VW_STYLE_UNMATCHED_BORDER;
            }
            vw_node_attr(c, n, "tosa_id", op->tosa_id);
            vw_node_attr(c, n, "operator_types", vw_list_text(c, op->types, op->n_types, 16));
            if (op->has_spirv_id)
                vw_node_attr(c, n, "spirv_id", op->spirv_id);
            if (op->operator_name)
                vw_node_attr(c, n, "operator_name", op->operator_name);
            if (op->display_label && *op->display_label)
                vw_node_attr(c, n, "display_label", op->display_label);
            vw_node_attr(c, n, "api_labels", vw_list_text(c, op->labels, op->n_labels, 8));
            const char **chains = mlia_arena_array(c->a, op->n_parents ? op->n_parents : 1, sizeof *chains);
            for (uint32_t q = 0; q < op->n_parents; q++) {
                chains[q] = nx->chains[op->parents[q]].id;
                vw_link(c, op->id, chains[q]);
            }
            vw_node_attr(c, n, "chains", op->n_parents ? vw_list_text(c, chains, op->n_parents, 16)
                                                       : "no chain measured");
            vw_node_attr(c, n, "source_operators", op->n_sources ? vw_list_text(c, op->sources, op->n_sources, 16)
                                                                 : "no association recorded");
            for (uint32_t q = 0; q < op->n_sources; q++) {
                const char *sid = mlia_arena_printf(c->a, "source_operator/%s/%s", method, op->sources[q]);
                if (mlia_result_find(r, sid))
                    vw_link(c, op->id, sid);
            }
        }
    }
}
