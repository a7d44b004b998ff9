/* Runtime timing analysis (docs/analysis.md) on in-memory
 * ETDump / ETRecord structures: nearest-rank P50, unattributed time, backend
 * event nesting and naming, dropped events, method selection. */
#include "test.h"

#include "analysis/runtime.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"

static mlia_arena A;

static etdump_event prof(const char *name, int64_t chain, int32_t instr, uint64_t s, uint64_t e)
{
    etdump_event ev;
    memset(&ev, 0, sizeof ev);
    ev.kind = ETDUMP_EVENT_PROFILE;
    ev.name = name ? mlia_str_c(name) : (mlia_str){NULL, 0};
    ev.chain_index = chain;
    ev.instruction_id = instr;
    ev.delegate_debug_id_int = -1;
    ev.start_time = s;
    ev.end_time = e;
    return ev;
}

static etdump_event backend(const char *id, int32_t instr, uint64_t s, uint64_t e)
{
    etdump_event ev = prof(NULL, 0, instr, s, e);
    ev.delegate_debug_id_str = mlia_str_c(id);
    ev.has_metadata = true;
    return ev;
}

static etdump_run run_of(const char *name, etdump_event *evs, uint32_t n)
{
    etdump_run r;
    memset(&r, 0, sizeof r);
    r.name = mlia_str_c(name);
    r.bundled_input_index = -1;
    r.n_events = n;
    r.mem_events = evs;
    return r;
}

TEST(p50_is_nearest_rank_lower_median)
{
    uint64_t a[] = {5, 1, 4, 2};
    CHECK_UINT(runtime_p50_u64(a, 4), 2);
    uint64_t b[] = {9};
    CHECK_UINT(runtime_p50_u64(b, 1), 9);
    uint64_t c[] = {3, 3, 1, 3, 2};
    CHECK_UINT(runtime_p50_u64(c, 5), 3);
    uint64_t d[] = {7, 7, 7, 1, 1, 1};
    CHECK_UINT(runtime_p50_u64(d, 6), 1);
}

/* One method with two kernels sharing a handle, one exclusive kernel and a
 * delegate call with nested backend events; three executions. */
typedef struct world {
    etdump dump;
    etdump_run runs[4];
    etdump_event ev[4][32];
    etrecord_method m;
    etrecord_handles handles[4];
    etrecord_delegate_entry delegates[4];
    int64_t hv[8];
    int64_t num_outs[4];
    ep_program prog;
    ep_node nodes[4];
} world;

static void build(world *w)
{
    memset(w, 0, sizeof *w);
    /* nodes: a (handle 1), b and c (handle 2, decomposed), d (handle 3, delegated) */
    const char *names[4] = {"a", "b", "c", "d"};
    int64_t hs[4] = {1, 2, 2, 3};
    for (int i = 0; i < 4; i++) {
        w->nodes[i].name = names[i];
        w->nodes[i].target = "executorch.exir.dialects.edge.ops.aten.mul.Tensor";
        w->nodes[i].debug_handle = hs[i];
        w->nodes[i].index = (uint32_t)i;
    }
    w->prog.graph.n_nodes = 4;
    w->prog.graph.nodes = w->nodes;
    /* maps: instr 0 -> 1, instr 1 -> 2, instr 2 -> 2, instr 3 delegate -> [3] */
    w->hv[0] = 1;
    w->hv[1] = 2;
    w->hv[2] = 2;
    w->hv[3] = 3;
    for (int i = 0; i < 4; i++) {
        w->handles[i] = (etrecord_handles){1, &w->hv[i], true};
        w->num_outs[i] = -1;
    }
    w->delegates[3].present = true;
    w->delegates[3].backend = "VgfBackend";
    w->m.name = "forward";
    w->m.n_instr = 4;
    w->m.debug_handles = w->handles;
    w->m.delegates = w->delegates;
    w->m.num_outs = w->num_outs;

    w->runs[0] = run_of("Default", w->ev[0], 0);
    for (int r = 1; r <= 3; r++) {
        etdump_event *e = w->ev[r];
        uint32_t n = 0;
        uint64_t k = (uint64_t)r; /* execution r scales durations */
        e[n++] = prof("native_call_mul.out", 0, 0, 100, 100 + 50 * k);
        e[n++] = prof("OPERATOR_CALL", 0, 0, 90, 160 + 50 * k);
        e[n++] = prof("native_call_mul.out", 0, 1, 400, 420);
        e[n++] = prof("OPERATOR_CALL", 0, 1, 395, 425);
        e[n++] = prof("native_call_mul.out", 0, 2, 500, 510);
        e[n++] = prof("OPERATOR_CALL", 0, 2, 495, 515);
        if (r != 2) { /* the delegate call is missing in execution 2 */
            e[n++] = backend("VGF_COPY_INPUTS", 3, 610, 620);
            e[n++] = backend("VGF_DISPATCH_AND_WAIT", 3, 620, 680);
            e[n++] = backend("VGF_COPY_OUTPUTS", 3, 690, 695);
            e[n++] = backend("VGF_EXECUTE", 3, 605, 700);
            e[n++] = prof("DELEGATE_CALL", 0, 3, 600, 720);
        }
        e[n++] = prof("OPERATOR_CALL", 0, 0, 900, 800); /* end < start: dropped */
        e[n++] = prof("Method::execute", -1, 0, 0, 1000 + 100 * k);
        w->runs[r] = run_of("Execute", e, n);
    }
    w->dump.n_runs = 4;
    w->dump.runs = w->runs;
}

