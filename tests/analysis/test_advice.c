/* The advice rules (analysis/advice.h, docs/advice.md): each rule fires on a
 * result built to trigger it and stays silent on one just past its
 * threshold; the ranking puts warnings first, then the larger share. The
 * results are built by hand here with the metric shapes the analyses write
 * (p50/min/max statistics, exclusive/shared attribution), so the expected
 * figures below follow from the numbers in each test. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/advice.h"
#include "analysis/display_name.h"
#include "report/result/console.h"

static mlia_arena A;

static void model_time(mlia_result *r, double p50, double lo, double hi)
{
    const char *st[3] = {"p50", "min", "max"};
    double v[3] = {p50, lo, hi};
    for (int k = 0; k < 3; k++) {
        mlia_metric m = mlia_metric_double("inference_time", "ms", v[k], st[k], 5);
        mlia_metric_qualify(&m, "statistic", st[k]);
        mlia_result_add_metric(r, m);
    }
}

static void model_cycles(mlia_result *r, uint64_t p50)
{
    mlia_metric m = mlia_metric_uint("total_cycles", "cycles", p50, "p50", 5);
    mlia_metric_qualify(&m, "statistic", "p50");
    mlia_result_add_metric(r, m);
}

static mlia_entity *op(mlia_result *r, const char *node, const char *name, const char *code, double p50,
                       const char *attribution)
{
    mlia_entity *e = mlia_result_entity(r, mlia_arena_printf(&A, "source_operator/forward/%s", node),
                                        "source_operator", name);
    if (code) {
        const char *id = mlia_arena_printf(&A, "code_stack/%s", code);
        mlia_result_entity(r, id, "code_stack", code);
        mlia_entity_set_str(r, e, "code_stack", id);
    }
    if (attribution) {
        mlia_metric m = mlia_metric_double("execution_time", "ms", p50, "p50", 5);
        mlia_metric_qualify(&m, "statistic", "p50");
        mlia_metric_qualify(&m, "attribution", attribution);
        mlia_entity_add_metric(r, e, m);
        mlia_entity_set_str(r, e, "attribution", attribution);
    }
    return e;
}

static void ent_stat(mlia_result *r, mlia_entity *e, const char *name, const char *stat, double v)
{
    mlia_metric m = mlia_metric_double(name, "", v, stat, 3);
    mlia_metric_qualify(&m, "statistic", stat);
    mlia_entity_add_metric(r, e, m);
}

static mlia_entity *chain(mlia_result *r, int n, uint64_t p50)
{
    mlia_entity *c = mlia_result_entity(r, mlia_arena_printf(&A, "chain/segment_0/%d", n), "chain",
                                        mlia_arena_printf(&A, "graph_segment_0/Chain %d", n));
    mlia_metric m = mlia_metric_uint("total_cycles", "cycles", p50, "p50", 5);
    mlia_metric_qualify(&m, "statistic", "p50");
    mlia_entity_add_metric(r, c, m);
    return c;
}

static const mlia_advice *find(const mlia_result *r, const char *id)
{
    for (uint32_t i = 0; i < r->n_advice; i++)
        if (strcmp(r->advice[i].id, id) == 0)
            return &r->advice[i];
    return NULL;
}

static void begin(mlia_result *r)
{
    mlia_arena_init(&A);
    mlia_result_init(r, &A);
}

static void advise(mlia_result *r, uint32_t executions, uint32_t warmup)
{
    mlia_display_names(r);
    mlia_advice_inputs in = {executions, warmup};
    mlia_advise(r, &in);
}

/* hot-chain: Chain 32 has 60,000 of 100,000 cycles = 60 %; its operator
 * and compiled operation are named. At 24,000 of 100,000 (24 % < 25 %) the
 * rule is silent; with one chain only it is silent too. */
