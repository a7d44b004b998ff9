/*
 * coreml_meta.h - Apple CoreML's per-operation metadata
 * (docs/delegates.md, "Apple CoreML"): a UTF-8 JSON object with
 * preferredComputeUnit, supportedComputeUnits, outputNames, operatorName
 * and estimatedCost (key order not guaranteed).
 *
 * Ownership: strings are allocated from the arena given.
 */
#ifndef MLIA_BACKENDS_COREML_META_H
#define MLIA_BACKENDS_COREML_META_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"

typedef struct coreml_meta {
    const char *preferred_compute_unit; /* "CPU", "GPU", "NE" or NULL */
    const char *operator_name;          /* MIL operator, or NULL */
    bool has_cost;
    double estimated_cost;              /* 0..1 fraction of the model's time */
    uint32_t n_supported;
    const char *supported[8];           /* supportedComputeUnits (first 8) */
} coreml_meta;

/* Decodes metadata[0, size). Returns 0, or -1 when it is not a JSON object
 * (then *out is zeroed). */
int coreml_meta_decode(const uint8_t *metadata, uint32_t size, mlia_arena *a, coreml_meta *out);

/* "Neural Engine" for "NE", else the unit as given (static or unit). */
const char *coreml_compute_unit_name(const char *unit);

#endif
