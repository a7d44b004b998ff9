"""ExportedProgram JSON writer (docs/formats/exported-program.md).

Design: the program model (placeholders, call_function nodes, tensor
shapes) is rendered either in the current serde form (schema 5.4: unions are
one-key objects, nodes have names) or in the legacy 2023 form (unions list
every member with null, nodes without names, tensor_values wrapped in
`meta`).  Output is `json.dumps` text with default separators and ASCII
escaping, like torch's serializer; float infinities become Python's bare
`Infinity` token on purpose (range_constraints) so readers meet it.

Model:
  {"inputs": [{"name", "shape", "dtype", "kind": "user_input"|"parameter"|
               "buffer", "target"}],
   "nodes": [{"name", "target" (full target string), "args": [(name, value)],
              "outputs": [tensor name], "output_list": bool,
              "metadata": {str: str}}],
   "tensors": {name: {"shape", "dtype"}},
   "outputs": [tensor name],
   "range_constraints": {symbol: (min, max)}}
Argument values: {"tensor": n} | {"tensors": [n]} | {"int": i} | {"ints": [i]}
  | {"float": x} | {"bool": b} | {"string": s} | {"none": None}
  | {"scalar_type": i} | {"optional_tensors": [n or None]}
"""

import json

SERDE_DTYPE = {"uint8": 1, "int8": 2, "int16": 3, "int32": 4, "int64": 5, "float16": 6,
               "float32": 7, "float64": 8, "bool": 12, "bfloat16": 13, "uint16": 14}
FB_DTYPE = {"uint8": 0, "int8": 1, "int16": 2, "int32": 3, "int64": 4, "float16": 5,
            "float32": 6, "float64": 7, "bool": 11, "bfloat16": 15, "uint16": 27}
DTYPE_BYTES = {"uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8, "float16": 2,
               "float32": 4, "float64": 8, "bool": 1, "bfloat16": 2, "uint16": 2}

ARG_KEYS = ["as_none", "as_tensor", "as_tensors", "as_int", "as_ints", "as_float",
            "as_floats", "as_string", "as_strings", "as_sym_int", "as_sym_ints",
            "as_scalar_type", "as_memory_format", "as_layout", "as_device", "as_bool",
            "as_bools", "as_sym_bool", "as_sym_bools", "as_graph", "as_optional_tensors",
            "as_custom_obj"]
INPUT_SPEC_KEYS = ["user_input", "parameter", "buffer", "tensor_constant"]
OUTPUT_SPEC_KEYS = ["user_output", "loss_output", "buffer_mutation",
                    "gradient_to_parameter", "gradient_to_user_input",
                    "user_input_mutation"]


def _union(key, value, legacy, keys):
    if not legacy:
        return {key: value}
    return {k: (value if k == key else None) for k in keys}


def _arg(value, legacy):
    (kind, v), = value.items()
    if kind == "tensor":
        return _union("as_tensor", {"name": v}, legacy, ARG_KEYS)
    if kind == "tensors":
        return _union("as_tensors", [{"name": n} for n in v], legacy, ARG_KEYS)
    if kind == "optional_tensors":
        items = [{"as_none": []} if n is None else {"as_tensor": {"name": n}} for n in v]
        return _union("as_optional_tensors", items, legacy, ARG_KEYS)
    if kind == "none":
        return _union("as_none", [], legacy, ARG_KEYS)
    return _union("as_" + kind, v, legacy, ARG_KEYS)


def _symint(v, legacy):
    if isinstance(v, str):
        return _union("as_expr", {"expr_str": v}, legacy, ["as_expr", "as_int"])
    return _union("as_int", v, legacy, ["as_expr", "as_int"])


def tensor_meta(shape, dtype, legacy=False):
    strides = []
    acc = 1
    for d in reversed(shape):
        strides.append(acc)
        acc *= d if isinstance(d, int) else 1
    strides.reverse()
    meta = {"dtype": SERDE_DTYPE[dtype], "sizes": [_symint(d, legacy) for d in shape],
            "requires_grad": False, "device": {"type": "cpu"},
            "strides": [_symint(s, legacy) for s in strides],
            "storage_offset": 0 if legacy else {"as_int": 0}, "layout": 7}
    if legacy:
        meta["device"]["index"] = None
    return {"meta": meta} if legacy else meta


