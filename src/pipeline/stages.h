/*
 * stages.h - stages of the check pipeline that connect the readers and the
 * analyses to the session (src/pipeline). Each returns 0, or -1 with *err set.
 */
#ifndef MLIA_PIPELINE_STAGES_H
#define MLIA_PIPELINE_STAGES_H

#include "analysis/runtime.h"
#include "backends/backend.h"
#include "pipeline/session.h"

/* The ETDumps (captures.c): open (map) every --profiling-data file; select
 * the method's executions in each, leave out the warm-up ones and pool the
 * captures into s->dump (sets s->execution_runs, s->captures, ...). */
int captures_open(mlia_session *s, mlia_error *err);
int captures_select(mlia_session *s, method_selection *out, mlia_error *err);
/* Closes the files, frees the arrays. Safe on a session whose captures were
 * never opened. */
void captures_free(mlia_session *s);

/* The backends (backends_stage.c, src/backends/registry.c):
 * backends_begin gives each registered backend its state; backends_analyse
 * runs each one's analysis on the session's executions; backends_metrics
 * adds their model metrics; backends_incomplete says whether one has
 * incomplete associations. check_backend_ctx fills what a backend's hooks
 * see of the session. */
void check_backend_ctx(mlia_session *s, mlia_backend_ctx *c);
void backends_begin(mlia_session *s);
int backends_analyse(mlia_session *s, mlia_error *err);
void backends_metrics(mlia_session *s);
bool backends_incomplete(const mlia_session *s);

/* Companion PTE (companion.c): read the PTE; find the method's plan and
 * let the companion backend locate its blob; check the captured
 * instructions against the plan, then the backend's checks (when it found
 * its blob). companion_plan: the selected method's plan in it (its position
 * in *index when index is not NULL), NULL when none. */
struct pte_plan;
const struct pte_plan *companion_plan(const mlia_session *s, uint32_t *index);
int companion_read(mlia_session *s, mlia_error *err);
int companion_locate(mlia_session *s, mlia_error *err);
int companion_check(mlia_session *s, mlia_error *err);
int companion_recheck_digest(const mlia_session *s, mlia_error *err);

/* Memory view (memory_stage.c): with a companion PTE whose selected method
 * has a plan, runs memory_analyse (analysis/memory.h) into s->memory and
 * warns when the plan cannot be used. Does nothing without a companion. */
int memory_stage(mlia_session *s, mlia_error *err);

/* Intermediate outputs (accuracy_stage.c). accuracy_open opens the debug
 * buffers and the reference ETDump named by the options (before any work, so
 * that a missing file is reported first); accuracy_stage reads the reference,
 * selects its executions and runs accuracy_analyse (analysis/accuracy.h) on
 * the session's result. Both do nothing when no option names such a file and
 * the ETDump logs no tensor. */
int accuracy_open(mlia_session *s, mlia_error *err);
int accuracy_stage(mlia_session *s, mlia_error *err);

#endif
