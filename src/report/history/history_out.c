/*
 * history_out.c - the outputs of `mlia history` (history_out.h).
 */
#include "report/history/history_out.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/cnum.h"
#include "core/json_write.h"
#include "core/str.h"
#include "report/format.h"

static const char *const BLOCKS[8] = {"\u2581", "\u2582", "\u2583", "\u2584", "\u2585", "\u2586", "\u2587", "\u2588"};

static bool range_of(const history_runs *r, double *lo, double *hi)
{
    bool any = false;
    for (uint32_t i = 0; i < r->n; i++) {
        const history_run *x = &r->runs[i];
        if (!x->has_value)
            continue;
        if (!any || x->p50 < *lo)
            *lo = x->p50;
        if (!any || x->p50 > *hi)
            *hi = x->p50;
        any = true;
    }
    return any;
}

char *history_sparkline(const history_runs *r)
{
    mlia_buf b;
    mlia_buf_init(&b);
    double lo = 0, hi = 0;
    bool any = range_of(r, &lo, &hi);
    for (uint32_t i = 0; i < r->n; i++) {
        const history_run *x = &r->runs[i];
        if (!any || !x->has_value) {
            mlia_buf_putc(&b, ' ');
            continue;
        }
        int k = hi > lo ? (int)lround((x->p50 - lo) / (hi - lo) * 7.0) : 3;
        mlia_buf_puts(&b, BLOCKS[k < 0 ? 0 : k > 7 ? 7 : k]);
    }
    mlia_buf_putc(&b, 0);
    b.len--;
    return mlia_buf_take(&b);
}

/* Untrusted text for the terminal (core/error.h), cut to `max` bytes. */
static void put_safe(mlia_buf *b, const char *s, size_t max)
{
    char tmp[1024];
    size_t n = s ? strlen(s) : 0;
    if (n > max)
        n = max;
    mlia_escape_text(tmp, sizeof tmp, s ? s : "", n);
    mlia_buf_puts(b, tmp);
}

static void labels_text(mlia_buf *b, const history_run *x)
{
    for (uint32_t k = 0; k < x->n_labels; k++)
        mlia_buf_printf(b, "%s%s=%s", k ? " " : "", x->labels[k].key, x->labels[k].value ? x->labels[k].value : "");
}

char *history_table(const history_runs *r, const char *location, unsigned width)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "Run history: ");
    put_safe(&b, location, 400);
    mlia_buf_printf(&b, " (%u run%s)\n", r->n, r->n == 1 ? "" : "s");
    if (!r->n) {
        mlia_buf_puts(&b, "No recorded run matches.\n");
        return mlia_buf_take(&b);
    }
    mlia_buf_puts(&b, "Metric: ");
    put_safe(&b, r->series ? r->series : r->metric, 200);
    if (strcmp(r->entity, HISTORY_MODEL_ENTITY) != 0) {
        mlia_buf_puts(&b, " of ");
        put_safe(&b, r->entity, 200);
    }
    if (r->unit) {
        mlia_buf_puts(&b, " (");
        put_safe(&b, r->unit, 40);
        mlia_buf_putc(&b, ')');
    }
    if (!r->series)
        mlia_buf_puts(&b, ": not recorded in these runs");
    mlia_buf_puts(&b, "\n\n");
    mlia_buf_printf(&b, "%-20s  %-8s  %-8s  %-12s  %12s  %12s  %12s  %7s  %s\n", "time", "run", "program", "model",
                    "P50", "min", "max", "samples", "labels");
    for (uint32_t i = 0; i < r->n; i++) {
        const history_run *x = &r->runs[i];
        char p50[MLIA_FMT_CAP] = "-", mn[MLIA_FMT_CAP] = "-", mx[MLIA_FMT_CAP] = "-";
        if (x->has_value) {
            mlia_fmt_value(p50, sizeof p50, x->p50, r->unit);
            mlia_fmt_value(mn, sizeof mn, x->min, r->unit);
            mlia_fmt_value(mx, sizeof mx, x->max, r->unit);
        }
        mlia_buf line;
        mlia_buf_init(&line);
        put_safe(&line, x->recorded_at, 20);
        while (line.len < 22)
            mlia_buf_putc(&line, ' ');
        put_safe(&line, x->run_id, 8);
        mlia_buf_puts(&line, "  ");
        put_safe(&line, x->program, 8);
        mlia_buf_puts(&line, "  ");
        size_t at = line.len;
        put_safe(&line, x->model, 12);
        while (line.len < at + 14)
            mlia_buf_putc(&line, ' ');
        mlia_buf_printf(&line, "%12s  %12s  %12s  %7u  ", p50, mn, mx, x->samples);
        mlia_buf labels;
        mlia_buf_init(&labels);
        labels_text(&labels, x);
        mlia_buf_putc(&labels, 0);
        size_t room = width > line.len + 40 ? width - line.len : 40;
        put_safe(&line, labels.data, room);
        mlia_buf_free(&labels);
        mlia_buf_append(&b, line.data, line.len);
        mlia_buf_putc(&b, '\n');
        mlia_buf_free(&line);
    }
    double lo = 0, hi = 0;
    if (r->series && range_of(r, &lo, &hi)) {
        char *spark = history_sparkline(r);
        char l[MLIA_FMT_CAP], h[MLIA_FMT_CAP];
        mlia_fmt_quantity(l, sizeof l, lo, r->unit);
        mlia_fmt_quantity(h, sizeof h, hi, r->unit);
        mlia_buf_printf(&b, "\nTrend (oldest to newest): %s  P50 from %s to %s\n", spark, l, h);
        free(spark);
    }
    return mlia_buf_take(&b);
}

