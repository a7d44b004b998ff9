/*
 * delegate_map.h - a delegate event's source operators by exact lookup of
 * its identifier in the ETRecord's inner delegate map (docs/delegates.md,
 * "Mapping to source operators"). Shared by the backends of
 * src/backends/: the key is compared whole, never searched as a substring,
 * and a backend without a map gets an honest "unmapped".
 *
 * Ownership: nothing is allocated except through the result (links) and
 * the arena given (the handle index, built once per call of
 * delegate_map_index).
 */
#ifndef MLIA_ANALYSIS_DELEGATE_MAP_H
#define MLIA_ANALYSIS_DELEGATE_MAP_H

#include <stdint.h>

#include "analysis/result.h"
#include "core/arena.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"

/* How an event was mapped. */
typedef enum delegate_mapping {
    DELEGATE_MAP_NONE,       /* the instruction's inner map is null, {} or absent: the backend records none */
    DELEGATE_MAP_NO_KEY,     /* the map has keys, but not this identifier */
    DELEGATE_MAP_EMPTY,      /* the key is there with no handles: no source operator */
    DELEGATE_MAP_LINKED      /* linked to the source operators of its handles */
} delegate_mapping;

/* The edge program's handle index (ep_handle_index) for delegate_map_link. */
typedef struct delegate_map_index {
    const etrecord_method *maps;
    const ep_program *program;
    const char *method;
    ep_handle_node *idx;
    uint32_t n;
    mlia_arena *arena;
} delegate_map_index;

void delegate_map_index_init(delegate_map_index *x, const etrecord_method *maps, const ep_program *program,
                             const char *method, mlia_arena *arena);

/* Looks `key` up, whole, in the inner delegate map of instruction `instr`;
 * on a hit links `event` (parent) to every source operator entity of the
 * key's handles (child), counting them in *n_linked. */
delegate_mapping delegate_map_link(const delegate_map_index *x, uint32_t instr, const char *key,
                                   mlia_result *r, mlia_entity *event, uint32_t *n_linked);

/* "unmapped", "no key", "no source operator" or "delegate map" (static). */
const char *delegate_mapping_name(delegate_mapping m);

#endif
