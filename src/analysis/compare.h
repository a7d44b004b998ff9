/*
 * compare.h - run-to-run comparison of two mlia outputs (docs/compare.md).
 *
 * Entities are matched by id; metrics of a matched entity by series (metric
 * name + every qualifier except `statistic`). A series' P50 is its
 * `statistic: p50` value (or its only value when it has no statistic), and
 * [min, max] its min/max values (the P50 when absent).
 *
 * Verdict of one series (threshold T percent, COMPARE_MIN_SAMPLES = 3):
 *   inconclusive  a P50 is missing or unavailable on one side, or the
 *                 baseline P50 is 0 while the new one is not;
 *   regression /  the new P50 lies outside the baseline's [min, max] AND
 *   improvement   |percent| > T, with at least 3 samples on each side;
 *                 regression when the change goes the bad way for the
 *                 metric's direction;
 *   likely_       the same change with fewer than 3 samples on a side: shown
 *   regression /  by name, never folded into "unchanged", but not tested for
 *   improvement   noise (the baseline range of 1 or 2 executions says little);
 *   unchanged     otherwise.
 *
 * Entities (docs/compare.md "Entities and ranking"): each compared entity
 * but the model gets one verdict, its worst metric's (regression, likely
 * regression, improvement, likely improvement, unchanged, inconclusive, in
 * that order), and that metric as its row. Rows are ranked by the size of
 * the change in time: metrics in ms by |delta| in ms first, then metrics in
 * cycles by |delta| in cycles (a cycle count has no duration without the
 * accelerator's clock, which no capture records), then the others by
 * |percent|.
 * Memory plan figures (planned_memory, memory_pool_*, peak_activation_memory,
 * model_weight_memory, live_bytes, allocated_bytes; docs/memory.md) are
 * exact: no sample rule and no range; a change of more than T percent (or
 * any change from 0) is a regression when the bytes grew, an improvement
 * when they shrank.
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
    COMPARE_INCONCLUSIVE,
    COMPARE_LIKELY_REGRESSION,   /* beyond the threshold, fewer than 3 samples on a side */
    COMPARE_LIKELY_IMPROVEMENT,
    COMPARE_N_VERDICTS
} compare_verdict;

/* Rank families of a change's size (compare_row.family). */
enum { COMPARE_FAMILY_TIME = 0, COMPARE_FAMILY_CYCLES = 1, COMPARE_FAMILY_OTHER = 2 };

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
    int family;               /* COMPARE_FAMILY_*: how its size ranks */
    double size;              /* |delta| (time, cycles) or |percent| (other); 0 without */
} compare_row;

/* One compared entity (the model excluded): its verdict and worst row. */
typedef struct compare_entity {
    const char *id, *kind, *name;
    const char *location;     /* the source location (its code_stack entity's name), or NULL */
    compare_verdict verdict;
    const compare_row *row;   /* the metric that gave the verdict */
    uint32_t n_rows;          /* its compared metrics */
} compare_entity;

typedef struct compare_result {
    double threshold;
    uint32_t n_rows;
    compare_row *rows;        /* sorted by (entity id, series) */
    uint32_t n_only_base, n_only_new;
    const rr_entity **only_base, **only_new; /* sorted by id */
    uint32_t n_entities;      /* matched entities (the model included) */
    uint32_t counts[COMPARE_N_VERDICTS];     /* metrics per verdict */
    uint32_t n_ents;
    compare_entity *ents;     /* every compared entity but the model, by id */
    uint32_t ent_counts[COMPARE_N_VERDICTS]; /* entities per verdict */
    /* the headline: the model's inference_time, inferences_per_second and
     * total_cycles rows (NULL when not compared) */
    const compare_row *headline[3];
    /* executions behind the verdicts: the model's inference_time samples per
     * side (else the fewest of any row); tested = at least 3 on each side */
    uint32_t base_samples, new_samples;
    bool tested;
    compare_verdict model_verdict; /* the model's worst metric (unchanged without rows) */
} compare_result;

/* Settings two runs were analysed with (docs/compare.md "Settings"). */
typedef struct compare_setting {
    const char *name;         /* "clock", "warm-up", "statistics mode", "statistics device", "mlia version" */
    const char *baseline, *new_; /* as people read them */
    bool blocking;            /* the numbers cannot be compared (an error without the override) */
    const char *run;          /* the baseline run it was found in (set by the caller), or NULL */
} compare_setting;

#define COMPARE_N_SETTINGS 5

/* The settings of one run, as text (compare_setting.baseline's form). */
void compare_settings_text(const result_doc *d, const char *text[COMPARE_N_SETTINGS], mlia_arena *a);
/* The settings that differ between base and new_ into out (room for
 * COMPARE_N_SETTINGS); returns their number. The clock, and a statistics
 * mode or device both runs have, block; the rest warn. */
uint32_t compare_settings(const result_doc *base, const result_doc *new_, compare_setting *out, mlia_arena *a);

/* "likely regression" for people; compare_verdict_name gives the key. */
const char *compare_verdict_words(compare_verdict v);
/* Regressions (tested or likely) and improvements (tested or likely). */
bool compare_is_regression(compare_verdict v);
bool compare_is_improvement(compare_verdict v);
/* Rows ranked as the console lists them: family, then size (largest first),
 * then entity id, then series. qsort comparator over const compare_row *. */
int compare_rank_rows(const void *a, const void *b);
/* Entities whose verdict is a regression (regressions true) or an
 * improvement, ranked by their row; into out (room for r->n_ents). */
uint32_t compare_entities_of(const compare_result *r, bool regressions, const compare_entity **out);

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
