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
#include "report/format.h"
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

static void write_run_fields(mlia_jw *w, const char *path, const result_doc *d)
{
    mlia_jw_kstr(w, "path", path);
    mlia_jw_kstr(w, "schema_version", d->schema_version);
    mlia_jw_kstr(w, "model", d->model_name);
    mlia_jw_kstr(w, "method", d->method);
    mlia_jw_kstr(w, "run_id", d->run_id);
    mlia_jw_kstr(w, "timestamp", d->timestamp);
    mlia_jw_kstr(w, "program", d->fingerprint.program);
}

/* One side: its first run's fields, and every run in "runs" (several for a
 * pooled baseline). */
static void write_run(mlia_jw *w, const char *key, uint32_t n, const char *const *paths,
                      const result_doc *const *docs)
{
    mlia_jw_key(w, key);
    mlia_jw_obj_begin(w);
    write_run_fields(w, paths[0], docs[0]);
    mlia_jw_key(w, "runs");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++) {
        mlia_jw_obj_begin(w);
        write_run_fields(w, paths[i], docs[i]);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
}

static void entity_members(mlia_jw *w, const void *item, uint32_t i)
{
    const rr_entity *e = *(const rr_entity *const *)item;
    mlia_jw_kstr(w, "id", e->id);
    mlia_jw_kstr(w, "kind", e->kind);
    mlia_jw_kstr(w, "name", e->name);
}

static void write_entities(mlia_jw *w, const char *key, const rr_entity *const *v, uint32_t n)
{
    mlia_jw_kobjects(w, key, v, n, sizeof *v, entity_members);
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
    bool pooled = in->n_base > 0 && in->base_paths && in->base_docs;
    write_run(w, "baseline", pooled ? in->n_base : 1, pooled ? in->base_paths : &in->base_path,
              pooled ? in->base_docs : &in->base);
    write_run(w, "new", 1, &in->new_path, &in->new_);
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

/* Rows of one verdict, largest |percent| first (ties by entity id, series). */
static int cmp_row_change(const void *a, const void *b)
{
    const compare_row *x = *(const compare_row *const *)a, *y = *(const compare_row *const *)b;
    double dx = fabs(x->percent), dy = fabs(y->percent);
    if (dx != dy)
        return dx > dy ? -1 : 1;
    int c = strcmp(x->entity_id, y->entity_id);
    return c ? c : strcmp(x->series, y->series);
}

uint32_t compare_rows_of(const compare_result *r, compare_verdict v, const compare_row **out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].verdict == v)
            out[n++] = &r->rows[i];
    qsort(out, n, sizeof *out, cmp_row_change);
    return n;
}

char *compare_series_label(const char *series)
{
    mlia_buf b;
    mlia_buf_init(&b);
    const char *bar = strchr(series, '|');
    mlia_buf_append(&b, series, bar ? (size_t)(bar - series) : strlen(series));
    bool first = true;
    while (bar) {
        const char *item = bar + 1;
        bar = strchr(item, '|');
        size_t n = bar ? (size_t)(bar - item) : strlen(item);
        const char *eq = memchr(item, '=', n);
        mlia_buf_puts(&b, first ? " (" : ", ");
        first = false;
        /* attribution=shared reads "shared"; other qualifiers keep their key */
        if (eq && (size_t)(eq - item) == strlen("attribution") && strncmp(item, "attribution", 11) == 0)
            mlia_buf_append(&b, eq + 1, n - (size_t)(eq + 1 - item));
        else
            mlia_buf_append(&b, item, n);
    }
    if (!first)
        mlia_buf_putc(&b, ')');
    return mlia_buf_take(&b);
}

/* Input text made safe for a terminal, as the check summary's warnings
 * (core/error.h mlia_escape_text): controls become \xNN, \n, \r, \t. */
static char *esc(const char *s)
{
    if (!s)
        s = "";
    size_t n = strlen(s), cap = n * 6 + 1;
    char *out = malloc(cap);
    if (!out)
        mlia_oom(cap);
    mlia_escape_text(out, cap, s, n);
    return out;
}

/* Columns an escaped (valid UTF-8) text takes: its code points. */
static size_t dwidth(const char *s)
{
    size_t w = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80)
            w++;
    return w;
}

