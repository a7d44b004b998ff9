/*
 * memory_stage.c - the memory view stage of `mlia check` (docs/memory.md):
 * the companion PTE's plan of the selected method through memory_analyse
 * (analysis/memory.h). A plan that cannot be used is a warning naming the
 * table and byte offset, and the view is unavailable; never an error.
 */
#include "analysis/memory.h"
#include "formats/pte.h"
#include "pipeline/stages.h"

int memory_stage(mlia_session *s, mlia_error *err)
{
    if (!s->companion)
        return 0;
    uint32_t index = 0;
    const pte_plan *plan = companion_plan(s, &index);
    if (!plan)
        return 0;
    memory_inputs in = {
        .method = s->method_name,
        .plan = plan,
        .plan_index = index,
        .pte_path = s->opts->companion_path,
        .maps = s->method,
        .program = s->program,
        .dump = s->dump,
        .execution_runs = s->execution_runs,
        .n_executions = s->n_executions,
    };
    if (memory_analyse(&in, &s->arena, &s->memory, err) < 0)
        return -1;
    const memory_analysis *ma = s->memory;
    if (!ma->available) {
        mlia_result_warnf(&s->result, "The memory plan cannot be used, so no memory figures are reported: %s.",
                          ma->reason);
        return 0;
    }
    mlia_log_add(s, "memory: %u pool(s), %llu bytes planned, peak %llu bytes at instruction %d, %u planned tensor(s)",
                 ma->n_pools, (unsigned long long)ma->total_planned, (unsigned long long)ma->peak,
                 ma->peak_instruction, ma->n_tensors);
    return 0;
}
