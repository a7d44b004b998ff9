/*
 * json_write.c - streaming JSON writer (see json_write.h).
 */
#include "json_write.h"
#include "core/assert.h"
#include "core/cnum.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void mlia_jw_flush(mlia_jw *w)
{
    if (w->buf && w->fp && w->buf->len) {
        if (fwrite(w->buf->data, 1, w->buf->len, w->fp) != w->buf->len)
            w->failed = true;
        w->buf->len = 0;
    }
}

static void out(mlia_jw *w, const char *s, size_t n)
{
    if (w->buf && w->fp && n >= MLIA_JW_STREAM_CHUNK) {
        /* a large piece (a section formatted elsewhere, mlia_jw_raw) goes
         * straight to the file after what is buffered: no copy, no chunk
         * grown to its size */
        mlia_jw_flush(w);
        if (!w->failed && fwrite(s, 1, n, w->fp) != n)
            w->failed = true;
        return;
    }
    if (w->buf) {
        mlia_buf_append(w->buf, s, n);
        if (w->fp && w->buf->len >= MLIA_JW_STREAM_CHUNK)
            mlia_jw_flush(w);
    } else if (w->fp && n) {
        if (fwrite(s, 1, n, w->fp) != n)
            w->failed = true;
    }
}

static void outs(mlia_jw *w, const char *s)
{
    out(w, s, strlen(s));
}

static void init(mlia_jw *w, bool pretty)
{
    w->pretty = pretty;
    w->html_safe = false;
    w->depth = 0;
    w->after_key = false;
    w->failed = false;
    w->need_comma[0] = false;
    w->is_object[0] = false;
}

void mlia_jw_init_buf(mlia_jw *w, mlia_buf *buf, bool pretty)
{
    w->buf = buf;
    w->fp = NULL;
    init(w, pretty);
}

void mlia_jw_init_stream(mlia_jw *w, mlia_buf *chunk, FILE *fp, bool pretty)
{
    w->buf = chunk;
    w->fp = fp;
    init(w, pretty);
}

void mlia_jw_init_file(mlia_jw *w, FILE *fp, bool pretty)
{
    w->buf = NULL;
    w->fp = fp;
    init(w, pretty);
}

static void newline_indent(mlia_jw *w)
{
    if (!w->pretty)
        return;
    static const char spaces[] = "                                                                ";
    out(w, "\n", 1);
    int n = w->depth * 2;
    while (n > 0) {
        int k = n > 64 ? 64 : n;
        out(w, spaces, (size_t)k);
        n -= k;
    }
}

/* Called before every value or key. */
static void before_item(mlia_jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth > 0) {
        bool comma = w->need_comma[w->depth];
        w->need_comma[w->depth] = true;
        int indent = w->depth * 2;
        if (w->pretty && indent <= 128) {
            /* comma, newline and indentation in one append */
            static const char sep[] = ",\n"
                                      "                                                                "
                                      "                                                                ";
            out(w, comma ? sep : sep + 1, (size_t)indent + (comma ? 2 : 1));
            return;
        }
        if (comma)
            out(w, ",", 1);
        newline_indent(w);
    }
}

static void open_container(mlia_jw *w, char c, bool obj)
{
    before_item(w);
    out(w, &c, 1);
    if (w->depth + 1 >= MLIA_JW_MAX_DEPTH) {
        fprintf(stderr, "mlia: internal error: JSON writer nesting too deep\n");
        abort();
    }
    w->depth++;
    w->need_comma[w->depth] = false;
    w->is_object[w->depth] = obj;
}

static void close_container(mlia_jw *w, char c)
{
    /* nesting: the container open at this depth is the one being closed,
     * and no key waits for its value */
    MLIA_ASSERT(w->depth > 0);
    MLIA_ASSERT(w->is_object[w->depth] == (c == '}'));
    MLIA_ASSERT(!w->after_key);
    bool had = w->need_comma[w->depth];
    w->depth--;
    if (had)
        newline_indent(w);
    out(w, &c, 1);
}

void mlia_jw_obj_begin(mlia_jw *w) { open_container(w, '{', true); }
void mlia_jw_obj_end(mlia_jw *w) { close_container(w, '}'); }
void mlia_jw_arr_begin(mlia_jw *w) { open_container(w, '[', false); }
void mlia_jw_arr_end(mlia_jw *w) { close_container(w, ']'); }

