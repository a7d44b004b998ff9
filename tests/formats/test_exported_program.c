/*
 * test_exported_program.c - ExportedProgram JSON reader: a LeNet-like
 * current-form edge program (decomposed linear sharing one handle, delegate
 * node with a nested payload, NaN/Infinity in range_constraints), the 2023
 * legacy form, and every structural error with its exact message.
 *
 * The JSON is written with single quotes for readability; q() turns them
 * into double quotes (so \' in the text becomes \" in JSON).
 */
#include "test.h"

#include <time.h>

#include "core/json_write.h"
#include "formats/exported_program.h"

static char *q(mlia_arena *a, const char *s)
{
    char *r = mlia_arena_strdup(a, s);
    for (char *p = r; *p; p++)
        if (*p == '\'')
            *p = '"';
    return r;
}

/* A small current-form program used as the delegate's original_module. */
static const char ORIGINAL_MODULE[] =
    "{'graph_module': {'graph': {'inputs': [{'as_tensor': {'name': 'a'}}], "
    "'outputs': [{'as_tensor': {'name': 'aten_relu_default'}}], 'nodes': [{'name': "
    "'aten_relu_default', 'target': 'executorch.exir.dialects.edge.ops.aten.relu.default', "
    "'inputs': [{'name': 'self', 'arg': {'as_tensor': {'name': 'a'}}}], 'outputs': "
    "[{'as_tensor': {'name': 'aten_relu_default'}}], 'metadata': {'debug_handle': '5'}}], "
    "'tensor_values': {}, 'sym_int_values': {}, 'sym_bool_values': {}, "
    "'is_single_tensor_return': true, 'custom_obj_values': {}}, 'signature': {'input_specs': "
    "[{'user_input': {'arg': {'as_tensor': {'name': 'a'}}}}], 'output_specs': [{'user_output': "
    "{'arg': {'as_tensor': {'name': 'aten_relu_default'}}}}]}, 'module_call_graph': []}, "
    "'opset_version': {'aten': 10}, 'range_constraints': {}, 'schema_version': {'major': 5, "
    "'minor': 4}, 'dialect': '', 'verifiers': ['EDGE']}";

