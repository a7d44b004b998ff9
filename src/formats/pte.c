/*
 * pte.c - PTE and BundledProgram decoding (see pte.h).
 *
 * Reading order matters for validation: the program-level tables (segments,
 * constant segment, constant buffers, inline delegate data, mutable data
 * segments, named data) are decoded first so that each execution plan can
 * resolve delegate blobs and constant tensor bytes and check its indexes as
 * it is read. Inside a plan, the non-constant buffer sizes, operators and
 * delegates are read before values and chains for the same reason.
 *
 * PTE sizes are small (hundreds of values), so the decoded form allocates
 * freely from the arena; every count has been bounded by the buffer length
 * by fb_get_vector before it reaches an allocation.
 */
#include "pte.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fb.h"

/* One fb_get_vector call reads the `items` of every integer-like list value
 * (read_value): their tables keep the vector at the same slot. */
_Static_assert((int)PROGRAM_SLOT_INT_LIST_ITEMS == (int)PROGRAM_SLOT_BOOL_LIST_ITEMS &&
                   (int)PROGRAM_SLOT_INT_LIST_ITEMS == (int)PROGRAM_SLOT_TENSOR_LIST_ITEMS &&
                   (int)PROGRAM_SLOT_INT_LIST_ITEMS == (int)PROGRAM_SLOT_OPTIONAL_TENSOR_LIST_ITEMS,
               "list values hold `items` at one slot");

/* ---------------------------------------------------------------- scalar types */

const char *et_scalar_type_name(int st)
{
    switch (st) {
    case 0: return "BYTE";
    case 1: return "CHAR";
    case 2: return "SHORT";
    case 3: return "INT";
    case 4: return "LONG";
    case 5: return "HALF";
    case 6: return "FLOAT";
    case 7: return "DOUBLE";
    case 11: return "BOOL";
    case 12: return "QINT8";
    case 13: return "QUINT8";
    case 14: return "QINT32";
    case 15: return "BFLOAT16";
    case 16: return "QUINT4X2";
    case 17: return "QUINT2X4";
    case 22: return "BITS16";
    case 23: return "FLOAT8E5M2";
    case 24: return "FLOAT8E4M3FN";
    case 25: return "FLOAT8E5M2FNUZ";
    case 26: return "FLOAT8E4M3FNUZ";
    case 27: return "UINT16";
    case 28: return "UINT32";
    case 29: return "UINT64";
    default: return NULL;
    }
}

unsigned et_scalar_type_size(int st)
{
    switch (st) {
    case 0: case 1: case 11: case 12: case 13: case 16: case 17: case 23: case 24: case 25: case 26:
        return 1;
    case 2: case 5: case 15: case 22: case 27:
        return 2;
    case 3: case 6: case 14: case 28:
        return 4;
    case 4: case 7: case 29:
        return 8;
    default:
        return 0;
    }
}

const char *pte_value_kind_name(int kind)
{
    static const char *const names[PTE_VALUE_KIND_COUNT] = {
        "NONE", "Null", "Int", "Bool", "Double", "Tensor", "String", "IntList", "DoubleList", "BoolList",
        "TensorList", "OptionalTensorList"};
    if (kind < 0 || kind >= PTE_VALUE_KIND_COUNT)
        return NULL;
    return names[kind];
}

const char *pte_instr_kind_name(int kind)
{
    static const char *const names[] = {"none", "kernel", "delegate", "move", "jump_false", "free"};
    if (kind < 0 || kind > 5)
        return NULL;
    return names[kind];
}

char *pte_operator_display(const pte_operator *op, mlia_arena *arena)
{
    const char *n = op->name.ptr ? op->name.ptr : "";
    int nl = (int)op->name.len;
    if (op->overload.ptr && op->overload.len)
        return mlia_arena_printf(arena, "%.*s.%.*s", nl, n, (int)op->overload.len, op->overload.ptr);
    return mlia_arena_printf(arena, "%.*s", nl, n);
}

const char *pte_file_kind(const uint8_t *data, size_t size)
{
    if (!data || size < 4)
        return NULL;
    if (memcmp(data, "PK\x03\x04", 4) == 0)
        return "etrecord";
    if (memcmp(data, "VGF1", 4) == 0 || memcmp(data, "\xC3\xD2\xE1\xF0", 4) == 0)
        return "vgf";
    if (size >= 12 && memcmp(data + 8, "ED00", 4) == 0 && fb_le32(data) <= size - 4)
        return "etdump";
    if (size < 8)
        return NULL;
    if (memcmp(data + 4, "ED00", 4) == 0)
        return "etdump";
    if (memcmp(data + 4, "BP08", 4) == 0)
        return "bundled_program";
    if (data[4] == 'E' && data[5] == 'T' && data[6] >= '0' && data[6] <= '9' && data[7] >= '0' && data[7] <= '9')
        return "pte";
    return NULL;
}

/* ---------------------------------------------------------------- helpers */

typedef struct pte_ctx {
    fb_buf b;
    const uint8_t *data;     /* PTE bytes */
    uint64_t size;
    uint64_t file_offset;    /* of data[0] in the outer file */
    const char *file;
    mlia_arena *arena;
    mlia_error *err;
    pte_program *p;
    pte_plan *plan;          /* the plan being read */
    const pte_chain *chain;  /* the chain being read (its n_instructions is set) */
} pte_ctx;

/* Check that `value` indexes a table of `limit` entries. */
static const char *plural(const char *what)
{
    if (!strcmp(what, "value index"))
        return "values";
    if (!strcmp(what, "operator index"))
        return "operators";
    if (!strcmp(what, "delegate index"))
        return "delegates";
    return "instructions";
}

static int check_index(const fb_table *t, const char *leaf, int64_t leaf_index, uint64_t pos, int64_t value,
                       uint32_t limit, const char *what, mlia_error *err)
{
    if (value < 0 || (uint64_t)value >= limit)
        return fb_fail(t, leaf, leaf_index, pos, err, "%s %" PRId64 " out of range (%" PRIu32 " %s)", what, value,
                       limit, plural(what));
    return 0;
}

/* Read an [int] field into an arena array; every element must index a table
 * of `limit` entries unless limit is UINT32_MAX (-1 allowed when
 * allow_minus1). */
