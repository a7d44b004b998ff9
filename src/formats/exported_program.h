/*
 * exported_program.h - ExportedProgram JSON reader
 * (docs/formats/exported-program.md), the graph format inside ETRecord
 * program entries.
 *
 * Accepts both the current serde form (unions are one-key objects) and the
 * 2023 legacy form (unions list every member, all null but one; nodes have
 * no name; tensor metadata wrapped in {"meta": ...}). The rule that reads
 * both: a union's selected member is its unique non-null key (an object
 * whose members are all null selects `as_none` when it has that key).
 *
 * The reader keeps what the analysis and views need: call_function nodes
 * with target, arguments (tensor names they reference and a text form of
 * scalar values), produced names, metadata (debug_handle parsed, stack
 * trace, nn_module_stack split into entries, source_fn_stack split into
 * entries, from_node raw), graph inputs/outputs, signature specs, tensor
 * metadata with a hashed name index, nested graphs (as_graph) and the
 * backend id of executorch_call_delegate nodes (decoded from the JSON text
 * in its first argument; the lowered module's original_module program is
 * parsed too when present, processed_bytes stays undecoded).
 *
 * Limits: JSON nesting 512 per document, nested graphs 16 deep, nested JSON
 * strings (delegate payloads) 4 deep.
 *
 * Ownership: every object lives in the arena passed to ep_parse(); strings
 * point into that arena's copy of the document.
 */
#ifndef MLIA_FORMATS_EXPORTED_PROGRAM_H
#define MLIA_FORMATS_EXPORTED_PROGRAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/json_read.h"

#define EP_MAX_GRAPH_DEPTH 16
#define EP_MAX_PAYLOAD_DEPTH 4
/* Length caps (docs/hardening.md): a name, target or expression longer than
 * EP_MAX_NAME_BYTES, or a metadata value (stack trace, module stack, ...)
 * longer than EP_MAX_META_BYTES, is an error. These strings are repeated in
 * every output (result, views, page), so one oversized name would otherwise
 * multiply into gigabytes of output. Real programs stay far below both. */
#define EP_MAX_NAME_BYTES 4096u
#define EP_MAX_META_BYTES 65536u

typedef struct ep_graph ep_graph;
typedef struct ep_program ep_program;

typedef enum ep_arg_kind {
    EP_ARG_NONE = 0,
    EP_ARG_TENSOR,
    EP_ARG_TENSORS,
    EP_ARG_OPTIONAL_TENSORS,
    EP_ARG_INT,
    EP_ARG_INTS,
    EP_ARG_FLOAT,
    EP_ARG_FLOATS,
    EP_ARG_STRING,
    EP_ARG_STRINGS,
    EP_ARG_SYM_INT,
    EP_ARG_SYM_INTS,
    EP_ARG_SCALAR_TYPE,
    EP_ARG_MEMORY_FORMAT,
    EP_ARG_LAYOUT,
    EP_ARG_DEVICE,
    EP_ARG_BOOL,
    EP_ARG_BOOLS,
    EP_ARG_SYM_BOOL,
    EP_ARG_SYM_BOOLS,
    EP_ARG_GRAPH,
    EP_ARG_CUSTOM_OBJ,
    EP_ARG_OPERATOR,
    EP_ARG_OTHER          /* a member this reader does not know; kind_name says which */
} ep_arg_kind;

/* An Argument (the value of a NamedArgument, a node output, a graph
 * input/output or a signature spec's arg). */
typedef struct ep_arg {
    const char *name;         /* NamedArgument name ("self", "" for positional); NULL elsewhere */
    ep_arg_kind kind;
    const char *kind_name;    /* the union key, e.g. "as_tensor" */
    uint32_t n_tensors;       /* tensor names referenced (as_tensor(s), as_optional_tensors) */
    const char **tensors;
    /* Scalar value as text: ints/floats/bools their JSON text, lists and
     * objects compact JSON, strings the decoded string itself, sym values the
     * symbol name or the int, graphs the graph name; NULL for none/tensors. */
    const char *value;
    const char *sym_name;     /* as_sym_int / as_sym_bool {as_name}; NULL otherwise */
    ep_graph *graph;          /* as_graph */
} ep_arg;

/* One nn_module_stack entry "key,path,type". */
typedef struct ep_module_entry {
    const char *key;
    const char *path;
    const char *type;
} ep_module_entry;

/* One source_fn_stack entry "name,target". */
typedef struct ep_source_fn {
    const char *name;
    const char *target;
} ep_source_fn;

typedef struct ep_meta_kv {
    const char *key;
    const char *value;
} ep_meta_kv;

typedef struct ep_node {
    const char *name;                 /* legacy: first output name */
    const char *target;
    uint32_t n_inputs;
    ep_arg *inputs;
    uint32_t n_outputs;
    const char **outputs;             /* produced names (tensors and symbols), in order */
    uint32_t n_output_args;
    ep_arg *output_args;              /* the raw output Arguments */
    int64_t debug_handle;             /* 0 = none */
    const char *stack_trace;          /* NULL when absent */
    const char *nn_module_stack_raw;  /* NULL when absent */
    uint32_t n_modules;
    ep_module_entry *modules;         /* outermost first */
    const char *source_fn_stack;      /* raw text, NULL when absent */
    uint32_t n_source_fns;
    ep_source_fn *source_fns;
    const char *from_node;            /* raw JSON text, NULL when absent */
    const char *torch_fn;             /* raw, NULL when absent */
    uint32_t n_meta;
    ep_meta_kv *meta;                 /* every metadata key/value in document order */
    const char *delegate_backend;     /* executorch_call_delegate: backend_id, else NULL */
    const char *delegate_module;      /* executorch_call_delegate: inputs[0].name */
    ep_program *delegate_original;    /* lowered module's original_module, or NULL */
    bool is_delegate;
    uint32_t index;                   /* position in its graph's nodes */
} ep_node;