static void spaces(mlia_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        mlia_buf_putc(b, ' ');
}

/* Bytes of the first `cols` code points of s (at most its length). */
static size_t bytes_of(const char *s, size_t cols)
{
    size_t i = 0, w = 0;
    while (s[i] && w < cols) {
        i++;
        while (((unsigned char)s[i] & 0xc0) == 0x80)
            i++;
        w++;
    }
    return i;
}

/* The next line of a cell `width` columns wide starting at s: breaks after
 * a '/' or '_' when one lies in the last two thirds, else cuts. */
static size_t line_bytes(const char *s, size_t width)
{
    if (dwidth(s) <= width)
        return strlen(s);
    size_t max = bytes_of(s, width), cut = 0;
    for (size_t k = max; k > max / 3 && !cut; k--)
        if (s[k - 1] == '/' || s[k - 1] == '_')
            cut = k;
    return cut ? cut : max;
}

#define CMP_COLS 7

/* One table: `n` rows of which COMPARE_TOP are shown, columns sized to
 * their content; the entity column takes what is left of `width` and
 * wraps (ids are never cut), every other cell is printed whole. */
static void table(mlia_buf *b, const char *title, const compare_row **rows, uint32_t n, size_t width)
{
    uint32_t shown = n < COMPARE_TOP ? n : COMPARE_TOP;
    if (shown < n)
        mlia_buf_printf(b, "\n%s (%u, largest %u)\n", title, n, shown);
    else
        mlia_buf_printf(b, "\n%s (%u)\n", title, n);
    static const char *const head[CMP_COLS] = {"#", "Entity", "Metric", "Unit", "Baseline", "New", "Change"};
    static const bool right[CMP_COLS] = {true, false, false, false, true, true, true};
    char *cells[COMPARE_TOP][CMP_COLS];
    size_t w[CMP_COLS];
    for (int c = 0; c < CMP_COLS; c++)
        w[c] = strlen(head[c]);
    w[0] = 2;
    for (uint32_t i = 0; i < shown; i++) {
        const compare_row *r = rows[i];
        char num[3][MLIA_FMT_CAP + 4], rank[16];
        snprintf(rank, sizeof rank, "%u", i + 1);
        mlia_fmt_value(num[0], MLIA_FMT_CAP, r->base.p50, r->unit);
        mlia_fmt_value(num[1], MLIA_FMT_CAP, r->new_.p50, r->unit);
        num[2][0] = r->percent > 0 ? '+' : r->percent < 0 ? '-' : ' ';
        size_t pl = mlia_fmt_pct(num[2] + 1, MLIA_FMT_CAP, fabs(r->percent));
        snprintf(num[2] + 1 + pl, 4, " %%");
        char *label = compare_series_label(r->series);
        cells[i][0] = esc(rank);
        cells[i][1] = esc(r->entity_id);
        cells[i][2] = esc(label);
        cells[i][3] = esc(r->unit);
        for (int k = 0; k < 3; k++)
            cells[i][4 + k] = esc(num[k][0] == ' ' ? num[k] + 1 : num[k]);
        free(label);
        for (int c = 0; c < CMP_COLS; c++)
            if (c != 1 && dwidth(cells[i][c]) > w[c])
                w[c] = dwidth(cells[i][c]);
        if (dwidth(cells[i][1]) > w[1])
            w[1] = dwidth(cells[i][1]);
    }
    size_t fixed = 2 * CMP_COLS; /* two spaces before every column */
    for (int c = 0; c < CMP_COLS; c++)
        if (c != 1)
            fixed += w[c];
    if (fixed + w[1] > width)
        w[1] = width > fixed + 16 ? width - fixed : 16;
    for (int c = 0; c < CMP_COLS; c++) {
        spaces(b, 2);
        size_t hl = strlen(head[c]);
            if (right[c])
            spaces(b, w[c] - hl);
        mlia_buf_puts(b, head[c]);
        if (!right[c] && c != CMP_COLS - 1)
            spaces(b, w[c] - hl);
    }
    mlia_buf_putc(b, '\n');
    for (uint32_t i = 0; i < shown; i++) {
        const char *ent = cells[i][1];
        bool first_line = true;
        while (first_line || *ent) {
            size_t eb = line_bytes(ent, w[1]);
            for (int c = 0; c < CMP_COLS; c++) {
                spaces(b, 2);
                const char *t = c == 1 ? ent : first_line ? cells[i][c] : "";
                size_t tb = c == 1 ? eb : strlen(t), tw = c == 1 ? dwidth(ent) - dwidth(ent + eb) : dwidth(t);
                if (right[c])
                    spaces(b, w[c] - tw);
                mlia_buf_append(b, t, tb);
                if (!right[c])
                    spaces(b, w[c] - tw);
            }
            while (b->len && b->data[b->len - 1] == ' ')
                b->len--;
            mlia_buf_putc(b, '\n');
            ent += eb;
            first_line = false;
        }
        for (int c = 0; c < CMP_COLS; c++)
            free(cells[i][c]);
    }
}

