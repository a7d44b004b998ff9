"""Conformance checker for mlia-output.json against Arm MLIA's output contract (schema 1.2.0).

Python standard library only. Three layers, each re-stated from Arm MLIA's published rules
(docs/result-format.md lists the sources):

1. structure: the JSON Schema rules, written down in mlia-output-1.2.0.rules.json next to
   this file and checked by a small validator of the keyword subset that file uses;
2. semantics: the rules MLIA checks in code because a schema cannot (basic field checks,
   result-local entity kinds, the entity graph: unique ids, resolving parent/child
   references, no directed cycle, every parent->child edge covered by a declared or
   well-known kind relationship, breakdown/check/advice references);
3. loader: what MLIA's loader requires to build its objects (required keys, enumerations,
   the metric value/availability rules, legacy entity fields), plus the producer rule that
   a performance result carries every standard performance metric with its unit.

Usage: validate.py FILE... prints the number of problems per file and the first few.
"""
import json
import math
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
RULES_PATH = os.path.join(HERE, "mlia-output-1.2.0.rules.json")

# Kinds whose meaning the schema itself defines: never declared in entity_kinds.
WELL_KNOWN_KINDS = {"source_operator", "model", "code_stack", "code_line"}
# Relationships owned by the schema (parent kind, child kind).
WELL_KNOWN_EDGES = {
    ("code_line", "code_stack"),
    ("code_stack", "code_stack"),
    ("code_stack", "source_operator"),
}
# MLIA's standard performance metrics and their units.
STANDARD_METRICS = {
    "accelerator_operator_percentage": "%",
    "inferences_per_second": "inferences/s",
    "cpu_utilization": "%",
    "target_utilization": "%",
    "inference_time": "ms",
    "model_weight_memory": "bytes",
    "peak_activation_memory": "bytes",
    "average_memory": "bytes",
}

_UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")
_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:\d{2}|Z)?$")
_SEMVER = re.compile(r"^[0-9]+\.[0-9]+\.[0-9]+$")
_SHA256 = re.compile(r"^[A-Fa-f0-9]{64}$")


