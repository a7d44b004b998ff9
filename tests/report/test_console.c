/*
 * test_console.c - the console summary on hand-built results.
 *
 * The result structures are filled directly (not through result.c) so the
 * test pins exactly what the summary reads: metric names and the qualifiers
 * statistic/attribution, entity kinds, warnings in order.
 */
#include "analysis/display_name.h"
#include "report/result/console.h"
#include "backends/registry.h"
#include "core/str.h"

/* Every registered backend with no state, as a summary made from a result
 * alone sees them: the VGF backend writes the NX lines
 * (report/backend_out.h, console_fields). */
static mlia_backend_run RUNS[32];
static uint32_t all_backends(void)
{
    uint32_t n = mlia_backend_count();
    for (uint32_t i = 0; i < n && i < 32; i++) {
        const mlia_backend *b = mlia_backend_at(i);
        RUNS[i].name = b->name;
        RUNS[i].out = &b->out;
        RUNS[i].state = NULL;
    }
    return n < 32 ? n : 32;
}
#include "report/result/headline.h"

#include "test.h"

static mlia_arena arena;

static mlia_metric metric_d(const char *name, const char *unit, double v, const char *stat,
                            const char *attribution, uint32_t samples)
{
    mlia_metric m;
    memset(&m, 0, sizeof m);
    m.name = name;
    m.unit = unit;
    m.type = MLIA_VALUE_DOUBLE;
    m.d = v;
    m.aggregation = stat;
    m.samples = samples;
    if (stat) {
        m.qualifiers[m.n_qualifiers].key = "statistic";
        m.qualifiers[m.n_qualifiers++].value = stat;
    }
    if (attribution) {
        m.qualifiers[m.n_qualifiers].key = "attribution";
        m.qualifiers[m.n_qualifiers++].value = attribution;
    }
    return m;
}

static mlia_metric metric_u(const char *name, uint64_t v, const char *stat, uint32_t samples)
{
    mlia_metric m = metric_d(name, "cycles", 0, stat, NULL, samples);
    m.type = MLIA_VALUE_UINT;
    m.u = v;
    m.aggregation = stat ? stat : "sum";
    return m;
}

static mlia_metric metric_na(const char *name, const char *unit, const char *reason)
{
    mlia_metric m;
    memset(&m, 0, sizeof m);
    m.name = name;
    m.unit = unit;
    m.type = MLIA_VALUE_UNAVAILABLE;
    m.reason = reason;
    return m;
}

static void add_model_metric(mlia_result *r, mlia_metric m)
{
    if (r->n_metrics == r->cap_metrics) {
        r->metrics = mlia_arena_grow(&arena, r->metrics, r->n_metrics, r->n_metrics + 8,
                                     sizeof *r->metrics);
        r->cap_metrics = r->n_metrics + 8;
    }
    r->metrics[r->n_metrics++] = m;
}

static mlia_entity *add_entity(mlia_result *r, const char *id, const char *kind, const char *name)
{
    if (r->n_entities == r->cap_entities) {
        r->entities = mlia_arena_grow(&arena, r->entities, r->n_entities, r->n_entities + 16,
                                      sizeof *r->entities);
        r->cap_entities = r->n_entities + 16;
    }
    mlia_entity *e = mlia_arena_alloc(&arena, sizeof *e);
    e->id = id;
    e->kind = kind;
    e->name = name;
    r->entities[r->n_entities++] = e;
    return e;
}

static void add_metric(mlia_entity *e, mlia_metric m)
{
    if (e->n_metrics == e->cap_metrics) {
        e->metrics = mlia_arena_grow(&arena, e->metrics, e->n_metrics, e->n_metrics + 8,
                                     sizeof *e->metrics);
        e->cap_metrics = e->n_metrics + 8;
    }
    e->metrics[e->n_metrics++] = m;
}

