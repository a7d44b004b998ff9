/*
 * etdump.h - ExecuTorch ETDump reader (docs/formats/etdump.md).
 *
 * An ETDump is a FlatBuffer (identifier "ED00"), normally size-prefixed as
 * written by the runtime, unprefixed when written by ExecuTorch's Python
 * serializer; both are accepted.
 *
 * Streaming design (issue 11). A capture of thousands of LLM decode steps
 * holds tens of millions of events, so the reader never materialises them:
 * etdump_read() validates the whole buffer once (every FlatBuffers check and
 * every rule below, so errors are reported before any analysis or output)
 * and keeps only the run headers. Consumers then decode the events of one
 * run at a time, either one event after another with a cursor
 * (etdump_run_begin / etdump_run_next: no memory at all) or into a reusable
 * per-run buffer (etdump_read_run: memory bounded by the largest run). No
 * allocation happens per event; strings and metadata bytes are borrowed from
 * the input bytes. Memory therefore depends on the graph and the number of
 * runs, not on the number of events; the input bytes themselves may be a
 * file mapping whose pages the caller releases between runs
 * (etdump.release, see core/file.h).
 *
 * Schema version: the root's `version` is looked up in the reader's table
 * of known versions before anything below the root is read; only version 0
 * (tools/schema/etdump.fbs) is read, any other is an error naming the
 * version, its byte offset and the readable versions (docs/formats/etdump.md
 * §7).
 *
 * Validation beyond the FlatBuffers checks (docs/formats/etdump.md §3): an Event must have
 * exactly one member; allocator ids are 1-based indexes into the run's
 * allocators; a Value tag must have its member table; debug tensor sizes
 * must be non-negative and their byte size must not overflow.
 *
 * Ownership: the etdump and its run headers belong to the arena; mlia_str
 * and metadata pointers point into `data`, which must outlive the result
 * and every event decoded from it.
 */
#ifndef MLIA_FORMATS_ETDUMP_H
#define MLIA_FORMATS_ETDUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/str.h"
#include "formats/fb.h"
#include "formats/schema_etdump.h"

typedef enum {
    ETDUMP_EVENT_PROFILE = 0,
    ETDUMP_EVENT_ALLOCATION = 1,
    ETDUMP_EVENT_DEBUG = 2
} etdump_event_kind;

/* ETDump ValueType (docs/formats/etdump.md §2), numbered by the schema
 * (tools/schema/etdump.fbs). */
typedef enum {
    ETDUMP_VALUE_NULL = ETDUMP_VALUE_TYPE_NULL,
    ETDUMP_VALUE_INT = ETDUMP_VALUE_TYPE_INT,
    ETDUMP_VALUE_BOOL = ETDUMP_VALUE_TYPE_BOOL,
    ETDUMP_VALUE_FLOAT = ETDUMP_VALUE_TYPE_FLOAT,
    ETDUMP_VALUE_DOUBLE = ETDUMP_VALUE_TYPE_DOUBLE,
    ETDUMP_VALUE_TENSOR = ETDUMP_VALUE_TYPE_TENSOR,
    ETDUMP_VALUE_TENSOR_LIST = ETDUMP_VALUE_TYPE_TENSOR_LIST,
    ETDUMP_VALUE_STRING = ETDUMP_VALUE_TYPE_STRING
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
    uint32_t n_strides;      /* of the first tensor */
    const uint8_t *strides;  /* n_strides little-endian int64, in place */
    int64_t data_offset;     /* offset in the debug buffer of the first tensor; -1 = no data */
    uint64_t nbytes;         /* sum over the tensors of Π sizes × element size */
    bool nbytes_known;       /* false when an element type has no known size */
    /* Debug-buffer extent over every tensor of the value with data (offset
     * >= 0 and a known, non-zero byte size): the highest offset + byte size
     * and the offset of that tensor (formats/debug_buffer.h checks it
     * against the buffer); data_end == 0 when no tensor has data. A tensor
     * with an offset below -1 sets bad_offset (the first one met). */
    uint64_t data_end;
    int64_t data_end_offset;
    bool has_bad_offset;
    int64_t bad_offset;
} etdump_debug_value;