static void csv_field(mlia_buf *b, const char *s)
{
    if (!s)
        return;
    if (!strpbrk(s, ",\"\r\n")) {
        mlia_buf_puts(b, s);
        return;
    }
    mlia_buf_putc(b, '"');
    for (const char *p = s; *p; p++) {
        if (*p == '"')
            mlia_buf_putc(b, '"');
        mlia_buf_putc(b, *p);
    }
    mlia_buf_putc(b, '"');
}

static void csv_number(mlia_buf *b, bool has, double v)
{
    if (has) {
        /* the shortest of 15 to 17 digits that reads back as v */
        char t[40];
        for (int p = 15; p <= 17; p++) {
            mlia_snprintf(t, sizeof t, "%.*g", p, v);
            if (mlia_strtod(t, NULL) == v)
                break;
        }
        mlia_buf_puts(b, t);
    }
}

char *history_csv(const history_runs *r)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "recorded_at,run_id,program,method,model,status,executions,labels,entity,series,unit,p50,min,max,"
                      "samples\r\n");
    for (uint32_t i = 0; i < r->n; i++) {
        const history_run *x = &r->runs[i];
        const char *f[6] = {x->recorded_at, x->run_id, x->program, x->method, x->model, x->status};
        for (int k = 0; k < 6; k++) {
            csv_field(&b, f[k]);
            mlia_buf_putc(&b, ',');
        }
        mlia_buf_printf(&b, "%llu,", (unsigned long long)x->executions);
        mlia_buf labels;
        mlia_buf_init(&labels);
        for (uint32_t k = 0; k < x->n_labels; k++)
            mlia_buf_printf(&labels, "%s%s=%s", k ? ";" : "", x->labels[k].key, x->labels[k].value);
        mlia_buf_putc(&labels, 0);
        csv_field(&b, labels.data);
        mlia_buf_free(&labels);
        mlia_buf_putc(&b, ',');
        csv_field(&b, r->entity);
        mlia_buf_putc(&b, ',');
        csv_field(&b, r->series);
        mlia_buf_putc(&b, ',');
        csv_field(&b, r->unit);
        mlia_buf_putc(&b, ',');
        csv_number(&b, x->has_value, x->p50);
        mlia_buf_putc(&b, ',');
        csv_number(&b, x->has_value, x->min);
        mlia_buf_putc(&b, ',');
        csv_number(&b, x->has_value, x->max);
        mlia_buf_printf(&b, ",%u\r\n", x->samples);
    }
    return mlia_buf_take(&b);
}

