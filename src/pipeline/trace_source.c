/*
 * trace_source.c - fills the trace writer's narrow interface (report/trace/trace.h)
 * from a check session.
 *
 * This is the only place that knows how ETDump events relate to the
 * result's entities for the timeline, so a change of the ETDump reader
 * (e.g. a streaming event iterator) is adapted here alone:
 *   - OPERATOR_CALL: named by the operator(s) of the instruction's debug
 *     handles (source operators), entities = those source operators;
 *   - native_call_*: its own name (the kernel), same entities;
 *   - DELEGATE_CALL: "DELEGATE_CALL <backend>", entity = the delegate call;
 *   - backend events: their delegate debug id, entity = the runtime event
 *     entity at the same position (parent entity + name) as in the runtime
 *     analysis, the parent being the innermost enclosing backend event of
 *     the same instruction, else the delegate call;
 *   - Method::execute and other runtime events: their name, no entity.
 * Only profile events with end >= start are timeline events.
 *
 * Ownership: per-instruction data (names, entity lists) lives in the
 * session arena, so it grows with the instructions, not the events; event
 * names are copied into a scratch arena released when the execution's
 * events have been emitted.
 */
#include "pipeline/trace_source.h"

#include <stdlib.h>
#include <string.h>

#include "report/backend_out.h"
#include "analysis/runtime.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"
#include "core/version.h"

typedef struct op_site {
    bool done;
    const char *name;            /* operator name(s) or NULL */
    const char *call_name;       /* "DELEGATE_CALL <backend>" when a delegate call */
    uint32_t n_entities;
    const char **entities;
    uint32_t n_handles;
    const int64_t *handles;
    const runtime_delegate_call *call;
} op_site;

typedef struct ts_ctx {
    const mlia_session *s;
    mlia_arena *arena;
    /* ETDump ticks -> ns (docs/captures.md): t * ns_mul when the rate divides
     * 1e9 (1 for ns ticks), else rounded t * 1e9 / hz */
    uint64_t ns_mul;
    uint64_t hz_int;             /* integral rate that does not divide 1e9, else 0 */
    double hz;
    uint32_t n_sites;            /* chain 0 instructions of the method */
    op_site *sites;
    /* graph nodes with a debug handle, sorted by (handle, node): built on
     * first use so that each instruction finds its nodes by binary search
     * (instructions x nodes was the trace writer's second cost) */
    uint32_t n_by_handle;
    ep_handle_node *by_handle;
    bool indexed;
    /* some delegate event is in a unit class of its own (runtime_unit):
     * such events are not on the CPU clock of their call (see other_units) */
    bool other_units;
} ts_ctx;

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static void index_handles(ts_ctx *c, const ep_program *prog)
{
    c->indexed = true;
    c->by_handle = ep_handle_index(&prog->graph, c->arena, &c->n_by_handle);
}

static bool is_backend(const etdump_event *e)
{
    return !e->name.ptr && (e->delegate_debug_id_str.ptr || e->delegate_debug_id_int >= 0);
}

static bool name_is(const etdump_event *e, const char *lit)
{
    size_t n = strlen(lit);
    return e->name.ptr && e->name.len == n && memcmp(e->name.ptr, lit, n) == 0;
}

static const runtime_delegate_call *find_call(const mlia_session *s, int64_t chain, int64_t instr)
{
    const runtime_analysis *ra = s->runtime;
    for (uint32_t i = 0; ra && i < ra->n_calls; i++)
        if (ra->calls[i].chain == chain && ra->calls[i].instruction == instr)
            return &ra->calls[i];
    return NULL;
}

