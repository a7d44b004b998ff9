/*
 * check.h - the `mlia check` pipeline (check.c): files -> readers ->
 * analysis -> writers, run on a session that owns all of its memory.
 *
 * The public entry point mlia_check() (src/api/check.c) wraps these in the
 * library's entry guard (out-of-memory recovery point, memory cap, error
 * text); nothing here returns to the host on its own.
 */
#ifndef MLIA_PIPELINE_CHECK_H
#define MLIA_PIPELINE_CHECK_H

#include <stddef.h>

#include "pipeline/session.h"

/* What a run hands back (malloc'd strings, the caller's to free; NULL when
 * not made): the public mlia_check_output's members. */
typedef struct check_outputs {
    char *result_json;            /* NULL with skip_result_json_text and an output folder */
    char *console;
    char *output_path, *page_path;
    char *model_explorer_command, *model_explorer_hint;
    char *status_error;           /* the run's status is "incompatible": why (outputs written) */
} check_outputs;

/* A new session for the resolved configuration `cfg` (borrowed for the
 * session's life) whose arenas may grow to `memory_limit` bytes. NULL when
 * malloc fails. Release with check_session_free(). */
mlia_session *check_session_new(const mlia_check_config *cfg, size_t memory_limit);
/* Runs every stage and fills `out`. Returns 0, or 1 with *err set. May
 * longjmp to the caller's out-of-memory recovery point. */
int check_session_run(mlia_session *s, check_outputs *out, mlia_error *err);
/* The input an out-of-memory error at this point of the run names. */
const char *check_session_stage_file(const mlia_session *s);
/* After an out-of-memory jump: removes the temporary output tree, if any. */
void check_session_abort_outputs(mlia_session *s);
/* Joins the second core's worker, closes the inputs, frees all memory. NULL is
 * a no-op. */
void check_session_free(mlia_session *s);

#endif
