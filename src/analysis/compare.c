/*
 * compare.c - run-to-run comparison (see compare.h for the rules).
 *
 * Both documents' metrics are grouped into series per entity by sorting
 * (entity, series, statistic) once; the two sorted lists are then merged,
 * so the whole comparison is O(n log n) in the number of metrics.
 */
#include "analysis/compare.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *compare_verdict_name(compare_verdict v)
{
    static const char *const names[] = {
        [COMPARE_UNCHANGED] = "unchanged",
        [COMPARE_REGRESSION] = "regression",
        [COMPARE_IMPROVEMENT] = "improvement",
        [COMPARE_INCONCLUSIVE] = "inconclusive",
        [COMPARE_LIKELY_REGRESSION] = "likely_regression",
        [COMPARE_LIKELY_IMPROVEMENT] = "likely_improvement",
    };
    return (unsigned)v < sizeof names / sizeof names[0] ? names[v] : "unchanged";
}

const char *compare_verdict_words(compare_verdict v)
{
    static const char *const words[] = {
        [COMPARE_UNCHANGED] = "unchanged",
        [COMPARE_REGRESSION] = "regression",
        [COMPARE_IMPROVEMENT] = "improvement",
        [COMPARE_INCONCLUSIVE] = "inconclusive",
        [COMPARE_LIKELY_REGRESSION] = "likely regression",
        [COMPARE_LIKELY_IMPROVEMENT] = "likely improvement",
    };
    return (unsigned)v < sizeof words / sizeof words[0] ? words[v] : "unchanged";
}

bool compare_is_regression(compare_verdict v)
{
    return v == COMPARE_REGRESSION || v == COMPARE_LIKELY_REGRESSION;
}

bool compare_is_improvement(compare_verdict v)
{
    return v == COMPARE_IMPROVEMENT || v == COMPARE_LIKELY_IMPROVEMENT;
}

static bool same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* Appends "<sep><fmt>" to what (bounded). */
static void add_diff(char *what, size_t cap, const char *text)
{
    size_t n = strlen(what);
    if (n + 1 >= cap)
        return;
    snprintf(what + n, cap - n, "%s%s", n ? ", " : "", text);
}

static void count_diff(char *what, size_t cap, const char *noun, const char *plural, int64_t nv, int64_t bv)
{
    if (nv < 0 || bv < 0 || nv == bv)
        return;
    char t[160];
    snprintf(t, sizeof t, "%" PRId64 " %s instead of %" PRId64, nv, nv == 1 ? noun : plural, bv);
    add_diff(what, cap, t);
}

compare_identity compare_programs(const result_doc *base, const result_doc *new_, char *what, size_t cap)
{
    if (cap)
        what[0] = 0;
    const rr_fingerprint *b = &base->fingerprint, *n = &new_->fingerprint;
    /* with both fingerprints, their own method (the one they cover);
     * otherwise the method the results report */
    bool both = b->program && n->program;
    const char *bm = both && b->method ? b->method : base->method;
    const char *nm = both && n->method ? n->method : new_->method;
    bool method_differs = !same_str(bm, nm);
    if (method_differs && cap) {
        char t[600];
        snprintf(t, sizeof t, "method '%s' instead of '%s'", nm ? nm : "(none)", bm ? bm : "(none)");
        add_diff(what, cap, t);
    }
    if (!both)
        return method_differs ? COMPARE_DIFFERENT_PROGRAMS : COMPARE_UNVERIFIED;
    if (strcmp(b->program, n->program) == 0)
        return COMPARE_SAME_PROGRAM;
    if (cap) {
        count_diff(what, cap, "operator", "operators", n->operators, b->operators);
        count_diff(what, cap, "debug handle", "debug handles", n->debug_handles, b->debug_handles);
        count_diff(what, cap, "delegate segment", "delegate segments", n->delegate_segments, b->delegate_segments);
        if (!what[0]) {
            char t[300];
            snprintf(t, sizeof t,
                     "the same method and counts (%" PRId64 " operator%s, %" PRId64 " delegate segment%s) but a "
                     "different graph: node names, targets, debug handles or delegated handles",
                     n->operators, n->operators == 1 ? "" : "s", n->delegate_segments,
                     n->delegate_segments == 1 ? "" : "s");
            add_diff(what, cap, t);
        }
    }
    return COMPARE_DIFFERENT_PROGRAMS;
}

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* 1 = lower is better, 2 = higher is better, 0 = not compared. */
static int direction(const char *name, const char *unit)
{
    if (strcmp(name, "inferences_per_second") == 0 || strcmp(name, "target_utilization") == 0)
        return 2;
    /* numerical accuracy (docs/accuracy.md): a lower SNR or cosine
     * similarity, a larger error or more non-finite elements is worse */
    if (strcmp(name, "output_snr_db") == 0 || strcmp(name, "output_cosine_similarity") == 0)
        return 2;
    if (strcmp(name, "output_mse") == 0 || strcmp(name, "output_max_abs_error") == 0 ||
        strcmp(name, "output_nan_count") == 0)
        return 1;
    if (unit && (strcmp(unit, "ms") == 0 || strcmp(unit, "cycles") == 0 || strcmp(unit, "bytes") == 0))
        return 1;
    if (ends_with(name, "_time") || ends_with(name, "_cycles"))
        return 1;
    return 0;
}

