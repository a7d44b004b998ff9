/*
 * xnn_ops.h - XNNPACK's profiling event names (docs/delegates.md,
 * "XNNPACK"): "<operator type> #<k>", where k counts the repeats of that
 * name within one execute (the counter restarts every execute, so the same
 * string in two executions is the same operator).
 */
#ifndef MLIA_BACKENDS_XNNPACK_OPS_H
#define MLIA_BACKENDS_XNNPACK_OPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Splits `name`: *type_len = the length of the operator type and *repeat
 * = k when the name ends in " #<k>" (k a decimal of 1 to 9 digits, no
 * sign); else false, with *type_len = strlen(name) and *repeat = 0. */
bool xnn_split_name(const char *name, size_t *type_len, uint32_t *repeat);

#endif
