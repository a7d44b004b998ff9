/*
 * test_nx_analysis.c - NX analysis end to end on in-memory ETDump structs
 * (docs/formats/nx-statistics.md §8-9; worked examples 3, 4, 24, 27, 28 of §10; warning
 * catalogue W1-W11; record-context errors).
 */
#include <stdarg.h>

#include "backends/vgf/analysis/nx_analysis.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/json_write.h"
#include "backends/vgf/report/inspect_nx.h"
#include "test.h"

static mlia_arena A;

/* ---------------- payload builders ---------------- */

static char *b64(const void *data, size_t n)
{
    static const char T[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const uint8_t *p = data;
    char *o = mlia_arena_alloc(&A, n / 3 * 4 + 8);
    size_t k = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)p[i] << 16 | (i + 1 < n ? (uint32_t)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
        o[k++] = T[v >> 18 & 63];
        o[k++] = T[v >> 12 & 63];
        o[k++] = i + 1 < n ? T[v >> 6 & 63] : '=';
        o[k++] = i + 2 < n ? T[v & 63] : '=';
    }
    o[k] = 0;
    return o;
}

#define DB0                                                                                                \
    "id\ttosa_op\tapi_labels\n10\tConv2D\tTOSACONV2D_spirv_id_504;\n----\nid\tapi_label\n100\tTOSACONV2D_" \
    "spirv_id_504\n----\nid\ttosa_op_ids\n20\t10;\n----\nid\tfused_op_ids\n30\t20;\n----\nid\tcascade_op_"  \
    "ids\n40\t30;\n----\nid\top_id\tcascade_op_id\n0\t30\t40\n----\nid\tstripe_op_id\n0\t0\n"

static const char *blob(const void *d, size_t n, bool is_text)
{
    return mlia_arena_printf(&A,
                             "{\"available\":true,\"is_text\":%s,\"vulkan_result\":0,\"size\":%zu,\"encoding\":\"base64\","
                             "\"reason\":\"\",\"data\":\"%s\"}",
                             is_text ? "true" : "false", n, b64(d, n));
}

static const char *unavail(const char *reason)
{
    return mlia_arena_printf(&A,
                             "{\"available\":false,\"is_text\":false,\"vulkan_result\":0,\"size\":0,\"encoding\":\"base64\","
                             "\"reason\":\"%s\",\"data\":\"\"}",
                             reason);
}

/* memory of n words, word i = v[i] for the listed pairs */
static const char *memory(size_t n, int pairs, ...)
{
    uint8_t *w = mlia_arena_array(&A, n, 4);
    va_list ap;
    va_start(ap, pairs);
    for (int i = 0; i < pairs; i++) {
        size_t idx = va_arg(ap, size_t);
        uint32_t v = va_arg(ap, uint32_t);
        w[4 * idx] = (uint8_t)v;
        w[4 * idx + 1] = (uint8_t)(v >> 8);
        w[4 * idx + 2] = (uint8_t)(v >> 16);
        w[4 * idx + 3] = (uint8_t)(v >> 24);
    }
    va_end(ap);
    return blob(w, n * 4, false);
}

static const char *info_u32_0(void)
{
    static const uint8_t z[4] = {0};
    return blob(z, 4, false);
}

static const char *segment(unsigned id, bool graph, const char *db, const char *info, const char *mem)
{
    return mlia_arena_printf(&A,
                             "{\"segment_id\":%u,\"is_data_graph_pipeline\":%s,\"statistics_bind_point_available\":true,"
                             "\"debug_database\":%s,\"statistics_info\":%s,\"statistics_memory\":%s}",
                             id, graph ? "true" : "false", db, info, mem);
}

#define MODE0 "{\"executorch_index\":0,\"vulkan_value\":1,\"vulkan_name\":\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS0_ARM\"}"
#define MODE1 "{\"executorch_index\":1,\"vulkan_value\":2,\"vulkan_name\":\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM\"}"
#define TARGET_G1 "{\"available\":true,\"device_name\":\"Mali-G1\",\"vendor_id\":5045,\"device_id\":1,\"driver_version\":1}"
#define TARGET_G2 "{\"available\":true,\"device_name\":\"Mali-G2-Pro-NX MC1\",\"vendor_id\":5045,\"device_id\":7,\"driver_version\":11}"
#define NO_LAYOUT "{\"available\":false,\"schema_id\":\"\",\"schema_version\":0,\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":0,\"leading_block_count\":0,\"reason\":\"No registered neural statistics counter layout for target\"}"
#define LAYOUT_G2M1 "{\"available\":true,\"schema_id\":\"arm.mali-g2.neural-statistics.mode1\",\"schema_version\":1,\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":64,\"leading_block_count\":1,\"reason\":\"\"}"

