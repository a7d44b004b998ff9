/*
 * result_json.c - the standardized result document (see result_json.h).
 *
 * Layout (product.md section 7): schema_version, run_id, timestamp, tool,
 * target, model, context, backends, results[1]. Entities are written in the
 * order the analysis created them; breakdowns list the entities that carry
 * metrics, in the same order.
 */
#include "result_json.h"

#include <string.h>

#include "analysis/nx_analysis.h"
#include "analysis/runtime.h"
#include "formats/exported_program.h"

void result_json_metric(mlia_jw *w, const mlia_metric *m)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", m->name);
    if (m->type == MLIA_VALUE_UNAVAILABLE) {
        mlia_jw_kstr(w, "unit", m->unit);
        mlia_jw_kstr(w, "availability", "unavailable");
        mlia_jw_kstr(w, "reason", m->reason ? m->reason : "");
        mlia_jw_obj_end(w);
        return;
    }
    mlia_jw_key(w, "value");
    if (m->type == MLIA_VALUE_UINT)
        mlia_jw_uint(w, m->u);
    else
        mlia_jw_double(w, m->d);
    mlia_jw_kstr(w, "unit", m->unit);
    mlia_jw_kstr(w, "aggregation", m->aggregation);
    mlia_jw_kuint(w, "samples", m->samples ? m->samples : 1);
    mlia_jw_key(w, "qualifiers");
    mlia_jw_obj_begin(w);
    for (uint8_t i = 0; i < m->n_qualifiers; i++)
        mlia_jw_kstr(w, m->qualifiers[i].key, m->qualifiers[i].value);
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
}

void result_json_attr_value(mlia_jw *w, const mlia_attr *a)
{
    switch (a->type) {
    case MLIA_ATTR_STRING: mlia_jw_str(w, a->s); break;
    case MLIA_ATTR_INT: mlia_jw_int(w, a->i); break;
    case MLIA_ATTR_DOUBLE: mlia_jw_double(w, a->d); break;
    case MLIA_ATTR_BOOL: mlia_jw_bool(w, a->b); break;
    case MLIA_ATTR_STRING_LIST:
        mlia_jw_arr_begin(w);
        for (uint32_t k = 0; k < a->n; k++)
            mlia_jw_str(w, a->list_s[k]);
        mlia_jw_arr_end(w);
        break;
    case MLIA_ATTR_INT_LIST:
        mlia_jw_arr_begin(w);
        for (uint32_t k = 0; k < a->n; k++)
            mlia_jw_int(w, a->list_i[k]);
        mlia_jw_arr_end(w);
        break;
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

static void digest_obj(mlia_jw *w, const mlia_input_digest *d)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "path", d->path);
    mlia_jw_kstr(w, "name", d->name);
    mlia_jw_kuint(w, "size_bytes", d->size);
    mlia_jw_kstr(w, "sha256", d->sha256);
    mlia_jw_obj_end(w);
}

