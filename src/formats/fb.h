/*
 * fb.h - hardened, allocation-free FlatBuffers access (ETDump, PTE,
 * BundledProgram, VGF sections).
 *
 * Design. A FlatBuffer is read in place: an fb_buf describes the byte range
 * [begin, end) of `base` that may be touched, and every accessor checks the
 * exact bytes it reads against that range before reading them (64-bit
 * arithmetic, no alignment assumptions, little-endian byte loads). Readers
 * walk tables with fb_table values; nothing is allocated and nothing is
 * formatted on the success path. The one exception is fb_read_records, the
 * readers' shared loop over a vector of tables, which allocates the records
 * from the caller's arena.
 *
 * Field paths. Error messages name the field path of the failing item, e.g.
 * "run_data[1].events[3].profile_event.name". Building such strings for every
 * field would dominate the cost of reading a million events, so each fb_table
 * only records its parent table, the field name and the vector index that
 * led to it (three words copied when the table is opened). The path string
 * is assembled by walking that chain only when an error is reported. Hence a
 * child fb_table must not outlive (or be copied away from) the fb_table it
 * was opened from: keep parents in the enclosing stack frame.
 *
 * Limits. Tables nest at most fb_buf.max_depth deep (default 64, the
 * reference verifier's value) and at most fb_buf.tables_left tables may be
 * opened in total (work budget, because many vector elements may legally
 * share one sub-table). The default budget is 1,000,000 plus one table per 4
 * buffer bytes, so large genuine files (a 64 MB ETDump holds ~2 million
 * tables) are accepted while the total work stays linear in the input size.
 *
 * Options (fb_buf.flags) serve the VGF sections (docs/formats/vgf.md §3):
 *   FB_CHECK_ALIGN       tables 4-aligned, scalars aligned to their width,
 *                        vector/string length words 4-aligned and non-empty
 *                        8-byte-element vectors 8-aligned, all relative to
 *                        `base` (the section start);
 *   FB_LENIENT_VTABLE    a vtable whose size is < 4 makes every field absent
 *                        (counted in fb_buf.warnings) instead of an error.
 * Without flags the checks are those of docs/formats/flatbuffers.md §5.
 *
 * Return conventions: accessors return 0 (scalars) or 1 = present / 0 =
 * absent (references) and -1 on error after filling `err` with
 *   "<file>: <what> at byte <N> (<field path>)"
 * where N is a file offset (fb_buf.file_offset_of_base + position).
 *
 * Ownership: fb_buf and fb_table borrow the bytes; mlia_str values returned
 * point into them and live as long as the caller's buffer.
 */
#ifndef MLIA_FORMATS_FB_H
#define MLIA_FORMATS_FB_H

#include "core/assert.h"
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"

#define FB_CHECK_ALIGN 1u
#define FB_LENIENT_VTABLE 2u

#define FB_DEFAULT_MAX_DEPTH 64
#define FB_DEFAULT_TABLE_BUDGET 1000000u
/* FlatBuffers are at most 2 GiB - 1; offsets must stay below 2^31. */
#define FB_MAX_OFFSET 0x7fffffffu

typedef struct fb_buf {
    const uint8_t *base;          /* position 0 */
    uint64_t begin, end;          /* readable range [begin, end) of base */
    const char *file;             /* file name for messages (may be NULL) */
    uint64_t file_offset_of_base; /* added to positions in messages */
    uint32_t flags;               /* FB_CHECK_ALIGN | FB_LENIENT_VTABLE */
    uint32_t max_depth;           /* deepest allowed table nesting (root = 0) */
    uint64_t tables_left;         /* remaining table-open budget */
    uint64_t warnings;            /* lenient fixes applied (FB_LENIENT_VTABLE) */
    uint64_t first_warning_pos;   /* position of the first such table */
} fb_buf;

