/*
 * engine_sqlite.c - the embedded engine of the run history (engine.h): one
 * SQLite file, shared safely by concurrent writers on one machine.
 *
 * Concurrency (docs/history.md "Concurrent writers"): the file is in WAL
 * mode, so readers never block the writer; every write transaction starts
 * with BEGIN IMMEDIATE (the write lock is taken at once, never upgraded
 * half-way, which is what could fail with SQLITE_BUSY whatever the
 * timeout), and a connection waits up to HDB_SQLITE_BUSY_MS for another
 * writer rather than failing.
 */
#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cnum.h"
#include "history/engine.h"

#define HDB_SQLITE_BUSY_MS 60000

typedef struct sqlite_conn {
    sqlite3 *db;
    char *path;
} sqlite_conn;

static int fail(sqlite_conn *c, mlia_error *err)
{
    int code = sqlite3_extended_errcode(c->db) & 0xff;
    const char *msg = sqlite3_errmsg(c->db);
    if (code == SQLITE_NOMEM) /* SQLite's own allocation failed: the out-of-memory path's status */
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, c->path, "out of memory");
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT)
        return mlia_error_setf(err, c->path, "damaged or not an mlia history (%s)", msg);
    return mlia_error_setf(err, c->path, "%s", msg);
}

/* The statement with every $N (outside quotes) made an anonymous '?', and
 * map[i] = N - 1 for the i-th of them: SQLite looks named and numbered
 * parameters up in a list, once per use when it compiles the statement,
 * which is quadratic in a multi-row INSERT of thousands of values; plain
 * '?' are numbered as they come. Returns the malloc'd text, NULL on
 * out of memory. */
static char *anonymous_params(const char *sql, int **map, int *n_map)
{
    size_t len = strlen(sql);
    char *out = malloc(len + 1);
    int cap = 0;
    for (const char *p = sql; *p; p++)
        cap += *p == '$';
    *map = malloc(((size_t)cap + 1) * sizeof **map);
    if (!out || !*map) {
        free(out);
        free(*map);
        *map = NULL;
        return NULL;
    }
    *n_map = 0;
    char quote = 0;
    size_t k = 0;
    for (const char *p = sql; *p;) {
        if (quote) {
            if (*p == quote)
                quote = 0;
            out[k++] = *p++;
        } else if (*p == '\'' || *p == '"') {
            quote = *p;
            out[k++] = *p++;
        } else if (*p == '$' && p[1] >= '1' && p[1] <= '9') {
            int v = 0;
            for (p++; *p >= '0' && *p <= '9'; p++)
                v = v * 10 + (*p - '0');
            (*map)[(*n_map)++] = v - 1;
            out[k++] = '?';
        } else {
            out[k++] = *p++;
        }
    }
    out[k] = 0;
    return out;
}

static int bind(sqlite_conn *c, sqlite3_stmt *st, const int *map, int n_map, int n, const hv *p, mlia_error *err)
{
    for (int idx = 1; idx <= n_map; idx++) {
        int k = map[idx - 1];
        if (k < 0 || k >= n)
            return mlia_error_setf(err, c->path, "internal error: statement parameter $%d not given", k + 1);
        int rc;
        switch (p[k].t) {
        case HV_INT: rc = sqlite3_bind_int64(st, idx, p[k].i); break;
        case HV_REAL: rc = sqlite3_bind_double(st, idx, p[k].d); break;
        case HV_TEXT: rc = sqlite3_bind_text(st, idx, p[k].s, -1, SQLITE_STATIC); break;
        default: rc = sqlite3_bind_null(st, idx); break;
        }
        if (rc != SQLITE_OK)
            return fail(c, err);
    }
    return 0;
}

#define SQLITE_MAX_COLS 32