/* Operator site of (chain 0, instr): handles, their source operators, names. */
static const op_site *site_of(ts_ctx *c, int64_t chain, int64_t instr)
{
    if (chain != 0 || instr < 0 || (uint64_t)instr >= c->n_sites)
        return NULL;
    op_site *st = &c->sites[instr];
    if (st->done)
        return st;
    st->done = true;
    const mlia_session *s = c->s;
    const etrecord_handles *h = &s->method->debug_handles[instr];
    st->n_handles = h->present ? h->n : 0;
    st->handles = h->v;
    st->call = find_call(s, chain, instr);
    if (st->call)
        st->call_name = mlia_arena_printf(c->arena, "DELEGATE_CALL %s", st->call->backend);
    const ep_program *prog = s->program;
    const runtime_analysis *ra = s->runtime;
    if (!prog || !ra || ra->n_nodes != prog->graph.n_nodes || !st->n_handles)
        return st;
    if (!c->indexed)
        index_handles(c, prog);
    /* the nodes carrying any of the instruction's handles, in graph order */
    uint32_t n = 0, cap = 0;
    uint32_t *hit = NULL;
    for (uint32_t k = 0; k < st->n_handles; k++) {
        int64_t want = st->handles[k];
        uint32_t lo = ep_handle_first(c->by_handle, c->n_by_handle, want);
        for (; lo < c->n_by_handle && c->by_handle[lo].handle == want; lo++) {
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                hit = mlia_arena_grow(c->arena, hit, n, cap, sizeof *hit);
            }
            hit[n++] = c->by_handle[lo].node;
        }
    }
    if (!n)
        return st;
    qsort(hit, n, sizeof *hit, cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < n; i++)
        if (!u || hit[u - 1] != hit[i])
            hit[u++] = hit[i];
    n = u;
    st->entities = mlia_arena_array(c->arena, n, sizeof *st->entities);
    mlia_buf names;
    mlia_buf_init(&names);
    for (uint32_t x = 0; x < n; x++) {
        uint32_t i = hit[x];
        if (!ra->node_entities[i])
            continue;
        const mlia_entity *ent = ra->node_entities[i];
        st->entities[st->n_entities++] = ent->id;
        bool seen = false;
        for (uint32_t j = 0; j + 1 < st->n_entities && !seen; j++) {
            const mlia_entity *prev = mlia_result_find(&s->result, st->entities[j]);
            seen = prev && strcmp(prev->name, ent->name) == 0;
        }
        if (!seen)
            mlia_buf_printf(&names, "%s%s", names.len ? " + " : "", ent->name);
    }
    if (names.len)
        st->name = mlia_arena_strndup(c->arena, names.data, names.len);
    mlia_buf_free(&names);
    return st;
}

/* Ticks to nanoseconds: exact when the rate divides 1e9, otherwise the
 * nearest nanosecond. Monotonic, so containment (the trace's nesting) is
 * kept; saturates at UINT64_MAX. */
static uint64_t to_ns(const ts_ctx *c, uint64_t t)
{
    if (c->ns_mul == 1)
        return t;
    if (c->ns_mul)
        return t > UINT64_MAX / c->ns_mul ? UINT64_MAX : t * c->ns_mul;
    if (c->hz_int) {
        unsigned __int128 v = ((unsigned __int128)t * 1000000000u + c->hz_int / 2) / c->hz_int;
        return v > UINT64_MAX ? UINT64_MAX : (uint64_t)v;
    }
    long double v = (long double)t * 1e9L / (long double)c->hz + 0.5L;
    return v >= 18446744073709551615.0L ? UINT64_MAX : (uint64_t)v;
}

/* Start and end of every event of `run` with the backend events of each
 * DELEGATE_CALL invocation laid out by runtime_layout_durations, as the
 * runtime analysis lays them out (it books the events pending for a site
 * when that site's DELEGATE_CALL arrives). */