TEST(hot_chain_fires_at_a_quarter_of_the_cycles)
{
    mlia_result r;
    begin(&r);
    model_cycles(&r, 100000);
    mlia_entity *c = chain(&r, 32, 60000);
    chain(&r, 33, 40000);
    mlia_entity *conv = op(&r, "conv", "aten.convolution.default", "lenet.py:25", 0, NULL);
    mlia_result_link(&r, c, conv);
    mlia_entity *tosa = mlia_result_entity(&r, "compiler_operation/segment_0/tosa-1", "compiler_operation", "Conv2D");
    mlia_result_link(&r, c, tosa);
    advise(&r, 10, 0);
    const mlia_advice *a = find(&r, "hot-chain");
    CHECK(a != NULL);
    if (a) {
        CHECK_STR(a->category, "optimization");
        CHECK_STR(a->severity, "info");
        CHECK_CONTAINS(a->message, "Chain 32 spends 60 % of the accelerator's cycles (60,000 of 100,000, P50)");
        CHECK_CONTAINS(a->message, "aten.convolution.default at lenet.py:25");
        CHECK_CONTAINS(a->message, "(compiled as Conv2D)");
        CHECK_UINT(a->n_affected, 2);
        CHECK_STR(a->affected[0], "chain/segment_0/32");
        CHECK_STR(a->affected[1], "source_operator/forward/conv");
    }
    mlia_arena_free(&A);

    begin(&r);
    model_cycles(&r, 100000);
    chain(&r, 1, 24000);
    chain(&r, 2, 23000);
    chain(&r, 3, 23000);
    chain(&r, 4, 22000); /* the top chain: 24,000 of 100,000 = 24 % */
    advise(&r, 10, 0);
    CHECK(find(&r, "hot-chain") == NULL);
    mlia_arena_free(&A);

    begin(&r);
    chain(&r, 1, 1000);
    advise(&r, 10, 0);
    CHECK(find(&r, "hot-chain") == NULL);
    mlia_arena_free(&A);
}

/* hot-operator: 0.3 of 1.0 ms exclusive = 30 %; a shared call of 0.9 ms is
 * not "measured on its own" and does not count. At 0.2 ms (20 %) silent. */
TEST(hot_operator_needs_an_exclusive_quarter)
{
    mlia_result r;
    begin(&r);
    model_time(&r, 1.0, 0.95, 1.05);
    op(&r, "addmm", "aten.addmm.default", "head.py:8", 0.9, "shared");
    op(&r, "relu", "aten.relu.default", "head.py:9", 0.3, "exclusive");
    op(&r, "mean", "aten.mean.dim", NULL, 0.1, "exclusive");
    advise(&r, 10, 0);
    const mlia_advice *a = find(&r, "hot-operator");
    CHECK(a != NULL);
    if (a) {
        CHECK_STR(a->message, "aten.relu.default at head.py:9 takes 30 % of the inference time (0.3 of 1 ms, P50), "
                              "the most of any operator measured on its own: start there.");
        CHECK_UINT(a->n_affected, 1);
    }
    mlia_arena_free(&A);

    begin(&r);
    model_time(&r, 1.0, 0.95, 1.05);
    op(&r, "relu", "aten.relu.default", NULL, 0.2, "exclusive");
    advise(&r, 10, 0);
    CHECK(find(&r, "hot-operator") == NULL);
    mlia_arena_free(&A);
}

/* outside-delegates: a delegate call exists; outside it an exclusive 0.1 ms
 * and a group of two sharing one 0.08 ms call (counted once) = 0.18 of
 * 1.0 ms = 18 %. Without any delegate call the rule is silent; with only
 * 0.09 ms outside (9 %) too. */
TEST(outside_delegates_counts_a_shared_call_once)
{
    mlia_result r;
    begin(&r);
    model_time(&r, 1.0, 0.95, 1.05);
    mlia_result_entity(&r, "delegate_call/forward/0/0", "delegate_call", "XnnpackBackend");
    mlia_entity *d = op(&r, "conv", "aten.convolution.default", NULL, 0.8, "shared");
    mlia_entity_set_str(&r, d, "delegate_call", "delegate_call/forward/0/0");
    op(&r, "relu", "aten.relu.default", NULL, 0.1, "exclusive");
    mlia_entity *p = op(&r, "permute", "aten.permute_copy.default", NULL, 0.08, "shared");
    mlia_entity *m = op(&r, "addmm", "aten.addmm.default", NULL, 0.08, "shared");
    const char *pw[1] = {m->id}, *mw[1] = {p->id};
    mlia_entity_set_str_list(&r, p, "shared_with", pw, 1);
    mlia_entity_set_str_list(&r, m, "shared_with", mw, 1);
    advise(&r, 10, 0);
    const mlia_advice *a = find(&r, "outside-delegates");
    CHECK(a != NULL);
    if (a) {
        CHECK_STR(a->category, "performance");
        CHECK_CONTAINS(a->message, "3 operator(s) ran outside the delegates, on ExecuTorch's own kernels, and take 18 % "
                                   "of the inference time (0.18 of 1 ms, P50); the most expensive is aten.relu.default "
                                   "(0.1 ms)");
        CHECK_UINT(a->n_affected, 3);
        CHECK_STR(a->affected[0], "source_operator/forward/relu");
    }
    mlia_arena_free(&A);

    begin(&r); /* no delegate call: a CPU-only run */
    model_time(&r, 1.0, 0.95, 1.05);
    op(&r, "relu", "aten.relu.default", NULL, 0.5, "exclusive");
    advise(&r, 10, 0);
    CHECK(find(&r, "outside-delegates") == NULL);
    mlia_arena_free(&A);

    begin(&r);
    model_time(&r, 1.0, 0.95, 1.05);
    mlia_result_entity(&r, "delegate_call/forward/0/0", "delegate_call", "XnnpackBackend");
    op(&r, "relu", "aten.relu.default", NULL, 0.09, "exclusive");
    advise(&r, 10, 0);
    CHECK(find(&r, "outside-delegates") == NULL);
    mlia_arena_free(&A);
}

