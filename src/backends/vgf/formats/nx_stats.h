/*
 * nx_stats.h - VGF neural-accelerator (NX) statistics payloads carried in ETDump.
 *
 * The ExecuTorch VGF backend writes one ProfileEvent "VGF_NEURAL_STATISTICS"
 * per delegate execution whose delegate_debug_metadata is a JSON wrapper
 * (schema v1 or v2, docs/formats/nx-statistics.md §2; every § below is a
 * section of that page) holding three base64 blobs per VGF
 * segment: the debug database, the statistics info (stripe id list) and the
 * raw statistics memory (counter words). This reader is pure: bytes in, typed
 * read-only values out. It covers
 *   - identification of a carrier payload and wrapper validation (§1.3, §2),
 *   - strict base64 (§3.1) and the size cross-check (§3.2),
 *   - the 12-byte framing header of the two property blobs (§3.3),
 *   - statistics info in binary and text form (§4),
 *   - statistics memory decoding for mode 0/1 on Mali-G1/G2 (§5),
 *   - resolution of mode, device and counter layout (§6).
 * The debug database lives in nx_debugdb.h; combining records, executions and
 * the hierarchy lives in analysis/nx_analysis.h.
 *
 * Errors: the messages are exactly the texts of that page without a file prefix
 * (functions call mlia_error_setf(err, NULL, ...)); the analysis adds the
 * "<etdump>: VGF neural statistics (run .., ...): " context.
 *
 * Ownership: every returned object and array lives in the arena passed in.
 * Blob base64 text may point into the caller's metadata bytes (zero copy),
 * so a wrapper is valid only while those bytes are.
 */
#ifndef MLIA_FORMATS_NX_STATS_H
#define MLIA_FORMATS_NX_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"

#define NX_SCHEMA "executorch.vgf.neural_statistics"
#define NX_MAX_COUNTERS 31

/* ---- base64 (§3.1) ---- */

/* Strict RFC 4648 decoding of len characters. On success *out (arena) holds
 * *out_len bytes (a valid non-NULL pointer even when empty). Error text:
 * "Malformed base64 data in VGF neural statistics blob". */
int nx_base64_decode(const char *text, size_t len, mlia_arena *arena, uint8_t **out,
                     size_t *out_len, mlia_error *err);
/* Same validation without decoding: decoded length or -1 when invalid. */
int64_t nx_base64_decoded_len(const char *text, size_t len);

/* ---- framing (§3.3) ---- */

typedef enum nx_blob_kind {
    NX_BLOB_DEBUG_DATABASE = 0,
    NX_BLOB_STATISTICS_INFO = 1,
    NX_BLOB_STATISTICS_MEMORY = 2
} nx_blob_kind;

/* JSON member name of a blob ("debug_database", ...). */
const char *nx_blob_key(nx_blob_kind kind);

/* Strip the framing header of a debug database or statistics info payload.
 * *payload / *payload_len point into data (borrowed). */
int nx_unframe(const uint8_t *data, size_t len, nx_blob_kind kind, const uint8_t **payload,
               size_t *payload_len, mlia_error *err);

/* ---- statistics info (§4) ---- */

/* Decode a statistics-info blob (framing included). *ids in the arena. */
int nx_parse_statistics_info(const uint8_t *data, size_t len, bool is_text, mlia_arena *arena,
                             uint32_t **ids, uint32_t *n_ids, mlia_error *err);

/* ---- statistics memory (§5) ---- */

typedef enum nx_device { NX_DEVICE_G1 = 1, NX_DEVICE_G2 = 2 } nx_device;

/* "Mali-G1" / "Mali-G2". */
const char *nx_device_name(nx_device d);

/* Counter labels of (device, mode) in word order: 16 sections (mode 0), 29
 * (G1 mode 1) or 31 (G2 mode 1). Static storage. */
uint32_t nx_counter_labels(nx_device device, int mode, const char *const **labels);

typedef struct nx_row {
    uint32_t stripe;        /* stripe id = block index */
    bool has_counters;      /* false for a zero row (§5.8 rule 1) */
    uint64_t op_cycles;
    uint64_t total_cycles;
    uint64_t counters[NX_MAX_COUNTERS]; /* label order; valid when has_counters */
} nx_row;

/* Decode statistics memory for (device, mode) against statistics info ids.
 * Rows come out in the order of ids (§5.8). *rows in the arena. */
