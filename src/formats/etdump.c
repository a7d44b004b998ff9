/*
 * etdump.c - ETDump decoding (see etdump.h).
 *
 * Hot path: for each Event the reader opens two tables and reads a handful
 * of fields through the inline accessors of fb.h; nothing is allocated or
 * formatted per event. Field names passed to the accessors are string
 * literals used only if an error message has to be built.
 */
#include "etdump.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/oom.h"

#include "fb.h"
#include "pte.h"

static const char ED00[] = "ED00";

const char *etdump_event_kind_name(int kind)
{
    switch (kind) {
    case ETDUMP_EVENT_PROFILE: return "profile";
    case ETDUMP_EVENT_ALLOCATION: return "allocation";
    case ETDUMP_EVENT_DEBUG: return "debug";
    default: return NULL;
    }
}

const char *etdump_value_type_name(int value_type)
{
    static const char *const names[] = {"Null", "Int", "Bool", "Float", "Double", "Tensor", "TensorList",
                                        "String"};
    if (value_type < 0 || value_type > ETDUMP_VALUE_TYPE_STRING)
        return NULL;
    return names[value_type];
}

/* ---------------------------------------------------------------- schema versions
 *
 * ETDump.version names the layout of everything below the root table (the
 * root itself, `version` at slot 0 and `run_data` at slot 1, is the same in
 * every layout ExecuTorch wrote). Each version ExecuTorch ever wrote is a row
 * here with how mlia reads it; docs/formats/etdump.md §7 ("Schema versions")
 * gives the history behind the rows. A version that is not a row is an error
 * naming the version found and the readable ones, and so is a row without a
 * reader. A new version is one row; one whose tables differ from
 * tools/schema/etdump.fbs also gets a layout value and its own reader of the
 * run headers and events, chosen where dispatch_version is called. */
typedef enum {
    ETDUMP_LAYOUT_FLATCC,     /* tools/schema/etdump.fbs: the readers of this file */
    ETDUMP_LAYOUT_UNREADABLE  /* known, not read: `what` says what it is */
} etdump_layout;

static const struct etdump_schema_version {
    uint32_t version;
    etdump_layout layout;
    const char *what;
} ETDUMP_VERSIONS[] = {
    {0, ETDUMP_LAYOUT_FLATCC, "the flatcc layout written by ExecuTorch 0.1 and later"},
    {1, ETDUMP_LAYOUT_UNREADABLE,
     "the layout of ExecuTorch's 2023 pre-release ETDumpGen (profile and debug blocks per run)"},
};

#define ETDUMP_N_VERSIONS (sizeof ETDUMP_VERSIONS / sizeof ETDUMP_VERSIONS[0])

/* "0" or "0, 2": the versions mlia reads, for messages. */
static void readable_versions(char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < ETDUMP_N_VERSIONS; i++) {
        if (ETDUMP_VERSIONS[i].layout == ETDUMP_LAYOUT_UNREADABLE)
            continue;
        int w = snprintf(buf + n, cap - n, "%s%" PRIu32, n ? ", " : "", ETDUMP_VERSIONS[i].version);
        if (w < 0 || (size_t)w >= cap - n)
            break;
        n += (size_t)w;
    }
}

/* 0 when `version` has a reader (today: the flatcc layout of this file), or
 * -1 after reporting it at the root's version field. */
static int dispatch_version(const fb_table *root, uint32_t version, mlia_error *err)
{
    const struct etdump_schema_version *row = NULL;
    for (size_t i = 0; i < ETDUMP_N_VERSIONS; i++)
        if (ETDUMP_VERSIONS[i].version == version)
            row = &ETDUMP_VERSIONS[i];
    if (row && row->layout == ETDUMP_LAYOUT_FLATCC)
        return 0;
    char readable[64];
    readable_versions(readable, sizeof readable);
    /* only version 0 is the default: any other is stored, so the field is present */
    uint64_t at = root->pos + fb_field_off(root, ETDUMP_SLOT_ET_DUMP_VERSION);
    if (!row)
        return fb_fail(root, "version", -1, at, err, "unknown ETDump schema version %" PRIu32 " (supported: %s)",
                       version, readable);
    return fb_fail(root, "version", -1, at, err,
                   "ETDump schema version %" PRIu32 " is %s, which mlia does not read (supported: %s)", version,
                   row->what, readable);
}