/* unstable-inference-time: (1.3 - 0.9) / 1.0 = 40 % >= 20 %; the warm-up
 * hint only without a warm-up option; 0.9..1.05 (15 %) is silent, and so is
 * any spread with 2 executions. */
TEST(unstable_time_suggests_warmup_only_when_not_given)
{
    mlia_result r;
    begin(&r);
    model_time(&r, 1.0, 0.9, 1.3);
    advise(&r, 10, 0);
    const mlia_advice *a = find(&r, "unstable-inference-time");
    CHECK(a != NULL);
    if (a) {
        CHECK_CONTAINS(a->message, "varies by 40 % of its P50 between executions (min 0.9, max 1.3, P50 1 ms)");
        CHECK_CONTAINS(a->message, "--warmup-executions 1");
    }
    mlia_arena_free(&A);

    begin(&r);
    model_time(&r, 1.0, 0.9, 1.3);
    advise(&r, 10, 2);
    a = find(&r, "unstable-inference-time");
    CHECK(a && strstr(a->message, "even with 2 warm-up execution(s) left out") && !strstr(a->message, "--warmup"));
    mlia_arena_free(&A);

    begin(&r);
    model_time(&r, 1.0, 0.9, 1.05);
    advise(&r, 10, 0);
    CHECK(find(&r, "unstable-inference-time") == NULL);
    mlia_arena_free(&A);

    begin(&r);
    model_time(&r, 1.0, 0.5, 1.5);
    advise(&r, 2, 0);
    CHECK(find(&r, "unstable-inference-time") == NULL);
    mlia_arena_free(&A);
}

/* few-executions: 1 and 4 fire (different wording), 5 does not, 0 (nothing
 * analysed) does not either. */
TEST(few_executions_below_five)
{
    mlia_result r;
    begin(&r);
    advise(&r, 1, 0);
    const mlia_advice *a = find(&r, "few-executions");
    CHECK(a && strstr(a->message, "Only 1 execution was analysed, so P50, min and max are that one sample"));
    mlia_arena_free(&A);
    begin(&r);
    advise(&r, 4, 0);
    a = find(&r, "few-executions");
    CHECK(a && strstr(a->message, "Only 4 executions were analysed, so P50, min and max rest on 4 samples"));
    mlia_arena_free(&A);
    begin(&r);
    advise(&r, 5, 0);
    CHECK(find(&r, "few-executions") == NULL);
    advise(&r, 0, 0);
    CHECK(find(&r, "few-executions") == NULL);
    mlia_arena_free(&A);
}

/* nonfinite-output: the first operator (result order) with NaN/Inf in its
 * output is named, the later ones counted; max 0 everywhere is silent. */
TEST(nonfinite_names_the_first_operator)
{
    mlia_result r;
    begin(&r);
    mlia_entity *a1 = op(&r, "conv", "aten.convolution.default", NULL, 0, NULL);
    mlia_entity *a2 = op(&r, "log", "aten.log.default", "m.py:4", 0, NULL);
    mlia_entity *a3 = op(&r, "relu", "aten.relu.default", NULL, 0, NULL);
    ent_stat(&r, a1, "output_nan_count", "max", 0);
    ent_stat(&r, a2, "output_nan_count", "p50", 0);
    ent_stat(&r, a2, "output_nan_count", "max", 12);
    ent_stat(&r, a3, "output_nan_count", "max", 40);
    advise(&r, 10, 0);
    const mlia_advice *a = find(&r, "nonfinite-output");
    CHECK(a != NULL);
    if (a) {
        CHECK_STR(a->severity, "warning");
        CHECK_STR(a->category, "compatibility");
        CHECK_CONTAINS(a->message, "aten.log.default at m.py:4 is the first operator whose output holds NaN or "
                                   "infinite values (up to 12 element(s) in one execution); 1 operator(s) after it "
                                   "do too");
        CHECK_STR(a->affected[0], "source_operator/forward/log");
        /* a warning ranks first */
        CHECK_STR(r.advice[0].id, "nonfinite-output");
    }
    mlia_arena_free(&A);

    begin(&r);
    a1 = op(&r, "conv", "aten.convolution.default", NULL, 0, NULL);
    ent_stat(&r, a1, "output_nan_count", "max", 0);
    advise(&r, 10, 0);
    CHECK(find(&r, "nonfinite-output") == NULL);
    mlia_arena_free(&A);
}