/* The LeNet-like edge program; %s is the JSON-escaped delegate payload. */
static const char LENET_FMT[] =
    "{'graph_module': {'graph': {"
    "'inputs': [{'as_tensor': {'name': 'p_conv1_weight'}}, {'as_tensor': {'name': "
    "'p_fc_weight'}}, {'as_tensor': {'name': 'b_running'}}, {'as_tensor': {'name': 'x'}}, "
    "{'as_sym_int': {'as_name': 's0'}}], "
    "'outputs': [{'as_tensor': {'name': 'getitem'}}], "
    "'nodes': ["
    /* 0: convolution, handle 1 */
    "{'name': 'aten_convolution_default', 'target': "
    "'executorch.exir.dialects.edge.ops.aten.convolution.default', 'inputs': ["
    "{'name': 'input', 'arg': {'as_tensor': {'name': 'x'}}}, "
    "{'name': 'weight', 'arg': {'as_tensor': {'name': 'p_conv1_weight'}}}, "
    "{'name': 'bias', 'arg': {'as_none': []}}, "
    "{'name': 'stride', 'arg': {'as_ints': [1, 1]}}, "
    "{'name': 'transposed', 'arg': {'as_bool': false}}, "
    "{'name': 'groups', 'arg': {'as_int': 1}}], "
    "'outputs': [{'as_tensor': {'name': 'aten_convolution_default'}}], "
    "'metadata': {'stack_trace': '  File \\'/home/u/lenet.py\\', line 20, in forward\\n    x = "
    "self.conv1(x)\\n', 'nn_module_stack': "
    "'L__self__,,__main__.LeNet;L__self___conv1,conv1,torch.nn.modules.conv.Conv2d', "
    "'source_fn_stack': 'conv1,torch.nn.modules.conv.Conv2d', 'debug_handle': '1', "
    "'from_node': '[{\\'name\\': \\'conv2d\\', \\'graph_id\\': 140, \\'from_node\\': []}]', "
    "'torch_fn': 'conv2d_1;class.Conv2d'}}, "
    /* 1: max_pool with indices, two outputs */
    "{'name': 'aten_max_pool2d_with_indices_default', 'target': "
    "'executorch.exir.dialects.edge.ops.aten.max_pool2d_with_indices.default', 'inputs': ["
    "{'name': 'self', 'arg': {'as_tensor': {'name': 'aten_convolution_default'}}}, "
    "{'name': 'kernel_size', 'arg': {'as_ints': [2, 2]}}], "
    "'outputs': [{'as_tensors': [{'name': 'getitem_1'}, {'name': "
    "'aten_max_pool2d_with_indices_default_unused_1'}]}], "
    "'metadata': {'debug_handle': '2', 'nn_module_stack': "
    "'L__self__,,__main__.LeNet;L__self___layers_0,getattr(L__self__.layers, 0),torch.nn.MaxPool2d'}}, "
    /* 2: permute_copy (decomposed linear), handle 3 */
    "{'name': 'aten_permute_copy_default', 'target': "
    "'executorch.exir.dialects.edge.ops.aten.permute_copy.default', 'inputs': ["
    "{'name': 'self', 'arg': {'as_tensor': {'name': 'p_fc_weight'}}}, "
    "{'name': 'dims', 'arg': {'as_ints': [1, 0]}}], "
    "'outputs': [{'as_tensor': {'name': 'aten_permute_copy_default'}}], "
    "'metadata': {'debug_handle': '3', 'source_fn_stack': 'fc,torch.nn.modules.linear.Linear'}}, "
    /* 3: addmm (same linear), handle 3 */
    "{'name': 'aten_addmm_default', 'target': "
    "'executorch.exir.dialects.edge.ops.aten.addmm.default', 'inputs': ["
    "{'name': 'self', 'arg': {'as_tensor': {'name': 'b_running'}}}, "
    "{'name': 'mat1', 'arg': {'as_tensor': {'name': 'getitem_1'}}}, "
    "{'name': 'mat2', 'arg': {'as_tensor': {'name': 'aten_permute_copy_default'}}}, "
    "{'name': 'beta', 'arg': {'as_float': 1.5}}, "
    "{'name': 'size', 'arg': {'as_sym_int': {'as_name': 's0'}}}, "
    "{'name': 'tensors', 'arg': {'as_optional_tensors': [{'as_tensor': {'name': 'x'}}, "
    "{'as_none': []}]}}, "
    "{'name': 'dtype', 'arg': {'as_scalar_type': 7}}, "
    "{'name': 'mode', 'arg': {'as_string': 'fast'}}], "
    "'outputs': [{'as_tensor': {'name': 'aten_addmm_default'}}], "
    "'metadata': {'debug_handle': '3', 'source_fn_stack': 'fc,torch.nn.modules.linear.Linear'}}, "
    /* 4: delegate */
    "{'name': 'executorch_call_delegate', 'target': "
    "'torch.ops.higher_order.executorch_call_delegate', 'inputs': ["
    "{'name': 'lowered_module_0', 'arg': {'as_string': %s}}, "
    "{'name': 'delegate_arg_1', 'arg': {'as_tensor': {'name': 'aten_addmm_default'}}}], "
    "'outputs': [{'as_tensors': [{'name': 'getitem'}]}], 'metadata': {}}"
    "], "
    "'tensor_values': {"
    "'x': {'dtype': 7, 'sizes': [{'as_expr': {'expr_str': 's0', 'hint': {'as_int': 4}}}, "
    "{'as_int': 1}, {'as_int': 28}, {'as_int': 28}], 'requires_grad': false, 'device': "
    "{'type': 'cpu'}, 'strides': [{'as_expr': {'expr_str': '784'}}, {'as_int': 784}, "
    "{'as_int': 28}, {'as_int': 1}], 'storage_offset': {'as_int': 0}, 'layout': 7}, "
    "'aten_convolution_default': {'dtype': 2, 'sizes': [{'as_int': 1}, {'as_int': 6}, "
    "{'as_int': 24}, {'as_int': 24}], 'requires_grad': false, 'device': {'type': 'cpu', "
    "'index': 0}, 'strides': [], 'storage_offset': {'as_int': 3}, 'layout': 7}, "
    "'getitem': {'dtype': 6, 'sizes': [{'as_int': 10}], 'requires_grad': true, "
    "'device': {'type': 'cpu'}, 'strides': [{'as_int': 1}], 'storage_offset': {'as_int': 0}, "
    "'layout': 7}}, "
    "'sym_int_values': {'s0': {'as_name': 's0'}}, 'sym_bool_values': {}, "
    "'is_single_tensor_return': false, 'custom_obj_values': {}}, "
    "'signature': {'input_specs': ["
    "{'parameter': {'arg': {'name': 'p_conv1_weight'}, 'parameter_name': 'conv1.weight'}}, "
    "{'parameter': {'arg': {'name': 'p_fc_weight'}, 'parameter_name': 'fc.weight'}}, "
    "{'buffer': {'arg': {'name': 'b_running'}, 'buffer_name': 'bn.running_mean', "
    "'persistent': true}}, "
    "{'user_input': {'arg': {'as_tensor': {'name': 'x'}}}}, "
    "{'constant_input': {'name': 'c0', 'value': {'as_int': 3}}}], "
    "'output_specs': [{'user_output': {'arg': {'as_tensor': {'name': 'getitem'}}}}]}, "
    "'module_call_graph': [{'fqn': ''}]}, "
    "'opset_version': {'aten': 10}, "
    "'range_constraints': {'s0': {'min_val': 2, 'max_val': Infinity}, "
    "'s1': {'min_val': -Infinity, 'max_val': NaN}}, "
    "'schema_version': {'major': 5, 'minor': 4}, 'dialect': '', 'verifiers': ['EDGE']}";

