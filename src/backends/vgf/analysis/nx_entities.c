/*
 * nx_entities.c - NX statistics hierarchy -> result entities.
 *
 * nx_analyse() (nx_analysis.c) decodes and aggregates; this file maps its
 * hierarchy onto result entities, as runtime.c does for the runtime events
 * (docs/nx-statistics.md, docs/result-format.md): segment > cascade > chain >
 * stripe, compiler operations under chains, and associations between
 * compiler operations and ETRecord source operators. Metric shapes: one
 * value with aggregation "sum" for a single execution, else p50/min/max
 * triples.
 */
#include "backends/vgf/analysis/nx_entities.h"

#include <stdio.h>
#include <string.h>

static void stat_metrics(mlia_result *r, mlia_entity *e, const char *name, nx_stat st)
{
    if (!st.available || !st.samples)
        return;
    if (st.samples == 1) {
        mlia_entity_add_metric(r, e, mlia_metric_uint(name, "cycles", st.p50, "sum", 1));
        return;
    }
    const char *stats[3] = {"p50", "min", "max"};
    uint64_t v[3] = {st.p50, st.min, st.max};
    for (int i = 0; i < 3; i++) {
        mlia_metric m = mlia_metric_uint(name, "cycles", v[i], stats[i], st.samples);
        mlia_metric_qualify(&m, "statistic", stats[i]);
        mlia_entity_add_metric(r, e, m);
    }
}

static void cycle_metrics(const nx_result *nx, mlia_arena *arena, mlia_result *r, mlia_entity *e, const nx_metrics *m,
                          double coverage, uint32_t recorded)
{
    stat_metrics(r, e, "total_cycles", m->total);
    stat_metrics(r, e, "op_cycles", m->op);
    if (m->has_counters && m->counter_stats)
        for (uint32_t c = 0; c < nx->n_counters; c++) {
            const char *name = mlia_arena_printf(arena, "%s_cycles", nx->counter_labels[c]);
            stat_metrics(r, e, name, m->counter_stats[c]);
        }
    if (m->total.available)
        mlia_entity_add_metric(r, e, mlia_metric_double("execution_coverage", "%", coverage, NULL, recorded));
}