static const char *wrapper(int version, const char *v2, bool available, const char *reason, const char *segs)
{
    return mlia_arena_printf(&A,
                             "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":%d,\"backend\":\"VgfBackend\","
                             "\"api\":\"VK_ARM_data_graph\",\"event_name\":\"VGF_NEURAL_STATISTICS\",\"api_available\":true,"
                             "\"data_available\":%s,\"available\":%s,\"reason\":\"%s\"%s,\"segments\":[%s]}",
                             version, available ? "true" : "false", available ? "true" : "false", reason, v2, segs);
}

static const char *v2(const char *mode, const char *target, const char *layout)
{
    return mlia_arena_printf(&A, ",\"statistics_mode\":%s,\"target\":%s,\"counter_layout\":%s", mode, target, layout);
}

/* ---------------- ETDump builder ---------------- */

#define MAX_RUNS 8
#define MAX_EVENTS 16

typedef struct dump_builder {
    etdump d;
    etdump_run runs[MAX_RUNS];
    etdump_event events[MAX_RUNS][MAX_EVENTS];
} dump_builder;

static dump_builder *new_dump(int n_runs, const char *const *names)
{
    dump_builder *b = mlia_arena_alloc(&A, sizeof *b);
    b->d.n_runs = (uint32_t)n_runs;
    b->d.runs = b->runs;
    for (int i = 0; i < n_runs; i++) {
        b->runs[i].name = mlia_str_c(names[i]);
        b->runs[i].mem_events = b->events[i];
    }
    return b;
}

static etdump_event *add_event(dump_builder *b, int run, int64_t chain, int32_t instr, const char *name,
                               const char *meta)
{
    etdump_run *r = &b->runs[run];
    etdump_event *e = &b->events[run][r->n_events++];
    memset(e, 0, sizeof *e);
    e->kind = ETDUMP_EVENT_PROFILE;
    e->chain_index = chain;
    e->instruction_id = instr;
    e->delegate_debug_id_int = -1;
    e->name = mlia_str_c(name);
    if (meta) {
        e->has_metadata = true;
        e->metadata = (const uint8_t *)meta;
        e->metadata_size = (uint32_t)strlen(meta);
        e->delegate_debug_id_str = mlia_str_c("VGF_NEURAL_STATISTICS");
        e->name.ptr = NULL;
        e->name.len = 0;
    }
    return e;
}

/* a VGF delegate call: some plain events then the statistics record */
static void add_call(dump_builder *b, int run, int64_t chain, int32_t instr, const char *meta)
{
    add_event(b, run, chain, instr, "VGF_DISPATCH_AND_WAIT", NULL);
    etdump_event *e = add_event(b, run, chain, instr, "VGF_COPY_INPUTS", NULL);
    e->has_metadata = true; /* empty metadata vector: skipped */
    add_event(b, run, chain, instr, NULL, meta);
    add_event(b, run, chain, instr, "DELEGATE_CALL", NULL);
}

static int analyse(dump_builder *b, const uint32_t *runs, uint32_t n, const nx_segment_vgf *vgf, uint32_t n_vgf,
                   nx_result **res, mlia_error *e)
{
    static const char *const nodes[] = {"conv", "tosa_conv2d_default", "relu"};
    nx_inputs in = {"run.etdump", &b->d, runs, n, vgf, n_vgf, nodes, 3, NULL};
    mlia_error_clear(e);
    return nx_analyse(&in, &A, res, e);
}

static const nx_chain *chain_by_id(const nx_result *r, const char *id)
{
    for (uint32_t i = 0; i < r->n_chains; i++)
        if (strcmp(r->chains[i].id, id) == 0)
            return &r->chains[i];
    return NULL;
}

static const nx_segment *segment_by_id(const nx_result *r, const char *id)
{
    for (uint32_t i = 0; i < r->n_segments; i++)
        if (strcmp(r->segments[i].id, id) == 0)
            return &r->segments[i];
    return NULL;
}

static bool has_warning(const nx_result *r, const char *w)
{
    for (uint32_t i = 0; i < r->n_warnings; i++)
        if (strcmp(r->warnings[i], w) == 0)
            return true;
    return false;
}

static int counter_index(const nx_result *r, const char *label)
{
    for (uint32_t i = 0; i < r->n_counters; i++)
        if (strcmp(r->counter_labels[i], label) == 0)
            return (int)i;
    return -1;
}

/* ---------------- example 27 ---------------- */

static const char *example27_payload(uint32_t seg4_word0)
{
    const char *s2 = segment(2, true, blob(DB0, 249, false), info_u32_0(), memory(16, 3, (size_t)0, 10u, (size_t)1, 20u, (size_t)2, 30u));
    const char *pipe = "Segment is not a data graph pipeline";
    const char *s3 = segment(3, false, unavail(pipe), unavail(pipe), unavail(pipe));
    const char *s4 = segment(4, true, blob(DB0, 249, false), info_u32_0(),
                             memory(16, 3, (size_t)0, seg4_word0, (size_t)1, 20u, (size_t)2, 30u));
    return wrapper(2, v2(MODE0, TARGET_G1, NO_LAYOUT), true, "",
                   mlia_arena_printf(&A, "%s,%s,%s", s2, s3, s4));
}

