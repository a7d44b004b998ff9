/*
 * result_json.c - the standardized result document (see result_json.h).
 *
 * Layout (docs/result-format.md, Arm MLIA schema 1.2.0): schema_version,
 * run_id, timestamp, tool, target, model, context, backends, results[1].
 * Entities are written in the order the analysis created them, with their
 * relationships as parent_ids / child_ids; breakdowns list the entities that
 * carry metrics, in the same order; entity_kinds declares every
 * backend-defined kind with the kind relationships the links use.
 * docs/result-format.md describes every field.
 */
#include "result_json.h"

#include <string.h>

#include "analysis/accuracy.h"
#include "report/backend_out.h"
#include "mlia/mlia.h"
#include "analysis/runtime.h"
#include "formats/exported_program.h"

bool result_json_metric_head(mlia_jw *w, const mlia_metric *m, const char *reason)
{
    mlia_jw_kstr(w, "name", m->name);
    if (m->type == MLIA_VALUE_UNAVAILABLE) {
        mlia_jw_kstr(w, "unit", m->unit);
        mlia_jw_kstr(w, "availability", "unavailable");
        mlia_jw_kstr(w, "reason", reason);
        return false;
    }
    mlia_jw_key(w, "value");
    if (m->type == MLIA_VALUE_UINT)
        mlia_jw_uint(w, m->u);
    else
        mlia_jw_double(w, m->d);
    mlia_jw_kstr(w, "unit", m->unit);
    return true;
}

void result_json_metric(mlia_jw *w, const mlia_metric *m)
{
    /* the two metric forms of MLIA schema 1.2.0: numeric {name, value, unit,
     * aggregation?, samples?, qualifiers?} or unavailable {name, unit,
     * availability, reason, qualifiers?}; optional fields are omitted, never null */
    mlia_jw_obj_begin(w);
    if (result_json_metric_head(w, m, m->reason && *m->reason ? m->reason : "The value is not available.")) {
        if (m->aggregation)
            mlia_jw_kstr(w, "aggregation", m->aggregation);
        mlia_jw_kuint(w, "samples", m->samples ? m->samples : 1);
    }
    if (m->n_qualifiers) {
        mlia_jw_kobj_begin(w, "qualifiers");
        for (uint8_t i = 0; i < m->n_qualifiers; i++)
            mlia_jw_kstr(w, m->qualifiers[i].key, m->qualifiers[i].value);
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);
}

void result_json_attr_value(mlia_jw *w, const mlia_attr *a)
{
    switch (a->type) {
    case MLIA_ATTR_STRING: mlia_jw_str(w, a->s); break;
    case MLIA_ATTR_INT: mlia_jw_int(w, a->i); break;
    case MLIA_ATTR_DOUBLE: mlia_jw_double(w, a->d); break;
    case MLIA_ATTR_BOOL: mlia_jw_bool(w, a->b); break;
    case MLIA_ATTR_STRING_LIST: mlia_jw_karray(w, NULL, a->n, mlia_jw_item_str, a->list_s); break;
    case MLIA_ATTR_INT_LIST: mlia_jw_karray(w, NULL, a->n, mlia_jw_item_i64, a->list_i); break;
    default: mlia_jw_null(w); break;
    }
}

void result_json_attrs(mlia_jw *w, const mlia_entity *e)
{
    mlia_jw_obj_begin(w);
    for (uint32_t i = 0; i < e->n_attrs; i++) {
        mlia_jw_key(w, e->attrs[i].key);
        result_json_attr_value(w, &e->attrs[i]);
    }
    mlia_jw_obj_end(w);
}

static void digest_fields(mlia_jw *w, const mlia_input_digest *d)
{
    mlia_jw_kstr(w, "path", d->path);
    mlia_jw_kstr(w, "name", d->name);
    mlia_jw_kuint(w, "size_bytes", d->size);
    mlia_jw_kstr(w, "sha256", d->sha256);
}

static void digest_obj(mlia_jw *w, const mlia_input_digest *d)
{
    mlia_jw_obj_begin(w);
    digest_fields(w, d);
    mlia_jw_obj_end(w);
}