static void duration_layout(mlia_arena *a, const etdump_events *run, uint64_t **out_s, uint64_t **out_e)
{
    uint64_t *ts = mlia_arena_array(a, run->n, sizeof *ts), *te = mlia_arena_array(a, run->n, sizeof *te);
    uint32_t *pending = mlia_arena_array(a, run->n, sizeof *pending), n_pending = 0;
    struct span {
        uint64_t s, e;
    } *grp = mlia_arena_array(a, run->n, sizeof *grp);
    uint32_t *grp_idx = mlia_arena_array(a, run->n, sizeof *grp_idx);
    for (uint32_t k = 0; k < run->n; k++) {
        const etdump_event *e = &run->ev[k];
        ts[k] = e->start_time;
        te[k] = e->end_time;
        if (e->kind != ETDUMP_EVENT_PROFILE || e->end_time < e->start_time || e->chain_index < 0)
            continue;
        if (is_backend(e)) {
            pending[n_pending++] = k;
            continue;
        }
        if (!name_is(e, "DELEGATE_CALL"))
            continue;
        uint32_t m = 0, keep = 0;
        for (uint32_t i = 0; i < n_pending; i++) {
            const etdump_event *b = &run->ev[pending[i]];
            if (b->chain_index == e->chain_index && b->instruction_id == e->instruction_id) {
                grp_idx[m] = pending[i];
                grp[m++] = (struct span){b->start_time, b->end_time};
            } else {
                pending[keep++] = pending[i];
            }
        }
        n_pending = keep;
        if (m && runtime_layout_durations(e->start_time, e->end_time, &grp[0].s, &grp[0].e, sizeof *grp, m))
            for (uint32_t i = 0; i < m; i++) {
                ts[grp_idx[i]] = grp[i].s;
                te[grp_idx[i]] = grp[i].e;
            }
    }
    *out_s = ts;
    *out_e = te;
}

/* The runtime's node of a delegate event booked in a unit class of its own
 * (runtime_unit other than CPU ticks): such events sit directly under
 * their call. NULL for events on the call's clock. */
static const runtime_event_node *other_unit_node(const mlia_session *s, const etdump_event *e, mlia_arena *a)
{
    const runtime_delegate_call *call = find_call(s, e->chain_index, e->instruction_id);
    if (!call)
        return NULL;
    bool any = false;
    for (uint32_t i = 0; i < call->n_events && !any; i++)
        any = call->events[i].unit != RUNTIME_UNIT_CPU_TICKS;
    if (!any)
        return NULL;
    const char *name = e->delegate_debug_id_str.ptr ? e->delegate_debug_id_str.ptr
                                                    : mlia_arena_printf(a, "%d", e->delegate_debug_id_int);
    for (uint32_t i = 0; i < call->n_events; i++) {
        const runtime_event_node *n = &call->events[i];
        if (n->unit != RUNTIME_UNIT_CPU_TICKS && strcmp(n->name, name) == 0 &&
            strcmp(n->parent_id, call->entity_id) == 0)
            return n;
    }
    return NULL;
}

/* Events on another clock (docs/trace.md, "Other clocks"): a backend's own
 * time (a GPU's ns, QNN's us) is rebased into its call: the group of such
 * events of one call keeps its own spacing and starts where the CPU event
 * logged just before the group started (Vulkan: ETVK_COMPUTE_GRAPH_EXECUTE,
 * which ran the dispatches), else at the call's start; durations stay in
 * the backend's clock, never scaled by the CPU tick rate. Cycles, counts
 * and bytes are not times: they get no slice (skip) and are the trace's
 * counter series instead (other_unit_counters). rs/re are ns. */
