/*
 * test_coreml_meta.c - CoreML's per-operation JSON metadata decoded
 * (docs/delegates.md, "Apple CoreML"): any key order, NE named the Neural
 * Engine, bytes that are not a JSON object refused.
 */
#include "test.h"

#include <string.h>

#include "backends/coreml/analysis/coreml_meta.h"

TEST(decodes_the_members_in_any_order)
{
    mlia_arena a;
    mlia_arena_init(&a);
    const char *j = "{\"estimatedCost\":0.25,\"operatorName\":\"conv\",\"outputNames\":[\"y\"],"
                    "\"supportedComputeUnits\":[\"CPU\",\"NE\"],\"preferredComputeUnit\":\"NE\"}";
    coreml_meta m;
    CHECK(coreml_meta_decode((const uint8_t *)j, (uint32_t)strlen(j), &a, &m) == 0);
    CHECK(strcmp(m.preferred_compute_unit, "NE") == 0);
    CHECK(strcmp(coreml_compute_unit_name(m.preferred_compute_unit), "Neural Engine") == 0);
    CHECK(strcmp(m.operator_name, "conv") == 0);
    CHECK(m.has_cost && m.estimated_cost == 0.25);
    CHECK(m.n_supported == 2 && strcmp(m.supported[0], "CPU") == 0 && strcmp(m.supported[1], "NE") == 0);
    mlia_arena_free(&a);
}

TEST(refuses_what_is_not_an_object)
{
    mlia_arena a;
    mlia_arena_init(&a);
    coreml_meta m;
    const char *bad[] = {"[1]", "{\"a\":", "\x01"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECK(coreml_meta_decode((const uint8_t *)bad[i], (uint32_t)strlen(bad[i]), &a, &m) == -1);
    CHECK(coreml_meta_decode(NULL, 0, &a, &m) == -1);
    CHECK(!m.preferred_compute_unit && !m.has_cost);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(decodes_the_members_in_any_order);
    RUN(refuses_what_is_not_an_object);
    return test_summary();
}