static void line(mlia_buf *b, const char *label, const char *text)
{
    char *t = esc(text);
    mlia_buf_printf(b, "%-11s%s\n", label, t);
    free(t);
}

char *compare_console(const compare_inputs *in, const compare_result *r, unsigned console_width)
{
    mlia_buf b;
    mlia_buf_init(&b);
    size_t width = console_width == 0 ? COMPARE_CONSOLE_WIDTH
                   : console_width < COMPARE_CONSOLE_MIN_WIDTH ? COMPARE_CONSOLE_MIN_WIDTH
                   : console_width > COMPARE_CONSOLE_MAX_WIDTH ? COMPARE_CONSOLE_MAX_WIDTH
                                                               : console_width;
    if (in->n_base > 1 && in->base_paths) {
        mlia_buf_printf(&b, "%-11s%u runs pooled by execution\n", "Baseline:", in->n_base);
        for (uint32_t i = 0; i < in->n_base; i++)
            line(&b, "", in->base_paths[i]);
    } else {
        line(&b, "Baseline:", in->base_path);
    }
    line(&b, "New:", in->new_path);
    char *model = esc(in->new_->model_name), *method = esc(in->new_->method ? in->new_->method : "(none)");
    mlia_buf_printf(&b, "%-11s%s (method %s)", "Model:", model, method);
    if (in->base->model_name && strcmp(in->base->model_name, in->new_->model_name) != 0) {
        char *bm = esc(in->base->model_name);
        mlia_buf_printf(&b, "; baseline %s", bm);
        free(bm);
    }
    mlia_buf_putc(&b, '\n');
    free(model);
    free(method);
    const char *fp = in->new_->fingerprint.program;
    switch (in->identity) {
    case COMPARE_SAME_PROGRAM: {
        char *f = esc(fp);
        mlia_buf_printf(&b, "%-11sthe same in both runs (fingerprint %.12s)\n", "Program:", f);
        free(f);
        break;
    }
    case COMPARE_UNVERIFIED:
        mlia_buf_printf(&b, "%-11snot verified (a run has no fingerprint; see Warnings)\n", "Program:");
        break;
    default:
        mlia_buf_printf(&b, "%-11sdifferent (compared by entity id; see Warnings)\n", "Program:");
        break;
    }
    char t[MLIA_FMT_CAP];
    mlia_fmt_pct(t, sizeof t, r->threshold);
    mlia_buf_printf(&b, "%-11s%s %% (and the new P50 outside the baseline's [min, max]; at least %d samples)\n",
                    "Threshold:", t, COMPARE_MIN_SAMPLES);
    mlia_buf_printf(&b, "%-11s%u metrics of %u entities\n", "Compared:", r->n_rows, r->n_entities);
    mlia_buf_printf(&b, "%-11s%u regression%s, %u improvement%s, %u unchanged, %u inconclusive\n", "Verdicts:",
                    r->counts[COMPARE_REGRESSION], r->counts[COMPARE_REGRESSION] == 1 ? "" : "s",
                    r->counts[COMPARE_IMPROVEMENT], r->counts[COMPARE_IMPROVEMENT] == 1 ? "" : "s",
                    r->counts[COMPARE_UNCHANGED], r->counts[COMPARE_INCONCLUSIVE]);
    if (r->n_only_base || r->n_only_new)
        mlia_buf_printf(&b, "%-11s%u only in the baseline, %u only in the new run\n", "Entities:", r->n_only_base,
                        r->n_only_new);
    if (in->n_warnings) {
        mlia_buf_printf(&b, "\nWarnings (%u)\n", in->n_warnings);
        for (uint32_t i = 0; i < in->n_warnings; i++) {
            char *w = esc(in->warnings[i]);
            mlia_buf_printf(&b, "  - %s\n", w);
            free(w);
        }
    }
    const compare_row **rows = malloc((r->n_rows ? r->n_rows : 1) * sizeof *rows);
    if (!rows)
        mlia_oom((r->n_rows ? r->n_rows : 1) * sizeof *rows);
    uint32_t nr = compare_rows_of(r, COMPARE_REGRESSION, rows);
    uint32_t ni = r->counts[COMPARE_IMPROVEMENT];
    if (!nr && !ni) {
        mlia_buf_printf(&b, "\nNo change beyond %s %%\n", t);
    } else {
        if (nr)
            table(&b, "Regressions", rows, nr, width);
        else
            mlia_buf_printf(&b, "\nRegressions: none beyond %s %%\n", t);
        ni = compare_rows_of(r, COMPARE_IMPROVEMENT, rows);
        if (ni)
            table(&b, "Improvements", rows, ni, width);
        else
            mlia_buf_printf(&b, "\nImprovements: none beyond %s %%\n", t);
    }
    free(rows);
    const rr_entity *const *lists[2] = {r->only_base, r->only_new};
    uint32_t counts[2] = {r->n_only_base, r->n_only_new};
    const char *titles[2] = {"Only in the baseline", "Only in the new run"};
    for (int k = 0; k < 2; k++) {
        if (!counts[k])
            continue;
        uint32_t shown = counts[k] < COMPARE_TOP ? counts[k] : COMPARE_TOP;
        if (shown < counts[k])
            mlia_buf_printf(&b, "\n%s (%u, first %u)\n", titles[k], counts[k], shown);
        else
            mlia_buf_printf(&b, "\n%s (%u)\n", titles[k], counts[k]);
        for (uint32_t i = 0; i < shown; i++) {
            char *id = esc(lists[k][i]->id);
            mlia_buf_printf(&b, "  %s\n", id);
            free(id);
        }
    }
    return mlia_buf_take(&b);
}