/* ETDump Tensor: accumulate its byte size into v (first tensor described). */
static int read_tensor(const fb_table *t, etdump_debug_value *v, bool first, mlia_error *err)
{
    int8_t st;
    fb_vec sizes, strides;
    int64_t offset;
    if (fb_get_i8(t, ETDUMP_SLOT_TENSOR_SCALAR_TYPE, "scalar_type", 0, &st, err) < 0 ||
        fb_get_vector(t, ETDUMP_SLOT_TENSOR_SIZES, "sizes", 8, &sizes, err) < 0 ||
        fb_get_vector(t, ETDUMP_SLOT_TENSOR_STRIDES, "strides", 8, &strides, err) < 0 ||
        fb_get_i64(t, ETDUMP_SLOT_TENSOR_OFFSET, "offset", 0, &offset, err) < 0)
        return -1;
    unsigned esize = et_scalar_type_size((uint8_t)st);
    uint64_t nbytes = esize;
    for (uint32_t i = 0; i < sizes.n; i++) {
        int64_t d = fb_vec_i64(&sizes, i);
        if (d < 0)
            return fb_fail(t, "sizes", i, sizes.pos + 8 * (uint64_t)i, err, "negative tensor size %" PRId64, d);
        if (d != 0 && nbytes > UINT64_MAX / (uint64_t)d)
            return fb_fail(t, "sizes", i, sizes.pos + 8 * (uint64_t)i, err, "tensor byte size overflows");
        nbytes *= (uint64_t)d;
    }
    if (first) {
        v->scalar_type = (uint8_t)st;
        v->n_dims = sizes.n;
        v->sizes = sizes.n ? t->b->base + sizes.pos : NULL;
        v->n_strides = strides.n;
        v->strides = strides.n ? t->b->base + strides.pos : NULL;
        v->data_offset = offset;
    }
    if (offset < -1 && !v->has_bad_offset) {
        v->has_bad_offset = true;
        v->bad_offset = offset;
    }
    if (esize == 0)
        v->nbytes_known = false;
    else if (offset >= 0) {
        if (v->nbytes > UINT64_MAX - nbytes)
            return fb_fail(t, NULL, -1, t->pos, err, "tensor byte size overflows");
        v->nbytes += nbytes;
        /* a sum that wraps saturates: it lies beyond any buffer anyway */
        uint64_t end = (uint64_t)offset + nbytes;
        if (end < nbytes)
            end = UINT64_MAX;
        if (nbytes && end > v->data_end) {
            v->data_end = end;
            v->data_end_offset = offset;
        }
    }
    return 0;
}