/* The identity `mlia compare` matches runs by (analysis/fingerprint.h,
 * docs/compare.md "Identity"): the program's fingerprint and what it counts,
 * and the SHA-256 of every input. runtime_configuration is free-form in the
 * MLIA 1.2.0 schema, so the object conforms. */
static void fingerprint_obj(mlia_jw *w, const mlia_run_record *s)
{
    const mlia_program_fingerprint *f = s->fingerprint;
    mlia_jw_key(w, "fingerprint");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "format", "mlia.fingerprint/1");
    if (f && f->present) {
        mlia_jw_kstr(w, "program", f->program);
        mlia_jw_kstr(w, "method", f->method);
        mlia_jw_kuint(w, "operators", f->operators);
        mlia_jw_kuint(w, "debug_handles", f->debug_handles);
        mlia_jw_kuint(w, "delegate_segments", f->delegate_segments);
        mlia_jw_key(w, "delegate_backends");
        mlia_jw_arr_begin(w);
        for (uint32_t i = 0; i < f->n_backends; i++)
            mlia_jw_str(w, f->backends[i]);
        mlia_jw_arr_end(w);
    }
    mlia_jw_key(w, "inputs");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "etrecord", s->etrecord_digest.sha256);
    if (s->n_captures > 1) { /* several ETDumps (docs/captures.md): each one's */
        mlia_jw_key(w, "profiling_data");
        mlia_jw_arr_begin(w);
        for (uint32_t i = 0; i < s->n_captures; i++)
            mlia_jw_str(w, s->captures[i].digest.sha256);
        mlia_jw_arr_end(w);
    } else {
        mlia_jw_kstr(w, "profiling_data", s->etdump_digest.sha256);
    }
    if (s->has_companion)
        mlia_jw_kstr(w, "companion_model", s->companion_digest.sha256);
    if (s->has_debug_buffer)
        mlia_jw_kstr(w, "debug_buffer", s->debug_digest.sha256);
    if (s->has_reference) {
        mlia_jw_kstr(w, "reference_profiling_data", s->ref_etdump_digest.sha256);
        mlia_jw_kstr(w, "reference_debug_buffer", s->ref_debug_digest.sha256);
    }
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
}

static void uint_list(mlia_jw *w, const char *key, const uint32_t *v, uint32_t n)
{
    mlia_jw_key(w, key);
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        mlia_jw_uint(w, v[i]);
    mlia_jw_arr_end(w);
}

/* context.runtime_configuration.profiling_data: the ETDump's identity; with
 * several captures (docs/captures.md) one object per capture, which also
 * says which of its blocks were analysed and where its blocks start among
 * the pooled block indexes of execution_runs. */