static int read_index_vec(pte_ctx *c, const fb_table *t, unsigned slot, const char *name, uint32_t limit,
                          bool allow_minus1, const char *what, uint32_t *n, int32_t **out)
{
    fb_vec v;
    if (fb_get_vector(t, slot, name, 4, &v, c->err) < 0)
        return -1;
    *n = v.n;
    *out = mlia_arena_array(c->arena, v.n ? v.n : 1, sizeof **out);
    for (uint32_t i = 0; i < v.n; i++) {
        int32_t x = fb_vec_i32(&v, i);
        (*out)[i] = x;
        if (limit != UINT32_MAX && !(allow_minus1 && x == -1) &&
            check_index(t, name, i, v.pos + 4 * (uint64_t)i, x, limit, what, c->err) < 0)
            return -1;
    }
    return 0;
}

static int read_blob(pte_ctx *c, const fb_table *t, unsigned slot, const char *name, pte_blob *out)
{
    fb_vec v;
    if (fb_get_vector(t, slot, name, 1, &v, c->err) < 0)
        return -1;
    out->data = v.n ? c->data + v.pos : NULL;
    out->size = v.n;
    out->file_offset = c->file_offset + v.pos;
    return 0;
}

static int read_subsegment(pte_ctx *c, const fb_table *t, pte_subsegment *s)
{
    fb_vec v;
    if (fb_get_u32(t, PROGRAM_SLOT_SUBSEGMENT_OFFSETS_SEGMENT_INDEX, "segment_index", 0, &s->segment_index,
                   c->err) < 0 ||
        fb_get_vector(t, PROGRAM_SLOT_SUBSEGMENT_OFFSETS_OFFSETS, "offsets", 8, &v, c->err) < 0)
        return -1;
    s->n_offsets = v.n;
    s->offsets = mlia_arena_array(c->arena, v.n ? v.n : 1, sizeof *s->offsets);
    for (uint32_t i = 0; i < v.n; i++)
        s->offsets[i] = fb_vec_u64(&v, i);
    if (v.n > 0 && s->segment_index >= c->p->n_segments)
        return fb_fail(t, "segment_index", -1, t->pos, c->err, "segment index %" PRIu32 " out of range (%" PRIu32 " segments)",
                       s->segment_index, c->p->n_segments);
    return 0;
}

/* ---------------------------------------------------------------- program tables */

/* Record readers of the vectors of tables (fb_read_records; ctx = pte_ctx). */

static int read_segment(void *ctx, const fb_table *s, uint32_t i, void *item, mlia_error *err)
{
    pte_ctx *c = ctx;
    pte_segment *seg = item;
    uint64_t base = c->p->segment_base_offset;
    if (fb_get_u64(s, PROGRAM_SLOT_DATA_SEGMENT_OFFSET, "offset", 0, &seg->offset, err) < 0 ||
        fb_get_u64(s, PROGRAM_SLOT_DATA_SEGMENT_SIZE, "size", 0, &seg->size, err) < 0)
        return -1;
    if (base == 0)
        return 0;
    if (seg->offset > c->size - base || seg->size > c->size - base - seg->offset)
        return fb_fail(s, NULL, -1, s->pos, err,
                       "segment (offset %" PRIu64 ", size %" PRIu64 ") extends past the end of the file (%" PRIu64
                       " bytes from segment_base_offset %" PRIu64 ")",
                       seg->offset, seg->size, c->size, base);
    seg->in_file = true;
    seg->file_offset = c->file_offset + base + seg->offset;
    return 0;
}

static int read_constant_buffer(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    return read_blob(ctx, t, PROGRAM_SLOT_BUFFER_STORAGE, "storage", item);
}

static int read_inline_delegate(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    return read_blob(ctx, t, PROGRAM_SLOT_BACKEND_DELEGATE_INLINE_DATA_DATA, "data", item);
}

static int read_subsegment_record(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    return read_subsegment(ctx, t, item);
}

static int read_named_data(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    const pte_program *p = ((pte_ctx *)ctx)->p;
    pte_named_data *nd = item;
    if (fb_get_string(t, PROGRAM_SLOT_NAMED_DATA_KEY, "key", &nd->key, err) < 0 ||
        fb_get_u32(t, PROGRAM_SLOT_NAMED_DATA_SEGMENT_INDEX, "segment_index", 0, &nd->segment_index, err) < 0)
        return -1;
    if (nd->segment_index >= p->n_segments)
        return fb_fail(t, "segment_index", -1, t->pos, err, "segment index %" PRIu32 " out of range (%" PRIu32 " segments)",
                       nd->segment_index, p->n_segments);
    return 0;
}

static int read_program_tables(pte_ctx *c, const fb_table *root)
{
    pte_program *p = c->p;
    /* segments first: everything else may index them */
    if (!(p->segments = fb_read_records(root, PROGRAM_SLOT_PROGRAM_SEGMENTS, "segments", c->arena, sizeof *p->segments,
                                        read_segment, c, &p->n_segments, &p->segments_present, c->err)))
        return -1;

    fb_table cs;
    int r = fb_get_table(root, PROGRAM_SLOT_PROGRAM_CONSTANT_SEGMENT, "constant_segment", &cs, c->err);
    if (r < 0 || (r > 0 && read_subsegment(c, &cs, &p->constant_segment) < 0))
        return -1;
    p->has_constant_segment = r > 0;

    if (!(p->constant_buffers = fb_read_records(root, PROGRAM_SLOT_PROGRAM_CONSTANT_BUFFER, "constant_buffer", c->arena,
                                                sizeof(pte_blob), read_constant_buffer, c, &p->n_constant_buffers,
                                                &p->constant_buffer_present, c->err)))
        return -1;
    if (p->constant_segment.n_offsets > 1 && p->n_constant_buffers > 0)
        return fb_fail(root, "constant_buffer", -1, root->pos, c->err,
                       "constants in both constant_segment and the deprecated constant_buffer");

    if (!(p->inline_delegates = fb_read_records(root, PROGRAM_SLOT_PROGRAM_BACKEND_DELEGATE_DATA, "backend_delegate_data",
                                                c->arena, sizeof(pte_blob), read_inline_delegate, c,
                                                &p->n_inline_delegates, NULL, c->err)) ||
        !(p->mutable_data_segments = fb_read_records(root, PROGRAM_SLOT_PROGRAM_MUTABLE_DATA_SEGMENTS,
                                                     "mutable_data_segments", c->arena, sizeof(pte_subsegment),
                                                     read_subsegment_record, c, &p->n_mutable_data_segments, NULL,
                                                     c->err)) ||
        !(p->named_data = fb_read_records(root, PROGRAM_SLOT_PROGRAM_NAMED_DATA, "named_data", c->arena,
                                          sizeof *p->named_data, read_named_data, c, &p->n_named_data, NULL, c->err)))
        return -1;
    return 0;
}

