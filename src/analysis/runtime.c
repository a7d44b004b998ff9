/*
 * runtime.c - runtime timing analysis (see runtime.h for the contract).
 *
 * Design
 * ------
 * 1. Instruction sites (chain, instruction) seen in the selected executions
 *    are interned into dense "slots" (open-addressing hash, sized from the
 *    event count). Everything per site is then an array index.
 * 2. Each execution is scanned once, in file order. ExecuTorch appends an
 *    event when it ends, so children precede their wrapper: native_call_*
 *    precedes its OPERATOR_CALL, backend events precede their DELEGATE_CALL.
 *    Children are parked on a per-slot pending list (indexes into one array
 *    sized by the run's event count) and consumed by the wrapper, which
 *    computes its unattributed time (duration minus the union of its direct
 *    children) and, for delegate calls, the containment tree of the backend
 *    events.
 * 3. Per execution, each measured quantity is summed per entity ("samples of
 *    the same entity are summed first"); the per-execution sums are stored in
 *    [entity][execution] tables of uint64 ticks with UINT64_MAX = "not
 *    measured". Summaries (nearest-rank P50, min, max) are taken at the end.
 * 4. Source operators: an instruction's handles select the call_function
 *    nodes with those debug handles. A node reached only by instructions
 *    whose node group has one member gets an exclusive timing; otherwise the
 *    timing is shared and `shared_with` lists the other group members.
 */
#include "runtime.h"
#include "core/assert.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/provenance.h"
#include "core/oom.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"
#include "formats/pte.h"

#define NOT_MEASURED UINT64_MAX
#define SHARED_WITH_MAX 64

/* ------------------------------------------------------------------ */
/* helpers                                                              */

void runtime_min_max_u64(const uint64_t *v, uint32_t n, uint64_t *min, uint64_t *max)
{
    *min = *max = v[0];
    for (uint32_t i = 1; i < n; i++) {
        if (v[i] < *min)
            *min = v[i];
        if (v[i] > *max)
            *max = v[i];
    }
}

/* Nearest-rank P50 by quickselect (expected linear time; the values are
 * reordered). Summaries run once per entity and metric, so avoiding a full
 * sort matters for 5,000 entities x 1,000 executions. */
uint64_t runtime_p50_u64(uint64_t *v, uint32_t n)
{
    return runtime_rank_u64(v, n, (n + 1) / 2 - 1);
}

uint64_t runtime_rank_u64(uint64_t *v, uint32_t n, uint32_t k)
{
    uint32_t lo = 0, hi = n - 1;
    while (lo < hi) {
        uint64_t pivot = v[lo + (hi - lo) / 2];
        uint32_t i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot)
                i++;
            while (v[j] > pivot)
                j--;
            if (i <= j) {
                uint64_t t = v[i];
                v[i] = v[j];
                v[j] = t;
                i++;
                if (j == 0)
                    break;
                j--;
            }
        }
        if (k <= j)
            hi = j;
        else if (k >= i)
            lo = i;
        else
            break;
    }
    return v[k];
}

static bool str_is(mlia_str s, const char *c)
{
    return mlia_str_eq(s, c);
}

/* Event classes, decided once per event from its name (hot path: 1,000,000+
 * events, so a switch on the first byte and exact-length compares). */
typedef enum ev_class {
    EV_OTHER = 0,     /* JF/MOVE/FREE and unknown runtime events: not operators */
    EV_EXECUTE,       /* Method::execute */
    EV_FRAMEWORK,     /* Method::init, Program::load_method */
    EV_OPCALL,        /* OPERATOR_CALL */
    EV_NATIVE,        /* native_call_<op>.<overload> */
    EV_DELCALL,       /* DELEGATE_CALL */
    EV_DELEGATE       /* backend event: no name, a delegate debug id */
} ev_class;

static inline bool name_is(const mlia_str *n, const char *lit, size_t len)
{
    return n->len == len && memcmp(n->ptr, lit, len) == 0;
}

static inline ev_class classify(const etdump_event *e)
{
    const mlia_str *n = &e->name;
    if (!n->ptr)
        return (e->delegate_debug_id_str.ptr || e->delegate_debug_id_int >= 0) ? EV_DELEGATE : EV_OTHER;
    if (!n->len)
        return EV_OTHER;
    switch (n->ptr[0]) {
    case 'O':
        return name_is(n, "OPERATOR_CALL", 13) ? EV_OPCALL : EV_OTHER;
    case 'D':
        return name_is(n, "DELEGATE_CALL", 13) ? EV_DELCALL : EV_OTHER;
    case 'n':
        return n->len >= 12 && memcmp(n->ptr, "native_call_", 12) == 0 ? EV_NATIVE : EV_OTHER;
    case 'M':
        if (name_is(n, "Method::execute", 15))
            return EV_EXECUTE;
        return name_is(n, "Method::init", 12) ? EV_FRAMEWORK : EV_OTHER;
    case 'P':
        return name_is(n, "Program::load_method", 20) ? EV_FRAMEWORK : EV_OTHER;
    default:
        return EV_OTHER;
    }
}

/* ------------------------------------------------------------------ */
/* method selection                                                     */

static bool map_has(const etrecord_method *m, int64_t instr, bool delegate)
{
    if (instr < 0 || (uint64_t)instr >= m->n_instr)
        return false;
    /* A delegate call must be in delegate_map; only when the ETRecord has no
     * delegate_map for the method can a debug handle stand in for it. */
    if (delegate)
        return m->delegates[instr].present || (!m->in_delegate_map && m->debug_handles[instr].present);
    return m->debug_handles[instr].present && !m->delegates[instr].present;
}

static bool plan_has(const pte_plan *p, int64_t chain, int64_t instr, int kind)
{
    if (chain < 0 || (uint64_t)chain >= p->n_chains)
        return false;
    const pte_chain *c = &p->chains[chain];
    if (instr < 0 || (uint64_t)instr >= c->n_instructions)
        return false;
    return c->instructions[instr].kind == kind;
}

/* Does run `r` fit method m (and plan p when given)? */
static bool run_fits(const etdump_events *run, const etrecord_method *m, const pte_plan *p)
{
    for (uint32_t k = 0; k < run->n; k++) {
        const etdump_event *e = &run->ev[k];
        if (e->kind != ETDUMP_EVENT_PROFILE)
            continue;
        ev_class cls = classify(e);
        bool op = cls == EV_OPCALL || cls == EV_NATIVE;
        bool del = cls == EV_DELCALL;
        if (!op && !del)
            continue;
        if (p && !plan_has(p, e->chain_index, e->instruction_id, del ? 2 : 1))
            return false;
        if (!p && m && e->chain_index == 0 && !map_has(m, e->instruction_id, del))
            return false;
    }
    return true;
}

/* Decode once (issue 20): the maps-only fit of every recorded method,
 * computed on the ETDump's validation pass (etdump_visitor) so that method
 * selection decodes no run again. run->visit_bits: bit i set = the run is
 * an "Execute" block whose calls method i's maps hold (run_fits(run,
 * &methods[i], NULL)). */
static void fit_run(void *ctx, etdump_run *r)
{
    const etrecord *etr = ctx;
    r->visit_bits = str_is(r->name, "Execute") ? UINT64_MAX >> (64 - etr->n_methods) : 0;
}

/* fit_event with the event's class known (cls: classify(e) of a profile event) */
static void fit_event_class(const etrecord *etr, etdump_run *r, const etdump_event *e, ev_class cls)
{
    if (!r->visit_bits || e->kind != ETDUMP_EVENT_PROFILE || e->chain_index != 0)
        return;
    if (cls != EV_OPCALL && cls != EV_NATIVE && cls != EV_DELCALL)
        return;
    for (uint64_t bits = r->visit_bits; bits; bits &= bits - 1) {
        unsigned i = (unsigned)__builtin_ctzll(bits);
        if (!map_has(&etr->methods[i], e->instruction_id, cls == EV_DELCALL))
            r->visit_bits &= ~((uint64_t)1 << i);
    }
}

static void fit_event(void *ctx, etdump_run *r, const etdump_event *e)
{
    if (!r->visit_bits || e->kind != ETDUMP_EVENT_PROFILE || e->chain_index != 0)
        return;
    fit_event_class(ctx, r, e, classify(e));
}

bool runtime_fit_visitor(const etrecord *etr, etdump_visitor *v)
{
    if (!etr || etr->n_methods == 0 || etr->n_methods > 64)
        return false;
    *v = (etdump_visitor){etr, (void *)etr, fit_run, fit_event, NULL, NULL};
    return true;
}

/* The first operator or delegate call of `run` that method m (plan p) does
 * not map, described for a message: "event K: an operator call at
 * instruction I, which <why>". Nothing is written when every call fits. */
static void describe_misfit(mlia_buf *b, const etdump_events *run, const etrecord_method *m, const pte_plan *p)
{
    for (uint32_t k = 0; k < run->n; k++) {
        const etdump_event *e = &run->ev[k];
        if (e->kind != ETDUMP_EVENT_PROFILE)
            continue;
        ev_class cls = classify(e);
        bool del = cls == EV_DELCALL;
        if (cls != EV_OPCALL && cls != EV_NATIVE && !del)
            continue;
        int64_t in = e->instruction_id;
        bool fits = p ? plan_has(p, e->chain_index, in, del ? 2 : 1) : e->chain_index != 0 || map_has(m, in, del);
        if (fits)
            continue;
        mlia_buf_printf(b, "event %u: %s call at instruction %lld", k, del ? "a delegate" : "an operator",
                        (long long)in);
        if (e->chain_index != 0)
            mlia_buf_printf(b, " of chain %lld", (long long)e->chain_index);
        if (p)
            mlia_buf_puts(b, ", which the companion's execution plan does not have");
        else if (in < 0 || (uint64_t)in >= m->n_instr)
            mlia_buf_printf(b, ", beyond the %u instruction(s) of the method's maps", m->n_instr);
        else if (!del && m->delegates[in].present)
            mlia_buf_puts(b, ", which is a delegate call in the method's maps");
        else if (del)
            mlia_buf_puts(b, ", which is not a delegate call in the method's maps");
        else
            mlia_buf_puts(b, ", which has no debug handle in the method's maps");
        return;
    }
}

/* The operator a kernel event or a graph target names: "convolution" of
 * "native_call_convolution.out", "aten.convolution.default",
 * "aten::convolution.out" or "executorch.exir.dialects.edge._ops.aten.
 * convolution.default": the part before the overload, after the namespace. */
static mlia_str op_base(const char *s)
{
    if (strncmp(s, "native_call_", 12) == 0)
        s += 12;
    size_t len = strlen(s);
    const char *dot = memrchr(s, '.', len);
    size_t end = dot ? (size_t)(dot - s) : len;
    size_t start = end;
    while (start > 0 && s[start - 1] != '.' && s[start - 1] != ':')
        start--;
    return (mlia_str){s + start, end - start};
}

