/*
 * test_views.c - the Model Explorer writer on hand-built sessions: a small
 * edge program (with a hostile node name), runtime-style metrics on its
 * entities and a hand-built NX result (one segment, two cascades, three
 * chains, stripes, compiler operations with and without associations).
 * The files are written into a real temporary output tree and read back
 * with the project's JSON reader.
 */
#include "test.h"

#include <stdbool.h>
#include <unistd.h>

#include "backends/backend.h"
#include "backends/vgf/analysis/state.h"
#include "pipeline/session.h"
#include "core/json_read.h"
#include "formats/exported_program.h"
#include "report/outdir.h"
#include "report/views/views.h"

extern const mlia_backend mlia_backend_vgf;

#define HOSTILE "</script><img src=x onerror=alert(1)>"

static char *q(mlia_arena *a, const char *s)
{
    char *r = mlia_arena_strdup(a, s);
    for (char *p = r; *p; p++)
        if (*p == '\'')
            *p = '"';
    return r;
}

/* conv (hostile name, module features.conv1) -> relu (module features) */
static const char PROGRAM[] =
    "{'graph_module': {'graph': {"
    "'inputs': [{'as_tensor': {'name': 'x'}}, {'as_tensor': {'name': 'w'}}], "
    "'outputs': [{'as_tensor': {'name': 'relu'}}], "
    "'nodes': ["
    "{'name': '</script><img src=x onerror=alert(1)>', 'target': "
    "'executorch.exir.dialects.edge.ops.aten.convolution.default', 'inputs': ["
    "{'name': 'input', 'arg': {'as_tensor': {'name': 'x'}}}, "
    "{'name': 'weight', 'arg': {'as_tensor': {'name': 'w'}}}], "
    "'outputs': [{'as_tensor': {'name': 'conv'}}], "
    "'metadata': {'debug_handle': '1', 'stack_trace': 'File <b>x.py</b>, line 3', 'nn_module_stack': "
    "'L__self__,,M;L__self___features,features,F;L__self___features_conv1,features.conv1,C'}}, "
    "{'name': 'relu', 'target': 'executorch.exir.dialects.edge.ops.aten.relu.default', 'inputs': ["
    "{'name': 'self', 'arg': {'as_tensor': {'name': 'conv'}}}], "
    "'outputs': [{'as_tensor': {'name': 'relu'}}], "
    "'metadata': {'debug_handle': '2', 'nn_module_stack': 'L__self__,,M;L__self___features,features,F'}}], "
    "'tensor_values': {'x': {'dtype': 7, 'sizes': [{'as_int': 1}, {'as_int': 3}], 'requires_grad': false, "
    "'device': {'type': 'cpu', 'index': null}, 'strides': [{'as_int': 3}, {'as_int': 1}], "
    "'storage_offset': {'as_int': 0}, 'layout': 7}}, "
    "'sym_int_values': {}, 'sym_bool_values': {}, 'is_single_tensor_return': true, 'custom_obj_values': {}}, "
    "'signature': {'input_specs': [{'user_input': {'arg': {'as_tensor': {'name': 'x'}}}}, "
    "{'parameter': {'arg': {'name': 'w'}, 'parameter_name': 'conv.weight'}}], "
    "'output_specs': [{'user_output': {'arg': {'as_tensor': {'name': 'relu'}}}}]}, "
    "'module_call_graph': []}, 'opset_version': {'aten': 10}, 'range_constraints': {}, "
    "'schema_version': {'major': 5, 'minor': 4}, 'dialect': '', 'verifiers': ['EDGE']}";

typedef struct fixture {
    mlia_session s;
    mlia_check_config opts;
    nx_result nx;
    char dir[64];
    mlia_outdir od;
} fixture;

static void timing(mlia_session *s, const char *id, double p50)
{
    mlia_entity *e = mlia_result_find(&s->result, id);
    const char *st[3] = {"p50", "min", "max"};
    for (int i = 0; i < 3; i++) {
        mlia_metric m = mlia_metric_double("execution_time", "ms", p50 * (1.0 + 0.1 * i), st[i], 3);
        mlia_metric_qualify(&m, "statistic", st[i]);
        mlia_metric_qualify(&m, "attribution", "exclusive");
        mlia_entity_add_metric(&s->result, e, m);
    }
}

static void cycles(mlia_session *s, const char *id, const char *kind, const char *name, uint64_t v)
{
    mlia_entity *e = mlia_result_entity(&s->result, id, kind, name);
    mlia_entity_add_metric(&s->result, e, mlia_metric_uint("total_cycles", "cycles", v, "sum", 1));
}

static uint32_t *u32s(mlia_arena *a, uint32_t n, uint32_t first)
{
    uint32_t *v = mlia_arena_array(a, n ? n : 1, sizeof *v);
    for (uint32_t i = 0; i < n; i++)
        v[i] = first + i;
    return v;
}