/* low-snr: the lowest P50 SNR (12.5 dB) below 20 dB is named, 2 below it;
 * 20.0 dB exactly is not below. */
TEST(low_snr_names_the_worst_operator)
{
    mlia_result r;
    begin(&r);
    ent_stat(&r, op(&r, "a", "aten.a.default", NULL, 0, NULL), "output_snr_db", "p50", 35);
    ent_stat(&r, op(&r, "b", "aten.b.default", NULL, 0, NULL), "output_snr_db", "p50", 12.5);
    ent_stat(&r, op(&r, "c", "aten.c.default", NULL, 0, NULL), "output_snr_db", "p50", 18);
    advise(&r, 10, 0);
    const mlia_advice *a = find(&r, "low-snr");
    CHECK(a != NULL);
    if (a) {
        CHECK_CONTAINS(a->message, "aten.b.default has the lowest output SNR against the reference: 12.5 dB (P50, "
                                   "below 20 dB; 2 operators are below it)");
        CHECK_STR(a->affected[0], "source_operator/forward/b");
    }
    mlia_arena_free(&A);

    begin(&r);
    ent_stat(&r, op(&r, "a", "aten.a.default", NULL, 0, NULL), "output_snr_db", "p50", 20.0);
    advise(&r, 10, 0);
    CHECK(find(&r, "low-snr") == NULL);
    mlia_arena_free(&A);
}

/* Ranking and the cap: warnings first, then the larger share (hot-chain 60 %
 * before unstable 40 % before outside 18 %), few-executions last; never more
 * than MLIA_ADVICE_MAX; the console prints them numbered under "Advice". */
TEST(ranking_and_console_section)
{
    mlia_result r;
    begin(&r);
    model_time(&r, 1.0, 0.9, 1.3);
    model_cycles(&r, 100000);
    chain(&r, 32, 60000);
    chain(&r, 33, 40000);
    mlia_result_entity(&r, "delegate_call/forward/0/0", "delegate_call", "VgfBackend");
    op(&r, "relu", "aten.relu.default", NULL, 0.18, "exclusive");
    mlia_entity *n = op(&r, "log", "aten.log.default", NULL, 0, NULL);
    ent_stat(&r, n, "output_nan_count", "max", 3);
    advise(&r, 3, 0);
    CHECK_UINT(r.n_advice, 5);
    if (r.n_advice == 5) {
        CHECK_STR(r.advice[0].id, "nonfinite-output");
        CHECK_STR(r.advice[1].id, "hot-chain");
        CHECK_STR(r.advice[2].id, "unstable-inference-time");
        CHECK_STR(r.advice[3].id, "outside-delegates");
        CHECK_STR(r.advice[4].id, "few-executions");
    }
    char *text = mlia_console_summary_result(&r, "forward", 3, NULL, 0);
    CHECK_CONTAINS(text, "\nAdvice (5)\n  1. Warning: aten.log.default is the first operator");
    CHECK_CONTAINS(text, "\n  2. Chain 32 spends 60 %");
    CHECK_CONTAINS(text, "[few-executions]\n");
    free(text);
    mlia_arena_free(&A);

    /* nothing fires: no section */
    begin(&r);
    model_time(&r, 1.0, 0.99, 1.01);
    advise(&r, 10, 0);
    CHECK_UINT(r.n_advice, 0);
    text = mlia_console_summary_result(&r, "forward", 10, NULL, 0);
    CHECK(strstr(text, "Advice") == NULL);
    free(text);
    mlia_arena_free(&A);
}

int main(void)
{
    RUN(hot_chain_fires_at_a_quarter_of_the_cycles);
    RUN(hot_operator_needs_an_exclusive_quarter);
    RUN(outside_delegates_counts_a_shared_call_once);
    RUN(unstable_time_suggests_warmup_only_when_not_given);
    RUN(few_executions_below_five);
    RUN(nonfinite_names_the_first_operator);
    RUN(low_snr_names_the_worst_operator);
    RUN(ranking_and_console_section);
    return test_summary();
}
