/*
 * exported_program.c - ExportedProgram JSON reader (see exported_program.h).
 *
 * Design: the document is parsed once into a mlia_json tree (non-finite
 * tokens allowed, as Python writes them), then walked into the typed
 * ep_* structures. The walker keeps the JSON path of the value it is
 * looking at in a fixed buffer (push a segment, pop by restoring the
 * length), so building paths costs nothing until an error needs one and
 * every structural error names the exact field:
 *   "<file>: <entry>: graph_module.graph.nodes[3].target: expected a string"
 * Nested JSON documents (the delegate payload string) continue the path
 * after a ": " separator.
 *
 * The reader is strict about what the analysis relies on (node targets and
 * names, tensor references, metadata strings and their sub-formats, tensor
 * dtypes and shapes) and tolerant of everything else (unknown members are
 * ignored, unknown argument kinds are kept as compact JSON text).
 */
#include "exported_program.h"
#include "core/cnum.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define EP_PATH_MAX 1024

/* One kept string of the intern table (see keep()). */
typedef struct ep_kept {
    const char *s;
    size_t len;
    uint32_t hash;
} ep_kept;

typedef struct ep_ctx {
    mlia_arena *arena;        /* the program's arena: what the reader returns */
    mlia_arena *tree;         /* the parse trees, released when ep_parse returns */
    ep_kept *kept;            /* intern table (in tree), open addressing */
    uint32_t kept_cap, n_kept;
    const char *file;
    const char *entry;
    mlia_error *err;
    char path[EP_PATH_MAX];
    size_t plen;
    unsigned payload_depth;
} ep_ctx;

static const char DELEGATE_TARGET[] = "torch.ops.higher_order.executorch_call_delegate";

/* ---- kept strings ---------------------------------------------------- */

/* Copy of a string of the parse tree into the program's arena, the same
 * text once: the tree is released when ep_parse returns (a 100,000-node
 * program is hundreds of megabytes of tree for a few tens of kept
 * strings), and names, union keys and metadata repeat across nodes. */
static const char *keep(ep_ctx *c, const char *s, size_t len)
{
    if (!s)
        return NULL;
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * 16777619u;
    if (2 * (c->n_kept + 1) > c->kept_cap) {
        uint32_t cap = c->kept_cap ? c->kept_cap * 2 : 1024;
        ep_kept *t = mlia_arena_array(c->tree, cap, sizeof *t);
        for (uint32_t i = 0; i < c->kept_cap; i++)
            if (c->kept[i].s) {
                uint32_t k = c->kept[i].hash & (cap - 1);
                while (t[k].s)
                    k = (k + 1) & (cap - 1);
                t[k] = c->kept[i];
            }
        c->kept = t;
        c->kept_cap = cap;
    }
    uint32_t k = h & (c->kept_cap - 1);
    for (; c->kept[k].s; k = (k + 1) & (c->kept_cap - 1))
        if (c->kept[k].hash == h && c->kept[k].len == len && memcmp(c->kept[k].s, s, len) == 0)
            return c->kept[k].s;
    c->kept[k] = (ep_kept){mlia_arena_strndup(c->arena, s, len), len, h};
    c->n_kept++;
    return c->kept[k].s;
}

static const char *keep_str(ep_ctx *c, const mlia_json *v)
{
    return keep(c, v->u.string.s, v->u.string.len);
}

/* ---- path and errors ------------------------------------------------- */

static size_t path_key(ep_ctx *c, const char *key)
{
    size_t saved = c->plen;
    bool at_start = c->plen == 0 || c->path[c->plen - 1] == ' ';
    /* "[.]key", truncated to the buffer as snprintf would (once per member
     * of every node: no printf) */
    size_t room = sizeof c->path - 1 - c->plen;
    char *d = c->path + c->plen;
    if (!at_start && room) {
        *d++ = '.';
        room--;
    }
    size_t kl = strlen(key);
    if (kl > room)
        kl = room;
    memcpy(d, key, kl);
    d[kl] = 0;
    c->plen = (size_t)(d + kl - c->path);
    return saved;
}

static size_t path_index(ep_ctx *c, size_t i)
{
    size_t saved = c->plen;
    int n = snprintf(c->path + c->plen, sizeof c->path - c->plen, "[%zu]", i);
    if (n > 0)
        c->plen += (size_t)n < sizeof c->path - c->plen ? (size_t)n : sizeof c->path - 1 - c->plen;
    return saved;
}

static void path_pop(ep_ctx *c, size_t saved)
{
    c->plen = saved;
    c->path[saved] = 0;
}

