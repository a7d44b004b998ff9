/*
 * vk_dispatch.c - decode a Vulkan dispatch event's JSON name (see
 * vk_dispatch.h).
 */
#include "backends/vulkan/analysis/vk_dispatch.h"

#include <string.h>

#include "core/error.h"
#include "core/json_read.h"

bool vk_is_dispatch_name(const char *name, size_t len)
{
    return name && len > 0 && name[0] == '{';
}

/* A non-negative integer member that fits int64. */
static bool get_id(const mlia_json *obj, const char *key, int64_t *out)
{
    const mlia_json *v = mlia_json_get(obj, key);
    if (!v || !mlia_json_is(v, MLIA_JSON_NUMBER) || !v->num_int_fits || v->u.number.i < 0)
        return false;
    *out = v->u.number.i;
    return true;
}

int vk_dispatch_decode(const char *name, size_t len, mlia_arena *a, vk_dispatch *out)
{
    memset(out, 0, sizeof *out);
    if (!vk_is_dispatch_name(name, len))
        return -1;
    mlia_json *root;
    mlia_error err;
    mlia_error_clear(&err);
    /* args nest a few levels (value -> tensor -> sizes) */
    mlia_json_opts o = {.refuse_nul = true, .max_depth = 16};
    if (mlia_json_parse(name, len, &o, a, &root, NULL, &err) || !mlia_json_is(root, MLIA_JSON_OBJECT))
        return -1;
    out->kernel_name = mlia_json_get_str(root, "kernel_name");
    out->has_operator_id = get_id(root, "operator_id", &out->operator_id);
    out->has_dispatch_id = get_id(root, "dispatch_id", &out->dispatch_id);
    const mlia_json *op = mlia_json_get(root, "operator");
    if (op && mlia_json_is(op, MLIA_JSON_OBJECT)) {
        out->has_operator = true;
        out->operator_name = mlia_json_get_str(op, "name");
        out->has_node_id = get_id(op, "delegate_node_id", &out->delegate_node_id);
        const mlia_json *args = mlia_json_get(op, "args");
        if (args && mlia_json_is(args, MLIA_JSON_ARRAY))
            out->n_args = args->u.array.n > UINT32_MAX ? UINT32_MAX : (uint32_t)args->u.array.n;
    }
    return 0;
}
