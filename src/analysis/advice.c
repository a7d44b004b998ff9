/*
 * advice.c - the advice rules (see advice.h; each rule's trigger, threshold
 * and wording are in docs/advice.md, in the order of RULES below).
 *
 * Each rule looks at the result once and proposes at most one entry with an
 * impact (the share, in %, of the run's time or cycles it is about); the
 * proposals are then ranked by severity, impact and rule order, and the
 * first MLIA_ADVICE_MAX kept. Numbers in messages are formatted here with
 * plain C formatting (the analysis floor does not use the report floor's
 * formatter): integers with thousands separators, milliseconds with four
 * significant digits, shares as whole percents.
 */
#include "analysis/advice.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/display_name.h"
#include "core/str.h"

#define MAX_NAMED 4   /* operators / operations named in one message */
#define MAX_AFFECTED 8

typedef struct proposal {
    mlia_advice a;
    double impact;     /* % of time or cycles; 100 for correctness findings */
    int rule;          /* index in RULES: the last tie-break */
} proposal;

typedef struct advice_ctx {
    mlia_result *r;
    const mlia_advice_inputs *in;
    proposal props[16];
    uint32_t n_props;
} advice_ctx;

/* ---- reading the result ------------------------------------------------ */

static bool streq(const char *a, const char *b)
{
    return a && b && mlia_cstr_eq(a, b);
}

static bool numeric(const mlia_metric *m)
{
    return m && (m->type == MLIA_VALUE_UINT || m->type == MLIA_VALUE_DOUBLE);
}

static double value_of(const mlia_metric *m)
{
    return m->type == MLIA_VALUE_UINT ? (double)m->u : m->d;
}

/* The first numeric metric of the list with this name and statistic (NULL:
 * any or none), and attribution when given. */
static const mlia_metric *find_stat(const mlia_metric *ms, uint32_t n, const char *name, const char *stat,
                                    const char *attribution)
{
    for (uint32_t i = 0; i < n; i++) {
        const mlia_metric *m = &ms[i];
        if (!numeric(m) || !streq(m->name, name))
            continue;
        if (stat && !streq(mlia_metric_qualifier(m, "statistic"), stat))
            continue;
        if (attribution && !streq(mlia_metric_qualifier(m, "attribution"), attribution))
            continue;
        return m;
    }
    return NULL;
}

/* A model metric's value for a statistic; with one execution the NX
 * metrics carry no statistic (a "sum"), so fall back to the bare value. */
static bool model_value(const mlia_result *r, const char *name, const char *stat, double *out)
{
    const mlia_metric *m = find_stat(r->metrics, r->n_metrics, name, stat, NULL);
    if (!m)
        m = find_stat(r->metrics, r->n_metrics, name, NULL, NULL);
    if (!m)
        return false;
    *out = value_of(m);
    return true;
}

static bool entity_value(const mlia_entity *e, const char *name, const char *stat, const char *attribution,
                         double *out)
{
    const mlia_metric *m = find_stat(e->metrics, e->n_metrics, name, stat, attribution);
    if (!m && stat && streq(stat, "p50"))
        m = find_stat(e->metrics, e->n_metrics, name, NULL, attribution);
    if (!m)
        return false;
    *out = value_of(m);
    return true;
}

static const char *attr_str(const mlia_entity *e, const char *key)
{
    const mlia_attr *a = mlia_entity_attr(e, key);
    return a && a->type == MLIA_ATTR_STRING && a->s && a->s[0] ? a->s : NULL;
}

static uint32_t count_kind(const mlia_result *r, const char *kind)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_entities; i++)
        n += streq(r->entities[i]->kind, kind);
    return n;
}

/* ---- formatting -------------------------------------------------------- */

/* 230600 -> "230,600" (values are counts and cycles: non-negative). */
static void fmt_count(char *o, size_t cap, double v)
{
    char digits[32];
    snprintf(digits, sizeof digits, "%.0f", v < 0 ? 0 : v);
    size_t n = strlen(digits), k = 0;
    for (size_t i = 0; i < n && k + 2 < cap; i++) {
        if (i && (n - i) % 3 == 0)
            o[k++] = ',';
        o[k++] = digits[i];
    }
    o[k] = '\0';
}