int runtime_check_kernels(const etdump *dump, uint32_t run, const etrecord_method *m, const ep_program *prog,
                          mlia_arena *arena, mlia_buf *why, mlia_error *err)
{
    if (!m || !prog || !m->n_instr || run >= dump->n_runs)
        return 0;
    uint32_t nh;
    const ep_handle_node *hn = ep_handle_index(&prog->graph, arena, &nh);
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    if (etdump_read_run(dump, run, &evs, err) < 0) {
        etdump_events_done(dump, &evs);
        return -1;
    }
    uint32_t compared = 0, differ = 0;
    const char *first_kernel = NULL, *first_target = NULL;
    int64_t first_instr = -1;
    for (uint32_t k = 0; k < evs.n; k++) {
        const etdump_event *e = &evs.ev[k];
        if (e->kind != ETDUMP_EVENT_PROFILE || classify(e) != EV_NATIVE || e->chain_index != 0 ||
            e->instruction_id < 0 || (uint64_t)e->instruction_id >= m->n_instr)
            continue;
        const etrecord_handles *h = &m->debug_handles[e->instruction_id];
        if (!h->present || m->delegates[e->instruction_id].present)
            continue;
        mlia_str kernel = op_base(e->name.ptr);
        const char *target = NULL;
        bool same = false;
        for (uint32_t j = 0; j < h->n && !same; j++)
            for (uint32_t i = ep_handle_first(hn, nh, h->v[j]); i < nh && hn[i].handle == h->v[j] && !same; i++) {
                const char *t = prog->graph.nodes[hn[i].node].target;
                if (!t)
                    continue;
                mlia_str b = op_base(t);
                same = b.len == kernel.len && memcmp(b.ptr, kernel.ptr, b.len) == 0;
                if (!target)
                    target = t;
            }
        if (!target)
            continue; /* nothing to compare with */
        compared++;
        if (!same && differ++ == 0) {
            first_kernel = e->name.ptr;
            first_target = target;
            first_instr = e->instruction_id;
        }
    }
    etdump_events_done(dump, &evs);
    if (compared < RUNTIME_KERNEL_MIN || differ * 2 <= compared)
        return 0;
    /* the target as "aten.convolution.default": its last three parts */
    const char *shown = first_target + strlen(first_target);
    for (int dots = 0; shown > first_target; shown--)
        if (shown[-1] == '.' && ++dots == 3)
            break;
    mlia_buf_printf(why,
                    "the kernels it ran are not the operators of method '%s' at %u of %u instruction(s) (run %u: "
                    "instruction %lld ran %s where the ETRecord has %s)",
                    m->name, differ, compared, run, (long long)first_instr, first_kernel, shown);
    return 1;
}

static void append_list(mlia_buf *b, const uint32_t *v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i == 10) {
            mlia_buf_printf(b, ", ... (%u more omitted)", n - 10);
            break;
        }
        mlia_buf_printf(b, "%s%u", i ? ", " : "", v[i]);
    }
}

/* "a, b, c" - at most MAX_LISTED_METHODS names, then "... and N more": an
 * ETRecord can name 100,000 methods, the message must stay one short line. */
#define MAX_LISTED_METHODS 10u
static void list_methods(mlia_buf *b, const etrecord *etr)
{
    for (uint32_t i = 0; i < etr->n_methods && i < MAX_LISTED_METHODS; i++)
        mlia_buf_printf(b, "%s%s", i ? ", " : "", etr->methods[i].name);
    if (etr->n_methods > MAX_LISTED_METHODS)
        mlia_buf_printf(b, " and %u more", etr->n_methods - MAX_LISTED_METHODS);
}

static const pte_plan *plan_of(const pte_program *companion, const char *name)
{
    const pte_plan *pl = NULL;
    for (uint32_t j = 0; companion && j < companion->n_plans; j++)
        if (mlia_str_eq(companion->plans[j].name, name))
            pl = &companion->plans[j];
    return pl;
}

int runtime_capture_methods(const etrecord *etr, const etdump *dump, const pte_program *companion,
                            mlia_buf *names, mlia_error *err)
{
    bool *fits = calloc(etr->n_methods ? etr->n_methods : 1, sizeof *fits);
    if (!fits)
        mlia_oom(etr->n_methods);
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    for (uint32_t r = 0; r < dump->n_runs; r++) {
        if (!str_is(dump->runs[r].name, "Execute"))
            continue;
        if (etdump_read_run(dump, r, &evs, err) < 0) {
            etdump_events_done(dump, &evs);
            free(fits);
            return -1;
        }
        for (uint32_t i = 0; i < etr->n_methods; i++)
            if (!fits[i] && run_fits(&evs, &etr->methods[i], plan_of(companion, etr->methods[i].name)))
                fits[i] = true;
    }
    etdump_events_done(dump, &evs);
    uint32_t n = 0;
    for (uint32_t i = 0; i < etr->n_methods; i++) {
        if (!fits[i])
            continue;
        if (n < MAX_LISTED_METHODS)
            mlia_buf_printf(names, "%s%s", n ? ", " : "", etr->methods[i].name);
        n++;
    }
    if (n > MAX_LISTED_METHODS)
        mlia_buf_printf(names, " and %u more", n - MAX_LISTED_METHODS);
    free(fits);
    return (int)n;
}

static int select_method(const etrecord *etr, const char *etrecord_path, const char *requested, const etdump *dump,
                         const pte_program *companion, mlia_arena *arena, mlia_result *result,
                         method_selection *out, mlia_buf *misfit, mlia_error *err);

int runtime_select_method(const etrecord *etr, const char *etrecord_path, const char *requested,
                          const etdump *dump, const pte_program *companion, mlia_arena *arena,
                          mlia_result *result, method_selection *out, mlia_error *err)
{
    return select_method(etr, etrecord_path, requested, dump, companion, arena, result, out, NULL, err);
}

int runtime_select_method_capture(const etrecord *etr, const char *etrecord_path, const char *requested,
                                  const etdump *dump, const pte_program *companion, mlia_arena *arena,
                                  mlia_result *result, method_selection *out, mlia_buf *misfit, mlia_error *err)
{
    return select_method(etr, etrecord_path, requested, dump, companion, arena, result, out, misfit, err);
}