def load_rules():
    with open(RULES_PATH, encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------------------
# 1. structure: JSON Schema keyword subset


def _is_type(value, name):
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if name == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if name == "integer":
        if isinstance(value, bool):
            return False
        return isinstance(value, int) or (isinstance(value, float) and value.is_integer())
    raise ValueError(f"unknown type {name}")


class SchemaChecker:
    KNOWN = {"$comment", "$defs", "$ref", "type", "required", "properties", "additionalProperties",
             "patternProperties", "items", "minItems", "uniqueItems", "enum", "const", "pattern",
             "minLength", "minimum", "oneOf", "format"}

    def __init__(self, rules):
        self.rules = rules

    def resolve(self, ref):
        if not ref.startswith("#/$defs/"):
            raise ValueError(f"unsupported $ref {ref}")
        return self.rules["$defs"][ref[len("#/$defs/"):]]

    def check(self, value, schema=None, path="$"):
        errors = []
        self._check(value, self.rules if schema is None else schema, path, errors)
        return errors

    def _check(self, value, schema, path, errors):
        unknown = set(schema) - self.KNOWN
        if unknown:
            raise ValueError(f"rules use unsupported keywords {sorted(unknown)}")
        if "$ref" in schema:
            self._check(value, self.resolve(schema["$ref"]), path, errors)
        if "type" in schema:
            types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
            if not any(_is_type(value, t) for t in types):
                errors.append(f"{path}: {json.dumps(value)[:60]} is not of type {' or '.join(types)}")
                return
        if "const" in schema and value != schema["const"]:
            errors.append(f"{path}: expected {json.dumps(schema['const'])}, got {json.dumps(value)[:60]}")
        if "enum" in schema and value not in schema["enum"]:
            errors.append(f"{path}: {json.dumps(value)[:60]} is not one of {schema['enum']}")
        if isinstance(value, str):
            if "pattern" in schema and not re.search(schema["pattern"], value):
                errors.append(f"{path}: {value[:60]!r} does not match {schema['pattern']!r}")
            if "minLength" in schema and len(value) < schema["minLength"]:
                errors.append(f"{path}: string shorter than {schema['minLength']}")
            fmt = schema.get("format")
            if fmt == "uuid" and not _UUID.match(value.lower()):
                errors.append(f"{path}: {value!r} is not a UUID")
            if fmt == "date-time" and not _DATE_TIME.match(value):
                errors.append(f"{path}: {value!r} is not an ISO 8601 date-time")
        if _is_type(value, "number") and "minimum" in schema and value < schema["minimum"]:
            errors.append(f"{path}: {value} is below {schema['minimum']}")
        if isinstance(value, list):
            if "minItems" in schema and len(value) < schema["minItems"]:
                errors.append(f"{path}: fewer than {schema['minItems']} item(s)")
            if schema.get("uniqueItems"):
                seen = []
                for item in value:
                    if item in seen:
                        errors.append(f"{path}: duplicate item {json.dumps(item)[:60]}")
                    seen.append(item)
            if "items" in schema:
                for i, item in enumerate(value):
                    self._check(item, schema["items"], f"{path}[{i}]", errors)
        if isinstance(value, dict):
            for key in schema.get("required", []):
                if key not in value:
                    errors.append(f"{path}: required property {key!r} missing")
            props = schema.get("properties", {})
            patterns = schema.get("patternProperties", {})
            extra = schema.get("additionalProperties", True)
            for key, item in value.items():
                matched = False
                if key in props:
                    matched = True
                    self._check(item, props[key], f"{path}.{key}", errors)
                for pat, sub in patterns.items():
                    if re.search(pat, key):
                        matched = True
                        self._check(item, sub, f"{path}.{key}", errors)
                if not matched:
                    if extra is False:
                        errors.append(f"{path}: additional property {key!r} is not allowed")
                    elif isinstance(extra, dict):
                        self._check(item, extra, f"{path}.{key}", errors)
        if "oneOf" in schema:
            branch_errors = []
            for sub in schema["oneOf"]:
                e = []
                self._check(value, sub, path, e)
                branch_errors.append(e)
            ok = sum(1 for e in branch_errors if not e)
            if ok != 1:
                detail = "; ".join(e[0] for e in branch_errors if e)
                errors.append(f"{path}: matches {ok} of the {len(branch_errors)} alternatives ({detail})")


# ---------------------------------------------------------------------------
# 2. semantics


def _basic(doc, errors):
    for key in ("schema_version", "run_id", "timestamp", "tool", "target", "model", "context",
                "backends", "results"):
        if key not in doc:
            errors.append(f"Missing required field: {key}")
    if isinstance(doc.get("schema_version"), str) and not _SEMVER.match(doc["schema_version"]):
        errors.append("schema_version is not semver")
    if isinstance(doc.get("run_id"), str) and not _UUID.match(doc["run_id"].lower()):
        errors.append("run_id is not a UUID")
    if isinstance(doc.get("timestamp"), str) and not _DATE_TIME.match(doc["timestamp"]):
        errors.append("timestamp is not ISO 8601")
    target = doc.get("target")
    if isinstance(target, dict):
        for key in ("profile_name", "target_type", "components", "configuration"):
            if key not in target:
                errors.append(f"Missing required field: target.{key}")
        comps = target.get("components")
        if comps is not None and (not isinstance(comps, list) or not comps):
            errors.append("target.components must be a non-empty array")
    model = doc.get("model")
    if isinstance(model, dict):
        if isinstance(model.get("hash"), str) and not _SHA256.match(model["hash"]):
            errors.append("model.hash is not a SHA-256")
    if isinstance(doc.get("backends"), list) and not doc["backends"]:
        errors.append("backends must have at least one item")


def _kind_list(value, path, errors):
    if value is None:
        return []
    if not isinstance(value, list):
        errors.append(f"{path} must be an array")
        return []
    out = []
    for i, k in enumerate(value):
        if not isinstance(k, str) or not k.strip():
            errors.append(f"{path}[{i}] must be a non-empty string")
        elif k in out:
            errors.append(f"Entity kind id {k!r} is duplicated in {path}")
        else:
            out.append(k)
    return out


def _find_cycle(children):
    state = {n: 0 for n in children}
    for root in sorted(children):
        if state[root]:
            continue
        path, pos = [root], {root: 0}
        state[root] = 1
        stack = [(root, iter(sorted(children[root])))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                stack.pop()
                state[node] = 2
                pos.pop(node)
                path.pop()
                continue
            if state[nxt] == 1:
                return path[pos[nxt]:] + [nxt]
            if state[nxt] == 2:
                continue
            state[nxt] = 1
            pos[nxt] = len(path)
            path.append(nxt)
            stack.append((nxt, iter(sorted(children[nxt]))))
    return None


def entity_graph(entities):
    """(children, parents) maps merged from parent_ids and child_ids of every entity."""
    ids = {e["id"] for e in entities if isinstance(e, dict) and isinstance(e.get("id"), str)}
    children = {i: set() for i in ids}
    parents = {i: set() for i in ids}
    for e in entities:
        if not isinstance(e, dict) or not isinstance(e.get("id"), str):
            continue
        for c in e.get("child_ids", []) or []:
            if c in ids:
                children[e["id"]].add(c)
                parents[c].add(e["id"])
        for p in e.get("parent_ids", []) or []:
            if p in ids:
                children[p].add(e["id"])
                parents[e["id"]].add(p)
    return children, parents


def _result_semantics(ri, result, errors):
    kinds = result.get("entity_kinds", [])
    declared = set()
    decls = []
    if not isinstance(kinds, list):
        errors.append(f"results[{ri}].entity_kinds must be an array")
        kinds = []
    for ki, item in enumerate(kinds):
        p = f"results[{ri}].entity_kinds[{ki}]"
        if not isinstance(item, dict):
            errors.append(f"{p} must be an object")
            continue
        kid = item.get("id")
        if not isinstance(kid, str) or not kid.strip():
            errors.append(f"{p}.id must be a non-empty string")
            kid = None
        else:
            if kid in WELL_KNOWN_KINDS:
                errors.append(f"Well-known entity kind {kid!r} must not be declared at {p}")
            if kid in declared:
                errors.append(f"Entity kind id {kid!r} must be unique in result {ri}")
            declared.add(kid)
        decls.append((ki, kid, _kind_list(item.get("parent_kinds"), f"{p}.parent_kinds", errors),
                      _kind_list(item.get("child_kinds"), f"{p}.child_kinds", errors)))
    valid_kinds = (declared - WELL_KNOWN_KINDS) | WELL_KNOWN_KINDS
    edges = set(WELL_KNOWN_EDGES)
    for ki, kid, pk, ck in decls:
        for field, refs in (("parent_kinds", pk), ("child_kinds", ck)):
            for j, ref in enumerate(refs):
                if ref not in valid_kinds:
                    errors.append(f"Entity kind reference {ref!r} at results[{ri}].entity_kinds[{ki}]."
                                  f"{field}[{j}] is neither well-known nor declared")
        if kid is None or kid not in valid_kinds:
            continue
        edges.update((kid, c) for c in ck if c in valid_kinds)
        edges.update((p, kid) for p in pk if p in valid_kinds)

    entities = result.get("entities", [])
    if not isinstance(entities, list):
        errors.append(f"results[{ri}].entities must be an array")
        return
    seen = {}
    kind_of = {}
    for ei, e in enumerate(entities):
        if not isinstance(e, dict):
            errors.append(f"results[{ri}].entities[{ei}] must be an object")
            continue
        eid = e.get("id")
        if isinstance(eid, str):
            if eid in seen:
                errors.append(f"Entity id {eid!r} must be unique within result {ri}")
            seen[eid] = ei
        k = e.get("kind")
        if not isinstance(k, str) or not k.strip():
            errors.append(f"results[{ri}].entities[{ei}].kind must be a non-empty string")
        elif k not in valid_kinds:
            errors.append(f"Entity kind {k!r} at results[{ri}].entities[{ei}] is neither well-known nor "
                          f"declared within this result")
        elif isinstance(eid, str):
            kind_of[eid] = k
    unresolved = False
    for ei, e in enumerate(entities):
        if not isinstance(e, dict):
            continue
        for field in ("parent_ids", "child_ids"):
            refs = e.get(field, [])
            if not isinstance(refs, list):
                continue
            for j, ref in enumerate(refs):
                if isinstance(ref, str) and ref not in seen:
                    unresolved = True
                    errors.append(f"Entity reference {ref!r} at results[{ri}].entities[{ei}].{field}[{j}] "
                                  f"does not resolve within result {ri}")
    if not unresolved and len(seen) == sum(1 for e in entities if isinstance(e, dict) and isinstance(e.get("id"), str)):
        children, _ = entity_graph(entities)
        cycle = _find_cycle(children)
        if cycle:
            errors.append(f"Entity graph in result {ri} contains a directed cycle: {' -> '.join(cycle)}")
        else:
            for parent in sorted(children):
                for child in sorted(children[parent]):
                    pk, ck = kind_of.get(parent), kind_of.get(child)
                    if pk is not None and ck is not None and (pk, ck) not in edges:
                        errors.append(f"Result {ri} entity relationship {parent!r} ({pk}) -> {child!r} ({ck}) "
                                      f"is not covered by a declared or well-known entity kind relationship")
    for bi, b in enumerate(result.get("breakdowns", []) or []):
        if isinstance(b, dict) and isinstance(b.get("entity_id"), str) and b["entity_id"] not in seen:
            errors.append(f"Entity reference {b['entity_id']!r} at results[{ri}].breakdowns[{bi}].entity_id "
                          f"does not resolve within result {ri}")
    for ci, c in enumerate(result.get("checks", []) or []):
        if isinstance(c, dict) and isinstance(c.get("entity_id"), str) and c["entity_id"] not in seen:
            errors.append(f"Entity reference {c['entity_id']!r} at results[{ri}].checks[{ci}].entity_id "
                          f"does not resolve within result {ri}")
    for ai, a in enumerate(result.get("advice", []) or []):
        if isinstance(a, dict):
            for j, ref in enumerate(a.get("affected_entity_ids", []) or []):
                if isinstance(ref, str) and ref not in seen:
                    errors.append(f"Entity reference {ref!r} at results[{ri}].advice[{ai}]."
                                  f"affected_entity_ids[{j}] does not resolve within result {ri}")


def semantic_errors(doc):
    errors = []
    if not isinstance(doc, dict):
        return ["document is not an object"]
    _basic(doc, errors)
    results = doc.get("results")
    if isinstance(results, list):
        for ri, result in enumerate(results):
            if isinstance(result, dict):
                _result_semantics(ri, result, errors)
    return errors


# ---------------------------------------------------------------------------
# 3. loader (what building MLIA's objects from the dictionary requires)


class _LoadError(Exception):
    pass


def _req(d, key, where):
    if not isinstance(d, dict):
        raise _LoadError(f"{where} is not an object")
    if key not in d:
        raise _LoadError(f"{where}: missing key {key!r}")
    return d[key]


def _enum(value, allowed, where):
    if value not in allowed:
        raise _LoadError(f"{where}: {value!r} is not one of {sorted(allowed)}")


def _load_metric(m, where):
    _req(m, "name", where)
    _req(m, "unit", where)
    value = m.get("value")
    if "availability" in m:
        _enum(m["availability"], {"unavailable"}, f"{where}.availability")
    if value is not None:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise _LoadError(f"{where}: value is not a number")
        if not math.isfinite(value):
            raise _LoadError(f"{where}: metric value must be finite")
        if m.get("availability") is not None or m.get("reason") is not None:
            raise _LoadError(f"{where}: metric cannot combine a numeric value with availability fields")
        return
    if m.get("availability") is None:
        raise _LoadError(f"{where}: metric must include a value or availability")
    if not m.get("reason"):
        raise _LoadError(f"{where}: unavailable metrics must include a reason")
    if m.get("aggregation") is not None or m.get("samples") is not None:
        raise _LoadError(f"{where}: unavailable metrics cannot include aggregation or samples")


def _load_component(c, where):
    _enum(_req(c, "type", where), {"cpu", "npu", "gpu", "dsp", "specification", "soc"}, f"{where}.type")
    _req(c, "family", where)
    for i, sub in enumerate(c.get("components", [])):
        _load_component(sub, f"{where}.components[{i}]")


def _load_entity(e, where):
    for legacy in ("locations", "parent_id", "scope", "subgraph_kind"):
        if isinstance(e, dict) and legacy in e:
            raise _LoadError(f"{where}: entity uses unsupported legacy field {legacy!r}")
    for key in ("id", "kind", "name"):
        _req(e, key, where)
    list(e.get("parent_ids", []))
    list(e.get("child_ids", []))


def _load_result(r, where):
    _enum(_req(r, "kind", where), {"compatibility", "performance"}, f"{where}.kind")
    _enum(_req(r, "status", where), {"ok", "partial", "incompatible", "failed", "skipped"}, f"{where}.status")
    _req(r, "producer", where)
    for i, m in enumerate(r.get("metrics", [])):
        _load_metric(m, f"{where}.metrics[{i}]")
    for i, b in enumerate(r.get("breakdowns", [])):
        _req(b, "entity_id", f"{where}.breakdowns[{i}]")
        for j, m in enumerate(_req(b, "metrics", f"{where}.breakdowns[{i}]")):
            _load_metric(m, f"{where}.breakdowns[{i}].metrics[{j}]")
    if "mode" in r:
        _enum(r["mode"], {"measured", "simulated", "predicted"}, f"{where}.mode")
    for i, c in enumerate(r.get("checks", [])):
        _req(c, "id", f"{where}.checks[{i}]")
        _enum(_req(c, "status", f"{where}.checks[{i}]"), {"pass", "fail", "partial"}, f"{where}.checks[{i}].status")
    for i, e in enumerate(r.get("entities", [])):
        _load_entity(e, f"{where}.entities[{i}]")
    for i, k in enumerate(r.get("entity_kinds", [])):
        _req(k, "id", f"{where}.entity_kinds[{i}]")
        list(k.get("parent_kinds", []))
        list(k.get("child_kinds", []))
    for i, a in enumerate(r.get("advice", [])):
        w = f"{where}.advice[{i}]"
        _req(a, "id", w)
        _enum(_req(a, "category", w), {"compatibility", "performance", "optimization"}, f"{w}.category")
        _enum(_req(a, "severity", w), {"info", "warning", "error"}, f"{w}.severity")
        _req(a, "message", w)


def loader_error(doc):
    """The first problem that stops MLIA's loader from building the document, or None."""
    try:
        for key in ("schema_version", "run_id", "timestamp"):
            _req(doc, key, "$")
        tool = _req(doc, "tool", "$")
        _req(tool, "name", "tool")
        _req(tool, "version", "tool")
        target = _req(doc, "target", "$")
        for key in ("profile_name", "target_type", "configuration"):
            _req(target, key, "target")
        for i, c in enumerate(_req(target, "components", "target")):
            _load_component(c, f"target.components[{i}]")
        model = _req(doc, "model", "$")
        for key in ("name", "format", "hash"):
            _req(model, key, "model")
        if not isinstance(_req(doc, "context", "$"), dict):
            raise _LoadError("context is not an object")
        for i, b in enumerate(_req(doc, "backends", "$")):
            for key in ("id", "name", "version", "configuration"):
                _req(b, key, f"backends[{i}]")
        for i, r in enumerate(_req(doc, "results", "$")):
            _load_result(r, f"results[{i}]")
    except _LoadError as e:
        return str(e)
    except (TypeError, AttributeError) as e:
        return f"loader: {e}"
    return None


def producer_errors(doc):
    """Standard performance metrics: every one present once, with its unit."""
    errors = []
    for ri, r in enumerate(doc.get("results", []) if isinstance(doc, dict) else []):
        if not isinstance(r, dict) or r.get("kind") != "performance":
            continue
        names = {}
        for m in r.get("metrics", []):
            if isinstance(m, dict) and m.get("name") in STANDARD_METRICS:
                names[m["name"]] = names.get(m["name"], 0) + 1
                if m.get("unit") != STANDARD_METRICS[m["name"]]:
                    errors.append(f"results[{ri}]: standard metric {m['name']!r} must use unit "
                                  f"{STANDARD_METRICS[m['name']]!r}, got {m.get('unit')!r}")
        for name in STANDARD_METRICS:
            if name not in names:
                errors.append(f"results[{ri}]: standard performance metric {name!r} is missing")
    return errors


def validate(doc, rules=None):
    """Every problem found in a parsed mlia-output.json, as a list of lines (empty = conformant)."""
    rules = rules or load_rules()
    errors = [f"schema: {e}" for e in SchemaChecker(rules).check(doc)]
    errors += [f"semantic: {e}" for e in semantic_errors(doc)]
    err = loader_error(doc)
    if err:
        errors.append(f"loader: {err}")
    errors += [f"producer: {e}" for e in producer_errors(doc)]
    return errors


def validate_file(path, rules=None):
    with open(path, encoding="utf-8") as f:
        return validate(json.load(f), rules)


def main(argv):
    rules = load_rules()
    bad = 0
    for path in argv:
        errors = validate_file(path, rules)
        counts = {}
        for e in errors:
            layer = e.split(":", 1)[0]
            counts[layer] = counts.get(layer, 0) + 1
        detail = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
        print(f"{path}: {len(errors)} error(s){' (' + detail + ')' if detail else ''}")
        for e in errors[:8]:
            print(f"  {e}")
        bad += bool(errors)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