/* One series of one side. */
typedef struct series {
    const char *entity, *key, *name, *unit, *attribution;
    compare_side side;
    bool has_min, has_max;
} series;

static int cmp_metric_ptr(const void *a, const void *b)
{
    const rr_metric *x = *(const rr_metric *const *)a, *y = *(const rr_metric *const *)b;
    int c = strcmp(x->entity, y->entity);
    return c ? c : strcmp(x->series, y->series);
}

/* Groups a document's comparable metrics into series sorted by (entity, key). */
static series *group(const result_doc *d, mlia_arena *a, uint32_t *n_out)
{
    const rr_metric **v = mlia_arena_array(a, d->n_metrics ? d->n_metrics : 1, sizeof *v);
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_metrics; i++)
        if (direction(d->metrics[i].name, d->metrics[i].unit))
            v[n++] = &d->metrics[i];
    qsort(v, n, sizeof *v, cmp_metric_ptr);
    series *out = mlia_arena_array(a, n ? n : 1, sizeof *out);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i;
        series *s = &out[m++];
        memset(s, 0, sizeof *s);
        s->entity = v[i]->entity;
        s->key = v[i]->series;
        s->name = v[i]->name;
        s->unit = v[i]->unit;
        s->attribution = v[i]->attribution;
        bool unavailable = false;
        for (; j < n && strcmp(v[j]->entity, s->entity) == 0 && strcmp(v[j]->series, s->key) == 0; j++) {
            const rr_metric *mt = v[j];
            if (!mt->available) {
                unavailable = true;
                continue;
            }
            const char *st = mt->statistic;
            if (!st || strcmp(st, "p50") == 0) {
                s->side.present = true;
                s->side.p50 = mt->value;
                if (mt->samples)
                    s->side.samples = mt->samples;
            } else if (strcmp(st, "min") == 0) {
                s->side.min = mt->value;
                s->has_min = true;
            } else if (strcmp(st, "max") == 0) {
                s->side.max = mt->value;
                s->has_max = true;
            }
        }
        if (unavailable && !s->side.present)
            s->side.present = false;
        if (!s->has_min)
            s->side.min = s->side.p50;
        if (!s->has_max)
            s->side.max = s->side.p50;
        i = j;
    }
    *n_out = m;
    return out;
}

static int cmp_entity_ptr(const void *a, const void *b)
{
    return strcmp((*(const rr_entity *const *)a)->id, (*(const rr_entity *const *)b)->id);
}

static const rr_entity **sorted_entities(const result_doc *d, mlia_arena *a)
{
    const rr_entity **v = mlia_arena_array(a, d->n_entities ? d->n_entities : 1, sizeof *v);
    for (uint32_t i = 0; i < d->n_entities; i++)
        v[i] = &d->entities[i];
    qsort(v, d->n_entities, sizeof *v, cmp_entity_ptr);
    return v;
}

