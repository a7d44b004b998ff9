/*
 * test_nx_stats.c - VGF neural statistics payloads: base64, wrapper, framing,
 * statistics info, statistics memory, mode/device resolution
 * (docs/formats/nx-statistics.md §2-6 and worked examples 1-21 of §10).
 */
#include <stdarg.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"
#include "backends/vgf/formats/nx_stats.h"
#include "test.h"

static mlia_arena A;

/* ---- helpers ---- */

static uint8_t *words(size_t n)
{
    return mlia_arena_array(&A, n, 4);
}

static void put32(uint8_t *p, size_t word, uint32_t v)
{
    p[4 * word] = (uint8_t)v;
    p[4 * word + 1] = (uint8_t)(v >> 8);
    p[4 * word + 2] = (uint8_t)(v >> 16);
    p[4 * word + 3] = (uint8_t)(v >> 24);
}

static int b64_case(const char *in, const uint8_t *expect, size_t n, mlia_error *err)
{
    uint8_t *o;
    size_t len;
    mlia_error_clear(err);
    if (nx_base64_decode(in, strlen(in), &A, &o, &len, err) < 0)
        return -1;
    if (len != n || (n && memcmp(o, expect, n) != 0))
        return 1;
    return 0;
}

/* ---- base64 (example 1) ---- */

TEST(base64_valid)
{
    mlia_error e;
    CHECK_INT(b64_case("AQID", (const uint8_t *)"\x01\x02\x03", 3, &e), 0);
    CHECK_INT(b64_case("3q0=", (const uint8_t *)"\xde\xad", 2, &e), 0);
    CHECK_INT(b64_case("AQ==", (const uint8_t *)"\x01", 1, &e), 0);
    CHECK_INT(b64_case("AR==", (const uint8_t *)"\x01", 1, &e), 0);
    CHECK_INT(b64_case("", (const uint8_t *)"", 0, &e), 0);
    CHECK_INT(b64_case("aW5mbw==", (const uint8_t *)"info", 4, &e), 0);
}

TEST(base64_invalid)
{
    static const char *const bad[] = {"not-valid-base64!", "AQI", "AQ=", "A===", "AQ ID", "AQID\n",
                                      "=AQI", "AQID====", "AQ-_", "A=QI"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        mlia_error e;
        CHECK_INT(b64_case(bad[i], NULL, 0, &e), -1);
        CHECK_STR(e.text, "Malformed base64 data in VGF neural statistics blob");
    }
}

/* ---- wrapper ---- */

#define MODE1 "{\"executorch_index\":1,\"vulkan_value\":2,\"vulkan_name\":\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM\"}"
#define TARGET_G2 "{\"available\":true,\"device_name\":\"Mali-G2-Pro-NX MC1\",\"vendor_id\":5045,\"device_id\":7,\"driver_version\":11}"
#define LAYOUT_G2M1 "{\"available\":true,\"schema_id\":\"arm.mali-g2.neural-statistics.mode1\",\"schema_version\":1,\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":64,\"leading_block_count\":1,\"reason\":\"\"}"
#define SEG7 "{\"segment_id\":7,\"is_data_graph_pipeline\":true," \
    "\"debug_database\":{\"available\":true,\"is_text\":false,\"vulkan_result\":0,\"size\":3,\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"AQID\"}," \
    "\"statistics_info\":{\"available\":true,\"is_text\":true,\"vulkan_result\":0,\"size\":4,\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"aW5mbw==\"}," \
    "\"statistics_memory\":{\"available\":true,\"is_text\":false,\"vulkan_result\":0,\"size\":2,\"encoding\":\"base64\",\"reason\":\"\",\"data\":\"3q0=\"}}"

static char *payload(const char *version, const char *extra_v2, const char *segments)
{
    return mlia_arena_printf(&A,
                             "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":%s,"
                             "\"backend\":\"VgfBackend\",\"api\":\"VK_ARM_data_graph\",\"event_name\":\"VGF_NEURAL_STATISTICS\","
                             "\"api_available\":true,\"data_available\":true,\"available\":true,\"reason\":\"\"%s,"
                             "\"segments\":[%s]}",
                             version, extra_v2, segments);
}

static const char *v2_objects(void)
{
    return ",\"statistics_mode\":" MODE1 ",\"target\":" TARGET_G2 ",\"counter_layout\":" LAYOUT_G2M1;
}

static int parse(const char *json, bool scanner, nx_wrapper **w, mlia_error *e)
{
    int64_t seg;
    mlia_error_clear(e);
    return nx_wrapper_parse((const uint8_t *)json, strlen(json), scanner, &A, w, &seg, e);
}

static void payload_of(const nx_blob *b, const uint8_t **d, size_t *n)
{
    nx_blob_decode(b, &A, d, n);
}

