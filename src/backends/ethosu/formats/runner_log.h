/*
 * runner_log.h - the Arm Ethos-U bare-metal runner's console (UART/FVP) log
 * as given with --profiling-data RUN.log (docs/delegates.md, "Arm
 * Ethos-U"): the base64 ETDump between the runner's "#[RUN THIS]" and
 * "#[END]" lines, an optional base64 debug buffer, and the "Ethos-U PMU"
 * report of arm_perf_monitor. LF or CRLF line ends; other console output
 * around the block is ignored.
 *
 * Ownership: everything returned lives in the arena given (the decoded
 * ETDump and debug buffer too); `data` is only read.
 *
 * Errors: "<path>: Ethos-U runner log: <what> at line <n>" - a block
 * without its echo line, a base64 text that does not decode, no ETDump
 * block at all.
 */
#ifndef MLIA_BACKENDS_ETHOSU_RUNNER_LOG_H
#define MLIA_BACKENDS_ETHOSU_RUNNER_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"

#define ETHOSU_MAX_PMU_COUNTERS 8

/* The PMU report (totals over every inference, as printed). */
typedef struct ethosu_pmu_report {
    bool present;                 /* an "Ethos-U PMU report:" line was seen */
    bool has_inferences, has_delegations, has_backend_cycles, has_operator_cycles, has_runtime_cycles,
        has_wait_cycles, has_npu_cycles;
    uint64_t inferences;          /* NPU Inferences */
    uint64_t delegations;         /* NPU delegations */
    uint64_t backend_cycles;      /* ethos-u : cycle_cnt (CPU cycles in the backend's execute) */
    uint64_t operator_cycles;     /* Operator(s) total (CPU cycles) */
    uint64_t runtime_cycles;      /* Inference runtime (CPU cycles) */
    uint64_t wait_cycles;         /* cpu_wait_for_npu_cntr (CPU cycles) */
    uint64_t npu_cycles;          /* ethosu_pmu_cycle_cntr (NPU active cycles) */
    uint32_t n_counters;          /* ethosu_pmu_cntr<i> lines */
    uint64_t counters[ETHOSU_MAX_PMU_COUNTERS];
    bool counter_seen[ETHOSU_MAX_PMU_COUNTERS];
    uint32_t n_events;            /* names of the "Ethos-U PMU Events:[...]" line, index order */
    const char *events[ETHOSU_MAX_PMU_COUNTERS];
} ethosu_pmu_report;

typedef struct ethosu_runner_log {
    const uint8_t *etdump;        /* decoded ETDump bytes */
    size_t etdump_size;
    const uint8_t *debug_buffer;  /* decoded debug buffer, or NULL */
    size_t debug_buffer_size;
    uint32_t n_lines;             /* lines in the log */
    bool crlf;                    /* some line ended in CRLF */
    ethosu_pmu_report pmu;
} ethosu_runner_log;

/* Whether `data` looks like a runner log (holds the line "#[RUN THIS]"). */
bool ethosu_is_runner_log(const uint8_t *data, size_t size);

/* Reads the log. Returns 0, or -1 with *err set. */
int ethosu_read_runner_log(const uint8_t *data, size_t size, const char *path, mlia_arena *arena,
                           ethosu_runner_log **out, mlia_error *err);

/* Decodes standard base64 with padding (no whitespace) into out (room for
 * 3 * (n / 4) bytes). Returns the decoded length, or -1 when the text is
 * not base64. */
long ethosu_base64_decode(const char *text, size_t n, uint8_t *out);

#endif
