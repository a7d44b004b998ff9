/*
 * json_stream.h - a pull reader of JSON from a file, one token at a time.
 *
 * For inputs whose size must not decide the memory used (docs/compare.md
 * "Safe inputs"): the bytes go through a fixed 64 KiB window, and only the
 * current token is held (a string being read, a number's text). A caller
 * that is skipping a value asks for strings not to be kept at all
 * (mlia_jstream_skip), so a string of any length costs nothing either.
 *
 * The grammar is strict RFC 8259, checked as tokens are pulled (a byte
 * order mark, NaN/Infinity and invalid UTF-8 in strings are errors), with
 * the same messages as the tree reader (core/json_read.h):
 *   "<file>: invalid JSON at byte <n>: <reason>"
 * e.g. "unexpected 'h', expected a value", "unexpected end of input".
 * Nesting is limited to MLIA_JSTREAM_MAX_DEPTH levels.
 *
 * A tap copies the raw bytes consumed between mlia_jstream_tap_begin() and
 * mlia_jstream_tap_end() to a callback, so a value can be copied from one
 * file to another while it is being checked.
 *
 * Ownership: the stream owns its window and token buffer (released by
 * mlia_jstream_close, which does not close the descriptor); the token text
 * stays valid until the next call.
 */
#ifndef MLIA_CORE_JSON_STREAM_H
#define MLIA_CORE_JSON_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

#define MLIA_JSTREAM_MAX_DEPTH 512u
#define MLIA_JSTREAM_WINDOW (64u * 1024u)

typedef enum mlia_jtok {
    MLIA_JTOK_ERROR = -1,  /* err is set */
    MLIA_JTOK_EOF = 0,     /* the one top-level value ended and only whitespace followed */
    MLIA_JTOK_OBJ_BEGIN,
    MLIA_JTOK_OBJ_END,
    MLIA_JTOK_ARR_BEGIN,
    MLIA_JTOK_ARR_END,
    MLIA_JTOK_KEY,         /* text = the decoded key */
    MLIA_JTOK_STRING,      /* text = the decoded string */
    MLIA_JTOK_NUMBER,      /* text = the source text; number, is_integer, int_fits, i */
    MLIA_JTOK_TRUE,
    MLIA_JTOK_FALSE,
    MLIA_JTOK_NULL
} mlia_jtok;

typedef void (*mlia_jstream_tap_fn)(void *ctx, const char *bytes, size_t n);

typedef struct mlia_jstream {
    int fd;                    /* the file, or -1 when reading memory (mem, mem_len) */
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    const char *file;          /* named in messages (borrowed) */
    mlia_error *err;
    uint64_t start;            /* file offset of the document's first byte */
    uint64_t base;             /* document offset of win[0] */
    unsigned char *win;
    size_t len, pos;           /* bytes in the window, next byte to read */
    bool eof;                  /* the file has no more bytes */
    bool top_done;             /* the top-level value is complete */
    bool trailing_ok;          /* bytes after the top-level value are the caller's (see tail mode) */
    bool keep;                 /* store string contents (false while skipping) */
    /* the current token */
    uint64_t offset;           /* document offset where it starts */
    char *text;                /* NUL-terminated (decoded string, or number text) */
    size_t text_len, text_cap;
    double number;
    bool is_integer, int_fits;
    int64_t i;
    /* structure */
    unsigned depth;
    unsigned char stack[MLIA_JSTREAM_MAX_DEPTH]; /* '{' or '[' */
    int state;                 /* what may come next (json_stream.c) */
    /* tap */
    mlia_jstream_tap_fn tap;
    void *tap_ctx;
    size_t tap_from;           /* window index of the first byte not yet passed to the tap */
} mlia_jstream;

/* Read fd from its current offset (`file` names it in messages). With
 * value_only, the document is one value followed by anything (the caller
 * reads what follows with mlia_jstream_peek): a value embedded in a larger
 * file. Otherwise only whitespace may follow it. */
void mlia_jstream_init(mlia_jstream *js, int fd, const char *file, bool value_only, mlia_error *err);
/* The same over `len` bytes in memory (borrowed until mlia_jstream_close). */
void mlia_jstream_init_mem(mlia_jstream *js, const void *data, size_t len, const char *file, bool value_only,
                           mlia_error *err);
void mlia_jstream_close(mlia_jstream *js);

/* The next token (see mlia_jtok). */
mlia_jtok mlia_jstream_next(mlia_jstream *js);

/* Skip the rest of the value whose first token `first` was just returned
 * (a scalar: nothing to do; '{' or '[': up to the matching end), without
 * keeping any string. Returns 0 or -1 (err set). */
int mlia_jstream_skip(mlia_jstream *js, mlia_jtok first);

/* Read and skip the next value whole, keeping none of its strings. */
int mlia_jstream_skip_value(mlia_jstream *js);

/* Document offset of the next unread byte. */
uint64_t mlia_jstream_offset(const mlia_jstream *js);

/* Up to n (<= 256) raw bytes after the current position, without consuming
 * them: copies them to out and returns how many there were. For what
 * follows a value_only document. */
size_t mlia_jstream_peek(mlia_jstream *js, char *out, size_t n);

/* Pass every raw byte consumed from now on to tap(ctx, bytes, n), until
 * mlia_jstream_tap_end(). */
void mlia_jstream_tap_begin(mlia_jstream *js, mlia_jstream_tap_fn tap, void *ctx);
void mlia_jstream_tap_end(mlia_jstream *js);

#endif
