/*
 * compare_out.c - compare.json, console tables and the comparison page
 * (formats in docs/compare.md).
 */
#include "report/compare/compare_out.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/oom.h"
#include "mlia/mlia.h"
#include "report/views/page_asset.h"

static void write_side(mlia_jw *w, const char *key, const compare_side *s)
{
    mlia_jw_key(w, key);
    if (!s->present) {
        mlia_jw_null(w);
        return;
    }
    mlia_jw_obj_begin(w);
    mlia_jw_kdouble(w, "p50", s->p50);
    mlia_jw_kdouble(w, "min", s->min);
    mlia_jw_kdouble(w, "max", s->max);
    mlia_jw_kuint(w, "samples", s->samples);
    mlia_jw_obj_end(w);
}

static void write_run(mlia_jw *w, const char *key, const char *path, const result_doc *d)
{
    mlia_jw_key(w, key);
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "path", path);
    mlia_jw_kstr(w, "schema_version", d->schema_version);
    mlia_jw_kstr(w, "model", d->model_name);
    mlia_jw_kstr(w, "method", d->method);
    mlia_jw_kstr(w, "run_id", d->run_id);
    mlia_jw_kstr(w, "timestamp", d->timestamp);
    mlia_jw_kstr(w, "program", d->fingerprint.program);
    mlia_jw_obj_end(w);
}

static void write_entities(mlia_jw *w, const char *key, const rr_entity *const *v, uint32_t n)
{
    mlia_jw_key(w, key);
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "id", v[i]->id);
        mlia_jw_kstr(w, "kind", v[i]->kind);
        mlia_jw_kstr(w, "name", v[i]->name);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

static void write_row(mlia_jw *w, const compare_row *r)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "entity_id", r->entity_id);
    mlia_jw_kstr(w, "entity_kind", r->entity_kind);
    mlia_jw_kstr(w, "entity_name", r->entity_name);
    mlia_jw_kstr(w, "metric", r->metric);
    mlia_jw_kstr(w, "unit", r->unit);
    mlia_jw_kstr(w, "series", r->series);
    mlia_jw_kstr(w, "attribution", r->attribution);
    mlia_jw_kstr(w, "better", r->higher_is_better ? "higher" : "lower");
    write_side(w, "baseline", &r->base);
    write_side(w, "new", &r->new_);
    if (r->has_delta)
        mlia_jw_kdouble(w, "delta", r->delta);
    else
        mlia_jw_knull(w, "delta");
    if (r->has_percent)
        mlia_jw_kdouble(w, "percent", r->percent);
    else
        mlia_jw_knull(w, "percent");
    mlia_jw_kstr(w, "verdict", compare_verdict_name(r->verdict));
    mlia_jw_kstr(w, "reason", r->reason);
    mlia_jw_obj_end(w);
}

static void write_summary(mlia_jw *w, const compare_result *r)
{
    mlia_jw_key(w, "summary");
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "entities_compared", r->n_entities);
    mlia_jw_kuint(w, "metrics_compared", r->n_rows);
    mlia_jw_kuint(w, "regressions", r->counts[COMPARE_REGRESSION]);
    mlia_jw_kuint(w, "improvements", r->counts[COMPARE_IMPROVEMENT]);
    mlia_jw_kuint(w, "unchanged", r->counts[COMPARE_UNCHANGED]);
    mlia_jw_kuint(w, "inconclusive", r->counts[COMPARE_INCONCLUSIVE]);
    mlia_jw_kuint(w, "only_in_baseline", r->n_only_base);
    mlia_jw_kuint(w, "only_in_new", r->n_only_new);
    mlia_jw_obj_end(w);
}

void compare_write_json(const compare_inputs *in, const compare_result *r, mlia_jw *w)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "schema", "mlia.compare/1");
    mlia_jw_kstr(w, "generated_by", "mlia " MLIA_VERSION);
    mlia_jw_kdouble(w, "threshold_percent", r->threshold);
    mlia_jw_kuint(w, "min_samples", COMPARE_MIN_SAMPLES);
    write_run(w, "baseline", in->base_path, in->base);
    write_run(w, "new", in->new_path, in->new_);
    mlia_jw_key(w, "warnings");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < in->n_warnings; i++)
        mlia_jw_str(w, in->warnings[i]);
    mlia_jw_arr_end(w);
    write_summary(w, r);
    mlia_jw_key(w, "metrics");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < r->n_rows; i++)
        write_row(w, &r->rows[i]);
    mlia_jw_arr_end(w);
    write_entities(w, "only_in_baseline", r->only_base, r->n_only_base);
    write_entities(w, "only_in_new", r->only_new, r->n_only_new);
    mlia_jw_obj_end(w);
    mlia_jw_finish(w);
}

/* ------------------------------------------------------------------ */
/* console                                                              */