static void add_timing(mlia_entity *e, const char *name, double p50, double mn, double mx,
                       const char *attribution, uint32_t samples)
{
    add_metric(e, metric_d(name, "ms", p50, "p50", attribution, samples));
    add_metric(e, metric_d(name, "ms", mn, "min", attribution, samples));
    add_metric(e, metric_d(name, "ms", mx, "max", attribution, samples));
}

static void set_node(mlia_entity *e, const char *node)
{
    e->attrs = mlia_arena_alloc(&arena, sizeof *e->attrs);
    e->n_attrs = e->cap_attrs = 1;
    e->attrs[0].key = "node_name";
    e->attrs[0].type = MLIA_ATTR_STRING;
    e->attrs[0].s = node;
}

static void add_warning(mlia_result *r, const char *w)
{
    if (r->n_warnings == r->cap_warnings) {
        r->warnings = mlia_arena_grow(&arena, r->warnings, r->n_warnings, r->n_warnings + 8,
                                      sizeof *r->warnings);
        r->cap_warnings = r->n_warnings + 8;
    }
    r->warnings[r->n_warnings++] = w;
}

/* Lines longer than the console width, or -1 if none. */
static int first_long_line(const char *text)
{
    int line = 1;
    const char *p = text;
    while (*p) {
        size_t n = strcspn(p, "\n");
        if (n > MLIA_CONSOLE_WIDTH)
            return line;
        p += n;
        if (*p)
            p++;
        line++;
    }
    return -1;
}

/* A result with timings and NX cycles over 3 executions. */
static void build_full(mlia_result *r)
{
    memset(r, 0, sizeof *r);
    r->arena = &arena;
    r->status = "ok";
    add_model_metric(r, metric_d("inference_time", "ms", 1.5, "p50", NULL, 3));
    add_model_metric(r, metric_d("inferences_per_second", "1/s", 1000 / 1.5, "p50", NULL, 3));
    add_model_metric(r, metric_u("total_cycles", 123456, "p50", 3));
    add_model_metric(r, metric_u("compute_cycles", 100000, "p50", 3));
    add_model_metric(r, metric_d("target_utilization", "%", 100000.0 / 123456 * 100, "p50", NULL, 3));
    add_model_metric(r, metric_na("dram_cycles", "cycles",
                                  "Backend output did not provide a numeric value for this metric."));

    mlia_entity *exec = add_entity(r, "runtime_event/forward/0/-1/Method::execute#0", "runtime_event",
                                   "Method::execute");
    add_timing(exec, "execution_time", 1.5, 1.25, 2.0, "exclusive", 3);

    /* 12 source operators; op k has P50 k/10 ms, except two ties. */
    static char ids[12][64], names[12][64], nodes[12][32];
    for (int k = 0; k < 12; k++) {
        snprintf(ids[k], sizeof ids[k], "source_operator/forward/node_%d", k);
        snprintf(names[k], sizeof names[k], "aten.op_%d.default", k);
        snprintf(nodes[k], sizeof nodes[k], "node_%d", k);
        mlia_entity *e = add_entity(r, ids[k], "source_operator", names[k]);
        if (k != 11)
            set_node(e, nodes[k]);
        double p50 = k == 3 ? 0.7 : k / 10.0;
        add_timing(e, "execution_time", p50, p50 / 2, p50 * 2, k % 2 ? "shared" : "exclusive", 3);
        add_timing(e, "kernel_time", 5.0, 5.0, 5.0, "exclusive", 3); /* never ranked */
    }
    /* A long, hostile name, and an operator without measurement. */
    mlia_entity *lng = add_entity(r, "source_operator/forward/aten_convolution_default_with_a_very_long_name",
                                  "source_operator",
                                  "aten.conv\x1b[31m.with.a.very.long.operator.name");
    add_timing(lng, "execution_time", 0.95, 0.5, 1234567.0, "exclusive", 2);
    add_entity(r, "source_operator/forward/unmeasured", "source_operator", "aten.relu.default");

    mlia_entity *seg = add_entity(r, "segment/0", "segment", "graph-one");
    add_metric(seg, metric_d("execution_coverage", "%", 100.0, NULL, NULL, 0));
    mlia_entity *seg2 = add_entity(r, "segment/1", "segment", "graph-two");
    add_metric(seg2, metric_d("execution_coverage", "%", 200.0 / 3, NULL, NULL, 0));

    mlia_entity *c1 = add_entity(r, "chain/segment_0/30", "chain", "graph-one/Chain 30");
    add_metric(c1, metric_u("total_cycles", 110, "p50", 3));
    add_metric(c1, metric_u("total_cycles", 100, "min", 3));
    add_metric(c1, metric_u("total_cycles", 120, "max", 3));
    add_metric(c1, metric_d("execution_coverage", "%", 100.0, NULL, NULL, 0));
    mlia_entity *c2 = add_entity(r, "chain/segment_1/31", "chain", "graph-two/Chain 31");
    add_metric(c2, metric_u("total_cycles", 9000, "p50", 2));
    add_metric(c2, metric_u("total_cycles", 8000, "min", 2));
    add_metric(c2, metric_u("total_cycles", 10000, "max", 2));
    add_metric(c2, metric_d("execution_coverage", "%", 200.0 / 3, NULL, NULL, 0));
    mlia_entity *c3 = add_entity(r, "chain/segment_1/32", "chain", "graph-two/Chain 32");
    add_metric(c3, metric_u("op_cycles", 5, "p50", 2)); /* no total: not ranked */

    add_warning(r, "Statistics mode not recorded in the capture; assumed mode 1.");
    add_warning(r, "Device not recorded in the capture; assumed Mali-G2.");
    add_warning(r, "NX statistics were recorded in different executions for different segments: "
                   "segment/0 in executions 0, 1, 2; segment/1 in executions 0, 2.");
}

