/*
 * test_nx_debugdb.c - debug database, link synthesis, stripe tracking and API
 * labels (docs/formats/nx-statistics.md §7, worked examples 9 and 22-26 of §10).
 */
#include "core/arena.h"
#include "core/error.h"
#include "backends/vgf/formats/nx_debugdb.h"
#include "test.h"

static mlia_arena A;

#define DB0                                                                                                \
    "id\ttosa_op\tapi_labels\n10\tConv2D\tTOSACONV2D_spirv_id_504;\n----\nid\tapi_label\n100\tTOSACONV2D_" \
    "spirv_id_504\n----\nid\ttosa_op_ids\n20\t10;\n----\nid\tfused_op_ids\n30\t20;\n----\nid\tcascade_op_"  \
    "ids\n40\t30;\n----\nid\top_id\tcascade_op_id\n0\t30\t40\n----\nid\tstripe_op_id\n0\t0\n"

static int parse_db(const void *d, size_t n, nx_debugdb *db, mlia_error *e)
{
    mlia_error_clear(e);
    return nx_debugdb_parse(d, n, &A, db, e);
}

/* "a,b" rendering of a list, for compact checks */
static const char *L(const nx_strlist *l)
{
    if (!l)
        return "(absent)";
    char *o = mlia_arena_strdup(&A, "");
    for (uint32_t i = 0; i < l->n; i++)
        o = mlia_arena_printf(&A, "%s%s[%s]", o, i ? "," : "", l->items[i]);
    return o;
}

TEST(db0_maps_example22)
{
    CHECK_INT(strlen(DB0), 249);
    nx_debugdb db;
    mlia_error e;
    CHECK_INT(parse_db(DB0, strlen(DB0), &db, &e), 0);
    CHECK_STR(L(nx_strmap_get(&db.stripe_chain, "0")), "[30]");
    CHECK_STR(L(nx_strmap_get(&db.stripe_cascade, "0")), "[40]");
    CHECK_STR(L(nx_strmap_get(&db.chain_fused, "30")), "[20]");
    CHECK_STR(L(nx_strmap_get(&db.fused_tosa, "20")), "[10]");
    CHECK_STR(L(nx_strmap_get(&db.tosa_labels, "10")), "[TOSACONV2D_spirv_id_504]");
    CHECK_STR(L(nx_strmap_get(&db.tosa_types, "10")), "[Conv2D]");
    CHECK_INT(db.stripe_chain.n, 1);
    /* fewer than 7 sections */
    const char *six = "a\n----\nb\n----\nc\n----\nd\n----\ne\n----\nf\n----\n----\n";
    CHECK_INT(parse_db(six, strlen(six), &db, &e), -1);
    CHECK_STR(e.text, "Debug database does not contain all expected profiling sections.");
    CHECK_INT(parse_db("", 0, &db, &e), -1);
    CHECK_STR(e.text, "Debug database does not contain all expected profiling sections.");
    /* without any ---- line, each non-empty line is a section of its own */
    const char *seven = "a\n\nb\nc\nd\ne\nf\ng\n";
    CHECK_INT(parse_db(seven, strlen(seven), &db, &e), 0);
    CHECK_INT(db.stripe_chain.n, 0);
    CHECK_INT(parse_db("a\nb\n\xff\n", 6, &db, &e), -1);
    CHECK_STR(e.text, "Debug database is not valid UTF-8 text.");
}

TEST(db_framed_example9)
{
    uint8_t *f = mlia_arena_alloc(&A, 12 + 249);
    const uint8_t head[12] = {0xEE, 0xFF, 0x22, 0x11, 1, 0, 0, 0, 0xF9, 0, 0, 0};
    memcpy(f, head, 12);
    memcpy(f + 12, DB0, 249);
    nx_debugdb db;
    mlia_error e;
    CHECK_INT(parse_db(f, 261, &db, &e), 0);
    CHECK_STR(L(nx_strmap_get(&db.stripe_chain, "0")), "[30]");
    CHECK_STR(L(nx_strmap_get(&db.tosa_types, "10")), "[Conv2D]");
    f[4] = 2;
    CHECK_INT(parse_db(f, 261, &db, &e), -1);
    CHECK_STR(e.text, "Debug database uses unsupported format version 2.");
    f[4] = 1;
    f[8] = 250;
    CHECK_INT(parse_db(f, 261, &db, &e), -1);
    CHECK_STR(e.text, "Debug database declares a 250-byte payload but contains 249 bytes.");
}

