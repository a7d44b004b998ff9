/*
 * json_stream.c - pull reader of JSON from a file (see json_stream.h).
 *
 * Design:
 * - The file is read through a window of MLIA_JSTREAM_WINDOW bytes; when a
 *   token needs bytes beyond the window's end, the unread tail moves to the
 *   front and the window is refilled (ensure()). Every token reader asks
 *   for at most 12 bytes ahead (a \uXXXX\uXXXX surrogate pair), so the
 *   window never grows.
 * - A state machine (`state`, the container stack) checks the grammar as
 *   tokens are pulled; the messages and offsets are those of the tree
 *   reader (json_read.c), so both readers report a bad input the same way.
 * - Kept strings are decoded into one token buffer that grows to the
 *   longest kept string, at most MLIA_JSTREAM_MAX_KEPT bytes; a string read
 *   while skipping is checked and dropped. Number text is limited to
 *   MLIA_JSTREAM_MAX_NUMBER bytes.
 */
#include "json_stream.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cnum.h"
#include "oom.h"
#include "str.h"
#include "utf8.h"

#define MLIA_JSTREAM_MAX_KEPT (1u << 20)
#define MLIA_JSTREAM_MAX_NUMBER 4096u

enum {
    S_VALUE,      /* a value */
    S_ARR_FIRST,  /* a value or ']' */
    S_OBJ_FIRST,  /* a key or '}' */
    S_KEY,        /* a key */
    S_AFTER,      /* ',' or the container's end (or the end of the document) */
};

static int fail(mlia_jstream *js, uint64_t at, const char *reason)
{
    return mlia_error_setf(js->err, js->file, "invalid JSON at byte %llu: %s", (unsigned long long)at, reason);
}

/* The byte at window index i, for messages; at the end of input the
 * "unexpected end of input" message. */
static int fail_char(mlia_jstream *js, size_t i, const char *what)
{
    uint64_t at = js->base + i;
    if (i >= js->len)
        return fail(js, at, "unexpected end of input");
    unsigned char c = js->win[i];
    if (c >= 0x20 && c < 0x7f)
        return mlia_error_setf(js->err, js->file, "invalid JSON at byte %llu: unexpected '%c'%s%s",
                               (unsigned long long)at, c, what ? ", expected " : "", what ? what : "");
    return mlia_error_setf(js->err, js->file, "invalid JSON at byte %llu: unexpected byte 0x%02x%s%s",
                           (unsigned long long)at, c, what ? ", expected " : "", what ? what : "");
}

static void tap_flush(mlia_jstream *js)
{
    if (js->tap && js->pos > js->tap_from)
        js->tap(js->tap_ctx, (const char *)js->win + js->tap_from, js->pos - js->tap_from);
    js->tap_from = js->pos;
}

/* Makes at least n bytes available at pos (fewer only at the end of the
 * file). Returns the number available. A read error is reported as such. */
static size_t ensure(mlia_jstream *js, size_t n)
{
    if (js->len - js->pos >= n || js->eof)
        return js->len - js->pos;
    tap_flush(js);
    size_t keep = js->len - js->pos;
    if (js->pos) {
        memmove(js->win, js->win + js->pos, keep);
        js->base += js->pos;
        js->tap_from -= js->pos;
        js->pos = 0;
        js->len = keep;
    }
    while (js->len - js->pos < n && !js->eof) {
        if (js->fd < 0) {
            size_t got = js->mem_len - js->mem_pos;
            if (got > MLIA_JSTREAM_WINDOW - js->len)
                got = MLIA_JSTREAM_WINDOW - js->len;
            if (got)
                memcpy(js->win + js->len, js->mem + js->mem_pos, got);
            js->mem_pos += got;
            js->len += got;
            js->eof = js->mem_pos == js->mem_len;
            continue;
        }
        ssize_t got = read(js->fd, js->win + js->len, MLIA_JSTREAM_WINDOW - js->len);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0) {
            mlia_error_setf(js->err, js->file, "read failed at byte %llu: %s",
                            (unsigned long long)(js->base + js->len), strerror(errno));
            js->eof = true;
            break;
        }
        if (got == 0)
            js->eof = true;
        js->len += (size_t)got;
    }
    return js->len - js->pos;
}

