/*
 * headline.c - the result in one line (see headline.h).
 */
#include "report/result/headline.h"
#include "core/str.h"

#include <stdio.h>
#include <string.h>

static bool streq(const char *a, const char *b)
{
    return a && b && mlia_cstr_eq(a, b);
}

static const char *qualifier(const mlia_metric *m, const char *key)
{
    for (uint8_t i = 0; m && i < m->n_qualifiers && i < MLIA_MAX_QUALIFIERS; i++)
        if (m->qualifiers[i].key && strcmp(m->qualifiers[i].key, key) == 0)
            return m->qualifiers[i].value;
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

/* The P50 (or unqualified, single-execution) metric `name` of e with the
 * given statistic and, when non-NULL, attribution. */
static const mlia_metric *stat_metric(const mlia_entity *e, const char *name, const char *statistic,
                                      const char *attribution)
{
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < e->n_metrics; i++) {
            const mlia_metric *m = &e->metrics[i];
            if (!streq(m->name, name))
                continue;
            const char *st = qualifier(m, "statistic");
            if (pass == 0 ? !streq(st, statistic) : (st != NULL || !streq(statistic, "p50")))
                continue;
            if (attribution && !streq(qualifier(m, "attribution"), attribution))
                continue;
            return m;
        }
    return NULL;
}

static const char *attr_str(const mlia_entity *e, const char *key)
{
    const mlia_attr *a = mlia_entity_attr(e, key);
    return a && a->type == MLIA_ATTR_STRING ? a->s : NULL;
}

static void status_text(const mlia_result *r, mlia_headline *h)
{
    char *line = h->status_text;
    size_t cap = sizeof h->status_text;
    line[0] = '\0';
    if (!r->status)
        return;
    if (streq(r->status, "ok")) {
        snprintf(line, cap, "ok (every measurement covers every execution)");
    } else if (streq(r->status, "partial")) {
        bool low_coverage = false, unassociated = false;
        for (uint32_t i = 0; i < r->n_entities && !low_coverage; i++) {
            const mlia_entity *e = r->entities[i];
            for (uint32_t k = 0; e && k < e->n_metrics; k++)
                if (streq(e->metrics[k].name, "execution_coverage") && numeric(&e->metrics[k])) {
                    low_coverage = value_of(&e->metrics[k]) < 100.0;
                    break;
                }
        }
        for (uint32_t i = 0; i < r->n_warnings; i++)
            unassociated |= strncmp(r->warnings[i], "Associations are incomplete", 27) == 0;
        snprintf(line, cap, "partial (%s%s%s; see Warnings)",
                 low_coverage ? "some items were measured in fewer than all executions" : "",
                 low_coverage && unassociated ? ", and " : "",
                 unassociated ? "some compiler operations have no source operator"
                              : (low_coverage ? "" : "some results are incomplete"));
    } else if (streq(r->status, "incompatible")) {
        snprintf(line, cap,
                 "incompatible (no measurement could be attributed to the program: the ETDump does not fit "
                 "the ETRecord; see Warnings)");
    } else {
        snprintf(line, cap, "%s", r->status);
    }
}