TEST(db_lines_rows)
{
    /* CRLF and lone CR line ends, trailing NULs, replaced rows keep position,
     * rows without id ignored, header split at whitespace without TAB,
     * stripe_op_indexs self-mapping */
    const char *t = "id tosa_op  api_labels\r\n10\tAdd\tL1;\r\n\tX\tY\r\n11\tMul\tL2;\r10\tSub\tL3;\0\r"
                    "----\nx\n----\nid\ttosa_op_ids\n----\nid\tfused_op_ids\n----\nc\n----\n"
                    "id\top_id\tcascade_op_id\n5\t7\t8\n6\t9;\t\n----\nid\tstripe_op_id\tstripe_op_indexs\n0\t\t5;6;\n1\t6\n\0\0";
    size_t n = strlen(t) + 1 + strlen(t + strlen(t) + 1) + 2;
    nx_debugdb db;
    mlia_error e;
    CHECK_INT(parse_db(t, n, &db, &e), 0);
    CHECK_INT(db.tosa_types.n, 2);
    CHECK_STR(db.tosa_types.keys[0], "10");
    CHECK_STR(L(&db.tosa_types.vals[0]), "[Sub]");
    CHECK_STR(L(&db.tosa_labels.vals[0]), "[L3]");
    CHECK_STR(db.tosa_types.keys[1], "11");
    /* stripe 1 -> op 6 (explicit); 5 -> 5 and 6 -> 6 via stripe_op_indexs */
    CHECK_STR(L(nx_strmap_get(&db.stripe_chain, "1")), "[9]");
    CHECK_STR(L(nx_strmap_get(&db.stripe_cascade, "1")), "");
    CHECK_STR(L(nx_strmap_get(&db.stripe_chain, "5")), "[7]");
    CHECK_STR(L(nx_strmap_get(&db.stripe_cascade, "5")), "[8]");
    CHECK_STR(L(nx_strmap_get(&db.stripe_chain, "6")), "[9]");
    CHECK_STR(L(nx_strmap_get(&db.stripe_chain, "0")), "(absent)");
}

TEST(cells_example23)
{
    struct {
        const char *in, *out;
    } c[] = {
        {"20;", "[20]"},
        {"20;21", "[20;21]"},
        {"20; 21 ;", "[20],[21]"},
        {";;", ""},
        {"{\"a\":\"x;y\"};TOSAADD_spirv_id_7;", "[{\"a\":\"x;y\"}],[TOSAADD_spirv_id_7]"},
        {"[1;2];3;", "[[1;2]],[3]"},
        {" 5 ", "[ 5 ]"},
        {"", ""},
        {"a\r", "[a]"},
        {"\"q\\\";\";b;", "[\"q\\\";\"],[b]"},
        {"]a;b;", "[]a],[b]"},
    };
    for (size_t i = 0; i < sizeof c / sizeof *c; i++) {
        nx_strlist l = nx_split_cell(c[i].in, strlen(c[i].in), &A);
        CHECK_STR(L(&l), c[i].out);
    }
}

TEST(synthesis_example24)
{
    nx_debugdb db;
    nx_debugdb_init(&db, &A);
    uint32_t s[] = {5};
    nx_debugdb_synthesize(&db, s, 1);
    const char *chain, *cascade;
    mlia_error e;
    mlia_error_clear(&e);
    CHECK_INT(nx_debugdb_track(&db, 5, &chain, &cascade, &e), 0);
    CHECK_STR(chain, "chain_5");
    CHECK_STR(cascade, "cascade_5");
    CHECK_STR(L(nx_strmap_get(&db.chain_fused, "chain_5")), "[fused_5]");
    CHECK_STR(L(nx_strmap_get(&db.fused_tosa, "fused_5")), "[tosa_5]");
    CHECK_STR(L(nx_strmap_get(&db.tosa_labels, "tosa_5")), "[profiling-stripe/5]");
    CHECK_STR(L(nx_strmap_get(&db.tosa_types, "tosa_5")), "[NeuralOp]");
    nx_strlist tosa;
    nx_unknown_ref *unk;
    uint32_t nu;
    nx_debugdb_chain_tosa(&db, "chain_5", &A, &tosa, &unk, &nu);
    CHECK_STR(L(&tosa), "[tosa_5]");
    CHECK_INT(nu, 0);
    /* the synthesized label resolves to nothing */
    nx_label_info li;
    nx_label_parse("profiling-stripe/5", &A, &li);
    CHECK_INT(li.kind, NX_LABEL_PLAIN);
    nx_strlist ids;
    CHECK_INT(nx_label_resolve(&li, NULL, 0, &A, &ids, &e), 0);
    CHECK_INT(ids.n, 0);
}

