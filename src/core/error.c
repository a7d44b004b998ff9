/*
 * error.c - formatting of error messages (see error.h).
 */
#include "error.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
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

size_t mlia_escape_text(char *dst, size_t cap, const char *src, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *s = (const unsigned char *)src;
    size_t o = 0, i = 0;
    while (i < len) {
        char tmp[8];
        size_t tn = 0, adv = 1;
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7F) {
            tmp[tn++] = (char)c;
        } else if (c == '\n' || c == '\r' || c == '\t') {
            tmp[tn++] = '\\';
            tmp[tn++] = c == '\n' ? 'n' : c == '\r' ? 'r' : 't';
        } else {
            uint32_t cp = 0;
            size_t sl = c >= 0x80 ? utf8_seq(s + i, len - i, &cp) : 0;
            if (sl && escaped_code_point(cp)) {
                tn = (size_t)snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
                adv = sl;
            } else if (sl) {
                memcpy(tmp, s + i, sl);
                tn = sl;
                adv = sl;
            } else {
                tmp[tn++] = '\\';
                tmp[tn++] = 'x';
                tmp[tn++] = hex[c >> 4];
                tmp[tn++] = hex[c & 15];
            }
        }
        if (o + tn >= cap)
            break;
        memcpy(dst + o, tmp, tn);
        o += tn;
        i += adv;
    }
    dst[o] = 0;
    return o;
}

void mlia_error_clear(mlia_error *err)
{
    if (!err)
        return;
    err->set = 0;
    err->text[0] = 0;
}

/* Escapes err->text in place (through a copy). */
static void escape_in_place(mlia_error *err)
{
    char raw[MLIA_ERROR_MAX];
    size_t n = strnlen(err->text, sizeof err->text - 1);
    memcpy(raw, err->text, n);
    mlia_escape_text(err->text, sizeof err->text, raw, n);
}

int mlia_error_setf(mlia_error *err, const char *file, const char *fmt, ...)
{
    if (!err || err->set)
        return -1;
    size_t off = 0;
    if (file) {
        int n = snprintf(err->text, sizeof err->text, "%s: ", file);
        off = n < 0 ? 0 : ((size_t)n >= sizeof err->text ? sizeof err->text - 1 : (size_t)n);
    }
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->text + off, sizeof err->text - off, fmt, ap);
    va_end(ap);
    escape_in_place(err);
    err->set = 1;
    return -1;
}

int mlia_error_prefix(mlia_error *err, const char *fmt, ...)
{
    if (!err)
        return -1;
    char prefix[MLIA_ERROR_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(prefix, sizeof prefix, fmt, ap);
    va_end(ap);
    char old[MLIA_ERROR_MAX];
    memcpy(old, err->text, sizeof old);
    size_t pl = strnlen(prefix, sizeof prefix - 1);
    size_t ol = strnlen(old, sizeof old - 1);
    if (pl > sizeof err->text - 1)
        pl = sizeof err->text - 1;
    if (ol > sizeof err->text - 1 - pl)
        ol = sizeof err->text - 1 - pl;
    memcpy(err->text, prefix, pl);
    memcpy(err->text + pl, old, ol);
    err->text[pl + ol] = 0;
    escape_in_place(err);
    err->set = 1;
    return -1;
}