static void other_clock_layout(const ts_ctx *c, mlia_arena *a, const etdump_events *run, bool **out_skip,
                               const runtime_event_node ***out_node, uint64_t **out_rs, uint64_t **out_re)
{
    const mlia_session *s = c->s;
    bool *skip = mlia_arena_array(a, run->n, sizeof *skip);
    const runtime_event_node **node = mlia_arena_array(a, run->n, sizeof *node);
    uint64_t *rs = mlia_arena_array(a, run->n, sizeof *rs), *re = mlia_arena_array(a, run->n, sizeof *re);
    uint32_t *pending = mlia_arena_array(a, run->n, sizeof *pending), n_pending = 0;
    uint64_t *anchor = mlia_arena_array(a, run->n, sizeof *anchor); /* per pending event: CPU anchor or UINT64_MAX */
    uint64_t last_cpu_start = UINT64_MAX;
    int64_t last_chain = -2, last_instr = -2;
    for (uint32_t k = 0; k < run->n; k++) {
        const etdump_event *e = &run->ev[k];
        skip[k] = false;
        node[k] = NULL;
        if (e->kind != ETDUMP_EVENT_PROFILE || e->end_time < e->start_time || e->chain_index < 0)
            continue;
        if (is_backend(e)) {
            const runtime_event_node *n = other_unit_node(s, e, a);
            if (!n) {
                last_cpu_start = e->start_time;
                last_chain = e->chain_index;
                last_instr = e->instruction_id;
                continue;
            }
            node[k] = n;
            if (n->unit == RUNTIME_UNIT_CYCLES || n->unit == RUNTIME_UNIT_COUNT || n->unit == RUNTIME_UNIT_BYTES) {
                skip[k] = true;
                continue;
            }
            anchor[n_pending] = last_chain == e->chain_index && last_instr == e->instruction_id ? last_cpu_start
                                                                                                  : UINT64_MAX;
            pending[n_pending++] = k;
            continue;
        }
        if (!name_is(e, "DELEGATE_CALL"))
            continue;
        /* the call's group: rebased on its anchor, keeping its own spacing.
         * First the group's earliest start and its anchor, then the
         * rebase and the compaction of the others (in that order: the
         * compaction overwrites entries of the group) */
        uint64_t base = UINT64_MAX, anchor_ticks = e->start_time;
        bool first = true;
        for (uint32_t i = 0; i < n_pending; i++) {
            const etdump_event *b = &run->ev[pending[i]];
            if (b->chain_index != e->chain_index || b->instruction_id != e->instruction_id)
                continue;
            if (first && anchor[i] != UINT64_MAX && anchor[i] >= e->start_time && anchor[i] <= e->end_time)
                anchor_ticks = anchor[i];
            first = false;
            if (b->start_time < base)
                base = b->start_time;
        }
        uint64_t at = to_ns(c, anchor_ticks);
        uint32_t keep = 0;
        for (uint32_t i = 0; i < n_pending; i++) {
            uint32_t k2 = pending[i];
            const etdump_event *b = &run->ev[k2];
            if (b->chain_index != e->chain_index || b->instruction_id != e->instruction_id) {
                anchor[keep] = anchor[i];
                pending[keep++] = k2;
                continue;
            }
            uint64_t mul = node[k2]->unit == RUNTIME_UNIT_US ? 1000 : 1;
            rs[k2] = at + (b->start_time - base) * mul;
            re[k2] = rs[k2] + (b->end_time - b->start_time) * mul;
        }
        n_pending = keep;
        last_cpu_start = UINT64_MAX;
        last_chain = last_instr = -2;
    }
    /* events whose call never came: left out */
    for (uint32_t i = 0; i < n_pending; i++)
        skip[pending[i]] = true;
    *out_skip = skip;
    *out_node = node;
    *out_rs = rs;
    *out_re = re;
}

/* Backend events of one instruction, in wrapper-first order. */
typedef struct bk_item {
    uint64_t s, e;
    uint32_t index;
    int64_t chain, instr;
    const char *name;
    const runtime_event_node *node;
} bk_item;

static int cmp_bk(const void *a, const void *b)
{
    const bk_item *x = a, *y = b;
    if (x->chain != y->chain)
        return x->chain < y->chain ? -1 : 1;
    if (x->instr != y->instr)
        return x->instr < y->instr ? -1 : 1;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e > y->e ? -1 : 1;
    return x->index > y->index ? -1 : (x->index < y->index);
}

static const runtime_event_node *find_event(const runtime_delegate_call *call, const char *parent_id,
                                            const char *name)
{
    for (uint32_t i = 0; call && i < call->n_events; i++)
        if (strcmp(call->events[i].name, name) == 0 && strcmp(call->events[i].parent_id, parent_id) == 0)
            return &call->events[i];
    return NULL;
}

/* FlatBuffers strings are NUL-terminated in the buffer (fb_get_string
 * checks it), so names are used in place: nothing is copied per event. */
static const char *event_text(mlia_arena *a, const etdump_event *e)
{
    if (e->name.ptr)
        return e->name.ptr;
    if (e->delegate_debug_id_str.ptr)
        return e->delegate_debug_id_str.ptr;
    if (e->delegate_debug_id_int >= 0)
        return mlia_arena_printf(a, "%d", e->delegate_debug_id_int);
    return "(unnamed)";
}

