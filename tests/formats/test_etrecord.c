/*
 * test_etrecord.c - ETRecord reader: the legacy fixture of section 9.7,
 * current-layout archives built here (a small STORED ZIP writer below, and
 * libzip for DEFLATE), method resolution, lazy program loading, inspect
 * output, and every bad-input path with its exact message.
 */
#include "test.h"

#include <unistd.h>
#include <zip.h>

#include "core/file.h"
#include "core/json_write.h"
#include "formats/etrecord.h"
#include "report/inspect/inspect_etrecord.h"

/* ---- a minimal STORED ZIP writer (test-only) ------------------------- */

static uint32_t crc32_of(const void *data, size_t n)
{
    const uint8_t *p = data;
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

typedef struct zw {
    mlia_buf out, cd;
    uint16_t n;
} zw;

typedef struct zw_opts {
    uint64_t declared_size; /* 0: the real size */
    uint16_t flags;         /* general purpose bits (1 = encrypted) */
    bool bad_crc;
} zw_opts;

static void put16(mlia_buf *b, uint16_t v)
{
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    mlia_buf_append(b, x, 2);
}

static void put32(mlia_buf *b, uint32_t v)
{
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    mlia_buf_append(b, x, 4);
}

static void zw_init(zw *z)
{
    mlia_buf_init(&z->out);
    mlia_buf_init(&z->cd);
    z->n = 0;
}

static void zw_add_opts(zw *z, const char *name, const char *data, zw_opts o)
{
    size_t len = strlen(data);
    uint32_t crc = crc32_of(data, len) ^ (o.bad_crc ? 1u : 0u);
    uint32_t usize = o.declared_size ? (uint32_t)o.declared_size : (uint32_t)len;
    uint32_t off = (uint32_t)z->out.len;
    uint16_t nlen = (uint16_t)strlen(name);
    put32(&z->out, 0x04034b50);
    put16(&z->out, 20);
    put16(&z->out, o.flags);
    put16(&z->out, 0);
    put16(&z->out, 0);
    put16(&z->out, 0x21);
    put32(&z->out, crc);
    put32(&z->out, (uint32_t)len);
    put32(&z->out, usize);
    put16(&z->out, nlen);
    put16(&z->out, 0);
    mlia_buf_append(&z->out, name, nlen);
    mlia_buf_append(&z->out, data, len);
    put32(&z->cd, 0x02014b50);
    put16(&z->cd, 20);
    put16(&z->cd, 20);
    put16(&z->cd, o.flags);
    put16(&z->cd, 0);
    put16(&z->cd, 0);
    put16(&z->cd, 0x21);
    put32(&z->cd, crc);
    put32(&z->cd, (uint32_t)len);
    put32(&z->cd, usize);
    put16(&z->cd, nlen);
    put16(&z->cd, 0);
    put16(&z->cd, 0);
    put16(&z->cd, 0);
    put16(&z->cd, 0);
    put32(&z->cd, 0);
    put32(&z->cd, off);
    mlia_buf_append(&z->cd, name, nlen);
    z->n++;
}

static void zw_add(zw *z, const char *name, const char *data)
{
    zw_opts o = {0, 0, false};
    zw_add_opts(z, name, data, o);
}

/* Finishes the archive; the bytes are z->out.data / z->out.len. */
static void zw_finish(zw *z)
{
    uint32_t cd_off = (uint32_t)z->out.len;
    mlia_buf_append(&z->out, z->cd.data, z->cd.len);
    put32(&z->out, 0x06054b50);
    put16(&z->out, 0);
    put16(&z->out, 0);
    put16(&z->out, z->n);
    put16(&z->out, z->n);
    put32(&z->out, (uint32_t)z->cd.len);
    put32(&z->out, cd_off);
    put16(&z->out, 0);
}

static void zw_free(zw *z)
{
    mlia_buf_free(&z->out);
    mlia_buf_free(&z->cd);
}

/* ---- sample content --------------------------------------------------- */

static char *q(mlia_arena *a, const char *s)
{
    char *r = mlia_arena_strdup(a, s);
    for (char *p = r; *p; p++)
        if (*p == '\'')
            *p = '"';
    return r;
}

/* LeNet-like edge program: conv (1), relu (2), permute_copy + addmm sharing
 * handle 3 (decomposed linear), and a delegate call. */
static const char EDGE_PROGRAM[] =
    "{'graph_module': {'graph': {'inputs': [{'as_tensor': {'name': 'x'}}], 'outputs': "
    "[{'as_tensor': {'name': 'getitem'}}], 'nodes': ["
    "{'name': 'aten_convolution_default', 'target': "
    "'executorch.exir.dialects.edge.ops.aten.convolution.default', 'inputs': [{'name': "
    "'input', 'arg': {'as_tensor': {'name': 'x'}}}], 'outputs': [{'as_tensor': {'name': "
    "'aten_convolution_default'}}], 'metadata': {'debug_handle': '1', 'nn_module_stack': "
    "'L__self__,,LeNet;L__self___conv1,conv1,torch.nn.modules.conv.Conv2d'}}, "
    "{'name': 'aten_relu_default', 'target': 'executorch.exir.dialects.edge.ops.aten.relu.default', "
    "'inputs': [{'name': 'self', 'arg': {'as_tensor': {'name': 'aten_convolution_default'}}}], "
    "'outputs': [{'as_tensor': {'name': 'aten_relu_default'}}], 'metadata': {'debug_handle': "
    "'2'}}, "
    "{'name': 'aten_permute_copy_default', 'target': "
    "'executorch.exir.dialects.edge.ops.aten.permute_copy.default', 'inputs': [{'name': 'self', "
    "'arg': {'as_tensor': {'name': 'w'}}}, {'name': 'dims', 'arg': {'as_ints': [1, 0]}}], "
    "'outputs': [{'as_tensor': {'name': 'aten_permute_copy_default'}}], 'metadata': "
    "{'debug_handle': '3'}}, "
    "{'name': 'aten_addmm_default', 'target': 'executorch.exir.dialects.edge.ops.aten.addmm.default', "
    "'inputs': [{'name': 'mat1', 'arg': {'as_tensor': {'name': 'aten_relu_default'}}}, {'name': "
    "'mat2', 'arg': {'as_tensor': {'name': 'aten_permute_copy_default'}}}], 'outputs': "
    "[{'as_tensor': {'name': 'aten_addmm_default'}}], 'metadata': {'debug_handle': '3'}}, "
    "{'name': 'executorch_call_delegate', 'target': "
    "'torch.ops.higher_order.executorch_call_delegate', 'inputs': [{'name': 'lowered_module_0', "
    "'arg': {'as_string': '{\\'backend_id\\': \\'VgfBackend\\', \\'processed_bytes\\': "
    "\\'AA==\\'}'}}, {'name': 'delegate_arg_1', 'arg': {'as_tensor': {'name': "
    "'aten_addmm_default'}}}], 'outputs': [{'as_tensors': [{'name': 'getitem'}]}], "
    "'metadata': {'debug_handle': '4'}}], "
    "'tensor_values': {'x': {'dtype': 7, 'sizes': [{'as_int': 1}, {'as_int': 28}], "
    "'requires_grad': false, 'device': {'type': 'cpu'}, 'strides': [{'as_int': 28}, {'as_int': "
    "1}], 'storage_offset': {'as_int': 0}, 'layout': 7}}, 'sym_int_values': {}, "
    "'sym_bool_values': {}, 'is_single_tensor_return': false, 'custom_obj_values': {}}, "
    "'signature': {'input_specs': [{'user_input': {'arg': {'as_tensor': {'name': 'x'}}}}], "
    "'output_specs': [{'user_output': {'arg': {'as_tensor': {'name': 'getitem'}}}}]}, "
    "'module_call_graph': []}, 'opset_version': {'aten': 10}, 'range_constraints': {'s0': "
    "{'min_val': 2, 'max_val': Infinity}, 's1': {'min_val': NaN, 'max_val': -Infinity}}, "
    "'schema_version': {'major': 5, 'minor': 4}, 'dialect': '', 'verifiers': ['EDGE']}";

static const char TINY_PROGRAM[] =
    "{'graph_module': {'graph': {'inputs': [], 'outputs': [], 'nodes': [{'name': 'n', "
    "'target': 't', 'inputs': [], 'outputs': [], 'metadata': {}}]}}}";

static const char DHM[] = "{'forward': {'0': 1, '1': 2, '2': 3, '3': 3, '5': [1, 2, 3, 4]}}";
static const char DM[] =
    "{'forward': {'5': {'name': 'VgfBackend', 'delegate_map': null}, '7': {'name': "
    "'XnnpackBackend', 'delegate_map': {'0': [1, 2], 'fused': [3]}}}}";
static const char NUM_OUTS[] = "{'forward': {'5': 1, '7': 2}}";

/* Builds a current-layout archive. Any map argument may be NULL (entry
 * left out). */
static void build_current(zw *z, mlia_arena *a, const char *dhm, const char *dm,
                          const char *num_outs, const char *program)
{
    zw_init(z);
    zw_add(z, "ETRECORD_V0", "");
    zw_add(z, "exported_program", q(a, TINY_PROGRAM));
    zw_add(z, "exported_program_state_dict", "PK-opaque");
    zw_add(z, "exported_program_constants", "PK-opaque");
    zw_add(z, "exported_program_example_inputs", "");
    zw_add(z, "edge_dialect_exported_program/forward", program ? program : q(a, EDGE_PROGRAM));
    zw_add(z, "edge_dialect_exported_program/forward_state_dict", "PK-opaque");
    zw_add(z, "edge_dialect_exported_program/forward_constants", "PK-opaque");
    zw_add(z, "edge_dialect_exported_program/forward_example_inputs", "");
    zw_add(z, "aten_dialect_output/forward", q(a, TINY_PROGRAM));
    if (dhm)
        zw_add(z, "debug_handle_map", q(a, dhm));
    if (dm)
        zw_add(z, "delegate_map", q(a, dm));
    if (num_outs)
        zw_add(z, "instruction_id_to_num_outs_map", q(a, num_outs));
    zw_add(z, "reference_outputs", "PK-opaque");
    zw_add(z, "representative_inputs", "PK-opaque");
    zw_add(z, "export_graph_id", "140");
    zw_finish(z);
}

static etrecord *read_zip(mlia_arena *a, zw *z, mlia_error *err)
{
    etrecord *rec = NULL;
    mlia_error_clear(err);
    if (etrecord_read((const uint8_t *)z->out.data, z->out.len, "x.etrecord", a, &rec, err) < 0)
        return NULL;
    return rec;
}

/* ---- tests ------------------------------------------------------------ */

TEST(legacy_fixture)
{
    mlia_file f;
    mlia_error err;
    mlia_error_clear(&err);
    CHECK_INT(mlia_file_open(&f, test_fixture("executorch/legacy-mul.etrecord.bin"), &err), 0);
    CHECK_UINT(f.size, 15843);
    mlia_arena a;
    mlia_arena_init(&a);
    etrecord *rec;
    CHECK_INT(etrecord_read(f.data, f.size, "legacy.bin", &a, &rec, &err), 0);
    CHECK(rec->legacy);
    CHECK_UINT(rec->n_entries, 7);
    static const struct {
        const char *name;
        uint64_t size;
        const char *role;
    } want[] = {
        {"ETRECORD_V0", 0, "marker"},
        {"aten_dialect_output/forward", 6559, "graph_map_program"},
        {"aten_dialect_output/forward_state_dict", 864, "state_dict"},
        {"edge_dialect_exported_program", 6652, "edge_program"},
        {"edge_dialect_exported_program_state_dict", 864, "state_dict"},
        {"debug_handle_map", 2, "debug_handle_map"},
        {"delegate_map", 2, "delegate_map"},
    };
    for (int i = 0; i < 7; i++) {
        CHECK_STR(rec->entries[i].name, want[i].name);
        CHECK_UINT(rec->entries[i].size, want[i].size);
        CHECK_STR(rec->entries[i].role, want[i].role);
        CHECK_UINT(rec->entries[i].comp_method, 0);
    }
    CHECK(rec->has_debug_handle_map && rec->has_delegate_map && !rec->has_num_outs_map);
    CHECK(!rec->has_export_graph_id);
    CHECK(rec->aten_program == NULL);
    /* Empty maps: the only method comes from the bare edge program. */
    CHECK_UINT(rec->n_methods, 1);
    const etrecord_method *m = &rec->methods[0];
    CHECK_STR(m->name, "forward");
    CHECK_STR(m->program_entry, "edge_dialect_exported_program");
    CHECK_UINT(m->n_instr, 0);
    CHECK(!m->in_debug_handle_map);
    CHECK(etrecord_method_program(rec, m) == NULL); /* lazily loaded */

    ep_program *p;
    CHECK_INT(etrecord_load_method_program(rec, m, &a, &p, &err), 0);
    CHECK(p);
    CHECK(etrecord_method_program(rec, m) == p);
    CHECK(p->legacy);
    CHECK_INT(p->schema_major, 1);
    CHECK_UINT(p->graph.n_nodes, 1);
    const ep_node *n = &p->graph.nodes[0];
    CHECK_STR(n->name, "aten_mul_tensor");
    CHECK_STR(n->target, "executorch.exir.dialects.edge.ops.aten.mul.Tensor");
    CHECK_UINT(n->n_inputs, 2);
    CHECK_STR(n->inputs[0].name, "self");
    CHECK_STR(n->inputs[0].tensors[0], "arg0_1");
    CHECK_STR(n->inputs[1].name, "other");
    CHECK_STR(n->inputs[1].tensors[0], "arg1_1");
    CHECK_UINT(n->n_outputs, 1);
    CHECK_STR(n->outputs[0], "aten_mul_tensor");
    CHECK_INT(n->debug_handle, 2);
    CHECK_CONTAINS(n->stack_trace, "toy_model/model.py\", line 18, in forward\n    return input * other\n");
    CHECK(strncmp(n->stack_trace, "  File \"", 8) == 0);
    CHECK_STR(n->source_fn_stack, "mul,_operator.mul");
    CHECK_STR(n->source_fns[0].name, "mul");
    CHECK_STR(n->source_fns[0].target, "_operator.mul");
    CHECK(n->nn_module_stack_raw == NULL);
    CHECK_UINT(p->graph.n_inputs, 2);
    CHECK_STR(p->graph.inputs[0], "arg0_1");
    CHECK_STR(p->graph.inputs[1], "arg1_1");
    CHECK_STR(p->graph.outputs[0], "aten_mul_tensor");
    CHECK_UINT(p->n_input_specs, 2);
    CHECK_STR(p->input_specs[0].kind, "user_input");
    CHECK_STR(p->input_specs[1].arg_name, "arg1_1");
    CHECK_STR(p->output_specs[0].kind, "user_output");
    const char *tensors[3] = {"arg0_1", "arg1_1", "aten_mul_tensor"};
    for (int i = 0; i < 3; i++) {
        const ep_tensor_meta *t = ep_tensor(&p->graph, tensors[i]);
        CHECK(t);
        CHECK_INT(t->dtype, 7);
        CHECK_UINT(t->rank, 2);
        CHECK_INT(t->sizes[0], 3);
        CHECK_INT(t->sizes[1], 2);
        CHECK_UINT(t->n_strides, 2);
        CHECK_INT(t->strides[0], 2);
        CHECK_INT(t->strides[1], 1);
        CHECK_INT(t->storage_offset, 0);
        CHECK_INT(t->layout, 7);
        CHECK_STR(t->device, "cpu");
    }
    CHECK_INT(mlia_json_get(p->opset_version, "aten")->u.number.i, 10);

    /* The ATen program of the graph map. */
    ep_program *aten;
    CHECK_INT(etrecord_load_program(rec, "aten_dialect_output/forward", &a, &aten, &err), 0);
    CHECK_UINT(aten->graph.n_nodes, 1);
    CHECK_STR(aten->graph.nodes[0].target, "torch.ops.aten.mul.Tensor");
    CHECK_STR(aten->graph.nodes[0].name, "mul");
    CHECK_INT(aten->graph.nodes[0].debug_handle, 0);

    /* inspect */
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    inspect_etrecord(rec, &w, &a);
    mlia_buf_putc(&b, 0);
    CHECK(strncmp(b.data, "{\"format\":\"etrecord\",\"layout\":\"legacy\",\"entries\":[{\"name\":"
                          "\"ETRECORD_V0\",\"size\":0,\"role\":\"marker\",\"compression\":"
                          "\"stored\"},", 110) == 0);
    CHECK_CONTAINS(b.data, "\"methods\":[{\"name\":\"forward\",\"nodes\":1,\"debug_handle_map\":0,"
                           "\"delegate_map\":0,\"instruction_id_to_num_outs_map\":0,"
                           "\"instructions\":0,\"program_entry\":\"edge_dialect_exported_program\","
                           "\"program_error\":null,");
    CHECK_CONTAINS(b.data, "{\"name\":\"aten_mul_tensor\",\"target\":\"executorch.exir.dialects."
                           "edge.ops.aten.mul.Tensor\",\"debug_handle\":2,");
    mlia_buf_free(&b);
    mlia_arena_free(&a);
    mlia_file_close(&f);
}

TEST(current_layout)
{
    mlia_arena a;
    mlia_arena_init(&a);
    zw z;
    build_current(&z, &a, DHM, DM, NUM_OUTS, NULL);
    mlia_error err;
    etrecord *rec = read_zip(&a, &z, &err);
    if (!rec)
        TEST_FAIL_AT("%s", err.text);
    CHECK(rec);
    CHECK(!rec->legacy);
    CHECK_UINT(rec->n_entries, 16);
    CHECK_STR(etrecord_find_entry(rec, "exported_program")->role, "aten_program");
    CHECK_STR(etrecord_find_entry(rec, "exported_program_constants")->role, "constants");
    CHECK_STR(etrecord_find_entry(rec, "exported_program_example_inputs")->role, "example_inputs");
    CHECK_STR(etrecord_find_entry(rec, "edge_dialect_exported_program/forward")->role,
              "edge_program");
    CHECK_STR(etrecord_find_entry(rec, "edge_dialect_exported_program/forward_state_dict")->role,
              "state_dict");
    CHECK_STR(etrecord_find_entry(rec, "aten_dialect_output/forward")->role, "graph_map_program");
    CHECK_STR(etrecord_find_entry(rec, "reference_outputs")->role, "reference_outputs");
    CHECK_STR(etrecord_find_entry(rec, "representative_inputs")->role, "representative_inputs");
    CHECK_STR(etrecord_find_entry(rec, "export_graph_id")->role, "export_graph_id");
    CHECK_STR(etrecord_find_entry(rec, "instruction_id_to_num_outs_map")->role,
              "instruction_id_to_num_outs_map");
    CHECK(rec->aten_program == etrecord_find_entry(rec, "exported_program"));
    CHECK(rec->has_export_graph_id);
    CHECK_INT(rec->export_graph_id, 140);

    CHECK_UINT(rec->n_methods, 1);
    const etrecord_method *m = etrecord_find_method(rec, "forward");
    CHECK(m == &rec->methods[0]);
    CHECK(etrecord_find_method(rec, "decode") == NULL);
    CHECK_STR(m->program_entry, "edge_dialect_exported_program/forward");
    CHECK_UINT(m->n_instr, 8);
    CHECK_UINT(m->n_debug_handle_keys, 5);
    CHECK_UINT(m->n_delegate_keys, 2);
    CHECK_UINT(m->n_num_outs_keys, 2);
    CHECK(m->debug_handles[0].present);
    CHECK_UINT(m->debug_handles[0].n, 1);
    CHECK_INT(m->debug_handles[0].v[0], 1);
    CHECK_INT(m->debug_handles[2].v[0], 3);
    CHECK_INT(m->debug_handles[3].v[0], 3);
    CHECK(!m->debug_handles[4].present);
    CHECK_UINT(m->debug_handles[4].n, 0);
    CHECK_UINT(m->debug_handles[5].n, 4);
    CHECK_INT(m->debug_handles[5].v[3], 4);
    CHECK(!m->debug_handles[7].present);
    CHECK(m->delegates[5].present);
    CHECK_STR(m->delegates[5].backend, "VgfBackend");
    CHECK(m->delegates[5].inner_null);
    CHECK_UINT(m->delegates[5].n_keys, 0);
    CHECK(m->delegates[7].present && !m->delegates[7].inner_null);
    CHECK_STR(m->delegates[7].backend, "XnnpackBackend");
    CHECK_UINT(m->delegates[7].n_keys, 2);
    CHECK_STR(m->delegates[7].keys[0], "0");
    CHECK_STR(m->delegates[7].keys[1], "fused");
    CHECK_UINT(m->delegates[7].handles[0].n, 2);
    CHECK_INT(m->delegates[7].handles[0].v[1], 2);
    CHECK_INT(m->delegates[7].handles[1].v[0], 3);
    CHECK(!m->delegates[0].present);
    CHECK_INT(m->num_outs[5], 1);
    CHECK_INT(m->num_outs[7], 2);
    CHECK_INT(m->num_outs[0], -1);

    ep_program *p;
    CHECK_INT(etrecord_load_method_program(rec, m, &a, &p, &err), 0);
    CHECK_UINT(p->graph.n_nodes, 5);
    CHECK_INT(p->graph.nodes[2].debug_handle, 3);
    CHECK_INT(p->graph.nodes[3].debug_handle, 3);
    CHECK_STR(p->graph.nodes[4].delegate_backend, "VgfBackend");
    CHECK(isinf(mlia_json_get(mlia_json_get(p->range_constraints, "s0"), "max_val")->u.number.d));
    /* Second load returns the cached program. */
    ep_program *p2;
    CHECK_INT(etrecord_load_program(rec, "edge_dialect_exported_program/forward", &a, &p2, &err), 0);
    CHECK(p == p2);
    CHECK_INT(etrecord_load_program(rec, "nope", &a, &p2, &err), -1);
    CHECK_STR(err.text, "x.etrecord: nope: no such entry in the ETRecord");

    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    inspect_etrecord(rec, &w, &a);
    mlia_buf_putc(&b, 0);
    CHECK_CONTAINS(b.data, "\"layout\":\"current\"");
    CHECK_CONTAINS(b.data, "\"export_graph_id\":140");
    CHECK_CONTAINS(b.data, "{\"name\":\"forward\",\"nodes\":5,\"debug_handle_map\":5,"
                           "\"delegate_map\":2,\"instruction_id_to_num_outs_map\":2,"
                           "\"instructions\":8,\"program_entry\":"
                           "\"edge_dialect_exported_program/forward\",\"program_error\":null,"
                           "\"debug_handles\":{\"0\":[1],\"1\":[2],\"2\":[3],\"3\":[3],"
                           "\"5\":[1,2,3,4]},\"delegates\":{\"5\":{\"name\":\"VgfBackend\","
                           "\"delegate_map\":null,\"num_outs\":1},\"7\":{\"name\":"
                           "\"XnnpackBackend\",\"delegate_map\":{\"0\":[1,2],\"fused\":[3]},"
                           "\"num_outs\":2}}");
    CHECK_CONTAINS(b.data, "\"delegate_backend\":\"VgfBackend\"");
    mlia_buf_free(&b);
    zw_free(&z);
    mlia_arena_free(&a);
}

TEST(single_method_stored_under_forward)
{
    mlia_arena a;
    mlia_arena_init(&a);
    zw z;
    build_current(&z, &a, "{'decode': {'0': 1}}", "{'decode': {}}", "{'decode': {}}", NULL);
    mlia_error err;
    etrecord *rec = read_zip(&a, &z, &err);
    CHECK(rec);
    CHECK_UINT(rec->n_methods, 1);
    CHECK_STR(rec->methods[0].name, "decode");
    CHECK_STR(rec->methods[0].program_entry, "edge_dialect_exported_program/forward");
    CHECK_UINT(rec->methods[0].n_instr, 1);
    zw_free(&z);
    mlia_arena_free(&a);
}

TEST(several_methods_order)
{
    mlia_arena a;
    mlia_arena_init(&a);
    zw z;
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_add(&z, "edge_dialect_exported_program/zeta", q(&a, TINY_PROGRAM));
    zw_add(&z, "edge_dialect_exported_program/decode", q(&a, TINY_PROGRAM));
    zw_add(&z, "edge_dialect_exported_program/alpha", q(&a, TINY_PROGRAM));
    zw_add(&z, "edge_dialect_exported_program/encode", q(&a, TINY_PROGRAM));
    zw_add(&z, "edge_dialect_exported_program/encode_state_dict", "");
    zw_add(&z, "edge_dialect_exported_program/sub/method", q(&a, TINY_PROGRAM));
    zw_add(&z, "debug_handle_map", "{\"encode\": {\"0\": 1}, \"decode\": {\"1\": 2}}");
    zw_add(&z, "delegate_map", "{\"other\": {\"0\": {\"name\": \"B\", \"delegate_map\": {}}}}");
    zw_finish(&z);
    mlia_error err;
    etrecord *rec = read_zip(&a, &z, &err);
    if (!rec)
        TEST_FAIL_AT("%s", err.text);
    CHECK(rec);
    const char *names[] = {"encode", "decode", "other", "alpha", "sub/method", "zeta"};
    CHECK_UINT(rec->n_methods, 6);
    for (int i = 0; i < 6; i++)
        CHECK_STR(rec->methods[i].name, names[i]);
    CHECK_STR(rec->methods[0].program_entry, "edge_dialect_exported_program/encode");
    CHECK_STR(rec->methods[1].program_entry, "edge_dialect_exported_program/decode");
    CHECK(rec->methods[2].program_entry == NULL);
    CHECK(rec->methods[2].delegates[0].present && !rec->methods[2].delegates[0].inner_null);
    CHECK_UINT(rec->methods[2].delegates[0].n_keys, 0);
    CHECK_STR(rec->methods[4].program_entry, "edge_dialect_exported_program/sub/method");
    CHECK(rec->methods[0].in_debug_handle_map && !rec->methods[3].in_debug_handle_map);
    CHECK_UINT(rec->methods[3].n_instr, 0);
    CHECK(!rec->has_num_outs_map);
    zw_free(&z);
    mlia_arena_free(&a);
}

TEST(duplicate_names_last_wins)
{
    mlia_arena a;
    mlia_arena_init(&a);
    zw z;
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_add(&z, "debug_handle_map", "{\"first\": {}}");
    zw_add(&z, "edge_dialect_exported_program/forward", "not json");
    zw_add(&z, "debug_handle_map", "{\"forward\": {\"0\": 7}}");
    zw_add(&z, "edge_dialect_exported_program/forward", q(&a, TINY_PROGRAM));
    zw_finish(&z);
    mlia_error err;
    etrecord *rec = read_zip(&a, &z, &err);
    if (!rec)
        TEST_FAIL_AT("%s", err.text);
    CHECK(rec);
    CHECK_UINT(rec->n_entries, 5);
    CHECK_STR(rec->entries[1].role, "shadowed");
    CHECK_STR(rec->entries[2].role, "shadowed");
    CHECK_STR(rec->entries[3].role, "debug_handle_map");
    CHECK(etrecord_find_entry(rec, "debug_handle_map") == &rec->entries[3]);
    CHECK_UINT(rec->n_methods, 1);
    CHECK_STR(rec->methods[0].name, "forward");
    CHECK_INT(rec->methods[0].debug_handles[0].v[0], 7);
    ep_program *p;
    CHECK_INT(etrecord_load_method_program(rec, &rec->methods[0], &a, &p, &err), 0);
    CHECK_UINT(p->graph.n_nodes, 1);
    zw_free(&z);
    mlia_arena_free(&a);
}

/* Writes an archive with libzip (DEFLATE entries) and returns its bytes. */
static char *libzip_archive(mlia_arena *a, const char *const *names, const char *const *datas,
                            int n, size_t *size)
{
    char path[] = "/tmp/mlia-test-etrecord-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    close(fd);
    int zerr;
    zip_t *z = zip_open(path, ZIP_CREATE | ZIP_TRUNCATE, &zerr);
    if (!z)
        return NULL;
    for (int i = 0; i < n; i++) {
        zip_source_t *s = zip_source_buffer(z, datas[i], strlen(datas[i]), 0);
        zip_int64_t idx = zip_file_add(z, names[i], s, ZIP_FL_ENC_UTF_8);
        zip_set_file_compression(z, (zip_uint64_t)idx, ZIP_CM_DEFLATE, 9);
    }
    if (zip_close(z) < 0)
        return NULL;
    char *data;
    mlia_error err;
    mlia_error_clear(&err);
    if (mlia_file_slurp(path, &data, size, &err) < 0)
        return NULL;
    unlink(path);
    char *r = mlia_arena_array(a, *size + 1, 1);
    memcpy(r, data, *size);
    free(data);
    return r;
}

/* Little-endian field patch helper for crafted archives. */
static void patch32(char *p, uint32_t v)
{
    p[0] = (char)v;
    p[1] = (char)(v >> 8);
    p[2] = (char)(v >> 16);
    p[3] = (char)(v >> 24);
}

/* Sets the uncompressed size of entry `name` in both headers. */
static int patch_usize(char *data, size_t size, const char *name, uint32_t usize)
{
    int done = 0;
    size_t nl = strlen(name);
    for (size_t i = 0; i + 46 + nl <= size; i++) {
        if (memcmp(data + i, "PK\3\4", 4) == 0 && (size_t)(uint8_t)data[i + 26] == nl &&
            memcmp(data + i + 30, name, nl) == 0) {
            patch32(data + i + 22, usize);
            done++;
        }
        if (memcmp(data + i, "PK\1\2", 4) == 0 && (size_t)(uint8_t)data[i + 28] == nl &&
            memcmp(data + i + 46, name, nl) == 0) {
            patch32(data + i + 24, usize);
            done++;
        }
    }
    return done;
}

TEST(deflated_entries)
{
    mlia_arena a;
    mlia_arena_init(&a);
    const char *names[] = {"ETRECORD_V0", "edge_dialect_exported_program/forward",
                           "debug_handle_map", "delegate_map"};
    const char *datas[] = {"", q(&a, EDGE_PROGRAM), q(&a, DHM), q(&a, DM)};
    size_t size;
    char *data = libzip_archive(&a, names, datas, 4, &size);
    CHECK(data);
    mlia_error err;
    mlia_error_clear(&err);
    etrecord *rec;
    CHECK_INT(etrecord_read((const uint8_t *)data, size, "x.etrecord", &a, &rec, &err), 0);
    CHECK_UINT(rec->entries[1].comp_method, 8);
    CHECK(rec->entries[1].comp_size < rec->entries[1].size);
    CHECK_UINT(rec->entries[1].size, strlen(datas[1]));
    CHECK_INT(rec->methods[0].debug_handles[5].v[2], 3);
    ep_program *p;
    CHECK_INT(etrecord_load_method_program(rec, &rec->methods[0], &a, &p, &err), 0);
    CHECK_UINT(p->graph.n_nodes, 5);

    /* Declared sizes beyond the limit, or beyond what the compressed bytes
     * can hold, are refused before anything is allocated. */
    CHECK_INT(patch_usize(data, size, "debug_handle_map", (1u << 30) + 1), 2);
    CHECK_INT(etrecord_read((const uint8_t *)data, size, "x.etrecord", &a, &rec, &err), -1);
    CHECK_STR(err.text, "x.etrecord: debug_handle_map: uncompressed size 1073741825 exceeds the "
                        "limit of 1073741824 bytes");
    CHECK_INT(patch_usize(data, size, "debug_handle_map", 100000), 2);
    mlia_error_clear(&err);
    CHECK_INT(etrecord_read((const uint8_t *)data, size, "x.etrecord", &a, &rec, &err), -1);
    CHECK_CONTAINS(err.text, "x.etrecord: debug_handle_map: declared uncompressed size 100000 is "
                             "impossible for ");
    /* A declared size larger than the real data (but plausible) is caught
     * when reading. */
    CHECK_INT(patch_usize(data, size, "debug_handle_map", (uint32_t)strlen(datas[2]) + 5), 2);
    mlia_error_clear(&err);
    CHECK_INT(etrecord_read((const uint8_t *)data, size, "x.etrecord", &a, &rec, &err), -1);
    CHECK_CONTAINS(err.text, "x.etrecord: debug_handle_map: ");
    mlia_arena_free(&a);
}

TEST(bad_containers)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    etrecord *rec;
    const char *junk = "this is not a zip archive at all, just some text......";
    mlia_error_clear(&err);
    CHECK_INT(etrecord_read((const uint8_t *)junk, strlen(junk), "x.etrecord", &a, &rec, &err), -1);
    CHECK_STR(err.text, "x.etrecord: Invalid etrecord file passed in.");
    mlia_error_clear(&err);
    CHECK_INT(etrecord_read(NULL, 0, "x.etrecord", &a, &rec, &err), -1);
    CHECK_STR(err.text, "x.etrecord: is empty, not an ETRecord (zip)");

    zw z;
    zw_init(&z);
    zw_add(&z, "debug_handle_map", "{}");
    zw_add(&z, "ETRECORD_V0x", "");
    zw_finish(&z);
    CHECK(!read_zip(&a, &z, &err));
    CHECK_STR(err.text, "x.etrecord: ETRecord identifier missing from the archive");
    /* Truncated archive: the central directory is gone; the message says so
     * and what to do (issue 29, 6). */
    mlia_error_clear(&err);
    CHECK_INT(etrecord_read((const uint8_t *)z.out.data, z.out.len - 30, "x.etrecord", &a, &rec,
                            &err), -1);
    char want[256];
    snprintf(want, sizeof want,
             "x.etrecord: is a truncated or damaged ETRecord: a zip archive of %zu bytes without its central "
             "directory (the end of the file is missing); copy or save the ETRecord again",
             (size_t)(z.out.len - 30));
    CHECK_STR(err.text, want);
    zw_free(&z);

    /* Encrypted entry. */
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_opts enc = {0, 1, false};
    zw_add_opts(&z, "debug_handle_map", "{}", enc);
    zw_finish(&z);
    CHECK(!read_zip(&a, &z, &err));
    CHECK_STR(err.text, "x.etrecord: debug_handle_map: encrypted entries are not supported");
    zw_free(&z);

    /* CRC mismatch. */
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_opts bad = {0, 0, true};
    zw_add_opts(&z, "debug_handle_map", "{}", bad);
    zw_finish(&z);
    CHECK(!read_zip(&a, &z, &err));
    CHECK_STR(err.text, "x.etrecord: debug_handle_map: CRC error");
    zw_free(&z);

    /* A STORED entry whose declared size disagrees with its data, and one
     * declaring more than the per-entry limit. */
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_opts lie = {1000, 0, false};
    zw_add_opts(&z, "debug_handle_map", "{}", lie);
    zw_finish(&z);
    CHECK(!read_zip(&a, &z, &err));
    CHECK_STR(err.text, "x.etrecord: debug_handle_map: stored entry declares 1000 bytes "
                        "but holds 2 bytes");
    zw_free(&z);
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_opts big = {0xfffffff0u, 0, false};
    zw_add_opts(&z, "debug_handle_map", "{}", big);
    zw_finish(&z);
    CHECK(!read_zip(&a, &z, &err));
    CHECK_STR(err.text, "x.etrecord: debug_handle_map: uncompressed size 4294967280 exceeds the "
                        "limit of 1073741824 bytes");
    zw_free(&z);
    mlia_arena_free(&a);
}

