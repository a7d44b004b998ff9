/*
 * format.c - the shared number formatter (see format.h for the rules).
 *
 * Each function reduces the value to an unsigned integer of digits (|v| x
 * 10^decimals rounded half up, using only a multiplication by an exact power
 * of ten, an addition of 0.5 and floor) and prints that integer with a
 * decimal point and ',' separators. viewer/src/format.js does the same
 * operations in the same order on the same doubles, so both print the same.
 */
#include "report/format.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Powers of ten exactly representable as doubles. */
static const double POW10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                               1e10, 1e11, 1e12, 1e13, 1e14, 1e15};
/* 10^-i as the nearest doubles (the same literals as the page). */
static const double NEG10[] = {1e0, 1e-1, 1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9};
#define MAX_DECIMALS 9
/* Beyond this the digits no longer fit an exact integer: printed with %.0f. */
#define EXACT_LIMIT 9007199254740992.0 /* 2^53 */

static size_t put(char *out, size_t cap, const char *s)
{
    if (!cap)
        return 0;
    size_t n = strlen(s);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, s, n);
    out[n] = 0;
    return n;
}

/* Writes [-]<integer part with ','>[.<decimals digits>] of digits / 10^decimals. */
static size_t put_digits(char *out, size_t cap, bool negative, uint64_t digits, int decimals,
                         bool strip_zeros)
{
    /* digits from the right, no printf (every quantity of every view comes
     * through here): [decimals digits][.]<integer part with ','>[-] */
    char tmp[96];
    char *e = tmp + sizeof tmp - 1, *p = e;
    *p = 0;
    uint64_t scale = (uint64_t)POW10[decimals];
    uint64_t ip = digits / scale, fp = digits % scale;
    if (decimals > 0) {
        int nd = decimals > 19 ? 19 : decimals;
        bool keep = !strip_zeros;
        for (int i = 0; i < nd; i++, fp /= 10) {
            char d = (char)('0' + fp % 10);
            if (keep || d != '0') {
                *--p = d;
                keep = true;
            }
        }
        if (p != e)
            *--p = '.';
    }
    int n = 0;
    do {
        if (n && n % 3 == 0)
            *--p = ',';
        *--p = (char)('0' + ip % 10);
        ip /= 10;
        n++;
    } while (ip);
    if (negative && digits)
        *--p = '-';
    return put(out, cap, p);
}

static bool finite_or_dash(char *out, size_t cap, double v, size_t *len)
{
    if (isfinite(v))
        return true;
    *len = put(out, cap, "-");
    return false;
}

size_t mlia_fmt_sig4(char *out, size_t cap, double v)
{
    size_t len;
    if (!finite_or_dash(out, cap, v, &len))
        return len;
    double a = fabs(v);
    if (a == 0)
        return put(out, cap, "0");
    int decimals;
    if (a >= 1) {
        int k = 1; /* integer digits */
        while (k < 16 && a >= POW10[k])
            k++;
        decimals = k >= 4 ? 0 : 4 - k;
    } else {
        int m = 0; /* zeros between the point and the first digit */
        while (m < MAX_DECIMALS && a < NEG10[m + 1])
            m++;
        decimals = 4 + m > MAX_DECIMALS ? MAX_DECIMALS : 4 + m;
    }
    double x = floor(a * POW10[decimals] + 0.5);
    if (x >= 1e4 && decimals > 0) {
        /* 9.9996 -> 10.000 has five digits: one decimal less */
        decimals--;
        x = floor(a * POW10[decimals] + 0.5);
    }
    if (x == 0)
        return put(out, cap, "0");
    if (x >= EXACT_LIMIT) {
        char tmp[400];
        snprintf(tmp, sizeof tmp, "%s%.0f", v < 0 ? "-" : "", a);
        return put(out, cap, tmp);
    }
    return put_digits(out, cap, v < 0, (uint64_t)x, decimals, false);
}

size_t mlia_fmt_int(char *out, size_t cap, double v)
{
    size_t len;
    if (!finite_or_dash(out, cap, v, &len))
        return len;
    double x = floor(fabs(v) + 0.5);
    if (x >= EXACT_LIMIT) {
        char tmp[400];
        snprintf(tmp, sizeof tmp, "%s%.0f", v < 0 ? "-" : "", x);
        return put(out, cap, tmp);
    }
    return put_digits(out, cap, v < 0, (uint64_t)x, 0, false);
}

size_t mlia_fmt_pct(char *out, size_t cap, double v)
{
    size_t len;
    if (!finite_or_dash(out, cap, v, &len))
        return len;
    double x = floor(fabs(v) * 100 + 0.5);
    if (x >= EXACT_LIMIT)
        return mlia_fmt_int(out, cap, v);
    return put_digits(out, cap, v < 0, (uint64_t)x, 2, true);
}

static bool integer_unit(const char *unit)
{
    static const char *const units[] = {"cycles", "bytes", "count", "executions"};
    for (size_t i = 0; unit && i < sizeof units / sizeof units[0]; i++)
        if (strcmp(unit, units[i]) == 0)
            return true;
    return false;
}

size_t mlia_fmt_value(char *out, size_t cap, double v, const char *unit)
{
    if (integer_unit(unit))
        return mlia_fmt_int(out, cap, v);
    if (unit && strcmp(unit, "%") == 0)
        return mlia_fmt_pct(out, cap, v);
    return mlia_fmt_sig4(out, cap, v);
}

size_t mlia_fmt_quantity(char *out, size_t cap, double v, const char *unit)
{
    size_t n = mlia_fmt_value(out, cap, v, unit);
    if (unit && *unit && n + 1 < cap) {
        int w = snprintf(out + n, cap - n, " %s", unit);
        if (w > 0)
            n = n + (size_t)w < cap ? n + (size_t)w : cap - 1;
    }
    return n;
}
