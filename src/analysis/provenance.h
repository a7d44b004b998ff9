/*
 * provenance.h - source provenance of graph nodes: Python stack traces and
 * nn.Module stacks turned into code_stack and nn_module entities.
 *
 * Identities follow docs/result-format.md ("Entities") and
 * docs/formats/nx-statistics.md §8.3:
 *   code_stack/<safe basename:line>-<first 12 hex of SHA-256 of the frame chain>
 * where the frame chain is one line "<file with \ as />:<line>:<function>" per
 * frame from the outermost frame to the chosen one, joined by LF.
 *
 * Ownership: results live in the arena passed in.
 */
#ifndef MLIA_ANALYSIS_PROVENANCE_H
#define MLIA_ANALYSIS_PROVENANCE_H

#include <stdint.h>

#include "core/arena.h"

typedef struct code_frame {
    const char *file;       /* as written in the trace, '\' replaced by '/' */
    int64_t line;
    const char *function;   /* NULL when absent */
} code_frame;

/* Parse `File "<file>", line <N>[, in <function>]` lines of a Python
 * traceback text (other lines ignored). Returns the number of frames,
 * outermost first; *out is arena-allocated (NULL when 0). */
uint32_t provenance_parse_stack(const char *text, mlia_arena *arena, code_frame **out);

/* Index of the innermost user frame: the innermost frame whose file is not
 * inside a Python library folder (site-packages, dist-packages, /torch/,
 * /executorch/exir/); the innermost frame when all are library frames.
 * Returns UINT32_MAX when n == 0. */
uint32_t provenance_user_frame(const code_frame *frames, uint32_t n);

/* code_stack entity id and display name ("<basename>:<line>") of frame
 * `upto` (chain = frames[0..upto]). */
const char *provenance_code_stack_id(const code_frame *frames, uint32_t upto, mlia_arena *arena,
                                     const char **display_name);

#endif