/* Builds the session; nx_on = false leaves NX out (unavailable views). */
static int setup(fixture *f, const char *program_json, bool nx_on)
{
    memset(f, 0, sizeof *f);
    mlia_session *s = &f->s;
    mlia_arena_init(&s->arena);
    mlia_arena *a = &s->arena;
    s->opts = &f->opts;
    s->method_name = "forward";
    s->time_unit = "ns";
    s->etrecord_digest.name = "model.etrecord";
    mlia_result_init(&s->result, a);
    mlia_error err;
    mlia_error_clear(&err);
    char *text = q(a, program_json);
    if (ep_parse(text, strlen(text), "t", "forward", a, &s->program, &err)) {
        printf("ep_parse: %s\n", err.text);
        return -1;
    }
    const ep_graph *g = &s->program->graph;
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        char *id = mlia_arena_printf(a, "source_operator/forward/%s", g->nodes[i].name);
        mlia_entity *e = mlia_result_entity(&s->result, id, "source_operator", ep_target_short(g->nodes[i].target));
        mlia_entity_set_str(&s->result, e, "node_name", g->nodes[i].name);
    }
    if (mlia_result_find(&s->result, "source_operator/forward/" HOSTILE)) {
        timing(s, "source_operator/forward/" HOSTILE, 2.0);
        timing(s, "source_operator/forward/relu", 0.5);
    }
    /* the VGF backend as registered, its state as its stage leaves it */
    vgf_state *vgf = mlia_arena_alloc(a, sizeof *vgf);
    memset(vgf, 0, sizeof *vgf);
    s->n_backends = 1;
    s->backends = mlia_arena_alloc(a, sizeof *s->backends);
    s->backends[0] = (mlia_backend_run){"vgf", &mlia_backend_vgf.out, vgf};
    if (nx_on) {
        nx_result *nx = &f->nx;
        nx->any_record = nx->any_measurement = true;
        nx->n_segments = 1;
        nx->segments = mlia_arena_array(a, 1, sizeof *nx->segments);
        nx_segment *seg = &nx->segments[0];
        seg->token = "0";
        seg->id = "segment/0";
        seg->display_name = "segment/0";
        seg->name = "";
        seg->is_graph = seg->analysed = seg->measured = true;
        seg->n_cascades = 2;
        seg->n_chains = 3;
        seg->n_stripes = 4;
        seg->n_ops = 3;
        cycles(s, "segment/0", "segment", "segment/0", 600);
        nx->n_cascades = 2;
        nx->cascades = mlia_arena_array(a, 2, sizeof *nx->cascades);
        const char *cids[2] = {"cascade/segment_0/40", "cascade/segment_0/41"};
        const char *craw[2] = {"40", "41"};
        for (int i = 0; i < 2; i++) {
            nx->cascades[i].id = cids[i];
            nx->cascades[i].raw_id = craw[i];
            nx->cascades[i].name = craw[i];
            cycles(s, cids[i], "cascade", craw[i], i ? 100 : 500);
        }
        nx->n_chains = 3;
        nx->chains = mlia_arena_array(a, 3, sizeof *nx->chains);
        const char *hids[3] = {"chain/segment_0/30", "chain/segment_0/31", "chain/segment_0/32"};
        const char *hraw[3] = {"30", "31", "32"};
        uint64_t hv[3] = {300, 200, 100};
        uint32_t hcas[3] = {0, 0, 1};
        for (int i = 0; i < 3; i++) {
            nx_chain *ch = &nx->chains[i];
            ch->id = hids[i];
            ch->raw_id = hraw[i];
            ch->name = hraw[i];
            ch->parent_cascade = hcas[i];
            ch->n_stripes = i == 0 ? 2 : 1;
            ch->m.total.available = true;
            cycles(s, hids[i], "chain", hraw[i], hv[i]);
        }
        nx->n_stripes = 4;
        nx->stripes = mlia_arena_array(a, 4, sizeof *nx->stripes);
        uint32_t schain[4] = {0, 0, 1, 2};
        for (uint32_t i = 0; i < 4; i++) {
            nx_stripe *st = &nx->stripes[i];
            st->id = mlia_arena_printf(a, "stripe/segment_0/%u", i);
            st->name = mlia_arena_printf(a, "Stripe %u", i);
            st->stripe = i;
            st->chain = schain[i];
            cycles(s, st->id, "stripe", st->name, 50 + 10 * i);
        }
        /* ops: 0 -> chain 0 (hostile conv), 1 -> chain 1 (relu), 2 unmatched */
        nx->n_ops = 3;
        nx->ops = mlia_arena_array(a, 3, sizeof *nx->ops);
        const char **srcs = mlia_arena_array(a, 2, sizeof *srcs);
        srcs[0] = HOSTILE;
        srcs[1] = "relu";
        for (uint32_t i = 0; i < 3; i++) {
            nx_compiler_op *op = &nx->ops[i];
            op->id = mlia_arena_printf(a, "compiler_operation/segment_0/tosa-%u", 10 + i);
            op->tosa_id = mlia_arena_printf(a, "%u", 10 + i);
            op->name = i == 0 ? "Conv2D" : i == 1 ? "Clamp" : "Reshape";
            op->types = &op->name;
            op->n_types = 1;
            op->labels = &op->name;
            op->n_labels = 1;
            op->display_label = "";
            if (i < 2) {
                op->n_parents = 1;
                op->parents = u32s(a, 1, i);
                op->n_sources = 1;
                op->sources = &srcs[i];
                nx->chains[i].n_ops = 1;
                nx->chains[i].ops = u32s(a, 1, i);
            }
            mlia_entity *oe = mlia_result_entity(&s->result, op->id, "compiler_operation", op->name);
            if (i < 2) {
                char *sid = mlia_arena_printf(a, "source_operator/forward/%s", srcs[i]);
                mlia_result_link_ids(&s->result, nx->chains[i].id, oe->id);
                mlia_result_link_ids(&s->result, oe->id, sid);
                mlia_result_link_ids(&s->result, nx->chains[i].id, sid);
            }
        }
        vgf->nx = nx;
    }
    snprintf(f->dir, sizeof f->dir, "/tmp/mlia-test-views-%d", (int)getpid());
    if (mlia_outdir_begin(f->dir, &f->od, &err)) {
        printf("outdir: %s\n", err.text);
        return -1;
    }
    return 0;
}

