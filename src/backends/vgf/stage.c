/*
 * stage.c - the VGF backend's analysis stage: NX statistics.
 *
 * Gathers what nx_analyse() needs from the run (the selected method's
 * executions, its graph's node names, the companion VGF's segment name
 * maps), runs it, hands the result to nx_entities_add()
 * (analysis/nx_entities.c) and logs the decisions.
 */
#include <string.h>

#include "backends/vgf/analysis/nx_entities.h"
#include "backends/vgf/vgf_backend.h"
#include "formats/exported_program.h"

/* The companion VGF's segments as nx_analyse() sees them (arena memory). */
static nx_segment_vgf *vgf_segments(const mlia_backend_ctx *c, const vgf_file *f)
{
    nx_segment_vgf *vs = mlia_arena_array(c->arena, f->n_segments ? f->n_segments : 1, sizeof *vs);
    for (uint32_t i = 0; i < f->n_segments; i++) {
        const vgf_segment *seg = &f->segments[i];
        vs[i].name = seg->name.ptr ? mlia_arena_strndup(c->arena, seg->name.ptr, seg->name.len) : "";
        if (seg->type == 1) {
            /* a graph segment whose module is a placeholder has no SPIR-V
             * ids at all: an empty map makes every id-naming label fail */
            vgf_name_map vm = {0, NULL, NULL};
            if (seg->spirv)
                vgf_segment_name_map(f, i, &vm);
            vs[i].has_name_map = true;
            vs[i].name_map.n_ids = vm.n;
            vs[i].name_map.ids = vm.ids;
            vs[i].name_map.names = (const char *const *)vm.names;
        }
    }
    return vs;
}

int vgf_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err)
{
    vgf_state *st = state;
    nx_inputs in;
    memset(&in, 0, sizeof in);
    in.etdump_path = c->etdump_path; /* a pool's errors name the run's own capture */
    in.dump = c->dump;
    in.execution_runs = c->execution_runs;
    in.n_executions = c->n_executions;
    const ep_graph *g = c->program ? &c->program->graph : NULL;
    if (g && g->n_nodes) {
        const char **names = mlia_arena_array(c->arena, g->n_nodes, sizeof *names);
        for (uint32_t i = 0; i < g->n_nodes; i++)
            names[i] = g->nodes[i].name;
        in.source_node_names = names;
        in.n_source_nodes = g->n_nodes;
    }
    if (st->vgf) {
        in.vgf_segments = vgf_segments(c, st->vgf);
        in.n_vgf_segments = st->vgf->n_segments;
        in.vgf_source_path = c->companion_path;
    }
    if (nx_analyse(&in, c->arena, &st->nx, err))
        return -1;
    const nx_result *nx = st->nx;
    if (nx->resolved)
        mlia_backend_log(c, "statistics: mode %d%s, device %s%s, %u record(s)", nx->mode,
                         nx->mode_assumed ? " (assumed)" : "", nx->device, nx->device_assumed ? " (assumed)" : "",
                         nx->n_records);
    else
        mlia_backend_log(c, "statistics: %u record(s), none with a measurement", nx->n_records);
    nx_entities_add(nx, c->method_name, in.n_source_nodes, c->arena, c->result);
    if (nx->n_segments && nx->n_ops)
        mlia_backend_log(c, "associations: %u of %u compiler operation(s), %u of %u source operator(s)",
                         nx->n_ops_associated, nx->n_ops, nx->n_sources_associated, in.n_source_nodes);
    return 0;
}
