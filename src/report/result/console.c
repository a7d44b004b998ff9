/*
 * console.c - the console summary (see console.h).
 *
 * Layout decisions:
 * - A header block of "Label:  value" lines with the value column at 21, so
 *   that wrapped values (long "unavailable" reasons) indent under the value.
 * - Two tables whose column widths add up to exactly MLIA_CONSOLE_WIDTH; a
 *   cell wider than its column is cut and ends with "..." (ASCII only: the
 *   column math counts bytes); node names are cut in the middle instead
 *   ("aten_max_p...ices_default_1") because they differ by their suffix.
 * - Rankings sort by P50 descending; ties keep the result's entity order,
 *   which is deterministic, so the summary is deterministic too.
 * - The summary reads metrics directly from the result structures (no
 *   helper of result.c is needed), matching by metric name and the
 *   qualifiers `statistic` and `attribution`.
 * Numbers: milliseconds with 3 decimals, cycles as integers, percentages
 * with up to 2 decimals.
 */
#include "report/result/console.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/oom.h"
#include "core/str.h"

#define VALUE_COL 21

static const char *qualifier(const mlia_metric *m, const char *key)
{
    for (uint8_t i = 0; i < m->n_qualifiers && i < MLIA_MAX_QUALIFIERS; i++)
        if (m->qualifiers[i].key && strcmp(m->qualifiers[i].key, key) == 0)
            return m->qualifiers[i].value;
    return NULL;
}

static bool streq(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* First metric called `name` whose statistic qualifier is `statistic` (for
 * "p50", a metric without statistic qualifier also matches: the
 * single-execution shape) and, when attribution is non-NULL, whose
 * attribution qualifier equals it. */
static const mlia_metric *find_metric(const mlia_metric *ms, uint32_t n, const char *name,
                                      const char *statistic, const char *attribution)
{
    for (uint32_t pass = 0; pass < 2; pass++) {
        for (uint32_t i = 0; i < n; i++) {
            const mlia_metric *m = &ms[i];
            if (!streq(m->name, name))
                continue;
            const char *st = qualifier(m, "statistic");
            if (pass == 0 ? !streq(st, statistic) : (st != NULL || !streq(statistic, "p50")))
                continue;
            if (attribution && !streq(qualifier(m, "attribution"), attribution))
                continue;
            return m;
        }
    }
    return NULL;
}

static const mlia_metric *model_metric(const mlia_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_metrics; i++)
        if (streq(r->metrics[i].name, name))
            return &r->metrics[i];
    return NULL;
}

static bool numeric(const mlia_metric *m)
{
    return m && m->type != MLIA_VALUE_UNAVAILABLE;
}

static double value_of(const mlia_metric *m)
{
    return m->type == MLIA_VALUE_UINT ? (double)m->u : m->d;
}

/* Milliseconds in at most 9 characters. */
static void fmt_ms(char *out, size_t n, const mlia_metric *m)
{
    if (!numeric(m)) {
        snprintf(out, n, "-");
        return;
    }
    double v = value_of(m);
    static const char *const fmts[] = {"%.3f", "%.1f", "%.0f", "%.3g"};
    for (size_t i = 0; i < sizeof fmts / sizeof fmts[0]; i++) {
        snprintf(out, n, fmts[i], v);
        if (strlen(out) <= 9)
            return;
    }
}

static void fmt_cycles(char *out, size_t n, const mlia_metric *m)
{
    if (!numeric(m))
        snprintf(out, n, "-");
    else if (m->type == MLIA_VALUE_UINT)
        snprintf(out, n, "%llu", (unsigned long long)m->u);
    else
        snprintf(out, n, "%.0f", m->d);
}

/* Percentages: shortest of %.2f without trailing zeros ("100", "66.67"). */
static void fmt_pct(char *out, size_t n, double v)
{
    snprintf(out, n, "%.2f", v);
    char *dot = strchr(out, '.');
    if (dot) {
        char *end = out + strlen(out);
        while (end > dot + 1 && end[-1] == '0')
            *--end = 0;
        if (end == dot + 1)
            *dot = 0;
    }
}