static void fmt_ms(char *o, size_t cap, double v)
{
    snprintf(o, cap, "%.4g", v);
}

/* An operator as messages name it: its display name, then its source line
 * when the run recorded one ("aten.relu.default (head.act) at head.py:9"). */
static void put_operator(mlia_buf *b, const mlia_result *r, const mlia_entity *e)
{
    const char *shown = mlia_display_name(e);
    mlia_buf_puts(b, shown);
    const char *code = attr_str(e, "code_stack");
    const mlia_entity *ce = code ? mlia_result_find(r, code) : NULL;
    /* a display name told apart by its line already says it: "(lenet.py:20)" */
    if (ce && ce->name && ce->name[0] && !strstr(shown, ce->name))
        mlia_buf_printf(b, " at %s", ce->name);
}

/* ---- proposals --------------------------------------------------------- */

static proposal *propose(advice_ctx *c, int rule, const char *id, const char *category, const char *severity,
                         double impact)
{
    if (c->n_props == sizeof c->props / sizeof c->props[0])
        return NULL;
    proposal *p = &c->props[c->n_props++];
    memset(p, 0, sizeof *p);
    p->rule = rule;
    p->impact = impact;
    p->a.id = id;
    p->a.category = category;
    p->a.severity = severity;
    return p;
}

static void set_message(advice_ctx *c, proposal *p, mlia_buf *b)
{
    p->a.message = mlia_arena_strdup(c->r->arena, b->data ? b->data : "");
    mlia_buf_free(b);
}

static void affect(advice_ctx *c, proposal *p, const mlia_entity *e)
{
    if (!e || p->a.n_affected == MAX_AFFECTED)
        return;
    for (uint32_t i = 0; i < p->a.n_affected; i++)
        if (streq(p->a.affected[i], e->id))
            return;
    if (!p->a.affected)
        p->a.affected = mlia_arena_array(c->r->arena, MAX_AFFECTED, sizeof *p->a.affected);
    p->a.affected[p->a.n_affected++] = e->id;
}

static mlia_attr *detail(advice_ctx *c, proposal *p, const char *key, mlia_attr_type type)
{
    if (!p->a.details)
        p->a.details = mlia_arena_array(c->r->arena, 8, sizeof *p->a.details);
    if (p->a.n_details == 8)
        return NULL; /* no rule writes more than 8 */
    mlia_attr *d = &p->a.details[p->a.n_details++];
    memset(d, 0, sizeof *d);
    d->key = key;
    d->type = type;
    return d;
}

static void detail_num(advice_ctx *c, proposal *p, const char *key, double v)
{
    mlia_attr *d = detail(c, p, key, MLIA_ATTR_DOUBLE);
    if (d)
        d->d = v;
}

static void detail_int(advice_ctx *c, proposal *p, const char *key, int64_t v)
{
    mlia_attr *d = detail(c, p, key, MLIA_ATTR_INT);
    if (d)
        d->i = v;
}

static void detail_str(advice_ctx *c, proposal *p, const char *key, const char *v)
{
    mlia_attr *d = detail(c, p, key, MLIA_ATTR_STRING);
    if (d)
        d->s = mlia_arena_strdup(c->r->arena, v);
}

/* Shares are rounded to one decimal in details so that the JSON does not
 * carry the last bits of a division. */
static double share_of(double part, double whole)
{
    return whole > 0 ? round(1000.0 * part / whole) / 10.0 : 0;
}

/* ---- the rules (docs/advice.md, same order) ---------------------------- */

/* 1. nonfinite-output: the first operator (in the result's order, which is
 * the program's) whose output held NaN or infinite values. */