static int cmp_row_change(const void *a, const void *b)
{
    const compare_row *x = *(const compare_row *const *)a, *y = *(const compare_row *const *)b;
    double dx = fabs(x->percent), dy = fabs(y->percent);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    int c = strcmp(x->entity_id, y->entity_id);
    return c ? c : strcmp(x->series, y->series);
}

/* Rows of one verdict, largest |percent| first (ties by entity id, series). */
static uint32_t rows_of(const compare_result *r, compare_verdict v, const compare_row **out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].verdict == v)
            out[n++] = &r->rows[i];
    qsort(out, n, sizeof *out, cmp_row_change);
    return n;
}

static void fit(char *dst, size_t width, const char *s)
{
    size_t n = strlen(s);
    if (n <= width) {
        memcpy(dst, s, n + 1);
        return;
    }
    size_t keep = width - 3, head = keep / 2, tail = keep - head;
    memcpy(dst, s, head);
    memcpy(dst + head, "...", 3);
    memcpy(dst + head + 3, s + n - tail, tail);
    dst[width] = 0;
}

/* At most 9 characters: ms with 3 decimals (6 below 0.1 ms), integers as
 * they are up to 999,999,999, anything else in 4 significant digits. */
static void fmt_value(char *buf, size_t n, double v, const char *unit)
{
    if (unit && strcmp(unit, "ms") == 0 && fabs(v) < 1e5)
        snprintf(buf, n, fabs(v) >= 0.1 || v == 0 ? "%.3f" : "%.6f", v);
    else if (v == floor(v) && fabs(v) < 1e9)
        snprintf(buf, n, "%.0f", v);
    else if (fabs(v) >= 0.01 && fabs(v) < 1e5)
        snprintf(buf, n, "%.2f", v);
    else
        snprintf(buf, n, "%.3g", v);
}

/* Entity ids keep their tail (the node, chain or stripe) when shortened. */
static void fit_tail(char *dst, size_t width, const char *s)
{
    size_t n = strlen(s);
    if (n <= width) {
        memcpy(dst, s, n + 1);
        return;
    }
    memcpy(dst, "...", 3);
    memcpy(dst + 3, s + n - (width - 3), width - 3);
    dst[width] = 0;
}

static void table(mlia_buf *b, const char *title, const compare_row **rows, uint32_t n)
{
    uint32_t shown = n < COMPARE_TOP ? n : COMPARE_TOP;
    mlia_buf_printf(b, "\n%s (%u of %u)\n", title, shown, n);
    mlia_buf_printf(b, "  %2s  %-25s  %-16s  %-6s  %9s  %9s  %9s  %8s\n", "#", "Entity", "Metric", "Unit",
                    "Base P50", "New P50", "Delta", "Change");
    for (uint32_t i = 0; i < shown; i++) {
        const compare_row *r = rows[i];
        char ent[48], met[32], unit[16], metric[64], bv[32], nv[32], dv[32];
        fit_tail(ent, 25, r->entity_id);
        snprintf(metric, sizeof metric, "%s%s", r->metric,
                 r->attribution && strcmp(r->attribution, "shared") == 0 ? " sh" : "");
        fit(met, 16, metric);
        fit(unit, 6, r->unit ? r->unit : "");
        fmt_value(bv, sizeof bv, r->base.p50, r->unit);
        fmt_value(nv, sizeof nv, r->new_.p50, r->unit);
        fmt_value(dv, sizeof dv, r->delta, r->unit);
        mlia_buf_printf(b, "  %2u  %-25s  %-16s  %-6s  %9s  %9s  %9s  %+7.1f%%\n", i + 1, ent, met, unit, bv, nv,
                        dv, r->percent);
    }
}