/* True when the entity has that parent (relationships are a DAG). */
static bool has_parent(const mlia_entity *e, const char *id)
{
    for (uint32_t i = 0; e && i < e->n_parents; i++)
        if (strcmp(e->parents[i]->id, id) == 0)
            return true;
    return false;
}

static const mlia_entity *ent(const mlia_result *r, const char *id)
{
    return mlia_result_find(r, id);
}

TEST(runtime_rules)
{
    static world w;
    build(&w);
    mlia_result res;
    mlia_result_init(&res, &A);
    uint32_t runs[3] = {1, 2, 3};
    runtime_inputs in = {"forward", &w.dump, runs, 3, &w.m, &w.prog, "ns", 1e6, true, NULL, NULL, NULL};
    runtime_analysis *ra;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(runtime_analyse(&in, &res, &A, &ra, &err), 0);

    /* kept series (--csv): the per-execution values behind each summary */
    const runtime_series *sa = NULL;
    for (uint32_t i = 0; i < ra->n_series; i++)
        if (!strcmp(ra->series[i].entity_id, "source_operator/forward/a") &&
            !strcmp(ra->series[i].metric, "execution_time"))
            sa = &ra->series[i];
    CHECK(sa);
    CHECK_UINT(sa->ticks[0], 120);
    CHECK_UINT(sa->ticks[1], 170);
    CHECK_UINT(sa->ticks[2], 220);
    CHECK(!strcmp(ra->series[ra->n_series - 1].entity_id, "model"));
    CHECK_DBL(ra->ticks_per_ms, 1e6);

    /* exclusive node a: OPERATOR_CALL 70+50k ns over k = 1, 2, 3 */
    const mlia_entity *a = ent(&res, "source_operator/forward/a");
    CHECK(a);
    const mlia_metric *m = mlia_entity_metric(a, "execution_time", "p50");
    CHECK(m);
    CHECK_DBL(m->d, 170 / 1e6);
    CHECK_STR(mlia_metric_qualifier(m, "attribution"), "exclusive");
    CHECK_INT(m->samples, 3);
    CHECK_DBL(mlia_entity_metric(a, "execution_time", "min")->d, 120 / 1e6);
    CHECK_DBL(mlia_entity_metric(a, "execution_time", "max")->d, 220 / 1e6);
    CHECK_DBL(mlia_entity_metric(a, "kernel_time", "p50")->d, 100 / 1e6);
    /* unattributed = OPERATOR_CALL minus its native_call: 70 ns every time */
    CHECK_DBL(mlia_entity_metric(a, "unattributed_time", "p50")->d, 70 / 1e6);

    /* b and c share handle 2: both get the sum of instructions 1 and 2 (30 + 20) */
    const mlia_entity *b = ent(&res, "source_operator/forward/b");
    m = mlia_entity_metric(b, "execution_time", "p50");
    CHECK_DBL(m->d, 50 / 1e6);
    CHECK_STR(mlia_metric_qualifier(m, "attribution"), "shared");
    const mlia_attr *sw = mlia_entity_attr(b, "shared_with");
    CHECK(sw && sw->n == 1);
    CHECK_STR(sw->list_s[0], "source_operator/forward/c");

    /* d is delegated: shared timing from the delegate call, in 2 of 3 executions */
    const mlia_entity *d = ent(&res, "source_operator/forward/d");
    m = mlia_entity_metric(d, "execution_time", "p50");
    CHECK_DBL(m->d, 120 / 1e6);
    CHECK_STR(mlia_metric_qualifier(m, "attribution"), "shared");
    CHECK(has_parent(d, "delegate_call/forward/0/3"));
    const mlia_metric *cov = mlia_entity_metric(d, "execution_coverage", NULL);
    CHECK_DBL(cov->d, 100.0 * 2 / 3);

    /* delegate call: duration 120, children cover VGF_EXECUTE [605,700] -> 25 unattributed */
    const mlia_entity *dc = ent(&res, "delegate_call/forward/0/3");
    CHECK(dc);
    CHECK_STR(dc->name, "VgfBackend");
    CHECK_DBL(mlia_entity_metric(dc, "unattributed_time", "p50")->d, 25 / 1e6);
    /* nesting from time containment, children written first */
    const mlia_entity *ex = ent(&res, "runtime_event/forward/0/3/VGF_EXECUTE");
    CHECK(ex);
    CHECK(has_parent(ex, "delegate_call/forward/0/3"));
    const mlia_entity *cp = ent(&res, "runtime_event/forward/0/3/VGF_COPY_INPUTS");
    CHECK(cp);
    CHECK(has_parent(cp, "runtime_event/forward/0/3/VGF_EXECUTE"));
    /* VGF_EXECUTE 95 minus children (10 + 60 + 5) = 20 */
    CHECK_DBL(mlia_entity_metric(ex, "unattributed_time", "p50")->d, 20 / 1e6);
    CHECK_DBL(mlia_entity_metric(ex, "execution_time", "p50")->d, 95 / 1e6);

    /* inference time and dropped events */
    CHECK(ra->has_inference);
    CHECK_DBL(ra->inference_p50, 1200 / 1e6);
    CHECK_INT(ra->inference_samples, 3);
    CHECK_UINT(ra->dropped_events, 3);
    CHECK(mlia_result_has_warning(&res, "Dropped 3 runtime event(s) whose end time precedes their start time."));
    CHECK(mlia_result_has_warning(&res, "1 of 4 measured source_operator entities were measured in fewer than all "
                                        "3 executions (execution coverage below 100%)."));
}

