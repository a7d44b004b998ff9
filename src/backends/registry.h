/*
 * registry.h - the registered backends (registry.c: one line per backend).
 * The pipeline walks this table; nothing else names a backend.
 */
#ifndef MLIA_BACKENDS_REGISTRY_H
#define MLIA_BACKENDS_REGISTRY_H

#include "backends/backend.h"
#include "core/str.h"

/* Number of registered backends and the i-th (static, never freed). */
uint32_t mlia_backend_count(void);
const mlia_backend *mlia_backend_at(uint32_t i);
/* The backend whose delegate ids include `id`, or NULL. */
const mlia_backend *mlia_backend_for_delegate(mlia_str id);
/* The backend whose blob magic `data` starts with, or NULL. */
const mlia_backend *mlia_backend_for_blob(const uint8_t *data, uint64_t size);
/* The backend named `name` (e.g. a file kind "vgf"), or NULL. */
const mlia_backend *mlia_backend_named(const char *name);

#endif
