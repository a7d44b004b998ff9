/*
 * history.c - the run history over either engine (history.h, engine.h):
 * the schema and its migrations, recording a run, listing runs and a
 * metric's trend, and the recorded runs as result documents for `mlia
 * compare --baseline-history`. docs/history.md describes the schema.
 *
 * What a run records is what its mlia-output.json says (report/result/):
 * every metric of the model and of every entity, grouped by series the way
 * `mlia compare` reads them (formats/result_read.c: the metric name plus its
 * qualifiers other than `statistic`, "name|key=value"), one row per series
 * with its P50 (or its only value), min, max and samples. So a baseline
 * rebuilt from the history compares exactly like the files would.
 */
#include "history/history.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "core/cnum.h"
#include "core/str.h"
#include "history/engine.h"
#include "mlia/mlia.h"

struct mlia_history {
    const hdb_engine *e;
    void *conn;
    char *shown;
    bool in_tx;
};

/* ---- values ------------------------------------------------------------ */

bool hv_is_null(const hv *v)
{
    return v->t == HV_NULL;
}

int64_t hv_int(const hv *v)
{
    if (v->t == HV_INT)
        return v->i;
    if (v->t == HV_REAL)
        return (int64_t)v->d;
    if (v->t == HV_TEXT && v->s)
        return strtoll(v->s, NULL, 10);
    return 0;
}

double hv_real(const hv *v)
{
    if (v->t == HV_REAL)
        return v->d;
    if (v->t == HV_INT)
        return (double)v->i;
    if (v->t == HV_TEXT && v->s)
        return mlia_strtod(v->s, NULL);
    return 0;
}

const char *hv_text(const hv *v)
{
    return v->t == HV_TEXT ? v->s : NULL;
}

static const char *dup_text(mlia_arena *a, const hv *v)
{
    const char *s = hv_text(v);
    return s ? mlia_arena_strdup(a, s) : NULL;
}

/* ---- labels ------------------------------------------------------------ */

bool history_label_valid(const char *text)
{
    const char *eq = text ? strchr(text, '=') : NULL;
    if (!eq || eq == text || eq - text > 64 || strlen(eq + 1) > 1024)
        return false;
    for (const char *p = text; p < eq; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
              *p == '.' || *p == '-'))
            return false;
    for (const unsigned char *p = (const unsigned char *)eq + 1; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return true;
}

uint32_t history_labels_split(const char *const *texts, uint32_t n, mlia_arena *a, history_label **out)
{
    history_label *v = mlia_arena_array(a, n ? n : 1, sizeof *v);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        const char *eq = strchr(texts[i], '=');
        if (!eq)
            continue;
        const char *key = mlia_arena_strndup(a, texts[i], (size_t)(eq - texts[i]));
        uint32_t j = 0;
        while (j < k && strcmp(v[j].key, key) != 0)
            j++;
        v[j].key = key;
        v[j].value = mlia_arena_strdup(a, eq + 1);
        if (j == k)
            k++;
    }
    *out = v;
    return k;
}

/* ---- locations --------------------------------------------------------- */

bool history_is_server(const char *location)
{
    return location && (strncmp(location, "postgresql://", 13) == 0 || strncmp(location, "postgres://", 11) == 0);
}

const char *history_shown(const char *location, mlia_arena *a)
{
    if (!history_is_server(location))
        return mlia_arena_strdup(a, location);
    /* scheme://user:password@host... -> scheme://user@host... ; password=... in the query too */
    mlia_buf b;
    mlia_buf_init(&b);
    const char *auth = strstr(location, "://") + 3;
    size_t host_end = strcspn(auth, "/?");
    const char *at = memchr(auth, '@', host_end);
    const char *colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
    if (colon) {
        mlia_buf_append(&b, location, (size_t)(colon - location));
        mlia_buf_puts(&b, at);
    } else {
        mlia_buf_puts(&b, location);
    }
    char *s = mlia_arena_strndup(a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    for (char *p = strstr(s, "password="); p; p = strstr(p + 1, "password=")) {
        if (p != s && p[-1] != '?' && p[-1] != '&')
            continue;
        char *v = p + 9, *end = v + strcspn(v, "&");
        memmove(v + 3, end, strlen(end) + 1);
        memcpy(v, "***", 3);
    }
    return s;
}

static int mkdir_p(char *path, mlia_error *err)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = 0;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            int e = errno;
            *p = '/';
            return mlia_error_setf(err, path, "%s", strerror(e));
        }
        *p = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return mlia_error_setf(err, path, "%s", strerror(errno));
    return 0;
}

const char *history_default_location(bool create, mlia_arena *a, mlia_error *err)
{
    const char *xdg = getenv("XDG_DATA_HOME"), *home = getenv("HOME");
    const char *dir;
    if (xdg && xdg[0] == '/')
        dir = mlia_arena_printf(a, "%s/mlia", xdg);
    else if (home && *home)
        dir = mlia_arena_printf(a, "%s/.local/share/mlia", home);
    else
        return mlia_error_setf(err, NULL, "no default history location: neither XDG_DATA_HOME nor HOME is set"),
               NULL;
    if (create && mkdir_p((char *)dir, err))
        return NULL;
    return mlia_arena_printf(a, "%s/history.sqlite", dir);
}

/* ---- statements -------------------------------------------------------- */

static int ex(mlia_history *h, const char *sql, int n, const hv *p, hdb_row_fn fn, void *ctx, mlia_error *err)
{
    return h->e->exec(h->conn, sql, n, p, fn, ctx, err);
}

static int begin(mlia_history *h, mlia_error *err)
{
    if (ex(h, h->e->begin_write, 0, NULL, NULL, NULL, err))
        return -1;
    h->in_tx = true;
    return 0;
}

static int commit(mlia_history *h, mlia_error *err)
{
    h->in_tx = false;
    return ex(h, "COMMIT", 0, NULL, NULL, NULL, err);
}

static void rollback(mlia_history *h)
{
    if (h->in_tx) {
        mlia_error ignored;
        mlia_error_clear(&ignored);
        ex(h, "ROLLBACK", 0, NULL, NULL, NULL, &ignored);
        h->in_tx = false;
    }
}

static int one_int(void *ctx, const hv *cols, int n, mlia_error *err)
{
    if (n > 0)
        *(int64_t *)ctx = hv_int(&cols[0]);
    return 0;
}

