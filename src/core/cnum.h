/*
 * cnum.h - numbers written and read the same in every locale.
 *
 * Why: printf's %f/%g/%e and strtod follow the calling thread's LC_NUMERIC.
 * A host that called setlocale(LC_ALL, "") with a German locale (Python's
 * locale.setlocale does exactly that) made the library write 1,898821 into
 * JSON and read "1.898821" back as 1 (issue 21). The command line never
 * calls setlocale, so only library hosts saw it.
 *
 * Two layers, so that no future printf or strtod can bring it back:
 *   - the helpers below format and parse with an explicit "C" locale object
 *     (strtod_l; uselocale around vsnprintf), whatever thread calls them:
 *     the JSON writer and reader, mlia_buf_printf, mlia_arena_printf and the
 *     error text use them;
 *   - every entry point (src/api/guard.c) and every thread the library
 *     starts runs inside mlia_c_locale_enter/leave, which switches only the
 *     calling thread to the "C" locale for the call (uselocale: the host's
 *     global locale and its other threads are untouched) and restores what
 *     the thread had, so ctype and any other locale-dependent call in src/
 *     behaves the same for every host.
 * The "C" locale object is created per call (glibc hands back its static C
 * object without allocating) and nothing is kept between calls.
 */
#ifndef MLIA_CORE_CNUM_H
#define MLIA_CORE_CNUM_H

#include <locale.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct mlia_c_locale_scope {
    locale_t c;    /* the "C" locale object, (locale_t)0 if it could not be made */
    locale_t prev; /* the thread's locale before (LC_GLOBAL_LOCALE when it had none) */
} mlia_c_locale_scope;

/* Switch the calling thread to the "C" locale until mlia_c_locale_leave. */
void mlia_c_locale_enter(mlia_c_locale_scope *s);
void mlia_c_locale_leave(mlia_c_locale_scope *s);

/* strtod in the "C" locale ('.' decimal point, no grouping). */
double mlia_strtod(const char *s, char **end);
/* The JSON integer digits[0, n) ('0'..'9' only; neg: the number has a '-'
 * before them) as an int64_t: true and *out set when it fits, false when it
 * does not (then *out is 0). Shared by core/json_read.c and core/json_stream.c. */
bool mlia_json_digits_i64(const char *digits, size_t n, bool neg, int64_t *out);
/* vsnprintf / snprintf in the "C" locale. */
int mlia_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
int mlia_snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* In a variadic function whose last named parameter is fmt: formats the
 * arguments after fmt into the char array buf (truncated to its size) with
 * mlia_vsnprintf. The one spelling of "format my ... into a local buffer"
 * (readers' error and warning helpers, the session log). */
#define MLIA_FORMAT_ARGS(buf, fmt)                           \
    do {                                                     \
        va_list mlia_ap_;                                    \
        va_start(mlia_ap_, fmt);                             \
        mlia_vsnprintf((buf), sizeof(buf), (fmt), mlia_ap_); \
        va_end(mlia_ap_);                                    \
    } while (0)

#endif
