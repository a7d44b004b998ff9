/*
 * test_memory.c - the memory view (analysis/memory.h) on the real PTEs:
 * lenet.pte against the hand derivation of docs/memory.md, add.pte
 * (alignment waste), kws-cortex-m.pte (plateau, views, scratch),
 * module-linear-no-constant-segment.pte (deprecated constant buffer), and
 * plans that cannot be used (exact reasons with byte offsets).
 */
#include <stdbool.h>

#include "analysis/memory.h"
#include "core/arena.h"
#include "core/file.h"
#include "formats/pte.h"
#include "test.h"

typedef struct loaded {
    char *data;
    size_t size;
    mlia_arena arena;
    pte_program *p;
    memory_analysis *ma;
} loaded;

/* Reads the fixture (data may be patched by `patch` first) and analyses
 * plan 0. */
static int analyse(const char *rel, loaded *l, void (*patch)(loaded *, const pte_program *))
{
    mlia_error err;
    mlia_error_clear(&err);
    memset(l, 0, sizeof *l);
    mlia_arena_init(&l->arena);
    if (mlia_file_slurp(test_fixture(rel), &l->data, &l->size, &err) < 0)
        return -1;
    if (pte_read((const uint8_t *)l->data, l->size, "x.pte", &l->arena, &l->p, &err) < 0) {
        printf("error: %s\n", err.text);
        return -1;
    }
    if (patch) {
        patch(l, l->p);
        if (pte_read((const uint8_t *)l->data, l->size, "x.pte", &l->arena, &l->p, &err) < 0) {
            printf("error: %s\n", err.text);
            return -1;
        }
    }
    memory_inputs in = {.method = "forward", .plan = &l->p->plans[0], .pte_path = "x.pte"};
    if (memory_analyse(&in, &l->arena, &l->ma, &err) < 0) {
        printf("error: %s\n", err.text);
        return -1;
    }
    return 0;
}

static void done(loaded *l)
{
    free(l->data);
    mlia_arena_free(&l->arena);
}

static const memory_tensor *tensor_of(const memory_analysis *ma, uint32_t value)
{
    for (uint32_t i = 0; i < ma->n_tensors; i++)
        if (ma->tensors[i].value == value)
            return &ma->tensors[i];
    return NULL;
}

/* docs/memory.md, "LeNet by hand": 18 planned tensors in one pool of
 * 194,080 bytes; value 71 ([1, 400]) is a static view of value 57 ([1, 16,
 * 5, 5], both at offset 192,000); the peak is at instruction 7 (the first
 * addmm): value 72 [0, 192000) + values 57/71 [192000, 193600) + value 76
 * [193600, 194080) = the whole pool. */
TEST(lenet_hand_derivation)
{
    loaded l;
    if (analyse("executorch/lenet.pte", &l, NULL) < 0) {
        CHECK(test_current_skipped);
        return;
    }
    const memory_analysis *ma = l.ma;
    static const uint64_t live[14] = {22912, 37632, 32928, 11104, 12800, 11200, 193600,
                                      194080, 960, 40800, 41136, 672, 3696, 3736};
    bool ok = ma->available && ma->n_pools == 1 && ma->n_instructions == 14 && ma->n_tensors == 18;
    for (uint32_t k = 0; ok && k < 14; k++)
        if (ma->instructions[k].live != live[k] || ma->pools[0].live[k] != live[k]) {
            printf("instruction %u: %llu\n", k, (unsigned long long)ma->instructions[k].live);
            ok = false;
        }
    CHECK(ok);
    CHECK_UINT(ma->pools[0].size, 194080);
    CHECK_UINT(ma->pools[0].peak, 194080);
    CHECK_INT(ma->pools[0].peak_instruction, 7);
    CHECK_UINT(ma->pools[0].waste, 0);
    CHECK_UINT(ma->total_planned, 194080);
    CHECK_UINT(ma->peak, 194080);
    CHECK_INT(ma->peak_instruction, 7);
    CHECK_STR(ma->instructions[7].op, "aten::addmm.out");
    CHECK_STR(ma->instructions[6].op, "aten::permute_copy.out");
    /* every non-view tensor once: 310,792 bytes; reuse saves 116,712 */
    CHECK_UINT(ma->pools[0].no_reuse_bytes, 310792);
    /* ten FLOAT constants of 61,706 elements */
    CHECK_UINT(ma->constant_bytes, 246824);
    const memory_tensor *in = tensor_of(ma, 10), *v57 = tensor_of(ma, 57), *v71 = tensor_of(ma, 71);
    const memory_tensor *v28 = tensor_of(ma, 28), *out = tensor_of(ma, 92), *v72 = tensor_of(ma, 72);
    CHECK(in && v57 && v71 && v28 && out && v72);
    CHECK(in->is_input && in->first == 0 && in->last == 0 && in->producer == -1);
    CHECK_INT(v71->alias_of, 57);
    CHECK(v57->first == 5 && v57->last == 7 && v71->first == 5 && v71->last == 7);
    CHECK(v57->producer == 5 && v28->producer == 2 && v28->nbytes == 9408);
    CHECK(out->is_output && out->first == 13 && out->last == 13 && out->nbytes == 40);
    CHECK(v72->offset == 0 && v72->nbytes == 192000 && v72->first == 6 && v72->last == 7);
    /* instruction 7 writes value 76 (480 bytes); instruction 2 both
     * outputs of max_pool2d_with_indices (4,704 + 9,408) */
    CHECK_UINT(ma->instructions[7].allocates, 480);
    CHECK_UINT(ma->instructions[2].allocates, 14112);
    uint32_t idx[32];
    CHECK_UINT(memory_live_at(ma, 7, idx), 4); /* 57, 71, 72, 76 */
    CHECK(!ma->has_runtime);
    done(&l);
}

