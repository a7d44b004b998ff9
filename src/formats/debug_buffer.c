/*
 * debug_buffer.c - typed views of the ETDump debug buffer (see debug_buffer.h).
 *
 * Decoding is a loop per scalar type over little-endian elements; the
 * conversions are exact for every integer type up to 32 bits, for HALF,
 * BFLOAT16, FLOAT and DOUBLE, and round to nearest for 64-bit integers
 * beyond 2^53.
 */
#include "debug_buffer.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "formats/pte.h"

/* ExecuTorch ScalarType values (tools/schema/scalar_type.fbs). */
enum {
    ST_BYTE = 0, ST_CHAR = 1, ST_SHORT = 2, ST_INT = 3, ST_LONG = 4, ST_HALF = 5, ST_FLOAT = 6, ST_DOUBLE = 7,
    ST_BOOL = 11, ST_BFLOAT16 = 15, ST_BITS16 = 22, ST_UINT16 = 27, ST_UINT32 = 28, ST_UINT64 = 29
};

static inline uint64_t le64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | p[i];
    return v;
}

static inline uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* IEEE 754 binary16 to double (exact). */
static double half_to_double(uint16_t h)
{
    unsigned sign = h >> 15, exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    double v;
    if (exp == 0)
        v = ldexp((double)frac, -24); /* subnormal (or zero) */
    else if (exp == 31)
        v = frac ? NAN : INFINITY;
    else
        v = ldexp((double)(frac | 0x400), (int)exp - 25);
    return sign ? -v : v;
}

static double f32_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

bool debug_scalar_type_decodable(int st)
{
    switch (st) {
    case ST_BYTE: case ST_CHAR: case ST_SHORT: case ST_INT: case ST_LONG: case ST_HALF: case ST_FLOAT:
    case ST_DOUBLE: case ST_BOOL: case ST_BFLOAT16: case ST_BITS16: case ST_UINT16: case ST_UINT32:
    case ST_UINT64:
        return true;
    default:
        return false;
    }
}

void debug_decode(int st, const uint8_t *src, size_t n, double *dst)
{
    size_t i;
    switch (st) {
    case ST_BYTE:
        for (i = 0; i < n; i++)
            dst[i] = src[i];
        break;
    case ST_CHAR:
        for (i = 0; i < n; i++)
            dst[i] = (int8_t)src[i];
        break;
    case ST_BOOL:
        for (i = 0; i < n; i++)
            dst[i] = src[i] != 0;
        break;
    case ST_SHORT:
        for (i = 0; i < n; i++)
            dst[i] = (int16_t)le16(src + 2 * i);
        break;
    case ST_BITS16: case ST_UINT16:
        for (i = 0; i < n; i++)
            dst[i] = le16(src + 2 * i);
        break;
    case ST_HALF:
        for (i = 0; i < n; i++)
            dst[i] = half_to_double(le16(src + 2 * i));
        break;
    case ST_BFLOAT16:
        for (i = 0; i < n; i++)
            dst[i] = f32_bits((uint32_t)le16(src + 2 * i) << 16);
        break;
    case ST_INT:
        for (i = 0; i < n; i++)
            dst[i] = (int32_t)le32(src + 4 * i);
        break;
    case ST_UINT32:
        for (i = 0; i < n; i++)
            dst[i] = le32(src + 4 * i);
        break;
    case ST_FLOAT:
        for (i = 0; i < n; i++)
            dst[i] = f32_bits(le32(src + 4 * i));
        break;
    case ST_LONG:
        for (i = 0; i < n; i++)
            dst[i] = (double)(int64_t)le64(src + 8 * i);
        break;
    case ST_UINT64:
        for (i = 0; i < n; i++)
            dst[i] = (double)le64(src + 8 * i);
        break;
    case ST_DOUBLE:
        for (i = 0; i < n; i++) {
            uint64_t b = le64(src + 8 * i);
            memcpy(&dst[i], &b, sizeof b);
        }
        break;
    default:
        for (i = 0; i < n; i++)
            dst[i] = NAN;
        break;
    }
}

static int fail_at(const debug_buffer *b, int64_t off, const char *where, mlia_error *err, const char *what)
{
    if (where && *where)
        return mlia_error_setf(err, b->file, "%s at byte offset %" PRId64 " (%s)", what, off, where);
    return mlia_error_setf(err, b->file, "%s at byte offset %" PRId64, what, off);
}