static void teardown(fixture *f)
{
    mlia_outdir_abort(&f->od);
    rmdir(f->dir);
    mlia_arena_free(&f->s.arena);
}

/* Reads <tmp>/model-explorer/<rel> as text (malloc) and parses it. */
static mlia_json *read_json(fixture *f, const char *rel, char **text_out)
{
    char path[512];
    snprintf(path, sizeof path, "%s/model-explorer/%s", mlia_outdir_tmp_root(&f->od), rel);
    char *text;
    size_t n;
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_file_slurp(path, &text, &n, &err)) {
        printf("%s\n", err.text);
        return NULL;
    }
    mlia_json *j = NULL;
    if (mlia_json_parse(text, n, NULL, &f->s.arena, &j, path, &err))
        printf("%s\n", err.text);
    if (text_out)
        *text_out = text;
    else
        free(text);
    return j;
}

static bool file_exists(fixture *f, const char *rel)
{
    char path[512];
    snprintf(path, sizeof path, "%s/model-explorer/%s", mlia_outdir_tmp_root(&f->od), rel);
    return access(path, F_OK) == 0;
}

static const mlia_json *at(const mlia_json *arr, size_t i)
{
    return arr && arr->type == MLIA_JSON_ARRAY && i < arr->u.array.n ? arr->u.array.items[i] : NULL;
}

static size_t count(const mlia_json *arr)
{
    return arr && arr->type == MLIA_JSON_ARRAY ? arr->u.array.n : 0;
}

static const mlia_json *find_node(const mlia_json *graph, const char *id)
{
    const mlia_json *nodes = mlia_json_get(graph, "nodes");
    for (size_t i = 0; i < count(nodes); i++) {
        const char *nid = mlia_json_get_str(at(nodes, i), "id");
        if (nid && strcmp(nid, id) == 0)
            return at(nodes, i);
    }
    return NULL;
}

/* Every node has the required fields, ids are unique, every edge source exists. */
static int check_collection(const mlia_json *col, const char *label)
{
    const char *l = mlia_json_get_str(col, "label");
    if (!l || strcmp(l, label) != 0)
        return -1;
    const mlia_json *graphs = mlia_json_get(col, "graphs");
    if (!count(graphs))
        return -2;
    for (size_t g = 0; g < count(graphs); g++) {
        const mlia_json *gr = at(graphs, g);
        if (!mlia_json_get_str(gr, "id"))
            return -3;
        const mlia_json *nodes = mlia_json_get(gr, "nodes");
        for (size_t i = 0; i < count(nodes); i++) {
            const mlia_json *n = at(nodes, i);
            static const char *const keys[] = {"id", "label", "namespace", "attrs", "incomingEdges", "subgraphIds",
                                               "inputsMetadata", "outputsMetadata", "style"};
            for (size_t k = 0; k < sizeof keys / sizeof *keys; k++)
                if (!mlia_json_get(n, keys[k]))
                    return -4;
            const char *id = mlia_json_get_str(n, "id");
            for (size_t j = 0; j < i; j++)
                if (strcmp(mlia_json_get_str(at(nodes, j), "id"), id) == 0)
                    return -5;
            const mlia_json *edges = mlia_json_get(n, "incomingEdges");
            for (size_t e = 0; e < count(edges); e++)
                if (!find_node(gr, mlia_json_get_str(at(edges, e), "sourceNodeId")))
                    return -6;
        }
    }
    return 0;
}

