/*
 * runtime.h - runtime timing analysis (docs/analysis.md).
 *
 * Input: the ETDump's "Execute" blocks that belong to the selected method,
 * the method's ETRecord maps and its edge program. Output: entities and
 * breakdown metrics in an mlia_result (source operators, nn.Module and code
 * stack entities, delegate calls, runtime events), the model's
 * inference_time, plus a runtime_analysis record that the view writers use
 * (node -> entity, event tree per delegate call, per-execution
 * Method::execute intervals).
 *
 * The event loop is linear in the number of events and allocates nothing per
 * event: instruction sites are interned once into dense slots, per-execution
 * sums live in slot-indexed arrays, and children-first ordering (children are
 * appended before their wrapper) lets each wrapper consume its pending
 * children when it arrives.
 *
 * Ownership: everything is allocated from the arena passed in.
 */
#ifndef MLIA_ANALYSIS_RUNTIME_H
#define MLIA_ANALYSIS_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis/result.h"
#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"

struct etdump;
struct etrecord;
struct etrecord_method;
struct ep_program;
struct pte_program;

/* Method selection and execution attribution (docs/analysis.md, "Method and
 * executions"). */
typedef struct method_selection {
    const struct etrecord_method *method;
    const char *name;
    uint32_t n_executions;
    uint32_t *execution_runs;   /* ascending run indexes */
    uint32_t n_unmatched;       /* runtime_select_method_capture: executions of another program */
} method_selection;

/* Select the method (requested may be NULL) and the executions that belong
 * to it. Warnings (unmatched / ambiguous executions) go to `result`. Errors:
 * unknown method (lists the recorded ones), several methods without a
 * selection, no method at all. `etrecord_path` names the file in errors. */
int runtime_select_method(const struct etrecord *etr, const char *etrecord_path, const char *requested,
                          const struct etdump *dump, const struct pte_program *companion,
                          mlia_arena *arena, mlia_result *result, method_selection *out,
                          mlia_error *err);

/* Decode once (issue 20): a visitor for etdump_read_visiting that works
 * out, while the ETDump is validated, which of etr's methods each
 * "Execute" block fits (maps only); runtime_select_method then decodes no
 * run when it needs no companion plan. false (v untouched) when etr has
 * no method or more than 64. etr must outlive the dump. */
struct etdump_visitor;
bool runtime_fit_visitor(const struct etrecord *etr, struct etdump_visitor *v);


/* The same for one capture of several (src/pipeline/captures.c): when no
 * execution fits the method and some fit no recorded method (a capture of
 * another program), returns 0 with out->n_executions == 0 and
 * out->n_unmatched > 0, and appends "run R, event K: <why>" to *misfit,
 * so that the caller can name the pair of captures. */
int runtime_select_method_capture(const struct etrecord *etr, const char *etrecord_path, const char *requested,
                                  const struct etdump *dump, const struct pte_program *companion,
                                  mlia_arena *arena, mlia_result *result, method_selection *out,
                                  mlia_buf *misfit, mlia_error *err);

/* The fix said after every "not recorded from the program of" error. */
#define RUNTIME_MISMATCH_FIX                                                                                         \
    "give the ETDump of a run of that program, or the ETRecord exported with the program that wrote this ETDump"

/* The kernels a capture ran against the operators the ETRecord records at
 * their instructions (docs/hardening.md "Mismatched inputs"): the maps only
 * check instruction ids and call kinds, so a capture of another program
 * whose calls land on instructions of the same kinds would pass them. Each
 * native_call_<op> kernel event of execution block `run` at an instruction
 * of method m with a debug handle is compared, by operator name (namespace
 * and overload left out), with the targets of that handle's nodes in prog.
 * Returns 1 with *why set ("the kernels it ran differ ...") when at least
 * RUNTIME_KERNEL_MIN kernels were compared and more than half differ, 0
 * otherwise (also when nothing can be compared), -1 with *err on a read
 * error. Index memory from arena. */
#define RUNTIME_KERNEL_MIN 3u
struct ep_program;
int runtime_check_kernels(const struct etdump *dump, uint32_t run, const struct etrecord_method *m,
                          const struct ep_program *prog, mlia_arena *arena, mlia_buf *why, mlia_error *err);