/* The DDL with the engine's words for @ID@, @REAL@ and @COMPACT@. */
static char *ddl(const hdb_engine *e, const char *sql, mlia_arena *a)
{
    mlia_buf b;
    mlia_buf_init(&b);
    for (const char *p = sql; *p;) {
        if (strncmp(p, "@ID@", 4) == 0) {
            mlia_buf_puts(&b, e->id_type);
            p += 4;
        } else if (strncmp(p, "@REAL@", 6) == 0) {
            mlia_buf_puts(&b, e->real_type);
            p += 6;
        } else if (strncmp(p, "@COMPACT@", 9) == 0) {
            mlia_buf_puts(&b, e->compact);
            p += 9;
        } else {
            mlia_buf_putc(&b, *p++);
        }
    }
    char *s = mlia_arena_strndup(a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return s;
}

/* ---- schema ------------------------------------------------------------ */

/* Migration 1: the first schema (docs/history.md "Schema"). A later
 * migration is a new array and a row in MIGRATIONS; never edit one that
 * was released. */
static const char *const SCHEMA_1[] = {
    "CREATE TABLE programs (id @ID@, fingerprint TEXT NOT NULL UNIQUE, method TEXT NOT NULL, "
    "operators BIGINT, debug_handles BIGINT, delegate_segments BIGINT, backends TEXT)",
    "CREATE TABLE runs (id @ID@, run_uuid TEXT NOT NULL UNIQUE, recorded_at TEXT NOT NULL, "
    "tool_version TEXT NOT NULL, program_id BIGINT NOT NULL REFERENCES programs(id), model TEXT NOT NULL, "
    "status TEXT NOT NULL, executions BIGINT NOT NULL, time_unit TEXT NOT NULL, ticks_per_second @REAL@ NOT NULL, "
    "warmup_executions BIGINT NOT NULL, statistics_mode BIGINT, statistics_mode_assumed BIGINT, "
    "statistics_device TEXT, statistics_device_assumed BIGINT, settings TEXT NOT NULL, "
    "etrecord_sha256 TEXT NOT NULL, companion_sha256 TEXT)",
    "CREATE INDEX runs_program_time ON runs (program_id, recorded_at)",
    "CREATE INDEX runs_time ON runs (recorded_at)",
    "CREATE TABLE run_labels (run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, key TEXT NOT NULL, "
    "value TEXT NOT NULL, PRIMARY KEY (run_id, key))@COMPACT@",
    "CREATE INDEX run_labels_key_value ON run_labels (key, value)",
    "CREATE TABLE captures (run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, position BIGINT NOT NULL, "
    "name TEXT NOT NULL, size_bytes BIGINT NOT NULL, sha256 TEXT NOT NULL, executions BIGINT NOT NULL, "
    "PRIMARY KEY (run_id, position))@COMPACT@",
    "CREATE TABLE entities (id @ID@, program_id BIGINT NOT NULL REFERENCES programs(id), key TEXT NOT NULL, "
    "kind TEXT NOT NULL, name TEXT NOT NULL, UNIQUE (program_id, key))",
    "CREATE INDEX entities_key ON entities (key)",
    "CREATE TABLE series (id @ID@, key TEXT NOT NULL UNIQUE, metric TEXT NOT NULL, unit TEXT, attribution TEXT)",
    "CREATE INDEX series_metric ON series (metric)",
    "CREATE TABLE metrics (run_id BIGINT NOT NULL REFERENCES runs(id) ON DELETE CASCADE, "
    "entity_id BIGINT NOT NULL REFERENCES entities(id), series_id BIGINT NOT NULL REFERENCES series(id), "
    "p50 @REAL@, min_value @REAL@, max_value @REAL@, samples BIGINT NOT NULL, "
    "PRIMARY KEY (run_id, entity_id, series_id))@COMPACT@",
    NULL,
};

static const char *const *const MIGRATIONS[HISTORY_SCHEMA_VERSION] = {SCHEMA_1};

typedef struct table_probe {
    int64_t ours, others;
} table_probe;

static int probe_row(void *ctx, const hv *cols, int n, mlia_error *err)
{
    table_probe *t = ctx;
    const char *name = n > 0 ? hv_text(&cols[0]) : NULL;
    if (name && strcmp(name, "mlia_schema") == 0)
        t->ours++;
    else if (name && strncmp(name, "sqlite_", 7) != 0)
        t->others++;
    return 0;
}

static int newer_schema(mlia_history *h, int64_t v, mlia_error *err)
{
    return mlia_error_setf(err, h->shown, "written by a newer mlia (history schema %lld; this mlia reads up to %d)",
                           (long long)v, HISTORY_SCHEMA_VERSION);
}

/* Creates or migrates the schema, one writer at a time. */
static int migrate(mlia_history *h, mlia_arena *a, mlia_error *err)
{
    if (begin(h, err) || h->e->lock_schema(h->conn, err))
        return -1;
    if (h->e->namespace_sql && ex(h, h->e->namespace_sql, 0, NULL, NULL, NULL, err))
        return -1;
    if (h->e == &HDB_SQLITE) {
        table_probe t = {0, 0};
        if (ex(h, "SELECT name FROM sqlite_master WHERE type = 'table'", 0, NULL, probe_row, &t, err))
            return -1;
        if (!t.ours && t.others)
            return mlia_error_setf(err, h->shown, "not an mlia history (it holds other tables)");
    }
    if (ex(h, "CREATE TABLE IF NOT EXISTS mlia_schema (version INTEGER PRIMARY KEY NOT NULL, "
              "applied_at TEXT NOT NULL, tool_version TEXT NOT NULL)", 0, NULL, NULL, NULL, err))
        return -1;
    int64_t v = 0;
    if (ex(h, "SELECT COALESCE(MAX(version), 0) FROM mlia_schema", 0, NULL, one_int, &v, err))
        return -1;
    if (v > HISTORY_SCHEMA_VERSION)
        return newer_schema(h, v, err);
    for (int64_t m = v; m < HISTORY_SCHEMA_VERSION; m++) {
        for (const char *const *st = MIGRATIONS[m]; *st; st++)
            if (ex(h, ddl(h->e, *st, a), 0, NULL, NULL, NULL, err))
                return -1;
        hv p[2] = {hv_i(m + 1), hv_s(MLIA_VERSION)};
        if (ex(h, "INSERT INTO mlia_schema (version, applied_at, tool_version) VALUES ($1, CURRENT_TIMESTAMP, $2)",
               2, p, NULL, NULL, err))
            return -1;
    }
    return commit(h, err);
}

static int check_schema(mlia_history *h, mlia_error *err)
{
    int64_t v = 0;
    mlia_error probe;
    mlia_error_clear(&probe);
    if (ex(h, "SELECT COALESCE(MAX(version), 0) FROM mlia_schema", 0, NULL, one_int, &v, &probe)) {
        if (strstr(probe.text, "mlia_schema"))
            return mlia_error_setf(err, h->shown, "no mlia history here (nothing recorded yet)");
        *err = probe;
        return -1;
    }
    if (v > HISTORY_SCHEMA_VERSION)
        return newer_schema(h, v, err);
    if (v < 1)
        return mlia_error_setf(err, h->shown, "no mlia history here (nothing recorded yet)");
    return 0;
}

static int open_impl(const char *location, bool write, mlia_history **out, mlia_error *err)
{
    *out = NULL;
    mlia_arena a;
    mlia_arena_init(&a);
    int rc = -1;
    if (!location || !*location)
        location = history_default_location(write, &a, err);
    mlia_history *h = NULL;
    if (location) {
        h = calloc(1, sizeof *h);
        if (h)
            h->shown = strdup(history_shown(location, &a));
        if (!h || !h->shown) {
            free(h);
            h = NULL;
            mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    if (h) {
        h->e = history_is_server(location) ? &HDB_POSTGRES : &HDB_SQLITE;
        int orc = h->e == &HDB_POSTGRES ? hdb_postgres_open(location, h->shown, &h->conn, err)
                                        : hdb_sqlite_open(location, write, &h->conn, err);
        if (!orc)
            orc = write ? migrate(h, &a, err) : check_schema(h, err);
        if (orc) {
            rollback(h);
            history_close(h);
        } else {
            *out = h;
            rc = 0;
        }
    }
    mlia_arena_free(&a);
    return rc;
}

void history_close(mlia_history *h)
{
    if (!h)
        return;
    rollback(h);
    if (h->conn)
        h->e->close(h->conn);
    free(h->shown);
    free(h);
}

const char *history_location(const mlia_history *h)
{
    return h->shown;
}

const char *history_engine(const mlia_history *h)
{
    return h->e->name;
}

/* ---- recording ---------------------------------------------------------- */

/* One row of the metrics table before it has ids. */
typedef struct rec_series {
    const char *entity;          /* entity key */
    const char *key, *metric, *unit, *attribution;
    bool has_p50, has_min, has_max, unavailable;
    double p50, min, max;
    uint32_t samples;
} rec_series;

typedef struct rec_entity {
    const char *key, *kind, *name;
    int64_t id;
} rec_entity;

typedef struct rec_key {
    const char *key, *metric, *unit, *attribution;
    int64_t id;
} rec_key;

/* "name|k=v|..." with the qualifiers other than statistic, sorted by key
 * (formats/result_read.c builds the same key from the JSON). */
static const char *series_key(const mlia_metric *m, mlia_arena *a, const char **statistic,
                              const char **attribution)
{
    *statistic = mlia_metric_qualifier(m, "statistic");
    *attribution = mlia_metric_qualifier(m, "attribution");
    if (!*statistic && m->aggregation &&
        (strcmp(m->aggregation, "p50") == 0 || strcmp(m->aggregation, "min") == 0 ||
         strcmp(m->aggregation, "max") == 0))
        *statistic = m->aggregation;
    const mlia_qualifier *q[MLIA_MAX_QUALIFIERS];
    uint32_t n = 0;
    for (uint32_t i = 0; i < m->n_qualifiers; i++)
        if (strcmp(m->qualifiers[i].key, "statistic") != 0)
            q[n++] = &m->qualifiers[i];
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && strcmp(q[j - 1]->key, q[j]->key) > 0; j--) {
            const mlia_qualifier *t = q[j];
            q[j] = q[j - 1];
            q[j - 1] = t;
        }
    if (!n)
        return m->name;
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, m->name);
    for (uint32_t i = 0; i < n; i++)
        mlia_buf_printf(&b, "|%s=%s", q[i]->key, q[i]->value ? q[i]->value : "");
    const char *s = mlia_arena_strndup(a, b.data, b.len);
    mlia_buf_free(&b);
    return s;
}

typedef struct rec_state {
    mlia_arena *a;
    rec_series *rows;
    uint32_t n, cap;
} rec_state;

static int cmp_series(const void *x, const void *y)
{
    const rec_series *p = x, *q = y;
    int c = strcmp(p->entity, q->entity);
    return c ? c : strcmp(p->key, q->key);
}

static void add_metrics(rec_state *st, const char *entity, const mlia_metric *ms, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        const mlia_metric *m = &ms[i];
        if (!m->name)
            continue;
        const char *statistic, *attribution;
        const char *key = series_key(m, st->a, &statistic, &attribution);
        rec_series *r = NULL;
        /* a series' statistics are adjacent in emission order; look back a little */
        for (uint32_t k = st->n; k > 0 && k + 8 > st->n; k--)
            if (st->rows[k - 1].entity == entity && strcmp(st->rows[k - 1].key, key) == 0) {
                r = &st->rows[k - 1];
                break;
            }
        if (!r) {
            st->rows = mlia_arena_room(st->a, st->rows, st->n, &st->cap, sizeof *st->rows);
            r = &st->rows[st->n++];
            memset(r, 0, sizeof *r);
            r->entity = entity;
            r->key = key;
            r->metric = m->name;
            r->unit = m->unit;
            r->attribution = attribution;
        }
        if (m->type == MLIA_VALUE_UNAVAILABLE) {
            r->unavailable = true;
            continue;
        }
        double v = m->type == MLIA_VALUE_UINT ? (double)m->u : m->d;
        if (!statistic || strcmp(statistic, "p50") == 0) {
            r->has_p50 = true;
            r->p50 = v;
            if (m->samples)
                r->samples = m->samples;
        } else if (strcmp(statistic, "min") == 0) {
            r->has_min = true;
            r->min = v;
        } else if (strcmp(statistic, "max") == 0) {
            r->has_max = true;
            r->max = v;
        }
    }
}

