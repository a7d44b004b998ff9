/*
 * accuracy.c - numerical accuracy from intermediate outputs (see accuracy.h
 * for the contract, docs/accuracy.md for the rules).
 *
 * Design
 * ------
 * 1. Targets: every call_function node of the edge program, plus the
 *    delegate calls whose outputs were logged (added as they are met).
 * 2. Per execution, the run's (and the paired reference execution's) debug
 *    events are grouped by site (chain, instruction, delegate debug id) in
 *    file order. A site offers its values to targets: a kernel's first
 *    output to the last node (graph order) of its debug handles; a delegate
 *    call's outputs (the last num_outs of its logged arguments) to the
 *    delegated region's output nodes, and its first output to the delegate
 *    call itself; a backend value with a delegate debug id to the last node
 *    of that id's handles. When several sites offer to one target, the
 *    highest instruction wins (ExecuTorch's Inspector keeps the last
 *    instruction of a shared debug handle), then the later event. Program
 *    outputs go to the node that produces the graph output, only when no
 *    operator output reached it.
 * 3. Each target with a run value is measured: the tensor is decoded in
 *    chunks, statistics accumulate in double precision with compensated
 *    sums; with a reference value of the same layout, the error metrics too.
 *    One value per metric, target and execution is kept (NaN = none, with
 *    the first reason met).
 * 4. Summaries: nearest-rank P50 (lower median), min and max over the
 *    executions with a value; an infinite statistic (SNR of identical
 *    outputs) is an unavailable metric with its reason.
 */
#include "accuracy.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/oom.h"
#include "core/str.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"

enum { M_MIN, M_MAX, M_MEAN, M_NAN, M_MSE, M_MAXABS, M_SNR, M_COS, M_L1 };

const char *const accuracy_metric_names[ACCURACY_N_METRICS] = {
    "output_min", "output_max", "output_mean", "output_nan_count",
    "output_mse", "output_max_abs_error", "output_snr_db", "output_cosine_similarity", "output_l1_error"};

const char *accuracy_metric_unit(const char *name)
{
    return name && strcmp(name, "output_snr_db") == 0 ? "dB" : "";
}

/* ------------------------------------------------------------------ */
/* compensated sums (Neumaier)                                          */

typedef struct ksum {
    double s, c;
} ksum;

static inline void ksum_add(ksum *k, double x)
{
    double t = k->s + x;
    if (fabs(k->s) >= fabs(x))
        k->c += (k->s - t) + x;
    else
        k->c += (x - t) + k->s;
    k->s = t;
}

static inline double ksum_value(const ksum *k)
{
    return k->s + k->c;
}

/* ------------------------------------------------------------------ */
/* state                                                                */

/* A measured target: one entity's values per metric and execution. */
typedef struct acc_slot {
    mlia_entity *ent;
    double *v;                       /* [ACCURACY_N_METRICS][n_exec], NaN = no value */
    const char *reason[ACCURACY_N_METRICS];
    uint32_t n_snr_pos_inf, n_snr_neg_inf, n_compared;
    bool warned_layout, warned_dtype, missing_in_reference, compared_any;
} acc_slot;

/* The value a target received in one execution. */
typedef struct choice {
    const etdump_debug_value *v;     /* NULL: none */
    int64_t instr;
    uint32_t pos;                    /* event index in its run */
    uint32_t run;                    /* ETDump run index */
} choice;

/* A delegate call whose outputs were logged: target n_nodes + index. */
typedef struct acc_delegate {
    int64_t instr;
    uint32_t n_out;
    uint32_t *out_nodes;             /* region output nodes, graph order */
} acc_delegate;

/* One debug event of a run, for grouping by site. */
typedef struct dbg_item {
    uint32_t pos;                    /* event index */
    const etdump_event *ev;
    const etdump_debug_value *v;
} dbg_item;

typedef struct handle_node {
    int64_t handle;
    uint32_t node;
} handle_node;

typedef struct acc_state {
    const accuracy_inputs *in;
    mlia_result *result;
    mlia_arena *arena;
    accuracy_analysis *out;
    const ep_graph *g;
    uint32_t n_nodes, n_exec;
    handle_node *hn;                 /* sorted by handle, then node */
    uint32_t nh;
    int64_t *producer;               /* node index producing each tensor name (hash) */
    const char **prod_keys;
    uint32_t prod_cap;
    uint32_t *node_slot;             /* [n_nodes + cap_deleg], UINT32_MAX = none */
    acc_slot *slots;
    uint32_t n_slots, cap_slots;
    acc_delegate *deleg;
    uint32_t n_deleg, cap_deleg;
    choice *ch_run, *ch_ref;         /* [n_nodes + cap_deleg] */
    uint32_t *touched;               /* targets set in this execution */
    uint32_t n_touched, cap_touched;
    dbg_item *items;
    uint32_t cap_items;
    bool *in_region;                 /* [n_nodes] scratch */
    /* decode scratch */
    uint8_t *raw_a, *raw_b;
    double *a, *b;
} acc_state;

/* ------------------------------------------------------------------ */
/* graph indexes                                                        */

static int cmp_handle_node(const void *x, const void *y)
{
    const handle_node *a = x, *b = y;
    if (a->handle != b->handle)
        return a->handle < b->handle ? -1 : 1;
    return a->node < b->node ? -1 : (a->node > b->node);
}

