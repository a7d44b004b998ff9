/*
 * memory.h - the memory view of one method from its program's memory plan
 * (docs/memory.md).
 *
 * Input: the method's execution plan of a PTE (formats/pte.h): its pools
 * (`non_const_buffer_sizes`, entry 0 is not a pool), every planned tensor's
 * pool and offset, and the instruction list of chain 0, which fixes each
 * tensor's lifetime; optionally the ETRecord's debug-handle map and edge
 * program (to name the source operator of an instruction) and the ETDump
 * (runtime allocation events). Backend-neutral: a delegate call is one
 * instruction whose planned arguments are live while it runs, whatever the
 * backend.
 *
 * Rules (docs/memory.md restates them with LeNet worked by hand):
 *   - lifetime of a planned tensor = [first, last] instruction referencing
 *     it (kernel and delegate arguments, a (Optional)TensorList argument's
 *     members, move, jump_false and free operands); planned method inputs
 *     are live from instruction 0, planned outputs until the last
 *     instruction, planned mutable tensors (data_buffer_idx > 0) always;
 *   - a planned value first referenced by a read (not the written last
 *     argument), not a method input, with the pool, offset, byte size and
 *     dtype of an earlier value is a view of it: the lifetimes merge;
 *   - live bytes of a pool at instruction k = size of the union of the byte
 *     ranges of its tensors live at k (aliases count once); the peak is
 *     the first instruction reaching the maximum; waste = size - peak.
 *
 * A plan that cannot be trusted (a tensor past its pool's end, a negative
 * pool size, more than one chain, a peak above the pool size) gives no
 * figures: `available` is false and `reason` names the table and byte
 * offset. Nothing here fails on file contents; memory_analyse returns -1
 * only when its arguments are unusable.
 *
 * Ownership: the analysis and everything it points to live in the arena
 * given to memory_analyse; strings are arena copies or borrowed from the
 * plan (whose bytes must outlive the analysis).
 */
#ifndef MLIA_ANALYSIS_MEMORY_H
#define MLIA_ANALYSIS_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/result.h"
#include "core/arena.h"

struct pte_plan;
struct etrecord_method;
struct ep_program;
struct etdump;

/* The planner's default alignment (docs/memory.md, "Waste"): the PTE does
 * not record the alignment used, so the rounded figures are a guide only. */
#define MEMORY_DEFAULT_ALIGNMENT 16u

typedef struct memory_tensor {
    uint32_t value;             /* value index in the plan */
    uint32_t pool;              /* memory_id (1-based pool) */
    uint64_t offset, nbytes;    /* bytes [offset, offset + nbytes) of the pool */
    uint8_t scalar_type;
    int32_t first, last;        /* lifetime (instructions, inclusive); -1/-1 when never live */
    int32_t alias_of;           /* value index of the tensor it views, -1 */
    int32_t producer;           /* instruction writing it first (last argument), -1: none (input) */
    int32_t last_consumer;      /* last instruction reading or writing it, -1 */
    bool is_input, is_output, is_mutable;
} memory_tensor;

typedef struct memory_pool {
    uint32_t id;                /* 1-based, as memory_id */
    uint64_t size;              /* as planned */
    uint64_t peak;              /* max live bytes */
    int32_t peak_instruction;   /* first instruction reaching it, -1 when nothing is live */
    uint64_t waste;             /* size - peak */
    uint64_t no_reuse_bytes;    /* every non-alias tensor once (what no reuse would need) */
    uint64_t peak_aligned;      /* peak with every tensor rounded up to MEMORY_DEFAULT_ALIGNMENT */
    uint32_t n_tensors;         /* planned tensors in the pool (aliases included) */
    uint64_t *live;             /* [n_instructions] live bytes at each instruction */
} memory_pool;

typedef struct memory_instruction {
    uint8_t kind;               /* pte_instr_kind */
    const char *op;             /* "aten::addmm.out", "delegate:<backend id>", "move", ... (arena) */
    int32_t node;               /* edge-program node index it runs, -1 when unknown */
    const char *node_name;      /* that node's name, NULL when unknown */
    uint64_t live;              /* live bytes of every pool */
    uint64_t allocates;         /* bytes of the tensors it writes first */
    uint32_t n_live;            /* tensors live here */
} memory_instruction;

typedef struct memory_allocator {
    const char *name;           /* as the ETDump names it (arena copy) */
    uint64_t count, bytes;      /* allocation events and their total size */
} memory_allocator;

typedef struct memory_analysis {
    const char *method;
    bool available;             /* figures below are meaningful */
    const char *reason;         /* why not (unavailable), arena string */
    uint32_t n_pools;
    memory_pool *pools;         /* pool i + 1 at index i */
    uint64_t total_planned;     /* sum of the pool sizes */
    uint64_t peak;              /* max over instructions of the live bytes of every pool */
    int32_t peak_instruction;
    uint64_t constant_bytes;    /* constants, each distinct data_buffer_idx once */
    uint32_t n_tensors;
    memory_tensor *tensors;     /* planned tensors in value order */
    uint32_t n_instructions;
    memory_instruction *instructions; /* chain 0 */
    uint32_t n_unplanned;       /* tensors supplied at run time (dbi 0, no allocation_info) */
    /* ETDump allocation events (docs/memory.md "Runtime allocations"), in
     * first-seen order of allocator names; has_runtime false when none */
    bool has_runtime;
    uint32_t n_allocators;
    memory_allocator *allocators;
} memory_analysis;

typedef struct memory_inputs {
    const char *method;                      /* selected method name */
    const struct pte_plan *plan;             /* its plan in the PTE, not NULL */
    uint32_t plan_index;                     /* position in execution_plan (paths in reasons) */
    const char *pte_path;                    /* names the PTE in reasons */
    const struct etrecord_method *maps;      /* may be NULL */
    const struct ep_program *program;        /* may be NULL */
    const struct etdump *dump;               /* may be NULL */
    const uint32_t *execution_runs;          /* runs of dump whose allocation events count */
    uint32_t n_executions;
} memory_inputs;

/* Analyses the plan; *out is set (available or not) and 0 returned, or -1
 * with *err set when an ETDump run cannot be decoded. */
struct mlia_error;
int memory_analyse(const memory_inputs *in, mlia_arena *arena, memory_analysis **out, struct mlia_error *err);

/* Tensors live at instruction k, value order, into idx (room for
 * ma->n_tensors); returns their count. */
uint32_t memory_live_at(const memory_analysis *ma, uint32_t k, uint32_t *idx);

/* Adds the memory metrics to the result (docs/memory.md "Outputs"): model
 * metrics planned_memory, memory_pool_size / memory_pool_peak /
 * memory_pool_waste per pool, live_bytes per instruction, and on each
 * source operator (entity source_operator/<method>/<node>) live_bytes and
 * allocated_bytes; runtime allocation totals when recorded. Also fills
 * peak_activation_memory and model_weight_memory. Does nothing when ma is
 * NULL or unavailable. */
void memory_add_metrics(const memory_analysis *ma, mlia_result *r);

#endif
