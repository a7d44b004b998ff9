/*
 * views_build.c - builders of four views: Source Model, segment_cascade_chain,
 * ETRecord Chain Mapping and ETDump Backend Trace (product.md section 8).
 *
 * Each builder reads the session (edge program, runtime analysis, NX result)
 * and the standardized result's entities, and fills one vw_view. Numbers on
 * nodes and overlays always come from the result's entity metrics, so the
 * views show exactly what mlia-output.json says.
 *
 * Edges of the Source Model come from tensor flow: a hashed index maps every
 * produced name (graph inputs and node outputs) to its producer, so the
 * graph is built in one pass over the nodes' arguments (no nodes x edges
 * loop; a 5,000-node graph is linear work).
 *
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
/* Source Model                                                         */

typedef struct producer {
    const char *node;
    const char *output;
} producer;

/* Namespace from the innermost nn_module path: "features.conv1" -> "features/conv1". */
static const char *module_namespace(vw_ctx *c, const ep_node *nd)
{
    for (uint32_t j = nd->n_modules; j-- > 0;) {
        const char *p = nd->modules[j].path;
        if (!p || !*p)
            continue;
        char *ns = mlia_arena_strdup(c->a, p);
        for (char *q = ns; *q; q++)
            if (*q == '.')
                *q = '/';
        while (*ns == '/')
            ns++;
        size_t n = strlen(ns);
        while (n && ns[n - 1] == '/')
            ns[--n] = 0;
        return ns;
    }
    return "";
}

static void shape_text(mlia_buf *b, const ep_tensor_meta *tm, bool compact)
{
    mlia_buf_putc(b, '[');
    for (uint32_t d = 0; d < tm->rank; d++) {
        if (d)
            mlia_buf_puts(b, compact ? "," : ", ");
        if (tm->size_exprs && tm->size_exprs[d])
            mlia_buf_puts(b, tm->size_exprs[d]);
        else
            mlia_buf_printf(b, "%lld", (long long)tm->sizes[d]);
    }
    mlia_buf_putc(b, ']');
}

/* Output shapes/dtypes attributes and outputsMetadata of a node. */
static void tensor_outputs(vw_ctx *c, const ep_graph *g, vw_node *n, const char *const *names, uint32_t n_names)
{
    mlia_buf shapes, dtypes;
    mlia_buf_init(&shapes);
    mlia_buf_init(&dtypes);
    for (uint32_t j = 0; j < n_names; j++) {
        const ep_tensor_meta *tm = ep_tensor(g, names[j]);
        const char *oid = mlia_arena_printf(c->a, "%u", j);
        if (!tm) {
            vw_node_output(c, n, oid, "tensor_name", names[j]);
            continue;
        }
        mlia_buf meta;
        mlia_buf_init(&meta);
        mlia_buf_puts(&meta, ep_dtype_name(tm->dtype));
        shape_text(&meta, tm, true);
        vw_node_output(c, n, oid, "tensor_shape", mlia_arena_strndup(c->a, meta.data, meta.len));
        mlia_buf_free(&meta);
        if (shapes.len) {
            mlia_buf_puts(&shapes, "; ");
            mlia_buf_puts(&dtypes, "; ");
        }
        shape_text(&shapes, tm, false);
        mlia_buf_puts(&dtypes, ep_dtype_name(tm->dtype));
    }
    if (shapes.len) {
        vw_node_attr(c, n, "shape", mlia_arena_strndup(c->a, shapes.data, shapes.len));
        vw_node_attr(c, n, "dtype", mlia_arena_strndup(c->a, dtypes.data, dtypes.len));
    }
    mlia_buf_free(&shapes);
    mlia_buf_free(&dtypes);
}

/* The overlays of the view's row in views.c, in order. */
enum { OV_SOURCE_P50, OV_SOURCE_MIN, OV_SOURCE_MAX, OV_SOURCE_KERNEL };

const char *vw_source_unavailable(const mlia_run_record *s)
{
    return s->program ? NULL : "The ETRecord holds no edge program for the selected method.";
}

