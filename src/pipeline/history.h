/*
 * history.h - the `mlia history` pipeline (history.c): open the history,
 * list the runs and the trend, write the chosen format and the page.
 */
#ifndef MLIA_PIPELINE_HISTORY_H
#define MLIA_PIPELINE_HISTORY_H

#include "core/arena.h"
#include "core/error.h"
#include "history/history.h"
#include "pipeline/options.h"
#include "report/outdir.h"

/* The folder DIR/history holding history.html. */
#define HISTORY_OUTDIR_NAME "history"

/* What one listing owns; released by history_session_free, also after an
 * out-of-memory jump out of history_session_run. */
typedef struct history_session {
    mlia_arena arena;
    mlia_history *h;
    mlia_outdir outdir;
    bool outdir_open;
} history_session;

/* What a listing gives its caller (malloc'd, the caller frees). */
typedef struct history_outputs {
    char *text;      /* the table, CSV or JSON */
    char *page_path; /* DIR/history/history.html, or NULL */
    unsigned n_runs;
} history_outputs;

void history_session_init(history_session *hs, size_t memory_limit);
/* Returns 0, or 1 with *err set. */
int history_session_run(history_session *hs, const mlia_history_config *o, history_outputs *out, mlia_error *err);
void history_session_abort_outputs(history_session *hs);
void history_session_free(history_session *hs);

#endif
