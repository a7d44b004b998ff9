/*
 * debug_buffer.h - the ETDump debug buffer: the bytes of the tensors that the
 * ETDump's DebugEvents describe (docs/formats/etdump-debug-buffer.md,
 * docs/accuracy.md).
 *
 * An ETDump DebugEvent whose Value is a Tensor records the tensor's scalar
 * type, sizes, strides and an `offset`; the element bytes live in a separate
 * file, the debug buffer, at that offset. Every execution of the capture
 * writes into the same buffer at growing offsets; tensors are 64-byte aligned
 * and zero-padded when the runtime wrote into a memory buffer, packed when it
 * streamed them to a file, and the file may be larger than what was used.
 * Nothing in the buffer describes itself: it is only read through the
 * tensors of the ETDump.
 *
 * The reader is pure: it takes the buffer's size and a way to read bytes
 * (a memory span, or a read callback for a file read piece by piece) and
 * gives typed views and decoded elements. It never holds a tensor whole:
 * callers decode a tensor in chunks of their choosing into their own
 * scratch memory, so a 1 GB buffer costs the chunk, not the gigabyte.
 *
 * Every offset and size is checked against the buffer before a byte is read
 * (debug_buffer_check). Errors read "<file>: <what> at byte offset <N>
 * (<where>)", where <where> is the caller's description of the DebugEvent
 * (e.g. its ETDump run and event index).
 *
 * Ownership: a debug_buffer borrows `file`, `data` and `read_ctx`; a
 * debug_tensor borrows the sizes/strides bytes of the ETDump it came from.
 */
#ifndef MLIA_FORMATS_DEBUG_BUFFER_H
#define MLIA_FORMATS_DEBUG_BUFFER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/error.h"
#include "formats/etdump.h"

/* Reads bytes [off, off + n) of the buffer into dst (the range is always
 * within `size`); 0 or -1 with err set. */
typedef int (*debug_buffer_read_fn)(void *ctx, uint64_t off, void *dst, size_t n, mlia_error *err);

typedef struct debug_buffer {
    const char *file;            /* names the buffer in messages */
    uint64_t size;               /* bytes in the buffer */
    const uint8_t *data;         /* the bytes in memory, or NULL: then `read` */
    debug_buffer_read_fn read;
    void *read_ctx;
} debug_buffer;

/* Typed view of one tensor of a DebugEvent value. */
typedef struct debug_tensor {
    uint8_t scalar_type;         /* executorch ScalarType */
    unsigned elem_size;          /* bytes per element, 0 when the type has no known size */
    bool decodable;              /* debug_decode handles scalar_type */
    uint32_t n_dims;
    const uint8_t *sizes;        /* n_dims little-endian int64 (borrowed) */
    uint32_t n_strides;
    const uint8_t *strides;      /* n_strides little-endian int64 (borrowed) */
    uint64_t numel;              /* Π sizes (1 for a 0-dimensional tensor) */
    uint64_t nbytes;             /* numel × elem_size */
    int64_t offset;              /* byte offset in the buffer; -1 = no data (an empty tensor) */
} debug_tensor;

/* Check every tensor of value v against buffer b: a tensor with data must lie
 * within the buffer and an offset below -1 is invalid (-1 is what the runtime
 * writes for a tensor without bytes). Values that are not tensors pass.
 * `where` (may be NULL) is appended to messages in parentheses. Errors:
 *   "<file>: tensor data of <n> bytes runs past the end of the debug buffer
 *    (<size> bytes) at byte offset <o> (<where>)"
 *   "<file>: negative tensor offset at byte offset <o> (<where>)" */
int debug_buffer_check(const debug_buffer *b, const etdump_debug_value *v, const char *where, mlia_error *err);

/* The first tensor of v (a Tensor value, or the first of a TensorList).
 * Returns false when v holds no tensor. */
bool debug_tensor_of(const etdump_debug_value *v, debug_tensor *t);

/* Dimension i of t (0 <= i < n_dims) / stride i (0 <= i < n_strides). */
int64_t debug_tensor_dim(const debug_tensor *t, uint32_t i);
int64_t debug_tensor_stride(const debug_tensor *t, uint32_t i);

/* True when two tensors have the same scalar type, sizes and strides, i.e.
 * their elements can be compared position by position. */
bool debug_tensor_same_layout(const debug_tensor *a, const debug_tensor *b);

/* "FLOAT[2, 3]" (at most cap bytes, always terminated); returns out. */
char *debug_tensor_describe(const debug_tensor *t, char *out, size_t cap);

/* Scalar types whose elements debug_decode turns into doubles: BYTE, CHAR,
 * SHORT, INT, LONG, HALF, FLOAT, DOUBLE, BOOL, BFLOAT16, BITS16 (as an
 * unsigned 16-bit integer), UINT16, UINT32, UINT64. Quantized, sub-byte and
 * 8-bit float types are not (their values need parameters the ETDump does
 * not record). */
bool debug_scalar_type_decodable(int scalar_type);

/* Decode n little-endian elements of a decodable scalar type from src into
 * dst. LONG and UINT64 values beyond 2^53 are rounded to the nearest double. */
void debug_decode(int scalar_type, const uint8_t *src, size_t n, double *dst);

/* Decode elements [first, first + n) of tensor t (decodable, with data, and
 * checked with debug_buffer_check) into dst, reading through b. `scratch`
 * holds at least n × t->elem_size bytes (unused when b->data is set).
 * Returns 0 or -1 (read errors). */
int debug_tensor_read(const debug_buffer *b, const debug_tensor *t, uint64_t first, size_t n, uint8_t *scratch,
                      double *dst, mlia_error *err);

#endif
