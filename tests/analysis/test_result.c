/* The result model's relationship graph (analysis/result.h): links are kept in
 * both directions without duplicates, and every kind pair a link uses is
 * recorded once, which the result writer turns into entity_kinds. */
#include "test.h"

#include "analysis/result.h"

static mlia_arena A;

TEST(links_both_directions_without_duplicates)
{
    mlia_result r;
    mlia_result_init(&r, &A);
    mlia_entity *chain = mlia_result_entity(&r, "chain/segment_0/1", "chain", "Chain 1");
    mlia_entity *op = mlia_result_entity(&r, "compiler_operation/segment_0/tosa-2", "compiler_operation", "Conv2D");
    mlia_entity *src = mlia_result_entity(&r, "source_operator/forward/conv", "source_operator", "conv");
    mlia_result_link(&r, chain, op);
    mlia_result_link(&r, op, src);
    mlia_result_link(&r, chain, src);
    mlia_result_link(&r, chain, src);       /* duplicate */
    mlia_result_link(&r, src, src);         /* self link */
    mlia_result_link_ids(&r, "chain/segment_0/1", "no/such");  /* missing end */
    CHECK_INT(chain->n_children, 2);
    CHECK_INT(chain->n_parents, 0);
    CHECK_INT(src->n_parents, 2);
    CHECK(src->parents[0] == op && src->parents[1] == chain);
    CHECK_INT(src->n_children, 0);
    CHECK(op->n_parents == 1 && op->parents[0] == chain);
    /* three distinct kind pairs, each once, in first-use order */
    CHECK_INT(r.n_kind_edges, 3);
    CHECK_STR(r.kind_edges[0].parent_kind, "chain");
    CHECK_STR(r.kind_edges[0].child_kind, "compiler_operation");
    CHECK_STR(r.kind_edges[2].child_kind, "source_operator");
}

TEST(well_known_kinds_and_edges)
{
    CHECK(mlia_kind_is_well_known("source_operator"));
    CHECK(mlia_kind_is_well_known("code_line"));
    CHECK(!mlia_kind_is_well_known("chain"));
    CHECK(mlia_kind_edge_is_well_known("code_stack", "source_operator"));
    CHECK(mlia_kind_edge_is_well_known("code_line", "code_stack"));
    CHECK(!mlia_kind_edge_is_well_known("source_operator", "code_stack"));
    CHECK(!mlia_kind_edge_is_well_known("nn_module", "source_operator"));
}

int main(void)
{
    mlia_arena_init(&A);
    RUN(links_both_directions_without_duplicates);
    RUN(well_known_kinds_and_edges);
    mlia_arena_free(&A);
    return test_summary();
}