static void ts_events(const void *vctx, uint32_t exec, trace_emit_fn emit, void *emit_ctx)
{
    ts_ctx *c = (ts_ctx *)vctx;
    const mlia_session *s = c->s;
    /* The execution's events, decoded again from the ETDump (validated by
     * etdump_read; a decode error here means the file changed under us and
     * ends this execution's events). Scratch for this execution only. */
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    mlia_error derr;
    mlia_error_clear(&derr);
    if (etdump_read_run(s->dump, s->execution_runs[exec], &evs, &derr) < 0)
        evs.n = 0;
    const etdump_events *run = &evs;
    mlia_arena scratch;
    mlia_arena_init(&scratch);
    /* duration-only backend events (the runtime analysis found some): laid
     * out inside their call as the analysis did (runtime_layout_durations) */
    uint64_t *dur_s = NULL, *dur_e = NULL;
    if (s->runtime && s->runtime->duration_only_events && run->n)
        duration_layout(&scratch, run, &dur_s, &dur_e);
    bool *other_skip = NULL;
    const runtime_event_node **other_node = NULL;
    uint64_t *other_s = NULL, *other_e = NULL;
    if (c->other_units && run->n)
        other_clock_layout(c, &scratch, run, &other_skip, &other_node, &other_s, &other_e);
    uint32_t n_bk = 0;
    for (uint32_t k = 0; k < run->n; k++) {
        const etdump_event *e = &run->ev[k];
        if (e->kind == ETDUMP_EVENT_PROFILE && e->end_time >= e->start_time && is_backend(e))
            n_bk++;
    }
    bk_item *bk = n_bk ? mlia_arena_array(&scratch, n_bk, sizeof *bk) : NULL;
    n_bk = 0;
    for (uint32_t k = 0; k < run->n; k++) {
        const etdump_event *e = &run->ev[k];
        if (e->kind != ETDUMP_EVENT_PROFILE || e->end_time < e->start_time)
            continue;
        trace_event ev;
        memset(&ev, 0, sizeof ev);
        ev.start = to_ns(c, dur_s ? dur_s[k] : e->start_time);
        ev.end = to_ns(c, dur_e ? dur_e[k] : e->end_time);
        ev.index = k;
        ev.chain = e->chain_index;
        ev.instruction = e->instruction_id;
        if (is_backend(e)) {
            if (other_skip && other_skip[k])
                continue;
            if (other_node && other_node[k]) {
                /* another clock, rebased into its call (other_clock_layout) */
                bk[n_bk++] = (bk_item){other_s[k], other_e[k], k, e->chain_index, e->instruction_id,
                                       event_text(&scratch, e), other_node[k]};
                continue;
            }
            bk[n_bk++] = (bk_item){ev.start, ev.end, k, e->chain_index, e->instruction_id,
                                   event_text(&scratch, e), NULL};
            continue;
        }
        ev.etdump_name = event_text(&scratch, e);
        ev.name = ev.etdump_name;
        if (name_is(e, "Method::execute") || name_is(e, "Method::init") || name_is(e, "Program::load_method")) {
            ev.category = "framework";
            ev.chain = ev.instruction = -1;
        } else if (name_is(e, "OPERATOR_CALL") || (e->name.len >= 12 && memcmp(e->name.ptr, "native_call_", 12) == 0)) {
            bool opcall = name_is(e, "OPERATOR_CALL");
            ev.category = opcall ? "operator" : "kernel";
            const op_site *st = site_of(c, e->chain_index, e->instruction_id);
            if (st) {
                if (opcall && st->name)
                    ev.name = st->name;
                ev.n_entities = st->n_entities;
                ev.entities = st->entities;
                ev.n_handles = st->n_handles;
                ev.handles = st->handles;
            }
        } else if (name_is(e, "DELEGATE_CALL")) {
            ev.category = "delegate";
            const op_site *st = site_of(c, e->chain_index, e->instruction_id);
            const runtime_delegate_call *call = st ? st->call : find_call(s, e->chain_index, e->instruction_id);
            if (call) {
                ev.name = st && st->call_name ? st->call_name
                                              : mlia_arena_printf(&scratch, "DELEGATE_CALL %s", call->backend);
                ev.n_entities = 1;
                ev.entities = &call->entity_id;
            }
            if (st) {
                ev.n_handles = st->n_handles;
                ev.handles = st->handles;
            }
        } else {
            ev.category = "other";
        }
        emit(emit_ctx, &ev);
    }
    if (n_bk) {
        qsort(bk, n_bk, sizeof *bk, cmp_bk);
        uint32_t *stack = mlia_arena_array(&scratch, n_bk, sizeof *stack);
        uint32_t sp = 0;
        for (uint32_t k = 0; k < n_bk; k++) {
            bk_item *it = &bk[k];
            while (sp && !(bk[stack[sp - 1]].chain == it->chain && bk[stack[sp - 1]].instr == it->instr &&
                           bk[stack[sp - 1]].s <= it->s && it->e <= bk[stack[sp - 1]].e))
                sp--;
            const runtime_delegate_call *call = find_call(s, it->chain, it->instr);
            const char *parent_id = sp && bk[stack[sp - 1]].node ? bk[stack[sp - 1]].node->entity_id
                                                                 : (call ? call->entity_id : NULL);
            if (!it->node) /* other-clock events know their node already */
                it->node = parent_id ? find_event(call, parent_id, it->name) : NULL;
            stack[sp++] = k;
            trace_event ev;
            memset(&ev, 0, sizeof ev);
            ev.start = it->s;
            ev.end = it->e;
            ev.index = it->index;
            ev.chain = it->chain;
            ev.instruction = it->instr;
            ev.name = it->name;
            ev.etdump_name = it->name;
            ev.category = "backend";
            if (it->node && it->node->unit != RUNTIME_UNIT_CPU_TICKS) {
                /* named as its entity (a Vulkan dispatch by its shader, not its JSON) */
                const mlia_entity *ent = mlia_result_find(&s->result, it->node->entity_id);
                if (ent && ent->name)
                    ev.name = ent->name;
            }
            if (it->node) {
                ev.n_entities = 1;
                ev.entities = &it->node->entity_id;
            }
            const op_site *st = site_of(c, it->chain, it->instr);
            if (st) {
                ev.n_handles = st->n_handles;
                ev.handles = st->handles;
            }
            emit(emit_ctx, &ev);
        }
    }
    mlia_arena_free(&scratch);
    etdump_events_done(s->dump, &evs);
}