/* ---------------------------------------------------------------- values */

static int read_tensor(pte_ctx *c, const pte_plan *plan, const fb_table *t, pte_tensor *x)
{
    int8_t st, layout, dyn;
    fb_vec sizes, dim_order;
    uint32_t idx;
    if (fb_get_i8(t, PROGRAM_SLOT_TENSOR_SCALAR_TYPE, "scalar_type", 0, &st, c->err) < 0 ||
        fb_get_i32(t, PROGRAM_SLOT_TENSOR_STORAGE_OFFSET, "storage_offset", 0, &x->storage_offset, c->err) < 0 ||
        fb_get_vector(t, PROGRAM_SLOT_TENSOR_SIZES, "sizes", 4, &sizes, c->err) < 0 ||
        fb_get_vector(t, PROGRAM_SLOT_TENSOR_DIM_ORDER, "dim_order", 1, &dim_order, c->err) < 0 ||
        fb_get_bool(t, PROGRAM_SLOT_TENSOR_REQUIRES_GRAD, "requires_grad", false, &x->requires_grad, c->err) < 0 ||
        fb_get_u32(t, PROGRAM_SLOT_TENSOR_DATA_BUFFER_IDX, "data_buffer_idx", 0, &idx, c->err) < 0 ||
        fb_get_i8(t, PROGRAM_SLOT_TENSOR_LAYOUT, "layout", 0, &layout, c->err) < 0 ||
        fb_get_i8(t, PROGRAM_SLOT_TENSOR_SHAPE_DYNAMISM, "shape_dynamism", 0, &dyn, c->err) < 0)
        return -1;
    x->scalar_type = (uint8_t)st;
    x->layout = layout;
    x->shape_dynamism = (uint8_t)dyn;
    x->data_buffer_idx = idx;
    x->n_sizes = sizes.n;
    x->sizes = mlia_arena_array(c->arena, sizes.n ? sizes.n : 1, sizeof *x->sizes);
    unsigned esize = et_scalar_type_size(x->scalar_type);
    uint64_t nbytes = esize;
    for (uint32_t i = 0; i < sizes.n; i++) {
        int32_t d = fb_vec_i32(&sizes, i);
        x->sizes[i] = d;
        if (d < 0)
            return fb_fail(t, "sizes", i, sizes.pos + 4 * (uint64_t)i, c->err, "negative tensor size %" PRId32, d);
        if (d != 0 && nbytes > UINT64_MAX / (uint64_t)d)
            return fb_fail(t, "sizes", i, sizes.pos + 4 * (uint64_t)i, c->err, "tensor byte size overflows");
        nbytes *= (uint64_t)d;
    }
    x->nbytes = nbytes;
    x->n_dim_order = dim_order.n;
    x->dim_order = dim_order.n ? c->data + dim_order.pos : NULL;

    fb_table a;
    int r = fb_get_table(t, PROGRAM_SLOT_TENSOR_ALLOCATION_INFO, "allocation_info", &a, c->err);
    if (r < 0)
        return -1;
    if (r > 0) {
        uint32_t lo, hi;
        x->has_allocation = true;
        x->allocation_offset = c->file_offset + a.pos;
        if (fb_get_u32(&a, PROGRAM_SLOT_ALLOCATION_DETAILS_MEMORY_ID, "memory_id", 0, &x->memory_id, c->err) < 0 ||
            fb_get_u32(&a, PROGRAM_SLOT_ALLOCATION_DETAILS_MEMORY_OFFSET_LOW, "memory_offset_low", 0, &lo,
                       c->err) < 0 ||
            fb_get_u32(&a, PROGRAM_SLOT_ALLOCATION_DETAILS_MEMORY_OFFSET_HIGH, "memory_offset_high", 0, &hi,
                       c->err) < 0)
            return -1;
        x->memory_offset = ((uint64_t)hi << 32) | lo;
        if (x->memory_id >= plan->n_non_const_buffer_sizes)
            return fb_fail(&a, "memory_id", -1, a.pos, c->err,
                           "memory_id %" PRIu32 " out of range (%" PRIu32 " non-constant buffers)", x->memory_id,
                           plan->n_non_const_buffer_sizes);
    }
    fb_table e;
    r = fb_get_table(t, PROGRAM_SLOT_TENSOR_EXTRA_TENSOR_INFO, "extra_tensor_info", &e, c->err);
    if (r < 0)
        return -1;
    if (r > 0) {
        x->has_extra = true;
        if (fb_get_u64(&e, PROGRAM_SLOT_EXTRA_TENSOR_INFO_MUTABLE_DATA_SEGMENTS_IDX, "mutable_data_segments_idx", 0,
                       &x->mutable_data_segments_idx, c->err) < 0 ||
            fb_get_string(&e, PROGRAM_SLOT_EXTRA_TENSOR_INFO_FULLY_QUALIFIED_NAME, "fully_qualified_name",
                          &x->fully_qualified_name, c->err) < 0 ||
            fb_get_u8(&e, PROGRAM_SLOT_EXTRA_TENSOR_INFO_LOCATION, "location", 0, &x->extra_location, c->err) < 0)
            return -1;
    }

    /* constant data (docs/formats/pte.md §4) */
    if (idx == 0 || x->has_allocation)
        return 0;
    x->is_constant = true;
    const pte_program *p = c->p;
    if (p->constant_segment.n_offsets > 1) {
        const pte_subsegment *cs = &p->constant_segment;
        if (idx >= cs->n_offsets)
            return fb_fail(t, "data_buffer_idx", -1, t->pos, c->err,
                           "data_buffer_idx %" PRIu32 " out of range (%" PRIu32 " constant offsets)", idx, cs->n_offsets);
        const pte_segment *seg = &p->segments[cs->segment_index];
        if (!seg->in_file)
            return fb_fail(t, "data_buffer_idx", -1, t->pos, c->err,
                           "constant data in segment %" PRIu32 " but the file has no segment data", cs->segment_index);
        uint64_t off = cs->offsets[idx];
        if (off > seg->size || (esize && nbytes > seg->size - off))
            return fb_fail(t, "data_buffer_idx", -1, t->pos, c->err,
                           "constant data (offset %" PRIu64 ", %" PRIu64 " bytes) extends past segment %" PRIu32
                           " (%" PRIu64 " bytes)",
                           off, nbytes, cs->segment_index, seg->size);
        x->data_offset = seg->file_offset + off;
        x->data = c->data + (seg->file_offset - c->file_offset) + off;
        x->data_size = esize ? nbytes : seg->size - off;
    } else if (p->n_constant_buffers > 0) {
        if (idx >= p->n_constant_buffers)
            return fb_fail(t, "data_buffer_idx", -1, t->pos, c->err,
                           "data_buffer_idx %" PRIu32 " out of range (%" PRIu32 " constant buffers)", idx,
                           p->n_constant_buffers);
        const pte_blob *buf = &p->constant_buffers[idx];
        if (esize && nbytes > buf->size)
            return fb_fail(t, "data_buffer_idx", -1, t->pos, c->err,
                           "constant buffer %" PRIu32 " holds %" PRIu64 " bytes, tensor needs %" PRIu64, idx, buf->size,
                           nbytes);
        x->data = buf->data;
        x->data_offset = buf->file_offset;
        x->data_size = buf->size;
    } else {
        return fb_fail(t, "data_buffer_idx", -1, t->pos, c->err,
                       "data_buffer_idx %" PRIu32 " but the program has no constant data", idx);
    }
    return 0;
}