void mlia_headline_compute(const mlia_result *r, mlia_headline *h)
{
    memset(h, 0, sizeof *h);
    h->status = r->status;
    status_text(r, h);
    const mlia_metric *inf = mlia_result_metric(r, "inference_time");
    if (numeric(inf)) {
        h->has_inference = true;
        h->inference_p50 = h->inference_min = h->inference_max = value_of(inf);
        h->inference_samples = inf->samples;
        const mlia_entity *exec = NULL;
        for (uint32_t i = 0; i < r->n_entities && !exec; i++)
            if (r->entities[i] && streq(r->entities[i]->name, "Method::execute"))
                exec = r->entities[i];
        if (exec) {
            const mlia_metric *p50 = stat_metric(exec, "execution_time", "p50", NULL);
            const char *a = qualifier(p50, "attribution");
            const mlia_metric *mn = stat_metric(exec, "execution_time", "min", a);
            const mlia_metric *mx = stat_metric(exec, "execution_time", "max", a);
            if (numeric(mn) && numeric(mx)) {
                h->inference_min = value_of(mn);
                h->inference_max = value_of(mx);
            }
            const mlia_metric *avg = stat_metric(exec, "execution_time", "avg", a);
            const mlia_metric *p10 = stat_metric(exec, "execution_time", "p10", a);
            const mlia_metric *p90 = stat_metric(exec, "execution_time", "p90", a);
            if (numeric(avg) && numeric(p10) && numeric(p90)) {
                h->has_spread = true;
                h->inference_avg = value_of(avg);
                h->inference_p10 = value_of(p10);
                h->inference_p90 = value_of(p90);
            }
        }
    } else if (inf) {
        h->inference_reason = inf->reason;
    }
    /* the top row: the highest P50, ties in entity order (the console's rank) */
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e || !streq(e->kind, "source_operator"))
            continue;
        const mlia_metric *p50 = stat_metric(e, "execution_time", "p50", NULL);
        if (!numeric(p50) || (h->top && value_of(p50) <= h->top_p50))
            continue;
        h->top = e;
        h->top_p50 = value_of(p50);
        h->top_attribution = qualifier(p50, "attribution");
    }
    if (h->top) {
        h->top_members = 1;
        if (streq(h->top_attribution, "shared")) {
            const char *call = attr_str(h->top, "delegate_call");
            if (call) {
                h->top_call = mlia_result_find(r, call);
                uint32_t n = 0;
                for (uint32_t i = 0; i < r->n_entities; i++) {
                    const mlia_entity *e = r->entities[i];
                    if (e && streq(e->kind, "source_operator") && streq(attr_str(e, "delegate_call"), call))
                        n++;
                }
                h->top_members = n ? n : 1;
            } else {
                const mlia_attr *count = mlia_entity_attr(h->top, "shared_with_count");
                const mlia_attr *with = mlia_entity_attr(h->top, "shared_with");
                if (count && count->type == MLIA_ATTR_INT && count->i > 0)
                    h->top_members = (uint32_t)count->i + 1;
                else if (with && with->type == MLIA_ATTR_STRING_LIST)
                    h->top_members = with->n + 1;
            }
        }
    }
    const mlia_metric *total = mlia_result_metric(r, "total_cycles");
    if (numeric(total)) {
        h->has_nx = true;
        h->nx_total_cycles = total->type == MLIA_VALUE_UINT ? total->u : (uint64_t)total->d;
        h->nx_samples = total->samples;
    }
    bool any_call = false, maybe_nx = false;
    for (uint32_t i = 0; i < r->n_entities; i++)
        if (r->entities[i] && streq(r->entities[i]->kind, "delegate_call")) {
            any_call = true;
            /* a call of an unnamed backend may carry them: the warning stays */
            maybe_nx |= !r->entities[i]->name || streq(r->entities[i]->name, MLIA_NX_DELEGATE_ID);
        }
    /* no delegate call and no statistics record at all (total_cycles says so) */
    bool no_stats = !h->has_nx && h->has_inference && total && total->reason && streq(total->reason, MLIA_NO_NX_WARNING);
    h->cpu_only = !any_call && no_stats;
    /* only other delegates (XNNPACK, QNN, ...): no VGF statistics by nature */
    h->other_delegates_only = no_stats && !maybe_nx;
}

bool mlia_warning_is_note(const char *w)
{
    return w && (strncmp(w, "ETDump ticks read at ", 21) == 0 || strstr(w, " were left out as warm-up") != NULL);
}

bool mlia_headline_is_not_applicable(const mlia_headline *h, const char *warning)
{
    return (h->cpu_only || h->other_delegates_only) && streq(warning, MLIA_NO_NX_WARNING);
}
