/*
 * vgf.h - reader for Arm ML SDK "VGF" files (docs/formats/vgf.md;
 * the SPIR-V graphs: docs/formats/spirv-tosa.md).
 *
 * vgf_read() validates the 128-byte header, decodes the Module, Model
 * Sequence and Model Resource tables (FlatBuffers without identifier, each
 * rooted at its section start, read through fb.h with VGF alignment rules),
 * the constants section (raw CONST00 or legacy FlatBuffers, chosen by
 * content), applies the cross-reference rules of §8 and, for every GRAPH
 * segment whose module holds real SPIR-V, decodes the graph into TOSA
 * operations with classified operands and decoded attributes.
 *
 * MUST rules fail with "<file>: <what> (byte <n>)" or
 * "<file>: <section> section invalid: <what> at byte <n> (<field path>)";
 * SHOULD rules append a warning string to vgf_file.warnings. Placeholder
 * modules and compute segments are reported, not fatal.
 *
 * Ownership: the vgf_file and everything it points to live in the arena
 * passed to vgf_read, except bytes (constant data, module words, strings)
 * that point into the caller's `data`, which must outlive the vgf_file.
 */
#ifndef MLIA_FORMATS_VGF_H
#define MLIA_FORMATS_VGF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"
#include "backends/vgf/formats/schema_vgf.h"
#include "backends/vgf/formats/spirv.h"
#include "backends/vgf/formats/tosa.h"

#define VGF_HEADER_SIZE 128
#define VGF_DESCRIPTOR_NONE 0xFFFFFFFFu
#define VGF_DESCRIPTOR_TENSOR_ARM 1000460000u

enum { VGF_SECTION_MODULE = 0, VGF_SECTION_SEQUENCE, VGF_SECTION_RESOURCE, VGF_SECTION_CONSTANT };
/* numbered by the schema (tools/schema/vgf.fbs -> formats/schema_vgf.h) */
enum { VGF_MODULE_COMPUTE = VGF_MODULE_TYPE_COMPUTE, VGF_MODULE_GRAPH = VGF_MODULE_TYPE_GRAPH };
enum {
    VGF_CODE_NONE = VGF_MODULE_CODE_NONE,
    VGF_CODE_SPIRV = VGF_MODULE_CODE_SPIRV,
    VGF_CODE_GLSL = VGF_MODULE_CODE_GLSL,
    VGF_CODE_HLSL = VGF_MODULE_CODE_HLSL
};
enum {
    VGF_CATEGORY_INPUT = VGF_RESOURCE_CATEGORY_INPUT,
    VGF_CATEGORY_OUTPUT = VGF_RESOURCE_CATEGORY_OUTPUT,
    VGF_CATEGORY_INTERMEDIATE = VGF_RESOURCE_CATEGORY_INTERMEDIATE,
    VGF_CATEGORY_CONSTANT = VGF_RESOURCE_CATEGORY_CONSTANT
};

typedef struct vgf_section {
    uint64_t offset, size;  /* file offset and size from the header */
} vgf_section;

typedef struct vgf_binding {
    uint32_t binding;
    uint32_t mrt_index;
} vgf_binding;

typedef struct vgf_set_info {
    bool has_set_index;      /* field present and != 0xFFFFFFFF */
    uint32_t set_index;      /* effective index (position when absent) */
    uint32_t n_bindings;
    vgf_binding *bindings;
} vgf_set_info;

typedef struct vgf_push_range {
    uint32_t stage_flags, offset, size;
} vgf_push_range;

typedef struct vgf_module {
    uint8_t type;            /* raw: 0 COMPUTE, 1 GRAPH, others reported raw */
    mlia_str name, entry_point;
    uint8_t code_type;       /* raw: 0 NONE, 1 SPIRV, 2 GLSL, 3 HLSL */
    bool has_words;
    uint32_t n_words;        /* SPIRV.words count */
    uint64_t words_offset;   /* file offset of word 0 */
    mlia_str source;         /* GLSL / HLSL text */
    bool placeholder;        /* no embedded code or not a SPIR-V module */
    spv_module *spirv;       /* decoded SPIR-V, NULL when placeholder */
} vgf_module;

/* SPIR-V name map (see vgf_segment_name_map). */
typedef struct vgf_name_map {
    uint32_t n;
    uint32_t *ids;
    const char **names;
} vgf_name_map;

/* One operand of a decoded operation. */
typedef struct vgf_operand {
    const char *name;        /* TOSA operand name, NULL for non-TOSA ops */
    uint8_t kind;            /* tosa_operand_kind (TOSA_TENSOR for non-TOSA ops) */
    spv_operand ref;         /* class, SPIR-V id, input index / op position / constant id */
    const char *type_text;   /* "!spirv.arm.tensor<8xi32>", "i32", "i1", "?" */
    int64_t resource;        /* graph input k / graph constant c -> MRT index, else -1 */
    uint32_t producer_id;    /* op result: SPIR-V result id of the producer */
    const char *const_kind;  /* module constant: "composite", "null", ... */
    bool has_value;          /* module constant decoded */
    spv_const value;
} vgf_operand;

