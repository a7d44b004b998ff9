/*
 * engine.h - the one small interface the run history (history.c) speaks to
 * its two storage engines: an embedded SQLite file (engine_sqlite.c) and a
 * PostgreSQL server through libpq (engine_postgres.c). docs/history.md says
 * why each and how the schema looks.
 *
 * The interface is SQL text with numbered parameters ($1, $2, ...; both
 * engines read them) and rows handed back one at a time to a callback. What
 * differs between the engines is kept here as data (the DDL words of an
 * identity key and of a double, how a write transaction starts), so the
 * schema, its migrations and every query are written once, in history.c.
 *
 * Values: a parameter is NULL, an integer, a double or a text (borrowed for
 * the call). A row's columns come back typed by SQLite and as text by
 * PostgreSQL; hv_int / hv_real / hv_text read either form.
 *
 * Errors: one line, "<location>: <what>", where location is the file path
 * or the URI without its password, and <what> is the engine's message on
 * one line (never the SQL text).
 *
 * Ownership: a connection is malloc'd by its engine's open function and
 * released by close(); text columns handed to a row callback are valid
 * during the callback only (copy what you keep).
 */
#ifndef MLIA_HISTORY_ENGINE_H
#define MLIA_HISTORY_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/error.h"

typedef enum hv_type { HV_NULL = 0, HV_INT, HV_REAL, HV_TEXT } hv_type;

typedef struct hv {
    hv_type t;
    int64_t i;
    double d;
    const char *s;
} hv;

static inline hv hv_null(void) { return (hv){HV_NULL, 0, 0, 0}; }
static inline hv hv_i(int64_t i) { return (hv){HV_INT, i, 0, 0}; }
static inline hv hv_d(double d) { return (hv){HV_REAL, 0, d, 0}; }
static inline hv hv_s(const char *s) { return s ? (hv){HV_TEXT, 0, 0, s} : hv_null(); }

bool hv_is_null(const hv *v);
int64_t hv_int(const hv *v);      /* 0 for NULL or text that is not an integer */
double hv_real(const hv *v);      /* 0 for NULL */
const char *hv_text(const hv *v); /* NULL for NULL; integers and doubles are not converted */

/* Called once per result row; a non-zero return stops the statement and is
 * returned by exec (the callback sets err). */
typedef int (*hdb_row_fn)(void *ctx, const hv *cols, int n_cols, mlia_error *err);

typedef struct hdb_engine {
    const char *name;         /* "sqlite", "postgresql" */
    const char *id_type;      /* DDL of an integer key the engine numbers */
    const char *real_type;    /* DDL of a double */
    const char *begin_write;  /* SQL starting a write transaction */
    const char *compact;      /* after a table whose key is its only index (" WITHOUT ROWID") */
    const char *namespace_sql; /* creates the tables' namespace, or NULL */
    /* Runs one statement with params; rows (if any) go to fn (may be NULL). */
    int (*exec)(void *conn, const char *sql, int n_params, const hv *params, hdb_row_fn fn, void *ctx,
                mlia_error *err);
    /* Inside a write transaction, before the schema is looked at: waits for
     * any other writer migrating the schema (PostgreSQL: a transaction
     * advisory lock; SQLite: BEGIN IMMEDIATE already holds the write lock). */
    int (*lock_schema)(void *conn, mlia_error *err);
    void (*close)(void *conn);
} hdb_engine;

extern const hdb_engine HDB_SQLITE, HDB_POSTGRES;

/* Opens a SQLite history file; with create, a missing file is created
 * (its folder must exist). Errors: "<path>: <strerror>" and the engine's. */
int hdb_sqlite_open(const char *path, bool create, void **conn, mlia_error *err);
/* Connects to the server a postgresql:// (or postgres://) URI names;
 * `shown` is the URI as errors show it (password removed). */
int hdb_postgres_open(const char *uri, const char *shown, void **conn, mlia_error *err);

#endif
