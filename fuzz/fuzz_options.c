/*
 * fuzz_options.c - libFuzzer target: option parsing of the public API (the
 * JSON requests of the Python binding and the mlia_check_options struct).
 *
 * Input: one selector byte (mod 3), then
 *   0: a request for mlia_run_advisor_json,
 *   1: a request for mlia_compare_json,
 *   2: the option struct's values: 8 bytes ticks_per_second (a raw double:
 *      NaN, infinities and negatives included), 4 bytes warmup_executions,
 *      one flag byte (bit 0: write outputs, bits 1-6: csv, 1 or MLIA_CSV_* bits)
 *      and then up to three
 *      NUL-separated strings for trace, model_explorer and the method,
 *      on the LeNet sample (FUZZ_WORK/lenet.etrecord + lenet.etdump).
 * The process works in FUZZ_WORK (fuzz/run.sh): a request's relative paths
 * name the sample files there. So that a request can write nowhere else, one
 * with a string holding '/' or ".." is not run (requests of the corpus use
 * plain names; the default run history, "history": true, lives there as
 * well). Every call must return 0 or a declared mlia_status with a
 * one-line error.
 */
#include "fuzz_util.h"

#include "core/arena.h"
#include "core/json_read.h"
#include "mlia/mlia.h"

static int confined(const mlia_json *v)
{
    if (!v)
        return 1;
    switch (v->type) {
    case MLIA_JSON_STRING:
        return !memchr(v->u.string.s, '/', v->u.string.len) && !strstr(v->u.string.s, "..");
    case MLIA_JSON_ARRAY:
        for (size_t i = 0; i < v->u.array.n; i++)
            if (!confined(v->u.array.items[i]))
                return 0;
        return 1;
    case MLIA_JSON_OBJECT:
        for (size_t i = 0; i < v->u.object.n; i++)
            if (memchr(v->u.object.members[i].key, '/', v->u.object.members[i].key_len) ||
                !confined(v->u.object.members[i].value))
                return 0;
        return 1;
    default:
        return 1;
    }
}

/* Whether the request may run: not JSON (the library refuses it) or JSON
 * whose strings name nothing outside the work folder. */
static int request_confined(const char *text, size_t n)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_error_clear(&err);
    mlia_json *root = NULL;
    mlia_json_opts jo = {.max_depth = 64};
    int ok = mlia_json_parse(text, n, &jo, &a, &root, NULL, &err) != 0 || confined(root);
    mlia_arena_free(&a);
    return ok;
}

static void check_code(int rc, char *error)
{
    /* class 1 with a reason, 2, or 3 from mlia_compare_json's
     * fail_on_regression */
    fuzz_accept_status(rc, 3, error);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int in_work;
    if (!in_work) {
        if (chdir(fuzz_work()) != 0)
            abort();
        /* "history": true records into the default history,
         * $XDG_DATA_HOME/mlia/history.sqlite: keep it in the work folder too */
        if (setenv("XDG_DATA_HOME", fuzz_work(), 1) != 0)
            abort();
        in_work = 1;
    }
    if (size < 1)
        return 0;
    uint8_t sel = data[0] % 3;
    data++;
    size--;
    if (sel < 2) {
        char *text = malloc(size + 1);
        if (!text)
            return 0;
        memcpy(text, data, size);
        text[size] = 0;
        if (request_confined(text, size)) {
            char *result = NULL, *error = NULL;
            int rc = sel == 0 ? mlia_run_advisor_json(text, &result, &error)
                              : mlia_compare_json(text, &result, &error);
            mlia_free(result);
            check_code(rc, error);
        }
        free(text);
        return 0;
    }
    if (size < 13)
        return 0;
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    memcpy(&o.ticks_per_second, data, 8);
    uint32_t warmup;
    memcpy(&warmup, data + 8, 4);
    o.warmup_executions = warmup;
    uint8_t flags = data[12];
    /* the strings: a NUL-terminated copy of the rest, cut at its NULs */
    char *rest = malloc(size - 13 + 2);
    if (!rest)
        return 0;
    memcpy(rest, data + 13, size - 13);
    rest[size - 13] = 0;
    rest[size - 13 + 1] = 0;
    const char *s[3] = {NULL, NULL, NULL};
    char *at = rest, *end = rest + (size - 13);
    for (int i = 0; i < 3 && at <= end; i++) {
        s[i] = at;
        at += strlen(at) + 1;
    }
    o.trace = s[0];
    o.model_explorer = s[1] && *s[1] ? s[1] : NULL;
    o.method = s[2] && *s[2] ? s[2] : NULL;
    o.etrecord_path = "lenet.etrecord";
    o.etdump_path = "lenet.etdump";
    o.output_dir = flags & 1 ? "opt-out" : NULL;
    o.skip_result_json_text = 1;
    o.csv = (flags >> 1) & 0x3f;
    mlia_check_output out;
    char *error = NULL;
    int rc = mlia_check(&o, &out, &error);
    if (rc == 0)
        mlia_check_output_free(&out);
    check_code(rc, error);
    free(rest);
    return 0;
}
