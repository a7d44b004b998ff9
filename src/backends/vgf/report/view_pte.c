/*
 * view_pte.c - the "PTE - VGF Backend Hierarchy" view (docs/views.md).
 *
 * Only with a companion PTE whose VgfBackend delegate decoded as a VGF.
 * Graph "plan": the selected method's execution plan (one node per
 * instruction, chained in order; the VgfBackend DELEGATE_CALL carries the
 * delegate_call entity id) followed by the VGF segments it runs (sequence
 * order, compute segments marked as not estimated).
 * Graph "segment_<i>" per GRAPH segment with decoded SPIR-V: the TOSA
 * operator graph: graph inputs, one node per operation keyed by
 * (segment, SPIR-V result id) as compiler_operation/segment_<i>/spirv-<id>,
 * graph outputs; dataflow edges from op-result and graph-input operands;
 * constant operands as attributes (values truncated to 16). Operations are
 * placed in the namespace of the chain their compiler operation belongs to
 * when the debug database associates them, else in "segment_<i>"; chain
 * cycles are group measurements on those namespaces.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/pte.h"
#include "backends/vgf/report/views_nx.h"

#define VW_MAX_CONST_VALUES 16

static const pte_plan *plan_of(const mlia_run_record *s)
{
    const pte_program *p = s->companion;
    for (uint32_t i = 0; i < p->n_plans; i++)
        if (s->method_name && mlia_str_eq(p->plans[i].name, s->method_name))
            return &p->plans[i];
    return p->n_plans ? &p->plans[0] : NULL;
}

static const char *str_of(vw_ctx *c, mlia_str s)
{
    return s.ptr ? mlia_arena_strndup(c->a, s.ptr, s.len) : "";
}

/* Parses "<anything>/segment_<L>/spirv-<N>" into L (text) and N. */
static bool parse_vgf_id(const char *id, const char **seg, size_t *seg_len, uint32_t *n)
{
    const char *p = strstr(id, "/segment_");
    const char *q = strstr(id, "/spirv-");
    if (!p || !q || q < p)
        return false;
    *seg = p + 9;
    *seg_len = (size_t)(q - *seg);
    char *end;
    unsigned long v = strtoul(q + 7, &end, 10);
    if (*end || end == q + 7 || v > UINT32_MAX)
        return false;
    *n = (uint32_t)v;
    return true;
}