/* ------------------------------------------------------------------ */
/* page                                                                 */

#define PLACEHOLDER "@@MLIA_DATA@@"

/* The metrics an entity is known by, preferred on a tie. */
static bool headline(const char *metric)
{
    return strcmp(metric, "total_cycles") == 0 || strcmp(metric, "execution_time") == 0 ||
           strcmp(metric, "inference_time") == 0;
}

/* One change for the page: the metric as people read it, the values, the
 * change in percent and "slowdown" (the same, signed so that positive is
 * worse: slower, more cycles, fewer inferences per second). */
static void write_change(mlia_jw *w, const compare_row *r, bool with_entity)
{
    mlia_jw_obj_begin(w);
    if (with_entity) {
        mlia_jw_kstr(w, "entity_id", r->entity_id);
        mlia_jw_kstr(w, "entity_kind", r->entity_kind);
        mlia_jw_kstr(w, "entity_name", r->entity_name);
    }
    char *label = compare_series_label(r->series);
    mlia_jw_kstr(w, "metric", label);
    free(label);
    mlia_jw_kstr(w, "series", r->series);
    mlia_jw_kstr(w, "unit", r->unit);
    mlia_jw_kdouble(w, "baseline", r->base.p50);
    mlia_jw_kdouble(w, "new", r->new_.p50);
    mlia_jw_kdouble(w, "percent", r->percent);
    mlia_jw_kdouble(w, "slowdown", r->higher_is_better ? -r->percent : r->percent);
    mlia_jw_kstr(w, "verdict", compare_verdict_name(r->verdict));
    mlia_jw_kstr(w, "better", r->higher_is_better ? "higher" : "lower");
    mlia_jw_obj_end(w);
}

