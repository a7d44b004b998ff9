/*
 * csv.h - per-operator tables for spreadsheets and scripts: `--csv` writes
 * mlia-output/csv/operators.csv, chains.csv (and, with a PTE, memory.csv and
 * memory_tensors.csv); `--csv-tables` chooses among them and the long-form
 * executions.csv (mlia_run_record.csv; docs/captures.md, "CSV tables").
 *
 * The tables are another view of the run record (analysis/run.h): the
 * operator and chain tables hold the very metrics of mlia-output.json,
 * written with the JSON writer's number text (mlia_format_double), so a
 * value read back from a cell equals the JSON's; executions.csv holds the
 * per-execution values those statistics were taken from (the runtime
 * analysis' series, kept with runtime_inputs.keep_series, and the NX
 * analysis' per-execution arrays).
 *
 * Format: RFC 4180 (CRLF line ends, a header row, a field quoted when it
 * holds a comma, a quote, CR or LF, quotes doubled), UTF-8 without a byte
 * order mark (invalid bytes in names become U+FFFD), '.' decimals in every
 * locale, and text cells that a spreadsheet would run as a formula (first
 * character '=', '+', '-', '@', tab or CR) neutralised with a leading
 * apostrophe. Numbers are never neutralised.
 *
 * Memory: rows are formatted into a 64 KiB buffer flushed to the file;
 * executions.csv is written execution by execution.
 */
#ifndef MLIA_REPORT_CSV_H
#define MLIA_REPORT_CSV_H

#include <stdio.h>

#include "analysis/run.h"
#include "core/error.h"
#include "core/str.h"
#include "report/outdir.h"

/* The three files under csv/ of the output tree. 0, or -1 with err naming
 * the file. */
int csv_write(const mlia_run_record *s, mlia_outdir *od, mlia_error *err);

/* One text cell as written (exposed for tests): neutralised, UTF-8 repaired
 * and quoted when needed, appended to b. */
void csv_text_cell(mlia_buf *b, const char *s);

#endif
