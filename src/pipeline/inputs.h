/*
 * inputs.h - which file was given in which place, told by content (the first
 * bytes: formats/pte.h pte_file_kind), not by file name (docs/cli.md,
 * "Inputs by content").
 *
 * The same mistake gets the same message and the same exit status whatever
 * the files are called: an ETDump given as MODEL with the ETRecord as
 * --profiling-data is "swapped" whether they are named run.etdump or
 * model.etrecord; a PTE given as MODEL points to --companion-model. Files
 * that cannot be read, or whose bytes are no known kind, are left to the
 * checks that follow (the readers say what is wrong, exit 1).
 */
#ifndef MLIA_PIPELINE_INPUTS_H
#define MLIA_PIPELINE_INPUTS_H

#include <stddef.h>

/* Kind of the file at `path` by its first bytes: "etrecord", "etdump",
 * "pte", "bundled_program", "vgf"; "unknown" when readable but none of
 * these; NULL when it cannot be opened (missing, unreadable, not a regular
 * file: reported later with the reason). Static strings. */
const char *mlia_input_kind(const char *path);

/* The usage error of inputs whose kinds (from mlia_input_kind, NULL or
 * "unknown" = nothing to say) are not those of their places: MODEL an
 * ETRecord, --profiling-data an ETDump, --companion-model a PTE (companion
 * and its kind may be NULL). Returns 0, or 2 with msg set to one line that
 * says what each file is and where it goes. */
int mlia_input_kind_error(const char *model, const char *model_kind, const char *etdump,
                          const char *etdump_kind, const char *companion, const char *companion_kind,
                          char *msg, size_t n);

/* "an ETRecord", "an ETDump", ... for a kind of mlia_input_kind; NULL for
 * NULL or "unknown" (nothing known to say). Static strings. */
const char *mlia_input_kind_name(const char *kind);

/* The usage error of a debug buffer (`label` "--debug-buffer" or
 * "--reference-debug-buffer") whose bytes are a known file kind: a debug
 * buffer is raw tensor bytes, never an ETDump, ETRecord or PTE (issue 29, 6).
 * Returns 0, or 2 with msg set to one line saying what it is and where it
 * goes. */
int mlia_input_debug_buffer_error(const char *label, const char *path, const char *kind, char *msg, size_t n);

#endif