typedef struct fb_table {
    fb_buf *b;
    uint64_t pos;                 /* table start (its soffset word) */
    uint64_t vt;                  /* vtable position */
    uint16_t vt_size, tbl_size;   /* 0/0 for a lenient all-absent table */
    uint16_t depth;               /* root = 0 */
    /* error-path breadcrumbs (see the file comment) */
    const struct fb_table *parent;
    const char *name;             /* field that led here; NULL for the root */
    int64_t index;                /* vector index, or -1 */
} fb_table;

/* A vector located through a table field (elements are bounds-checked). */
typedef struct fb_vec {
    const fb_table *owner;        /* table holding the field (for paths) */
    const char *name;             /* field name (for paths) */
    uint64_t pos;                 /* position of element 0 */
    uint32_t n;                   /* element count */
    uint32_t elem_size;           /* bytes per element (4 for tables and strings) */
    bool present;                 /* false when the field is absent (n = 0) */
} fb_vec;

/* ---- little-endian loads (no alignment assumption) ---- */

static inline uint16_t fb_le16(const uint8_t *p) { return (uint16_t)(p[0] | (p[1] << 8)); }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
/* a little-endian host loads the bytes as they are */
static inline uint32_t fb_le32(const uint8_t *p) { uint32_t v; memcpy(&v, p, 4); return v; }
static inline uint64_t fb_le64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }
#else
static inline uint32_t fb_le32(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}
static inline uint64_t fb_le64(const uint8_t *p) { return (uint64_t)fb_le32(p) | ((uint64_t)fb_le32(p + 4) << 32); }
#endif

/* ---- opening ---- */

/* Open the root table of the FlatBuffer held in base[0, size).
 * ident: 4-character file identifier to require, or NULL when the buffer has
 *        none (VGF sections);
 * size_prefixed: a u32 size at 0 counts the bytes that follow; the buffer is
 *        then [4, 4 + prefix) and must fit in size.
 * file_offset_of_base: file offset of base[0], used in messages only.
 * flags: FB_CHECK_ALIGN / FB_LENIENT_VTABLE.
 * The depth limit and table budget get their defaults; callers may change
 * b->max_depth / b->tables_left before opening further tables. */
int fb_open(fb_buf *b, const uint8_t *base, uint64_t size, const char *file,
            uint64_t file_offset_of_base, const char *ident, bool size_prefixed, uint32_t flags,
            fb_table *root, mlia_error *err);

/* Open the table referenced by the uoffset stored at position refpos
 * (refpos + 4 must already be known to lie inside the buffer). parent, name
 * and index only feed error paths. Checks docs/formats/flatbuffers.md §5
 * items 4-5 and 9. */
int fb_table_at(const fb_table *parent, uint64_t refpos, const char *name, int64_t index,
                fb_table *out, mlia_error *err);

/* ---- errors ---- */

/* Record "<file>: <what> at byte <N> (<path>)" where <path> is t's path
 * followed by leaf (if non-NULL) and [leaf_index] (if >= 0); pos is a
 * base-relative position. Returns -1. Usable by readers for semantic
 * errors (bad index, missing member...). */