TEST(repeated_name_at_another_position_gets_ordinal)
{
    static world w;
    build(&w);
    /* execution 1: a second VGF_COPY_INPUTS directly under the delegate call */
    etdump_event *e = w.ev[1];
    uint32_t n = w.runs[1].n_events;
    memmove(&e[1], &e[0], n * sizeof *e);
    e[0] = backend("VGF_COPY_INPUTS", 3, 601, 604);
    w.runs[1].n_events = n + 1;
    mlia_result res;
    mlia_result_init(&res, &A);
    uint32_t runs[3] = {1, 2, 3};
    runtime_inputs in = {"forward", &w.dump, runs, 3, &w.m, &w.prog, "ns", 1e6, false, NULL, NULL, NULL};
    runtime_analysis *ra;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(runtime_analyse(&in, &res, &A, &ra, &err), 0);
    /* first seen (in time order): the one directly under the delegate call */
    const mlia_entity *first = ent(&res, "runtime_event/forward/0/3/VGF_COPY_INPUTS");
    CHECK(first);
    CHECK(has_parent(first, "delegate_call/forward/0/3"));
    CHECK_INT(mlia_entity_metric(first, "execution_time", "p50")->samples, 1);
    const mlia_entity *second = ent(&res, "runtime_event/forward/0/3/VGF_COPY_INPUTS#2");
    CHECK(second);
    CHECK(has_parent(second, "runtime_event/forward/0/3/VGF_EXECUTE"));
    CHECK_INT(mlia_entity_metric(second, "execution_time", "p50")->samples, 2);
}

/* selecting_methods: "forward" takes runs 1-4 (run 4 also fits "decode"),
 * "decode" run 4 only, run 5 fits neither. */
static void select_forward_and_decode(const etrecord *rec, const etdump *dump)
{
    mlia_result res;
    mlia_result_init(&res, &A);
    method_selection sel;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(runtime_select_method(rec, "m.etrecord", "forward", dump, NULL, &A, &res, &sel, &err), 0);
    CHECK_INT(sel.n_executions, 4);
    CHECK_INT(sel.execution_runs[3], 4);
    CHECK(mlia_result_has_warning(&res, "1 execution(s) of the ETDump fit no recorded method and were ignored "
                                        "(runs 5)."));
    CHECK(mlia_result_has_warning(&res, "1 execution(s) fit method 'forward' and another recorded method; they "
                                        "were attributed to the selected method 'forward' (runs 4)."));
    mlia_result_init(&res, &A);
    CHECK_INT(runtime_select_method(rec, "m.etrecord", "decode", dump, NULL, &A, &res, &sel, &err), 0);
    CHECK_INT(sel.n_executions, 1);
    CHECK_INT(sel.execution_runs[0], 4);
}