static const char *result_color(const mlia_json *nd, const char *graph, const char *node)
{
    const mlia_json *r = mlia_json_get(mlia_json_get(mlia_json_get(nd, graph), "results"), node);
    return mlia_json_get_str(r, "bgColor");
}

TEST(writes_every_available_view_with_model_explorer_fields)
{
    fixture f;
    CHECK(setup(&f, PROGRAM, true) == 0);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err) == 0);
    static const char *const ids[4] = {"source_model", "segment_cascade_chain", "etrecord_chain_mapping",
                                       "etdump_backend_trace"};
    static const char *const labels[4] = {"Source Model", "segment_cascade_chain", "ETRecord Chain Mapping",
                                          "ETDump Backend Trace"};
    for (int i = 0; i < 4; i++) {
        char rel[128];
        snprintf(rel, sizeof rel, "models/%s.json", ids[i]);
        mlia_json *col = read_json(&f, rel, NULL);
        CHECK(col);
        CHECK_INT(check_collection(col, labels[i]), 0);
    }
    CHECK(!file_exists(&f, "models/pte_vgf_backend_hierarchy.json"));
    mlia_json *m = read_json(&f, "manifest.json", NULL);
    CHECK(m);
    CHECK_INT(mlia_json_get(m, "version")->type, MLIA_JSON_NUMBER);
    CHECK(strcmp(mlia_json_get_str(m, "initial_view"), "etrecord_chain_mapping") == 0);
    const mlia_json *pte = at(mlia_json_get(m, "views"), 4);
    CHECK(strcmp(mlia_json_get_str(pte, "reason"), "No companion PTE was given.") == 0);
    CHECK(mlia_json_get(pte, "available")->type == MLIA_JSON_BOOL && !mlia_json_get(pte, "available")->u.boolean);

    /* source model: namespaces from nn_module paths, tensor-flow edges */
    mlia_json *src = read_json(&f, "models/source_model.json", NULL);
    const mlia_json *g = at(mlia_json_get(src, "graphs"), 0);
    CHECK(strcmp(mlia_json_get_str(g, "id"), "forward") == 0);
    CHECK_INT(count(mlia_json_get(g, "nodes")), 5); /* 2 inputs, 2 nodes, 1 output */
    const mlia_json *conv = find_node(g, "source_operator/forward/" HOSTILE);
    CHECK(conv);
    CHECK(strcmp(mlia_json_get_str(conv, "namespace"), "features/conv1") == 0);
    CHECK(strcmp(mlia_json_get_str(conv, "label"), "aten.convolution.default") == 0);
    const mlia_json *ce = mlia_json_get(conv, "incomingEdges");
    CHECK_INT(count(ce), 2);
    CHECK(strcmp(mlia_json_get_str(at(ce, 0), "sourceNodeId"), "input/x") == 0);
    CHECK(strcmp(mlia_json_get_str(at(ce, 1), "sourceNodeId"), "input/w") == 0);
    CHECK(strcmp(mlia_json_get_str(at(ce, 1), "targetNodeInputId"), "1") == 0);
    const mlia_json *relu = find_node(g, "source_operator/forward/relu");
    CHECK(strcmp(mlia_json_get_str(relu, "namespace"), "features") == 0);
    CHECK(strcmp(mlia_json_get_str(at(mlia_json_get(relu, "incomingEdges"), 0), "sourceNodeId"),
                 "source_operator/forward/" HOSTILE) == 0);
    const mlia_json *out = find_node(g, "output/relu");
    CHECK(out);
    CHECK(strcmp(mlia_json_get_str(at(mlia_json_get(out, "incomingEdges"), 0), "sourceNodeId"),
                 "source_operator/forward/relu") == 0);
    const mlia_json *x = find_node(g, "input/x");
    const mlia_json *xm = at(mlia_json_get(at(mlia_json_get(x, "outputsMetadata"), 0), "attrs"), 0);
    CHECK(strcmp(mlia_json_get_str(xm, "value"), "float32[1,3]") == 0);
    teardown(&f);
}

/* The view files are written on the second core beside the page and the
 * other documents (core/side_job.h): when every write fails, the error is
 * still the first file of the sequential order, the first view's graph. */
TEST(failing_writes_report_the_first_file_in_order)
{
    fixture f;
    CHECK(setup(&f, PROGRAM, true) == 0);
    mlia_error err;
    mlia_error_clear(&err);
    setenv("MLIA_TEST_HOOK", "enospc", 1);
    int rc = views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err);
    unsetenv("MLIA_TEST_HOOK");
    CHECK_INT(rc, -1);
    char want[512];
    snprintf(want, sizeof want, "%s/model-explorer/models/source_model.json: write failed: No space left on device",
             f.od.final_path);
    CHECK_STR(err.text, want);
    /* a second call finds those files there: opening fails before any
     * thread starts, naming the first one, and what it opened is closed */
    mlia_error_clear(&err);
    CHECK_INT(views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err), -1); /* files exist already */
    CHECK(strstr(err.text, "models/source_model.json: cannot write: File exists") != NULL);
    teardown(&f);
}