static const char *const expected_full =
    "Method:              forward\n"
    "Executions:          3\n"
    "Status:              ok (every measurement covers every execution)\n"
    "Inference time:      P50 1.500 ms, min 1.250 ms, max 2.000 ms (3 samples)\n"
    "Inferences/second:   666.7\n"
    "NX total cycles:     123,456 (P50 of 3 executions)\n"
    "NX compute cycles:   100,000 (utilization 81 %)\n"
    "NX coverage:         66.67 % to 100 % of executions (2 segments)\n"
    "\n"
    "Top source operators by P50 execution time (10 of 13 rows; 13 operators measured)\n"
    "  #  Operator                   Source                       P50 ms    Min ms    Max ms  Attribution\n"
    "  1  aten.op_11.default         node_11                       1.100    0.5500     2.200  shared\n"
    "  2  aten.op_10.default         node_10                       1.000    0.5000     2.000  exclusive\n"
    "  3  aten.conv?[31m.with.a.     aten_convolution_default_    0.9500    0.5000 1,234,567  exclusive\n"
    "     very.long.operator.name    with_a_very_long_name\n"
    "  4  aten.op_9.default          node_9                       0.9000    0.4500     1.800  shared\n"
    "  5  aten.op_8.default          node_8                       0.8000    0.4000     1.600  exclusive\n"
    "  6  aten.op_3.default          node_3                       0.7000    0.3500     1.400  shared\n"
    "  7  aten.op_7.default          node_7                       0.7000    0.3500     1.400  shared\n"
    "  8  aten.op_6.default          node_6                       0.6000    0.3000     1.200  exclusive\n"
    "  9  aten.op_5.default          node_5                       0.5000    0.2500     1.000  shared\n"
    " 10  aten.op_4.default          node_4                       0.4000    0.2000    0.8000  exclusive\n"
    "\n"
    "Attribution: exclusive = the operator's own measured call; shared = one call measured for several\n"
    "  operators.\n"
    "\n"
    "Top chains by P50 total cycles (2 of 2 measured)\n"
    "  #  Chain                                          P50 cycles    Min cycles    Max cycles  Coverage\n"
    "  1  graph-two/Chain 31                                  9,000         8,000        10,000   66.67 %\n"
    "  2  graph-one/Chain 30                                    110           100           120     100 %\n"
    "\n"
    "Coverage: the share of the executions in which the chain was recorded.\n"
    "\n"
    "Warnings (3)\n"
    "  - Statistics mode not recorded in the capture; assumed mode 1.\n"
    "  - Device not recorded in the capture; assumed Mali-G2.\n"
    "  - NX statistics were recorded in different executions for different segments: segment/0 in\n"
    "    executions 0, 1, 2; segment/1 in executions 0, 2.\n";