static int select_method(const etrecord *etr, const char *etrecord_path, const char *requested, const etdump *dump,
                         const pte_program *companion, mlia_arena *arena, mlia_result *result,
                         method_selection *out, mlia_buf *misfit, mlia_error *err)
{
    memset(out, 0, sizeof *out);
    if (etr->n_methods == 0)
        return mlia_error_setf(err, etrecord_path, "the ETRecord records no method");
    const etrecord_method *sel = NULL;
    if (requested) {
        for (uint32_t i = 0; i < etr->n_methods; i++)
            if (strcmp(etr->methods[i].name, requested) == 0)
                sel = &etr->methods[i];
        if (!sel) {
            mlia_buf b;
            mlia_buf_init(&b);
            list_methods(&b, etr);
            mlia_error_setf(err, etrecord_path, "method '%s' is not recorded in the ETRecord; recorded methods: %s",
                            requested, b.data);
            mlia_buf_free(&b);
            return -1;
        }
    } else if (etr->n_methods == 1) {
        sel = &etr->methods[0];
    } else {
        mlia_buf b;
        mlia_buf_init(&b);
        list_methods(&b, etr);
        mlia_error_setf(err, etrecord_path,
                        "the ETRecord records several methods (%s); select one with "
                        "--neural-technology-profiling-data.etrecord-method",
                        b.data);
        mlia_buf_free(&b);
        return -1;
    }
    out->method = sel;
    out->name = sel->name;

    const pte_plan *sel_plan = NULL;
    if (companion) {
        for (uint32_t i = 0; i < companion->n_plans; i++)
            if (mlia_str_eq(companion->plans[i].name, sel->name))
                sel_plan = &companion->plans[i];
        if (!sel_plan && companion->n_plans == 1 && etr->n_methods == 1)
            sel_plan = &companion->plans[0];
    }

    uint32_t n_exec_blocks = 0;
    for (uint32_t r = 0; r < dump->n_runs; r++)
        if (str_is(dump->runs[r].name, "Execute"))
            n_exec_blocks++;
    out->execution_runs = mlia_arena_array(arena, n_exec_blocks ? n_exec_blocks : 1, sizeof(uint32_t));
    uint32_t *unmatched = mlia_arena_array(arena, n_exec_blocks ? n_exec_blocks : 1, sizeof(uint32_t));
    uint32_t *ambiguous = mlia_arena_array(arena, n_exec_blocks ? n_exec_blocks : 1, sizeof(uint32_t));
    uint32_t n_unmatched = 0, n_ambiguous = 0;
    /* the fits computed on the validation pass, when they are the ones
     * needed: maps only (one method, or no companion plans) */
    bool visited = dump->visit_key == etr && (etr->n_methods == 1 || !companion);
    uint32_t sel_i = (uint32_t)(sel - etr->methods);
    etdump_events evs;
    memset(&evs, 0, sizeof evs);
    for (uint32_t r = 0; r < dump->n_runs; r++) {
        if (!str_is(dump->runs[r].name, "Execute"))
            continue;
        if (etr->n_methods == 1 && sel->n_instr == 0) {
            out->execution_runs[out->n_executions++] = r;
            continue;
        }
        if (visited) {
            uint64_t bits = dump->runs[r].visit_bits;
            bool fits_sel = bits >> sel_i & 1;
            bool others = (bits & ~((uint64_t)1 << sel_i)) != 0 && etr->n_methods > 1;
            if (fits_sel)
                out->execution_runs[out->n_executions++] = r;
            if (fits_sel && others)
                ambiguous[n_ambiguous++] = r;
            if (!fits_sel && !others)
                unmatched[n_unmatched++] = r;
            continue;
        }
        if (etdump_read_run(dump, r, &evs, err) < 0) {
            etdump_events_done(dump, &evs);
            return -1;
        }
        const etdump_events *run = &evs;
        if (etr->n_methods == 1) {
            /* Mismatched inputs (an ETDump of another program): an execution
             * whose calls do not fit the method's maps is not attributed
             * (docs/hardening.md "Mismatched inputs"). Only the maps are
             * used: a companion that does not fit is reported later, naming
             * the companion; a method without maps cannot be checked. */
            if (run_fits(run, sel, NULL))
                out->execution_runs[out->n_executions++] = r;
            else
                unmatched[n_unmatched++] = r;
            continue;
        }
        bool fits_sel = run_fits(run, sel, sel_plan);
        uint32_t others = 0;
        for (uint32_t i = 0; i < etr->n_methods; i++) {
            if (&etr->methods[i] == sel)
                continue;
            const pte_plan *pl = NULL;
            if (companion)
                for (uint32_t j = 0; j < companion->n_plans; j++)
                    if (mlia_str_eq(companion->plans[j].name, etr->methods[i].name))
                        pl = &companion->plans[j];
            if (run_fits(run, &etr->methods[i], pl))
                others++;
        }
        if (fits_sel) {
            out->execution_runs[out->n_executions++] = r;
            if (others)
                ambiguous[n_ambiguous++] = r;
        } else if (!others) {
            unmatched[n_unmatched++] = r;
        }
    }
    if (n_unmatched && !out->n_executions) {
        mlia_buf b;
        mlia_buf_init(&b);
        if (etdump_read_run(dump, unmatched[0], &evs, err) < 0) {
            etdump_events_done(dump, &evs);
            return -1;
        }
        describe_misfit(&b, &evs, sel, etr->n_methods == 1 ? NULL : sel_plan);
        etdump_events_done(dump, &evs);
        if (misfit) {
            mlia_buf_printf(misfit, "run %u, %s", unmatched[0], b.data ? b.data : "");
            mlia_buf_free(&b);
            out->n_unmatched = n_unmatched;
            return 0;
        }
        /* the ETDump is the file at fault, the ETRecord the program it is
         * judged against (issue 29, 6) */
        mlia_error_setkf(err, MLIA_ERROR_KIND_MISMATCH, dump->file ? dump->file : etrecord_path,
                         "not recorded from the program of %s: no execution fits method '%s' (run %u, %s); "
                         RUNTIME_MISMATCH_FIX,
                         etrecord_path, sel->name, unmatched[0], b.data ? b.data : "");
        mlia_buf_free(&b);
        return -1;
    }
    etdump_events_done(dump, &evs);
    if (n_unmatched) {
        mlia_buf b;
        mlia_buf_init(&b);
        mlia_buf_printf(&b, "%u execution(s) of the ETDump fit no recorded method and were ignored (runs ",
                        n_unmatched);
        append_list(&b, unmatched, n_unmatched);
        mlia_buf_puts(&b, ").");
        mlia_result_warn(result, b.data);
        mlia_buf_free(&b);
    }
    if (n_ambiguous) {
        mlia_buf b;
        mlia_buf_init(&b);
        mlia_buf_printf(&b,
                        "%u execution(s) fit method '%s' and another recorded method; they were attributed "
                        "to the selected method '%s' (runs ",
                        n_ambiguous, sel->name, sel->name);
        append_list(&b, ambiguous, n_ambiguous);
        mlia_buf_puts(&b, ").");
        mlia_result_warn(result, b.data);
        mlia_buf_free(&b);
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* slots: interned (chain, instruction) sites                           */

typedef struct slot_map {
    uint32_t cap;
    uint64_t *keys;     /* key+1, 0 = empty */
    uint32_t *vals;
    uint32_t n;
    int64_t *chain;     /* [n] */
    int64_t *instr;     /* [n] */
    uint32_t cap_n;
} slot_map;

static uint64_t site_key(int64_t chain, int64_t instr)
{
    return ((uint64_t)(uint32_t)chain << 32) | (uint32_t)instr;
}

static void slot_rehash(slot_map *m, mlia_arena *arena)
{
    uint32_t nc = m->cap ? m->cap * 2 : 64;
    uint64_t *nk = mlia_arena_array(arena, nc, sizeof(uint64_t));
    uint32_t *nv = mlia_arena_array(arena, nc, sizeof(uint32_t));
    for (uint32_t i = 0; i < m->cap; i++) {
        if (!m->keys[i])
            continue;
        uint64_t h = m->keys[i] * 0x9E3779B97F4A7C15ull;
        uint32_t j = (uint32_t)(h >> 32) & (nc - 1);
        while (nk[j])
            j = (j + 1) & (nc - 1);
        nk[j] = m->keys[i];
        nv[j] = m->vals[i];
    }
    m->keys = nk;
    m->vals = nv;
    m->cap = nc;
}

/* Slot of site (chain, instr), interned on first sight. Sites are bounded by
 * the program's instructions, so the map grows with the graph, never with
 * the events. */
static uint32_t slot_get(slot_map *m, mlia_arena *arena, int64_t chain, int64_t instr)
{
    uint64_t key = site_key(chain, instr) + 1;
    uint64_t h = key * 0x9E3779B97F4A7C15ull;
    uint32_t i = (uint32_t)(h >> 32) & (m->cap - 1);
    while (m->keys[i]) {
        if (m->keys[i] == key)
            return m->vals[i];
        i = (i + 1) & (m->cap - 1);
    }
    if ((m->n + 1) * 2 > m->cap) {
        slot_rehash(m, arena);
        i = (uint32_t)(h >> 32) & (m->cap - 1);
        while (m->keys[i])
            i = (i + 1) & (m->cap - 1);
    }
    if (m->n == m->cap_n) {
        uint32_t nc = m->cap_n ? m->cap_n * 2 : 64;
        m->chain = mlia_arena_grow(arena, m->chain, m->n, nc, sizeof *m->chain);
        m->instr = mlia_arena_grow(arena, m->instr, m->n, nc, sizeof *m->instr);
        m->cap_n = nc;
    }
    m->keys[i] = key;
    m->vals[i] = m->n;
    m->chain[m->n] = chain;
    m->instr[m->n] = instr;
    return m->n++;
}

/* ------------------------------------------------------------------ */
/* metric tables: [entity][execution] tick sums                         */

/* Values are 32-bit while every sum fits (an operator's time in one
 * execution below 4.29 s at ns ticks: always, in practice), which halves
 * the analysis' largest memory; the first sum that does not fit widens the
 * table to 64 bits. All-ones means "not measured" in both widths.
 *
 * Layout: execution-major, [exec][row] with a row capacity `cap_rows`, so
 * that scanning one execution writes nearby cells (rows follow the sites
 * in event order) instead of one cache line per event; a summary reads a
 * row across executions, once per entity. Growing the capacity re-lays the
 * table out (doubling: amortised). Fresh cells are set to all-ones when
 * allocated, so adding a row is O(1). */
typedef struct tick_table {
    uint32_t n_exec;
    uint32_t rows, cap_rows;
    bool wide;
    bool by_row;        /* table_by_row: cell (row, exec) at row * n_exec + exec */
    uint32_t *v32;      /* n_exec * cap_rows while !wide */
    uint64_t *v64;      /* n_exec * cap_rows once wide */
} tick_table;

#define NOT_MEASURED32 UINT32_MAX

static inline size_t table_cell(const tick_table *t, uint32_t row, uint32_t exec)
{
    /* rows come from table_add_row / table_reserve, executions from the
     * capture: both inside the table */
    MLIA_ASSERT(row < t->cap_rows && exec < (t->n_exec ? t->n_exec : 1));
    return t->by_row ? (size_t)row * t->n_exec + exec : (size_t)exec * t->cap_rows + row;
}

/* Tables are malloc'ed (freed when the summaries are taken: entities x
 * executions is the analysis' largest memory). */
static uint32_t table_add_row(tick_table *t, mlia_arena *arena)
{
    (void)arena;
    if (t->rows == t->cap_rows) {
        uint32_t nc = t->cap_rows ? t->cap_rows * 2 : 64;
        size_t n_exec = t->n_exec ? t->n_exec : 1;
        size_t width = t->wide ? sizeof(uint64_t) : sizeof(uint32_t);
        size_t bytes = (size_t)nc * n_exec * width;
        uint8_t *nv = malloc(bytes);
        if (!nv)
            mlia_oom(bytes);
        memset(nv, 0xFF, bytes);
        const uint8_t *old = t->wide ? (const uint8_t *)t->v64 : (const uint8_t *)t->v32;
        for (size_t x = 0; old && x < t->n_exec; x++)
            memcpy(nv + x * nc * width, old + x * t->cap_rows * width, (size_t)t->rows * width);
        free(t->wide ? (void *)t->v64 : (void *)t->v32);
        if (t->wide)
            t->v64 = (uint64_t *)nv;
        else
            t->v32 = (uint32_t *)nv;
        t->cap_rows = nc;
    }
    return t->rows++;
}

/* Allocate an empty table for `cap` rows (when their number is known
 * before the scan: one per instruction of the method), so that the table
 * is exactly sized instead of doubled. */
static void table_reserve(tick_table *t, uint32_t cap)
{
    if (t->v32 || t->v64 || !cap)
        return;
    size_t bytes = (size_t)cap * (t->n_exec ? t->n_exec : 1) * sizeof(uint32_t);
    t->v32 = malloc(bytes);
    if (!t->v32)
        mlia_oom(bytes);
    memset(t->v32, 0xFF, bytes);
    t->cap_rows = cap;
}

static void table_widen(tick_table *t)
{
    size_t n = (size_t)t->cap_rows * (t->n_exec ? t->n_exec : 1);
    uint64_t *w = malloc(n * sizeof *w);
    if (!w)
        mlia_oom(n * sizeof *w);
    for (size_t i = 0; i < n; i++)
        w[i] = t->v32[i] == NOT_MEASURED32 ? NOT_MEASURED : t->v32[i];
    free(t->v32);
    t->v32 = NULL;
    t->v64 = w;
    t->wide = true;
}

static inline uint64_t table_get(const tick_table *t, uint32_t row, uint32_t exec)
{
    size_t idx = table_cell(t, row, exec);
    if (t->wide)
        return t->v64[idx];
    uint32_t v = t->v32[idx];
    return v == NOT_MEASURED32 ? NOT_MEASURED : v;
}

static void table_add(tick_table *t, uint32_t row, uint32_t exec, uint64_t ticks)
{
    size_t idx = table_cell(t, row, exec);
    if (!t->wide) {
        uint32_t cur = t->v32[idx];
        uint64_t sum = (cur == NOT_MEASURED32 ? 0 : (uint64_t)cur) + ticks;
        if (sum < NOT_MEASURED32 && sum >= ticks) {
            t->v32[idx] = (uint32_t)sum;
            return;
        }
        table_widen(t);
    }
    uint64_t *p = &t->v64[idx];
    *p = (*p == NOT_MEASURED) ? ticks : *p + ticks;
}

/* The scan fills one execution at a time (execution-major: its cells are
 * near each other); the summaries then read one row across every
 * execution. Transposed once, in cache-sized blocks, each row is one
 * contiguous run instead of n_exec strided reads (issue 33: the strided
 * reads were a fifth of the summaries' time at 5,000 rows x 100
 * executions). Only the used rows are kept; no cell is added afterwards. */
static void table_by_row(tick_table *t)
{
    if (t->by_row || (!t->v32 && !t->v64))
        return;
    size_t n_exec = t->n_exec ? t->n_exec : 1, rows = t->rows ? t->rows : 1;
    size_t width = t->wide ? sizeof(uint64_t) : sizeof(uint32_t);
    uint8_t *nv = malloc(rows * n_exec * width);
    if (!nv)
        mlia_oom(rows * n_exec * width);
    enum { BLOCK = 64 };
    for (size_t x0 = 0; x0 < n_exec; x0 += BLOCK)
        for (size_t r0 = 0; r0 < t->rows; r0 += BLOCK) {
            size_t x1 = x0 + BLOCK < n_exec ? x0 + BLOCK : n_exec;
            size_t r1 = r0 + BLOCK < t->rows ? r0 + BLOCK : t->rows;
            for (size_t x = x0; x < x1; x++)
                for (size_t r = r0; r < r1; r++) {
                    if (t->wide)
                        ((uint64_t *)nv)[r * n_exec + x] = t->v64[x * t->cap_rows + r];
                    else
                        ((uint32_t *)nv)[r * n_exec + x] = t->v32[x * t->cap_rows + r];
                }
        }
    free(t->wide ? (void *)t->v64 : (void *)t->v32);
    if (t->wide)
        t->v64 = (uint64_t *)nv;
    else
        t->v32 = (uint32_t *)nv;
    t->cap_rows = (uint32_t)rows;
    t->by_row = true;
}

static void table_free(tick_table *t)
{
    free(t->v32);
    free(t->v64);
    t->v32 = NULL;
    t->v64 = NULL;
}

/* ------------------------------------------------------------------ */
/* interval union                                                       */

typedef struct interval {
    uint64_t s, e;
} interval;

static int cmp_interval(const void *a, const void *b)
{
    const interval *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

/* Length of the union of `iv` clipped to [s, e]; sorts iv in place. */
static uint64_t union_within(interval *iv, uint32_t n, uint64_t s, uint64_t e)
{
    if (!n)
        return 0;
    if (n > 1)
        qsort(iv, n, sizeof *iv, cmp_interval);
    uint64_t total = 0, cs = 0, ce = 0;
    bool open = false;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = iv[i].s < s ? s : iv[i].s;
        uint64_t b = iv[i].e > e ? e : iv[i].e;
        if (b <= a)
            continue;
        if (open && a <= ce) {
            if (b > ce)
                ce = b;
        } else {
            if (open)
                total += ce - cs;
            cs = a;
            ce = b;
            open = true;
        }
    }
    if (open)
        total += ce - cs;
    /* attribution never gives a window more time than it lasts */
    MLIA_ASSERT(total <= (e > s ? e - s : 0));
    return total;
}

/* ------------------------------------------------------------------ */
/* analysis state                                                       */

typedef struct rt_event_entity {
    const char *id;
    const char *name;
    const char *parent_id;
    const char *path;         /* parent path + "/" + name, identity of the position */
    uint32_t exec_row, unattr_row;
    bool has_children;
    runtime_unit unit;        /* set when the entity is made (its first event's class) */
} rt_event_entity;

typedef struct rt_call {
    uint32_t slot;
    const char *id;
    const char *backend;
    uint32_t exec_row, unattr_row;
    uint32_t n_events, cap_events;
    rt_event_entity *events;
} rt_call;

typedef struct rt_state {
    const runtime_inputs *in;
    mlia_arena *arena;
    mlia_result *result;
    slot_map slots;
    /* per slot */
    uint32_t *op_row, *kernel_row;                 /* rows in tables, UINT32_MAX when none */
    int32_t *call_of_slot;                         /* index into calls or -1 */
    tick_table exec_t, kernel_t;                   /* per slot (operator instructions) */
    /* Unattributed time of operator rows is not a third table: when every
     * native call of a row in an execution lies inside an operator call of
     * that row and the natives do not overlap (ExecuTorch's normal case),
     * it is exactly execution time - kernel time. Executions where that
     * does not hold are kept as exceptions (row, execution) -> value. The
     * current execution is accumulated per row in cur_*. */
    uint64_t *cur_unattr;                          /* per op row */
    uint8_t *cur_state;                            /* 0 no call yet, 1 derivable, 2 exception */
    uint32_t *cur_rows, n_cur_rows, cap_cur;
    uint64_t *exc_keys, *exc_vals;                 /* open addressing, key (row << 32 | exec) + 1 */
    uint32_t exc_cap, exc_n;
    tick_table call_t;                             /* delegate calls and runtime events */
    uint32_t n_calls, cap_calls;
    uint32_t n_call_events;   /* operator and delegate calls at an instruction */
    rt_call *calls;
    uint64_t *execute_ticks;                       /* [n_exec], NOT_MEASURED when absent */
    uint64_t dropped;
#define RT_DUR_BACKENDS 8
    uint32_t n_dur_backends;                       /* backends with duration-only events */
    const char *dur_backends[RT_DUR_BACKENDS];
    uint64_t dur_counts[RT_DUR_BACKENDS];
    uint32_t cap_slots;                            /* capacity of the per-slot arrays */
    uint32_t *pending_head;                        /* per slot: newest pending child event, malloc'ed */
    mlia_buf path_buf;                             /* scratch for event_entity */
} rt_state;

/* Slot of a site, growing the per-slot arrays with the slot map. */
static uint32_t slot_of(rt_state *st, int64_t chain, int64_t instr)
{
    uint32_t slot = slot_get(&st->slots, st->arena, chain, instr);
    if (slot >= st->cap_slots) {
        uint32_t nc = st->cap_slots ? st->cap_slots * 2 : 64;
        st->op_row = mlia_arena_grow(st->arena, st->op_row, st->cap_slots, nc, sizeof *st->op_row);
        st->kernel_row = mlia_arena_grow(st->arena, st->kernel_row, st->cap_slots, nc, sizeof *st->kernel_row);
        st->call_of_slot = mlia_arena_grow(st->arena, st->call_of_slot, st->cap_slots, nc, sizeof *st->call_of_slot);
        uint32_t *ph = realloc(st->pending_head, (size_t)nc * sizeof *ph);
        if (!ph)
            mlia_oom((size_t)nc * sizeof *ph);
        st->pending_head = ph;
        for (uint32_t i = st->cap_slots; i < nc; i++) {
            st->op_row[i] = st->kernel_row[i] = UINT32_MAX;
            st->call_of_slot[i] = -1;
            ph[i] = UINT32_MAX;
        }
        st->cap_slots = nc;
    }
    return slot;
}

static uint32_t ensure_slot_rows(rt_state *st, uint32_t slot)
{
    if (st->op_row[slot] == UINT32_MAX) {
        st->op_row[slot] = table_add_row(&st->exec_t, st->arena);
        st->kernel_row[slot] = table_add_row(&st->kernel_t, st->arena);
    }
    return st->op_row[slot];
}

static void exc_put(rt_state *st, uint32_t row, uint32_t exec, uint64_t v)
{
    if ((st->exc_n + 1) * 2 > st->exc_cap) {
        uint32_t nc = st->exc_cap ? st->exc_cap * 2 : 256;
        uint64_t *nk = calloc(nc, sizeof *nk), *nv = malloc((size_t)nc * sizeof *nv);
        if (!nk || !nv)
            mlia_oom((size_t)nc * 16);
        for (uint32_t i = 0; i < st->exc_cap; i++) {
            if (!st->exc_keys[i])
                continue;
            uint32_t j = (uint32_t)((st->exc_keys[i] * 0x9E3779B97F4A7C15ull) >> 32) & (nc - 1);
            while (nk[j])
                j = (j + 1) & (nc - 1);
            nk[j] = st->exc_keys[i];
            nv[j] = st->exc_vals[i];
        }
        free(st->exc_keys);
        free(st->exc_vals);
        st->exc_keys = nk;
        st->exc_vals = nv;
        st->exc_cap = nc;
    }
    uint64_t key = (((uint64_t)row << 32) | exec) + 1;
    uint32_t j = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (st->exc_cap - 1);
    while (st->exc_keys[j] && st->exc_keys[j] != key)
        j = (j + 1) & (st->exc_cap - 1);
    if (!st->exc_keys[j]) {
        st->exc_keys[j] = key;
        st->exc_n++;
    }
    st->exc_vals[j] = v;
}

/* Unattributed time of op row `row` in execution `exec`, given its
 * execution and kernel times (both measured). */
static uint64_t unattr_get(const rt_state *st, uint32_t row, uint32_t exec, uint64_t xe, uint64_t xk)
{
    if (st->exc_n) {
        uint64_t key = (((uint64_t)row << 32) | exec) + 1;
        uint32_t j = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (st->exc_cap - 1);
        while (st->exc_keys[j]) {
            if (st->exc_keys[j] == key)
                return st->exc_vals[j];
            j = (j + 1) & (st->exc_cap - 1);
        }
    }
    return xe - xk;
}

/* An operator call of `row` in the current execution left `unattr` ticks
 * unattributed; `derivable`: its natives were inside it and disjoint. */
static void unattr_note(rt_state *st, uint32_t row, uint64_t unattr, bool derivable)
{
    if (row >= st->cap_cur) {
        uint32_t nc = st->cap_cur ? st->cap_cur : 64;
        while (nc <= row)
            nc *= 2;
        uint64_t *u = realloc(st->cur_unattr, (size_t)nc * sizeof *u);
        uint8_t *c = u ? realloc(st->cur_state, nc) : NULL;
        uint32_t *r = c ? realloc(st->cur_rows, (size_t)nc * sizeof *r) : NULL;
        if (u)
            st->cur_unattr = u;
        if (c)
            st->cur_state = c;
        if (!u || !c || !r)
            mlia_oom((size_t)nc * 13);
        st->cur_rows = r;
        memset(st->cur_unattr + st->cap_cur, 0, (size_t)(nc - st->cap_cur) * sizeof *u);
        memset(st->cur_state + st->cap_cur, 0, nc - st->cap_cur);
        st->cap_cur = nc;
    }
    if (!st->cur_state[row]) {
        st->cur_state[row] = 1;
        st->cur_rows[st->n_cur_rows++] = row;
    }
    st->cur_unattr[row] += unattr;
    if (!derivable)
        st->cur_state[row] = 2;
}

/* End of an execution: keep the rows whose unattributed time cannot be
 * derived. */
static void unattr_commit(rt_state *st, uint32_t exec)
{
    for (uint32_t i = 0; i < st->n_cur_rows; i++) {
        uint32_t row = st->cur_rows[i];
        if (st->cur_state[row] == 2)
            exc_put(st, row, exec, st->cur_unattr[row]);
        st->cur_state[row] = 0;
        st->cur_unattr[row] = 0;
    }
    st->n_cur_rows = 0;
}

/* The per-execution memory (tables, unattributed-time state). */
static void rt_state_free_tables(rt_state *st)
{
    table_free(&st->exec_t);
    table_free(&st->kernel_t);
    table_free(&st->call_t);
    free(st->cur_unattr);
    free(st->cur_state);
    free(st->cur_rows);
    free(st->exc_keys);
    free(st->exc_vals);
}

static const char *delegate_backend(const rt_state *st, int64_t chain, int64_t instr)
{
    const etrecord_method *m = st->in->maps;
    if (m && chain == 0 && instr >= 0 && (uint64_t)instr < m->n_instr && m->delegates[instr].present &&
        m->delegates[instr].backend)
        return m->delegates[instr].backend;
    return "unknown";
}

static rt_call *call_for_slot(rt_state *st, uint32_t slot)
{
    if (st->call_of_slot[slot] >= 0)
        return &st->calls[st->call_of_slot[slot]];
    if (st->n_calls == st->cap_calls) {
        uint32_t nc = st->cap_calls ? st->cap_calls * 2 : 8;
        st->calls = mlia_arena_grow(st->arena, st->calls, st->n_calls, nc, sizeof *st->calls);
        st->cap_calls = nc;
    }
    rt_call *c = &st->calls[st->n_calls];
    memset(c, 0, sizeof *c);
    c->slot = slot;
    c->id = mlia_arena_printf(st->arena, "delegate_call/%s/%lld/%lld", st->in->method,
                              (long long)st->slots.chain[slot], (long long)st->slots.instr[slot]);
    c->backend = delegate_backend(st, st->slots.chain[slot], st->slots.instr[slot]);
    c->exec_row = table_add_row(&st->call_t, st->arena);
    c->unattr_row = table_add_row(&st->call_t, st->arena);
    st->call_of_slot[slot] = (int32_t)st->n_calls;
    return &st->calls[st->n_calls++];
}

/* An event's name: its delegate debug id string, else the integer id.
 * Written into buf (no allocation: this runs per backend event). */
static mlia_str event_name(const etdump_event *e, char buf[16])
{
    if (e->delegate_debug_id_str.ptr)
        return e->delegate_debug_id_str;
    int n = snprintf(buf, 16, "%d", e->delegate_debug_id_int);
    return (mlia_str){buf, (size_t)n};
}

/* Runtime event entity for (call, parent path, name): same position = same
 * entity. Looked up with a scratch path; strings are copied into the arena
 * only when the entity is new, so memory follows the entities, not the
 * events. */
static rt_event_entity *event_entity(rt_state *st, rt_call *c, const char *parent_id, const char *parent_path,
                                     mlia_str name)
{
    mlia_buf *pb = &st->path_buf;
    pb->len = 0;
    mlia_buf_printf(pb, "%s/%.*s", parent_path, (int)name.len, name.ptr);
    uint32_t same_name = 0;
    for (uint32_t i = 0; i < c->n_events; i++) {
        if (strcmp(c->events[i].path, pb->data) == 0)
            return &c->events[i];
        if (strlen(c->events[i].name) == name.len && memcmp(c->events[i].name, name.ptr, name.len) == 0)
            same_name++;
    }
    if (c->n_events == c->cap_events) {
        uint32_t nc = c->cap_events ? c->cap_events * 2 : 8;
        c->events = mlia_arena_grow(st->arena, c->events, c->n_events, nc, sizeof *c->events);
        c->cap_events = nc;
    }
    rt_event_entity *ev = &c->events[c->n_events++];
    memset(ev, 0, sizeof *ev);
    ev->name = mlia_arena_strndup(st->arena, name.ptr, name.len);
    ev->path = mlia_arena_strndup(st->arena, pb->data, pb->len);
    ev->parent_id = parent_id;
    const char *base = c->id + strlen("delegate_call/");
    if (same_name)
        ev->id = mlia_arena_printf(st->arena, "runtime_event/%s/%s#%u", base, ev->name, same_name + 1);
    else
        ev->id = mlia_arena_printf(st->arena, "runtime_event/%s/%s", base, ev->name);
    ev->exec_row = table_add_row(&st->call_t, st->arena);
    ev->unattr_row = UINT32_MAX;
    return ev;
}

/* Builds the containment tree of the backend events of one delegate call
 * invocation (or of leftover backend events without a DELEGATE_CALL) and
 * books their durations. `idx` are event indexes in the run. */
typedef struct tree_item {
    uint64_t s, e;
    uint32_t order;
    int32_t parent;             /* index into items or -1 */
    rt_event_entity *ent;
} tree_item;

static int cmp_tree_item(const void *a, const void *b)
{
    const tree_item *x = a, *y = b;
    if (x->s != y->s)
        return x->s < y->s ? -1 : 1;
    if (x->e != y->e)
        return x->e > y->e ? -1 : 1;   /* longer first: parents before children */
    return x->order > y->order ? -1 : (x->order < y->order); /* later-written (outer) first */
}

uint32_t runtime_layout_durations(uint64_t ws, uint64_t we, uint64_t *s, uint64_t *e, size_t stride, uint32_t n)
{
#define AT(p, i) (*(uint64_t *)((char *)(p) + (size_t)(i) * stride))
    uint32_t outside = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = AT(s, i), b = AT(e, i);
        if (a >= ws && b <= we)
            continue;
        if (b - a > we - ws)
            return 0; /* not a plausible duration: the events keep their times */
        outside++;
    }
    if (!outside)
        return 0;
    uint64_t t = ws;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t a = AT(s, i), b = AT(e, i);
        if (a >= ws && b <= we)
            continue;
        AT(s, i) = t;
        AT(e, i) = t + (b - a);
        t += b - a;
    }
    return outside;
#undef AT
}