TEST(nx_views_namespaces_and_group_measurements)
{
    fixture f;
    CHECK(setup(&f, PROGRAM, true) == 0);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err) == 0);
    mlia_json *chains = read_json(&f, "models/segment_cascade_chain.json", NULL);
    const mlia_json *g = at(mlia_json_get(chains, "graphs"), 0);
    /* a chain with stripe nodes sits in its own group, pinned to its top */
    const mlia_json *c30 = find_node(g, "chain/segment_0/30");
    CHECK(strcmp(mlia_json_get_str(c30, "namespace"), "segment_0/cascade_40/chain_30") == 0);
    CHECK(mlia_json_get(mlia_json_get(c30, "config"), "pinToGroupTop")->u.boolean);
    /* segment and cascade measurements: on summary nodes inside their groups */
    const mlia_json *seg0 = find_node(g, "segment/0");
    CHECK(seg0 && strcmp(mlia_json_get_str(seg0, "namespace"), "segment_0") == 0);
    CHECK(mlia_json_get(mlia_json_get(seg0, "config"), "pinToGroupTop"));
    const mlia_json *cas40 = find_node(g, "cascade/segment_0/40");
    CHECK(cas40 && strcmp(mlia_json_get_str(cas40, "namespace"), "segment_0/cascade_40") == 0);
    mlia_json *cnd = read_json(&f, "node-data/segment_cascade_chain/cascade_total_cycles.json", NULL);
    const mlia_json *cres = mlia_json_get(mlia_json_get(cnd, "nx_hierarchy"), "results");
    CHECK(mlia_json_get(cres, "cascade/segment_0/40"));
    CHECK(!mlia_json_get(cres, "segment_0/cascade_40"));
    CHECK(strcmp(mlia_json_get_str(mlia_json_get(cnd, "nx_hierarchy"), "name"),
                 "Cascade total_cycles P50 (cycles) - segment_cascade_chain") == 0);
    const mlia_json *c31 = find_node(g, "chain/segment_0/31");
    CHECK(strcmp(mlia_json_get_str(at(mlia_json_get(c31, "incomingEdges"), 0), "sourceNodeId"),
                 "chain/segment_0/30") == 0);
    const mlia_json *s1 = find_node(g, "stripe/segment_0/1");
    CHECK(strcmp(mlia_json_get_str(s1, "namespace"), "segment_0/cascade_40/chain_30") == 0);
    CHECK(strcmp(mlia_json_get_str(at(mlia_json_get(s1, "incomingEdges"), 0), "sourceNodeId"),
                 "stripe/segment_0/0") == 0);
    CHECK(find_node(g, "chain/segment_0/32"));

    /* backend trace: ops grouped by chain path, unmatched stays visible */
    mlia_json *trace = read_json(&f, "models/etdump_backend_trace.json", NULL);
    const mlia_json *tg = at(mlia_json_get(trace, "graphs"), 0);
    CHECK(strcmp(mlia_json_get_str(tg, "id"), "compiler_operations") == 0);
    CHECK_INT(count(mlia_json_get(trace, "graphs")), 1); /* no runtime analysis: no event graph */
    const mlia_json *op10 = find_node(tg, "compiler_operation/segment_0/tosa-10");
    CHECK(strcmp(mlia_json_get_str(op10, "namespace"), "segment_0/cascade_40/chain_30") == 0);
    const mlia_json *op12 = find_node(tg, "compiler_operation/segment_0/tosa-12");
    CHECK(strcmp(mlia_json_get_str(op12, "namespace"), "unmatched") == 0);
    const mlia_json *attrs = mlia_json_get(op12, "attrs");
    bool no_assoc = false;
    for (size_t i = 0; i < count(attrs); i++)
        if (strcmp(mlia_json_get_str(at(attrs, i), "value"), "no association recorded") == 0)
            no_assoc = true;
    CHECK(no_assoc);
    /* unmatched operations are styled */
    CHECK(strcmp(mlia_json_get_str(mlia_json_get(op12, "style"), "borderColor"), "#c62828") == 0);
    CHECK(mlia_json_get(op10, "style")->type == MLIA_JSON_NULL);
    /* group measurement: on the chain's summary node, never on member nodes */
    const mlia_json *sum30 = find_node(tg, "chain/segment_0/30");
    CHECK(sum30 && strcmp(mlia_json_get_str(sum30, "namespace"), "segment_0/cascade_40/chain_30") == 0);
    CHECK(mlia_json_get(mlia_json_get(sum30, "config"), "pinToGroupTop"));
    mlia_json *nd = read_json(&f, "node-data/etdump_backend_trace/chain_group_total_cycles.json", NULL);
    const mlia_json *res = mlia_json_get(mlia_json_get(nd, "compiler_operations"), "results");
    CHECK(res && res->type == MLIA_JSON_OBJECT);
    CHECK_INT(res->u.object.n, 2);
    CHECK(mlia_json_get(res, "chain/segment_0/30"));
    CHECK(!mlia_json_get(res, "segment_0/cascade_40/chain_30"));
    CHECK(!mlia_json_get(res, "compiler_operation/segment_0/tosa-10"));
    /* graph-level summary */
    CHECK(strcmp(mlia_json_get_str(mlia_json_get(mlia_json_get(tg, "groupNodeAttributes"), ""), "view"),
                 "ETDump Backend Trace") == 0);
    const mlia_json *ga = mlia_json_get(mlia_json_get(tg, "groupNodeAttributes"), "segment_0/cascade_40/chain_30");
    CHECK(strcmp(mlia_json_get_str(ga, "total_cycles_p50 (group measurement)"), "300") == 0);

    /* chain mapping: bipartite chain -> source operator edges */
    mlia_json *map = read_json(&f, "models/etrecord_chain_mapping.json", NULL);
    const mlia_json *mg = at(mlia_json_get(map, "graphs"), 0);
    const mlia_json *rs = find_node(mg, "source_operator/forward/relu");
    CHECK(strcmp(mlia_json_get_str(rs, "namespace"), "source") == 0);
    CHECK(strcmp(mlia_json_get_str(at(mlia_json_get(rs, "incomingEdges"), 0), "sourceNodeId"),
                 "chain/segment_0/31") == 0);
    CHECK(strcmp(mlia_json_get_str(find_node(mg, "chain/segment_0/30"), "namespace"), "segment_0") == 0);
    teardown(&f);
}

