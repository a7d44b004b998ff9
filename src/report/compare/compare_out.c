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

static void verdict_counts(mlia_jw *w, const uint32_t *c)
{
    mlia_jw_kuint(w, "regressions", c[COMPARE_REGRESSION]);
    mlia_jw_kuint(w, "likely_regressions", c[COMPARE_LIKELY_REGRESSION]);
    mlia_jw_kuint(w, "improvements", c[COMPARE_IMPROVEMENT]);
    mlia_jw_kuint(w, "likely_improvements", c[COMPARE_LIKELY_IMPROVEMENT]);
    mlia_jw_kuint(w, "unchanged", c[COMPARE_UNCHANGED]);
    mlia_jw_kuint(w, "inconclusive", c[COMPARE_INCONCLUSIVE]);
}

/* Counts are entities (the model not included); "metrics" counts series. */
static void write_summary(mlia_jw *w, const compare_result *r)
{
    mlia_jw_key(w, "summary");
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "entities_compared", r->n_ents);
    verdict_counts(w, r->ent_counts);
    mlia_jw_kstr(w, "model", compare_verdict_name(r->model_verdict));
    mlia_jw_kuint(w, "only_in_baseline", r->n_only_base);
    mlia_jw_kuint(w, "only_in_new", r->n_only_new);
    mlia_jw_kobj_begin(w, "metrics");
    mlia_jw_kuint(w, "compared", r->n_rows);
    verdict_counts(w, r->counts);
    mlia_jw_obj_end(w);
    mlia_jw_obj_end(w);
}

uint32_t compare_gate_count(const compare_result *r, bool tested_only)
{
    uint32_t n = r->ent_counts[COMPARE_REGRESSION] + (tested_only ? 0 : r->ent_counts[COMPARE_LIKELY_REGRESSION]);
    if (r->model_verdict == COMPARE_REGRESSION || (!tested_only && r->model_verdict == COMPARE_LIKELY_REGRESSION))
        n++;
    return n;
}

/* "1 execution per side: changes beyond 5 % shown, not tested for noise" */
static char *samples_note(const compare_result *r)
{
    mlia_buf b;
    mlia_buf_init(&b);
    char t[MLIA_FMT_CAP];
    mlia_fmt_pct(t, sizeof t, r->threshold);
    if (r->base_samples == r->new_samples)
        mlia_buf_printf(&b, "%u execution%s per side", r->base_samples, r->base_samples == 1 ? "" : "s");
    else
        mlia_buf_printf(&b, "%u execution%s in the baseline, %u in the new run", r->base_samples,
                        r->base_samples == 1 ? "" : "s", r->new_samples);
    if (r->tested)
        mlia_buf_printf(&b, ": changes beyond %s %% tested against the baseline's [min, max]", t);
    else
        mlia_buf_printf(&b, ": changes beyond %s %% shown, not tested for noise (that takes %d per side)", t,
                        COMPARE_MIN_SAMPLES);
    return mlia_buf_take(&b);
}

static void write_entity_row(mlia_jw *w, const compare_entity *e)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "id", e->id);
    mlia_jw_kstr(w, "kind", e->kind);
    mlia_jw_kstr(w, "name", e->name);
    mlia_jw_kstr(w, "location", e->location);
    mlia_jw_kstr(w, "verdict", compare_verdict_name(e->verdict));
    mlia_jw_kstr(w, "series", e->row->series);
    mlia_jw_kuint(w, "metrics", e->n_rows);
    mlia_jw_obj_end(w);
}