static int read_value(const fb_table *val, etdump_debug_value *v, mlia_error *err)
{
    /* member table of each ValueType (String has none: see the schema) */
    static const struct {
        unsigned slot;
        const char *name;
    } member[ETDUMP_VALUE_TYPE_STRING + 1] = {
        [ETDUMP_VALUE_TYPE_INT] = {ETDUMP_SLOT_VALUE_INT_VALUE, "int_value"},
        [ETDUMP_VALUE_TYPE_BOOL] = {ETDUMP_SLOT_VALUE_BOOL_VALUE, "bool_value"},
        [ETDUMP_VALUE_TYPE_FLOAT] = {ETDUMP_SLOT_VALUE_FLOAT_VALUE, "float_value"},
        [ETDUMP_VALUE_TYPE_DOUBLE] = {ETDUMP_SLOT_VALUE_DOUBLE_VALUE, "double_value"},
        [ETDUMP_VALUE_TYPE_TENSOR] = {ETDUMP_SLOT_VALUE_TENSOR, "tensor"},
        [ETDUMP_VALUE_TYPE_TENSOR_LIST] = {ETDUMP_SLOT_VALUE_TENSOR_LIST, "tensor_list"},
    };
    uint8_t type;
    if (fb_get_u8(val, ETDUMP_SLOT_VALUE_VAL, "val", 0, &type, err) < 0)
        return -1;
    v->value_type = type;
    v->nbytes_known = true;
    fb_table out;
    int r = fb_get_table(val, ETDUMP_SLOT_VALUE_OUTPUT, "output", &out, err);
    if (r < 0)
        return -1;
    if (r > 0 && fb_get_bool(&out, ETDUMP_SLOT_BOOL_BOOL_VAL, "bool_val", false, &v->output, err) < 0)
        return -1;
    if (type == ETDUMP_VALUE_NULL || type >= ETDUMP_VALUE_STRING)
        return 0; /* String is declared without a member field; unknown tags stay raw */
    fb_table m;
    r = fb_get_table(val, member[type].slot, member[type].name, &m, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return fb_fail(val, member[type].name, -1, val->pos, err, "Value of type %s has no %s member",
                       etdump_value_type_name(type), member[type].name);
    switch (type) {
    case ETDUMP_VALUE_INT:
        return fb_get_i64(&m, ETDUMP_SLOT_INT_INT_VAL, "int_val", 0, &v->int_val, err);
    case ETDUMP_VALUE_BOOL:
        return fb_get_bool(&m, ETDUMP_SLOT_BOOL_BOOL_VAL, "bool_val", false, &v->bool_val, err);
    case ETDUMP_VALUE_FLOAT: {
        float f;
        if (fb_get_f32(&m, ETDUMP_SLOT_FLOAT_FLOAT_VAL, "float_val", 0.0f, &f, err) < 0)
            return -1;
        v->double_val = f;
        return 0;
    }
    case ETDUMP_VALUE_DOUBLE:
        return fb_get_f64(&m, ETDUMP_SLOT_DOUBLE_DOUBLE_VAL, "double_val", 0.0, &v->double_val, err);
    case ETDUMP_VALUE_TENSOR:
        v->n_tensors = 1;
        return read_tensor(&m, v, true, err);
    case ETDUMP_VALUE_TENSOR_LIST: {
        fb_vec tensors;
        if (fb_get_vector(&m, ETDUMP_SLOT_TENSOR_LIST_TENSORS, "tensors", 4, &tensors, err) < 0)
            return -1;
        v->n_tensors = tensors.n;
        v->data_offset = -1;
        for (uint32_t i = 0; i < tensors.n; i++) {
            fb_table t;
            if (fb_vec_table(&tensors, i, &t, err) < 0 || read_tensor(&t, v, i == 0, err) < 0)
                return -1;
        }
        return 0;
    }
    default:
        return 0;
    }
}

static int read_debug_event(const fb_table *d, etdump_debug_value *v, etdump_event *ev, mlia_error *err)
{
    uint64_t chain;
    if (fb_get_u64(d, ETDUMP_SLOT_DEBUG_EVENT_CHAIN_INDEX, "chain_index", 0, &chain, err) < 0 ||
        fb_get_i32(d, ETDUMP_SLOT_DEBUG_EVENT_INSTRUCTION_ID, "instruction_id", -1, &ev->instruction_id, err) < 0 ||
        fb_get_i32(d, ETDUMP_SLOT_DEBUG_EVENT_DELEGATE_DEBUG_ID_INT, "delegate_debug_id_int", -1,
                   &ev->delegate_debug_id_int, err) < 0 ||
        fb_get_string(d, ETDUMP_SLOT_DEBUG_EVENT_DELEGATE_DEBUG_ID_STR, "delegate_debug_id_str",
                      &ev->delegate_debug_id_str, err) < 0 ||
        fb_get_string(d, ETDUMP_SLOT_DEBUG_EVENT_NAME, "name", &ev->name, err) < 0)
        return -1;
    /* the runtime's -1 is stored as 2^64-1; keep other huge values as their
     * two's-complement reading */
    ev->chain_index = (int64_t)chain;
    ev->debug_index = 0;
    memset(v, 0, sizeof *v);
    v->data_offset = -1;
    fb_table val;
    int r = fb_get_table(d, ETDUMP_SLOT_DEBUG_EVENT_DEBUG_ENTRY, "debug_entry", &val, err);
    if (r < 0)
        return -1;
    if (r == 0)
        return 0;
    v->present = true;
    if (read_value(&val, v, err) < 0)
        return -1;
    ev->debug_value_type = v->value_type;
    return 0;
}

/* Highest byte an event touched (for page release): its member table at
 * mpos and the bytes it borrows normally follow its Event table at epos. */
static uint64_t event_span_hi(const uint8_t *base, uint64_t epos, uint64_t mpos, const etdump_event *ev)
{
    uint64_t hi = (mpos > epos ? mpos : epos) + 64;
    if (ev->name.ptr && (uint64_t)(ev->name.ptr - (const char *)base) + ev->name.len + 1 > hi)
        hi = (uint64_t)(ev->name.ptr - (const char *)base) + ev->name.len + 1;
    if (ev->delegate_debug_id_str.ptr &&
        (uint64_t)(ev->delegate_debug_id_str.ptr - (const char *)base) + ev->delegate_debug_id_str.len + 1 > hi)
        hi = (uint64_t)(ev->delegate_debug_id_str.ptr - (const char *)base) + ev->delegate_debug_id_str.len + 1;
    if (ev->metadata && (uint64_t)(ev->metadata - base) + ev->metadata_size > hi)
        hi = (uint64_t)(ev->metadata - base) + ev->metadata_size;
    return hi;
}

/* Decode the Event table e (element `index` of a run) into ev / dv. */
static int read_event(const fb_table *e, uint32_t n_allocators, etdump_event *ev, etdump_debug_value *dv,
                      uint64_t *span_hi, mlia_error *err)
{
    fb_table m;
    memset(ev, 0, sizeof *ev);
    m.pos = e->pos;
    ev->offset = fb_file_offset(e->b, e->pos);
    unsigned members = fb_has(e, ETDUMP_SLOT_EVENT_PROFILE_EVENT) + fb_has(e, ETDUMP_SLOT_EVENT_ALLOCATION_EVENT) +
                       fb_has(e, ETDUMP_SLOT_EVENT_DEBUG_EVENT);
    if (members != 1)
        return fb_fail(e, NULL, -1, e->pos, err, "Event has %u members set, expected exactly one", members);
    if (fb_has(e, ETDUMP_SLOT_EVENT_PROFILE_EVENT)) {
        ev->kind = ETDUMP_EVENT_PROFILE;
        fb_vec md;
        if (fb_get_table(e, ETDUMP_SLOT_EVENT_PROFILE_EVENT, "profile_event", &m, err) < 0 ||
            fb_get_string(&m, ETDUMP_SLOT_PROFILE_EVENT_NAME, "name", &ev->name, err) < 0)
            return -1;
        int32_t chain;
        if (fb_get_i32(&m, ETDUMP_SLOT_PROFILE_EVENT_CHAIN_INDEX, "chain_index", 0, &chain, err) < 0 ||
            fb_get_i32(&m, ETDUMP_SLOT_PROFILE_EVENT_INSTRUCTION_ID, "instruction_id", -1, &ev->instruction_id,
                       err) < 0 ||
            fb_get_i32(&m, ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, "delegate_debug_id_int", -1,
                       &ev->delegate_debug_id_int, err) < 0 ||
            fb_get_string(&m, ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR, "delegate_debug_id_str",
                          &ev->delegate_debug_id_str, err) < 0 ||
            fb_get_vector(&m, ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_METADATA, "delegate_debug_metadata", 1, &md,
                          err) < 0 ||
            fb_get_u64(&m, ETDUMP_SLOT_PROFILE_EVENT_START_TIME, "start_time", 0, &ev->start_time, err) < 0 ||
            fb_get_u64(&m, ETDUMP_SLOT_PROFILE_EVENT_END_TIME, "end_time", 0, &ev->end_time, err) < 0)
            return -1;
        ev->chain_index = chain;
        ev->has_metadata = md.present;
        ev->metadata_size = md.n;
        ev->metadata = md.present ? e->b->base + md.pos : NULL;
    } else if (fb_has(e, ETDUMP_SLOT_EVENT_ALLOCATION_EVENT)) {
        ev->kind = ETDUMP_EVENT_ALLOCATION;
        ev->instruction_id = -1;
        ev->delegate_debug_id_int = -1;
        if (fb_get_table(e, ETDUMP_SLOT_EVENT_ALLOCATION_EVENT, "allocation_event", &m, err) < 0 ||
            fb_get_i32(&m, ETDUMP_SLOT_ALLOCATION_EVENT_ALLOCATOR_ID, "allocator_id", 0, &ev->allocator_id, err) < 0 ||
            fb_get_u64(&m, ETDUMP_SLOT_ALLOCATION_EVENT_ALLOCATION_SIZE, "allocation_size", 0, &ev->allocation_size,
                       err) < 0)
            return -1;
        if (ev->allocator_id < 1 || (uint32_t)ev->allocator_id > n_allocators)
            return fb_fail(&m, "allocator_id", -1, m.pos, err,
                           "allocator_id %" PRId32 " out of range (run has %" PRIu32 " allocators, ids are 1-based)",
                           ev->allocator_id, n_allocators);
    } else {
        ev->kind = ETDUMP_EVENT_DEBUG;
        if (fb_get_table(e, ETDUMP_SLOT_EVENT_DEBUG_EVENT, "debug_event", &m, err) < 0 ||
            read_debug_event(&m, dv, ev, err) < 0)
            return -1;
    }
    *span_hi = event_span_hi(e->b->base, e->pos, m.pos, ev);
    return 0;
}

/* ---------------------------------------------------------------- fast path
 *
 * Decode once (issue 20): etdump_read checks every event; the passes that
 * read a run again afterwards (runtime analysis, the trace, NX statistics)
 * decode its profile events - all but a handful of a capture's events -
 * through the accessors below instead of the checked fb.h ones: no table
 * budget, no depth, no error path, the Event and ProfileEvent fields read
 * straight from their vtables. Each read still stays inside the buffer, so a
 * file rewritten in place while mapped cannot make them read out of bounds:
 * anything that does not look like the validated layout (another member,
 * an offset outside the buffer, a string without its NUL) returns 0 and the
 * event goes through the checked read_event, which decodes it or reports
 * the error with its byte offset as before. */
typedef struct ft {
    uint64_t pos, vt;
    uint32_t vts;
} ft;

static inline bool ft_open(const fb_buf *b, uint64_t pos, ft *t)
{
    if (pos < b->begin || pos > b->end - 4)
        return false;
    int64_t v = (int64_t)pos - (int32_t)fb_le32(b->base + pos);
    if (v < (int64_t)b->begin || (uint64_t)v > b->end - 4)
        return false;
    t->pos = pos;
    t->vt = (uint64_t)v;
    t->vts = fb_le16(b->base + v);
    return t->vt + t->vts <= b->end;
}

/* Position of a field of `width` bytes: 0 absent, UINT64_MAX outside the buffer. */
static inline uint64_t ft_field(const fb_buf *b, const ft *t, unsigned slot, unsigned width)
{
    unsigned at = 4 + 2 * slot;
    if (at + 2 > t->vts)
        return 0;
    uint32_t fo = fb_le16(b->base + t->vt + at);
    if (!fo)
        return 0;
    return fo < 4 || t->pos + fo + width > b->end ? UINT64_MAX : t->pos + fo;
}

/* Target of the 4-byte offset at p (p + 4 <= end): UINT64_MAX outside the buffer. */
static inline uint64_t ft_follow(const fb_buf *b, uint64_t p)
{
    uint32_t off = fb_le32(b->base + p);
    uint64_t t = p + off;
    return off == 0 || off > FB_MAX_OFFSET || t > b->end - 4 ? UINT64_MAX : t;
}

static inline bool ft_i32(const fb_buf *b, const ft *t, unsigned slot, int32_t def, int32_t *out)
{
    uint64_t p = ft_field(b, t, slot, 4);
    *out = p == 0 || p == UINT64_MAX ? def : (int32_t)fb_le32(b->base + p);
    return p != UINT64_MAX;
}

static inline bool ft_u64(const fb_buf *b, const ft *t, unsigned slot, uint64_t *out)
{
    uint64_t p = ft_field(b, t, slot, 8);
    *out = p == 0 || p == UINT64_MAX ? 0 : fb_le64(b->base + p);
    return p != UINT64_MAX;
}

/* A string (elem 0: n bytes and a NUL) or vector (n elements of `elem`
 * bytes) field: *at = its first byte (0 when absent), *n its length. */
static inline bool ft_span(const fb_buf *b, const ft *t, unsigned slot, unsigned elem, uint64_t *at, uint32_t *n)
{
    *at = 0;
    *n = 0;
    uint64_t p = ft_field(b, t, slot, 4);
    if (p == 0)
        return true;
    uint64_t s = p == UINT64_MAX ? p : ft_follow(b, p);
    if (s == UINT64_MAX)
        return false;
    uint32_t len = fb_le32(b->base + s);
    uint64_t bytes = elem ? (uint64_t)len * elem : (uint64_t)len + 1; /* a string ends with its NUL */
    if (bytes > b->end - s - 4 || (elem == 0 && b->base[s + 4 + len] != 0))
        return false;
    *at = s + 4;
    *n = len;
    return true;
}

static inline bool ft_string(const fb_buf *b, const ft *t, unsigned slot, mlia_str *out)
{
    uint64_t at;
    uint32_t n;
    if (!ft_span(b, t, slot, 0, &at, &n))
        return false;
    *out = (mlia_str){at ? (const char *)b->base + at : NULL, n};
    return true;
}

/* The profile event whose Event table is referenced at `slot` (an events
 * vector slot): 1 decoded into *ev (*epos = its Event table), 0 when it is
 * not a plain profile event or not as validated (the caller falls back to
 * read_event). Same values as read_event. */
static int read_profile_fast(const fb_buf *b, uint64_t slot, etdump_event *ev, uint64_t *epos, uint64_t *span_hi)
{
    ft e, m;
    if (slot > b->end - 4)
        return 0;
    uint64_t ep = ft_follow(b, slot);
    if (ep == UINT64_MAX || !ft_open(b, ep, &e))
        return 0;
    /* A pass over a run is a walk through memory the cache has not seen
     * (the pages were dropped after validation): events lie one after the
     * other, ~64 bytes each, so the bytes of the event ~16 ahead are asked
     * for now (a prefetch never faults; it stays inside the buffer). On the
     * benchmark capture: 35 -> 28 ms per pass over 1,000,000 events. */
    if (ep + 1024 < b->end)
        __builtin_prefetch(b->base + ep + 1024);
    uint64_t pp = ft_field(b, &e, ETDUMP_SLOT_EVENT_PROFILE_EVENT, 4);
    if (pp == 0 || pp == UINT64_MAX || ft_field(b, &e, ETDUMP_SLOT_EVENT_ALLOCATION_EVENT, 4) ||
        ft_field(b, &e, ETDUMP_SLOT_EVENT_DEBUG_EVENT, 4))
        return 0;
    uint64_t mp = ft_follow(b, pp);
    if (mp == UINT64_MAX || !ft_open(b, mp, &m))
        return 0;
    memset(ev, 0, sizeof *ev);
    int32_t chain;
    uint64_t md;
    if (!ft_string(b, &m, ETDUMP_SLOT_PROFILE_EVENT_NAME, &ev->name) ||
        !ft_i32(b, &m, ETDUMP_SLOT_PROFILE_EVENT_CHAIN_INDEX, 0, &chain) ||
        !ft_i32(b, &m, ETDUMP_SLOT_PROFILE_EVENT_INSTRUCTION_ID, -1, &ev->instruction_id) ||
        !ft_i32(b, &m, ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_ID_INT, -1, &ev->delegate_debug_id_int) ||
        !ft_string(b, &m, ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_ID_STR, &ev->delegate_debug_id_str) ||
        !ft_span(b, &m, ETDUMP_SLOT_PROFILE_EVENT_DELEGATE_DEBUG_METADATA, 1, &md, &ev->metadata_size) ||
        !ft_u64(b, &m, ETDUMP_SLOT_PROFILE_EVENT_START_TIME, &ev->start_time) ||
        !ft_u64(b, &m, ETDUMP_SLOT_PROFILE_EVENT_END_TIME, &ev->end_time))
        return 0;
    ev->kind = ETDUMP_EVENT_PROFILE;
    ev->chain_index = chain;
    ev->has_metadata = md != 0;
    ev->metadata = md ? b->base + md : NULL;
    ev->offset = fb_file_offset(b, ep);
    *epos = ep;
    *span_hi = event_span_hi(b->base, ep, mp, ev);
    return 1;
}

static mlia_str copy_str(mlia_arena *arena, mlia_str s)
{
    if (!s.ptr)
        return s;
    return (mlia_str){mlia_arena_strndup(arena, s.ptr, s.len), s.len};
}

/* Run header: name, bundled input, allocators (copied into the arena) and
 * the events vector. */
static int read_run_header(const fb_table *rt, uint32_t index, etdump_run *run, fb_vec *events, mlia_arena *arena,
                           mlia_error *err)
{
    fb_vec allocs;
    run->offset = fb_file_offset(rt->b, rt->pos);
    run->index = index;
    if (fb_get_string(rt, ETDUMP_SLOT_RUN_DATA_NAME, "name", &run->name, err) < 0 ||
        fb_get_i32(rt, ETDUMP_SLOT_RUN_DATA_BUNDLED_INPUT_INDEX, "bundled_input_index", -1, &run->bundled_input_index,
                   err) < 0 ||
        fb_get_vector(rt, ETDUMP_SLOT_RUN_DATA_ALLOCATORS, "allocators", 4, &allocs, err) < 0 ||
        fb_get_vector(rt, ETDUMP_SLOT_RUN_DATA_EVENTS, "events", 4, events, err) < 0)
        return -1;
    /* every allocator and every event opens at least one table: a count
     * beyond the remaining budget cannot be valid, so reject it before
     * allocating */
    if (!fb_budget_allows(rt->b, allocs.n))
        return fb_fail(rt, "allocators", -1, allocs.pos, err, "too many allocators (%" PRIu32 ")", allocs.n);
    if (!fb_budget_allows(rt->b, events->n))
        return fb_fail(rt, "events", -1, events->pos, err, "too many events (%" PRIu32 ")", events->n);
    if (arena) {
        /* Header strings are copied: consumers read run names long after
         * the run's pages were released, and touching one byte of a
         * released page maps back a whole page-cache folio (up to 2 MiB on
         * large-folio file systems) - per run, that is the whole file. */
        run->name = copy_str(arena, run->name);
        run->n_allocators = allocs.n;
        run->allocators = mlia_arena_array(arena, allocs.n ? allocs.n : 1, sizeof *run->allocators);
        for (uint32_t i = 0; i < allocs.n; i++) {
            fb_table a;
            if (fb_vec_table(&allocs, i, &a, err) < 0 ||
                fb_get_string(&a, ETDUMP_SLOT_ALLOCATOR_NAME, "name", &run->allocators[i], err) < 0)
                return -1;
            run->allocators[i] = copy_str(arena, run->allocators[i]);
        }
    }
    run->n_events = events->n;
    return 0;
}

/* Identify the framing: 1 size-prefixed, 0 unprefixed, -1 not an ETDump. */
static int detect_prefix(const uint8_t *data, size_t size)
{
    if (size >= 12 && memcmp(data + 8, ED00, 4) == 0 &&
        (fb_le32(data) <= size - 4 || !(memcmp(data + 4, ED00, 4) == 0)))
        return 1; /* an inconsistent prefix is reported by fb_open */
    if (size >= 8 && memcmp(data + 4, ED00, 4) == 0)
        return 0;
    return -1;
}

/* Open run `r`'s table in buffer b (root already open). */
static int open_run_table(const fb_table *root, uint32_t r, fb_table *rt, mlia_error *err)
{
    fb_vec runs;
    if (fb_get_vector(root, ETDUMP_SLOT_ET_DUMP_RUN_DATA, "run_data", 4, &runs, err) < 0)
        return -1;
    if (r >= runs.n)
        return fb_fail(root, "run_data", -1, root->pos, err, "run %" PRIu32 " out of range", r);
    return fb_vec_table(&runs, r, rt, err);
}

/* Widen the consumed span [lo, hi) by an event whose bytes lie in
 * [pos, end). */
static inline void note_consumed(uint64_t *lo, uint64_t *hi, uint32_t *n, uint64_t pos, uint64_t end)
{
    if (*n == 0 || pos < *lo)
        *lo = pos;
    if (*n == 0 || end > *hi)
        *hi = end;
    (*n)++;
}

const etdump *etdump_run_origin(const etdump *d, uint32_t run, uint32_t *origin_run)
{
    const etdump_run *r = &d->runs[run];
    if (r->src) {
        *origin_run = r->src_run;
        return r->src;
    }
    *origin_run = run;
    return d;
}

void etdump_pool(const etdump *const *dumps, uint32_t n, mlia_arena *arena, etdump **out)
{
    etdump *p = mlia_arena_alloc(arena, sizeof *p);
    memset(p, 0, sizeof *p);
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++)
        total += dumps[i]->n_runs;
    p->runs = mlia_arena_array(arena, total ? total : 1, sizeof *p->runs);
    for (uint32_t i = 0; i < n; i++) {
        const etdump *d = dumps[i];
        for (uint32_t r = 0; r < d->n_runs; r++) {
            uint32_t o;
            const etdump *src = etdump_run_origin(d, r, &o);
            etdump_run *pr = &p->runs[p->n_runs++];
            *pr = d->runs[r];
            pr->index = p->n_runs - 1;
            pr->src = src;
            pr->src_run = o;
        }
        p->n_events += d->n_events;
        if (d->max_run_events > p->max_run_events)
            p->max_run_events = d->max_run_events;
        p->size += d->size;
    }
    p->version = n ? dumps[0]->version : 0;
    *out = p;
}

