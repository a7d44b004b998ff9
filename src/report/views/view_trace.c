/*
 * view_trace.c - the "ETDump Backend Trace" view (docs/views.md): graph
 * "compiler_operations" (the NX compiler operations of the shown segments,
 * grouped by their first chain, whose cycles are a group measurement on the
 * chain's summary node) and graph "runtime_events" (delegate calls and the
 * runtime events under them).
 */
#include <stdio.h>

#include "analysis/runtime.h"
#include "report/views/views_model.h"

/* The overlays of the view's row in views.c, in order. */
enum { OV_TRACE_CHAIN_GROUP, OV_TRACE_EVENT, OV_TRACE_CALL, OV_TRACE_CALL_SNR };

/* A delegate call's output SNR is the SNR of an operator output: the colour
 * scale of the source operators' (docs/accuracy.md). */
#define SOURCE_SNR_SCALE "source_operator|output_snr_db:p50"

static bool has_compiler_ops(const nx_result *nx)
{
    for (uint32_t si = 0; nx && si < nx->n_segments; si++)
        if (vw_segment_shown(&nx->segments[si]) && nx->segments[si].n_ops)
            return true;
    return false;
}

static bool has_delegate_calls(const runtime_analysis *ra)
{
    return ra && ra->n_calls;
}

const char *vw_trace_unavailable(const mlia_run_record *s)
{
    if (has_compiler_ops(s->nx) || has_delegate_calls(s->runtime))
        return NULL;
    return "No compiler operations (VGF neural statistics) and no delegate runtime events in the ETDump.";
}

void vw_trace_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const nx_result *nx = s->nx;
    const runtime_analysis *ra = s->runtime;
    const mlia_result *r = s->result;
    const char *method = s->method_name ? s->method_name : "forward";
    v->overlays[OV_TRACE_CALL_SNR].scale_key = SOURCE_SNR_SCALE;
    if (has_compiler_ops(nx)) {
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
                const char *ns = op->n_parents ? c->chain_path[op->parents[0]] : "unmatched";
                if (op->n_parents && !group_done[op->parents[0]]) {
                    /* the chain's cycles: on its summary node inside the group */
                    uint32_t chi = op->parents[0];
                    group_done[chi] = 1;
                    const nx_chain *ch = &nx->chains[chi];
                    vw_measured_group(c, v, gi, c->chain_path[chi], "chain", ch->id, NULL,
                                      mlia_arena_printf(c->a, "Chain %s", vw_strip_prefix(ch->raw_id, "chain_")),
                                      OV_TRACE_CHAIN_GROUP, metric);
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
    if (has_delegate_calls(ra)) {
        uint32_t gi = vw_graph_add(c, v, "runtime_events");
        for (uint32_t i = 0; i < ra->n_calls; i++) {
            const runtime_delegate_call *call = &ra->calls[i];
            vw_graph *gr = &v->graphs[gi];
            const mlia_entity *ce = mlia_result_find(r, call->entity_id);
            uint32_t ni = vw_node_add(c, gr, call->entity_id, "DELEGATE_CALL", "", call->entity_id);
            vw_node *n = &gr->nodes[ni];
            vw_node_attr(c, n, "backend", call->backend ? call->backend : "");
            vw_node_attrf(c, n, "chain", "%lld", (long long)call->chain);
            vw_node_attrf(c, n, "instruction", "%lld", (long long)call->instruction);
            vw_attr_metric(c, n, ce, "execution_time", "p50");
            vw_attr_metric(c, n, ce, "unattributed_time", "p50");
            vw_overlay_metric(c, v, OV_TRACE_CALL, gi, call->entity_id, ce, "execution_time", "p50");
            vw_overlay_metric(c, v, OV_TRACE_CALL_SNR, gi, call->entity_id, ce, "output_snr_db", "p50");
            for (uint32_t k = 0; k < call->n_events; k++) {
                const runtime_event_node *ev = &call->events[k];
                const mlia_entity *ee = mlia_result_find(r, ev->entity_id);
                uint32_t ei = vw_node_add(c, gr, ev->entity_id, ev->name, "", ev->entity_id);
                n = &gr->nodes[ei];
                vw_node_attr(c, n, "event", ev->name);
                vw_attr_metric(c, n, ee, "execution_time", "p50");
                vw_attr_metric(c, n, ee, "execution_time", "min");
                vw_attr_metric(c, n, ee, "execution_time", "max");
                vw_attr_metric(c, n, ee, "unattributed_time", "p50");
                vw_attr_metric(c, n, ee, "execution_coverage", NULL);
                vw_node_edge(c, n, ev->parent_id ? ev->parent_id : call->entity_id, "0");
                vw_overlay_metric(c, v, OV_TRACE_EVENT, gi, ev->entity_id, ee, "execution_time", "p50");
            }
        }
    }
}