static int read_value(pte_ctx *c, const pte_plan *plan, const fb_table *ev, pte_value *v)
{
    fb_table m;
    uint8_t kind;
    int r = fb_get_union(ev, PROGRAM_SLOT_E_VALUE_VAL_TYPE, "val", PTE_VALUE_OPTIONAL_TENSOR_LIST, &kind, &m, c->err);
    if (r < 0)
        return -1;
    v->kind = kind;
    if (r == 0)
        return 0; /* NONE or unknown member: kept raw, never dereferenced */
    fb_vec items;
    switch (kind) {
    case PTE_VALUE_NULL:
        return 0;
    case PTE_VALUE_INT:
        return fb_get_i64(&m, PROGRAM_SLOT_INT_INT_VAL, "int_val", 0, &v->int_val, c->err);
    case PTE_VALUE_BOOL:
        return fb_get_bool(&m, PROGRAM_SLOT_BOOL_BOOL_VAL, "bool_val", false, &v->bool_val, c->err);
    case PTE_VALUE_DOUBLE:
        return fb_get_f64(&m, PROGRAM_SLOT_DOUBLE_DOUBLE_VAL, "double_val", 0.0, &v->double_val, c->err);
    case PTE_VALUE_STRING:
        return fb_get_string(&m, PROGRAM_SLOT_STRING_STRING_VAL, "string_val", &v->string_val, c->err) < 0 ? -1 : 0;
    case PTE_VALUE_TENSOR:
        return read_tensor(c, plan, &m, &v->tensor);
    case PTE_VALUE_INT_LIST:
    case PTE_VALUE_BOOL_LIST:
    case PTE_VALUE_TENSOR_LIST:
    case PTE_VALUE_OPTIONAL_TENSOR_LIST: {
        unsigned es = kind == PTE_VALUE_INT_LIST ? 8 : kind == PTE_VALUE_BOOL_LIST ? 1 : 4;
        if (fb_get_vector(&m, PROGRAM_SLOT_INT_LIST_ITEMS, "items", es, &items, c->err) < 0)
            return -1;
        v->n_items = items.n;
        v->items = mlia_arena_array(c->arena, items.n ? items.n : 1, sizeof *v->items);
        for (uint32_t i = 0; i < items.n; i++) {
            int64_t x = es == 8 ? fb_vec_i64(&items, i) : es == 1 ? (fb_vec_u8(&items, i) != 0) : fb_vec_i32(&items, i);
            v->items[i] = x;
            if (kind == PTE_VALUE_TENSOR_LIST || (kind == PTE_VALUE_OPTIONAL_TENSOR_LIST && x != -1)) {
                if (check_index(&m, "items", i, items.pos + 4 * (uint64_t)i, x, plan->n_values, "value index",
                                c->err) < 0)
                    return -1;
            }
        }
        return 0;
    }
    case PTE_VALUE_DOUBLE_LIST:
        if (fb_get_vector(&m, PROGRAM_SLOT_DOUBLE_LIST_ITEMS, "items", 8, &items, c->err) < 0)
            return -1;
        v->n_items = items.n;
        v->double_items = mlia_arena_array(c->arena, items.n ? items.n : 1, sizeof *v->double_items);
        for (uint32_t i = 0; i < items.n; i++)
            v->double_items[i] = fb_vec_f64(&items, i);
        return 0;
    default:
        return 0;
    }
}

/* ---------------------------------------------------------------- chains */