int nx_decode_memory(const uint8_t *data, size_t len, nx_device device, int mode,
                     const uint32_t *ids, uint32_t n_ids, mlia_arena *arena, nx_row **rows,
                     uint32_t *n_rows, mlia_error *err);

/* ---- wrapper (§2) ---- */

typedef struct nx_blob {
    bool available;
    bool is_text;
    bool size_is_integer;        /* `size` present and a JSON integer */
    const char *size_text;       /* its JSON text (may exceed 64 bits) */
    const char *reason;          /* "" when absent */
    const char *b64;             /* validated base64 text (NULL/0 when unavailable) */
    size_t b64_len;
    size_t decoded_len;          /* length of the decoded payload */
} nx_blob;

typedef struct nx_wrapper_segment {
    uint64_t segment_id;
    uint32_t position;           /* index in `segments` */
    bool is_graph;               /* is_data_graph_pipeline (absent -> true) */
    nx_blob blobs[3];            /* indexed by nx_blob_kind */
} nx_wrapper_segment;

typedef struct nx_wrapper {
    int schema_version;          /* 1 or 2 */
    bool available;              /* top-level `available` (see docs for absence) */
    const char *reason;          /* "" when absent */
    /* v2 interpretation objects (schema_version 2 only) */
    struct {
        int64_t executorch_index;     /* integer text in *_text when not int64 */
        const char *executorch_index_text;
        const char *vulkan_value_text;
        int64_t vulkan_value;
        bool vulkan_value_fits;
        bool executorch_index_fits;
        const char *vulkan_name;
    } mode;
    struct {
        bool available;
        const char *device_name;
        const char *vendor_id_text;
        bool vendor_id_fits;
        int64_t vendor_id;
    } target;
    struct {
        bool available;
        const char *schema_id;
        const char *schema_version_text;   /* JSON text (any type) */
        bool schema_version_is_one;
        const char *endianness, *word_type;
        const char *words_per_task_text;
        bool words_per_task_fits;
        int64_t words_per_task;
        const char *leading_block_count_text; /* JSON text, "None" if absent */
        bool leading_block_count_ok;          /* integer >= 0 that fits int64 */
        int64_t leading_block_count;
        const char *reason;
    } layout;
    uint32_t n_segments;
    nx_wrapper_segment *segments;
} nx_wrapper;

/* Result codes of nx_wrapper_parse. */
#define NX_NOT_A_RECORD 1

/* Identify and decode one delegate_debug_metadata payload.
 * scanner = true applies the ETDump scanning rules of §1.3 (non-records
 * return NX_NOT_A_RECORD); scanner = false is the direct-decode entry point
 * (rule 2.6.1 raises "Not VGF neural statistics metadata: <schema>").
 * Returns 0 with *out set, NX_NOT_A_RECORD, or -1 with err set; on error
 * *err_segment is the segment_id of the offending segment (its position when
 * the id itself is unusable), or -1 when the error concerns the record as a
 * whole. Base64 is validated here but
 * decoded later with nx_blob_decode (the text is borrowed from `bytes` when
 * possible). */
int nx_wrapper_parse(const uint8_t *bytes, size_t len, bool scanner, mlia_arena *arena,
                     nx_wrapper **out, int64_t *err_segment, mlia_error *err);

/* Decode a validated blob's payload into the arena (empty when unavailable). */
void nx_blob_decode(const nx_blob *blob, mlia_arena *arena, const uint8_t **data, size_t *len);

/* True when the blob's declared `size` differs from its decoded length (W8). */
bool nx_blob_size_mismatch(const nx_blob *blob);

/* ---- mode and device (§6) ---- */

typedef struct nx_mode_info {
    int mode;                    /* 0 or 1 */
    nx_device device;
    bool mode_assumed, device_assumed;
    const char *device_name;     /* target.device_name when recorded, else NULL */
    bool has_layout;             /* counter_layout.available in a v2 record */
    int64_t leading_block_count; /* valid when has_layout */
} nx_mode_info;

/* Resolve (mode, device) of one record carrying a measurement. */
int nx_resolve_mode(const nx_wrapper *w, nx_mode_info *out, mlia_error *err);

/* ---- list formatting (L-FMT, §0) ---- */

/* Format ascending-sorted values: "a, b, c", more than 10 -> first 10 then
 * ", ... (<n> more omitted)", empty -> "none". Result in the arena. */
char *nx_format_u64_list(const uint64_t *v, size_t n, mlia_arena *arena);
char *nx_format_str_list(const char *const *v, size_t n, mlia_arena *arena);

#endif