static nx_segment_vgf *example27_vgf(uint32_t *n)
{
    static uint32_t ids[] = {504};
    static const char *names[] = {NULL};
    nx_segment_vgf *v = mlia_arena_array(&A, 5, sizeof *v);
    v[2].name = "graph-two";
    v[2].has_name_map = true;
    v[2].name_map = (nx_name_map){1, ids, names};
    v[3].name = "compute-three";
    v[4].name = "graph-four";
    v[4].has_name_map = true;
    v[4].name_map = (nx_name_map){1, ids, names};
    *n = 5;
    return v;
}

TEST(end_to_end_example27)
{
    const char *names[] = {"Default", "Execute"};
    dump_builder *b = new_dump(2, names);
    add_event(b, 0, 0, -1, "Method::init", NULL);
    add_call(b, 1, 0, 1, example27_payload(11));
    uint32_t runs[] = {1}, nv;
    nx_segment_vgf *vgf = example27_vgf(&nv);
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 1, vgf, nv, &r, &e), 0);
    CHECK(r->any_record && r->any_measurement && r->resolved);
    CHECK_INT(r->mode, 0);
    CHECK_STR(r->device, "Mali-G1");
    CHECK(!r->mode_assumed && !r->device_assumed);
    CHECK_STR(r->device_name, "Mali-G1");
    CHECK_INT(r->n_warnings, 1);
    CHECK_STR(r->warnings[0], "VGF compute segment(s) 3 will not be estimated by the NX Performance Estimator and "
                              "will not contribute to performance totals.");
    CHECK(r->model.available);
    CHECK_UINT(r->model.total.p50, 121);
    CHECK_UINT(r->model.compute.p50, 121);
    CHECK_DBL(r->model.utilization_stat.p50, 100.0);
    CHECK_INT(r->model.total.samples, 1);
    CHECK_INT(r->n_segments, 3);
    const nx_segment *s2 = segment_by_id(r, "segment/2");
    CHECK(s2);
    CHECK_STR(s2->display_name, "graph-two");
    CHECK(s2->is_graph && s2->measured);
    CHECK_DBL(s2->coverage, 100.0);
    CHECK_INT(s2->n_recorded, 1);
    CHECK_INT(s2->recorded_runs[0], 1);
    CHECK(!segment_by_id(r, "segment/3")->is_graph);
    CHECK_INT(s2->n_cascades, 1);
    const nx_cascade *c = &r->cascades[s2->first_cascade];
    CHECK_STR(c->id, "cascade/segment_2/40");
    CHECK_STR(c->name, "graph-two/Cascade 40");
    CHECK_INT(c->n_chains, 1);
    const nx_chain *h = chain_by_id(r, "chain/segment_2/30");
    CHECK(h);
    CHECK_STR(h->name, "graph-two/Chain 30");
    CHECK_INT(h->n_stripes, 1);
    CHECK_INT(h->stripe_ids[0], 0);
    CHECK(&r->cascades[h->parent_cascade] == c);
    CHECK(&r->chains[c->chains[0]] == h);
    CHECK_UINT(h->m.total.p50, 60);
    CHECK_INT(h->m.total.samples, 1);
    CHECK_UINT(h->m.op.p50, 60);
    CHECK(h->m.has_counters);
    CHECK_INT(r->n_counters, 16);
    CHECK_UINT(h->m.counter_stats[0].p50, 10);
    CHECK_UINT(h->m.counter_stats[1].p50, 20);
    CHECK_UINT(h->m.counter_stats[2].p50, 30);
    for (int k = 3; k < 16; k++)
        CHECK_UINT(h->m.counter_stats[k].p50, 0);
    CHECK_INT(h->n_ops, 1);
    const nx_compiler_op *op = &r->ops[h->ops[0]];
    CHECK_STR(op->id, "compiler_operation/segment_2/tosa-10");
    CHECK_STR(op->name, "Conv2D");
    CHECK(op->has_spirv_id);
    CHECK_STR(op->spirv_id, "504");
    CHECK_INT(op->n_vgf_ids, 1);
    CHECK_STR(op->vgf_ids[0], "source_operator/segment_2/spirv-504");
    CHECK_INT(op->n_parents, 1);
    CHECK(&r->chains[op->parents[0]] == h);
    const nx_stripe *st = &r->stripes[s2->first_stripe];
    CHECK_STR(st->id, "stripe/segment_2/0");
    CHECK_STR(st->name, "Stripe 0");
    CHECK(&r->chains[st->chain] == h);
    CHECK_UINT(st->m.total.p50, 60);
    const nx_chain *h4 = chain_by_id(r, "chain/segment_4/30");
    CHECK(h4);
    CHECK_STR(h4->name, "graph-four/Chain 30");
    CHECK_UINT(h4->m.total.p50, 61);
    CHECK_UINT(h4->m.counter_stats[0].p50, 11);
    const nx_segment *s4 = segment_by_id(r, "segment/4");
    CHECK_UINT(s4->m.total.p50, 61);
    CHECK_DBL(s4->coverage, 100.0);
    /* no association: the label is not a node name */
    CHECK_INT(r->n_ops_associated, 0);
}