TEST(colours_follow_one_scale_per_kind_across_views)
{
    fixture f;
    CHECK(setup(&f, PROGRAM, true) == 0);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err) == 0);
    mlia_json *a = read_json(&f, "node-data/segment_cascade_chain/chain_total_cycles.json", NULL);
    mlia_json *b = read_json(&f, "node-data/etrecord_chain_mapping/chain_total_cycles.json", NULL);
    mlia_json *c = read_json(&f, "node-data/etdump_backend_trace/chain_group_total_cycles.json", NULL);
    /* chains 300 (max), 200, 100 (min): scale 100..300 */
    const char *hi = result_color(a, "nx_hierarchy", "chain/segment_0/30");
    CHECK(strcmp(hi, "#800026") == 0);
    CHECK(strcmp(result_color(a, "nx_hierarchy", "chain/segment_0/32"), "#ffffcc") == 0);
    CHECK(strcmp(result_color(a, "nx_hierarchy", "chain/segment_0/31"), "#fd8d3c") == 0);
    CHECK(strcmp(result_color(b, "chain_mapping", "chain/segment_0/30"), hi) == 0);
    CHECK(strcmp(result_color(c, "compiler_operations", "chain/segment_0/30"), hi) == 0);
    const mlia_json *r = mlia_json_get(mlia_json_get(mlia_json_get(a, "nx_hierarchy"), "results"),
                                       "chain/segment_0/30");
    CHECK(strcmp(mlia_json_get_str(r, "textColor"), "#ffffff") == 0);
    /* the mapping view shows only two chains (100 absent there) but shares the kind-wide scale */
    mlia_json *m = read_json(&f, "manifest.json", NULL);
    const mlia_json *ov = at(mlia_json_get(at(mlia_json_get(m, "views"), 2), "overlays"), 0);
    const mlia_json *scale = mlia_json_get(ov, "scale");
    CHECK(strcmp(mlia_json_dump(mlia_json_get(scale, "min"), &f.s.arena, NULL), "100.0") == 0);
    CHECK(strcmp(mlia_json_dump(mlia_json_get(scale, "max"), &f.s.arena, NULL), "300.0") == 0);
    teardown(&f);
}

