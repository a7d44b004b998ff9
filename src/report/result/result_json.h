/*
 * result_json.h - writes mlia-output.json (MLIA standardized output 1.2.0).
 *
 * The document is streamed through mlia_jw; all orders come from the
 * run's result model, which the analysis fills deterministically.
 */
#ifndef MLIA_REPORT_RESULT_JSON_H
#define MLIA_REPORT_RESULT_JSON_H

#include "analysis/run.h"
#include "core/json_write.h"

/* Writes the whole result document (pretty) into w. */
void result_json_write(const mlia_run_record *s, mlia_jw *w);
/* One metric object (numeric or unavailable). */
void result_json_metric(mlia_jw *w, const mlia_metric *m);
/* The members every metric object starts with (the result document and the
 * page): "name", then "unit", "availability" and `reason` when the metric
 * is unavailable (returns false), else "value" and "unit" (returns true). */
bool result_json_metric_head(mlia_jw *w, const mlia_metric *m, const char *reason);
/* One attribute value (string, number, bool or list). */
void result_json_attr_value(mlia_jw *w, const mlia_attr *a);
/* Attributes object of an entity. */
void result_json_attrs(mlia_jw *w, const mlia_entity *e);

#endif