/* A backend whose events were laid out as durations (one warning each). */
static void note_duration_only(rt_state *st, const char *backend, uint32_t n)
{
    for (uint32_t i = 0; i < st->n_dur_backends; i++)
        if (strcmp(st->dur_backends[i], backend) == 0) {
            st->dur_counts[i] += n;
            return;
        }
    if (st->n_dur_backends < RT_DUR_BACKENDS) {
        st->dur_backends[st->n_dur_backends] = backend;
        st->dur_counts[st->n_dur_backends++] = n;
    }
}

static void book_delegate_tree(rt_state *st, rt_call *c, uint32_t exec, const etdump_events *run,
                               const uint32_t *idx, uint32_t n, bool has_wrapper, uint64_t ws, uint64_t we,
                               tree_item *items, interval *scratch)
{
    /* idx is newest first: items in file order, so that duration-only
     * events are laid out in the order they were logged. Events the
     * backend says are in another unit class (runtime_unit) are booked
     * here on their own, directly under the call, and leave the tree: they
     * are not on the call's clock, so they are neither nested, laid out,
     * nor counted in any coverage. */
    uint32_t kept = 0;
    for (uint32_t k = 0; k < n; k++) {
        const etdump_event *e = &run->ev[idx[n - 1 - k]];
        runtime_unit u = RUNTIME_UNIT_CPU_TICKS;
        char num[16];
        if (st->in->event_unit && c->backend)
            u = st->in->event_unit(st->in->event_unit_ctx, c->backend, event_name(e, num),
                                   e->metadata ? e->metadata : (const uint8_t *)"", e->metadata ? e->metadata_size : 0);
        if (u != RUNTIME_UNIT_CPU_TICKS) {
            rt_event_entity *ent = event_entity(st, c, c->id, "", event_name(e, num));
            if (ent->unit == RUNTIME_UNIT_CPU_TICKS && !ent->has_children)
                ent->unit = u;
            if (ent->unit == u)
                table_add(&st->call_t, ent->exec_row, exec, e->end_time - e->start_time);
            continue;
        }
        items[kept].s = e->start_time;
        items[kept].e = e->end_time;
        items[kept].order = idx[n - 1 - k];
        items[kept].parent = -1;
        items[kept].ent = NULL;
        kept++;
    }
    n = kept;
    if (has_wrapper) {
        uint32_t moved = runtime_layout_durations(ws, we, &items[0].s, &items[0].e, sizeof *items, n);
        if (moved)
            note_duration_only(st, c->backend, moved);
    }
    qsort(items, n, sizeof *items, cmp_tree_item);
    /* stack-based containment */
    int32_t *stack = (int32_t *)scratch; /* reuse scratch memory: n entries of int32 fit in n intervals */
    uint32_t sp = 0;
    for (uint32_t k = 0; k < n; k++) {
        while (sp && !(items[stack[sp - 1]].s <= items[k].s && items[k].e <= items[stack[sp - 1]].e))
            sp--;
        items[k].parent = sp ? stack[sp - 1] : -1;
        stack[sp++] = (int32_t)k;
    }
    for (uint32_t k = 0; k < n; k++) {
        tree_item *it = &items[k];
        const char *pid = it->parent >= 0 ? items[it->parent].ent->id : c->id;
        const char *ppath = it->parent >= 0 ? items[it->parent].ent->path : "";
        char num[16];
        it->ent = event_entity(st, c, pid, ppath, event_name(&run->ev[it->order], num));
        table_add(&st->call_t, it->ent->exec_row, exec, it->e - it->s);
    }
    /* unattributed time of wrappers among the events: duration - union(direct children) */
    for (uint32_t k = 0; k < n; k++) {
        uint32_t m = 0;
        for (uint32_t j = k + 1; j < n; j++)
            if (items[j].parent == (int32_t)k)
                scratch[m++] = (interval){items[j].s, items[j].e};
        if (!m)
            continue;
        rt_event_entity *ent = items[k].ent;
        if (ent->unattr_row == UINT32_MAX)
            ent->unattr_row = table_add_row(&st->call_t, st->arena);
        ent->has_children = true;
        uint64_t covered = union_within(scratch, m, items[k].s, items[k].e);
        table_add(&st->call_t, ent->unattr_row, exec, (items[k].e - items[k].s) - covered);
    }
    if (has_wrapper) {
        uint32_t m = 0;
        for (uint32_t k = 0; k < n; k++)
            if (items[k].parent < 0)
                scratch[m++] = (interval){items[k].s, items[k].e};
        uint64_t covered = union_within(scratch, m, ws, we);
        table_add(&st->call_t, c->unattr_row, exec, (we - ws) - covered);
    }
}