typedef struct id_map {
    mlia_arena *a;
    const char **keys;
    int64_t *ids;
    uint32_t n, cap;
} id_map;

static int map_row(void *ctx, const hv *cols, int n, mlia_error *err)
{
    id_map *m = ctx;
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 256;
        m->keys = mlia_arena_grow(m->a, m->keys, m->n, nc, sizeof *m->keys);
        m->ids = mlia_arena_grow(m->a, m->ids, m->n, nc, sizeof *m->ids);
        m->cap = nc;
    }
    m->ids[m->n] = hv_int(&cols[0]);
    m->keys[m->n++] = dup_text(m->a, &cols[1]);
    return 0;
}

static int64_t map_find(const id_map *m, const char *key)
{
    uint32_t lo = 0, hi = m->n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->keys[mid] ? m->keys[mid] : "", key);
        if (!c)
            return m->ids[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return -1;
}

static int cmp_entity(const void *x, const void *y)
{
    return strcmp((*(const rec_entity *const *)x)->key, (*(const rec_entity *const *)y)->key);
}

static int cmp_series_key(const void *x, const void *y)
{
    return strcmp((*(const rec_series *const *)x)->key, (*(const rec_series *const *)y)->key);
}

/* INSERT of many rows, `per_row` parameters each, in statements of at
 * most HISTORY_ROWS_PER_INSERT rows (both engines take a few thousand
 * parameters per statement). */