static void profiling_data(mlia_jw *w, const mlia_run_record *s)
{
    if (s->n_captures <= 1) {
        digest_obj(w, &s->etdump_digest);
        return;
    }
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < s->n_captures; i++) {
        const mlia_capture_info *c = &s->captures[i];
        mlia_jw_obj_begin(w);
        digest_fields(w, &c->digest);
        mlia_jw_kuint(w, "event_blocks", c->n_runs);
        mlia_jw_kuint(w, "first_event_block", c->first_run);
        mlia_jw_kuint(w, "executions", c->n_executions);
        uint_list(w, "execution_runs", c->execution_runs, c->n_executions);
        if (s->warmup_executions)
            uint_list(w, "warmup_runs", c->warmup_runs, c->n_warmup);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

/* context.runtime_configuration.intermediate_outputs (docs/accuracy.md):
 * only when a debug buffer was given, so every other result keeps its bytes. */
static void intermediate_outputs_obj(mlia_jw *w, const mlia_run_record *s)
{
    const accuracy_analysis *a = s->accuracy;
    if (!a || !s->has_debug_buffer)
        return;
    mlia_jw_key(w, "intermediate_outputs");
    mlia_jw_obj_begin(w);
    mlia_jw_key(w, "debug_buffer");
    digest_obj(w, &s->debug_digest);
    mlia_jw_kuint(w, "operator_outputs", a->n_run_outputs);
    mlia_jw_kuint(w, "program_outputs", a->n_program_outputs);
    mlia_jw_kuint(w, "unmatched", a->n_unmatched);
    mlia_jw_kuint(w, "measured_entities", a->n_measured);
    if (s->has_reference) {
        mlia_jw_key(w, "reference");
        mlia_jw_obj_begin(w);
        mlia_jw_key(w, "profiling_data");
        digest_obj(w, &s->ref_etdump_digest);
        mlia_jw_key(w, "debug_buffer");
        digest_obj(w, &s->ref_debug_digest);
        mlia_jw_kuint(w, "executions", s->ref_n_executions);
        uint_list(w, "execution_runs", s->ref_execution_runs, s->ref_n_executions);
        mlia_jw_kuint(w, "compared_executions", a->n_pairs);
        mlia_jw_kuint(w, "compared_entities", a->n_compared);
        mlia_jw_obj_end(w);
    }
    mlia_jw_obj_end(w);
}

/* ---- entity_kinds: declarations of the backend-defined kinds ---------- */

#define KIND_MAX 32
#define KIND_REFS_MAX 32

typedef struct kind_refs {
    uint32_t n;
    const char *v[KIND_REFS_MAX];
} kind_refs;

typedef struct kind_decl {
    const char *id;
    kind_refs parents, children;
} kind_decl;

typedef struct kind_table {
    uint32_t n;
    kind_decl v[KIND_MAX];
} kind_table;

static kind_decl *kind_find(kind_table *t, const char *id)
{
    for (uint32_t i = 0; i < t->n; i++)
        if (strcmp(t->v[i].id, id) == 0)
            return &t->v[i];
    return NULL;
}

static void kind_declare(kind_table *t, const char *id)
{
    if (mlia_kind_is_well_known(id) || kind_find(t, id) || t->n == KIND_MAX)
        return;
    memset(&t->v[t->n], 0, sizeof t->v[t->n]);
    t->v[t->n++].id = id;
}

static void refs_add(kind_refs *r, const char *id, size_t len)
{
    for (uint32_t i = 0; i < r->n; i++)
        if (strlen(r->v[i]) == len && strncmp(r->v[i], id, len) == 0)
            return;
    if (r->n < KIND_REFS_MAX)
        r->v[r->n++] = id;
}

/* kinds named in a comma-separated static list that resolve in this result */
static void refs_add_list(const kind_table *t, kind_refs *r, const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        for (uint32_t i = 0; i < t->n; i++)
            if (strlen(t->v[i].id) == n && strncmp(t->v[i].id, p, n) == 0)
                refs_add(r, t->v[i].id, n);
        static const char *const well_known[] = {"source_operator", "model", "code_stack", "code_line"};
        for (size_t i = 0; i < sizeof well_known / sizeof *well_known; i++)
            if (strlen(well_known[i]) == n && strncmp(well_known[i], p, n) == 0)
                refs_add(r, well_known[i], n);
        p = c ? c + 1 : p + n;
    }
}

/* Every kind an entity uses is well-known or declared here; every parent ->
 * child kind pair a link uses is covered by a declaration (MLIA rejects a
 * relationship that no declared or well-known kind relationship covers). */
static void build_kinds(const mlia_result *r, kind_table *t)
{
    t->n = 0;
    for (uint32_t i = 0; i < r->n_kinds; i++)
        kind_declare(t, r->kinds[i].kind);
    for (uint32_t i = 0; i < r->n_entities; i++)
        kind_declare(t, r->entities[i]->kind);
    for (uint32_t i = 0; i < r->n_kinds; i++) {
        kind_decl *d = kind_find(t, r->kinds[i].kind);
        if (!d)
            continue;
        refs_add_list(t, &d->parents, r->kinds[i].parent_kinds);
        refs_add_list(t, &d->children, r->kinds[i].child_kinds);
    }
    for (uint32_t i = 0; i < r->n_kind_edges; i++) {
        const mlia_kind_edge *e = &r->kind_edges[i];
        if (mlia_kind_edge_is_well_known(e->parent_kind, e->child_kind))
            continue;
        kind_decl *p = kind_find(t, e->parent_kind), *c = kind_find(t, e->child_kind);
        if (p)
            refs_add(&p->children, e->child_kind, strlen(e->child_kind));
        if (c)
            refs_add(&c->parents, e->parent_kind, strlen(e->parent_kind));
    }
}