static int sqlite_exec(void *conn, const char *sql, int n_params, const hv *params, hdb_row_fn fn, void *ctx,
                       mlia_error *err)
{
    sqlite_conn *c = conn;
    sqlite3_stmt *st = NULL;
    int *map = NULL, n_map = 0;
    char *text = anonymous_params(sql, &map, &n_map);
    if (!text)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, c->path, "out of memory");
    int prc = sqlite3_prepare_v2(c->db, text, -1, &st, NULL);
    free(text);
    if (prc != SQLITE_OK) {
        free(map);
        return fail(c, err);
    }
    int rc = bind(c, st, map, n_map, n_params, params, err);
    free(map);
    while (!rc) {
        int s = sqlite3_step(st);
        if (s == SQLITE_DONE)
            break;
        if (s != SQLITE_ROW) {
            rc = fail(c, err);
            break;
        }
        if (!fn)
            continue;
        int nc = sqlite3_column_count(st);
        if (nc > SQLITE_MAX_COLS)
            nc = SQLITE_MAX_COLS;
        hv cols[SQLITE_MAX_COLS];
        for (int k = 0; k < nc; k++) {
            switch (sqlite3_column_type(st, k)) {
            case SQLITE_INTEGER: cols[k] = hv_i(sqlite3_column_int64(st, k)); break;
            case SQLITE_FLOAT: cols[k] = hv_d(sqlite3_column_double(st, k)); break;
            case SQLITE_NULL: cols[k] = hv_null(); break;
            default: cols[k] = hv_s((const char *)sqlite3_column_text(st, k)); break;
            }
        }
        rc = fn(ctx, cols, nc, err) ? -1 : 0;
    }
    sqlite3_finalize(st);
    return rc;
}

static int sqlite_lock_schema(void *conn, mlia_error *err)
{
    return 0; /* BEGIN IMMEDIATE holds the write lock already */
}

static void sqlite_close(void *conn)
{
    sqlite_conn *c = conn;
    if (!c)
        return;
    sqlite3_close_v2(c->db);
    free(c->path);
    free(c);
}

/* Puts the file in WAL mode. Changing the journal mode needs the file to
 * itself, so several writers opening a new file at once may be answered
 * SQLITE_BUSY here; the change is retried for as long as the busy timeout
 * instead of failing the open. A file already in WAL mode answers at once
 * (the mode is kept in the file). */
static int set_wal(sqlite_conn *c, mlia_error *err)
{
    for (int waited = 0;; waited += 10) {
        int rc = sqlite3_exec(c->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
        if (rc == SQLITE_OK)
            return 0;
        if ((rc & 0xff) != SQLITE_BUSY || waited >= HDB_SQLITE_BUSY_MS)
            return fail(c, err);
        sqlite3_sleep(10);
    }
}

int hdb_sqlite_open(const char *path, bool create, void **out, mlia_error *err)
{
    *out = NULL;
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT || !create)
            return mlia_error_setf(err, path, "%s", strerror(errno));
    } else if (!S_ISREG(st.st_mode)) {
        return mlia_error_setf(err, path, "not a regular file");
    }
    sqlite_conn *c = calloc(1, sizeof *c);
    if (!c)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory");
    c->path = strdup(path);
    if (!c->path) {
        free(c);
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory");
    }
    int flags = SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0) | SQLITE_OPEN_NOMUTEX;
    if (sqlite3_open_v2(path, &c->db, flags, NULL) != SQLITE_OK) {
        if (c->db)
            fail(c, err);
        else
            mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, path, "out of memory");
        sqlite_close(c);
        return -1;
    }
    sqlite3_busy_timeout(c->db, HDB_SQLITE_BUSY_MS);
    sqlite3_extended_result_codes(c->db, 1);
    /* WAL: readers and one writer at a time without blocking each other;
     * reading the journal mode is also the first read of the file, where a
     * damaged one shows */
    if (set_wal(c, err) ||
        sqlite_exec(c, "PRAGMA foreign_keys=ON", 0, NULL, NULL, NULL, err) ||
        sqlite_exec(c, "PRAGMA synchronous=NORMAL", 0, NULL, NULL, NULL, err)) {
        sqlite_close(c);
        return -1;
    }
    *out = c;
    return 0;
}


const hdb_engine HDB_SQLITE = {
    .name = "sqlite",
    .id_type = "INTEGER PRIMARY KEY",
    .real_type = "REAL",
    .begin_write = "BEGIN IMMEDIATE",
    .compact = " WITHOUT ROWID",
    .namespace_sql = NULL,
    .exec = sqlite_exec,
    .lock_schema = sqlite_lock_schema,
    .close = sqlite_close,
};
