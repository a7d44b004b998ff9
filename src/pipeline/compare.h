/*
 * compare.h - the `mlia compare` pipeline (compare.c).
 */
#ifndef MLIA_PIPELINE_COMPARE_H
#define MLIA_PIPELINE_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "analysis/compare.h"
#include "formats/result_read.h"
#include "pipeline/options.h"
#include "report/outdir.h"

/* Largest mlia-output.json or page `mlia compare` reads (docs/compare.md
 * "Safe inputs"): far above any real result, far below what a planted
 * sparse file could claim. */
#define COMPARE_MAX_INPUT (1ull << 30)

/* The folder DIR/compare holding compare.json and compare.html. */
#define COMPARE_OUTDIR_NAME "compare"

/* One run of a comparison: its result, and its page when it has one. */
typedef struct compare_input {
    const char *json_path;      /* arena string */
    result_doc doc;             /* in the session's arena */
    const char *page_path;      /* model-explorer/bundle/index.html beside it, or NULL */
    int page_fd;                /* open page (checked), or -1 */
    int json_fd;                /* mlia-output.json while it is read, else -1 */
} compare_input;

#define COMPARE_MAX_WARNINGS 64
/* Baseline runs pooled at most (BASELINE, --baseline, folders of runs). */
#define COMPARE_MAX_BASELINES 1024u

/* What one comparison owns; released by compare_session_free, also after an
 * out-of-memory jump out of compare_session_run. */
typedef struct compare_session {
    mlia_arena arena;
    uint32_t n_baselines;
    compare_input *baselines;   /* arena array: every baseline run, pooled when several */
    compare_input new_run;
    mlia_outdir outdir;         /* the compare/ folder being written */
    bool outdir_open;
    struct mlia_history *history; /* --baseline-history while it is read, else NULL */
    uint32_t n_warnings;
    const char *warnings[COMPARE_MAX_WARNINGS]; /* arena strings, unescaped */
    uint32_t n_settings;
    compare_setting *settings;  /* arena: settings that differ, every baseline run against new */
} compare_session;

/* What a comparison hands back (malloc'd strings, the caller's to free):
 * the public mlia_compare_output's members. */
typedef struct compare_outputs {
    char *json;                  /* compare.json text */
    char *console;               /* the console tables */
    char *json_path, *page_path; /* the files written, or NULL */
    unsigned regressions;        /* what --fail-on-regression counts (tested, and likely unless tested_only) */
    unsigned improvements;
    char *warnings;              /* one escaped line per warning, or NULL */
} compare_outputs;

/* Bytes of every input the options name (each run's mlia-output.json and
 * page, every run of a folder of runs), for the memory cap
 * (core/oom.h mlia_memory_limit): a pooled baseline needs memory for all
 * its runs, not for the first. Paths are allocated in `scratch`. */
unsigned long long compare_input_bytes(const mlia_compare_config *opts, mlia_arena *scratch);

void compare_session_init(compare_session *cs, size_t memory_limit);
/* Reads every run, compares them and fills `out`; writes DIR/compare/ when
 * the resolved options `opts` ask for files. Returns 0, or 1 with *err set. */
int compare_session_run(compare_session *cs, const mlia_compare_config *opts, compare_outputs *out,
                        mlia_error *err);
/* Removes a compare/ folder being written (out-of-memory path). */
void compare_session_abort_outputs(compare_session *cs);
void compare_session_free(compare_session *cs);

#endif
