/*
 * error.c - formatting of error messages (see error.h).
 */
#include "error.h"
#include "core/cnum.h"

#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Length of the valid UTF-8 sequence at s[0, n) and its code point, or 0
 * when s[0] does not start one (strict: no overlong forms, no surrogates,
 * nothing above U+10FFFF). */
static size_t utf8_seq(const unsigned char *s, size_t n, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t len;
    uint32_t v, min;
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1Fu, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0Fu, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07u, min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static bool escaped_code_point(uint32_t cp)
{
    return (cp >= 0x80 && cp <= 0x9F) || (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

/* One unit of the escaped form of s[i, len): its text in tmp (at most 6
 * bytes), its length returned, the source bytes it stands for in *adv. */
static size_t escape_unit(const unsigned char *s, size_t len, size_t i, char tmp[8], size_t *adv)
{
    static const char hex[] = "0123456789abcdef";
    size_t tn = 0;
    unsigned char c = s[i];
    *adv = 1;
    if (c >= 0x20 && c < 0x7F) {
        tmp[tn++] = (char)c;
    } else if (c == '\n' || c == '\r' || c == '\t') {
        tmp[tn++] = '\\';
        tmp[tn++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
    } else {
        uint32_t cp = 0;
        size_t sl = c >= 0x80 ? utf8_seq(s + i, len - i, &cp) : 0;
        if (sl && escaped_code_point(cp)) {
            tmp[tn++] = '\\';
            tmp[tn++] = 'u';
            for (int k = 3; k >= 0; k--)
                tmp[tn++] = hex[(cp >> (4 * k)) & 15];
            *adv = sl;
        } else if (sl) {
            memcpy(tmp, s + i, sl);
            tn = sl;
            *adv = sl;
        } else {
            tmp[tn++] = '\\';
            tmp[tn++] = 'x';
            tmp[tn++] = hex[c >> 4];
            tmp[tn++] = hex[c & 15];
        }
    }
    return tn;
}

size_t mlia_escape_text(char *dst, size_t cap, const char *src, size_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0, i = 0;
    while (i < len) {
        char tmp[8];
        size_t adv;
        size_t tn = escape_unit(s, len, i, tmp, &adv);
        if (o + tn >= cap)
            break;
        memcpy(dst + o, tmp, tn);
        o += tn;
        i += adv;
    }
    dst[o] = 0;
    return o;
}

/* Escapes src[0, len) into dst (capacity cap) like mlia_escape_text; when the
 * escaped text does not fit, the middle is cut instead of the end, so that
 * both the start (what the message is about) and the end (the reason, which
 * comes last: "<path>: write failed: File name too long") survive:
 * "<head>[... N bytes cut ...]<tail>", about a third head and two thirds
 * tail, cut at whole characters and escapes. */
static void escape_cut_middle(char *dst, size_t cap, const char *src, size_t len)
{
    const unsigned char *s = (const unsigned char *)src;
    char tmp[8];
    size_t adv, total = 0;
    for (size_t i = 0; i < len; i += adv)
        total += escape_unit(s, len, i, tmp, &adv);
    if (total < cap) {
        mlia_escape_text(dst, cap, src, len);
        return;
    }
    char marker[64];
    /* the marker's length with the largest count it can show */
    int ml = snprintf(marker, sizeof marker, "[... %zu bytes cut ...]", len);
    size_t budget = cap - 1 - (size_t)ml;
    size_t head_budget = budget / 3, tail_budget = budget - head_budget;
    size_t head_end = 0, tail_start = len, cum = 0;
    for (size_t i = 0; i < len; i += adv) {
        size_t tn = escape_unit(s, len, i, tmp, &adv);
        if (cum + tn <= head_budget)
            head_end = i + adv;
        if (total - cum <= tail_budget && tail_start == len)
            tail_start = i;
        cum += tn;
    }
    if (tail_start < head_end)
        tail_start = head_end;
    size_t o = 0;
    for (size_t i = 0; i < head_end; i += adv) {
        size_t tn = escape_unit(s, len, i, tmp, &adv);
        memcpy(dst + o, tmp, tn);
        o += tn;
    }
    o += (size_t)snprintf(dst + o, cap - o, "[... %zu bytes cut ...]", tail_start - head_end);
    for (size_t i = tail_start; i < len; i += adv) {
        size_t tn = escape_unit(s, len, i, tmp, &adv);
        if (o + tn >= cap)
            break;
        memcpy(dst + o, tmp, tn);
        o += tn;
    }
    dst[o] = 0;
}

void mlia_error_clear(mlia_error *err)
{
    if (!err)
        return;
    err->set = 0;
    err->kind = MLIA_ERROR_KIND_NONE;
    err->text[0] = 0;
}

/* Sets err->text from the raw text raw[0, len) (escaped, middle cut). */
static void set_text(mlia_error *err, const char *raw, size_t len)
{
    escape_cut_middle(err->text, sizeof err->text, raw, len);
    err->set = 1;
}

static int vsetf(mlia_error *err, int kind, const char *file, const char *fmt, va_list args)
{
    if (!err || err->set)
        return -1;
    va_list ap;
    va_copy(ap, args);
    int n = mlia_vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    size_t fl = file ? strlen(file) + 2 : 0;
    size_t len = fl + (n > 0 ? (size_t)n : 0);
    /* The whole text first (a path alone may be longer than the message's
     * room), on the heap when it does not fit the stack buffer; without
     * memory, the end is cut as before rather than failing. */
    char small[MLIA_ERROR_MAX];
    char *raw = len < sizeof small ? small : malloc(len + 1);
    size_t cap = raw ? len + 1 : sizeof small;
    if (!raw)
        raw = small;
    size_t off = 0;
    if (file) {
        int k = snprintf(raw, cap, "%s: ", file);
        off = k < 0 ? 0 : ((size_t)k >= cap ? cap - 1 : (size_t)k);
    }
    va_copy(ap, args);
    mlia_vsnprintf(raw + off, cap - off, fmt, ap);
    va_end(ap);
    set_text(err, raw, strnlen(raw, cap - 1));
    if (!err->kind)
        err->kind = kind;
    if (raw != small)
        free(raw);
    return -1;
}

int mlia_error_setf(mlia_error *err, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsetf(err, MLIA_ERROR_KIND_NONE, file, fmt, ap);
    va_end(ap);
    return -1;
}

int mlia_error_setkf(mlia_error *err, mlia_error_kind kind, const char *file, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsetf(err, (int)kind, file, fmt, ap);
    va_end(ap);
    return -1;
}

int mlia_error_mark(mlia_error *err, mlia_error_kind kind)
{
    if (err && err->set && !err->kind)
        err->kind = (int)kind;
    return -1;
}

long long mlia_error_text_offset(const char *text)
{
    /* "... at byte 612 (...)", "... at byte offset 4096", "(at byte 6)" */
    for (const char *p = text ? strstr(text, "at byte ") : NULL; p; p = strstr(p + 1, "at byte ")) {
        const char *d = p + 8;
        if (strncmp(d, "offset ", 7) == 0)
            d += 7;
        if (*d < '0' || *d > '9')
            continue;
        long long v = 0;
        for (; *d >= '0' && *d <= '9'; d++) {
            if (v > (LLONG_MAX - 9) / 10)
                return -1;
            v = v * 10 + (*d - '0');
        }
        return v;
    }
    return -1;
}

int mlia_error_prefix(mlia_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char prefix[MLIA_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    mlia_vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    size_t pl = strnlen(prefix, sizeof prefix - 1);
    size_t ol = strnlen(err->text, sizeof err->text - 1);
    char raw[2 * MLIA_ERROR_MAX];
    memcpy(raw, prefix, pl);
    memcpy(raw + pl, err->text, ol);
    set_text(err, raw, pl + ol);
    return -1;
}
