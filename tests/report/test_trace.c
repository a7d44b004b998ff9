/*
 * test_trace.c - the trace writer on a hand-built trace_source: exact
 * microsecond text, wrapper-first ordering (also on equal intervals, where
 * the later-written event is the wrapper), counters at the execution's first
 * and last tick, metadata and the page's compact form.
 */
#include "report/trace/trace.h"

#include "core/json_read.h"
#include "test.h"

static const char *const ENT_A[] = {"source_operator/forward/a"};
static const int64_t HANDLES[] = {7};

/* execution 0: wrapper [100, 200] written last, a child with the same
 * interval written first, and a nested child [120, 130]; execution 1: one
 * event [1000, 1001]. Emitted out of order on purpose. */
static void fake_events(const void *ctx, uint32_t exec, trace_emit_fn emit, void *ectx)
{
    (void)ctx;
    trace_event e;
    memset(&e, 0, sizeof e);
    e.chain = 0;
    e.instruction = 3;
    e.category = "operator";
    if (exec == 0) {
        e.start = 120, e.end = 130, e.index = 1, e.name = e.etdump_name = "inner";
        emit(ectx, &e);
        e.start = 100, e.end = 200, e.index = 0, e.name = e.etdump_name = "child_same";
        emit(ectx, &e);
        e.start = 100, e.end = 200, e.index = 2, e.name = "outer", e.etdump_name = "OPERATOR_CALL";
        e.n_entities = 1, e.entities = ENT_A, e.n_handles = 1, e.handles = HANDLES;
        emit(ectx, &e);
        e.start = 300, e.end = 250, e.index = 3, e.name = e.etdump_name = "dropped"; /* end < start */
        emit(ectx, &e);
    } else {
        e.start = 1000, e.end = 1001, e.index = 0, e.name = e.etdump_name = "only";
        emit(ectx, &e);
    }
}

static const uint32_t RUNS[] = {1, 2};
static const uint32_t CEXEC[] = {1};
static const uint64_t CVAL[] = {4242};
static const trace_counter COUNTERS[] = {{"NX cycles (model)", "total_cycles", 1, CEXEC, CVAL}};
static const trace_input INPUTS[] = {{"etrecord", "m.etrecord", "ab", 10}, {"etdump", "r.etdump", "cd", 20}};

static trace_source fake_source(void)
{
    trace_source s;
    memset(&s, 0, sizeof s);
    s.tool = "mlia test";
    s.method = "forward";
    s.time_unit = "ns";
    s.us_decimals = 3;
    s.n_executions = 2;
    s.execution_runs = RUNS;
    s.events = fake_events;
    s.n_counters = 1;
    s.counters = COUNTERS;
    s.n_inputs = 2;
    s.inputs = INPUTS;
    return s;
}

TEST(format_us_exact)
{
    char b[32];
    trace_format_us(b, 0, 3);
    CHECK(strcmp(b, "0") == 0);
    trace_format_us(b, 1, 3);
    CHECK(strcmp(b, "0.001") == 0);
    trace_format_us(b, 1500, 3);
    CHECK(strcmp(b, "1.5") == 0);
    trace_format_us(b, 7000, 3);
    CHECK(strcmp(b, "7") == 0);
    trace_format_us(b, UINT64_MAX, 3);
    CHECK(strcmp(b, "18446744073709551.615") == 0);
    trace_format_us(b, 123, 0);
    CHECK(strcmp(b, "123") == 0);
}

static mlia_json *parse(mlia_arena *a, const char *text, size_t len)
{
    mlia_json *doc = NULL;
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_json_parse(text, len, NULL, a, &doc, "trace", &err))
        return NULL;
    return doc;
}