TEST(end_to_end_example27_spirv_mismatch)
{
    const char *names[] = {"Execute"};
    dump_builder *b = new_dump(1, names);
    add_call(b, 0, 0, 1, example27_payload(11));
    uint32_t runs[] = {0}, nv;
    nx_segment_vgf *vgf = example27_vgf(&nv);
    static uint32_t other[] = {7};
    static const char *nn[] = {NULL};
    vgf[2].name_map = (nx_name_map){1, other, nn};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 1, vgf, nv, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 0, plan chain 0, instruction 1, segment 2): Debug label "
                      "'TOSACONV2D_spirv_id_504' references SPIR-V result ID 504, which is not present in supplied VGF "
                      "segment 2.");
}

/* ---------------- example 28 ---------------- */

static const char *ex28_payload(uint32_t active, const char *mem_reason)
{
    const char *mem = mem_reason ? unavail(mem_reason) : memory(64, 1, (size_t)1, active);
    return wrapper(2, v2(MODE1, TARGET_G2, LAYOUT_G2M1), true, "",
                   segment(0, true, blob(DB0, 249, false), blob("0\n", 2, true), mem));
}

static dump_builder *ex28_dump(void)
{
    static const char *const names[] = {"Default", "Execute", "Execute", "Execute"};
    dump_builder *b = new_dump(4, names);
    add_event(b, 0, 0, -1, "Program::load_method", NULL);
    return b;
}

TEST(multi_execution_example28)
{
    dump_builder *b = ex28_dump();
    add_call(b, 1, 0, 2, ex28_payload(100, NULL));
    add_call(b, 2, 0, 2, ex28_payload(120, NULL));
    add_call(b, 3, 0, 2, ex28_payload(110, NULL));
    uint32_t runs[] = {1, 2, 3};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 3, NULL, 0, &r, &e), 0);
    CHECK_INT(r->n_warnings, 0);
    CHECK_INT(r->mode, 1);
    CHECK_STR(r->device, "Mali-G2");
    CHECK(r->has_leading_block_count);
    CHECK_INT(r->leading_block_count, 1);
    CHECK_INT(r->n_counters, 31);
    const nx_chain *h = chain_by_id(r, "chain/segment_0/30");
    CHECK(h);
    CHECK_STR(h->name, "Chain 30");
    CHECK_UINT(h->m.total.p50, 110);
    CHECK_UINT(h->m.total.min, 100);
    CHECK_UINT(h->m.total.max, 120);
    CHECK_INT(h->m.total.samples, 3);
    CHECK_UINT(h->m.op.p50, 110);
    int na = counter_index(r, "nx_active");
    CHECK_INT(na, 0);
    CHECK_UINT(h->m.counter_stats[na].p50, 110);
    CHECK_UINT(h->m.counter_stats[counter_index(r, "me_src1_stall")].max, 0);
    /* per-execution values, aligned with recorded_runs */
    const nx_segment *s = segment_by_id(r, "segment/0");
    CHECK_STR(s->display_name, "segment/0");
    CHECK_INT(s->n_recorded, 3);
    CHECK_INT(s->recorded_runs[1], 2);
    CHECK_UINT(s->m.total_cycles[1], 120);
    CHECK(r->model.available);
    CHECK_UINT(r->model.total.p50, 110);
    CHECK_INT(r->model.total.samples, 3);
    CHECK_DBL(r->model.utilization_stat.p50, 100.0);
    CHECK_DBL(s->coverage, 100.0);
    /* the Default run is not an execution */
    CHECK_INT(r->n_records, 3);
}

TEST(multi_execution_example28_unavailable_run)
{
    dump_builder *b = ex28_dump();
    add_call(b, 1, 0, 2, ex28_payload(100, NULL));
    add_call(b, 2, 0, 2, ex28_payload(0, "Neural accelerator statistics memory is not host visible"));
    add_call(b, 3, 0, 2, ex28_payload(110, NULL));
    uint32_t runs[] = {1, 2, 3};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 3, NULL, 0, &r, &e), 0);
    const nx_chain *h = chain_by_id(r, "chain/segment_0/30");
    CHECK_INT(h->m.total.samples, 2);
    CHECK_UINT(h->m.total.p50, 100);
    CHECK_UINT(h->m.total.min, 100);
    CHECK_UINT(h->m.total.max, 110);
    const nx_segment *s = segment_by_id(r, "segment/0");
    CHECK_DBL(s->coverage, 66.66666666666667);
    CHECK(s->coverage == 100.0 * 2 / 3);
    CHECK_INT(s->n_recorded, 2);
    CHECK_INT(s->recorded_runs[0], 1);
    CHECK_INT(s->recorded_runs[1], 3);
    CHECK_INT(r->n_warnings, 1);
    CHECK_STR(r->warnings[0], "VGF segment 0 statistics memory was unavailable in 1 of 3 record(s): Neural "
                              "accelerator statistics memory is not host visible");
    CHECK(r->model.available);
    CHECK_INT(r->model.total.samples, 2);
}