typedef struct ep_tensor_meta {
    const char *name;
    int64_t dtype;             /* serde ScalarType (section 6.8) */
    uint32_t rank;
    int64_t *sizes;            /* [rank]; 0 where dynamic */
    const char **size_exprs;   /* [rank]; NULL where static, else the expression */
    bool dynamic;              /* some size is an expression */
    uint32_t n_strides;
    int64_t *strides;          /* [n_strides]; 0 where dynamic */
    int64_t storage_offset;
    bool requires_grad;
    const char *device;        /* device type, e.g. "cpu" */
    int64_t device_index;      /* -1 when absent/null */
    int64_t layout;            /* serde layout, 7 = strided; -1 when absent */
} ep_tensor_meta;

typedef struct ep_spec {
    const char *kind;          /* union key: user_input, parameter, buffer, user_output, ... */
    ep_arg arg;                /* its arg (kind EP_ARG_NONE for constant_input) */
    const char *arg_name;      /* the placeholder / output name referenced, or NULL */
    const char *target;        /* parameter_name / buffer_name / ... or NULL */
} ep_spec;

struct ep_graph {
    uint32_t n_nodes;
    ep_node *nodes;
    uint32_t n_inputs;
    const char **inputs;       /* graph input names (placeholders) */
    uint32_t n_outputs;
    const char **outputs;      /* names the graph returns */
    uint32_t n_input_args, n_output_args;
    ep_arg *input_args, *output_args;
    uint32_t n_tensors;
    ep_tensor_meta *tensors;   /* tensor_values, document order (last duplicate wins in lookup) */
    uint32_t hash_cap;         /* power of two */
    uint32_t *hash;            /* open addressing, tensor index + 1, 0 = empty */
    bool is_single_tensor_return;
    uint32_t depth;            /* 0 = top-level graph */
};

struct ep_program {
    const char *entry;         /* entry name it was parsed from (borrowed) */
    bool legacy;               /* legacy serde form (schema_version is a plain int) */
    int64_t schema_major, schema_minor;
    ep_graph graph;
    uint32_t n_input_specs, n_output_specs;
    ep_spec *input_specs, *output_specs;
    uint32_t n_verifiers;
    const char **verifiers;
    mlia_json *range_constraints;  /* raw (may hold NaN/Infinity), or NULL */
    mlia_json *opset_version;      /* raw, or NULL */
    mlia_json *module_call_graph;  /* raw, or NULL */
};

/* Parses an ExportedProgram JSON document of `len` bytes. `file` and
 * `entry` name the source in messages:
 *   "<file>: <entry>: invalid JSON at byte <n>: <reason>"
 *   "<file>: <entry>: graph_module.graph.nodes[3].target: expected a string"
 * Either name may be NULL (then it is left out). The result lives in arena. */
int ep_parse(const char *json, size_t len, const char *file, const char *entry, mlia_arena *arena,
             ep_program **out, mlia_error *err);
/* The same for a document held in the scratch arena `text` (the ETRecord
 * entry): text's arena is released as soon as the parse tree is built, so
 * the text and the program are never held together with the tree; the
 * caller still ends the scratch (mlia_scratch_end). */
int ep_parse_scratch(mlia_scratch *text, const char *json, size_t len, const char *file, const char *entry,
                     mlia_arena *arena, ep_program **out, mlia_error *err);

/* Tensor metadata by name (hash lookup), or NULL. */
const ep_tensor_meta *ep_tensor(const ep_graph *g, const char *name);

/* Last three dot components of an op target ("aten.mul.Tensor"), or the
 * whole target when it has fewer than three; points into `target`. */
const char *ep_target_short(const char *target);

/* Serde dtype name ("float32", "int8", ...) or "unknown". */
const char *ep_dtype_name(int64_t serde_dtype);

/* Node by name in g (linear scan), or NULL. */
const ep_node *ep_find_node(const ep_graph *g, const char *name);

/* The nodes of a graph that carry a debug handle, sorted by (handle, node),
 * so that the nodes of a handle are found by binary search (the runtime
 * analysis and the trace both map ETDump instructions to nodes this way). */
typedef struct ep_handle_node {
    int64_t handle;
    uint32_t node;               /* index in ep_graph.nodes */
} ep_handle_node;
/* The index of g in an arena array; *n = its length. */
ep_handle_node *ep_handle_index(const ep_graph *g, mlia_arena *arena, uint32_t *n);
/* Position of the first entry of `handle` in idx[0, n), else of the first
 * larger one (n when none): its nodes follow while idx[i].handle == handle. */
uint32_t ep_handle_first(const ep_handle_node *idx, uint32_t n, int64_t handle);

#endif
