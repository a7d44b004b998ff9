/*
 * engine_postgres.c - the server engine of the run history (engine.h): a
 * PostgreSQL database shared by a team or a device farm, through libpq.
 *
 * Every value travels as text (the server infers the parameter types from
 * the statement), numbers written and read in the "C" locale (core/cnum.h);
 * doubles with 17 significant digits, so they come back bit for bit. The
 * tables live in the schema `mlia` of the database (search_path is set at
 * connection), so a shared database keeps them apart from everything else.
 * Server notices (CREATE ... IF NOT EXISTS) are dropped, never printed.
 * Concurrent writers: each record is one transaction; the schema migration
 * runs under a transaction advisory lock (HDB_PG_SCHEMA_LOCK).
 */
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/cnum.h"
#include "history/engine.h"

/* Key of the advisory lock held while the schema is created or migrated
 * ("mlia" in ASCII). */
#define HDB_PG_SCHEMA_LOCK 0x6d6c6961
#define HDB_PG_MAX_PARAMS 65535
#define HDB_PG_CONNECT_TIMEOUT "10"

typedef struct pg_conn {
    PGconn *pg;
    char *shown;
} pg_conn;

/* The server's or libpq's message on one line. */
static int fail_text(const char *shown, const char *prefix, const char *msg, mlia_error *err)
{
    char line[1024];
    size_t n = 0;
    bool space = false;
    for (const char *p = msg ? msg : ""; *p && n + 2 < sizeof line; p++) {
        if (*p == '\n' || *p == '\r' || *p == '\t' || *p == ' ') {
            space = n > 0;
            continue;
        }
        if (space)
            line[n++] = ' ';
        space = false;
        line[n++] = *p;
    }
    line[n] = 0;
    return mlia_error_setf(err, shown, "%s%s", prefix, n ? line : "unknown error");
}

static void no_notices(void *arg, const char *message)
{
}

static int pg_exec(void *conn, const char *sql, int n_params, const hv *params, hdb_row_fn fn, void *ctx,
                   mlia_error *err)
{
    pg_conn *c = conn;
    if (n_params < 0 || n_params > HDB_PG_MAX_PARAMS)
        return mlia_error_setf(err, c->shown, "too many parameters (%d)", n_params);
    const char **values = calloc((size_t)n_params + 1, sizeof *values);
    char *text = malloc((size_t)n_params * 32 + 1);
    if (!values || !text) {
        free(values);
        free(text);
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, c->shown, "out of memory");
    }
    for (int k = 0; k < n_params; k++) {
        char *slot = text + (size_t)k * 32;
        switch (params[k].t) {
        case HV_INT: mlia_snprintf(slot, 32, "%lld", (long long)params[k].i); values[k] = slot; break;
        case HV_REAL: mlia_snprintf(slot, 32, "%.17g", params[k].d); values[k] = slot; break;
        case HV_TEXT: values[k] = params[k].s; break;
        default: values[k] = NULL; break;
        }
    }
    PGresult *res = PQexecParams(c->pg, sql, n_params, NULL, values, NULL, NULL, 0);
    free(values);
    free(text);
    ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (st != PGRES_COMMAND_OK && st != PGRES_TUPLES_OK) {
        int rc = fail_text(c->shown, "", res ? PQresultErrorMessage(res) : PQerrorMessage(c->pg), err);
        PQclear(res);
        return rc;
    }
    int rc = 0;
    if (fn && st == PGRES_TUPLES_OK) {
        int nr = PQntuples(res), nc = PQnfields(res);
        if (nc > 32)
            nc = 32;
        hv cols[32];
        for (int r = 0; r < nr && !rc; r++) {
            for (int k = 0; k < nc; k++)
                cols[k] = PQgetisnull(res, r, k) ? hv_null() : hv_s(PQgetvalue(res, r, k));
            rc = fn(ctx, cols, nc, err) ? -1 : 0;
        }
    }
    PQclear(res);
    return rc;
}

static int pg_lock_schema(void *conn, mlia_error *err)
{
    char sql[64];
    snprintf(sql, sizeof sql, "SELECT pg_advisory_xact_lock(%d)", HDB_PG_SCHEMA_LOCK);
    return pg_exec(conn, sql, 0, NULL, NULL, NULL, err);
}

static void pg_close(void *conn)
{
    pg_conn *c = conn;
    if (!c)
        return;
    if (c->pg)
        PQfinish(c->pg);
    free(c->shown);
    free(c);
}

int hdb_postgres_open(const char *uri, const char *shown, void **out, mlia_error *err)
{
    *out = NULL;
    pg_conn *c = calloc(1, sizeof *c);
    if (!c)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, shown, "out of memory");
    c->shown = strdup(shown);
    if (!c->shown) {
        free(c);
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, shown, "out of memory");
    }
    /* parameters after the URI override it: the URI's own connect_timeout wins */
    const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *vals[] = {HDB_PG_CONNECT_TIMEOUT, "mlia", uri, NULL};
    c->pg = PQconnectdbParams(keys, vals, 1);
    if (!c->pg || PQstatus(c->pg) != CONNECTION_OK) {
        fail_text(shown, "cannot connect to the history server: ", c->pg ? PQerrorMessage(c->pg) : "out of memory",
                  err);
        pg_close(c);
        return -1;
    }
    PQsetNoticeProcessor(c->pg, no_notices, NULL);
    if (pg_exec(c, "SET search_path TO mlia", 0, NULL, NULL, NULL, err) ||
        pg_exec(c, "SET client_min_messages TO warning", 0, NULL, NULL, NULL, err)) {
        pg_close(c);
        return -1;
    }
    *out = c;
    return 0;
}

const hdb_engine HDB_POSTGRES = {
    .name = "postgresql",
    .id_type = "BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY",
    .real_type = "DOUBLE PRECISION",
    .begin_write = "BEGIN",
    .compact = "",
    .namespace_sql = "CREATE SCHEMA IF NOT EXISTS mlia",
    .exec = pg_exec,
    .lock_schema = pg_lock_schema,
    .close = pg_close,
};