#define HISTORY_ROWS_PER_INSERT 400

static int insert_rows(mlia_history *h, const char *head, const char *tail, int per_row, uint32_t n_rows,
                       const hv *vals, mlia_error *err)
{
    for (uint32_t r0 = 0; r0 < n_rows; r0 += HISTORY_ROWS_PER_INSERT) {
        uint32_t nr = n_rows - r0 < HISTORY_ROWS_PER_INSERT ? n_rows - r0 : HISTORY_ROWS_PER_INSERT;
        mlia_buf b;
        mlia_buf_init(&b);
        mlia_buf_puts(&b, head);
        int k = 1;
        for (uint32_t r = 0; r < nr; r++) {
            mlia_buf_puts(&b, r ? ",(" : " VALUES (");
            for (int c = 0; c < per_row; c++)
                mlia_buf_printf(&b, "%s$%d", c ? "," : "", k++);
            mlia_buf_putc(&b, ')');
        }
        mlia_buf_puts(&b, tail);
        mlia_buf_putc(&b, 0);
        int rc = ex(h, b.data, (int)nr * per_row, vals + (size_t)r0 * (size_t)per_row, NULL, NULL, err);
        mlia_buf_free(&b);
        if (rc)
            return -1;
    }
    return 0;
}

static int record_tx(mlia_history *h, const mlia_run_record *rec, const rr_settings *rs, const history_label *labels,
                     uint32_t n_labels, mlia_arena *a, mlia_error *err)
{
    const mlia_program_fingerprint *fp = rec->fingerprint;
    const char *method = rec->method_name ? rec->method_name : "";
    const char *fingerprint = fp && fp->present ? fp->program : mlia_arena_printf(a, "unfingerprinted/%s", method);
    mlia_buf backends;
    mlia_buf_init(&backends);
    for (uint32_t i = 0; fp && i < fp->n_backends; i++)
        mlia_buf_printf(&backends, "%s%s", i ? "," : "", fp->backends[i]);
    const char *be = mlia_arena_strndup(a, backends.data ? backends.data : "", backends.len);
    mlia_buf_free(&backends);

    if (begin(h, err))
        return -1;
    /* the program */
    hv pp[6] = {hv_s(fingerprint), hv_s(method), fp && fp->present ? hv_i(fp->operators) : hv_null(),
                fp && fp->present ? hv_i(fp->debug_handles) : hv_null(),
                fp && fp->present ? hv_i(fp->delegate_segments) : hv_null(), hv_s(be)};
    if (ex(h, "INSERT INTO programs (fingerprint, method, operators, debug_handles, delegate_segments, backends) "
              "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (fingerprint) DO NOTHING", 6, pp, NULL, NULL, err))
        return -1;
    int64_t program_id = -1;
    if (ex(h, "SELECT id FROM programs WHERE fingerprint = $1", 1, pp, one_int, &program_id, err))
        return -1;
    /* the run */
    int64_t dup = 0;
    hv up[1] = {hv_s(rec->run_id)};
    if (ex(h, "SELECT COUNT(*) FROM runs WHERE run_uuid = $1", 1, up, one_int, &dup, err))
        return -1;
    if (dup)
        return mlia_error_setf(err, h->shown, "run %s is recorded already", rec->run_id);
    const char *mode = rs && rs->statistics_mode ? rs->statistics_mode : NULL;
    const char *device = rs ? rs->statistics_device : NULL;
    const char *settings =
        mlia_arena_printf(a, "time_unit=%s ticks_per_second=%.17g warmup_executions=%u statistics_mode=%s "
                             "statistics_device=%s",
                          rec->time_unit ? rec->time_unit : "ns", rec->ticks_per_second, rec->warmup_executions,
                          mode ? mode : "-", device ? device : "-");
    hv rp[16] = {hv_s(rec->run_id), hv_s(rec->timestamp), hv_s(MLIA_VERSION), hv_i(program_id),
                 hv_s(rec->etrecord_digest.name ? rec->etrecord_digest.name : ""),
                 hv_s(rec->result && rec->result->status ? rec->result->status : "ok"), hv_i(rec->n_executions),
                 hv_s(rec->time_unit ? rec->time_unit : "ns"), hv_d(rec->ticks_per_second),
                 hv_i(rec->warmup_executions), mode ? hv_i(strtoll(mode, NULL, 10)) : hv_null(),
                 mode ? hv_i(rs->mode_assumed) : hv_null(), hv_s(device), device ? hv_i(rs->device_assumed) : hv_null(),
                 hv_s(settings), hv_s(rec->etrecord_digest.sha256)};
    if (ex(h, "INSERT INTO runs (run_uuid, recorded_at, tool_version, program_id, model, status, executions, "
              "time_unit, ticks_per_second, warmup_executions, statistics_mode, statistics_mode_assumed, "
              "statistics_device, statistics_device_assumed, settings, etrecord_sha256) VALUES ($1, $2, $3, $4, $5, "
              "$6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
           16, rp, NULL, NULL, err))
        return -1;
    int64_t run_id = -1;
    if (ex(h, "SELECT id FROM runs WHERE run_uuid = $1", 1, up, one_int, &run_id, err))
        return -1;
    if (rec->has_companion) {
        hv cp[2] = {hv_s(rec->companion_digest.sha256), hv_i(run_id)};
        if (ex(h, "UPDATE runs SET companion_sha256 = $1 WHERE id = $2", 2, cp, NULL, NULL, err))
            return -1;
    }
    /* labels and captures */
    if (n_labels) {
        hv *lv = mlia_arena_array(a, (size_t)n_labels * 3, sizeof *lv);
        for (uint32_t i = 0; i < n_labels; i++) {
            lv[i * 3] = hv_i(run_id);
            lv[i * 3 + 1] = hv_s(labels[i].key);
            lv[i * 3 + 2] = hv_s(labels[i].value);
        }
        if (insert_rows(h, "INSERT INTO run_labels (run_id, key, value)", "", 3, n_labels, lv, err))
            return -1;
    }
    if (rec->n_captures) {
        hv *cv = mlia_arena_array(a, (size_t)rec->n_captures * 6, sizeof *cv);
        for (uint32_t i = 0; i < rec->n_captures; i++) {
            const mlia_capture_info *c = &rec->captures[i];
            hv row[6] = {hv_i(run_id), hv_i(i), hv_s(c->digest.name ? c->digest.name : ""),
                         hv_i((int64_t)c->digest.size), hv_s(c->digest.sha256), hv_i(c->n_executions)};
            memcpy(&cv[i * 6], row, sizeof row);
        }
        if (insert_rows(h, "INSERT INTO captures (run_id, position, name, size_bytes, sha256, executions)", "", 6,
                        rec->n_captures, cv, err))
            return -1;
    }

    /* metrics, grouped by (entity, series) */
    rec_state st = {a, NULL, 0, 0};
    const mlia_result *res = rec->result;
    uint32_t n_ent = res ? res->n_entities : 0;
    if (res)
        add_metrics(&st, HISTORY_MODEL_ENTITY, res->metrics, res->n_metrics);
    rec_entity *ents = mlia_arena_array(a, (size_t)n_ent + 1, sizeof *ents);
    ents[0] = (rec_entity){HISTORY_MODEL_ENTITY, "model", rec->etrecord_digest.name ? rec->etrecord_digest.name : "",
                           -1};
    for (uint32_t i = 0; i < n_ent; i++) {
        const mlia_entity *e = res->entities[i];
        ents[i + 1] = (rec_entity){e->id, e->kind ? e->kind : "", e->name ? e->name : "", -1};
        add_metrics(&st, e->id, e->metrics, e->n_metrics);
    }
    /* entities in key order (concurrent writers insert the same keys in the same order) */
    rec_entity **eby = mlia_arena_array(a, (size_t)n_ent + 1, sizeof *eby);
    for (uint32_t i = 0; i <= n_ent; i++)
        eby[i] = &ents[i];
    qsort(eby, (size_t)n_ent + 1, sizeof *eby, cmp_entity);
    hv *evals = mlia_arena_array(a, ((size_t)n_ent + 1) * 4, sizeof *evals);
    uint32_t ne = 0;
    for (uint32_t i = 0; i <= n_ent; i++) {
        if (i && strcmp(eby[i]->key, eby[i - 1]->key) == 0)
            continue;
        evals[ne * 4] = hv_i(program_id);
        evals[ne * 4 + 1] = hv_s(eby[i]->key);
        evals[ne * 4 + 2] = hv_s(eby[i]->kind);
        evals[ne * 4 + 3] = hv_s(eby[i]->name);
        ne++;
    }
    if (insert_rows(h, "INSERT INTO entities (program_id, key, kind, name)", " ON CONFLICT (program_id, key) DO NOTHING",
                    4, ne, evals, err))
        return -1;
    id_map em = {a, NULL, NULL, 0, 0};
    hv pid[1] = {hv_i(program_id)};
    /* ORDER BY with the C collation so the map's binary search agrees */
    if (ex(h, h->e == &HDB_POSTGRES ? "SELECT id, key FROM entities WHERE program_id = $1 ORDER BY key COLLATE \"C\""
                                    : "SELECT id, key FROM entities WHERE program_id = $1 ORDER BY key",
           1, pid, map_row, &em, err))
        return -1;
    /* series */
    qsort(st.rows, st.n, sizeof *st.rows, cmp_series);
    const rec_series **skeys = mlia_arena_array(a, (size_t)st.n + 1, sizeof *skeys);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < st.n; i++)
        skeys[nk++] = &st.rows[i];
    qsort(skeys, nk, sizeof *skeys, cmp_series_key);
    hv *svals = mlia_arena_array(a, (size_t)nk * 4 + 1, sizeof *svals);
    uint32_t ns = 0;
    for (uint32_t i = 0; i < nk; i++) {
        if (i && strcmp(skeys[i]->key, skeys[i - 1]->key) == 0)
            continue;
        const rec_series *src = skeys[i];
        svals[ns * 4] = hv_s(src->key);
        svals[ns * 4 + 1] = hv_s(src->metric);
        svals[ns * 4 + 2] = hv_s(src->unit);
        svals[ns * 4 + 3] = hv_s(src->attribution);
        ns++;
    }
    if (insert_rows(h, "INSERT INTO series (key, metric, unit, attribution)", " ON CONFLICT (key) DO NOTHING", 4, ns,
                    svals, err))
        return -1;
    id_map sm = {a, NULL, NULL, 0, 0};
    if (ex(h, h->e == &HDB_POSTGRES ? "SELECT id, key FROM series ORDER BY key COLLATE \"C\""
                                    : "SELECT id, key FROM series ORDER BY key",
           0, NULL, map_row, &sm, err))
        return -1;
    hv *mv = mlia_arena_array(a, (size_t)st.n * 7 + 1, sizeof *mv);
    uint32_t nm = 0;
    for (uint32_t i = 0; i < st.n; i++) {
        const rec_series *r = &st.rows[i];
        if (i && strcmp(r->entity, st.rows[i - 1].entity) == 0 && strcmp(r->key, st.rows[i - 1].key) == 0)
            continue;
        int64_t eid = map_find(&em, r->entity), sid = map_find(&sm, r->key);
        if (eid < 0 || sid < 0)
            return mlia_error_setf(err, h->shown, "internal error: entity '%s' or series '%s' not stored", r->entity,
                                   r->key);
        hv row[7] = {hv_i(run_id), hv_i(eid), hv_i(sid), r->has_p50 ? hv_d(r->p50) : hv_null(),
                     r->has_min ? hv_d(r->min) : hv_null(), r->has_max ? hv_d(r->max) : hv_null(),
                     hv_i(r->samples)};
        memcpy(&mv[(size_t)nm * 7], row, sizeof row);
        nm++;
    }
    if (insert_rows(h, "INSERT INTO metrics (run_id, entity_id, series_id, p50, min_value, max_value, samples)", "",
                    7, nm, mv, err))
        return -1;
    return commit(h, err);
}

