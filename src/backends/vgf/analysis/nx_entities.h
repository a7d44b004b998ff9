/*
 * nx_entities.h - the NX statistics hierarchy as result entities.
 *
 * The NX counterpart of runtime_analyse()'s entity building: nx_analyse()
 * (nx_analysis.h) decodes and aggregates the statistics; these functions
 * turn its result into entities, breakdowns and model metrics of an
 * mlia_result. Everything they allocate lives in the given arena.
 */
#ifndef MLIA_ANALYSIS_NX_ENTITIES_H
#define MLIA_ANALYSIS_NX_ENTITIES_H

#include <stdbool.h>
#include <stdint.h>

#include "backends/vgf/analysis/nx_analysis.h"
#include "analysis/result.h"
#include "core/arena.h"

/* Adds the statistics' warnings, then the segment, cascade, chain, stripe and
 * compiler-operation entities with their cycle breakdowns and links, and the
 * association links chain/compiler operation -> source operator
 * ("source_operator/<method_name>/<node>", linked only when that entity
 * exists in r). n_source_nodes is the size of the method's graph, for the
 * "Associations are incomplete" warning. Strings are borrowed from nx or
 * allocated in `arena`. */
void nx_entities_add(const nx_result *nx, const char *method_name, uint32_t n_source_nodes, mlia_arena *arena,
                     mlia_result *r);
/* Appends total_cycles, compute_cycles, target_utilization (nx may be NULL:
 * unavailable with the reason that no statistics were found). */
void nx_model_metrics(const nx_result *nx, mlia_result *r);
/* True when some compiler operation or source operator stayed unassociated. */
bool nx_associations_incomplete(const nx_result *nx);

#endif
