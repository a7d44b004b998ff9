/*
 * tree_digest.h - what an out-of-memory test compares: the run that
 * absorbed a failed allocation (returned 0) must have written the same
 * bytes as the run without failures. Header-only, shared by
 * tests/api/test_entry_oom.c and tests/oom/sweep.c.
 *
 * oom_tree_digest(dir) lists every regular file under dir (sorted paths,
 * logs/mlia.log left out: it holds timings) with its SHA-256, one
 * "<hash>  <path>" line each, through sha256sum(1). Runs are reproducible
 * when SOURCE_DATE_EPOCH is set (docs/architecture.md, "Determinism").
 * Returns a malloc'd string (the caller frees it), "" for an empty or
 * missing folder, NULL when the listing could not be made. Call it only
 * while no allocation failure is armed.
 */
#ifndef MLIA_TESTS_OOM_TREE_DIGEST_H
#define MLIA_TESTS_OOM_TREE_DIGEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *oom_tree_digest(const char *dir)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "cd '%s' 2>/dev/null && find . -type f ! -path '*/logs/mlia.log' -print0 | LC_ALL=C sort -z |"
             " xargs -0r sha256sum",
             dir);
    FILE *p = popen(cmd, "r");
    if (!p)
        return NULL;
    size_t cap = 4096, len = 0;
    char *out = malloc(cap);
    if (!out) {
        pclose(p);
        return NULL;
    }
    size_t k;
    while ((k = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += k;
        if (cap - len < 2) {
            char *bigger = realloc(out, cap * 2);
            if (!bigger) {
                free(out);
                pclose(p);
                return NULL;
            }
            out = bigger;
            cap *= 2;
        }
    }
    out[len] = 0;
    pclose(p);
    return out;
}

/* Where two digests start to differ (for the failure message), in buf. */
static const char *oom_digest_difference(const char *want, const char *got, char *buf, size_t size)
{
    while (*want && *want == *got) {
        want++;
        got++;
    }
    snprintf(buf, size, "expected \"%.120s\", got \"%.120s\"", want, got);
    return buf;
}

#endif
