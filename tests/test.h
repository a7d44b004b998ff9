/*
 * test.h - minimal unit-test harness for the C tests.
 *
 * A test file defines functions with TEST(name) and lists them in main() via
 * RUN(name). Assertions record a failure and return from the test. The
 * binary prints one line per test and a closing "N passed, N failed" line;
 * tests/run.sh adds the counts of all binaries.
 *
 * Fixtures from ../shared/fixtures are located with test_fixture(); the
 * directory can be overridden with MLIA_FIXTURES.
 */
#ifndef MLIA_TEST_H
#define MLIA_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed_count, test_passed_count, test_current_failed;
static const char *test_current_name;

#define TEST(name) static void name(void)

#define RUN(name)                                                                  \
    do {                                                                           \
        test_current_failed = 0;                                                   \
        test_current_name = #name;                                                 \
        name();                                                                    \
        if (test_current_failed) {                                                 \
            test_failed_count++;                                                   \
        } else {                                                                   \
            test_passed_count++;                                                   \
            printf("PASS %s\n", #name);                                            \
        }                                                                          \
    } while (0)

#define TEST_FAIL_AT(...)                                                          \
    do {                                                                           \
        printf("FAIL %s: %s:%d: ", test_current_name, __FILE__, __LINE__);        \
        printf(__VA_ARGS__);                                                       \
        printf("\n");                                                              \
        test_current_failed = 1;                                                   \
    } while (0)

#define CHECK(cond)                                                                \
    do {                                                                           \
        if (!(cond)) {                                                             \
            TEST_FAIL_AT("CHECK(%s)", #cond);                                      \
            return;                                                                \
        }                                                                          \
    } while (0)

#define CHECK_INT(a, b)                                                            \
    do {                                                                           \
        long long _a = (long long)(a), _b = (long long)(b);                        \
        if (_a != _b) {                                                            \
            TEST_FAIL_AT("%s == %lld, expected %s == %lld", #a, _a, #b, _b);       \
            return;                                                                \
        }                                                                          \
    } while (0)

#define CHECK_UINT(a, b)                                                           \
    do {                                                                           \
        unsigned long long _a = (unsigned long long)(a), _b = (unsigned long long)(b); \
        if (_a != _b) {                                                            \
            TEST_FAIL_AT("%s == %llu, expected %llu", #a, _a, _b);                 \
            return;                                                                \
        }                                                                          \
    } while (0)

#define CHECK_DBL(a, b)                                                            \
    do {                                                                           \
        double _a = (double)(a), _b = (double)(b);                                 \
        if (!(fabs(_a - _b) <= 1e-9 * (fabs(_b) > 1 ? fabs(_b) : 1))) {           \
            TEST_FAIL_AT("%s == %.17g, expected %.17g", #a, _a, _b);               \
            return;                                                                \
        }                                                                          \
    } while (0)

#define CHECK_STR(a, b)                                                            \
    do {                                                                           \
        const char *_a = (a), *_b = (b);                                           \
        if (!_a || !_b || strcmp(_a, _b) != 0) {                                   \
            TEST_FAIL_AT("%s == \"%s\", expected \"%s\"", #a, _a ? _a : "(null)",  \
                         _b ? _b : "(null)");                                      \
            return;                                                                \
        }                                                                          \
    } while (0)

/* Checks that haystack contains needle. */
#define CHECK_CONTAINS(hay, needle)                                                \
    do {                                                                           \
        const char *_h = (hay), *_n = (needle);                                    \
        if (!_h || !strstr(_h, _n)) {                                              \
            TEST_FAIL_AT("\"%s\" does not contain \"%s\"", _h ? _h : "(null)", _n); \
            return;                                                                \
        }                                                                          \
    } while (0)

static inline int test_summary(void)
{
    printf("%d passed, %d failed\n", test_passed_count, test_failed_count);
    return test_failed_count ? 1 : 0;
}

/* Path of a shared fixture, e.g. test_fixture("executorch/lenet.etdp").
 * Returns a static buffer. */
static inline const char *test_fixture(const char *rel)
{
    static char buf[4096];
    const char *dir = getenv("MLIA_FIXTURES");
    snprintf(buf, sizeof buf, "%s/%s", dir ? dir : "../shared/fixtures", rel);
    return buf;
}

#endif