void vw_source_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const ep_graph *g = &s->program->graph;
    const runtime_analysis *ra = s->runtime;
    const char *method = s->method_name ? s->method_name : "forward";
    uint32_t gi = vw_graph_add(c, v, method);
    vw_graph *gr = &v->graphs[gi];

    /* producers of every name: graph inputs, then node outputs */
    uint32_t n_prod = g->n_inputs;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        n_prod += g->nodes[i].n_outputs;
    producer *prod = mlia_arena_array(c->a, n_prod ? n_prod : 1, sizeof *prod);
    uint32_t np = 0;
    vw_map pmap;
    vw_map_init(&pmap, c->a, n_prod);
    vw_map specs;
    vw_map_init(&specs, c->a, s->program->n_input_specs);
    for (uint32_t k = 0; k < s->program->n_input_specs; k++)
        if (s->program->input_specs[k].arg_name)
            vw_map_put(&specs, c->a, s->program->input_specs[k].arg_name, k);

    for (uint32_t k = 0; k < g->n_inputs; k++) {
        const char *name = g->inputs[k] ? g->inputs[k] : "";
        uint32_t ni = vw_node_add(c, gr, mlia_arena_printf(c->a, "input/%s", name), name, "", NULL);
        vw_node *n = &gr->nodes[ni];
        uint32_t sp = vw_map_get(&specs, name);
        vw_node_attr(c, n, "kind", sp != VW_NONE ? s->program->input_specs[sp].kind : "input");
        if (sp != VW_NONE && s->program->input_specs[sp].target)
            vw_node_attr(c, n, "target", s->program->input_specs[sp].target);
        tensor_outputs(c, g, n, &g->inputs[k], 1);
        prod[np] = (producer){n->id, "0"};
        vw_map_put(&pmap, c->a, name, np++);
    }

    uint32_t *node_index = mlia_arena_array(c->a, g->n_nodes ? g->n_nodes : 1, sizeof *node_index);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ep_node *nd = &g->nodes[i];
        const char *name = nd->name ? nd->name : "";
        mlia_entity *ent = ra && i < ra->n_nodes ? ra->node_entities[i] : NULL;
        if (!ent)
            ent = mlia_result_find(s->result, mlia_arena_printf(c->a, "source_operator/%s/%s", method, name));
        const char *id = ent ? ent->id : mlia_arena_printf(c->a, "source_operator/%s/%s", method, name);
        const char *label = ent ? ent->name : ep_target_short(nd->target ? nd->target : "");
        const char *ns = module_namespace(c, nd);
        uint32_t ni = vw_node_add(c, gr, id, label, ns, id);
        node_index[i] = ni;
        vw_node *n = &gr->nodes[ni];
        vw_node_attr(c, n, "node_name", name);
        vw_node_attr(c, n, "target", nd->target ? nd->target : "");
        if (nd->debug_handle)
            vw_node_attrf(c, n, "debug_handle", "%lld", (long long)nd->debug_handle);
        tensor_outputs(c, g, n, nd->outputs, nd->n_outputs);
        if (*ns)
            vw_node_attr(c, n, "nn_module", ns);
        if (nd->delegate_backend)
            vw_node_attr(c, n, "delegate_backend", nd->delegate_backend);
        if (ent) {
            const mlia_attr *at = mlia_entity_attr(ent, "attribution");
            if (at && at->type == MLIA_ATTR_STRING)
                vw_node_attr(c, n, "attribution", at->s);
            at = mlia_entity_attr(ent, "shared_with");
            if (at && at->type == MLIA_ATTR_STRING_LIST && at->n)
                vw_node_attr(c, n, "shared_with", vw_list_text(c, at->list_s, at->n, 8));
            at = mlia_entity_attr(ent, "delegate_call");
            if (at && at->type == MLIA_ATTR_STRING)
                vw_node_attr(c, n, "delegate_call", at->s);
            static const char *const stats[3] = {"p50", "min", "max"};
            for (int q = 0; q < 3; q++)
                vw_attr_metric(c, n, ent, "execution_time", stats[q]);
            vw_attr_metric(c, n, ent, "kernel_time", "p50");
            vw_attr_metric(c, n, ent, "unattributed_time", "p50");
            vw_attr_metric(c, n, ent, "execution_coverage", NULL);
            if (!mlia_entity_metric(ent, "execution_time", NULL))
                vw_node_attr(c, n, "execution_time", "not measured");
        }
        if (nd->stack_trace)
            vw_node_attr(c, n, "stack_trace", nd->stack_trace);
        vw_overlay_metric(c, v, OV_SOURCE_P50, gi, id, ent, "execution_time", "p50");
        vw_overlay_metric(c, v, OV_SOURCE_MIN, gi, id, ent, "execution_time", "min");
        vw_overlay_metric(c, v, OV_SOURCE_MAX, gi, id, ent, "execution_time", "max");
        vw_overlay_metric(c, v, OV_SOURCE_KERNEL, gi, id, ent, "kernel_time", "p50");
        for (uint32_t j = 0; j < nd->n_outputs; j++) {
            if (!nd->outputs[j])
                continue;
            prod[np] = (producer){n->id, mlia_arena_printf(c->a, "%u", j)};
            /* the first producer of a name wins (names are unique in a valid graph) */
            vw_map_put(&pmap, c->a, nd->outputs[j], np++);
        }
    }
    /* tensor-flow edges, one per referenced tensor in argument order */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ep_node *nd = &g->nodes[i];
        vw_node *n = &gr->nodes[node_index[i]];
        for (uint32_t a = 0; a < nd->n_inputs; a++)
            for (uint32_t t = 0; t < nd->inputs[a].n_tensors; t++) {
                const char *tn = nd->inputs[a].tensors[t];
                uint32_t p = tn ? vw_map_get(&pmap, tn) : VW_NONE;
                if (p != VW_NONE && strcmp(prod[p].node, n->id) != 0)
                    vw_node_edge(c, n, prod[p].node, prod[p].output);
            }
    }
    for (uint32_t k = 0; k < g->n_outputs; k++) {
        const char *name = g->outputs[k] ? g->outputs[k] : "";
        uint32_t ni = vw_node_add(c, gr, mlia_arena_printf(c->a, "output/%s", name), name, "", NULL);
        vw_node *n = &gr->nodes[ni];
        vw_node_attr(c, n, "kind", k < s->program->n_output_specs ? s->program->output_specs[k].kind : "output");
        uint32_t p = vw_map_get(&pmap, name);
        if (p != VW_NONE)
            vw_node_edge(c, n, prod[p].node, prod[p].output);
    }
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