static char *lenet_json(mlia_arena *a)
{
    char *payload = mlia_arena_printf(
        a, "{'backend_id': 'VgfBackend', 'processed_bytes': 'AAEC', 'compile_specs': "
           "[{'key': 'output_format', 'value': 'dmdm'}], 'original_module': %s, "
           "'original_state_dict': '', 'original_constants': ''}",
        ORIGINAL_MODULE);
    payload = q(a, payload);
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_json_escape(&b, payload, strlen(payload), false);
    /* The escaped payload is inserted after q() so its quotes stay escaped. */
    char *fmt = q(a, LENET_FMT);
    char *r = mlia_arena_printf(a, fmt, b.data);
    mlia_buf_free(&b);
    return r;
}

static ep_program *parse(mlia_arena *a, const char *json, mlia_error *err)
{
    ep_program *p = NULL;
    mlia_error_clear(err);
    if (ep_parse(json, strlen(json), "f.etrecord", "edge_dialect_exported_program/forward", a, &p,
                 err) < 0)
        return NULL;
    return p;
}

TEST(lenet_current_form)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    ep_program *p = parse(&a, lenet_json(&a), &err);
    if (!p)
        TEST_FAIL_AT("%s", err.text);
    CHECK(p);
    CHECK(!p->legacy);
    CHECK_INT(p->schema_major, 5);
    CHECK_INT(p->schema_minor, 4);
    CHECK_UINT(p->n_verifiers, 1);
    CHECK_STR(p->verifiers[0], "EDGE");
    CHECK_STR(p->entry, "edge_dialect_exported_program/forward");
    const ep_graph *g = &p->graph;
    CHECK_UINT(g->n_nodes, 5);
    CHECK_UINT(g->n_inputs, 5);
    CHECK_STR(g->inputs[3], "x");
    CHECK_STR(g->inputs[4], "s0");
    CHECK_UINT(g->n_outputs, 1);
    CHECK_STR(g->outputs[0], "getitem");
    CHECK(!g->is_single_tensor_return);

    const ep_node *conv = &g->nodes[0];
    CHECK_STR(conv->name, "aten_convolution_default");
    CHECK_STR(ep_target_short(conv->target), "aten.convolution.default");
    CHECK_INT(conv->debug_handle, 1);
    CHECK_UINT(conv->n_inputs, 6);
    CHECK_STR(conv->inputs[0].name, "input");
    CHECK_INT(conv->inputs[0].kind, EP_ARG_TENSOR);
    CHECK_UINT(conv->inputs[0].n_tensors, 1);
    CHECK_STR(conv->inputs[0].tensors[0], "x");
    CHECK_INT(conv->inputs[2].kind, EP_ARG_NONE);
    CHECK(conv->inputs[2].value == NULL);
    CHECK_INT(conv->inputs[3].kind, EP_ARG_INTS);
    CHECK_STR(conv->inputs[3].value, "[1,1]");
    CHECK_STR(conv->inputs[4].value, "false");
    CHECK_STR(conv->inputs[5].kind_name, "as_int");
    CHECK_STR(conv->inputs[5].value, "1");
    CHECK_UINT(conv->n_outputs, 1);
    CHECK_STR(conv->outputs[0], "aten_convolution_default");
    CHECK_STR(conv->stack_trace, "  File \"/home/u/lenet.py\", line 20, in forward\n    x = self.conv1(x)\n");
    CHECK_STR(conv->nn_module_stack_raw,
              "L__self__,,__main__.LeNet;L__self___conv1,conv1,torch.nn.modules.conv.Conv2d");
    CHECK_UINT(conv->n_modules, 2);
    CHECK_STR(conv->modules[0].key, "L__self__");
    CHECK_STR(conv->modules[0].path, "");
    CHECK_STR(conv->modules[0].type, "__main__.LeNet");
    CHECK_STR(conv->modules[1].path, "conv1");
    CHECK_STR(conv->modules[1].type, "torch.nn.modules.conv.Conv2d");
    CHECK_STR(conv->source_fn_stack, "conv1,torch.nn.modules.conv.Conv2d");
    CHECK_UINT(conv->n_source_fns, 1);
    CHECK_STR(conv->source_fns[0].name, "conv1");
    CHECK_STR(conv->source_fns[0].target, "torch.nn.modules.conv.Conv2d");
    CHECK_STR(conv->from_node, "[{\"name\": \"conv2d\", \"graph_id\": 140, \"from_node\": []}]");
    CHECK_STR(conv->torch_fn, "conv2d_1;class.Conv2d");
    CHECK_UINT(conv->n_meta, 6);
    CHECK_STR(conv->meta[3].key, "debug_handle");
    CHECK_STR(conv->meta[3].value, "1");
    CHECK(conv->delegate_backend == NULL && !conv->is_delegate);

    const ep_node *pool = &g->nodes[1];
    CHECK_UINT(pool->n_outputs, 2);
    CHECK_STR(pool->outputs[0], "getitem_1");
    CHECK_STR(pool->outputs[1], "aten_max_pool2d_with_indices_default_unused_1");
    CHECK_UINT(pool->n_output_args, 1);
    CHECK_INT(pool->output_args[0].kind, EP_ARG_TENSORS);
    CHECK_UINT(pool->n_modules, 2);
    CHECK_STR(pool->modules[1].path, "getattr(L__self__.layers, 0)");
    CHECK_STR(pool->modules[1].type, "torch.nn.MaxPool2d");
    CHECK(pool->stack_trace == NULL && pool->source_fn_stack == NULL);

    /* Decomposed linear: both nodes carry handle 3. */
    CHECK_INT(g->nodes[2].debug_handle, 3);
    CHECK_INT(g->nodes[3].debug_handle, 3);
    const ep_node *mm = &g->nodes[3];
    CHECK_STR(mm->inputs[3].value, "1.5");
    CHECK_INT(mm->inputs[4].kind, EP_ARG_SYM_INT);
    CHECK_STR(mm->inputs[4].sym_name, "s0");
    CHECK_INT(mm->inputs[5].kind, EP_ARG_OPTIONAL_TENSORS);
    CHECK_UINT(mm->inputs[5].n_tensors, 1);
    CHECK_STR(mm->inputs[5].tensors[0], "x");
    CHECK_INT(mm->inputs[6].kind, EP_ARG_SCALAR_TYPE);
    CHECK_STR(mm->inputs[6].value, "7");
    CHECK_STR(mm->inputs[7].value, "fast");

    const ep_node *del = &g->nodes[4];
    CHECK(del->is_delegate);
    CHECK_STR(del->delegate_backend, "VgfBackend");
    CHECK_STR(del->delegate_module, "lowered_module_0");
    CHECK_INT(del->debug_handle, 0);
    CHECK_UINT(del->n_outputs, 1);
    CHECK_STR(del->outputs[0], "getitem");
    CHECK(del->delegate_original != NULL);
    CHECK_UINT(del->delegate_original->graph.n_nodes, 1);
    CHECK_STR(del->delegate_original->graph.nodes[0].name, "aten_relu_default");
    CHECK_INT(del->delegate_original->graph.nodes[0].debug_handle, 5);
    CHECK(del->delegate_original->graph.is_single_tensor_return);
    CHECK(ep_find_node(g, "executorch_call_delegate") == del);
    CHECK(ep_find_node(g, "nope") == NULL);

    /* Tensor metadata. */
    CHECK_UINT(g->n_tensors, 3);
    const ep_tensor_meta *x = ep_tensor(g, "x");
    CHECK(x);
    CHECK_INT(x->dtype, 7);
    CHECK_STR(ep_dtype_name(x->dtype), "float32");
    CHECK_UINT(x->rank, 4);
    CHECK(x->dynamic);
    CHECK_STR(x->size_exprs[0], "s0");
    CHECK(x->size_exprs[1] == NULL);
    CHECK_INT(x->sizes[2], 28);
    CHECK_UINT(x->n_strides, 4);
    CHECK_INT(x->strides[1], 784);
    CHECK_STR(x->device, "cpu");
    CHECK_INT(x->device_index, -1);
    CHECK_INT(x->layout, 7);
    const ep_tensor_meta *cv = ep_tensor(g, "aten_convolution_default");
    CHECK(cv && !cv->dynamic);
    CHECK_STR(ep_dtype_name(cv->dtype), "int8");
    CHECK_INT(cv->storage_offset, 3);
    CHECK_INT(cv->device_index, 0);
    CHECK(ep_tensor(g, "getitem")->requires_grad);
    CHECK(ep_tensor(g, "p_fc_weight") == NULL);

    /* Signature. */
    CHECK_UINT(p->n_input_specs, 5);
    CHECK_STR(p->input_specs[0].kind, "parameter");
    CHECK_STR(p->input_specs[0].arg_name, "p_conv1_weight");
    CHECK_STR(p->input_specs[0].target, "conv1.weight");
    CHECK_STR(p->input_specs[2].kind, "buffer");
    CHECK_STR(p->input_specs[2].target, "bn.running_mean");
    CHECK_STR(p->input_specs[3].kind, "user_input");
    CHECK_STR(p->input_specs[3].arg_name, "x");
    CHECK(p->input_specs[3].target == NULL);
    CHECK_STR(p->input_specs[4].kind, "constant_input");
    CHECK_STR(p->input_specs[4].arg_name, "c0");
    CHECK_UINT(p->n_output_specs, 1);
    CHECK_STR(p->output_specs[0].kind, "user_output");
    CHECK_STR(p->output_specs[0].arg_name, "getitem");

    /* Non-finite range constraints are kept. */
    mlia_json *s1 = mlia_json_get(p->range_constraints, "s1");
    CHECK(s1);
    CHECK(isinf(mlia_json_get(s1, "min_val")->u.number.d));
    CHECK(isnan(mlia_json_get(s1, "max_val")->u.number.d));
    CHECK(isinf(mlia_json_get(mlia_json_get(p->range_constraints, "s0"), "max_val")->u.number.d));
    CHECK_INT(mlia_json_get(p->opset_version, "aten")->u.number.i, 10);
    mlia_arena_free(&a);
}

