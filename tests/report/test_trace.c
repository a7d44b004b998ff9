/*
 * test_trace.c - the trace writer on a hand-built trace_source: exact
 * microsecond text, wrapper-first ordering (also on equal intervals, where
 * the later-written event is the wrapper), counters at the execution's first
 * and last tick, metadata and the page's compact form; the Perfetto writer's
 * extra track for overlapping events and its delta timestamps.
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

/* trace.json of src parsed into a (*doc; its text in *text, freed by the
 * caller): its traceEvents array, or NULL when writing or parsing failed. */
static mlia_json *chrome_events(const trace_source *src, mlia_arena *a, char **text, mlia_json **doc)
{
    size_t len = 0;
    FILE *fp = open_memstream(text, &len);
    mlia_error err;
    mlia_error_clear(&err);
    int rc = trace_write_chrome(src, fp, "trace.json", &err);
    fclose(fp);
    *doc = rc == 0 ? parse(a, *text, len) : NULL;
    mlia_json *evs = *doc ? mlia_json_get(*doc, "traceEvents") : NULL;
    return evs && evs->type == MLIA_JSON_ARRAY ? evs : NULL;
}

TEST(chrome_order_counters_metadata)
{
    trace_source src = fake_source();
    char *text = NULL;
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_json *doc, *evs = chrome_events(&src, &a, &text, &doc);
    CHECK(evs);
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

/* 300 disjoint events of 5 ticks: execution 0 emits them in reverse order
 * (the writer's insertion sort gives up and sorts them otherwise),
 * execution 1 in pairs written second-first (ExecuTorch's children-first
 * order: one move per pair). */
static void shuffled_events(const void *ctx, uint32_t exec, trace_emit_fn emit, void *ectx)
{
    (void)ctx;
    trace_event e;
    memset(&e, 0, sizeof e);
    e.chain = e.instruction = -1;
    e.category = "other";
    e.name = e.etdump_name = "ev";
    for (uint32_t k = 0; k < 300; k++) {
        uint32_t at = exec == 0 ? 299 - k : (k ^ 1);
        e.start = 10 * (uint64_t)at;
        e.end = e.start + 5;
        e.index = k;
        emit(ectx, &e);
    }
}

TEST(chrome_order_any_emission_order)
{
    trace_source src = fake_source();
    src.events = shuffled_events;
    src.n_counters = 0;
    char *text = NULL;
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_json *doc, *evs = chrome_events(&src, &a, &text, &doc);
    CHECK(evs);
    int64_t next[3] = {0, 0, 0}; /* expected start (ns) per tid */
    uint32_t n = 0;
    for (size_t i = 0; evs && i < evs->u.array.n; i++) {
        mlia_json *e = evs->u.array.items[i];
        if (strcmp(mlia_json_get_str(e, "ph"), "X") != 0)
            continue;
        int64_t tid = mlia_json_get(e, "tid")->u.number.i;
        CHECK(tid == 1 || tid == 2);
        if (tid != 1 && tid != 2)
            break;
        /* ts in microseconds with 3 decimals: ns = ts * 1000 */
        int64_t ns = (int64_t)(strtod(mlia_json_get(e, "ts")->u.number.text, NULL) * 1000 + 0.5);
        CHECK_INT(ns, next[tid]);
        next[tid] += 10;
        n++;
    }
    CHECK_UINT(n, 600);
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

/* ---- trace.pftrace: a minimal protobuf reader for the checks below ---- */

typedef struct pbr {
    const uint8_t *p, *end;
} pbr;

static uint64_t pbr_varint(pbr *r)
{
    uint64_t v = 0;
    for (int sh = 0; r->p < r->end && sh < 64; sh += 7) {
        uint8_t b = *r->p++;
        v |= (uint64_t)(b & 0x7F) << sh;
        if (!(b & 0x80))
            break;
    }
    return v;
}

/* Next field of r: its number, and either its varint value or its bytes. */
static bool pbr_next(pbr *r, uint32_t *field, uint64_t *value, pbr *sub)
{
    if (r->p >= r->end)
        return false;
    uint64_t tag = pbr_varint(r);
    *field = (uint32_t)(tag >> 3);
    if ((tag & 7) == 0) {
        *value = pbr_varint(r);
    } else {
        if ((tag & 7) != 2) /* the writer uses varints and bytes only */
            return false;
        uint64_t n = pbr_varint(r);
        sub->p = r->p;
        sub->end = r->p + n;
        r->p += n;
    }
    return true;
}

/* An event that starts inside another but ends after it goes to an extra
 * track of its execution; the events nested under it stay on the
 * execution's track; timestamps are deltas on the sequence clock. */
static void overlap_events(const void *ctx, uint32_t exec, trace_emit_fn emit, void *ectx)
{
    (void)ctx;
    (void)exec;
    trace_event e;
    memset(&e, 0, sizeof e);
    e.chain = e.instruction = -1;
    e.category = "other";
    e.start = 150, e.end = 250, e.index = 1, e.name = e.etdump_name = "B";
    emit(ectx, &e);
    e.start = 100, e.end = 200, e.index = 0, e.name = e.etdump_name = "A";
    e.n_entities = 1, e.entities = ENT_A, e.n_handles = 1, e.handles = HANDLES;
    emit(ectx, &e);
    e.n_entities = 0, e.n_handles = 0;
    e.start = 160, e.end = 170, e.index = 2, e.name = e.etdump_name = "C";
    emit(ectx, &e);
}

TEST(perfetto_overlap_lane_and_times)
{
    trace_source src = fake_source();
    src.n_executions = 1;
    src.events = overlap_events;
    src.n_counters = 0;
    char *data = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&data, &len);
    mlia_error err;
    mlia_error_clear(&err);
    CHECK(trace_write_perfetto(&src, fp, "trace.pftrace", &err) == 0);
    fclose(fp);
    /* (type, explicit track or 0, time) of every track event, in file order */
    uint64_t got[8][3];
    int n = 0;
    uint64_t clock = 0, lane = 0, exec_track = 0, dflt = 0;
    bool entity_seen = false;
    pbr top = {(const uint8_t *)data, (const uint8_t *)data + len}, pk;
    uint32_t f;
    uint64_t v;
    while (pbr_next(&top, &f, &v, &pk)) {
        CHECK_INT(f, 1);
        uint32_t pf;
        uint64_t pv, ts = 0;
        pbr sub, te = {0};
        while (pbr_next(&pk, &pf, &pv, &sub)) {
            if (pf == 8)
                ts = pv;
            else if (pf == 11)
                te = sub;
            else if (pf == 59) { /* defaults: clock 64 and the execution's track */
                uint32_t df;
                uint64_t dv;
                pbr ds;
                while (pbr_next(&sub, &df, &dv, &ds))
                    if (df == 11) {
                        pbr tr;
                        CHECK(pbr_next(&ds, &df, &dflt, &tr) && df == 11);
                    } else {
                        CHECK(df == 58 && dv == 64);
                    }
            } else if (pf == 60) { /* track descriptors: the thread and the lane */
                uint32_t tf;
                uint64_t tv, uuid = 0;
                pbr ts2;
                bool is_lane = false, is_thread = false;
                while (pbr_next(&sub, &tf, &tv, &ts2)) {
                    if (tf == 1)
                        uuid = tv;
                    static const char lane_name[] = "execution 1 (event block 1), overlapping events 1";
                    if (tf == 2)
                        is_lane = (size_t)(ts2.end - ts2.p) == strlen(lane_name) &&
                                  memcmp(ts2.p, lane_name, strlen(lane_name)) == 0;
                    if (tf == 4)
                        is_thread = true;
                }
                if (is_lane)
                    lane = uuid;
                if (is_thread)
                    exec_track = uuid;
            } else if (pf == 12 && sub.end - sub.p > 0) {
                const char *want = "source_operator/forward/a";
                for (const uint8_t *q = sub.p; q + strlen(want) <= sub.end; q++)
                    if (memcmp(q, want, strlen(want)) == 0)
                        entity_seen = true;
            }
        }
        if (!te.p)
            continue;
        clock += ts;
        uint32_t tf;
        uint64_t tv, type = 0, track = 0;
        pbr ts3;
        while (pbr_next(&te, &tf, &tv, &ts3)) {
            if (tf == 9)
                type = tv;
            if (tf == 11)
                track = tv;
        }
        if (n < 8) {
            got[n][0] = type;
            got[n][1] = track;
            got[n][2] = clock;
        }
        n++;
    }
    CHECK(lane != 0 && exec_track != 0 && lane != exec_track);
    CHECK(dflt == exec_track);
    CHECK(entity_seen);
    const uint64_t want[6][3] = {{1, 0, 100}, {1, lane, 150}, {1, 0, 160}, {2, 0, 170}, {2, 0, 200}, {2, lane, 250}};
    CHECK_INT(n, 6);
    for (int i = 0; i < 6 && i < n; i++)
        CHECK(got[i][0] == want[i][0] && got[i][1] == want[i][1] && got[i][2] == want[i][2]);
    free(data);
}

int main(void)
{
    RUN(format_us_exact);
    RUN(perfetto_overlap_lane_and_times);
    RUN(chrome_order_counters_metadata);
    RUN(chrome_order_any_emission_order);
    RUN(page_timeline_compact);
    return test_summary();
}