static void rule_nonfinite(advice_ctx *c, int rule)
{
    const mlia_result *r = c->r;
    const mlia_entity *first = NULL;
    double elements = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        double most;
        if (!streq(e->kind, "source_operator") || !entity_value(e, "output_nan_count", "max", NULL, &most) ||
            !(most > 0))
            continue;
        if (!first) {
            first = e;
            elements = most;
        }
        n++;
    }
    if (!first)
        return;
    proposal *p = propose(c, rule, "nonfinite-output", "compatibility", "warning", 100);
    if (!p)
        return;
    mlia_buf b;
    mlia_buf_init(&b);
    put_operator(&b, r, first);
    char num[32];
    fmt_count(num, sizeof num, elements);
    mlia_buf_printf(&b, " is the first operator whose output holds NaN or infinite values (up to %s element(s) in one "
                        "execution)",
                    num);
    if (n > 1)
        mlia_buf_printf(&b, "; %u operator(s) after it do too", n - 1);
    mlia_buf_puts(&b, ": fix it first, since later operators may only carry its values on (output_nan_count per "
                      "operator is in the page's accuracy overlay).");
    set_message(c, p, &b);
    affect(c, p, first);
    detail_int(c, p, "nan_elements_max", (int64_t)elements);
    detail_int(c, p, "operators_with_nonfinite_outputs", n);
}

/* 2. low-snr: the operator with the lowest P50 output SNR against the
 * reference capture, when it is below MLIA_ADVICE_LOW_SNR_DB. */
static void rule_low_snr(advice_ctx *c, int rule)
{
    const mlia_result *r = c->r;
    const mlia_entity *worst = NULL;
    double low = 0;
    uint32_t below = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        double snr;
        if (!streq(e->kind, "source_operator") || !entity_value(e, "output_snr_db", "p50", NULL, &snr))
            continue;
        if (snr < MLIA_ADVICE_LOW_SNR_DB)
            below++;
        if (!worst || snr < low) {
            worst = e;
            low = snr;
        }
    }
    if (!worst || !(low < MLIA_ADVICE_LOW_SNR_DB))
        return;
    proposal *p = propose(c, rule, "low-snr", "compatibility", "warning", 100);
    if (!p)
        return;
    mlia_buf b;
    mlia_buf_init(&b);
    put_operator(&b, r, worst);
    mlia_buf_printf(&b, " has the lowest output SNR against the reference: %.1f dB (P50, below %.0f dB", low,
                    MLIA_ADVICE_LOW_SNR_DB);
    if (below > 1)
        mlia_buf_printf(&b, "; %u operators are below it", below);
    mlia_buf_puts(&b, "): compare its data type and quantization with the reference run's before trusting its "
                      "timings.");
    set_message(c, p, &b);
    affect(c, p, worst);
    detail_num(c, p, "snr_db_p50", round(low * 10.0) / 10.0);
    detail_num(c, p, "threshold_db", MLIA_ADVICE_LOW_SNR_DB);
    detail_int(c, p, "operators_below_threshold", below);
}

/* The chain's short name: what follows the last '/' of its name
 * ("graph_segment_0/Chain 32" -> "Chain 32"), the whole name when the run
 * has several segments (the short name would be ambiguous). */
static const char *chain_name(const mlia_result *r, const mlia_entity *e)
{
    const char *n = e->name && e->name[0] ? e->name : e->id;
    if (count_kind(r, "segment") > 1)
        return n;
    const char *s = strrchr(n, '/');
    return s && s[1] ? s + 1 : n;
}

/* 3. hot-chain: the chain with the most P50 cycles when it takes at least
 * MLIA_ADVICE_HOT_SHARE % of the cycles and there is more than one chain. */