static int failf(ep_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int failf(ep_ctx *c, const char *fmt, ...)
{
    char what[512];
    MLIA_FORMAT_ARGS(what, fmt);
    c->path[c->plen] = 0;
    const char *entry = c->entry ? c->entry : "";
    const char *sep1 = c->entry ? ": " : "";
    const char *sep2 = c->plen ? ": " : "";
    return mlia_error_setf(c->err, c->file, "%s%s%s%s%s", entry, sep1, c->path, sep2, what);
}

/* Fails for a value under key `key` of the current path. */
static int fail_at_key(ep_ctx *c, const char *key, const char *what)
{
    size_t s = path_key(c, key);
    failf(c, "%s", what);
    path_pop(c, s);
    return -1;
}

/* ---- small JSON helpers ---------------------------------------------- */

static bool is_null(const mlia_json *v)
{
    return !v || v->type == MLIA_JSON_NULL;
}

static int get_string(ep_ctx *c, const mlia_json *obj, const char *key, bool required,
                      const char **out)
{
    mlia_json *v = mlia_json_get(obj, key);
    if (is_null(v)) {
        *out = NULL;
        return required ? fail_at_key(c, key, "expected a string") : 0;
    }
    if (v->type != MLIA_JSON_STRING)
        return fail_at_key(c, key, "expected a string");
    if (v->u.string.len > EP_MAX_NAME_BYTES) {
        char what[128];
        snprintf(what, sizeof what, "string of %zu bytes exceeds the limit of %u bytes", v->u.string.len,
                 EP_MAX_NAME_BYTES);
        return fail_at_key(c, key, what);
    }
    *out = keep_str(c, v);
    return 0;
}

static int json_int(ep_ctx *c, const mlia_json *v, int64_t *out)
{
    if (!v || v->type != MLIA_JSON_NUMBER || !v->num_is_integer)
        return failf(c, "expected an integer");
    if (!v->num_int_fits)
        return failf(c, "integer out of range");
    *out = v->u.number.i;
    return 0;
}

static int get_int(ep_ctx *c, const mlia_json *obj, const char *key, int64_t *out)
{
    size_t s = path_key(c, key);
    int rc = json_int(c, mlia_json_get(obj, key), out);
    path_pop(c, s);
    return rc;
}

static const char *dump(ep_ctx *c, const mlia_json *v)
{
    return mlia_json_dump(v, c->arena, NULL);
}

/* Selects the member of a union: the unique key whose value is not null
 * (current form: the only key; legacy form: all others are null). Only the
 * last occurrence of a duplicated key counts. */
static int union_select(ep_ctx *c, const mlia_json *u, const char **key, mlia_json **val)
{
    if (!u || u->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    size_t found = 0;
    const mlia_json_member *sel = NULL;
    bool has_none = false;
    for (size_t i = 0; i < u->u.object.n; i++) {
        const mlia_json_member *m = &u->u.object.members[i];
        if (mlia_json_get(u, m->key) != m->value)
            continue; /* shadowed duplicate */
        if (strcmp(m->key, "as_none") == 0)
            has_none = true;
        if (!is_null(m->value)) {
            found++;
            sel = m;
        }
    }
    if (found == 1) {
        *key = keep(c, sel->key, sel->key_len);
        *val = sel->value;
        return 0;
    }
    if (found == 0 && has_none) {
        *key = "as_none";
        *val = mlia_json_get(u, "as_none");
        return 0;
    }
    if (found == 0)
        return failf(c, "expected a union with one non-null member, found none");
    return failf(c, "expected a union with one non-null member, found %zu", found);
}

/* ---- arguments ------------------------------------------------------- */

static const struct {
    const char *key;
    ep_arg_kind kind;
} ARG_KINDS[] = {
    {"as_none", EP_ARG_NONE},
    {"as_tensor", EP_ARG_TENSOR},
    {"as_tensors", EP_ARG_TENSORS},
    {"as_optional_tensors", EP_ARG_OPTIONAL_TENSORS},
    {"as_int", EP_ARG_INT},
    {"as_ints", EP_ARG_INTS},
    {"as_float", EP_ARG_FLOAT},
    {"as_floats", EP_ARG_FLOATS},
    {"as_string", EP_ARG_STRING},
    {"as_strings", EP_ARG_STRINGS},
    {"as_sym_int", EP_ARG_SYM_INT},
    {"as_sym_ints", EP_ARG_SYM_INTS},
    {"as_scalar_type", EP_ARG_SCALAR_TYPE},
    {"as_memory_format", EP_ARG_MEMORY_FORMAT},
    {"as_layout", EP_ARG_LAYOUT},
    {"as_device", EP_ARG_DEVICE},
    {"as_bool", EP_ARG_BOOL},
    {"as_bools", EP_ARG_BOOLS},
    {"as_sym_bool", EP_ARG_SYM_BOOL},
    {"as_sym_bools", EP_ARG_SYM_BOOLS},
    {"as_graph", EP_ARG_GRAPH},
    {"as_custom_obj", EP_ARG_CUSTOM_OBJ},
    {"as_operator", EP_ARG_OPERATOR},
};

static int parse_graph(ep_ctx *c, const mlia_json *j, ep_graph *g, uint32_t depth);

/* {"name": "x"} -> "x" */
static int tensor_ref(ep_ctx *c, const mlia_json *v, const char **out)
{
    if (!v || v->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    return get_string(c, v, "name", true, out);
}

static int tensor_list(ep_ctx *c, const mlia_json *v, ep_arg *a, bool optional)
{
    if (!v || v->type != MLIA_JSON_ARRAY)
        return failf(c, "expected an array");
    size_t n = v->u.array.n;
    a->tensors = mlia_arena_array(c->arena, n, sizeof(const char *));
    for (size_t i = 0; i < n; i++) {
        size_t s = path_index(c, i);
        const mlia_json *item = v->u.array.items[i];
        if (optional) {
            const char *k;
            mlia_json *val;
            if (union_select(c, item, &k, &val) < 0)
                return -1;
            if (strcmp(k, "as_tensor") == 0) {
                size_t s2 = path_key(c, "as_tensor");
                if (tensor_ref(c, val, &a->tensors[a->n_tensors]) < 0)
                    return -1;
                a->n_tensors++;
                path_pop(c, s2);
            } else if (strcmp(k, "as_none") != 0) {
                return failf(c, "expected as_tensor or as_none, found %s", k);
            }
        } else {
            if (tensor_ref(c, item, &a->tensors[a->n_tensors]) < 0)
                return -1;
            a->n_tensors++;
        }
        path_pop(c, s);
    }
    return 0;
}

/* SymIntArgument / SymBoolArgument: {as_name: s} or {as_int|as_bool: v}. */
static int sym_value(ep_ctx *c, const mlia_json *v, ep_arg *a)
{
    const char *k;
    mlia_json *val;
    if (union_select(c, v, &k, &val) < 0)
        return -1;
    if (strcmp(k, "as_name") == 0) {
        if (val->type != MLIA_JSON_STRING)
            return fail_at_key(c, "as_name", "expected a string");
        a->sym_name = keep_str(c, val);
        a->value = a->sym_name;
    } else {
        a->value = dump(c, val);
    }
    return 0;
}

/* Parses an Argument union at the current path. Also accepts a bare
 * TensorArgument {"name": ...} (signature specs use it). */
static int parse_arg(ep_ctx *c, const mlia_json *j, ep_arg *a, uint32_t depth)
{
    if (j && j->type == MLIA_JSON_OBJECT && j->u.object.n >= 1 &&
        mlia_json_get(j, "name") && !mlia_json_get(j, "as_tensor") &&
        !mlia_json_get(j, "as_none")) {
        /* TensorArgument / TokenArgument / CustomObjArgument */
        a->kind = EP_ARG_TENSOR;
        a->kind_name = "as_tensor";
        a->tensors = mlia_arena_array(c->arena, 1, sizeof(const char *));
        if (get_string(c, j, "name", true, &a->tensors[0]) < 0)
            return -1;
        a->n_tensors = 1;
        return 0;
    }
    const char *key;
    mlia_json *val;
    if (union_select(c, j, &key, &val) < 0)
        return -1;
    a->kind = EP_ARG_OTHER;
    a->kind_name = key;
    for (size_t i = 0; i < sizeof ARG_KINDS / sizeof ARG_KINDS[0]; i++) {
        if (strcmp(ARG_KINDS[i].key, key) == 0) {
            a->kind = ARG_KINDS[i].kind;
            a->kind_name = ARG_KINDS[i].key;
            break;
        }
    }
    size_t s = path_key(c, key);
    int rc = 0;
    switch (a->kind) {
    case EP_ARG_NONE:
        break;
    case EP_ARG_TENSOR:
        a->tensors = mlia_arena_array(c->arena, 1, sizeof(const char *));
        rc = tensor_ref(c, val, &a->tensors[0]);
        a->n_tensors = rc == 0;
        break;
    case EP_ARG_TENSORS:
        rc = tensor_list(c, val, a, false);
        break;
    case EP_ARG_OPTIONAL_TENSORS:
        rc = tensor_list(c, val, a, true);
        break;
    case EP_ARG_STRING:
    case EP_ARG_OPERATOR:
        if (val->type != MLIA_JSON_STRING)
            rc = failf(c, "expected a string");
        else
            a->value = keep_str(c, val);
        break;
    case EP_ARG_SYM_INT:
    case EP_ARG_SYM_BOOL:
        rc = sym_value(c, val, a);
        break;
    case EP_ARG_GRAPH:
        if (val->type != MLIA_JSON_OBJECT) {
            rc = failf(c, "expected an object");
            break;
        }
        rc = get_string(c, val, "name", false, &a->value);
        if (rc == 0) {
            a->graph = mlia_arena_alloc(c->arena, sizeof *a->graph);
            size_t s2 = path_key(c, "graph");
            rc = parse_graph(c, mlia_json_get(val, "graph"), a->graph, depth + 1);
            if (rc == 0)
                path_pop(c, s2);
        }
        break;
    case EP_ARG_CUSTOM_OBJ:
        if (val->type == MLIA_JSON_OBJECT && mlia_json_get_str(val, "name"))
            a->value = keep_str(c, mlia_json_get(val, "name"));
        else
            a->value = dump(c, val);
        break;
    default:
        a->value = dump(c, val);
        break;
    }
    if (rc < 0)
        return -1;
    path_pop(c, s);
    return 0;
}

/* Member `key` of obj, which must be an array: enters it in the path
 * (*saved = the path to restore) and counts its items (*n). NULL on error. */
static const mlia_json *array_member(ep_ctx *c, const mlia_json *obj, const char *key, size_t *saved, uint32_t *n)
{
    *saved = path_key(c, key);
    const mlia_json *v = mlia_json_get(obj, key);
    if (!v || v->type != MLIA_JSON_ARRAY || v->u.array.n > UINT32_MAX) {
        failf(c, v && v->type == MLIA_JSON_ARRAY ? "too many items" : "expected an array");
        return NULL;
    }
    *n = (uint32_t)v->u.array.n;
    return v;
}

static int parse_arg_array(ep_ctx *c, const mlia_json *obj, const char *key, bool named,
                           uint32_t depth, ep_arg **out, uint32_t *n_out)
{
    size_t s;
    uint32_t n;
    const mlia_json *v = array_member(c, obj, key, &s, &n);
    if (!v)
        return -1;
    ep_arg *args = mlia_arena_array(c->arena, n, sizeof *args);
    for (uint32_t i = 0; i < n; i++) {
        size_t si = path_index(c, i);
        const mlia_json *item = v->u.array.items[i];
        if (named) {
            if (!item || item->type != MLIA_JSON_OBJECT)
                return failf(c, "expected an object");
            if (get_string(c, item, "name", true, &args[i].name) < 0)
                return -1;
            size_t sa = path_key(c, "arg");
            if (parse_arg(c, mlia_json_get(item, "arg"), &args[i], depth) < 0)
                return -1;
            path_pop(c, sa);
        } else if (parse_arg(c, item, &args[i], depth) < 0) {
            return -1;
        }
        path_pop(c, si);
    }
    path_pop(c, s);
    *out = args;
    *n_out = n;
    return 0;
}

/* Names an argument refers to or produces: its tensors, else its symbol. */
static uint32_t arg_names(const ep_arg *args, uint32_t n, mlia_arena *arena, const char ***out)
{
    size_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += args[i].n_tensors ? args[i].n_tensors : (args[i].sym_name ? 1 : 0);
    const char **names = mlia_arena_array(arena, total, sizeof *names);
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (uint32_t t = 0; t < args[i].n_tensors; t++)
            names[k++] = args[i].tensors[t];
        if (!args[i].n_tensors && args[i].sym_name)
            names[k++] = args[i].sym_name;
    }
    *out = names;
    return (uint32_t)k;
}

/* ---- metadata -------------------------------------------------------- */

/* Splits s at `sep` occurring outside () and [] into trimmed parts. */
static uint32_t split_outside(mlia_arena *arena, const char *s, char sep, const char ***out)
{
    size_t len = strlen(s);
    size_t cap = 1;
    for (size_t i = 0; i < len; i++)
        cap += s[i] == sep;
    const char **parts = mlia_arena_array(arena, cap, sizeof *parts);
    uint32_t n = 0;
    int depth = 0;
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        char ch = i < len ? s[i] : sep;
        if (ch == '(' || ch == '[')
            depth++;
        else if ((ch == ')' || ch == ']') && depth > 0)
            depth--;
        if (ch == sep && (depth == 0 || i == len)) {
            size_t a = start, b = i;
            while (a < b && (s[a] == ' ' || s[a] == '\t' || s[a] == '\n'))
                a++;
            while (b > a && (s[b - 1] == ' ' || s[b - 1] == '\t' || s[b - 1] == '\n'))
                b--;
            parts[n++] = mlia_arena_strndup(arena, s + a, b - a);
            start = i + 1;
        }
    }
    *out = parts;
    return n;
}

/* The ';'-separated entries of a metadata stack; an empty text has none. */
static uint32_t stack_entries(ep_ctx *c, const char *raw, const char ***entries)
{
    uint32_t n = split_outside(c->arena, raw, ';', entries);
    return n == 1 && (*entries)[0][0] == 0 ? 0 : n;
}

static int parse_module_stack(ep_ctx *c, ep_node *nd, const char *raw)
{
    const char **entries;
    uint32_t n = stack_entries(c, raw, &entries);
    nd->modules = mlia_arena_array(c->arena, n, sizeof *nd->modules);
    for (uint32_t i = 0; i < n; i++) {
        const char **parts;
        uint32_t np = split_outside(c->arena, entries[i], ',', &parts);
        if (np != 3)
            return failf(c, "entry %u has %u comma-separated parts, expected key,path,type", i, np);
        nd->modules[i].key = parts[0];
        nd->modules[i].path = parts[1];
        nd->modules[i].type = parts[2];
    }
    nd->n_modules = n;
    return 0;
}

static int parse_source_fn_stack(ep_ctx *c, ep_node *nd, const char *raw)
{
    const char **entries;
    uint32_t n = stack_entries(c, raw, &entries);
    nd->source_fns = mlia_arena_array(c->arena, n, sizeof *nd->source_fns);
    for (uint32_t i = 0; i < n; i++) {
        const char *e = entries[i];
        const char *comma = strchr(e, ',');
        if (!comma || strchr(comma + 1, ','))
            return failf(c, "entry %u is not name,target", i);
        nd->source_fns[i].name = mlia_arena_strndup(c->arena, e, (size_t)(comma - e));
        nd->source_fns[i].target = comma + 1;
    }
    nd->n_source_fns = n;
    return 0;
}

static int parse_debug_handle(ep_ctx *c, const char *s, int64_t *out)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (!*p)
        return failf(c, "expected a decimal integer, found \"%s\"", s);
    int64_t v = 0;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return failf(c, "expected a decimal integer, found \"%.40s\"", s);
        int d = *p - '0';
        if (v > (INT64_MAX - d) / 10)
            return failf(c, "integer out of range");
        v = v * 10 + d;
    }
    *out = neg ? -v : v;
    return 0;
}