/* The legacy serde form (2023): unions list every member, nodes have no
 * name, tensor metadata is wrapped in "meta", schema_version is an int. */
static const char LEGACY[] =
    "{'graph_module': {'graph': {'inputs': [{'as_none': null, 'as_tensor': {'name': 'arg0_1'}, "
    "'as_int': null}], 'outputs': [{'as_none': null, 'as_tensor': {'name': 'aten_mul_tensor'}, "
    "'as_int': null}], 'nodes': [{'target': 'executorch.exir.dialects.edge.ops.aten.mul.Tensor', "
    "'inputs': [{'name': 'self', 'arg': {'as_none': null, 'as_tensor': {'name': 'arg0_1'}, "
    "'as_int': null}}, {'name': 'other', 'arg': {'as_none': null, 'as_tensor': null, 'as_int': "
    "2}}], 'outputs': [{'as_none': null, 'as_tensor': {'name': 'aten_mul_tensor'}, 'as_int': "
    "null}], 'metadata': {'source_fn_stack': 'mul,_operator.mul', 'debug_handle': '2'}}, "
    "{'target': 'executorch.exir.dialects.edge.ops.aten.add.Tensor', 'inputs': [], 'outputs': "
    "[], 'metadata': {}}], 'tensor_values': {'arg0_1': {'meta': {'dtype': 7, 'sizes': "
    "[{'as_expr': null, 'as_int': 3}, {'as_expr': null, 'as_int': 2}], 'requires_grad': false, "
    "'device': {'type': 'cpu', 'index': null}, 'strides': [{'as_expr': null, 'as_int': 2}, "
    "{'as_expr': null, 'as_int': 1}], 'storage_offset': 0, 'layout': 7}}}, 'sym_int_values': "
    "{}, 'sym_bool_values': {}, 'is_single_tensor_return': false, 'constants': {}}, "
    "'signature': {'input_specs': [{'user_input': {'arg': {'as_none': null, 'as_tensor': "
    "{'name': 'arg0_1'}}}, 'parameter': null, 'buffer': null}], 'output_specs': "
    "[{'user_output': {'arg': {'as_none': null, 'as_tensor': {'name': 'aten_mul_tensor'}}}, "
    "'loss_output': null}]}, 'module_call_graph': []}, 'opset_version': {'aten': 10}, "
    "'range_constraints': {}, 'equality_constraints': [], 'schema_version': 1, "
    "'example_inputs': null}";

