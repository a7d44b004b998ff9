/*
 * result_read.c - mlia output reader for `mlia compare` (see result_read.h).
 *
 * The document is pulled token by token (core/json_stream.h) and only what
 * the comparison keeps is stored, so memory follows the result (entities and
 * metrics), not the file: an unknown member of any size is skipped without
 * being held, and a file of zeros fails at its first byte.
 *
 * Duplicate members follow Python's json (the last one wins), as the tree
 * reader did: a repeated "results", "metrics", "entities" or "breakdowns"
 * replaces what the earlier one gave. Model metrics, entity metrics and
 * breakdown metrics are gathered in three lists, concatenated at the end in
 * that order (the document order of the earlier reader).
 */
#include "formats/result_read.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/file.h"
#include "core/json_stream.h"
#include "core/json_write.h"
#include "core/str.h"

typedef struct rr_list {
    uint32_t n, cap;
    rr_metric *v;
} rr_list;

typedef struct rr_reader {
    mlia_jstream *js;
    mlia_arena *a;
    result_doc *out;
    rr_list model_m, entity_m, bd_m;
    uint32_t n_entities, cap_entities;
    rr_entity *entities;
    bool has_results0;
    const char *bad;      /* a malformed member the comparison relies on: what is wrong, or NULL */
    uint32_t n_captures, cap_captures;
    const char **captures;
} rr_reader;

static char *keep_text(rr_reader *r)
{
    return mlia_arena_strndup(r->a, r->js->text ? r->js->text : "", r->js->text_len);
}

/* The value whose first token is t: a string (arena copy), or NULL after
 * skipping anything else. */
static int str_from(rr_reader *r, mlia_jtok t, const char **dst)
{
    if (t == MLIA_JTOK_STRING) {
        *dst = keep_text(r);
        return 0;
    }
    *dst = NULL;
    return mlia_jstream_skip(r->js, t);
}

static int str_value(rr_reader *r, const char **dst)
{
    return str_from(r, mlia_jstream_next(r->js), dst);
}

static int skip_next(rr_reader *r)
{
    return mlia_jstream_skip_value(r->js);
}

/* Calls member(r, key, ctx) for every member of the object whose first
 * token is t; anything else is skipped and *is_object tells. The callback
 * consumes the member's value. */
typedef int (*member_fn)(rr_reader *r, const char *key, void *ctx);

static int object_from(rr_reader *r, mlia_jtok t, member_fn member, void *ctx, bool *is_object)
{
    if (is_object)
        *is_object = t == MLIA_JTOK_OBJ_BEGIN;
    if (t != MLIA_JTOK_OBJ_BEGIN)
        return mlia_jstream_skip(r->js, t);
    for (;;) {
        t = mlia_jstream_next(r->js);
        if (t == MLIA_JTOK_OBJ_END)
            return 0;
        if (t != MLIA_JTOK_KEY)
            return -1;
        /* the key lives in the token buffer: copy it before the value; no
         * member of interest is longer than the copy or holds a NUL */
        char key[64];
        bool plain = r->js->text_len < sizeof key && !memchr(r->js->text, 0, r->js->text_len);
        size_t n = plain ? r->js->text_len : 0;
        memcpy(key, r->js->text, n);
        key[n] = 0;
        if (member(r, key, ctx))
            return -1;
    }
}

static int object(rr_reader *r, member_fn member, void *ctx, bool *is_object)
{
    return object_from(r, mlia_jstream_next(r->js), member, ctx, is_object);
}

/* Calls item(r, index, first, ctx) for every item of the array that is the
 * next value (the callback consumes the item from its first token);
 * anything else is skipped. */
typedef int (*item_fn)(rr_reader *r, uint32_t index, mlia_jtok first, void *ctx);

static int array(rr_reader *r, item_fn item, void *ctx)
{
    mlia_jtok t = mlia_jstream_next(r->js);
    if (t != MLIA_JTOK_ARR_BEGIN)
        return mlia_jstream_skip(r->js, t);
    for (uint32_t i = 0;; i++) {
        t = mlia_jstream_next(r->js);
        if (t == MLIA_JTOK_ARR_END)
            return 0;
        if (t == MLIA_JTOK_ERROR || t == MLIA_JTOK_EOF || item(r, i, t, ctx))
            return -1;
    }
}