int debug_buffer_check(const debug_buffer *b, const etdump_debug_value *v, const char *where, mlia_error *err)
{
    if (!v->present || (v->value_type != ETDUMP_VALUE_TENSOR && v->value_type != ETDUMP_VALUE_TENSOR_LIST))
        return 0;
    if (v->has_bad_offset)
        return fail_at(b, v->bad_offset, where, err, "negative tensor offset");
    if (v->data_end > b->size) {
        char what[160];
        snprintf(what, sizeof what,
                 "tensor data of %" PRIu64 " bytes runs past the end of the debug buffer (%" PRIu64 " bytes)",
                 v->data_end - (uint64_t)v->data_end_offset, b->size);
        return fail_at(b, v->data_end_offset, where, err, what);
    }
    return 0;
}

int64_t debug_tensor_dim(const debug_tensor *t, uint32_t i)
{
    return (int64_t)le64(t->sizes + 8 * (size_t)i);
}

int64_t debug_tensor_stride(const debug_tensor *t, uint32_t i)
{
    return (int64_t)le64(t->strides + 8 * (size_t)i);
}

bool debug_tensor_of(const etdump_debug_value *v, debug_tensor *t)
{
    memset(t, 0, sizeof *t);
    if (!v->present || (v->value_type != ETDUMP_VALUE_TENSOR && v->value_type != ETDUMP_VALUE_TENSOR_LIST) ||
        v->n_tensors == 0)
        return false;
    t->scalar_type = v->scalar_type;
    t->elem_size = et_scalar_type_size(v->scalar_type);
    t->decodable = debug_scalar_type_decodable(v->scalar_type) && t->elem_size;
    t->n_dims = v->n_dims;
    t->sizes = v->sizes;
    t->n_strides = v->n_strides;
    t->strides = v->strides;
    t->offset = v->data_offset;
    /* sizes are non-negative (checked by the ETDump reader), and so is the
     * byte size's overflow for types of known size; numel saturates for the
     * others (they are never read) */
    t->numel = 1;
    for (uint32_t i = 0; i < t->n_dims; i++) {
        uint64_t d = (uint64_t)debug_tensor_dim(t, i);
        t->numel = d && t->numel > UINT64_MAX / d ? UINT64_MAX : t->numel * d;
    }
    t->nbytes = t->elem_size && t->numel <= UINT64_MAX / t->elem_size ? t->numel * t->elem_size : UINT64_MAX;
    return true;
}

bool debug_tensor_same_layout(const debug_tensor *a, const debug_tensor *b)
{
    if (a->scalar_type != b->scalar_type || a->n_dims != b->n_dims || a->n_strides != b->n_strides)
        return false;
    if (a->n_dims && memcmp(a->sizes, b->sizes, 8 * (size_t)a->n_dims) != 0)
        return false;
    return !a->n_strides || memcmp(a->strides, b->strides, 8 * (size_t)a->n_strides) == 0;
}

char *debug_tensor_describe(const debug_tensor *t, char *out, size_t cap)
{
    const char *name = et_scalar_type_name(t->scalar_type);
    size_t n;
    if (name)
        n = (size_t)snprintf(out, cap, "%s[", name);
    else
        n = (size_t)snprintf(out, cap, "scalar type %u[", (unsigned)t->scalar_type);
    for (uint32_t i = 0; i < t->n_dims && n < cap; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s%" PRId64, i ? ", " : "", debug_tensor_dim(t, i));
    if (n < cap)
        snprintf(out + n, cap - n, "]");
    return out;
}

int debug_tensor_read(const debug_buffer *b, const debug_tensor *t, uint64_t first, size_t n, uint8_t *scratch,
                      double *dst, mlia_error *err)
{
    if (!n)
        return 0;
    uint64_t off = (uint64_t)t->offset + first * t->elem_size;
    size_t len = n * t->elem_size;
    if (t->offset < 0 || first > t->numel || n > t->numel - first || off > b->size || len > b->size - off)
        return mlia_error_setf(err, b->file, "read of %zu bytes beyond the tensor at byte offset %" PRId64, len,
                               t->offset);
    const uint8_t *src;
    if (b->data)
        src = b->data + off;
    else {
        if (b->read(b->read_ctx, off, scratch, len, err) < 0)
            return -1;
        src = scratch;
    }
    debug_decode(t->scalar_type, src, n, dst);
    return 0;
}