TEST(wrapper_v2_example2)
{
    nx_wrapper *w;
    mlia_error e;
    CHECK_INT(parse(payload("2", v2_objects(), SEG7), false, &w, &e), 0);
    CHECK_INT(w->schema_version, 2);
    CHECK(w->available);
    CHECK_INT(w->n_segments, 1);
    CHECK_UINT(w->segments[0].segment_id, 7);
    CHECK(w->segments[0].is_graph);
    const uint8_t *d;
    size_t n;
    payload_of(&w->segments[0].blobs[NX_BLOB_DEBUG_DATABASE], &d, &n);
    CHECK_INT(n, 3);
    CHECK(memcmp(d, "\x01\x02\x03", 3) == 0);
    payload_of(&w->segments[0].blobs[NX_BLOB_STATISTICS_INFO], &d, &n);
    CHECK_INT(n, 4);
    CHECK(memcmp(d, "info", 4) == 0);
    CHECK(w->segments[0].blobs[NX_BLOB_STATISTICS_INFO].is_text);
    payload_of(&w->segments[0].blobs[NX_BLOB_STATISTICS_MEMORY], &d, &n);
    CHECK_INT(n, 2);
    CHECK(memcmp(d, "\xde\xad", 2) == 0);
    for (int k = 0; k < 3; k++)
        CHECK(!nx_blob_size_mismatch(&w->segments[0].blobs[k]));
    nx_mode_info mi;
    CHECK_INT(nx_resolve_mode(w, &mi, &e), 0);
    CHECK_INT(mi.mode, 1);
    CHECK_INT(mi.device, NX_DEVICE_G2);
    CHECK(!mi.mode_assumed && !mi.device_assumed);
    CHECK_STR(mi.device_name, "Mali-G2-Pro-NX MC1");
    CHECK(mi.has_layout);
    CHECK_INT(mi.leading_block_count, 1);
    /* the text info "info" fails at analysis time */
    uint32_t *ids, nid;
    mlia_error_clear(&e);
    CHECK_INT(nx_parse_statistics_info((const uint8_t *)"info", 4, true, &A, &ids, &nid, &e), -1);
    CHECK_STR(e.text, "Textual statistics info must contain only unsigned integer stripe IDs.");
}

TEST(wrapper_unavailable_example3)
{
    const char *seg = "{\"segment_id\":7,\"debug_database\":{\"available\":false,\"encoding\":\"base64\",\"reason\":\"x\",\"data\":\"\"},"
                      "\"statistics_info\":{\"available\":false,\"data\":\"\"},\"statistics_memory\":{\"available\":false,\"data\":\"!!\"}}";
    char *j = mlia_arena_printf(&A,
                                "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":2,\"data_available\":false,"
                                "\"available\":false,\"reason\":\"Statistics data unavailable\"%s,\"segments\":[%s]}",
                                v2_objects(), seg);
    nx_wrapper *w;
    mlia_error e;
    CHECK_INT(parse(j, true, &w, &e), 0);
    CHECK(!w->available);
    CHECK_STR(w->reason, "Statistics data unavailable");
    for (int k = 0; k < 3; k++) {
        const uint8_t *d;
        size_t n;
        CHECK(!w->segments[0].blobs[k].available);
        payload_of(&w->segments[0].blobs[k], &d, &n);
        CHECK_INT(n, 0);
    }
}

TEST(wrapper_v1_example4)
{
    nx_wrapper *w;
    mlia_error e;
    CHECK_INT(parse(payload("1", "", SEG7), true, &w, &e), 0);
    CHECK_INT(w->schema_version, 1);
    nx_mode_info mi;
    CHECK_INT(nx_resolve_mode(w, &mi, &e), 0);
    CHECK_INT(mi.mode, 1);
    CHECK_INT(mi.device, NX_DEVICE_G2);
    CHECK(mi.mode_assumed && mi.device_assumed);
}