TEST(selecting_methods)
{
    static world w;
    build(&w);
    /* a second method with a single kernel at instruction 0 */
    etrecord_method ms[2];
    ms[0] = w.m;
    memset(&ms[1], 0, sizeof ms[1]);
    etrecord_handles h1[1] = {{1, &w.hv[0], true}};
    etrecord_delegate_entry d1[1];
    memset(d1, 0, sizeof d1);
    int64_t no[1] = {-1};
    ms[1].name = "decode";
    ms[1].n_instr = 1;
    ms[1].debug_handles = h1;
    ms[1].delegates = d1;
    ms[1].num_outs = no;
    etrecord rec;
    memset(&rec, 0, sizeof rec);
    rec.n_methods = 2;
    rec.methods = ms;
    /* run 4: only instruction 0 -> fits both methods (ambiguous); run 5 fits none */
    etdump_run runs[6];
    memcpy(runs, w.runs, sizeof w.runs);
    etdump_event amb[2] = {prof("OPERATOR_CALL", 0, 0, 1, 2), prof("Method::execute", -1, 0, 0, 3)};
    etdump_event none[2] = {prof("OPERATOR_CALL", 0, 9, 1, 2), prof("Method::execute", -1, 0, 0, 3)};
    runs[4] = run_of("Execute", amb, 2);
    runs[5] = run_of("Execute", none, 2);
    etdump dump = {0};
    dump.n_runs = 6;
    dump.runs = runs;
    mlia_result res;
    mlia_result_init(&res, &A);
    method_selection sel;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(runtime_select_method(&rec, "m.etrecord", NULL, &dump, NULL, &A, &res, &sel, &err), -1);
    CHECK_STR(err.text, "m.etrecord: the ETRecord records several methods (forward, decode); select one with "
                        "--neural-technology-profiling-data.etrecord-method");
    mlia_error_clear(&err);
    CHECK_INT(runtime_select_method(&rec, "m.etrecord", "encode", &dump, NULL, &A, &res, &sel, &err), -1);
    CHECK_STR(err.text, "m.etrecord: method 'encode' is not recorded in the ETRecord; recorded methods: forward, "
                        "decode");
    mlia_error_clear(&err);
    select_forward_and_decode(&rec, &dump);

    /* decode once: the fits worked out on the validation pass (the visitor
     * fed as etdump_read_visiting would) give the same selections, and
     * selection then decodes no run (the events are taken away) */
    etdump_visitor v;
    CHECK(runtime_fit_visitor(&rec, &v));
    for (uint32_t r = 0; r < dump.n_runs; r++) {
        v.run(v.ctx, &runs[r]);
        for (uint32_t k = 0; k < runs[r].n_events; k++)
            v.event(v.ctx, &runs[r], &runs[r].mem_events[k]);
    }
    CHECK_UINT(runs[0].visit_bits, 0); /* not an Execute block */
    CHECK_UINT(runs[1].visit_bits, 1);
    CHECK_UINT(runs[4].visit_bits, 3);
    CHECK_UINT(runs[5].visit_bits, 0);
    dump.visit_key = v.key;
    etdump_event empty[1] = {prof("Method::execute", -1, 0, 0, 3)};
    for (uint32_t r = 0; r < dump.n_runs; r++) {
        runs[r].mem_events = empty;
        runs[r].n_events = 1;
    }
    select_forward_and_decode(&rec, &dump);
    /* more than 64 methods: no visitor (selection decodes the runs) */
    rec.n_methods = 65;
    CHECK(!runtime_fit_visitor(&rec, &v));
}

/* A one-instruction method (handle 5) whose program has n nodes, all
 * carrying handle 5, named n0, n1, ... (or `name` when n == 1). */
typedef struct one_instr {
    ep_node nodes[70];
    char names[70][16];
    ep_program prog;
    int64_t hv;
    etrecord_handles hs[1];
    etrecord_delegate_entry ds[1];
    int64_t no[1];
    etrecord_method m;
} one_instr;

static void one_instr_init(one_instr *o, int n, const char *name)
{
    memset(o, 0, sizeof *o);
    for (int i = 0; i < n; i++) {
        snprintf(o->names[i], sizeof o->names[i], "n%d", i);
        o->nodes[i].name = n == 1 && name ? name : o->names[i];
        o->nodes[i].target = "executorch.exir.dialects.edge.ops.aten.add.Tensor";
        o->nodes[i].debug_handle = 5;
    }
    o->prog.graph.n_nodes = (uint32_t)n;
    o->prog.graph.nodes = o->nodes;
    o->hv = 5;
    o->hs[0] = (etrecord_handles){1, &o->hv, true};
    o->no[0] = -1;
    o->m.name = "forward";
    o->m.n_instr = 1;
    o->m.debug_handles = o->hs;
    o->m.delegates = o->ds;
    o->m.num_outs = o->no;
}

/* 70 nodes share one handle (a large delegated or decomposed region): every
 * node gets the shared timing; shared_with is capped at 64 ids and
 * shared_with_count gives the full number. */