TEST(legacy_form)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    ep_program *p = parse(&a, q(&a, LEGACY), &err);
    if (!p)
        TEST_FAIL_AT("%s", err.text);
    CHECK(p);
    CHECK(p->legacy);
    CHECK_INT(p->schema_major, 1);
    CHECK_UINT(p->graph.n_nodes, 2);
    const ep_node *n = &p->graph.nodes[0];
    CHECK_STR(n->name, "aten_mul_tensor"); /* first output */
    CHECK_STR(ep_target_short(n->target), "aten.mul.Tensor");
    CHECK_INT(n->inputs[0].kind, EP_ARG_TENSOR);
    CHECK_STR(n->inputs[0].tensors[0], "arg0_1");
    CHECK_INT(n->inputs[1].kind, EP_ARG_INT);
    CHECK_STR(n->inputs[1].value, "2");
    CHECK_INT(n->debug_handle, 2);
    CHECK_STR(n->source_fns[0].target, "_operator.mul");
    CHECK_STR(p->graph.nodes[1].name, "node_1"); /* no outputs: positional name */
    CHECK_INT(p->graph.nodes[1].debug_handle, 0);
    const ep_tensor_meta *t = ep_tensor(&p->graph, "arg0_1");
    CHECK(t);
    CHECK_INT(t->dtype, 7);
    CHECK_UINT(t->rank, 2);
    CHECK_INT(t->sizes[0], 3);
    CHECK_INT(t->sizes[1], 2);
    CHECK_INT(t->strides[0], 2);
    CHECK_INT(t->storage_offset, 0);
    CHECK_INT(t->device_index, -1);
    CHECK_STR(p->input_specs[0].kind, "user_input");
    CHECK_STR(p->input_specs[0].arg_name, "arg0_1");
    CHECK_STR(p->output_specs[0].arg_name, "aten_mul_tensor");
    CHECK_STR(p->graph.inputs[0], "arg0_1");
    mlia_arena_free(&a);
}

/* Replaces the first occurrence of `from` in the LeNet JSON with `to` and
 * returns the parse error. */
static const char *lenet_error(mlia_arena *a, const char *from, const char *to)
{
    static mlia_error err;
    char *json = lenet_json(a);
    char *f = q(a, from), *t = q(a, to);
    char *at = strstr(json, f);
    if (!at)
        return "(pattern not found)";
    *at = 0;
    char *mod = mlia_arena_printf(a, "%s%s%s", json, t, at + strlen(f));
    if (parse(a, mod, &err))
        return "(parsed)";
    return err.text;
}

