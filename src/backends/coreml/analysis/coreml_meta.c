/*
 * coreml_meta.c - see coreml_meta.h.
 */
#include <string.h>

#include "backends/coreml/analysis/coreml_meta.h"
#include "core/json_read.h"

int coreml_meta_decode(const uint8_t *metadata, uint32_t size, mlia_arena *a, coreml_meta *out)
{
    memset(out, 0, sizeof *out);
    if (!metadata || !size)
        return -1;
    mlia_json *root;
    mlia_error err;
    mlia_error_clear(&err);
    mlia_json_opts o = {.refuse_nul = true, .max_depth = 8};
    int rc = mlia_json_parse((const char *)metadata, size, &o, a, &root, NULL, &err);
    if (rc || !mlia_json_is(root, MLIA_JSON_OBJECT))
        return -1;
    const char *u = mlia_json_get_str(root, "preferredComputeUnit");
    out->preferred_compute_unit = u ? mlia_arena_strdup(a, u) : NULL;
    const char *op = mlia_json_get_str(root, "operatorName");
    out->operator_name = op ? mlia_arena_strdup(a, op) : NULL;
    const mlia_json *c = mlia_json_get(root, "estimatedCost");
    if (c && mlia_json_is(c, MLIA_JSON_NUMBER) && !c->num_nonfinite) {
        out->has_cost = true;
        out->estimated_cost = c->u.number.d;
    }
    const mlia_json *s = mlia_json_get(root, "supportedComputeUnits");
    if (s && mlia_json_is(s, MLIA_JSON_ARRAY))
        for (size_t i = 0; i < s->u.array.n && out->n_supported < 8; i++)
            if (mlia_json_is(s->u.array.items[i], MLIA_JSON_STRING))
                out->supported[out->n_supported++] = mlia_arena_strdup(a, s->u.array.items[i]->u.string.s);
    return 0;
}

const char *coreml_compute_unit_name(const char *unit)
{
    if (unit && strcmp(unit, "NE") == 0)
        return "Neural Engine";
    return unit;
}
