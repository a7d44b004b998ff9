/*
 * fingerprint.h - identity of an analysed program, by content (docs/compare.md
 * "Identity").
 *
 * `mlia compare` must recognise two runs of the same program whatever their
 * files are called (per-commit artifacts, CI folders), and tell two different
 * programs apart even when their files share a name. The fingerprint is the
 * SHA-256 of a canonical text of the selected method's graph:
 *
 *   "mlia.program/1" and the method name;
 *   every node of its edge program, in graph order: name, target, debug handle
 *   (the source operators, whose ids the result uses);
 *   the delegate layout from the ETRecord's delegate map: for every delegated
 *   instruction its index, backend id and the sorted edge debug handles it
 *   covers.
 *
 * Left out on purpose: weights and constants, the delegates' compiled
 * payloads and their internal debug ids, the ETDump, file names and sizes. A
 * new compiler, driver or set of weights keeps the fingerprint (that is what
 * a comparison is for); a changed graph, partition or method changes it.
 *
 * Ownership: strings of the fingerprint are borrowed from the inputs or
 * allocated in the arena given to mlia_program_fingerprint().
 */
#ifndef MLIA_ANALYSIS_FINGERPRINT_H
#define MLIA_ANALYSIS_FINGERPRINT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/arena.h"

struct ep_program;
struct etrecord_method;

#define MLIA_FINGERPRINT_VERSION 1

typedef struct mlia_program_fingerprint {
    bool present;               /* false when there is neither an edge program nor maps */
    char program[65];           /* SHA-256 hex of the canonical text */
    const char *method;
    uint32_t operators;         /* nodes of the edge program */
    uint32_t debug_handles;     /* distinct non-zero debug handles of those nodes */
    uint32_t delegate_segments; /* delegated instructions of the method */
    uint32_t n_backends;
    const char **backends;      /* distinct delegate backend ids, byte order */
} mlia_program_fingerprint;

/* Fingerprint of `method` given its edge program and ETRecord maps (either
 * may be NULL). */
void mlia_program_fingerprint_compute(const char *method, const struct ep_program *program,
                                      const struct etrecord_method *maps, mlia_arena *arena,
                                      mlia_program_fingerprint *out);

#endif
