/*
 * etdump.h - ExecuTorch ETDump reader (executorch-formats.md §3).
 *
 * An ETDump is a FlatBuffer (identifier "ED00"), normally size-prefixed as
 * written by the runtime, unprefixed when written by ExecuTorch's Python
 * serializer; both are accepted. The reader decodes every RunData block and
 * every Event into flat arrays: one events array per run (its count is
 * checked against the buffer before allocating), no allocation per event,
 * strings and metadata bytes borrowed from the input bytes. Debug-event
 * values are decoded into a per-run side array (rare in practice).
 *
 * Validation beyond the FlatBuffers checks (§3.3): an Event must have
 * exactly one member; allocator ids are 1-based indexes into the run's
 * allocators; a Value tag must have its member table; debug tensor sizes
 * must be non-negative and their byte size must not overflow.
 *
 * Ownership: the etdump and its arrays belong to the arena; mlia_str and
 * metadata pointers point into `data`, which must outlive the result.
 */
#ifndef MLIA_FORMATS_ETDUMP_H
#define MLIA_FORMATS_ETDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"

typedef enum {
    ETDUMP_EVENT_PROFILE = 0,
    ETDUMP_EVENT_ALLOCATION = 1,
    ETDUMP_EVENT_DEBUG = 2
} etdump_event_kind;

/* ETDump ValueType (§3.2). */
typedef enum {
    ETDUMP_VALUE_NULL = 0,
    ETDUMP_VALUE_INT = 1,
    ETDUMP_VALUE_BOOL = 2,
    ETDUMP_VALUE_FLOAT = 3,
    ETDUMP_VALUE_DOUBLE = 4,
    ETDUMP_VALUE_TENSOR = 5,
    ETDUMP_VALUE_TENSOR_LIST = 6,
    ETDUMP_VALUE_STRING = 7
} etdump_value_type;

/* Decoded DebugEvent.debug_entry (Value). */
typedef struct etdump_debug_value {
    uint8_t value_type;      /* etdump_value_type, raw when unknown */
    bool present;            /* debug_entry was set */
    bool output;             /* Value.output.bool_val (program outputs) */
    bool bool_val;
    int64_t int_val;
    double double_val;       /* Double, or Float widened */
    /* Tensor: one tensor; TensorList: n_tensors tensors (first one described) */
    uint32_t n_tensors;
    uint8_t scalar_type;     /* executorch ScalarType of the first tensor */
    uint32_t n_dims;         /* of the first tensor */
    const uint8_t *sizes;    /* n_dims little-endian int64, in place */
    int64_t data_offset;     /* offset in the debug buffer of the first tensor; -1 = no data */
    uint64_t nbytes;         /* sum over the tensors of Π sizes × element size */
    bool nbytes_known;       /* false when an element type has no known size */
} etdump_debug_value;

typedef struct etdump_event {
    uint8_t kind;                  /* etdump_event_kind */
    uint8_t debug_value_type;      /* debug events: ValueType */
    bool has_metadata;             /* delegate_debug_metadata present (possibly empty) */
    int32_t instruction_id;        /* default -1 */
    int32_t delegate_debug_id_int; /* default -1 */
    int32_t allocator_id;          /* allocation events (1-based, validated) */
    uint32_t metadata_size;
    uint32_t debug_index;          /* debug events: index into run.debug_values */
    int64_t chain_index;           /* profile default 0; debug: u64 with 2^64-1 -> -1 */
    mlia_str name;                 /* profile: name (ptr NULL when absent); debug: name */
    mlia_str delegate_debug_id_str;
    const uint8_t *metadata;       /* delegate_debug_metadata bytes, in place */
    uint64_t start_time, end_time;
    uint64_t allocation_size;      /* allocation events */
    uint64_t offset;               /* file byte offset of the Event table (diagnostics) */
} etdump_event;

typedef struct etdump_run {
    mlia_str name;
    int32_t bundled_input_index;   /* -1 = unset */
    uint32_t n_allocators;
    mlia_str *allocators;
    uint32_t n_events;
    etdump_event *events;
    uint32_t n_debug_values;
    etdump_debug_value *debug_values;
    uint64_t offset;               /* file byte offset of the RunData table */
} etdump_run;

typedef struct etdump {
    uint32_t version;
    bool size_prefixed;
    uint32_t n_runs;
    etdump_run *runs;
    uint64_t size;                 /* input length */
} etdump;

/* Decode an ETDump held in data[0, size). `file` names the input in error
 * messages ("<file>: <what> at byte <N> (<field path>)"). A 0-byte input
 * fails with "empty ETDump (no event blocks)". On success *out is allocated
 * in `arena` and borrows `data`. */
int etdump_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, etdump **out,
                mlia_error *err);

/* "profile" / "allocation" / "debug" / NULL for unknown kinds. */
const char *etdump_event_kind_name(int kind);
/* "Null", "Int", ... "String" / NULL for unknown ValueTypes. */
const char *etdump_value_type_name(int value_type);

#endif