void mlia_jstream_init(mlia_jstream *js, int fd, const char *file, bool value_only, mlia_error *err)
{
    *js = (mlia_jstream){.fd = fd, .file = file, .err = err, .trailing_ok = value_only, .keep = true,
                         .state = S_VALUE, .win = malloc(MLIA_JSTREAM_WINDOW)};
    if (!js->win)
        mlia_oom(MLIA_JSTREAM_WINDOW);
}

void mlia_jstream_init_mem(mlia_jstream *js, const void *data, size_t len, const char *file, bool value_only,
                           mlia_error *err)
{
    mlia_jstream_init(js, -1, file, value_only, err);
    js->mem = data;
    js->mem_len = data ? len : 0;
}

void mlia_jstream_close(mlia_jstream *js)
{
    free(js->win);
    free(js->text);
    js->win = NULL;
    js->text = NULL;
}

uint64_t mlia_jstream_offset(const mlia_jstream *js)
{
    return js->base + js->pos;
}

static void text_reset(mlia_jstream *js)
{
    js->text_len = 0;
    if (js->text)
        js->text[0] = 0;
}

static void text_add(mlia_jstream *js, const void *p, size_t n)
{
    /* grown as an mlia_buf (core/str.h), kept in the token's public fields */
    mlia_buf b = {.data = js->text, .len = js->text_len, .cap = js->text_cap};
    mlia_buf_reserve(&b, n);
    js->text = b.data;
    js->text_cap = b.cap;
    memcpy(js->text + js->text_len, p, n);
    js->text_len += n;
    js->text[js->text_len] = 0;
}

static void skip_ws(mlia_jstream *js)
{
    for (;;) {
        while (js->pos < js->len) {
            unsigned char c = js->win[js->pos];
            if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
                return;
            js->pos++;
        }
        if (!ensure(js, 1))
            return;
    }
}

static int hex4(mlia_jstream *js, size_t at, unsigned *out)
{
    size_t n = at < js->len ? js->len - at : 0;
    if (n > 4)
        n = 4;
    size_t k = mlia_hex_digits(js->win + at, n, out);
    if (k < n)
        return fail(js, js->base + at + k, "invalid \\u escape");
    return k < 4 ? fail(js, js->base + js->len, "unexpected end of input") : 0;
}

static int add_decoded(mlia_jstream *js, const void *p, size_t n)
{
    if (!js->keep)
        return 0;
    if (js->text_len + n > MLIA_JSTREAM_MAX_KEPT)
        return mlia_error_setf(js->err, js->file, "string at byte %llu longer than %u bytes",
                               (unsigned long long)js->offset, MLIA_JSTREAM_MAX_KEPT);
    text_add(js, p, n);
    return 0;
}

/* A string whose opening quote is at pos. */
static int read_string(mlia_jstream *js)
{
    js->offset = js->base + js->pos;
    text_reset(js);
    if (js->keep)
        text_add(js, "", 0);
    js->pos++;
    for (;;) {
        /* plain bytes up to a quote, backslash, control or non-ASCII byte */
        size_t run = js->pos;
        while (run < js->len) {
            unsigned char c = js->win[run];
            if (c == '"' || c == '\\' || c < 0x20 || c >= 0x80)
                break;
            run++;
        }
        if (run > js->pos && add_decoded(js, js->win + js->pos, run - js->pos))
            return -1;
        js->pos = run;
        if (ensure(js, 12) == 0)
            return fail(js, js->base + js->len, "unterminated string");
        unsigned char c = js->win[js->pos];
        if (c == '"') {
            js->pos++;
            return 0;
        }
        if (c < 0x20)
            return fail(js, js->base + js->pos, "control character in string");
        if (c >= 0x80) {
            size_t n = mlia_utf8_seq_len(js->win + js->pos, js->len - js->pos);
            if (!n)
                return fail(js, js->base + js->pos, "invalid UTF-8 in string");
            if (add_decoded(js, js->win + js->pos, n))
                return -1;
            js->pos += n;
            continue;
        }
        if (c != '\\')
            continue;
        /* an escape */
        if (js->pos + 1 >= js->len)
            return fail(js, js->base + js->len, "unterminated string");
        unsigned char e = js->win[js->pos + 1];
        const char *simple = NULL;
        switch (e) {
        case '"': simple = "\""; break;
        case '\\': simple = "\\"; break;
        case '/': simple = "/"; break;
        case 'b': simple = "\b"; break;
        case 'f': simple = "\f"; break;
        case 'n': simple = "\n"; break;
        case 'r': simple = "\r"; break;
        case 't': simple = "\t"; break;
        case 'u': break;
        default: return fail(js, js->base + js->pos, "invalid escape");
        }
        if (simple) {
            if (add_decoded(js, simple, 1))
                return -1;
            js->pos += 2;
            continue;
        }
        unsigned cp;
        if (hex4(js, js->pos + 2, &cp))
            return -1;
        if (cp == 0) /* as json_read.h's refuse_nul: every string read here is a name or text */
            return mlia_error_setf(js->err, js->file,
                                   "NUL character (\\u0000) in a string at byte %llu: refused (names are "
                                   "compared and written up to their first NUL, so two names could merge)",
                                   (unsigned long long)(js->base + js->pos));
        size_t adv = 6;
        if (cp >= 0xdc00 && cp <= 0xdfff)
            return fail(js, js->base + js->pos, "lone surrogate in \\u escape");
        if (cp >= 0xd800 && cp <= 0xdbff) {
            if (js->pos + 7 >= js->len || js->win[js->pos + 6] != '\\' || js->win[js->pos + 7] != 'u')
                return fail(js, js->base + js->pos, "lone surrogate in \\u escape");
            unsigned lo;
            if (hex4(js, js->pos + 8, &lo))
                return -1;
            if (lo < 0xdc00 || lo > 0xdfff)
                return fail(js, js->base + js->pos, "lone surrogate in \\u escape");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            adv = 12;
        }
        char u[4];
        if (add_decoded(js, u, mlia_utf8_put(u, cp)))
            return -1;
        js->pos += adv;
    }
}