TEST(page_escapes_hostile_names_and_sync_references_nodes)
{
    fixture f;
    CHECK(setup(&f, PROGRAM, true) == 0);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err) == 0);
    char path[512];
    snprintf(path, sizeof path, "%s/model-explorer/bundle/index.html", mlia_outdir_tmp_root(&f.od));
    char *html;
    size_t n;
    CHECK(mlia_file_slurp(path, &html, &n, &err) == 0);
    CHECK(!strstr(html, HOSTILE));
    CHECK(!strstr(html, "<img"));
    CHECK(!strstr(html, "<b>x.py"));
    CHECK(!strstr(html, "@@MLIA_DATA@@"));
    CHECK(strstr(html, "\\u003c/script\\u003e\\u003cimg src=x onerror=alert(1)\\u003e"));
    const char *start = strstr(html, "id=\"mlia-data\">");
    CHECK(start);
    start += strlen("id=\"mlia-data\">");
    const char *end = strstr(start, "</script>");
    CHECK(end);
    mlia_json *d = NULL;
    CHECK(mlia_json_parse(start, (size_t)(end - start), NULL, &f.s.arena, &d, "page", &err) == 0);
    free(html);
    CHECK(strcmp(mlia_json_get_str(d, "schema"), "mlia.page/1") == 0);
    const mlia_json *ent = mlia_json_get(mlia_json_get(d, "entities"), "source_operator/forward/" HOSTILE);
    CHECK(ent);
    CHECK(strcmp(mlia_json_get_str(ent, "stack_trace"), "File <b>x.py</b>, line 3") == 0);
    CHECK(strcmp(mlia_json_get_str(ent, "kind"), "source_operator") == 0);
    /* overlay values keyed <graph>/<node> */
    const mlia_json *views = mlia_json_get(d, "views");
    const mlia_json *ov0 = at(mlia_json_get(at(views, 0), "overlays"), 0);
    const mlia_json *val = mlia_json_get(mlia_json_get(ov0, "values"), "forward/source_operator/forward/relu");
    CHECK(val);
    CHECK(strcmp(mlia_json_get_str(val, "text"), "0.5000 ms (exclusive)") == 0);

    /* view-links.json: graph-qualified, every reference resolves, other views only */
    mlia_json *links = read_json(&f, "view-links.json", NULL);
    CHECK(strcmp(mlia_json_get_str(links, "schema"), "mlia.view-links/1") == 0);
    const mlia_json *ll = mlia_json_get(links, "links");
    CHECK(count(ll) > 0);
    for (size_t i = 0; i < count(ll); i++) {
        const mlia_json *from = mlia_json_get(at(ll, i), "from");
        const mlia_json *to = mlia_json_get(at(ll, i), "to");
        CHECK(count(to) > 0);
        for (size_t k = 0; k < count(to); k++)
            CHECK(strcmp(mlia_json_get_str(from, "view"), mlia_json_get_str(at(to, k), "view")) != 0);
    }
    /* Model Explorer sync files: one per related pair, listed in the manifest,
     * plain node ids of the named views, each left id in one entry */
    mlia_json *man = read_json(&f, "manifest.json", NULL);
    const mlia_json *pairs = mlia_json_get(man, "sync_navigation");
    CHECK(count(pairs) > 0);
    bool chain_to_source = false;
    for (size_t i = 0; i < count(pairs); i++) {
        const mlia_json *p = at(pairs, i);
        const char *lv = mlia_json_get_str(p, "left_view"), *rv = mlia_json_get_str(p, "right_view");
        char want[256];
        snprintf(want, sizeof want, "sync/%s--%s.json", lv, rv);
        CHECK(strcmp(mlia_json_get_str(p, "file"), want) == 0);
        mlia_json *sf = read_json(&f, want, NULL);
        CHECK(sf);
        const mlia_json *entries = mlia_json_get(sf, "mappingEntries");
        CHECK(count(entries) > 0);
        char rel[2][256];
        snprintf(rel[0], sizeof rel[0], "models/%s.json", lv);
        snprintf(rel[1], sizeof rel[1], "models/%s.json", rv);
        mlia_json *cols[2] = {read_json(&f, rel[0], NULL), read_json(&f, rel[1], NULL)};
        CHECK(cols[0] && cols[1]);
        for (size_t e = 0; e < count(entries); e++) {
            const char *sides[2] = {"leftNodeIds", "rightNodeIds"};
            for (int sd = 0; sd < 2; sd++) {
                const mlia_json *ids = mlia_json_get(at(entries, e), sides[sd]);
                CHECK(count(ids) > 0);
                for (size_t k = 0; k < count(ids); k++) {
                    const char *id = at(ids, k)->u.string.s;
                    const mlia_json *gs = mlia_json_get(cols[sd], "graphs");
                    bool found = false;
                    for (size_t q = 0; q < count(gs) && !found; q++)
                        found = find_node(at(gs, q), id) != NULL;
                    CHECK(found);
                    if (sd == 0)
                        for (size_t e2 = e + 1; e2 < count(entries); e2++) {
                            const mlia_json *ids2 = mlia_json_get(at(entries, e2), "leftNodeIds");
                            for (size_t k2 = 0; k2 < count(ids2); k2++)
                                CHECK(strcmp(at(ids2, k2)->u.string.s, id) != 0);
                        }
                }
            }
            if (strcmp(lv, "source_model") == 0 && strcmp(rv, "etrecord_chain_mapping") == 0) {
                const mlia_json *l = mlia_json_get(at(entries, e), "leftNodeIds");
                const mlia_json *r = mlia_json_get(at(entries, e), "rightNodeIds");
                for (size_t k = 0; k < count(l); k++)
                    if (strcmp(at(l, k)->u.string.s, "source_operator/forward/relu") == 0)
                        for (size_t q = 0; q < count(r); q++)
                            if (strcmp(at(r, q)->u.string.s, "chain/segment_0/31") == 0)
                                chain_to_source = true;
            }
        }
    }
    CHECK(chain_to_source);
    mlia_json *enm = read_json(&f, "entity-node-mappings.json", NULL);
    CHECK(enm && enm->type == MLIA_JSON_OBJECT);
    for (size_t i = 1; i < enm->u.object.n; i++)
        CHECK(strcmp(enm->u.object.members[i - 1].key, enm->u.object.members[i].key) < 0);
    /* chains view, mapping view and the summary node of its group in the trace */
    CHECK_INT(count(mlia_json_get(enm, "chain/segment_0/30")), 3);
    teardown(&f);
}

