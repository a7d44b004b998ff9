/*
 * modules.h - per-nn.Module totals (issue 29, 7), as ExecuTorch's Inspector
 * gives them with find_total_for_module: the time of every operator under a
 * module, nested modules included.
 *
 * Each nn_module entity gets the metric `module_total_time` (ms, aggregation
 * "sum", qualifier statistic "avg"): the sum of the average execution time of
 * the source operators whose module path contains the module. Operators that
 * share one measured call (a delegate call, or an OPERATOR_CALL of several
 * nodes) count that call once per module, never once per operator.
 *
 * Ownership: metrics are added to the result (its arena); working memory is
 * malloc'ed and freed before returning.
 */
#ifndef MLIA_ANALYSIS_MODULES_H
#define MLIA_ANALYSIS_MODULES_H

#include "analysis/result.h"

void mlia_module_totals(mlia_result *r);

#endif
