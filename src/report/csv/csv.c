/*
 * csv.c - operators.csv, chains.csv and executions.csv (see csv.h for the
 * contract, docs/captures.md "CSV tables" for the columns).
 */
#include "report/csv/csv.h"

#include <errno.h>
#include <string.h>

#include "analysis/memory.h"
#include "analysis/display_name.h"
#include "report/backend_out.h"
#include "analysis/result.h"
#include "analysis/runtime.h"
#include "core/json_write.h"
#include "core/utf8.h"
#include "formats/pte.h"

#define CSV_FLUSH ((size_t)1 << 16)

typedef struct csv_out {
    mlia_buf b;
    FILE *fp;
    bool first;     /* next cell is the first of its row */
    bool failed;    /* a write to fp failed */
} csv_out;

static void flush(csv_out *o)
{
    if (o->b.len && fwrite(o->b.data, 1, o->b.len, o->fp) != o->b.len)
        o->failed = true;
    o->b.len = 0;
}

static void sep(csv_out *o)
{
    if (!o->first)
        mlia_buf_putc(&o->b, ',');
    o->first = false;
}

static void eol(csv_out *o)
{
    mlia_buf_append(&o->b, "\r\n", 2);
    o->first = true;
    if (o->b.len >= CSV_FLUSH)
        flush(o);
}

void csv_text_cell(mlia_buf *b, const char *s)
{
    if (!s)
        s = "";
    /* UTF-8 as written: each invalid byte becomes U+FFFD */
    mlia_buf t;
    mlia_buf_init(&t);
    const uint8_t *p = (const uint8_t *)s;
    size_t n = strlen(s);
    while (n) {
        size_t bad = 0;
        const char *why = NULL;
        if (mlia_utf8_check(p, n, &bad, &why)) {
            mlia_buf_append(&t, p, n);
            break;
        }
        mlia_buf_append(&t, p, bad);
        mlia_buf_append(&t, "\xEF\xBF\xBD", 3);
        p += bad + 1;
        n -= bad + 1;
    }
    const char *v = t.data ? t.data : "";
    size_t len = t.len;
    /* a spreadsheet runs a cell that starts with one of these as a formula */
    bool formula = len && strchr("=+-@\t\r", v[0]) != NULL;
    bool quote = false;
    for (size_t i = 0; i < len && !quote; i++)
        quote = v[i] == ',' || v[i] == '"' || v[i] == '\r' || v[i] == '\n';
    if (quote)
        mlia_buf_putc(b, '"');
    if (formula)
        mlia_buf_putc(b, '\'');
    for (size_t i = 0; i < len; i++) {
        if (v[i] == '"')
            mlia_buf_putc(b, '"');
        mlia_buf_putc(b, v[i]);
    }
    if (quote)
        mlia_buf_putc(b, '"');
    mlia_buf_free(&t);
}

static void text(csv_out *o, const char *s)
{
    sep(o);
    csv_text_cell(&o->b, s);
}

static void empty(csv_out *o)
{
    sep(o);
}

static void dbl(csv_out *o, double v)
{
    sep(o);
    char buf[32];
    mlia_format_double(buf, v); /* the JSON's text of the same value */
    mlia_buf_puts(&o->b, buf);
}

static void u64(csv_out *o, uint64_t v)
{
    sep(o);
    mlia_buf_printf(&o->b, "%llu", (unsigned long long)v);
}

static void metric_cell(csv_out *o, const mlia_metric *m)
{
    if (!m || m->type == MLIA_VALUE_UNAVAILABLE)
        empty(o);
    else if (m->type == MLIA_VALUE_UINT)
        u64(o, m->u);
    else
        dbl(o, m->d);
}

/* The unit and samples columns of metric m (empty when m is NULL), then
 * the entity's execution coverage. */
static void unit_samples_coverage(csv_out *o, const mlia_entity *e, const mlia_metric *m)
{
    text(o, m ? m->unit : "");
    if (m)
        u64(o, m->samples);
    else
        empty(o);
    metric_cell(o, mlia_entity_metric(e, "execution_coverage", NULL));
}