/* ------------------------------------------------------------------ */
/* per-execution scan                                                   */

/* classes: NULL, or classify() of each profile event of the run, worked
 * out while its name was still in the cache (runtime_prescan): the names
 * are not read again. */
static void scan_execution(rt_state *st, uint32_t exec, const etdump_events *run, const uint8_t *classes,
                           uint32_t *pending_next, uint32_t *touched, uint32_t *idx_buf, tree_item *items,
                           interval *scratch, runtime_execution *rex)
{
#define CLASS_OF(k) (classes ? (ev_class)classes[k] : classify(&run->ev[k]))
    uint32_t n_touched = 0;
    const uint32_t NONE = UINT32_MAX;
    for (uint32_t k = 0; k < run->n; k++) {
        const etdump_event *e = &run->ev[k];
        if (e->kind != ETDUMP_EVENT_PROFILE)
            continue;
        ev_class cls = CLASS_OF(k);
        /* sites are interned in event order, dropped events included, so
         * that slot numbering (and hence entity order) follows the file */
        uint32_t slot = NONE;
        if (e->chain_index >= 0 && cls != EV_OTHER && cls != EV_EXECUTE && cls != EV_FRAMEWORK)
            slot = slot_of(st, e->chain_index, e->instruction_id);
        if (e->end_time < e->start_time) {
            st->dropped++;
            continue;
        }
        uint64_t dur = e->end_time - e->start_time;
        if (cls == EV_EXECUTE || cls == EV_FRAMEWORK) {
            if (cls == EV_EXECUTE) {
                uint64_t *p = &st->execute_ticks[exec];
                *p = (*p == NOT_MEASURED) ? dur : *p + dur;
                rex->has_execute = true;
                rex->execute_start = e->start_time;
                rex->execute_end = e->end_time;
            }
            continue;
        }
        bool delegate_ev = cls == EV_DELEGATE;
        bool opcall = cls == EV_OPCALL;
        bool native = cls == EV_NATIVE;
        bool delcall = cls == EV_DELCALL;
        if (cls == EV_OTHER)
            continue; /* JF/MOVE/FREE and unknown runtime events: not operators */
        if (e->chain_index < 0)
            continue; /* backend init events etc. */
        if (opcall || delcall)
            st->n_call_events++;
        MLIA_ASSERT(slot != NONE); /* interned above: same conditions */
        uint32_t *pending_head = st->pending_head;
        if (pending_head[slot] == NONE && !(opcall || delcall)) {
            touched[n_touched++] = slot;
        }
        if (native) {
            ensure_slot_rows(st, slot);
            table_add(&st->kernel_t, st->kernel_row[slot], exec, dur);
            pending_next[k] = pending_head[slot];
            pending_head[slot] = k;
        } else if (delegate_ev) {
            pending_next[k] = pending_head[slot];
            pending_head[slot] = k;
        } else if (opcall) {
            ensure_slot_rows(st, slot);
            table_add(&st->exec_t, st->op_row[slot], exec, dur);
            uint32_t m = 0;
            uint64_t natives = 0;
            for (uint32_t p = pending_head[slot]; p != NONE; p = pending_next[p])
                if (CLASS_OF(p) == EV_NATIVE) {
                    scratch[m++] = (interval){run->ev[p].start_time, run->ev[p].end_time};
                    natives += run->ev[p].end_time - run->ev[p].start_time;
                }
            uint64_t covered = union_within(scratch, m, e->start_time, e->end_time);
            unattr_note(st, st->op_row[slot], dur - covered, covered == natives);
            pending_head[slot] = NONE;
        } else { /* DELEGATE_CALL */
            rt_call *c = call_for_slot(st, slot);
            table_add(&st->call_t, c->exec_row, exec, dur);
            uint32_t m = 0;
            for (uint32_t p = pending_head[slot]; p != NONE; p = pending_next[p])
                if (CLASS_OF(p) == EV_DELEGATE)
                    idx_buf[m++] = p;
            book_delegate_tree(st, c, exec, run, idx_buf, m, true, e->start_time, e->end_time, items, scratch);
            pending_head[slot] = NONE;
        }
    }
    /* leftovers: backend events without a DELEGATE_CALL wrapper; native
     * calls after the last operator call of their row (in the kernel time,
     * not in any call's unattributed time) */
    uint32_t *pending_head = st->pending_head;
    for (uint32_t t = 0; t < n_touched; t++) {
        uint32_t slot = touched[t];
        if (pending_head[slot] == NONE)
            continue;
        uint32_t m = 0;
        uint32_t row = st->op_row[slot];
        for (uint32_t p = pending_head[slot]; p != NONE; p = pending_next[p]) {
            if (CLASS_OF(p) == EV_DELEGATE)
                idx_buf[m++] = p;
            else if (row != UINT32_MAX && row < st->cap_cur && st->cur_state[row] && CLASS_OF(p) == EV_NATIVE)
                st->cur_state[row] = 2;
        }
        if (m) {
            rt_call *c = call_for_slot(st, slot);
            book_delegate_tree(st, c, exec, run, idx_buf, m, false, 0, 0, items, scratch);
        }
        pending_head[slot] = NONE;
    }
    unattr_commit(st, exec);
#undef CLASS_OF
}

/* ------------------------------------------------------------------ */
/* summaries                                                            */

typedef struct summary {
    uint32_t n;
    uint64_t p50, min, max;
    uint64_t p10, p90;   /* nearest rank: the ceil(n/10)-th and ceil(9n/10)-th smallest */
    double avg;          /* mean of the values, in ticks */
} summary;

/* Summary of the n measured values gathered in v (reordered). */
static summary summarise_values(uint64_t *v, uint32_t n)
{
    summary s;
    memset(&s, 0, sizeof s);
    if (!n)
        return s;
    s.n = n;
    runtime_min_max_u64(v, n, &s.min, &s.max);
    double sum = 0;
    for (uint32_t i = 0; i < n; i++)
        sum += (double)v[i];
    s.avg = sum / n;
    /* After the P50's quickselect, v[0..k50) holds values <= v[k50] and
     * v(k50..n) values >= it: the P10 and P90 ranks are selected inside
     * those halves only (the same nearest-rank values, half the work). */
    uint32_t k50 = (n + 1) / 2 - 1;
    uint32_t k10 = (uint32_t)(((uint64_t)n + 9) / 10 - 1);
    uint32_t k90 = (uint32_t)(((uint64_t)n * 9 + 9) / 10 - 1);
    s.p50 = runtime_rank_u64(v, n, k50);
    s.p10 = k10 < k50 ? runtime_rank_u64(v, k50, k10) : s.p50;
    s.p90 = k90 > k50 ? runtime_rank_u64(v + k50 + 1, n - k50 - 1, k90 - k50 - 1) : s.p50;
    return s;
}