static int record_impl(mlia_history *h, const mlia_run_record *rec, const rr_settings *settings,
                       const history_label *labels, uint32_t n_labels, mlia_error *err)
{
    mlia_arena a;
    mlia_arena_init(&a);
    int rc = record_tx(h, rec, settings, labels, n_labels, &a, err);
    if (rc)
        rollback(h);
    mlia_arena_free(&a);
    return rc;
}

/* ---- queries ------------------------------------------------------------ */

typedef struct run_id_pos {
    int64_t id;
    uint32_t pos;
} run_id_pos;

typedef struct run_rows {
    mlia_arena *a;
    history_run *runs;
    int64_t *ids;
    uint32_t n, cap;
    run_id_pos *by_id;   /* ids sorted, for run_at (built by select_runs) */
} run_rows;

static int cmp_id_pos(const void *x, const void *y)
{
    const run_id_pos *p = x, *q = y;
    return (p->id > q->id) - (p->id < q->id);
}

/* The position of run `id` among rr's runs, or rr->n. */
static uint32_t run_at(const run_rows *rr, int64_t id)
{
    run_id_pos key = {id, 0};
    const run_id_pos *hit = rr->by_id ? bsearch(&key, rr->by_id, rr->n, sizeof key, cmp_id_pos) : NULL;
    return hit ? hit->pos : rr->n;
}

