/*
 * fb.c - hardened FlatBuffers access (see fb.h for the design).
 *
 * Everything here is either a bounds-checked walk step (open a table, locate
 * a string or vector) or error-path formatting. The order of the checks in
 * fb_table_at follows docs/formats/flatbuffers.md §5 items 4, 5 and 9 so the
 * first violated rule is the one reported.
 */
#include "fb.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>

/* Deepest path we render; deeper chains are cut with "..." (the depth limit
 * keeps real chains far below this). */
#define FB_PATH_MAX_SEGMENTS 80

static void fb_append(char *buf, size_t cap, size_t *len, const char *s)
{
    size_t n = strlen(s);
    if (*len + 1 >= cap)
        return;
    if (n > cap - 1 - *len)
        n = cap - 1 - *len;
    memcpy(buf + *len, s, n);
    *len += n;
    buf[*len] = 0;
}

static void fb_append_segment(char *buf, size_t cap, size_t *len, const char *name, int64_t index)
{
    if (*len > 0)
        fb_append(buf, cap, len, ".");
    fb_append(buf, cap, len, name);
    if (index >= 0) {
        char num[32];
        snprintf(num, sizeof num, "[%" PRId64 "]", index);
        fb_append(buf, cap, len, num);
    }
}

size_t fb_path_format(const fb_table *t, const char *leaf, int64_t leaf_index, char *buf, size_t cap)
{
    const fb_table *chain[FB_PATH_MAX_SEGMENTS];
    size_t n = 0;
    bool cut = false;
    for (const fb_table *p = t; p && p->name; p = p->parent) {
        if (n == FB_PATH_MAX_SEGMENTS) {
            cut = true;
            break;
        }
        chain[n++] = p;
    }
    size_t len = 0;
    if (cap == 0)
        return 0;
    buf[0] = 0;
    if (cut)
        fb_append(buf, cap, &len, "...");
    for (size_t k = n; k-- > 0;)
        fb_append_segment(buf, cap, &len, chain[k]->name, chain[k]->index);
    if (leaf)
        fb_append_segment(buf, cap, &len, leaf, leaf_index);
    if (len == 0)
        fb_append(buf, cap, &len, "root");
    return len;
}

static int fb_vfail(const fb_buf *b, const fb_table *t, const char *leaf, int64_t leaf_index,
                    uint64_t pos, mlia_error *err, const char *fmt, va_list ap)
{
    char what[512];
    vsnprintf(what, sizeof what, fmt, ap);
    uint64_t at = b->file_offset_of_base + pos;
    if (!t && !leaf)
        return mlia_error_setf(err, b->file, "%s at byte %" PRIu64, what, at);
    char path[768];
    fb_path_format(t, leaf, leaf_index, path, sizeof path);
    return mlia_error_setf(err, b->file, "%s at byte %" PRIu64 " (%s)", what, at, path);
}

int fb_fail(const fb_table *t, const char *leaf, int64_t leaf_index, uint64_t pos, mlia_error *err,
            const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fb_vfail(t->b, t, leaf, leaf_index, pos, err, fmt, ap);
    va_end(ap);
    return -1;
}

int fb_vec_fail(const fb_vec *v, int64_t index, mlia_error *err, const char *fmt, ...)
{
    uint64_t pos = v->pos >= 4 ? v->pos - 4 : v->pos; /* the length word */
    if (index >= 0 && (uint64_t)index < v->n)
        pos = v->pos + (uint64_t)(v->elem_size ? v->elem_size : 4) * (uint64_t)index;
    va_list ap;
    va_start(ap, fmt);
    fb_vfail(v->owner->b, v->owner, v->name, index, pos, err, fmt, ap);
    va_end(ap);
    return -1;
}

