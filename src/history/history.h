/*
 * history.h - the run history (docs/history.md): `mlia check --history`
 * records a run, `mlia history` lists runs and a metric's trend, `mlia
 * compare --baseline-history` gates a run against the recorded runs of its
 * program.
 *
 * A history is a SQLite file (the default; no server) or a PostgreSQL
 * database named by a postgresql:// URI (a team's or a device farm's). Both
 * hold one schema, created and migrated in place by history_open(..., write)
 * (versions in the mlia_schema table): runs (time, tool version, labels,
 * program, settings, capture digests), the entities of each program and
 * their metrics per run (P50, min, max, samples of each series). The
 * engines sit behind history/engine.h; everything here is written once.
 *
 * Recording is one transaction: a run is in the history whole or not at
 * all, whatever other writers do at the same time.
 *
 * Ownership: history_open mallocs the handle, history_close releases it
 * (the connection too). Query results live in the arena given to the query.
 */
#ifndef MLIA_HISTORY_HISTORY_H
#define MLIA_HISTORY_HISTORY_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/run.h"
#include "core/arena.h"
#include "core/error.h"
#include "formats/result_read.h"

/* Schema version this mlia writes and reads (docs/history.md "Migrations"). */
#define HISTORY_SCHEMA_VERSION 1
/* Runs `mlia history` lists and `--baseline-history` pools by default. */
#define HISTORY_DEFAULT_LAST 20
#define HISTORY_DEFAULT_BASELINE_LAST 10
#define HISTORY_MAX_LAST 1000000u
#define HISTORY_MAX_LABELS 64
/* The trend metric and entity when none is named. */
#define HISTORY_DEFAULT_METRIC "inference_time"
#define HISTORY_MODEL_ENTITY RESULT_MODEL_ENTITY

typedef struct mlia_history mlia_history;

typedef struct history_label {
    const char *key, *value;
} history_label;

/* The default location, $XDG_DATA_HOME/mlia/history.sqlite (else
 * $HOME/.local/share/mlia/history.sqlite); with create, its folders are
 * made. Arena string, or NULL with err set. */
const char *history_default_location(bool create, mlia_arena *a, mlia_error *err);
/* True for a postgresql:// or postgres:// URI. */
bool history_is_server(const char *location);
/* The location as messages show it (a URI without its password); arena string. */
const char *history_shown(const char *location, mlia_arena *a);

/* A label as given on the command line, "key=value": the key 1 to 64
 * characters of letters, digits, '_', '.' and '-', the value at most 1024
 * bytes without control characters (it may be empty). */
#define HISTORY_LABEL_RULE "KEY=VALUE (KEY: letters, digits, '_', '.', '-')"
bool history_label_valid(const char *text);
/* Splits valid "key=value" texts into labels (strings in the arena), a key
 * given twice keeping its last value; returns their number. */
uint32_t history_labels_split(const char *const *texts, uint32_t n, mlia_arena *a, history_label **out);

/* Opens the history at location (NULL or "": the default one). With write,
 * a missing SQLite file is created and the schema created or migrated;
 * without, the history must exist. Errors (one line, exit status 1):
 *   "<file>: No such file or directory" (reading a missing file),
 *   "<file>: damaged or not an mlia history (<engine's words>)",
 *   "<file>: not an mlia history (it holds other tables)",
 *   "<uri>: cannot connect to the history server: <libpq's words>",
 *   "<location>: written by a newer mlia (history schema N; this mlia reads up to 1)",
 *   "<location>: no mlia history here (nothing recorded yet)". */
int history_open(const char *location, bool write, mlia_history **out, mlia_error *err);
void history_close(mlia_history *h);
const char *history_location(const mlia_history *h); /* as shown */
const char *history_engine(const mlia_history *h);   /* "sqlite" or "postgresql" */

/* Records one analysed run with its labels (keys distinct), as one
 * transaction. `settings` are the settings its result states (the NX
 * statistics mode and device come from the backend's part of the result;
 * formats/result_read.h reads them), NULL: none. Error: "<location>: run <uuid> is recorded already" and
 * the engine's. */
int history_record(mlia_history *h, const mlia_run_record *rec, const rr_settings *settings,
                   const history_label *labels, uint32_t n_labels, mlia_error *err);

/* The settings a run was analysed with that make its numbers comparable
 * (docs/compare.md "Settings"): the clock's rate (0: nanoseconds), the
 * warm-up, and the NX statistics mode and device (absent: none). */
typedef struct history_settings {
    double ticks_per_second;
    int64_t warmup_executions;
    bool has_mode;
    int64_t mode;
    const char *device;
} history_settings;

/* Which runs a query reads: all filters optional, labels all required. */
typedef struct history_query {
    const char *program;          /* fingerprint, or a prefix of at least 8 hex digits */
    const char *model;            /* model name (the ETRecord's file name) */
    const char *method;
    const history_label *labels;
    uint32_t n_labels;
    uint32_t last;                /* the newest N (0: HISTORY_DEFAULT_LAST) */
    const char *metric;           /* trend: a metric name or a series key (NULL: HISTORY_DEFAULT_METRIC) */
    const char *entity;           /* trend: an entity id (NULL: the model) */
    const history_settings *settings; /* only runs analysed with these settings, or NULL */
} history_query;

typedef struct history_run {
    const char *run_id, *recorded_at, *tool_version, *program, *method, *model, *status, *settings;
    uint64_t executions;
    uint32_t n_labels;
    history_label *labels;        /* by key */
    bool has_value;               /* the trend series has a P50 in this run */
    double p50, min, max;
    uint32_t samples;
} history_run;

typedef struct history_runs {
    uint32_t n;
    history_run *runs;            /* oldest first */
    const char *metric, *entity;  /* as asked (defaults applied) */
    const char *series, *unit;    /* the series shown (NULL when no run has it) */
} history_runs;

/* Lists the newest q->last runs matching q, oldest first, with the trend
 * series' values. */
int history_list(mlia_history *h, const history_query *q, mlia_arena *a, history_runs *out, mlia_error *err);

/* The runs history_list would list, each as the result document `mlia
 * compare` reads (formats/result_read.h), newest last; *n may be 0. */
int history_docs(mlia_history *h, const history_query *q, mlia_arena *a, result_doc **docs, const char ***run_ids,
                 uint32_t *n, mlia_error *err);

#endif