static uint64_t str_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 1099511628211ull;
    return h;
}

static void producer_put(acc_state *st, const char *name, uint32_t node)
{
    uint32_t mask = st->prod_cap - 1;
    for (uint32_t i = (uint32_t)str_hash(name) & mask;; i = (i + 1) & mask) {
        if (!st->prod_keys[i]) {
            st->prod_keys[i] = name;
            st->producer[i] = node;
            return;
        }
        if (strcmp(st->prod_keys[i], name) == 0)
            return; /* first producer wins */
    }
}

static int64_t producer_of(const acc_state *st, const char *name)
{
    if (!st->prod_cap || !name)
        return -1;
    uint32_t mask = st->prod_cap - 1;
    for (uint32_t i = (uint32_t)str_hash(name) & mask; st->prod_keys[i]; i = (i + 1) & mask)
        if (strcmp(st->prod_keys[i], name) == 0)
            return st->producer[i];
    return -1;
}

static void build_indexes(acc_state *st)
{
    const ep_graph *g = st->g;
    uint32_t nh = 0, n_out = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        nh += g->nodes[i].debug_handle != 0;
        n_out += g->nodes[i].n_outputs;
    }
    st->hn = mlia_arena_array(st->arena, nh ? nh : 1, sizeof *st->hn);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].debug_handle)
            st->hn[st->nh++] = (handle_node){g->nodes[i].debug_handle, i};
    qsort(st->hn, st->nh, sizeof *st->hn, cmp_handle_node);
    uint32_t cap = 16;
    while (cap < 2 * (n_out + 1))
        cap *= 2;
    st->prod_cap = cap;
    st->prod_keys = mlia_arena_array(st->arena, cap, sizeof *st->prod_keys);
    st->producer = mlia_arena_array(st->arena, cap, sizeof *st->producer);
    for (uint32_t i = 0; i < g->n_nodes; i++)
        for (uint32_t k = 0; k < g->nodes[i].n_outputs; k++)
            if (g->nodes[i].outputs[k])
                producer_put(st, g->nodes[i].outputs[k], i);
}

/* Visit the nodes that carry handle h (graph order). */
static const handle_node *handle_first(const acc_state *st, int64_t h)
{
    const handle_node *lo = st->hn, *hi = st->hn + st->nh;
    while (lo < hi) {
        const handle_node *mid = lo + (hi - lo) / 2;
        if (mid->handle < h)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Last node in graph order among the nodes of handles h[0..n), or UINT32_MAX. */
static uint32_t last_node_of(const acc_state *st, const etrecord_handles *h)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t j = 0; j < h->n; j++)
        for (const handle_node *p = handle_first(st, h->v[j]); p < st->hn + st->nh && p->handle == h->v[j]; p++)
            if (best == UINT32_MAX || p->node > best)
                best = p->node;
    return best;
}

/* ------------------------------------------------------------------ */
/* targets and slots                                                    */

static void ensure_targets(acc_state *st, uint32_t cap_deleg)
{
    if (cap_deleg <= st->cap_deleg && st->ch_run)
        return;
    uint32_t old = st->ch_run ? st->n_nodes + st->cap_deleg : 0, nc = st->n_nodes + cap_deleg;
    st->node_slot = mlia_arena_grow(st->arena, st->node_slot, old, nc, sizeof *st->node_slot);
    for (uint32_t i = old; i < nc; i++)
        st->node_slot[i] = UINT32_MAX;
    st->ch_run = mlia_arena_grow(st->arena, st->ch_run, old, nc, sizeof *st->ch_run);
    st->ch_ref = mlia_arena_grow(st->arena, st->ch_ref, old, nc, sizeof *st->ch_ref);
    st->deleg = mlia_arena_grow(st->arena, st->deleg, st->cap_deleg, cap_deleg, sizeof *st->deleg);
    st->cap_deleg = cap_deleg;
}

static uint32_t slot_of(acc_state *st, uint32_t target)
{
    if (st->node_slot[target] != UINT32_MAX)
        return st->node_slot[target];
    st->slots = mlia_arena_room(st->arena, st->slots, st->n_slots, &st->cap_slots, sizeof *st->slots);
    acc_slot *s = &st->slots[st->n_slots];
    memset(s, 0, sizeof *s);
    if (target < st->n_nodes) {
        s->ent = st->in->node_entities[target];
    } else {
        /* the runtime analysis made the delegate call's entity when it was
         * profiled; otherwise it is made here, as the runtime would */
        acc_delegate *d = &st->deleg[target - st->n_nodes];
        const etrecord_delegate_entry *de = &st->in->maps->delegates[d->instr];
        char *id = mlia_arena_printf(st->arena, "delegate_call/%s/0/%" PRId64, st->in->method, d->instr);
        mlia_entity *e = mlia_result_find(st->result, id);
        if (!e) {
            e = mlia_result_entity(st->result, id, "delegate_call", de->backend ? de->backend : "delegate");
            mlia_entity_set_str(st->result, e, "backend", de->backend ? de->backend : "");
            mlia_entity_set_int(st->result, e, "chain", 0);
            mlia_entity_set_int(st->result, e, "instruction", d->instr);
        }
        s->ent = e;
    }
    s->v = mlia_arena_array(st->arena, (size_t)ACCURACY_N_METRICS * (st->n_exec ? st->n_exec : 1), sizeof(double));
    for (size_t i = 0; i < (size_t)ACCURACY_N_METRICS * st->n_exec; i++)
        s->v[i] = NAN;
    st->node_slot[target] = st->n_slots;
    return st->n_slots++;
}

