/*
 * console.h - the console summary printed by `mlia check` (product.md §2).
 *
 * The summary is a fixed-layout text of at most 100 columns per line: the
 * selected method, the executions, inference time P50/min/max, NX
 * total/compute cycles with coverage (or "unavailable: <reason>"), the top 10
 * source operators by P50 execution time, the top 10 chains by P50 total
 * cycles, and every warning of the result, wrapped. It only reads the result
 * model, so it shows exactly the numbers of mlia-output.json.
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

#define MLIA_CONSOLE_WIDTH 100
#define MLIA_CONSOLE_TOP 10

/* Summary of a finished run (method name, execution count and result). */
char *mlia_console_summary(const mlia_run_record *s);

/* Same from the parts: method may be NULL (shown as "(none)"). */
char *mlia_console_summary_result(const mlia_result *r, const char *method, uint32_t n_executions);

#endif
