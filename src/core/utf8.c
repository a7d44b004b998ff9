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