static bool is_digit(mlia_jstream *js)
{
    return ensure(js, 1) && js->win[js->pos] >= '0' && js->win[js->pos] <= '9';
}

static int take_digit(mlia_jstream *js)
{
    if (js->text_len >= MLIA_JSTREAM_MAX_NUMBER)
        return mlia_error_setf(js->err, js->file, "number at byte %llu longer than %u characters",
                               (unsigned long long)js->offset, MLIA_JSTREAM_MAX_NUMBER);
    text_add(js, js->win + js->pos, 1);
    js->pos++;
    return 0;
}

/* One or more digits: a fraction's or an exponent's. */
static int take_digits(mlia_jstream *js)
{
    if (!is_digit(js))
        return fail_char(js, js->pos, "a digit");
    while (is_digit(js))
        if (take_digit(js))
            return -1;
    return 0;
}

static int read_number(mlia_jstream *js)
{
    js->offset = js->base + js->pos;
    text_reset(js);
    text_add(js, "", 0);
    bool neg = js->win[js->pos] == '-';
    if (neg) {
        js->pos++;
        text_add(js, "-", 1);
        if (ensure(js, 8) >= 8 && memcmp(js->win + js->pos, "Infinity", 8) == 0)
            return mlia_error_setf(js->err, js->file, "invalid JSON at byte %llu: -Infinity is not allowed",
                                   (unsigned long long)js->offset);
    }
    if (!ensure(js, 1))
        return fail(js, js->base + js->len, "unexpected end of input");
    if (js->win[js->pos] == '0') {
        if (take_digit(js))
            return -1;
        if (is_digit(js))
            return fail(js, js->base + js->pos, "leading zero in number");
    } else if (is_digit(js)) {
        while (is_digit(js))
            if (take_digit(js))
                return -1;
    } else {
        return fail_char(js, js->pos, "a digit");
    }
    size_t int_end = js->text_len;
    bool integer = true;
    if (ensure(js, 1) && js->win[js->pos] == '.') {
        integer = false;
        if (take_digit(js))
            return -1;
        if (take_digits(js))
            return -1;
    }
    if (ensure(js, 1) && (js->win[js->pos] == 'e' || js->win[js->pos] == 'E')) {
        integer = false;
        if (take_digit(js))
            return -1;
        if (ensure(js, 1) && (js->win[js->pos] == '+' || js->win[js->pos] == '-') && take_digit(js))
            return -1;
        if (take_digits(js))
            return -1;
    }
    js->is_integer = integer;
    js->int_fits = false;
    js->i = 0;
    if (integer) {
        size_t d0 = neg ? 1 : 0;
        int64_t acc;
        bool fits = mlia_json_digits_i64(js->text + d0, int_end - d0, neg, &acc);
        js->int_fits = fits;
        js->i = fits ? acc : 0;
        js->number = fits ? (double)acc : mlia_strtod(js->text, NULL);
    } else {
        js->number = mlia_strtod(js->text, NULL);
    }
    /* a literal beyond a double's range (1e400) would be read as infinity:
     * refused like the Infinity literal, so no reader sees a non-finite value */
    if (!isfinite(js->number))
        return mlia_error_setf(js->err, js->file,
                               "invalid JSON at byte %llu: number out of range (%.40s is not a finite double)",
                               (unsigned long long)js->offset, js->text);
    return 0;
}