TEST(wrapper_missing_v2_objects_example5)
{
    nx_wrapper *w;
    mlia_error e;
    CHECK_INT(parse(payload("2", ",\"statistics_mode\":" MODE1 ",\"target\":" TARGET_G2, SEG7), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata is missing counter_layout");
    CHECK_INT(parse(payload("2", ",\"statistics_mode\":" MODE1 ",\"target\":{\"available\":true,\"device_name\":\"x\","
                                 "\"driver_version\":1},\"counter_layout\":" LAYOUT_G2M1,
                            SEG7),
                    true, &w, &e),
              -1);
    CHECK_STR(e.text, "VGF neural statistics metadata target is missing: vendor_id, device_id");
    CHECK_INT(parse(payload("2", ",\"statistics_mode\":[],\"target\":" TARGET_G2 ",\"counter_layout\":" LAYOUT_G2M1, SEG7),
                    true, &w, &e),
              -1);
    CHECK_STR(e.text, "VGF neural statistics metadata is missing statistics_mode");
    CHECK_INT(parse(payload("2", ",\"statistics_mode\":{\"vulkan_value\":2},\"target\":" TARGET_G2
                                 ",\"counter_layout\":" LAYOUT_G2M1,
                            SEG7),
                    true, &w, &e),
              -1);
    CHECK_STR(e.text, "VGF neural statistics metadata statistics_mode is missing: executorch_index, vulkan_name");
}

TEST(wrapper_schema_version_example6)
{
    nx_wrapper *w;
    mlia_error e;
    CHECK_INT(parse(payload("3", "", SEG7), true, &w, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics metadata schema version: 3");
    CHECK_INT(parse(payload("1.0", "", SEG7), true, &w, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics metadata schema version: 1.0");
    CHECK_INT(parse("{\"schema\":\"executorch.vgf.neural_statistics\"}", true, &w, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics metadata schema version: None");
}

TEST(wrapper_scanning_example7)
{
    const char *metas[] = {"not json", "{\"schema\":\"some.other.backend\",\"schema_version\":1}", "[1,2]",
                           "\"executorch.vgf.neural_statistics\"", payload("2", v2_objects(), SEG7)};
    int records = 0;
    for (size_t i = 0; i < sizeof metas / sizeof *metas; i++) {
        nx_wrapper *w;
        mlia_error e;
        int rc = parse(metas[i], true, &w, &e);
        CHECK(rc == 0 || rc == NX_NOT_A_RECORD);
        records += rc == 0;
    }
    CHECK_INT(records, 1);
    nx_wrapper *w;
    mlia_error e;
    CHECK_INT(parse("{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":1", true, &w, &e), -1);
    CHECK_STR(e.text, "Malformed VGF neural statistics delegate metadata");
    /* invalid UTF-8 with the schema text is malformed; without it, ignored */
    CHECK_INT(parse("{\"schema\":\"executorch.vgf.neural_statistics\",\"x\":\"\xff\"}", true, &w, &e), -1);
    CHECK_STR(e.text, "Malformed VGF neural statistics delegate metadata");
    CHECK_INT(parse("{\"x\":\"\xff\"}", true, &w, &e), NX_NOT_A_RECORD);
    /* direct decoding */
    CHECK_INT(parse("{\"schema\":\"some.other.backend\",\"schema_version\":1}", false, &w, &e), -1);
    CHECK_STR(e.text, "Not VGF neural statistics metadata: some.other.backend");
    CHECK_INT(parse("{\"schema_version\":1}", false, &w, &e), -1);
    CHECK_STR(e.text, "Not VGF neural statistics metadata: None");
}

TEST(wrapper_blob_rules_example8)
{
    nx_wrapper *w;
    mlia_error e;
    const char *hex = "{\"segment_id\":7,\"debug_database\":{\"available\":true,\"encoding\":\"hex\",\"data\":\"010203\"}}";
    CHECK_INT(parse(payload("1", "", hex), true, &w, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics blob encoding: hex");
    const char *noenc = "{\"segment_id\":7,\"statistics_memory\":{\"available\":true,\"data\":\"AQID\"}}";
    CHECK_INT(parse(payload("1", "", noenc), true, &w, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics blob encoding: None");
    const char *size5 = "{\"segment_id\":7,\"debug_database\":{\"available\":true,\"size\":5,\"encoding\":\"base64\",\"data\":\"AQID\"}}";
    CHECK_INT(parse(payload("1", "", size5), true, &w, &e), 0);
    CHECK(nx_blob_size_mismatch(&w->segments[0].blobs[0]));
    CHECK_STR(w->segments[0].blobs[0].size_text, "5");
    CHECK_INT(w->segments[0].blobs[0].decoded_len, 3);
    const char *badb64 = "{\"segment_id\":7,\"statistics_info\":{\"available\":true,\"encoding\":\"base64\",\"data\":\"AQ=\"}}";
    CHECK_INT(parse(payload("1", "", badb64), true, &w, &e), -1);
    CHECK_STR(e.text, "Malformed base64 data in VGF neural statistics blob");
    const char *numdata = "{\"segment_id\":7,\"statistics_info\":{\"available\":true,\"encoding\":\"base64\",\"data\":5}}";
    CHECK_INT(parse(payload("1", "", numdata), true, &w, &e), -1);
    CHECK_STR(e.text, "Malformed base64 data in VGF neural statistics blob");
    /* unavailable: encoding and data ignored; absent data -> empty */
    const char *ign = "{\"segment_id\":7,\"statistics_info\":{\"available\":false,\"encoding\":\"hex\",\"data\":\"!\"},"
                      "\"statistics_memory\":{\"available\":true,\"encoding\":\"base64\"},\"debug_database\":null}";
    CHECK_INT(parse(payload("1", "", ign), true, &w, &e), 0);
    CHECK(w->segments[0].blobs[2].available);
    CHECK_INT(w->segments[0].blobs[2].decoded_len, 0);
    CHECK(!w->segments[0].blobs[0].available);
    /* escaped base64 text (JSON "\/") is decoded from the parsed string */
    const char *esc = "{\"segment_id\":7,\"statistics_memory\":{\"available\":true,\"encoding\":\"base64\",\"data\":\"\\/\\/8=\"}}";
    CHECK_INT(parse(payload("1", "", esc), true, &w, &e), 0);
    const uint8_t *d;
    size_t n;
    payload_of(&w->segments[0].blobs[2], &d, &n);
    CHECK_INT(n, 2);
    CHECK(d[0] == 0xff && d[1] == 0xff);
}

TEST(wrapper_types_and_duplicates)
{
    nx_wrapper *w;
    mlia_error e;
    CHECK_INT(parse(payload("1", "", "{\"segment_id\":0,\"statistics_memory\":{\"available\":\"yes\"}}"), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field segments[0].statistics_memory.available must be a boolean.");
    CHECK_INT(parse(payload("1", "", "{\"segment_id\":\"0\"}"), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field segments[0].segment_id must be an integer.");
    CHECK_INT(parse(payload("1", "", "{\"segment_id\":1.5}"), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field segments[0].segment_id must be an integer.");
    CHECK_INT(parse(payload("1", "", "{},3"), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field segments[1] must be an object.");
    CHECK_INT(parse(payload("1", "", "{\"debug_database\":[]}"), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field segments[0].debug_database must be an object.");
    CHECK_INT(parse(payload("1", "", "{\"is_data_graph_pipeline\":1}"), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field segments[0].is_data_graph_pipeline must be a boolean.");
    const char *j = "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":1,\"segments\":{}}";
    CHECK_INT(parse(j, true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field segments must be an array.");
    j = "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":1,\"reason\":3}";
    CHECK_INT(parse(j, true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field reason must be a string.");
    j = "{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":2,"
        "\"statistics_mode\":{\"executorch_index\":\"1\",\"vulkan_value\":2,\"vulkan_name\":\"x\"},\"target\":" TARGET_G2
        ",\"counter_layout\":" LAYOUT_G2M1 "}";
    CHECK_INT(parse(j, true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics metadata field statistics_mode.executorch_index must be an integer.");
    /* duplicate segment ids (default = position) */
    CHECK_INT(parse(payload("1", "", "{\"segment_id\":1},{}"), true, &w, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics record lists segment 1 more than once.");
    /* defaults: segment_id = position, graph = true; no segments member */
    CHECK_INT(parse(payload("1", "", "{},{\"is_data_graph_pipeline\":false}"), true, &w, &e), 0);
    CHECK_UINT(w->segments[1].segment_id, 1);
    CHECK(w->segments[0].is_graph && !w->segments[1].is_graph);
    CHECK_INT(parse("{\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":1}", true, &w, &e), 0);
    CHECK_INT(w->n_segments, 0);
    /* duplicate members: last wins */
    CHECK_INT(parse("{\"schema\":\"x\",\"schema\":\"executorch.vgf.neural_statistics\",\"schema_version\":1}", true, &w,
                    &e),
              0);
}

/* ---- framing (example 9 statistics-info side) and info (10, 11) ---- */

TEST(framing)
{
    const uint8_t *p;
    size_t n;
    mlia_error e;
    uint8_t f[16] = {0xEE, 0xFF, 0x22, 0x11, 1, 0, 0, 0, 4, 0, 0, 0, 'a', 'b', 'c', 'd'};
    mlia_error_clear(&e);
    CHECK_INT(nx_unframe(f, 16, NX_BLOB_DEBUG_DATABASE, &p, &n, &e), 0);
    CHECK_INT(n, 4);
    CHECK(p == f + 12);
    /* the other blob's magic is not special */
    CHECK_INT(nx_unframe(f, 16, NX_BLOB_STATISTICS_INFO, &p, &n, &e), 0);
    CHECK_INT(n, 16);
    CHECK_INT(nx_unframe(f, 11, NX_BLOB_DEBUG_DATABASE, &p, &n, &e), 0);
    CHECK_INT(n, 11);
    f[4] = 2;
    CHECK_INT(nx_unframe(f, 16, NX_BLOB_DEBUG_DATABASE, &p, &n, &e), -1);
    CHECK_STR(e.text, "Debug database uses unsupported format version 2.");
    f[4] = 1;
    f[8] = 5;
    mlia_error_clear(&e);
    CHECK_INT(nx_unframe(f, 16, NX_BLOB_DEBUG_DATABASE, &p, &n, &e), -1);
    CHECK_STR(e.text, "Debug database declares a 5-byte payload but contains 4 bytes.");
    uint8_t g[12] = {0xFF, 0xEE, 0x11, 0x22, 1, 0, 0, 0, 1, 0, 0, 0};
    mlia_error_clear(&e);
    CHECK_INT(nx_unframe(g, 12, NX_BLOB_STATISTICS_INFO, &p, &n, &e), -1);
    CHECK_STR(e.text, "Statistics info declares a 1-byte payload but contains 0 bytes.");
    g[4] = 7;
    mlia_error_clear(&e);
    CHECK_INT(nx_unframe(g, 12, NX_BLOB_STATISTICS_INFO, &p, &n, &e), -1);
    CHECK_STR(e.text, "Statistics info uses unsupported format version 7.");
}

static int info(const void *d, size_t n, bool text, uint32_t **ids, uint32_t *nid, mlia_error *e)
{
    mlia_error_clear(e);
    return nx_parse_statistics_info(d, n, text, &A, ids, nid, e);
}

TEST(info_binary_example10)
{
    uint32_t *ids, n;
    mlia_error e;
    const uint8_t framed[] = {0xFF, 0xEE, 0x11, 0x22, 1, 0, 0, 0, 8, 0, 0, 0, 3, 0, 0, 0, 7, 0, 0, 0};
    CHECK_INT(info(framed, sizeof framed, false, &ids, &n, &e), 0);
    CHECK_INT(n, 2);
    CHECK_INT(ids[0], 3);
    CHECK_INT(ids[1], 7);
    uint8_t *dd;
    size_t dn;
    CHECK_INT(nx_base64_decode("AAAAAA==", 8, &A, &dd, &dn, &e), 0);
    CHECK_INT(info(dd, dn, false, &ids, &n, &e), 0);
    CHECK_INT(n, 1);
    CHECK_INT(ids[0], 0);
    CHECK_INT(info("\0\0\0\0\0\0", 6, false, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Statistics file size is not 4-byte aligned.");
    CHECK_INT(info("", 0, false, &ids, &n, &e), 0);
    CHECK_INT(n, 0);
    const uint8_t dup[] = {1, 0, 0, 0, 1, 0, 0, 0};
    CHECK_INT(info(dup, 8, false, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Statistics info contains duplicate stripe IDs.");
    /* framed text form */
    const uint8_t ft[] = {0xFF, 0xEE, 0x11, 0x22, 1, 0, 0, 0, 2, 0, 0, 0, '5', '\n'};
    CHECK_INT(info(ft, sizeof ft, true, &ids, &n, &e), 0);
    CHECK_INT(n, 1);
    CHECK_INT(ids[0], 5);
}

TEST(info_text_example11)
{
    uint32_t *ids, n;
    mlia_error e;
    CHECK_INT(info("3, 7\n0x10;\0", 11, true, &ids, &n, &e), 0);
    CHECK_INT(n, 3);
    CHECK_INT(ids[0], 3);
    CHECK_INT(ids[1], 7);
    CHECK_INT(ids[2], 16);
    CHECK_INT(info("0\n", 2, true, &ids, &n, &e), 0);
    CHECK_INT(n, 1);
    CHECK_INT(ids[0], 0);
    CHECK_INT(info("3 stripe-7", 10, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info must contain only unsigned integer stripe IDs.");
    CHECK_INT(info(" ;\n", 3, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info is empty.");
    CHECK_INT(info("", 0, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info is empty.");
    CHECK_INT(info("4294967296", 10, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info contains a stripe ID outside uint32 range.");
    CHECK_INT(info("0x1ffffffff", 11, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info contains a stripe ID outside uint32 range.");
    CHECK_INT(info("00000000000000000000000000000004294967295", 41, true, &ids, &n, &e), 0);
    CHECK_UINT(ids[0], 4294967295u);
    /* every token checked before the range rule */
    CHECK_INT(info("99999999999 x", 13, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info must contain only unsigned integer stripe IDs.");
    CHECK_INT(info("0x", 2, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info must contain only unsigned integer stripe IDs.");
    CHECK_INT(info("1, 0x1", 6, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Statistics info contains duplicate stripe IDs.");
    CHECK_INT(info("1\xff", 2, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Cannot parse textual statistics info: 'utf-8' codec can't decode byte 0xff in position 1: "
                      "invalid start byte");
    /* a non-ASCII space is not a separator */
    CHECK_INT(info("1\xc2\xa0" "2", 4, true, &ids, &n, &e), -1);
    CHECK_STR(e.text, "Textual statistics info must contain only unsigned integer stripe IDs.");
}

/* ---- statistics memory (examples 12-18) ---- */

static int mem(const uint8_t *d, size_t words_n, nx_device dev, int mode, const uint32_t *ids, uint32_t nid,
               nx_row **rows, uint32_t *nr, mlia_error *e)
{
    mlia_error_clear(e);
    return nx_decode_memory(d, words_n * 4, dev, mode, ids, nid, &A, rows, nr, e);
}

TEST(memory_mode0_g1_example12)
{
    uint8_t *w = words(16);
    put32(w, 0, 10);
    put32(w, 1, 20);
    put32(w, 2, 30);
    uint32_t ids[] = {0};
    nx_row *r;
    uint32_t n;
    mlia_error e;
    CHECK_INT(mem(w, 16, NX_DEVICE_G1, 0, ids, 1, &r, &n, &e), 0);
    CHECK_INT(n, 1);
    CHECK_UINT(r[0].op_cycles, 60);
    CHECK_UINT(r[0].total_cycles, 60);
    CHECK(r[0].has_counters);
    CHECK_UINT(r[0].counters[0], 10);
    CHECK_UINT(r[0].counters[1], 20);
    CHECK_UINT(r[0].counters[2], 30);
    for (int k = 3; k < 16; k++)
        CHECK_UINT(r[0].counters[k], 0);
    const char *const *labels;
    CHECK_INT(nx_counter_labels(NX_DEVICE_G1, 0, &labels), 16);
    CHECK_STR(labels[0], "section_0");
    CHECK_STR(labels[15], "section_15");
}

TEST(memory_mode0_blocks_example13)
{
    uint8_t *w = words(513 * 16);
    for (int t = 0; t < 513; t++)
        put32(w, (size_t)t * 16, 1);
    uint32_t ids[] = {0};
    nx_row *r;
    uint32_t n;
    mlia_error e;
    CHECK_INT(mem(w, 513 * 16, NX_DEVICE_G2, 0, ids, 1, &r, &n, &e), 0);
    CHECK_INT(n, 1);
    CHECK_UINT(r[0].op_cycles, 513);
    CHECK_UINT(r[0].total_cycles, 513);
    CHECK_UINT(r[0].counters[0], 513);
    uint32_t ids2[] = {0, 1};
    CHECK_INT(mem(w, 513 * 16, NX_DEVICE_G1, 0, ids2, 2, &r, &n, &e), 0);
    CHECK_INT(n, 2);
    CHECK_UINT(r[0].op_cycles, 512);
    CHECK_UINT(r[1].op_cycles, 1);
    CHECK_INT(mem(w, 513 * 16, NX_DEVICE_G1, 0, ids, 1, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics contains nonzero rows absent from statistics info: 1.");
}

TEST(memory_mode1_g2_example14)
{
    uint8_t *w = words(64);
    put32(w, 1, 10);
    put32(w, 31, 20);
    put32(w, 32, 30);
    uint32_t ids[] = {0};
    nx_row *r;
    uint32_t n;
    mlia_error e;
    CHECK_INT(mem(w, 64, NX_DEVICE_G2, 1, ids, 1, &r, &n, &e), 0);
    CHECK_UINT(r[0].op_cycles, 10);
    CHECK_UINT(r[0].total_cycles, 10);
    const char *const *labels;
    CHECK_INT(nx_counter_labels(NX_DEVICE_G2, 1, &labels), 31);
    CHECK_STR(labels[0], "nx_active");
    CHECK_STR(labels[29], "me_src0_stall");
    CHECK_STR(labels[30], "me_src1_stall");
    CHECK_STR(labels[28], "ow_idx_stall");
    CHECK_UINT(r[0].counters[0], 10);
    CHECK_UINT(r[0].counters[29], 20);
    CHECK_UINT(r[0].counters[30], 30);
    for (int k = 1; k < 29; k++)
        CHECK_UINT(r[0].counters[k], 0);
}

TEST(memory_mode1_g1_example15)
{
    size_t nw = 3 * 256 * 32;
    uint8_t *w = words(nw);
    put32(w, 1, 10);
    nx_row *r;
    uint32_t n;
    mlia_error e;
    uint32_t ids[] = {0, 2};
    CHECK_INT(mem(w, nw, NX_DEVICE_G1, 1, ids, 2, &r, &n, &e), 0);
    CHECK_INT(n, 2);
    CHECK_INT(r[0].stripe, 0);
    CHECK_INT(r[1].stripe, 2);
    CHECK_UINT(r[0].op_cycles, 10);
    CHECK_UINT(r[1].op_cycles, 0);
    CHECK_UINT(r[1].total_cycles, 0);
    CHECK(r[0].has_counters);
    CHECK(!r[1].has_counters);
    uint32_t ids2[] = {0, 3};
    CHECK_INT(mem(w, nw, NX_DEVICE_G1, 1, ids2, 2, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics info contains stripe IDs outside the statistics block range: 3.");
    uint32_t ids3[] = {2};
    CHECK_INT(mem(w, nw, NX_DEVICE_G1, 1, ids3, 1, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics contains nonzero rows absent from statistics info: 0.");
    /* rows follow the order of statistics info */
    uint32_t ids4[] = {2, 0};
    CHECK_INT(mem(w, nw, NX_DEVICE_G1, 1, ids4, 2, &r, &n, &e), 0);
    CHECK_INT(r[0].stripe, 2);
    CHECK_UINT(r[1].op_cycles, 10);
}

TEST(memory_mode1_total_example16)
{
    uint8_t *w = words(32);
    put32(w, 10, 5);
    put32(w, 14, 7);
    uint32_t ids[] = {0};
    nx_row *r;
    uint32_t n;
    mlia_error e;
    CHECK_INT(mem(w, 32, NX_DEVICE_G1, 1, ids, 1, &r, &n, &e), 0);
    CHECK_UINT(r[0].op_cycles, 0);
    CHECK_UINT(r[0].total_cycles, 12);
    const char *const *labels;
    CHECK_INT(nx_counter_labels(NX_DEVICE_G1, 1, &labels), 29);
    CHECK_STR(labels[9], "rd_ll_stall");
    CHECK_STR(labels[13], "ce_src0_stall");
    CHECK_UINT(r[0].counters[9], 5);
    CHECK_UINT(r[0].counters[13], 7);
}

TEST(memory_uncounted_words_example17)
{
    uint8_t *w = words(32);
    put32(w, 0, 9);
    uint32_t ids[] = {0};
    nx_row *r;
    uint32_t n;
    mlia_error e;
    CHECK_INT(mem(w, 32, NX_DEVICE_G1, 1, ids, 1, &r, &n, &e), 0);
    CHECK_UINT(r[0].op_cycles, 0);
    CHECK_UINT(r[0].total_cycles, 0);
    CHECK(r[0].has_counters);
    for (int k = 0; k < 29; k++)
        CHECK_UINT(r[0].counters[k], 0);
    CHECK_INT(mem(w, 32, NX_DEVICE_G1, 1, ids, 0, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics contains nonzero rows absent from statistics info: 0.");
    uint8_t *g = words(64);
    put32(g, 30, 4);
    CHECK_INT(mem(g, 64, NX_DEVICE_G2, 1, ids, 1, &r, &n, &e), 0);
    CHECK(r[0].has_counters);
    CHECK_UINT(r[0].total_cycles, 0);
    CHECK_INT(mem(g, 64, NX_DEVICE_G2, 1, ids, 0, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics contains nonzero rows absent from statistics info: 0.");
}

TEST(memory_sizes_example18)
{
    nx_row *r;
    uint32_t n;
    mlia_error e;
    uint32_t ids[] = {0};
    CHECK_INT(mem((const uint8_t *)"", 0, NX_DEVICE_G2, 1, ids, 1, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics file is empty.");
    CHECK_INT(mem(words(15), 15, NX_DEVICE_G1, 0, ids, 1, &r, &n, &e), -1);
    CHECK_STR(e.text, "Mode0 statistics size is not aligned to 64 bytes.");
    CHECK_INT(mem(words(32), 32, NX_DEVICE_G2, 1, ids, 1, &r, &n, &e), -1);
    CHECK_STR(e.text, "Mode1 statistics size is not a multiple of the expected task size.");
    CHECK_INT(mem(words(48), 48, NX_DEVICE_G1, 1, ids, 1, &r, &n, &e), -1);
    CHECK_STR(e.text, "Mode1 statistics size is not a multiple of the expected task size.");
    mlia_error_clear(&e);
    CHECK_INT(nx_decode_memory((const uint8_t *)"\xde\xad", 2, NX_DEVICE_G2, 1, ids, 1, &A, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics file size is not 4-byte aligned.");
    /* more than 10 listed values */
    uint8_t *w = words(12 * 512 * 16);
    for (int b = 0; b < 12; b++)
        put32(w, (size_t)b * 512 * 16, 1);
    CHECK_INT(mem(w, 12 * 512 * 16, NX_DEVICE_G1, 0, ids, 0, &r, &n, &e), -1);
    CHECK_STR(e.text, "Statistics contains nonzero rows absent from statistics info: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, "
                      "... (2 more omitted).");
}

/* ---- mode and device (examples 19-21) ---- */

static char *v2_payload(const char *mode, const char *target, const char *layout)
{
    return payload("2",
                   mlia_arena_printf(&A, ",\"statistics_mode\":%s,\"target\":%s,\"counter_layout\":%s", mode, target,
                                     layout),
                   SEG7);
}

static const char *target(const char *name, int vendor, bool avail)
{
    return mlia_arena_printf(&A,
                             "{\"available\":%s,\"device_name\":\"%s\",\"vendor_id\":%d,\"device_id\":1,\"driver_version\":1}",
                             avail ? "true" : "false", name, vendor);
}

static const char *layout(const char *sid, int sv, const char *endian, int wpt, const char *lbc)
{
    return mlia_arena_printf(&A,
                             "{\"available\":true,\"schema_id\":\"%s\",\"schema_version\":%d,\"endianness\":\"%s\","
                             "\"word_type\":\"uint32\",\"words_per_task\":%d,\"leading_block_count\":%s,\"reason\":\"\"}",
                             sid, sv, endian, wpt, lbc);
}

#define NO_LAYOUT "{\"available\":false,\"schema_id\":\"\",\"schema_version\":0,\"endianness\":\"little\",\"word_type\":\"uint32\",\"words_per_task\":0,\"leading_block_count\":0,\"reason\":\"No registered neural statistics counter layout for target\"}"
#define MODE0 "{\"executorch_index\":0,\"vulkan_value\":1,\"vulkan_name\":\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS0_ARM\"}"

static int resolve(const char *json, nx_mode_info *mi, mlia_error *e)
{
    nx_wrapper *w;
    if (parse(json, true, &w, e) != 0)
        return -2;
    mlia_error_clear(e);
    return nx_resolve_mode(w, mi, e);
}

TEST(device_names_example19)
{
    nx_mode_info mi;
    mlia_error e;
    CHECK_INT(resolve(v2_payload(MODE1, target("Mali-G2-Pro-NX MC1", 5045, true), NO_LAYOUT), &mi, &e), 0);
    CHECK_INT(mi.device, NX_DEVICE_G2);
    CHECK_INT(resolve(v2_payload(MODE1, target("Mali-G1", 5045, true), NO_LAYOUT), &mi, &e), 0);
    CHECK_INT(mi.device, NX_DEVICE_G1);
    CHECK_INT(resolve(v2_payload(MODE1, target("Mali-G1 MC4", 5045, true), NO_LAYOUT), &mi, &e), 0);
    CHECK_INT(mi.device, NX_DEVICE_G1);
    static const char *const bad[] = {"Mali-G10", "Arm Mali-G2", "Unknown accelerator"};
    for (int i = 0; i < 3; i++) {
        CHECK_INT(resolve(v2_payload(MODE1, target(bad[i], 5045, true), NO_LAYOUT), &mi, &e), -1);
        char want[256];
        snprintf(want, sizeof want,
                 "Cannot derive profiling generation from target.device_name '%s'; expected an Arm device name "
                 "beginning with Mali-G1 or Mali-G2.",
                 bad[i]);
        CHECK_STR(e.text, want);
    }
    CHECK_INT(resolve(v2_payload(MODE1, target("Mali-G1", 4660, true), NO_LAYOUT), &mi, &e), -1);
    CHECK_STR(e.text, "Cannot derive profiling generation from target: vendor_id must be Arm's 0x13B5, got 4660.");
}

TEST(layout_checks_example20)
{
    nx_mode_info mi;
    mlia_error e;
    const char *g2 = target("Mali-G2-Pro-NX MC1", 5045, true);
    CHECK_INT(resolve(v2_payload(MODE1, g2, layout("arm.mali-g2.neural-statistics.mode0", 1, "little", 16, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Counter layout arm.mali-g2.neural-statistics.mode0 contradicts statistics_mode.executorch_index 1.");
    CHECK_INT(resolve(v2_payload(MODE1, g2, layout("arm.mali-g2.neural-statistics.mode1", 1, "little", 32, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Counter layout arm.mali-g2.neural-statistics.mode1 declares 32 words per task; Mali-G2 mode 1 uses 64.");
    CHECK_INT(resolve(v2_payload(MODE0, g2, layout("arm.mali-g2.neural-statistics.mode0", 1, "little", 64, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Mali-G2 mode-0 statistics with 64 words per task are not supported.");
    CHECK_INT(resolve(v2_payload(MODE1, g2, layout("arm.mali-g2.neural-statistics.mode1", 1, "big", 64, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics counter layout: endianness big, word_type uint32; expected little and uint32.");
    CHECK_INT(resolve(v2_payload(MODE1, g2, layout("arm.mali-g2.neural-statistics.mode1", 2, "little", 64, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics counter layout schema_version: 2.");
    CHECK_INT(resolve(v2_payload(MODE1, g2, layout("arm.mali-g3.neural-statistics.mode1", 1, "little", 64, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics counter layout schema_id: arm.mali-g3.neural-statistics.mode1.");
    CHECK_INT(resolve(v2_payload(MODE1, g2, layout("arm.mali-g1.neural-statistics.mode1", 1, "little", 32, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Counter layout arm.mali-g1.neural-statistics.mode1 contradicts target device Mali-G2-Pro-NX MC1.");
    CHECK_INT(resolve(v2_payload(MODE1, g2, layout("arm.mali-g2.neural-statistics.mode1", 1, "little", 64, "-1")), &mi, &e), -1);
    CHECK_STR(e.text, "Unsupported VGF neural statistics counter layout leading_block_count: -1.");
    CHECK_INT(resolve(v2_payload(MODE0, g2, layout("arm.mali-g2.neural-statistics.mode0", 1, "little", 32, "1")), &mi, &e), -1);
    CHECK_STR(e.text, "Counter layout arm.mali-g2.neural-statistics.mode0 declares 32 words per task; Mali-G2 mode 0 uses 16.");
    /* layout without target: the layout's device is used, not assumed */
    CHECK_INT(resolve(v2_payload(MODE1, target("", 0, false), layout("arm.mali-g1.neural-statistics.mode1", 1, "little", 32, "0")),
                      &mi, &e),
              0);
    CHECK_INT(mi.device, NX_DEVICE_G1);
    CHECK(!mi.device_assumed);
    CHECK_INT(mi.leading_block_count, 0);
    /* inconsistent statistics_mode */
    const char *m = "{\"executorch_index\":1,\"vulkan_value\":1,\"vulkan_name\":\"VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM\"}";
    CHECK_INT(resolve(v2_payload(m, g2, NO_LAYOUT), &mi, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics statistics_mode is inconsistent: executorch_index 1, vulkan_value 1, "
                      "vulkan_name VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM.");
    m = "{\"executorch_index\":2,\"vulkan_value\":3,\"vulkan_name\":\"X\"}";
    CHECK_INT(resolve(v2_payload(m, g2, NO_LAYOUT), &mi, &e), -1);
    CHECK_STR(e.text, "VGF neural statistics statistics_mode is inconsistent: executorch_index 2, vulkan_value 3, vulkan_name X.");
}

TEST(mode_device_example21)
{
    nx_mode_info mi;
    mlia_error e;
    CHECK_INT(resolve(v2_payload(MODE0, target("Mali-G1", 5045, true), NO_LAYOUT), &mi, &e), 0);
    CHECK_INT(mi.mode, 0);
    CHECK_INT(mi.device, NX_DEVICE_G1);
    CHECK(!mi.mode_assumed && !mi.device_assumed);
    CHECK(!mi.has_layout);
    CHECK_INT(resolve(v2_payload(MODE0, target("whatever", 1, false), NO_LAYOUT), &mi, &e), 0);
    CHECK_INT(mi.mode, 0);
    CHECK_INT(mi.device, NX_DEVICE_G2);
    CHECK(!mi.mode_assumed && mi.device_assumed);
}

TEST(list_format)
{
    uint64_t v[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
    CHECK_STR(nx_format_u64_list(v, 0, &A), "none");
    CHECK_STR(nx_format_u64_list(v, 3, &A), "0, 1, 2");
    CHECK_STR(nx_format_u64_list(v, 11, &A), "0, 1, 2, 3, 4, 5, 6, 7, 8, 9, ... (1 more omitted)");
}

int main(void)
{
    mlia_arena_init(&A);
    RUN(base64_valid);
    RUN(base64_invalid);
    RUN(wrapper_v2_example2);
    RUN(wrapper_unavailable_example3);
    RUN(wrapper_v1_example4);
    RUN(wrapper_missing_v2_objects_example5);
    RUN(wrapper_schema_version_example6);
    RUN(wrapper_scanning_example7);
    RUN(wrapper_blob_rules_example8);
    RUN(wrapper_types_and_duplicates);
    RUN(framing);
    RUN(info_binary_example10);
    RUN(info_text_example11);
    RUN(memory_mode0_g1_example12);
    RUN(memory_mode0_blocks_example13);
    RUN(memory_mode1_g2_example14);
    RUN(memory_mode1_g1_example15);
    RUN(memory_mode1_total_example16);
    RUN(memory_uncounted_words_example17);
    RUN(memory_sizes_example18);
    RUN(device_names_example19);
    RUN(layout_checks_example20);
    RUN(mode_device_example21);
    RUN(list_format);
    mlia_arena_free(&A);
    return test_summary();
}