char *history_json(const history_runs *r, const char *location)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, true);
    mlia_jw_obj_begin(&w);
    mlia_jw_kstr(&w, "history", location);
    mlia_jw_kstr(&w, "metric", r->metric);
    mlia_jw_kstr(&w, "entity", r->entity);
    mlia_jw_kstr(&w, "series", r->series);
    mlia_jw_kstr(&w, "unit", r->unit);
    mlia_jw_karr_begin(&w, "runs");
    for (uint32_t i = 0; i < r->n; i++) {
        const history_run *x = &r->runs[i];
        mlia_jw_obj_begin(&w);
        mlia_jw_kstr(&w, "run_id", x->run_id);
        mlia_jw_kstr(&w, "recorded_at", x->recorded_at);
        mlia_jw_kstr(&w, "tool_version", x->tool_version);
        mlia_jw_kstr(&w, "program", x->program);
        mlia_jw_kstr(&w, "method", x->method);
        mlia_jw_kstr(&w, "model", x->model);
        mlia_jw_kstr(&w, "status", x->status);
        mlia_jw_kuint(&w, "executions", x->executions);
        mlia_jw_kstr(&w, "settings", x->settings);
        mlia_jw_kobj_begin(&w, "labels");
        for (uint32_t k = 0; k < x->n_labels; k++)
            mlia_jw_kstr(&w, x->labels[k].key, x->labels[k].value);
        mlia_jw_obj_end(&w);
        if (x->has_value) {
            mlia_jw_kdouble(&w, "p50", x->p50);
            mlia_jw_kdouble(&w, "min", x->min);
            mlia_jw_kdouble(&w, "max", x->max);
        } else {
            mlia_jw_knull(&w, "p50");
            mlia_jw_knull(&w, "min");
            mlia_jw_knull(&w, "max");
        }
        mlia_jw_kuint(&w, "samples", x->samples);
        mlia_jw_obj_end(&w);
    }
    mlia_jw_arr_end(&w);
    mlia_jw_obj_end(&w);
    mlia_buf_putc(&b, '\n');
    return mlia_buf_take(&b);
}

static void html(mlia_buf *b, const char *s)
{
    for (const char *p = s ? s : ""; *p; p++) {
        switch (*p) {
        case '<': mlia_buf_puts(b, "&lt;"); break;
        case '>': mlia_buf_puts(b, "&gt;"); break;
        case '&': mlia_buf_puts(b, "&amp;"); break;
        case '"': mlia_buf_puts(b, "&quot;"); break;
        default: mlia_buf_putc(b, *p); break;
        }
    }
}

#define CHART_W 880.0
#define CHART_H 260.0
#define CHART_PAD 48.0

static void num(mlia_buf *b, double v)
{
    char t[32];
    mlia_snprintf(t, sizeof t, "%.1f", v);
    mlia_buf_puts(b, t);
}