static void write_refs(mlia_jw *w, const char *key, const kind_refs *r)
{
    if (!r->n)
        return;
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < r->n; i++)
        mlia_jw_str(w, r->v[i]);
    mlia_jw_arr_end(w);
}

/* ---- the document ------------------------------------------------------ */

static void write_entity(mlia_jw *w, const mlia_entity *e)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", e->id);
    mlia_jw_kstr(w, "kind", e->kind);
    mlia_jw_kstr(w, "name", e->name);
    if (e->placement)
        mlia_jw_kstr(w, "placement", e->placement);
    if (e->n_parents) {
        mlia_jw_karr_begin(w, "parent_ids");
        for (uint32_t k = 0; k < e->n_parents; k++)
            mlia_jw_str(w, e->parents[k]->id);
        mlia_jw_arr_end(w);
    }
    if (e->n_children) {
        mlia_jw_karr_begin(w, "child_ids");
        for (uint32_t k = 0; k < e->n_children; k++)
            mlia_jw_str(w, e->children[k]->id);
        mlia_jw_arr_end(w);
    }
    if (e->n_attrs) {
        mlia_jw_key(w, "attributes");
        result_json_attrs(w, e);
    }
    mlia_jw_obj_end(w);
}

void result_json_write(const mlia_run_record *s, mlia_jw *w)
{
    const mlia_result *r = s->result;
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "schema_version", "1.2.0");
    mlia_jw_kstr(w, "run_id", s->run_id);
    mlia_jw_kstr(w, "timestamp", s->timestamp);

    mlia_jw_kobj_begin(w, "tool");
    mlia_jw_kstr(w, "name", "mlia");
    mlia_jw_kstr(w, "version", MLIA_VERSION);
    mlia_jw_obj_end(w);

    /* the target: the first backend of the run that describes one */
    bool target = false;
    for (uint32_t i = 0; i < s->n_backends && !target; i++)
        if (s->backends[i].out->json_target) {
            mlia_jw_key(w, "target");
            s->backends[i].out->json_target(s->backends[i].state, w);
            target = true;
        }
    if (!target) {
        mlia_jw_kobj_begin(w, "target");
        mlia_jw_kstr(w, "profile_name", "executorch");
        mlia_jw_kstr(w, "target_type", "executorch");
        mlia_jw_karr_begin(w, "components");
        mlia_jw_arr_end(w);
        mlia_jw_kobj_begin(w, "configuration");
        mlia_jw_obj_end(w);
        mlia_jw_kstr(w, "description", "Measured through ExecuTorch ETDump profiling data");
        mlia_jw_obj_end(w);
    }

    mlia_jw_kobj_begin(w, "model");
    mlia_jw_kstr(w, "name", s->etrecord_digest.name);
    mlia_jw_kstr(w, "format", "etrecord");
    mlia_jw_kstr(w, "hash", s->etrecord_digest.sha256);
    mlia_jw_kuint(w, "size_bytes", s->etrecord_digest.size);
    mlia_jw_obj_end(w);

    mlia_jw_kobj_begin(w, "context");
    mlia_jw_karr_begin(w, "cli_arguments");
    for (int i = 0; s->cli_args && i < s->n_cli_args; i++)
        mlia_jw_str(w, s->cli_args[i]);
    mlia_jw_arr_end(w);
    mlia_jw_kobj_begin(w, "runtime_configuration");
    mlia_jw_key(w, "profiling_data");
    profiling_data(w, s);
    mlia_jw_kstr(w, "etrecord_method", s->method_name);
    mlia_jw_kuint(w, "executions", s->n_executions);
    uint_list(w, "execution_runs", s->execution_runs, s->n_executions);
    if (s->warmup_executions) {
        mlia_jw_kuint(w, "warmup_executions", s->warmup_executions);
        uint_list(w, "warmup_runs", s->warmup_runs, s->n_warmup);
    }
    mlia_jw_kstr(w, "time_unit", s->time_unit);
    if (s->ticks_per_second > 0 && s->ticks_per_second == (double)(uint64_t)s->ticks_per_second)
        mlia_jw_kuint(w, "ticks_per_second", (uint64_t)s->ticks_per_second); /* docs/captures.md */
    else if (s->ticks_per_second > 0)
        mlia_jw_kdouble(w, "ticks_per_second", s->ticks_per_second);
    /* unknown values are left out rather than written as null */
    mlia_jw_kobj_begin(w, "statistics");
    for (uint32_t i = 0; i < s->n_backends; i++)
        if (s->backends[i].out->json_statistics)
            s->backends[i].out->json_statistics(s->backends[i].state, w);
    mlia_jw_obj_end(w);
    for (uint32_t i = 0; i < s->n_backends; i++)
        if (s->backends[i].out->json_context)
            s->backends[i].out->json_context(s->backends[i].state, s, w);
    if (s->has_companion) {
        mlia_jw_key(w, "companion_model");
        digest_obj(w, &s->companion_digest);
    }
    intermediate_outputs_obj(w, s);
    fingerprint_obj(w, s);
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);

    mlia_jw_karr_begin(w, "backends");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", "neural-technology-profiling-data");
    mlia_jw_kstr(w, "name", "Neural Technology Profiling Data");
    mlia_jw_kstr(w, "version", MLIA_VERSION);
    mlia_jw_kobj_begin(w, "configuration");
    mlia_jw_kstr(w, "etrecord_method", s->method_name);
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_arr_end(w);

    mlia_jw_karr_begin(w, "results");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "kind", "performance");
    mlia_jw_kstr(w, "status", r->status);
    mlia_jw_kstr(w, "producer", "neural-technology-profiling-data");
    mlia_jw_kstr(w, "mode", "measured");
    mlia_jw_karr_begin(w, "warnings");
    for (uint32_t i = 0; i < r->n_warnings; i++)
        mlia_jw_str(w, r->warnings[i]);
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "errors");
    for (uint32_t i = 0; i < r->n_errors; i++)
        mlia_jw_str(w, r->errors[i]);
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "metrics");
    for (uint32_t i = 0; i < r->n_metrics; i++)
        result_json_metric(w, &r->metrics[i]);
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "breakdowns");
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e->n_metrics)
            continue;
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "entity_id", e->id);
        mlia_jw_karr_begin(w, "metrics");
        for (uint32_t k = 0; k < e->n_metrics; k++)
            result_json_metric(w, &e->metrics[k]);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_karr_begin(w, "entities");
    for (uint32_t i = 0; i < r->n_entities; i++)
        write_entity(w, r->entities[i]);
    mlia_jw_arr_end(w);
    kind_table kinds;
    build_kinds(r, &kinds);
    mlia_jw_karr_begin(w, "entity_kinds");
    for (uint32_t i = 0; i < kinds.n; i++) {
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "id", kinds.v[i].id);
        write_refs(w, "parent_kinds", &kinds.v[i].parents);
        write_refs(w, "child_kinds", &kinds.v[i].children);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    /* ranked next steps (analysis/advice.h, docs/advice.md): MLIA's advice
     * entries, left out when no rule fired */
    if (r->n_advice) {
        mlia_jw_karr_begin(w, "advice");
        for (uint32_t i = 0; i < r->n_advice; i++) {
            const mlia_advice *a = &r->advice[i];
            mlia_jw_obj_begin(w);
            mlia_jw_kstr(w, "id", a->id);
            mlia_jw_kstr(w, "category", a->category);
            mlia_jw_kstr(w, "severity", a->severity);
            mlia_jw_kstr(w, "message", a->message);
            if (a->n_affected) {
                mlia_jw_karr_begin(w, "affected_entity_ids");
                for (uint32_t k = 0; k < a->n_affected; k++)
                    mlia_jw_str(w, a->affected[k]);
                mlia_jw_arr_end(w);
            }
            if (a->n_details) {
                mlia_jw_key(w, "details");
                mlia_jw_obj_begin(w);
                for (uint32_t k = 0; k < a->n_details; k++) {
                    mlia_jw_key(w, a->details[k].key);
                    result_json_attr_value(w, &a->details[k]);
                }
                mlia_jw_obj_end(w);
            }
            mlia_jw_obj_end(w);
        }
        mlia_jw_arr_end(w);
    }
    mlia_jw_obj_end(w);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_finish(w);
}