static const rr_entity *find_entity(const rr_entity **v, uint32_t n, const char *id)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        int c = strcmp(v[mid]->id, id);
        if (!c)
            return v[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

static bool entity_known(const rr_entity **v, uint32_t n, const char *id)
{
    return strcmp(id, RESULT_MODEL_ENTITY) == 0 || find_entity(v, n, id);
}

/* Figures of the program's memory plan (docs/memory.md): exact, the same
 * in every execution, so neither the sample count nor a baseline range
 * applies. */
static bool plan_metric(const char *name)
{
    static const char *const names[] = {"planned_memory",      "memory_pool_size",       "memory_pool_peak",
                                        "memory_pool_waste",   "peak_activation_memory", "model_weight_memory",
                                        "live_bytes",          "allocated_bytes"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (strcmp(name, names[i]) == 0)
            return true;
    return false;
}

static void judge(compare_row *r, double threshold)
{
    if (!r->base.present || !r->new_.present) {
        r->verdict = COMPARE_INCONCLUSIVE;
        r->reason = !r->base.present ? "no value in the baseline" : "no value in the new run";
        return;
    }
    r->has_delta = true;
    r->delta = r->new_.p50 - r->base.p50;
    if (r->base.p50 != 0) {
        r->has_percent = true;
        r->percent = 100.0 * r->delta / fabs(r->base.p50);
    }
    if (plan_metric(r->metric)) {
        /* any change past the threshold is a verdict (from 0: always) */
        bool worse = r->higher_is_better ? r->delta < 0 : r->delta > 0;
        if (r->delta == 0 || (r->has_percent && fabs(r->percent) <= threshold))
            r->verdict = COMPARE_UNCHANGED;
        else
            r->verdict = worse ? COMPARE_REGRESSION : COMPARE_IMPROVEMENT;
        return;
    }
    /* fewer than 3 samples on a side: the same rule, but a change it finds
     * is only likely (the baseline's range of 1 or 2 executions says little
     * about noise) */
    bool few = r->base.samples < COMPARE_MIN_SAMPLES || r->new_.samples < COMPARE_MIN_SAMPLES;
    if (!r->has_percent) {
        /* an exact output (zero error, no NaN) that no longer is: a
         * regression without a percentage */
        if (strncmp(r->metric, "output_", 7) == 0 && !r->higher_is_better && r->delta > 0 &&
            r->new_.p50 > r->base.max) {
            r->verdict = few ? COMPARE_LIKELY_REGRESSION : COMPARE_REGRESSION;
            r->reason = few ? "fewer than 3 samples on a side: not tested for noise" : NULL;
            return;
        }
        r->verdict = r->delta == 0 ? COMPARE_UNCHANGED : COMPARE_INCONCLUSIVE;
        r->reason = r->delta == 0 ? NULL : "the baseline P50 is zero";
        return;
    }
    bool outside = r->new_.p50 < r->base.min || r->new_.p50 > r->base.max;
    if (!outside || fabs(r->percent) <= threshold) {
        r->verdict = COMPARE_UNCHANGED;
        return;
    }
    bool worse = r->higher_is_better ? r->delta < 0 : r->delta > 0;
    if (few) {
        r->verdict = worse ? COMPARE_LIKELY_REGRESSION : COMPARE_LIKELY_IMPROVEMENT;
        r->reason = "fewer than 3 samples on a side: not tested for noise";
        return;
    }
    r->verdict = worse ? COMPARE_REGRESSION : COMPARE_IMPROVEMENT;
}

/* How a row's change ranks (compare.h): time by |delta| in ms, then cycles
 * by |delta| in cycles, then the rest by |percent|. */
static void size_of(compare_row *r)
{
    const char *u = r->unit ? r->unit : "";
    r->family = strcmp(u, "ms") == 0 ? COMPARE_FAMILY_TIME
                : strcmp(u, "cycles") == 0 ? COMPARE_FAMILY_CYCLES
                                           : COMPARE_FAMILY_OTHER;
    if (r->family != COMPARE_FAMILY_OTHER)
        r->size = r->has_delta ? fabs(r->delta) : 0.0;
    else
        r->size = r->has_percent ? fabs(r->percent) : 0.0;
}

/* The metrics an entity is known by, preferred on a tie. */
static bool headline_metric(const char *metric)
{
    return strcmp(metric, "total_cycles") == 0 || strcmp(metric, "execution_time") == 0 ||
           strcmp(metric, "inference_time") == 0;
}

int compare_rank_rows(const void *a, const void *b)
{
    const compare_row *x = *(const compare_row *const *)a, *y = *(const compare_row *const *)b;
    if (x->family != y->family)
        return x->family < y->family ? -1 : 1;
    if (x->size != y->size)
        return x->size > y->size ? -1 : 1;
    bool hx = headline_metric(x->metric), hy = headline_metric(y->metric);
    if (hx != hy)
        return hx ? -1 : 1;
    int c = strcmp(x->entity_id, y->entity_id);
    return c ? c : strcmp(x->series, y->series);
}

/* How bad a verdict is, for an entity's worst metric (lower is worse). */
static int severity(compare_verdict v)
{
    switch (v) {
    case COMPARE_REGRESSION: return 0;
    case COMPARE_LIKELY_REGRESSION: return 1;
    case COMPARE_IMPROVEMENT: return 2;
    case COMPARE_LIKELY_IMPROVEMENT: return 3;
    case COMPARE_UNCHANGED: return 4;
    default: return 5;
    }
}

/* Entity verdicts, the headline and the samples behind the verdicts, from
 * the rows (sorted by entity id). */
static void summarise_entities(compare_result *out, const rr_entity **be, uint32_t nbe, const rr_entity **ne,
                               uint32_t nne, mlia_arena *arena)
{
    out->ents = mlia_arena_array(arena, out->n_rows ? out->n_rows : 1, sizeof *out->ents);
    static const char *const heads[3] = {"inference_time", "inferences_per_second", "total_cycles"};
    uint32_t min_b = UINT32_MAX, min_n = UINT32_MAX;
    const compare_row *inference = NULL;
    for (uint32_t i = 0; i < out->n_rows;) {
        uint32_t j = i;
        const compare_row *worst = NULL;
        for (; j < out->n_rows && strcmp(out->rows[j].entity_id, out->rows[i].entity_id) == 0; j++) {
            const compare_row *x = &out->rows[j];
            if (x->base.present && x->base.samples < min_b)
                min_b = x->base.samples;
            if (x->new_.present && x->new_.samples < min_n)
                min_n = x->new_.samples;
            if (!worst || severity(x->verdict) < severity(worst->verdict) ||
                (severity(x->verdict) == severity(worst->verdict) && compare_rank_rows(&x, &worst) < 0))
                worst = x;
        }
        const compare_row *first = &out->rows[i];
        if (strcmp(first->entity_id, RESULT_MODEL_ENTITY) == 0) {
            out->model_verdict = worst->verdict;
            for (uint32_t k = i; k < j; k++)
                for (int h = 0; h < 3; h++)
                    if (strcmp(out->rows[k].series, heads[h]) == 0)
                        out->headline[h] = &out->rows[k];
            inference = out->headline[0];
        } else {
            compare_entity *e = &out->ents[out->n_ents++];
            memset(e, 0, sizeof *e);
            e->id = first->entity_id;
            e->kind = first->entity_kind;
            e->name = first->entity_name;
            e->verdict = worst->verdict;
            e->row = worst;
            e->n_rows = j - i;
            const rr_entity *src = find_entity(ne, nne, e->id);
            if (!src)
                src = find_entity(be, nbe, e->id);
            if (src && src->code_stack) {
                const rr_entity *cs = find_entity(ne, nne, src->code_stack);
                if (!cs)
                    cs = find_entity(be, nbe, src->code_stack);
                e->location = cs && cs->name ? cs->name : NULL;
            }
            out->ent_counts[e->verdict]++;
        }
        i = j;
    }
    if (inference && inference->base.present && inference->new_.present) {
        out->base_samples = inference->base.samples;
        out->new_samples = inference->new_.samples;
    } else {
        out->base_samples = min_b == UINT32_MAX ? 0 : min_b;
        out->new_samples = min_n == UINT32_MAX ? 0 : min_n;
    }
    out->tested = out->base_samples >= COMPARE_MIN_SAMPLES && out->new_samples >= COMPARE_MIN_SAMPLES;
}

static int cmp_entity_rank(const void *a, const void *b)
{
    const compare_entity *x = *(const compare_entity *const *)a, *y = *(const compare_entity *const *)b;
    return compare_rank_rows(&x->row, &y->row);
}

uint32_t compare_entities_of(const compare_result *r, bool regressions, const compare_entity **out)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_ents; i++)
        if (regressions ? compare_is_regression(r->ents[i].verdict) : compare_is_improvement(r->ents[i].verdict))
            out[n++] = &r->ents[i];
    /* ranked by their rows (compare_rank_rows), a total order */
    qsort(out, n, sizeof *out, cmp_entity_rank);
    return n;
}

