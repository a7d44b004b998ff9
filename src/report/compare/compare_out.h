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
#include <stdio.h>

#include "analysis/compare.h"
#include "core/json_write.h"
#include "core/str.h"
#include "formats/result_read.h"

typedef struct compare_inputs {
    const char *base_path, *new_path;      /* the mlia-output.json files (the first baseline run) */
    const result_doc *base, *new_;         /* base: the baseline run, or the pool of several */
    const char *const *warnings;           /* unescaped; writers escape for the terminal */
    uint32_t n_warnings;
    const char *base_page_path;            /* the runs' pages (checked by the reader), or NULL / -1 */
    int base_page_fd;
    const char *new_page_path;
    int new_page_fd;
    compare_identity identity;             /* how the programs relate (analysis/compare.h) */
    uint32_t n_base;                       /* baseline runs (base is their pool when > 1) */
    const char *const *base_paths;         /* [n_base] */
    const result_doc *const *base_docs;    /* [n_base] */
    uint32_t n_settings;                   /* settings that differ, every baseline run against new */
    const compare_setting *settings;
    bool tested_only;                      /* the gate counts tested regressions only (--tested-only) */
} compare_inputs;

/* What --fail-on-regression counts: entities (the model included) whose
 * verdict is a regression, or a likely one unless tested_only. */
uint32_t compare_gate_count(const compare_result *r, bool tested_only);

/* How many rows the console lists per table, and its width. */
#define COMPARE_TOP 10
#define COMPARE_CONSOLE_WIDTH 100     /* not a terminal */
#define COMPARE_CONSOLE_MIN_WIDTH 80
#define COMPARE_CONSOLE_MAX_WIDTH 400

/* Rows of one verdict into out (room for r->n_rows), largest |percent|
 * first, ties by entity id then series. Returns their number. */
uint32_t compare_rows_of(const compare_result *r, compare_verdict v, const compare_row **out);
/* A series key for people: "execution_time|attribution=shared" reads
 * "execution_time (shared)", other qualifiers keep "key=value". malloc'd. */
char *compare_series_label(const char *series);

void compare_write_json(const compare_inputs *in, const compare_result *r, mlia_jw *w);
/* The console text: header, warnings, the regressions and improvements
 * tables (or "No change beyond T %"), the entities on one side. Every text
 * from the inputs is escaped (core/error.h mlia_escape_text); console_width
 * 0 means COMPARE_CONSOLE_WIDTH, others are clamped to [MIN, MAX]. */
char *compare_console(const compare_inputs *in, const compare_result *r, unsigned console_width);

/* The page, streamed to fp: the template with data = the new run's page
 * data plus "compare" (summary, per-entity deltas) and "baseline_page" (the
 * baseline's page data), both copied from the runs' pages as they are read
 * (formats/result_read.h result_page_data, which checks them again).
 * Returns 0, or -1 with err set (a page that changed since it was checked,
 * or a template without its placeholder). */
int compare_write_page(const compare_inputs *in, const compare_result *r, FILE *fp, mlia_error *err);

#endif