static const char *safe_id(vw_ctx *c, const char *s)
{
    char *r = mlia_arena_strdup(c->a, s);
    for (char *p = r; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '-'))
            *p = '_';
    return r;
}

/* ------------------------------------------------------------------ */
/* segment_cascade_chain                                                */

#define VW_MAX_STRIPE_NODES 64

/* The overlays of the view's row in views.c, in order; one per counter follows. */
enum { OV_CHAINS_CHAIN, OV_CHAINS_STRIPE, OV_CHAINS_CASCADE, OV_CHAINS_SEGMENT, OV_CHAINS_COUNTER0 };

const char *vw_chains_unavailable(const mlia_run_record *s)
{
    return vw_nx_measured(s->nx) ? NULL : vw_nx_reason(s->nx);
}

void vw_chains_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const nx_result *nx = s->nx;
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
        const mlia_entity *se = mlia_result_find(r, seg->id);
        vw_group_attr(c, gr, c->segment_ns[si], "segment", seg->id);
        vw_group_attr(c, gr, c->segment_ns[si], "name", seg->display_name);
        double x;
        if (vw_metric(se, metric, "p50", &x, NULL))
            vw_group_attr(c, gr, c->segment_ns[si], mlia_arena_printf(c->a, "%s_p50 (group measurement)", metric),
                          vw_num(c, x));
        /* the group measurement lives on the segment's summary node */
        uint32_t sni = vw_summary_node(c, gr, c->segment_ns[si], seg->id,
                                       mlia_arena_printf(c->a, "Segment %s", seg->token));
        vw_cycle_attrs(c, &gr->nodes[sni], se);
        vw_overlay_metric(c, v, OV_CHAINS_SEGMENT, gi, seg->id, se, metric, "p50");
        for (uint32_t k = 0; k < seg->n_cascades; k++) {
            const nx_cascade *ca = &nx->cascades[seg->first_cascade + k];
            const char *cx = vw_strip_prefix(ca->raw_id, "cascade_");
            const char *cns = mlia_arena_printf(c->a, "%s/cascade_%s", c->segment_ns[si], cx);
            const mlia_entity *ce = mlia_result_find(r, ca->id);
            vw_group_attr(c, gr, cns, "cascade", ca->id);
            vw_group_attr(c, gr, cns, "name", ca->name);
            if (vw_metric(ce, metric, "p50", &x, NULL))
                vw_group_attr(c, gr, cns, mlia_arena_printf(c->a, "%s_p50 (group measurement)", metric), vw_num(c, x));
            gr = &v->graphs[gi];
            uint32_t cni = vw_summary_node(c, gr, cns, ca->id, mlia_arena_printf(c->a, "Cascade %s", cx));
            vw_cycle_attrs(c, &gr->nodes[cni], ce);
            vw_overlay_metric(c, v, OV_CHAINS_CASCADE, gi, ca->id, ce, metric, "p50");
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
                                      own_group ? c->chain_path[chi] : c->chain_parent[chi], ch->id);
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
                        mlia_buf_puts(&vals, ", ");
                    }
                    mlia_buf_printf(&ids, "%u", st->stripe);
                    double sv;
                    if (vw_metric(mlia_result_find(r, st->id), metric, "p50", &sv, NULL))
                        mlia_buf_puts(&vals, vw_num(c, sv));
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
            vw_cycle_attrs(c, n, he);
            if (prev)
                vw_node_edge(c, n, prev, "0");
            prev = n->id;
            vw_overlay_metric(c, v, OV_CHAINS_CHAIN, gi, ch->id, he, metric, "p50");
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
                const mlia_entity *te = mlia_result_find(r, st->id);
                uint32_t ti = vw_node_add(c, gr, st->id, st->name, c->chain_path[chi], st->id);
                n = &gr->nodes[ti];
                vw_node_attrf(c, n, "stripe", "%u", st->stripe);
                vw_cycle_attrs(c, n, te);
                if (sprev)
                    vw_node_edge(c, n, sprev, "0");
                sprev = n->id;
                vw_overlay_metric(c, v, OV_CHAINS_STRIPE, gi, st->id, te, metric, "p50");
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* ETRecord Chain Mapping                                               */

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