void compare_run(const result_doc *base, const result_doc *new_, double threshold, mlia_arena *arena,
                 compare_result *out)
{
    memset(out, 0, sizeof *out);
    out->threshold = threshold;
    const rr_entity **be = sorted_entities(base, arena), **ne = sorted_entities(new_, arena);
    /* entities on one side only */
    out->only_base = mlia_arena_array(arena, base->n_entities ? base->n_entities : 1, sizeof *out->only_base);
    out->only_new = mlia_arena_array(arena, new_->n_entities ? new_->n_entities : 1, sizeof *out->only_new);
    for (uint32_t i = 0; i < base->n_entities; i++)
        if (!find_entity(ne, new_->n_entities, be[i]->id))
            out->only_base[out->n_only_base++] = be[i];
    for (uint32_t i = 0; i < new_->n_entities; i++)
        if (!find_entity(be, base->n_entities, ne[i]->id))
            out->only_new[out->n_only_new++] = ne[i];
        else
            out->n_entities++;
    out->n_entities++; /* the model */

    uint32_t nb, nn;
    series *sb = group(base, arena, &nb), *sn = group(new_, arena, &nn);
    out->rows = mlia_arena_array(arena, (size_t)nb + nn + 1, sizeof *out->rows);
    uint32_t i = 0, j = 0;
    while (i < nb || j < nn) {
        int c;
        if (i >= nb)
            c = 1;
        else if (j >= nn)
            c = -1;
        else {
            c = strcmp(sb[i].entity, sn[j].entity);
            if (!c)
                c = strcmp(sb[i].key, sn[j].key);
        }
        const series *b = c <= 0 ? &sb[i] : NULL, *n = c >= 0 ? &sn[j] : NULL;
        if (c <= 0)
            i++;
        if (c >= 0)
            j++;
        const series *any = b ? b : n;
        /* nothing to compare when neither side has a value (e.g. both unavailable) */
        if (!(b && b->side.present) && !(n && n->side.present))
            continue;
        /* only entities present on both sides are compared */
        if (!entity_known(be, base->n_entities, any->entity) || !entity_known(ne, new_->n_entities, any->entity))
            continue;
        compare_row *r = &out->rows[out->n_rows++];
        memset(r, 0, sizeof *r);
        r->entity_id = any->entity;
        const rr_entity *ent = find_entity(ne, new_->n_entities, any->entity);
        if (!ent)
            ent = find_entity(be, base->n_entities, any->entity);
        r->entity_kind = ent ? ent->kind : RESULT_MODEL_ENTITY;
        r->entity_name = ent ? ent->name : RESULT_MODEL_ENTITY;
        r->metric = any->name;
        r->unit = any->unit;
        r->series = any->key;
        r->attribution = any->attribution;
        r->higher_is_better = direction(any->name, any->unit) == 2;
        if (b)
            r->base = b->side;
        if (n)
            r->new_ = n->side;
        judge(r, threshold);
        size_of(r);
        out->counts[r->verdict]++;
    }
    summarise_entities(out, be, base->n_entities, ne, new_->n_entities, arena);
}

