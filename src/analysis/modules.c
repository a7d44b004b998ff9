/*
 * modules.c - per-nn.Module totals (see modules.h).
 *
 * One (module, call key, value) tuple per operator and enclosing module;
 * sorted by (module order, key), equal keys of one module are counted once
 * and the sums are made in that sorted order, so the totals are
 * deterministic. Linear in operators x module depth, plus the sort.
 */
#include "analysis/modules.h"

#include <stdlib.h>
#include <string.h>

#include "core/oom.h"

typedef struct mod_ref {
    const mlia_entity *e;
    uint32_t order; /* its index among the result's entities */
} mod_ref;

typedef struct contrib {
    uint32_t module;   /* order of the module */
    const char *key;   /* the measured call: delegate call id, first member id, or the operator id */
    double value;      /* ms */
} contrib;

static int cmp_mod_ptr(const void *pa, const void *pb)
{
    const mod_ref *a = pa, *b = pb;
    return (a->e > b->e) - (a->e < b->e);
}

static int cmp_contrib(const void *pa, const void *pb)
{
    const contrib *a = pa, *b = pb;
    if (a->module != b->module)
        return a->module < b->module ? -1 : 1;
    return strcmp(a->key, b->key);
}

static const char *attr_s(const mlia_entity *e, const char *key)
{
    const mlia_attr *a = mlia_entity_attr(e, key);
    return a && a->type == MLIA_ATTR_STRING ? a->s : NULL;
}

/* The measured call an operator's time comes from. */
static const char *call_key(const mlia_entity *e)
{
    const char *attribution = attr_s(e, "attribution");
    if (!attribution || strcmp(attribution, "shared") != 0)
        return e->id;
    const char *call = attr_s(e, "delegate_call");
    if (call)
        return call;
    const char *first = e->id;
    const mlia_attr *with = mlia_entity_attr(e, "shared_with");
    for (uint32_t i = 0; with && with->type == MLIA_ATTR_STRING_LIST && i < with->n; i++)
        if (with->list_s[i] && strcmp(with->list_s[i], first) < 0)
            first = with->list_s[i];
    return first;
}

static const mod_ref *find_mod(const mod_ref *mods, uint32_t n, const mlia_entity *e)
{
    mod_ref key = {e, 0};
    return bsearch(&key, mods, n, sizeof *mods, cmp_mod_ptr);
}

void mlia_module_totals(mlia_result *r)
{
    uint32_t n_mods = 0;
    for (uint32_t i = 0; i < r->n_entities; i++)
        n_mods += r->entities[i] && strcmp(r->entities[i]->kind, "nn_module") == 0;
    if (!n_mods)
        return;
    mod_ref *mods = malloc(n_mods * sizeof *mods);
    if (!mods)
        mlia_oom(n_mods * sizeof *mods);
    uint32_t k = 0;
    for (uint32_t i = 0; i < r->n_entities; i++)
        if (r->entities[i] && strcmp(r->entities[i]->kind, "nn_module") == 0)
            mods[k++] = (mod_ref){r->entities[i], i};
    qsort(mods, n_mods, sizeof *mods, cmp_mod_ptr);

    uint32_t n = 0, cap = 256;
    contrib *cs = malloc(cap * sizeof *cs);
    if (!cs) {
        free(mods);
        mlia_oom(cap * sizeof *cs);
    }
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        if (!e || strcmp(e->kind, "source_operator") != 0)
            continue;
        const mlia_metric *avg = mlia_entity_metric(e, "execution_time", "avg");
        const char *mod_id = attr_s(e, "nn_module");
        if (!avg || avg->type != MLIA_VALUE_DOUBLE || !mod_id)
            continue;
        const mlia_entity *m = mlia_result_find(r, mod_id);
        const char *key = call_key(e);
        /* the module and every enclosing module (parents of kind nn_module) */
        for (int depth = 0; m && depth < 256; depth++) {
            const mod_ref *ref = find_mod(mods, n_mods, m);
            if (!ref)
                break;
            if (n == cap) {
                cap *= 2;
                contrib *grown = realloc(cs, cap * sizeof *cs);
                if (!grown) {
                    free(cs);
                    free(mods);
                    mlia_oom(cap * sizeof *cs);
                }
                cs = grown;
            }
            cs[n++] = (contrib){ref->order, key, avg->d};
            const mlia_entity *up = NULL;
            for (uint32_t p = 0; p < m->n_parents && !up; p++)
                if (strcmp(m->parents[p]->kind, "nn_module") == 0)
                    up = m->parents[p];
            m = up;
        }
    }
    qsort(cs, n, sizeof *cs, cmp_contrib);
    for (uint32_t a = 0; a < n;) {
        uint32_t b = a;
        double sum = 0;
        uint32_t calls = 0;
        while (b < n && cs[b].module == cs[a].module) {
            if (b == a || strcmp(cs[b].key, cs[b - 1].key) != 0) {
                sum += cs[b].value;
                calls++;
            }
            b++;
        }
        mlia_entity *me = r->entities[cs[a].module];
        mlia_metric mt = mlia_metric_double("module_total_time", "ms", sum, "sum", 0);
        mlia_metric_qualify(&mt, "statistic", "avg");
        mlia_entity_add_metric(r, me, mt);
        mlia_entity_set_int(r, me, "module_measured_calls", calls);
        a = b;
    }
    free(cs);
    free(mods);
}
