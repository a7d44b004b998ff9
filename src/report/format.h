/*
 * format.h - the one number formatter of every human-readable output: the
 * console summary, the Model Explorer node attributes and overlay texts, and
 * (mirrored rule for rule in viewer/src/format.js) the page. The result JSON
 * keeps exact values; only what a person reads goes through here.
 *
 * Rules, by unit (docs/page.md, "Numbers"):
 * - "cycles", "bytes", "count" and "executions": rounded to an integer,
 *   thousands separated by ',' ("4,000", "230,600");
 * - "%": at most 2 decimals, trailing zeros dropped ("100", "66.67");
 * - everything else (milliseconds, rates such as "inferences/s"): 4
 *   significant digits, the integer part never rounded away, thousands
 *   separated ("0.4120", "1.851", "0.009181", "540.4", "107,527");
 * - 0 is "0"; a value that rounds to 0 keeps its sign away ("0"); NaN and
 *   infinities are "-".
 * Rounding is done on integers (value x 10^decimals, halves away from zero)
 * with the same double operations as the page's copy, so both give the same
 * digits for the same double (tests/report/test_format.c and
 * viewer/tests/format.test.mjs read one table, tests/data/format-table.json).
 *
 * Nothing allocates; every function writes a NUL-terminated string of at
 * most cap - 1 bytes and returns its length (MLIA_FMT_CAP is always enough).
 */
#ifndef MLIA_REPORT_FORMAT_H
#define MLIA_REPORT_FORMAT_H

#include <stddef.h>

#define MLIA_FMT_CAP 48

/* 4 significant digits (milliseconds, rates, unknown units). */
size_t mlia_fmt_sig4(char *out, size_t cap, double v);
/* Integer with thousands separators (cycles, bytes, counts). */
size_t mlia_fmt_int(char *out, size_t cap, double v);
/* Percentage: at most 2 decimals, trailing zeros dropped (no '%' sign). */
size_t mlia_fmt_pct(char *out, size_t cap, double v);
/* The value by its unit's rule (unit may be NULL: 4 significant digits). */
size_t mlia_fmt_value(char *out, size_t cap, double v, const char *unit);
/* Value and unit: "0.4120 ms", "4,000 cycles", "100 %". */
size_t mlia_fmt_quantity(char *out, size_t cap, double v, const char *unit);

#endif