static int run_row(void *ctx, const hv *c, int n, mlia_error *err)
{
    run_rows *rr = ctx;
    if (rr->n == rr->cap) {
        uint32_t nc = rr->cap ? rr->cap * 2 : 64;
        rr->runs = mlia_arena_grow(rr->a, rr->runs, rr->n, nc, sizeof *rr->runs);
        rr->ids = mlia_arena_grow(rr->a, rr->ids, rr->n, nc, sizeof *rr->ids);
        rr->cap = nc;
    }
    history_run *r = &rr->runs[rr->n];
    memset(r, 0, sizeof *r);
    rr->ids[rr->n++] = hv_int(&c[0]);
    r->run_id = dup_text(rr->a, &c[1]);
    r->recorded_at = dup_text(rr->a, &c[2]);
    r->tool_version = dup_text(rr->a, &c[3]);
    r->program = dup_text(rr->a, &c[4]);
    r->method = dup_text(rr->a, &c[5]);
    r->model = dup_text(rr->a, &c[6]);
    r->status = dup_text(rr->a, &c[7]);
    r->settings = dup_text(rr->a, &c[8]);
    r->executions = (uint64_t)hv_int(&c[9]);
    return 0;
}

/* The ids as an SQL list "(1,2,3)" (integers from the database). */
static const char *id_list(const int64_t *ids, uint32_t n, mlia_arena *a)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_putc(&b, '(');
    for (uint32_t i = 0; i < n; i++)
        mlia_buf_printf(&b, "%s%lld", i ? "," : "", (long long)ids[i]);
    mlia_buf_putc(&b, ')');
    const char *s = mlia_arena_strndup(a, b.data, b.len);
    mlia_buf_free(&b);
    return s;
}

typedef struct label_rows {
    run_rows *rr;
    mlia_arena *a;
} label_rows;

static int label_row(void *ctx, const hv *c, int n, mlia_error *err)
{
    label_rows *lr = ctx;
    uint32_t i = run_at(lr->rr, hv_int(&c[0]));
    if (i < lr->rr->n) {
        {
            history_run *r = &lr->rr->runs[i];
            history_label *nl = mlia_arena_array(lr->a, (size_t)r->n_labels + 1, sizeof *nl);
            if (r->n_labels)
                memcpy(nl, r->labels, r->n_labels * sizeof *nl);
            nl[r->n_labels].key = dup_text(lr->a, &c[1]);
            nl[r->n_labels].value = dup_text(lr->a, &c[2]);
            r->labels = nl;
            r->n_labels++;
        }
    }
    return 0;
}

static bool hex_prefix(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return false;
    return n >= 8 && n <= 64;
}

/* The newest runs matching q, oldest first, with their labels. */
static int select_runs(mlia_history *h, const history_query *q, mlia_arena *a, run_rows *rr, mlia_error *err)
{
    mlia_buf sql;
    mlia_buf_init(&sql);
    hv p[HISTORY_MAX_LABELS * 2 + 8];
    int np = 0;
    mlia_buf_puts(&sql, "SELECT r.id, r.run_uuid, r.recorded_at, r.tool_version, p.fingerprint, p.method, r.model, "
                        "r.status, r.settings, r.executions FROM runs r JOIN programs p ON p.id = r.program_id "
                        "WHERE 1 = 1");
    if (q->program) {
        if (strlen(q->program) == 64 || !hex_prefix(q->program)) {
            p[np++] = hv_s(q->program);
            mlia_buf_printf(&sql, " AND p.fingerprint = $%d", np);
        } else {
            p[np++] = hv_s(mlia_arena_printf(a, "%s%%", q->program));
            mlia_buf_printf(&sql, " AND p.fingerprint LIKE $%d", np);
        }
    }
    if (q->model) {
        p[np++] = hv_s(q->model);
        mlia_buf_printf(&sql, " AND r.model = $%d", np);
    }
    if (q->method) {
        p[np++] = hv_s(q->method);
        mlia_buf_printf(&sql, " AND p.method = $%d", np);
    }
    if (q->settings) {
        /* the same clock (by its rate: 0 is 1e9, the ETDump's nanoseconds), warm-up and NX statistics */
        const history_settings *st = q->settings;
        p[np++] = hv_d(st->ticks_per_second > 0 ? st->ticks_per_second : 1e9);
        mlia_buf_printf(&sql, " AND (CASE WHEN r.ticks_per_second > 0 THEN r.ticks_per_second ELSE 1e9 END) = $%d",
                        np);
        p[np++] = hv_i(st->warmup_executions);
        mlia_buf_printf(&sql, " AND r.warmup_executions = $%d", np);
        if (st->has_mode) {
            p[np++] = hv_i(st->mode);
            mlia_buf_printf(&sql, " AND r.statistics_mode = $%d", np);
        } else {
            mlia_buf_puts(&sql, " AND r.statistics_mode IS NULL");
        }
        if (st->device) {
            p[np++] = hv_s(st->device);
            mlia_buf_printf(&sql, " AND r.statistics_device = $%d", np);
        } else {
            mlia_buf_puts(&sql, " AND r.statistics_device IS NULL");
        }
    }
    for (uint32_t i = 0; i < q->n_labels && i < HISTORY_MAX_LABELS; i++) {
        p[np++] = hv_s(q->labels[i].key);
        p[np++] = hv_s(q->labels[i].value);
        mlia_buf_printf(&sql, " AND EXISTS (SELECT 1 FROM run_labels l WHERE l.run_id = r.id AND l.key = $%d "
                              "AND l.value = $%d)", np - 1, np);
    }
    uint32_t last = q->last ? q->last : HISTORY_DEFAULT_LAST;
    mlia_buf_printf(&sql, " ORDER BY r.recorded_at DESC, r.id DESC LIMIT %u", last);
    mlia_buf_putc(&sql, 0);
    rr->a = a;
    int rc = ex(h, sql.data, np, p, run_row, rr, err);
    mlia_buf_free(&sql);
    if (rc)
        return -1;
    /* oldest first */
    for (uint32_t i = 0; i < rr->n / 2; i++) {
        history_run t = rr->runs[i];
        rr->runs[i] = rr->runs[rr->n - 1 - i];
        rr->runs[rr->n - 1 - i] = t;
        int64_t ti = rr->ids[i];
        rr->ids[i] = rr->ids[rr->n - 1 - i];
        rr->ids[rr->n - 1 - i] = ti;
    }
    if (!rr->n)
        return 0;
    rr->by_id = mlia_arena_array(a, rr->n, sizeof *rr->by_id);
    for (uint32_t i = 0; i < rr->n; i++)
        rr->by_id[i] = (run_id_pos){rr->ids[i], i};
    qsort(rr->by_id, rr->n, sizeof *rr->by_id, cmp_id_pos);
    label_rows lr = {rr, a};
    const char *lsql = mlia_arena_printf(a, "SELECT run_id, key, value FROM run_labels WHERE run_id IN %s ORDER BY "
                                            "run_id, key%s",
                                         id_list(rr->ids, rr->n, a), h->e == &HDB_POSTGRES ? " COLLATE \"C\"" : "");
    return ex(h, lsql, 0, NULL, label_row, &lr, err);
}