static void rule_hot_chain(advice_ctx *c, int rule)
{
    const mlia_result *r = c->r;
    const mlia_entity *top = NULL;
    double top_v = 0, sum = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        double v;
        if (!streq(e->kind, "chain") || !entity_value(e, "total_cycles", "p50", NULL, &v))
            continue;
        n++;
        sum += v;
        if (!top || v > top_v) {
            top = e;
            top_v = v;
        }
    }
    double total;
    if (!model_value(r, "total_cycles", "p50", &total) || total < sum)
        total = sum;
    if (n < 2 || !(total > 0))
        return;
    double share = 100.0 * top_v / total;
    if (share < MLIA_ADVICE_HOT_SHARE)
        return;
    proposal *p = propose(c, rule, "hot-chain", "optimization", "info", share);
    if (!p)
        return;
    char a[32], t[32];
    fmt_count(a, sizeof a, top_v);
    fmt_count(t, sizeof t, total);
    mlia_buf b;
    mlia_buf_init(&b);
    const char *name = chain_name(r, top);
    mlia_buf_printf(&b, "%s spends %.0f %% of the accelerator's cycles (%s of %s, P50)", name, share, a, t);
    affect(c, p, top);
    uint32_t ops = 0;
    for (uint32_t k = 0; k < top->n_children; k++) {
        const mlia_entity *ch = top->children[k];
        if (!streq(ch->kind, "source_operator"))
            continue;
        if (ops < MAX_NAMED) {
            mlia_buf_puts(&b, ops ? ", " : "; it runs ");
            put_operator(&b, r, ch);
            affect(c, p, ch);
        }
        ops++;
    }
    if (ops > MAX_NAMED)
        mlia_buf_printf(&b, " and %u more", ops - MAX_NAMED);
    /* the compiled operations (their names, each once, in link order) */
    const char *seen[MAX_NAMED];
    uint32_t n_seen = 0;
    for (uint32_t k = 0; k < top->n_children && n_seen < MAX_NAMED; k++) {
        const mlia_entity *ch = top->children[k];
        if (!streq(ch->kind, "compiler_operation") || !ch->name || !ch->name[0])
            continue;
        bool dup = false;
        for (uint32_t q = 0; q < n_seen; q++)
            dup |= streq(seen[q], ch->name);
        if (!dup)
            seen[n_seen++] = ch->name;
    }
    for (uint32_t q = 0; q < n_seen; q++)
        mlia_buf_printf(&b, "%s%s", q ? ", " : " (compiled as ", seen[q]);
    if (n_seen)
        mlia_buf_puts(&b, ")");
    mlia_buf_puts(&b, ": start there; the page's chain view shows its stripes and operations.");
    set_message(c, p, &b);
    detail_str(c, p, "chain", name);
    detail_num(c, p, "share_percent", share_of(top_v, total));
    detail_num(c, p, "cycles_p50", top_v);
    detail_num(c, p, "total_cycles_p50", total);
}

/* 4. hot-operator: the operator measured on its own (exclusive attribution)
 * with the largest P50 execution time, when it takes at least
 * MLIA_ADVICE_HOT_SHARE % of the P50 inference time. */
static void rule_hot_operator(advice_ctx *c, int rule)
{
    const mlia_result *r = c->r;
    double inference;
    if (!model_value(r, "inference_time", "p50", &inference) || !(inference > 0))
        return;
    const mlia_entity *top = NULL;
    double top_v = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        double v;
        if (!streq(e->kind, "source_operator") || !entity_value(e, "execution_time", "p50", "exclusive", &v))
            continue;
        if (!top || v > top_v) {
            top = e;
            top_v = v;
        }
    }
    if (!top)
        return;
    double share = 100.0 * top_v / inference;
    if (share < MLIA_ADVICE_HOT_SHARE)
        return;
    proposal *p = propose(c, rule, "hot-operator", "performance", "info", share);
    if (!p)
        return;
    char a[32], t[32];
    fmt_ms(a, sizeof a, top_v);
    fmt_ms(t, sizeof t, inference);
    mlia_buf b;
    mlia_buf_init(&b);
    put_operator(&b, r, top);
    mlia_buf_printf(&b, " takes %.0f %% of the inference time (%s of %s ms, P50), the most of any operator measured "
                        "on its own: start there.",
                    share, a, t);
    set_message(c, p, &b);
    affect(c, p, top);
    detail_num(c, p, "share_percent", share_of(top_v, inference));
    detail_num(c, p, "execution_time_ms_p50", top_v);
    detail_num(c, p, "inference_time_ms_p50", inference);
}

