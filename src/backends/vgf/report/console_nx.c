/*
 * console_nx.c - the VGF backend's lines of the console summary
 * (report/backend_out.h, console_fields): NX total and compute cycles with
 * the utilization, or why there are none ("not applicable" for a CPU-only
 * run or a run whose delegate calls are other backends', else
 * "unavailable: <reason>"), then the share of executions in which the
 * segments were recorded. It reads the result only (the model metrics the
 * backend added and its segment entities), so a summary made from a result
 * alone prints the same lines.
 */
#include <stdio.h>
#include <string.h>

#include "backends/vgf/report/out.h"
#include "report/format.h"
#include "report/result/headline.h"

static const mlia_metric *first_metric(const mlia_result *r, const char *name)
{
    for (uint32_t i = 0; i < r->n_metrics; i++)
        if (r->metrics[i].name && strcmp(r->metrics[i].name, name) == 0)
            return &r->metrics[i];
    return NULL;
}

static bool has_value(const mlia_metric *m)
{
    return m && m->type != MLIA_VALUE_UNAVAILABLE;
}

static double value_of(const mlia_metric *m)
{
    return m->type == MLIA_VALUE_UINT ? (double)m->u : m->d;
}

/* min and max execution coverage of the segments; their number */
static uint32_t segment_coverage(const mlia_result *r, double *lo, double *hi)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e || !e->kind || strcmp(e->kind, "segment") != 0)
            continue;
        const mlia_metric *cov = NULL;
        for (uint32_t k = 0; k < e->n_metrics && !cov; k++)
            if (e->metrics[k].name && strcmp(e->metrics[k].name, "execution_coverage") == 0 &&
                has_value(&e->metrics[k]))
                cov = &e->metrics[k];
        if (!cov)
            continue;
        double c = value_of(cov);
        if (n == 0 || c < *lo)
            *lo = c;
        if (n == 0 || c > *hi)
            *hi = c;
        n++;
    }
    return n;
}

void vgf_console_fields(const void *state, const mlia_result *r, mlia_console *c)
{
    (void)state;
    const mlia_metric *total = first_metric(r, "total_cycles");
    const mlia_metric *compute = first_metric(r, "compute_cycles");
    const mlia_metric *util = first_metric(r, "target_utilization");
    char line[256], v[MLIA_FMT_CAP], pct[MLIA_FMT_CAP];
    mlia_headline h;
    mlia_headline_compute(r, &h);
    if (!has_value(total) && h.cpu_only) {
        mlia_console_field(c, "NX cycles:",
                           "not applicable: the model ran on the CPU only (no delegate call in the ETDump)");
    } else if (!has_value(total) && h.other_delegates_only) {
        mlia_console_field(c, "NX cycles:", MLIA_OTHER_DELEGATES_LINE);
    } else if (!has_value(total)) {
        mlia_console_unavailable(c, "NX cycles:", total ? total->reason : "not analysed");
    } else {
        mlia_fmt_int(v, sizeof v, value_of(total));
        snprintf(line, sizeof line, "%s", v);
        if (total->samples > 1)
            snprintf(line + strlen(line), sizeof line - strlen(line), " (P50 of %u executions)", total->samples);
        mlia_console_field(c, "NX total cycles:", line);
        if (has_value(compute)) {
            mlia_fmt_int(v, sizeof v, value_of(compute));
            snprintf(line, sizeof line, "%s", v);
            if (has_value(util)) {
                mlia_fmt_pct(pct, sizeof pct, value_of(util));
                snprintf(line + strlen(line), sizeof line - strlen(line), " (utilization %s %%)", pct);
            }
            mlia_console_field(c, "NX compute cycles:", line);
        }
    }
    double lo = 0, hi = 0;
    uint32_t n = segment_coverage(r, &lo, &hi);
    if (n) {
        char plo[MLIA_FMT_CAP], phi[MLIA_FMT_CAP];
        mlia_fmt_pct(plo, sizeof plo, lo);
        mlia_fmt_pct(phi, sizeof phi, hi);
        if (lo == hi)
            snprintf(line, sizeof line, "%s %% of executions (%u segment%s)", plo, n, n == 1 ? "" : "s");
        else
            snprintf(line, sizeof line, "%s %% to %s %% of executions (%u segments)", plo, phi, n);
        mlia_console_field(c, "NX coverage:", line);
    }
}
