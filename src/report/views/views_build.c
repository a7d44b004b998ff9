/*
 * views_build.c - the builder of the ETDump Backend Trace view (product.md
 * section 8),
 * and what every view builder shares (views_model.h).
 *
 * Each builder reads the session (edge program, runtime analysis, NX result)
 * and the standardized result's entities, and fills one vw_view. Numbers on
 * nodes and overlays always come from the result's entity metrics, so the
 * views show exactly what mlia-output.json says.
 * *
 * A view the capture cannot support stays unavailable with a reason that
 * the manifest and the page show.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/nx_analysis.h"
#include "analysis/runtime.h"
#include "core/json_write.h"
#include "formats/exported_program.h"
#include "report/views/views_model.h"

const char *vw_strip_prefix(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    return s && strncmp(s, prefix, n) == 0 && s[n] ? s + n : s;
}

/* Adds overlay values "<value> <unit>" from an entity metric. */
void vw_overlay_metric(vw_ctx *c, vw_view *v, uint32_t ov, uint32_t graph, const char *key,
                       const mlia_entity *e, const char *metric, const char *stat)
{
    double x;
    const mlia_metric *m;
    if (ov == VW_NONE || !vw_metric(e, metric, stat, &x, &m))
        return;
    const char *attr = mlia_metric_qualifier(m, "attribution");
    const char *text = mlia_arena_printf(c->a, "%s %s%s%s", vw_num(c, x), m->unit ? m->unit : "",
                                         attr ? " " : "", attr ? (strcmp(attr, "shared") == 0 ? "(shared)" : "(exclusive)") : "");
    vw_overlay_value(c, &v->overlays[ov], graph, key, x, text);
}

/* Node attribute "<metric>_<stat>" with the metric's value and unit. */
void vw_attr_metric(vw_ctx *c, vw_node *n, const mlia_entity *e, const char *metric, const char *stat)
{
    double x;
    const mlia_metric *m;
    if (!vw_metric(e, metric, stat, &x, &m))
        return;
    const char *key = stat ? mlia_arena_printf(c->a, "%s_%s", metric, stat) : metric;
    vw_node_attr(c, n, key, mlia_arena_printf(c->a, "%s %s", vw_num(c, x), m->unit ? m->unit : ""));
}

const char *vw_list_text(vw_ctx *c, const char *const *v, uint32_t n, uint32_t cap)
{
    mlia_buf b;
    mlia_buf_init(&b);
    for (uint32_t i = 0; i < n && i < cap; i++) {
        if (i)
            mlia_buf_puts(&b, ", ");
        mlia_buf_puts(&b, v[i] ? v[i] : "");
    }
    if (n > cap)
        mlia_buf_printf(&b, ", ... (%u more)", n - cap);
    const char *r = mlia_arena_strndup(c->a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return r;
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
void vw_nx_namespaces(vw_ctx *c)
{
    const nx_result *nx = c->s->nx;
    if (!nx || c->chain_path)
        return;
    c->segment_ns = mlia_arena_array(c->a, nx->n_segments ? nx->n_segments : 1, sizeof *c->segment_ns);
    c->chain_parent = mlia_arena_array(c->a, nx->n_chains ? nx->n_chains : 1, sizeof *c->chain_parent);
    c->chain_path = mlia_arena_array(c->a, nx->n_chains ? nx->n_chains : 1, sizeof *c->chain_path);
    for (uint32_t i = 0; i < nx->n_segments; i++)
        c->segment_ns[i] = mlia_arena_printf(c->a, "segment_%s", nx->segments[i].token);
    for (uint32_t i = 0; i < nx->n_chains; i++) {
        const nx_chain *ch = &nx->chains[i];
        const char *seg = ch->segment < nx->n_segments ? c->segment_ns[ch->segment] : "segment";
        if (ch->parent_cascade < nx->n_cascades)
            c->chain_parent[i] = mlia_arena_printf(c->a, "%s/cascade_%s", seg,
                                                   vw_strip_prefix(nx->cascades[ch->parent_cascade].raw_id, "cascade_"));
        else
            c->chain_parent[i] = seg;
        c->chain_path[i] = mlia_arena_printf(c->a, "%s/chain_%s", c->chain_parent[i], vw_strip_prefix(ch->raw_id, "chain_"));
    }
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
    const nx_result *nx = c->s->nx;
    static const char *const stats[3] = {"p50", "min", "max"};
    for (int q = 0; q < 3; q++)
        vw_attr_metric(c, n, e, "total_cycles", stats[q]);
    vw_attr_metric(c, n, e, "op_cycles", "p50");
    for (uint32_t k = 0; k < nx->n_counters; k++)
        vw_attr_metric(c, n, e, mlia_arena_printf(c->a, "%s_cycles", nx->counter_labels[k]), "p50");
    vw_attr_metric(c, n, e, "execution_coverage", NULL);
}


/* ------------------------------------------------------------------ */
/* ETDump Backend Trace                                                 */

/* The overlays of the view's row in views.c, in order. */
enum { OV_TRACE_CHAIN_GROUP, OV_TRACE_EVENT, OV_TRACE_CALL };

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
                    const mlia_entity *he = mlia_result_find(r, ch->id);
                    vw_group_attr(c, gr, c->chain_path[chi], "chain", ch->id);
                    double x;
                    if (vw_metric(he, metric, "p50", &x, NULL))
                        vw_group_attr(c, gr, c->chain_path[chi],
                                      mlia_arena_printf(c->a, "%s_p50 (group measurement)", metric), vw_num(c, x));
                    uint32_t hi = vw_summary_node(c, gr, c->chain_path[chi], ch->id,
                                                  mlia_arena_printf(c->a, "Chain %s", vw_strip_prefix(ch->raw_id, "chain_")));
                    vw_cycle_attrs(c, &gr->nodes[hi], he);
                    vw_overlay_metric(c, v, OV_TRACE_CHAIN_GROUP, gi, ch->id, he, metric, "p50");
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