static int read_instruction(pte_ctx *c, const pte_plan *plan, uint32_t n_instr, const fb_table *it,
                            pte_instruction *in)
{
    fb_table m;
    uint8_t kind;
    in->op_index = -1;
    in->delegate_index = -1;
    in->a = in->b = -1;
    int r = fb_get_union(it, PROGRAM_SLOT_INSTRUCTION_INSTR_ARGS_TYPE, "instr_args", PTE_INSTR_FREE, &kind, &m, c->err);
    if (r < 0)
        return -1;
    in->kind = kind;
    if (r == 0) {
        in->args = mlia_arena_array(c->arena, 1, sizeof *in->args);
        return 0;
    }
    const char *what = "value index";
    switch (kind) {
    case PTE_INSTR_KERNEL:
    case PTE_INSTR_DELEGATE: {
        int32_t idx;
        bool k = kind == PTE_INSTR_KERNEL;
        const char *field = k ? "op_index" : "delegate_index";
        if (fb_get_i32(&m, k ? PROGRAM_SLOT_KERNEL_CALL_OP_INDEX : PROGRAM_SLOT_DELEGATE_CALL_DELEGATE_INDEX, field, 0,
                       &idx, c->err) < 0)
            return -1;
        if (check_index(&m, field, -1, m.pos, idx, k ? plan->n_operators : plan->n_delegates,
                        k ? "operator index" : "delegate index", c->err) < 0)
            return -1;
        if (k)
            in->op_index = idx;
        else
            in->delegate_index = idx;
        return read_index_vec(c, &m, k ? PROGRAM_SLOT_KERNEL_CALL_ARGS : PROGRAM_SLOT_DELEGATE_CALL_ARGS, "args",
                              plan->n_values, false, what, &in->n_args, &in->args);
    }
    case PTE_INSTR_MOVE:
        if (fb_get_i32(&m, PROGRAM_SLOT_MOVE_CALL_MOVE_FROM, "move_from", 0, &in->a, c->err) < 0 ||
            fb_get_i32(&m, PROGRAM_SLOT_MOVE_CALL_MOVE_TO, "move_to", 0, &in->b, c->err) < 0 ||
            check_index(&m, "move_from", -1, m.pos, in->a, plan->n_values, what, c->err) < 0 ||
            check_index(&m, "move_to", -1, m.pos, in->b, plan->n_values, what, c->err) < 0)
            return -1;
        break;
    case PTE_INSTR_JUMP_FALSE:
        if (fb_get_i32(&m, PROGRAM_SLOT_JUMP_FALSE_CALL_COND_VALUE_INDEX, "cond_value_index", 0, &in->a, c->err) < 0 ||
            fb_get_i32(&m, PROGRAM_SLOT_JUMP_FALSE_CALL_DESTINATION_INSTRUCTION, "destination_instruction", 0, &in->b,
                       c->err) < 0 ||
            check_index(&m, "cond_value_index", -1, m.pos, in->a, plan->n_values, what, c->err) < 0 ||
            check_index(&m, "destination_instruction", -1, m.pos, in->b, n_instr, "instruction index", c->err) < 0)
            return -1;
        break;
    case PTE_INSTR_FREE:
        if (fb_get_i32(&m, PROGRAM_SLOT_FREE_CALL_VALUE_INDEX, "value_index", 0, &in->a, c->err) < 0 ||
            check_index(&m, "value_index", -1, m.pos, in->a, plan->n_values, what, c->err) < 0)
            return -1;
        break;
    default:
        break;
    }
    in->args = mlia_arena_array(c->arena, 1, sizeof *in->args);
    return 0;
}

static int read_instruction_record(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    pte_ctx *c = ctx;
    return read_instruction(c, c->plan, c->chain->n_instructions, t, item);
}

static int read_frame(void *ctx, const fb_table *f, uint32_t k, void *item, mlia_error *err)
{
    pte_frame *x = item;
    if (fb_get_string(f, PROGRAM_SLOT_FRAME_FILENAME, "filename", &x->filename, err) < 0 ||
        fb_get_i32(f, PROGRAM_SLOT_FRAME_LINENO, "lineno", 0, &x->lineno, err) < 0 ||
        fb_get_string(f, PROGRAM_SLOT_FRAME_NAME, "name", &x->name, err) < 0 ||
        fb_get_string(f, PROGRAM_SLOT_FRAME_CONTEXT, "context", &x->context, err) < 0)
        return -1;
    return 0;
}

static int read_frame_list(void *ctx, const fb_table *fl, uint32_t i, void *item, mlia_error *err)
{
    pte_frame_list *l = item;
    l->frames = fb_read_records(fl, PROGRAM_SLOT_FRAME_LIST_ITEMS, "items", ((pte_ctx *)ctx)->arena, sizeof *l->frames,
                                read_frame, ctx, &l->n_frames, NULL, err);
    return l->frames ? 0 : -1;
}

static int read_chain(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    pte_ctx *c = ctx;
    pte_chain *ch = item;
    const pte_plan *plan = c->plan;
    c->chain = ch;
    if (read_index_vec(c, t, PROGRAM_SLOT_CHAIN_INPUTS, "inputs", plan->n_values, false, "value index", &ch->n_inputs,
                       &ch->inputs) < 0 ||
        read_index_vec(c, t, PROGRAM_SLOT_CHAIN_OUTPUTS, "outputs", plan->n_values, false, "value index",
                       &ch->n_outputs, &ch->outputs) < 0 ||
        !(ch->instructions = fb_read_records(t, PROGRAM_SLOT_CHAIN_INSTRUCTIONS, "instructions", c->arena,
                                             sizeof *ch->instructions, read_instruction_record, c,
                                             &ch->n_instructions, NULL, err)) ||
        !(ch->stacktrace = fb_read_records(t, PROGRAM_SLOT_CHAIN_STACKTRACE, "stacktrace", c->arena,
                                           sizeof *ch->stacktrace, read_frame_list, c, &ch->n_stacktrace,
                                           &ch->has_stacktrace, err)))
        return -1;
    return 0;
}

/* ---------------------------------------------------------------- delegates */

static int read_compile_spec(void *ctx, const fb_table *s, uint32_t i, void *item, mlia_error *err)
{
    pte_compile_spec *cs = item;
    fb_vec val;
    if (fb_get_string(s, PROGRAM_SLOT_COMPILE_SPEC_KEY, "key", &cs->key, err) < 0 ||
        fb_get_vector(s, PROGRAM_SLOT_COMPILE_SPEC_VALUE, "value", 1, &val, err) < 0)
        return -1;
    cs->value = val.n ? ((pte_ctx *)ctx)->data + val.pos : NULL;
    cs->value_size = val.n;
    return 0;
}