static const char *attr_str(const mlia_entity *e, const char *key)
{
    const mlia_attr *a = mlia_entity_attr(e, key);
    return a && a->type == MLIA_ATTR_STRING ? a->s : NULL;
}

static int finish(csv_out *o, const char *path, mlia_error *err)
{
    flush(o);
    mlia_buf_free(&o->b);
    if (o->failed || ferror(o->fp))
        return mlia_error_setf(err, path, "write failed: %s", strerror(errno ? errno : EIO));
    return 0;
}

/* ---- operators.csv: one row per source operator ---------------------- */

static int operators_to(void *ctx, FILE *fp, const char *path, mlia_error *err)
{
    const mlia_run_record *s = ctx;
    const mlia_result *r = s->result;
    csv_out o = {.fp = fp, .first = true};
    mlia_buf_init(&o.b);
    static const char *const head[] = {"id", "name", "operator", "display_name", "module_path", "attribution", "p50", "min", "max", "avg", "p10", "p90",
                                       "kernel_p50", "kernel_min", "kernel_max", "unattributed_p50",
                                       "unattributed_min", "unattributed_max", "unit", "samples", "coverage"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        text(&o, head[i]);
    eol(&o);
    static const char *const times[3] = {"execution_time", "kernel_time", "unattributed_time"};
    static const char *const stats[3] = {"p50", "min", "max"};
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (strcmp(e->kind, "source_operator") != 0)
            continue;
        text(&o, e->id);
        text(&o, attr_str(e, "node_name"));
        text(&o, e->name);
        text(&o, mlia_display_name(e));
        const char *mod = attr_str(e, "nn_module");
        const mlia_entity *me = mod ? mlia_result_find(r, mod) : NULL;
        text(&o, me ? me->name : "");
        text(&o, attr_str(e, "attribution"));
        for (int t = 0; t < 3; t++) {
            for (int k = 0; k < 3; k++)
                metric_cell(&o, mlia_entity_metric(e, times[t], stats[k]));
            if (t == 0) /* Inspector's avg and spread (issue 29, 7) */
                for (int k = 0; k < 3; k++)
                    metric_cell(&o, mlia_entity_metric(e, times[0], (const char *const[]){"avg", "p10", "p90"}[k]));
        }
        unit_samples_coverage(&o, e, mlia_entity_metric(e, "execution_time", "p50"));
        eol(&o);
    }
    return finish(&o, path, err);
}

/* ---- modules.csv: one row per nn.Module with its total ------------------ */

/* Inspector's find_total_for_module for every module (issue 29, 7):
 * module_total_time of the nn_module entities (analysis/modules.h), in the
 * result's order. */
static int modules_to(void *ctx, FILE *fp, const char *path, mlia_error *err)
{
    const mlia_run_record *s = ctx;
    const mlia_result *r = s->result;
    csv_out o = {.fp = fp, .first = true};
    mlia_buf_init(&o.b);
    static const char *const head[] = {"id", "module_path", "module_type", "parent", "total", "unit",
                                       "measured_calls"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        text(&o, head[i]);
    eol(&o);
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (strcmp(e->kind, "nn_module") != 0)
            continue;
        text(&o, e->id);
        text(&o, e->name);
        text(&o, attr_str(e, "module_type"));
        const mlia_entity *up = NULL;
        for (uint32_t k = 0; k < e->n_parents && !up; k++)
            if (strcmp(e->parents[k]->kind, "nn_module") == 0)
                up = e->parents[k];
        text(&o, up ? up->name : "");
        const mlia_metric *m = mlia_entity_metric(e, "module_total_time", "avg");
        metric_cell(&o, m);
        text(&o, m && m->unit ? m->unit : "");
        const mlia_attr *calls = mlia_entity_attr(e, "module_measured_calls");
        if (calls && calls->type == MLIA_ATTR_INT)
            u64(&o, (uint64_t)calls->i);
        else
            empty(&o);
        eol(&o);
    }
    return finish(&o, path, err);
}

