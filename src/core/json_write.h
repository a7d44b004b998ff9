/*
 * json_write.h - streaming JSON writer.
 *
 * Output is produced as it is generated (no document tree), so result files
 * of any size cost no memory beyond the destination buffer or FILE.
 * Pretty mode indents with two spaces like Python's json.dumps(indent=2).
 * Strings are escaped for JSON; invalid UTF-8 bytes become U+FFFD so the
 * output is always valid JSON; with html_safe, '<', '>', '&' and U+2028/9 are
 * escaped too so the text can sit inside an HTML <script> element.
 * Doubles use the shortest text that reads back to the same value; NaN and
 * infinities are never written (they become null; callers must not pass them).
 *
 * Ownership: the writer borrows the mlia_buf or FILE given at init.
 */
#ifndef MLIA_CORE_JSON_WRITE_H
#define MLIA_CORE_JSON_WRITE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "str.h"

#define MLIA_JW_MAX_DEPTH 128

typedef struct mlia_jw {
    mlia_buf *buf;      /* destination when non-NULL */
    FILE *fp;           /* destination otherwise */
    bool pretty;
    bool html_safe;
    int depth;
    bool need_comma[MLIA_JW_MAX_DEPTH];
    bool is_object[MLIA_JW_MAX_DEPTH];
    bool after_key;
    bool failed;        /* write error on fp */
} mlia_jw;

void mlia_jw_init_buf(mlia_jw *w, mlia_buf *buf, bool pretty);
void mlia_jw_init_file(mlia_jw *w, FILE *fp, bool pretty);
/* Buffered streaming: text collects in `chunk` (borrowed, emptied on each
 * flush) and goes to fp whenever it reaches MLIA_JW_STREAM_CHUNK bytes, so
 * memory stays bounded and fwrite runs once per chunk, not per token. Call
 * mlia_jw_flush at the end. */
#define MLIA_JW_STREAM_CHUNK ((size_t)1 << 16)
void mlia_jw_init_stream(mlia_jw *w, mlia_buf *chunk, FILE *fp, bool pretty);
void mlia_jw_flush(mlia_jw *w);
void mlia_jw_obj_begin(mlia_jw *w);
void mlia_jw_obj_end(mlia_jw *w);
void mlia_jw_arr_begin(mlia_jw *w);
void mlia_jw_arr_end(mlia_jw *w);
void mlia_jw_keyn(mlia_jw *w, const char *key, size_t len);
void mlia_jw_str(mlia_jw *w, const char *s); /* NULL writes null */
void mlia_jw_strn(mlia_jw *w, const char *s, size_t len);
void mlia_jw_int(mlia_jw *w, int64_t v);
void mlia_jw_uint(mlia_jw *w, uint64_t v);
/* v[0..n) as n items of the open array: the same text as n calls of
 * mlia_jw_uint, written straight into the buffer when the writer is
 * compact (the page's timeline: three numbers per event, millions). */
void mlia_jw_uints(mlia_jw *w, const uint64_t *v, size_t n);
void mlia_jw_double(mlia_jw *w, double v);
void mlia_jw_bool(mlia_jw *w, bool v);
void mlia_jw_null(mlia_jw *w);
/* Insert pre-encoded JSON text as one value. */
void mlia_jw_raw(mlia_jw *w, const char *json, size_t len);
/* Newline at the end of a pretty document. */
void mlia_jw_finish(mlia_jw *w);

/* Shortest round-trip text of a finite double ("100.0", "66.66666666666667",
 * "1e-05" style as Python repr). buf must hold 32 bytes. */
void mlia_format_double(char *buf, double v);
/* The same text by printf alone (mlia_format_double takes a faster path for
 * short decimals; tests compare the two). */
void mlia_format_double_printf(char *buf, double v);
/* Append s as an escaped JSON string (with quotes) to b. */
void mlia_json_escape(mlia_buf *b, const char *s, size_t len, bool html_safe);

/* Convenience: key + value in one call. */
void mlia_jw_kstrn(mlia_jw *w, const char *key, const char *s, size_t len);
/* Inline so that a literal key's length is known at compile time (no
 * strlen per token on the writers' hot paths). */
static inline void mlia_jw_key(mlia_jw *w, const char *key) { mlia_jw_keyn(w, key, strlen(key)); }
static inline void mlia_jw_kstr(mlia_jw *w, const char *key, const char *s)
{
    mlia_jw_key(w, key);
    mlia_jw_str(w, s);
}
void mlia_jw_kint(mlia_jw *w, const char *key, int64_t v);
void mlia_jw_kuint(mlia_jw *w, const char *key, uint64_t v);
void mlia_jw_kdouble(mlia_jw *w, const char *key, double v);
void mlia_jw_kbool(mlia_jw *w, const char *key, bool v);
void mlia_jw_knull(mlia_jw *w, const char *key);
/* Key + opening of its object / array value. */
void mlia_jw_kobj_begin(mlia_jw *w, const char *key);
void mlia_jw_karr_begin(mlia_jw *w, const char *key);
/* Key + the number when present, else null. */
void mlia_jw_kint_or_null(mlia_jw *w, const char *key, bool present, int64_t v);
void mlia_jw_kuint_or_null(mlia_jw *w, const char *key, bool present, uint64_t v);
/* Key + a name when known (not NULL), else the raw number: enum values. */
void mlia_jw_kname(mlia_jw *w, const char *key, const char *name, int64_t raw);

/* Lists: "key": [item(0), ..., item(n - 1)], where item writes element i
 * of the list `v` as one JSON value (an object, a number...). With key
 * NULL only the array is written (after a key or inside an array). */
typedef void (*mlia_jw_item_fn)(mlia_jw *w, const void *v, uint32_t i);
void mlia_jw_karray(mlia_jw *w, const char *key, uint32_t n, mlia_jw_item_fn item, const void *v);
/* Lists of records: "key": [{...}, ...], where members writes the members
 * of the object of element i (at `item`) of the array `items` of n
 * elements of `size` bytes. */
typedef void (*mlia_jw_members_fn)(mlia_jw *w, const void *item, uint32_t i);
void mlia_jw_kobjects(mlia_jw *w, const char *key, const void *items, uint32_t n, size_t size,
                      mlia_jw_members_fn members);
/* Item writers of plain arrays, for mlia_jw_karray. */
void mlia_jw_item_str(mlia_jw *w, const void *v, uint32_t i);    /* const char *[], NULL as null */
void mlia_jw_item_mstr(mlia_jw *w, const void *v, uint32_t i);   /* mlia_str[], ptr NULL as null */
void mlia_jw_item_u8(mlia_jw *w, const void *v, uint32_t i);     /* uint8_t[] */
void mlia_jw_item_i32(mlia_jw *w, const void *v, uint32_t i);    /* int32_t[] */
void mlia_jw_item_u32(mlia_jw *w, const void *v, uint32_t i);    /* uint32_t[] */
void mlia_jw_item_i64(mlia_jw *w, const void *v, uint32_t i);    /* int64_t[] */
void mlia_jw_item_u64(mlia_jw *w, const void *v, uint32_t i);    /* uint64_t[] */

#endif