static int read_delegate(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    pte_ctx *c = ctx;
    pte_delegate *d = item;
    fb_table ref;
    if (fb_get_string(t, PROGRAM_SLOT_BACKEND_DELEGATE_ID, "id", &d->id, c->err) < 0)
        return -1;
    int r = fb_get_table(t, PROGRAM_SLOT_BACKEND_DELEGATE_PROCESSED, "processed", &ref, c->err);
    if (r < 0)
        return -1;
    if (r == 0)
        return fb_fail(t, "processed", -1, t->pos, c->err, "delegate has no processed data reference");
    if (fb_get_u8(&ref, PROGRAM_SLOT_BACKEND_DELEGATE_DATA_REFERENCE_LOCATION, "location", 0, &d->location,
                  c->err) < 0 ||
        fb_get_u32(&ref, PROGRAM_SLOT_BACKEND_DELEGATE_DATA_REFERENCE_INDEX, "index", 0, &d->index, c->err) < 0)
        return -1;
    const pte_program *p = c->p;
    if (d->location == PROGRAM_DATA_LOCATION_INLINE) {
        if (d->index >= p->n_inline_delegates)
            return fb_fail(&ref, "index", -1, ref.pos, c->err,
                           "inline delegate index %" PRIu32 " out of range (%" PRIu32 " backend_delegate_data entries)",
                           d->index, p->n_inline_delegates);
        const pte_blob *b = &p->inline_delegates[d->index];
        d->blob = b->data;
        d->size = b->size;
        d->offset = b->file_offset;
    } else if (d->location == PROGRAM_DATA_LOCATION_SEGMENT) {
        if (p->segment_base_offset == 0)
            return fb_fail(&ref, "location", -1, ref.pos, c->err,
                           "delegate data in a segment but the file has no segment data (no extended header)");
        if (d->index >= p->n_segments)
            return fb_fail(&ref, "index", -1, ref.pos, c->err,
                           "segment index %" PRIu32 " out of range (%" PRIu32 " segments)", d->index, p->n_segments);
        const pte_segment *s = &p->segments[d->index];
        d->offset = s->file_offset;
        d->size = s->size;
        d->blob = c->data + (s->file_offset - c->file_offset);
    } else {
        return fb_fail(&ref, "location", -1, ref.pos, c->err, "invalid delegate data location %u",
                       (unsigned)d->location);
    }
    d->compile_specs = fb_read_records(t, PROGRAM_SLOT_BACKEND_DELEGATE_COMPILE_SPECS, "compile_specs", c->arena,
                                       sizeof *d->compile_specs, read_compile_spec, c, &d->n_compile_specs, NULL,
                                       c->err);
    return d->compile_specs ? 0 : -1;
}

/* ---------------------------------------------------------------- plans */

static int read_buffer_device(void *ctx, const fb_table *d, uint32_t i, void *item, mlia_error *err)
{
    pte_buffer_device *x = item;
    if (fb_get_i32(d, PROGRAM_SLOT_NON_CONST_BUFFER_DEVICE_BUFFER_IDX, "buffer_idx", 0, &x->buffer_idx, err) < 0 ||
        fb_get_u8(d, PROGRAM_SLOT_NON_CONST_BUFFER_DEVICE_DEVICE_TYPE, "device_type", 0, &x->device_type, err) < 0 ||
        fb_get_i8(d, PROGRAM_SLOT_NON_CONST_BUFFER_DEVICE_DEVICE_INDEX, "device_index", 0, &x->device_index, err) < 0)
        return -1;
    return 0;
}

static int read_operator(void *ctx, const fb_table *o, uint32_t i, void *item, mlia_error *err)
{
    pte_operator *op = item;
    if (fb_get_string(o, PROGRAM_SLOT_OPERATOR_NAME, "name", &op->name, err) < 0 ||
        fb_get_string(o, PROGRAM_SLOT_OPERATOR_OVERLOAD, "overload", &op->overload, err) < 0)
        return -1;
    return 0;
}

/* A value; the plan counts the values of each kind. */
static int read_value_record(void *ctx, const fb_table *ev, uint32_t i, void *item, mlia_error *err)
{
    pte_ctx *c = ctx;
    pte_value *x = item;
    if (read_value(c, c->plan, ev, x) < 0)
        return -1;
    if (x->kind < PTE_VALUE_KIND_COUNT)
        c->plan->value_counts[x->kind]++;
    else
        c->plan->n_unknown_values++;
    return 0;
}

static int read_plan(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err)
{
    pte_ctx *c = ctx;
    pte_plan *plan = item;
    c->plan = plan;
    fb_vec v;
    fb_table cm;
    if (fb_get_string(t, PROGRAM_SLOT_EXECUTION_PLAN_NAME, "name", &plan->name, c->err) < 0)
        return -1;
    int r = fb_get_table(t, PROGRAM_SLOT_EXECUTION_PLAN_CONTAINER_META_TYPE, "container_meta_type", &cm, c->err);
    if (r < 0)
        return -1;
    if (r > 0) {
        plan->has_container_meta = true;
        if (fb_get_string(&cm, PROGRAM_SLOT_CONTAINER_METADATA_ENCODED_INP_STR, "encoded_inp_str",
                          &plan->encoded_inp_str, c->err) < 0 ||
            fb_get_string(&cm, PROGRAM_SLOT_CONTAINER_METADATA_ENCODED_OUT_STR, "encoded_out_str",
                          &plan->encoded_out_str, c->err) < 0)
            return -1;
    }
    /* tables indexed by values and instructions first */
    if (fb_get_vector(t, PROGRAM_SLOT_EXECUTION_PLAN_NON_CONST_BUFFER_SIZES, "non_const_buffer_sizes", 8, &v,
                      c->err) < 0)
        return -1;
    plan->n_non_const_buffer_sizes = v.n;
    plan->non_const_buffer_sizes_offset = c->file_offset + v.pos;
    plan->non_const_buffer_sizes = mlia_arena_array(c->arena, v.n ? v.n : 1, sizeof(int64_t));
    for (uint32_t k = 0; k < v.n; k++)
        plan->non_const_buffer_sizes[k] = fb_vec_i64(&v, k);
    if (!(plan->non_const_buffer_device = fb_read_records(
              t, PROGRAM_SLOT_EXECUTION_PLAN_NON_CONST_BUFFER_DEVICE, "non_const_buffer_device", c->arena,
              sizeof *plan->non_const_buffer_device, read_buffer_device, c, &plan->n_non_const_buffer_device, NULL,
              c->err)) ||
        !(plan->operators = fb_read_records(t, PROGRAM_SLOT_EXECUTION_PLAN_OPERATORS, "operators", c->arena,
                                            sizeof *plan->operators, read_operator, c, &plan->n_operators, NULL,
                                            c->err)) ||
        !(plan->delegates = fb_read_records(t, PROGRAM_SLOT_EXECUTION_PLAN_DELEGATES, "delegates", c->arena,
                                            sizeof *plan->delegates, read_delegate, c, &plan->n_delegates, NULL,
                                            c->err)) ||
        !(plan->values = fb_read_records(t, PROGRAM_SLOT_EXECUTION_PLAN_VALUES, "values", c->arena,
                                         sizeof *plan->values, read_value_record, c, &plan->n_values, NULL, c->err)))
        return -1;
    if (read_index_vec(c, t, PROGRAM_SLOT_EXECUTION_PLAN_INPUTS, "inputs", plan->n_values, false, "value index",
                       &plan->n_inputs, &plan->inputs) < 0 ||
        read_index_vec(c, t, PROGRAM_SLOT_EXECUTION_PLAN_OUTPUTS, "outputs", plan->n_values, false, "value index",
                       &plan->n_outputs, &plan->outputs) < 0)
        return -1;
    plan->chains = fb_read_records(t, PROGRAM_SLOT_EXECUTION_PLAN_CHAINS, "chains", c->arena, sizeof *plan->chains,
                                   read_chain, c, &plan->n_chains, NULL, c->err);
    return plan->chains ? 0 : -1;
}