TEST(structural_errors)
{
    mlia_arena a;
    mlia_arena_init(&a);
    const char *P = "f.etrecord: edge_dialect_exported_program/forward: ";
    char want[512];
#define EXPECT(from, to, msg)                                                      \
    do {                                                                           \
        snprintf(want, sizeof want, "%s%s", P, msg);                               \
        CHECK_STR(lenet_error(&a, from, to), want);                                \
    } while (0)
    EXPECT("'target': 'torch.ops.higher_order.executorch_call_delegate'", "'target': 7",
           "graph_module.graph.nodes[4].target: expected a string");
    EXPECT("'name': 'aten_addmm_default', 'target'", "'name': ['x'], 'target'",
           "graph_module.graph.nodes[3].name: expected a string");
    EXPECT("{'name': 'mat1', 'arg': {'as_tensor': {'name': 'getitem_1'}}}",
           "{'name': 'mat1', 'arg': {'as_tensor': {'name': 'getitem_1'}, 'as_int': 3}}",
           "graph_module.graph.nodes[3].inputs[1].arg: expected a union with one non-null "
           "member, found 2");
    EXPECT("{'name': 'mat1', 'arg': {'as_tensor': {'name': 'getitem_1'}}}",
           "{'name': 'mat1', 'arg': {'as_int': null}}",
           "graph_module.graph.nodes[3].inputs[1].arg: expected a union with one non-null "
           "member, found none");
    EXPECT("{'name': 'mat1', 'arg': {'as_tensor': {'name': 'getitem_1'}}}",
           "{'name': 'mat1', 'arg': {'as_tensor': {'nam': 'getitem_1'}}}",
           "graph_module.graph.nodes[3].inputs[1].arg.as_tensor.name: expected a string");
    EXPECT("{'name': 'mat1', 'arg'", "{'arg'",
           "graph_module.graph.nodes[3].inputs[1].name: expected a string");
    EXPECT("'outputs': [{'as_tensor': {'name': 'aten_permute_copy_default'}}]",
           "'outputs': {}", "graph_module.graph.nodes[2].outputs: expected an array");
    EXPECT("{'as_tensor': {'name': 'x'}}, {'as_none': []}]",
           "{'as_tensor': {'name': 'x'}}, {'as_int': 1}]",
           "graph_module.graph.nodes[3].inputs[5].arg.as_optional_tensors[1]: expected "
           "as_tensor or as_none, found as_int");
    EXPECT("'debug_handle': '3', 'source_fn_stack'", "'debug_handle': '3x', 'source_fn_stack'",
           "graph_module.graph.nodes[2].metadata.debug_handle: expected a decimal integer, "
           "found \"3x\"");
    EXPECT("'debug_handle': '1'", "'debug_handle': 1",
           "graph_module.graph.nodes[0].metadata.debug_handle: expected a string");
    EXPECT("L__self___conv1,conv1,torch", "L__self___conv1,conv1,x,torch",
           "graph_module.graph.nodes[0].metadata.nn_module_stack: entry 1 has 4 "
           "comma-separated parts, expected key,path,type");
    EXPECT("'source_fn_stack': 'conv1,torch", "'source_fn_stack': 'conv1torch",
           "graph_module.graph.nodes[0].metadata.source_fn_stack: entry 0 is not name,target");
    EXPECT("'x': {'dtype': 7,", "'x': {'dtype': 'f32',",
           "graph_module.graph.tensor_values.x.dtype: expected an integer");
    EXPECT("{'as_int': 24}, {'as_int': 24}]", "{'as_int': 24}, {'as_float': 2.0}]",
           "graph_module.graph.tensor_values.aten_convolution_default.sizes[3]: expected "
           "as_int or as_expr, found as_float");
    EXPECT("{'as_int': 24}, {'as_int': 24}]", "{'as_int': 24}, {'as_int': 2.5}]",
           "graph_module.graph.tensor_values.aten_convolution_default.sizes[3].as_int: "
           "expected an integer");
    EXPECT("'graph_module': {'graph': {", "'graph_module': {'graphs': {",
           "graph_module.graph: expected an object");
    EXPECT("'schema_version': {'major': 5, 'minor': 4}, 'dialect': '', 'verifiers': ['EDGE']}",
           "'schema_version': 'five'}", "schema_version: expected an object or an integer");
    EXPECT("'input_specs': [{'parameter'", "'input_specs': [{'buffer': {}, 'parameter'",
           "graph_module.signature.input_specs[0]: expected a union with one non-null member, "
           "found 2");
    EXPECT("{'parameter': {'arg': {'name': 'p_fc_weight'}", "{'parameter': {'arg': {'name': 5}",
           "graph_module.signature.input_specs[1].parameter.arg.name: expected a string");
#undef EXPECT
    mlia_arena_free(&a);
}