/* Ordinal of run index `run` among the executions, or UINT32_MAX. */
static uint32_t ordinal_of(const mlia_session *s, uint32_t run)
{
    uint32_t lo = 0, hi = s->n_executions;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (s->execution_runs[mid] < run)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_executions && s->execution_runs[lo] == run ? lo : UINT32_MAX;
}

static void add_counter(mlia_arena *a, trace_counter *tc, const mlia_session *s, const char *name, const char *key,
                        uint32_t n, const uint32_t *runs, const uint64_t *values)
{
    tc->name = name;
    tc->key = key;
    uint32_t *ex = mlia_arena_array(a, n ? n : 1, sizeof *ex);
    uint64_t *vals = mlia_arena_array(a, n ? n : 1, sizeof *vals);
    uint32_t m = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = ordinal_of(s, runs[i]);
        if (k == UINT32_MAX)
            continue;
        ex[m] = k;
        vals[m++] = values[i];
    }
    tc->n = m;
    tc->executions = ex;
    tc->values = vals;
}

/* The counter series of the delegate events in cycles, counts or bytes
 * (n of them, in call and event order): "<backend>: <event> (<unit>)",
 * one value (end - start) per execution that logged the event. The
 * executions are read once more, only when such events exist. */
static trace_counter *other_unit_counters(const mlia_session *s, mlia_arena *arena, uint32_t n)
{
    trace_counter *tc = mlia_arena_array(arena, n, sizeof *tc);
    const runtime_event_node **nodes = mlia_arena_array(arena, n, sizeof *nodes);
    const runtime_delegate_call **of = mlia_arena_array(arena, n, sizeof *of);
    uint32_t m = 0;
    for (uint32_t i = 0; i < s->runtime->n_calls; i++) {
        const runtime_delegate_call *call = &s->runtime->calls[i];
        for (uint32_t k = 0; k < call->n_events && m < n; k++) {
            runtime_unit u = call->events[k].unit;
            if (u != RUNTIME_UNIT_CYCLES && u != RUNTIME_UNIT_COUNT && u != RUNTIME_UNIT_BYTES)
                continue;
            nodes[m] = &call->events[k];
            of[m] = call;
            tc[m].name = mlia_arena_printf(arena, "%s: %s", call->backend, call->events[k].name);
            tc[m].key = runtime_unit_name(u);
            uint32_t *ex = mlia_arena_array(arena, s->n_executions ? s->n_executions : 1, sizeof *ex);
            uint64_t *vals = mlia_arena_array(arena, s->n_executions ? s->n_executions : 1, sizeof *vals);
            tc[m].executions = ex;
            tc[m].values = vals;
            tc[m].n = 0;
            m++;
        }
    }
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    for (uint32_t x = 0; x < s->n_executions; x++) {
        mlia_error derr;
        mlia_error_clear(&derr);
        if (etdump_read_run(s->dump, s->execution_runs[x], &evs, &derr) < 0)
            continue;
        for (uint32_t k = 0; k < evs.n; k++) {
            const etdump_event *e = &evs.ev[k];
            if (e->kind != ETDUMP_EVENT_PROFILE || !e->delegate_debug_id_str.ptr || e->end_time < e->start_time)
                continue;
            for (uint32_t i = 0; i < m; i++) {
                if (of[i]->chain != e->chain_index || of[i]->instruction != e->instruction_id ||
                    strcmp(nodes[i]->name, e->delegate_debug_id_str.ptr) != 0)
                    continue;
                /* one value per execution: the first the execution logged */
                if (!tc[i].n || ((uint32_t *)tc[i].executions)[tc[i].n - 1] != x) {
                    ((uint32_t *)tc[i].executions)[tc[i].n] = x;
                    ((uint64_t *)tc[i].values)[tc[i].n] = e->end_time - e->start_time;
                    tc[i].n++;
                }
                break;
            }
        }
    }
    etdump_events_done(s->dump, &evs);
    return tc;
}

