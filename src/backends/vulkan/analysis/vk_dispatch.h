/*
 * vk_dispatch.h - the name of one Vulkan shader-dispatch event, decoded
 * (docs/delegates.md, "Vulkan").
 *
 * ExecuTorch's Vulkan backend names each shader dispatch with a JSON
 * object: {"operator": {"name": <aten op>, "delegate_node_id": <int>,
 * "args": [...]}, "kernel_name": <shader>, "operator_id": <int>,
 * "dispatch_id": <int>}; "operator" is absent for staging and copy shaders.
 * The name is parsed as JSON, never searched as text: the digits of
 * sizes and ids would otherwise match any delegate-map key.
 *
 * Ownership: the strings point into the arena given to vk_dispatch_decode.
 */
#ifndef MLIA_BACKENDS_VULKAN_VK_DISPATCH_H
#define MLIA_BACKENDS_VULKAN_VK_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"

typedef struct vk_dispatch {
    const char *kernel_name;     /* the shader, NULL when absent */
    bool has_operator;           /* the "operator" member is an object */
    const char *operator_name;   /* its "name" (aten op), NULL when absent */
    bool has_node_id;
    int64_t delegate_node_id;    /* the key of the call's inner delegate map */
    bool has_operator_id, has_dispatch_id;
    int64_t operator_id, dispatch_id;
    uint32_t n_args;             /* entries of operator.args */
} vk_dispatch;

/* True when `name` (len bytes) looks like a dispatch name: it starts with
 * '{'. The ETVK_* scopes do not. */
bool vk_is_dispatch_name(const char *name, size_t len);

/* Decodes the JSON name into *out; -1 when it is not a JSON object (out is
 * then zeroed). Integers beyond int64 or negative ids count as absent. */
int vk_dispatch_decode(const char *name, size_t len, mlia_arena *a, vk_dispatch *out);

#endif
