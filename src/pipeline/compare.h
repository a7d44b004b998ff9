/*
 * compare.h - the `mlia compare` pipeline (compare.c).
 */
#ifndef MLIA_PIPELINE_COMPARE_H
#define MLIA_PIPELINE_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "formats/result_read.h"
#include "mlia/mlia.h"

/* One side of a comparison: its result, and its page data when it has one.
 * text and page are malloc'd (freed by compare_session_free). */
typedef struct compare_input {
    const char *json_path;
    char *text;
    size_t len;
    result_doc doc;
    char *page;                 /* the page file, when present */
    size_t page_len;
    const char *data;           /* the page data JSON inside it */
    size_t data_len;
} compare_input;

/* What one comparison owns; released by compare_session_free, also after an
 * out-of-memory jump out of compare_session_run. */
#define COMPARE_MAX_WARNINGS 64

typedef struct compare_session {
    mlia_arena arena;
    compare_input baseline, new_run;
    uint32_t n_warnings;
    const char *warnings[COMPARE_MAX_WARNINGS]; /* arena strings, unescaped */
} compare_session;

void compare_session_init(compare_session *cs, size_t memory_limit);
/* Reads both sides, compares them and fills `out` (malloc'd fields, freed by
 * mlia_compare_output_free); with opts->output_dir also writes the files.
 * Returns 0, or 1 with *err set. */
int compare_session_run(compare_session *cs, const mlia_compare_options *opts, mlia_compare_output *out,
                        mlia_error *err);
void compare_session_free(compare_session *cs);

#endif