/* ---- chains.csv: segment, cascade, chain and stripe rows --------------- */

/* A kind of group entity some backend of the run lists in chains.csv
 * (mlia_backend_out.csv_group_kinds, e.g. the VGF backend's segment,
 * cascade, chain and stripe). */
static bool group_kind(const mlia_run_record *s, const char *k)
{
    for (uint32_t b = 0; b < s->n_backends; b++)
        for (const char *const *g = s->backends[b].out->csv_group_kinds; g && *g; g++)
            if (strcmp(k, *g) == 0)
                return true;
    return false;
}

static bool top_kind(const mlia_run_record *s, const char *k)
{
    for (uint32_t b = 0; b < s->n_backends; b++)
        if (s->backends[b].out->csv_group_top_kind && strcmp(k, s->backends[b].out->csv_group_top_kind) == 0)
            return true;
    return false;
}

static const mlia_entity *segment_of(const mlia_run_record *s, const mlia_entity *e)
{
    for (int depth = 0; e && depth < 8; depth++) {
        if (top_kind(s, e->kind))
            return e;
        const mlia_entity *up = NULL;
        for (uint32_t k = 0; k < e->n_parents && !up; k++)
            if (group_kind(s, e->parents[k]->kind))
                up = e->parents[k];
        e = up;
    }
    return NULL;
}

static int chains_to(void *ctx, FILE *fp, const char *path, mlia_error *err)
{
    const mlia_run_record *s = ctx;
    const mlia_result *r = s->result;
    csv_out o = {.fp = fp, .first = true};
    mlia_buf_init(&o.b);
    /* the cycle metrics present, in first-seen order (total, op, counters) */
    mlia_arena scratch;
    mlia_arena_init(&scratch);
    uint32_t n_names = 0, cap = 0;
    const char **names = NULL;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!group_kind(s, e->kind))
            continue;
        for (uint32_t k = 0; k < e->n_metrics; k++) {
            const mlia_metric *m = &e->metrics[k];
            if (strcmp(m->name, "execution_coverage") == 0)
                continue;
            bool seen = false;
            for (uint32_t q = 0; q < n_names && !seen; q++)
                seen = strcmp(names[q], m->name) == 0;
            if (!seen) {
                names = mlia_arena_room(&scratch, names, n_names, &cap, sizeof *names);
                names[n_names++] = m->name;
            }
        }
    }
    static const char *const head[] = {"kind", "id", "name", "segment", "parent_id", "unit", "samples", "coverage"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        text(&o, head[i]);
    static const char *const stats[3] = {"p50", "min", "max"};
    for (uint32_t q = 0; q < n_names; q++)
        for (int k = 0; k < 3; k++) {
            char h[160];
            snprintf(h, sizeof h, "%.140s_%s", names[q], stats[k]);
            text(&o, h);
        }
    eol(&o);
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!group_kind(s, e->kind))
            continue;
        text(&o, e->kind);
        text(&o, e->id);
        text(&o, e->name);
        const mlia_entity *seg = segment_of(s, e);
        text(&o, seg ? seg->id : "");
        const mlia_entity *parent = NULL;
        for (uint32_t k = 0; k < e->n_parents && !parent; k++)
            if (group_kind(s, e->parents[k]->kind))
                parent = e->parents[k];
        text(&o, parent ? parent->id : "");
        const mlia_metric *total = NULL;
        for (uint32_t k = 0; k < e->n_metrics && !total; k++)
            if (strcmp(e->metrics[k].name, "execution_coverage") != 0 && e->metrics[k].type != MLIA_VALUE_UNAVAILABLE)
                total = &e->metrics[k];
        unit_samples_coverage(&o, e, total);
        for (uint32_t q = 0; q < n_names; q++) {
            /* one execution: one "sum" value, its own p50, min and max */
            const mlia_metric *one = mlia_entity_metric(e, names[q], NULL);
            bool single = one && one->aggregation && strcmp(one->aggregation, "sum") == 0;
            for (int k = 0; k < 3; k++)
                metric_cell(&o, single ? one : mlia_entity_metric(e, names[q], stats[k]));
        }
        eol(&o);
    }
    mlia_arena_free(&scratch);
    return finish(&o, path, err);
}