typedef struct trend_rows {
    run_rows *rr;
    mlia_arena *a;
    const char *want;    /* exact series key, or NULL: the first key of the metric */
    const char *series, *unit;
} trend_rows;

static int trend_row(void *ctx, const hv *c, int n, mlia_error *err)
{
    trend_rows *t = ctx;
    const char *key = hv_text(&c[1]);
    if (!key)
        return 0;
    if (!t->series) {
        if (t->want && strcmp(t->want, key) != 0)
            return 0;
        t->series = mlia_arena_strdup(t->a, key);
        t->unit = dup_text(t->a, &c[2]);
    } else if (strcmp(t->series, key) != 0) {
        return 0;
    }
    uint32_t i = run_at(t->rr, hv_int(&c[0]));
    if (i < t->rr->n) {
        history_run *r = &t->rr->runs[i];
        r->has_value = !hv_is_null(&c[3]);
        r->p50 = hv_real(&c[3]);
        r->min = hv_is_null(&c[4]) ? r->p50 : hv_real(&c[4]);
        r->max = hv_is_null(&c[5]) ? r->p50 : hv_real(&c[5]);
        r->samples = (uint32_t)hv_int(&c[6]);
    }
    return 0;
}

static int list_impl(mlia_history *h, const history_query *q, mlia_arena *a, history_runs *out, mlia_error *err)
{
    memset(out, 0, sizeof *out);
    run_rows rr = {a, NULL, NULL, 0, 0, NULL};
    if (select_runs(h, q, a, &rr, err))
        return -1;
    out->n = rr.n;
    out->runs = rr.runs;
    out->metric = q->metric ? q->metric : HISTORY_DEFAULT_METRIC;
    out->entity = q->entity ? q->entity : HISTORY_MODEL_ENTITY;
    if (!rr.n)
        return 0;
    bool exact = strchr(out->metric, '|') != NULL;
    /* an exact key first, else the metric's series in key order (the
     * unqualified one sorts first) */
    trend_rows t = {&rr, a, NULL, NULL, NULL};
    const char *coll = h->e == &HDB_POSTGRES ? " COLLATE \"C\"" : "";
    const char *sql = mlia_arena_printf(a, "SELECT m.run_id, s.key, s.unit, m.p50, m.min_value, m.max_value, m.samples "
                                           "FROM metrics m JOIN series s ON s.id = m.series_id WHERE m.run_id IN %s "
                                           "AND m.entity_id IN (SELECT id FROM entities WHERE key = $1) AND "
                                           "m.series_id IN (SELECT id FROM series WHERE %s = $2) "
                                           "ORDER BY s.key%s, m.run_id",
                                        id_list(rr.ids, rr.n, a), exact ? "key" : "metric", coll);
    hv p[2] = {hv_s(out->entity), hv_s(out->metric)};
    if (!exact) {
        /* prefer the series whose key is the bare metric name */
        t.want = out->metric;
        if (ex(h, sql, 2, p, trend_row, &t, err))
            return -1;
        t.want = NULL;
    }
    if (!t.series && ex(h, sql, 2, p, trend_row, &t, err))
        return -1;
    out->series = t.series;
    out->unit = t.unit;
    return 0;
}

/* ---- result documents for the gate -------------------------------------- */

typedef struct doc_rows {
    mlia_arena *a;
    run_rows *rr;
    result_doc *docs;
    uint32_t *cap;       /* per doc: metrics room */
} doc_rows;

static int doc_metric_row(void *ctx, const hv *c, int n, mlia_error *err)
{
    doc_rows *d = ctx;
    uint32_t i = run_at(d->rr, hv_int(&c[0]));
    if (i == d->rr->n)
        return 0;
    result_doc *doc = &d->docs[i];
    if (doc->n_metrics + 3 > d->cap[i]) {
        uint32_t nc = d->cap[i] ? d->cap[i] * 2 : 256;
        doc->metrics = mlia_arena_grow(d->a, doc->metrics, doc->n_metrics, nc, sizeof *doc->metrics);
        d->cap[i] = nc;
    }
    rr_metric base;
    memset(&base, 0, sizeof base);
    base.entity = dup_text(d->a, &c[1]);
    base.series = dup_text(d->a, &c[2]);
    base.name = dup_text(d->a, &c[3]);
    base.unit = dup_text(d->a, &c[4]);
    base.attribution = dup_text(d->a, &c[5]);
    base.samples = (uint32_t)hv_int(&c[9]);
    rr_metric m = base;
    m.statistic = "p50";
    m.available = !hv_is_null(&c[6]);
    m.value = m.available ? hv_real(&c[6]) : 0;
    doc->metrics[doc->n_metrics++] = m;
    if (!hv_is_null(&c[7])) {
        m = base;
        m.statistic = "min";
        m.available = true;
        m.value = hv_real(&c[7]);
        doc->metrics[doc->n_metrics++] = m;
    }
    if (!hv_is_null(&c[8])) {
        m = base;
        m.statistic = "max";
        m.available = true;
        m.value = hv_real(&c[8]);
        doc->metrics[doc->n_metrics++] = m;
    }
    return 0;
}

typedef struct ent_rows {
    mlia_arena *a;
    rr_entity *v;
    uint32_t n, cap;
} ent_rows;

static int ent_row(void *ctx, const hv *c, int n, mlia_error *err)
{
    ent_rows *e = ctx;
    e->v = mlia_arena_room(e->a, e->v, e->n, &e->cap, sizeof *e->v);
    rr_entity *x = &e->v[e->n++];
    memset(x, 0, sizeof *x);
    x->id = dup_text(e->a, &c[0]);
    x->kind = dup_text(e->a, &c[1]);
    x->name = dup_text(e->a, &c[2]);
    return 0;
}

typedef struct fp_row_ctx {
    mlia_arena *a;
    run_rows *rr;
    result_doc *docs;
} fp_row_ctx;

