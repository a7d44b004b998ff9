/*
 * vgf.c - VGF container reader (see vgf.h; format and § numbers:
 * docs/formats/vgf.md).
 *
 * Order of work: header (§2) -> the four sections, each decoded in
 * isolation with its own fb_buf rooted at the section start (§3-7) -> the
 * cross-reference rules (§8) -> SPIR-V of every module with real code
 * (spirv.c) -> per GRAPH segment, the TOSA operations with operands resolved
 * to graph inputs, producers, VGF constants/resources or decoded module
 * constants (docs/formats/spirv-tosa.md §3-7) -> the name map of
 * docs/formats/nx-statistics.md §7.9.
 *
 * FlatBuffers errors come back from fb.c without a file name; they are
 * wrapped as "<file>: <section> section invalid: <fb message>" so a user
 * sees which of the four tables is broken. Semantic (cross-reference)
 * errors use field paths of the sequence table, e.g.
 * "segments[0].module_index".
 */
#include "vgf.h"
#include "core/cnum.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "formats/fb.h"

#define VGF_MAX_WARNINGS 500
#define VGF_OPERAND_MAX_VALUES 65536u

static const char *const section_names[4] = {"module", "sequence", "resource", "constant"};

typedef struct vgf_reader {
    vgf_file *f;
    mlia_arena *arena;
    const char *file;
    mlia_error *err;
    uint32_t warn_cap;
} vgf_reader;