static size_t utf8_seq(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t n;
    uint32_t v, min;
    if ((c & 0xE0) == 0xC0) { n = 2; v = c & 0x1F; min = 0x80; }
    else if ((c & 0xF0) == 0xE0) { n = 3; v = c & 0x0F; min = 0x800; }
    else if ((c & 0xF8) == 0xF0) { n = 4; v = c & 0x07; min = 0x10000; }
    else return 0;
    if (n > len)
        return 0;
    for (size_t i = 1; i < n; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return n;
}

/* Bytes copied as they are: bit 0 in plain strings, bit 1 in HTML-safe
 * ones (printable ASCII except '"' and '\\'; HTML-safe also excludes '<',
 * '>' and '&'). One table lookup per byte on the hot path of every writer. */
static const unsigned char PLAIN_BYTES[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    3, 3, 0, 3, 3, 3, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 1, 3, 1, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* The quote and the first i bytes of s (all plain) into b. */
static void escape_head(mlia_buf *b, const char *s, size_t i)
{
    mlia_buf_reserve(b, i + 3);
    char *d = b->data + b->len;
    d[0] = '"';
    if (i)
        memcpy(d + 1, s, i);
    b->len += i + 1;
}

/* The rest of s from byte i (after escape_head) and the closing quote. */
static void escape_tail(mlia_buf *b, const char *s, size_t i, size_t len, bool html_safe)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *plain = PLAIN_BYTES;
    const unsigned char bit = html_safe ? 2 : 1;
    while (i < len) {
        size_t run = i;
        while (run < len && (plain[p[run]] & bit))
            run++;
        if (run > i) {
            mlia_buf_append(b, s + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = p[i];
        char tmp[16];
        if (c == '"') { mlia_buf_puts(b, "\\\""); i++; }
        else if (c == '\\') { mlia_buf_puts(b, "\\\\"); i++; }
        else if (c == '\n') { mlia_buf_puts(b, "\\n"); i++; }
        else if (c == '\r') { mlia_buf_puts(b, "\\r"); i++; }
        else if (c == '\t') { mlia_buf_puts(b, "\\t"); i++; }
        else if (c == '\b') { mlia_buf_puts(b, "\\b"); i++; }
        else if (c == '\f') { mlia_buf_puts(b, "\\f"); i++; }
        else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
            snprintf(tmp, sizeof tmp, "\\u%04x", c);
            mlia_buf_puts(b, tmp);
            i++;
        } else {
            uint32_t cp;
            size_t n = utf8_seq(p + i, len - i, &cp);
            if (n == 0) {
                mlia_buf_puts(b, "\\ufffd");
                i++;
            } else if (html_safe && (cp == 0x2028 || cp == 0x2029)) {
                snprintf(tmp, sizeof tmp, "\\u%04x", (unsigned)cp);
                mlia_buf_puts(b, tmp);
                i += n;
            } else {
                mlia_buf_append(b, s + i, n);
                i += n;
            }
        }
    }
    mlia_buf_putc(b, '"');
}

/* Nonzero when a byte of x (8 bytes of text) is not plain: below 0x20,
 * at or above 0x80, '"' or '\\', and with html_safe '<', '>' or '&'.
 * Word-at-a-time tests ("has a zero byte" on x ^ c): no false negatives. */
static inline uint64_t word_special(uint64_t x, bool html_safe)
{
    const uint64_t ones = 0x0101010101010101u, high = 0x8080808080808080u;
#define MLIA_JW_HASZERO(v) (((v) - ones) & ~(v) & high)
    uint64_t r = x & high;                      /* >= 0x80 */
    r |= (x - ones * 0x20) & ~x & high;         /* < 0x20 */
    r |= MLIA_JW_HASZERO(x ^ (ones * '"'));
    r |= MLIA_JW_HASZERO(x ^ (ones * '\\'));
    if (html_safe)
        r |= MLIA_JW_HASZERO(x ^ (ones * '<')) | MLIA_JW_HASZERO(x ^ (ones * '>')) |
             MLIA_JW_HASZERO(x ^ (ones * '&'));
#undef MLIA_JW_HASZERO
    return r;
}

/* Most strings (ids, names, keys) need no escape: the plain prefix is
 * scanned 8 bytes at a time, then quotes and bytes go in with one reserve
 * and one copy. */
static size_t plain_prefix(const char *s, size_t len, bool html_safe)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char bit = html_safe ? 2 : 1;
    size_t i = 0;
    for (uint64_t x; i + 8 <= len; i += 8) {
        memcpy(&x, p + i, 8);
        if (word_special(x, html_safe))
            break;
    }
    while (i < len && (PLAIN_BYTES[p[i]] & bit))
        i++;
    return i;
}

void mlia_json_escape(mlia_buf *b, const char *s, size_t len, bool html_safe)
{
    size_t i = plain_prefix(s, len, html_safe);
    escape_head(b, s, i);
    escape_tail(b, s, i, len, html_safe);
}

static void write_string(mlia_jw *w, const char *s, size_t len)
{
    if (w->buf) {
        mlia_json_escape(w->buf, s, len, w->html_safe);
    } else {
        mlia_buf tmp;
        mlia_buf_init(&tmp);
        mlia_json_escape(&tmp, s, len, w->html_safe);
        out(w, tmp.data, tmp.len);
        mlia_buf_free(&tmp);
    }
}

void mlia_jw_keyn(mlia_jw *w, const char *key, size_t len)
{
    /* a key only directly inside an object, never two in a row */
    MLIA_ASSERT(w->depth > 0 && w->is_object[w->depth] && !w->after_key);
    before_item(w);
    if (w->buf && plain_prefix(key, len, w->html_safe) == len) {
        /* the usual key: '"', the key, '"', ':' and the space in one go */
        mlia_buf *b = w->buf;
        mlia_buf_reserve(b, len + 5);
        char *d = b->data + b->len;
        d[0] = '"';
        memcpy(d + 1, key, len);
        d[len + 1] = '"';
        d[len + 2] = ':';
        d[len + 3] = ' ';
        b->len += len + (w->pretty ? 4 : 3);
        b->data[b->len] = 0;
        if (w->fp && b->len >= MLIA_JW_STREAM_CHUNK)
            mlia_jw_flush(w);
        w->after_key = true;
        return;
    }
    write_string(w, key, len);
    out(w, w->pretty ? ": " : ":", w->pretty ? 2 : 1);
    w->after_key = true;
}

void mlia_jw_str(mlia_jw *w, const char *s)
{
    before_item(w);
    if (!s)
        outs(w, "null");
    else
        write_string(w, s, strlen(s));
}

void mlia_jw_strn(mlia_jw *w, const char *s, size_t len)
{
    before_item(w);
    if (!s)
        outs(w, "null");
    else
        write_string(w, s, len);
}


/* Decimal text of v, written backwards into the end of buf[32]; returns the
 * first character (integers are written for every metric: no printf). */
static char *u64_text(uint64_t v, char *buf, bool neg)
{
    char *p = buf + 31;
    *p = 0;
    do {
        *--p = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    if (neg)
        *--p = '-';
    return p;
}

void mlia_jw_int(mlia_jw *w, int64_t v)
{
    char tmp[32];
    before_item(w);
    uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    const char *t = u64_text(mag, tmp, v < 0);
    out(w, t, (size_t)(tmp + 31 - t));
}

void mlia_jw_uint(mlia_jw *w, uint64_t v)
{
    char tmp[32];
    before_item(w);
    const char *t = u64_text(v, tmp, false);
    out(w, t, (size_t)(tmp + 31 - t));
}

void mlia_jw_uints(mlia_jw *w, const uint64_t *v, size_t n)
{
    if (w->pretty || !w->buf || w->after_key || w->depth == 0 || w->is_object[w->depth]) {
        for (size_t i = 0; i < n; i++)
            mlia_jw_uint(w, v[i]);
        return;
    }
    /* compact, inside an array: before_item is only the comma */
    mlia_buf *b = w->buf;
    for (size_t i = 0; i < n; i++) {
        mlia_buf_reserve(b, 24); /* a comma and 20 digits at most */
        char *d = b->data + b->len;
        if (w->need_comma[w->depth])
            *d++ = ',';
        w->need_comma[w->depth] = true;
        char tmp[20];
        int k = 0;
        uint64_t x = v[i];
        do {
            tmp[k++] = (char)('0' + x % 10);
            x /= 10;
        } while (x);
        while (k)
            *d++ = tmp[--k];
        *d = 0;
        b->len = (size_t)(d - b->data);
        if (w->fp && b->len >= MLIA_JW_STREAM_CHUNK)
            mlia_jw_flush(w);
    }
}

/* Fast path of mlia_format_double for values that are a short decimal: the
 * smallest d such that n / 10^d == v for an integer n < 10^15 (times and
 * percentages: 0.001204 is 1204 / 10^6). Then D = n x 10^-d has at most 15
 * significant digits and v is the double nearest to it (the division is
 * correctly rounded), so "%.15g" prints exactly D: v is within half an ulp
 * (1.1e-16 relative) of D, and two 15-digit decimals are at least 1e-15
 * apart. With 1e-4 <= |v| < 1e15 "%g" uses plain notation, so the text is
 * D's digits with the point placed, trailing zeros dropped, ".0" for an
 * integer. Returns false when v is not such a value (the printf path then
 * runs); tests/core/test_json_write.c compares both on a million values. */
static bool format_short_decimal(char *buf, double v)
{
    static const double p10[] = {1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
                                 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    double a = fabs(v);
    if (!(a >= 1e-4 && a < 1e15))
        return false;
    for (int d = 0; d < (int)(sizeof p10 / sizeof p10[0]); d++) {
        double x = a * p10[d];
        if (x >= 1e15)
            return false;
        double n = nearbyint(x);
        if (n / p10[d] != a)
            continue;
        char digits[24];
        int k = 0;
        for (uint64_t u = (uint64_t)n; u; u /= 10)
            digits[k++] = (char)('0' + u % 10); /* reversed */
        char *o = buf;
        if (v < 0)
            *o++ = '-';
        if (k <= d) { /* 0.000ddd */
            *o++ = '0';
            *o++ = '.';
            for (int z = 0; z < d - k; z++)
                *o++ = '0';
            while (k)
                *o++ = digits[--k];
        } else {
            while (k > d)
                *o++ = digits[--k];
            *o++ = '.';
            if (d == 0)
                *o++ = '0';
            while (k)
                *o++ = digits[--k];
        }
        while (d > 0 && o[-1] == '0' && o[-2] != '.') /* never with the smallest d; kept for safety */
            o--;
        *o = 0;
        return true;
    }
    return false;
}

void mlia_format_double(char *buf, double v)
{
    if (!format_short_decimal(buf, v)) /* false for 0, NaN and infinities too */
        mlia_format_double_printf(buf, v);
}

void mlia_format_double_printf(char *buf, double v)
{
    if (!isfinite(v)) {
        strcpy(buf, "null");
        return;
    }
    if (v == 0) {
        strcpy(buf, signbit(v) ? "-0.0" : "0.0");
        return;
    }
    /* '.' whatever the host's locale (core/cnum.h) */
    mlia_c_locale_scope sc;
    mlia_c_locale_enter(&sc);
    /* %g drops trailing zeros, so the first precision among 15, 16, 17 that
     * reads back exactly is the shortest text (any double has at most 17
     * significant digits, and every value with <= 15 digits prints exactly
     * at 15). */
    for (int prec = 15; prec <= 17; prec++) {
        snprintf(buf, 32, "%.*g", prec, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    /* Python repr style: plain notation for 1e-4 <= |v| < 1e16. */
    double a = fabs(v);
    if (strchr(buf, 'e') && a >= 1e-4 && a < 1e16) {
        char tmp[64];
        for (int prec = 0; prec <= 20; prec++) {
            snprintf(tmp, sizeof tmp, "%.*f", prec, v);
            if (strtod(tmp, NULL) == v)
                break;
        }
        tmp[31] = 0;
        memcpy(buf, tmp, 32);
    }
    mlia_c_locale_leave(&sc);
    char *e = strchr(buf, 'e');
    if (e) {
        /* 1e-05 like Python: keep sign and at least two exponent digits */
        return;
    }
    if (!strchr(buf, '.'))
        strcat(buf, ".0");
}

void mlia_jw_double(mlia_jw *w, double v)
{
    char tmp[32];
    before_item(w);
    mlia_format_double(tmp, v);
    outs(w, tmp);
}

void mlia_jw_bool(mlia_jw *w, bool v)
{
    before_item(w);
    outs(w, v ? "true" : "false");
}

void mlia_jw_null(mlia_jw *w)
{
    before_item(w);
    outs(w, "null");
}

void mlia_jw_raw(mlia_jw *w, const char *json, size_t len)
{
    before_item(w);
    out(w, json, len);
}

void mlia_jw_finish(mlia_jw *w)
{
    if (w->pretty)
        out(w, "\n", 1);
    if (w->fp)
        fflush(w->fp);
}

void mlia_jw_kstrn(mlia_jw *w, const char *key, const char *s, size_t len) { mlia_jw_key(w, key); mlia_jw_strn(w, s, len); }
void mlia_jw_kint(mlia_jw *w, const char *key, int64_t v) { mlia_jw_key(w, key); mlia_jw_int(w, v); }
void mlia_jw_kuint(mlia_jw *w, const char *key, uint64_t v) { mlia_jw_key(w, key); mlia_jw_uint(w, v); }
void mlia_jw_kdouble(mlia_jw *w, const char *key, double v) { mlia_jw_key(w, key); mlia_jw_double(w, v); }
void mlia_jw_kbool(mlia_jw *w, const char *key, bool v) { mlia_jw_key(w, key); mlia_jw_bool(w, v); }
void mlia_jw_knull(mlia_jw *w, const char *key) { mlia_jw_key(w, key); mlia_jw_null(w); }
void mlia_jw_kint_or_null(mlia_jw *w, const char *key, bool present, int64_t v) { present ? mlia_jw_kint(w, key, v) : mlia_jw_knull(w, key); }
void mlia_jw_kuint_or_null(mlia_jw *w, const char *key, bool present, uint64_t v) { present ? mlia_jw_kuint(w, key, v) : mlia_jw_knull(w, key); }
void mlia_jw_kobj_begin(mlia_jw *w, const char *key) { mlia_jw_key(w, key); mlia_jw_obj_begin(w); }
void mlia_jw_karr_begin(mlia_jw *w, const char *key) { mlia_jw_key(w, key); mlia_jw_arr_begin(w); }

void mlia_jw_karray(mlia_jw *w, const char *key, uint32_t n, mlia_jw_item_fn item, const void *v)
{
    if (key)
        mlia_jw_key(w, key);
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < n; i++)
        item(w, v, i);
    mlia_jw_arr_end(w);
}

void mlia_jw_kobjects(mlia_jw *w, const char *key, const void *items, uint32_t n, size_t size,
                      mlia_jw_members_fn members)
{
    mlia_jw_karr_begin(w, key);
    for (uint32_t i = 0; i < n; i++) {
        mlia_jw_obj_begin(w);
        members(w, (const char *)items + (size_t)i * size, i);
        mlia_jw_obj_end(w);
    }
    mlia_jw_arr_end(w);
}

void mlia_jw_item_str(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_str(w, ((const char *const *)v)[i]); }
void mlia_jw_item_mstr(mlia_jw *w, const void *v, uint32_t i)
{
    const mlia_str *s = &((const mlia_str *)v)[i];
    mlia_jw_strn(w, s->ptr, s->len);
}
void mlia_jw_item_u8(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_uint(w, ((const uint8_t *)v)[i]); }
void mlia_jw_item_i32(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_int(w, ((const int32_t *)v)[i]); }
void mlia_jw_item_u32(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_uint(w, ((const uint32_t *)v)[i]); }
void mlia_jw_item_i64(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_int(w, ((const int64_t *)v)[i]); }
void mlia_jw_item_u64(mlia_jw *w, const void *v, uint32_t i) { mlia_jw_uint(w, ((const uint64_t *)v)[i]); }

void mlia_jw_kname(mlia_jw *w, const char *key, const char *name, int64_t raw)
{
    mlia_jw_key(w, key);
    if (name)
        mlia_jw_str(w, name);
    else
        mlia_jw_int(w, raw);
}