TEST(full_summary_exact)
{
    mlia_arena_init(&arena);
    mlia_result r;
    build_full(&r);
    char *text = mlia_console_summary_result(&r, "forward", 3, RUNS, all_backends());
    CHECK_STR(text, expected_full);
    CHECK_INT(first_long_line(text), -1);
    free(text);
    mlia_arena_free(&arena);
}

TEST(session_wrapper_uses_method_and_executions)
{
    mlia_arena_init(&arena);
    mlia_result result;
    build_full(&result);
    mlia_run_record s;
    memset(&s, 0, sizeof s);
    s.result = &result;
    s.method_name = "forward";
    s.n_executions = 3;
    s.n_backends = all_backends();
    s.backends = RUNS;
    char *text = mlia_console_summary(&s, 0);
    CHECK_STR(text, expected_full);
    free(text);
    mlia_arena_free(&arena);
}

/* The NX lines are the VGF backend's (console_fields hook): without any
 * backend the summary has none, and nothing else changes. */
TEST(backend_lines_come_from_the_backends)
{
    mlia_arena_init(&arena);
    mlia_result result;
    build_full(&result);
    char *with = mlia_console_summary_result(&result, "forward", 3, RUNS, all_backends());
    char *without = mlia_console_summary_result(&result, "forward", 3, NULL, 0);
    CHECK_STR(with, expected_full);
    CHECK(strstr(without, "\nNX ") == NULL); /* no NX line (warnings may still name NX) */
    /* removing the three NX lines of the full summary gives the summary without backends */
    mlia_buf b;
    mlia_buf_init(&b);
    for (const char *p = expected_full; *p;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (strncmp(p, "NX ", 3) != 0)
            mlia_buf_append(&b, p, len);
        p += len;
    }
    char *stripped = mlia_buf_take(&b);
    CHECK_STR(without, stripped);
    free(stripped);
    free(with);
    free(without);
    mlia_arena_free(&arena);
}

TEST(unavailable_nx_and_no_entities)
{
    mlia_arena_init(&arena);
    mlia_result r;
    memset(&r, 0, sizeof r);
    r.arena = &arena;
    r.status = "partial";
    add_model_metric(&r, metric_d("inference_time", "ms", 0.25, "sum", NULL, 1));
    add_model_metric(&r, metric_d("inferences_per_second", "1/s", 4000, "sum", NULL, 1));
    add_model_metric(&r, metric_na("total_cycles", "cycles",
                                   "NX statistics were recorded in different executions for "
                                   "different segments: segment/0.2.0 in executions 1, 2, 3; "
                                   "segment/0.5.0 in executions 1, 2."));
    add_model_metric(&r, metric_na("compute_cycles", "cycles", "same"));
    char *text = mlia_console_summary_result(&r, NULL, 1, RUNS, all_backends());
    CHECK_STR(text,
              "Method:              (none)\n"
              "Executions:          1\n"
              "Status:              partial (some results are incomplete; see Warnings)\n"
              "Inference time:      P50 0.2500 ms (1 sample)\n"
              "Inferences/second:   4,000\n"
              "NX cycles:           unavailable: NX statistics were recorded in different executions for different\n"
              "                     segments: segment/0.2.0 in executions 1, 2, 3; segment/0.5.0 in executions 1,\n"
              "                     2.\n"
              "\n"
              "Top source operators by P50 execution time: none measured\n"
              "\n"
              "Top chains by P50 total cycles: none measured\n"
              "\n"
              "Warnings: none\n");
    CHECK_INT(first_long_line(text), -1);
    free(text);
    mlia_arena_free(&arena);
}