/* Summary of row `row` of table t (tmp: n_exec scratch values). */
static summary summarise_row(const tick_table *t, uint32_t row, uint64_t *tmp)
{
    uint32_t n = 0;
    for (uint32_t e = 0; e < t->n_exec; e++) {
        uint64_t x = table_get(t, row, e);
        if (x != NOT_MEASURED)
            tmp[n++] = x;
    }
    return summarise_values(tmp, n);
}

static summary summarise(const uint64_t *row, uint32_t n_exec, uint64_t *tmp)
{
    uint32_t n = 0;
    for (uint32_t e = 0; e < n_exec; e++)
        if (row[e] != NOT_MEASURED)
            tmp[n++] = row[e];
    return summarise_values(tmp, n);
}

/* P50, min and max of every timing; for execution_time also avg, p10 and
 * p90 (issue 29, 7: what Inspector's dataframe shows), after the three. */
static void add_timing(rt_state *st, mlia_entity *ent, const char *name, summary s, const char *attribution)
{
    const char *stats[6] = {"p50", "min", "max", "avg", "p10", "p90"};
    double vals[6] = {(double)s.p50, (double)s.min, (double)s.max, s.avg, (double)s.p10, (double)s.p90};
    int n_stats = strcmp(name, "execution_time") == 0 ? 6 : 3;
    for (int i = 0; i < n_stats; i++) {
        mlia_metric m = mlia_metric_double(name, "ms", vals[i] / st->in->ticks_per_ms, stats[i], s.n);
        mlia_metric_qualify(&m, "statistic", stats[i]);
        if (attribution)
            mlia_metric_qualify(&m, "attribution", attribution);
        mlia_entity_add_metric(st->result, ent, m);
    }
}

const char *runtime_unit_metric(runtime_unit u)
{
    switch (u) {
    case RUNTIME_UNIT_CYCLES:
        return "cycles";
    case RUNTIME_UNIT_COUNT:
        return "count";
    case RUNTIME_UNIT_BYTES:
        return "bytes";
    default:
        return "execution_time";
    }
}

const char *runtime_unit_name(runtime_unit u)
{
    switch (u) {
    case RUNTIME_UNIT_CYCLES:
        return "cycles";
    case RUNTIME_UNIT_COUNT:
        return "count";
    case RUNTIME_UNIT_BYTES:
        return "bytes";
    default:
        return "ms";
    }
}

/* An event in a unit class of its own (runtime_unit): P50/min/max in its
 * metric and unit, with qualifier `clock` ("backend" for time on the
 * backend's own clock, never the CPU tick rate). Its --csv series keeps
 * the unit (runtime_series.unit). */
static void add_unit_value(rt_state *st, mlia_entity *ent, runtime_unit u, summary s)
{
    const char *stats[3] = {"p50", "min", "max"};
    double vals[3] = {(double)s.p50, (double)s.min, (double)s.max};
    double div = u == RUNTIME_UNIT_NS ? 1e6 : u == RUNTIME_UNIT_US ? 1e3 : 1.0;
    for (int i = 0; i < 3; i++) {
        mlia_metric m = mlia_metric_double(runtime_unit_metric(u), runtime_unit_name(u), vals[i] / div, stats[i], s.n);
        mlia_metric_qualify(&m, "statistic", stats[i]);
        if (u == RUNTIME_UNIT_NS || u == RUNTIME_UNIT_US)
            mlia_metric_qualify(&m, "clock", "backend");
        mlia_entity_add_metric(st->result, ent, m);
    }
}

/* --csv (executions.csv): the per-execution values behind a summary, kept
 * in the arena. `row` has n_exec values (NOT_MEASURED for none); when NULL
 * the values are read from row `trow` of table t. */
static void keep_series(rt_state *st, runtime_analysis *ra, const char *entity_id, const char *metric,
                        const uint64_t *row, const tick_table *t, uint32_t trow)
{
    if (!st->in->keep_series)
        return;
    uint32_t n = st->in->n_executions;
    if (ra->n_series == ra->cap_series) {
        uint32_t nc = ra->cap_series ? ra->cap_series * 2 : 64;
        ra->series = mlia_arena_grow(st->arena, ra->series, ra->n_series, nc, sizeof *ra->series);
        ra->cap_series = nc;
    }
    uint64_t *v = mlia_arena_array(st->arena, n ? n : 1, sizeof *v);
    for (uint32_t x = 0; x < n; x++)
        v[x] = row ? row[x] : table_get(t, trow, x);
    ra->series[ra->n_series++] = (runtime_series){entity_id, metric, v, RUNTIME_UNIT_CPU_TICKS};
}

static void add_coverage(rt_state *st, mlia_entity *ent, uint32_t samples)
{
    if (!st->in->n_executions)
        return;
    double cov = 100.0 * (double)samples / (double)st->in->n_executions;
    mlia_entity_add_metric(st->result, ent, mlia_metric_double("execution_coverage", "%", cov, NULL, samples));
}

/* ------------------------------------------------------------------ */
/* source operators                                                     */

static const char *short_target(mlia_arena *arena, const char *target)
{
    if (!target)
        return "";
    /* last three dot components: <ns>.<op>.<overload> for op targets */
    if (strncmp(target, "torch.ops.", 10) == 0 || strstr(target, ".ops.")) {
        const char *p = target + strlen(target);
        int dots = 0;
        while (p > target) {
            p--;
            if (*p == '.' && ++dots == 3)
                return mlia_arena_strdup(arena, p + 1);
        }
    }
    return target;
}

/* nn_module entities for a node; returns the innermost module entity or NULL. */
static mlia_entity *module_entities(rt_state *st, const ep_node *node)
{
    mlia_entity *parent = NULL;
    mlia_buf path;
    mlia_buf_init(&path);
    for (uint32_t j = 0; j < node->n_modules; j++) {
        const ep_module_entry *me = &node->modules[j];
        const char *p = me->path && *me->path ? me->path : "<root>";
        char *id = mlia_arena_printf(st->arena, "nn_module/%s/%s", st->in->method, p);
        mlia_entity *ent = mlia_result_find(st->result, id);
        if (!ent) {
            ent = mlia_result_entity(st->result, id, "nn_module", p);
            if (me->type && *me->type)
                mlia_entity_set_str(st->result, ent, "module_type", me->type);
            if (me->key && *me->key)
                mlia_entity_set_str(st->result, ent, "tracer_key", me->key);
            if (parent && strcmp(parent->id, ent->id) != 0)
                mlia_result_link(st->result, parent, ent);
        }
        parent = ent;
    }
    mlia_buf_free(&path);
    return parent;
}