void compare_write_json(const compare_inputs *in, const compare_result *r, mlia_jw *w)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "schema", "mlia.compare/2");
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
    mlia_jw_kobj_begin(w, "settings");
    mlia_jw_karr_begin(w, "differences");
    for (uint32_t i = 0; i < in->n_settings; i++) {
        const compare_setting *st = &in->settings[i];
        mlia_jw_obj_begin(w);
        mlia_jw_kstr(w, "setting", st->name);
        mlia_jw_kstr(w, "baseline_run", st->run);
        mlia_jw_kstr(w, "baseline", st->baseline);
        mlia_jw_kstr(w, "new", st->new_);
        mlia_jw_kbool(w, "blocking", st->blocking);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
    mlia_jw_obj_end(w);
    mlia_jw_kobj_begin(w, "samples");
    mlia_jw_kuint(w, "baseline", r->base_samples);
    mlia_jw_kuint(w, "new", r->new_samples);
    mlia_jw_kbool(w, "tested", r->tested);
    char *note = samples_note(r);
    mlia_jw_kstr(w, "note", note);
    free(note);
    mlia_jw_obj_end(w);
    write_summary(w, r);
    mlia_jw_kobj_begin(w, "gate");
    mlia_jw_kstr(w, "counts", in->tested_only ? "regressions" : "regressions and likely regressions");
    mlia_jw_kuint(w, "failing", compare_gate_count(r, in->tested_only));
    mlia_jw_obj_end(w);
    /* the model's lines, then the entities that changed, ranked */
    mlia_jw_karr_begin(w, "headline");
    for (int h = 0; h < 3; h++)
        if (r->headline[h])
            write_row(w, r->headline[h]);
    mlia_jw_arr_end(w);
    const compare_entity **ents = malloc((r->n_ents ? r->n_ents : 1) * sizeof *ents);
    if (!ents)
        mlia_oom((r->n_ents ? r->n_ents : 1) * sizeof *ents);
    mlia_jw_karr_begin(w, "changed_entities");
    for (int k = 0; k < 2; k++) {
        uint32_t n = compare_entities_of(r, k == 0, ents);
        for (uint32_t i = 0; i < n; i++)
            write_entity_row(w, ents[i]);
    }
    mlia_jw_arr_end(w);
    free(ents);
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

uint32_t compare_rows_of(const compare_result *r, compare_verdict v, const compare_row **out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_rows; i++)
        if (r->rows[i].verdict == v)
            out[n++] = &r->rows[i];
    qsort(out, n, sizeof *out, compare_rank_rows);
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

/* The one percentage format of a change: "+26.15 %", "-10 %", "0 %". */
static void fmt_change(char *out, size_t cap, const compare_row *r)
{
    if (!r->has_percent) {
        snprintf(out, cap, "%s", r->has_delta && r->delta == 0 ? "0 %" : "n/a");
        return;
    }
    char t[MLIA_FMT_CAP];
    mlia_fmt_pct(t, sizeof t, fabs(r->percent));
    snprintf(out, cap, "%s%s %%", r->percent > 0 ? "+" : r->percent < 0 ? "-" : "", t);
}

static void fmt_delta(char *out, size_t cap, const compare_row *r)
{
    if (!r->has_delta) {
        snprintf(out, cap, "n/a");
        return;
    }
    char t[MLIA_FMT_CAP];
    mlia_fmt_value(t, sizeof t, fabs(r->delta), r->unit);
    snprintf(out, cap, "%s%s", r->delta > 0 ? "+" : r->delta < 0 ? "-" : "", t);
}

static void fmt_side(char *out, size_t cap, const compare_side *s, const char *unit)
{
    if (!s->present)
        snprintf(out, cap, "n/a");
    else
        mlia_fmt_value(out, cap, s->p50, unit);
}

/* "1 sample each", "5 and 3 samples" */
static void fmt_samples(char *out, size_t cap, const compare_row *r)
{
    if (r->base.samples == r->new_.samples)
        snprintf(out, cap, "%u sample%s each", r->base.samples, r->base.samples == 1 ? "" : "s");
    else
        snprintf(out, cap, "%u and %u samples", r->base.samples, r->new_.samples);
}

/* "likely, 1 sample each", "tested, 5 samples each" */
static void fmt_basis(char *out, size_t cap, const compare_row *r)
{
    bool likely = r->verdict == COMPARE_LIKELY_REGRESSION || r->verdict == COMPARE_LIKELY_IMPROVEMENT;
    char n[64];
    fmt_samples(n, sizeof n, r);
    snprintf(out, cap, "%s, %s", likely ? "likely" : "tested", n);
}

#define MAX_COLS 10

/* A table: `n_left` aligned cells (right-aligned when right[c]) then the
 * cells that hold names. Names are never cut: without a terminal (width 0)
 * nothing wraps and every row is one line; on a terminal a row wider than
 * `width` continues on the next line, indented, between two name cells,
 * never inside one. Cells are escaped by the caller and freed here. */
typedef struct ctable {
    int n_cols, n_left;
    bool wrap_first;          /* the first name cell may go to the next line too */
    const char *head[MAX_COLS];
    bool right[MAX_COLS];
    uint32_t n_rows;
    char *cells[COMPARE_TOP][MAX_COLS];
} ctable;

static void ctable_print(mlia_buf *b, ctable *t, size_t width)
{
    size_t w[MAX_COLS];
    for (int c = 0; c < t->n_cols; c++) {
        w[c] = dwidth(t->head[c]);
        for (uint32_t i = 0; i < t->n_rows; i++)
            if (dwidth(t->cells[i][c]) > w[c])
                w[c] = dwidth(t->cells[i][c]);
    }
    size_t total = 0, left = 0;
    for (int c = 0; c < t->n_cols; c++)
        total += 2 + w[c];
    for (int c = 0; c < t->n_left; c++)
        left += 2 + w[c];
    bool wrap = width && total > width;
    for (uint32_t i = 0; i <= t->n_rows; i++) {
        size_t at = 0;
        /* continuation lines of this row: under the names when its widest
         * name fits there, else near the margin (one indent per row) */
        size_t widest = 0;
        for (int c = t->n_left; c < t->n_cols; c++) {
            size_t cw = dwidth(i == 0 ? t->head[c] : t->cells[i - 1][c]);
            if (cw > widest)
                widest = cw;
        }
        size_t ind = left + widest <= width ? left : 6;
        for (int c = 0; c < t->n_cols; c++) {
            const char *cell = i == 0 ? t->head[c] : t->cells[i - 1][c];
            size_t cw = dwidth(cell);
            if (wrap && c >= t->n_left) {
                /* names: unaligned, two spaces apart, wrapped between cells */
                if ((c > t->n_left || t->wrap_first) && at + 2 + cw > width) {
                    while (b->len && b->data[b->len - 1] == ' ')
                        b->len--;
                    mlia_buf_putc(b, '\n');
                    spaces(b, ind);
                    at = ind;
                } else {
                    spaces(b, 2);
                    at += 2;
                }
                mlia_buf_puts(b, cell);
                at += cw;
                continue;
            }
            spaces(b, 2);
            if (t->right[c])
                spaces(b, w[c] - cw);
            mlia_buf_puts(b, cell);
            if (!t->right[c])
                spaces(b, w[c] - cw);
            at += 2 + w[c];
        }
        while (b->len && b->data[b->len - 1] == ' ')
            b->len--;
        mlia_buf_putc(b, '\n');
    }
    for (uint32_t i = 0; i < t->n_rows; i++)
        for (int c = 0; c < t->n_cols; c++)
            free(t->cells[i][c]);
}

/* The model's lines first: inference time, inferences/s, total cycles. */
static void headline_table(mlia_buf *b, const compare_result *r, size_t width)
{
    ctable t;
    memset(&t, 0, sizeof t);
    static const char *const head[] = {"Metric", "Unit", "Baseline", "New", "Delta", "Change", "Verdict"};
    static const bool right[] = {false, false, true, true, true, true, false};
    t.n_cols = 7;
    t.n_left = 6; /* the verdict wraps under the numbers on a narrow terminal */
    t.wrap_first = true;
    memcpy(t.head, head, sizeof head);
    memcpy(t.right, right, sizeof right);
    for (int h = 0; h < 3; h++) {
        const compare_row *x = r->headline[h];
        if (!x)
            continue;
        char num[4][MLIA_FMT_CAP + 8], verdict[192], n[64];
        fmt_side(num[0], sizeof num[0], &x->base, x->unit);
        fmt_side(num[1], sizeof num[1], &x->new_, x->unit);
        fmt_delta(num[2], sizeof num[2], x);
        fmt_change(num[3], sizeof num[3], x);
        fmt_samples(n, sizeof n, x);
        if (x->verdict == COMPARE_INCONCLUSIVE && x->reason)
            snprintf(verdict, sizeof verdict, "inconclusive (%s)", x->reason);
        else
            snprintf(verdict, sizeof verdict, "%s (%s)", compare_verdict_words(x->verdict), n);
        char **c = t.cells[t.n_rows++];
        c[0] = esc(x->metric);
        c[1] = esc(x->unit);
        c[2] = esc(num[0]);
        c[3] = esc(num[1]);
        c[4] = esc(num[2]);
        c[5] = esc(num[3]);
        c[6] = esc(verdict);
    }
    if (!t.n_rows)
        return;
    mlia_buf_puts(b, "\nModel\n");
    ctable_print(b, &t, width);
}

/* One table of entities (regressions or improvements), COMPARE_TOP shown,
 * each with its worst metric: numbers first, names last (a grep for an id
 * finds the whole row). */
static void entity_table(mlia_buf *b, const char *title, const compare_entity **ents, uint32_t n, size_t width)
{
    uint32_t shown = n < COMPARE_TOP ? n : COMPARE_TOP, likely = 0;
    for (uint32_t i = 0; i < n; i++)
        likely += ents[i]->verdict == COMPARE_LIKELY_REGRESSION || ents[i]->verdict == COMPARE_LIKELY_IMPROVEMENT;
    mlia_buf_printf(b, "\n%s (%u entit%s", title, n, n == 1 ? "y" : "ies");
    if (likely)
        mlia_buf_printf(b, ", %u likely", likely);
    if (shown < n)
        mlia_buf_printf(b, "; largest %u", shown);
    mlia_buf_puts(b, ")\n");
    ctable t;
    memset(&t, 0, sizeof t);
    static const char *const head[] = {"#",   "Change",  "Delta",  "Unit",   "Baseline",
                                       "New", "Verdict", "Entity", "Metric", "Name"};
    static const bool right[] = {true, true, true, false, true, true, false, false, false, false};
    t.n_cols = 10;
    t.n_left = 7;
    memcpy(t.head, head, sizeof head);
    memcpy(t.right, right, sizeof right);
    for (uint32_t i = 0; i < shown; i++) {
        const compare_entity *e = ents[i];
        const compare_row *x = e->row;
        char num[4][MLIA_FMT_CAP + 8], rank[16], basis[96];
        snprintf(rank, sizeof rank, "%u", i + 1);
        fmt_change(num[0], sizeof num[0], x);
        fmt_delta(num[1], sizeof num[1], x);
        fmt_side(num[2], sizeof num[2], &x->base, x->unit);
        fmt_side(num[3], sizeof num[3], &x->new_, x->unit);
        fmt_basis(basis, sizeof basis, x);
        char *label = compare_series_label(x->series);
        mlia_buf where;
        mlia_buf_init(&where);
        mlia_buf_puts(&where, e->name ? e->name : "");
        if (e->location)
            mlia_buf_printf(&where, "%sat %s", e->name ? " " : "", e->location);
        char **c = t.cells[t.n_rows++];
        c[0] = esc(rank);
        c[1] = esc(num[0]);
        c[2] = esc(num[1]);
        c[3] = esc(x->unit);
        c[4] = esc(num[2]);
        c[5] = esc(num[3]);
        c[6] = esc(basis);
        c[7] = esc(e->id);
        c[8] = esc(label);
        c[9] = esc(where.data ? where.data : "");
        mlia_buf_free(&where);
        free(label);
    }
    ctable_print(b, &t, width);
}

static void line(mlia_buf *b, const char *label, const char *text)
{
    char *t = esc(text);
    mlia_buf_printf(b, "%-11s%s\n", label, t);
    free(t);
}

/* "1 likely regression, 27 unchanged": the verdicts that occur, in order. */
static void verdict_line(mlia_buf *b, const uint32_t *c)
{
    static const compare_verdict order[] = {COMPARE_REGRESSION,  COMPARE_LIKELY_REGRESSION,
                                            COMPARE_IMPROVEMENT, COMPARE_LIKELY_IMPROVEMENT,
                                            COMPARE_UNCHANGED,   COMPARE_INCONCLUSIVE};
    bool any = false;
    for (size_t k = 0; k < sizeof order / sizeof *order; k++) {
        uint32_t n = c[order[k]];
        if (!n)
            continue;
        bool plural = n != 1 && order[k] != COMPARE_UNCHANGED && order[k] != COMPARE_INCONCLUSIVE;
        mlia_buf_printf(b, "%s%u %s%s", any ? ", " : "", n, compare_verdict_words(order[k]), plural ? "s" : "");
        any = true;
    }
    if (!any)
        mlia_buf_puts(b, "nothing compared");
}

static void settings_line(mlia_buf *b, const compare_inputs *in)
{
    if (in->n_settings) {
        mlia_buf_printf(b, "%-11sDIFFERENT: ", "Settings:");
        for (uint32_t i = 0; i < in->n_settings; i++) {
            char *bt = esc(in->settings[i].baseline), *nt = esc(in->settings[i].new_);
            mlia_buf_printf(b, "%s%s %s (baseline %s)", i ? "; " : "", in->settings[i].name, nt, bt);
            free(bt);
            free(nt);
        }
        mlia_buf_puts(b, "; see Warnings\n");
        return;
    }
    const char *st[COMPARE_N_SETTINGS];
    mlia_arena a;
    mlia_arena_init(&a);
    compare_settings_text(in->new_, st, &a);
    char *clock = esc(st[0]), *warm = esc(st[1]), *ver = esc(st[4]);
    mlia_buf_printf(b, "%-11sthe same in both runs (clock %s, warm-up %s, mlia %s)\n", "Settings:", clock, warm, ver);
    free(clock);
    free(warm);
    free(ver);
    mlia_arena_free(&a);
}

char *compare_console(const compare_inputs *in, const compare_result *r, unsigned console_width)
{
    mlia_buf b;
    mlia_buf_init(&b);
    /* 0: not a terminal, nothing wraps */
    size_t width = console_width == 0 ? 0
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
    settings_line(&b, in);
    char t[MLIA_FMT_CAP];
    mlia_fmt_pct(t, sizeof t, r->threshold);
    mlia_buf_printf(&b, "%-11s%s %% (and the new P50 outside the baseline's [min, max])\n", "Threshold:", t);
    char *note = samples_note(r);
    mlia_buf_printf(&b, "%-11s%s\n", "Samples:", note);
    free(note);
    mlia_buf_printf(&b, "%-11s", "Verdicts:");
    verdict_line(&b, r->ent_counts);
    mlia_buf_printf(&b, " (of %u entit%s; %u metric%s in compare.json)\n", r->n_ents, r->n_ents == 1 ? "y" : "ies",
                    r->n_rows, r->n_rows == 1 ? "" : "s");
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
    headline_table(&b, r, width);
    const compare_entity **ents = malloc((r->n_ents ? r->n_ents : 1) * sizeof *ents);
    if (!ents)
        mlia_oom((r->n_ents ? r->n_ents : 1) * sizeof *ents);
    uint32_t nr = compare_entities_of(r, true, ents);
    uint32_t ni = r->ent_counts[COMPARE_IMPROVEMENT] + r->ent_counts[COMPARE_LIKELY_IMPROVEMENT];
    bool model_changed = compare_is_regression(r->model_verdict) || compare_is_improvement(r->model_verdict);
    if (!nr && !ni) {
        mlia_buf_printf(&b, "\n%s beyond %s %%%s\n", model_changed ? "No entity changed" : "No change", t,
                        r->tested ? "" : " (not tested for noise)");
    } else {
        if (nr)
            entity_table(&b, "Regressions", ents, nr, width);
        else
            mlia_buf_printf(&b, "\nRegressions: none beyond %s %%\n", t);
        ni = compare_entities_of(r, false, ents);
        if (ni)
            entity_table(&b, "Improvements", ents, ni, width);
        else
            mlia_buf_printf(&b, "\nImprovements: none beyond %s %%\n", t);
    }
    free(ents);
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

/* Values of one change (nulls where a side has none). */
static void write_change_values(mlia_jw *w, const compare_row *r)
{
    if (r->base.present)
        mlia_jw_kdouble(w, "baseline", r->base.p50);
    else
        mlia_jw_knull(w, "baseline");
    if (r->new_.present)
        mlia_jw_kdouble(w, "new", r->new_.p50);
    else
        mlia_jw_knull(w, "new");
    if (r->has_delta)
        mlia_jw_kdouble(w, "delta", r->delta);
    else
        mlia_jw_knull(w, "delta");
    if (r->has_percent) {
        mlia_jw_kdouble(w, "percent", r->percent);
        mlia_jw_kdouble(w, "slowdown", r->higher_is_better ? -r->percent : r->percent);
    } else {
        mlia_jw_knull(w, "percent");
        mlia_jw_knull(w, "slowdown");
    }
    mlia_jw_kuint(w, "baseline_samples", r->base.samples);
    mlia_jw_kuint(w, "new_samples", r->new_.samples);
    mlia_jw_kstr(w, "verdict", compare_verdict_name(r->verdict));
    mlia_jw_kstr(w, "better", r->higher_is_better ? "higher" : "lower");
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
    write_change_values(w, r);
    mlia_jw_obj_end(w);
}

/* A changed entity for the panel: its name, location and worst row. */
static void write_change_of(mlia_jw *w, const compare_entity *e)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kstr(w, "entity_id", e->id);
    mlia_jw_kstr(w, "entity_kind", e->kind);
    mlia_jw_kstr(w, "entity_name", e->name);
    mlia_jw_kstr(w, "location", e->location);
    char *label = compare_series_label(e->row->series);
    mlia_jw_kstr(w, "metric", label);
    free(label);
    mlia_jw_kstr(w, "series", e->row->series);
    mlia_jw_kstr(w, "unit", e->row->unit);
    write_change_values(w, e->row);
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
    mlia_jw_kuint(&w, "min_samples", COMPARE_MIN_SAMPLES);
    char *note = samples_note(r);
    mlia_jw_kstr(&w, "samples_note", note);
    free(note);
    mlia_jw_kbool(&w, "tested", r->tested);
    mlia_jw_key(&w, "settings");
    mlia_jw_arr_begin(&w);
    for (uint32_t i = 0; i < in->n_settings; i++) {
        mlia_jw_obj_begin(&w);
        mlia_jw_kstr(&w, "setting", in->settings[i].name);
        mlia_jw_kstr(&w, "baseline", in->settings[i].baseline);
        mlia_jw_kstr(&w, "new", in->settings[i].new_);
        mlia_jw_kbool(&w, "blocking", in->settings[i].blocking);
        mlia_jw_obj_end(&w);
    }
    mlia_jw_arr_end(&w);
    /* the model's lines: what the page opens on */
    mlia_jw_key(&w, "headline");
    mlia_jw_arr_begin(&w);
    for (int h = 0; h < 3; h++)
        if (r->headline[h])
            write_change(&w, r->headline[h], true);
    mlia_jw_arr_end(&w);
    /* per entity: the row that gave its verdict, for the overlay */
    mlia_jw_key(&w, "entities");
    mlia_jw_obj_begin(&w);
    for (uint32_t i = 0; i < r->n_ents; i++) {
        if (!r->ents[i].row->has_percent)
            continue;
        mlia_jw_key(&w, r->ents[i].id);
        write_change(&w, r->ents[i].row, false);
    }
    mlia_jw_obj_end(&w);
    /* every changed entity, regressions (tested or likely) first, ranked as
     * the console ranks them: the panel */
    const compare_entity **ents = malloc((r->n_ents ? r->n_ents : 1) * sizeof *ents);
    if (!ents)
        mlia_oom((r->n_ents ? r->n_ents : 1) * sizeof *ents);
    mlia_jw_key(&w, "changes");
    mlia_jw_arr_begin(&w);
    const char *focus = NULL;
    for (int k = 0; k < 2; k++) {
        uint32_t n = compare_entities_of(r, k == 0, ents);
        if (k == 0 && n)
            focus = ents[0]->id;
        for (uint32_t i = 0; i < n; i++)
            write_change_of(&w, ents[i]);
    }
    mlia_jw_arr_end(&w);
    free(ents);
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