/* ---- settings ----------------------------------------------------------- */

static const char *const SETTING_NAMES[COMPARE_N_SETTINGS] = {"clock", "warm-up", "statistics mode",
                                                               "statistics device", "mlia version"};

void compare_settings_text(const result_doc *d, const char *text[COMPARE_N_SETTINGS], mlia_arena *a)
{
    const rr_settings *s = &d->settings;
    if (s->ticks_per_second > 0)
        text[0] = mlia_arena_printf(a, "%.17g ticks/s", s->ticks_per_second);
    else
        text[0] = "nanoseconds (the default)";
    text[1] = s->warmup_executions > 0
                  ? mlia_arena_printf(a, "%lld execution%s", (long long)s->warmup_executions,
                                      s->warmup_executions == 1 ? "" : "s")
                  : "none";
    text[2] = s->statistics_mode ? mlia_arena_printf(a, "%s%s", s->statistics_mode, s->mode_assumed ? " (assumed)" : "")
                                 : "none";
    text[3] = s->statistics_device
                  ? mlia_arena_printf(a, "%s%s", s->statistics_device, s->device_assumed ? " (assumed)" : "")
                  : "none";
    text[4] = s->tool_version ? s->tool_version : "unknown";
}

uint32_t compare_settings(const result_doc *base, const result_doc *new_, compare_setting *out, mlia_arena *a)
{
    const char *bt[COMPARE_N_SETTINGS], *nt[COMPARE_N_SETTINGS];
    compare_settings_text(base, bt, a);
    compare_settings_text(new_, nt, a);
    const rr_settings *bs = &base->settings, *ns = &new_->settings;
    uint32_t n = 0;
    for (int i = 0; i < COMPARE_N_SETTINGS; i++) {
        if (strcmp(bt[i], nt[i]) == 0)
            continue;
        /* the clock by its rate: an explicit 1e9 is the default's nanoseconds */
        double br = bs->ticks_per_second > 0 ? bs->ticks_per_second : 1e9;
        double nr = ns->ticks_per_second > 0 ? ns->ticks_per_second : 1e9;
        if (i == 0 && br == nr)
            continue;
        bool blocking = false;
        if (i == 0) /* times converted with different clocks: one of them is wrong */
            blocking = true;
        else if (i == 2) /* counters mean other things in another mode */
            blocking = bs->statistics_mode && ns->statistics_mode && strcmp(bs->statistics_mode, ns->statistics_mode);
        else if (i == 3)
            blocking = bs->statistics_device && ns->statistics_device &&
                       strcmp(bs->statistics_device, ns->statistics_device);
        out[n++] = (compare_setting){SETTING_NAMES[i], bt[i], nt[i], blocking, NULL};
    }
    return n;
}

