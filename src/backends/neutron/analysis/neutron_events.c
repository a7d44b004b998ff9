/*
 * neutron_events.c - see neutron_events.h.
 */
#include "backends/neutron/analysis/neutron_events.h"

uint32_t neutron_duration(uint64_t start, uint64_t end)
{
    /* unsigned 32-bit subtraction is the difference modulo 2^32 */
    return (uint32_t)end - (uint32_t)start;
}

int neutron_function_code(const uint8_t *metadata, uint32_t size)
{
    return metadata && size == 1 ? metadata[0] : -1;
}