static void stripe_list(mlia_arena *arena, mlia_result *r, mlia_entity *e, const uint32_t *ids, uint32_t n)
{
    const char **v = mlia_arena_array(arena, n ? n : 1, sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = mlia_arena_printf(arena, "%u", ids[i]);
    mlia_entity_set_str_list(r, e, "stripe_ids", v, n);
}

static void declare_nx_kinds(mlia_result *r)
{
    /* parents/children as in docs/result-format.md; edges observed in a run are
     * added to these declarations by the writer */
    mlia_result_kind(r, "segment", "VGF model-sequence segment measured by NX statistics", NULL,
                     "cascade,chain,compiler_operation");
    mlia_result_kind(r, "cascade", "NX cascade (compiler scheduling group)", "segment", "chain");
    mlia_result_kind(r, "chain", "NX chain (compiler scheduling group of stripes)", "cascade,segment",
                     "stripe,compiler_operation,source_operator");
    mlia_result_kind(r, "stripe", "NX stripe: one statistics block", "chain", NULL);
    mlia_result_kind(r, "compiler_operation", "TOSA / fused operation from the debug database, or a SPIR-V operation of the companion VGF",
                     "segment,chain,compiler_operation", "compiler_operation,source_operator");
}

void nx_entities_add(const nx_result *nx, const char *method_name, uint32_t n_source_nodes, mlia_arena *arena,
                     mlia_result *r)
{
    for (uint32_t i = 0; i < nx->n_warnings; i++)
        mlia_result_warn(r, nx->warnings[i]);
    if (!nx->n_segments)
        return;
    declare_nx_kinds(r);

    for (uint32_t si = 0; si < nx->n_segments; si++) {
        const nx_segment *seg = &nx->segments[si];
        if (!seg->is_graph || !seg->analysed)
            continue;
        mlia_entity *se = mlia_result_entity(r, seg->id, "segment", seg->display_name);
        mlia_entity_set_int(r, se, "segment_id", (int64_t)seg->segment_id);
        mlia_entity_set_int(r, se, "chain_index", seg->chain_index);
        mlia_entity_set_int(r, se, "instruction_id", seg->instruction_id);
        if (seg->name && *seg->name)
            mlia_entity_set_str(r, se, "segment_name", seg->name);
        int64_t *rec = mlia_arena_array(arena, seg->n_recorded ? seg->n_recorded : 1, sizeof *rec);
        for (uint32_t k = 0; k < seg->n_recorded; k++)
            rec[k] = seg->recorded_runs[k];
        mlia_entity_set_int_list(r, se, "recorded_executions", rec, seg->n_recorded);
        cycle_metrics(nx, arena, r, se, &seg->m, seg->coverage, seg->n_recorded);

        for (uint32_t k = 0; k < seg->n_cascades; k++) {
            const nx_cascade *c = &nx->cascades[seg->first_cascade + k];
            mlia_entity *ce = mlia_result_entity(r, c->id, "cascade", c->name);
            mlia_result_link(r, se, ce);
            ce->placement = "NX";
            stripe_list(arena, r, ce, c->stripe_ids, c->n_stripes);
            cycle_metrics(nx, arena, r, ce, &c->m, seg->coverage, seg->n_recorded);
        }
        for (uint32_t k = 0; k < seg->n_chains; k++) {
            const nx_chain *ch = &nx->chains[seg->first_chain + k];
            mlia_entity *he = mlia_result_entity(r, ch->id, "chain", ch->name);
            if (ch->parent_cascade != UINT32_MAX && ch->parent_cascade < nx->n_cascades)
                mlia_result_link_ids(r, nx->cascades[ch->parent_cascade].id, he->id);
            else
                mlia_result_link(r, se, he);
            he->placement = "NX";
            mlia_entity_set_str(r, he, "segment", seg->id);
            stripe_list(arena, r, he, ch->stripe_ids, ch->n_stripes);
            cycle_metrics(nx, arena, r, he, &ch->m, seg->coverage, seg->n_recorded);
        }
        for (uint32_t k = 0; k < seg->n_stripes; k++) {
            const nx_stripe *st = &nx->stripes[seg->first_stripe + k];
            mlia_entity *te = mlia_result_entity(r, st->id, "stripe", st->name);
            if (st->chain < nx->n_chains)
                mlia_result_link_ids(r, nx->chains[st->chain].id, te->id);
            te->placement = "NX";
            mlia_entity_set_int(r, te, "stripe", st->stripe);
            cycle_metrics(nx, arena, r, te, &st->m, seg->coverage, seg->n_recorded);
        }
        for (uint32_t k = 0; k < seg->n_ops; k++) {
            const nx_compiler_op *op = &nx->ops[seg->first_op + k];
            mlia_entity *oe = mlia_result_entity(r, op->id, "compiler_operation", op->name);
            for (uint32_t q = 0; q < op->n_parents; q++)
                mlia_result_link_ids(r, nx->chains[op->parents[q]].id, oe->id);
            const char **pc = mlia_arena_array(arena, op->n_parents ? op->n_parents : 1, sizeof *pc);
            for (uint32_t q = 0; q < op->n_parents; q++)
                pc[q] = nx->chains[op->parents[q]].id;
            mlia_entity_set_str_list(r, oe, "chains", pc, op->n_parents);
            mlia_entity_set_str(r, oe, "tosa_id", op->tosa_id);
            mlia_entity_set_str_list(r, oe, "operator_types", op->types, op->n_types);
            mlia_entity_set_str_list(r, oe, "api_labels", op->labels, op->n_labels);
            if (op->display_label && *op->display_label)
                mlia_entity_set_str(r, oe, "display_label", op->display_label);
            if (op->operator_name)
                mlia_entity_set_str(r, oe, "operator_name", op->operator_name);
            if (op->has_spirv_id) {
                long long v = 0;
                sscanf(op->spirv_id, "%lld", &v);
                mlia_entity_set_int(r, oe, "spirv_id", v);
            }
            if (op->n_vgf_ids)
                mlia_entity_set_str_list(r, oe, "vgf_operations", op->vgf_ids, op->n_vgf_ids);
            oe->placement = "NX";
            for (uint32_t q = 0; q < op->n_sources; q++) {
                char *sid = mlia_arena_printf(arena, "source_operator/%s/%s", method_name, op->sources[q]);
                mlia_entity *src = mlia_result_find(r, sid);
                if (!src)
                    continue;
                /* chain -> operation -> source operator, and chain -> source
                 * operator directly: the chain <-> source operator association */
                mlia_result_link(r, oe, src);
                for (uint32_t p = 0; p < op->n_parents; p++)
                    mlia_result_link_ids(r, nx->chains[op->parents[p]].id, sid);
            }
        }
    }
    if (nx->n_ops && nx->n_ops_associated < nx->n_ops)
        mlia_result_warnf(r,
                          "Associations are incomplete: %u of %u compiler operation(s) and %u of %u source "
                          "operator(s) were associated; the others have no association recorded.",
                          nx->n_ops_associated, nx->n_ops, nx->n_sources_associated, n_source_nodes);
}

void nx_model_metrics(const nx_result *nx, mlia_result *r)
{
    static const char *const names[3] = {"total_cycles", "compute_cycles", "target_utilization"};
    if (!nx || !nx->model.available) {
        const char *why = nx && nx->model.reason ? nx->model.reason : "No VGF neural statistics were found in the ETDump.";
        for (int i = 0; i < 3; i++)
            mlia_result_add_metric(r, mlia_metric_unavailable(names[i], i == 2 ? "%" : "cycles", why));
        return;
    }
    const nx_model *m = &nx->model;
    bool multi = m->n_exec > 1;
    if (!multi) { /* one execution: its value, as every NX metric (docs/result-format.md) */
        mlia_result_add_metric(r, mlia_metric_uint("total_cycles", "cycles", m->total.p50, "sum", m->n_exec));
        mlia_result_add_metric(r, mlia_metric_uint("compute_cycles", "cycles", m->compute.p50, "sum", m->n_exec));
        mlia_result_add_metric(r, mlia_metric_double("target_utilization", "%", m->utilization_stat.p50, NULL,
                                                     m->n_exec));
        return;
    }
    /* several: p50, min and max triples, so mlia compare has their spread */
    static const char *const stats[3] = {"p50", "min", "max"};
    const nx_stat *st[2] = {&m->total, &m->compute};
    for (int k = 0; k < 2; k++) {
        uint64_t v[3] = {st[k]->p50, st[k]->min, st[k]->max};
        for (int i = 0; i < 3; i++) {
            mlia_metric t = mlia_metric_uint(names[k], "cycles", v[i], stats[i], m->n_exec);
            mlia_metric_qualify(&t, "statistic", stats[i]);
            mlia_result_add_metric(r, t);
        }
    }
    double u[3] = {m->utilization_stat.p50, m->utilization_stat.min, m->utilization_stat.max};
    for (int i = 0; i < 3; i++) {
        mlia_metric t = mlia_metric_double("target_utilization", "%", u[i], stats[i], m->n_exec);
        mlia_metric_qualify(&t, "statistic", stats[i]);
        mlia_result_add_metric(r, t);
    }
}

bool nx_associations_incomplete(const nx_result *nx)
{
    return nx && nx->n_ops && nx->n_ops_associated < nx->n_ops;
}