TEST(chrome_order_counters_metadata)
{
    trace_source src = fake_source();
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(trace_write_chrome(&src, fp, "trace.json", &err) == 0);
    fclose(fp);
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_json *doc = parse(&a, text, len);
    CHECK(doc);
    mlia_json *evs = mlia_json_get(doc, "traceEvents");
    CHECK(evs && evs->type == MLIA_JSON_ARRAY);
    const char *order[8];
    const char *ts[8];
    int nx = 0, nc = 0;
    const char *cts[4];
    const char *cval[4];
    for (size_t i = 0; i < evs->u.array.n; i++) {
        mlia_json *e = evs->u.array.items[i];
        const char *ph = mlia_json_get_str(e, "ph");
        if (strcmp(ph, "X") == 0 && nx < 8) {
            order[nx] = mlia_json_get_str(e, "name");
            ts[nx++] = mlia_json_get(e, "ts")->u.number.text;
        } else if (strcmp(ph, "C") == 0 && nc < 4) {
            cts[nc] = mlia_json_get(e, "ts")->u.number.text;
            cval[nc++] = mlia_json_get(mlia_json_get(e, "args"), "total_cycles")->u.number.text;
        }
    }
    CHECK_INT(nx, 4);
    CHECK(strcmp(order[0], "outer") == 0);
    CHECK(strcmp(order[1], "child_same") == 0);
    CHECK(strcmp(order[2], "inner") == 0);
    CHECK(strcmp(order[3], "only") == 0);
    CHECK(strcmp(ts[0], "0.1") == 0 && strcmp(ts[2], "0.12") == 0 && strcmp(ts[3], "1") == 0);
    CHECK_INT(nc, 2);
    CHECK(strcmp(cts[0], "1") == 0 && strcmp(cval[0], "4242") == 0);
    CHECK(strcmp(cts[1], "1.001") == 0 && strcmp(cval[1], "0") == 0);
    /* first X event carries entity and handle */
    mlia_json *first = NULL;
    for (size_t i = 0; i < evs->u.array.n && !first; i++)
        if (strcmp(mlia_json_get_str(evs->u.array.items[i], "ph"), "X") == 0)
            first = evs->u.array.items[i];
    mlia_json *args = mlia_json_get(first, "args");
    CHECK(strcmp(mlia_json_get_str(args, "entity_id"), "source_operator/forward/a") == 0);
    CHECK(mlia_json_get(args, "debug_handle")->u.number.i == 7);
    CHECK(mlia_json_get(args, "instruction")->u.number.i == 3);
    CHECK(strcmp(mlia_json_get_str(args, "etdump_name"), "OPERATOR_CALL") == 0);
    CHECK(strcmp(mlia_json_get_str(doc, "displayTimeUnit"), "ns") == 0);
    mlia_json *meta = mlia_json_get(doc, "metadata");
    mlia_json *inputs = mlia_json_get(meta, "inputs");
    CHECK(inputs && inputs->u.array.n == 2);
    CHECK(strcmp(mlia_json_get_str(inputs->u.array.items[1], "sha256"), "cd") == 0);
    mlia_arena_free(&a);
    free(text);
}

TEST(page_timeline_compact)
{
    trace_source src = fake_source();
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    trace_write_page_timeline(&src, &w);
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_json *doc = parse(&a, b.data, b.len);
    CHECK(doc);
    mlia_json *ex = mlia_json_get(doc, "executions");
    CHECK(ex && ex->u.array.n == 2);
    mlia_json *ev0 = mlia_json_get(ex->u.array.items[0], "events");
    CHECK(ev0->u.array.n == 9); /* three events x [delta start, duration, site] */
    CHECK(strcmp(mlia_json_get(ex->u.array.items[0], "start")->u.number.text, "0.1") == 0);
    CHECK(ev0->u.array.items[0]->u.number.i == 0 && ev0->u.array.items[1]->u.number.i == 100);
    CHECK(ev0->u.array.items[6]->u.number.i == 20 && ev0->u.array.items[7]->u.number.i == 10);
    mlia_json *sites = mlia_json_get(doc, "sites");
    CHECK(sites && sites->u.array.n == 4);
    mlia_json *c = mlia_json_get(doc, "counters");
    mlia_json *vals = mlia_json_get(c->u.array.items[0], "values");
    CHECK(vals->u.array.n == 2 && vals->u.array.items[0]->type == MLIA_JSON_NULL &&
          vals->u.array.items[1]->u.number.i == 4242);
    mlia_arena_free(&a);
    mlia_buf_free(&b);
}

int main(void)
{
    RUN(format_us_exact);
    RUN(chrome_order_counters_metadata);
    RUN(page_timeline_compact);
    return test_summary();
}
