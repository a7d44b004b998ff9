/*
 * memory.c - the memory view of a method from its memory plan (see memory.h
 * and docs/memory.md).
 *
 * Cost: lifetimes are one pass over the instructions' arguments; live bytes
 * are computed per instruction from the tensors live there, sorted by
 * offset, so the union costs O(L log L) for L live tensors. PTE plans hold
 * hundreds to a few thousand tensors and instructions.
 */
#include "analysis/memory.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "core/cnum.h"
#include "core/error.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"
#include "formats/pte.h"

typedef struct mctx {
    const memory_inputs *in;
    const pte_plan *plan;
    mlia_arena *arena;
    memory_analysis *ma;
    int32_t *slot;          /* value index -> tensor index, -1 when not planned */
} mctx;

static void unavailable(mctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void unavailable(mctx *c, const char *fmt, ...)
{
    char what[768];
    MLIA_FORMAT_ARGS(what, fmt);
    c->ma->available = false;
    c->ma->reason = mlia_arena_printf(c->arena, "%s", what);
}

/* ------------------------------------------------------------ the plan's tensors */

static int read_pools(mctx *c)
{
    const pte_plan *p = c->plan;
    memory_analysis *ma = c->ma;
    uint32_t n = p->n_non_const_buffer_sizes;
    ma->n_pools = n > 1 ? n - 1 : 0;
    ma->pools = mlia_arena_array(c->arena, ma->n_pools ? ma->n_pools : 1, sizeof *ma->pools);
    for (uint32_t i = 1; i < n; i++) {
        int64_t sz = p->non_const_buffer_sizes[i];
        if (sz < 0) {
            unavailable(c,
                        "%s: pool %" PRIu32 " has a negative size %" PRId64 " at byte %" PRIu64
                        " (execution_plan[%" PRIu32 "].non_const_buffer_sizes[%" PRIu32 "])",
                        c->in->pte_path, i, sz, p->non_const_buffer_sizes_offset + 8 * (uint64_t)i, c->in->plan_index,
                        i);
            return -1;
        }
        memory_pool *pl = &ma->pools[i - 1];
        pl->id = i;
        pl->size = (uint64_t)sz;
        pl->peak_instruction = -1;
        if (pl->size > UINT64_MAX - ma->total_planned) {
            unavailable(c, "%s: pool sizes overflow at byte %" PRIu64 " (execution_plan[%" PRIu32
                           "].non_const_buffer_sizes)",
                        c->in->pte_path, p->non_const_buffer_sizes_offset, c->in->plan_index);
            return -1;
        }
        ma->total_planned += pl->size;
    }
    return 0;
}

static int read_tensors(mctx *c)
{
    const pte_plan *p = c->plan;
    memory_analysis *ma = c->ma;
    c->slot = mlia_arena_array(c->arena, p->n_values ? p->n_values : 1, sizeof *c->slot);
    uint32_t n = 0;
    for (uint32_t v = 0; v < p->n_values; v++) {
        c->slot[v] = -1;
        const pte_value *x = &p->values[v];
        if (x->kind != PTE_VALUE_TENSOR)
            continue;
        if (x->tensor.has_allocation)
            n++;
        else if (x->tensor.data_buffer_idx == 0)
            ma->n_unplanned++;
    }
    ma->tensors = mlia_arena_array(c->arena, n ? n : 1, sizeof *ma->tensors);
    /* constants: each distinct data_buffer_idx once */
    uint32_t max_dbi = 0;
    for (uint32_t v = 0; v < p->n_values; v++)
        if (p->values[v].kind == PTE_VALUE_TENSOR && p->values[v].tensor.is_constant &&
            p->values[v].tensor.data_buffer_idx > max_dbi)
            max_dbi = p->values[v].tensor.data_buffer_idx;
    /* data_buffer_idx was checked against the constant tables by the
     * reader, so max_dbi is bounded by the file's size */
    bool *seen = mlia_arena_array(c->arena, (size_t)max_dbi + 1, sizeof *seen);
    for (uint32_t v = 0; v < p->n_values; v++) {
        const pte_value *x = &p->values[v];
        if (x->kind != PTE_VALUE_TENSOR)
            continue;
        const pte_tensor *t = &x->tensor;
        if (t->is_constant && !seen[t->data_buffer_idx]) {
            seen[t->data_buffer_idx] = true;
            ma->constant_bytes += t->nbytes;
        }
        if (!t->has_allocation)
            continue;
        if (t->memory_id == 0) {
            unavailable(c,
                        "%s: planned tensor in pool 0 (the constant placeholder) at byte %" PRIu64
                        " (execution_plan[%" PRIu32 "].values[%" PRIu32 "].val.allocation_info.memory_id)",
                        c->in->pte_path, t->allocation_offset, c->in->plan_index, v);
            return -1;
        }
        const memory_pool *pl = &ma->pools[t->memory_id - 1];
        if (t->memory_offset > pl->size || t->nbytes > pl->size - t->memory_offset) {
            unavailable(c,
                        "%s: tensor bytes [%" PRIu64 ", %" PRIu64 ") extend past pool %" PRIu32 " (%" PRIu64
                        " bytes) at byte %" PRIu64 " (execution_plan[%" PRIu32 "].values[%" PRIu32
                        "].val.allocation_info)",
                        c->in->pte_path, t->memory_offset,
                        t->memory_offset + (t->nbytes > UINT64_MAX - t->memory_offset ? 0 : t->nbytes),
                        t->memory_id, pl->size, t->allocation_offset, c->in->plan_index, v);
            return -1;
        }
        memory_tensor *m = &ma->tensors[ma->n_tensors];
        c->slot[v] = (int32_t)ma->n_tensors++;
        m->value = v;
        m->pool = t->memory_id;
        m->offset = t->memory_offset;
        m->nbytes = t->nbytes;
        m->scalar_type = t->scalar_type;
        m->first = m->last = -1;
        m->alias_of = -1;
        m->producer = m->last_consumer = -1;
        m->is_mutable = t->data_buffer_idx > 0;
        ma->pools[t->memory_id - 1].n_tensors++;
    }
    for (uint32_t i = 0; i < p->n_inputs; i++)
        if (c->slot[p->inputs[i]] >= 0)
            ma->tensors[c->slot[p->inputs[i]]].is_input = true;
    for (uint32_t i = 0; i < p->n_outputs; i++)
        if (c->slot[p->outputs[i]] >= 0)
            ma->tensors[c->slot[p->outputs[i]]].is_output = true;
    return 0;
}

/* ------------------------------------------------------------ lifetimes */

/* Instruction k references value v; `writes` when it is the written last
 * argument (or a member of it). */
static void touch(mctx *c, int64_t v, uint32_t k, bool writes)
{
    if (v < 0 || (uint64_t)v >= c->plan->n_values)
        return;
    const pte_value *x = &c->plan->values[v];
    if (x->kind == PTE_VALUE_TENSOR_LIST || x->kind == PTE_VALUE_OPTIONAL_TENSOR_LIST) {
        /* members one level down (the reader checked their indexes) */
        for (uint32_t i = 0; i < x->n_items; i++)
            if (x->items[i] >= 0 && c->slot[x->items[i]] >= 0)
                touch(c, x->items[i], k, writes);
        return;
    }
    int32_t s = c->slot[v];
    if (s < 0)
        return;
    memory_tensor *m = &c->ma->tensors[s];
    if (m->first < 0) {
        m->first = (int32_t)k;
        if (writes)
            m->producer = (int32_t)k;
        else if (!m->is_input && !m->is_mutable) {
            /* a view: first referenced by a read, sharing an earlier
             * value's bytes exactly (docs/memory.md "Views") */
            for (uint32_t q = (uint32_t)s; q-- > 0;) {
                const memory_tensor *o = &c->ma->tensors[q];
                if (o->pool == m->pool && o->offset == m->offset && o->nbytes == m->nbytes &&
                    o->scalar_type == m->scalar_type && o->first >= 0) {
                    m->alias_of = o->alias_of >= 0 ? o->alias_of : (int32_t)o->value;
                    break;
                }
            }
        }
    }
    m->last = (int32_t)k;
    m->last_consumer = (int32_t)k;
}

/* Whether v is the kernel's written last argument or a member of a
 * TensorList there (max_pool2d_with_indices writes two tensors). */
static bool writes_value(const pte_plan *p, const pte_instruction *in, int32_t v)
{
    if (!in->n_args)
        return false;
    int32_t last = in->args[in->n_args - 1];
    if (v == last)
        return true;
    const pte_value *x = &p->values[last];
    if (x->kind != PTE_VALUE_TENSOR_LIST)
        return false;
    for (uint32_t i = 0; i < x->n_items; i++)
        if (x->items[i] == v)
            return true;
    return false;
}

/* Outputs of delegate call k from the ETRecord's instruction -> output
 * count map, 0 when unknown. */
static uint32_t delegate_outputs(const mctx *c, uint32_t k, uint32_t n_args)
{
    const etrecord_method *maps = c->in->maps;
    if (!maps || k >= maps->n_instr || maps->num_outs[k] < 0 || (uint64_t)maps->num_outs[k] > n_args)
        return 0;
    return (uint32_t)maps->num_outs[k];
}

static void lifetimes(mctx *c, const pte_chain *ch)
{
    memory_analysis *ma = c->ma;
    uint32_t n = ch->n_instructions;
    for (uint32_t k = 0; k < n; k++) {
        const pte_instruction *in = &ch->instructions[k];
        switch (in->kind) {
        case PTE_INSTR_KERNEL:
        case PTE_INSTR_DELEGATE:
            for (uint32_t a = 0; a < in->n_args; a++) {
                /* out-variant kernels: the last argument (or the members
                 * of a list there) is written; it may also appear earlier
                 * as the out= argument. A delegate call's outputs are its
                 * last num_outs arguments (ETRecord map; unknown without) */
                bool w = in->kind == PTE_INSTR_KERNEL ? writes_value(c->plan, in, in->args[a])
                                                      : a >= in->n_args - delegate_outputs(c, k, in->n_args);
                touch(c, in->args[a], k, w);
            }
            break;
        case PTE_INSTR_MOVE:
            touch(c, in->a, k, false);
            touch(c, in->b, k, true);
            break;
        case PTE_INSTR_JUMP_FALSE:
        case PTE_INSTR_FREE:
            touch(c, in->a, k, false);
            break;
        default:
            break;
        }
    }
    /* corrections (memory.h): inputs from 0, outputs to the end, mutable
     * tensors always; views extend their base */
    for (uint32_t i = 0; i < ma->n_tensors && n; i++) {
        memory_tensor *m = &ma->tensors[i];
        if (m->is_mutable) {
            m->first = 0;
            m->last = (int32_t)n - 1;
            continue;
        }
        if (m->is_input) {
            m->first = 0;
            if (m->last < 0)
                m->last = 0;
        }
        if (m->is_output) {
            if (m->first < 0)
                m->first = m->is_input ? 0 : (int32_t)n - 1;
            m->last = (int32_t)n - 1;
        }
    }
    for (uint32_t i = 0; i < ma->n_tensors; i++) {
        memory_tensor *m = &ma->tensors[i];
        if (m->alias_of < 0 || m->first < 0)
            continue;
        memory_tensor *b = &ma->tensors[c->slot[m->alias_of]];
        if (m->last > b->last)
            b->last = m->last;
        if (m->first < b->first)
            b->first = m->first;
    }
    /* a view lives as long as its base */
    for (uint32_t i = 0; i < ma->n_tensors; i++) {
        memory_tensor *m = &ma->tensors[i];
        if (m->alias_of < 0)
            continue;
        const memory_tensor *b = &ma->tensors[c->slot[m->alias_of]];
        m->first = b->first;
        m->last = b->last;
    }
}

/* ------------------------------------------------------------ live bytes */

typedef struct range {
    uint64_t lo, hi;
} range;

static int cmp_range(const void *a, const void *b)
{
    const range *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* Size of the union of r[0, n) (sorts r). */
static uint64_t union_bytes(range *r, uint32_t n)
{
    qsort(r, n, sizeof *r, cmp_range);
    uint64_t total = 0, end = 0;
    bool open = false;
    for (uint32_t i = 0; i < n; i++) {
        if (r[i].hi <= r[i].lo)
            continue;
        if (!open || r[i].lo >= end) {
            total += r[i].hi - r[i].lo;
            end = r[i].hi;
            open = true;
        } else if (r[i].hi > end) {
            total += r[i].hi - end;
            end = r[i].hi;
        }
    }
    return total;
}

static uint64_t align_up(uint64_t x)
{
    uint64_t a = MEMORY_DEFAULT_ALIGNMENT;
    return x > UINT64_MAX - (a - 1) ? x : (x + a - 1) / a * a;
}

static void live_bytes(mctx *c)
{
    memory_analysis *ma = c->ma;
    uint32_t n = ma->n_instructions;
    range *r = mlia_arena_array(c->arena, ma->n_tensors ? ma->n_tensors : 1, sizeof *r);
    range *ra = mlia_arena_array(c->arena, ma->n_tensors ? ma->n_tensors : 1, sizeof *ra);
    for (uint32_t p = 0; p < ma->n_pools; p++) {
        memory_pool *pl = &ma->pools[p];
        pl->live = mlia_arena_array(c->arena, n ? n : 1, sizeof *pl->live);
        for (uint32_t i = 0; i < ma->n_tensors; i++)
            if (ma->tensors[i].pool == pl->id && ma->tensors[i].alias_of < 0)
                pl->no_reuse_bytes += ma->tensors[i].nbytes;
    }
    ma->peak_instruction = -1;
    for (uint32_t k = 0; k < n; k++) {
        memory_instruction *mi = &ma->instructions[k];
        for (uint32_t p = 0; p < ma->n_pools; p++) {
            memory_pool *pl = &ma->pools[p];
            uint32_t nr = 0;
            for (uint32_t i = 0; i < ma->n_tensors; i++) {
                const memory_tensor *m = &ma->tensors[i];
                if (m->pool != pl->id || m->first < 0 || (int32_t)k < m->first || (int32_t)k > m->last)
                    continue;
                r[nr].lo = m->offset;
                r[nr].hi = m->offset + m->nbytes;
                ra[nr].lo = m->offset;
                ra[nr].hi = m->offset + align_up(m->nbytes);
                nr++;
            }
            uint64_t live = union_bytes(r, nr);
            uint64_t live_a = union_bytes(ra, nr);
            pl->live[k] = live;
            mi->live += live;
            if (live > pl->peak || (pl->peak_instruction < 0 && nr)) {
                pl->peak = live;
                pl->peak_instruction = (int32_t)k;
            }
            if (live_a > pl->peak_aligned)
                pl->peak_aligned = live_a;
        }
        for (uint32_t i = 0; i < ma->n_tensors; i++) {
            const memory_tensor *m = &ma->tensors[i];
            if (m->first >= 0 && (int32_t)k >= m->first && (int32_t)k <= m->last)
                mi->n_live++;
            if (m->producer == (int32_t)k && m->alias_of < 0)
                mi->allocates += m->nbytes;
        }
        if (mi->live > ma->peak || (ma->peak_instruction < 0 && mi->n_live)) {
            ma->peak = mi->live;
            ma->peak_instruction = (int32_t)k;
        }
    }
    for (uint32_t p = 0; p < ma->n_pools; p++) {
        memory_pool *pl = &ma->pools[p];
        if (pl->peak_aligned > pl->size)
            pl->peak_aligned = pl->size; /* rounding cannot pass the pool's end */
        pl->waste = pl->size >= pl->peak ? pl->size - pl->peak : 0;
    }
}

/* ------------------------------------------------------------ operators and source nodes */

/* "addmm" of "aten::addmm.out" / "aten.addmm.default": the text between
 * the namespace separator and the overload dot. */
static mlia_str op_base(const char *s, bool colons)
{
    mlia_str r = {s, 0};
    if (!s)
        return r;
    const char *b = colons ? strstr(s, "::") : strchr(s, '.');
    if (b)
        b += colons ? 2 : 1;
    else
        b = s;
    const char *e = strchr(b, '.');
    r.ptr = b;
    r.len = e ? (size_t)(e - b) : strlen(b);
    return r;
}

static void name_instructions(mctx *c, const pte_chain *ch)
{
    memory_analysis *ma = c->ma;
    const pte_plan *p = c->plan;
    const etrecord_method *maps = c->in->maps;
    const ep_graph *g = c->in->program ? &c->in->program->graph : NULL;
    uint32_t nh = 0;
    const ep_handle_node *hn = g && maps ? ep_handle_index(g, c->arena, &nh) : NULL;
    for (uint32_t k = 0; k < ch->n_instructions; k++) {
        const pte_instruction *in = &ch->instructions[k];
        memory_instruction *mi = &ma->instructions[k];
        mi->kind = in->kind;
        mi->node = -1;
        mlia_str base = {NULL, 0};
        if (in->kind == PTE_INSTR_KERNEL) {
            mi->op = pte_operator_display(&p->operators[in->op_index], c->arena);
            base = op_base(mi->op, true);
        } else if (in->kind == PTE_INSTR_DELEGATE) {
            const pte_delegate *d = &p->delegates[in->delegate_index];
            mi->op = mlia_arena_printf(c->arena, "delegate:%.*s", (int)d->id.len, d->id.ptr ? d->id.ptr : "");
        } else {
            const char *kn = pte_instr_kind_name(in->kind);
            mi->op = kn ? kn : "unknown";
        }
        if (!hn || k >= maps->n_instr || !maps->debug_handles[k].present)
            continue;
        /* the node of the instruction's handle whose target is the
         * instruction's aten op; else the first node of the handle */
        const etrecord_handles *h = &maps->debug_handles[k];
        int32_t first = -1, match = -1;
        for (uint32_t j = 0; j < h->n && match < 0; j++) {
            for (uint32_t q = ep_handle_first(hn, nh, h->v[j]); q < nh && hn[q].handle == h->v[j]; q++) {
                const ep_node *nd = &g->nodes[hn[q].node];
                if (in->kind == PTE_INSTR_DELEGATE) {
                    /* a delegate call runs the lowered call node, not one of
                     * the operators it covers */
                    if (nd->is_delegate) {
                        match = (int32_t)hn[q].node;
                        break;
                    }
                    continue;
                }
                if (first < 0)
                    first = (int32_t)hn[q].node;
                mlia_str nb = op_base(nd->target ? ep_target_short(nd->target) : NULL, false);
                if (base.ptr && nb.ptr && nb.len == base.len && memcmp(nb.ptr, base.ptr, nb.len) == 0) {
                    match = (int32_t)hn[q].node;
                    break;
                }
            }
        }
        mi->node = match >= 0 ? match : first;
        if (mi->node >= 0)
            mi->node_name = g->nodes[mi->node].name;
    }
}

/* ------------------------------------------------------------ runtime allocations */

static int runtime_allocations(mctx *c, mlia_error *err)
{
    const etdump *d = c->in->dump;
    memory_analysis *ma = c->ma;
    if (!d)
        return 0;
    uint32_t cap = 0;
    for (uint32_t r = 0; r < d->n_runs; r++) {
        /* an allocation event needs a registered allocator (docs/memory.md):
         * runs without allocators are not decoded */
        uint32_t orig;
        const etdump *od = etdump_run_origin(d, r, &orig);
        const etdump_run *run = &od->runs[orig];
        if (!run->n_allocators)
            continue;
        etdump_cursor cur;
        etdump_event ev;
        etdump_debug_value dv;
        if (etdump_run_begin(d, r, &cur, err) < 0)
            return -1;
        int more;
        while ((more = etdump_run_next(&cur, &ev, &dv, err)) != 0) {
            if (more < 0)
                return -1;
            if (ev.kind != ETDUMP_EVENT_ALLOCATION || ev.allocator_id < 1 ||
                (uint32_t)ev.allocator_id > run->n_allocators)
                continue;
            mlia_str name = run->allocators[ev.allocator_id - 1];
            uint32_t a = 0;
            while (a < ma->n_allocators && !mlia_str_eq(name, ma->allocators[a].name))
                a++;
            if (a == ma->n_allocators) {
                if (a == cap) {
                    uint32_t nc = cap ? cap * 2 : 4;
                    ma->allocators = mlia_arena_grow(c->arena, ma->allocators, a, nc, sizeof *ma->allocators);
                    cap = nc;
                }
                ma->allocators[a].name = mlia_arena_strndup(c->arena, name.ptr ? name.ptr : "", name.len);
                ma->allocators[a].count = ma->allocators[a].bytes = 0;
                ma->n_allocators++;
            }
            ma->allocators[a].count++;
            ma->allocators[a].bytes += ev.allocation_size;
            ma->has_runtime = true;
        }
    }
    return 0;
}

/* ------------------------------------------------------------ entry points */

int memory_analyse(const memory_inputs *in, mlia_arena *arena, memory_analysis **out, mlia_error *err)
{
    memory_analysis *ma = mlia_arena_alloc(arena, sizeof *ma);
    *out = ma;
    ma->method = in->method;
    ma->available = true;
    ma->peak_instruction = -1;
    mctx c = {.in = in, .plan = in->plan, .arena = arena, .ma = ma};
    const pte_plan *p = in->plan;
    if (runtime_allocations(&c, err) < 0)
        return -1;
    if (read_pools(&c) < 0 || read_tensors(&c) < 0)
        return 0;
    if (p->n_chains > 1) {
        unavailable(&c, "%s: method '%s' has %" PRIu32 " chains; lifetimes are reconstructed for one chain only",
                    in->pte_path, in->method, p->n_chains);
        return 0;
    }
    static const pte_chain empty;
    const pte_chain *ch = p->n_chains ? &p->chains[0] : &empty;
    ma->n_instructions = ch->n_instructions;
    ma->instructions = mlia_arena_array(arena, ch->n_instructions ? ch->n_instructions : 1, sizeof *ma->instructions);
    for (uint32_t k = 0; k < ch->n_instructions; k++)
        if (ch->instructions[k].kind == PTE_INSTR_JUMP_FALSE) {
            unavailable(&c,
                        "%s: method '%s' has control flow (instruction %" PRIu32
                        " is a jump); its sub-graphs are planned separately and their lifetimes cannot be "
                        "reconstructed",
                        in->pte_path, in->method, k);
            return 0;
        }
    name_instructions(&c, ch);
    lifetimes(&c, ch);
    live_bytes(&c);
    for (uint32_t i = 0; i < ma->n_pools; i++)
        if (ma->pools[i].peak > ma->pools[i].size) {
            /* two tensors overlapping in time and bytes: the reconstruction
             * (or the plan) is wrong, no figure is trustworthy */
            unavailable(&c,
                        "%s: live bytes of pool %" PRIu32 " reach %" PRIu64 " at instruction %" PRId32
                        ", above its planned size %" PRIu64 " at byte %" PRIu64
                        " (execution_plan[%" PRIu32 "].non_const_buffer_sizes[%" PRIu32 "])",
                        in->pte_path, ma->pools[i].id, ma->pools[i].peak, ma->pools[i].peak_instruction,
                        ma->pools[i].size, p->non_const_buffer_sizes_offset + 8 * (uint64_t)ma->pools[i].id,
                        in->plan_index, ma->pools[i].id);
            return 0;
        }
    return 0;
}

uint32_t memory_live_at(const memory_analysis *ma, uint32_t k, uint32_t *idx)
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < ma->n_tensors; i++) {
        const memory_tensor *m = &ma->tensors[i];
        if (m->first >= 0 && (int32_t)k >= m->first && (int32_t)k <= m->last)
            idx[n++] = i;
    }
    return n;
}