static inline double *slot_v(const acc_state *st, acc_slot *s, int m, uint32_t x)
{
    return &s->v[(size_t)m * st->n_exec + x];
}

static void slot_reason(acc_slot *s, int m, const char *why)
{
    if (!s->reason[m])
        s->reason[m] = why;
}

/* The delegate call target of instruction instr (created on first use). */
static uint32_t delegate_target(acc_state *st, int64_t instr)
{
    for (uint32_t d = 0; d < st->n_deleg; d++)
        if (st->deleg[d].instr == instr)
            return st->n_nodes + d;
    if (st->n_deleg == st->cap_deleg)
        ensure_targets(st, st->cap_deleg ? st->cap_deleg * 2 : 4);
    acc_delegate *d = &st->deleg[st->n_deleg];
    memset(d, 0, sizeof *d);
    d->instr = instr;
    const etrecord_delegate_entry *de = &st->in->maps->delegates[instr];
    /* the delegated region: the nodes of the call's handles and of its
     * inner delegate_map's handles; its output nodes are those whose result
     * is read outside it or returned by the graph, in graph order */
    const ep_graph *g = st->g;
    uint32_t n_region = 0;
    for (uint32_t q = 0; q <= de->n_keys; q++) {
        const etrecord_handles *h = q < de->n_keys ? &de->handles[q] : &st->in->maps->debug_handles[instr];
        for (uint32_t j = 0; j < h->n; j++)
            for (const handle_node *p = handle_first(st, h->v[j]); p < st->hn + st->nh && p->handle == h->v[j];
                 p++)
                if (!st->in_region[p->node]) {
                    st->in_region[p->node] = true;
                    n_region++;
                }
    }
    bool *is_out = mlia_arena_array(st->arena, st->n_nodes ? st->n_nodes : 1, sizeof *is_out);
    for (uint32_t i = 0; i < g->n_nodes && n_region; i++) {
        if (st->in_region[i])
            continue;
        const ep_node *nd = &g->nodes[i];
        for (uint32_t a = 0; a < nd->n_inputs; a++)
            for (uint32_t t = 0; t < nd->inputs[a].n_tensors; t++) {
                int64_t p = producer_of(st, nd->inputs[a].tensors[t]);
                if (p >= 0 && st->in_region[p])
                    is_out[p] = true;
            }
    }
    for (uint32_t o = 0; o < g->n_outputs; o++) {
        int64_t p = producer_of(st, g->outputs[o]);
        if (p >= 0 && st->in_region[p])
            is_out[p] = true;
    }
    for (uint32_t i = 0; i < g->n_nodes; i++)
        d->n_out += is_out[i];
    d->out_nodes = mlia_arena_array(st->arena, d->n_out ? d->n_out : 1, sizeof *d->out_nodes);
    d->n_out = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        if (is_out[i])
            d->out_nodes[d->n_out++] = i;
        st->in_region[i] = false;
    }
    return st->n_nodes + st->n_deleg++;
}

/* ExecuTorch ScalarType of a serde dtype (exported_program.h), -1 unknown. */
static int serde_to_scalar_type(int64_t dt)
{
    if (dt >= 1 && dt <= 8)
        return (int)dt - 1; /* BYTE..DOUBLE */
    switch (dt) {
    case 12: return 11;     /* BOOL */
    case 13: return 15;     /* BFLOAT16 */
    case 28: return 27;     /* UINT16 */
    default: return -1;
    }
}

/* Does node's first output have the shape (and, when known, the dtype) of t? */
static bool node_output_matches(const acc_state *st, uint32_t node, const debug_tensor *t)
{
    const ep_node *nd = &st->g->nodes[node];
    if (!nd->n_outputs)
        return false;
    const ep_tensor_meta *m = ep_tensor(st->g, nd->outputs[0]);
    if (!m || m->rank != t->n_dims)
        return false;
    for (uint32_t i = 0; i < m->rank; i++)
        if (m->sizes[i] != debug_tensor_dim(t, i))
            return false;
    int dt = serde_to_scalar_type(m->dtype);
    return dt < 0 || dt == t->scalar_type;
}

/* Region output node of output k of a delegate call: the only region output
 * with the tensor's shape and dtype, else the k-th in graph order. */
static uint32_t delegate_output_node(const acc_state *st, const acc_delegate *d, uint32_t k,
                                     const etdump_debug_value *v)
{
    debug_tensor t;
    if (debug_tensor_of(v, &t)) {
        uint32_t found = UINT32_MAX, n = 0;
        for (uint32_t i = 0; i < d->n_out; i++)
            if (node_output_matches(st, d->out_nodes[i], &t)) {
                found = d->out_nodes[i];
                n++;
            }
        if (n == 1)
            return found;
    }
    return k < d->n_out ? d->out_nodes[k] : UINT32_MAX;
}