static bool word(mlia_jstream *js, const char *w)
{
    size_t n = strlen(w);
    return ensure(js, n) >= n && memcmp(js->win + js->pos, w, n) == 0;
}

static mlia_jtok value_done(mlia_jstream *js, mlia_jtok t)
{
    js->state = S_AFTER;
    if (js->depth == 0)
        js->top_done = true;
    return t;
}

static mlia_jtok read_value(mlia_jstream *js)
{
    skip_ws(js);
    if (!ensure(js, 1))
        return fail(js, js->base + js->len, "unexpected end of input"), MLIA_JTOK_ERROR;
    js->offset = js->base + js->pos;
    unsigned char c = js->win[js->pos];
    switch (c) {
    case '{':
    case '[':
        if (js->depth >= MLIA_JSTREAM_MAX_DEPTH) {
            mlia_error_setf(js->err, js->file, "invalid JSON at byte %llu: nesting deeper than %u levels",
                            (unsigned long long)js->offset, MLIA_JSTREAM_MAX_DEPTH);
            return MLIA_JTOK_ERROR;
        }
        js->stack[js->depth++] = c;
        js->pos++;
        js->state = c == '{' ? S_OBJ_FIRST : S_ARR_FIRST;
        return c == '{' ? MLIA_JTOK_OBJ_BEGIN : MLIA_JTOK_ARR_BEGIN;
    case '"':
        if (read_string(js))
            return MLIA_JTOK_ERROR;
        return value_done(js, MLIA_JTOK_STRING);
    case 't':
    case 'f':
    case 'n': {
        const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (!word(js, w))
            return fail_char(js, js->pos, "a value"), MLIA_JTOK_ERROR;
        js->pos += strlen(w);
        return value_done(js, c == 't' ? MLIA_JTOK_TRUE : c == 'f' ? MLIA_JTOK_FALSE : MLIA_JTOK_NULL);
    }
    case 'N':
    case 'I':
        if (word(js, c == 'N' ? "NaN" : "Infinity")) {
            mlia_error_setf(js->err, js->file, "invalid JSON at byte %llu: %s is not allowed",
                            (unsigned long long)js->offset, c == 'N' ? "NaN" : "Infinity");
            return MLIA_JTOK_ERROR;
        }
        return fail_char(js, js->pos, "a value"), MLIA_JTOK_ERROR;
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            if (read_number(js))
                return MLIA_JTOK_ERROR;
            return value_done(js, MLIA_JTOK_NUMBER);
        }
        return fail_char(js, js->pos, "a value"), MLIA_JTOK_ERROR;
    }
}

static mlia_jtok read_key(mlia_jstream *js)
{
    skip_ws(js);
    if (!ensure(js, 1))
        return fail(js, js->base + js->len, "unexpected end of input"), MLIA_JTOK_ERROR;
    if (js->win[js->pos] != '"')
        return fail_char(js, js->pos, "a string key"), MLIA_JTOK_ERROR;
    /* keys are kept even while skipping: they are short in practice, and
     * a long one costs at most MLIA_JSTREAM_MAX_KEPT */
    bool keep = js->keep;
    js->keep = true;
    int rc = read_string(js);
    js->keep = keep;
    if (rc)
        return MLIA_JTOK_ERROR;
    skip_ws(js);
    if (!ensure(js, 1))
        return fail(js, js->base + js->len, "unexpected end of input"), MLIA_JTOK_ERROR;
    if (js->win[js->pos] != ':')
        return fail_char(js, js->pos, "':'"), MLIA_JTOK_ERROR;
    js->pos++;
    js->state = S_VALUE;
    return MLIA_JTOK_KEY;
}

