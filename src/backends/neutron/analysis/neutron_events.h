/*
 * neutron_events.h - what NXP Neutron's delegate events mean
 * (docs/delegates.md, "NXP Neutron"): the 32-bit profiling timer's
 * durations and the one-byte kernel function code. Pure functions, no
 * allocation.
 */
#ifndef MLIA_BACKENDS_NEUTRON_EVENTS_H
#define MLIA_BACKENDS_NEUTRON_EVENTS_H

#include <stdbool.h>
#include <stdint.h>

/* The Neutron profiling timer is 32 bits wide: a kernel that spans a wrap
 * ends below its start, and its duration is (end - start) mod 2^32. */
uint32_t neutron_duration(uint64_t start, uint64_t end);

/* The event's metadata is one byte, the start event's function code (the
 * kernel; 0 for the final "Profiling dump" event). Returns the code, or -1
 * when the metadata is not exactly one byte. */
int neutron_function_code(const uint8_t *metadata, uint32_t size);

#endif