int fb_fail(const fb_table *t, const char *leaf, int64_t leaf_index, uint64_t pos, mlia_error *err,
            const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* Same for an element of a vector: path = owner path + name[index]; index
 * -1 names the vector itself (reported at its length word). */
int fb_vec_fail(const fb_vec *v, int64_t index, mlia_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Write t's field path (+ leaf / leaf_index) into buf (always NUL-terminated;
 * "root" for the root table without leaf). Returns the length. */
size_t fb_path_format(const fb_table *t, const char *leaf, int64_t leaf_index, char *buf, size_t cap);

/* Out-of-line error helper for the inline accessors below. */
int fb_field_error(const fb_table *t, unsigned slot, const char *name, uint32_t fo, unsigned width,
                   mlia_error *err);

/* ---- fields ---- */

/* Byte offset of slot inside the table, 0 when absent (beyond the vtable or
 * stored as 0). */
static inline uint32_t fb_field_off(const fb_table *t, unsigned slot)
{
    uint64_t at = 4 + 2 * (uint64_t)slot;
    if (at + 2 > t->vt_size)
        return 0;
    return fb_le16(t->b->base + t->vt + at);
}

static inline bool fb_has(const fb_table *t, unsigned slot) { return fb_field_off(t, slot) != 0; }

/* File offset of a base-relative position. */
static inline uint64_t fb_file_offset(const fb_buf *b, uint64_t pos) { return b->file_offset_of_base + pos; }

/* Position of a present field of `width` bytes after checking it lies in the
 * buffer (and is aligned with FB_CHECK_ALIGN); 0 when absent; UINT64_MAX on
 * error (err filled). The bound is the buffer end, not the vtable's
 * table_size: real writers deduplicate vtables that differ only in
 * table_size (kws-cortex-m.pte shares one 8-byte-table vtable with a
 * 12-byte DataSegment), and the reference verifier accepts that too. */
static inline uint64_t fb_field_pos(const fb_table *t, unsigned slot, const char *name, unsigned width,
                                    mlia_error *err)
{
    uint32_t fo = fb_field_off(t, slot);
    if (!fo)
        return 0;
    if (fo < 4 || t->pos + fo + width > t->b->end ||
        ((t->b->flags & FB_CHECK_ALIGN) && ((t->pos + fo) % width) != 0)) {
        fb_field_error(t, slot, name, fo, width, err);
        return UINT64_MAX;
    }
    return t->pos + fo;
}

#define FB_SCALAR_GETTER(fn, type, width, load)                                                   \
    static inline int fn(const fb_table *t, unsigned slot, const char *name, type def, type *out, \
                         mlia_error *err)                                                          \
    {                                                                                              \
        uint64_t p = fb_field_pos(t, slot, name, width, err);                                      \
        if (p == 0) {                                                                              \
            *out = def;                                                                            \
            return 0;                                                                              \
        }                                                                                          \
        if (p == UINT64_MAX)                                                                       \
            return -1;                                                                             \
        const uint8_t *q = t->b->base + p;                                                         \
        load;                                                                                      \
        return 0;                                                                                  \
    }

FB_SCALAR_GETTER(fb_get_u8, uint8_t, 1, *out = q[0])
FB_SCALAR_GETTER(fb_get_i8, int8_t, 1, *out = (int8_t)q[0])
FB_SCALAR_GETTER(fb_get_bool, bool, 1, *out = q[0] != 0)
FB_SCALAR_GETTER(fb_get_u16, uint16_t, 2, *out = fb_le16(q))
FB_SCALAR_GETTER(fb_get_i16, int16_t, 2, *out = (int16_t)fb_le16(q))
FB_SCALAR_GETTER(fb_get_u32, uint32_t, 4, *out = fb_le32(q))
FB_SCALAR_GETTER(fb_get_i32, int32_t, 4, *out = (int32_t)fb_le32(q))
FB_SCALAR_GETTER(fb_get_u64, uint64_t, 8, *out = fb_le64(q))
FB_SCALAR_GETTER(fb_get_i64, int64_t, 8, *out = (int64_t)fb_le64(q))
FB_SCALAR_GETTER(fb_get_f32, float, 4, { uint32_t u_ = fb_le32(q); memcpy(out, &u_, 4); })
FB_SCALAR_GETTER(fb_get_f64, double, 8, { uint64_t u_ = fb_le64(q); memcpy(out, &u_, 8); })

/* Sub-table field: 1 present (out filled), 0 absent, -1 error. */
int fb_get_table(const fb_table *t, unsigned slot, const char *name, fb_table *out, mlia_error *err);
/* String field: 1 present, 0 absent (out->ptr NULL), -1 error. The string
 * must be NUL-terminated inside the buffer and hold no other NUL (an error:
 * names are C strings downstream); out->len excludes the NUL. */
int fb_get_string(const fb_table *t, unsigned slot, const char *name, mlia_str *out, mlia_error *err);
/* Vector field of elem_size-byte elements (4 for tables/strings): 1 present,
 * 0 absent (out->present false, n 0), -1 error. */
int fb_get_vector(const fb_table *t, unsigned slot, const char *name, unsigned elem_size, fb_vec *out,
                  mlia_error *err);
/* Union: type at type_slot (u8), value at type_slot + 1. Returns 1 with *out
 * opened when 1 <= type <= max_known and the value is present; 0 when the
 * type is NONE or unknown (> max_known; not dereferenced, *type_out holds the
 * raw value); -1 on error (including a known type whose value is absent).
 * The child's path segment is `name`. */
int fb_get_union(const fb_table *t, unsigned type_slot, const char *name, uint8_t max_known,
                 uint8_t *type_out, fb_table *out, mlia_error *err);

/* ---- vector elements (index must be < v->n; bounds were checked) ---- */

static inline const uint8_t *fb_vec_data(const fb_vec *v) { return v->owner->b->base + v->pos; }
/* Element i of `width` bytes: the index and the bytes were checked when the
 * vector was opened (fb_get_vector), so here they are an invariant. */
static inline const uint8_t *fb_vec_at(const fb_vec *v, uint32_t i, unsigned width)
{
    MLIA_ASSERT(i < v->n && v->pos + ((uint64_t)i + 1) * width <= v->owner->b->end);
    return fb_vec_data(v) + (uint64_t)i * width;
}
static inline uint8_t fb_vec_u8(const fb_vec *v, uint32_t i) { return *fb_vec_at(v, i, 1); }
static inline int32_t fb_vec_i32(const fb_vec *v, uint32_t i) { return (int32_t)fb_le32(fb_vec_at(v, i, 4)); }
static inline uint32_t fb_vec_u32(const fb_vec *v, uint32_t i) { return fb_le32(fb_vec_at(v, i, 4)); }
static inline int64_t fb_vec_i64(const fb_vec *v, uint32_t i) { return (int64_t)fb_le64(fb_vec_at(v, i, 8)); }
static inline uint64_t fb_vec_u64(const fb_vec *v, uint32_t i) { return fb_le64(fb_vec_at(v, i, 8)); }
static inline double fb_vec_f64(const fb_vec *v, uint32_t i)
{
    uint64_t u = fb_vec_u64(v, i);
    double d;
    memcpy(&d, &u, 8);
    return d;
}
/* Table element i: path segment name[i]. */
static inline int fb_vec_table(const fb_vec *v, uint32_t i, fb_table *out, mlia_error *err)
{
    MLIA_ASSERT(i < v->n);
    return fb_table_at(v->owner, v->pos + 4 * (uint64_t)i, v->name, (int64_t)i, out, err);
}
/* String element i (0 on success, -1 on error). */
int fb_vec_string(const fb_vec *v, uint32_t i, mlia_str *out, mlia_error *err);

/* True when `n` more tables may be opened (lets readers reject a huge count
 * before allocating one record per element). */
static inline bool fb_budget_allows(const fb_buf *b, uint64_t n) { return n <= b->tables_left; }

/* ---- vectors of tables into records (the readers' one allocating helper) ---- */

/* Reads table t, element i of a vector of tables, into the record `item`.
 * Returns 0, or -1 with err filled. */
typedef int (*fb_record_fn)(void *ctx, const fb_table *t, uint32_t i, void *item, mlia_error *err);

/* The vector of tables `name` in `slot` of t, one record of `size` bytes
 * per element in a new zero-filled array from `arena` (at least one record,
 * so never NULL), each read by fn. *n is set to the count before the first
 * record is read (fn may look at it); *present (when not NULL) = the field
 * is present. Returns the array, or NULL with err filled. */
void *fb_read_records(const fb_table *t, unsigned slot, const char *name, mlia_arena *arena, size_t size,
                      fb_record_fn fn, void *ctx, uint32_t *n, bool *present, mlia_error *err);

#endif