int history_page(const history_runs *r, const char *location, FILE *fp, mlia_error *err)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>mlia history: ");
    html(&b, r->series ? r->series : r->metric);
    mlia_buf_puts(&b, "</title>\n<style>body{font:14px system-ui,sans-serif;margin:24px;color:#222}"
                      "table{border-collapse:collapse}td,th{padding:3px 10px;border-bottom:1px solid #ddd;"
                      "text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}"
                      ".band{fill:#9ecae1;opacity:.45}.line{fill:none;stroke:#08519c;stroke-width:2}"
                      ".pt{fill:#08519c}.axis{stroke:#888}text{font-size:11px;fill:#555}</style></head><body>\n");
    mlia_buf_puts(&b, "<h1>Run history</h1>\n<p>");
    html(&b, location);
    mlia_buf_printf(&b, ": %u run%s. Metric <b>", r->n, r->n == 1 ? "" : "s");
    html(&b, r->series ? r->series : r->metric);
    mlia_buf_puts(&b, "</b> of <b>");
    html(&b, r->entity);
    mlia_buf_puts(&b, "</b>");
    if (r->unit) {
        mlia_buf_puts(&b, " (");
        html(&b, r->unit);
        mlia_buf_puts(&b, ")");
    }
    mlia_buf_puts(&b, ": P50 per run (line) and its min-max range (band), oldest to newest.</p>\n");
    double lo = 0, hi = 0;
    if (range_of(r, &lo, &hi)) {
        for (uint32_t i = 0; i < r->n; i++)
            if (r->runs[i].has_value) {
                lo = r->runs[i].min < lo ? r->runs[i].min : lo;
                hi = r->runs[i].max > hi ? r->runs[i].max : hi;
            }
        if (hi <= lo)
            hi = lo + (lo ? fabs(lo) * 0.1 : 1.0);
        double span = hi - lo;
        lo -= span * 0.05;
        hi += span * 0.05;
        double w = CHART_W - 2 * CHART_PAD, h = CHART_H - 2 * CHART_PAD;
        double step = r->n > 1 ? w / (r->n - 1) : 0;
#define X(i) (CHART_PAD + (r->n > 1 ? (i) * step : w / 2))
#define Y(v) (CHART_PAD + h - ((v) - lo) / (hi - lo) * h)
        mlia_buf_printf(&b, "<svg id=\"trend\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" role=\"img\">\n",
                        (int)CHART_W, (int)CHART_H, (int)CHART_W, (int)CHART_H);
        /* band: max forwards, min backwards, per run with a value */
        mlia_buf_puts(&b, "<polygon class=\"band\" points=\"");
        for (uint32_t i = 0; i < r->n; i++)
            if (r->runs[i].has_value) {
                num(&b, X(i));
                mlia_buf_putc(&b, ',');
                num(&b, Y(r->runs[i].max));
                mlia_buf_putc(&b, ' ');
            }
        for (uint32_t i = r->n; i-- > 0;)
            if (r->runs[i].has_value) {
                num(&b, X(i));
                mlia_buf_putc(&b, ',');
                num(&b, Y(r->runs[i].min));
                mlia_buf_putc(&b, ' ');
            }
        mlia_buf_puts(&b, "\"/>\n<polyline class=\"line\" points=\"");
        for (uint32_t i = 0; i < r->n; i++)
            if (r->runs[i].has_value) {
                num(&b, X(i));
                mlia_buf_putc(&b, ',');
                num(&b, Y(r->runs[i].p50));
                mlia_buf_putc(&b, ' ');
            }
        mlia_buf_puts(&b, "\"/>\n");
        for (uint32_t i = 0; i < r->n; i++)
            if (r->runs[i].has_value) {
                char v[MLIA_FMT_CAP];
                mlia_fmt_quantity(v, sizeof v, r->runs[i].p50, r->unit);
                mlia_buf_puts(&b, "<circle class=\"pt\" r=\"3\" cx=\"");
                num(&b, X(i));
                mlia_buf_puts(&b, "\" cy=\"");
                num(&b, Y(r->runs[i].p50));
                mlia_buf_puts(&b, "\"><title>");
                html(&b, r->runs[i].recorded_at);
                mlia_buf_puts(&b, " ");
                html(&b, r->runs[i].run_id);
                mlia_buf_puts(&b, ": ");
                html(&b, v);
                mlia_buf_puts(&b, "</title></circle>\n");
            }
        char tl[MLIA_FMT_CAP], th[MLIA_FMT_CAP];
        mlia_fmt_quantity(tl, sizeof tl, lo, r->unit);
        mlia_fmt_quantity(th, sizeof th, hi, r->unit);
        mlia_buf_printf(&b, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n", (int)CHART_PAD,
                        (int)(CHART_H - CHART_PAD), (int)(CHART_W - CHART_PAD), (int)(CHART_H - CHART_PAD));
        mlia_buf_printf(&b, "<text x=\"4\" y=\"%d\">", (int)(CHART_H - CHART_PAD));
        html(&b, tl);
        mlia_buf_printf(&b, "</text><text x=\"4\" y=\"%d\">", (int)CHART_PAD);
        html(&b, th);
        mlia_buf_puts(&b, "</text>\n</svg>\n");
#undef X
#undef Y
    } else {
        mlia_buf_puts(&b, "<p>No run has this metric.</p>\n");
    }
    mlia_buf_puts(&b, "<table><thead><tr><th>time</th><th>run</th><th>program</th><th>model</th><th>labels</th>"
                      "<th>P50</th><th>min</th><th>max</th><th>samples</th></tr></thead><tbody>\n");
    for (uint32_t i = r->n; i-- > 0;) {
        const history_run *x = &r->runs[i];
        char p50[MLIA_FMT_CAP] = "", mn[MLIA_FMT_CAP] = "", mx[MLIA_FMT_CAP] = "";
        if (x->has_value) {
            mlia_fmt_value(p50, sizeof p50, x->p50, r->unit);
            mlia_fmt_value(mn, sizeof mn, x->min, r->unit);
            mlia_fmt_value(mx, sizeof mx, x->max, r->unit);
        }
        const char *cells[4] = {x->recorded_at, x->run_id, x->program, x->model};
        mlia_buf_puts(&b, "<tr>");
        for (int k = 0; k < 4; k++) {
            mlia_buf_puts(&b, "<td>");
            html(&b, cells[k]);
            mlia_buf_puts(&b, "</td>");
        }
        mlia_buf labels;
        mlia_buf_init(&labels);
        labels_text(&labels, x);
        mlia_buf_putc(&labels, 0);
        mlia_buf_puts(&b, "<td>");
        html(&b, labels.data);
        mlia_buf_free(&labels);
        mlia_buf_printf(&b, "</td><td class=\"n\">%s</td><td class=\"n\">%s</td><td class=\"n\">%s</td>"
                            "<td class=\"n\">%u</td></tr>\n", p50, mn, mx, x->samples);
    }
    mlia_buf_puts(&b, "</tbody></table>\n</body></html>\n");
    size_t n = b.len;
    bool ok = fwrite(b.data, 1, n, fp) == n;
    mlia_buf_free(&b);
    if (!ok)
        return mlia_error_setf(err, NULL, "cannot write the history page");
    return 0;
}
