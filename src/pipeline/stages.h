/*
 * stages.h - stages of the check pipeline that connect the readers and the
 * analyses to the session (src/pipeline). Each returns 0, or -1 with *err set.
 */
#ifndef MLIA_PIPELINE_STAGES_H
#define MLIA_PIPELINE_STAGES_H

#include "pipeline/session.h"

/* NX statistics (nx_stage.c): run nx_analyse on the session's executions and
 * add the hierarchy to the result (analysis/nx_entities.h). */
int nx_run(mlia_session *s, mlia_error *err);

/* Companion PTE (companion.c). */
int companion_read(mlia_session *s, mlia_error *err);
int companion_locate(mlia_session *s, mlia_error *err);
int companion_check(mlia_session *s, mlia_error *err);
int companion_recheck_digest(const mlia_session *s, mlia_error *err);

#endif