/* The recorded methods that at least one "Execute" block of `dump` fits
 * (companion plans when given), appended to *names as "a, b" (at most ten,
 * then "and N more"). Returns their number, or -1 with *err set. */
int runtime_capture_methods(const struct etrecord *etr, const struct etdump *dump,
                            const struct pte_program *companion, mlia_buf *names, mlia_error *err);

/* The unit class of a delegate event's value (end - start), as its backend
 * says (src/backends/backend.h, event_unit; docs/delegates.md, "Units and
 * clocks"). Only RUNTIME_UNIT_CPU_TICKS events share the DELEGATE_CALL's
 * clock: they are nested by time, laid out when duration-only, counted in
 * the call's coverage and scaled by the CPU tick rate. Every other class is
 * booked on its own under the call (parent = the call), never summed with
 * CPU time, never scaled by the CPU tick rate, and summarised in its own
 * metric: NS and US as execution_time in ms (ns / 10^6, us / 10^3: the
 * backend's own clock), CYCLES as metric "cycles" (unit cycles), COUNT as
 * "count" (unit count), BYTES as "bytes" (unit bytes). */
typedef enum runtime_unit {
    RUNTIME_UNIT_CPU_TICKS = 0, /* the platform tick of DELEGATE_CALL (the default) */
    RUNTIME_UNIT_NS,            /* nanoseconds of another clock (e.g. a GPU's timestamps) */
    RUNTIME_UNIT_US,            /* microseconds (e.g. QNN's "(us)" statistics) */
    RUNTIME_UNIT_CYCLES,        /* device cycles: never converted to time */
    RUNTIME_UNIT_COUNT,         /* a count: never a duration */
    RUNTIME_UNIT_BYTES,         /* a byte count */
} runtime_unit;

/* The metric name and unit of a class ("execution_time"/"ms", "cycles"/
 * "cycles", "count"/"count", "bytes"/"bytes"); static strings. */
const char *runtime_unit_metric(runtime_unit u);
const char *runtime_unit_name(runtime_unit u);

/* Asks the backend of a delegate call (its delegate id, e.g. "QnnBackend")
 * the unit class of one of its events (name = its string id or the decimal
 * int id; meta = delegate_debug_metadata, may be empty). */
typedef runtime_unit (*runtime_unit_fn)(const void *ctx, const char *backend, mlia_str name, const uint8_t *meta,
                                        uint32_t n_meta);

/* One runtime event entity under a delegate call (for the views and trace). */
typedef struct runtime_event_node {
    const char *entity_id;
    const char *name;            /* event name, e.g. VGF_EXECUTE */
    const char *parent_id;       /* parent runtime event or delegate call entity id */
    runtime_unit unit;           /* its unit class (RUNTIME_UNIT_CPU_TICKS: the call's clock) */
} runtime_event_node;

typedef struct runtime_delegate_call {
    const char *entity_id;       /* delegate_call/<method>/<chain>/<instr> */
    const char *backend;
    int64_t chain, instruction;
    uint32_t n_events;
    runtime_event_node *events;  /* first-seen order */
} runtime_delegate_call;

typedef struct runtime_execution {
    uint32_t run_index;
    bool has_execute;            /* Method::execute present */
    uint64_t execute_start, execute_end;
} runtime_execution;

typedef struct runtime_inputs {
    const char *method;                      /* selected method name */
    const struct etdump *dump;
    const uint32_t *execution_runs;
    uint32_t n_executions;
    const struct etrecord_method *maps;      /* may be NULL */
    const struct ep_program *program;        /* may be NULL */
    const char *time_unit;                   /* "ns" */
    double ticks_per_ms;                     /* 1e6 for ns */
    bool keep_series;                        /* keep every summary's per-execution values (--csv) */
    runtime_unit_fn event_unit;              /* may be NULL: every event in CPU ticks */
    const void *event_unit_ctx;
    struct runtime_prescan *prescan;         /* may be NULL: the scan done on the validation pass
                                                (runtime_prescan_new), taken when it scanned these
                                                executions; the caller still frees it */
} runtime_inputs;