/* One pool of 48 bytes, three 4-byte FLOATs at 0, 16 and 32: 12 bytes as
 * stored, 48 rounded to the 16-byte alignment; waste 36. */
TEST(add_alignment_waste)
{
    loaded l;
    if (analyse("executorch/add.pte", &l, NULL) < 0) {
        CHECK(test_current_skipped);
        return;
    }
    const memory_analysis *ma = l.ma;
    CHECK(ma->available && ma->n_pools == 1 && ma->n_instructions == 1);
    CHECK_UINT(ma->pools[0].size, 48);
    CHECK_UINT(ma->pools[0].peak, 12);
    CHECK_UINT(ma->pools[0].peak_aligned, 48);
    CHECK_UINT(ma->pools[0].waste, 36);
    CHECK_INT(ma->pools[0].peak_instruction, 0);
    CHECK_STR(ma->instructions[0].op, "aten::add.out");
    CHECK_UINT(ma->constant_bytes, 0);
    done(&l);
}

/* int8 Cortex-M kernels: the pool is full from instruction 2 to 12 (the
 * first is reported); zero-byte scratch tensors at offset 8,000 and the
 * [1, 64] view of the pooled [1, 64, 1, 1] tensor merge with their base. */
TEST(kws_plateau)
{
    loaded l;
    if (analyse("executorch/kws-cortex-m.pte", &l, NULL) < 0) {
        CHECK(test_current_skipped);
        return;
    }
    const memory_analysis *ma = l.ma;
    static const uint64_t live[16] = {2450, 8490, 16000, 16000, 16000, 16000, 16000, 16000,
                                      16000, 16000, 16000, 16000, 16000, 8320, 76, 60};
    bool ok = ma->available && ma->n_pools == 1 && ma->n_instructions == 16;
    for (uint32_t k = 0; ok && k < 16; k++)
        ok = ma->instructions[k].live == live[k];
    CHECK(ok);
    CHECK_UINT(ma->pools[0].size, 16000);
    CHECK_UINT(ma->pools[0].peak, 16000);
    CHECK_INT(ma->pools[0].peak_instruction, 2);
    CHECK_UINT(ma->pools[0].no_reuse_bytes, 98830);
    const memory_tensor *v271 = tensor_of(ma, 271), *v129 = tensor_of(ma, 129);
    CHECK(v271 && v271->alias_of == 257);
    CHECK(v129 && v129->alias_of == 113 && v129->nbytes == 0);
    done(&l);
}

/* The deprecated constant_buffer layout: input [0, 16) read at 0, the mul's
 * result [16, 32) until 1, the output reuses [0, 16) at 1. */