TEST(synthesis_partial_and_tracking)
{
    /* DB0 plus a stripe 1 whose chain 31 has no fused ops: only the missing
     * links are synthesized; an empty list counts as missing */
    const char *t = "id\ttosa_op\tapi_labels\n10\tConv2D\tTOSACONV2D_spirv_id_504;\n----\nx\n----\n"
                    "id\ttosa_op_ids\n20\t10;99;\n21\t\n----\nid\tfused_op_ids\n30\t20;77;21;\n31\t\n----\nc\n----\n"
                    "id\top_id\tcascade_op_id\n0\t30\t40\n1\t31\t\n2\t30;32;\t40\n3\t30\t40;41;\n----\n"
                    "id\tstripe_op_id\n0\t0\n1\t1\n2\t2\n3\t3\n";
    nx_debugdb db;
    mlia_error e;
    CHECK_INT(parse_db(t, strlen(t), &db, &e), 0);
    uint32_t s[] = {0, 1};
    nx_debugdb_synthesize(&db, s, 2);
    const char *chain, *cascade;
    CHECK_INT(nx_debugdb_track(&db, 1, &chain, &cascade, &e), 0);
    CHECK_STR(chain, "31");
    CHECK_STR(cascade, "cascade_1");
    CHECK_STR(L(nx_strmap_get(&db.chain_fused, "31")), "[fused_1]");
    CHECK_STR(L(nx_strmap_get(&db.fused_tosa, "fused_1")), "[tosa_1]");
    /* chain 30: fused 20 -> [10, 99 (unknown TOSA)], 77 unknown fused, 21 empty */
    nx_strlist tosa;
    nx_unknown_ref *unk;
    uint32_t nu;
    nx_debugdb_chain_tosa(&db, "30", &A, &tosa, &unk, &nu);
    CHECK_STR(L(&tosa), "[10]");
    CHECK_INT(nu, 2);
    CHECK(unk[0].is_tosa);
    CHECK_STR(unk[0].id, "99");
    CHECK(!unk[1].is_tosa);
    CHECK_STR(unk[1].id, "77");
    mlia_error_clear(&e);
    CHECK_INT(nx_debugdb_track(&db, 2, &chain, &cascade, &e), -1);
    CHECK_STR(e.text, "There should be only one chain per stripe, found more!");
    mlia_error_clear(&e);
    CHECK_INT(nx_debugdb_track(&db, 3, &chain, &cascade, &e), -1);
    CHECK_STR(e.text, "There should be only one cascade per stripe, found more!");
}

TEST(labels_example25)
{
    mlia_error e;
    nx_label_info li;
    nx_strlist ids;
    nx_label_parse("TOSACONV2D_spirv_id_504", &A, &li);
    CHECK_INT(li.kind, NX_LABEL_SPIRV);
    CHECK_STR(li.spirv_id_text, "504");
    mlia_error_clear(&e);
    CHECK_INT(nx_label_resolve(&li, NULL, 3, &A, &ids, &e), 0);
    CHECK_STR(L(&ids), "[504]");
    /* name map knowing only 504 */
    uint32_t known[] = {504};
    const char *names[] = {NULL};
    nx_name_map m504 = {1, known, names};
    CHECK_INT(nx_label_resolve(&li, &m504, 3, &A, &ids, &e), 0);
    CHECK_STR(L(&ids), "[504]");
    nx_label_parse("TOSACONV2D_spirv_id_999", &A, &li);
    CHECK_INT(nx_label_resolve(&li, &m504, 3, &A, &ids, &e), -1);
    CHECK_STR(e.text, "Debug label 'TOSACONV2D_spirv_id_999' references SPIR-V result ID 999, which is not present "
                      "in supplied VGF segment 3.");
    /* JSON label matched by debug name: 437, 438, 437 -> 437, 438 */
    const char *jl = "{\"aten_info\": {\"node_name\": \"tosa_conv2d_default\"}}";
    uint32_t ids7[] = {436, 437, 438, 437};
    const char *n7[] = {"other", jl, jl, jl};
    nx_name_map m7 = {4, ids7, n7};
    nx_label_parse(jl, &A, &li);
    CHECK_INT(li.kind, NX_LABEL_JSON);
    CHECK_STR(li.display_label, "tosa_conv2d_default");
    mlia_error_clear(&e);
    CHECK_INT(nx_label_resolve(&li, &m7, 7, &A, &ids, &e), 0);
    CHECK_STR(L(&ids), "[437],[438]");
    CHECK_INT(nx_label_resolve(&li, NULL, 7, &A, &ids, &e), 0);
    CHECK_INT(ids.n, 0);
    nx_label_parse("arbitrary-backend-label", &A, &li);
    CHECK_INT(li.kind, NX_LABEL_PLAIN);
    CHECK_STR(li.display_label, "arbitrary-backend-label");
    CHECK_INT(nx_label_resolve(&li, &m7, 7, &A, &ids, &e), 0);
    CHECK_INT(ids.n, 0);
    /* the suffix wins over a name match */
    const char *sl = "TOSACONV2D_spirv_id_504";
    uint32_t ids2[] = {504, 505};
    const char *n2[] = {sl, sl};
    nx_name_map m2 = {2, ids2, n2};
    nx_label_parse(sl, &A, &li);
    CHECK_INT(nx_label_resolve(&li, &m2, 0, &A, &ids, &e), 0);
    CHECK_STR(L(&ids), "[504]");
    /* suffix rules: digits at the very end; leading zeros dropped */
    nx_label_parse("X_spirv_id_", &A, &li);
    CHECK_INT(li.kind, NX_LABEL_PLAIN);
    nx_label_parse("X_spirv_id_12a", &A, &li);
    CHECK_INT(li.kind, NX_LABEL_PLAIN);
    nx_label_parse("_spirv_id_007", &A, &li);
    CHECK_INT(li.kind, NX_LABEL_SPIRV);
    CHECK_STR(li.spirv_id_text, "7");
}

