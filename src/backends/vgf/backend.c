/*
 * backend.c - the VGF backend (ExecuTorch's VgfBackend delegate on an Arm
 * GPU with neural accelerator, measured through the NX statistics of the
 * ETDump): its mlia_backend, registered in src/backends/registry.c.
 * Readers in formats/ (VGF, SPIR-V, TOSA, NX statistics, debug database),
 * analyses in analysis/ (nx_analysis, nx_entities), writers' hooks and its
 * views in report/, the run's stages here (stage.c, companion.c).
 */
#include <string.h>

#include "backends/vgf/analysis/nx_entities.h"
#include "backends/vgf/report/inspect_nx.h"
#include "backends/vgf/report/inspect_vgf.h"
#include "backends/vgf/report/out.h"
#include "backends/vgf/report/views_nx.h"
#include "backends/vgf/vgf_backend.h"

static void *vgf_begin(const mlia_backend_ctx *c)
{
    vgf_state *st = mlia_arena_alloc(c->arena, sizeof *st);
    memset(st, 0, sizeof *st);
    return st;
}

static void vgf_model_metrics(const void *state, mlia_result *r)
{
    nx_model_metrics(((const vgf_state *)state)->nx, r);
}

static bool vgf_incomplete(const void *state)
{
    return nx_associations_incomplete(((const vgf_state *)state)->nx);
}

static int vgf_inspect_file(const uint8_t *data, size_t size, const char *path, mlia_arena *a, mlia_jw *w,
                            mlia_error *err)
{
    vgf_file *v;
    if (vgf_read(data, size, path, a, &v, err))
        return -1;
    inspect_vgf(v, w);
    return 0;
}

static int vgf_inspect_records(const etdump *d, mlia_jw *w, mlia_arena *a, mlia_error *err)
{
    mlia_jw_key(w, "neural_statistics");
    return inspect_nx_records(d, w, a, err);
}

static const char *const DELEGATE_IDS[] = {"VgfBackend", NULL};

const mlia_backend mlia_backend_vgf = {
    .name = "vgf",
    .label = "VGF",
    .delegate_ids = DELEGATE_IDS,
    .is_blob = vgf_is_blob,
    .begin = vgf_begin,
    .companion_locate = vgf_companion_locate,
    .analyse = vgf_analyse,
    .companion_check = vgf_companion_check,
    .model_metrics = vgf_model_metrics,
    .incomplete = vgf_incomplete,
    .inspect_file = vgf_inspect_file,
    .inspect_blob = inspect_vgf_value,
    .inspect_records = vgf_inspect_records,
    .out =
        {
            .json_target = vgf_json_target,
            .json_statistics = vgf_json_statistics,
            .json_context = vgf_json_context,
            .console_fields = vgf_console_fields,
            .csv_group_kinds = vgf_csv_group_kinds,
            .csv_group_top_kind = "segment",
            .csv_execution = vgf_csv_execution,
            .timeline_counters = vgf_timeline_counters,
            .timeline_group = "NX statistics",
            .views = vgf_views,
            .n_views = VGF_N_VIEWS,
            .view_metric = vgf_view_metric,
            .trace_view_has_rows = vgf_trace_view_has_rows,
            .trace_view_rows = vgf_trace_view_rows,
            .trace_view_unavailable =
                "No compiler operations (VGF neural statistics) and no delegate runtime events in the ETDump.",
        },
};