TEST(large_shared_group_is_capped)
{
    enum { N = 70 };
    static one_instr o;
    one_instr_init(&o, N, NULL);
    etdump_event ev[2] = {prof("OPERATOR_CALL", 0, 0, 10, 60), prof("Method::execute", -1, 0, 0, 100)};
    etdump_run runs[1] = {run_of("Execute", ev, 2)};
    etdump dump = {0};
    dump.n_runs = 1;
    dump.runs = runs;
    mlia_result res;
    mlia_result_init(&res, &A);
    uint32_t ex[1] = {0};
    runtime_inputs in = {"forward", &dump, ex, 1, &o.m, &o.prog, "ns", 1e6, false, NULL, NULL, NULL};
    runtime_analysis *ra;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(runtime_analyse(&in, &res, &A, &ra, &err), 0);
    const mlia_entity *e = ent(&res, "source_operator/forward/n3");
    CHECK(e);
    CHECK_DBL(mlia_entity_metric(e, "execution_time", "p50")->d, 50 / 1e6);
    const mlia_attr *sw = mlia_entity_attr(e, "shared_with");
    CHECK(sw && sw->n == 64);
    CHECK_STR(sw->list_s[0], "source_operator/forward/n0");
    CHECK_STR(sw->list_s[3], "source_operator/forward/n4");
    const mlia_attr *cnt = mlia_entity_attr(e, "shared_with_count");
    CHECK(cnt);
    CHECK_INT(cnt->i, N - 1);
    CHECK_INT(ra->n_timed_nodes, N);
}

/* Runtime analysis of three runs (all executions) of o's method. */
static int analyse_three(const one_instr *o, etdump_run *runs, mlia_result *res)
{
    etdump dump = {0};
    dump.n_runs = 3;
    dump.runs = runs;
    mlia_result_init(res, &A);
    uint32_t ex[3] = {0, 1, 2};
    runtime_inputs in = {"forward", &dump, ex, 3, &o->m, &o->prog, "ns", 1e6, false, NULL, NULL, NULL};
    runtime_analysis *ra;
    mlia_error err;
    mlia_error_clear(&err);
    return runtime_analyse(&in, res, &A, &ra, &err);
}

/* Per-execution sums are kept in 32 bits until one does not fit: a 5 s
 * operator (5e9 ns ticks) widens the table and every value stays exact. */
TEST(sums_beyond_32_bits_stay_exact)
{
    static one_instr o;
    one_instr_init(&o, 1, "big");
    const uint64_t big = 5000000000ull, t0 = 1ull << 40;
    /* three executions: 30 ticks, 5e9 ticks (native 4e9 + 1e9 unattributed), 40 ticks */
    etdump_event e0[2] = {prof("native_call_add.out", 0, 0, 10, 30), prof("OPERATOR_CALL", 0, 0, 10, 40)};
    etdump_event e1[2] = {prof("native_call_add.out", 0, 0, t0, t0 + 4000000000ull),
                          prof("OPERATOR_CALL", 0, 0, t0, t0 + big)};
    etdump_event e2[2] = {prof("native_call_add.out", 0, 0, 10, 20), prof("OPERATOR_CALL", 0, 0, 10, 50)};
    etdump_run runs[3] = {run_of("Execute", e0, 2), run_of("Execute", e1, 2), run_of("Execute", e2, 2)};
    mlia_result res;
    CHECK_INT(analyse_three(&o, runs, &res), 0);
    const mlia_entity *e = ent(&res, "source_operator/forward/big");
    CHECK(e);
    CHECK_DBL(mlia_entity_metric(e, "execution_time", "p50")->d, 40 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "execution_time", "max")->d, (double)big / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "execution_time", "min")->d, 30 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "kernel_time", "max")->d, 4000000000.0 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "unattributed_time", "max")->d, 1000000000.0 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "unattributed_time", "p50")->d, 30 / 1e6);
}

/* Unattributed time is derived as execution - kernel time except where
 * the natives overlap, stick out of their call or follow the last call:
 * those executions keep their own value. */
TEST(unattributed_time_when_natives_overlap_or_follow)
{
    static one_instr o;
    one_instr_init(&o, 1, "op");
    /* overlapping natives: covered 30 of 40 kernel ticks -> unattributed 20 */
    etdump_event e0[3] = {prof("native_call_add.out", 0, 0, 10, 30), prof("native_call_add.out", 0, 0, 20, 40),
                          prof("OPERATOR_CALL", 0, 0, 0, 50)};
    /* a native after the call: kernel 20, unattributed 40 */
    etdump_event e1[3] = {prof("native_call_add.out", 0, 0, 10, 20), prof("OPERATOR_CALL", 0, 0, 0, 50),
                          prof("native_call_add.out", 0, 0, 60, 70)};
    /* the usual case: unattributed 40 = 50 - 10 */
    etdump_event e2[2] = {prof("native_call_add.out", 0, 0, 10, 20), prof("OPERATOR_CALL", 0, 0, 0, 50)};
    etdump_run runs[3] = {run_of("Execute", e0, 3), run_of("Execute", e1, 3), run_of("Execute", e2, 2)};
    mlia_result res;
    CHECK_INT(analyse_three(&o, runs, &res), 0);
    const mlia_entity *e = ent(&res, "source_operator/forward/op");
    CHECK(e);
    CHECK_DBL(mlia_entity_metric(e, "unattributed_time", "min")->d, 20 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "unattributed_time", "p50")->d, 40 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "unattributed_time", "max")->d, 40 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "kernel_time", "min")->d, 10 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "kernel_time", "p50")->d, 20 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "kernel_time", "max")->d, 40 / 1e6);
    CHECK_DBL(mlia_entity_metric(e, "execution_time", "p50")->d, 50 / 1e6);
}

