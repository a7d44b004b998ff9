/*
 * trace_source.h - the trace writer's input (report/trace/trace.h) built from a
 * check session (see trace_source.c for the event -> entity rules).
 */
#ifndef MLIA_API_TRACE_SOURCE_H
#define MLIA_API_TRACE_SOURCE_H

#include "pipeline/session.h"
#include "report/trace/trace.h"

/* Fill *out from the analysed session. Everything it points to lives in
 * `arena` (and the session), which must outlive every use of *out. */
void trace_source_init(const mlia_session *s, mlia_arena *arena, trace_source *out);

#endif
