/*
 * nx_debugdb.h - the VGF debug database and its API labels
 * (docs/formats/nx-statistics.md §7.1-7.8; every § below is a section of it).
 *
 * The debug database is a TAB-separated text of seven sections (TOSA ops,
 * label table, fused ops, NX chains, cascades, stripe ops, stripe indexes)
 * that links a statistics block (stripe) to its NX chain and cascade, a chain
 * to its fused operations and those to TOSA operations carrying API labels.
 * nx_debugdb_parse turns it into six string -> string-list maps (§7.5); the
 * analysis then synthesizes missing links for measured stripes (§7.6) and
 * tracks each stripe (§7.7). API labels (§7.8) resolve to SPIR-V result ids
 * of the VGF segment and carry PyTorch provenance when they are JSON.
 *
 * Keys are exact strings, as the reference compares them. Maps keep
 * insertion order and a later row with the same id replaces the earlier
 * row's value in place (§7.3.5), which an ordered hash map gives directly.
 *
 * Ownership: every map, list and string lives in the arena passed in.
 */
#ifndef MLIA_FORMATS_NX_DEBUGDB_H
#define MLIA_FORMATS_NX_DEBUGDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"

typedef struct nx_strlist {
    uint32_t n;
    const char **items;
} nx_strlist;

/* Ordered string -> string-list map (open addressing over an entry array). */
typedef struct nx_strmap {
    mlia_arena *arena;
    uint32_t n, cap;
    const char **keys;
    nx_strlist *vals;
    uint32_t *slots; /* entry index + 1, 0 = empty */
    uint32_t n_slots;
} nx_strmap;

void nx_strmap_init(nx_strmap *m, mlia_arena *arena);
/* NULL when absent. The list is owned by the map. */
const nx_strlist *nx_strmap_get(const nx_strmap *m, const char *key);
/* Insert or replace (keeping the position of an existing key). key and the
 * list items are borrowed (they must live as long as the map). */
void nx_strmap_set(nx_strmap *m, const char *key, nx_strlist value);

typedef struct nx_debugdb {
    nx_strmap stripe_chain;   /* stripe index -> NX chain ids (op_id) */
    nx_strmap stripe_cascade; /* stripe index -> cascade ids (cascade_op_id) */
    nx_strmap chain_fused;    /* NX chain -> fused op ids */
    nx_strmap fused_tosa;     /* fused op -> TOSA op ids */
    nx_strmap tosa_labels;    /* TOSA op -> API labels */
    nx_strmap tosa_types;     /* TOSA op -> op types */
} nx_debugdb;

/* Empty maps (no debug database: every link is synthesized). */
void nx_debugdb_init(nx_debugdb *db, mlia_arena *arena);

/* Parse a decoded debug_database payload (framing included). Errors are the
 * texts of §3.3, §7.1 and §7.2.3 without a file prefix. */
int nx_debugdb_parse(const uint8_t *data, size_t len, mlia_arena *arena, nx_debugdb *db,
                     mlia_error *err);

/* Split one cell value (§7.3 rules 3-4). */
nx_strlist nx_split_cell(const char *s, size_t len, mlia_arena *arena);

/* §7.6: synthesize the missing links of the measured stripes, in row order. */
void nx_debugdb_synthesize(nx_debugdb *db, const uint32_t *stripes, uint32_t n_stripes);

/* §7.7.1: the chain and cascade of a stripe (after synthesis). */
int nx_debugdb_track(const nx_debugdb *db, uint32_t stripe, const char **chain,
                     const char **cascade, mlia_error *err);

typedef struct nx_unknown_ref {
    bool is_tosa;     /* false: fused operation */
    const char *id;
} nx_unknown_ref;

/* §7.7.2-3: the TOSA ops of an NX chain (duplicates kept); fused or TOSA ids
 * without an entry are skipped and listed in *unknown (in order). */
void nx_debugdb_chain_tosa(const nx_debugdb *db, const char *chain, mlia_arena *arena,
                           nx_strlist *tosa, nx_unknown_ref **unknown, uint32_t *n_unknown);

/* ---- API labels (§7.8) ---- */

typedef enum nx_label_kind { NX_LABEL_PLAIN = 0, NX_LABEL_SPIRV, NX_LABEL_JSON } nx_label_kind;

typedef struct nx_module_entry {
    const char *tracer_key;
    const char *name;
    const char *module_type; /* NULL when unknown */
} nx_module_entry;

typedef struct nx_code_frame {
    const char *file;
    uint64_t line;
    const char *line_text;   /* decimal digits as written */
    const char *function;    /* NULL when absent */
} nx_code_frame;

typedef struct nx_label_info {
    nx_label_kind kind;
    const char *raw;
    /* SPIR-V label: N in decimal without leading zeros; value when it fits */
    const char *spirv_id_text;
    bool spirv_id_fits;      /* fits uint32 */
    uint32_t spirv_id;
    /* JSON label provenance */
    const char *display_label; /* node_name when non-empty, else the raw label */
    const char *node_name;     /* NULL unless a non-empty string */
    const char *operator_name; /* NULL unless a non-empty string */
    uint32_t n_modules;        /* root first (with <root> prepended) */
    nx_module_entry *modules;
    uint32_t n_frames;         /* outermost first */
    nx_code_frame *frames;
} nx_label_info;

void nx_label_parse(const char *label, mlia_arena *arena, nx_label_info *out);

/* Optional SPIR-V name map of one graph segment (§7.9). names[i] may be NULL. */
typedef struct nx_name_map {
    uint32_t n_ids;
    const uint32_t *ids;
    const char *const *names;
} nx_name_map;

/* §7.8 resolution: the SPIR-V result ids (decimal text) the label names, in
 * order, without repeats. map may be NULL. Error: unknown suffix id. */
int nx_label_resolve(const nx_label_info *label, const nx_name_map *map, uint64_t segment_id,
                     mlia_arena *arena, nx_strlist *ids, mlia_error *err);

/* Reference code_stack entity id for frames[0..upto] (§8.3):
 * "code_stack/<safe>-<d12>". Result in the arena. */
char *nx_code_stack_id(const nx_code_frame *frames, uint32_t upto, mlia_arena *arena);

#endif
