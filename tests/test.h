/*
 * test.h - minimal unit-test harness for the C tests.
 *
 * A test file defines functions with TEST(name) and lists them in main() via
 * RUN(name). Assertions record a failure and return from the test. The
 * binary prints one line per test and a closing "N passed, N failed" line;
 * tests/run.sh adds the counts of all binaries.
 *
 * Real third-party fixtures are located with test_fixture(): under
 * $MLIA_FIXTURES, else ../shared/fixtures beside the repository root. Every
 * one must be listed in tests/fixtures.lock with its SHA-256. Inside a test:
 * an absent fixture marks the test SKIPPED with the reason (a skipped test
 * neither passes nor fails, whatever its checks do afterwards); a fixture
 * whose SHA-256 differs, or that the list does not name, is a failure; with
 * MLIA_REQUIRE_FIXTURES=1 an absent fixture is a failure too. A test that
 * only uses a fixture loaded elsewhere (e.g. in main) states the need with
 * TEST_NEED_FIXTURE(rel), which also returns from the test when it cannot
 * run. The closing line is "N passed, N failed, N skipped".
 */
#ifndef MLIA_TEST_H
#define MLIA_TEST_H

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/sha2.h>

#ifndef MLIA_SOURCE_DIR
#define MLIA_SOURCE_DIR "."
#endif

static int test_failed_count, test_passed_count, test_skipped_count, test_current_failed;
static int test_current_skipped;
static char test_skip_reason[600];
static const char *test_current_name;

#define TEST(name) static void name(void)

#define RUN(name)                                                                  \
    do {                                                                           \
        test_current_failed = 0;                                                   \
        test_current_skipped = 0;                                                  \
        test_current_name = #name;                                                 \
        name();                                                                    \
        test_current_name = NULL;                                                  \
        if (test_current_skipped) {                                                \
            test_skipped_count++;                                                  \
            printf("SKIP %s: %s\n", #name, test_skip_reason);                      \
        } else if (test_current_failed) {                                          \
            test_failed_count++;                                                   \
        } else {                                                                   \
            test_passed_count++;                                                   \
            printf("PASS %s\n", #name);                                            \
        }                                                                          \
    } while (0)

/* Once a test is skipped (a fixture is absent) its later failures are the
 * absence's consequences: they are not printed. */
#define TEST_FAIL_AT(...)                                                          \
    do {                                                                           \
        if (test_current_skipped)                                                  \
            break;                                                                 \
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
    printf("%d passed, %d failed, %d skipped\n", test_passed_count, test_failed_count, test_skipped_count);
    return test_failed_count ? 1 : 0;
}

/* SHA-256 of a file as 64 lowercase hex digits into hex[65]; -1 if unreadable. */
static inline int test_sha256_file(const char *path, char hex[65])
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    struct sha256_ctx ctx;
    unsigned char buf[65536], md[SHA256_DIGEST_SIZE];
    size_t n;
    sha256_init(&ctx);
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        sha256_update(&ctx, n, buf);
    int ok = !ferror(f);
    sha256_digest(&ctx, SHA256_DIGEST_SIZE, md);
    fclose(f);
    if (!ok)
        return -1;
    for (unsigned int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return 0;
}

/* The SHA-256 that tests/fixtures.lock gives for `rel` into hex[65]; -1 if
 * the list or the entry is missing. */
static inline int test_fixture_locked_hash(const char *rel, char hex[65])
{
    FILE *f = fopen(MLIA_SOURCE_DIR "/tests/fixtures.lock", "r");
    if (!f)
        return -1;
    char line[2048], sum[128], path[1024];
    unsigned long long bytes;
    int found = -1;
    while (found < 0 && fgets(line, sizeof line, f)) {
        if (line[0] == '#' || sscanf(line, "%127s %llu %1023s", sum, &bytes, path) != 3)
            continue;
        if (strcmp(path, rel) == 0 && strlen(sum) == 64) {
            memcpy(hex, sum, 65);
            found = 0;
        }
    }
    fclose(f);
    return found;
}

/* Fixture state: 0 usable, 1 absent (skip), 2 wrong or unlisted (failure);
 * `why` gets the reason. Results are cached per path (fixtures are read
 * only, hashing them once per binary is enough). */
static inline int test_fixture_state(const char *rel, const char *path, char *why, size_t cap)
{
    static struct { char path[4096]; int state; char why[512]; } cache[32];
    static int n_cache;
    for (int i = 0; i < n_cache; i++)
        if (strcmp(cache[i].path, path) == 0) {
            snprintf(why, cap, "%s", cache[i].why);
            return cache[i].state;
        }
    char want[65], got[65];
    int state = 0;
    why[0] = '\0';
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        state = 1;
        snprintf(why, cap, "fixture %.100s is absent (looked in %.300s; set MLIA_FIXTURES, see tests/fixtures.lock)",
                 rel, path);
    } else {
        fclose(probe);
        if (test_fixture_locked_hash(rel, want) != 0) {
            state = 2;
            snprintf(why, cap, "fixture %.400s is not listed in tests/fixtures.lock", rel);
        } else if (test_sha256_file(path, got) != 0) {
            state = 2;
            snprintf(why, cap, "fixture %.400s cannot be read", path);
        } else if (strcmp(want, got) != 0) {
            state = 2;
            snprintf(why, cap, "fixture %.300s has SHA-256 %s, tests/fixtures.lock says %s", path, got, want);
        }
    }
    if (n_cache < 32) {
        snprintf(cache[n_cache].path, sizeof cache[n_cache].path, "%.4000s", path);
        cache[n_cache].state = state;
        snprintf(cache[n_cache].why, sizeof cache[n_cache].why, "%s", why);
        n_cache++;
    }
    return state;
}

/* Path of a real fixture, e.g. test_fixture("executorch/lenet.etdp"), in a
 * static buffer. Inside a test, an absent fixture skips the test (fails it
 * with MLIA_REQUIRE_FIXTURES=1) and a wrong one fails it; the path is
 * returned either way so callers keep their own checks. */
static inline const char *test_fixture(const char *rel)
{
    static char buf[4096];
    char why[512];
    const char *dir = getenv("MLIA_FIXTURES");
    snprintf(buf, sizeof buf, "%s/%s", dir && *dir ? dir : MLIA_SOURCE_DIR "/../shared/fixtures", rel);
    if (!test_current_name || test_current_skipped)
        return buf;
    const char *require = getenv("MLIA_REQUIRE_FIXTURES");
    switch (test_fixture_state(rel, buf, why, sizeof why)) {
    case 1:
        if (require && strcmp(require, "1") == 0) {
            TEST_FAIL_AT("%s (MLIA_REQUIRE_FIXTURES=1)", why);
        } else {
            test_current_skipped = 1;
            snprintf(test_skip_reason, sizeof test_skip_reason, "%s", why);
        }
        break;
    case 2:
        TEST_FAIL_AT("%s", why);
        break;
    default:
        break;
    }
    return buf;
}

/* For a test using a fixture loaded outside it: returns from the test when
 * the fixture is absent (skip) or wrong (failure). */
#define TEST_NEED_FIXTURE(rel)                                                     \
    do {                                                                           \
        int _f = test_current_failed;                                              \
        test_current_failed = 0;                                                   \
        (void)test_fixture(rel);                                                   \
        if (test_current_skipped || test_current_failed)                           \
            return;                                                                \
        test_current_failed = _f;                                                  \
    } while (0)

#endif
