/*
 * console.h - the console summary printed by `mlia check` (docs/cli.md).
 *
 * The summary is a text of at most `width` columns per line (the terminal's
 * width, at least MLIA_CONSOLE_MIN_WIDTH; MLIA_CONSOLE_WIDTH when the output
 * is not a terminal): the selected method, the executions, the status and
 * what it means, inference time P50/min/max, the backends' lines (the VGF
 * backend's NX total/compute cycles with coverage, or "unavailable: <reason>"), the top 10 rows of source operators
 * by P50 execution time (operators sharing one measured call are one row),
 * with a reference capture the top 10 operators by error (lowest P50 SNR),
 * the top 10 chains by P50 total cycles, and every warning of the result,
 * wrapped. It only reads the result model, so it shows the numbers of
 * mlia-output.json, rounded by the shared formatter (report/format.h).
 *
 * Strings taken from the inputs (operator and chain names, warnings) are
 * printed with control characters replaced by '?', so a crafted ETRecord
 * cannot send terminal escape sequences; table cells are also reduced to
 * ASCII so that columns stay aligned.
 *
 * Ownership: the returned text is malloc'ed; the caller frees it.
 */
#ifndef MLIA_REPORT_CONSOLE_H
#define MLIA_REPORT_CONSOLE_H

#include <stdint.h>

#include "analysis/result.h"
#include "analysis/run.h"

#define MLIA_CONSOLE_WIDTH 100     /* not a terminal */
#define MLIA_CONSOLE_MIN_WIDTH 80
#define MLIA_CONSOLE_MAX_WIDTH 400
#define MLIA_CONSOLE_TOP 10

/* Summary of a finished run (method name, execution count and result);
 * width 0 means MLIA_CONSOLE_WIDTH, others are clamped to [MIN, MAX]. */
char *mlia_console_summary(const mlia_run_record *s, unsigned width);

/* Same from the parts: method may be NULL (shown as "(none)"); backends
 * (n_backends of them, may be NULL) write their field lines after the
 * inference time through their console_fields hook (report/backend_out.h),
 * each with a NULL state: without them the summary has no backend lines. */
char *mlia_console_summary_width(const mlia_result *r, const char *method, uint32_t n_executions,
                                 const mlia_backend_run *backends, uint32_t n_backends, unsigned width);
/* mlia_console_summary_width() at MLIA_CONSOLE_WIDTH. */
char *mlia_console_summary_result(const mlia_result *r, const char *method, uint32_t n_executions,
                                  const mlia_backend_run *backends, uint32_t n_backends);

#endif
