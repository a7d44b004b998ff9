/*
 * utf8.c - strict UTF-8 validation (see utf8.h).
 */
#include "utf8.h"

static bool fail(size_t pos, const char *why, size_t *bad_pos, const char **reason)
{
    if (bad_pos)
        *bad_pos = pos;
    if (reason)
        *reason = why;
    return false;
}

bool mlia_utf8_check(const uint8_t *s, size_t n, size_t *bad_pos, const char **reason)
{
    size_t i = 0;
    while (i < n) {
        uint8_t c = s[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t need;
        uint32_t min;
        if (c >= 0xC2 && c <= 0xDF)
            need = 1, min = 0x80;
        else if (c >= 0xE0 && c <= 0xEF)
            need = 2, min = 0x800;
        else if (c >= 0xF0 && c <= 0xF4)
            need = 3, min = 0x10000;
        else
            return fail(i, "invalid start byte", bad_pos, reason);
        uint32_t cp = c & (0x3Fu >> need);
        for (size_t k = 1; k <= need; k++) {
            if (i + k >= n)
                return fail(i, "unexpected end of data", bad_pos, reason);
            uint8_t cc = s[i + k];
            if ((cc & 0xC0) != 0x80)
                return fail(i, "invalid continuation byte", bad_pos, reason);
            cp = cp << 6 | (cc & 0x3Fu);
        }
        if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail(i, "invalid continuation byte", bad_pos, reason);
        i += need + 1;
    }
    return true;
}

size_t mlia_utf8_seq_len(const unsigned char *p, size_t avail)
{
    unsigned char c = p[0];
    if (c >= 0xc2 && c <= 0xdf)
        return avail >= 2 && (p[1] & 0xc0) == 0x80 ? 2 : 0;
    if (c >= 0xe0 && c <= 0xef) {
        if (avail < 3 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80)
            return 0;
        /* overlong, or a UTF-16 surrogate */
        if ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))
            return 0;
        return 3;
    }
    if (c >= 0xf0 && c <= 0xf4) {
        if (avail < 4 || (p[1] & 0xc0) != 0x80 || (p[2] & 0xc0) != 0x80 || (p[3] & 0xc0) != 0x80)
            return 0;
        /* overlong, or beyond U+10FFFF */
        if ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))
            return 0;
        return 4;
    }
    return 0;
}

size_t mlia_utf8_put(char *o, unsigned cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xc0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
    o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

size_t mlia_hex_digits(const unsigned char *p, size_t n, unsigned *out)
{
    unsigned v = 0;
    size_t k = 0;
    for (; k < n; k++) {
        unsigned char c = p[k];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            break;
        v = v * 16 + d;
    }
    *out = v;
    return k;
}
