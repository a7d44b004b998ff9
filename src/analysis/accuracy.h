/*
 * accuracy.h - numerical accuracy from the ETDump's intermediate outputs
 * (issue 23; the rules are in docs/accuracy.md).
 *
 * Input: the selected method's executions of a capture whose DebugEvents
 * log operator outputs (and program outputs), the debug buffer holding
 * their bytes, the method's ETRecord maps and edge program, and optionally
 * a reference capture of the same program (e.g. a CPU run) with its own
 * buffer. Output: per source operator (and per delegate call, its first
 * output), P50/min/max over executions of
 *   output_min, output_max, output_mean, output_nan_count   (the run alone)
 *   output_mse, output_max_abs_error, output_snr_db,
 *   output_cosine_similarity                                (with a reference)
 * added to the result as breakdown metrics, and warnings.
 *
 * Debug events are matched to source operators as profile events are: an
 * instruction's debug handles (debug_handle_map), a delegate call's handles
 * or its backend's delegate debug ids (delegate_map). Reference executions
 * pair with run executions in order; run and reference outputs pair per
 * source operator.
 *
 * Memory: tensors are decoded one at a time, in chunks of ACCURACY_CHUNK
 * elements, through the debug buffers' read functions; nothing is
 * proportional to a tensor's or a buffer's size. What is kept is one value
 * per metric, measured operator and execution.
 *
 * Every computation is in double precision. NaN is treated as ExecuTorch's
 * numerical comparators treat it (replaced by 0 in both tensors before the
 * error metrics); NaN and ±Inf are excluded from min/max/mean and counted in
 * output_nan_count. An infinite SNR (identical outputs) is never written as a
 * number: that statistic is unavailable with the reason.
 *
 * Ownership: entities, metrics, warnings and the analysis record live in the
 * arena / result passed in; scratch buffers are freed before returning.
 */
#ifndef MLIA_ANALYSIS_ACCURACY_H
#define MLIA_ANALYSIS_ACCURACY_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/result.h"
#include "core/arena.h"
#include "core/error.h"
#include "formats/debug_buffer.h"

struct etdump;
struct etrecord_method;
struct ep_program;

/* Elements decoded per read (per side). */
#define ACCURACY_CHUNK 16384u

/* One capture: its executions of the method and its debug buffer. */
typedef struct accuracy_capture {
    const struct etdump *dump;
    const char *label;                  /* "run" / "reference" in messages */
    const uint32_t *execution_runs;     /* run indexes of the method's executions */
    uint32_t n_executions;
    const debug_buffer *buffer;         /* NULL: no debug buffer was given */
} accuracy_capture;

typedef struct accuracy_inputs {
    const char *method;                       /* entity ids: delegate_call/<method>/... */
    const struct etrecord_method *maps;       /* may be NULL (nothing can be matched) */
    const struct ep_program *program;         /* may be NULL (idem) */
    mlia_entity *const *node_entities;        /* [program nodes]: source operator entities */
    accuracy_capture run;
    const accuracy_capture *reference;        /* NULL: statistics of the run only */
} accuracy_inputs;

typedef struct accuracy_analysis {
    bool has_outputs;            /* the run's executions hold debug events with tensors */
    bool compared;               /* a reference was given and paired */
    uint32_t n_pairs;            /* executions compared (min of the two counts) */
    uint64_t n_run_outputs;      /* operator output events of the run (program outputs apart) */
    uint64_t n_program_outputs;  /* program output events of the run */
    uint64_t n_unmatched;        /* run operator outputs matched to no source operator */
    uint32_t n_measured;         /* entities with output statistics */
    uint32_t n_compared;         /* entities with at least one error metric value */
} accuracy_analysis;

/* Analyse; 0, or -1 with *err (a tensor beyond its buffer, a read error).
 * Warnings go to `result`. */
int accuracy_analyse(const accuracy_inputs *in, mlia_result *result, mlia_arena *arena, accuracy_analysis **out,
                     mlia_error *err);

/* Metric names in emission order, and their units. */
#define ACCURACY_N_METRICS 9
extern const char *const accuracy_metric_names[ACCURACY_N_METRICS];
const char *accuracy_metric_unit(const char *name);

#endif