TEST(missing_model_metrics)
{
    mlia_arena_init(&arena);
    mlia_result r;
    memset(&r, 0, sizeof r);
    r.arena = &arena;
    add_model_metric(&r, metric_na("inference_time", "ms", "No Method::execute event was recorded."));
    add_warning(&r, "No VGF neural statistics were found in the ETDump.");
    char *text = mlia_console_summary_result(&r, "decode", 0, RUNS, all_backends());
    CHECK_STR(text,
              "Method:              decode\n"
              "Executions:          0\n"
              "Inference time:      unavailable: No Method::execute event was recorded.\n"
              "NX cycles:           unavailable: not analysed\n"
              "\n"
              "Top source operators by P50 execution time: none measured\n"
              "\n"
              "Top chains by P50 total cycles: none measured\n"
              "\n"
              "Warnings (1)\n"
              "  - No VGF neural statistics were found in the ETDump.\n");
    free(text);
    mlia_arena_free(&arena);
}

/* Issue 29, 1: a CPU-only run (no delegate call, no statistics record) has
 * no NX cycles by nature: "not applicable", and its no-statistics warning is
 * not listed among the warnings; with a delegate call it stays a warning. */
TEST(cpu_only_run_says_not_applicable)
{
    mlia_arena_init(&arena);
    mlia_result r;
    memset(&r, 0, sizeof r);
    r.arena = &arena;
    r.status = "ok";
    add_model_metric(&r, metric_d("inference_time", "ms", 1.5, "sum", NULL, 1));
    add_model_metric(&r, metric_na("total_cycles", "cycles", "No VGF neural statistics were found in the ETDump."));
    add_warning(&r, "No VGF neural statistics were found in the ETDump.");
    char *text = mlia_console_summary_result(&r, "forward", 1, RUNS, all_backends());
    CHECK(strstr(text, "NX cycles:           not applicable: the model ran on the CPU only (no delegate call in "
                       "the ETDump)\n") != NULL);
    CHECK(strstr(text, "\nWarnings: none\n") != NULL);
    mlia_headline h;
    mlia_headline_compute(&r, &h);
    CHECK(h.cpu_only);
    CHECK(h.has_inference);
    free(text);
    /* the same with a delegate call: the statistics are missing, a warning */
    add_entity(&r, "delegate_call/0", "delegate_call", "VgfBackend");
    text = mlia_console_summary_result(&r, "forward", 1, RUNS, all_backends());
    CHECK(strstr(text, "NX cycles:           unavailable: No VGF neural statistics") != NULL);
    CHECK(strstr(text, "Warnings (1)\n  - No VGF neural statistics were found in the ETDump.\n") != NULL);
    free(text);
    mlia_arena_free(&arena);
}

TEST(single_execution_chain_and_long_word_wrap)
{
    mlia_arena_init(&arena);
    mlia_result r;
    memset(&r, 0, sizeof r);
    r.arena = &arena;
    mlia_entity *c = add_entity(&r, "chain/segment_0/7", "chain", "Chain 7");
    add_metric(c, metric_u("total_cycles", 42, NULL, 1));
    char word[160];
    memset(word, 'x', 150);
    word[150] = 0;
    char warning[200];
    snprintf(warning, sizeof warning, "see %s\tend", word);
    add_warning(&r, warning);
    char *text = mlia_console_summary_result(&r, "forward", 1, RUNS, all_backends());
    CHECK_CONTAINS(text,
                   "  #  Chain                                          P50 cycles    Min cycles    Max cycles  Coverage\n"
                   "  1  Chain 7                                                42            42            42         -\n");
    char expect[400];
    /* warnings are escaped (mlia_escape_text): the tab shows as \t */
    snprintf(expect, sizeof expect, "  - see\n    %.96s\n    %.54s\\tend\n", word, word);
    CHECK_CONTAINS(text, expect);
    CHECK_INT(first_long_line(text), -1);
    free(text);
    mlia_arena_free(&arena);
}