/* ---- pooled baselines ------------------------------------------------- */

typedef struct pooled_side {
    const series *s;
    uint32_t doc;
} pooled_side;

static int cmp_pooled(const void *a, const void *b)
{
    const pooled_side *x = a, *y = b;
    int c = strcmp(x->s->entity, y->s->entity);
    if (!c)
        c = strcmp(x->s->key, y->s->key);
    return c ? c : (x->doc > y->doc) - (x->doc < y->doc);
}

typedef struct weighted {
    double v;
    uint64_t w;
} weighted;

static int cmp_weighted(const void *a, const void *b)
{
    double x = ((const weighted *)a)->v, y = ((const weighted *)b)->v;
    return (x > y) - (x < y);
}

double compare_weighted_median(const double *values, const uint32_t *weights, uint32_t n, mlia_arena *a)
{
    if (!n)
        return 0.0;
    weighted *v = mlia_arena_array(a, n, sizeof *v);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        v[i].v = values[i];
        v[i].w = weights[i] ? weights[i] : 1;
        total += v[i].w;
    }
    qsort(v, n, sizeof *v, cmp_weighted);
    /* nearest rank: the ceil(total / 2)-th value of the pooled executions */
    uint64_t rank = (total + 1) / 2, cum = 0;
    for (uint32_t i = 0; i < n; i++) {
        cum += v[i].w;
        if (cum >= rank)
            return v[i].v;
    }
    return v[n - 1].v;
}