TEST(provenance_example26)
{
    const char *label =
        "{\"aten_info\":{\"node_name\":\"conv\",\"operator_name\":\"aten.convolution.default\"},"
        "\"torch_info\":{\"nn_module_stack\":{\"L__self___conv\":[\"conv\",\"torch.nn.modules.conv.Conv2d\"]},"
        "\"stack_trace\":\"  File \\\"/src/model.py\\\", line 12, in forward\\n    return self.conv(x)\"}}";
    nx_label_info li;
    nx_label_parse(label, &A, &li);
    CHECK_INT(li.kind, NX_LABEL_JSON);
    CHECK_STR(li.display_label, "conv");
    CHECK_STR(li.operator_name, "aten.convolution.default");
    CHECK_INT(li.n_modules, 2);
    CHECK_STR(li.modules[0].tracer_key, "<root>");
    CHECK_STR(li.modules[0].name, "<root>");
    CHECK_STR(li.modules[1].tracer_key, "L__self___conv");
    CHECK_STR(li.modules[1].name, "conv");
    CHECK_STR(li.modules[1].module_type, "torch.nn.modules.conv.Conv2d");
    CHECK_INT(li.n_frames, 1);
    CHECK_STR(li.frames[0].file, "/src/model.py");
    CHECK_UINT(li.frames[0].line, 12);
    CHECK_STR(li.frames[0].function, "forward");
    CHECK_STR(nx_code_stack_id(li.frames, 0, &A), "code_stack/model.py:12-9cd75588130c");
    const char *label2 =
        "{\"torch_info\":{\"stack_trace\":[\"File \\\"/src/model.py\\\", line 12, in forward\",\"No stack trace "
        "available\",\"\",\"  File \\\"/src/layers.py\\\", line 40, in conv_block  \"]}}";
    nx_label_parse(label2, &A, &li);
    CHECK_INT(li.n_frames, 2);
    CHECK_STR(li.display_label, label2);
    CHECK(li.node_name == NULL);
    CHECK_INT(li.n_modules, 0);
    CHECK_STR(nx_code_stack_id(li.frames, 1, &A), "code_stack/layers.py:40-a2150b450a67");
    /* array module stack with tracer_key objects, <root> first, Windows path */
    const char *label3 =
        "{\"torch_info\":{\"nn_module_stack\":[{\"tracer_key\":\"<root>\",\"name\":\"<root>\"},"
        "{\"key\":\"m\",\"qualified_name\":\"block.m\",\"class_name\":\"Lin\"},[\"k2\",\"n2\"],5],"
        "\"stack_trace\":\"File \\\"C:\\\\x y\\\\f.py\\\", line 3\"}}";
    nx_label_parse(label3, &A, &li);
    CHECK_INT(li.n_modules, 4);
    CHECK_STR(li.modules[0].tracer_key, "<root>");
    CHECK_STR(li.modules[1].tracer_key, "m");
    CHECK_STR(li.modules[1].name, "block.m");
    CHECK_STR(li.modules[1].module_type, "Lin");
    CHECK_STR(li.modules[2].tracer_key, "k2");
    CHECK_STR(li.modules[2].name, "n2");
    CHECK_STR(li.modules[3].tracer_key, "3");
    CHECK_STR(li.modules[3].name, "3");
    CHECK_INT(li.n_frames, 1);
    CHECK(li.frames[0].function == NULL);
    CHECK_STR(li.frames[0].file, "C:\\x y\\f.py");
    char *id = nx_code_stack_id(li.frames, 0, &A);
    CHECK(strncmp(id, "code_stack/f.py:3-", 18) == 0);
}

int main(void)
{
    mlia_arena_init(&A);
    RUN(db0_maps_example22);
    RUN(db_framed_example9);
    RUN(db_lines_rows);
    RUN(cells_example23);
    RUN(synthesis_example24);
    RUN(synthesis_partial_and_tracking);
    RUN(labels_example25);
    RUN(provenance_example26);
    mlia_arena_free(&A);
    return test_summary();
}