/* The members of a shared measurement (the operator and its shared_with),
 * so that the group's time is counted once when summing. */
static double group_size(const mlia_entity *e)
{
    const mlia_attr *cnt = mlia_entity_attr(e, "shared_with_count");
    if (cnt && cnt->type == MLIA_ATTR_INT && cnt->i > 0)
        return 1.0 + (double)cnt->i;
    const mlia_attr *with = mlia_entity_attr(e, "shared_with");
    return with && with->type == MLIA_ATTR_STRING_LIST ? 1.0 + with->n : 1.0;
}

typedef struct ranked_op {
    const mlia_entity *e;
    double v;
    uint32_t index;
} ranked_op;

static int cmp_ranked_op(const void *pa, const void *pb)
{
    const ranked_op *a = pa, *b = pb;
    if (a->v != b->v)
        return a->v > b->v ? -1 : 1;
    return (a->index > b->index) - (a->index < b->index);
}

/* 5. outside-delegates: with at least one delegate call, the operators that
 * ran outside every delegate, when together they take at least
 * MLIA_ADVICE_OUTSIDE_SHARE % of the P50 inference time. */
static void rule_outside_delegates(advice_ctx *c, int rule)
{
    const mlia_result *r = c->r;
    double inference;
    if (!count_kind(r, "delegate_call") || !model_value(r, "inference_time", "p50", &inference) || !(inference > 0))
        return;
    ranked_op top[MAX_NAMED + 1];
    uint32_t n_top = 0, n = 0;
    double sum = 0;
    for (uint32_t i = 0; i < r->n_entities; i++) {
        const mlia_entity *e = r->entities[i];
        double v;
        if (!streq(e->kind, "source_operator") || mlia_entity_attr(e, "delegate_call") ||
            !entity_value(e, "execution_time", "p50", NULL, &v))
            continue;
        n++;
        sum += v / group_size(e);
        ranked_op x = {e, v, i};
        if (n_top <= MAX_NAMED)
            top[n_top++] = x;
        else if (v > top[MAX_NAMED].v)
            top[MAX_NAMED] = x;
        qsort(top, n_top, sizeof *top, cmp_ranked_op);
    }
    if (!n)
        return;
    double share = 100.0 * sum / inference;
    if (share < MLIA_ADVICE_OUTSIDE_SHARE)
        return;
    proposal *p = propose(c, rule, "outside-delegates", "performance", "info", share);
    if (!p)
        return;
    char a[32], t[32], m[32];
    fmt_ms(a, sizeof a, sum);
    fmt_ms(t, sizeof t, inference);
    fmt_ms(m, sizeof m, top[0].v);
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_printf(&b, "%u operator(s) ran outside the delegates, on ExecuTorch's own kernels, and take %.0f %% of the "
                        "inference time (%s of %s ms, P50); the most expensive is ",
                    n, share, a, t);
    put_operator(&b, r, top[0].e);
    mlia_buf_printf(&b, " (%s ms%s): check why the partitioner left them out (an unsupported operator, data type or "
                        "shape) and whether a delegate can take them.",
                    m, group_size(top[0].e) > 1 ? ", one call shared with other operators" : "");
    set_message(c, p, &b);
    for (uint32_t k = 0; k < n_top && k < MAX_NAMED; k++)
        affect(c, p, top[k].e);
    detail_int(c, p, "operators_outside_delegates", n);
    detail_num(c, p, "share_percent", share_of(sum, inference));
    detail_num(c, p, "time_ms_p50", round(sum * 1e6) / 1e6); /* ns precision, no division noise */
    detail_num(c, p, "inference_time_ms_p50", inference);
}

/* 6. unstable-inference-time: with 3 or more executions, (max - min) / P50
 * of the inference time at least MLIA_ADVICE_UNSTABLE_SPREAD %. */