static void copy_bytes(void *ctx, const char *bytes, size_t n)
{
    fwrite(bytes, 1, n, (FILE *)ctx);
}

int compare_write_page(const compare_inputs *in, const compare_result *r, FILE *fp, mlia_error *err)
{
    const char *tpl = mlia_page_template;
    size_t tlen = (size_t)mlia_page_template_len;
    const char *at = memmem(tpl, tlen, PLACEHOLDER, strlen(PLACEHOLDER));
    if (!at)
        return mlia_error_setf(err, NULL, "the page template has no data placeholder");
    fwrite(tpl, 1, (size_t)(at - tpl), fp);
    mlia_buf out;
    mlia_buf_init(&out);
    mlia_buf_puts(&out, "{\"compare\":");
    mlia_jw w;
    mlia_jw_init_buf(&w, &out, false);
    w.html_safe = true;
    mlia_jw_obj_begin(&w);
    mlia_jw_kdouble(&w, "threshold_percent", r->threshold);
    mlia_jw_kstr(&w, "baseline", in->base_path);
    mlia_jw_kstr(&w, "new", in->new_path);
    write_summary(&w, r);
    /* per entity: its most telling row (a regression or improvement before
     * anything else, then the largest |percent|), for the overlay */
    mlia_jw_key(&w, "entities");
    mlia_jw_obj_begin(&w);
    for (uint32_t i = 0; i < r->n_rows;) {
        uint32_t j = i, best = UINT32_MAX;
        for (; j < r->n_rows && strcmp(r->rows[j].entity_id, r->rows[i].entity_id) == 0; j++) {
            const compare_row *x = &r->rows[j];
            if (!x->has_percent)
                continue;
            if (best == UINT32_MAX) {
                best = j;
                continue;
            }
            const compare_row *y = &r->rows[best];
            bool xc = x->verdict == COMPARE_REGRESSION || x->verdict == COMPARE_IMPROVEMENT;
            bool yc = y->verdict == COMPARE_REGRESSION || y->verdict == COMPARE_IMPROVEMENT;
            double dx = fabs(x->percent), dy = fabs(y->percent);
            if ((xc && !yc) || (xc == yc && (dx > dy || (dx == dy && headline(x->metric) && !headline(y->metric)))))
                best = j;
        }
        if (best != UINT32_MAX) {
            mlia_jw_key(&w, r->rows[best].entity_id);
            write_change(&w, &r->rows[best], false);
        }
        i = j;
    }
    mlia_jw_obj_end(&w);
    /* every regression (largest first), then every improvement: the panel */
    const compare_row **rows = malloc((r->n_rows ? r->n_rows : 1) * sizeof *rows);
    if (!rows)
        mlia_oom((r->n_rows ? r->n_rows : 1) * sizeof *rows);
    mlia_jw_key(&w, "changes");
    mlia_jw_arr_begin(&w);
    const char *focus = NULL;
    for (int k = 0; k < 2; k++) {
        uint32_t n = compare_rows_of(r, k == 0 ? COMPARE_REGRESSION : COMPARE_IMPROVEMENT, rows);
        if (k == 0 && n)
            focus = rows[0]->entity_id;
        for (uint32_t i = 0; i < n; i++)
            write_change(&w, rows[i], true);
    }
    mlia_jw_arr_end(&w);
    free(rows);
    mlia_jw_kstr(&w, "focus", focus); /* the largest regression, where the page opens */
    mlia_jw_obj_end(&w);
    mlia_buf_puts(&out, ",\"baseline_page\":{");
    fwrite(out.data, 1, out.len, fp);
    mlia_buf_free(&out);
    /* the baseline's members and closing brace, then the new run's members
     * and closing brace, which closes the whole object */
    if (result_page_data(in->base_page_fd, in->base_page_path, copy_bytes, fp, err))
        return -1;
    fputc(',', fp);
    if (result_page_data(in->new_page_fd, in->new_page_path, copy_bytes, fp, err))
        return -1;
    size_t after = (size_t)(at - tpl) + strlen(PLACEHOLDER);
    fwrite(tpl + after, 1, tlen - after, fp);
    return 0;
}