/* Builds a minimal archive with the given maps and returns the error. */
static const char *map_error(mlia_arena *a, const char *dhm, const char *dm, const char *no)
{
    static mlia_error err;
    zw z;
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_add(&z, "edge_dialect_exported_program/forward", q(a, TINY_PROGRAM));
    if (dhm)
        zw_add(&z, "debug_handle_map", q(a, dhm));
    if (dm)
        zw_add(&z, "delegate_map", q(a, dm));
    if (no)
        zw_add(&z, "instruction_id_to_num_outs_map", q(a, no));
    zw_finish(&z);
    etrecord *rec = read_zip(a, &z, &err);
    zw_free(&z);
    return rec ? "(parsed)" : err.text;
}

TEST(map_errors)
{
    mlia_arena a;
    mlia_arena_init(&a);
    CHECK_STR(map_error(&a, "[]", NULL, NULL),
              "x.etrecord: debug_handle_map: expected an object mapping method names to "
              "instruction maps");
    CHECK_STR(map_error(&a, "{'forward': 3}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward: expected an object mapping instruction "
              "indexes");
    CHECK_STR(map_error(&a, "{'forward': {'x1': 1}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.x1: key is not a decimal instruction index");
    CHECK_STR(map_error(&a, "{'forward': {'01': 1}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.01: key is not a decimal instruction index");
    CHECK_STR(map_error(&a, "{'forward': {'-1': 1}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.-1: key is not a decimal instruction index");
    CHECK_STR(map_error(&a, "{'forward': {'1': 'a'}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.1: expected an integer or a list of "
              "integers");
    CHECK_STR(map_error(&a, "{'forward': {'1': 1.5}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.1: expected an integer or a list of "
              "integers");
    CHECK_STR(map_error(&a, "{'forward': {'1': [1, 2.5]}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.1[1]: expected an integer");
    CHECK_STR(map_error(&a, "{'forward': {'1': 99999999999999999999}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.1: integer out of range");
    CHECK_STR(map_error(&a, "{'forward': {'99999999': 1}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.99999999: instruction index exceeds the "
              "limit of 10000000");
    CHECK_STR(map_error(&a, "{'forward': {'123456789012': 1}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.123456789012: instruction index exceeds "
              "the limit of 10000000");
    CHECK_STR(map_error(&a, "{'forward': {'0': 1, '5000': 2}}", NULL, NULL),
              "x.etrecord: debug_handle_map: forward.5000: instruction index 5000 is "
              "implausibly sparse for 2 map keys (limit 1152)");
    CHECK_STR(map_error(&a, "{'forward': {'0': 1', }", NULL, NULL),
              "x.etrecord: debug_handle_map: invalid JSON at byte 19: unexpected '\"', expected "
              "',' or '}'");
    CHECK_STR(map_error(&a, "{}", "{'forward': {'1': 2}}", NULL),
              "x.etrecord: delegate_map: forward.1: expected an object");
    CHECK_STR(map_error(&a, "{}", "{'forward': {'1': {'name': 3}}}", NULL),
              "x.etrecord: delegate_map: forward.1.name: expected a string");
    CHECK_STR(map_error(&a, "{}", "{'forward': {'1': {'name': 'X', 'delegate_map': [1]}}}", NULL),
              "x.etrecord: delegate_map: forward.1.delegate_map: expected an object or null");
    CHECK_STR(map_error(&a, "{}", "{'forward': {'1': {'name': 'X', 'delegate_map': {'0': "
                                  "['a']}}}}", NULL),
              "x.etrecord: delegate_map: forward.1.delegate_map.0[0]: expected an integer");
    CHECK_STR(map_error(&a, "{}", NULL, "{'forward': {'1': '2'}}"),
              "x.etrecord: instruction_id_to_num_outs_map: forward.1: expected an integer");
    CHECK_STR(map_error(&a, "{}", NULL, "{'forward': {'1': -2}}"),
              "x.etrecord: instruction_id_to_num_outs_map: forward.1: integer out of range");
    CHECK_STR(map_error(&a, "{}", NULL, "{'forward': {'1': 2}}"), "(parsed)");
    /* Maps may be absent entirely. */
    CHECK_STR(map_error(&a, NULL, NULL, NULL), "(parsed)");
    mlia_arena_free(&a);
}

TEST(corrupt_program)
{
    mlia_arena a;
    mlia_arena_init(&a);
    zw z;
    build_current(&z, &a, DHM, NULL, NULL, "{\"graph_module\": {\"graph\": {\"nodes\": [}}}");
    mlia_error err;
    etrecord *rec = read_zip(&a, &z, &err);
    CHECK(rec); /* programs are parsed lazily */
    ep_program *p;
    CHECK_INT(etrecord_load_method_program(rec, &rec->methods[0], &a, &p, &err), -1);
    CHECK_STR(err.text, "x.etrecord: edge_dialect_exported_program/forward: invalid JSON at byte "
                        "38: unexpected '}', expected a value");
    /* inspect reports the failure inside the document instead of stopping. */
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    inspect_etrecord(rec, &w, &a);
    mlia_buf_putc(&b, 0);
    CHECK_CONTAINS(b.data, "\"nodes\":null,");
    CHECK_CONTAINS(b.data, "\"program_error\":\"x.etrecord: edge_dialect_exported_program/forward: "
                           "invalid JSON at byte 38: unexpected '}', expected a value\"");
    CHECK_CONTAINS(b.data, "\"nodes_detail\":null");
    mlia_buf_free(&b);
    zw_free(&z);

    build_current(&z, &a, DHM, NULL, NULL,
                  q(&a, "{'graph_module': {'graph': {'inputs': [], 'outputs': [], 'nodes': "
                        "[{'name': 'a', 'target': 't', 'inputs': [], 'outputs': []}, {'name': 'b', "
                        "'target': 't', 'inputs': [], 'outputs': []}, {'name': 'c', 'target': 't', "
                        "'inputs': [], 'outputs': []}, {'name': 'd', 'target': null}]}}}"));
    rec = read_zip(&a, &z, &err);
    CHECK(rec);
    CHECK_INT(etrecord_load_method_program(rec, &rec->methods[0], &a, &p, &err), -1);
    CHECK_STR(err.text, "x.etrecord: edge_dialect_exported_program/forward: "
                        "graph_module.graph.nodes[3].target: expected a string");
    zw_free(&z);

    build_current(&z, &a, DHM, NULL, NULL, NULL);
    /* export_graph_id must be an integer. */
    zw_free(&z);
    zw_init(&z);
    zw_add(&z, "ETRECORD_V0", "");
    zw_add(&z, "export_graph_id", "\"abc\"");
    zw_finish(&z);
    CHECK(!read_zip(&a, &z, &err));
    CHECK_STR(err.text, "x.etrecord: export_graph_id: expected an integer");
    zw_free(&z);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(legacy_fixture);
    RUN(current_layout);
    RUN(single_method_stored_under_forward);
    RUN(several_methods_order);
    RUN(duplicate_names_last_wins);
    RUN(deflated_entries);
    RUN(bad_containers);
    RUN(map_errors);
    RUN(corrupt_program);
    return test_summary();
}