static void set_attrs(mlia_entity *e, uint32_t n)
{
    e->attrs = mlia_arena_alloc(&arena, n * sizeof *e->attrs);
    memset(e->attrs, 0, n * sizeof *e->attrs);
    e->n_attrs = e->cap_attrs = n;
}

/* Issue 19, 2: six operators sharing one delegate call were six rows each
 * repeating the call's time; now they are one group row ranked by that time,
 * next to a pair sharing one OPERATOR_CALL and an exclusive operator. */
TEST(shared_groups_rank_as_one_row)
{
    mlia_arena_init(&arena);
    mlia_result r;
    memset(&r, 0, sizeof r);
    r.arena = &arena;
    r.status = "ok";
    static const char *ids[6] = {"source_operator/forward/conv", "source_operator/forward/conv_1",
                                 "source_operator/forward/conv_2", "source_operator/forward/mean",
                                 "source_operator/forward/conv_3", "source_operator/forward/view"};
    for (int k = 0; k < 6; k++) {
        mlia_entity *e = add_entity(&r, ids[k], "source_operator", k == 3 ? "aten.mean.dim" : "aten.convolution.default");
        add_timing(e, "execution_time", 1.85, 1.85, 1.868513, "shared", 2);
        set_attrs(e, 3);
        e->attrs[0] = (mlia_attr){.key = "node_name", .type = MLIA_ATTR_STRING, .s = ids[k] + 24};
        e->attrs[1] = (mlia_attr){.key = "delegate_call", .type = MLIA_ATTR_STRING, .s = "delegate_call/forward/0/0"};
        e->attrs[2] = (mlia_attr){.key = "attribution", .type = MLIA_ATTR_STRING, .s = "shared"};
    }
    mlia_entity *call = add_entity(&r, "delegate_call/forward/0/0", "delegate_call", "VgfBackend");
    add_timing(call, "execution_time", 1.85, 1.85, 1.868513, "exclusive", 2);
    static const char *pair[2] = {"source_operator/forward/permute", "source_operator/forward/addmm"};
    for (int k = 0; k < 2; k++) {
        mlia_entity *e = add_entity(&r, pair[k], "source_operator", k ? "aten.addmm.default" : "aten.permute_copy.default");
        add_timing(e, "execution_time", 0.099521, 0.09, 0.11, "shared", 2);
        set_attrs(e, 2);
        e->attrs[0] = (mlia_attr){.key = "node_name", .type = MLIA_ATTR_STRING, .s = pair[k] + 24};
        e->attrs[1] = (mlia_attr){.key = "shared_with", .type = MLIA_ATTR_STRING_LIST, .n = 1, .list_s = &pair[1 - k]};
    }
    mlia_entity *relu = add_entity(&r, "source_operator/forward/relu", "source_operator", "aten.relu.default");
    set_node(relu, "relu");
    add_timing(relu, "execution_time", 0.5, 0.4, 0.6, "exclusive", 2);
    mlia_display_names(&r); /* as the pipeline does: members by display name (issue 29, 2) */
    char *text = mlia_console_summary_result(&r, "forward", 2, RUNS, all_backends());
    CHECK_CONTAINS(text,
                   "Top source operators by P50 execution time (3 of 3 rows; 9 operators measured)\n"
                   "  #  Operator           Source                     P50 ms    Min ms    Max ms  Attribution\n"
                   "  1  6 operators share DELEGATE_CALL VgfBackend     1.850     1.850     1.869  shared\n"
                   "       members: aten.convolution.default (conv), aten.convolution.default (conv_1),\n"
                   "       aten.convolution.default (conv_2), aten.mean.dim, aten.convolution.default (conv_3),\n"
                   "       aten.convolution.default (view)\n"
                   "  2  aten.relu.default  relu                       0.5000    0.4000    0.6000  exclusive\n"
                   "  3  2 operators share one OPERATOR_CALL          0.09952   0.09000    0.1100  shared\n"
                   "       members: aten.permute_copy.default, aten.addmm.default\n");
    CHECK_INT(first_long_line(text), -1);
    free(text);
    mlia_arena_free(&arena);
}