typedef struct vgf_operation {
    uint32_t id;             /* SPIR-V result id (the stable key) */
    const char *op;          /* "CONV2D"; non-TOSA: "<set>:<instruction>" or "OpCompositeExtract" */
    const char *label;       /* MLIR name "Conv2D" (= op for non-TOSA ops) */
    bool is_tosa;
    const spv_op *spv;
    uint32_t n_operands;
    vgf_operand *operands;
    const char *result_type; /* type text of the result */
    const char *debug_name;  /* NULL when none */
} vgf_operation;

typedef struct vgf_segment {
    uint8_t type;            /* raw: 0 COMPUTE, 1 GRAPH */
    mlia_str name;
    uint32_t module_index;
    uint32_t n_sets;
    vgf_set_info *sets;
    uint32_t n_inputs, n_outputs;
    vgf_binding *inputs, *outputs;
    bool has_constants;
    uint32_t n_constants;
    uint32_t *constants;
    bool has_dispatch;
    uint32_t dispatch[3];
    bool has_push_ranges;
    uint32_t n_push_ranges;
    vgf_push_range *push_ranges;
    /* decoded graph (GRAPH segments with real SPIR-V) */
    const spv_module *spirv; /* NULL otherwise */
    const spv_graph *graph;  /* the graph named by the module's entry point */
    uint32_t n_operations;
    vgf_operation *operations;
    vgf_name_map name_map;
} vgf_segment;

typedef struct vgf_resource {
    uint32_t descriptor_type;   /* 0xFFFFFFFF = none */
    uint32_t format;            /* VkFormat */
    uint8_t category;
    bool has_description;
    uint32_t rank;
    int64_t *shape;             /* INT64_MIN = dynamic */
    uint32_t n_strides;
    int64_t *strides;
    uint8_t extra_config_type;  /* 0 NONE, 1 SamplerConfig */
    uint32_t sampler[5];        /* min, mag, address u, address v, border */
    uint32_t alias_group_id;    /* 0xFFFFFFFF = none */
} vgf_resource;

typedef struct vgf_constant {
    uint32_t mrt_index;
    int64_t sparsity_dimension;
    uint64_t size;
    uint64_t file_offset;       /* of the data */
    const uint8_t *data;        /* points into the caller's blob */
} vgf_constant;

typedef struct vgf_file {
    const char *file;
    const uint8_t *data;
    size_t size;
    bool legacy_magic;
    uint16_t vk_header_version;
    uint8_t major, minor, patch;
    vgf_section sections[4];
    uint32_t n_modules, n_segments, n_resources, n_constants;
    vgf_module *modules;
    vgf_segment *segments;
    vgf_resource *resources;
    vgf_constant *constants;
    bool constants_raw;         /* CONST00 (else legacy FlatBuffers) */
    uint32_t n_model_inputs, n_model_outputs, n_input_names, n_output_names;
    vgf_binding *model_inputs, *model_outputs;
    mlia_str *input_names, *output_names;
    uint32_t n_warnings;
    const char **warnings;
} vgf_file;

/* Decode a VGF blob of `size` bytes (the length comes from the container).
 * `file` names the source in messages. On success *out lives in `arena`.
 * Errors: see the file comment and docs/vgf.md. */
int vgf_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, vgf_file **out,
             mlia_error *err);

/* Names of enum values; NULL when unknown (callers print raw numbers). */
const char *vgf_format_name(uint32_t vk_format);          /* "R8_SINT" */
const char *vgf_descriptor_type_name(uint32_t type);      /* "TENSOR_ARM", "NONE" */
const char *vgf_category_name(uint8_t category);          /* "INPUT" */
const char *vgf_module_type_name(uint8_t type);           /* "GRAPH" / "COMPUTE" */
const char *vgf_code_type_name(uint8_t code_type);        /* "SPIRV" */
/* Bytes per element of a VkFormat, 0 when unknown. */
uint32_t vgf_format_elem_bytes(uint32_t vk_format);

/* SPIR-V name map of a graph segment (docs/formats/nx-statistics.md §7.9), computed by
 * vgf_read: known ids = TOSA OpExtInst results in module order, then ids
 * named by debug operations (first seen, no repeats); names[i] = debug name
 * or NULL. The arrays live in the vgf_file's arena; a segment without SPIR-V
 * (or an out-of-range index) gives n = 0. */
void vgf_segment_name_map(const vgf_file *f, uint32_t segment_index, vgf_name_map *out);
/* True when the segment's module defines a TOSA OpExtInst with result id `id`. */
bool vgf_segment_has_spirv_id(const vgf_file *f, uint32_t segment_index, uint32_t id);

#endif
