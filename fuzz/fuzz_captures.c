/*
 * fuzz_captures.c - libFuzzer target: several captures pooled in one run
 * (docs/captures.md) through mlia_check.
 *
 * Input (fuzz_util.h parts): one to four ETDumps, all checked against the
 * NX sample's ETRecord (FUZZ_WORK/demo.etrecord): their executions are
 * pooled, their NX statistics decoded per capture, and the result made in
 * memory. The call must return 0, 1 or 2 with a one-line error.
 */
#include "fuzz_util.h"

#include "mlia/mlia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_part p[4];
    size_t n = fuzz_split(data, size, p, 4);
    char model[600], paths[4][600];
    const char *dumps[4];
    for (size_t i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "cap%zu.etdump", i);
        dumps[i] = fuzz_write(paths[i], sizeof paths[i], name, p[i].data, p[i].n);
    }
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = fuzz_path(model, sizeof model, "demo.etrecord");
    o.etdump_paths = dumps;
    o.n_etdump_paths = (int)n;
    mlia_check_output out;
    char *error = NULL;
    int rc = mlia_check(&o, &out, &error);
    fuzz_accept_status(rc, 2, error); /* class 1 (input) or 2 (usage) */
    if (rc == 0)
        mlia_check_output_free(&out);
    return 0;
}