/* Issue 19, 3: names were cut in the middle ("aten_convol..._default_1") and
 * the table was 100 columns whatever the width. Now the name columns take
 * the width they are given and names wrap whole, at a separator. */
TEST(width_follows_and_names_never_cut)
{
    mlia_arena_init(&arena);
    mlia_result r;
    memset(&r, 0, sizeof r);
    r.arena = &arena;
    static const char *nodes[2] = {"aten_max_pool2d_with_indices_default", "aten_max_pool2d_with_indices_default_1"};
    for (int k = 0; k < 2; k++) {
        mlia_entity *e = add_entity(&r, k ? "source_operator/forward/b" : "source_operator/forward/a",
                                    "source_operator", "aten.max_pool2d_with_indices.default");
        set_node(e, nodes[k]);
        add_timing(e, "execution_time", 1.0 - k * 0.5, 0.2, 2.0, "exclusive", 3);
    }
    char *narrow = mlia_console_summary_width(&r, "forward", 3, RUNS, all_backends(), 0);
    CHECK_CONTAINS(narrow,
                   "  #  Operator                   Source                       P50 ms    Min ms    Max ms  Attribution\n"
                   "  1  aten.max_pool2d_with_      aten_max_pool2d_with_         1.000    0.2000     2.000  exclusive\n"
                   "     indices.default            indices_default\n"
                   "  2  aten.max_pool2d_with_      aten_max_pool2d_with_        0.5000    0.2000     2.000  exclusive\n"
                   "     indices.default            indices_default_1\n");
    CHECK(!strstr(narrow, "..."));
    CHECK_INT(first_long_line(narrow), -1);
    char *wide = mlia_console_summary_width(&r, "forward", 3, RUNS, all_backends(), 200);
    CHECK_CONTAINS(wide, "  1  aten.max_pool2d_with_indices.default  aten_max_pool2d_with_indices_default    "
                         "   1.000    0.2000     2.000  exclusive\n");
    CHECK_CONTAINS(wide, "  2  aten.max_pool2d_with_indices.default  aten_max_pool2d_with_indices_default_1  ");
    /* below the floor: 80 columns */
    char *tiny = mlia_console_summary_width(&r, "forward", 3, RUNS, all_backends(), 20);
    size_t longest = 0;
    for (const char *p = tiny; *p;) {
        size_t n = strcspn(p, "\n");
        longest = n > longest ? n : longest;
        p += n + (p[n] != 0);
    }
    CHECK(longest <= 80 && longest > 70);
    free(narrow);
    free(wide);
    free(tiny);
    mlia_arena_free(&arena);
}

int main(void)
{
    RUN(full_summary_exact);
    RUN(session_wrapper_uses_method_and_executions);
    RUN(backend_lines_come_from_the_backends);
    RUN(unavailable_nx_and_no_entities);
    RUN(missing_model_metrics);
    RUN(cpu_only_run_says_not_applicable);
    RUN(single_execution_chain_and_long_word_wrap);
    RUN(shared_groups_rank_as_one_row);
    RUN(width_follows_and_names_never_cut);
    return test_summary();
}