static rr_metric pooled_metric(const series *s, const char *statistic, double value, uint32_t samples, bool available)
{
    rr_metric m;
    memset(&m, 0, sizeof m);
    m.entity = s->entity;
    m.name = s->name;
    m.unit = s->unit;
    m.statistic = statistic;
    m.series = s->key;
    m.attribution = s->attribution;
    m.available = available;
    m.value = available ? value : 0.0;
    m.samples = samples;
    return m;
}

static int cmp_entity_first(const void *a, const void *b)
{
    const rr_entity *const *x = a, *const *y = b;
    int c = strcmp((*x)->id, (*y)->id);
    return c ? c : (*x > *y) - (*x < *y); /* the earlier run first: entities are laid out run by run */
}

void compare_pool(const result_doc *const *docs, uint32_t n, mlia_arena *a, result_doc *out)
{
    memset(out, 0, sizeof *out);
    if (!n)
        return;
    *out = *docs[0];
    out->n_metrics = 0;
    out->metrics = NULL;
    /* entities: the union by id, each from the first run that has it */
    uint32_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += docs[i]->n_entities;
    rr_entity *all = mlia_arena_array(a, total ? total : 1, sizeof *all);
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < docs[i]->n_entities; j++)
            all[k++] = docs[i]->entities[j];
    const rr_entity **ptr = mlia_arena_array(a, total ? total : 1, sizeof *ptr);
    for (uint32_t i = 0; i < total; i++)
        ptr[i] = &all[i];
    qsort(ptr, total, sizeof *ptr, cmp_entity_first);
    out->entities = mlia_arena_array(a, total ? total : 1, sizeof *out->entities);
    out->n_entities = 0;
    for (uint32_t i = 0; i < total; i++)
        if (i == 0 || strcmp(ptr[i]->id, ptr[i - 1]->id) != 0)
            out->entities[out->n_entities++] = *ptr[i];
    /* series: every run's, grouped by (entity, key) */
    uint32_t ns = 0, *counts = mlia_arena_array(a, n, sizeof *counts);
    series **per = mlia_arena_array(a, n, sizeof *per);
    for (uint32_t i = 0; i < n; i++) {
        per[i] = group(docs[i], a, &counts[i]);
        ns += counts[i];
    }
    pooled_side *v = mlia_arena_array(a, ns ? ns : 1, sizeof *v);
    k = 0;
    for (uint32_t i = 0; i < n; i++)
        for (uint32_t j = 0; j < counts[i]; j++)
            v[k++] = (pooled_side){&per[i][j], i};
    qsort(v, ns, sizeof *v, cmp_pooled);
    out->metrics = mlia_arena_array(a, (size_t)ns * 3 + 1, sizeof *out->metrics);
    double *p50 = mlia_arena_array(a, n, sizeof *p50);
    uint32_t *w = mlia_arena_array(a, n, sizeof *w);
    for (uint32_t i = 0; i < ns;) {
        uint32_t j = i, m = 0, samples = 0;
        double mn = 0, mx = 0;
        for (; j < ns && strcmp(v[j].s->entity, v[i].s->entity) == 0 && strcmp(v[j].s->key, v[i].s->key) == 0; j++) {
            const compare_side *sd = &v[j].s->side;
            if (!sd->present)
                continue;
            if (!m || sd->min < mn)
                mn = sd->min;
            if (!m || sd->max > mx)
                mx = sd->max;
            p50[m] = sd->p50;
            w[m] = sd->samples;
            samples += sd->samples;
            m++;
        }
        const series *s = v[i].s;
        if (m) {
            out->metrics[out->n_metrics++] = pooled_metric(s, "p50", compare_weighted_median(p50, w, m, a), samples, true);
            out->metrics[out->n_metrics++] = pooled_metric(s, "min", mn, samples, true);
            out->metrics[out->n_metrics++] = pooled_metric(s, "max", mx, samples, true);
        } else {
            out->metrics[out->n_metrics++] = pooled_metric(s, "p50", 0, 0, false);
        }
        i = j;
    }
}

