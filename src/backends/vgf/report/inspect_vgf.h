/*
 * inspect_vgf.h - JSON views of a decoded VGF file.
 *
 * inspect_vgf() writes the `mlia inspect` object for a VGF (shape documented
 * in docs/vgf.md): header, modules (with SPIR-V summary), segments with their
 * decoded TOSA operations, model IO, resources, constants and warnings.
 *
 * vgf_write_model_explorer_graph() reproduces the node list that Arm's
 * vgf-adapter-model-explorer builds (docs/formats/spirv-tosa.md §9), including its MLIR-derived
 * node numbering, so the adapter's expected output is a test oracle. The
 * `loc` attribute of the adapter cannot be derived from the VGF and is not
 * written.
 *
 * Ownership: nothing is retained; output goes to the caller's writer.
 */
#ifndef MLIA_REPORT_INSPECT_VGF_H
#define MLIA_REPORT_INSPECT_VGF_H

#include <stddef.h>
#include <stdint.h>

#include "core/json_write.h"
#include "backends/vgf/formats/vgf.h"

/* One JSON object describing the file (a value: usable after a key). */
void inspect_vgf(const vgf_file *f, mlia_jw *w);

/* Decode `data` as a VGF and write inspect_vgf()'s object, or, when the
 * blob does not decode, {"format": "vgf", "error": "<message>"}. Used for a
 * PTE's VgfBackend delegate payloads. `file` names the source in messages. */
void inspect_vgf_value(const uint8_t *data, size_t size, const char *file, mlia_jw *w);

/* {"label": <label>, "graphs": [{"id": "Main", "nodes": [...], ...}]} as
 * Arm's adapter writes it; label = stem of f->file (the adapter uses the
 * file stem at conversion time). */
void vgf_write_model_explorer_graph(const vgf_file *f, mlia_jw *w);
/* Same with an explicit label. */
void vgf_write_model_explorer_graph_labelled(const vgf_file *f, const char *label, mlia_jw *w);

#endif
