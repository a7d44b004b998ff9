/*
 * fb_test_builder.h - tiny front-to-back FlatBuffer writer for the reader
 * tests (test_fb.c, test_etdump.c, test_pte.c).
 *
 * Why: bad-input tests need buffers that real writers never produce (an
 * Event with two members, an allocator id of 0, a union without value...).
 * This writer lays every object out after the object that references it, so
 * all uoffsets are forward, as the format requires. Layout is deliberately
 * simple: each table is preceded by its own vtable; every field occupies an
 * 8-byte cell at table offset 8 + 8 * slot, so scalars up to 8 bytes and
 * references all fit. Only the test programs use it.
 */
#ifndef MLIA_TESTS_FB_TEST_BUILDER_H
#define MLIA_TESTS_FB_TEST_BUILDER_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct tb {
    uint8_t *d;
    size_t n, cap;
} tb;

static inline void tb_init(tb *b)
{
    b->cap = 1 << 16;
    b->d = calloc(1, b->cap);
    b->n = 0;
}

static inline void tb_free(tb *b) { free(b->d); }

/* Make room for `extra` more bytes (zero-filled). */
static inline void tb_reserve(tb *b, size_t extra)
{
    if (b->n + extra + 16 <= b->cap)
        return;
    size_t ncap = b->cap * 2;
    while (ncap < b->n + extra + 16)
        ncap *= 2;
    b->d = realloc(b->d, ncap);
    memset(b->d + b->cap, 0, ncap - b->cap);
    b->cap = ncap;
}

static inline void tb_pad(tb *b, size_t align)
{
    tb_reserve(b, align);
    while (b->n % align)
        b->d[b->n++] = 0;
}

static inline size_t tb_bytes(tb *b, const void *p, size_t len)
{
    tb_reserve(b, len);
    size_t at = b->n;
    memcpy(b->d + b->n, p, len);
    b->n += len;
    return at;
}

static inline void tb_put32(tb *b, size_t at, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        b->d[at + i] = (uint8_t)(v >> (8 * i));
}

static inline void tb_put64(tb *b, size_t at, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        b->d[at + i] = (uint8_t)(v >> (8 * i));
}

static inline size_t tb_u32(tb *b, uint32_t v)
{
    tb_reserve(b, 4);
    size_t at = b->n;
    tb_put32(b, at, v);
    b->n += 4;
    return at;
}

/* Position of the cell of `slot` in table t. */
static inline size_t tb_cell(size_t t, unsigned slot) { return t + 8 + 8 * (size_t)slot; }

/* Table with `nslots` described slots; bit i of `present` marks slot i
 * present. Returns the table position (8-aligned); cells are zeroed. */
static inline size_t tb_table(tb *b, unsigned nslots, uint32_t present)
{
    size_t vt_len = 4 + 2 * (size_t)nslots;
    tb_reserve(b, 16 + vt_len + 8 + 8 * (size_t)nslots);
    tb_pad(b, 2);
    /* vtable then table; make the table 8-aligned */
    while ((b->n + vt_len) % 8)
        b->d[b->n++] = 0;
    size_t vt = b->n;
    uint16_t tbl_size = (uint16_t)(8 + 8 * nslots);
    b->d[vt] = (uint8_t)vt_len;
    b->d[vt + 1] = (uint8_t)(vt_len >> 8);
    b->d[vt + 2] = (uint8_t)tbl_size;
    b->d[vt + 3] = (uint8_t)(tbl_size >> 8);
    for (unsigned i = 0; i < nslots; i++) {
        uint16_t fo = (present >> i) & 1 ? (uint16_t)(8 + 8 * i) : 0;
        b->d[vt + 4 + 2 * i] = (uint8_t)fo;
        b->d[vt + 5 + 2 * i] = (uint8_t)(fo >> 8);
    }
    b->n = vt + vt_len;
    size_t t = b->n;
    memset(b->d + t, 0, tbl_size);
    tb_put32(b, t, (uint32_t)(t - vt)); /* soffset: vtable precedes */
    b->n += tbl_size;
    return t;
}

static inline void tb_set64(tb *b, size_t t, unsigned slot, uint64_t v) { tb_put64(b, tb_cell(t, slot), v); }

/* Store at `from` the uoffset to `target` (target > from). */
static inline void tb_ref(tb *b, size_t from, size_t target) { tb_put32(b, from, (uint32_t)(target - from)); }
static inline void tb_link(tb *b, size_t t, unsigned slot, size_t target) { tb_ref(b, tb_cell(t, slot), target); }

static inline size_t tb_string(tb *b, const char *s)
{
    tb_pad(b, 4);
    size_t at = tb_u32(b, (uint32_t)strlen(s));
    tb_bytes(b, s, strlen(s) + 1);
    return at;
}

/* Vector header with n elements of elem_size bytes (zeroed); returns the
 * position of the count word; element i is at pos + 4 + i * elem_size. */
static inline size_t tb_vector(tb *b, uint32_t n, unsigned elem_size)
{
    tb_pad(b, elem_size == 8 ? 8 : 4);
    if (elem_size == 8 && (b->n + 4) % 8)
        tb_u32(b, 0);
    size_t at = tb_u32(b, n);
    tb_reserve(b, (size_t)n * elem_size);
    memset(b->d + b->n, 0, (size_t)n * elem_size);
    b->n += (size_t)n * elem_size;
    return at;
}

static inline size_t tb_elem(size_t vec, uint32_t i, unsigned elem_size) { return vec + 4 + (size_t)i * elem_size; }

#endif