static void source_operators(rt_state *st, runtime_analysis *ra, uint64_t *tmp)
{
    const ep_program *prog = st->in->program;
    const etrecord_method *maps = st->in->maps;
    if (!prog)
        return;
    const ep_graph *g = &prog->graph;
    ra->n_nodes = g->n_nodes;
    ra->node_entities = mlia_arena_array(st->arena, g->n_nodes ? g->n_nodes : 1, sizeof(mlia_entity *));

    /* entities for every call_function node, in graph order */
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        const ep_node *nd = &g->nodes[i];
        char *id = mlia_arena_printf(st->arena, "source_operator/%s/%s", st->in->method, nd->name);
        mlia_entity *ent = mlia_result_entity(st->result, id, "source_operator", short_target(st->arena, nd->target));
        mlia_entity_set_str(st->result, ent, "node_name", nd->name);
        mlia_entity_set_str(st->result, ent, "target", nd->target ? nd->target : "");
        if (nd->debug_handle)
            mlia_entity_set_int(st->result, ent, "debug_handle", nd->debug_handle);
        if (nd->delegate_backend)
            mlia_entity_set_str(st->result, ent, "delegate_backend", nd->delegate_backend);
        mlia_entity *mod = module_entities(st, nd);
        if (mod) {
            mlia_result_link(st->result, mod, ent);
            mlia_entity_set_str(st->result, ent, "nn_module", mod->id);
        }
        if (nd->stack_trace) {
            code_frame *frames;
            uint32_t nf = provenance_parse_stack(nd->stack_trace, st->arena, &frames);
            uint32_t uf = provenance_user_frame(frames, nf);
            if (uf != UINT32_MAX) {
                const char *disp;
                const char *cid = provenance_code_stack_id(frames, uf, st->arena, &disp);
                mlia_entity *cs = mlia_result_find(st->result, cid);
                if (!cs) {
                    cs = mlia_result_entity(st->result, cid, "code_stack", disp);
                    /* MLIA's code_stack `file` uses forward slashes */
                    char *file = mlia_arena_strdup(st->arena, frames[uf].file ? frames[uf].file : "");
                    for (char *q = file; *q; q++)
                        if (*q == '\\')
                            *q = '/';
                    mlia_entity_set_str(st->result, cs, "file", file);
                    mlia_entity_set_int(st->result, cs, "line", frames[uf].line);
                    if (frames[uf].function)
                        mlia_entity_set_str(st->result, cs, "function", frames[uf].function);
                }
                mlia_entity_set_str(st->result, ent, "code_stack", cid);
                mlia_result_link(st->result, cs, ent);
            }
        }
        ra->node_entities[i] = ent;
    }
    if (!maps)
        return;

    /* handle -> nodes */
    uint32_t nh;
    const ep_handle_node *hn = ep_handle_index(g, st->arena, &nh);

    /* group of each slot = union of nodes of its handles (chain 0 only) */
    uint32_t ns = st->slots.n;
    uint32_t **group = mlia_arena_array(st->arena, ns ? ns : 1, sizeof *group);
    uint32_t *group_n = mlia_arena_array(st->arena, ns ? ns : 1, sizeof *group_n);
    uint32_t *node_slot_count = mlia_arena_array(st->arena, g->n_nodes ? g->n_nodes : 1, sizeof(uint32_t));
    bool *node_shared = mlia_arena_array(st->arena, g->n_nodes ? g->n_nodes : 1, sizeof(bool));
    /* stamp[node] = last slot (+1) that added the node; reused below for shared_with */
    uint32_t *stamp = mlia_arena_array(st->arena, g->n_nodes ? g->n_nodes : 1, sizeof(uint32_t));
    for (uint32_t s = 0; s < ns; s++) {
        int64_t chain = st->slots.chain[s], instr = st->slots.instr[s];
        if (chain != 0 || instr < 0 || (uint64_t)instr >= maps->n_instr)
            continue;
        const etrecord_handles *h = &maps->debug_handles[instr];
        const etrecord_delegate_entry *de = &maps->delegates[instr];
        uint32_t cap = 0;
        uint32_t *nodes = NULL;
        uint32_t n = 0;
        /* delegated region: inner delegate map handles when present, else
         * the instruction's handles; a node joins the group once (stamp) */
        bool use_inner = de->present && de->n_keys;
        uint32_t nsrc = use_inner ? de->n_keys : (h->present ? 1 : 0);
        for (uint32_t q = 0; q < nsrc; q++) {
            const etrecord_handles *src = use_inner ? &de->handles[q] : h;
            for (uint32_t j = 0; j < src->n; j++) {
                const ep_handle_node *lo = hn + ep_handle_first(hn, nh, src->v[j]);
                for (; lo < hn + nh && lo->handle == src->v[j]; lo++) {
                    if (stamp[lo->node] == s + 1)
                        continue;
                    stamp[lo->node] = s + 1;
                    if (n == cap) {
                        uint32_t nc = cap ? cap * 2 : 4;
                        nodes = mlia_arena_grow(st->arena, nodes, n, nc, sizeof *nodes);
                        cap = nc;
                    }
                    nodes[n++] = lo->node;
                }
            }
        }
        group[s] = nodes;
        group_n[s] = n;
        /* a delegated region's operators only ever share the call's time */
        bool delegated = st->call_of_slot[s] >= 0 || de->present;
        for (uint32_t t = 0; t < n; t++) {
            node_slot_count[nodes[t]]++;
            if (n > 1 || delegated)
                node_shared[nodes[t]] = true;
        }
    }

    /* per node per execution sums over the slots reaching it */
    uint32_t n_exec = st->in->n_executions;
    uint64_t *row_exec = mlia_arena_array(st->arena, n_exec ? n_exec : 1, sizeof(uint64_t));
    uint64_t *row_kern = mlia_arena_array(st->arena, n_exec ? n_exec : 1, sizeof(uint64_t));
    uint64_t *row_unat = mlia_arena_array(st->arena, n_exec ? n_exec : 1, sizeof(uint64_t));
    /* node -> slots (reverse index) */
    uint32_t **node_slots = mlia_arena_array(st->arena, g->n_nodes ? g->n_nodes : 1, sizeof *node_slots);
    uint32_t *fill = mlia_arena_array(st->arena, g->n_nodes ? g->n_nodes : 1, sizeof(uint32_t));
    for (uint32_t i = 0; i < g->n_nodes; i++)
        node_slots[i] = mlia_arena_array(st->arena, node_slot_count[i] ? node_slot_count[i] : 1, sizeof(uint32_t));
    for (uint32_t s = 0; s < ns; s++)
        for (uint32_t t = 0; t < group_n[s]; t++) {
            uint32_t nd = group[s][t];
            node_slots[nd][fill[nd]++] = s;
        }

    for (uint32_t i = 0; i < g->n_nodes; i++) {
        if (!node_slot_count[i])
            continue;
        mlia_entity *ent = ra->node_entities[i];
        for (uint32_t e = 0; e < n_exec; e++)
            row_exec[e] = row_kern[e] = row_unat[e] = NOT_MEASURED;
        bool any_kernel = false, any_unattr = false;
        for (uint32_t q = 0; q < node_slot_count[i]; q++) {
            uint32_t s = node_slots[i][q];
            const tick_table *t_exec = NULL, *t_kern = NULL;
            uint32_t r_exec = 0, r_kern = 0;
            if (st->call_of_slot[s] >= 0) {
                rt_call *c = &st->calls[st->call_of_slot[s]];
                t_exec = &st->call_t;
                r_exec = c->exec_row;
            } else if (st->op_row[s] != UINT32_MAX) {
                t_exec = &st->exec_t;
                r_exec = st->op_row[s];
                t_kern = &st->kernel_t;
                r_kern = st->kernel_row[s];
            }
            for (uint32_t e = 0; e < n_exec; e++) {
                uint64_t xe = t_exec ? table_get(t_exec, r_exec, e) : NOT_MEASURED;
                uint64_t xk = t_kern ? table_get(t_kern, r_kern, e) : NOT_MEASURED;
                /* operator rows: measured with the call (see rt_state) */
                uint64_t xu = t_kern && xe != NOT_MEASURED && xk != NOT_MEASURED ? unattr_get(st, r_exec, e, xe, xk)
                                                                                 : NOT_MEASURED;
                if (xe != NOT_MEASURED)
                    row_exec[e] = (row_exec[e] == NOT_MEASURED ? 0 : row_exec[e]) + xe;
                if (xk != NOT_MEASURED) {
                    row_kern[e] = (row_kern[e] == NOT_MEASURED ? 0 : row_kern[e]) + xk;
                    any_kernel = true;
                }
                if (xu != NOT_MEASURED && xk != NOT_MEASURED) {
                    row_unat[e] = (row_unat[e] == NOT_MEASURED ? 0 : row_unat[e]) + xu;
                    any_unattr = true;
                }
            }
        }
        summary se = summarise(row_exec, n_exec, tmp);
        if (!se.n)
            continue;
        const char *attr = node_shared[i] ? "shared" : "exclusive";
        /* p50/min/max of each time and the coverage */
        mlia_entity_reserve_metrics(st->result, ent, 6 + 3 * any_kernel + 3 * any_unattr + 1);
        add_timing(st, ent, "execution_time", se, attr);
        keep_series(st, ra, ent->id, "execution_time", row_exec, NULL, 0);
        if (any_kernel) {
            summary sk = summarise(row_kern, n_exec, tmp);
            if (sk.n) {
                add_timing(st, ent, "kernel_time", sk, attr);
                keep_series(st, ra, ent->id, "kernel_time", row_kern, NULL, 0);
            }
        }
        if (any_unattr) {
            summary su = summarise(row_unat, n_exec, tmp);
            if (su.n) {
                add_timing(st, ent, "unattributed_time", su, attr);
                keep_series(st, ra, ent->id, "unattributed_time", row_unat, NULL, 0);
            }
        }
        add_coverage(st, ent, se.n);
        mlia_entity_set_str(st->result, ent, "attribution", attr);
        ra->n_timed_nodes++;
        if (node_shared[i]) {
            /* shared_with lists at most SHARED_WITH_MAX ids (a delegated region
             * of thousands of nodes would otherwise cost n^2 strings);
             * shared_with_count always gives the full number */
            const char *others[SHARED_WITH_MAX];
            uint32_t no = 0, total = 0;
            for (uint32_t q = 0; q < node_slot_count[i]; q++) {
                uint32_t s = node_slots[i][q];
                for (uint32_t t = 0; t < group_n[s]; t++) {
                    uint32_t o = group[s][t];
                    if (o == i || stamp[o] == UINT32_MAX - i)
                        continue;
                    stamp[o] = UINT32_MAX - i;
                    total++;
                    if (no < SHARED_WITH_MAX)
                        others[no++] = ra->node_entities[o]->id;
                }
            }
            mlia_entity_set_str_list(st->result, ent, "shared_with", others, no);
            if (total > no)
                mlia_entity_set_int(st->result, ent, "shared_with_count", total);
        }
        /* delegated nodes are children of their delegate call */
        for (uint32_t q = 0; q < node_slot_count[i]; q++) {
            uint32_t s = node_slots[i][q];
            if (st->call_of_slot[s] >= 0) {
                rt_call *c = &st->calls[st->call_of_slot[s]];
                /* created here (found again below) so that the link has both ends */
                mlia_entity *ce = mlia_result_entity(st->result, c->id, "delegate_call", c->backend);
                mlia_result_link(st->result, ce, ent);
                mlia_entity_set_str(st->result, ent, "delegate_call", c->id);
            }
        }
    }
}

/* ------------------------------------------------------------------ */

/* Scratch buffers of scan_execution, sized by the largest run scanned so
 * far (run sizes are checked against the file by the reader). */
typedef struct scan_bufs {
    size_t cap;
    uint32_t *pending_next, *touched, *idx_buf;
    tree_item *items;
    interval *scratch;
} scan_bufs;

static void scan_bufs_reserve(scan_bufs *b, size_t n)
{
    if (n <= b->cap && b->cap)
        return;
    size_t mr = n ? n : 1;
    free(b->pending_next);
    free(b->touched);
    free(b->idx_buf);
    free(b->items);
    free(b->scratch);
    *b = (scan_bufs){0};
    b->pending_next = malloc(mr * sizeof(uint32_t));
    b->touched = malloc(mr * sizeof(uint32_t));
    b->idx_buf = malloc(mr * sizeof(uint32_t));
    b->items = malloc(mr * sizeof(tree_item));
    b->scratch = malloc(mr * sizeof(interval));
    if (!b->pending_next || !b->touched || !b->idx_buf || !b->items || !b->scratch)
        mlia_oom(mr * sizeof(tree_item));
    b->cap = mr;
}

static void scan_bufs_free(scan_bufs *b)
{
    free(b->pending_next);
    free(b->touched);
    free(b->idx_buf);
    free(b->items);
    free(b->scratch);
    *b = (scan_bufs){0};
}

/* The scan's state before the first execution: `n_exec` executions at
 * most (cells are execution-major, so fewer can be used). */
static void rt_state_start(rt_state *st, const runtime_inputs *in, mlia_arena *arena, uint32_t n_exec)
{
    st->in = in;
    st->arena = arena;
    slot_rehash(&st->slots, arena);
    st->exec_t.n_exec = st->kernel_t.n_exec = st->call_t.n_exec = n_exec;
    /* operator sites are the method's instructions: size their tables once
     * (doubling would leave up to half of the largest memory unused) */
    if (in->maps && in->maps->n_instr && in->maps->n_instr <= (1u << 24)) {
        table_reserve(&st->exec_t, in->maps->n_instr);
        table_reserve(&st->kernel_t, in->maps->n_instr);
    }
    st->execute_ticks = mlia_arena_array(arena, n_exec ? n_exec : 1, sizeof(uint64_t));
    for (uint32_t x = 0; x < n_exec; x++)
        st->execute_ticks[x] = NOT_MEASURED;
    mlia_buf_init(&st->path_buf);
}

/* The end of the scan: `n_exec` executions were scanned. */
static void rt_state_scanned(rt_state *st, uint32_t n_exec)
{
    st->exec_t.n_exec = st->kernel_t.n_exec = st->call_t.n_exec = n_exec;
    table_by_row(&st->exec_t);
    table_by_row(&st->kernel_t);
    table_by_row(&st->call_t);
    free(st->pending_head);
    st->pending_head = NULL;
    mlia_buf_free(&st->path_buf);
}

/* ------------------------------------------------------------------ */
/* one pass (issue 33)                                                  */

/* The scan riding on the ETDump's validation pass: each "Execute" block's
 * profile events are gathered as they are validated (one run at a time,
 * in a reused buffer) and, at the end of the run, scanned as the execution
 * it will be when the selection is the one expected: one method, its maps
 * fitting the block, the first `warmup` fitting blocks left out. The fit
 * is the visitor's own (fit_run / fit_event). runtime_analyse adopts the
 * state when the selection made later is exactly this one, and otherwise
 * decodes the executions again as before. */
struct runtime_prescan {
    const etrecord *etr;
    runtime_inputs in;            /* what the scan reads: method, maps, event_unit */
    rt_state st;
    bool started, off;            /* off: not scanning (tables would be too large) */
    uint32_t warmup, n_fit;       /* fitting blocks to leave out; fitting blocks seen */
    uint32_t n_exec, cap_exec;
    uint32_t *runs;               /* [n_exec] run index of each execution, malloc'ed */
    runtime_execution *execs;     /* [n_exec], malloc'ed */
    etdump_events evs;            /* the current block's profile events */
    uint8_t *cls;                 /* [evs.cap] their classes (classify), malloc'ed */
    scan_bufs bufs;
};

static void prescan_begin(void *ctx, uint32_t n_runs)
{
    runtime_prescan *p = ctx;
    const etrecord_method *m = &p->etr->methods[0];
    /* Cells are kept for every run of the dump (the executions are not
     * known yet): an upper bound, refused when the bound is far above what
     * the scan would need for a dump of that size. */
    uint64_t cells = (uint64_t)(m->n_instr ? m->n_instr : 1) * (n_runs ? n_runs : 1);
    if (n_runs == 0 || m->n_instr > (1u << 24) || cells > ((uint64_t)64 << 20)) {
        p->off = true;
        return;
    }
    rt_state_start(&p->st, &p->in, p->st.arena, n_runs);
    p->cap_exec = n_runs;
    p->runs = malloc((size_t)n_runs * sizeof *p->runs);
    p->execs = calloc(n_runs, sizeof *p->execs);
    if (!p->runs || !p->execs)
        mlia_oom((size_t)n_runs * sizeof *p->execs);
    p->started = true;
}

static void prescan_run(void *ctx, etdump_run *r)
{
    runtime_prescan *p = ctx;
    fit_run((void *)p->etr, r);
    p->evs.n = 0;
}

static void prescan_event(void *ctx, etdump_run *r, const etdump_event *ev)
{
    runtime_prescan *p = ctx;
    if (ev->kind != ETDUMP_EVENT_PROFILE)
        return;
    /* classified once, while the name was just validated (in the cache) */
    ev_class cls = classify(ev);
    fit_event_class(p->etr, r, ev, cls);
    if (!p->started || p->off || !r->visit_bits)
        return;
    if (p->evs.n == p->evs.cap) {
        uint32_t nc = p->evs.cap ? p->evs.cap * 2 : 256;
        etdump_event *ne = realloc(p->evs.ev, (size_t)nc * sizeof *ne);
        if (!ne)
            mlia_oom((size_t)nc * sizeof *ne);
        p->evs.ev = ne;
        uint8_t *nk = realloc(p->cls, nc);
        if (!nk)
            mlia_oom(nc);
        p->cls = nk;
        p->evs.cap = nc;
    }
    p->cls[p->evs.n] = (uint8_t)cls;
    p->evs.ev[p->evs.n++] = *ev;
}