typedef struct etdump_event {
    uint8_t kind;                  /* etdump_event_kind */
    uint8_t debug_value_type;      /* debug events: ValueType */
    bool has_metadata;             /* delegate_debug_metadata present (possibly empty) */
    int32_t instruction_id;        /* default -1 */
    int32_t delegate_debug_id_int; /* default -1 */
    int32_t allocator_id;          /* allocation events (1-based, validated) */
    uint32_t metadata_size;
    uint32_t debug_index;          /* debug events: index into etdump_events.debug_values */
    int64_t chain_index;           /* profile default 0; debug: u64 with 2^64-1 -> -1 */
    mlia_str name;                 /* profile: name (ptr NULL when absent); debug: name.
                                      Strings borrowed from the buffer are NUL-terminated there
                                      (checked by fb_get_string): ptr is a C string */
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
    uint64_t offset;               /* file byte offset of the RunData table */
    uint32_t index;                /* position in run_data */
    uint32_t n_metadata_events;    /* profile events with non-empty delegate_debug_metadata
                                      (NX statistics candidates): passes that only look at
                                      those skip the other runs */
    uint32_t n_debug_tensors;      /* debug events whose value is a Tensor or TensorList
                                      (intermediate or program outputs) */
    /* In-memory runs (hand-built dumps in tests): when non-NULL, the run's
     * events are these instead of being decoded from the bytes. NULL for
     * every dump read by etdump_read(). */
    const struct etdump_event *mem_events;
    const struct etdump_debug_value *mem_debug_values;
    /* Pooled runs (etdump_pool): the dump and run index the events are
     * decoded from. NULL / 0 for the runs of a dump read by etdump_read(). */
    const struct etdump *src;
    uint32_t src_run;
    /* Set by an etdump_visitor during validation, opaque to the reader
     * (analysis/runtime.h: which recorded methods the run fits). Meaningful
     * only when the dump's visit_key is the visitor's key. */
    uint64_t visit_bits;
} etdump_run;

typedef struct etdump {
    uint32_t version;
    bool size_prefixed;
    uint32_t n_runs;
    etdump_run *runs;
    uint64_t size;                 /* input length */
    uint64_t n_events;             /* over all runs */
    uint32_t max_run_events;       /* largest run */
    bool validated;                /* every event passed etdump_read's checks: later
                                      passes decode profile events with unchecked
                                      (bounds-kept) accessors, see etdump.c "fast path" */
    /* where the events are decoded from (set by etdump_read) */
    const uint8_t *data;
    const char *file;
    /* Optional: told which bytes were consumed, so that the owner of `data`
     * can drop those pages (the bytes must stay readable afterwards). Called
     * with the span [lo, hi) that the decoded events occupy (their events
     * vector slots, Event and member tables, borrowed strings and metadata)
     * and their count,
     * after every ETDUMP_RELEASE_EVENTS events and at the end of each run;
     * the callee batches (see mlia_file_release). */
    void (*release)(void *ctx, uint64_t lo, uint64_t hi, uint32_t n_events);
    void *release_ctx;
    const void *visit_key;         /* the etdump_visitor's key once it saw every event, else NULL */
} etdump;

#define ETDUMP_RELEASE_EVENTS 16384u

/* Validate the ETDump held in data[0, size) and read its run headers.
 * `file` names the input in error messages ("<file>: <what> at byte <N>
 * (<field path>)"). A 0-byte input fails with "empty ETDump (no event
 * blocks)". On success *out is allocated in `arena` and borrows `data` and
 * `file`. Memory: the run headers and allocator names only. */
/* Event names and delegate ids, counted once per event that uses them
 * (aliased offsets let many events share one string), may add up to at
 * most ETDUMP_TEXT_BASE + ETDUMP_TEXT_RATIO x the file size; beyond, the
 * ETDump is refused. This bounds what every output can write from them
 * (docs/hardening.md "Bounded outputs"). */
#define ETDUMP_TEXT_BASE ((uint64_t)16 << 20)
#define ETDUMP_TEXT_RATIO 4u

int etdump_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena, etdump **out,
                mlia_error *err);
/* Same, with d->release / d->release_ctx set (and already called during
 * the validation pass): for inputs that are file mappings. */
int etdump_read_releasing(const uint8_t *data, size_t size, const char *file,
                          void (*release)(void *ctx, uint64_t lo, uint64_t hi, uint32_t n_events),
                          void *release_ctx, mlia_arena *arena, etdump **out, mlia_error *err);

/* Decode once (issue 20): work that needs each event of every run can ride
 * on the validation pass instead of decoding the runs again. `run` is called
 * with each run header before its events (visit_bits 0), `event` with each
 * event once it passed every check (debug events: without their value).
 * When the whole dump validated, d->visit_key = key. */
