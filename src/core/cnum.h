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
#include <stddef.h>

typedef struct mlia_c_locale_scope {
    locale_t c;    /* the "C" locale object, (locale_t)0 if it could not be made */
    locale_t prev; /* the thread's locale before (LC_GLOBAL_LOCALE when it had none) */
} mlia_c_locale_scope;

/* Switch the calling thread to the "C" locale until mlia_c_locale_leave. */
void mlia_c_locale_enter(mlia_c_locale_scope *s);
void mlia_c_locale_leave(mlia_c_locale_scope *s);

/* strtod in the "C" locale ('.' decimal point, no grouping). */
double mlia_strtod(const char *s, char **end);
/* vsnprintf / snprintf in the "C" locale. */
int mlia_vsnprintf(char *buf, size_t n, const char *fmt, va_list ap) __attribute__((format(printf, 3, 0)));
int mlia_snprintf(char *buf, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