/* ------------------------------------------------------------------ */
/* attribution                                                          */

/* Offer value `it` to target on one side (the run, or the reference when
 * `ref`). The choice arrays are looked up here: they move when a delegate
 * target is added. */
static void offer(acc_state *st, bool ref, uint32_t target, const dbg_item *it, int64_t instr, uint32_t run)
{
    choice *c = &(ref ? st->ch_ref : st->ch_run)[target];
    if (c->v && (instr < c->instr || (instr == c->instr && it->pos < c->pos)))
        return;
    if (!st->ch_run[target].v && !st->ch_ref[target].v) {
        st->touched = mlia_heap_room(st->touched, st->n_touched, &st->cap_touched, sizeof *st->touched, 64);
        st->touched[st->n_touched++] = target;
    }
    c->v = it->v;
    c->instr = instr;
    c->pos = it->pos;
    c->run = run;
}

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static int cmp_site(const void *x, const void *y)
{
    const dbg_item *a = x, *b = y;
    const etdump_event *p = a->ev, *q = b->ev;
    int c = cmp_i64(p->chain_index, q->chain_index);
    if (!c)
        c = cmp_i64(p->instruction_id, q->instruction_id);
    if (!c)
        c = cmp_i64(p->delegate_debug_id_int, q->delegate_debug_id_int);
    if (c)
        return c;
    const mlia_str *s = &p->delegate_debug_id_str, *t = &q->delegate_debug_id_str;
    if (!s->ptr != !t->ptr)
        return s->ptr ? 1 : -1;
    if (s->ptr) {
        size_t n = s->len < t->len ? s->len : t->len;
        c = memcmp(s->ptr, t->ptr, n);
        if (c || s->len != t->len)
            return c ? c : (s->len < t->len ? -1 : 1);
    }
    return a->pos < b->pos ? -1 : (a->pos > b->pos);
}

static bool same_site(const etdump_event *p, const etdump_event *q)
{
    return p->chain_index == q->chain_index && p->instruction_id == q->instruction_id &&
           p->delegate_debug_id_int == q->delegate_debug_id_int &&
           !p->delegate_debug_id_str.ptr == !q->delegate_debug_id_str.ptr &&
           (!p->delegate_debug_id_str.ptr || (p->delegate_debug_id_str.len == q->delegate_debug_id_str.len &&
                                              memcmp(p->delegate_debug_id_str.ptr, q->delegate_debug_id_str.ptr,
                                                     p->delegate_debug_id_str.len) == 0));
}

/* Resolve one site's values (items[0..n), file order) into offers.
 * Returns how many of its values reached no target. */
static uint32_t resolve_site(acc_state *st, bool ref, const dbg_item *items, uint32_t n, uint32_t run)
{
    const etdump_event *ev = items[0].ev;
    const etrecord_method *maps = st->in->maps;
    int64_t instr = ev->instruction_id;
    if (!maps || !st->n_nodes || ev->chain_index != 0 || instr < 0 || (uint64_t)instr >= maps->n_instr)
        return n;
    const etrecord_delegate_entry *de = &maps->delegates[instr];
    bool has_id = ev->delegate_debug_id_int >= 0 || ev->delegate_debug_id_str.ptr;
    if (has_id) {
        /* a backend's own value: its delegate debug id names handles */
        if (!de->present)
            return n;
        char num[24];
        const char *key = NULL;
        size_t klen = 0;
        if (ev->delegate_debug_id_str.ptr) {
            key = ev->delegate_debug_id_str.ptr;
            klen = ev->delegate_debug_id_str.len;
        } else {
            klen = (size_t)snprintf(num, sizeof num, "%" PRId32, ev->delegate_debug_id_int);
            key = num;
        }
        for (uint32_t q = 0; q < de->n_keys; q++)
            if (strlen(de->keys[q]) == klen && memcmp(de->keys[q], key, klen) == 0) {
                uint32_t node = last_node_of(st, &de->handles[q]);
                if (node == UINT32_MAX)
                    return n;
                offer(st, ref, node, &items[n - 1], instr, run);
                return n - 1;
            }
        return n;
    }
    if (de->present) {
        /* a delegate call logs every argument; its outputs are the last num_outs */
        uint32_t outs = maps->num_outs[instr] > 0 ? (uint32_t)maps->num_outs[instr] : 1;
        if (outs > n)
            outs = n;
        uint32_t dt = delegate_target(st, instr);
        const acc_delegate *d = &st->deleg[dt - st->n_nodes];
        uint32_t lost = n - outs;
        for (uint32_t k = 0; k < outs; k++) {
            const dbg_item *it = &items[n - outs + k];
            uint32_t node = delegate_output_node(st, d, k, it->v);
            if (node != UINT32_MAX)
                offer(st, ref, node, it, instr, run);
            if (k == 0)
                offer(st, ref, dt, it, instr, run);
        }
        return lost;
    }
    const etrecord_handles *h = &maps->debug_handles[instr];
    if (!h->present)
        return n;
    uint32_t node = last_node_of(st, h);
    if (node == UINT32_MAX)
        return n;
    /* a kernel logs its out arguments in order: the first is its result */
    offer(st, ref, node, &items[0], instr, run);
    return n - 1;
}

