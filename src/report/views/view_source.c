/*
 * view_source.c - the "Source Model" view (docs/views.md): the edge
 * program of the selected method, one node per graph input, operator and
 * graph output, with the runtime measurements of each operator.
 *
 * Edges come from tensor flow: a hashed index maps every produced name
 * (graph inputs and node outputs) to its producer, so the graph is built in
 * one pass over the nodes' arguments (no nodes x edges loop; a 5,000-node
 * graph is linear work). Numbers on nodes and overlays come from the
 * result's entity metrics, so the view shows what mlia-output.json says.
 */
#include <stdio.h>
#include <string.h>

#include "analysis/accuracy.h"
#include "analysis/runtime.h"
#include "formats/exported_program.h"
#include "report/views/views_model.h"

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
        const char *oid = vw_index_text(c, j);
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
enum { OV_SOURCE_P50, OV_SOURCE_MIN, OV_SOURCE_MAX, OV_SOURCE_KERNEL, OV_SOURCE_SNR, OV_SOURCE_ERR, OV_SOURCE_MEMORY };

/* Output statistics and error metrics of an operator (docs/accuracy.md):
 * P50 attributes, an unavailable SNR with its reason (the infinite SNR of
 * identical outputs is never a number). Nothing without intermediate outputs. */
static void accuracy_attrs(vw_ctx *c, vw_node *n, const mlia_entity *e)
{
    static const char *const names[] = {"output_min", "output_max", "output_mean", "output_mse",
                                        "output_max_abs_error", "output_snr_db", "output_cosine_similarity",
                                        "output_l1_error"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const mlia_metric *m = mlia_entity_metric(e, names[i], "p50");
        if (!m)
            continue;
        const char *key = mlia_arena_printf(c->a, "%s_p50", names[i]);
        if (m->type == MLIA_VALUE_UNAVAILABLE)
            vw_node_attrf(c, n, key, "unavailable: %s", m->reason ? m->reason : "");
        else
            vw_attr_metric(c, n, e, names[i], "p50");
    }
    const mlia_metric *m = mlia_entity_metric(e, "output_nan_count", "max");
    if (m && m->type == MLIA_VALUE_UINT)
        vw_node_attrf(c, n, "output_nan_count_max", "%llu", (unsigned long long)m->u);
}

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
    vw_graph_reserve(c, gr, g->n_inputs + g->n_nodes + g->n_outputs);
    /* the timing overlays get a value per measured operator, the accuracy
     * ones only with compared outputs */
    for (uint32_t k = OV_SOURCE_P50; ra && k <= OV_SOURCE_KERNEL && k < v->n_overlays; k++)
        vw_overlay_reserve(c, &v->overlays[k], g->n_nodes);
    if (s->accuracy && s->accuracy->n_compared) {
        vw_strs_add(&v->columns, c->a, "output_snr_db");
        vw_strs_add(&v->columns, c->a, "output_max_abs_error");
        vw_strs_add(&v->columns, c->a, "output_l1_error");
    }
    /* NaN / infinite elements of an output, worst execution (issue 29, 3) */
    if (s->accuracy && s->accuracy->n_measured)
        vw_strs_add(&v->columns, c->a, "output_nan_count:max");

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
        vw_node_reserve_attrs(c, n, ent ? 16 : 8);
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
            const mlia_attr *at = mlia_entity_attr(ent, "display_name");
            if (at && at->type == MLIA_ATTR_STRING)
                vw_node_attr(c, n, "display_name", at->s);
            at = mlia_entity_attr(ent, "attribution");
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
            accuracy_attrs(c, n, ent);
        }
        if (nd->stack_trace)
            vw_node_attr(c, n, "stack_trace", nd->stack_trace);
        vw_overlay_metric(c, v, OV_SOURCE_P50, gi, id, ent, "execution_time", "p50");
        vw_overlay_metric(c, v, OV_SOURCE_MIN, gi, id, ent, "execution_time", "min");
        vw_overlay_metric(c, v, OV_SOURCE_MAX, gi, id, ent, "execution_time", "max");
        vw_overlay_metric(c, v, OV_SOURCE_KERNEL, gi, id, ent, "kernel_time", "p50");
        vw_overlay_metric(c, v, OV_SOURCE_SNR, gi, id, ent, "output_snr_db", "p50");
        vw_overlay_metric(c, v, OV_SOURCE_ERR, gi, id, ent, "output_max_abs_error", "p50");
        vw_overlay_metric(c, v, OV_SOURCE_MEMORY, gi, id, ent, "live_bytes", "max"); /* docs/memory.md */
        for (uint32_t j = 0; j < nd->n_outputs; j++) {
            if (!nd->outputs[j])
                continue;
            prod[np] = (producer){n->id, vw_index_text(c, j)};
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