void result_json_write(const mlia_session *s, mlia_jw *w)
{
    const mlia_result *r = &s->result;
    const nx_result *nx = s->nx;
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "schema_version", "1.2.0");
    mlia_jw_kstr(w, "run_id", s->run_id);
    mlia_jw_kstr(w, "timestamp", s->timestamp);

    mlia_jw_key(w, "tool");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", "mlia");
    mlia_jw_kstr(w, "version", MLIA_VERSION);
    mlia_jw_obj_end(w);

    mlia_jw_key(w, "target");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "profile_name", "neural-technology");
    mlia_jw_kstr(w, "target_type", "neural-technology");
    mlia_jw_key(w, "components");
    mlia_jw_arr_begin(w);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "type", "gpu");
    mlia_jw_kstr(w, "family", "mali");
    mlia_jw_kstr(w, "model", "nx");
    mlia_jw_obj_end(w);
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "configuration");
    mlia_jw_obj_begin(w);
    if (nx && nx->resolved) {
        mlia_jw_kint(w, "statistics_mode", nx->mode);
        mlia_jw_kstr(w, "device", nx->device);
    } else {
        mlia_jw_knull(w, "statistics_mode");
        mlia_jw_knull(w, "device");
    }
    mlia_jw_obj_end(w);
    mlia_jw_kstr(w, "description",
                 "Arm GPU with neural accelerator (Mali with NX), measured through ExecuTorch ETDump profiling data");
    mlia_jw_obj_end(w);

    mlia_jw_key(w, "model");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "name", s->etrecord_digest.name);
    mlia_jw_kstr(w, "format", "etrecord");
    mlia_jw_kstr(w, "hash", s->etrecord_digest.sha256);
    mlia_jw_kuint(w, "size_bytes", s->etrecord_digest.size);
    mlia_jw_obj_end(w);

    mlia_jw_key(w, "context");
    mlia_jw_obj_begin(w);
    mlia_jw_key(w, "cli_arguments");
    mlia_jw_arr_begin(w);
    for (int i = 0; s->opts->cli_args && i < s->opts->n_cli_args; i++)
        mlia_jw_str(w, s->opts->cli_args[i]);
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "runtime_configuration");
    mlia_jw_obj_begin(w);
    mlia_jw_key(w, "profiling_data");
    digest_obj(w, &s->etdump_digest);
    mlia_jw_kstr(w, "etrecord_method", s->method_name);
    mlia_jw_kuint(w, "executions", s->n_executions);
    mlia_jw_key(w, "execution_runs");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < s->n_executions; i++)
        mlia_jw_uint(w, s->execution_runs[i]);
    mlia_jw_arr_end(w);
    mlia_jw_kstr(w, "time_unit", s->time_unit);
    mlia_jw_key(w, "statistics");
    mlia_jw_obj_begin(w);
    if (nx && nx->resolved) {
        mlia_jw_kint(w, "mode", nx->mode);
        mlia_jw_kbool(w, "mode_assumed", nx->mode_assumed);
        mlia_jw_kstr(w, "device", nx->device);
        mlia_jw_kbool(w, "device_assumed", nx->device_assumed);
        if (nx->device_name)
            mlia_jw_kstr(w, "device_name", nx->device_name);
        else
            mlia_jw_knull(w, "device_name");
    } else {
        mlia_jw_knull(w, "mode");
        mlia_jw_knull(w, "device");
    }
    mlia_jw_obj_end(w);
    /* product.md 5.2: associations may be incomplete, so say how many there are */
    mlia_jw_key(w, "associations");
    if (nx && nx->n_ops) {
        mlia_jw_obj_begin(w);
        mlia_jw_kuint(w, "compiler_operations", nx->n_ops);
        mlia_jw_kuint(w, "compiler_operations_associated", nx->n_ops_associated);
        mlia_jw_kuint(w, "source_operators", s->program ? s->program->graph.n_nodes : 0);
        mlia_jw_kuint(w, "source_operators_associated", nx->n_sources_associated);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_null(w);
    }
    mlia_jw_key(w, "companion_model");
    if (s->has_companion)
        digest_obj(w, &s->companion_digest);
    else
        mlia_jw_null(w);
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);

    mlia_jw_key(w, "backends");
    mlia_jw_arr_begin(w);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", "neural-technology-profiling-data");
    mlia_jw_kstr(w, "name", "Neural Technology Profiling Data");
    mlia_jw_kstr(w, "version", MLIA_VERSION);
    mlia_jw_key(w, "configuration");
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "etrecord_method", s->method_name);
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_arr_end(w);

    mlia_jw_key(w, "results");
    mlia_jw_arr_begin(w);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "kind", "performance");
    mlia_jw_kstr(w, "status", r->status);
    mlia_jw_kstr(w, "producer", "neural-technology-profiling-data");
    mlia_jw_kstr(w, "mode", "measured");
    mlia_jw_key(w, "warnings");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->n_warnings; i++)
        mlia_jw_str(w, r->warnings[i]);
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "errors");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->n_errors; i++)
        mlia_jw_str(w, r->errors[i]);
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "metrics");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->n_metrics; i++)
        result_json_metric(w, &r->metrics[i]);
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "breakdowns");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e->n_metrics)
            continue;
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "entity_id", e->id);
        mlia_jw_key(w, "metrics");
        mlia_jw_arr_begin(w);
        for (uint32_t k = 0; k < e->n_metrics; k++)
            result_json_metric(w, &e->metrics[k]);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "entities");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "id", e->id);
        mlia_jw_kstr(w, "kind", e->kind);
        mlia_jw_kstr(w, "name", e->name);
        mlia_jw_kstr(w, "parent_id", e->parent);
        mlia_jw_key(w, "attributes");
        result_json_attrs(w, e);
        mlia_jw_key(w, "associations");
        mlia_jw_arr_begin(w);
        for (uint32_t k = 0; k < e->n_assoc; k++)
            mlia_jw_str(w, e->assoc[k]);
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_key(w, "entity_kinds");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->n_kinds; i++) {
        const mlia_entity_kind *k = &r->kinds[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "kind", k->kind);
        mlia_jw_kstr(w, "description", k->description);
        mlia_jw_key(w, "parent_kinds");
        mlia_jw_arr_begin(w);
        for (const char *p = k->parent_kinds; p && *p;) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            mlia_jw_strn(w, p, n);
            p = c ? c + 1 : p + n;
        }
        mlia_jw_arr_end(w);
        mlia_jw_key(w, "child_kinds");
        mlia_jw_arr_begin(w);
        for (const char *p = k->child_kinds; p && *p;) {
            const char *c = strchr(p, ',');
            size_t n = c ? (size_t)(c - p) : strlen(p);
            mlia_jw_strn(w, p, n);
            p = c ? c + 1 : p + n;
        }
        mlia_jw_arr_end(w);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_finish(w);
}