/* ---------------------------------------------------------------- header and entry points */

/* Extended header (docs/formats/pte.md §2). Sets the header fields of p; returns -1 on error. */
static int read_extended_header(pte_ctx *c)
{
    pte_program *p = c->p;
    const uint8_t *d = c->data;
    uint64_t size = c->size;
    p->program_size = size;
    if (size < 12 || memcmp(d + 8, "eh00", 4) != 0)
        return 0;
    p->has_extended_header = true;
    const char *f = c->file;
    uint64_t fo = c->file_offset;
    if (size < 16)
        return mlia_error_setf(c->err, f, "truncated extended header at byte %" PRIu64, fo + 8);
    p->header_length = fb_le32(d + 12);
    if (p->header_length < 24)
        return mlia_error_setf(c->err, f, "extended header length %" PRIu32 " is less than 24 at byte %" PRIu64,
                               p->header_length, fo + 12);
    uint64_t known = p->header_length >= 32 ? 32 : 24;
    if (size < 8 + known)
        return mlia_error_setf(c->err, f, "truncated extended header (%" PRIu64 " bytes, header needs %" PRIu64 ") at byte %" PRIu64,
                               size, 8 + known, fo + 8);
    p->program_size = fb_le64(d + 16);
    p->segment_base_offset = fb_le64(d + 24);
    p->segment_data_size = known >= 32 ? fb_le64(d + 32) : 0;
    if (p->program_size > size)
        return mlia_error_setf(c->err, f, "extended header program_size %" PRIu64 " exceeds the file length %" PRIu64 " at byte %" PRIu64,
                               p->program_size, size, fo + 16);
    if (p->segment_base_offset != 0 && p->segment_base_offset < p->program_size)
        return mlia_error_setf(c->err, f,
                               "extended header segment_base_offset %" PRIu64 " lies inside the program (program_size %" PRIu64 ") at byte %" PRIu64,
                               p->segment_base_offset, p->program_size, fo + 24);
    if (p->segment_base_offset > size)
        return mlia_error_setf(c->err, f,
                               "extended header segment_base_offset %" PRIu64 " exceeds the file length %" PRIu64 " at byte %" PRIu64,
                               p->segment_base_offset, size, fo + 24);
    if (p->segment_data_size > 0 || (p->program_size == 0 && p->segment_data_size == 0)) {
        uint64_t need = p->program_size;
        if (p->segment_base_offset) {
            if (p->segment_data_size > UINT64_MAX - p->segment_base_offset)
                return mlia_error_setf(c->err, f, "extended header segment sizes overflow at byte %" PRIu64, fo + 24);
            need = p->segment_base_offset + p->segment_data_size;
        }
        if (size < need)
            return mlia_error_setf(c->err, f,
                                   "file is truncated: %" PRIu64 " bytes, the extended header declares %" PRIu64 " at byte %" PRIu64,
                                   size, need, fo + 8);
    }
    return 0;
}

int pte_read_at(const uint8_t *data, size_t size, const char *file, uint64_t file_offset, mlia_arena *arena,
                pte_program **out, mlia_error *err)
{
    *out = NULL;
    pte_ctx c = {.data = data, .size = size, .file_offset = file_offset, .file = file, .arena = arena, .err = err};
    if (size == 0)
        return mlia_error_setf(err, file, "empty PTE file");
    if (size >= 8 && data[4] == 'E' && data[5] == 'T' && memcmp(data + 4, "ET12", 4) != 0 &&
        data[6] >= '0' && data[6] <= '9' && data[7] >= '0' && data[7] <= '9')
        return mlia_error_setf(err, file, "unsupported PTE version \"%.4s\" (expected \"ET12\") at byte %" PRIu64,
                               (const char *)data + 4, file_offset + 4);
    pte_program *p = mlia_arena_alloc(arena, sizeof *p);
    c.p = p;
    p->file_size = size;
    p->file_offset = file_offset;
    if (read_extended_header(&c) < 0)
        return -1;
    fb_table root;
    if (fb_open(&c.b, data, p->program_size, file, file_offset, "ET12", false, 0, &root, err) < 0)
        return -1;
    if (p->has_extended_header && root.pos < 8 + (uint64_t)p->header_length)
        return fb_fail(&root, NULL, -1, 0, err, "root table overlaps the extended header");
    if (fb_get_u32(&root, PROGRAM_SLOT_PROGRAM_VERSION, "version", 0, &p->version, err) < 0 ||
        read_program_tables(&c, &root) < 0)
        return -1;
    if (!(p->plans = fb_read_records(&root, PROGRAM_SLOT_PROGRAM_EXECUTION_PLAN, "execution_plan", arena,
                                     sizeof *p->plans, read_plan, &c, &p->n_plans, NULL, err)))
        return -1;
    *out = p;
    return 0;
}

int pte_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, pte_program **out,
             mlia_error *err)
{
    return pte_read_at(data, size, file, 0, arena, out, err);
}