/* Error for fb_open (no table yet). */
static int fb_open_fail(const fb_buf *b, uint64_t pos, mlia_error *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fb_open_fail(const fb_buf *b, uint64_t pos, mlia_error *err, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fb_vfail(b, NULL, NULL, -1, pos, err, fmt, ap);
    va_end(ap);
    return -1;
}

int fb_field_error(const fb_table *t, unsigned slot, const char *name, uint32_t fo, unsigned width,
                   mlia_error *err)
{
    if (fo < 4)
        return fb_fail(t, name, -1, t->vt + 4 + 2 * (uint64_t)slot, err,
                       "field offset %" PRIu32 " inside the table header", fo);
    if (t->pos + fo + width > t->b->end)
        return fb_fail(t, name, -1, t->vt + 4 + 2 * (uint64_t)slot, err,
                       "field offset %" PRIu32 " (width %u) extends past the end of the buffer", fo, width);
    return fb_fail(t, name, -1, t->pos + fo, err, "field not %u-byte aligned", width);
}

/* Check that a table starts at `pos` and fill *out (name/index/parent set by
 * the caller). Shared by fb_open and fb_table_at. */
static int fb_check_table(fb_table *out, mlia_error *err)
{
    fb_buf *b = out->b;
    uint64_t t = out->pos;
    if (t < b->begin || t > b->end || b->end - t < 4)
        return fb_fail(out, NULL, -1, t, err, "table header outside the buffer");
    if ((b->flags & FB_CHECK_ALIGN) && (t % 4) != 0)
        return fb_fail(out, NULL, -1, t, err, "table not 4-byte aligned");
    if (out->depth > b->max_depth)
        return fb_fail(out, NULL, -1, t, err, "tables nested deeper than %" PRIu32, b->max_depth);
    if (b->tables_left == 0)
        return fb_fail(out, NULL, -1, t, err, "table budget exhausted (too many tables)");
    b->tables_left--;
    int32_t soff = (int32_t)fb_le32(b->base + t);
    /* v = t - soff in signed 64-bit arithmetic */
    int64_t v = (int64_t)t - (int64_t)soff;
    if (v < (int64_t)b->begin || (uint64_t)v > b->end || b->end - (uint64_t)v < 4)
        return fb_fail(out, NULL, -1, t, err, "vtable at %" PRId64 " outside the buffer",
                       (int64_t)b->file_offset_of_base + v);
    if (((uint64_t)v % 2) != 0)
        return fb_fail(out, NULL, -1, t, err, "vtable at %" PRId64 " not 2-byte aligned",
                       (int64_t)b->file_offset_of_base + v);
    uint16_t vts = fb_le16(b->base + v), tbs = fb_le16(b->base + v + 2);
    out->vt = (uint64_t)v;
    if (vts < 4 && (b->flags & FB_LENIENT_VTABLE)) {
        if (b->warnings++ == 0)
            b->first_warning_pos = t;
        out->vt_size = 0;
        out->tbl_size = 0;
        return 0;
    }
    if (vts < 4 || (vts % 2) != 0)
        return fb_fail(out, NULL, -1, (uint64_t)v, err, "invalid vtable size %u", (unsigned)vts);
    if ((uint64_t)v + vts > b->end)
        return fb_fail(out, NULL, -1, (uint64_t)v, err, "vtable of %u bytes extends past the end of the buffer",
                       (unsigned)vts);
    if (tbs < 4)
        return fb_fail(out, NULL, -1, (uint64_t)v + 2, err, "invalid table size %u", (unsigned)tbs);
    if (t + tbs > b->end)
        return fb_fail(out, NULL, -1, t, err, "table of %u bytes extends past the end of the buffer",
                       (unsigned)tbs);
    out->vt_size = vts;
    out->tbl_size = tbs;
    return 0;
}

int fb_open(fb_buf *b, const uint8_t *base, uint64_t size, const char *file,
            uint64_t file_offset_of_base, const char *ident, bool size_prefixed, uint32_t flags,
            fb_table *root, mlia_error *err)
{
    memset(b, 0, sizeof *b);
    b->base = base;
    b->file = file;
    b->file_offset_of_base = file_offset_of_base;
    b->flags = flags;
    b->max_depth = FB_DEFAULT_MAX_DEPTH;
    b->begin = 0;
    b->end = size;
    memset(root, 0, sizeof *root);
    root->b = b;
    root->index = -1;
    if (size_prefixed) {
        if (size < 4)
            return fb_open_fail(b, 0, err, "truncated size prefix (%" PRIu64 " bytes)", size);
        uint32_t prefix = fb_le32(base);
        if ((uint64_t)prefix > size - 4)
            return fb_open_fail(b, 0, err, "size prefix %" PRIu32 " exceeds the %" PRIu64 " bytes that follow",
                                prefix, size - 4);
        b->begin = 4;
        b->end = 4 + (uint64_t)prefix;
    }
    if (b->end - b->begin > FB_MAX_OFFSET)
        return fb_open_fail(b, b->begin, err, "FlatBuffer larger than 2 GiB - 1 (%" PRIu64 " bytes)",
                            b->end - b->begin);
    b->tables_left = FB_DEFAULT_TABLE_BUDGET + (b->end - b->begin) / 4;
    uint64_t head = ident ? 8 : 4;
    if (b->end - b->begin < head + 4)
        return fb_open_fail(b, b->begin, err, "FlatBuffer too small (%" PRIu64 " bytes)", b->end - b->begin);
    if (ident) {
        const uint8_t *id = base + b->begin + 4;
        if (memcmp(id, ident, 4) != 0) {
            char shown[20];
            size_t k = 0;
            for (int i = 0; i < 4; i++) {
                if (id[i] >= 0x20 && id[i] < 0x7f && id[i] != '"' && id[i] != '\\')
                    shown[k++] = (char)id[i];
                else
                    k += (size_t)snprintf(shown + k, sizeof shown - k, "\\x%02x", id[i]);
            }
            shown[k] = 0;
            return fb_open_fail(b, b->begin + 4, err, "file identifier \"%s\", expected \"%s\"", shown, ident);
        }
    }
    uint32_t ro = fb_le32(base + b->begin);
    uint64_t rpos = b->begin + (uint64_t)ro;
    if (ro < head || rpos > b->end || b->end - rpos < 4)
        return fb_open_fail(b, b->begin, err, "root offset %" PRIu32 " out of range", ro);
    root->pos = rpos;
    return fb_check_table(root, err);
}

/* Follow the uoffset at refpos: target position or UINT64_MAX after an error. */
static uint64_t fb_follow(const fb_table *t, uint64_t refpos, const char *name, int64_t index,
                          const char *kind, mlia_error *err)
{
    const fb_buf *b = t->b;
    if (refpos < b->begin || refpos > b->end || b->end - refpos < 4) {
        fb_fail(t, name, index, refpos, err, "%s reference outside the buffer", kind);
        return UINT64_MAX;
    }
    uint32_t off = fb_le32(b->base + refpos);
    uint64_t target = refpos + off;
    if (off == 0 || off > FB_MAX_OFFSET || target > b->end || b->end - target < 4) {
        fb_fail(t, name, index, refpos, err, "%s offset %" PRIu32 " points outside the buffer", kind, off);
        return UINT64_MAX;
    }
    return target;
}

int fb_table_at(const fb_table *parent, uint64_t refpos, const char *name, int64_t index,
                fb_table *out, mlia_error *err)
{
    uint64_t target = fb_follow(parent, refpos, name, index, "table", err);
    if (target == UINT64_MAX)
        return -1;
    out->b = parent->b;
    out->pos = target;
    out->depth = (uint16_t)(parent->depth + 1);
    out->parent = parent;
    out->name = name;
    out->index = index;
    return fb_check_table(out, err);
}

/* The position of an offset field (a table, string or vector reference):
 * 1 with *pos when present, 0 when absent, -1 on error (err filled). */
static int ref_field(const fb_table *t, unsigned slot, const char *name, uint64_t *pos, mlia_error *err)
{
    *pos = fb_field_pos(t, slot, name, 4, err);
    return *pos == UINT64_MAX ? -1 : *pos != 0;
}

void *fb_read_records(const fb_table *t, unsigned slot, const char *name, mlia_arena *arena, size_t size,
                      fb_record_fn fn, void *ctx, uint32_t *n, bool *present, mlia_error *err)
{
    fb_vec v;
    if (fb_get_vector(t, slot, name, 4, &v, err) < 0)
        return NULL;
    if (present)
        *present = v.present;
    *n = v.n;
    uint8_t *out = mlia_arena_array(arena, v.n ? v.n : 1, size);
    for (uint32_t i = 0; i < v.n; i++) {
        fb_table it;
        if (fb_vec_table(&v, i, &it, err) < 0 || fn(ctx, &it, i, out + (size_t)i * size, err) < 0)
            return NULL;
    }
    return out;
}

int fb_get_table(const fb_table *t, unsigned slot, const char *name, fb_table *out, mlia_error *err)
{
    uint64_t p;
    int rc = ref_field(t, slot, name, &p, err);
    if (rc <= 0)
        return rc;
    return fb_table_at(t, p, name, -1, out, err) < 0 ? -1 : 1;
}

/* Validate the string whose uoffset is at refpos. */
static int fb_string_at(const fb_table *t, uint64_t refpos, const char *name, int64_t index, mlia_str *out,
                        mlia_error *err)
{
    const fb_buf *b = t->b;
    uint64_t s = fb_follow(t, refpos, name, index, "string", err);
    if (s == UINT64_MAX)
        return -1;
    if ((b->flags & FB_CHECK_ALIGN) && (s % 4) != 0)
        return fb_fail(t, name, index, s, err, "string length not 4-byte aligned");
    uint32_t n = fb_le32(b->base + s);
    if ((uint64_t)n + 1 > b->end - s - 4)
        return fb_fail(t, name, index, s, err, "string of %" PRIu32 " bytes extends past the end of the buffer",
                       n);
    if (b->base[s + 4 + n] != 0)
        return fb_fail(t, name, index, s + 4 + n, err, "string not NUL-terminated");
    /* A string's bytes are a name or a label that the analysis compares and
     * every output writes as a C string: a NUL inside would cut it there and
     * could make two names one (docs/hardening.md, "Names with NUL"). */
    const uint8_t *nul = memchr(b->base + s + 4, 0, n);
    if (nul)
        return fb_fail(t, name, index, (uint64_t)(nul - b->base), err,
                       "string of %" PRIu32 " bytes holds a NUL byte at byte %zu of it", n,
                       (size_t)(nul - (b->base + s + 4)));
    out->ptr = (const char *)(b->base + s + 4);
    out->len = n;
    return 0;
}

int fb_get_string(const fb_table *t, unsigned slot, const char *name, mlia_str *out, mlia_error *err)
{
    out->ptr = NULL;
    out->len = 0;
    uint64_t p;
    int rc = ref_field(t, slot, name, &p, err);
    if (rc <= 0)
        return rc;
    return fb_string_at(t, p, name, -1, out, err) < 0 ? -1 : 1;
}

int fb_vec_string(const fb_vec *v, uint32_t i, mlia_str *out, mlia_error *err)
{
    out->ptr = NULL;
    out->len = 0;
    return fb_string_at(v->owner, v->pos + 4 * (uint64_t)i, v->name, (int64_t)i, out, err);
}

int fb_get_vector(const fb_table *t, unsigned slot, const char *name, unsigned elem_size, fb_vec *out,
                  mlia_error *err)
{
    const fb_buf *b = t->b;
    out->owner = t;
    out->name = name;
    out->pos = 0;
    out->n = 0;
    out->elem_size = elem_size;
    out->present = false;
    uint64_t p;
    int rc = ref_field(t, slot, name, &p, err);
    if (rc <= 0)
        return rc;
    uint64_t vec = fb_follow(t, p, name, -1, "vector", err);
    if (vec == UINT64_MAX)
        return -1;
    uint32_t n = fb_le32(b->base + vec);
    if ((b->flags & FB_CHECK_ALIGN) && (vec % 4) != 0)
        return fb_fail(t, name, -1, vec, err, "vector length not 4-byte aligned");
    if ((b->flags & FB_CHECK_ALIGN) && elem_size == 8 && n > 0 && ((vec + 4) % 8) != 0)
        return fb_fail(t, name, -1, vec, err, "vector of 8-byte elements not 8-byte aligned");
    /* n <= 2^32-1 and elem_size <= 8: the product fits 64 bits */
    if ((uint64_t)n * elem_size > b->end - vec - 4)
        return fb_fail(t, name, -1, vec, err, "vector of %" PRIu32 " elements extends past the end of the buffer",
                       n);
    out->pos = vec + 4;
    out->n = n;
    out->present = true;
    return 1;
}

int fb_get_union(const fb_table *t, unsigned type_slot, const char *name, uint8_t max_known,
                 uint8_t *type_out, fb_table *out, mlia_error *err)
{
    uint8_t type = 0;
    uint64_t tp = fb_field_pos(t, type_slot, name, 1, err);
    if (tp == UINT64_MAX)
        return -1;
    if (tp)
        type = t->b->base[tp];
    *type_out = type;
    if (type == 0 || type > max_known)
        return 0;
    uint64_t p = fb_field_pos(t, type_slot + 1, name, 4, err);
    if (p == UINT64_MAX)
        return -1;
    if (p == 0)
        return fb_fail(t, name, -1, t->pos, err, "union of type %u has no value", (unsigned)type);
    return fb_table_at(t, p, name, -1, out, err) < 0 ? -1 : 1;
}