char *compare_console(const compare_inputs *in, const compare_result *r)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_printf(&b, "Baseline:  %s\n", in->base_path);
    mlia_buf_printf(&b, "New:       %s\n", in->new_path);
    mlia_buf_printf(&b, "Model:     %s (method %s)\n", in->new_->model_name, in->new_->method ? in->new_->method : "?");
    mlia_buf_printf(&b, "Threshold: %g %% (and the new P50 outside the baseline's [min, max]; at least %d samples)\n",
                    r->threshold, COMPARE_MIN_SAMPLES);
    mlia_buf_printf(&b, "Compared:  %u metrics of %u entities\n", r->n_rows, r->n_entities);
    mlia_buf_printf(&b, "Verdicts:  %u regression(s), %u improvement(s), %u unchanged, %u inconclusive\n",
                    r->counts[COMPARE_REGRESSION], r->counts[COMPARE_IMPROVEMENT], r->counts[COMPARE_UNCHANGED],
                    r->counts[COMPARE_INCONCLUSIVE]);
    mlia_buf_printf(&b, "Entities only in the baseline: %u; only in the new run: %u\n", r->n_only_base,
                    r->n_only_new);
    if (in->n_warnings) {
        mlia_buf_printf(&b, "\nWarnings (%u)\n", in->n_warnings);
        for (uint32_t i = 0; i < in->n_warnings; i++) {
            const char *w = in->warnings[i];
            size_t wl = strlen(w), cap = wl * 6 + 1;
            char *safe = malloc(cap);
            if (!safe)
                mlia_oom(cap);
            mlia_escape_text(safe, cap, w, wl);
            mlia_buf_printf(&b, "  - %s\n", safe);
            free(safe);
        }
    }
    const compare_row **rows = malloc((r->n_rows ? r->n_rows : 1) * sizeof *rows);
    if (rows) {
        uint32_t n = rows_of(r, COMPARE_REGRESSION, rows);
        table(&b, "Top regressions", rows, n);
        n = rows_of(r, COMPARE_IMPROVEMENT, rows);
        table(&b, "Top improvements", rows, n);
        free(rows);
    }
    const rr_entity *const *lists[2] = {r->only_base, r->only_new};
    uint32_t counts[2] = {r->n_only_base, r->n_only_new};
    const char *titles[2] = {"Only in the baseline", "Only in the new run"};
    for (int k = 0; k < 2; k++) {
        if (!counts[k])
            continue;
        uint32_t shown = counts[k] < COMPARE_TOP ? counts[k] : COMPARE_TOP;
        mlia_buf_printf(&b, "\n%s (%u of %u)\n", titles[k], shown, counts[k]);
        for (uint32_t i = 0; i < shown; i++)
            mlia_buf_printf(&b, "  %s\n", lists[k][i]->id);
    }
    return mlia_buf_take(&b);
}

/* ------------------------------------------------------------------ */
/* page                                                                 */

#define PLACEHOLDER "@@MLIA_DATA@@"

int compare_write_page(const compare_inputs *in, const compare_result *r, const char *base_page, size_t base_len,
                       const char *new_page, size_t new_len, mlia_buf *out)
{
    const char *tpl = mlia_page_template;
    size_t tlen = (size_t)mlia_page_template_len;
    const char *at = memmem(tpl, tlen, PLACEHOLDER, strlen(PLACEHOLDER));
    size_t lead = 0;
    while (lead < new_len && (new_page[lead] == ' ' || new_page[lead] == '\n' || new_page[lead] == '\t'))
        lead++;
    if (!at || lead >= new_len || new_page[lead] != '{')
        return -1;
    mlia_buf_append(out, tpl, (size_t)(at - tpl));
    mlia_buf_puts(out, "{\"compare\":");
    mlia_jw w;
    mlia_jw_init_buf(&w, out, false);
    w.html_safe = true;
    mlia_jw_obj_begin(&w);
    mlia_jw_kdouble(&w, "threshold_percent", r->threshold);
    mlia_jw_kstr(&w, "baseline", in->base_path);
    mlia_jw_kstr(&w, "new", in->new_path);
    write_summary(&w, r);
    /* per entity: the row with the largest |percent| among its P50 series with a verdict */
    mlia_jw_key(&w, "entities");
    mlia_jw_obj_begin(&w);
    for (uint32_t i = 0; i < r->n_rows;) {
        uint32_t j = i, best = UINT32_MAX;
        for (; j < r->n_rows && strcmp(r->rows[j].entity_id, r->rows[i].entity_id) == 0; j++)
            if (r->rows[j].has_percent && (best == UINT32_MAX || fabs(r->rows[j].percent) > fabs(r->rows[best].percent)))
                best = j;
        if (best != UINT32_MAX) {
            const compare_row *b = &r->rows[best];
            mlia_jw_key(&w, b->entity_id);
            mlia_jw_obj_begin(&w);
            mlia_jw_kstr(&w, "metric", b->series);
            mlia_jw_kstr(&w, "unit", b->unit);
            mlia_jw_kdouble(&w, "baseline", b->base.p50);
            mlia_jw_kdouble(&w, "new", b->new_.p50);
            mlia_jw_kdouble(&w, "percent", b->percent);
            mlia_jw_kstr(&w, "verdict", compare_verdict_name(b->verdict));
            mlia_jw_kstr(&w, "better", b->higher_is_better ? "higher" : "lower");
            mlia_jw_obj_end(&w);
        }
        i = j;
    }
    mlia_jw_obj_end(&w);
    mlia_jw_obj_end(&w);
    mlia_buf_puts(out, ",\"baseline_page\":");
    if (base_page && base_len)
        mlia_buf_append(out, base_page, base_len);
    else
        mlia_buf_puts(out, "null");
    mlia_buf_putc(out, ',');
    mlia_buf_append(out, new_page + lead + 1, new_len - lead - 1);
    size_t after = (size_t)(at - tpl) + strlen(PLACEHOLDER);
    mlia_buf_append(out, tpl + after, tlen - after);
    return 0;
}