TEST(multi_execution_example28_two_records_in_run)
{
    dump_builder *b = ex28_dump();
    add_call(b, 1, 0, 2, ex28_payload(50, NULL));
    add_call(b, 1, 0, 2, ex28_payload(70, NULL));
    add_call(b, 2, 0, 2, ex28_payload(120, NULL));
    add_call(b, 3, 0, 2, ex28_payload(110, NULL));
    uint32_t runs[] = {1, 2, 3};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 3, NULL, 0, &r, &e), 0);
    const nx_segment *s = segment_by_id(r, "segment/0");
    CHECK_INT(s->n_recorded, 3);
    CHECK_UINT(s->m.total_cycles[0], 120);
    CHECK_UINT(s->m.total.p50, 120);
    CHECK_UINT(s->m.total.min, 110);
    CHECK_UINT(r->model.total.p50, 120);
    /* one of the two records of run 1 lacks the measurement: run 1 not recorded */
    b = ex28_dump();
    add_call(b, 1, 0, 2, ex28_payload(50, NULL));
    add_call(b, 1, 0, 2, ex28_payload(0, "Neural accelerator statistics memory is not bound"));
    add_call(b, 2, 0, 2, ex28_payload(120, NULL));
    CHECK_INT(analyse(b, runs, 3, NULL, 0, &r, &e), 0);
    s = segment_by_id(r, "segment/0");
    CHECK_INT(s->n_recorded, 1);
    CHECK_INT(s->recorded_runs[0], 2);
    CHECK_STR(r->warnings[0], "VGF segment 0 statistics memory was unavailable in 1 of 3 record(s): Neural "
                              "accelerator statistics memory is not bound");
}

TEST(multi_execution_example28_two_call_sites)
{
    dump_builder *b = ex28_dump();
    for (int run = 1; run <= 3; run++) {
        add_call(b, run, 0, 2, ex28_payload(100 + (uint32_t)run, NULL));
        if (run < 3)
            add_call(b, run, 0, 5, ex28_payload(7, NULL));
    }
    uint32_t runs[] = {1, 2, 3};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 3, NULL, 0, &r, &e), 0);
    CHECK_INT(r->n_segments, 2);
    CHECK_STR(r->segments[0].id, "segment/0.2.0");
    CHECK_STR(r->segments[1].id, "segment/0.5.0");
    const char *why = "NX statistics were recorded in different executions for different segments: segment/0.2.0 "
                      "in executions 1, 2, 3; segment/0.5.0 in executions 1, 2.";
    CHECK(!r->model.available);
    CHECK_STR(r->model.reason, why);
    CHECK_INT(r->n_warnings, 1);
    CHECK_STR(r->warnings[0], why);
    CHECK(chain_by_id(r, "chain/segment_0.2.0/30"));
    CHECK(chain_by_id(r, "chain/segment_0.5.0/30"));
    CHECK_UINT(chain_by_id(r, "chain/segment_0.5.0/30")->m.total.p50, 7);
    CHECK_DBL(r->segments[1].coverage, 100.0 * 2 / 3);
    CHECK_STR(r->stripes[r->segments[1].first_stripe].id, "stripe/segment_0.5.0/0");
    CHECK_STR(r->ops[r->segments[1].first_op].id, "compiler_operation/segment_0.5.0/tosa-10");
}

/* ---------------- examples 3, 4 and the warning catalogue ---------------- */

TEST(unavailable_payload_example3)
{
    const char *names[] = {"Execute"};
    dump_builder *b = new_dump(1, names);
    const char *u = unavail("");
    add_call(b, 0, 0, 1, wrapper(2, v2(MODE1, TARGET_G2, LAYOUT_G2M1), false, "Statistics data unavailable",
                                 segment(7, true, u, u, u)));
    uint32_t runs[] = {0};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 1, NULL, 0, &r, &e), 0);
    CHECK(r->any_record && !r->any_measurement && !r->resolved);
    CHECK_INT(r->n_warnings, 1);
    CHECK_STR(r->warnings[0], "VGF neural statistics were unavailable in 1 of 1 record(s): Statistics data unavailable");
    CHECK(!r->model.available);
    CHECK_STR(r->model.reason, "VGF neural statistics contain no available statistics memory.");
    CHECK_INT(r->n_segments, 0);
}

