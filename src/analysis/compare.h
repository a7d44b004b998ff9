/*
 * compare.h - run-to-run comparison of two mlia outputs (docs/compare.md).
 *
 * Entities are matched by id; metrics of a matched entity by series (metric
 * name + every qualifier except `statistic`). A series' P50 is its
 * `statistic: p50` value (or its only value when it has no statistic), and
 * [min, max] its min/max values (the P50 when absent).
 *
 * Verdict of one series (threshold T percent, COMPARE_MIN_SAMPLES = 3):
 *   inconclusive  a P50 is missing or unavailable on one side, either side
 *                 has fewer than 3 samples, or the baseline P50 is 0 while
 *                 the new one is not;
 *   regression /  the new P50 lies outside the baseline's [min, max] AND
 *   improvement   |percent| > T; regression when the change goes the bad
 *                 way for the metric's direction;
 *   unchanged     otherwise.
 * Direction: inferences_per_second, target_utilization, output_snr_db and
 * output_cosine_similarity are better when higher; metrics in ms, cycles or
 * bytes (or named *_time, *_cycles), output_mse, output_max_abs_error and
 * output_nan_count are better when lower; other metrics (coverage, counts,
 * output statistics) are not compared. An output error metric whose
 * baseline P50 is 0 and whose new P50 exceeds the baseline's max is a
 * regression (an exact operator that no longer is).
 *
 * Ownership: the comparison lives in the arena given to compare_run and
 * borrows strings from the two documents.
 */
#ifndef MLIA_ANALYSIS_COMPARE_H
#define MLIA_ANALYSIS_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "formats/result_read.h"

#define COMPARE_MIN_SAMPLES 3
#define COMPARE_DEFAULT_THRESHOLD 5.0

typedef enum compare_verdict {
    COMPARE_UNCHANGED = 0,
    COMPARE_REGRESSION,
    COMPARE_IMPROVEMENT,
    COMPARE_INCONCLUSIVE
} compare_verdict;

typedef struct compare_side {
    bool present;             /* the series exists with a numeric P50 */
    double p50, min, max;
    uint32_t samples;
} compare_side;

typedef struct compare_row {
    const char *entity_id, *entity_kind, *entity_name;
    const char *metric, *unit, *series, *attribution;
    bool higher_is_better;
    compare_side base, new_;
    bool has_delta;           /* both P50 present */
    double delta;             /* new - baseline */
    bool has_percent;         /* baseline P50 != 0 */
    double percent;           /* 100 * delta / baseline */
    compare_verdict verdict;
    const char *reason;       /* inconclusive: why; NULL otherwise */
} compare_row;

typedef struct compare_result {
    double threshold;
    uint32_t n_rows;
    compare_row *rows;        /* sorted by (entity id, series) */
    uint32_t n_only_base, n_only_new;
    const rr_entity **only_base, **only_new; /* sorted by id */
    uint32_t n_entities;      /* matched entities (the model included) */
    uint32_t counts[4];       /* per verdict */
} compare_result;

const char *compare_verdict_name(compare_verdict v);

/* Identity of two runs (docs/compare.md "Identity"): by the program
 * fingerprint `mlia check` records, never by file name. */
typedef enum compare_identity {
    COMPARE_SAME_PROGRAM = 0,   /* equal program fingerprints */
    COMPARE_UNVERIFIED,         /* a side has no fingerprint (older mlia); same method */
    COMPARE_DIFFERENT_PROGRAMS  /* different fingerprints, or different methods */
} compare_identity;

/* Relation of `new_`'s program to `base`'s. For different programs, `what`
 * (capacity cap) says what differs, e.g. "method 'decode' instead of
 * 'forward', 13 operators instead of 12, 2 delegate segments instead of 1";
 * when the counts agree it says so ("the same method and counts (12
 * operators, 1 delegate segment) but a different graph: node names,
 * targets, debug handles or delegated handles"). */
compare_identity compare_programs(const result_doc *base, const result_doc *new_, char *what, size_t cap);

/* Compare two documents (already checked for the same model, method and
 * schema by the caller). */
void compare_run(const result_doc *base, const result_doc *new_, double threshold, mlia_arena *arena,
                 compare_result *out);

/* Pooled baselines (docs/compare.md "Pooled baselines"): several runs of
 * the same program as one baseline document, pooled by execution. Per
 * (entity, series): P50 = the weighted median of the runs' P50s, each run
 * weighing its samples (executions), i.e. the nearest-rank median of the
 * executions when every run has one execution, and the median of the
 * pooled executions estimated from the runs' medians otherwise; [min, max]
 * = the envelope of the runs' ranges; samples = their sum. Series
 * unavailable in every run stay unavailable. Entities: the union by id.
 * The other fields (schema, model, method, fingerprint) are the first
 * run's. Everything lives in `a`, borrowing strings from the documents. */
void compare_pool(const result_doc *const *docs, uint32_t n, mlia_arena *a, result_doc *out);

/* Nearest-rank median of values weighted by weights (0 counts as 1): the
 * ceil(W / 2)-th smallest of the values repeated by their weights. */
double compare_weighted_median(const double *values, const uint32_t *weights, uint32_t n, mlia_arena *a);

#endif
