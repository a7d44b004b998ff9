/*
 * state.h - the VGF backend's analysis of one run (src/backends/vgf/): the
 * companion VGF delegate and the NX statistics analysis. Created by the
 * backend's begin() in the run's arena, filled by its stages
 * (backends/vgf/stage.c, companion.c), read by its writers' hooks
 * (backends/vgf/report/) through the run record.
 */
#ifndef MLIA_BACKENDS_VGF_STATE_H
#define MLIA_BACKENDS_VGF_STATE_H

#include <stdint.h>

#include "backends/vgf/analysis/nx_analysis.h"
#include "backends/vgf/formats/vgf.h"

typedef struct vgf_state {
    vgf_file *vgf;              /* companion VGF delegate, or NULL */
    uint32_t delegate_index;    /* its index in the companion plan's delegates */
    nx_result *nx;              /* NX statistics analysis (NULL before the stage) */
} vgf_state;

#endif