static void set_metric(mlia_result *r, const char *name, uint64_t v)
{
    for (uint32_t i = 0; i < r->n_metrics; i++)
        if (strcmp(r->metrics[i].name, name) == 0) {
            r->metrics[i] = mlia_metric_uint(name, "bytes", v, NULL, 0);
            return;
        }
    mlia_result_add_metric(r, mlia_metric_uint(name, "bytes", v, NULL, 0));
}

void memory_add_metrics(const memory_analysis *ma, mlia_result *r)
{
    if (!ma)
        return;
    mlia_arena *a = r->arena;
    if (!ma->available) {
        const char *why = mlia_arena_printf(a, "The memory plan cannot be used: %s.", ma->reason);
        for (uint32_t i = 0; i < r->n_metrics; i++)
            if (strcmp(r->metrics[i].name, "peak_activation_memory") == 0)
                r->metrics[i] = mlia_metric_unavailable("peak_activation_memory", "bytes", why);
        return;
    }
    if (ma->n_pools)
        set_metric(r, "peak_activation_memory", ma->peak);
    else
        for (uint32_t i = 0; i < r->n_metrics; i++)
            if (strcmp(r->metrics[i].name, "peak_activation_memory") == 0)
                r->metrics[i] = mlia_metric_unavailable(
                    "peak_activation_memory", "bytes",
                    "The method has no planned memory pool: its tensors live in delegate or caller memory.");
    set_metric(r, "model_weight_memory", ma->constant_bytes);
    mlia_result_add_metric(r, mlia_metric_uint("planned_memory", "bytes", ma->total_planned, NULL, 0));
    for (uint32_t p = 0; p < ma->n_pools; p++) {
        const memory_pool *pl = &ma->pools[p];
        const char *id = mlia_arena_printf(a, "%" PRIu32, pl->id);
        mlia_metric m = mlia_metric_uint("memory_pool_size", "bytes", pl->size, NULL, 0);
        mlia_metric_qualify(&m, "pool", id);
        mlia_result_add_metric(r, m);
        m = mlia_metric_uint("memory_pool_peak", "bytes", pl->peak, "max", 0);
        mlia_metric_qualify(&m, "pool", id);
        mlia_result_add_metric(r, m);
        m = mlia_metric_uint("memory_pool_waste", "bytes", pl->waste, NULL, 0);
        mlia_metric_qualify(&m, "pool", id);
        mlia_result_add_metric(r, m);
    }
    for (uint32_t k = 0; k < ma->n_instructions; k++) {
        const char *ks = mlia_arena_printf(a, "%" PRIu32, k);
        mlia_metric m = mlia_metric_uint("live_bytes", "bytes", ma->instructions[k].live, NULL, 0);
        mlia_metric_qualify(&m, "instruction", ks);
        mlia_result_add_metric(r, m);
    }
    for (uint32_t i = 0; i < ma->n_allocators; i++) {
        mlia_metric m = mlia_metric_uint("runtime_allocated_bytes", "bytes", ma->allocators[i].bytes, "sum", 0);
        mlia_metric_qualify(&m, "allocator", ma->allocators[i].name);
        mlia_result_add_metric(r, m);
    }
    /* delegate calls: their own live and written bytes */
    for (uint32_t k = 0; k < ma->n_instructions; k++) {
        const memory_instruction *mi = &ma->instructions[k];
        mlia_entity *e = mi->kind == PTE_INSTR_DELEGATE
                             ? mlia_result_find(r, mlia_arena_printf(a, "delegate_call/%s/0/%" PRIu32, ma->method, k))
                             : NULL;
        if (e) {
            mlia_entity_add_metric(r, e, mlia_metric_uint("live_bytes", "bytes", mi->live, "max", 0));
            mlia_entity_add_metric(r, e, mlia_metric_uint("allocated_bytes", "bytes", mi->allocates, "sum", 0));
        }
    }
    /* source operators: the largest live bytes over their instructions and
     * the bytes they write first, in the order of their first instruction */
    int32_t max_node = -1;
    for (uint32_t k = 0; k < ma->n_instructions; k++)
        if (ma->instructions[k].node > max_node)
            max_node = ma->instructions[k].node;
    if (max_node < 0)
        return;
    uint64_t *live = mlia_arena_array(a, (size_t)max_node + 1, sizeof *live);
    uint64_t *alloc = mlia_arena_array(a, (size_t)max_node + 1, sizeof *alloc);
    for (uint32_t k = 0; k < ma->n_instructions; k++) {
        const memory_instruction *mi = &ma->instructions[k];
        if (mi->node < 0)
            continue;
        if (mi->live > live[mi->node])
            live[mi->node] = mi->live;
        alloc[mi->node] += mi->allocates;
    }
    bool *done = mlia_arena_array(a, (size_t)max_node + 1, sizeof *done);
    for (uint32_t k = 0; k < ma->n_instructions; k++) {
        const memory_instruction *mi = &ma->instructions[k];
        if (mi->node < 0 || !mi->node_name || done[mi->node])
            continue;
        done[mi->node] = true;
        mlia_entity *e = mlia_result_find(r, mlia_arena_printf(a, "source_operator/%s/%s", ma->method, mi->node_name));
        if (!e)
            continue;
        mlia_entity_add_metric(r, e, mlia_metric_uint("live_bytes", "bytes", live[mi->node], "max", 0));
        mlia_entity_add_metric(r, e, mlia_metric_uint("allocated_bytes", "bytes", alloc[mi->node], "sum", 0));
    }
}
