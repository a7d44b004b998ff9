/*
 * views_build.c - what the view builders (view_*.c, and a backend's) share:
 * metric attributes and overlay values, list text. A backend's own helpers
 * live in its folder (the VGF backend's: src/backends/vgf/report/views_nx.c).
 *
 * Numbers on nodes and overlays always come from the result's entity
 * metrics, so the views show exactly what mlia-output.json says.
 */
#include <stdio.h>
#include <string.h>

#include "report/result/headline.h"
#include "report/format.h"
#include "core/str.h"
#include "report/views/views_model.h"

const char *vw_strip_prefix(const char *s, const char *prefix)
{
    size_t n = strlen(prefix);
    return s && strncmp(s, prefix, n) == 0 && s[n] ? s + n : s;
}

/* Adds overlay values "<value> <unit>" from an entity metric. */
void vw_overlay_metric(vw_ctx *c, vw_view *v, uint32_t ov, uint32_t graph, const char *key,
                       const mlia_entity *e, const char *metric, const char *stat)
{
    double x;
    const mlia_metric *m;
    if (ov == VW_NONE || !vw_metric(e, metric, stat, &x, &m))
        return;
    const char *attr = mlia_metric_qualifier(m, "attribution");
    char text[MLIA_FMT_CAP + 96];
    mlia_fmt_quantity(text, sizeof text - 40, x, m->unit);
    if (attr && strcmp(attr, "shared") == 0) {
        /* "shared by 6": six operators coloured with one call's time must
         * not read as six times that time (issue 29, 4) */
        const mlia_attr *cnt = mlia_entity_attr(e, "shared_with_count");
        const mlia_attr *with = mlia_entity_attr(e, "shared_with");
        uint64_t k = cnt && cnt->type == MLIA_ATTR_INT && cnt->i > 0 ? (uint64_t)cnt->i + 1
                     : with && with->type == MLIA_ATTR_STRING_LIST ? (uint64_t)with->n + 1 : 0;
        size_t len = strlen(text);
        if (k > 1)
            snprintf(text + len, sizeof text - len, " (shared by %llu)", (unsigned long long)k);
        else
            snprintf(text + len, sizeof text - len, " (shared)");
    } else if (attr) {
        strcat(text, " (exclusive)");
    }
    vw_overlay_value(c, &v->overlays[ov], graph, key, x, mlia_arena_strdup(c->a, text));
}

/* Node attribute "<metric>_<stat>" with the metric's value and unit. */
void vw_attr_metric(vw_ctx *c, vw_node *n, const mlia_entity *e, const char *metric, const char *stat)
{
    double x;
    const mlia_metric *m;
    if (!vw_metric(e, metric, stat, &x, &m))
        return;
    vw_node_attr(c, n, stat ? vw_key(c, metric, stat) : metric, vw_qty(c, x, m->unit));
}

const char *vw_list_text(vw_ctx *c, const char *const *v, uint32_t n, uint32_t cap)
{
    mlia_buf b;
    mlia_buf_init(&b);
    for (uint32_t i = 0; i < n && i < cap; i++) {
        if (i)
            mlia_buf_puts(&b, ", ");
        mlia_buf_puts(&b, v[i] ? v[i] : "");
    }
    if (n > cap)
        mlia_buf_printf(&b, ", ... (%u more)", n - cap);
    const char *r = mlia_arena_strndup(c->a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return r;
}

bool vw_cpu_only(const mlia_run_record *s)
{
    mlia_headline h;
    mlia_headline_compute(s->result, &h);
    return h.cpu_only;
}

bool vw_other_delegates_only(const mlia_run_record *s)
{
    mlia_headline h;
    mlia_headline_compute(s->result, &h);
    return h.other_delegates_only;
}
