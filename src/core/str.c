/*
 * str.c - string helpers and growable buffer (see str.h).
 */
#include "str.h"
#include "core/cnum.h"
#include "oom.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool mlia_str_eq(mlia_str a, const char *c)
{
    size_t n = strlen(c);
    return a.ptr && a.len == n && memcmp(a.ptr, c, n) == 0;
}

bool mlia_str_has_prefix(mlia_str a, const char *prefix)
{
    size_t n = strlen(prefix);
    return a.ptr && a.len >= n && memcmp(a.ptr, prefix, n) == 0;
}

void mlia_buf_init(mlia_buf *b)
{
    b->data = NULL;
    b->len = b->cap = 0;
}

void mlia_buf_free(mlia_buf *b)
{
    free(b->data);
    mlia_buf_init(b);
}

void mlia_buf_reserve(mlia_buf *b, size_t extra)
{
    if (b->cap - b->len > extra)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap - b->len <= extra) {
        if (cap > SIZE_MAX / 2)
            mlia_oom(SIZE_MAX);
        cap *= 2;
    }
    char *p = realloc(b->data, cap);
    if (!p)
        mlia_oom(cap);
    b->data = p;
    b->cap = cap;
}

void mlia_buf_append_slow(mlia_buf *b, const void *p, size_t n)
{
    mlia_buf_reserve(b, n + 1);
    if (n)
        memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = 0;
}

void mlia_buf_puts(mlia_buf *b, const char *s)
{
    mlia_buf_append(b, s, strlen(s));
}


void mlia_buf_printf(mlia_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = mlia_vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    mlia_buf_reserve(b, (size_t)n + 1);
    va_start(ap, fmt);
    mlia_vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

char *mlia_buf_take(mlia_buf *b)
{
    if (!b->data)
        mlia_buf_reserve(b, 1), b->data[0] = 0;
    char *p = b->data;
    mlia_buf_init(b);
    return p;
}

void mlia_format_hz(char *buf, size_t n, double hz)
{
    static const struct {
        double scale;
        const char *unit;
    } units[] = {{1e12, "THz"}, {1e9, "GHz"}, {1e6, "MHz"}, {1e3, "kHz"}, {1, "Hz"}};
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof *units && hz < units[u].scale)
        u++;
    char num[40];
    mlia_snprintf(num, sizeof num, "%.6f", hz / units[u].scale);
    char *dot = strchr(num, '.');
    if (dot) {
        char *end = num + strlen(num);
        while (end > dot + 1 && end[-1] == '0')
            *--end = 0;
        if (end == dot + 1)
            *dot = 0;
    }
    mlia_snprintf(buf, n, "%s %s", num, units[u].unit);
}
