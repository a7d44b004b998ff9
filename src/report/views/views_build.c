/*
 * views_build.c - what the view builders (view_*.c) share: metric
 * attributes and overlay values, list text, and the NX helpers (which
 * segments are shown, why the NX views are unavailable, the namespaces of
 * segments and chains, the chain metric).
 *
 * Numbers on nodes and overlays always come from the result's entity
 * metrics, so the views show exactly what mlia-output.json says.
 */
#include <stdio.h>
#include <string.h>

#include "report/result/headline.h"
#include "report/format.h"
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
    char text[MLIA_FMT_CAP + 96];
    mlia_fmt_quantity(text, sizeof text - 16, x, m->unit);
    if (attr)
        strcat(text, strcmp(attr, "shared") == 0 ? " (shared)" : " (exclusive)");
    vw_overlay_value(c, &v->overlays[ov], graph, key, x, mlia_arena_strdup(c->a, text));
}

/* Node attribute "<metric>_<stat>" with the metric's value and unit. */
void vw_attr_metric(vw_ctx *c, vw_node *n, const mlia_entity *e, const char *metric, const char *stat)
{
    double x;
    const mlia_metric *m;
    if (!vw_metric(e, metric, stat, &x, &m))
        return;
    vw_node_attr(c, n, stat ? vw_key(c, metric, stat) : metric, vw_qty(c, x, m->unit));
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

bool vw_cpu_only(const mlia_run_record *s)
{
    mlia_headline h;
    mlia_headline_compute(s->result, &h);
    return h.cpu_only;
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
    const nx_result *nx = c->s->nx;
    static const char *const stats[3] = {"p50", "min", "max"};
    for (int q = 0; q < 3; q++)
        vw_attr_metric(c, n, e, "total_cycles", stats[q]);
    vw_attr_metric(c, n, e, "op_cycles", "p50");
    for (uint32_t k = 0; k < nx->n_counters; k++)
        vw_attr_metric(c, n, e, mlia_arena_printf(c->a, "%s_cycles", nx->counter_labels[k]), "p50");
    vw_attr_metric(c, n, e, "execution_coverage", NULL);
}
