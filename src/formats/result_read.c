/*
 * result_read.c - mlia output reader for `mlia compare` (see result_read.h).
 */
#include "formats/result_read.h"

#include <stdlib.h>
#include <string.h>

#include "core/json_read.h"
#include "core/str.h"

typedef struct rr_state {
    mlia_arena *a;
    uint32_t n, cap;
    rr_metric *v;
} rr_state;

static int cmp_member_key(const void *x, const void *y)
{
    const mlia_json_member *a = *(const mlia_json_member *const *)x, *b = *(const mlia_json_member *const *)y;
    return strcmp(a->key, b->key);
}

static const char *scalar_text(mlia_arena *a, const mlia_json *v)
{
    if (!v)
        return "null";
    switch (v->type) {
    case MLIA_JSON_STRING:
        return v->u.string.s;
    case MLIA_JSON_NUMBER:
        return v->u.number.text;
    case MLIA_JSON_BOOL:
        return v->u.boolean ? "true" : "false";
    case MLIA_JSON_NULL:
        return "null";
    default:
        return mlia_json_dump(v, a, NULL);
    }
}

static void add_metric(rr_state *st, const char *entity, const mlia_json *m)
{
    if (!mlia_json_is(m, MLIA_JSON_OBJECT))
        return;
    const char *name = mlia_json_get_str(m, "name");
    if (!name)
        return;
    rr_metric r;
    memset(&r, 0, sizeof r);
    r.entity = entity;
    r.name = name;
    r.unit = mlia_json_get_str(m, "unit");
    const mlia_json *value = mlia_json_get(m, "value");
    const char *availability = mlia_json_get_str(m, "availability");
    r.available = value && value->type == MLIA_JSON_NUMBER && !value->u.number.nonfinite &&
                  !(availability && strcmp(availability, "unavailable") == 0);
    r.value = r.available ? value->u.number.d : 0.0;
    const mlia_json *samples = mlia_json_get(m, "samples");
    if (samples && samples->type == MLIA_JSON_NUMBER && samples->u.number.int_fits && samples->u.number.i > 0 &&
        samples->u.number.i <= UINT32_MAX)
        r.samples = (uint32_t)samples->u.number.i;
    const mlia_json *q = mlia_json_get(m, "qualifiers");
    mlia_buf key;
    mlia_buf_init(&key);
    mlia_buf_puts(&key, name);
    if (mlia_json_is(q, MLIA_JSON_OBJECT) && q->u.object.n) {
        const mlia_json_member **mem = malloc(q->u.object.n * sizeof *mem);
        size_t nm = 0;
        for (size_t i = 0; mem && i < q->u.object.n; i++) {
            const mlia_json_member *qm = &q->u.object.members[i];
            if (strcmp(qm->key, "statistic") == 0) {
                if (qm->value->type == MLIA_JSON_STRING)
                    r.statistic = qm->value->u.string.s;
                continue;
            }
            if (strcmp(qm->key, "attribution") == 0 && qm->value->type == MLIA_JSON_STRING)
                r.attribution = qm->value->u.string.s;
            mem[nm++] = qm;
        }
        if (mem) {
            qsort(mem, nm, sizeof *mem, cmp_member_key);
            for (size_t i = 0; i < nm; i++)
                mlia_buf_printf(&key, "|%s=%s", mem[i]->key, scalar_text(st->a, mem[i]->value));
        }
        free(mem);
    }
    if (!r.statistic) {
        const char *agg = mlia_json_get_str(m, "aggregation");
        if (agg && (strcmp(agg, "p50") == 0 || strcmp(agg, "min") == 0 || strcmp(agg, "max") == 0))
            r.statistic = agg;
    }
    r.series = mlia_arena_strndup(st->a, key.data ? key.data : "", key.len);
    mlia_buf_free(&key);
    if (st->n == st->cap) {
        uint32_t nc = st->cap ? st->cap * 2 : 256;
        st->v = mlia_arena_grow(st->a, st->v, st->n, nc, sizeof *st->v);
        st->cap = nc;
    }
    st->v[st->n++] = r;
}

static void add_metrics(rr_state *st, const char *entity, const mlia_json *list)
{
    if (!mlia_json_is(list, MLIA_JSON_ARRAY))
        return;
    for (size_t i = 0; i < list->u.array.n; i++)
        add_metric(st, entity, list->u.array.items[i]);
}