/* Appends s with control bytes replaced; with ascii_only also non-ASCII. */
static void put_clean(mlia_buf *b, const char *s, size_t len, bool ascii_only)
{
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f || (ascii_only && c >= 0x80))
            c = '?';
        mlia_buf_putc(b, (char)c);
    }
}

/* A table cell: text cut to width (ending "..."), padded to width, left or
 * right aligned. */
static void put_cell(mlia_buf *b, const char *text, size_t width, bool right)
{
    if (!text)
        text = "";
    size_t len = strlen(text);
    if (len > width) {
        put_clean(b, text, width > 3 ? width - 3 : 0, true);
        mlia_buf_puts(b, width > 3 ? "..." : "");
        return;
    }
    if (right)
        for (size_t i = len; i < width; i++)
            mlia_buf_putc(b, ' ');
    put_clean(b, text, len, true);
    if (!right)
        for (size_t i = len; i < width; i++)
            mlia_buf_putc(b, ' ');
}

/* Like put_cell (left aligned) but cuts the middle, keeping the end: node
 * names differ by their suffix ("..._1", "..._2"). */
static void put_cell_mid(mlia_buf *b, const char *text, size_t width)
{
    size_t len = text ? strlen(text) : 0;
    if (len <= width || width < 8) {
        put_cell(b, text, width, false);
        return;
    }
    size_t tail = (width - 3) / 2, head = width - 3 - tail;
    put_clean(b, text, head, true);
    mlia_buf_puts(b, "...");
    put_clean(b, text + len - tail, tail, true);
}

static void trim_trailing_spaces(mlia_buf *b)
{
    while (b->len && b->data[b->len - 1] == ' ')
        b->len--;
}

/* Writes text wrapped at MLIA_CONSOLE_WIDTH: the first line continues the
 * current line at column `first_col`, later lines start with `indent`
 * spaces. Breaks at spaces; a word longer than a line is cut hard. */
static void put_wrapped(mlia_buf *b, const char *text, size_t first_col, size_t indent)
{
    size_t col = first_col;
    const char *p = text ? text : "";
    bool line_empty = true;
    while (*p) {
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        size_t wlen = strcspn(p, " ");
        size_t need = wlen + (line_empty ? 0 : 1);
        if (!line_empty && col + need > MLIA_CONSOLE_WIDTH) {
            mlia_buf_putc(b, '\n');
            for (size_t i = 0; i < indent; i++)
                mlia_buf_putc(b, ' ');
            col = indent;
            line_empty = true;
            continue;
        }
        if (!line_empty) {
            mlia_buf_putc(b, ' ');
            col++;
        }
        size_t room = MLIA_CONSOLE_WIDTH > col ? MLIA_CONSOLE_WIDTH - col : 1;
        size_t take = wlen <= room ? wlen : room;
        put_clean(b, p, take, false);
        col += take;
        p += take;
        line_empty = false;
        if (take < wlen) {
            /* The rest of a long word goes on the next line. */
            mlia_buf_putc(b, '\n');
            for (size_t i = 0; i < indent; i++)
                mlia_buf_putc(b, ' ');
            col = indent;
            line_empty = true;
        }
    }
    mlia_buf_putc(b, '\n');
}

static void put_label(mlia_buf *b, const char *label)
{
    size_t n = strlen(label);
    mlia_buf_puts(b, label);
    for (size_t i = n; i < VALUE_COL; i++)
        mlia_buf_putc(b, ' ');
}

static void put_field(mlia_buf *b, const char *label, const char *value)
{
    put_label(b, label);
    put_wrapped(b, value, VALUE_COL, VALUE_COL);
}

/* Entity with the first execution_time statistics of a wrapper event named
 * name (the Method::execute breakdown), or NULL. */
static const mlia_entity *entity_named(const mlia_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (e && streq(e->name, name) &&
            find_metric(e->metrics, e->n_metrics, "execution_time", "p50", NULL))
            return e;
    }
    return NULL;
}