static bool ends_with(mlia_str s, const char *suf)
{
    size_t n = strlen(suf);
    return s.len >= n && memcmp(s.ptr + s.len - n, suf, n) == 0;
}

/* The backend hook for units and clocks (runtime_inputs.event_unit,
 * backend.h event_unit): a test backend whose names end in the unit. */
static runtime_unit unit_by_suffix(const void *ctx, const char *backend, mlia_str name, const uint8_t *meta,
                                   uint32_t n_meta)
{
    (void)meta;
    (void)n_meta;
    if (!ctx || strcmp((const char *)ctx, "ctx") != 0)
        return RUNTIME_UNIT_BYTES; /* the context is passed through: a wrong one fails the checks below */
    if (strcmp(backend, "VgfBackend") != 0)
        return RUNTIME_UNIT_CPU_TICKS;
    if (ends_with(name, " (cycles)"))
        return RUNTIME_UNIT_CYCLES;
    if (ends_with(name, " (count)"))
        return RUNTIME_UNIT_COUNT;
    if (ends_with(name, " (us)"))
        return RUNTIME_UNIT_US;
    if (name.len && name.ptr[0] == '{')
        return RUNTIME_UNIT_NS;
    return RUNTIME_UNIT_CPU_TICKS;
}

TEST(event_units_kept_apart)
{
    static world w;
    build(&w);
    /* executions 1 and 3 (k = 1, 3) have the delegate call [600, 720];
     * before it, as backends write them: a cycles value, a count, a us
     * duration (all start 0, like QNN) and a GPU-clock dispatch in ns on
     * an epoch far from the CPU ticks (like Vulkan) */
    for (int r = 1; r <= 3; r += 2) {
        uint64_t k = (uint64_t)r;
        etdump_event *e = w.ev[r];
        uint32_t n = w.runs[r].n_events;
        memmove(&e[4], &e[0], n * sizeof *e);
        e[0] = backend("accel (cycles)", 3, 0, 5000 * k);          /* 5000, 15000 cycles */
        e[1] = backend("yields (count)", 3, 0, 2);                 /* 2, 2 */
        e[2] = backend("rpc (us)", 3, 0, 40 * k);                  /* 40, 120 us */
        e[3] = backend("{\"kernel_name\":\"k\"}", 3, 9000000000ull, 9000000000ull + 300 * k); /* 300, 900 ns */
        w.runs[r].n_events = n + 4;
    }
    mlia_result res;
    mlia_result_init(&res, &A);
    uint32_t runs[3] = {1, 2, 3};
    /* a declared CPU rate of 2 GHz: 2e6 ticks per ms */
    runtime_inputs in = {"forward", &w.dump, runs, 3, &w.m, &w.prog, "ns", 2e6, false, unit_by_suffix, "ctx", NULL};
    runtime_analysis *ra;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(runtime_analyse(&in, &res, &A, &ra, &err), 0);

    /* cycles stay cycles: nearest-rank P50 of {5000, 15000} = 5000, never ms */
    const mlia_entity *cy = ent(&res, "runtime_event/forward/0/3/accel (cycles)");
    CHECK(cy);
    CHECK(has_parent(cy, "delegate_call/forward/0/3"));
    const mlia_metric *m = mlia_entity_metric(cy, "cycles", "p50");
    CHECK(m);
    CHECK_DBL(m->d, 5000);
    CHECK_STR(m->unit, "cycles");
    CHECK_INT(m->samples, 2);
    CHECK_DBL(mlia_entity_metric(cy, "cycles", "max")->d, 15000);
    CHECK(!mlia_entity_metric(cy, "execution_time", "p50"));
    /* a count is no duration */
    const mlia_entity *ct = ent(&res, "runtime_event/forward/0/3/yields (count)");
    CHECK(ct && has_parent(ct, "delegate_call/forward/0/3"));
    CHECK_DBL(mlia_entity_metric(ct, "count", "p50")->d, 2);
    CHECK_STR(mlia_entity_metric(ct, "count", "p50")->unit, "count");
    CHECK(!mlia_entity_metric(ct, "execution_time", "p50"));
    /* us: 40 us = 0.04 ms whatever the CPU rate; max 120 us = 0.12 ms */
    const mlia_entity *us = ent(&res, "runtime_event/forward/0/3/rpc (us)");
    CHECK(us);
    m = mlia_entity_metric(us, "execution_time", "p50");
    CHECK_DBL(m->d, 0.04);
    CHECK_STR(m->unit, "ms");
    CHECK_STR(mlia_metric_qualifier(m, "clock"), "backend");
    CHECK_DBL(mlia_entity_metric(us, "execution_time", "max")->d, 0.12);
    /* GPU ns: 300 ns = 0.0003 ms, not 300 / 2e6 (the CPU rate applies to CPU ticks only) */
    const mlia_entity *gpu = ent(&res, "runtime_event/forward/0/3/{\"kernel_name\":\"k\"}");
    CHECK(gpu && has_parent(gpu, "delegate_call/forward/0/3"));
    CHECK_DBL(mlia_entity_metric(gpu, "execution_time", "p50")->d, 300 / 1e6);
    CHECK_DBL(mlia_entity_metric(gpu, "execution_time", "max")->d, 900 / 1e6);
    /* the CPU events keep their tree and the call its unattributed time:
     * 120 - 95 = 25 ticks = 25 / 2e6 ms; nothing of the other classes is
     * counted in it, nor laid out as durations (no warning) */
    const mlia_entity *dc = ent(&res, "delegate_call/forward/0/3");
    CHECK_DBL(mlia_entity_metric(dc, "unattributed_time", "p50")->d, 25 / 2e6);
    CHECK(has_parent(ent(&res, "runtime_event/forward/0/3/VGF_COPY_INPUTS"), "runtime_event/forward/0/3/VGF_EXECUTE"));
    CHECK_DBL(mlia_entity_metric(ent(&res, "runtime_event/forward/0/3/VGF_EXECUTE"), "execution_time", "p50")->d,
              95 / 2e6);
    CHECK_INT(ra->duration_only_events, 0);
    /* the view writers see each event's class */
    uint32_t seen = 0;
    for (uint32_t i = 0; i < ra->n_calls; i++)
        for (uint32_t k = 0; k < ra->calls[i].n_events; k++) {
            const runtime_event_node *nd = &ra->calls[i].events[k];
            if (!strcmp(nd->name, "accel (cycles)"))
                seen += nd->unit == RUNTIME_UNIT_CYCLES;
            if (!strcmp(nd->name, "VGF_EXECUTE"))
                seen += nd->unit == RUNTIME_UNIT_CPU_TICKS;
        }
    CHECK_INT(seen, 2);
    CHECK_STR(runtime_unit_metric(RUNTIME_UNIT_BYTES), "bytes");
    CHECK_STR(runtime_unit_name(RUNTIME_UNIT_NS), "ms");
}

