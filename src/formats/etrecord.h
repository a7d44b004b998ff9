/*
 * etrecord.h - ETRecord reader (docs/formats/etrecord.md).
 *
 * An ETRecord is a ZIP archive (Python zipfile) holding the recorded
 * ExportedPrograms as JSON, opaque torch.save blobs and three JSON maps that
 * link runtime instructions to edge-graph debug handles. etrecord_read()
 * opens the archive from memory with libzip, classifies every entry
 * (docs/formats/etrecord.md §2, current and 2023 legacy layouts), and parses the maps into
 * per-method arrays indexed by instruction index. ExportedProgram entries
 * are NOT parsed by etrecord_read(): they can be megabytes of JSON and
 * `mlia check` only needs the selected method's edge program, so programs
 * are loaded on demand with etrecord_load_program().
 *
 * Methods are the keys of debug_handle_map in document order, then method
 * names that occur only in delegate_map / instruction_id_to_num_outs_map,
 * then per-method edge programs not named by any map, in name order. A
 * single edge program is stored as `edge_dialect_exported_program/forward`
 * (legacy: bare `edge_dialect_exported_program`) whatever the method's real
 * name (docs/formats/etrecord.md §4 rule 3): when the maps name exactly one method and the only
 * edge program is that `forward` entry, it is that method's program and no
 * separate `forward` method is listed.
 *
 * Ownership: the etrecord and everything it points to live in the arena
 * given to etrecord_read(). The etrecord also borrows `data` (the archive
 * bytes): keep them alive (e.g. keep the mlia_file mapped) until the last
 * etrecord_load_program() call.
 */
#ifndef MLIA_FORMATS_ETRECORD_H
#define MLIA_FORMATS_ETRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "formats/exported_program.h"

/* Limits (hostile input must not drive unbounded work or memory). */
#define ETRECORD_MAX_ENTRY_SIZE (1ull << 30)   /* 1 GiB uncompressed per entry read */
#define ETRECORD_MAX_TOTAL_READ (2ull << 30)   /* 2 GiB uncompressed read per etrecord */
/* Uncompressed bytes read from one ETRecord (all entries together, maps and
 * programs) are also bounded relative to the archive: see
 * etrecord_read_limit(). */
#define ETRECORD_READ_BASE (64ull << 20)
#define ETRECORD_READ_RATIO 100u
#define ETRECORD_MAX_ENTRIES 100000u
#define ETRECORD_MAX_INSTRUCTIONS 10000000u    /* instruction index bound in the maps */
/* An instruction map whose highest index is far beyond its number of keys
 * would make us allocate per-instruction arrays from a few bytes of input:
 * the highest index must be below 1024 + 64 * (keys of that method). */
#define ETRECORD_SPARSE_BASE 1024u
#define ETRECORD_SPARSE_FACTOR 64u

/* One instruction's debug handles (debug_handle_map value, or one inner
 * delegate_map value). A single integer is stored as n == 1. */
typedef struct etrecord_handles {
    uint32_t n;
    int64_t *v;
    bool present;   /* the map has a key for this instruction */
} etrecord_handles;

/* delegate_map[method][instr] */
typedef struct etrecord_delegate_entry {
    bool present;
    const char *backend;          /* "name": backend id, e.g. "VgfBackend" */
    uint32_t n_keys;              /* inner "delegate_map" keys; 0 when null or {} */
    const char **keys;            /* delegate debug ids, key order */
    etrecord_handles *handles;    /* [n_keys], handles of each key */
    bool inner_null;              /* inner "delegate_map" was null (or absent) */
} etrecord_delegate_entry;

typedef struct etrecord_method {
    const char *name;
    uint32_t n_instr;                     /* array length: highest index in any map + 1 */
    etrecord_handles *debug_handles;      /* [n_instr], by instruction index */
    etrecord_delegate_entry *delegates;   /* [n_instr] */
    int64_t *num_outs;                    /* [n_instr], -1 when absent */
    const char *program_entry;            /* zip entry name of its edge program or NULL */
    bool in_debug_handle_map;             /* the method is a key of debug_handle_map */
    bool in_delegate_map;                 /* the method is a key of delegate_map (maybe {}) */
    uint32_t n_debug_handle_keys;         /* keys of debug_handle_map[method] */
    uint32_t n_delegate_keys;             /* keys of delegate_map[method] */
    uint32_t n_num_outs_keys;             /* keys of instruction_id_to_num_outs_map[method] */
} etrecord_method;