static void rule_unstable(advice_ctx *c, int rule)
{
    const mlia_result *r = c->r;
    double p50, lo, hi;
    if (c->in->n_executions < 3 || !model_value(r, "inference_time", "p50", &p50) ||
        !model_value(r, "inference_time", "min", &lo) || !model_value(r, "inference_time", "max", &hi) ||
        !(p50 > 0))
        return;
    double spread = 100.0 * (hi - lo) / p50;
    if (spread < MLIA_ADVICE_UNSTABLE_SPREAD)
        return;
    proposal *p = propose(c, rule, "unstable-inference-time", "performance", "info", spread > 100 ? 100 : spread);
    if (!p)
        return;
    char a[32], t[32], m[32];
    fmt_ms(a, sizeof a, lo);
    fmt_ms(t, sizeof t, hi);
    fmt_ms(m, sizeof m, p50);
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_printf(&b, "The inference time varies by %.0f %% of its P50 between executions (min %s, max %s, P50 %s ms)",
                    spread, a, t, m);
    if (!c->in->warmup_executions)
        mlia_buf_puts(&b, ": if the first executions are the slow ones, leave them out as warm-up "
                          "(--warmup-executions 1), and keep the device's clock and load steady while capturing.");
    else
        mlia_buf_printf(&b, " even with %u warm-up execution(s) left out: keep the device's clock and load steady "
                            "while capturing.",
                        c->in->warmup_executions);
    set_message(c, p, &b);
    detail_num(c, p, "spread_percent", share_of(hi - lo, p50));
    detail_num(c, p, "inference_time_ms_min", lo);
    detail_num(c, p, "inference_time_ms_max", hi);
}

/* 7. few-executions: fewer than MLIA_ADVICE_FEW_EXECUTIONS analysed
 * executions (at least one). */
static void rule_few_executions(advice_ctx *c, int rule)
{
    uint32_t n = c->in->n_executions;
    if (!n || n >= MLIA_ADVICE_FEW_EXECUTIONS)
        return;
    proposal *p = propose(c, rule, "few-executions", "performance", "info", 0);
    if (!p)
        return;
    mlia_buf b;
    mlia_buf_init(&b);
    if (n == 1)
        mlia_buf_puts(&b, "Only 1 execution was analysed, so P50, min and max are that one sample");
    else
        mlia_buf_printf(&b, "Only %u executions were analysed, so P50, min and max rest on %u samples", n, n);
    mlia_buf_puts(&b, ": capture more (e.g. run the method 10 times into one ETDump, or repeat --profiling-data with "
                      "several captures) before trusting small differences.");
    set_message(c, p, &b);
    detail_int(c, p, "executions", n);
    detail_int(c, p, "recommended_executions", 10);
}

typedef void (*advice_rule)(advice_ctx *c, int rule);

/* docs/advice.md lists the rules in this order. */
static const advice_rule RULES[] = {
    rule_nonfinite, rule_low_snr, rule_hot_chain, rule_hot_operator, rule_outside_delegates, rule_unstable,
    rule_few_executions,
};

static int severity_rank(const char *s)
{
    return streq(s, "error") ? 0 : streq(s, "warning") ? 1 : 2;
}

static int cmp_proposal(const void *pa, const void *pb)
{
    const proposal *a = pa, *b = pb;
    int sa = severity_rank(a->a.severity), sb = severity_rank(b->a.severity);
    if (sa != sb)
        return sa - sb;
    if (a->impact != b->impact)
        return a->impact > b->impact ? -1 : 1;
    return a->rule - b->rule;
}

void mlia_advise(mlia_result *r, const mlia_advice_inputs *in)
{
    advice_ctx c;
    memset(&c, 0, sizeof c);
    c.r = r;
    c.in = in;
    for (int i = 0; i < (int)(sizeof RULES / sizeof RULES[0]); i++)
        RULES[i](&c, i);
    qsort(c.props, c.n_props, sizeof c.props[0], cmp_proposal);
    uint32_t n = c.n_props < MLIA_ADVICE_MAX ? c.n_props : MLIA_ADVICE_MAX;
    r->n_advice = n;
    r->advice = n ? mlia_arena_array(r->arena, n, sizeof *r->advice) : NULL;
    for (uint32_t i = 0; i < n; i++)
        r->advice[i] = c.props[i].a;
}