/* Attribute the debug events of run `run` (decoded in evs) to targets, on
 * the run's side or the reference's (`ref`). Counts operator / program
 * outputs and unmatched values on the run's side. */
static void attribute(acc_state *st, const etdump_events *evs, uint32_t run, bool ref)
{
    uint32_t n = 0;
    st->items = mlia_heap_reserve(st->items, evs->n_debug, &st->cap_items, sizeof *st->items);
    for (uint32_t k = 0; k < evs->n; k++) {
        const etdump_event *e = &evs->ev[k];
        if (e->kind != ETDUMP_EVENT_DEBUG)
            continue;
        const etdump_debug_value *v = &evs->debug_values[e->debug_index];
        if (!v->present || v->output)
            continue;
        st->items[n++] = (dbg_item){k, e, v};
    }
    bool count = !ref;
    if (count)
        st->out->n_run_outputs += n;
    if (n > 1) /* items is NULL while no run had debug events (UBSan: qsort(NULL, 0)) */
        qsort(st->items, n, sizeof *st->items, cmp_site);
    uint64_t unmatched = 0;
    for (uint32_t i = 0; i < n;) {
        uint32_t j = i + 1;
        while (j < n && same_site(st->items[i].ev, st->items[j].ev))
            j++;
        /* back to file order within the site (the sort's last key) */
        unmatched += resolve_site(st, ref, &st->items[i], j - i, run);
        i = j;
    }
    if (count)
        st->out->n_unmatched += unmatched;
    /* program outputs: to the producer of graph output o, when nothing else reached it */
    uint32_t o = 0;
    for (uint32_t k = 0; k < evs->n; k++) {
        const etdump_event *e = &evs->ev[k];
        if (e->kind != ETDUMP_EVENT_DEBUG)
            continue;
        const etdump_debug_value *v = &evs->debug_values[e->debug_index];
        if (!v->present || !v->output)
            continue;
        if (count)
            st->out->n_program_outputs++;
        if (st->g && o < st->g->n_outputs) {
            int64_t p = producer_of(st, st->g->outputs[o]);
            if (p >= 0 && !(ref ? st->ch_ref : st->ch_run)[p].v) {
                dbg_item it = {k, e, v};
                offer(st, ref, (uint32_t)p, &it, -1, run);
            }
        }
        o++;
    }
}

/* Check every tensor of the run's debug events against the buffer. */
static int check_tensors(const acc_state *st, const accuracy_capture *c, const etdump_events *evs, uint32_t run,
                         bool *any, mlia_error *err)
{
    for (uint32_t k = 0; k < evs->n; k++) {
        const etdump_event *e = &evs->ev[k];
        if (e->kind != ETDUMP_EVENT_DEBUG)
            continue;
        const etdump_debug_value *v = &evs->debug_values[e->debug_index];
        if (!v->present || (v->value_type != ETDUMP_VALUE_TENSOR && v->value_type != ETDUMP_VALUE_TENSOR_LIST))
            continue;
        *any = true;
        if (!c->buffer)
            continue;
        char where[160];
        snprintf(where, sizeof where, "%s: run_data[%u].events[%u]", c->dump->file ? c->dump->file : c->label, run,
                 k);
        if (debug_buffer_check(c->buffer, v, where, err) < 0)
            return -1;
    }
    (void)st;
    return 0;
}

/* ------------------------------------------------------------------ */
/* measurement                                                          */

static const char *target_label(const acc_state *st, const acc_slot *s)
{
    (void)st;
    return s->ent->id;
}

/* Measure one target in execution x: the run's value rv, the reference's fv
 * (NULL when none), compare = a reference execution is paired. */