static void put_inference(mlia_buf *b, const mlia_result *r)
{
    const mlia_metric *inf = model_metric(r, "inference_time");
    const mlia_entity *exec = entity_named(r, "Method::execute");
    const mlia_metric *p50 = NULL, *mn = NULL, *mx = NULL;
    if (exec) {
        p50 = find_metric(exec->metrics, exec->n_metrics, "execution_time", "p50", NULL);
        const char *a = qualifier(p50, "attribution");
        mn = find_metric(exec->metrics, exec->n_metrics, "execution_time", "min", a);
        mx = find_metric(exec->metrics, exec->n_metrics, "execution_time", "max", a);
    }
    char line[256], v[32], vmin[32], vmax[32];
    if (numeric(inf)) {
        fmt_ms(v, sizeof v, inf);
        if (numeric(mn) && numeric(mx)) {
            fmt_ms(vmin, sizeof vmin, mn);
            fmt_ms(vmax, sizeof vmax, mx);
            snprintf(line, sizeof line, "P50 %s ms, min %s ms, max %s ms", v, vmin, vmax);
        } else {
            snprintf(line, sizeof line, "P50 %s ms", v);
        }
        if (inf->samples)
            snprintf(line + strlen(line), sizeof line - strlen(line), " (%u sample%s)",
                     inf->samples, inf->samples == 1 ? "" : "s");
        put_field(b, "Inference time:", line);
    } else if (inf && inf->reason) {
        mlia_buf_puts(b, "Inference time:");
        for (size_t i = strlen("Inference time:"); i < VALUE_COL; i++)
            mlia_buf_putc(b, ' ');
        mlia_buf_puts(b, "unavailable: ");
        put_wrapped(b, inf->reason, VALUE_COL + strlen("unavailable: "), VALUE_COL);
    } else {
        put_field(b, "Inference time:", "unavailable");
    }
    const mlia_metric *ips = model_metric(r, "inferences_per_second");
    if (numeric(ips)) {
        snprintf(v, sizeof v, "%.2f", value_of(ips));
        put_field(b, "Inferences/second:", v);
    }
}

static void put_unavailable(mlia_buf *b, const char *label, const char *reason)
{
    put_label(b, label);
    mlia_buf_puts(b, "unavailable: ");
    put_wrapped(b, reason ? reason : "no reason given", VALUE_COL + strlen("unavailable: "),
                VALUE_COL);
}

static void put_nx(mlia_buf *b, const mlia_result *r)
{
    const mlia_metric *total = model_metric(r, "total_cycles");
    const mlia_metric *compute = model_metric(r, "compute_cycles");
    const mlia_metric *util = model_metric(r, "target_utilization");
    char line[256], v[48], pct[32];
    if (!numeric(total)) {
        put_unavailable(b, "NX cycles:", total ? total->reason : "not analysed");
    } else {
        fmt_cycles(v, sizeof v, total);
        snprintf(line, sizeof line, "%s", v);
        if (total->samples > 1)
            snprintf(line + strlen(line), sizeof line - strlen(line), " (P50 of %u executions)",
                     total->samples);
        put_field(b, "NX total cycles:", line);
        if (numeric(compute)) {
            fmt_cycles(v, sizeof v, compute);
            snprintf(line, sizeof line, "%s", v);
            if (numeric(util)) {
                fmt_pct(pct, sizeof pct, value_of(util));
                snprintf(line + strlen(line), sizeof line - strlen(line),
                         " (utilization %s %%)", pct);
            }
            put_field(b, "NX compute cycles:", line);
        }
    }
    /* Coverage: the executions in which each segment was recorded. */
    uint32_t n_segments = 0;
    double lo = 0, hi = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e || !streq(e->kind, "segment"))
            continue;
        const mlia_metric *cov = NULL;
        for (uint32_t k = 0; k < e->n_metrics; k++)
            if (streq(e->metrics[k].name, "execution_coverage") && numeric(&e->metrics[k])) {
                cov = &e->metrics[k];
                break;
            }
        if (!cov)
            continue;
        double c = value_of(cov);
        if (n_segments == 0 || c < lo)
            lo = c;
        if (n_segments == 0 || c > hi)
            hi = c;
        n_segments++;
    }
    if (n_segments) {
        char plo[32], phi[32];
        fmt_pct(plo, sizeof plo, lo);
        fmt_pct(phi, sizeof phi, hi);
        if (lo == hi)
            snprintf(line, sizeof line, "%s %% of executions (%u segment%s)", plo, n_segments,
                     n_segments == 1 ? "" : "s");
        else
            snprintf(line, sizeof line, "%s %% to %s %% of executions (%u segments)", plo, phi,
                     n_segments);
        put_field(b, "NX coverage:", line);
    }
}