/* Two-thread writing (trace.h): every lazily computed piece of the
 * context is computed now, so that ts_events only reads it; the decoder's
 * page-release bookkeeping is locked in core/file.c. */
static bool ts_parallel(const void *vctx)
{
    ts_ctx *c = (ts_ctx *)vctx;
    for (uint32_t i = 0; i < c->n_sites; i++)
        (void)site_of(c, 0, i);
    return true;
}

static void ts_thread_begin(const void *vctx)
{
    const ts_ctx *c = vctx;
    for (uint32_t i = 0; i < c->s->n_captures; i++)
        mlia_file_guard(&c->s->etdump_files[i]);
}

static void ts_thread_end(const void *vctx)
{
    const ts_ctx *c = vctx;
    for (uint32_t i = 0; i < c->s->n_captures; i++)
        mlia_file_unguard(&c->s->etdump_files[i]);
}

void trace_source_init(const mlia_session *s, mlia_arena *arena, trace_source *out)
{
    ts_ctx *c = mlia_arena_alloc(arena, sizeof *c);
    memset(c, 0, sizeof *c);
    c->s = s;
    c->arena = arena;
    c->n_sites = s->method ? s->method->n_instr : 0;
    c->sites = mlia_arena_array(arena, c->n_sites ? c->n_sites : 1, sizeof *c->sites);
    /* times are in ns (docs/analysis.md): ticks converted by to_ns whatever the ETDump's clock */
    *out = (trace_source){.tool = "mlia " MLIA_VERSION, .method = s->method_name, .time_unit = "ns",
                          .us_decimals = 3, .events = ts_events, .ctx = c, .parallel = ts_parallel,
                          .thread_begin = ts_thread_begin, .thread_end = ts_thread_end};
    double hz = s->opts->ticks_per_second > 0 ? s->opts->ticks_per_second : 1e9;
    c->hz = hz;
    if (hz >= 1.0 && hz <= 1e9 && hz == (double)(uint64_t)hz && 1000000000u % (uint64_t)hz == 0)
        c->ns_mul = 1000000000u / (uint64_t)hz;
    else if (hz >= 1.0 && hz < 9.2e18 && hz == (double)(uint64_t)hz)
        c->hz_int = (uint64_t)hz;
    if (s->opts->ticks_per_second > 0)
        out->ticks_per_second = hz;
    out->n_executions = s->dump ? s->n_executions : 0;
    out->execution_runs = s->execution_runs;
    if (s->n_captures > 1 && out->n_executions) {
        /* several captures: each execution named by its capture and its
         * block there */
        uint32_t *runs = mlia_arena_array(arena, out->n_executions, sizeof *runs);
        const char **names = mlia_arena_array(arena, out->n_executions, sizeof *names);
        for (uint32_t k = 0; k < out->n_executions; k++)
            names[k] = s->captures[mlia_session_capture_of(s, s->execution_runs[k], &runs[k])].digest.name;
        out->execution_runs = runs;
        out->execution_captures = names;
    }

    /* the backends' counter series (report/backend_out.h), in registration order */
    uint32_t n = 0;
    const mlia_backend_counter **series = mlia_arena_array(arena, s->n_backends ? s->n_backends : 1, sizeof *series);
    uint32_t *n_series = mlia_arena_array(arena, s->n_backends ? s->n_backends : 1, sizeof *n_series);
    for (uint32_t b = 0; b < s->n_backends; b++) {
        const mlia_backend_out *bo = s->backends[b].out;
        n_series[b] = bo->timeline_counters ? bo->timeline_counters(s->backends[b].state, arena, &series[b]) : 0;
        n += n_series[b];
        if (n_series[b] && !out->counter_group)
            out->counter_group = bo->timeline_group;
    }
    /* delegate events in cycles, counts or bytes: counter series, one value per execution */
    uint32_t n_other = 0;
    const runtime_delegate_call *calls = s->runtime ? s->runtime->calls : NULL;
    for (uint32_t i = 0; s->runtime && i < s->runtime->n_calls; i++)
        for (uint32_t k = 0; k < calls[i].n_events; k++) {
            runtime_unit u = calls[i].events[k].unit;
            c->other_units |= u != RUNTIME_UNIT_CPU_TICKS;
            n_other += u == RUNTIME_UNIT_CYCLES || u == RUNTIME_UNIT_COUNT || u == RUNTIME_UNIT_BYTES;
        }
    trace_counter *other = n_other ? other_unit_counters(s, arena, n_other) : NULL;
    if (n_other && !out->counter_group)
        out->counter_group = "Delegate counters";
    if (n || n_other) {
        trace_counter *tcs = mlia_arena_array(arena, n + n_other, sizeof *tcs);
        uint32_t m = 0;
        for (uint32_t b = 0; b < s->n_backends; b++)
            for (uint32_t i = 0; i < n_series[b]; i++) {
                const mlia_backend_counter *bc = &series[b][i];
                add_counter(arena, &tcs[m++], s, bc->name, bc->key, bc->n, bc->runs, bc->values);
            }
        for (uint32_t i = 0; i < n_other; i++)
            tcs[m++] = other[i];
        out->n_counters = m;
        out->counters = tcs;
    }

    trace_input *ins = mlia_arena_array(arena, 2 + s->n_captures, sizeof *ins);
    uint32_t n_in = 0;
    ins[n_in++] = (trace_input){"etrecord", s->etrecord_digest.name, s->etrecord_digest.sha256,
                                s->etrecord_digest.size};
    for (uint32_t i = 0; i < s->n_captures; i++) {
        const mlia_input_digest *d = &s->captures[i].digest;
        ins[n_in++] = (trace_input){"etdump", d->name, d->sha256, d->size};
    }
    if (s->has_companion)
        ins[n_in++] = (trace_input){"companion", s->companion_digest.name, s->companion_digest.sha256,
                                    s->companion_digest.size};
    out->n_inputs = n_in;
    out->inputs = ins;
}