/* Feed the prescan's visitor as etdump_read_visiting does. */
static void visit_all(const etdump_visitor *v, etdump *dump)
{
    v->begin(v->ctx, dump->n_runs);
    for (uint32_t r = 0; r < dump->n_runs; r++) {
        dump->runs[r].index = r;
        v->run(v->ctx, &dump->runs[r]);
        for (uint32_t k = 0; k < dump->runs[r].n_events; k++)
            v->event(v->ctx, &dump->runs[r], &dump->runs[r].mem_events[k]);
        v->run_end(v->ctx, &dump->runs[r]);
    }
    dump->visit_key = v->key;
}

/* w built, and rec the ETRecord of its one method. */
static void one_method(world *w, etrecord *rec)
{
    build(w);
    memset(rec, 0, sizeof *rec);
    rec->n_methods = 1;
    rec->methods = &w->m;
}

/* The prescan of rec's method over the whole dump, fed as the validation pass does. */
static runtime_prescan *prescan_all(const etrecord *rec, etdump *dump, uint32_t warmup)
{
    etdump_visitor v;
    runtime_prescan *p = runtime_prescan_new(rec, warmup, NULL, NULL, &A, &v);
    if (p)
        visit_all(&v, dump);
    return p;
}

/* Every entity, attribute count, link count and metric of a and b equal, in order. */
static int results_equal(const mlia_result *a, const mlia_result *b)
{
    if (a->n_entities != b->n_entities || a->n_warnings != b->n_warnings)
        return 0;
    for (uint32_t i = 0; i < a->n_entities; i++) {
        const mlia_entity *x = a->entities[i], *y = b->entities[i];
        if (strcmp(x->id, y->id) || x->n_metrics != y->n_metrics || x->n_attrs != y->n_attrs ||
            x->n_parents != y->n_parents || x->n_children != y->n_children)
            return 0;
        for (uint32_t m = 0; m < x->n_metrics; m++) {
            const mlia_metric *p = &x->metrics[m], *q = &y->metrics[m];
            if (strcmp(p->name, q->name) || (p->aggregation == NULL) != (q->aggregation == NULL) ||
                (p->aggregation && strcmp(p->aggregation, q->aggregation)) || p->type != q->type ||
                p->u != q->u || p->samples != q->samples)
                return 0;
        }
    }
    for (uint32_t i = 0; i < a->n_warnings; i++)
        if (strcmp(a->warnings[i], b->warnings[i]))
            return 0;
    return 1;
}