TEST(schema_v1_example4)
{
    const char *names[] = {"Execute"};
    dump_builder *b = new_dump(1, names);
    add_call(b, 0, 0, 1, wrapper(1, "", true, "", segment(0, true, blob(DB0, 249, false), info_u32_0(),
                                                          memory(64, 1, (size_t)1, 5u))));
    uint32_t runs[] = {0};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 1, NULL, 0, &r, &e), 0);
    CHECK(r->mode_assumed && r->device_assumed);
    CHECK_INT(r->n_warnings, 2);
    CHECK_STR(r->warnings[0], "Statistics mode not recorded in the capture; assumed mode 1.");
    CHECK_STR(r->warnings[1], "Device not recorded in the capture; assumed Mali-G2.");
    CHECK(r->model.available);
    CHECK_UINT(r->model.total.p50, 5);
}

TEST(no_records_w3)
{
    const char *names[] = {"Execute"};
    dump_builder *b = new_dump(1, names);
    add_event(b, 0, 0, -1, "Method::execute", NULL);
    add_call(b, 0, 0, 1, "{\"schema\":\"other\",\"schema_version\":1}");
    uint32_t runs[] = {0};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 1, NULL, 0, &r, &e), 0);
    CHECK(!r->any_record);
    CHECK_INT(r->n_warnings, 1);
    CHECK(has_warning(r, "No VGF neural statistics were found in the ETDump."));
    CHECK_STR(r->model.reason, "No VGF neural statistics were found in the ETDump.");
}

TEST(warnings_w4_to_w9_in_order)
{
    const char *names[] = {"Execute", "Execute"};
    dump_builder *b = new_dump(2, names);
    /* run 0: an unavailable record with no reason, and a record where
     * segment 0 has memory but no debug database and a mis-sized info;
     * segment 1 has memory but no info; segment 2's DB references an
     * unknown fused op */
    const char *db_unknown = "x\n----\nx\n----\nid\ttosa_op_ids\n----\nid\tfused_op_ids\n30\t20;21;\n----\nx\n----\n"
                             "id\top_id\tcascade_op_id\n0\t30\t40\n----\nid\tstripe_op_id\n0\t0\n";
    const char *info = "{\"available\":true,\"is_text\":false,\"size\":9,\"encoding\":\"base64\",\"data\":\"AAAAAA==\"}";
    const char *segs = mlia_arena_printf(
        &A, "%s,%s,%s", segment(0, true, unavail("gone"), info, memory(64, 1, (size_t)1, 3u)),
        segment(1, true, unavail(""), unavail("no info"), memory(64, 1, (size_t)1, 4u)),
        segment(2, true, blob(db_unknown, strlen(db_unknown), false), info_u32_0(), memory(64, 1, (size_t)1, 9u)));
    add_call(b, 0, 0, 1, wrapper(1, "", false, "", ""));
    add_call(b, 1, 0, 1, wrapper(1, "", true, "", segs));
    uint32_t runs[] = {0, 1};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), 0);
    const char *want[] = {
        "Statistics mode not recorded in the capture; assumed mode 1.",
        "Device not recorded in the capture; assumed Mali-G2.",
        "VGF neural statistics were unavailable in 1 of 2 record(s): no reason given",
        "VGF segment 1 has no statistics info; its statistics memory cannot be interpreted.",
        "VGF segment 0 has no debug database; NX chains and cascades are synthesized per stripe.",
        "VGF segment 0 statistics_info declares size 9 but decodes to 4 bytes.",
        "Debug database of VGF segment 2 references unknown fused operation '21'; the reference is ignored.",
        "NX statistics were recorded in different executions for different segments: segment/0 in executions 1; "
        "segment/1 in executions none; segment/2 in executions 1.",
    };
    for (uint32_t i = 0; i < r->n_warnings && i < 8; i++)
        CHECK_STR(r->warnings[i], want[i]);
    CHECK_INT(r->n_warnings, 8);
    /* segment 2: fused 20 has no TOSA entry -> synthesized tosa_0 */
    const nx_chain *h = chain_by_id(r, "chain/segment_2/30");
    CHECK(h);
    CHECK_INT(h->n_ops, 1);
    CHECK_STR(r->ops[h->ops[0]].id, "compiler_operation/segment_2/tosa-tosa_0");
    CHECK_STR(r->ops[h->ops[0]].name, "NeuralOp");
    CHECK(!r->ops[h->ops[0]].has_spirv_id);
    /* segment 0: fully synthesized (example 24 shape) */
    const nx_chain *h0 = chain_by_id(r, "chain/segment_0/chain_0");
    CHECK(h0);
    CHECK_STR(h0->name, "Chain 0");
    CHECK_STR(r->cascades[h0->parent_cascade].id, "cascade/segment_0/cascade_0");
    CHECK_STR(r->cascades[h0->parent_cascade].name, "Cascade 0");
    CHECK_INT(r->ops[h0->ops[0]].n_vgf_ids, 0);
    CHECK_STR(r->ops[h0->ops[0]].labels[0], "profiling-stripe/0");
    CHECK(!r->model.available);
}

