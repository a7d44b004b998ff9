/*
 * cnum.c - numbers in the "C" locale (see cnum.h).
 */
#include "core/cnum.h"

#include <stdio.h>
#include <stdlib.h>

void mlia_c_locale_enter(mlia_c_locale_scope *s)
{
    s->c = newlocale(LC_ALL_MASK, "C", (locale_t)0);
    s->prev = s->c ? uselocale(s->c) : (locale_t)0;
}

void mlia_c_locale_leave(mlia_c_locale_scope *s)
{
    if (!s->c)
        return;
    uselocale(s->prev);
    freelocale(s->c);
    s->c = (locale_t)0;
}

double mlia_strtod(const char *s, char **end)
{
    locale_t c = newlocale(LC_NUMERIC_MASK, "C", (locale_t)0);
    if (!c) /* cannot happen with glibc: "C" is built in */
        return strtod(s, end);
    double v = strtod_l(s, end, c);
    freelocale(c);
    return v;
}

int mlia_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
    mlia_c_locale_scope sc;
    mlia_c_locale_enter(&sc);
    int r = vsnprintf(buf, n, fmt, ap);
    mlia_c_locale_leave(&sc);
    return r;
}

int mlia_snprintf(char *buf, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int r = mlia_vsnprintf(buf, n, fmt, ap);
    va_end(ap);
    return r;
}

bool mlia_json_digits_i64(const char *digits, size_t n, bool neg, int64_t *out)
{
    /* accumulated as a negative number so that INT64_MIN fits */
    int64_t acc = 0;
    *out = 0;
    for (size_t k = 0; k < n; k++) {
        int digit = digits[k] - '0';
        if (acc < (INT64_MIN + digit) / 10)
            return false;
        acc = acc * 10 - digit;
    }
    if (!neg) {
        if (acc == INT64_MIN)
            return false;
        acc = -acc;
    }
    *out = acc;
    return true;
}
