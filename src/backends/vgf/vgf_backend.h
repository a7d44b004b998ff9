/*
 * vgf_backend.h - the VGF backend's hooks (the top floor of
 * src/backends/vgf/): its stage (stage.c), its companion part
 * (companion.c); backend.c gathers them, with the writers' hooks of
 * report/, into mlia_backend_vgf.
 */
#ifndef MLIA_BACKENDS_VGF_BACKEND_H
#define MLIA_BACKENDS_VGF_BACKEND_H

#include "backends/backend.h"
#include "backends/vgf/analysis/state.h"

/* "VGF1" or the deprecated magic C3 D2 E1 F0 at byte 0 (docs/formats/vgf.md). */
bool vgf_is_blob(const uint8_t *p, uint64_t n);
int vgf_companion_locate(const mlia_backend_ctx *c, void *state, mlia_error *err);
int vgf_companion_check(const mlia_backend_ctx *c, void *state, mlia_error *err);
int vgf_analyse(const mlia_backend_ctx *c, void *state, mlia_error *err);

#endif