static void prescan_run_end(void *ctx, etdump_run *r)
{
    runtime_prescan *p = ctx;
    const etrecord_method *m = &p->etr->methods[0];
    /* as select_method: a method without maps takes every block */
    bool fits = str_is(r->name, "Execute") && (m->n_instr == 0 || (r->visit_bits & 1u));
    if (!p->started || p->off || !fits)
        return;
    if (p->n_fit++ < p->warmup)
        return;
    if (m->n_instr == 0) {
        p->off = true; /* its events were not gathered (visit_bits 0): read again */
        return;
    }
    MLIA_ASSERT(p->n_exec < p->cap_exec);
    uint32_t x = p->n_exec++;
    p->runs[x] = r->index;
    p->execs[x].run_index = r->index;
    scan_bufs_reserve(&p->bufs, p->evs.n);
    scan_execution(&p->st, x, &p->evs, p->cls, p->bufs.pending_next, p->bufs.touched, p->bufs.idx_buf, p->bufs.items,
                   p->bufs.scratch, &p->execs[x]);
}

runtime_prescan *runtime_prescan_new(const etrecord *etr, uint32_t warmup, runtime_unit_fn event_unit,
                                     const void *event_unit_ctx, mlia_arena *arena, etdump_visitor *v)
{
    if (!etr || etr->n_methods != 1)
        return NULL;
    runtime_prescan *p = calloc(1, sizeof *p);
    if (!p)
        mlia_oom(sizeof *p);
    p->etr = etr;
    p->warmup = warmup;
    p->in.method = etr->methods[0].name;
    p->in.maps = &etr->methods[0];
    p->in.event_unit = event_unit;
    p->in.event_unit_ctx = event_unit_ctx;
    p->st.arena = arena;
    *v = (etdump_visitor){etr, p, prescan_run, prescan_event, prescan_begin, prescan_run_end};
    return p;
}

void runtime_prescan_free(runtime_prescan *p)
{
    if (!p)
        return;
    if (p->started) {
        free(p->st.pending_head);
        mlia_buf_free(&p->st.path_buf);
        rt_state_free_tables(&p->st);
    }
    free(p->runs);
    free(p->execs);
    free(p->evs.ev);
    free(p->cls);
    scan_bufs_free(&p->bufs);
    free(p);
}

/* Take the prescan's state when it scanned exactly the executions asked
 * for, of the same maps, into the same arena. */
static bool prescan_adopt(runtime_prescan *p, const runtime_inputs *in, mlia_arena *arena, rt_state *st,
                          runtime_execution *execs)
{
    if (!p || !p->started || p->off || p->st.arena != arena || in->maps != p->in.maps || !in->method ||
        strcmp(in->method, p->in.method) != 0 || in->n_executions != p->n_exec ||
        (p->n_exec && memcmp(in->execution_runs, p->runs, (size_t)p->n_exec * sizeof *p->runs) != 0))
        return false;
    rt_state_scanned(&p->st, p->n_exec);
    *st = p->st;
    memcpy(execs, p->execs, (size_t)p->n_exec * sizeof *execs);
    /* the tables now belong to st; the prescan keeps nothing of them */
    memset(&p->st, 0, sizeof p->st);
    p->started = false;
    return true;
}

int runtime_analyse(const runtime_inputs *in, mlia_result *result, mlia_arena *arena, runtime_analysis **out,
                    mlia_error *err)
{
    runtime_analysis *ra = mlia_arena_alloc(arena, sizeof *ra);
    *out = ra;
    rt_state st = {0};
    uint32_t n_exec = in->n_executions;
    ra->n_executions = n_exec;
    ra->executions = mlia_arena_array(arena, n_exec ? n_exec : 1, sizeof(runtime_execution));

    if (prescan_adopt(in->prescan, in, arena, &st, ra->executions)) {
        st.in = in;
        ra->one_pass = true;
    } else {
        /* Each selected execution is decoded into a reused buffer and
         * scanned; slots, rows and tables grow with the sites met. */
        rt_state_start(&st, in, arena, n_exec);
        uint32_t max_run = 0;
        for (uint32_t x = 0; x < n_exec; x++)
            if (in->dump->runs[in->execution_runs[x]].n_events > max_run)
                max_run = in->dump->runs[in->execution_runs[x]].n_events;
        scan_bufs bufs = {0};
        scan_bufs_reserve(&bufs, max_run);
        etdump_events evs;
        memset(&evs, 0, sizeof evs);
        int read_rc = 0;
        for (uint32_t x = 0; x < n_exec && read_rc == 0; x++) {
            ra->executions[x].run_index = in->execution_runs[x];
            read_rc = etdump_read_run(in->dump, in->execution_runs[x], &evs, err);
            if (read_rc == 0)
                scan_execution(&st, x, &evs, NULL, bufs.pending_next, bufs.touched, bufs.idx_buf, bufs.items,
                               bufs.scratch, &ra->executions[x]);
        }
        etdump_events_done(in->dump, &evs);
        scan_bufs_free(&bufs);
        rt_state_scanned(&st, n_exec);
        if (read_rc) {
            rt_state_free_tables(&st);
            return -1;
        }
    }
    st.result = result;

    uint64_t *tmp = mlia_arena_array(arena, n_exec ? n_exec : 1, sizeof(uint64_t));

    /* source operators (and their nn_module / code_stack entities) */
    source_operators(&st, ra, tmp);
    /* Calls measured, none attributed to the program: an ETRecord without
     * debug maps cannot check the capture (docs/hardening.md "Mismatched
     * inputs"), so the run would otherwise say ok with no operator. */
    if (ra->n_timed_nodes == 0 && st.n_call_events) {
        const etrecord_method *m = in->maps;
        bool no_maps = !m || m->n_instr == 0;
        mlia_buf b;
        mlia_buf_init(&b);
        mlia_buf_printf(&b,
                        "None of the %u operator and delegate call(s) in the ETDump could be attributed to an "
                        "operator of method '%s'%s; the ETDump may have been recorded from another program.",
                        st.n_call_events, in->method ? in->method : "",
                        no_maps ? " (the ETRecord has no debug maps for it)" : "");
        mlia_result_warn(result, b.data);
        ra->nothing_attributed = mlia_arena_strndup(arena, b.data, b.len);
        mlia_buf_free(&b);
    }

    /* delegate calls and runtime events */
    ra->n_calls = st.n_calls;
    ra->calls = mlia_arena_array(arena, st.n_calls ? st.n_calls : 1, sizeof(runtime_delegate_call));
    for (uint32_t ci = 0; ci < st.n_calls; ci++) {
        rt_call *c = &st.calls[ci];
        runtime_delegate_call *rc = &ra->calls[ci];
        rc->entity_id = c->id;
        rc->backend = c->backend;
        rc->chain = st.slots.chain[c->slot];
        rc->instruction = st.slots.instr[c->slot];
        mlia_entity *ent = mlia_result_entity(result, c->id, "delegate_call", c->backend);
        mlia_entity_set_str(result, ent, "backend", c->backend);
        mlia_entity_set_int(result, ent, "chain", rc->chain);
        mlia_entity_set_int(result, ent, "instruction", rc->instruction);
        summary s = summarise_row(&st.call_t, c->exec_row, tmp);
        if (s.n) {
            add_timing(&st, ent, "execution_time", s, "exclusive");
            keep_series(&st, ra, c->id, "execution_time", NULL, &st.call_t, c->exec_row);
            summary su = summarise_row(&st.call_t, c->unattr_row, tmp);
            if (su.n) {
                add_timing(&st, ent, "unattributed_time", su, "exclusive");
                keep_series(&st, ra, c->id, "unattributed_time", NULL, &st.call_t, c->unattr_row);
            }
            add_coverage(&st, ent, s.n);
        }
        rc->n_events = c->n_events;
        rc->events = mlia_arena_array(arena, c->n_events ? c->n_events : 1, sizeof(runtime_event_node));
        for (uint32_t k = 0; k < c->n_events; k++) {
            rt_event_entity *ev = &c->events[k];
            rc->events[k] = (runtime_event_node){ev->id, ev->name, ev->parent_id, ev->unit};
            mlia_entity *ee = mlia_result_entity(result, ev->id, "runtime_event", ev->name);
            summary es = summarise_row(&st.call_t, ev->exec_row, tmp);
            if (es.n && ev->unit != RUNTIME_UNIT_CPU_TICKS) {
                add_unit_value(&st, ee, ev->unit, es);
                /* executions.csv: its values in its own unit (report/csv/csv.c) */
                uint32_t before = ra->n_series;
                keep_series(&st, ra, ev->id, runtime_unit_metric(ev->unit), NULL, &st.call_t, ev->exec_row);
                if (ra->n_series > before)
                    ra->series[before].unit = ev->unit;
                add_coverage(&st, ee, es.n);
            } else if (es.n) {
                add_timing(&st, ee, "execution_time", es, "exclusive");
                keep_series(&st, ra, ev->id, "execution_time", NULL, &st.call_t, ev->exec_row);
                if (ev->unattr_row != UINT32_MAX) {
                    summary eu = summarise_row(&st.call_t, ev->unattr_row, tmp);
                    if (eu.n) {
                        add_timing(&st, ee, "unattributed_time", eu, "exclusive");
                        keep_series(&st, ra, ev->id, "unattributed_time", NULL, &st.call_t, ev->unattr_row);
                    }
                }
                add_coverage(&st, ee, es.n);
            }
        }
        /* events are written children-first: link once every event of the call exists */
        for (uint32_t k = 0; k < c->n_events; k++)
            mlia_result_link_ids(result, c->events[k].parent_id ? c->events[k].parent_id : c->id, c->events[k].id);
    }

    /* inference time */
    summary si = summarise(st.execute_ticks, n_exec, tmp);
    if (si.n) {
        ra->has_inference = true;
        ra->inference_p50 = (double)si.p50 / in->ticks_per_ms;
        ra->inference_min = (double)si.min / in->ticks_per_ms;
        ra->inference_max = (double)si.max / in->ticks_per_ms;
        ra->inference_samples = si.n;
        keep_series(&st, ra, "model", "inference_time", st.execute_ticks, NULL, 0);
    }
    ra->ticks_per_ms = in->ticks_per_ms;
    rt_state_free_tables(&st);
    ra->dropped_events = st.dropped;
    for (uint32_t i = 0; i < st.n_dur_backends; i++) {
        ra->duration_only_events += st.dur_counts[i];
        mlia_result_warnf(result,
                          "%llu event(s) of backend '%s' were logged as durations only (start 0 or outside their "
                          "delegate call, as Qualcomm's profiler logs them): they are timed by their durations and "
                          "laid out one after the other inside their call.",
                          (unsigned long long)st.dur_counts[i], st.dur_backends[i]);
    }
    if (st.dropped)
        mlia_result_warnf(result, "Dropped %llu runtime event(s) whose end time precedes their start time.",
                          (unsigned long long)st.dropped);

    /* coverage warnings per entity kind */
    const char *kinds[3] = {"source_operator", "delegate_call", "runtime_event"};
    for (int k = 0; k < 3; k++) {
        uint32_t below = 0, measured = 0;
        for (uint32_t i = 0; i < result->n_entities; i++) {
            const mlia_entity *e = result->entities[i];
            if (strcmp(e->kind, kinds[k]) != 0)
                continue;
            const mlia_metric *m = mlia_entity_metric(e, "execution_coverage", NULL);
            if (!m)
                continue;
            measured++;
            if (m->d < 100.0)
                below++;
        }
        if (below)
            mlia_result_warnf(result,
                              "%u of %u measured %s entities were measured in fewer than all %u executions "
                              "(execution coverage below 100%%).",
                              below, measured, kinds[k], n_exec);
    }
    return 0;
}
