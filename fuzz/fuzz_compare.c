/*
 * fuzz_compare.c - libFuzzer target: the result reader and the comparison
 * (`mlia compare`, docs/compare.md) through mlia_compare.
 *
 * Input (fuzz_util.h parts): a baseline mlia-output.json, a new one and,
 * when there is a third part, a second baseline pooled with the first. The
 * documents are read as `mlia compare` reads them (streamed from their
 * files), compared, and compare.json and the console tables are made in
 * memory. The call must return 0, 1 or 2 with a one-line error.
 */
#include "fuzz_util.h"

#include <sys/stat.h>

#include "mlia/mlia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_part p[3];
    size_t n = fuzz_split(data, size, p, 3);
    char a[600], b[600], c[600];
    mlia_compare_options o;
    memset(&o, 0, sizeof o);
    o.threshold = -1;
    o.baseline = fuzz_write(a, sizeof a, "cmp-a.json", p[0].data, p[0].n);
    o.new_run = fuzz_write(b, sizeof b, "cmp-b.json", n > 1 ? p[1].data : NULL, n > 1 ? p[1].n : 0);
    const char *more[1];
    if (n == 3) {
        more[0] = fuzz_write(c, sizeof c, "cmp-c.json", p[2].data, p[2].n);
        o.baselines = more;
        o.n_baselines = 1;
    }
    mlia_compare_output out;
    char *error = NULL;
    int rc = mlia_compare(&o, &out, &error);
    fuzz_accept_status(rc, 2, error); /* class 1 (input) or 2 (usage) */
    if (rc == 0)
        mlia_compare_output_free(&out);
    return 0;
}
