/*
 * glue.h - stages of the check pipeline that connect readers and analyses
 * to the session's result model (implemented in the src/api folder).
 */
#ifndef MLIA_API_GLUE_H
#define MLIA_API_GLUE_H

#include "api/session.h"

/* NX statistics: run nx_analyse on the session's executions and turn the
 * hierarchy into entities and breakdowns (segments, cascades, chains,
 * stripes, compiler operations, associations). */
int nx_run(mlia_session *s, mlia_error *err);
/* Append total_cycles, compute_cycles, target_utilization (nx may be NULL). */
void nx_model_metrics(const struct nx_result *nx, mlia_result *r);
/* True when some compiler operation or source operator stayed unassociated. */
bool nx_associations_incomplete(const struct nx_result *nx);

/* Companion PTE (product.md section 6). */
int companion_read(mlia_session *s, mlia_error *err);
int companion_locate(mlia_session *s, mlia_error *err);
int companion_check(mlia_session *s, mlia_error *err);
int companion_recheck_digest(const mlia_session *s, mlia_error *err);

#endif