typedef struct ranked {
    const mlia_entity *e;
    const mlia_metric *p50, *min, *max, *coverage;
    double key;
    uint32_t order;
} ranked;

static int cmp_ranked(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    if (a->key != b->key)
        return a->key > b->key ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Collects entities of `kind` with a numeric P50 of `metric`, sorted. */
static ranked *collect(const mlia_result *r, const char *kind, const char *metric, uint32_t *n_out)
{
    ranked *list = calloc(r->n_entities ? r->n_entities : 1, sizeof *list);
    if (!list) {
        mlia_oom(0);
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e || !streq(e->kind, kind))
            continue;
        const mlia_metric *p50 = find_metric(e->metrics, e->n_metrics, metric, "p50", NULL);
        if (!numeric(p50))
            continue;
        const char *a = qualifier(p50, "attribution");
        ranked *x = &list[n++];
        x->e = e;
        x->p50 = p50;
        x->order = i;
        x->key = value_of(p50);
        if (qualifier(p50, "statistic")) {
            x->min = find_metric(e->metrics, e->n_metrics, metric, "min", a);
            x->max = find_metric(e->metrics, e->n_metrics, metric, "max", a);
        } else {
            x->min = x->max = p50; /* one execution: the value is its own min and max */
        }
        for (uint32_t k = 0; k < e->n_metrics; k++)
            if (streq(e->metrics[k].name, "execution_coverage") && numeric(&e->metrics[k])) {
                x->coverage = &e->metrics[k];
                break;
            }
    }
    qsort(list, n, sizeof *list, cmp_ranked);
    *n_out = n;
    return list;
}

/* Node name of a source operator: attribute node_name / node, else the id
 * after "source_operator/<method>/". */
static const char *node_of(const mlia_entity *e)
{
    for (uint32_t i = 0; i < e->n_attrs; i++) {
        const mlia_attr *a = &e->attrs[i];
        if (a->type == MLIA_ATTR_STRING && a->s &&
            (streq(a->key, "node_name") || streq(a->key, "node")))
            return a->s;
    }
    const char *id = e->id ? e->id : "";
    const char *s1 = strchr(id, '/');
    const char *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
    return s2 ? s2 + 1 : id;
}

static void put_title(mlia_buf *b, const char *title, uint32_t shown, uint32_t total)
{
    mlia_buf_printf(b, "\n%s (%u of %u measured)\n", title, shown, total);
}

/* Column widths sum to 100: 3+2+26+2+24+3*(1+9)+2+11. */
static void put_operators(mlia_buf *b, const mlia_result *r)
{
    uint32_t n;
    ranked *list = collect(r, "source_operator", "execution_time", &n);
    if (n == 0) {
        mlia_buf_puts(b, "\nTop source operators by P50 execution time: none measured\n");
        free(list);
        return;
    }
    uint32_t shown = n < MLIA_CONSOLE_TOP ? n : MLIA_CONSOLE_TOP;
    put_title(b, "Top source operators by P50 execution time", shown, n);
    mlia_buf_puts(b, "  #  ");
    put_cell(b, "Operator", 26, false);
    mlia_buf_puts(b, "  ");
    put_cell(b, "Node", 24, false);
    mlia_buf_puts(b, "    P50 ms    Min ms    Max ms  Attribution\n");
    for (uint32_t i = 0; i < shown; i++) {
        const ranked *x = &list[i];
        char rank[8], v[32];
        snprintf(rank, sizeof rank, "%u", i + 1);
        put_cell(b, rank, 3, true);
        mlia_buf_puts(b, "  ");
        put_cell(b, x->e->name, 26, false);
        mlia_buf_puts(b, "  ");
        put_cell_mid(b, node_of(x->e), 24);
        const mlia_metric *cols[3] = {x->p50, x->min, x->max};
        for (int c = 0; c < 3; c++) {
            fmt_ms(v, sizeof v, cols[c]);
            mlia_buf_putc(b, ' ');
            put_cell(b, v, 9, true);
        }
        mlia_buf_puts(b, "  ");
        const char *a = qualifier(x->p50, "attribution");
        put_cell(b, a ? a : "-", 11, false);
        trim_trailing_spaces(b);
        mlia_buf_putc(b, '\n');
    }
    free(list);
}

