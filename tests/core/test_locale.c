/*
 * Numbers are written and read the same whatever the host's locale (issue
 * 21 item 1, src/core/cnum.h): a host that called setlocale(LC_ALL,
 * "de_DE.UTF-8") (decimal comma) gets the same JSON, console text and
 * comparison as one in the "C" locale. Skipped with the reason when
 * de_DE.UTF-8 is not generated (tools/setup.sh generates it as root).
 */
#include "test.h"

#include <locale.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/arena.h"
#include "core/cnum.h"
#include "core/error.h"
#include "core/json_read.h"
#include "core/json_write.h"
#include "core/str.h"
#include "mlia/mlia.h"

static const char *german;
static char tmp_root[] = "/tmp/mlia-locale-XXXXXX";
static char etrecord[512], etdump[512], out_c[512], out_de[512];

#define NEED_GERMAN()                                                                      \
    do {                                                                                   \
        if (!german) {                                                                     \
            test_current_skipped = 1;                                                      \
            snprintf(test_skip_reason, sizeof test_skip_reason,                            \
                     "locale de_DE.UTF-8 is not generated (tools/setup.sh: localedef -i "  \
                     "de_DE -f UTF-8 de_DE.UTF-8)");                                       \
            return;                                                                        \
        }                                                                                  \
        setlocale(LC_ALL, german);                                                         \
    } while (0)

TEST(host_locale_really_has_decimal_comma)
{
    NEED_GERMAN();
    char buf[32];
    snprintf(buf, sizeof buf, "%.1f", 1.5);
    CHECK_STR(buf, "1,5"); /* the premise of the tests below */
    CHECK_DBL(strtod("1.75", NULL), 1.0);
    setlocale(LC_ALL, "C");
}

TEST(json_numbers_in_german_locale)
{
    NEED_GERMAN();
    char buf[32];
    mlia_format_double(buf, 1.898821);
    CHECK_STR(buf, "1.898821");
    mlia_format_double(buf, 123456789.125);
    CHECK_STR(buf, "123456789.125");
    mlia_format_double(buf, 1e-7);
    CHECK_STR(buf, "1e-07");
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_jw w;
    mlia_jw_init_buf(&w, &b, false);
    mlia_jw_arr_begin(&w);
    mlia_jw_double(&w, 0.5);
    mlia_jw_double(&w, 2.25);
    mlia_jw_arr_end(&w);
    mlia_jw_finish(&w);
    CHECK(b.data != NULL);
    CHECK_STR(b.data, "[0.5,2.25]");
    mlia_buf_free(&b);

    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_error_clear(&err);
    mlia_json *v = NULL;
    const char *text = "[1.898821, 2.5e3, -0.125]";
    CHECK_INT(mlia_json_parse(text, strlen(text), NULL, &a, &v, NULL, &err), 0);
    CHECK_DBL(v->u.array.items[0]->u.number.d, 1.898821);
    CHECK_DBL(v->u.array.items[1]->u.number.d, 2500.0);
    CHECK_DBL(v->u.array.items[2]->u.number.d, -0.125);
    mlia_arena_free(&a);
    setlocale(LC_ALL, "C");
}

TEST(printf_helpers_in_german_locale)
{
    NEED_GERMAN();
    mlia_buf b;
    mlia_buf_init(&b);
    mlia_buf_printf(&b, "%.3f ms", 1.5);
    CHECK_STR(b.data, "1.500 ms");
    mlia_buf_free(&b);
    mlia_arena a;
    mlia_arena_init(&a);
    CHECK_STR(mlia_arena_printf(&a, "%g", 0.25), "0.25");
    mlia_arena_free(&a);
    char buf[32];
    mlia_snprintf(buf, sizeof buf, "%.2f", 66.666);
    CHECK_STR(buf, "66.67");
    CHECK_DBL(mlia_strtod("1.75", NULL), 1.75);
    mlia_error err;
    mlia_error_clear(&err);
    mlia_error_setf(&err, "f", "%.1f%%", 12.5);
    CHECK_STR(err.text, "f: 12.5%");
    setlocale(LC_ALL, "C");
}

/* Line by line, lines naming the run (id, time, output folder) aside:
 * returns the first differing line of `b` (static copy) or NULL. */