static const char *const_text(vw_ctx *c, const vgf_operand *o)
{
    mlia_buf b;
    mlia_buf_init(&b);
    if (o->ref.cls == SPV_VALUE_GRAPH_CONSTANT) {
        mlia_buf_printf(&b, "graph constant %u", o->ref.index);
        if (o->resource >= 0)
            mlia_buf_printf(&b, " (mrt %lld)", (long long)o->resource);
    } else if (o->has_value) {
        const spv_const *k = &o->value;
        bool list = k->count != 1;
        if (list)
            mlia_buf_putc(&b, '[');
        for (uint64_t i = 0; i < k->n_values && i < VW_MAX_CONST_VALUES; i++) {
            if (i)
                mlia_buf_puts(&b, ", ");
            spv_value_text(k, i, &b);
        }
        if (k->count > VW_MAX_CONST_VALUES || k->truncated)
            mlia_buf_printf(&b, ", ... (%llu values)", (unsigned long long)k->count);
        if (list)
            mlia_buf_putc(&b, ']');
    } else {
        mlia_buf_printf(&b, "%s constant %%%u", o->const_kind ? o->const_kind : "module", o->ref.id);
    }
    if (o->type_text)
        mlia_buf_printf(&b, " : %s", o->type_text);
    const char *r = mlia_arena_strndup(c->a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return r;
}

/* The overlays of the view's row (views_nx.c), in order. */
enum { OV_PTE_CHAIN_GROUP };

const char *vw_pte_unavailable(const mlia_run_record *s)
{
    if (!s->has_companion || !s->companion)
        return "No companion PTE was given.";
    if (!vgf_state_of(s) || !vgf_state_of(s)->vgf)
        return "The companion PTE has no VgfBackend delegate.";
    return NULL;
}

void vw_pte_build(vw_ctx *c, vw_view *v)
{
    const mlia_run_record *s = c->s;
    const pte_plan *plan = plan_of(s);
    const vgf_file *f = vgf_state_of(s)->vgf;
    const nx_result *nx = vgf_nx_of(s);
    const vgf_views_ns *vns = vgf_views_ns_of(c);
    const mlia_result *r = s->result;
    const char *method = s->method_name ? s->method_name : "forward";

    /* ---- graph "plan" ---- */
    uint32_t gp = vw_graph_add(c, v, "plan");
    const char *prev = NULL;
    vw_strs delegate_nodes = {0, 0, NULL};
    if (plan)
        for (uint32_t ci = 0; ci < plan->n_chains; ci++) {
            const pte_chain *ch = &plan->chains[ci];
            const char *ns = mlia_arena_printf(c->a, "plan/chain_%u", ci);
            for (uint32_t ii = 0; ii < ch->n_instructions; ii++) {
                const pte_instruction *in = &ch->instructions[ii];
                vw_graph *g = &v->graphs[gp];
                const char *kind = pte_instr_kind_name(in->kind);
                const char *id, *label, *entity = NULL;
                bool is_vgf = false;
                if (in->kind == PTE_INSTR_DELEGATE) {
                    id = mlia_arena_printf(c->a, "delegate_call/%s/%u/%u", method, ci, ii);
                    label = "DELEGATE_CALL";
                    if (mlia_result_find(r, id))
                        entity = id;
                    is_vgf = in->delegate_index >= 0 && (uint32_t)in->delegate_index == vgf_state_of(s)->delegate_index;
                } else {
                    id = mlia_arena_printf(c->a, "instruction/%u/%u", ci, ii);
                    label = kind ? kind : "instruction";
                    if (in->kind == PTE_INSTR_KERNEL && in->op_index >= 0 && (uint32_t)in->op_index < plan->n_operators) {
                        const pte_operator *op = &plan->operators[in->op_index];
                        label = op->overload.len ? mlia_arena_printf(c->a, "%s.%s", str_of(c, op->name), str_of(c, op->overload))
                                                 : str_of(c, op->name);
                    }
                }
                uint32_t ni = vw_node_add(c, g, id, label, ns, entity);
                vw_node *n = &g->nodes[ni];
                vw_node_attr(c, n, "kind", kind ? kind : mlia_arena_printf(c->a, "%u", in->kind));
                vw_node_attrf(c, n, "chain", "%u", ci);
                vw_node_attrf(c, n, "instruction", "%u", ii);
                if (in->kind == PTE_INSTR_DELEGATE && in->delegate_index >= 0 &&
                    (uint32_t)in->delegate_index < plan->n_delegates) {
                    const pte_delegate *dg = &plan->delegates[in->delegate_index];
                    vw_node_attr(c, n, "backend", str_of(c, dg->id));
                    vw_node_attrf(c, n, "delegate_index", "%d", in->delegate_index);
                    vw_node_attrf(c, n, "blob_bytes", "%llu", (unsigned long long)dg->size);
                }
                if (prev)
                    vw_node_edge(c, n, prev, "0");
                prev = n->id;
                if (is_vgf)
                    vw_strs_add(&delegate_nodes, c->a, n->id);
            }
        }
    const char *sprev = NULL;
    for (uint32_t i = 0; i < f->n_segments; i++) {
        const vgf_segment *seg = &f->segments[i];
        vw_graph *g = &v->graphs[gp];
        const char *name = str_of(c, seg->name);
        uint32_t ni = vw_node_add(c, g, mlia_arena_printf(c->a, "vgf_segment/%u", i), *name ? name : "segment", "vgf",
                                  NULL);
        vw_node *n = &g->nodes[ni];
        const char *tn = vgf_module_type_name(seg->type);
        vw_node_attr(c, n, "type", tn ? tn : "unknown");
        vw_node_attrf(c, n, "module", "%u", seg->module_index);
        vw_node_attrf(c, n, "operations", "%u", seg->n_operations);
        if (seg->type == VGF_MODULE_GRAPH && seg->graph && seg->n_operations)
            vw_strs_add(&n->subgraphs, c->a, mlia_arena_printf(c->a, "segment_%u", i)); /* built below */
        if (seg->type == VGF_MODULE_COMPUTE) {
            vw_node_attr(c, n, "note", "compute segment: not estimated, excluded from NX totals");
            n->style_bg = VW_STYLE_COMPUTE_BG;
            n->style_border = VW_STYLE_COMPUTE_BORDER;
        } else if (!seg->graph)
            vw_node_attr(c, n, "note", "no decoded SPIR-V graph (placeholder module)");
        if (!sprev)
            for (uint32_t k = 0; k < delegate_nodes.n; k++)
                vw_node_edge(c, n, delegate_nodes.v[k], "0");
        else
            vw_node_edge(c, n, sprev, "0");
        sprev = n->id;
    }

    /* ---- SPIR-V operation -> chain namespace, from the compiler operations ---- */
    vw_map op_chain;   /* "compiler_operation/segment_<i>/spirv-<N>" -> nx op index */
    vw_map_init(&op_chain, c->a, nx ? nx->n_ops : 8);
    if (nx)
        for (uint32_t k = 0; k < nx->n_ops; k++) {
            const nx_compiler_op *op = &nx->ops[k];
            for (uint32_t q = 0; q < op->n_vgf_ids; q++) {
                const char *segtok;
                size_t seglen;
                uint32_t id;
                if (!parse_vgf_id(op->vgf_ids[q], &segtok, &seglen, &id))
                    continue;
                const nx_segment *ns = op->segment < nx->n_segments ? &nx->segments[op->segment] : NULL;
                if (!ns)
                    continue;
                const char *key = mlia_arena_printf(c->a, "compiler_operation/segment_%llu/spirv-%u",
                                                    (unsigned long long)ns->segment_id, id);
                vw_map_put(&op_chain, c->a, key, k);
            }
        }

    const char *metric = vw_chain_metric(nx);

    /* ---- graph per GRAPH segment ---- */
    for (uint32_t i = 0; i < f->n_segments; i++) {
        const vgf_segment *seg = &f->segments[i];
        if (seg->type != VGF_MODULE_GRAPH || !seg->graph || !seg->n_operations)
            continue;
        uint32_t gi = vw_graph_add(c, v, mlia_arena_printf(c->a, "segment_%u", i));
        const char *segns = mlia_arena_printf(c->a, "segment_%u", i);
        const spv_graph *sg = seg->graph;
        for (uint32_t k = 0; k < sg->n_inputs; k++) {
            vw_graph *g = &v->graphs[gi];
            uint32_t ni = vw_node_add(c, g, mlia_arena_printf(c->a, "segment_%u/input_%u", i, sg->inputs[k].index),
                                      mlia_arena_printf(c->a, "Graph input %u", sg->inputs[k].index), "", NULL);
            mlia_buf t;
            mlia_buf_init(&t);
            spv_type_text(seg->spirv, sg->inputs[k].type, &t);
            vw_node_output(c, &g->nodes[ni], "0", "tensor_shape", mlia_arena_strndup(c->a, t.data ? t.data : "", t.len));
            mlia_buf_free(&t);
            if (k < seg->n_inputs)
                vw_node_attrf(c, &g->nodes[ni], "mrt_index", "%u", seg->inputs[k].mrt_index);
        }
        uint8_t *group_done = nx ? mlia_arena_array(c->a, nx->n_chains ? nx->n_chains : 1, 1) : NULL;
        for (uint32_t k = 0; k < seg->n_operations; k++) {
            const vgf_operation *op = &seg->operations[k];
            vw_graph *g = &v->graphs[gi];
            const char *id = mlia_arena_printf(c->a, "compiler_operation/segment_%u/spirv-%u", i, op->id);
            uint32_t nxop = vw_map_get(&op_chain, id);
            const nx_compiler_op *cop = nxop != VW_NONE ? &nx->ops[nxop] : NULL;
            const char *ns = cop && cop->n_parents ? vns->chain_path[cop->parents[0]] : segns;
            if (cop && cop->n_parents && !group_done[cop->parents[0]]) {
                /* the chain's cycles: on its summary node inside the group */
                uint32_t chi = cop->parents[0];
                group_done[chi] = 1;
                const nx_chain *ch = &nx->chains[chi];
                const mlia_entity *he = mlia_result_find(r, ch->id);
                vw_group_attr(c, g, vns->chain_path[chi], "chain", ch->id);
                uint32_t hi = vw_summary_node(c, g, vns->chain_path[chi], ch->id,
                                              mlia_arena_printf(c->a, "Chain %s", vw_strip_prefix(ch->raw_id, "chain_")));
                double x;
                const mlia_metric *m;
                if (vw_metric(he, metric, "p50", &x, &m)) {
                    vw_group_attr(c, g, vns->chain_path[chi],
                                  mlia_arena_printf(c->a, "%s_p50 (group measurement)", metric), vw_num(c, x, "cycles"));
                    vw_node_attr(c, &g->nodes[hi], mlia_arena_printf(c->a, "%s_p50", metric),
                                 vw_qty(c, x, "cycles"));
                    vw_overlay_value(c, &v->overlays[OV_PTE_CHAIN_GROUP], gi, ch->id, x,
                                     vw_qty(c, x, "cycles"));
                }
            }
            uint32_t ni = vw_node_add(c, g, id, op->label ? op->label : op->op, ns, id);
            vw_node *n = &g->nodes[ni];
            vw_node_attr(c, n, "op", op->op);
            vw_node_attrf(c, n, "spirv_id", "%u", op->id);
            if (op->debug_name)
                vw_node_attr(c, n, "debug_name", op->debug_name);
            if (op->result_type)
                vw_node_output(c, n, "0", "tensor_shape", op->result_type);
            if (cop) {
                vw_node_attr(c, n, "compiler_operation", cop->id);
                vw_link(c, id, cop->id);
                for (uint32_t q = 0; q < cop->n_parents; q++)
                    vw_link(c, id, nx->chains[cop->parents[q]].id);
                for (uint32_t q = 0; q < cop->n_sources; q++) {
                    const char *sid = mlia_arena_printf(c->a, "source_operator/%s/%s", method, cop->sources[q]);
                    if (mlia_result_find(r, sid))
                        vw_link(c, id, sid);
                }
            } else {
                vw_node_attr(c, n, "association", "no association recorded");
                n->style_bg = VW_STYLE_UNMATCHED_BG;
                n->style_border = VW_STYLE_UNMATCHED_BORDER;
            }
            uint32_t in_no = 0;
            for (uint32_t q = 0; q < op->n_operands; q++) {
                const vgf_operand *o = &op->operands[q];
                const char *oname = o->name ? o->name : mlia_arena_printf(c->a, "operand_%u", q);
                const char *iid = mlia_arena_printf(c->a, "%u", in_no);
                switch (o->ref.cls) {
                case SPV_VALUE_OP_RESULT:
                    vw_node_edge(c, n, mlia_arena_printf(c->a, "compiler_operation/segment_%u/spirv-%u", i,
                                                         o->producer_id), "0");
                    vw_node_input(c, n, iid, "tensor_shape", o->type_text);
                    in_no++;
                    break;
                case SPV_VALUE_GRAPH_INPUT:
                    vw_node_edge(c, n, mlia_arena_printf(c->a, "segment_%u/input_%u", i, o->ref.index), "0");
                    vw_node_input(c, n, iid, "tensor_shape", o->type_text);
                    in_no++;
                    break;
                case SPV_VALUE_GRAPH_CONSTANT:
                case SPV_VALUE_MODULE_CONSTANT:
                    vw_node_attr(c, n, oname, const_text(c, o));
                    break;
                default:
                    vw_node_attrf(c, n, oname, "unresolved %%%u", o->ref.id);
                    break;
                }
            }
        }
        for (uint32_t k = 0; k < sg->n_outputs; k++) {
            vw_graph *g = &v->graphs[gi];
            const spv_graph_output *o = &sg->outputs[k];
            uint32_t ni = vw_node_add(c, g, mlia_arena_printf(c->a, "segment_%u/output_%u", i, o->index),
                                      mlia_arena_printf(c->a, "Graph output %u", o->index), "", NULL);
            vw_node *n = &g->nodes[ni];
            if (k < seg->n_outputs)
                vw_node_attrf(c, n, "mrt_index", "%u", seg->outputs[k].mrt_index);
            if (o->value.cls == SPV_VALUE_OP_RESULT)
                vw_node_edge(c, n, mlia_arena_printf(c->a, "compiler_operation/segment_%u/spirv-%u", i, o->value.id), "0");
            else if (o->value.cls == SPV_VALUE_GRAPH_INPUT)
                vw_node_edge(c, n, mlia_arena_printf(c->a, "segment_%u/input_%u", i, o->value.index), "0");
        }
    }
}