/* Entry roles (etrecord_entry.role). */
#define ETRECORD_ROLE_MARKER "marker"
#define ETRECORD_ROLE_ATEN_PROGRAM "aten_program"          /* exported_program */
#define ETRECORD_ROLE_EDGE_PROGRAM "edge_program"          /* edge_dialect_exported_program[/m] */
#define ETRECORD_ROLE_GRAPH_MAP_PROGRAM "graph_map_program"
#define ETRECORD_ROLE_STATE_DICT "state_dict"
#define ETRECORD_ROLE_CONSTANTS "constants"
#define ETRECORD_ROLE_EXAMPLE_INPUTS "example_inputs"
#define ETRECORD_ROLE_DEBUG_HANDLE_MAP "debug_handle_map"
#define ETRECORD_ROLE_DELEGATE_MAP "delegate_map"
#define ETRECORD_ROLE_NUM_OUTS_MAP "instruction_id_to_num_outs_map"
#define ETRECORD_ROLE_REFERENCE_OUTPUTS "reference_outputs"
#define ETRECORD_ROLE_REPRESENTATIVE_INPUTS "representative_inputs"
#define ETRECORD_ROLE_EXPORT_GRAPH_ID "export_graph_id"
#define ETRECORD_ROLE_ET_DIALECT "et_dialect_graph_module" /* declared, unused by writers */
#define ETRECORD_ROLE_SHADOWED "shadowed"  /* an earlier entry with a duplicated name */

typedef struct etrecord_entry {
    const char *name;
    uint64_t size;            /* uncompressed size from the central directory */
    const char *role;         /* ETRECORD_ROLE_* */
    uint64_t index;           /* libzip index (central-directory order) */
    uint64_t comp_size;
    uint16_t comp_method;     /* 0 STORED, 8 DEFLATE */
    const char *method;       /* edge programs: method name ("forward" for legacy); else NULL */
    ep_program *program;      /* cached by etrecord_load_program(), else NULL */
} etrecord_entry;

typedef struct etrecord {
    const char *file;                 /* for messages (borrowed) */
    bool legacy;                      /* 2023 layout: bare edge_dialect_exported_program */
    uint32_t n_methods;
    etrecord_method *methods;
    uint32_t n_entries;               /* central-directory order */
    etrecord_entry *entries;
    bool has_export_graph_id;
    int64_t export_graph_id;
    bool has_debug_handle_map, has_delegate_map, has_num_outs_map;
    const etrecord_entry *aten_program; /* exported_program entry or NULL */
    /* borrowed archive bytes for lazy program loading */
    const uint8_t *data;
    size_t size;
    uint64_t bytes_read;              /* uncompressed bytes read so far (limit) */
    int zip_flags;                    /* libzip open flags that worked (0 = not yet) */
    void *zip;                        /* libzip handle kept by etrecord_keep_open(), or NULL */
    const uint32_t *name_slots;       /* entry name index (entry + 1 per slot), or NULL */
    uint32_t name_mask;
} etrecord;

/* Reads an ETRecord from `size` bytes at `data`. `file` names the input in
 * messages. On success *out lives in `arena` and borrows `data`.
 * Errors: "<file>: is empty, not an ETRecord (zip)", "<file>: is a PTE
 * program, not an ETRecord (zip)" (also an ETDump, a BundledProgram, a VGF
 * file), "<file>: Invalid etrecord file passed in." (any other non-ZIP),
 * "<file>: ETRecord identifier missing from the archive" (no ETRECORD_V0),
 * "<file>: <entry>: ..." for entry problems, and
 * "<file>: debug_handle_map: <path>: <what>" style map errors. */
int etrecord_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena,
                  etrecord **out, mlia_error *err);

/* min(ETRECORD_MAX_TOTAL_READ, ETRECORD_READ_BASE + ETRECORD_READ_RATIO x
 * archive_size): the uncompressed bytes one ETRecord may make us read. */
uint64_t etrecord_read_limit(size_t archive_size);

/* Entry by exact name (the last central-directory entry of that name), or NULL. */
const etrecord_entry *etrecord_find_entry(const etrecord *rec, const char *name);

/* Method by name, or NULL. */
const etrecord_method *etrecord_find_method(const etrecord *rec, const char *name);

/* Decompresses entry `entry` and parses it as an ExportedProgram. The result
 * is cached on the entry (a second call returns the same program) and lives
 * in `arena` (use the etrecord's arena or one that outlives your use).
 * Errors name the entry and the JSON path or byte offset. */
int etrecord_load_program(etrecord *rec, const char *entry, mlia_arena *arena, ep_program **out,
                          mlia_error *err);

/* Convenience: loads the method's edge program (program_entry). *out is
 * NULL (and 0 returned) when the method has no program. */
int etrecord_load_method_program(etrecord *rec, const etrecord_method *m, mlia_arena *arena,
                                 ep_program **out, mlia_error *err);

/* The method's edge program if it was already loaded, else NULL. The
 * pointer is owned by the arena used for loading. */
const ep_program *etrecord_method_program(const etrecord *rec, const etrecord_method *m);

/* Many lazy loads (inspecting every method's program): keep one libzip
 * handle open instead of reopening the archive for each entry, which costs
 * a pass over the central directory each time. Pair with etrecord_close(),
 * which releases the handle (the etrecord itself stays in its arena). */
int etrecord_keep_open(etrecord *rec, mlia_error *err);
void etrecord_close(etrecord *rec);

/* Reads a whole entry's bytes (decompressed, CRC-checked) into `arena`,
 * NUL-terminated. Used for the maps and programs; exposed for inspection. */
int etrecord_read_entry(etrecord *rec, const etrecord_entry *e, mlia_arena *arena,
                        const uint8_t **out, size_t *len, mlia_error *err);

#endif