static const char *first_difference(const char *a, const char *b)
{
    static char line[400];
    while (*a || *b) {
        const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
        size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
        int skip = (strstr(a, "\"run_id\"") && strstr(a, "\"run_id\"") < a + la) ||
                   (strstr(a, "\"timestamp\"") && strstr(a, "\"timestamp\"") < a + la) ||
                   (strstr(a, "/c/") && strstr(a, "/c/") < a + la) || (strstr(a, "/c\"") && strstr(a, "/c\"") < a + la);
        if (!skip && (la != lb || memcmp(a, b, la) != 0)) {
            snprintf(line, sizeof line, "%.*s | %.*s", (int)(la > 180 ? 180 : la), a, (int)(lb > 180 ? 180 : lb), b);
            return line;
        }
        a += la + (ea != NULL);
        b += lb + (eb != NULL);
    }
    return NULL;
}

#define CHECK_SAME(a, b)                                                                   \
    do {                                                                                   \
        const char *_d = first_difference((a), (b));                                      \
        if (_d) {                                                                          \
            TEST_FAIL_AT("%s and %s differ: %s", #a, #b, _d);                              \
            return;                                                                        \
        }                                                                                  \
    } while (0)

static int run_check(const char *out_dir, mlia_check_output *out, char **error)
{
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = etrecord;
    o.etdump_path = etdump;
    o.output_dir = out_dir;
    o.model_explorer = "files";
    o.trace = "json"; /* trace.json: its numbers are formatted text */
    return mlia_check(&o, out, error);
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, f) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s)
        s[n] = 0;
    fclose(f);
    return s;
}

/* The whole job: result JSON, console, trace and compare are the same bytes
 * in the German locale as in "C" (the host's global locale is left as the
 * host set it). */
TEST(check_and_compare_same_bytes_in_german_locale)
{
    NEED_GERMAN();
    setlocale(LC_ALL, "C");
    mlia_check_output c, d;
    char *error = NULL;
    CHECK_INT(run_check(out_c, &c, &error), 0);
    setlocale(LC_ALL, german);
    int rc = run_check(out_de, &d, &error);
    if (rc)
        printf("  %s\n", error);
    CHECK_INT(rc, 0);
    CHECK(strcmp(setlocale(LC_NUMERIC, NULL), german) == 0); /* the host's locale is untouched */
    CHECK(strchr(c.result_json, '.') != NULL);
    CHECK_SAME(c.result_json, d.result_json);
    CHECK_SAME(c.console, d.console);
    char p1[700], p2[700];
    snprintf(p1, sizeof p1, "%s/mlia-output/trace.json", out_c);
    snprintf(p2, sizeof p2, "%s/mlia-output/trace.json", out_de);
    char *t1 = slurp(p1), *t2 = slurp(p2);
    CHECK(t1 && t2);
    CHECK_SAME(t1, t2);
    free(t1);
    free(t2);
    mlia_check_output_free(&c);
    mlia_check_output_free(&d);

    mlia_compare_options co;
    memset(&co, 0, sizeof co);
    co.baseline = out_c;
    co.new_run = out_de;
    co.threshold = 2.5;
    mlia_compare_output x, y;
    setlocale(LC_ALL, "C");
    CHECK_INT(mlia_compare(&co, &x, &error), 0);
    setlocale(LC_ALL, german);
    CHECK_INT(mlia_compare(&co, &y, &error), 0);
    CHECK_SAME(x.json, y.json);
    CHECK_SAME(x.console, y.console);
    CHECK_CONTAINS(y.console, "2.5");
    mlia_compare_output_free(&x);
    mlia_compare_output_free(&y);
    setlocale(LC_ALL, "C");
}

int main(void)
{
    german = setlocale(LC_ALL, "de_DE.UTF-8") ? "de_DE.UTF-8" : NULL;
    setlocale(LC_ALL, "C");
    if (!mkdtemp(tmp_root))
        return 1;
    snprintf(etrecord, sizeof etrecord, "%s/demo.etrecord", tmp_root);
    snprintf(etdump, sizeof etdump, "%s/demo.etdump", tmp_root);
    snprintf(out_c, sizeof out_c, "%s/c", tmp_root);
    snprintf(out_de, sizeof out_de, "%s/de", tmp_root);
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' && python3 tools/mkfixture.py samples/demo.json '%s' >/dev/null && mkdir -p '%s' '%s'",
             MLIA_SOURCE_DIR, tmp_root, out_c, out_de);
    int st = system(cmd);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("FAIL setup: %s\n", cmd);
        printf("0 passed, 1 failed, 0 skipped\n");
        return 1;
    }
    RUN(host_locale_really_has_decimal_comma);
    RUN(json_numbers_in_german_locale);
    RUN(printf_helpers_in_german_locale);
    RUN(check_and_compare_same_bytes_in_german_locale);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
    st = system(cmd);
    (void)st;
    return test_summary();
}