int etdump_run_begin(const etdump *d, uint32_t run, etdump_cursor *c, mlia_error *err)
{
    d = etdump_run_origin(d, run, &run);
    memset(c, 0, sizeof *c);
    c->dump = d;
    c->run = &d->runs[run];
    if (c->run->mem_events)
        return 0; /* in-memory run */
    if (fb_open(&c->b, d->data, d->size, d->file, 0, ED00, d->size_prefixed, 0, &c->root, err) < 0 ||
        open_run_table(&c->root, run, &c->run_table, err) < 0)
        return -1;
    etdump_run tmp;
    memset(&tmp, 0, sizeof tmp);
    return read_run_header(&c->run_table, run, &tmp, &c->events, NULL, err);
}

int etdump_run_next(etdump_cursor *c, etdump_event *ev, etdump_debug_value *dv, mlia_error *err)
{
    const etdump_run *run = c->run;
    if (c->next >= run->n_events)
        return 0;
    uint32_t i = c->next++;
    if (run->mem_events) {
        *ev = run->mem_events[i];
        if (ev->kind == ETDUMP_EVENT_DEBUG && run->mem_debug_values)
            *dv = run->mem_debug_values[ev->debug_index];
        ev->debug_index = 0;
        return 1;
    }
    uint64_t slot = c->events.pos + 4 * (uint64_t)i, epos, end;
    if (!c->dump->validated || !read_profile_fast(&c->b, slot, ev, &epos, &end)) {
        fb_table e;
        if (fb_vec_table(&c->events, i, &e, err) < 0 || read_event(&e, run->n_allocators, ev, dv, &end, err) < 0)
            return -1;
        epos = e.pos;
    }
    if (c->dump->release) {
        /* the span includes the events vector's slot for this event */
        note_consumed(&c->lo, &c->hi, &c->since_release, slot < epos ? slot : epos, slot + 4 > end ? slot + 4 : end);
        if (!c->defer_release && (c->since_release >= ETDUMP_RELEASE_EVENTS || c->next == run->n_events)) {
            c->dump->release(c->dump->release_ctx, c->lo, c->hi, c->since_release);
            c->since_release = 0;
        }
    }
    return 1;
}