/* The per-execution values behind one timing summary (runtime_inputs.keep_series):
 * ticks[x] for execution x of the analysis, UINT64_MAX when not measured. */
typedef struct runtime_series {
    const char *entity_id;                   /* "model" for inference_time */
    const char *metric;                      /* execution_time, kernel_time, unattributed_time,
                                                inference_time */
    const uint64_t *ticks;                   /* [n_executions] */
    runtime_unit unit;                       /* RUNTIME_UNIT_CPU_TICKS: ticks of the ETDump clock;
                                                else the event's own unit class (ns, us, cycles,
                                                count, bytes), never converted with the CPU rate */
} runtime_series;

typedef struct runtime_analysis {
    uint32_t n_nodes;
    mlia_entity **node_entities;             /* [n_nodes], graph node order */
    uint32_t n_calls;
    runtime_delegate_call *calls;
    uint32_t n_executions;
    runtime_execution *executions;
    uint64_t dropped_events;                 /* end < start */
    uint64_t duration_only_events;           /* backend events laid out as durations */
    uint32_t n_timed_nodes;                  /* nodes with execution_time */
    bool one_pass;                           /* the executions were scanned on the validation pass
                                                (runtime_inputs.prescan taken), not decoded again */
    const char *nothing_attributed;          /* calls were measured but none could be attributed to the
                                                program: the explanation (a warning of the result), else NULL */
    /* inference time summary (ms) */
    bool has_inference;
    double inference_p50, inference_min, inference_max;
    uint32_t inference_samples;
    double ticks_per_ms;                     /* the rate every time above was converted with */
    /* with keep_series: one series per timing metric written to the result,
     * in the result's order (entities, then the model's inference_time) */
    uint32_t n_series, cap_series;
    runtime_series *series;
} runtime_analysis;

/* One pass (issue 33, docs/benchmarks.md): a visitor for
 * etdump_read_visiting (written to *v) that does runtime_fit_visitor's
 * work and also scans each "Execute" block as an execution of etr's only
 * method, the first `warmup` fitting blocks left out, while the ETDump is
 * validated. Give the result to runtime_analyse as runtime_inputs.prescan:
 * it is taken when the executions selected are exactly the ones scanned
 * (else the executions are decoded again, with the same result). NULL
 * when etr has not exactly one method. event_unit as in runtime_inputs;
 * ids are made in `arena`, which runtime_analyse must be given. Owned by
 * the caller: runtime_prescan_free (NULL allowed), after runtime_analyse. */
typedef struct runtime_prescan runtime_prescan;
runtime_prescan *runtime_prescan_new(const struct etrecord *etr, uint32_t warmup, runtime_unit_fn event_unit,
                                     const void *event_unit_ctx, mlia_arena *arena, struct etdump_visitor *v);
void runtime_prescan_free(runtime_prescan *p);

int runtime_analyse(const runtime_inputs *in, mlia_result *result, mlia_arena *arena,
                    runtime_analysis **out, mlia_error *err);

/* Duration-only backend events (docs/captures.md): some backends log their
 * events as durations (start 0, end = duration, as Qualcomm's profiler does)
 * instead of times. Given the DELEGATE_CALL interval [ws, we] and the
 * backend events of that invocation in the order they were logged (their
 * starts at s, ends at e, `stride` bytes apart), when some event lies
 * outside the call and every such event's duration fits in the call, those
 * events are rewritten in place one after the other from ws, keeping their
 * durations. Returns the number of events moved, 0 when nothing looked like
 * durations (times are kept). */
uint32_t runtime_layout_durations(uint64_t ws, uint64_t we, uint64_t *s, uint64_t *e, size_t stride, uint32_t n);

/* Nearest-rank P50 (lower median) of n values, sorts `v` in place. */
uint64_t runtime_p50_u64(uint64_t *v, uint32_t n);
/* The (k+1)-th smallest of n > 0 values (k < n), reorders `v` (quickselect). */
uint64_t runtime_rank_u64(uint64_t *v, uint32_t n, uint32_t k);
/* Smallest and largest of n > 0 values. */
void runtime_min_max_u64(const uint64_t *v, uint32_t n, uint64_t *min, uint64_t *max);

#endif