def exported_program(model, legacy=False, verifiers=("EDGE",)):
    """Return the ExportedProgram as a dict (see module doc)."""
    nodes = []
    for n in model["nodes"]:
        outs = n["outputs"]
        if n.get("output_list") or len(outs) > 1:
            outputs = [_arg({"tensors": outs}, legacy)]
        else:
            outputs = [_arg({"tensor": outs[0]}, legacy)]
        node = {"target": n["target"],
                "inputs": [{"name": a, "arg": _arg(v, legacy)} for a, v in n["args"]],
                "outputs": outputs, "metadata": dict(n.get("metadata", {}))}
        if not legacy:
            node = {"name": n["name"], **node}
        nodes.append(node)
    tensors = {name: tensor_meta(t["shape"], t["dtype"], legacy)
               for name, t in model["tensors"].items()}
    graph = {"inputs": [_arg({"tensor": i["name"]}, legacy) for i in model["inputs"]],
             "outputs": [_arg({"tensor": o}, legacy) for o in model["outputs"]],
             "nodes": nodes, "tensor_values": tensors, "sym_int_values": {},
             "sym_bool_values": {}, "is_single_tensor_return": len(model["outputs"]) == 1}
    if legacy:
        graph["constants"] = {}
    else:
        graph["custom_obj_values"] = {}
    in_specs = []
    for i in model["inputs"]:
        kind = i.get("kind", "user_input")
        spec = {"arg": {"name": i["name"]}}
        if kind == "parameter":
            spec["parameter_name"] = i["target"]
        elif kind == "buffer":
            spec["buffer_name"] = i["target"]
            spec["persistent"] = True
        in_specs.append(_union(kind, spec, legacy, INPUT_SPEC_KEYS))
    out_specs = [_union("user_output", {"arg": _arg({"tensor": o}, legacy)}
                        if legacy else {"arg": {"as_tensor": {"name": o}}},
                        legacy, OUTPUT_SPEC_KEYS) for o in model["outputs"]]
    gm = {"graph": graph, "signature": {"input_specs": in_specs, "output_specs": out_specs},
          "module_call_graph": [{"fqn": "", "signature": {
              "inputs": [_arg({"tensor": i["name"]}, legacy) for i in model["inputs"]
                         if i.get("kind", "user_input") == "user_input"],
              "outputs": [_arg({"tensor": o}, legacy) for o in model["outputs"]],
              "in_spec": '[1, {"type": "builtins.tuple", "context": "null", '
                         '"children_spec": []}]',
              "out_spec": '[1, {"type": null, "context": null, "children_spec": []}]'}}]}
    rc = {s: {"min_val": lo, "max_val": float("inf") if hi in ("inf", None) else hi}
          for s, (lo, hi) in model.get("range_constraints", {}).items()}
    if legacy:
        return {"graph_module": gm, "opset_version": {"aten": 10}, "range_constraints": rc,
                "equality_constraints": [], "schema_version": 1, "example_inputs": None}
    return {"graph_module": gm, "opset_version": {"aten": 10}, "range_constraints": rc,
            "schema_version": {"major": 5, "minor": 4}, "dialect": "",
            "verifiers": list(verifiers)}


def dumps(ep, legacy=False):
    """Serialize like torch: json.dumps default separators; legacy is one
    line too. Infinity/NaN stay Python's bare tokens."""
    return json.dumps(ep, allow_nan=True)


def delegate_node(name, backend_id, original_model, args, outputs, metadata,
                  processed=b"", compile_specs=()):
    """An executorch_call_delegate node whose inputs[0] is the JSON text of a
    LoweredBackendModule (original_module = a complete ExportedProgram)."""
    import base64
    lowered = {"backend_id": backend_id,
               "processed_bytes": base64.b64encode(processed).decode("ascii"),
               "compile_specs": [{"key": k, "value": base64.b64encode(v).decode("ascii")}
                                 for k, v in compile_specs],
               "original_module": exported_program(original_model),
               "original_state_dict": "", "original_constants": ""}
    return {"name": name, "target": "torch.ops.higher_order.executorch_call_delegate",
            "args": [("lowered_module_0", {"string": json.dumps(lowered, allow_nan=True)})]
            + [("delegate_arg_%d" % i, {"tensor": a}) for i, a in enumerate(args)],
            "outputs": outputs, "output_list": len(outputs) > 1, "metadata": metadata}
