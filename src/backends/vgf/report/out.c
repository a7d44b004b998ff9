/*
 * out.c - the VGF backend's contributions to the writers
 * (report/backend_out.h): the result JSON's target (Mali with NX) and its
 * statistics mode/device and association counts, the NX rows of
 * csv/chains.csv and csv/executions.csv, and the NX counter tracks of the
 * timeline. Every function reads the backend's state (analysis/state.h).
 */
#include <string.h>

#include "backends/vgf/report/out.h"
#include "formats/exported_program.h"

void vgf_json_target(const void *state, mlia_jw *w)
{
    const vgf_state *st = state;
    const nx_result *nx = st ? st->nx : NULL;
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "profile_name", "neural-technology");
    mlia_jw_kstr(w, "target_type", "neural-technology");
    mlia_jw_karr_begin(w, "components");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "type", "gpu");
    mlia_jw_kstr(w, "family", "mali");
    mlia_jw_kstr(w, "model", "nx");
    mlia_jw_obj_end(w);
    mlia_jw_arr_end(w);
    mlia_jw_kobj_begin(w, "configuration");
    if (nx && nx->resolved) {
        mlia_jw_kint(w, "statistics_mode", nx->mode);
        mlia_jw_kstr(w, "device", nx->device);
    }
    mlia_jw_obj_end(w);
    mlia_jw_kstr(w, "description",
                 "Arm GPU with neural accelerator (Mali with NX), measured through ExecuTorch ETDump profiling data");
    mlia_jw_obj_end(w);
}

void vgf_json_statistics(const void *state, mlia_jw *w)
{
    const vgf_state *st = state;
    const nx_result *nx = st ? st->nx : NULL;
    if (nx && nx->resolved) {
        mlia_jw_kint(w, "mode", nx->mode);
        mlia_jw_kbool(w, "mode_assumed", nx->mode_assumed);
        mlia_jw_kstr(w, "device", nx->device);
        mlia_jw_kbool(w, "device_assumed", nx->device_assumed);
        if (nx->device_name)
            mlia_jw_kstr(w, "device_name", nx->device_name);
    }
}

void vgf_json_context(const void *state, const mlia_run_record *s, mlia_jw *w)
{
    const vgf_state *st = state;
    const nx_result *nx = st ? st->nx : NULL;
    /* associations may be incomplete, so say how many there are (docs/analysis.md) */
    if (nx && nx->n_ops) {
        mlia_jw_kobj_begin(w, "associations");
        mlia_jw_kuint(w, "compiler_operations", nx->n_ops);
        mlia_jw_kuint(w, "compiler_operations_associated", nx->n_ops_associated);
        mlia_jw_kuint(w, "source_operators", s->program ? s->program->graph.n_nodes : 0);
        mlia_jw_kuint(w, "source_operators_associated", nx->n_sources_associated);
        mlia_jw_obj_end(w);
    }
}

const char *const vgf_csv_group_kinds[] = {"segment", "cascade", "chain", "stripe", NULL};

/* Position of `run` in the ascending v[n], or UINT32_MAX. */
static uint32_t find_run(const uint32_t *v, uint32_t n, uint32_t run)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (v[mid] < run)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < n && v[lo] == run ? lo : UINT32_MAX;
}

static void nx_rows(const mlia_csv_exec *x, const nx_result *nx, const char *id, const nx_metrics *m, uint32_t k,
                    mlia_arena *names)
{
    if (m->total.available && m->total_cycles)
        mlia_csv_exec_u64(x, id, "total_cycles", m->total_cycles[k], "cycles");
    if (m->op.available && m->op_cycles)
        mlia_csv_exec_u64(x, id, "op_cycles", m->op_cycles[k], "cycles");
    for (uint32_t c = 0; m->has_counters && m->counters && m->counter_stats && c < nx->n_counters; c++) {
        if (!m->counter_stats[c].available)
            continue;
        mlia_csv_exec_u64(x, id, mlia_arena_printf(names, "%s_cycles", nx->counter_labels[c]),
                          m->counters[(size_t)k * nx->n_counters + c], "cycles");
    }
}

void vgf_csv_execution(const void *state, uint32_t run, const mlia_csv_exec *row, mlia_arena *names)
{
    const vgf_state *st = state;
    const nx_result *nx = st ? st->nx : NULL;
    for (uint32_t i = 0; nx && i < nx->n_segments; i++) {
        const nx_segment *g = &nx->segments[i];
        if (!g->is_graph || !g->analysed || !g->measured)
            continue;
        uint32_t k = find_run(g->recorded_runs, g->n_recorded, run);
        if (k == UINT32_MAX)
            continue;
        nx_rows(row, nx, g->id, &g->m, k, names);
        for (uint32_t c = 0; c < g->n_cascades; c++)
            nx_rows(row, nx, nx->cascades[g->first_cascade + c].id, &nx->cascades[g->first_cascade + c].m, k, names);
        for (uint32_t c = 0; c < g->n_chains; c++)
            nx_rows(row, nx, nx->chains[g->first_chain + c].id, &nx->chains[g->first_chain + c].m, k, names);
        for (uint32_t c = 0; c < g->n_stripes; c++)
            nx_rows(row, nx, nx->stripes[g->first_stripe + c].id, &nx->stripes[g->first_stripe + c].m, k, names);
    }
    if (nx && nx->model.available) {
        uint32_t k = find_run(nx->model.runs, nx->model.n_exec, run);
        if (k != UINT32_MAX) {
            mlia_csv_exec_u64(row, "model", "total_cycles", nx->model.total_cycles[k], "cycles");
            mlia_csv_exec_u64(row, "model", "compute_cycles", nx->model.compute_cycles[k], "cycles");
            mlia_csv_exec_double(row, "model", "target_utilization", nx->model.utilization[k], "%");
        }
    }
}

uint32_t vgf_timeline_counters(const void *state, mlia_arena *a, const mlia_backend_counter **out)
{
    const vgf_state *st = state;
    const nx_result *nx = st ? st->nx : NULL;
    *out = NULL;
    if (!nx)
        return 0;
    uint32_t n = (nx->model.available ? 2 : 0) + nx->n_segments;
    mlia_backend_counter *cs = mlia_arena_array(a, n ? n : 1, sizeof *cs);
    uint32_t m = 0;
    if (nx->model.available) {
        cs[m++] = (mlia_backend_counter){"NX cycles (model)", "total_cycles", nx->model.n_exec, nx->model.runs,
                                         nx->model.total_cycles};
        cs[m++] = (mlia_backend_counter){"NX compute cycles (model)", "compute_cycles", nx->model.n_exec,
                                         nx->model.runs, nx->model.compute_cycles};
    }
    for (uint32_t i = 0; i < nx->n_segments; i++) {
        const nx_segment *seg = &nx->segments[i];
        if (!seg->measured || !seg->m.total_cycles || !seg->m.total.available)
            continue;
        cs[m++] = (mlia_backend_counter){mlia_arena_printf(a, "NX cycles %s", seg->id), "total_cycles",
                                         seg->n_recorded, seg->recorded_runs, seg->m.total_cycles};
    }
    *out = cs;
    return m;
}