/* Column widths sum to 100: 3+2+43+3*(1+13)+2+8. */
static void put_chains(mlia_buf *b, const mlia_result *r)
{
    uint32_t n;
    ranked *list = collect(r, "chain", "total_cycles", &n);
    if (n == 0) {
        mlia_buf_puts(b, "\nTop chains by P50 total cycles: none measured\n");
        free(list);
        return;
    }
    uint32_t shown = n < MLIA_CONSOLE_TOP ? n : MLIA_CONSOLE_TOP;
    put_title(b, "Top chains by P50 total cycles", shown, n);
    mlia_buf_puts(b, "  #  ");
    put_cell(b, "Chain", 43, false);
    mlia_buf_puts(b, "    P50 cycles    Min cycles    Max cycles  Coverage\n");
    for (uint32_t i = 0; i < shown; i++) {
        const ranked *x = &list[i];
        char rank[8], v[48];
        snprintf(rank, sizeof rank, "%u", i + 1);
        put_cell(b, rank, 3, true);
        mlia_buf_puts(b, "  ");
        put_cell(b, x->e->name ? x->e->name : x->e->id, 43, false);
        const mlia_metric *cols[3] = {x->p50, x->min, x->max};
        for (int c = 0; c < 3; c++) {
            fmt_cycles(v, sizeof v, cols[c]);
            mlia_buf_putc(b, ' ');
            put_cell(b, v, 13, true);
        }
        mlia_buf_puts(b, "  ");
        if (x->coverage) {
            char pct[32];
            fmt_pct(pct, sizeof pct, value_of(x->coverage));
            snprintf(v, sizeof v, "%s %%", pct);
            put_cell(b, v, 8, true);
        } else {
            put_cell(b, "-", 8, true);
        }
        mlia_buf_putc(b, '\n');
    }
    free(list);
}

static void put_warnings(mlia_buf *b, const mlia_result *r)
{
    if (r->n_warnings == 0) {
        mlia_buf_puts(b, "\nWarnings: none\n");
        return;
    }
    mlia_buf_printf(b, "\nWarnings (%u)\n", r->n_warnings);
    for (uint32_t i = 0; i < r->n_warnings; i++) {
        mlia_buf_puts(b, "  - ");
        /* warnings quote input text: keep terminal controls out */
        const char *w = r->warnings[i];
        size_t wl = strlen(w), cap = wl * 6 + 1;
        char *safe = malloc(cap);
        if (!safe)
            mlia_oom(cap);
        mlia_escape_text(safe, cap, w, wl);
        put_wrapped(b, safe, 4, 4);
        free(safe);
    }
}

char *mlia_console_summary_result(const mlia_result *r, const char *method, uint32_t n_executions)
{
    mlia_buf b;
    mlia_buf_init(&b);
    put_label(&b, "Method:");
    put_wrapped(&b, method ? method : "(none)", VALUE_COL, VALUE_COL);
    char v[32];
    snprintf(v, sizeof v, "%u", n_executions);
    put_field(&b, "Executions:", v);
    if (r->status) {
        put_field(&b, "Status:", r->status);
    }
    put_inference(&b, r);
    put_nx(&b, r);
    put_operators(&b, r);
    put_chains(&b, r);
    put_warnings(&b, r);
    return mlia_buf_take(&b);
}

char *mlia_console_summary(const mlia_run_record *s)
{
    return mlia_console_summary_result(s->result, s->method_name, s->n_executions);
}
