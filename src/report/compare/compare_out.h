/*
 * compare_out.h - writers of `mlia compare`: compare.json, the console
 * tables, and the comparison page (the page asset in compare mode).
 *
 * Ownership: the writers borrow their inputs; compare_console returns a
 * malloc'ed string the caller frees.
 */
#ifndef MLIA_REPORT_COMPARE_OUT_H
#define MLIA_REPORT_COMPARE_OUT_H

#include <stddef.h>

#include "analysis/compare.h"
#include "core/json_write.h"
#include "core/str.h"
#include "formats/result_read.h"

typedef struct compare_inputs {
    const char *base_path, *new_path;      /* the mlia-output.json files */
    const result_doc *base, *new_;
    const char *const *warnings;           /* unescaped; writers escape for the terminal */
    uint32_t n_warnings;
} compare_inputs;

/* How many rows the console and the page list per table. */
#define COMPARE_TOP 10

void compare_write_json(const compare_inputs *in, const compare_result *r, mlia_jw *w);
char *compare_console(const compare_inputs *in, const compare_result *r);

/* The page: the template with data = the new run's page data plus
 * "compare" (summary, per-entity deltas) and "baseline_page" (the baseline's
 * page data). base_page/new_page are the page JSON texts of both runs
 * (html-safe, as embedded in their index.html). Returns -1 when the
 * template has no placeholder or new_page is not a JSON object text. */
int compare_write_page(const compare_inputs *in, const compare_result *r, const char *base_page, size_t base_len,
                       const char *new_page, size_t new_len, mlia_buf *out);

#endif