/* ---------------------------------------------------------------- BundledProgram */

/* BundledProgram records: ctx is the arena. */
static int read_bp_value(void *ctx, const fb_table *vt, uint32_t i, void *item, mlia_error *err)
{
    mlia_arena *arena = ctx;
    bp_value *v = item;
    fb_table m;
    uint8_t kind;
    int r = fb_get_union(vt, BUNDLED_PROGRAM_SLOT_VALUE_VAL_TYPE, "val", BP_VALUE_DOUBLE, &kind, &m, err);
    if (r < 0)
        return -1;
    v->kind = kind;
    if (r == 0)
        return 0;
    switch (kind) {
    case BP_VALUE_TENSOR: {
        int8_t st;
        fb_vec sizes, data, dim_order;
        if (fb_get_i8(&m, BUNDLED_PROGRAM_SLOT_TENSOR_SCALAR_TYPE, "scalar_type", 0, &st, err) < 0 ||
            fb_get_vector(&m, BUNDLED_PROGRAM_SLOT_TENSOR_SIZES, "sizes", 4, &sizes, err) < 0 ||
            fb_get_vector(&m, BUNDLED_PROGRAM_SLOT_TENSOR_DATA, "data", 1, &data, err) < 0 ||
            fb_get_vector(&m, BUNDLED_PROGRAM_SLOT_TENSOR_DIM_ORDER, "dim_order", 1, &dim_order, err) < 0)
            return -1;
        v->scalar_type = (uint8_t)st;
        v->n_sizes = sizes.n;
        v->sizes = mlia_arena_array(arena, sizes.n ? sizes.n : 1, sizeof *v->sizes);
        for (uint32_t k = 0; k < sizes.n; k++)
            v->sizes[k] = fb_vec_i32(&sizes, k);
        v->data = data.n ? m.b->base + data.pos : NULL;
        v->data_size = data.n;
        v->data_offset = fb_file_offset(m.b, data.pos);
        v->n_dim_order = dim_order.n;
        v->dim_order = dim_order.n ? m.b->base + dim_order.pos : NULL;
        return 0;
    }
    case BP_VALUE_INT:
        return fb_get_i64(&m, BUNDLED_PROGRAM_SLOT_INT_INT_VAL, "int_val", 0, &v->int_val, err);
    case BP_VALUE_BOOL:
        return fb_get_bool(&m, BUNDLED_PROGRAM_SLOT_BOOL_BOOL_VAL, "bool_val", false, &v->bool_val, err);
    case BP_VALUE_DOUBLE:
        return fb_get_f64(&m, BUNDLED_PROGRAM_SLOT_DOUBLE_DOUBLE_VAL, "double_val", 0.0, &v->double_val, err);
    default:
        return 0;
    }
}

static int read_bp_test_case(void *ctx, const fb_table *tc, uint32_t k, void *item, mlia_error *err)
{
    bp_test_case *y = item;
    if (!(y->inputs = fb_read_records(tc, BUNDLED_PROGRAM_SLOT_BUNDLED_METHOD_TEST_CASE_INPUTS, "inputs", ctx,
                                      sizeof(bp_value), read_bp_value, ctx, &y->n_inputs, NULL, err)) ||
        !(y->expected_outputs = fb_read_records(tc, BUNDLED_PROGRAM_SLOT_BUNDLED_METHOD_TEST_CASE_EXPECTED_OUTPUTS,
                                                "expected_outputs", ctx, sizeof(bp_value), read_bp_value, ctx,
                                                &y->n_expected_outputs, NULL, err)))
        return -1;
    return 0;
}

static int read_bp_test_suite(void *ctx, const fb_table *s, uint32_t i, void *item, mlia_error *err)
{
    bp_method_test_suite *x = item;
    if (fb_get_string(s, BUNDLED_PROGRAM_SLOT_BUNDLED_METHOD_TEST_SUITE_METHOD_NAME, "method_name", &x->method_name,
                      err) < 0 ||
        !(x->test_cases = fb_read_records(s, BUNDLED_PROGRAM_SLOT_BUNDLED_METHOD_TEST_SUITE_TEST_CASES, "test_cases",
                                          ctx, sizeof *x->test_cases, read_bp_test_case, ctx, &x->n_test_cases, NULL,
                                          err)))
        return -1;
    return 0;
}

int bundled_program_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena,
                         bundled_program **out, mlia_error *err)
{
    *out = NULL;
    if (size == 0)
        return mlia_error_setf(err, file, "empty BundledProgram file");
    fb_buf b;
    fb_table root;
    if (fb_open(&b, data, size, file, 0, "BP08", false, 0, &root, err) < 0)
        return -1;
    bundled_program *bp = mlia_arena_alloc(arena, sizeof *bp);
    fb_vec prog;
    if (fb_get_u32(&root, BUNDLED_PROGRAM_SLOT_BUNDLED_PROGRAM_VERSION, "version", 0, &bp->version, err) < 0)
        return -1;
    /* both vectors and the program's presence are checked before any suite
     * is read: that order decides which error a broken file reports */
    fb_vec suites;
    if (fb_get_vector(&root, BUNDLED_PROGRAM_SLOT_BUNDLED_PROGRAM_METHOD_TEST_SUITES, "method_test_suites", 4, &suites,
                      err) < 0 ||
        fb_get_vector(&root, BUNDLED_PROGRAM_SLOT_BUNDLED_PROGRAM_PROGRAM, "program", 1, &prog, err) < 0)
        return -1;
    if (!prog.present)
        return fb_fail(&root, "program", -1, root.pos, err, "BundledProgram has no program");
    if (!(bp->method_test_suites = fb_read_records(&root, BUNDLED_PROGRAM_SLOT_BUNDLED_PROGRAM_METHOD_TEST_SUITES,
                                                   "method_test_suites", arena, sizeof *bp->method_test_suites,
                                                   read_bp_test_suite, arena, &bp->n_method_test_suites, NULL, err)))
        return -1;
    bp->program_data = data + prog.pos;
    bp->program_size = prog.n;
    bp->program_offset = prog.pos;
    if (pte_read_at(bp->program_data, prog.n, file, prog.pos, arena, &bp->program, err) < 0)
        return -1;
    *out = bp;
    return 0;
}