static mlia_jtok close_container(mlia_jstream *js, unsigned char close)
{
    js->offset = js->base + js->pos;
    js->pos++;
    js->depth--;
    return value_done(js, close == '}' ? MLIA_JTOK_OBJ_END : MLIA_JTOK_ARR_END);
}

mlia_jtok mlia_jstream_next(mlia_jstream *js)
{
    if (js->err && js->err->set)
        return MLIA_JTOK_ERROR;
    if (js->base == 0 && js->pos == 0 && js->state == S_VALUE && js->depth == 0 && !js->top_done) {
        if (ensure(js, 3) >= 3 && js->win[0] == 0xef && js->win[1] == 0xbb && js->win[2] == 0xbf)
            return fail(js, 0, "byte order mark is not allowed"), MLIA_JTOK_ERROR;
    }
    if (js->top_done) {
        if (js->trailing_ok)
            return MLIA_JTOK_EOF;
        skip_ws(js);
        if (ensure(js, 1))
            return fail_char(js, js->pos, "end of input"), MLIA_JTOK_ERROR;
        return js->err && js->err->set ? MLIA_JTOK_ERROR : MLIA_JTOK_EOF;
    }
    mlia_jtok t;
    switch (js->state) {
    case S_ARR_FIRST:
    case S_OBJ_FIRST: {
        /* the first place of a container: its end, or a value (array) or a key */
        unsigned char close = js->state == S_ARR_FIRST ? ']' : '}';
        skip_ws(js);
        if (ensure(js, 1) && js->win[js->pos] == close)
            return close_container(js, close);
        t = close == ']' ? read_value(js) : read_key(js);
        break;
    }
    case S_KEY:
        t = read_key(js);
        break;
    case S_AFTER: {
        skip_ws(js);
        if (!ensure(js, 1))
            return fail(js, js->base + js->len, "unexpected end of input"), MLIA_JTOK_ERROR;
        unsigned char top = js->stack[js->depth - 1], c = js->win[js->pos];
        if (c == ',') {
            js->pos++;
            js->state = top == '{' ? S_KEY : S_VALUE;
            return mlia_jstream_next(js);
        }
        if ((top == '{' && c == '}') || (top == '[' && c == ']'))
            return close_container(js, c);
        return fail_char(js, js->pos, top == '{' ? "',' or '}'" : "',' or ']'"), MLIA_JTOK_ERROR;
    }
    default:
        t = read_value(js);
        break;
    }
    if (t != MLIA_JTOK_ERROR && js->err && js->err->set)
        return MLIA_JTOK_ERROR; /* a read error met while filling the window */
    return t;
}

int mlia_jstream_skip(mlia_jstream *js, mlia_jtok first)
{
    if (first == MLIA_JTOK_ERROR)
        return -1;
    if (first != MLIA_JTOK_OBJ_BEGIN && first != MLIA_JTOK_ARR_BEGIN)
        return 0;
    bool keep = js->keep;
    js->keep = false;
    unsigned target = js->depth - 1;
    int rc = 0;
    for (;;) {
        mlia_jtok t = mlia_jstream_next(js);
        if (t == MLIA_JTOK_ERROR || t == MLIA_JTOK_EOF) {
            rc = -1;
            if (t == MLIA_JTOK_EOF && !(js->err && js->err->set))
                fail(js, mlia_jstream_offset(js), "unexpected end of input");
            break;
        }
        if ((t == MLIA_JTOK_OBJ_END || t == MLIA_JTOK_ARR_END) && js->depth == target)
            break;
    }
    js->keep = keep;
    return rc;
}

int mlia_jstream_skip_value(mlia_jstream *js)
{
    bool keep = js->keep;
    js->keep = false;
    mlia_jtok t = mlia_jstream_next(js);
    int rc = mlia_jstream_skip(js, t);
    js->keep = keep;
    return rc;
}

size_t mlia_jstream_peek(mlia_jstream *js, char *out, size_t n)
{
    if (n > 256)
        n = 256;
    size_t have = ensure(js, n);
    if (have > n)
        have = n;
    memcpy(out, js->win + js->pos, have);
    return have;
}

void mlia_jstream_tap_begin(mlia_jstream *js, mlia_jstream_tap_fn tap, void *ctx)
{
    js->tap = tap;
    js->tap_ctx = ctx;
    js->tap_from = js->pos;
}

void mlia_jstream_tap_end(mlia_jstream *js)
{
    tap_flush(js);
    js->tap = NULL;
    js->tap_ctx = NULL;
}