static void warn(vgf_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(vgf_reader *r, const char *fmt, ...)
{
    vgf_file *f = r->f;
    const char **slot = mlia_arena_warning_slot(r->arena, &f->warnings, &f->n_warnings, &r->warn_cap, VGF_MAX_WARNINGS,
                                                "further warnings suppressed");
    if (!slot)
        return;
    va_list ap;
    va_start(ap, fmt);
    *slot = mlia_arena_vprintf(r->arena, fmt, ap);
    va_end(ap);
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p) { return fb_le32(p); }
static uint64_t le64(const uint8_t *p) { return fb_le64(p); }

/* Wraps an fb.c message (made without a file name) with file and section. */
static int section_fail(vgf_reader *r, int sec, const mlia_error *inner)
{
    return mlia_error_setf(r->err, r->file, "%s section invalid: %s", section_names[sec], inner->text);
}

static int section_failf(vgf_reader *r, int sec, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int section_failf(vgf_reader *r, int sec, const char *fmt, ...)
{
    char text[1024];
    MLIA_FORMAT_ARGS(text, fmt);
    return mlia_error_setf(r->err, r->file, "%s section invalid: %s", section_names[sec], text);
}

/* Vector field `name` of t and its element array (at least one element, so
 * never NULL); *n = the count. NULL on error (inner filled). */
static void *field_array(vgf_reader *r, const fb_table *t, unsigned slot, const char *name, unsigned width,
                         size_t elem, fb_vec *v, uint32_t *n, mlia_error *inner)
{
    if (fb_get_vector(t, slot, name, width, v, inner) < 0)
        return NULL;
    *n = v->n;
    return mlia_arena_array(r->arena, v->n ? v->n : 1, elem);
}

/* One FlatBuffers section being read: its buffer, root table and the fb.c
 * error of the failing field. */
typedef struct vgf_fb_section {
    int sec;
    fb_buf b;
    fb_table root;
    mlia_error inner;
} vgf_fb_section;

/* Reads one table `t` (element i of a vector of tables) into `item`.
 * Returns 0, or -1 with either sc->inner filled (wrapped by read_section) or
 * the final error already set on r->err by section_failf (the wrapping then
 * does nothing: mlia_error_setf keeps the first error). */
typedef int (*vgf_item_fn)(vgf_reader *r, vgf_fb_section *sc, uint32_t i, const fb_table *t, void *item);

/* fb_read_records context of the sections' vectors of tables. */
typedef struct vgf_items {
    vgf_reader *r;
    vgf_fb_section *sc;
    vgf_item_fn fn;
} vgf_items;

static int read_item(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    const vgf_items *x = ctx;
    return x->fn(x->r, x->sc, i, t, item);
}

/* Every vector of tables in the sections, by the readers' shared
 * fb_read_records (fb.h): a new array of `elem`-byte elements (*n = count,
 * *present = field present when not NULL), element i read by fn from table
 * i. NULL on error. */
static void *read_tables(vgf_reader *r, vgf_fb_section *sc, const fb_table *t, unsigned slot, const char *name,
                         size_t elem, vgf_item_fn fn, uint32_t *n, bool *present)
{
    vgf_items x = {r, sc, fn};
    return fb_read_records(t, slot, name, r->arena, elem, read_item, &x, n, present, &sc->inner);
}

/* Reads the root fields of a section beyond its items (0, or -1 as for
 * vgf_item_fn). */
typedef int (*vgf_root_fn)(vgf_reader *r, vgf_fb_section *sc);

/* A FlatBuffers section (§3): opens it, reads the vector of tables
 * in root slot `slot` with read_tables(), then the other root fields with
 * root_fn (may be NULL), and warns about lenient vtable fixes. Returns the
 * item array, or NULL with r->err set as
 * "<file>: <section> section invalid: <fb message>". */
static void *read_section(vgf_reader *r, int sec, unsigned slot, const char *items, size_t elem, vgf_item_fn fn,
                          vgf_root_fn root_fn, uint32_t *n)
{
    const vgf_section *s = &r->f->sections[sec];
    vgf_fb_section sc;
    sc.sec = sec;
    mlia_error_clear(&sc.inner);
    if (s->size < 12) {
        section_failf(r, sec, "size %" PRIu64 " is below the 12 bytes of a FlatBuffer (byte %" PRIu64 ")", s->size,
                      s->offset);
        return NULL;
    }
    void *out = NULL;
    if (fb_open(&sc.b, r->f->data + s->offset, s->size, NULL, s->offset, NULL, false,
                FB_CHECK_ALIGN | FB_LENIENT_VTABLE, &sc.root, &sc.inner) != 0 ||
        !(out = read_tables(r, &sc, &sc.root, slot, items, elem, fn, n, NULL)) || (root_fn && root_fn(r, &sc) != 0)) {
        section_fail(r, sec, &sc.inner);
        return NULL;
    }
    if (sc.b.warnings)
        warn(r, "%s section: %" PRIu64 " table(s) with a vtable shorter than 4 bytes, first at byte %" PRIu64
             "; their fields are treated as absent", section_names[sec], sc.b.warnings,
             fb_file_offset(&sc.b, sc.b.first_warning_pos));
    return out;
}

/* ------------------------------------------------------------- header */

static int read_header(vgf_reader *r)
{
    vgf_file *f = r->f;
    const uint8_t *d = f->data;
    if (f->size < VGF_HEADER_SIZE)
        return mlia_error_setf(r->err, r->file, "file too short for a VGF header (%zu bytes, need 128)", f->size);
    if (memcmp(d, "VGF1", 4) == 0) {
        f->legacy_magic = false;
    } else if (le32(d) == 0xF0E1D2C3u) {
        f->legacy_magic = true;
        warn(r, "header: deprecated magic 0xF0E1D2C3");
    } else {
        return mlia_error_setf(r->err, r->file, "not a VGF file: bad magic %02x %02x %02x %02x (byte 0)", d[0], d[1],
                               d[2], d[3]);
    }
    f->vk_header_version = le16(d + 4);
    f->major = d[8];
    f->minor = d[9];
    f->patch = d[10];
    if (f->major != 0 || f->minor > 4)
        return mlia_error_setf(r->err, r->file, "unsupported VGF version %u.%u.%u (supported: 0.0 to 0.4) (byte 8)",
                               f->major, f->minor, f->patch);
    if (le16(d + 6) != 0)
        warn(r, "header: reserved field at byte 6 is %u, expected 0", le16(d + 6));
    if (d[11] != 0)
        warn(r, "header: reserved field at byte 11 is %u, expected 0", d[11]);
    if (le32(d + 12) != 0)
        warn(r, "header: reserved field at byte 12 is %" PRIu32 ", expected 0", le32(d + 12));
    for (int i = 0; i < 6; i++)
        if (le64(d + 80 + 8 * i) != 0)
            warn(r, "header: reserved field at byte %d is %" PRIu64 ", expected 0", 80 + 8 * i,
                 le64(d + 80 + 8 * i));
    for (int s = 0; s < 4; s++) {
        uint64_t off = le64(d + 16 + 16 * s), size = le64(d + 24 + 16 * s);
        f->sections[s].offset = off;
        f->sections[s].size = size;
        if (off > f->size || size > f->size - off)
            return mlia_error_setf(r->err, r->file,
                                   "%s section (offset %" PRIu64 ", size %" PRIu64 ") lies outside the %zu-byte file (byte %d)",
                                   section_names[s], off, size, f->size, 16 + 16 * s);
    }
    for (int s = 0; s < 4; s++) {
        const vgf_section *a = &f->sections[s];
        if (a->size && a->offset < VGF_HEADER_SIZE)
            warn(r, "header: %s section (offset %" PRIu64 ") overlaps the header", section_names[s], a->offset);
        for (int t = s + 1; t < 4; t++) {
            const vgf_section *b = &f->sections[t];
            if (a->size && b->size && a->offset < b->offset + b->size && b->offset < a->offset + a->size)
                warn(r, "header: %s and %s sections overlap", section_names[s], section_names[t]);
        }
    }
    return 0;
}

/* ------------------------------------------------------------- modules */

static int read_module(vgf_reader *r, vgf_fb_section *sc, uint32_t i, const fb_table *t, void *item)
{
    vgf_module *m = item;
    mlia_error *inner = &sc->inner;
    if (fb_get_u8(t, VGF_SLOT_MODULE_TYPE, "type", 0, &m->type, inner) != 0 ||
        fb_get_string(t, VGF_SLOT_MODULE_NAME, "name", &m->name, inner) < 0 ||
        fb_get_string(t, VGF_SLOT_MODULE_ENTRY_POINT, "entry_point", &m->entry_point, inner) < 0 ||
        fb_get_u8(t, VGF_SLOT_MODULE_CODE_TYPE, "code_type", 0, &m->code_type, inner) != 0)
        return -1;
    if (m->type > 1)
        warn(r, "module %u: unknown type %u", i, m->type);
    m->placeholder = true;
    if (m->code_type != VGF_CODE_NONE && !fb_has(t, VGF_SLOT_MODULE_CODE)) {
        warn(r, "module %u: code_type %u without code; treated as NONE", i, m->code_type);
    } else if (m->code_type > VGF_CODE_HLSL) {
        warn(r, "module %u: unknown code_type %u; treated as NONE", i, m->code_type);
    } else if (m->code_type != VGF_CODE_NONE) {
        uint8_t ut;
        fb_table code;
        if (fb_get_union(t, VGF_SLOT_MODULE_CODE_TYPE, "code", VGF_MODULE_CODE_HLSL, &ut, &code, inner) < 0)
            return -1;
        if (m->code_type == VGF_CODE_SPIRV) {
            fb_vec words;
            if (fb_get_vector(&code, VGF_SLOT_SPIRV_WORDS, "words", 4, &words, inner) < 0)
                return -1;
            m->has_words = words.present;
            m->n_words = words.n;
            m->words_offset = fb_file_offset(&sc->b, words.pos);
            if (words.n >= 5 && fb_vec_u32(&words, 0) == SPV_MAGIC)
                m->placeholder = false;
        } else {
            if (fb_get_string(&code, m->code_type == VGF_CODE_GLSL ? VGF_SLOT_GLSL_CODE : VGF_SLOT_HLSL_CODE, "code",
                              &m->source, inner) < 0)
                return -1;
            m->placeholder = m->source.ptr == NULL;
        }
    }
    if (m->placeholder)
        warn(r, "module %u (%.*s): placeholder module (no embedded %s code)", i, (int)m->name.len,
             m->name.ptr ? m->name.ptr : "", m->code_type == VGF_CODE_SPIRV ? "SPIR-V" : "shader");
    return 0;
}

/* ------------------------------------------------------------- sequence */

static int read_binding(vgf_reader *r, vgf_fb_section *sc, uint32_t i, const fb_table *t, void *item)
{
    vgf_binding *b = item;
    if (fb_get_u32(t, VGF_SLOT_BINDING_SLOT_BINDING, "binding", 0, &b->binding, &sc->inner) != 0 ||
        fb_get_u32(t, VGF_SLOT_BINDING_SLOT_MRT_INDEX, "mrt_index", 0, &b->mrt_index, &sc->inner) != 0)
        return -1;
    return 0;
}

static vgf_binding *read_bindings(vgf_reader *r, vgf_fb_section *sc, const fb_table *t, unsigned slot,
                                  const char *name, uint32_t *n)
{
    return read_tables(r, sc, t, slot, name, sizeof(vgf_binding), read_binding, n, NULL);
}

/* Vector of scalars copied into a new array: width 4 = uint32_t elements,
 * 8 = int64_t. *present (when not NULL) = field present. NULL on error. */
static void *read_scalars(vgf_reader *r, const fb_table *t, unsigned slot, const char *name, unsigned width,
                          uint32_t *n, bool *present, mlia_error *inner)
{
    fb_vec v;
    uint8_t *out = field_array(r, t, slot, name, width, width, &v, n, inner);
    if (!out)
        return NULL;
    if (present)
        *present = v.present;
    for (uint32_t i = 0; i < v.n; i++) {
        if (width == 8) {
            int64_t x = fb_vec_i64(&v, i);
            memcpy(out + 8 * (size_t)i, &x, 8);
        } else {
            uint32_t x = fb_vec_u32(&v, i);
            memcpy(out + 4 * (size_t)i, &x, 4);
        }
    }
    return out;
}

static int read_strings(vgf_reader *r, const fb_table *t, unsigned slot, const char *name, uint32_t *n,
                        mlia_str **out, mlia_error *inner)
{
    fb_vec v;
    if (!(*out = field_array(r, t, slot, name, 4, sizeof **out, &v, n, inner)))
        return -1;
    for (uint32_t i = 0; i < v.n; i++)
        if (fb_vec_string(&v, i, &(*out)[i], inner) != 0)
            return -1;
    return 0;
}

static int read_set(vgf_reader *r, vgf_fb_section *sc, uint32_t k, const fb_table *t, void *item)
{
    vgf_set_info *set = item;
    uint32_t idx;
    if (!(set->bindings =
              read_bindings(r, sc, t, VGF_SLOT_DESCRIPTOR_SET_INFO_BINDINGS, "bindings", &set->n_bindings)) ||
        fb_get_u32(t, VGF_SLOT_DESCRIPTOR_SET_INFO_SET_INDEX, "set_index", 0xFFFFFFFFu, &idx, &sc->inner) != 0)
        return -1;
    set->has_set_index = idx != 0xFFFFFFFFu;
    set->set_index = set->has_set_index ? idx : k;
    return 0;
}

static int read_push_range(vgf_reader *r, vgf_fb_section *sc, uint32_t k, const fb_table *t, void *item)
{
    vgf_push_range *p = item;
    if (fb_get_u32(t, VGF_SLOT_PUSH_CONSTANT_RANGE_STAGE_FLAGS, "stage_flags", 0, &p->stage_flags, &sc->inner) != 0 ||
        fb_get_u32(t, VGF_SLOT_PUSH_CONSTANT_RANGE_OFFSET, "offset", 0, &p->offset, &sc->inner) != 0 ||
        fb_get_u32(t, VGF_SLOT_PUSH_CONSTANT_RANGE_SIZE, "size", 0, &p->size, &sc->inner) != 0)
        return -1;
    return 0;
}

static int read_segment(vgf_reader *r, vgf_fb_section *sc, uint32_t i, const fb_table *t, void *item)
{
    vgf_segment *s = item;
    mlia_error *inner = &sc->inner;
    if (fb_get_u8(t, VGF_SLOT_SEGMENT_INFO_TYPE, "type", 0, &s->type, inner) != 0 ||
        fb_get_string(t, VGF_SLOT_SEGMENT_INFO_NAME, "name", &s->name, inner) < 0 ||
        fb_get_u32(t, VGF_SLOT_SEGMENT_INFO_MODULE_INDEX, "module_index", 0, &s->module_index, inner) != 0 ||
        !(s->sets = read_tables(r, sc, t, VGF_SLOT_SEGMENT_INFO_SET_INFOS, "set_infos", sizeof *s->sets, read_set,
                                &s->n_sets, NULL)) ||
        !(s->inputs = read_bindings(r, sc, t, VGF_SLOT_SEGMENT_INFO_INPUTS, "inputs", &s->n_inputs)) ||
        !(s->outputs = read_bindings(r, sc, t, VGF_SLOT_SEGMENT_INFO_OUTPUTS, "outputs", &s->n_outputs)) ||
        !(s->constants = read_scalars(r, t, VGF_SLOT_SEGMENT_INFO_CONSTANTS, "constants", 4, &s->n_constants,
                                      &s->has_constants, inner)))
        return -1;
    fb_vec disp;
    if (fb_get_vector(t, VGF_SLOT_SEGMENT_INFO_DISPATCH_SHAPE, "dispatch_shape", 4, &disp, inner) < 0)
        return -1;
    s->has_dispatch = disp.present;
    if (disp.present) {
        if (disp.n != 3)
            return fb_vec_fail(&disp, -1, inner, "dispatch_shape has %u elements, expected 3", disp.n);
        for (uint32_t k = 0; k < 3; k++)
            s->dispatch[k] = fb_vec_u32(&disp, k);
    }
    if (!(s->push_ranges =
              read_tables(r, sc, t, VGF_SLOT_SEGMENT_INFO_PUSH_CONSTANT_RANGES, "push_constant_ranges",
                          sizeof *s->push_ranges, read_push_range, &s->n_push_ranges, &s->has_push_ranges)))
        return -1;
    return 0;
}

/* The model's interface: root fields 1-4 of the sequence section. */
static int read_model_io(vgf_reader *r, vgf_fb_section *sc)
{
    vgf_file *f = r->f;
    if (!(f->model_inputs =
              read_bindings(r, sc, &sc->root, VGF_SLOT_MODEL_SEQUENCE_TABLE_INPUTS, "inputs", &f->n_model_inputs)) ||
        !(f->model_outputs =
              read_bindings(r, sc, &sc->root, VGF_SLOT_MODEL_SEQUENCE_TABLE_OUTPUTS, "outputs", &f->n_model_outputs)) ||
        read_strings(r, &sc->root, VGF_SLOT_MODEL_SEQUENCE_TABLE_INPUT_NAMES, "input_names", &f->n_input_names,
                     &f->input_names, &sc->inner) != 0 ||
        read_strings(r, &sc->root, VGF_SLOT_MODEL_SEQUENCE_TABLE_OUTPUT_NAMES, "output_names", &f->n_output_names,
                     &f->output_names, &sc->inner) != 0)
        return -1;
    return 0;
}

/* ------------------------------------------------------------- resources */

static int read_resource(vgf_reader *r, vgf_fb_section *sc, uint32_t i, const fb_table *t, void *item)
{
    vgf_resource *res = item;
    mlia_error *inner = &sc->inner;
    fb_table desc;
    int rc;
    if (fb_get_u32(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_VK_DESCRIPTOR_TYPE, "vk_descriptor_type", 0,
                   &res->descriptor_type, inner) != 0 ||
        fb_get_u32(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_VK_FORMAT, "vk_format", 0, &res->format, inner) != 0 ||
        fb_get_u8(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_CATEGORY, "category", 0, &res->category, inner) != 0 ||
        (rc = fb_get_table(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_DESCRIPTION, "description", &desc, inner)) < 0 ||
        fb_get_u32(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_ALIAS_GROUP_ID, "alias_group_id", 0xFFFFFFFFu,
                   &res->alias_group_id, inner) != 0)
        return -1;
    res->has_description = rc == 1;
    res->shape = res->strides = NULL;
    if (rc == 1 &&
        (!(res->shape = read_scalars(r, &desc, VGF_SLOT_DESCRIPTION_SHAPE, "shape", 8, &res->rank, NULL, inner)) ||
         !(res->strides =
               read_scalars(r, &desc, VGF_SLOT_DESCRIPTION_STRIDES, "strides", 8, &res->n_strides, NULL, inner))))
        return -1;
    if (!res->shape)
        res->shape = mlia_arena_alloc(r->arena, sizeof(int64_t));
    if (!res->strides)
        res->strides = mlia_arena_alloc(r->arena, sizeof(int64_t));
    uint8_t ut = 0;
    if (fb_get_u8(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_EXTRA_CONFIG_TYPE, "extra_config_type", 0, &ut, inner) != 0)
        return -1;
    if (ut == VGF_EXTRA_CONFIG_SAMPLER_CONFIG && fb_has(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_EXTRA_CONFIG)) {
        fb_table smp;
        uint8_t t2;
        if (fb_get_union(t, VGF_SLOT_MODEL_RESOURCE_TABLE_ENTRY_EXTRA_CONFIG_TYPE, "extra_config",
                         VGF_EXTRA_CONFIG_SAMPLER_CONFIG, &t2, &smp, inner) < 0)
            return -1;
        static const struct {
            unsigned slot;
            const char *name;
        } fields[5] = {{VGF_SLOT_SAMPLER_CONFIG_MIN_FILTER, "min_filter"},
                       {VGF_SLOT_SAMPLER_CONFIG_MAG_FILTER, "mag_filter"},
                       {VGF_SLOT_SAMPLER_CONFIG_ADDRESS_MODE_U, "address_mode_u"},
                       {VGF_SLOT_SAMPLER_CONFIG_ADDRESS_MODE_V, "address_mode_v"},
                       {VGF_SLOT_SAMPLER_CONFIG_BORDER_COLOR, "border_color"}};
        for (unsigned k = 0; k < 5; k++)
            if (fb_get_u32(&smp, fields[k].slot, fields[k].name, 0, &res->sampler[k], inner) != 0)
                return -1;
        res->extra_config_type = VGF_EXTRA_CONFIG_SAMPLER_CONFIG;
    } else if (ut != 0) {
        warn(r, "resource %u: extra_config type %u %s; treated as NONE", i, ut,
             ut == VGF_EXTRA_CONFIG_SAMPLER_CONFIG ? "without a value" : "is unknown");
    }
    if (res->category > VGF_CATEGORY_CONSTANT)
        warn(r, "resource %u: unknown category %u", i, res->category);
    return 0;
}

/* ------------------------------------------------------------- constants */

/* Legacy (FlatBuffers) constant section: one table per constant. */
static int read_constant(vgf_reader *r, vgf_fb_section *sc, uint32_t i, const fb_table *t, void *item)
{
    vgf_constant *c = item;
    fb_vec raw;
    if (fb_get_u32(t, VGF_SLOT_CONSTANT_DATA_MRT_INDEX, "mrt_index", 0, &c->mrt_index, &sc->inner) != 0 ||
        fb_get_i64(t, VGF_SLOT_CONSTANT_DATA_SPARSITY_DIMENSION, "sparsity_dimension", 0, &c->sparsity_dimension,
                   &sc->inner) != 0 ||
        fb_get_vector(t, VGF_SLOT_CONSTANT_DATA_RAW, "raw", 1, &raw, &sc->inner) < 0)
        return -1;
    if (c->sparsity_dimension < -1)
        return section_failf(r, VGF_SECTION_CONSTANT, "data[%u].sparsity_dimension %" PRId64 " is below -1", i,
                             c->sparsity_dimension);
    c->size = raw.n;
    c->file_offset = fb_file_offset(&sc->b, raw.pos);
    c->data = r->f->data + c->file_offset;
    if (raw.n && raw.pos % 8 != 0)
        warn(r, "constant %u: data at section offset %" PRIu64 " is not 8-aligned", i, raw.pos);
    return 0;
}

static int read_constants(vgf_reader *r)
{
    vgf_file *f = r->f;
    const vgf_section *s = &f->sections[VGF_SECTION_CONSTANT];
    const uint8_t *base = f->data + s->offset;
    if (s->size < 8)
        return section_failf(r, VGF_SECTION_CONSTANT, "size %" PRIu64 " is below 8 bytes (byte %" PRIu64 ")",
                             s->size, s->offset);
    if (memcmp(base, "CONST00\0", 8) == 0) {
        f->constants_raw = true;
        if (s->size < 16)
            return section_failf(r, VGF_SECTION_CONSTANT,
                                 "CONST00 header needs 16 bytes, section has %" PRIu64 " (byte %" PRIu64 ")", s->size,
                                 s->offset);
        uint64_t count = le64(base + 8);
        if (count > (s->size - 16) / 24)
            return section_failf(r, VGF_SECTION_CONSTANT,
                                 "count %" PRIu64 " does not fit the %" PRIu64 "-byte section (byte %" PRIu64 ")",
                                 count, s->size, s->offset + 8);
        uint64_t payload = 16 + 24 * count, payload_size = s->size - payload;
        f->n_constants = (uint32_t)count;
        f->constants = mlia_arena_array(r->arena, count ? count : 1, sizeof *f->constants);
        for (uint64_t i = 0; i < count; i++) {
            const uint8_t *rec = base + 16 + 24 * i;
            vgf_constant *c = &f->constants[i];
            uint64_t rec_off = s->offset + 16 + 24 * i;
            c->mrt_index = le32(rec);
            c->sparsity_dimension = (int32_t)le32(rec + 4);
            c->size = le64(rec + 8);
            uint64_t off = le64(rec + 16);
            if (c->sparsity_dimension < -1)
                return section_failf(r, VGF_SECTION_CONSTANT,
                                     "constant %" PRIu64 " sparsity_dimension %" PRId64 " is below -1 (byte %" PRIu64 ")",
                                     i, c->sparsity_dimension, rec_off + 4);
            if (off > payload_size || c->size > payload_size - off)
                return section_failf(r, VGF_SECTION_CONSTANT,
                                     "constant %" PRIu64 " data (offset %" PRIu64 ", size %" PRIu64
                                     ") exceeds the %" PRIu64 "-byte payload (byte %" PRIu64 ")",
                                     i, off, c->size, payload_size, rec_off);
            c->file_offset = s->offset + payload + off;
            c->data = f->data + c->file_offset;
        }
        return 0;
    }
    f->constants_raw = false;
    f->constants = read_section(r, VGF_SECTION_CONSTANT, VGF_SLOT_CONSTANT_SECTION_DATA, "data", sizeof *f->constants,
                                read_constant, NULL, &f->n_constants);
    return f->constants ? 0 : -1;
}

/* ------------------------------------------------------------- names */

const char *vgf_format_name(uint32_t v)
{
    switch (v) {
    case 13: return "R8_UINT";
    case 14: return "R8_SINT";
    case 38: return "R8G8B8A8_SNORM";
    case 74: return "R16_UINT";
    case 75: return "R16_SINT";
    case 76: return "R16_SFLOAT";
    case 98: return "R32_UINT";
    case 99: return "R32_SINT";
    case 100: return "R32_SFLOAT";
    case 109: return "R32G32B32A32_SFLOAT";
    case 111: return "R64_SINT";
    case 1000460000u: return "R8_BOOL_ARM";
    case 1000460001u: return "R16_SFLOAT_FPENCODING_BFLOAT16_ARM";
    case 1000460002u: return "R8_SFLOAT_FPENCODING_FLOAT8E4M3_ARM";
    case 1000460003u: return "R8_SFLOAT_FPENCODING_FLOAT8E5M2_ARM";
    default: return NULL;
    }
}

uint32_t vgf_format_elem_bytes(uint32_t v)
{
    switch (v) {
    case 13: case 14: case 1000460000u: case 1000460002u: case 1000460003u: return 1;
    case 74: case 75: case 76: case 1000460001u: return 2;
    case 98: case 99: case 100: case 38: return 4;
    case 111: return 8;
    case 109: return 16;
    default: return 0;
    }
}

const char *vgf_descriptor_type_name(uint32_t t)
{
    switch (t) {
    case 0: return "SAMPLER";
    case 1: return "COMBINED_IMAGE_SAMPLER";
    case 2: return "SAMPLED_IMAGE";
    case 3: return "STORAGE_IMAGE";
    case 6: return "UNIFORM_BUFFER";
    case 7: return "STORAGE_BUFFER";
    case VGF_DESCRIPTOR_TENSOR_ARM: return "TENSOR_ARM";
    case VGF_DESCRIPTOR_NONE: return "NONE";
    default: return NULL;
    }
}

const char *vgf_category_name(uint8_t c)
{
    static const char *const n[] = {"INPUT", "OUTPUT", "INTERMEDIATE", "CONSTANT"};
    return c < 4 ? n[c] : NULL;
}

const char *vgf_module_type_name(uint8_t t)
{
    return t == 0 ? "COMPUTE" : t == 1 ? "GRAPH" : NULL;
}

const char *vgf_code_type_name(uint8_t c)
{
    static const char *const n[] = {"NONE", "SPIRV", "GLSL", "HLSL"};
    return c < 4 ? n[c] : NULL;
}

/* ------------------------------------------------------------- cross refs */

static int cross_references(vgf_reader *r)
{
    vgf_file *f = r->f;
    const char *seqerr = "sequence section invalid";
    for (uint32_t i = 0; i < f->n_model_inputs; i++)
        if (f->model_inputs[i].mrt_index >= f->n_resources)
            return mlia_error_setf(r->err, r->file, "%s: inputs[%u].mrt_index %u is out of range (%u resources)",
                                   seqerr, i, f->model_inputs[i].mrt_index, f->n_resources);
    for (uint32_t i = 0; i < f->n_model_outputs; i++)
        if (f->model_outputs[i].mrt_index >= f->n_resources)
            return mlia_error_setf(r->err, r->file, "%s: outputs[%u].mrt_index %u is out of range (%u resources)",
                                   seqerr, i, f->model_outputs[i].mrt_index, f->n_resources);
    for (uint32_t i = 0; i < f->n_segments; i++) {
        vgf_segment *s = &f->segments[i];
        if (s->module_index >= f->n_modules)
            return mlia_error_setf(r->err, r->file, "%s: segments[%u].module_index %u is out of range (%u modules)",
                                   seqerr, i, s->module_index, f->n_modules);
        if (s->type != f->modules[s->module_index].type)
            warn(r, "segment %u: type %u differs from module %u type %u", i, s->type, s->module_index,
                 f->modules[s->module_index].type);
        struct { const char *name; uint32_t n; const vgf_binding *b; } lists[2] = {
            {"inputs", s->n_inputs, s->inputs}, {"outputs", s->n_outputs, s->outputs}};
        for (int l = 0; l < 2; l++)
            for (uint32_t k = 0; k < lists[l].n; k++)
                if (lists[l].b[k].mrt_index >= f->n_resources)
                    return mlia_error_setf(r->err, r->file,
                                           "%s: segments[%u].%s[%u].mrt_index %u is out of range (%u resources)",
                                           seqerr, i, lists[l].name, k, lists[l].b[k].mrt_index, f->n_resources);
        for (uint32_t k = 0; k < s->n_sets; k++) {
            for (uint32_t j = 0; j < s->sets[k].n_bindings; j++)
                if (s->sets[k].bindings[j].mrt_index >= f->n_resources)
                    return mlia_error_setf(
                        r->err, r->file, "%s: segments[%u].set_infos[%u].bindings[%u].mrt_index %u is out of range (%u resources)",
                        seqerr, i, k, j, s->sets[k].bindings[j].mrt_index, f->n_resources);
            for (uint32_t j = 0; j < k; j++)
                if (s->sets[j].set_index == s->sets[k].set_index)
                    warn(r, "segment %u: descriptor set index %u used twice", i, s->sets[k].set_index);
        }
        for (uint32_t k = 0; k < s->n_constants; k++)
            if (s->constants[k] >= f->n_constants)
                return mlia_error_setf(r->err, r->file, "%s: segments[%u].constants[%u] = %u is out of range (%u constants)",
                                       seqerr, i, k, s->constants[k], f->n_constants);
        if (s->n_sets != 1 || s->sets[0].set_index != 0)
            warn(r, "segment %u: %u descriptor sets; the ExecuTorch runtime requires exactly one, at index 0", i,
                 s->n_sets);
        if (s->type == VGF_MODULE_COMPUTE && s->n_constants)
            warn(r, "segment %u: compute segment lists %u constants; the ExecuTorch runtime rejects them", i,
                 s->n_constants);
    }
    for (uint32_t i = 0; i < f->n_constants; i++) {
        vgf_constant *c = &f->constants[i];
        if (c->mrt_index >= f->n_resources)
            return mlia_error_setf(r->err, r->file, "constant section invalid: constant %u mrt_index %u is out of range (%u resources)",
                                   i, c->mrt_index, f->n_resources);
        const vgf_resource *res = &f->resources[c->mrt_index];
        if (res->category != VGF_CATEGORY_CONSTANT)
            warn(r, "constant %u: resource %u has category %u, not CONSTANT", i, c->mrt_index, res->category);
        if (c->sparsity_dimension >= 0)
            warn(r, "constant %u: sparse (sparsity_dimension %" PRId64 "); payload kept opaque", i,
                 c->sparsity_dimension);
        uint64_t n = vgf_format_elem_bytes(res->format), prod = 1;
        bool known = n != 0;
        for (uint32_t k = 0; k < res->rank && known; k++) {
            if (res->shape[k] < 0 || (res->shape[k] && prod > UINT64_MAX / (uint64_t)res->shape[k]))
                known = false;
            else
                prod *= (uint64_t)res->shape[k];
        }
        if (known && (n && prod > UINT64_MAX / n ? true : prod * n != c->size) && c->sparsity_dimension < 0)
            warn(r, "constant %u: size %" PRIu64 " differs from shape x element size of resource %u", i, c->size,
                 c->mrt_index);
    }
    if (f->n_segments == 0)
        warn(r, "no segments: the ExecuTorch runtime rejects an empty model");
    /* X9 */
    for (uint32_t i = 0; i < f->n_model_inputs; i++) {
        uint32_t b = f->model_inputs[i].binding;
        if (b >= f->n_input_names)
            warn(r, "model input %u: binding %u is not below the %u input names", i, b, f->n_input_names);
        for (uint32_t j = 0; j < i; j++)
            if (f->model_inputs[j].binding == b)
                warn(r, "model input %u: binding %u repeated", i, b);
    }
    if (f->n_model_outputs != f->n_output_names)
        warn(r, "%u model outputs but %u output names", f->n_model_outputs, f->n_output_names);
    return 0;
}

/* ------------------------------------------------------------- SPIR-V */

static bool shape_matches(const vgf_resource *res, const spv_type *t)
{
    if (t->kind != SPV_TYPE_TENSOR || !t->shaped || t->rank != res->rank)
        return false;
    for (uint32_t k = 0; k < t->rank; k++)
        if ((int64_t)t->dims[k] != res->shape[k])
            return false;
    return true;
}

/* MRT index of graph interface `iface` (inputs first) of a segment, or -1
 * (docs/formats/spirv-tosa.md §3). */
static int64_t interface_resource(const vgf_file *f, const vgf_segment *s, const spv_module *m,
                                  const spv_graph *g, uint32_t iface)
{
    if (!g->entry || iface >= g->entry->n_interface)
        return -1;
    uint32_t var = g->entry->interface[iface];
    if (var >= m->bound)
        return -1;
    int64_t set = m->ids[var].set, binding = m->ids[var].binding;
    if (set < 0 || binding < 0)
        return -1;
    for (uint32_t k = 0; k < s->n_sets; k++) {
        if (s->sets[k].set_index != (uint64_t)set)
            continue;
        for (uint32_t j = 0; j < s->sets[k].n_bindings; j++)
            if (s->sets[k].bindings[j].binding == (uint64_t)binding)
                return s->sets[k].bindings[j].mrt_index;
    }
    (void)f;
    return -1;
}

static const char *type_text(mlia_arena *a, const spv_module *m, uint32_t type_id)
{
    mlia_buf b;
    mlia_buf_init(&b);
    spv_type_text(m, type_id, &b);
    char *s = mlia_arena_strndup(a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return s;
}

static void decode_operations(vgf_reader *r, uint32_t si)
{
    vgf_file *f = r->f;
    vgf_segment *s = &f->segments[si];
    const spv_module *m = s->spirv;
    const spv_graph *g = s->graph;
    s->n_operations = g->n_ops;
    s->operations = mlia_arena_array(r->arena, g->n_ops ? g->n_ops : 1, sizeof *s->operations);
    for (uint32_t k = 0; k < g->n_ops; k++) {
        const spv_op *so = &g->ops[k];
        vgf_operation *op = &s->operations[k];
        op->id = so->result_id;
        op->spv = so;
        op->debug_name = so->debug_name;
        op->result_type = type_text(r->arena, m, so->result_type);
        const tosa_op_desc *desc = NULL;
        if (so->opcode == SPV_OP_COMPOSITE_EXTRACT) {
            op->op = op->label = "OpCompositeExtract";
        } else if (so->set_kind == SPV_SET_TOSA && (desc = tosa_op(so->instruction)) != NULL) {
            op->is_tosa = true;
            op->op = desc->name;
            op->label = desc->mlir_name;
            if (!desc->variadic && so->n_operands != desc->n_operands)
                warn(r, "segment %u: TOSA %s %%%u has %u operands, expected %u", si, desc->name, so->result_id,
                     so->n_operands, desc->n_operands);
        } else {
            const char *set = "?";
            for (uint32_t i = 0; i < m->n_imports; i++)
                if (m->imports[i].id == so->set_id)
                    set = m->imports[i].name;
            if (so->set_kind == SPV_SET_TOSA)
                op->op = mlia_arena_printf(r->arena, "TOSA.001000.1:UNKNOWN_%u", so->instruction);
            else if (so->has_literal)
                op->op = mlia_arena_printf(r->arena, "%s:CALL(%u)", set, so->literal);
            else
                op->op = mlia_arena_printf(r->arena, "%s:%u", set, so->instruction);
            op->label = op->op;
        }
        op->n_operands = so->n_operands;
        op->operands = mlia_arena_array(r->arena, so->n_operands ? so->n_operands : 1, sizeof *op->operands);
        for (uint32_t i = 0; i < so->n_operands; i++) {
            vgf_operand *o = &op->operands[i];
            o->ref = so->operands[i];
            o->resource = -1;
            o->kind = TOSA_TENSOR;
            if (desc) {
                const tosa_operand_desc *od = tosa_operand(desc, i);
                if (od) {
                    o->name = od->name;
                    o->kind = od->kind;
                }
            }
            o->type_text = type_text(r->arena, m, spv_value_type(m, o->ref.id));
            switch (o->ref.cls) {
            case SPV_VALUE_GRAPH_INPUT: {
                int64_t mrt = -1;
                for (uint32_t j = 0; j < g->n_inputs; j++)
                    if (g->inputs[j].id == o->ref.id)
                        mrt = interface_resource(f, s, m, g, g->inputs[j].index);
                if (mrt < 0 && o->ref.index < s->n_inputs)
                    mrt = s->inputs[o->ref.index].mrt_index;
                o->resource = mrt;
                break;
            }
            case SPV_VALUE_OP_RESULT:
                o->producer_id = g->ops[o->ref.index].result_id;
                break;
            case SPV_VALUE_GRAPH_CONSTANT:
                if (o->ref.index < f->n_constants)
                    o->resource = f->constants[o->ref.index].mrt_index;
                break;
            case SPV_VALUE_MODULE_CONSTANT:
                o->const_kind = spv_const_kind(m, o->ref.id);
                o->has_value = spv_const_decode(m, o->ref.id, r->arena, VGF_OPERAND_MAX_VALUES, &o->value) == 0;
                if (!o->has_value)
                    warn(r, "segment %u: constant %%%u (operand %u of %%%u) cannot be decoded", si, o->ref.id, i,
                         so->result_id);
                break;
            default:
                break;
            }
        }
    }
}

static void build_name_map(vgf_reader *r, uint32_t si)
{
    vgf_segment *s = &r->f->segments[si];
    const spv_module *m = s->spirv;
    vgf_name_map *nm = &s->name_map;
    uint8_t *seen = mlia_arena_alloc(r->arena, m->bound / 8u + 1u);
    uint32_t cap = 0, n = 0;
    uint32_t *ids = NULL;
    uint32_t tosa = spv_find_set(m, SPV_SET_TOSA), dbg = spv_find_set(m, SPV_SET_DEBUG_GRAPH);
    for (int pass = 0; pass < 2; pass++) {
        for (uint32_t k = 0; k < m->n_insts; k++) {
            uint32_t w = m->inst_words[k];
            if (spv_inst_opcode(m, w) != SPV_OP_EXT_INST)
                continue;
            uint32_t wc = spv_inst_count(m, w), set = m->words[w + 3];
            uint32_t first = pass == 0 ? 2 : 7, last = pass == 0 ? 3 : wc;
            if (pass == 0 ? (set != tosa || tosa == 0) : (set != dbg || dbg == 0 || m->words[w + 4] != 2))
                continue;
            for (uint32_t j = first; j < last; j++) {
                uint32_t id = m->words[w + j];
                if (id == 0 || id >= m->bound || (seen[id / 8] & (1u << (id % 8))))
                    continue;
                if (pass == 1 && (m->ids[id].opcode == SPV_OP_STRING || !m->ids[id].debug_name))
                    continue;
                seen[id / 8] |= (uint8_t)(1u << (id % 8));
                if (n == cap) {
                    uint32_t nc = cap ? cap * 2 : 64;
                    ids = mlia_arena_grow(r->arena, ids, n, nc, sizeof *ids);
                    cap = nc;
                }
                ids[n++] = id;
            }
        }
    }
    nm->n = n;
    nm->ids = ids ? ids : mlia_arena_alloc(r->arena, sizeof *ids);
    nm->names = mlia_arena_array(r->arena, n ? n : 1, sizeof *nm->names);
    for (uint32_t i = 0; i < n; i++)
        nm->names[i] = m->ids[ids[i]].debug_name;
}

static void check_graph(vgf_reader *r, uint32_t si)
{
    vgf_file *f = r->f;
    vgf_segment *s = &f->segments[si];
    const spv_module *m = s->spirv;
    const spv_graph *g = s->graph;
    /* X6 / X7: graph constants against the segment and the resources. */
    uint32_t used = 0;
    for (uint32_t i = 0; i < m->n_graph_constants; i++) {
        const spv_graph_constant *gc = &m->graph_constants[i];
        uint32_t c = gc->constant_id;
        if (c >= f->n_constants) {
            warn(r, "segment %u: GraphConstantID %u of %%%u is not below the %u constants", si, c, gc->id,
                 f->n_constants);
            continue;
        }
        bool listed = false;
        for (uint32_t k = 0; k < s->n_constants; k++)
            listed |= s->constants[k] == c;
        if (!listed)
            warn(r, "segment %u: GraphConstantID %u is not in segment.constants", si, c);
        else
            used++;
        spv_type t;
        const vgf_resource *res = &f->resources[f->constants[c].mrt_index];
        if (spv_type_of(m, gc->type, &t) != 0 || !shape_matches(res, &t))
            warn(r, "segment %u: graph constant %u shape differs from resource %u", si, c, f->constants[c].mrt_index);
    }
    if (used != s->n_constants)
        warn(r, "segment %u: %u constants listed but the module defines %u of them", si, s->n_constants, used);
    /* X8: interface variables resolve and agree with resources. */
    for (uint32_t k = 0; k < g->n_io_types; k++) {
        int64_t mrt = interface_resource(f, s, m, g, k);
        if (mrt < 0) {
            warn(r, "segment %u: graph interface %u does not resolve to a binding slot", si, k);
            continue;
        }
        spv_type t;
        if (spv_type_of(m, g->io_types[k], &t) != 0 || !shape_matches(&f->resources[mrt], &t))
            warn(r, "segment %u: graph interface %u shape differs from resource %" PRId64, si, k, mrt);
    }
}

static int read_spirv(vgf_reader *r)
{
    vgf_file *f = r->f;
    for (uint32_t i = 0; i < f->n_modules; i++) {
        vgf_module *mod = &f->modules[i];
        if (mod->placeholder || mod->code_type != VGF_CODE_SPIRV)
            continue;
        char ctx[32];
        snprintf(ctx, sizeof ctx, "module %u", i);
        if (spv_read(f->data + mod->words_offset, mod->n_words, mod->words_offset, r->file, ctx, r->arena,
                     &mod->spirv, r->err) != 0)
            return -1;
        for (uint32_t k = 0; k < mod->spirv->n_warnings; k++)
            warn(r, "%s", mod->spirv->warnings[k]);
    }
    for (uint32_t si = 0; si < f->n_segments; si++) {
        vgf_segment *s = &f->segments[si];
        const vgf_module *mod = &f->modules[s->module_index];
        if (s->type != VGF_MODULE_GRAPH)
            continue;
        if (!mod->spirv) {
            warn(r, "segment %u (%.*s): graph segment with a placeholder module; no operation graph", si,
                 (int)s->name.len, s->name.ptr ? s->name.ptr : "");
            continue;
        }
        const spv_module *m = mod->spirv;
        s->spirv = m;
        build_name_map(r, si);
        const spv_graph *g = NULL;
        for (uint32_t k = 0; k < m->n_graphs && !g; k++)
            if (m->graphs[k].entry && mod->entry_point.ptr && mlia_str_eq(mod->entry_point, m->graphs[k].entry->name))
                g = &m->graphs[k];
        if (!g) {
            warn(r, "segment %u: module entry point \"%.*s\" names no OpGraphEntryPointARM", si,
                 (int)mod->entry_point.len, mod->entry_point.ptr ? mod->entry_point.ptr : "");
            if (m->n_graphs)
                g = &m->graphs[0];
        }
        if (!g) {
            warn(r, "segment %u: module %u has no OpGraphARM", si, s->module_index);
            continue;
        }
        s->graph = g;
        decode_operations(r, si);
        check_graph(r, si);
    }
    return 0;
}

int vgf_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, vgf_file **out,
             mlia_error *err)
{
    vgf_file *f = mlia_arena_alloc(arena, sizeof *f);
    f->file = file;
    f->data = data;
    f->size = size;
    vgf_reader r = {f, arena, file, err, 0};
    /* the four sections in file-format order, each one read_section() */
    if (read_header(&r) != 0 ||
        !(f->modules = read_section(&r, VGF_SECTION_MODULE, VGF_SLOT_MODULE_TABLE_MODULES, "modules",
                                    sizeof *f->modules, read_module, NULL, &f->n_modules)) ||
        !(f->segments = read_section(&r, VGF_SECTION_SEQUENCE, VGF_SLOT_MODEL_SEQUENCE_TABLE_SEGMENTS, "segments",
                                     sizeof *f->segments, read_segment, read_model_io, &f->n_segments)) ||
        !(f->resources = read_section(&r, VGF_SECTION_RESOURCE, VGF_SLOT_MODEL_RESOURCE_TABLE_MRT_ENTRY, "mrt_entry",
                                      sizeof *f->resources, read_resource, NULL, &f->n_resources)) ||
        read_constants(&r) != 0 || cross_references(&r) != 0 || read_spirv(&r) != 0)
        return -1;
    if (!f->warnings)
        f->warnings = mlia_arena_alloc(arena, sizeof *f->warnings);
    *out = f;
    return 0;
}

void vgf_segment_name_map(const vgf_file *f, uint32_t segment_index, vgf_name_map *out)
{
    if (segment_index >= f->n_segments || !f->segments[segment_index].spirv) {
        out->n = 0;
        out->ids = NULL;
        out->names = NULL;
        return;
    }
    *out = f->segments[segment_index].name_map;
}

bool vgf_segment_has_spirv_id(const vgf_file *f, uint32_t segment_index, uint32_t id)
{
    if (segment_index >= f->n_segments || !f->segments[segment_index].spirv)
        return false;
    const spv_module *m = f->segments[segment_index].spirv;
    if (id == 0 || id >= m->bound)
        return false;
    const spv_id_info *info = &m->ids[id];
    if (info->opcode == SPV_OP_EXT_INST && spv_set_kind_of(m, m->words[info->word + 3]) == SPV_SET_TOSA)
        return true;
    return info->debug_name != NULL && info->opcode != SPV_OP_STRING;
}