TEST(module_linear)
{
    loaded l;
    if (analyse("executorch/module-linear-no-constant-segment.pte", &l, NULL) < 0) {
        CHECK(test_current_skipped);
        return;
    }
    const memory_analysis *ma = l.ma;
    CHECK(ma->available && ma->n_pools == 1 && ma->n_instructions == 2);
    CHECK(ma->instructions[0].live == 32 && ma->instructions[1].live == 32);
    CHECK_UINT(ma->pools[0].peak, 32);
    CHECK_INT(ma->pools[0].peak_instruction, 0);
    CHECK_UINT(ma->pools[0].no_reuse_bytes, 48);
    CHECK_UINT(ma->constant_bytes, 32); /* two [2, 2] FLOAT constants */
    done(&l);
}

static void set_pool_size(loaded *l, const pte_program *p, int64_t v)
{
    uint64_t at = p->plans[0].non_const_buffer_sizes_offset + 8;
    for (int i = 0; i < 8; i++)
        l->data[at + (uint64_t)i] = (char)(((uint64_t)v >> (8 * i)) & 0xFF);
}

static void pool_8(loaded *l, const pte_program *p) { set_pool_size(l, p, 8); }
static void pool_negative(loaded *l, const pte_program *p) { set_pool_size(l, p, -1); }

TEST(tensor_past_pool_end)
{
    loaded l;
    if (analyse("executorch/add.pte", &l, pool_8) < 0) {
        CHECK(test_current_skipped);
        return;
    }
    const memory_analysis *ma = l.ma;
    CHECK(!ma->available);
    char want[256];
    snprintf(want, sizeof want,
             "x.pte: tensor bytes [16, 20) extend past pool 1 (8 bytes) at byte %llu "
             "(execution_plan[0].values[1].val.allocation_info)",
             (unsigned long long)l.p->plans[0].values[1].tensor.allocation_offset);
    CHECK_STR(ma->reason, want);
    /* the table's offset is real: memory_offset_low (16) is one of its fields */
    CHECK(l.p->plans[0].values[1].tensor.allocation_offset > 0 &&
          l.p->plans[0].values[1].tensor.allocation_offset < l.size);
    done(&l);
}

TEST(negative_pool_size)
{
    loaded l;
    if (analyse("executorch/add.pte", &l, pool_negative) < 0) {
        CHECK(test_current_skipped);
        return;
    }
    char want[200];
    snprintf(want, sizeof want,
             "x.pte: pool 1 has a negative size -1 at byte %llu (execution_plan[0].non_const_buffer_sizes[1])",
             (unsigned long long)(l.p->plans[0].non_const_buffer_sizes_offset + 8));
    CHECK(!l.ma->available);
    CHECK_STR(l.ma->reason, want);
    done(&l);
}

/* The metrics of LeNet as the result model holds them. */
TEST(lenet_metrics)
{
    loaded l;
    if (analyse("executorch/lenet.pte", &l, NULL) < 0) {
        CHECK(test_current_skipped);
        return;
    }
    mlia_result r;
    mlia_result_init(&r, &l.arena);
    mlia_result_add_metric(&r, mlia_metric_unavailable("peak_activation_memory", "bytes", "x"));
    memory_add_metrics(l.ma, &r);
    const mlia_metric *m = mlia_result_metric(&r, "peak_activation_memory");
    CHECK(m && m->type == MLIA_VALUE_UINT && m->u == 194080);
    CHECK_STR(r.metrics[0].name, "peak_activation_memory"); /* replaced in place */
    m = mlia_result_metric(&r, "memory_pool_size");
    CHECK(m && m->u == 194080 && strcmp(mlia_metric_qualifier(m, "pool"), "1") == 0);
    uint32_t n_live = 0;
    for (uint32_t i = 0; i < r.n_metrics; i++)
        if (strcmp(r.metrics[i].name, "live_bytes") == 0) {
            CHECK_STR(r.metrics[i].unit, "bytes");
            if (n_live == 7)
                CHECK(r.metrics[i].u == 194080 && strcmp(mlia_metric_qualifier(&r.metrics[i], "instruction"), "7") == 0);
            n_live++;
        }
    CHECK_UINT(n_live, 14);
    done(&l);
}

int main(void)
{
    RUN(lenet_hand_derivation);
    RUN(add_alignment_waste);
    RUN(kws_plateau);
    RUN(module_linear);
    RUN(tensor_past_pool_end);
    RUN(negative_pool_size);
    RUN(lenet_metrics);
    return test_summary();
}
