/*
 * history_out.h - writers of `mlia history` (docs/history.md): the console
 * table with its sparkline, CSV, JSON, and the standalone trend page.
 *
 * They read one history_runs (history/history.h), oldest run first, and
 * write every text from the history escaped for where it goes (terminal,
 * CSV field, JSON string, HTML). Ownership: the string writers return
 * malloc'd text the caller frees; the page is streamed to a FILE.
 */
#ifndef MLIA_REPORT_HISTORY_OUT_H
#define MLIA_REPORT_HISTORY_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "core/error.h"
#include "history/history.h"

/* The sparkline of the runs' P50s (one block character of U+2581..U+2588
 * per run, a space for a run without the value): malloc'd UTF-8. */
char *history_sparkline(const history_runs *r);
/* The console table: one line per run, then the trend line. */
char *history_table(const history_runs *r, const char *location, unsigned width);
/* One CSV row per run (RFC 4180 quoting), header first. */
char *history_csv(const history_runs *r);
/* {"history": location, "metric", "entity", "series", "unit", "runs": [...]} */
char *history_json(const history_runs *r, const char *location);
/* The standalone page: a table and an SVG trend chart (P50 line, min-max
 * band), no script, no outside resource. Returns 0 or -1 (write error). */
int history_page(const history_runs *r, const char *location, FILE *fp, mlia_error *err);

#endif
