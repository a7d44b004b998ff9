/* One display name per source operator (analysis/display_name.h, issue 29,
 * 2): namesakes are told apart by module, else source line, else node name;
 * the console's chain rows list what each chain runs by that name. */
#include "test.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/display_name.h"
#include "report/result/console.h"

static mlia_arena A;

static mlia_entity *op(mlia_result *r, const char *node, const char *name, const char *module, const char *code)
{
    mlia_entity *e = mlia_result_entity(r, mlia_arena_printf(&A, "source_operator/forward/%s", node),
                                        "source_operator", name);
    mlia_entity_set_str(r, e, "node_name", node);
    if (module) {
        const char *id = mlia_arena_printf(&A, "nn_module/forward/%s", module);
        mlia_result_entity(r, id, "nn_module", module);
        mlia_entity_set_str(r, e, "nn_module", id);
    }
    if (code) {
        const char *id = mlia_arena_printf(&A, "code_stack/%s", code);
        mlia_result_entity(r, id, "code_stack", code);
        mlia_entity_set_str(r, e, "code_stack", id);
    }
    return e;
}

TEST(namesakes_told_apart_by_module_then_line_then_node)
{
    mlia_arena_init(&A);
    mlia_result r;
    mlia_result_init(&r, &A);
    mlia_entity *c1 = op(&r, "aten_convolution_default", "aten.convolution.default", "conv1", "lenet.py:20");
    mlia_entity *c2 = op(&r, "aten_convolution_default_1", "aten.convolution.default", "conv2", "lenet.py:22");
    /* no module: the source line tells the relus apart */
    mlia_entity *r1 = op(&r, "aten_relu_default", "aten.relu.default", NULL, "lenet.py:20");
    mlia_entity *r2 = op(&r, "aten_relu_default_1", "aten.relu.default", NULL, "lenet.py:22");
    /* same module and line: the node name */
    mlia_entity *a1 = op(&r, "add", "aten.add.Tensor", "block", "m.py:3");
    mlia_entity *a2 = op(&r, "add_1", "aten.add.Tensor", "block", "m.py:3");
    mlia_entity *u = op(&r, "aten_mean_dim", "aten.mean.dim", "head", "m.py:9");
    mlia_display_names(&r);
    CHECK_STR(mlia_display_name(c1), "aten.convolution.default (conv1)");
    CHECK_STR(mlia_display_name(c2), "aten.convolution.default (conv2)");
    CHECK_STR(mlia_display_name(r1), "aten.relu.default (lenet.py:20)");
    CHECK_STR(mlia_display_name(r2), "aten.relu.default (lenet.py:22)");
    CHECK_STR(mlia_display_name(a1), "aten.add.Tensor (add)");
    CHECK_STR(mlia_display_name(a2), "aten.add.Tensor (add_1)");
    CHECK_STR(mlia_display_name(u), "aten.mean.dim");
    mlia_arena_free(&A);
}

/* Large groups (the distinctness check is a hash set that stops at the
 * first missing or repeated value): 1,000 namesakes whose modules repeat
 * only in the last one fall to their lines; 1,000 whose lines are missing
 * only for the last one fall to their node names. */
TEST(large_groups_fall_to_the_first_criterion_that_tells_all_apart)
{
    mlia_arena_init(&A);
    mlia_result r;
    mlia_result_init(&r, &A);
    enum { N = 1000 };
    mlia_entity *mul[N], *sub[N];
    for (int i = 0; i < N; i++) {
        const char *module = mlia_arena_printf(&A, "m%d", i == N - 1 ? 0 : i);
        mul[i] = op(&r, mlia_arena_printf(&A, "mul_%d", i), "aten.mul.Tensor", module,
                    mlia_arena_printf(&A, "x.py:%d", i + 1));
        sub[i] = op(&r, mlia_arena_printf(&A, "sub_%d", i), "aten.sub.Tensor", mlia_arena_printf(&A, "s%d", i % 7),
                    i == N - 1 ? NULL : mlia_arena_printf(&A, "y.py:%d", i + 1));
    }
    mlia_display_names(&r);
    CHECK_STR(mlia_display_name(mul[0]), "aten.mul.Tensor (x.py:1)");
    CHECK_STR(mlia_display_name(mul[N - 1]), "aten.mul.Tensor (x.py:1000)");
    CHECK_STR(mlia_display_name(sub[5]), "aten.sub.Tensor (sub_5)");
    CHECK_STR(mlia_display_name(sub[N - 1]), "aten.sub.Tensor (sub_999)");
    mlia_arena_free(&A);
}

/* "Chain 31" alone did not say which layer is expensive: the chain row is
 * followed by the operators it serves and its TOSA operations. */
TEST(chain_rows_list_their_operators)
{
    mlia_arena_init(&A);
    mlia_result r;
    mlia_result_init(&r, &A);
    r.status = "ok";
    mlia_entity *s1 = op(&r, "conv", "aten.convolution.default", "stem", "model.py:30");
    op(&r, "conv_1", "aten.convolution.default", "block0_pw", "model.py:31");
    mlia_entity *chain = mlia_result_entity(&r, "chain/segment_0/30", "chain", "graph_segment_0/Chain 30");
    mlia_metric m = mlia_metric_uint("total_cycles", "cycles", 60300, "p50", 2);
    mlia_metric_qualify(&m, "statistic", "p50");
    mlia_entity_add_metric(&r, chain, m);
    mlia_entity *t1 = mlia_result_entity(&r, "compiler_operation/segment_0/tosa-10", "compiler_operation", "Conv2D");
    mlia_entity *t2 = mlia_result_entity(&r, "compiler_operation/segment_0/tosa-11", "compiler_operation", "Rescale");
    mlia_entity *sp = mlia_result_entity(&r, "compiler_operation/segment_0/spirv-47", "compiler_operation", "Conv2D");
    mlia_result_link(&r, chain, t1);
    mlia_result_link(&r, chain, s1);
    mlia_result_link(&r, chain, t2);
    mlia_result_link(&r, chain, sp);
    mlia_display_names(&r);
    char *text = mlia_console_summary_result(&r, "forward", 2, NULL, 0);
    CHECK(strstr(text, "  1  Chain 30") != NULL);
    CHECK(strstr(text, "\n       operators: aten.convolution.default (stem)\n"
                       "       TOSA: Conv2D, Rescale\n") != NULL);
    free(text);
    mlia_arena_free(&A);
}

int main(void)
{
    RUN(namesakes_told_apart_by_module_then_line_then_node);
    RUN(large_groups_fall_to_the_first_criterion_that_tells_all_apart);
    RUN(chain_rows_list_their_operators);
    return test_summary();
}