int etdump_read_run(const etdump *d, uint32_t run, etdump_events *out, mlia_error *err)
{
    out->run = run;
    out->n = 0;
    out->n_debug = 0;
    const etdump_run *r = &d->runs[run];
    if (r->n_events > out->cap) {
        etdump_event *ne = realloc(out->ev, (size_t)r->n_events * sizeof *ne);
        if (!ne)
            mlia_oom((size_t)r->n_events * sizeof *ne);
        out->ev = ne;
        out->cap = r->n_events;
    }
    if (out->held_n && out->held_dump && out->held_dump->release)
        out->held_dump->release(out->held_dump->release_ctx, out->held_lo, out->held_hi, out->held_n);
    out->held_n = 0;
    etdump_cursor c;
    if (etdump_run_begin(d, run, &c, err) < 0)
        return -1;
    out->held_dump = c.dump; /* the capture the bytes belong to */
    c.defer_release = true;
    etdump_debug_value dv;
    int rc;
    etdump_event none; /* an empty run leaves out->ev NULL: never written */
    while ((rc = etdump_run_next(&c, out->ev ? &out->ev[out->n] : &none, &dv, err)) > 0) {
        etdump_event *ev = &out->ev[out->n++];
        if (ev->kind != ETDUMP_EVENT_DEBUG)
            continue;
        if (out->n_debug == out->cap_debug) {
            uint32_t nc = out->cap_debug ? out->cap_debug * 2 : 8;
            etdump_debug_value *nd = realloc(out->debug_values, (size_t)nc * sizeof *nd);
            if (!nd)
                mlia_oom((size_t)nc * sizeof *nd);
            out->debug_values = nd;
            out->cap_debug = nc;
        }
        ev->debug_index = out->n_debug;
        out->debug_values[out->n_debug++] = dv;
    }
    out->held_lo = c.lo;
    out->held_hi = c.hi;
    out->held_n = c.since_release;
    return rc < 0 ? -1 : 0;
}