TEST(associations)
{
    const char *names[] = {"Execute"};
    dump_builder *b = new_dump(1, names);
    const char *db = "id\ttosa_op\tapi_labels\n"
                     "10\tConv2D\t{\"aten_info\":{\"node_name\":\"conv\",\"operator_name\":\"aten.convolution.default\"}};"
                     "TOSACONV2D_spirv_id_504;\n11\tClamp\trelu;\n12\tAdd\tunknown;\n----\nx\n----\n"
                     "id\ttosa_op_ids\n20\t10;11;\n21\t12;10;\n----\nid\tfused_op_ids\n30\t20;\n31\t21;\n----\nx\n----\n"
                     "id\top_id\tcascade_op_id\n0\t30\t40\n1\t31\t40\n----\nid\tstripe_op_id\n0\t0\n1\t1\n";
    const uint8_t info[8] = {0, 0, 0, 0, 1, 0, 0, 0};
    add_call(b, 0, 3, 4,
             wrapper(1, "", true, "", segment(0, true, blob(db, strlen(db), false), blob(info, 8, false),
                                              memory(2 * 256 * 64, 2, (size_t)1, 5u, (size_t)(256 * 64 + 1), 6u))));
    uint32_t runs[] = {0};
    nx_result *r;
    mlia_error e;
    CHECK_INT(analyse(b, runs, 1, NULL, 0, &r, &e), 0);
    CHECK_INT(r->n_ops, 3);
    CHECK_STR(r->ops[0].id, "compiler_operation/segment_0/tosa-10");
    CHECK_STR(r->ops[0].display_label, "conv");
    CHECK_STR(r->ops[0].operator_name, "aten.convolution.default");
    CHECK_STR(r->ops[0].spirv_id, "504");
    CHECK_INT(r->ops[0].n_sources, 1);
    CHECK_STR(r->ops[0].sources[0], "conv");
    CHECK_INT(r->ops[0].n_parents, 2);
    CHECK_INT(r->ops[1].n_sources, 1);
    CHECK_STR(r->ops[1].sources[0], "relu");
    CHECK_INT(r->ops[2].n_sources, 0);
    CHECK_INT(r->n_ops_associated, 2);
    CHECK_INT(r->n_sources_associated, 2);
    const nx_cascade *c = &r->cascades[0];
    CHECK_INT(c->n_chains, 2);
    CHECK_INT(c->n_stripes, 2);
    CHECK_UINT(c->m.total.p50, 11);
    const nx_chain *h31 = chain_by_id(r, "chain/segment_0/31");
    CHECK_INT(h31->n_tosa, 2);
    CHECK_STR(r->ops[h31->tosa_ops[0]].tosa_id, "12");
    CHECK_STR(r->ops[h31->tosa_ops[1]].tosa_id, "10");
    CHECK_UINT(h31->m.total.p50, 6);
}

/* ---------------- errors with record context ---------------- */

TEST(errors_with_context)
{
    const char *names[] = {"Execute", "Execute"};
    uint32_t runs[] = {0, 1};
    nx_result *r;
    mlia_error e;
    /* malformed metadata */
    dump_builder *b = new_dump(2, names);
    add_call(b, 1, 2, 3, "{\"schema\":\"executorch.vgf.neural_statistics\",");
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 1, plan chain 2, instruction 3): Malformed VGF neural "
                      "statistics delegate metadata");
    /* blob error names the segment */
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, wrapper(1, "", true, "", segment(5, true, unavail(""), "{\"available\":true,\"encoding\":\"hex\"}", unavail(""))));
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 0, plan chain 0, instruction 1, segment 5): "
                      "Unsupported VGF neural statistics blob encoding: hex");
    /* statistics memory error */
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, ex28_payload(1, NULL));
    add_call(b, 1, 0, 1, wrapper(2, v2(MODE1, TARGET_G2, LAYOUT_G2M1), true, "",
                                 segment(0, true, blob(DB0, 249, false), blob("0\n", 2, true), memory(32, 0))));
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 1, plan chain 0, instruction 1, segment 0): Mode1 "
                      "statistics size is not a multiple of the expected task size.");
    /* records disagree */
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, ex28_payload(1, NULL));
    add_call(b, 1, 0, 1, wrapper(2, v2(MODE0, TARGET_G1, NO_LAYOUT), true, "",
                                 segment(0, true, blob(DB0, 249, false), blob("0\n", 2, true), memory(16, 0))));
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 1, plan chain 0, instruction 1): VGF neural statistics "
                      "records disagree on statistics mode or device: 1 Mali-G2 vs 0 Mali-G1.");
    /* different static payloads */
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, ex28_payload(1, NULL));
    add_call(b, 1, 0, 1, wrapper(2, v2(MODE1, TARGET_G2, LAYOUT_G2M1), true, "",
                                 segment(0, true, blob(DB0, 249, false), blob("0 \n", 3, true), memory(64, 0))));
    add_call(b, 1, 0, 7, ex28_payload(1, NULL));
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 1, plan chain 0, instruction 1, segment 0): VGF segment "
                      "0.1.0 reports different statistics_info payloads in different records.");
    /* graph vs compute */
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, ex28_payload(1, NULL));
    add_call(b, 1, 0, 1, wrapper(1, "", true, "", segment(0, false, unavail(""), unavail(""), unavail(""))));
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 1, plan chain 0, instruction 1, segment 0): VGF segment "
                      "0 is a graph segment in some records and a compute segment in others.");
    /* statistics info error at first measurement; debug database error after memory checks */
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, wrapper(1, "", true, "", segment(0, true, blob("a\nb\n", 4, false), blob("x", 1, true),
                                                          memory(64, 1, (size_t)1, 1u))));
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 0, plan chain 0, instruction 1, segment 0): Textual "
                      "statistics info must contain only unsigned integer stripe IDs.");
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, wrapper(1, "", true, "", segment(0, true, blob("a\nb\n", 4, false), blob("0", 1, true),
                                                          memory(64, 1, (size_t)1, 1u))));
    CHECK_INT(analyse(b, runs, 2, NULL, 0, &r, &e), -1);
    CHECK_STR(e.text, "run.etdump: VGF neural statistics (run 0, plan chain 0, instruction 1, segment 0): Debug "
                      "database does not contain all expected profiling sections.");
    /* records outside the analysed executions are ignored entirely */
    b = new_dump(2, names);
    add_call(b, 0, 0, 1, "{\"schema\":\"executorch.vgf.neural_statistics\",");
    add_call(b, 1, 0, 1, ex28_payload(9, NULL));
    uint32_t only1[] = {1};
    CHECK_INT(analyse(b, only1, 1, NULL, 0, &r, &e), 0);
    CHECK_UINT(r->model.total.p50, 9);
}

