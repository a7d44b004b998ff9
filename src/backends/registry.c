/*
 * registry.c - the backend table. Adding a backend is its folder
 * src/backends/<name>/ (defining one mlia_backend) plus one line below
 * (docs/architecture.md, "add a backend"). The order is the order in which
 * the backends run and write, so it is part of the output bytes.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "core/cnum.h"

#include "backends/registry.h"

extern const mlia_backend mlia_backend_vgf;
extern const mlia_backend mlia_backend_xnnpack;
extern const mlia_backend mlia_backend_ethosu;
extern const mlia_backend mlia_backend_qnn;
extern const mlia_backend mlia_backend_coreml;
extern const mlia_backend mlia_backend_neutron;
extern const mlia_backend mlia_backend_vulkan;

static const mlia_backend *const BACKENDS[] = {
    &mlia_backend_vgf,     /* VGF delegate with NX statistics (src/backends/vgf/) */
    &mlia_backend_xnnpack, /* XNNPACK on CPUs (src/backends/xnnpack/) */
    &mlia_backend_ethosu,  /* Arm Ethos-U, its runner's log and PMU report (src/backends/ethosu/) */
    &mlia_backend_qnn,     /* Qualcomm QNN (HTP), duration-only events with units (src/backends/qnn/) */
    &mlia_backend_coreml,  /* Apple CoreML, cost-model estimates (src/backends/coreml/) */
    &mlia_backend_neutron, /* NXP Neutron, its 32-bit profiling timer (src/backends/neutron/) */
    &mlia_backend_vulkan,  /* Vulkan GPUs, shader dispatches on the GPU clock (src/backends/vulkan/) */
};

#define N_BACKENDS ((uint32_t)(sizeof BACKENDS / sizeof BACKENDS[0]))

uint32_t mlia_backend_count(void)
{
    return N_BACKENDS;
}

const mlia_backend *mlia_backend_at(uint32_t i)
{
    return i < N_BACKENDS ? BACKENDS[i] : NULL;
}

const mlia_backend *mlia_backend_for_delegate(mlia_str id)
{
    for (uint32_t i = 0; i < N_BACKENDS; i++)
        for (const char *const *d = BACKENDS[i]->delegate_ids; d && *d; d++)
            if (mlia_str_eq(id, *d))
                return BACKENDS[i];
    return NULL;
}

const mlia_backend *mlia_backend_for_blob(const uint8_t *data, uint64_t size)
{
    for (uint32_t i = 0; i < N_BACKENDS; i++)
        if (BACKENDS[i]->is_blob && BACKENDS[i]->is_blob(data, size))
            return BACKENDS[i];
    return NULL;
}

const mlia_backend *mlia_backend_named(const char *name)
{
    for (uint32_t i = 0; name && i < N_BACKENDS; i++)
        if (strcmp(BACKENDS[i]->name, name) == 0)
            return BACKENDS[i];
    return NULL;
}