void etdump_events_done(const etdump *d, etdump_events *e)
{
    (void)d; /* the bytes are released to the dump they were decoded from */
    if (e->held_n && e->held_dump && e->held_dump->release)
        e->held_dump->release(e->held_dump->release_ctx, e->held_lo, e->held_hi, e->held_n);
    etdump_events_free(e);
}

void etdump_events_free(etdump_events *e)
{
    free(e->ev);
    free(e->debug_values);
    memset(e, 0, sizeof *e);
}

int etdump_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, etdump **out,
                mlia_error *err)
{
    return etdump_read_releasing(data, size, file, NULL, NULL, arena, out, err);
}

int etdump_read_releasing(const uint8_t *data, size_t size, const char *file,
                          void (*release)(void *ctx, uint64_t lo, uint64_t hi, uint32_t n_events),
                          void *release_ctx, mlia_arena *arena, etdump **out, mlia_error *err)
{
    return etdump_read_visiting(data, size, file, release, release_ctx, NULL, arena, out, err);
}

int etdump_read_visiting(const uint8_t *data, size_t size, const char *file,
                         void (*release)(void *ctx, uint64_t lo, uint64_t hi, uint32_t n_events),
                         void *release_ctx, const etdump_visitor *visit, mlia_arena *arena, etdump **out,
                         mlia_error *err)
{
    *out = NULL;
    if (size == 0)
        return mlia_error_setf(err, file, "empty ETDump (no event blocks)");
    int prefixed = detect_prefix(data, size);
    if (prefixed < 0)
        return mlia_error_setf(err, file, "not an ETDump: no \"ED00\" identifier at byte 8 (size-prefixed) or 4");
    fb_buf b;
    fb_table root;
    if (fb_open(&b, data, size, file, 0, ED00, prefixed, 0, &root, err) < 0)
        return -1;
    etdump *d = mlia_arena_alloc(arena, sizeof *d);
    *d = (etdump){.size_prefixed = prefixed, .size = size, .data = data, .file = file, .release = release,
                  .release_ctx = release_ctx};
    uint32_t since_release = 0;
    uint64_t rel_lo = 0, rel_hi = 0;
    uint64_t text_bytes = 0, text_limit = ETDUMP_TEXT_BASE + (uint64_t)ETDUMP_TEXT_RATIO * size;
    fb_vec runs;
    if (fb_get_u32(&root, ETDUMP_SLOT_ET_DUMP_VERSION, "version", 0, &d->version, err) < 0 ||
        dispatch_version(&root, d->version, err) < 0 ||
        fb_get_vector(&root, ETDUMP_SLOT_ET_DUMP_RUN_DATA, "run_data", 4, &runs, err) < 0)
        return -1;
    if (!fb_budget_allows(&b, runs.n))
        return fb_vec_fail(&runs, -1, err, "too many runs (%" PRIu32 ")", runs.n);
    d->n_runs = runs.n;
    d->runs = mlia_arena_array(arena, runs.n ? runs.n : 1, sizeof *d->runs);
    if (visit && visit->begin)
        visit->begin(visit->ctx, runs.n);
    /* One validation pass over every event, sharing one buffer (and so one
     * table budget) across runs; nothing is kept per event. */
    for (uint32_t i = 0; i < runs.n; i++) {
        fb_table rt;
        fb_vec events;
        etdump_run *run = &d->runs[i];
        if (fb_vec_table(&runs, i, &rt, err) < 0 || read_run_header(&rt, i, run, &events, arena, err) < 0)
            return -1;
        d->n_events += run->n_events;
        if (run->n_events > d->max_run_events)
            d->max_run_events = run->n_events;
        if (visit)
            visit->run(visit->ctx, run);
        for (uint32_t k = 0; k < events.n; k++) {
            fb_table e;
            etdump_event ev;
            etdump_debug_value dv;
            uint64_t end;
            if (fb_vec_table(&events, k, &e, err) < 0)
                return -1;
            if (e.pos + 1024 < b.end) /* as in read_profile_fast: 50 -> 40 ms per 1,000,000 events */
                __builtin_prefetch(b.base + e.pos + 1024);
            if (read_event(&e, run->n_allocators, &ev, &dv, &end, err) < 0)
                return -1;
            run->n_metadata_events += ev.kind == ETDUMP_EVENT_PROFILE && ev.has_metadata && ev.metadata_size;
            run->n_debug_tensors += ev.kind == ETDUMP_EVENT_DEBUG && dv.present &&
                                    (dv.value_type == ETDUMP_VALUE_TENSOR || dv.value_type == ETDUMP_VALUE_TENSOR_LIST);
            /* Strings as the outputs will use them: an event's name and
             * delegate id are written once per event, and FlatBuffer offsets
             * let any number of events share one string, so they are
             * counted each time (docs/hardening.md "Bounded outputs"). */
            text_bytes += (uint64_t)ev.name.len + ev.delegate_debug_id_str.len;
            if (text_bytes > text_limit)
                return mlia_error_setf(err, file,
                                       "run %" PRIu32 ", event %" PRIu32 ": event names and delegate ids add up to "
                                       "more than %" PRIu64 " bytes (%u MiB + %u x the file size): events share "
                                       "strings through aliased offsets",
                                       i, k, text_limit, (unsigned)(ETDUMP_TEXT_BASE >> 20), ETDUMP_TEXT_RATIO);
            if (visit)
                visit->event(visit->ctx, run, &ev);
            if (release) {
                uint64_t slot = events.pos + 4 * (uint64_t)k;
                note_consumed(&rel_lo, &rel_hi, &since_release, slot < e.pos ? slot : e.pos,
                              slot + 4 > end ? slot + 4 : end);
                if (since_release >= ETDUMP_RELEASE_EVENTS) {
                    release(release_ctx, rel_lo, rel_hi, since_release);
                    since_release = 0;
                }
            }
        }
        if (visit && visit->run_end)
            visit->run_end(visit->ctx, run);
        if (release && since_release) { /* the end of each run */
            release(release_ctx, rel_lo, rel_hi, since_release);
            since_release = 0;
        }
    }
    d->validated = true;
    d->visit_key = visit ? visit->key : NULL;
    *out = d;
    return 0;
}