static int measure(acc_state *st, uint32_t target, uint32_t x, const etdump_debug_value *rv,
                   const etdump_debug_value *fv, bool compare, mlia_error *err)
{
    debug_tensor rt, ft;
    if (!debug_tensor_of(rv, &rt))
        return 0; /* a scalar output: nothing in the buffer */
    uint32_t si = slot_of(st, target); /* may move st->slots: read it after */
    acc_slot *s = &st->slots[si];
    char da[160], db[160];
    if (!rt.decodable) {
        if (!s->warned_dtype) {
            s->warned_dtype = true;
            mlia_result_warnf(st->result, "%s: its output (%s) cannot be decoded (quantized, sub-byte or 8-bit "
                              "float elements need parameters the ETDump does not record); no output metrics.",
                              target_label(st, s), debug_tensor_describe(&rt, da, sizeof da));
        }
        const char *why = mlia_arena_printf(st->arena, "The output's element type (%s) cannot be decoded.",
                                            debug_tensor_describe(&rt, da, sizeof da));
        for (int m = 0; m < ACCURACY_N_METRICS; m++)
            if (m < M_MSE || compare)
                slot_reason(s, m, why);
        return 0;
    }
    bool cmp = false;
    if (compare) {
        if (!fv || !debug_tensor_of(fv, &ft)) {
            s->missing_in_reference = true;
            for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
                slot_reason(s, m, "The reference capture has no output for this operator.");
        } else if (!ft.decodable) {
            const char *why = mlia_arena_printf(st->arena, "The reference output's element type (%s) cannot be "
                                                "decoded.", debug_tensor_describe(&ft, db, sizeof db));
            for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
                slot_reason(s, m, why);
        } else if (!debug_tensor_same_layout(&rt, &ft)) {
            debug_tensor_describe(&rt, da, sizeof da);
            debug_tensor_describe(&ft, db, sizeof db);
            const char *what = "shapes";
            if (strcmp(da, db) == 0)
                what = "strides (memory layout)";
            else if (rt.scalar_type != ft.scalar_type)
                what = "element types";
            if (!s->warned_layout) {
                s->warned_layout = true;
                mlia_result_warnf(st->result, "%s: the run's output is %s and the reference's %s (different %s, "
                                  "execution %u); its error metrics are unavailable.",
                                  target_label(st, s), da, db, what, x + 1);
            }
            const char *why = mlia_arena_printf(st->arena, "The run's output (%s) and the reference's (%s) have "
                                                "different %s.", da, db, what);
            for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
                slot_reason(s, m, why);
        } else {
            cmp = true;
        }
    }
    if (rt.numel && rt.offset < 0) {
        for (int m = 0; m < ACCURACY_N_METRICS; m++)
            slot_reason(s, m, "The output has no data in the debug buffer (offset -1).");
        return 0;
    }
    if (cmp && ft.numel && ft.offset < 0) {
        cmp = false;
        for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
            slot_reason(s, m, "The reference output has no data in its debug buffer (offset -1).");
    }
    const debug_buffer *rb = st->in->run.buffer, *fb = cmp ? st->in->reference->buffer : NULL;
    double mn = INFINITY, mx = -INFINITY, maxabs = 0;
    ksum sum = {0, 0}, se = {0, 0}, sp = {0, 0}, rr = {0, 0}, dot = {0, 0}, l1 = {0, 0};
    uint64_t nfin = 0, nnan = 0;
    bool inf_pair = false;
    for (uint64_t i = 0; i < rt.numel; i += ACCURACY_CHUNK) {
        size_t n = rt.numel - i < ACCURACY_CHUNK ? (size_t)(rt.numel - i) : ACCURACY_CHUNK;
        if (debug_tensor_read(rb, &rt, i, n, st->raw_a, st->a, err) < 0 ||
            (cmp && debug_tensor_read(fb, &ft, i, n, st->raw_b, st->b, err) < 0))
            return -1;
        /* per-chunk partial sums, then one compensated addition each */
        double csum = 0, cse = 0, csp = 0, crr = 0, cdot = 0, cl1 = 0;
        for (size_t j = 0; j < n; j++) {
            double p = st->a[j];
            if (isfinite(p)) {
                if (p < mn)
                    mn = p;
                if (p > mx)
                    mx = p;
                csum += p;
                nfin++;
            } else {
                nnan++;
            }
            if (!cmp)
                continue;
            /* ExecuTorch's comparators replace NaN by 0 in both tensors */
            double q = st->b[j];
            if (isnan(p))
                p = 0;
            if (isnan(q))
                q = 0;
            if (isinf(p) || isinf(q)) {
                inf_pair = true;
                continue;
            }
            double d = p - q;
            cse += d * d;
            cl1 += fabs(d);
            if (fabs(d) > maxabs)
                maxabs = fabs(d);
            csp += q * q;
            crr += p * p;
            cdot += p * q;
        }
        ksum_add(&sum, csum);
        if (cmp) {
            ksum_add(&se, cse);
            ksum_add(&sp, csp);
            ksum_add(&rr, crr);
            ksum_add(&dot, cdot);
            ksum_add(&l1, cl1);
        }
    }
    if (nfin) {
        *slot_v(st, s, M_MIN, x) = mn;
        *slot_v(st, s, M_MAX, x) = mx;
        *slot_v(st, s, M_MEAN, x) = ksum_value(&sum) / (double)nfin;
    } else {
        const char *why = rt.numel ? "Every element of the output is NaN or infinite." : "The output is empty.";
        for (int m = M_MIN; m <= M_MEAN; m++)
            slot_reason(s, m, why);
    }
    *slot_v(st, s, M_NAN, x) = (double)nnan;
    if (!cmp)
        return 0;
    if (inf_pair) {
        for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
            slot_reason(s, m, "The run's or the reference's output holds an infinite element.");
        return 0;
    }
    if (!rt.numel) {
        for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
            slot_reason(s, m, "The outputs are empty.");
        return 0;
    }
    double N = (double)rt.numel, e2 = ksum_value(&se), s2 = ksum_value(&sp), r2 = ksum_value(&rr);
    double mse = e2 / N;
    if (!isfinite(mse) || !isfinite(s2) || !isfinite(r2)) {
        for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
            slot_reason(s, m, "The error exceeds the range of double precision.");
        return 0;
    }
    s->compared_any = true;
    s->n_compared++;
    *slot_v(st, s, M_MSE, x) = mse;
    *slot_v(st, s, M_MAXABS, x) = maxabs;
    /* L1: the sum of the element-wise absolute differences (ExecuTorch's L1 comparator) */
    *slot_v(st, s, M_L1, x) = ksum_value(&l1);
    /* SNR = 10 log10(mean(ref^2) / mean((run - ref)^2)), the reference's power */
    double snr;
    if (e2 == 0) {
        snr = INFINITY;
        s->n_snr_pos_inf++;
    } else if (s2 == 0) {
        snr = -INFINITY;
        s->n_snr_neg_inf++;
    } else {
        snr = 10.0 * log10(s2 / e2);
    }
    *slot_v(st, s, M_SNR, x) = snr;
    if (e2 == 0) {
        *slot_v(st, s, M_COS, x) = 1.0; /* identical outputs */
    } else if (r2 == 0 || s2 == 0) {
        slot_reason(s, M_COS, "An output is all zeros (zero norm): the cosine similarity is undefined.");
    } else {
        double c = ksum_value(&dot) / (sqrt(r2) * sqrt(s2));
        *slot_v(st, s, M_COS, x) = c > 1 ? 1 : c < -1 ? -1 : c;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* summaries                                                            */

static int cmp_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b;
}

/* Issue 29, 3: an output holding NaN or infinite elements is a warning that
 * names the operator (its display name) and the executions, 0-based among
 * the analysed ones, as the other per-execution warnings do. */
static void warn_nonfinite(acc_state *st, const acc_slot *s)
{
    uint32_t hit = 0, measured = 0;
    double most = 0;
    mlia_buf list;
    mlia_buf_init(&list);
    for (uint32_t x = 0; x < st->n_exec; x++) {
        double v = *slot_v(st, (acc_slot *)s, M_NAN, x);
        if (isnan(v))
            continue;
        measured++;
        if (v <= 0)
            continue;
        if (hit < 16)
            mlia_buf_printf(&list, "%s%" PRIu32, hit ? ", " : "", x);
        else if (hit == 16)
            mlia_buf_puts(&list, ", ...");
        hit++;
        if (v > most)
            most = v;
    }
    if (hit) {
        const mlia_attr *d = mlia_entity_attr(s->ent, "display_name");
        const char *name = d && d->type == MLIA_ATTR_STRING && d->s ? d->s : (s->ent->name ? s->ent->name : s->ent->id);
        mlia_result_warnf(st->result,
                          "%s: the output holds NaN or infinite values in %" PRIu32 " of %" PRIu32
                          " execution(s) (%s; at most %.0f element(s)); see output_nan_count.",
                          name, hit, measured, list.data ? list.data : "", most);
    }
    mlia_buf_free(&list);
}

static void emit(acc_state *st, acc_slot *s, double *tmp)
{
    static const char *const stats[3] = {"p50", "min", "max"};
    bool any = false;
    warn_nonfinite(st, s);
    for (int m = 0; m < ACCURACY_N_METRICS; m++) {
        const char *name = accuracy_metric_names[m], *unit = accuracy_metric_unit(name);
        uint32_t n = 0;
        for (uint32_t x = 0; x < st->n_exec; x++) {
            double v = *slot_v(st, s, m, x);
            if (!isnan(v))
                tmp[n++] = v;
        }
        if (!n) {
            if (!s->reason[m])
                continue;
            for (int k = 0; k < 3; k++) {
                mlia_metric u = mlia_metric_unavailable(name, unit, s->reason[m]);
                mlia_metric_qualify(&u, "statistic", stats[k]);
                mlia_entity_add_metric(st->result, s->ent, u);
            }
            continue;
        }
        any = true;
        qsort(tmp, n, sizeof *tmp, cmp_double);
        double vals[3] = {tmp[(n + 1) / 2 - 1], tmp[0], tmp[n - 1]};
        for (int k = 0; k < 3; k++) {
            mlia_metric mm;
            if (isinf(vals[k])) {
                const char *why =
                    vals[k] > 0
                        ? mlia_arena_printf(st->arena,
                                            "The run's output equals the reference's (zero error) in %u of %u "
                                            "compared executions: the SNR is infinite.",
                                            s->n_snr_pos_inf, s->n_compared)
                        : mlia_arena_printf(st->arena,
                                            "The reference output is all zeros (zero signal power) in %u of %u "
                                            "compared executions: the SNR is minus infinity.",
                                            s->n_snr_neg_inf, s->n_compared);
                mm = mlia_metric_unavailable(name, unit, why);
            } else if (m == M_NAN) {
                mm = mlia_metric_uint(name, unit, (uint64_t)vals[k], stats[k], n);
            } else {
                mm = mlia_metric_double(name, unit, vals[k], stats[k], n);
            }
            mlia_metric_qualify(&mm, "statistic", stats[k]);
            mlia_entity_add_metric(st->result, s->ent, mm);
        }
    }
    if (any)
        st->out->n_measured++;
    if (s->compared_any)
        st->out->n_compared++;
}

/* ------------------------------------------------------------------ */

static void reset_choices(acc_state *st)
{
    for (uint32_t i = 0; i < st->n_touched; i++) {
        uint32_t t = st->touched[i];
        st->ch_run[t].v = NULL;
        st->ch_ref[t].v = NULL;
    }
    st->n_touched = 0;
}

int accuracy_analyse(const accuracy_inputs *in, mlia_result *result, mlia_arena *arena, accuracy_analysis **out,
                     mlia_error *err)
{
    accuracy_analysis *aa = mlia_arena_alloc(arena, sizeof *aa);
    *out = aa;
    acc_state st = {.in = in, .result = result, .arena = arena, .out = aa};
    st.g = in->program ? &in->program->graph : NULL;
    st.n_nodes = st.g && in->node_entities ? st.g->n_nodes : 0;
    st.n_exec = in->run.n_executions;
    const accuracy_capture *ref = in->reference;
    uint32_t n_pairs = ref ? (ref->n_executions < st.n_exec ? ref->n_executions : st.n_exec) : 0;
    aa->compared = ref != NULL;
    aa->n_pairs = n_pairs;
    if (st.g && st.n_nodes)
        build_indexes(&st);
    ensure_targets(&st, 4);
    st.in_region = mlia_arena_array(arena, st.n_nodes ? st.n_nodes : 1, sizeof *st.in_region);
    size_t chunk_bytes = (size_t)ACCURACY_CHUNK * 8;
    st.raw_a = malloc(chunk_bytes);
    st.raw_b = malloc(chunk_bytes);
    st.a = malloc(chunk_bytes);
    st.b = malloc(chunk_bytes);
    if (!st.raw_a || !st.raw_b || !st.a || !st.b)
        mlia_oom(chunk_bytes);

    etdump_events rev, fev;
    memset(&rev, 0, sizeof rev);
    memset(&fev, 0, sizeof fev);
    int rc = 0;
    bool ref_any = false;
    if (!in->run.buffer) {
        /* no bytes to read: the reader's counts say whether any were logged */
        for (uint32_t x = 0; x < st.n_exec; x++)
            if (in->run.dump->runs[in->run.execution_runs[x]].n_debug_tensors)
                aa->has_outputs = true;
        st.n_exec = 0;
    }
    for (uint32_t x = 0; x < st.n_exec && rc == 0; x++) {
        uint32_t run = in->run.execution_runs[x];
        bool any = false;
        if (etdump_read_run(in->run.dump, run, &rev, err) < 0 ||
            check_tensors(&st, &in->run, &rev, run, &any, err) < 0) {
            rc = -1;
            break;
        }
        if (any)
            aa->has_outputs = true;
        bool paired = x < n_pairs;
        uint32_t fr = paired ? ref->execution_runs[x] : 0;
        if (paired && (etdump_read_run(ref->dump, fr, &fev, err) < 0 ||
                       check_tensors(&st, ref, &fev, fr, &ref_any, err) < 0)) {
            rc = -1;
            break;
        }
        attribute(&st, &rev, run, false);
        if (paired && ref->buffer)
            attribute(&st, &fev, fr, true);
        for (uint32_t i = 0; i < st.n_touched && rc == 0; i++) {
            uint32_t t = st.touched[i];
            if (!st.ch_run[t].v)
                continue;
            rc = measure(&st, t, x, st.ch_run[t].v, st.ch_ref[t].v, paired && ref->buffer, err);
        }
        reset_choices(&st);
        if (!paired && ref)
            for (uint32_t i = 0; i < st.n_slots; i++)
                for (int m = M_MSE; m < ACCURACY_N_METRICS; m++)
                    slot_reason(&st.slots[i], m, "The reference capture has fewer executions than the run.");
    }
    etdump_events_done(in->run.dump, &rev);
    if (ref)
        etdump_events_done(ref->dump, &fev);
    free(st.raw_a);
    free(st.raw_b);
    free(st.a);
    free(st.b);
    free(st.touched);
    free(st.items);
    if (rc)
        return -1;

    /* summaries, in the order the targets were first measured */
    double *tmp = mlia_arena_array(arena, st.n_exec ? st.n_exec : 1, sizeof *tmp);
    uint32_t missing = 0;
    for (uint32_t i = 0; i < st.n_slots; i++) {
        emit(&st, &st.slots[i], tmp);
        missing += st.slots[i].missing_in_reference;
    }

    /* what could not be done, once each */
    const char *buf_file = in->run.buffer ? in->run.buffer->file : NULL;
    if (buf_file && !aa->has_outputs)
        mlia_result_warnf(result, "The debug buffer %s was given but the ETDump holds no intermediate outputs "
                          "(debug events with tensors) in the executions of method '%s'; no output metrics.",
                          buf_file, in->method);
    if (!buf_file && aa->has_outputs)
        mlia_result_warnf(result, "The ETDump holds intermediate outputs (debug events with tensors) but no debug "
                          "buffer was given (--debug-buffer): their values are unknown, no output metrics.");
    if (aa->n_unmatched)
        mlia_result_warnf(result, "%llu intermediate output(s) of the run could not be matched to a source operator "
                          "(no ETRecord map entry for their instruction or delegate debug id, or a chain other "
                          "than 0).", (unsigned long long)aa->n_unmatched);
    if (ref) {
        if (ref->n_executions != st.n_exec)
            mlia_result_warnf(result, "The reference capture has %u execution(s) of method '%s' and the run %u: the "
                              "first %u are compared.", ref->n_executions, in->method, st.n_exec, n_pairs);
        if (!ref_any && n_pairs)
            mlia_result_warnf(result, "The reference capture holds no intermediate outputs (debug events with "
                              "tensors); no error metrics.");
        if (missing)
            mlia_result_warnf(result, "%u measured operator(s) have no output in the reference capture: their error "
                              "metrics are unavailable.", missing);
    }
    return 0;
}
