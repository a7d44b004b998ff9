/* The Vulkan dispatch name decoder (src/backends/vulkan/analysis/vk_dispatch.h):
 * the JSON object's fields, a staging shader without operator, and names
 * that are not a dispatch or not JSON. */
#include "test.h"

#include <string.h>

#include "backends/vulkan/analysis/vk_dispatch.h"

static int decode(const char *name, mlia_arena *a, vk_dispatch *d)
{
    return vk_dispatch_decode(name, strlen(name), a, d);
}

TEST(operator_dispatch_fields)
{
    mlia_arena a;
    mlia_arena_init(&a);
    vk_dispatch d;
    CHECK_INT(decode("{\"operator\": {\"name\": \"aten.linear.default\", \"delegate_node_id\": 12, \"args\": "
                     "[{\"type\": \"tensor\", \"sizes\": [1, 16]}, {\"type\": \"int\", \"value\": 3}]}, "
                     "\"kernel_name\": \"linear_texture3d_float\", \"operator_id\": 7, \"dispatch_id\": 9}",
                     &a, &d),
              0);
    CHECK(d.has_operator && d.has_node_id && d.has_operator_id && d.has_dispatch_id);
    CHECK_STR(d.operator_name, "aten.linear.default");
    CHECK_STR(d.kernel_name, "linear_texture3d_float");
    CHECK_INT(d.delegate_node_id, 12);
    CHECK_INT(d.operator_id, 7);
    CHECK_INT(d.dispatch_id, 9);
    CHECK_UINT(d.n_args, 2);
    mlia_arena_free(&a);
}

TEST(staging_shader_has_no_operator)
{
    mlia_arena a;
    mlia_arena_init(&a);
    vk_dispatch d;
    CHECK_INT(decode("{\"kernel_name\": \"nchw_to_image_texture3d_float\", \"operator_id\": 0, \"dispatch_id\": 0}",
                     &a, &d),
              0);
    CHECK(!d.has_operator && !d.has_node_id && !d.operator_name);
    CHECK_STR(d.kernel_name, "nchw_to_image_texture3d_float");
    mlia_arena_free(&a);
}

TEST(bad_names)
{
    mlia_arena a;
    mlia_arena_init(&a);
    vk_dispatch d;
    CHECK(!vk_is_dispatch_name("ETVK_EXECUTE", 12));
    CHECK(!vk_is_dispatch_name("", 0));
    CHECK_INT(decode("ETVK_EXECUTE", &a, &d), -1);
    CHECK_INT(decode("{\"kernel_name\": ", &a, &d), -1);     /* truncated */
    CHECK(d.kernel_name == NULL);
    CHECK_INT(decode("{} trailing", &a, &d), -1);
    /* negative or too large ids and wrong types count as absent */
    CHECK_INT(decode("{\"operator\": {\"delegate_node_id\": -1}, \"dispatch_id\": 99999999999999999999, "
                     "\"operator_id\": \"3\", \"kernel_name\": 5}",
                     &a, &d),
              0);
    CHECK(d.has_operator && !d.has_node_id && !d.has_dispatch_id && !d.has_operator_id && !d.kernel_name);
    /* nesting beyond the limit is refused, not recursed into */
    char deep[200];
    memset(deep, '[', sizeof deep);
    memcpy(deep, "{\"a\":", 5);
    deep[sizeof deep - 1] = '\0';
    CHECK_INT(decode(deep, &a, &d), -1);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(operator_dispatch_fields);
    RUN(staging_shader_has_no_operator);
    RUN(bad_names);
    return test_summary();
}
