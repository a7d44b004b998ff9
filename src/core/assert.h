/*
 * assert.h - MLIA_ASSERT: the library's internal invariants.
 *
 * An invariant is what the code around it already guarantees (a JSON
 * container is closed by the matching call, an arena allocation fits its
 * chunk, a FlatBuffers vector element was bounds-checked when the vector was
 * opened, a time attributed inside a window is no longer than the window).
 * Anything an input can break is an error with a message (core/error.h),
 * never an assertion.
 *
 * On in debug, sanitizer and fuzz builds (MLIA_ASSERTIONS=1: `make
 * DEBUG=1`, `make asan`, `make oom-sweep`, `make fuzz`), off in release
 * builds (the default `make`), where the expression is not evaluated (its
 * operands stay "used" for the compiler). A failed assertion is a bug in the
 * library: it prints "mlia: internal error: assertion failed: <expression>
 * (<file>:<line>, <function>)" on standard error and aborts.
 */
#ifndef MLIA_CORE_ASSERT_H
#define MLIA_CORE_ASSERT_H

#include <stdbool.h>

#ifndef MLIA_ASSERTIONS
#define MLIA_ASSERTIONS 0
#endif

_Noreturn void mlia_assert_fail(const char *expr, const char *file, int line, const char *func);
/* Whether the library was built with MLIA_ASSERTIONS=1. */
bool mlia_assertions_enabled(void);

#if MLIA_ASSERTIONS
#define MLIA_ASSERT(e) ((e) ? (void)0 : mlia_assert_fail(#e, __FILE__, __LINE__, __func__))
#else
#define MLIA_ASSERT(e) ((void)sizeof(!(e)))
#endif

#endif