TEST(inspect_records)
{
    dump_builder *b = ex28_dump();
    add_call(b, 1, 0, 2, ex28_payload(100, NULL));
    add_call(b, 2, 0, 2, "{\"schema\":\"executorch.vgf.neural_statistics\",");
    mlia_buf buf;
    mlia_buf_init(&buf);
    mlia_jw w;
    mlia_jw_init_buf(&w, &buf, false);
    mlia_error ierr;
    mlia_error_clear(&ierr);
    CHECK_INT(inspect_nx_records(&b->d, &w, &A, &ierr), 0);
    mlia_buf_putc(&buf, 0);
    CHECK_CONTAINS(buf.data, "\"run\":1,\"event\":2,\"chain_index\":0,\"instruction_id\":2,\"ordinal\":0,"
                             "\"schema_version\":2,\"available\":true");
    CHECK_CONTAINS(buf.data, "\"interpretation\":{\"mode\":1,\"device\":\"Mali-G2\",\"mode_assumed\":false,"
                             "\"device_assumed\":false,\"device_name\":\"Mali-G2-Pro-NX MC1\",\"leading_block_count\":1}");
    CHECK_CONTAINS(buf.data, "\"statistics_memory\":{\"available\":true,\"is_text\":false,\"declared_size\":256,"
                             "\"decoded_size\":256,\"reason\":\"\"}");
    CHECK_CONTAINS(buf.data, "\"stripe_ids\":[0],\"stripes\":[{\"stripe\":0,\"op_cycles\":100,\"total_cycles\":100,"
                             "\"counters\":{\"nx_active\":100,\"dl_active\":0");
    CHECK_CONTAINS(buf.data, "{\"run\":2,\"event\":2,\"chain_index\":0,\"instruction_id\":2,\"ordinal\":0,"
                             "\"error\":\"Malformed VGF neural statistics delegate metadata\"}");
    mlia_buf_free(&buf);
}

TEST(summaries)
{
    uint64_t v[4] = {40, 10, 30, 20};
    nx_stat s = nx_summarise(v, 4);
    CHECK_UINT(s.p50, 20);
    CHECK_UINT(s.min, 10);
    CHECK_UINT(s.max, 40);
    CHECK_INT(s.samples, 4);
    s = nx_summarise(v, 1);
    CHECK_UINT(s.p50, 40);
    CHECK(!nx_summarise(v, 0).available);
    double d[3] = {3.5, 1.5, 2.5};
    nx_dstat ds = nx_summarise_double(d, 3);
    CHECK_DBL(ds.p50, 2.5);
}

int main(void)
{
    mlia_arena_init(&A);
    RUN(end_to_end_example27);
    RUN(end_to_end_example27_spirv_mismatch);
    RUN(multi_execution_example28);
    RUN(multi_execution_example28_unavailable_run);
    RUN(multi_execution_example28_two_records_in_run);
    RUN(multi_execution_example28_two_call_sites);
    RUN(unavailable_payload_example3);
    RUN(schema_v1_example4);
    RUN(no_records_w3);
    RUN(warnings_w4_to_w9_in_order);
    RUN(associations);
    RUN(errors_with_context);
    RUN(inspect_records);
    RUN(summaries);
    mlia_arena_free(&A);
    return test_summary();
}