static int fp_row(void *ctx, const hv *c, int n, mlia_error *err)
{
    fp_row_ctx *f = ctx;
    uint32_t i = run_at(f->rr, hv_int(&c[0]));
    if (i < f->rr->n) {
            rr_fingerprint *fp = &f->docs[i].fingerprint;
            fp->operators = hv_is_null(&c[1]) ? -1 : hv_int(&c[1]);
            fp->debug_handles = hv_is_null(&c[2]) ? -1 : hv_int(&c[2]);
            fp->delegate_segments = hv_is_null(&c[3]) ? -1 : hv_int(&c[3]);
            fp->etrecord = dup_text(f->a, &c[4]);
            fp->companion_model = dup_text(f->a, &c[5]);
            /* the settings as the result's context says them (formats/result_read.h rr_settings) */
            rr_settings *st = &f->docs[i].settings;
            st->tool_version = dup_text(f->a, &c[6]);
            st->time_unit = dup_text(f->a, &c[7]);
            st->ticks_per_second = hv_real(&c[8]);
            st->warmup_executions = hv_int(&c[9]);
            st->statistics_mode = hv_is_null(&c[10]) ? NULL
                                                     : mlia_arena_printf(f->a, "%lld", (long long)hv_int(&c[10]));
            st->mode_assumed = hv_int(&c[11]) != 0;
            st->statistics_device = dup_text(f->a, &c[12]);
            st->device_assumed = hv_int(&c[13]) != 0;
        }
    return 0;
}

static int capture_row(void *ctx, const hv *c, int n, mlia_error *err)
{
    fp_row_ctx *f = ctx;
    uint32_t i = run_at(f->rr, hv_int(&c[0]));
    if (i < f->rr->n) {
            rr_settings *st = &f->docs[i].settings;
            const char **grown = mlia_arena_array(f->a, (size_t)st->n_captures + 1, sizeof *grown);
            if (st->n_captures)
                memcpy(grown, st->captures, st->n_captures * sizeof *grown);
            grown[st->n_captures++] = dup_text(f->a, &c[1]);
            st->captures = grown;
        }
    return 0;
}

static int docs_impl(mlia_history *h, const history_query *q, mlia_arena *a, result_doc **docs_out,
                     const char ***run_ids, uint32_t *n_out, mlia_error *err)
{
    *n_out = 0;
    *docs_out = NULL;
    run_rows rr = {a, NULL, NULL, 0, 0, NULL};
    if (select_runs(h, q, a, &rr, err))
        return -1;
    if (!rr.n)
        return 0;
    result_doc *docs = mlia_arena_array(a, rr.n, sizeof *docs);
    const char **ids = mlia_arena_array(a, rr.n, sizeof *ids);
    for (uint32_t i = 0; i < rr.n; i++) {
        const history_run *r = &rr.runs[i];
        result_doc *d = &docs[i];
        memset(d, 0, sizeof *d);
        d->schema_version = "1.2.0";
        d->model_name = r->model;
        d->method = r->method;
        d->run_id = r->run_id;
        d->timestamp = r->recorded_at;
        d->fingerprint.program = strncmp(r->program, "unfingerprinted/", 16) == 0 ? NULL : r->program;
        d->fingerprint.method = r->method;
        d->fingerprint.operators = d->fingerprint.debug_handles = d->fingerprint.delegate_segments = -1;
        ids[i] = r->run_id;
    }
    const char *list = id_list(rr.ids, rr.n, a);
    fp_row_ctx fc = {a, &rr, docs};
    if (ex(h, mlia_arena_printf(a, "SELECT r.id, p.operators, p.debug_handles, p.delegate_segments, "
                                   "r.etrecord_sha256, r.companion_sha256, r.tool_version, r.time_unit, "
                                   "r.ticks_per_second, r.warmup_executions, r.statistics_mode, "
                                   "r.statistics_mode_assumed, r.statistics_device, r.statistics_device_assumed "
                                   "FROM runs r JOIN programs p ON p.id = r.program_id WHERE r.id IN %s", list),
           0, NULL, fp_row, &fc, err))
        return -1;
    if (ex(h, mlia_arena_printf(a, "SELECT run_id, sha256 FROM captures WHERE run_id IN %s ORDER BY run_id, "
                                   "position", list),
           0, NULL, capture_row, &fc, err))
        return -1;
    /* entities: the programs' (the model's metrics are keyed "model", not listed) */
    ent_rows er = {a, NULL, 0, 0};
    if (ex(h, mlia_arena_printf(a, "SELECT e.key, MIN(e.kind), MIN(e.name) FROM entities e WHERE e.program_id IN "
                                   "(SELECT program_id FROM runs WHERE id IN %s) AND e.key <> '%s' GROUP BY e.key "
                                   "ORDER BY e.key%s",
                                list, HISTORY_MODEL_ENTITY, h->e == &HDB_POSTGRES ? " COLLATE \"C\"" : ""),
           0, NULL, ent_row, &er, err))
        return -1;
    for (uint32_t i = 0; i < rr.n; i++) {
        docs[i].entities = er.v;
        docs[i].n_entities = er.n;
    }
    uint32_t *cap = mlia_arena_array(a, rr.n, sizeof *cap);
    memset(cap, 0, rr.n * sizeof *cap);
    doc_rows dr = {a, &rr, docs, cap};
    if (ex(h, mlia_arena_printf(a, "SELECT m.run_id, e.key, s.key, s.metric, s.unit, s.attribution, m.p50, "
                                   "m.min_value, m.max_value, m.samples FROM metrics m JOIN entities e ON "
                                   "e.id = m.entity_id JOIN series s ON s.id = m.series_id WHERE m.run_id IN %s",
                                list),
           0, NULL, doc_metric_row, &dr, err))
        return -1;
    *docs_out = docs;
    *run_ids = ids;
    *n_out = rr.n;
    return 0;
}

/* ---- the public functions: a failure is the history's (MLIA_STATUS_HISTORY)
 * unless it was about memory ---- */

static int as_history_error(mlia_error *err)
{
    if (err && err->set && err->kind != MLIA_ERROR_KIND_MEMORY_LIMIT && err->kind != MLIA_ERROR_KIND_OUT_OF_MEMORY)
        err->kind = MLIA_ERROR_KIND_HISTORY;
    return -1;
}

int history_open(const char *location, bool write, mlia_history **out, mlia_error *err)
{
    return open_impl(location, write, out, err) ? as_history_error(err) : 0;
}

int history_record(mlia_history *h, const mlia_run_record *rec, const rr_settings *settings,
                   const history_label *labels, uint32_t n_labels, mlia_error *err)
{
    return record_impl(h, rec, settings, labels, n_labels, err) ? as_history_error(err) : 0;
}

int history_list(mlia_history *h, const history_query *q, mlia_arena *a, history_runs *out, mlia_error *err)
{
    return list_impl(h, q, a, out, err) ? as_history_error(err) : 0;
}

int history_docs(mlia_history *h, const history_query *q, mlia_arena *a, result_doc **docs_out,
                 const char ***run_ids, uint32_t *n_out, mlia_error *err)
{
    return docs_impl(h, q, a, docs_out, run_ids, n_out, err) ? as_history_error(err) : 0;
}
