/*
 * str.h - borrowed byte strings and a growable output buffer.
 *
 * mlia_str points into memory owned by someone else (a mapped file or an
 * arena); it is never freed through the mlia_str. FlatBuffers strings are
 * NUL-terminated in the file, but may contain interior NULs, so always use len.
 *
 * mlia_buf is a malloc-backed growable byte buffer owned by whoever
 * initialised it (mlia_buf_free releases it).
 */
#ifndef MLIA_CORE_STR_H
#define MLIA_CORE_STR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mlia_str {
    const char *ptr; /* NULL when absent */
    size_t len;
} mlia_str;

static inline mlia_str mlia_str_c(const char *s);
bool mlia_str_eq(mlia_str a, const char *c);
bool mlia_str_has_prefix(mlia_str a, const char *prefix);

typedef struct mlia_buf {
    char *data;
    size_t len, cap;
} mlia_buf;

void mlia_buf_init(mlia_buf *b);
void mlia_buf_free(mlia_buf *b);
void mlia_buf_reserve(mlia_buf *b, size_t extra);
void mlia_buf_append_slow(mlia_buf *b, const void *p, size_t n);
void mlia_buf_puts(mlia_buf *b, const char *s);
void mlia_buf_printf(mlia_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Take ownership of the NUL-terminated contents; the buffer is reset. */
char *mlia_buf_take(mlia_buf *b);

/* A clock rate for people: "250 MHz", "1 GHz", "32.768 kHz", "19.2 MHz"
 * (the largest unit with a value >= 1, at most six decimals, trailing zeros
 * dropped; '.' in every locale). buf holds 48 bytes. */
void mlia_format_hz(char *buf, size_t n, double hz);

#include <string.h>

/* Append n bytes (the buffer stays NUL-terminated). Inline fast path: the
 * JSON writers call this for every token. */
static inline void mlia_buf_append(mlia_buf *b, const void *p, size_t n)
{
    if (b->cap - b->len > n) {
        if (n)
            memcpy(b->data + b->len, p, n);
        b->len += n;
        b->data[b->len] = 0;
        return;
    }
    mlia_buf_append_slow(b, p, n);
}

static inline void mlia_buf_putc(mlia_buf *b, char c)
{
    if (b->cap - b->len > 1) {
        b->data[b->len++] = c;
        b->data[b->len] = 0;
        return;
    }
    mlia_buf_append_slow(b, &c, 1);
}

/* Equal C strings (neither NULL). The same pointer (a literal, a key
 * stored from one) or a different first byte answers without a call:
 * lookups by key (attributes, metrics, qualifiers) run for every entity. */
static inline bool mlia_cstr_eq(const char *a, const char *b)
{
    return a == b || (a[0] == b[0] && strcmp(a, b) == 0);
}

static inline mlia_str mlia_str_c(const char *s)
{
    mlia_str r = {s, s ? strlen(s) : 0};
    return r;
}

#endif