TEST(invalid_json_names_entry_and_byte)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    CHECK(!parse(&a, "{\"graph_module\": {\"graph\": [1,,]}}", &err));
    CHECK_STR(err.text, "f.etrecord: edge_dialect_exported_program/forward: invalid JSON at byte "
                        "30: unexpected ',', expected a value");
    CHECK(!parse(&a, "[]", &err));
    CHECK_STR(err.text, "f.etrecord: edge_dialect_exported_program/forward: expected an object");
    /* Without file and entry names the message is the bare reason. */
    ep_program *p;
    mlia_error_clear(&err);
    CHECK_INT(ep_parse("{}", 2, NULL, NULL, &a, &p, &err), -1);
    CHECK_STR(err.text, "graph_module: expected an object");
    mlia_arena_free(&a);
}

TEST(delegate_payload_errors)
{
    mlia_arena a;
    mlia_arena_init(&a);
    const char *head =
        "{'graph_module': {'graph': {'inputs': [], 'outputs': [], 'nodes': [{'name': 'd', "
        "'target': 'torch.ops.higher_order.executorch_call_delegate', 'inputs': [";
    const char *tail = "], 'outputs': [], 'metadata': {}}]}}}";
    struct {
        const char *inputs;
        const char *msg;
    } cases[] = {
        {"", "graph_module.graph.nodes[0].inputs: executorch_call_delegate has no inputs"},
        {"{'name': 'lowered_module_0', 'arg': {'as_int': 1}}",
         "graph_module.graph.nodes[0].inputs[0].arg: expected the lowered module as_string, "
         "found as_int"},
        {"{'name': 'lowered_module_0', 'arg': {'as_string': '{\\'backend_id\\': 1}'}}",
         "graph_module.graph.nodes[0].inputs[0].arg.as_string: backend_id: expected a string"},
        {"{'name': 'lowered_module_0', 'arg': {'as_string': '{\\'backend_id\\': '}}",
         "graph_module.graph.nodes[0].inputs[0].arg.as_string: invalid JSON at byte 15: "
         "unexpected end of input"},
        {"{'name': 'lowered_module_0', 'arg': {'as_string': '{\\'backend_id\\': \\'X\\', "
         "\\'original_module\\': {\\'graph_module\\': 3}}'}}",
         "graph_module.graph.nodes[0].inputs[0].arg.as_string: original_module.graph_module: "
         "expected an object"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        mlia_error err;
        char *json = q(&a, mlia_arena_printf(&a, "%s%s%s", head, cases[i].inputs, tail));
        CHECK(!parse(&a, json, &err));
        char want[512];
        snprintf(want, sizeof want, "f.etrecord: edge_dialect_exported_program/forward: %s",
                 cases[i].msg);
        CHECK_STR(err.text, want);
    }
    mlia_arena_free(&a);
}

TEST(nested_graph_depth_limit)
{
    mlia_arena a;
    mlia_arena_init(&a);
    /* A node whose as_graph argument holds a graph with such a node, n deep. */
    for (int depth = 16; depth <= 17; depth++) {
        mlia_buf b;
        mlia_buf_init(&b);
        mlia_buf_puts(&b, "{\"graph_module\": {\"graph\": ");
        for (int i = 0; i < depth; i++)
            mlia_buf_puts(&b, "{\"inputs\": [], \"outputs\": [], \"nodes\": [{\"target\": "
                              "\"torch.ops.higher_order.cond\", \"inputs\": [{\"name\": \"\", "
                              "\"arg\": {\"as_graph\": {\"name\": \"g\", \"graph\": ");
        mlia_buf_puts(&b, "{\"inputs\": [], \"outputs\": [], \"nodes\": []}");
        for (int i = 0; i < depth; i++)
            mlia_buf_puts(&b, "}}}], \"outputs\": []}]}");
        mlia_buf_puts(&b, "}}");
        mlia_error err;
        ep_program *p = parse(&a, b.data, &err);
        mlia_buf_free(&b);
        if (depth == 16) {
            if (!p)
                TEST_FAIL_AT("%s", err.text);
            CHECK(p);
            const ep_graph *g = &p->graph;
            for (int i = 0; i < 16; i++) {
                CHECK_INT(g->nodes[0].inputs[0].kind, EP_ARG_GRAPH);
                CHECK_STR(g->nodes[0].inputs[0].value, "g");
                g = g->nodes[0].inputs[0].graph;
            }
            CHECK_UINT(g->depth, 16);
            CHECK_UINT(g->n_nodes, 0);
        } else {
            CHECK(!p);
            CHECK_CONTAINS(err.text, "graphs nested deeper than 16 levels");
            CHECK_CONTAINS(err.text, "f.etrecord: edge_dialect_exported_program/forward: "
                                     "graph_module.graph.nodes[0].inputs[0].arg.as_graph.graph."
                                     "nodes[0]");
        }
    }
    mlia_arena_free(&a);
}

TEST(many_nodes_parse_fast)
{
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_puts(&b, "{\"graph_module\": {\"graph\": {\"inputs\": [{\"as_tensor\": {\"name\": "
                      "\"t0\"}}], \"outputs\": [], \"nodes\": [");
    int n = 5000;
    for (int i = 0; i < n; i++)
        mlia_buf_printf(&b,
                        "%s{\"name\": \"aten_add_tensor_%d\", \"target\": "
                        "\"executorch.exir.dialects.edge.ops.aten.add.Tensor\", \"inputs\": "
                        "[{\"name\": \"self\", \"arg\": {\"as_tensor\": {\"name\": \"t%d\"}}}, "
                        "{\"name\": \"other\", \"arg\": {\"as_tensor\": {\"name\": \"t%d\"}}}], "
                        "\"outputs\": [{\"as_tensor\": {\"name\": \"t%d\"}}], \"metadata\": "
                        "{\"debug_handle\": \"%d\", \"nn_module_stack\": \"L__self__,,M;"
                        "L__self___l%d,l%d,torch.nn.Linear\", \"stack_trace\": \"  File "
                        "\\\"m.py\\\", line %d, in forward\\n    x\\n\"}}",
                        i ? ", " : "", i, i, i, i + 1, i + 1, i, i, i);
    mlia_buf_puts(&b, "], \"tensor_values\": {");
    for (int i = 0; i <= n; i++)
        mlia_buf_printf(&b,
                        "%s\"t%d\": {\"dtype\": 7, \"sizes\": [{\"as_int\": 1}, {\"as_int\": 8}], "
                        "\"requires_grad\": false, \"device\": {\"type\": \"cpu\"}, "
                        "\"strides\": [{\"as_int\": 8}, {\"as_int\": 1}], \"storage_offset\": "
                        "{\"as_int\": 0}, \"layout\": 7}",
                        i ? ", " : "", i);
    mlia_buf_puts(&b, "}}}}");
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    clock_t t0 = clock();
    ep_program *p = parse(&a, b.data, &err);
    double secs = (double)(clock() - t0) / CLOCKS_PER_SEC;
    mlia_buf_free(&b);
    CHECK(p);
    CHECK_UINT(p->graph.n_nodes, (unsigned)n);
    CHECK_UINT(p->graph.n_tensors, (unsigned)n + 1);
    CHECK_INT(p->graph.nodes[4999].debug_handle, 5000);
    CHECK_STR(p->graph.nodes[4999].modules[1].path, "l4999");
    for (int i = 0; i <= n; i += 997) {
        char name[32];
        snprintf(name, sizeof name, "t%d", i);
        const ep_tensor_meta *t = ep_tensor(&p->graph, name);
        CHECK(t);
        CHECK_STR(t->name, name);
    }
    CHECK(ep_tensor(&p->graph, "t5001") == NULL);
    CHECK(secs < 2.0);
    mlia_arena_free(&a);
}

TEST(helpers)
{
    CHECK_STR(ep_target_short("executorch.exir.dialects.edge.ops.aten.convolution.default"),
              "aten.convolution.default");
    CHECK_STR(ep_target_short("_operator.mul"), "_operator.mul");
    CHECK_STR(ep_dtype_name(0), "unknown");
    CHECK_STR(ep_dtype_name(12), "bool");
    CHECK_STR(ep_dtype_name(13), "bfloat16");
    CHECK_STR(ep_dtype_name(16), "float8_e4m3fn");
    CHECK_STR(ep_dtype_name(17), "unknown");
    CHECK_STR(ep_dtype_name(-1), "unknown");
}

/* The debug-handle index: nodes without a handle left out, sorted by
 * (handle, node), the first entry of a handle found by binary search. */
TEST(debug_handle_index)
{
    ep_node nodes[5];
    memset(nodes, 0, sizeof nodes);
    const int64_t handles[5] = {7, 0, 3, 7, -2};
    for (int i = 0; i < 5; i++)
        nodes[i].debug_handle = handles[i];
    ep_graph g;
    memset(&g, 0, sizeof g);
    g.nodes = nodes;
    g.n_nodes = 5;
    mlia_arena a;
    mlia_arena_init(&a);
    uint32_t n;
    const ep_handle_node *idx = ep_handle_index(&g, &a, &n);
    CHECK_UINT(n, 4);
    CHECK_INT(idx[0].handle, -2);
    CHECK_UINT(idx[0].node, 4);
    CHECK_INT(idx[1].handle, 3);
    CHECK_UINT(idx[2].node, 0);
    CHECK_UINT(idx[3].node, 3);
    CHECK_UINT(ep_handle_first(idx, n, 7), 2);
    CHECK_UINT(ep_handle_first(idx, n, 3), 1);
    CHECK_UINT(ep_handle_first(idx, n, 5), 2); /* absent: the first larger */
    CHECK_UINT(ep_handle_first(idx, n, 8), 4);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(debug_handle_index);
    RUN(lenet_current_form);
    RUN(legacy_form);
    RUN(structural_errors);
    RUN(invalid_json_names_entry_and_byte);
    RUN(delegate_payload_errors);
    RUN(nested_graph_depth_limit);
    RUN(many_nodes_parse_fast);
    RUN(helpers);
    return test_summary();
}