/* ---- executions.csv: every per-execution value, long form -------------- */

typedef struct mlia_csv_exec {
    csv_out *o;
    const char *capture;
    uint32_t execution;         /* 1-based */
    uint32_t block;             /* in its capture */
} exec_row;

static void row_head(const exec_row *x, const char *entity, const char *metric)
{
    text(x->o, x->capture);
    u64(x->o, x->execution);
    u64(x->o, x->block);
    text(x->o, entity);
    text(x->o, metric);
}

void mlia_csv_exec_u64(const mlia_csv_exec *x, const char *entity, const char *metric, uint64_t value,
                       const char *unit)
{
    row_head(x, entity, metric);
    u64(x->o, value);
    text(x->o, unit);
    eol(x->o);
}

void mlia_csv_exec_double(const mlia_csv_exec *x, const char *entity, const char *metric, double value,
                          const char *unit)
{
    row_head(x, entity, metric);
    dbl(x->o, value);
    text(x->o, unit);
    eol(x->o);
}

static int executions_to(void *ctx, FILE *fp, const char *path, mlia_error *err)
{
    const mlia_run_record *s = ctx;
    const runtime_analysis *ra = s->runtime;
    csv_out o = {.fp = fp, .first = true};
    mlia_buf_init(&o.b);
    static const char *const head[] = {"capture", "execution", "event_block", "entity_id", "metric", "value", "unit"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        text(&o, head[i]);
    eol(&o);
    mlia_arena names; /* metric names of one execution's backend rows */
    mlia_arena_init(&names);
    for (uint32_t x = 0; x < s->n_executions; x++) {
        uint32_t run = s->execution_runs[x];
        /* the capture that holds the execution, and its block there */
        uint32_t cap = 0;
        for (uint32_t i = 1; i < s->n_captures; i++)
            if (s->captures[i].first_run <= run)
                cap = i;
        const mlia_input_digest *d = s->n_captures ? &s->captures[cap].digest : &s->etdump_digest;
        uint32_t first = s->n_captures ? s->captures[cap].first_run : 0;
        exec_row row = {&o, d->name, x + 1, run - first};
        for (uint32_t i = 0; ra && i < ra->n_series; i++) {
            uint64_t t = ra->series[i].ticks[x];
            if (t == UINT64_MAX)
                continue;
            row_head(&row, ra->series[i].entity_id, ra->series[i].metric);
            runtime_unit u = ra->series[i].unit;
            if (u == RUNTIME_UNIT_CPU_TICKS)
                dbl(&o, (double)t / ra->ticks_per_ms); /* as the summaries divide */
            else if (u == RUNTIME_UNIT_NS || u == RUNTIME_UNIT_US)
                dbl(&o, (double)t / (u == RUNTIME_UNIT_NS ? 1e6 : 1e3)); /* the backend's clock, not the CPU's */
            else
                u64(&o, t); /* cycles, counts, bytes: as they are */
            text(&o, runtime_unit_name(u));
            eol(&o);
        }
        for (uint32_t b = 0; b < s->n_backends; b++)
            if (s->backends[b].out->csv_execution)
                s->backends[b].out->csv_execution(s->backends[b].state, run, &row, &names);
        mlia_arena_free(&names);
        mlia_arena_init(&names);
    }
    mlia_arena_free(&names);
    return finish(&o, path, err);
}

/* ---- memory.csv and memory_tensors.csv: the memory view (docs/memory.md) */

static int memory_to(void *ctx, FILE *fp, const char *path, mlia_error *err)
{
    const memory_analysis *ma = ((const mlia_run_record *)ctx)->memory;
    csv_out o = {.fp = fp, .first = true};
    mlia_buf_init(&o.b);
    static const char *const head[] = {"instruction", "operator", "source_operator", "live_bytes", "allocated_bytes",
                                       "live_tensors"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        text(&o, head[i]);
    char col[48];
    for (uint32_t p = 0; ma->n_pools > 1 && p < ma->n_pools; p++) {
        snprintf(col, sizeof col, "pool_%u_live_bytes", ma->pools[p].id);
        text(&o, col);
    }
    eol(&o);
    for (uint32_t k = 0; k < ma->n_instructions; k++) {
        const memory_instruction *mi = &ma->instructions[k];
        u64(&o, k);
        text(&o, mi->op);
        text(&o, mi->node_name ? mi->node_name : "");
        u64(&o, mi->live);
        u64(&o, mi->allocates);
        u64(&o, mi->n_live);
        for (uint32_t p = 0; ma->n_pools > 1 && p < ma->n_pools; p++)
            u64(&o, ma->pools[p].live[k]);
        eol(&o);
    }
    return finish(&o, path, err);
}

static void instr_cell(csv_out *o, int32_t k)
{
    if (k < 0)
        empty(o);
    else
        u64(o, (uint64_t)k);
}

static int memory_tensors_to(void *ctx, FILE *fp, const char *path, mlia_error *err)
{
    const memory_analysis *ma = ((const mlia_run_record *)ctx)->memory;
    csv_out o = {.fp = fp, .first = true};
    mlia_buf_init(&o.b);
    static const char *const head[] = {"value", "pool", "offset", "bytes", "dtype", "first", "last", "producer",
                                       "last_consumer", "view_of", "role"};
    for (size_t i = 0; i < sizeof head / sizeof *head; i++)
        text(&o, head[i]);
    eol(&o);
    for (uint32_t i = 0; i < ma->n_tensors; i++) {
        const memory_tensor *m = &ma->tensors[i];
        u64(&o, m->value);
        u64(&o, m->pool);
        u64(&o, m->offset);
        u64(&o, m->nbytes);
        const char *dt = et_scalar_type_name(m->scalar_type);
        text(&o, dt ? dt : "");
        instr_cell(&o, m->first);
        instr_cell(&o, m->last);
        instr_cell(&o, m->producer);
        instr_cell(&o, m->last_consumer);
        if (m->alias_of >= 0)
            u64(&o, (uint64_t)m->alias_of);
        else
            empty(&o);
        text(&o, m->is_mutable ? "mutable" : m->is_input && m->is_output ? "input,output" : m->is_input ? "input"
                                          : m->is_output                 ? "output"
                                                                         : "");
        eol(&o);
    }
    return finish(&o, path, err);
}

int csv_write(const mlia_run_record *s, mlia_outdir *od, mlia_error *err)
{
    void *ctx = (void *)s; /* the stream callbacks only read it */
    unsigned t = s->csv;
    if (((t & MLIA_RUN_CSV_OPERATORS) && mlia_outdir_stream(od, "csv/operators.csv", operators_to, ctx, err)) ||
        ((t & MLIA_RUN_CSV_CHAINS) && mlia_outdir_stream(od, "csv/chains.csv", chains_to, ctx, err)) ||
        ((t & MLIA_RUN_CSV_MODULES) && mlia_outdir_stream(od, "csv/modules.csv", modules_to, ctx, err)) ||
        ((t & MLIA_RUN_CSV_EXECUTIONS) && mlia_outdir_stream(od, "csv/executions.csv", executions_to, ctx, err)))
        return -1;
    if ((t & MLIA_RUN_CSV_MEMORY) && s->memory && s->memory->available &&
        (mlia_outdir_stream(od, "csv/memory.csv", memory_to, ctx, err) ||
         mlia_outdir_stream(od, "csv/memory_tensors.csv", memory_tensors_to, ctx, err)))
        return -1;
    return 0;
}