typedef struct etdump_visitor {
    const void *key;
    void *ctx;
    void (*run)(void *ctx, etdump_run *r);
    void (*event)(void *ctx, etdump_run *r, const etdump_event *ev);
    /* Optional (may be NULL). begin: once, with the number of runs, before
     * the first; run_end: after the last event of a run, before its bytes
     * are released (the events' strings can still be read without a
     * fault). */
    void (*begin)(void *ctx, uint32_t n_runs);
    void (*run_end)(void *ctx, etdump_run *r);
} etdump_visitor;

/* etdump_read_releasing with a visitor (release and visitor may be NULL). */
int etdump_read_visiting(const uint8_t *data, size_t size, const char *file,
                         void (*release)(void *ctx, uint64_t lo, uint64_t hi, uint32_t n_events),
                         void *release_ctx, const etdump_visitor *visit, mlia_arena *arena, etdump **out,
                         mlia_error *err);

/* Several captures as one: *out lists the runs of dumps[0], then those of
 * dumps[1], ... (run k of dumps[i] becomes run first[i] + k, first[i] being
 * the number of runs before it). Every reading function accepts the pooled
 * dump and decodes a run from its own capture (bytes, file name in errors,
 * release hook), so analyses written for one dump work on the pool
 * unchanged. The pooled dump has no bytes of its own (data NULL). Memory:
 * one run header per run, in `arena`; the dumps must outlive *out. */
void etdump_pool(const etdump *const *dumps, uint32_t n, mlia_arena *arena, etdump **out);
/* The capture a run of d comes from and its index there: (d, run) unless d
 * is a pool. */
const etdump *etdump_run_origin(const etdump *d, uint32_t run, uint32_t *origin_run);

/* Cursor over the events of one run. Opaque: fields are private. It holds
 * the FlatBuffers table chain used for error paths, so it must not be copied
 * or moved between etdump_run_begin and the last etdump_run_next. */
typedef struct etdump_cursor {
    const etdump *dump;
    const etdump_run *run;
    uint32_t next;
    bool defer_release;            /* etdump_read_run: report the span when the buffer is reused */
    uint32_t since_release;        /* events decoded since the last release call */
    uint64_t lo, hi;               /* their Event tables' span */
    fb_buf b;
    fb_table root, run_table;
    fb_vec events;
} etdump_cursor;

/* Start decoding run `run` of d (run < d->n_runs). 0 or -1 (error in err). */
int etdump_run_begin(const etdump *d, uint32_t run, etdump_cursor *c, mlia_error *err);
/* Decode the next event into *ev (debug events: their value into *dv,
 * ev->debug_index = 0). Returns 1 with an event, 0 at the end, -1 on error.
 * Borrowed pointers in *ev point into d->data. */
int etdump_run_next(etdump_cursor *c, etdump_event *ev, etdump_debug_value *dv, mlia_error *err);

/* The events of one run, decoded into reusable memory. Owned by the caller:
 * zero-initialise, pass to etdump_read_run any number of times, release with
 * etdump_events_done (or etdump_events_free when the dump has no release
 * hook). Grows to the largest run read (allocation failure goes to
 * mlia_oom). */
typedef struct etdump_events {
    uint32_t run;                  /* run the contents belong to */
    uint32_t n;
    etdump_event *ev;              /* [n] in file order */
    etdump_debug_value *debug_values; /* indexed by ev[k].debug_index */
    uint32_t n_debug;
    uint32_t cap, cap_debug;
    /* bytes of the previous run not yet reported to dump->release: the
     * caller reads the events (and the strings they borrow) after
     * etdump_read_run returns, so the span is released on the next call */
    uint64_t held_lo, held_hi;
    uint32_t held_n;
    const etdump *held_dump;       /* the dump those bytes belong to (a pool's capture) */
} etdump_events;

int etdump_read_run(const etdump *d, uint32_t run, etdump_events *out, mlia_error *err);
void etdump_events_free(etdump_events *e);
/* etdump_events_free after reporting the last run's bytes to d->release:
 * what consumers call when they are done with the events. */
void etdump_events_done(const etdump *d, etdump_events *e);

/* "profile" / "allocation" / "debug" / NULL for unknown kinds. */
const char *etdump_event_kind_name(int kind);
/* "Null", "Int", ... "String" / NULL for unknown ValueTypes. */
const char *etdump_value_type_name(int value_type);

#endif