/* ---- metrics -------------------------------------------------------- */

#define RR_MAX_QUALIFIERS 16

typedef struct metric_ctx {
    rr_metric m;
    const char *aggregation, *availability;
    bool has_value, value_finite;
    uint32_t nq;
    const char *qkey[RR_MAX_QUALIFIERS], *qval[RR_MAX_QUALIFIERS];
    const char *statistic; /* qualifiers.statistic when a string */
    bool qualifiers_seen;
} metric_ctx;

/* Compact text of the value that is the next token: strings as they are,
 * numbers as their source text, objects and arrays re-serialised compactly
 * (the earlier reader's mlia_json_dump form). */
static int value_text(rr_reader *r, mlia_jtok t, const char **out)
{
    mlia_jstream *js = r->js;
    switch (t) {
    case MLIA_JTOK_STRING:
    case MLIA_JTOK_NUMBER:
        *out = keep_text(r);
        return 0;
    case MLIA_JTOK_TRUE:
        *out = "true";
        return 0;
    case MLIA_JTOK_FALSE:
        *out = "false";
        return 0;
    case MLIA_JTOK_NULL:
        *out = "null";
        return 0;
    case MLIA_JTOK_OBJ_BEGIN:
    case MLIA_JTOK_ARR_BEGIN:
        break;
    default:
        return -1;
    }
    mlia_buf b;
    mlia_buf_init(&b);
    unsigned target = js->depth - 1;
    bool first = true;
    mlia_buf_putc(&b, t == MLIA_JTOK_OBJ_BEGIN ? '{' : '[');
    int rc = 0;
    for (;;) {
        t = mlia_jstream_next(js);
        if (t == MLIA_JTOK_ERROR || t == MLIA_JTOK_EOF) {
            rc = -1;
            break;
        }
        bool closing = t == MLIA_JTOK_OBJ_END || t == MLIA_JTOK_ARR_END;
        if (!closing && !first && !(b.len && b.data[b.len - 1] == ':'))
            mlia_buf_putc(&b, ',');
        first = t == MLIA_JTOK_OBJ_BEGIN || t == MLIA_JTOK_ARR_BEGIN;
        switch (t) {
        case MLIA_JTOK_OBJ_BEGIN: mlia_buf_putc(&b, '{'); break;
        case MLIA_JTOK_ARR_BEGIN: mlia_buf_putc(&b, '['); break;
        case MLIA_JTOK_OBJ_END: mlia_buf_putc(&b, '}'); break;
        case MLIA_JTOK_ARR_END: mlia_buf_putc(&b, ']'); break;
        case MLIA_JTOK_KEY:
            mlia_json_escape(&b, js->text, js->text_len, false);
            mlia_buf_putc(&b, ':');
            break;
        case MLIA_JTOK_STRING: mlia_json_escape(&b, js->text, js->text_len, false); break;
        case MLIA_JTOK_NUMBER: mlia_buf_append(&b, js->text, js->text_len); break;
        case MLIA_JTOK_TRUE: mlia_buf_puts(&b, "true"); break;
        case MLIA_JTOK_FALSE: mlia_buf_puts(&b, "false"); break;
        default: mlia_buf_puts(&b, "null"); break;
        }
        if (closing && js->depth == target)
            break;
    }
    *out = rc ? NULL : mlia_arena_strndup(r->a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return rc;
}

static int qualifier_member(rr_reader *r, const char *key, void *vctx)
{
    metric_ctx *m = vctx;
    if (!key[0])
        return skip_next(r); /* a key no qualifier of ours has */
    const char *v;
    if (strcmp(key, "statistic") == 0) {
        m->statistic = NULL;
        return str_value(r, &m->statistic);
    }
    mlia_jtok t = mlia_jstream_next(r->js);
    bool is_string = t == MLIA_JTOK_STRING;
    if (value_text(r, t, &v))
        return -1;
    if (strcmp(key, "attribution") == 0)
        m->m.attribution = is_string ? v : NULL;
    uint32_t i = 0;
    while (i < m->nq && strcmp(m->qkey[i], key) != 0)
        i++;
    if (i == m->nq) {
        if (m->nq == RR_MAX_QUALIFIERS)
            return 0; /* more qualifiers than any metric has: the rest are ignored */
        m->qkey[m->nq++] = mlia_arena_strdup(r->a, key);
    }
    m->qval[i] = v;
    return 0;
}

static int metric_member(rr_reader *r, const char *key, void *vctx)
{
    metric_ctx *m = vctx;
    if (strcmp(key, "name") == 0)
        return str_value(r, &m->m.name);
    if (strcmp(key, "unit") == 0)
        return str_value(r, &m->m.unit);
    if (strcmp(key, "aggregation") == 0)
        return str_value(r, &m->aggregation);
    if (strcmp(key, "availability") == 0)
        return str_value(r, &m->availability);
    if (strcmp(key, "value") == 0) {
        mlia_jtok t = mlia_jstream_next(r->js);
        m->has_value = t == MLIA_JTOK_NUMBER;
        m->m.value = m->has_value ? r->js->number : 0.0;
        return mlia_jstream_skip(r->js, t);
    }
    if (strcmp(key, "samples") == 0) {
        mlia_jtok t = mlia_jstream_next(r->js);
        m->m.samples = 0;
        if (t == MLIA_JTOK_NUMBER && r->js->int_fits && r->js->i > 0 && r->js->i <= UINT32_MAX)
            m->m.samples = (uint32_t)r->js->i;
        return mlia_jstream_skip(r->js, t);
    }
    if (strcmp(key, "qualifiers") == 0) {
        m->nq = 0;
        m->statistic = NULL;
        m->m.attribution = NULL;
        return object(r, qualifier_member, m, NULL);
    }
    return skip_next(r);
}

static int cmp_qual(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

static void list_add(rr_reader *r, rr_list *l, const rr_metric *m)
{
    if (l->n == l->cap) {
        uint32_t nc = l->cap ? l->cap * 2 : 256;
        l->v = mlia_arena_grow(r->a, l->v, l->n, nc, sizeof *l->v);
        l->cap = nc;
    }
    l->v[l->n++] = *m;
}

static int metric_item(rr_reader *r, uint32_t index, mlia_jtok first, void *vlist)
{
    metric_ctx m;
    memset(&m, 0, sizeof m);
    bool is_object;
    if (object_from(r, first, metric_member, &m, &is_object))
        return -1;
    if (!is_object || !m.m.name)
        return 0;
    m.m.available = m.has_value && !(m.availability && strcmp(m.availability, "unavailable") == 0);
    if (!m.m.available)
        m.m.value = 0.0;
    m.m.statistic = m.statistic;
    if (!m.m.statistic && m.aggregation &&
        (strcmp(m.aggregation, "p50") == 0 || strcmp(m.aggregation, "min") == 0 || strcmp(m.aggregation, "max") == 0))
        m.m.statistic = m.aggregation;
    /* the series key: name + the other qualifiers by key ("name|k=v|...") */
    const char *pairs[RR_MAX_QUALIFIERS][2];
    for (uint32_t i = 0; i < m.nq; i++) {
        pairs[i][0] = m.qkey[i];
        pairs[i][1] = m.qval[i];
    }
    qsort(pairs, m.nq, sizeof pairs[0], cmp_qual);
    mlia_buf key;
    mlia_buf_init(&key);
    mlia_buf_puts(&key, m.m.name);
    for (uint32_t i = 0; i < m.nq; i++)
        mlia_buf_printf(&key, "|%s=%s", pairs[i][0], pairs[i][1]);
    m.m.series = mlia_arena_strndup(r->a, key.data ? key.data : "", key.len);
    mlia_buf_free(&key);
    list_add(r, vlist, &m.m);
    return 0;
}

/* A "metrics" array into list l, replacing what an earlier "metrics" of the
 * same owner gave (from index `from`). */
static int metrics(rr_reader *r, rr_list *l, uint32_t from)
{
    l->n = from;
    return array(r, metric_item, l);
}

/* ---- entities and breakdowns ---------------------------------------- */

typedef struct owner_ctx {
    const char *id, *kind, *name, *code_stack;
    uint32_t from;   /* first metric of this owner in its list */
    rr_list *list;
    bool breakdown;
} owner_ctx;

static int attribute_member(rr_reader *r, const char *key, void *vctx)
{
    owner_ctx *o = vctx;
    if (strcmp(key, "code_stack") == 0)
        return str_value(r, &o->code_stack);
    return skip_next(r);
}

static int owner_member(rr_reader *r, const char *key, void *vctx)
{
    owner_ctx *o = vctx;
    if (strcmp(key, o->breakdown ? "entity_id" : "id") == 0)
        return str_value(r, &o->id);
    if (!o->breakdown && strcmp(key, "kind") == 0)
        return str_value(r, &o->kind);
    if (!o->breakdown && strcmp(key, "name") == 0)
        return str_value(r, &o->name);
    if (strcmp(key, "metrics") == 0)
        return metrics(r, o->list, o->from);
    if (!o->breakdown && strcmp(key, "attributes") == 0) {
        o->code_stack = NULL;
        return object(r, attribute_member, o, NULL);
    }
    return skip_next(r);
}

static int owner_item(rr_reader *r, uint32_t index, mlia_jtok first, void *vctx)
{
    owner_ctx o;
    memset(&o, 0, sizeof o);
    o.breakdown = vctx == (void *)&r->bd_m;
    o.list = o.breakdown ? &r->bd_m : &r->entity_m;
    o.from = o.list->n;
    if (object_from(r, first, owner_member, &o, NULL))
        return -1;
    if (!o.id) {
        o.list->n = o.from; /* no id: neither the entity nor its metrics */
        return 0;
    }
    for (uint32_t i = o.from; i < o.list->n; i++)
        o.list->v[i].entity = o.id;
    if (o.breakdown)
        return 0;
    if (r->n_entities == r->cap_entities) {
        uint32_t nc = r->cap_entities ? r->cap_entities * 2 : 256;
        r->entities = mlia_arena_grow(r->a, r->entities, r->n_entities, nc, sizeof *r->entities);
        r->cap_entities = nc;
    }
    rr_entity *e = &r->entities[r->n_entities++];
    e->id = o.id;
    e->kind = o.kind;
    e->name = o.name;
    e->code_stack = o.code_stack;
    return 0;
}

static int result_member(rr_reader *r, const char *key, void *ctx)
{
    if (strcmp(key, "metrics") == 0)
        return metrics(r, &r->model_m, 0);
    if (strcmp(key, "entities") == 0) {
        r->n_entities = 0;
        r->entity_m.n = 0;
        return array(r, owner_item, &r->entity_m);
    }
    if (strcmp(key, "breakdowns") == 0) {
        r->bd_m.n = 0;
        return array(r, owner_item, &r->bd_m);
    }
    return skip_next(r);
}

static int results_item(rr_reader *r, uint32_t index, mlia_jtok first, void *ctx)
{
    if (index > 0)
        return mlia_jstream_skip(r->js, first);
    bool is_object;
    if (object_from(r, first, result_member, NULL, &is_object))
        return -1;
    r->has_results0 = is_object;
    return 0;
}

/* ---- the document ------------------------------------------------------ */

static bool is_digest(const char *s);

static void capture_add(rr_reader *r, const char *digest)
{
    if (r->n_captures == r->cap_captures) {
        uint32_t nc = r->cap_captures ? r->cap_captures * 2 : 8;
        r->captures = mlia_arena_grow(r->a, r->captures, r->n_captures, nc, sizeof *r->captures);
        r->cap_captures = nc;
    }
    r->captures[r->n_captures++] = digest;
}

static int fingerprint_inputs_member(rr_reader *r, const char *key, void *ctx)
{
    rr_fingerprint *f = &r->out->fingerprint;
    if (strcmp(key, "etrecord") == 0)
        return str_value(r, &f->etrecord);
    if (strcmp(key, "profiling_data") == 0) {
        /* one capture: its digest; several (docs/captures.md): a list */
        r->n_captures = 0;
        mlia_jtok t = mlia_jstream_next(r->js);
        if (t == MLIA_JTOK_ARR_BEGIN) {
            f->profiling_data = NULL;
            for (;;) {
                t = mlia_jstream_next(r->js);
                if (t == MLIA_JTOK_ARR_END)
                    return 0;
                if (t == MLIA_JTOK_ERROR || t == MLIA_JTOK_EOF)
                    return -1;
                const char *d = NULL;
                if (str_from(r, t, &d))
                    return -1;
                if (d)
                    capture_add(r, d);
            }
        }
        if (str_from(r, t, &f->profiling_data))
            return -1;
        if (f->profiling_data)
            capture_add(r, f->profiling_data);
        return 0;
    }
    if (strcmp(key, "companion_model") == 0)
        return str_value(r, &f->companion_model);
    return skip_next(r);
}

static int count_value(rr_reader *r, int64_t *dst)
{
    mlia_jtok t = mlia_jstream_next(r->js);
    *dst = t == MLIA_JTOK_NUMBER && r->js->int_fits && r->js->i >= 0 ? r->js->i : -1;
    return mlia_jstream_skip(r->js, t);
}

static int fingerprint_member(rr_reader *r, const char *key, void *ctx)
{
    rr_fingerprint *f = &r->out->fingerprint;
    if (strcmp(key, "program") == 0) {
        mlia_jtok t = mlia_jstream_next(r->js);
        if (str_from(r, t, &f->program))
            return -1;
        if (!is_digest(f->program))
            r->bad = "context.runtime_configuration.fingerprint.program is not a SHA-256 digest";
        return 0;
    }
    if (strcmp(key, "method") == 0)
        return str_value(r, &f->method);
    if (strcmp(key, "operators") == 0)
        return count_value(r, &f->operators);
    if (strcmp(key, "debug_handles") == 0)
        return count_value(r, &f->debug_handles);
    if (strcmp(key, "delegate_segments") == 0)
        return count_value(r, &f->delegate_segments);
    if (strcmp(key, "inputs") == 0) {
        f->etrecord = f->profiling_data = f->companion_model = NULL;
        return object(r, fingerprint_inputs_member, NULL, NULL);
    }
    return skip_next(r);
}

/* 64 lowercase hex digits, as analysis/fingerprint.c writes them. */
static bool is_digest(const char *s)
{
    if (!s || strlen(s) != 64)
        return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return false;
    return true;
}

static const char *token_kind(mlia_jtok t)
{
    switch (t) {
    case MLIA_JTOK_STRING: return "a string";
    case MLIA_JTOK_NUMBER: return "a number";
    case MLIA_JTOK_NULL: return "null";
    case MLIA_JTOK_TRUE:
    case MLIA_JTOK_FALSE: return "a boolean";
    case MLIA_JTOK_ARR_BEGIN: return "an array";
    default: return "not a value";
    }
}

static void fingerprint_reset(rr_fingerprint *f)
{
    memset(f, 0, sizeof *f);
    f->operators = f->debug_handles = f->delegate_segments = -1;
}

static int statistics_member(rr_reader *r, const char *key, void *ctx)
{
    rr_settings *st = &r->out->settings;
    if (strcmp(key, "mode") == 0) {
        mlia_jtok t = mlia_jstream_next(r->js);
        return value_text(r, t, &st->statistics_mode);
    }
    if (strcmp(key, "device") == 0)
        return str_value(r, &st->statistics_device);
    if (strcmp(key, "mode_assumed") == 0 || strcmp(key, "device_assumed") == 0) {
        mlia_jtok t = mlia_jstream_next(r->js);
        *(key[0] == 'm' ? &st->mode_assumed : &st->device_assumed) = t == MLIA_JTOK_TRUE;
        return mlia_jstream_skip(r->js, t);
    }
    return skip_next(r);
}

static int runtime_member(rr_reader *r, const char *key, void *ctx)
{
    const char **method = ctx;
    rr_settings *st = &r->out->settings;
    if (strcmp(key, "etrecord_method") == 0)
        return str_value(r, &method[0]);
    if (strcmp(key, "method") == 0)
        return str_value(r, &method[1]);
    if (strcmp(key, "fingerprint") == 0) {
        fingerprint_reset(&r->out->fingerprint);
        r->n_captures = 0;
        bool is_object;
        mlia_jtok t = mlia_jstream_next(r->js);
        if (t != MLIA_JTOK_OBJ_BEGIN && t != MLIA_JTOK_ERROR && t != MLIA_JTOK_EOF)
            r->bad = mlia_arena_printf(r->a, "context.runtime_configuration.fingerprint is %s, not an object",
                                       token_kind(t));
        return object_from(r, t, fingerprint_member, NULL, &is_object);
    }
    if (strcmp(key, "time_unit") == 0)
        return str_value(r, &st->time_unit);
    if (strcmp(key, "ticks_per_second") == 0 || strcmp(key, "warmup_executions") == 0) {
        mlia_jtok t = mlia_jstream_next(r->js);
        double v = t == MLIA_JTOK_NUMBER && r->js->number > 0 ? r->js->number : 0;
        if (key[0] == 't')
            st->ticks_per_second = v;
        else
            st->warmup_executions = t == MLIA_JTOK_NUMBER && r->js->int_fits && r->js->i > 0 ? r->js->i : 0;
        return mlia_jstream_skip(r->js, t);
    }
    if (strcmp(key, "statistics") == 0) {
        st->statistics_mode = st->statistics_device = NULL;
        st->mode_assumed = st->device_assumed = false;
        return object(r, statistics_member, NULL, NULL);
    }
    return skip_next(r);
}

static int context_member(rr_reader *r, const char *key, void *ctx)
{
    const char **method = ctx;
    if (strcmp(key, "runtime_configuration") == 0) {
        method[0] = method[1] = NULL;
        fingerprint_reset(&r->out->fingerprint);
        const char *version = r->out->settings.tool_version;
        memset(&r->out->settings, 0, sizeof r->out->settings);
        r->out->settings.tool_version = version;
        r->n_captures = 0;
        r->bad = NULL;
        return object(r, runtime_member, method, NULL);
    }
    return skip_next(r);
}

static int tool_member(rr_reader *r, const char *key, void *ctx)
{
    if (strcmp(key, "version") == 0)
        return str_value(r, &r->out->settings.tool_version);
    return skip_next(r);
}

static int model_member(rr_reader *r, const char *key, void *ctx)
{
    if (strcmp(key, "name") == 0)
        return str_value(r, &r->out->model_name);
    return skip_next(r);
}

static int doc_member(rr_reader *r, const char *key, void *ctx)
{
    result_doc *d = r->out;
    const char **method = ctx;
    if (strcmp(key, "schema_version") == 0)
        return str_value(r, &d->schema_version);
    if (strcmp(key, "run_id") == 0)
        return str_value(r, &d->run_id);
    if (strcmp(key, "timestamp") == 0)
        return str_value(r, &d->timestamp);
    if (strcmp(key, "model") == 0) {
        d->model_name = NULL;
        return object(r, model_member, NULL, NULL);
    }
    if (strcmp(key, "tool") == 0) {
        d->settings.tool_version = NULL;
        return object(r, tool_member, NULL, NULL);
    }
    if (strcmp(key, "context") == 0) {
        method[0] = method[1] = NULL;
        fingerprint_reset(&d->fingerprint);
        return object(r, context_member, method, NULL);
    }
    if (strcmp(key, "results") == 0) {
        r->has_results0 = false;
        r->model_m.n = r->entity_m.n = r->bd_m.n = 0;
        r->n_entities = 0;
        return array(r, results_item, NULL);
    }
    return skip_next(r);
}

static int read_stream(mlia_jstream *js, const char *file, mlia_arena *arena, result_doc *out, mlia_error *err)
{
    mlia_error perr;
    mlia_error_clear(&perr);
    js->err = &perr;
    rr_reader r;
    memset(&r, 0, sizeof r);
    r.js = js;
    r.a = arena;
    r.out = out;
    const char *method[2] = {NULL, NULL};
    bool is_object = false;
    int rc = object(&r, doc_member, (void *)method, &is_object);
    if (!rc && mlia_jstream_next(js) != MLIA_JTOK_EOF)
        rc = -1;
    if (rc || perr.set)
        return mlia_error_setf(err, file, "not an mlia output (%s)", perr.set ? perr.text : "unreadable");
    if (!is_object)
        return mlia_error_setf(err, file, "not an mlia output (not a JSON object)");
    if (!out->schema_version)
        return mlia_error_setf(err, file, "not an mlia output (schema_version missing)");
    if (!r.has_results0)
        return mlia_error_setf(err, file, "not an mlia output (results[0] missing)");
    if (!out->model_name)
        return mlia_error_setf(err, file, "not an mlia output (model.name missing)");
    if (r.bad)
        return mlia_error_setf(err, file, "not an mlia output (%s)", r.bad);
    out->settings.n_captures = r.n_captures;
    out->settings.captures = r.captures;
    out->method = method[0] ? method[0] : method[1];
    /* model metrics, entity metrics, breakdown metrics: one array */
    uint32_t n = r.model_m.n + r.entity_m.n + r.bd_m.n;
    out->metrics = mlia_arena_array(arena, n ? n : 1, sizeof *out->metrics);
    rr_list *lists[3] = {&r.model_m, &r.entity_m, &r.bd_m};
    uint32_t k = 0;
    for (int i = 0; i < 3; i++) {
        for (uint32_t j = 0; j < lists[i]->n; j++) {
            out->metrics[k] = lists[i]->v[j];
            if (i == 0)
                out->metrics[k].entity = RESULT_MODEL_ENTITY;
            k++;
        }
    }
    out->n_metrics = n;
    out->entities = r.entities;
    out->n_entities = r.n_entities;
    return 0;
}

static void doc_init(result_doc *out)
{
    memset(out, 0, sizeof *out);
    fingerprint_reset(&out->fingerprint);
}

int result_doc_read(const char *text, size_t len, const char *file, mlia_arena *arena, result_doc *out,
                    mlia_error *err)
{
    doc_init(out);
    mlia_jstream js;
    mlia_jstream_init_mem(&js, text, len, NULL, false, NULL);
    int rc = read_stream(&js, file, arena, out, err);
    mlia_jstream_close(&js);
    return rc;
}

int result_open_input(const char *path, uint64_t cap, const char *what, uint64_t *size, mlia_error *err)
{
    uint64_t st_size;
    int fd = mlia_file_open_regular_fd(path, &st_size, err);
    if (fd < 0)
        return -1;
    if (st_size > cap) {
        close(fd);
        return mlia_error_setf(err, path, "too large for %s (%llu bytes; the limit is %llu)", what,
                               (unsigned long long)st_size, (unsigned long long)cap);
    }
    /* regular file: reads do not block; clear the flag for clarity */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        (void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    if (size)
        *size = st_size;
    return fd;
}

int result_doc_read_fd(int fd, const char *file, mlia_arena *arena, result_doc *out, mlia_error *err)
{
    doc_init(out);
    mlia_jstream js;
    mlia_jstream_init(&js, fd, NULL, false, NULL);
    int rc = read_stream(&js, file, arena, out, err);
    mlia_jstream_close(&js);
    return rc;
}

/* ---- the page data of an mlia page --------------------------------------- */

#define DATA_OPEN "<script type=\"application/json\" id=\"mlia-data\">"
#define DATA_CLOSE "</script>"

/* Offset just after the first DATA_OPEN in the file, read in pieces (a
 * marker across two pieces is found: each piece starts with the last bytes
 * of the previous one). -1 when there is none. */
static int64_t find_marker(int fd, mlia_error *err, const char *file)
{
    enum { PIECE = 64 * 1024 };
    const size_t m = strlen(DATA_OPEN);
    char *buf = malloc(PIECE + m);
    if (!buf)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_OUT_OF_MEMORY, file, "out of memory"), -2;
    size_t have = 0;
    uint64_t at = 0; /* file offset of buf[0] */
    int64_t found = -1;
    for (;;) {
        ssize_t got = pread(fd, buf + have, PIECE, (off_t)(at + have));
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            mlia_error_setkf(err, MLIA_ERROR_KIND_IO, file, "%s", strerror(errno));
            found = -2;
            break;
        }
        have += (size_t)got;
        const char *hit = memmem(buf, have, DATA_OPEN, m);
        if (hit) {
            found = (int64_t)(at + (uint64_t)(hit - buf) + m);
            break;
        }
        if (got == 0)
            break;
        size_t tail = have < m - 1 ? have : m - 1;
        memmove(buf, buf + have - tail, tail);
        at += have - tail;
        have = tail;
    }
    free(buf);
    return found;
}

typedef struct data_tap {
    bool markup;             /* a '<', '>' or '&' was seen */
    bool seen;               /* a byte other than whitespace was seen */
    char first;              /* that byte */
    mlia_page_copy_fn copy;
    void *ctx;
} data_tap;

static void data_bytes(void *vctx, const char *bytes, size_t n)
{
    data_tap *t = vctx;
    if (memchr(bytes, '<', n) || memchr(bytes, '>', n) || memchr(bytes, '&', n))
        t->markup = true;
    for (size_t i = 0; !t->seen && i < n; i++)
        if (bytes[i] != ' ' && bytes[i] != '\n' && bytes[i] != '\r' && bytes[i] != '\t') {
            t->seen = true;
            t->first = bytes[i];
        }
    if (t->copy)
        t->copy(t->ctx, bytes, n);
}

int result_page_data(int fd, const char *file, mlia_page_copy_fn copy, void *ctx, mlia_error *err)
{
    int64_t at = find_marker(fd, err, file);
    if (at == -2)
        return -1;
    if (at < 0)
        return mlia_error_setf(err, file, "not an mlia page (no page data)");
    if (lseek(fd, (off_t)at, SEEK_SET) < 0)
        return mlia_error_setkf(err, MLIA_ERROR_KIND_IO, file, "%s", strerror(errno));
    mlia_error perr;
    mlia_error_clear(&perr);
    mlia_jstream js;
    mlia_jstream_init(&js, fd, NULL, true, &perr);
    int rc = 0;
    char c = 0;
    if (mlia_jstream_peek(&js, &c, 1) != 1 || c != '{') {
        rc = mlia_error_setf(err, file, "not an mlia page (no page data)");
        goto done;
    }
    /* The page data is copied into compare.html as it is: it must be what
     * our writer produces, one JSON object with <, > and & escaped, so
     * nothing in it can change how the HTML around it is parsed. The tap
     * sees the members and the closing brace, after the '{'. */
    mlia_jtok t = mlia_jstream_next(&js);
    data_tap dt = {false, false, 0, copy, ctx};
    mlia_jstream_tap_begin(&js, data_bytes, &dt);
    int skipped = mlia_jstream_skip(&js, t);
    mlia_jstream_tap_end(&js);
    if (skipped || perr.set) {
        rc = mlia_error_setf(err, file, "not an mlia page (%s)", perr.set ? perr.text : "unreadable page data");
        goto done;
    }
    if (dt.markup) {
        rc = mlia_error_setf(err, file, "not an mlia page (unescaped markup in the page data)");
        goto done;
    }
    if (dt.first == '}') {
        rc = mlia_error_setf(err, file, "not an mlia page (the page data is empty)");
        goto done;
    }
    char close_tag[sizeof DATA_CLOSE - 1];
    if (mlia_jstream_peek(&js, close_tag, sizeof close_tag) != sizeof close_tag ||
        memcmp(close_tag, DATA_CLOSE, sizeof close_tag) != 0)
        rc = mlia_error_setf(err, file, "not an mlia page (no page data)");
done:
    mlia_jstream_close(&js);
    return rc;
}