/* One pass (issue 33): the scan done on the validation pass is taken when
 * the selection is the one it scanned, and gives the very result of
 * decoding the executions again; with another selection it is left and
 * the executions are decoded again. */
TEST(prescan_gives_the_same_analysis)
{
    for (uint32_t warmup = 0; warmup <= 3; warmup++) {
        static world w;
        etrecord rec;
        one_method(&w, &rec);
        runtime_prescan *p = prescan_all(&rec, &w.dump, warmup);
        CHECK(p);
        CHECK_UINT(w.runs[0].visit_bits, 0); /* the fit is worked out as runtime_fit_visitor's */
        CHECK_UINT(w.runs[1].visit_bits, 1);
        uint32_t all[3] = {1, 2, 3};
        const uint32_t *runs = all + warmup;
        uint32_t n = 3 - warmup;
        runtime_inputs in = {"forward", &w.dump, runs, n, &w.m, &w.prog, "ns", 1e6, true, NULL, NULL, NULL};
        mlia_result again, once;
        mlia_result_init(&again, &A);
        mlia_result_init(&once, &A);
        runtime_analysis *ra_again, *ra_once;
        mlia_error err;
        mlia_error_clear(&err);
        CHECK_INT(runtime_analyse(&in, &again, &A, &ra_again, &err), 0);
        CHECK(!ra_again->one_pass);
        in.prescan = p;
        CHECK_INT(runtime_analyse(&in, &once, &A, &ra_once, &err), 0);
        CHECK(ra_once->one_pass);
        CHECK(results_equal(&again, &once));
        CHECK_UINT(ra_once->n_executions, n);
        CHECK_UINT(ra_once->n_series, ra_again->n_series);
        for (uint32_t x = 0; x < n; x++) {
            CHECK_UINT(ra_once->executions[x].run_index, runs[x]);
            CHECK_UINT(ra_once->executions[x].execute_end, ra_again->executions[x].execute_end);
        }
        for (uint32_t k = 0; k < ra_once->n_series; k++)
            for (uint32_t x = 0; x < n; x++)
                CHECK_UINT(ra_once->series[k].ticks[x], ra_again->series[k].ticks[x]);
        runtime_prescan_free(p);
    }
    /* another selection (the last two executions only, as with a warm-up
     * the prescan did not expect): the prescan is left, the result is the
     * analysis of those two */
    static world w;
    etrecord rec;
    one_method(&w, &rec);
    runtime_prescan *p = prescan_all(&rec, &w.dump, 0);
    CHECK(p);
    uint32_t two[2] = {2, 3};
    runtime_inputs in = {"forward", &w.dump, two, 2, &w.m, &w.prog, "ns", 1e6, true, NULL, NULL, p};
    mlia_result r1, r2;
    mlia_result_init(&r1, &A);
    mlia_result_init(&r2, &A);
    runtime_analysis *ra1, *ra2;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(runtime_analyse(&in, &r1, &A, &ra1, &err), 0);
    CHECK(!ra1->one_pass);
    in.prescan = NULL;
    CHECK_INT(runtime_analyse(&in, &r2, &A, &ra2, &err), 0);
    CHECK(results_equal(&r1, &r2));
    /* a method with no maps takes every block: scanned again, not on the pass */
    w.m.n_instr = 0;
    runtime_prescan *q = prescan_all(&rec, &w.dump, 0);
    CHECK(q);
    uint32_t three[3] = {1, 2, 3};
    runtime_inputs in0 = {"forward", &w.dump, three, 3, &w.m, &w.prog, "ns", 1e6, false, NULL, NULL, q};
    mlia_result r3;
    mlia_result_init(&r3, &A);
    CHECK_INT(runtime_analyse(&in0, &r3, &A, &ra1, &err), 0);
    CHECK(!ra1->one_pass);
    runtime_prescan_free(q);
    runtime_prescan_free(p);
    /* not one method: no prescan */
    rec.n_methods = 2;
    CHECK(prescan_all(&rec, &w.dump, 0) == NULL);
    runtime_prescan_free(NULL);
}

int main(void)
{
    mlia_arena_init(&A);
    RUN(large_shared_group_is_capped);
    RUN(sums_beyond_32_bits_stay_exact);
    RUN(unattributed_time_when_natives_overlap_or_follow);
    RUN(p50_is_nearest_rank_lower_median);
    RUN(runtime_rules);
    RUN(event_units_kept_apart);
    RUN(repeated_name_at_another_position_gets_ordinal);
    RUN(selecting_methods);
    RUN(prescan_gives_the_same_analysis);
    mlia_arena_free(&A);
    return test_summary();
}