static int parse_metadata(ep_ctx *c, const mlia_json *md, ep_node *nd)
{
    if (is_null(md))
        return 0;
    size_t s = path_key(c, "metadata");
    if (md->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    size_t n = md->u.object.n;
    nd->meta = mlia_arena_array(c->arena, n, sizeof *nd->meta);
    for (size_t i = 0; i < n; i++) {
        const mlia_json_member *m = &md->u.object.members[i];
        size_t sk = path_key(c, m->key);
        if (m->value->type != MLIA_JSON_STRING)
            return failf(c, "expected a string");
        if (m->value->u.string.len > EP_MAX_META_BYTES)
            return failf(c, "string of %zu bytes exceeds the limit of %u bytes", m->value->u.string.len,
                         EP_MAX_META_BYTES);
        const char *val = keep_str(c, m->value);
        nd->meta[nd->n_meta].key = keep(c, m->key, m->key_len);
        nd->meta[nd->n_meta].value = val;
        nd->n_meta++;
        if (mlia_json_get(md, m->key) != m->value) {
            path_pop(c, sk);
            continue; /* shadowed duplicate: the last one is interpreted */
        }
        if (strcmp(m->key, "debug_handle") == 0) {
            if (parse_debug_handle(c, val, &nd->debug_handle) < 0)
                return -1;
        } else if (strcmp(m->key, "stack_trace") == 0) {
            nd->stack_trace = val;
        } else if (strcmp(m->key, "nn_module_stack") == 0) {
            nd->nn_module_stack_raw = val;
            if (parse_module_stack(c, nd, val) < 0)
                return -1;
        } else if (strcmp(m->key, "source_fn_stack") == 0) {
            nd->source_fn_stack = val;
            if (parse_source_fn_stack(c, nd, val) < 0)
                return -1;
        } else if (strcmp(m->key, "from_node") == 0) {
            nd->from_node = val;
        } else if (strcmp(m->key, "torch_fn") == 0) {
            nd->torch_fn = val;
        }
        path_pop(c, sk);
    }
    path_pop(c, s);
    return 0;
}

/* ---- nodes ----------------------------------------------------------- */

static int parse_program_tree(ep_ctx *c, const mlia_json *root, ep_program *p, uint32_t depth);

/* executorch_call_delegate: inputs[0] is {name: <lowered module>, arg:
 * {as_string: <LoweredBackendModule JSON>}}. */
static int parse_delegate(ep_ctx *c, ep_node *nd, uint32_t depth)
{
    nd->is_delegate = true;
    size_t s = path_key(c, "inputs");
    if (nd->n_inputs == 0)
        return failf(c, "executorch_call_delegate has no inputs");
    path_index(c, 0);
    ep_arg *a0 = &nd->inputs[0];
    nd->delegate_module = a0->name;
    path_key(c, "arg");
    if (a0->kind != EP_ARG_STRING)
        return failf(c, "expected the lowered module as_string, found %s", a0->kind_name);
    path_key(c, "as_string");
    if (c->payload_depth >= EP_MAX_PAYLOAD_DEPTH)
        return failf(c, "delegate payloads nested deeper than %d levels", EP_MAX_PAYLOAD_DEPTH);
    c->path[c->plen] = 0;
    const char *doc_name = mlia_arena_printf(c->arena, "%s%s%s", c->entry ? c->entry : "",
                                             c->entry ? ": " : "", c->path);
    mlia_json_opts opts = {.allow_nonfinite = true, .refuse_nul = true};
    mlia_json *root;
    /* The JSON parser prefixes "<file>: " itself; give it "<file>: <entry>: <path>". */
    const char *jfile = c->file ? mlia_arena_printf(c->arena, "%s: %s", c->file, doc_name)
                                : doc_name;
    if (mlia_json_parse(a0->value, strlen(a0->value), &opts, c->tree, &root, jfile, c->err) < 0)
        return -1;
    /* Continue the path inside the nested document after ": ". */
    int n = snprintf(c->path + c->plen, sizeof c->path - c->plen, ": ");
    if (n > 0 && (size_t)n < sizeof c->path - c->plen)
        c->plen += (size_t)n;
    if (root->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    if (get_string(c, root, "backend_id", true, &nd->delegate_backend) < 0)
        return -1;
    const mlia_json *orig = mlia_json_get(root, "original_module");
    if (!is_null(orig)) {
        size_t so = path_key(c, "original_module");
        nd->delegate_original = mlia_arena_alloc(c->arena, sizeof *nd->delegate_original);
        c->payload_depth++;
        int rc = parse_program_tree(c, orig, nd->delegate_original, depth + 1);
        c->payload_depth--;
        if (rc < 0)
            return -1;
        nd->delegate_original->entry = c->entry;
        path_pop(c, so);
    }
    path_pop(c, s);
    return 0;
}

static int parse_node(ep_ctx *c, const mlia_json *j, ep_node *nd, uint32_t index, uint32_t depth)
{
    nd->index = index;
    if (!j || j->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    if (get_string(c, j, "target", true, &nd->target) < 0)
        return -1;
    if (get_string(c, j, "name", false, &nd->name) < 0)
        return -1;
    if (parse_arg_array(c, j, "inputs", true, depth, &nd->inputs, &nd->n_inputs) < 0)
        return -1;
    if (parse_arg_array(c, j, "outputs", false, depth, &nd->output_args, &nd->n_output_args) < 0)
        return -1;
    nd->n_outputs = arg_names(nd->output_args, nd->n_output_args, c->arena, &nd->outputs);
    if (!nd->name) /* legacy nodes: identity is the first output's name */
        nd->name = nd->n_outputs ? nd->outputs[0]
                                 : mlia_arena_printf(c->arena, "node_%u", (unsigned)index);
    if (parse_metadata(c, mlia_json_get(j, "metadata"), nd) < 0)
        return -1;
    if (strcmp(nd->target, DELEGATE_TARGET) == 0 && parse_delegate(c, nd, depth) < 0)
        return -1;
    return 0;
}

/* ---- tensor metadata ------------------------------------------------- */

/* SymInt: {"as_int": n} | {"as_expr": {"expr_str": s, "hint"?}} | legacy
 * {"as_name": s} / {"as_symbol": s}; `expr` gets the text of symbolic ones. */
static int parse_sym_int(ep_ctx *c, const mlia_json *v, int64_t *iv, const char **expr)
{
    *iv = 0;
    *expr = NULL;
    if (v && v->type == MLIA_JSON_NUMBER)
        return json_int(c, v, iv); /* legacy storage_offset */
    const char *key;
    mlia_json *val;
    if (union_select(c, v, &key, &val) < 0)
        return -1;
    if (strcmp(key, "as_int") == 0) {
        size_t s = path_key(c, key);
        if (json_int(c, val, iv) < 0)
            return -1;
        path_pop(c, s);
        return 0;
    }
    if (strcmp(key, "as_expr") == 0) {
        if (val->type == MLIA_JSON_STRING) {
            *expr = keep_str(c, val);
            return 0;
        }
        size_t s = path_key(c, key);
        if (val->type != MLIA_JSON_OBJECT)
            return failf(c, "expected an object");
        if (get_string(c, val, "expr_str", true, expr) < 0)
            return -1;
        path_pop(c, s);
        return 0;
    }
    if ((strcmp(key, "as_name") == 0 || strcmp(key, "as_symbol") == 0) &&
        val->type == MLIA_JSON_STRING) {
        *expr = keep_str(c, val);
        return 0;
    }
    return failf(c, "expected as_int or as_expr, found %s", key);
}

static int parse_sym_list(ep_ctx *c, const mlia_json *obj, const char *key, uint32_t *n_out,
                          int64_t **vals, const char ***exprs, bool *dynamic)
{
    size_t s;
    uint32_t n;
    const mlia_json *v = array_member(c, obj, key, &s, &n);
    if (!v)
        return -1;
    *vals = mlia_arena_array(c->arena, n, sizeof(int64_t));
    const char **ex = mlia_arena_array(c->arena, n, sizeof(const char *));
    for (uint32_t i = 0; i < n; i++) {
        size_t si = path_index(c, i);
        if (parse_sym_int(c, v->u.array.items[i], &(*vals)[i], &ex[i]) < 0)
            return -1;
        if (ex[i] && dynamic)
            *dynamic = true;
        path_pop(c, si);
    }
    if (exprs)
        *exprs = ex;
    *n_out = n;
    path_pop(c, s);
    return 0;
}

static int parse_tensor_meta(ep_ctx *c, const mlia_json *v, ep_tensor_meta *t)
{
    if (!v || v->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    size_t s_meta = c->plen;
    const mlia_json *meta = mlia_json_get(v, "meta");
    if (meta && !mlia_json_get(v, "dtype")) { /* legacy wrapper */
        path_key(c, "meta");
        v = meta;
        if (v->type != MLIA_JSON_OBJECT)
            return failf(c, "expected an object");
    }
    if (get_int(c, v, "dtype", &t->dtype) < 0)
        return -1;
    if (parse_sym_list(c, v, "sizes", &t->rank, &t->sizes, &t->size_exprs, &t->dynamic) < 0)
        return -1;
    if (mlia_json_get(v, "strides") &&
        parse_sym_list(c, v, "strides", &t->n_strides, &t->strides, NULL, NULL) < 0)
        return -1;
    const mlia_json *so = mlia_json_get(v, "storage_offset");
    if (!is_null(so)) {
        size_t s = path_key(c, "storage_offset");
        const char *expr;
        if (parse_sym_int(c, so, &t->storage_offset, &expr) < 0)
            return -1;
        path_pop(c, s);
    }
    const mlia_json *rg = mlia_json_get(v, "requires_grad");
    t->requires_grad = rg && rg->type == MLIA_JSON_BOOL && rg->u.boolean;
    t->device_index = -1;
    const mlia_json *dev = mlia_json_get(v, "device");
    if (dev && dev->type == MLIA_JSON_OBJECT) {
        const char *type = mlia_json_get_str(dev, "type");
        t->device = type ? keep_str(c, mlia_json_get(dev, "type")) : NULL;
        const mlia_json *idx = mlia_json_get(dev, "index");
        if (idx && idx->type == MLIA_JSON_NUMBER && idx->num_int_fits)
            t->device_index = idx->u.number.i;
    }
    t->layout = -1;
    const mlia_json *lay = mlia_json_get(v, "layout");
    if (!is_null(lay) && get_int(c, v, "layout", &t->layout) < 0)
        return -1;
    path_pop(c, s_meta);
    return 0;
}

static uint32_t hash_name(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void build_tensor_index(mlia_arena *arena, ep_graph *g)
{
    uint32_t cap = 16;
    while (cap < 2u * g->n_tensors)
        cap <<= 1;
    g->hash_cap = cap;
    g->hash = mlia_arena_array(arena, cap, sizeof(uint32_t));
    for (uint32_t i = 0; i < g->n_tensors; i++) {
        uint32_t h = hash_name(g->tensors[i].name) & (cap - 1);
        while (g->hash[h] && strcmp(g->tensors[g->hash[h] - 1].name, g->tensors[i].name) != 0)
            h = (h + 1) & (cap - 1);
        g->hash[h] = i + 1; /* a later duplicate replaces the earlier one */
    }
}

const ep_tensor_meta *ep_tensor(const ep_graph *g, const char *name)
{
    if (!g || !name || !g->hash_cap)
        return NULL;
    uint32_t h = hash_name(name) & (g->hash_cap - 1);
    while (g->hash[h]) {
        const ep_tensor_meta *t = &g->tensors[g->hash[h] - 1];
        if (strcmp(t->name, name) == 0)
            return t;
        h = (h + 1) & (g->hash_cap - 1);
    }
    return NULL;
}

/* ---- graph and program ----------------------------------------------- */

static int parse_graph(ep_ctx *c, const mlia_json *j, ep_graph *g, uint32_t depth)
{
    if (depth > EP_MAX_GRAPH_DEPTH)
        return failf(c, "graphs nested deeper than %d levels", EP_MAX_GRAPH_DEPTH);
    if (!j || j->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    g->depth = depth;
    if (parse_arg_array(c, j, "inputs", false, depth, &g->input_args, &g->n_input_args) < 0)
        return -1;
    g->n_inputs = arg_names(g->input_args, g->n_input_args, c->arena, &g->inputs);
    if (parse_arg_array(c, j, "outputs", false, depth, &g->output_args, &g->n_output_args) < 0)
        return -1;
    g->n_outputs = arg_names(g->output_args, g->n_output_args, c->arena, &g->outputs);

    size_t s = path_key(c, "nodes");
    const mlia_json *nodes = mlia_json_get(j, "nodes");
    if (!nodes || nodes->type != MLIA_JSON_ARRAY)
        return failf(c, "expected an array");
    if (nodes->u.array.n > UINT32_MAX)
        return failf(c, "too many nodes");
    g->n_nodes = (uint32_t)nodes->u.array.n;
    g->nodes = mlia_arena_array(c->arena, g->n_nodes, sizeof *g->nodes);
    for (uint32_t i = 0; i < g->n_nodes; i++) {
        size_t si = path_index(c, i);
        if (parse_node(c, nodes->u.array.items[i], &g->nodes[i], i, depth) < 0)
            return -1;
        path_pop(c, si);
    }
    path_pop(c, s);

    const mlia_json *tv = mlia_json_get(j, "tensor_values");
    if (!is_null(tv)) {
        s = path_key(c, "tensor_values");
        if (tv->type != MLIA_JSON_OBJECT)
            return failf(c, "expected an object");
        if (tv->u.object.n > UINT32_MAX / 2)
            return failf(c, "too many tensors");
        g->n_tensors = (uint32_t)tv->u.object.n;
        g->tensors = mlia_arena_array(c->arena, g->n_tensors, sizeof *g->tensors);
        for (uint32_t i = 0; i < g->n_tensors; i++) {
            const mlia_json_member *m = &tv->u.object.members[i];
            size_t sk = path_key(c, m->key);
            g->tensors[i].name = keep(c, m->key, m->key_len);
            if (parse_tensor_meta(c, m->value, &g->tensors[i]) < 0)
                return -1;
            path_pop(c, sk);
        }
        path_pop(c, s);
    }
    build_tensor_index(c->arena, g);
    const mlia_json *st = mlia_json_get(j, "is_single_tensor_return");
    g->is_single_tensor_return = st && st->type == MLIA_JSON_BOOL && st->u.boolean;
    return 0;
}

static const char *const SPEC_TARGET_KEYS[] = {"parameter_name", "buffer_name",
                                               "tensor_constant_name", "custom_obj_name",
                                               "user_input_name"};

static int parse_specs(ep_ctx *c, const mlia_json *sig, const char *key, ep_spec **out,
                       uint32_t *n_out)
{
    const mlia_json *arr = mlia_json_get(sig, key);
    if (is_null(arr))
        return 0;
    size_t s = path_key(c, key);
    if (arr->type != MLIA_JSON_ARRAY)
        return failf(c, "expected an array");
    if (arr->u.array.n > UINT32_MAX)
        return failf(c, "too many items");
    uint32_t n = (uint32_t)arr->u.array.n;
    ep_spec *specs = mlia_arena_array(c->arena, n, sizeof *specs);
    for (uint32_t i = 0; i < n; i++) {
        size_t si = path_index(c, i);
        ep_spec *sp = &specs[i];
        mlia_json *val;
        if (union_select(c, arr->u.array.items[i], &sp->kind, &val) < 0)
            return -1;
        size_t sk = path_key(c, sp->kind);
        if (val->type != MLIA_JSON_OBJECT)
            return failf(c, "expected an object");
        const mlia_json *arg = mlia_json_get(val, "arg");
        if (arg) {
            size_t sa = path_key(c, "arg");
            if (parse_arg(c, arg, &sp->arg, 0) < 0)
                return -1;
            path_pop(c, sa);
            sp->arg_name = sp->arg.n_tensors ? sp->arg.tensors[0] : sp->arg.sym_name;
        } else {
            const mlia_json *name = mlia_json_get(val, "name"); /* constant_input */
            sp->arg_name = name && name->type == MLIA_JSON_STRING ? keep_str(c, name) : NULL;
        }
        for (size_t k = 0; k < sizeof SPEC_TARGET_KEYS / sizeof SPEC_TARGET_KEYS[0]; k++) {
            const mlia_json *t = mlia_json_get(val, SPEC_TARGET_KEYS[k]);
            if (t && t->type == MLIA_JSON_STRING) {
                sp->target = keep_str(c, t);
                break;
            }
        }
        path_pop(c, sk);
        path_pop(c, si);
    }
    path_pop(c, s);
    *out = specs;
    *n_out = n;
    return 0;
}

static int parse_program_tree(ep_ctx *c, const mlia_json *root, ep_program *p, uint32_t depth)
{
    if (!root || root->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    const mlia_json *gm = mlia_json_get(root, "graph_module");
    size_t s = path_key(c, "graph_module");
    if (!gm || gm->type != MLIA_JSON_OBJECT)
        return failf(c, "expected an object");
    size_t sg = path_key(c, "graph");
    if (parse_graph(c, mlia_json_get(gm, "graph"), &p->graph, depth) < 0)
        return -1;
    path_pop(c, sg);
    const mlia_json *sig = mlia_json_get(gm, "signature");
    if (!is_null(sig)) {
        size_t ss = path_key(c, "signature");
        if (sig->type != MLIA_JSON_OBJECT)
            return failf(c, "expected an object");
        if (parse_specs(c, sig, "input_specs", &p->input_specs, &p->n_input_specs) < 0 ||
            parse_specs(c, sig, "output_specs", &p->output_specs, &p->n_output_specs) < 0)
            return -1;
        path_pop(c, ss);
    }
    p->module_call_graph = mlia_json_clone(mlia_json_get(gm, "module_call_graph"), c->arena);
    path_pop(c, s);

    const mlia_json *sv = mlia_json_get(root, "schema_version");
    if (sv && sv->type == MLIA_JSON_NUMBER) {
        p->legacy = true;
        if (get_int(c, root, "schema_version", &p->schema_major) < 0)
            return -1;
    } else if (sv && sv->type == MLIA_JSON_OBJECT) {
        size_t ss = path_key(c, "schema_version");
        if (get_int(c, sv, "major", &p->schema_major) < 0)
            return -1;
        if (mlia_json_get(sv, "minor") && get_int(c, sv, "minor", &p->schema_minor) < 0)
            return -1;
        path_pop(c, ss);
    } else if (!is_null(sv)) {
        return fail_at_key(c, "schema_version", "expected an object or an integer");
    }
    const mlia_json *ver = mlia_json_get(root, "verifiers");
    if (ver && ver->type == MLIA_JSON_ARRAY) {
        p->verifiers = mlia_arena_array(c->arena, ver->u.array.n, sizeof(const char *));
        for (size_t i = 0; i < ver->u.array.n; i++)
            if (ver->u.array.items[i]->type == MLIA_JSON_STRING)
                p->verifiers[p->n_verifiers++] = keep_str(c, ver->u.array.items[i]);
    }
    p->range_constraints = mlia_json_clone(mlia_json_get(root, "range_constraints"), c->arena);
    p->opset_version = mlia_json_clone(mlia_json_get(root, "opset_version"), c->arena);
    return 0;
}

int ep_parse(const char *json, size_t len, const char *file, const char *entry, mlia_arena *arena,
             ep_program **out, mlia_error *err)
{
    return ep_parse_scratch(NULL, json, len, file, entry, arena, out, err);
}

int ep_parse_scratch(mlia_scratch *text, const char *json, size_t len, const char *file, const char *entry,
                     mlia_arena *arena, ep_program **out, mlia_error *err)
{
    *out = NULL;
    const char *jfile = file;
    if (entry)
        jfile = file ? mlia_arena_printf(arena, "%s: %s", file, entry) : entry;
    /* The trees (and the intern table) live in their own arena, released on
     * return, also by an out-of-memory jump; it may use what the program's
     * arena has left under its limit. */
    mlia_scratch tree;
    mlia_scratch_begin(&tree, arena);
    int rc = -1;
    mlia_json_opts opts = {.allow_nonfinite = true, .refuse_nul = true};
    mlia_json *root;
    int parsed = mlia_json_parse(json, len, &opts, &tree.a, &root, jfile, err);
    if (text) /* the tree holds copies of every string and number */
        mlia_arena_free(&text->a);
    if (parsed < 0)
        goto done;
    ep_ctx *c = mlia_arena_alloc(&tree.a, sizeof *c); /* the path buffer is large */
    c->arena = arena;
    c->tree = &tree.a;
    c->file = file;
    c->entry = entry;
    c->err = err;
    ep_program *p = mlia_arena_alloc(arena, sizeof *p);
    p->entry = entry;
    if (parse_program_tree(c, root, p, 0) < 0)
        goto done;
    *out = p;
    rc = 0;
done:
    mlia_scratch_end(&tree);
    return rc;
}

const char *ep_target_short(const char *target)
{
    if (!target)
        return NULL;
    size_t len = strlen(target);
    int dots = 0;
    for (size_t i = len; i-- > 0;) {
        if (target[i] == '.' && ++dots == 3)
            return target + i + 1;
    }
    return target;
}

const char *ep_dtype_name(int64_t d)
{
    static const char *const names[] = {
        "unknown",   "uint8",   "int8",     "int16",   "int32",         "int64",
        "float16",   "float32", "float64",  "complex32", "complex64",   "complex128",
        "bool",      "bfloat16", "uint16",  "float8_e5m2", "float8_e4m3fn"};
    if (d < 0 || d >= (int64_t)(sizeof names / sizeof names[0]))
        return "unknown";
    return names[d];
}

static int cmp_handle_node(const void *a, const void *b)
{
    const ep_handle_node *x = a, *y = b;
    if (x->handle != y->handle)
        return x->handle < y->handle ? -1 : 1;
    return x->node < y->node ? -1 : (x->node > y->node);
}

ep_handle_node *ep_handle_index(const ep_graph *g, mlia_arena *arena, uint32_t *n)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        k += g->nodes[i].debug_handle != 0;
    ep_handle_node *idx = mlia_arena_array(arena, k ? k : 1, sizeof *idx);
    k = 0;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (g->nodes[i].debug_handle)
            idx[k++] = (ep_handle_node){g->nodes[i].debug_handle, i};
    qsort(idx, k, sizeof *idx, cmp_handle_node);
    *n = k;
    return idx;
}

uint32_t ep_handle_first(const ep_handle_node *idx, uint32_t n, int64_t handle)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (idx[mid].handle < handle)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

const ep_node *ep_find_node(const ep_graph *g, const char *name)
{
    if (!g || !name)
        return NULL;
    for (uint32_t i = 0; i < g->n_nodes; i++)
        if (strcmp(g->nodes[i].name, name) == 0)
            return &g->nodes[i];
    return NULL;
}