TEST(without_nx_views_are_unavailable_with_reasons)
{
    fixture f;
    CHECK(setup(&f, PROGRAM, false) == 0);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err) == 0);
    mlia_json *m = read_json(&f, "manifest.json", NULL);
    const mlia_json *views = mlia_json_get(m, "views");
    CHECK(strcmp(mlia_json_get_str(m, "initial_view"), "source_model") == 0);
    CHECK(strcmp(mlia_json_get_str(at(views, 1), "reason"), "No VGF neural statistics in the ETDump.") == 0);
    CHECK(strcmp(mlia_json_get_str(at(views, 2), "reason"), "No VGF neural statistics in the ETDump.") == 0);
    CHECK(strcmp(mlia_json_get_str(at(views, 3), "reason"),
                 "No compiler operations (VGF neural statistics) and no delegate runtime events in the "
                 "ETDump.") == 0);
    CHECK(!file_exists(&f, "models/segment_cascade_chain.json"));
    CHECK(file_exists(&f, "models/source_model.json"));
    CHECK(file_exists(&f, "bundle/index.html"));
    teardown(&f);
}

TEST(five_thousand_node_graph_written_whole)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "{'graph_module': {'graph': {'inputs': [{'as_tensor': {'name': 'x'}}], "
                      "'outputs': [{'as_tensor': {'name': 'n4999'}}], 'nodes': [");
    for (int i = 0; i < 5000; i++)
        mlia_buf_printf(&b,
                        "%s{'name': 'n%d', 'target': 'executorch.exir.dialects.edge.ops.aten.relu.default', "
                        "'inputs': [{'name': 'self', 'arg': {'as_tensor': {'name': '%s%d'}}}], 'outputs': "
                        "[{'as_tensor': {'name': 'n%d'}}], 'metadata': {'debug_handle': '%d', "
                        "'nn_module_stack': 'L__self__,,M;L__self___b%d,blocks.%d,B'}}",
                        i ? ", " : "", i, i ? "n" : "x", i ? i - 1 : 0, i, i + 1, i / 100, i / 100);
    mlia_buf_puts(&b, "], 'tensor_values': {}, 'sym_int_values': {}, 'sym_bool_values': {}, "
                      "'is_single_tensor_return': true, 'custom_obj_values': {}}, 'signature': "
                      "{'input_specs': [], 'output_specs': []}, 'module_call_graph': []}, "
                      "'opset_version': {}, 'range_constraints': {}, 'schema_version': {'major': 5, 'minor': 4}, "
                      "'dialect': '', 'verifiers': ['EDGE']}");
    fixture f;
    int rc = setup(&f, b.data, false);
    mlia_buf_free(&b);
    CHECK(rc == 0);
    mlia_error err;
    mlia_error_clear(&err);
    /* Speed is measured by make bench (wide graphs), never asserted here: the machines
     * running the suite are shared and noisy. This test checks the 5,000-node graph is
     * written whole and linked. */
    CHECK(views_write(mlia_session_record(&f.s), &f.od, NULL, NULL, &err) == 0);
    mlia_json *src = read_json(&f, "models/source_model.json", NULL);
    const mlia_json *g = at(mlia_json_get(src, "graphs"), 0);
    CHECK_INT(count(mlia_json_get(g, "nodes")), 5002);
    const mlia_json *last = find_node(g, "source_operator/forward/n4999");
    CHECK(strcmp(mlia_json_get_str(last, "namespace"), "blocks/49") == 0);
    CHECK(strcmp(mlia_json_get_str(at(mlia_json_get(last, "incomingEdges"), 0), "sourceNodeId"),
                 "source_operator/forward/n4998") == 0);
    teardown(&f);
}

int main(void)
{
    RUN(writes_every_available_view_with_model_explorer_fields);
    RUN(nx_views_namespaces_and_group_measurements);
    RUN(colours_follow_one_scale_per_kind_across_views);
    RUN(failing_writes_report_the_first_file_in_order);
    RUN(page_escapes_hostile_names_and_sync_references_nodes);
    RUN(without_nx_views_are_unavailable_with_reasons);
    RUN(five_thousand_node_graph_written_whole);
    return test_summary();
}