static int64_t count_of(const mlia_json *obj, const char *key)
{
    const mlia_json *v = mlia_json_get(obj, key);
    return v && v->type == MLIA_JSON_NUMBER && v->u.number.int_fits && v->u.number.i >= 0 ? v->u.number.i : -1;
}

static void read_fingerprint(const mlia_json *f, rr_fingerprint *out)
{
    out->operators = out->debug_handles = out->delegate_segments = -1;
    if (!mlia_json_is(f, MLIA_JSON_OBJECT))
        return;
    out->program = mlia_json_get_str(f, "program");
    out->method = mlia_json_get_str(f, "method");
    out->operators = count_of(f, "operators");
    out->debug_handles = count_of(f, "debug_handles");
    out->delegate_segments = count_of(f, "delegate_segments");
    const mlia_json *in = mlia_json_get(f, "inputs");
    out->etrecord = mlia_json_get_str(in, "etrecord");
    out->profiling_data = mlia_json_get_str(in, "profiling_data");
    out->companion_model = mlia_json_get_str(in, "companion_model");
}

int result_doc_read(const char *text, size_t len, const char *file, mlia_arena *arena, result_doc *out,
                    mlia_error *err)
{
    memset(out, 0, sizeof out[0]);
    mlia_json *doc = NULL;
    mlia_error perr;
    mlia_error_clear(&perr);
    mlia_json_opts opts = {false, 0};
    if (mlia_json_parse(text, len, &opts, arena, &doc, NULL, &perr))
        return mlia_error_setf(err, file, "not an mlia output (%s)", perr.text);
    if (!mlia_json_is(doc, MLIA_JSON_OBJECT))
        return mlia_error_setf(err, file, "not an mlia output (not a JSON object)");
    out->schema_version = mlia_json_get_str(doc, "schema_version");
    if (!out->schema_version)
        return mlia_error_setf(err, file, "not an mlia output (schema_version missing)");
    const mlia_json *results = mlia_json_get(doc, "results");
    const mlia_json *res = mlia_json_is(results, MLIA_JSON_ARRAY) && results->u.array.n ? results->u.array.items[0]
                                                                                      : NULL;
    if (!mlia_json_is(res, MLIA_JSON_OBJECT))
        return mlia_error_setf(err, file, "not an mlia output (results[0] missing)");
    const mlia_json *model = mlia_json_get(doc, "model");
    out->model_name = mlia_json_get_str(model, "name");
    if (!out->model_name)
        return mlia_error_setf(err, file, "not an mlia output (model.name missing)");
    out->run_id = mlia_json_get_str(doc, "run_id");
    out->timestamp = mlia_json_get_str(doc, "timestamp");
    const mlia_json *rc = mlia_json_get(mlia_json_get(doc, "context"), "runtime_configuration");
    out->method = mlia_json_get_str(rc, "etrecord_method");
    if (!out->method)
        out->method = mlia_json_get_str(rc, "method");
    read_fingerprint(mlia_json_get(rc, "fingerprint"), &out->fingerprint);

    rr_state st = {arena, 0, 0, NULL};
    add_metrics(&st, RESULT_MODEL_ENTITY, mlia_json_get(res, "metrics"));
    const mlia_json *ents = mlia_json_get(res, "entities");
    if (mlia_json_is(ents, MLIA_JSON_ARRAY)) {
        out->entities = mlia_arena_array(arena, ents->u.array.n ? ents->u.array.n : 1, sizeof *out->entities);
        for (size_t i = 0; i < ents->u.array.n; i++) {
            const mlia_json *e = ents->u.array.items[i];
            const char *id = mlia_json_get_str(e, "id");
            if (!id)
                continue;
            rr_entity *re = &out->entities[out->n_entities++];
            re->id = id;
            re->kind = mlia_json_get_str(e, "kind");
            re->name = mlia_json_get_str(e, "name");
            add_metrics(&st, id, mlia_json_get(e, "metrics"));
        }
    }
    const mlia_json *bds = mlia_json_get(res, "breakdowns");
    for (size_t i = 0; mlia_json_is(bds, MLIA_JSON_ARRAY) && i < bds->u.array.n; i++) {
        const mlia_json *b = bds->u.array.items[i];
        const char *id = mlia_json_get_str(b, "entity_id");
        if (id)
            add_metrics(&st, id, mlia_json_get(b, "metrics"));
    }
    out->n_metrics = st.n;
    out->metrics = st.v;
    return 0;
}
