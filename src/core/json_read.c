/*
 * json_read.c - recursive-descent JSON parser into an arena tree (see
 * json_read.h).
 *
 * Design:
 * - One pass over the input, no tokenizer. Every value records the byte
 *   offset where it starts so callers can report positions.
 * - Arrays and objects do not know their length up front. Instead of growing
 *   an arena array per container (which would waste memory quadratically in
 *   abandoned copies), items are pushed onto two malloc'ed scratch stacks
 *   owned by the parse call; when a container closes, its items are copied
 *   once into an exactly-sized arena array and popped. Total work is linear.
 * - Strings without escapes are copied with one memcpy after a validating
 *   scan; strings with escapes are decoded into an arena buffer that is at
 *   most as long as the source text (escapes never expand: "\uXXXX" is six
 *   bytes and decodes to at most three, a surrogate pair is twelve bytes and
 *   decodes to four).
 * - Object keys are interned per parse (intern_key below): members share
 *   one copy of each short key, which keeps large trees small.
 * - UTF-8 is validated strictly (no overlongs, no surrogates, max U+10FFFF).
 * - Recursion depth is bounded by opts.max_depth, so the C stack use is
 *   bounded too.
 * - Numbers keep their source text; integers are converted with an overflow
 *   check so values beyond int64 are flagged (num_int_fits = false) rather than
 *   silently rounded.
 */
#include "json_read.h"
#include "core/cnum.h"
#include "oom.h"

#include <math.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "json_write.h"
#include "str.h"
#include "utf8.h"

#define JSON_DEFAULT_MAX_DEPTH 512u

/* json_read.h: the number flags live in the node's padding (a node is one
 * 48-byte arena slot on 64-bit hosts, not 64). */
_Static_assert(sizeof(void *) != 8 || sizeof(mlia_json) == 48, "mlia_json grew beyond 48 bytes");

typedef struct json_parser {
    const unsigned char *p;   /* input */
    size_t len;
    size_t pos;
    unsigned depth;
    unsigned max_depth;
    bool allow_nonfinite;
    bool refuse_nul;
    mlia_arena *arena;
    const char *file;
    mlia_error *err;
    /* scratch stacks, see the design note */
    mlia_json **items;
    size_t n_items, cap_items;
    mlia_json_member *members;
    size_t n_members, cap_members;
    struct json_key *keys;    /* interned object keys (intern_key), NULL until the first */
    uint32_t n_keys;
} json_parser;

/* Object keys repeat: a program's tree has ~165,000 members over a few
 * dozen names. Short keys without escapes are interned per parse in a fixed
 * open-addressing table in the arena (made at the first key), so each
 * distinct key is stored once; longer keys, and any key once the table is
 * three-quarters full, are copied as before. Members may share key bytes
 * (they are const). */
#define JSON_KEY_SLOTS 512u /* a power of two */
#define JSON_KEY_MAX 48u
typedef struct json_key {
    const char *s;
    uint32_t len, hash;
} json_key;

static const char *intern_key(json_parser *ps, const char *k, size_t len)
{
    if (len > JSON_KEY_MAX)
        return mlia_arena_strndup(ps->arena, k, len);
    if (!ps->keys)
        ps->keys = mlia_arena_array(ps->arena, JSON_KEY_SLOTS, sizeof *ps->keys);
    uint32_t h = 2166136261u; /* FNV-1a */
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)k[i]) * 16777619u;
    for (uint32_t i = h & (JSON_KEY_SLOTS - 1);; i = (i + 1) & (JSON_KEY_SLOTS - 1)) {
        json_key *slot = &ps->keys[i];
        if (!slot->s) {
            const char *copy = mlia_arena_strndup(ps->arena, k, len);
            if (ps->n_keys < JSON_KEY_SLOTS / 4 * 3) {
                *slot = (json_key){copy, (uint32_t)len, h};
                ps->n_keys++;
            }
            return copy;
        }
        if (slot->hash == h && slot->len == len && memcmp(slot->s, k, len) == 0)
            return slot->s;
    }
}

static int fail(json_parser *ps, size_t at, const char *reason)
{
    return mlia_error_setf(ps->err, ps->file, "invalid JSON at byte %zu: %s", at, reason);
}

static int fail_char(json_parser *ps, size_t at, const char *what)
{
    if (at >= ps->len)
        return fail(ps, at, "unexpected end of input");
    unsigned char c = ps->p[at];
    if (c >= 0x20 && c < 0x7f)
        return mlia_error_setf(ps->err, ps->file, "invalid JSON at byte %zu: unexpected '%c'%s%s",
                               at, c, what ? ", expected " : "", what ? what : "");
    return mlia_error_setf(ps->err, ps->file,
                           "invalid JSON at byte %zu: unexpected byte 0x%02x%s%s", at, c,
                           what ? ", expected " : "", what ? what : "");
}

static inline void skip_ws(json_parser *ps)
{
    const unsigned char *p = ps->p;
    size_t pos = ps->pos, len = ps->len;
    while (pos < len && (p[pos] == ' ' || p[pos] == '\n' || p[pos] == '\r' || p[pos] == '\t'))
        pos++;
    ps->pos = pos;
}

static mlia_json *new_value(json_parser *ps, mlia_json_type t, size_t offset)
{
    mlia_json *v = mlia_arena_alloc(ps->arena, sizeof *v);
    v->type = t;
    v->offset = offset;
    return v;
}

static void push_item(json_parser *ps, mlia_json *v)
{
    if (ps->n_items == ps->cap_items) {
        size_t cap = ps->cap_items ? ps->cap_items * 2 : 256;
        mlia_json **n = realloc(ps->items, cap * sizeof *n);
        if (!n)
            mlia_oom(cap * sizeof *n);
        ps->items = n;
        ps->cap_items = cap;
    }
    ps->items[ps->n_items++] = v;
}

static void push_member(json_parser *ps, const char *key, size_t key_len, mlia_json *v)
{
    if (ps->n_members == ps->cap_members) {
        size_t cap = ps->cap_members ? ps->cap_members * 2 : 256;
        mlia_json_member *n = realloc(ps->members, cap * sizeof *n);
        if (!n)
            mlia_oom(cap * sizeof *n);
        ps->members = n;
        ps->cap_members = cap;
    }
    mlia_json_member *m = &ps->members[ps->n_members++];
    m->key = key;
    m->key_len = key_len;
    m->value = v;
}

static int hex4(json_parser *ps, size_t at, unsigned *out)
{
    if (ps->len - at < 4)
        return fail(ps, ps->len, "unexpected end of input");
    size_t k = mlia_hex_digits(ps->p + at, 4, out);
    return k < 4 ? fail(ps, at + k, "invalid \\u escape") : 0;
}

/* Parses a string whose opening quote is at ps->pos; an object key
 * (`key`) may come from the intern table. */
static int parse_string(json_parser *ps, const char **out, size_t *out_len, bool key)
{
    const unsigned char *p = ps->p;
    size_t len = ps->len;
    size_t start = ps->pos + 1;
    size_t i = start;
    /* Fast scan: plain ASCII and valid UTF-8 up to the closing quote. */
    for (;;) {
        if (i >= len)
            return fail(ps, len, "unterminated string");
        unsigned char c = p[i];
        if (c == '"') {
            *out = key ? intern_key(ps, (const char *)p + start, i - start)
                       : mlia_arena_strndup(ps->arena, (const char *)p + start, i - start);
            *out_len = i - start;
            ps->pos = i + 1;
            return 0;
        }
        if (c == '\\')
            break;
        if (c < 0x20)
            return fail(ps, i, "control character in string");
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t n = mlia_utf8_seq_len(p + i, len - i);
        if (!n)
            return fail(ps, i, "invalid UTF-8 in string");
        i += n;
    }
    /* Slow path with escapes: decoded text is never longer than the source
     * text, but the source length is unknown until the closing quote, so
     * size the buffer to the rest of the input only up to a scan for it. */
    size_t end = i;
    while (end < len && p[end] != '"') {
        if (p[end] == '\\' && end + 1 < len)
            end++;
        end++;
    }
    char *buf = mlia_arena_alloc(ps->arena, (end - start) + 1);
    size_t o = i - start;
    memcpy(buf, p + start, o);
    while (i < len) {
        unsigned char c = p[i];
        if (c == '"') {
            buf[o] = 0;
            *out = buf;
            *out_len = o;
            ps->pos = i + 1;
            return 0;
        }
        if (c == '\\') {
            if (i + 1 >= len)
                return fail(ps, len, "unterminated string");
            unsigned char e = p[i + 1];
            switch (e) {
            case '"': buf[o++] = '"'; i += 2; continue;
            case '\\': buf[o++] = '\\'; i += 2; continue;
            case '/': buf[o++] = '/'; i += 2; continue;
            case 'b': buf[o++] = '\b'; i += 2; continue;
            case 'f': buf[o++] = '\f'; i += 2; continue;
            case 'n': buf[o++] = '\n'; i += 2; continue;
            case 'r': buf[o++] = '\r'; i += 2; continue;
            case 't': buf[o++] = '\t'; i += 2; continue;
            case 'u': break;
            default: return fail(ps, i, "invalid escape");
            }
            unsigned cp;
            if (hex4(ps, i + 2, &cp) < 0)
                return -1;
            if (cp == 0 && ps->refuse_nul)
                return mlia_error_setf(ps->err, ps->file,
                                       "NUL character (\\u0000) in a string at byte %zu: refused (names are "
                                       "compared and written up to their first NUL, so two names could merge)",
                                       i);
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return fail(ps, i, "lone surrogate in \\u escape");
            if (cp >= 0xd800 && cp <= 0xdbff) {
                if (i + 7 >= len || p[i + 6] != '\\' || p[i + 7] != 'u')
                    return fail(ps, i, "lone surrogate in \\u escape");
                unsigned lo;
                if (hex4(ps, i + 8, &lo) < 0)
                    return -1;
                if (lo < 0xdc00 || lo > 0xdfff)
                    return fail(ps, i, "lone surrogate in \\u escape");
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                i += 12;
            } else {
                i += 6;
            }
            o += mlia_utf8_put(buf + o, cp);
            continue;
        }
        if (c < 0x20)
            return fail(ps, i, "control character in string");
        if (c < 0x80) {
            buf[o++] = (char)c;
            i++;
            continue;
        }
        size_t n = mlia_utf8_seq_len(p + i, len - i);
        if (!n)
            return fail(ps, i, "invalid UTF-8 in string");
        memcpy(buf + o, p + i, n);
        o += n;
        i += n;
    }
    return fail(ps, len, "unterminated string");
}

static bool match_word(json_parser *ps, const char *w)
{
    size_t n = strlen(w);
    return ps->len - ps->pos >= n && memcmp(ps->p + ps->pos, w, n) == 0;
}

static int nonfinite(json_parser *ps, mlia_json **out, const char *word, double d)
{
    size_t at = ps->pos;
    if (!ps->allow_nonfinite)
        return mlia_error_setf(ps->err, ps->file,
                               "invalid JSON at byte %zu: %s is not allowed", at, word);
    size_t n = strlen(word);
    mlia_json *v = new_value(ps, MLIA_JSON_NUMBER, at);
    v->u.number.text = mlia_arena_strndup(ps->arena, word, n);
    v->u.number.len = n;
    v->num_nonfinite = true;
    v->u.number.d = d;
    ps->pos += n;
    *out = v;
    return 0;
}

static int parse_number(json_parser *ps, mlia_json **out)
{
    const unsigned char *p = ps->p;
    size_t len = ps->len, start = ps->pos, i = start;
    bool neg = false;
    if (p[i] == '-') {
        neg = true;
        i++;
        if (len - i >= 8 && memcmp(p + i, "Infinity", 8) == 0)
            return nonfinite(ps, out, "-Infinity", -INFINITY);
    }
    if (i >= len)
        return fail(ps, len, "unexpected end of input");
    if (p[i] == '0') {
        i++;
        if (i < len && p[i] >= '0' && p[i] <= '9')
            return fail(ps, i, "leading zero in number");
    } else if (p[i] >= '1' && p[i] <= '9') {
        while (i < len && p[i] >= '0' && p[i] <= '9')
            i++;
    } else {
        return fail_char(ps, i, "a digit");
    }
    size_t int_end = i;
    bool is_integer = true;
    if (i < len && p[i] == '.') {
        is_integer = false;
        i++;
        if (i >= len || p[i] < '0' || p[i] > '9')
            return fail_char(ps, i, "a digit");
        while (i < len && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    if (i < len && (p[i] == 'e' || p[i] == 'E')) {
        is_integer = false;
        i++;
        if (i < len && (p[i] == '+' || p[i] == '-'))
            i++;
        if (i >= len || p[i] < '0' || p[i] > '9')
            return fail_char(ps, i, "a digit");
        while (i < len && p[i] >= '0' && p[i] <= '9')
            i++;
    }
    mlia_json *v = new_value(ps, MLIA_JSON_NUMBER, start);
    char *text = mlia_arena_strndup(ps->arena, (const char *)p + start, i - start);
    v->u.number.text = text;
    v->u.number.len = i - start;
    v->num_is_integer = is_integer;
    if (is_integer) {
        size_t d0 = start + (neg ? 1 : 0);
        int64_t acc;
        bool fits = mlia_json_digits_i64((const char *)p + d0, int_end - d0, neg, &acc);
        v->num_int_fits = fits;
        if (fits) {
            v->u.number.i = acc;
            v->u.number.d = (double)acc;
        } else {
            v->u.number.d = mlia_strtod(text, NULL);
        }
    } else {
        v->u.number.d = mlia_strtod(text, NULL);
    }
    ps->pos = i;
    *out = v;
    return 0;
}

static int parse_value(json_parser *ps, mlia_json **out);

/* At '[' or '{': one level deeper (bounded), past the bracket; returns 0
 * when `close` follows at once (empty container, skipped too), 1 when
 * elements follow, -1 on error. */
static int open_container(json_parser *ps, char close)
{
    if (ps->depth >= ps->max_depth)
        return mlia_error_setf(ps->err, ps->file,
                               "invalid JSON at byte %zu: nesting deeper than %u levels", ps->pos,
                               ps->max_depth);
    ps->depth++;
    ps->pos++;
    skip_ws(ps);
    if (ps->pos < ps->len && ps->p[ps->pos] == close) {
        ps->pos++;
        return 0;
    }
    return 1;
}

/* Skips white space; 0 when the next byte is c (not consumed), else -1
 * (error names `what` as expected). */
static int at_char(json_parser *ps, char c, const char *what)
{
    skip_ws(ps);
    if (ps->pos >= ps->len)
        return fail(ps, ps->len, "unexpected end of input");
    if (ps->p[ps->pos] != c)
        return fail_char(ps, ps->pos, what);
    return 0;
}

/* After an array item or object member: skips ',' (returns 1) or the
 * closing bracket `close` (returns 0); anything else is an error (-1). */
static int after_element(json_parser *ps, char close, const char *expected)
{
    skip_ws(ps);
    if (ps->pos >= ps->len)
        return fail(ps, ps->len, "unexpected end of input");
    unsigned char c = ps->p[ps->pos];
    if (c != ',' && c != (unsigned char)close)
        return fail_char(ps, ps->pos, expected);
    ps->pos++;
    return c == ',';
}

/* The value of a closed array or object (opened at byte `start`): its
 * elements move from the parser's stack (n of elem bytes at `from`) into
 * the arena; one level up again. The caller pops its stack. */
/* stack: the parser's item or member stack (NULL until its first push), whose
 * entries [base, base + n) are the container's. */
static void close_container(json_parser *ps, mlia_json_type t, size_t start, const void *stack, size_t base, size_t n,
                            size_t elem, mlia_json **out)
{
    mlia_json *v = new_value(ps, t, start);
    void *to = mlia_arena_array(ps->arena, n, elem);
    if (n)
        memcpy(to, (const char *)stack + base * elem, n * elem);
    if (t == MLIA_JSON_ARRAY) {
        v->u.array.n = n;
        v->u.array.items = to;
    } else {
        v->u.object.n = n;
        v->u.object.members = to;
    }
    ps->depth--;
    *out = v;
}

static int parse_array(json_parser *ps, mlia_json **out)
{
    size_t start = ps->pos, base = ps->n_items;
    for (int more = open_container(ps, ']'); more; more = after_element(ps, ']', "',' or ']'")) {
        mlia_json *item;
        if (more < 0 || parse_value(ps, &item) < 0)
            return -1;
        push_item(ps, item);
    }
    close_container(ps, MLIA_JSON_ARRAY, start, ps->items, base, ps->n_items - base, sizeof *ps->items, out);
    ps->n_items = base;
    return 0;
}

static int parse_object(json_parser *ps, mlia_json **out)
{
    size_t start = ps->pos, base = ps->n_members;
    for (int more = open_container(ps, '}'); more; more = after_element(ps, '}', "',' or '}'")) {
        const char *key;
        size_t key_len;
        mlia_json *val;
        if (more < 0 || at_char(ps, '"', "a string key") < 0 || parse_string(ps, &key, &key_len, true) < 0 ||
            at_char(ps, ':', "':'") < 0)
            return -1;
        ps->pos++;
        if (parse_value(ps, &val) < 0)
            return -1;
        push_member(ps, key, key_len, val);
    }
    close_container(ps, MLIA_JSON_OBJECT, start, ps->members, base, ps->n_members - base, sizeof *ps->members, out);
    ps->n_members = base;
    return 0;
}

static int parse_value(json_parser *ps, mlia_json **out)
{
    skip_ws(ps);
    if (ps->pos >= ps->len)
        return fail(ps, ps->len, "unexpected end of input");
    size_t at = ps->pos;
    unsigned char c = ps->p[at];
    switch (c) {
    case '{':
        return parse_object(ps, out);
    case '[':
        return parse_array(ps, out);
    case '"': {
        const char *s;
        size_t n;
        if (parse_string(ps, &s, &n, false) < 0)
            return -1;
        mlia_json *v = new_value(ps, MLIA_JSON_STRING, at);
        v->u.string.s = s;
        v->u.string.len = n;
        *out = v;
        return 0;
    }
    case 't':
    case 'f':
    case 'n': {
        const char *w = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (!match_word(ps, w))
            return fail_char(ps, at, "a value");
        mlia_json *v = new_value(ps, c == 'n' ? MLIA_JSON_NULL : MLIA_JSON_BOOL, at);
        v->u.boolean = c == 't';
        ps->pos += strlen(w);
        *out = v;
        return 0;
    }
    case 'N':
        if (match_word(ps, "NaN"))
            return nonfinite(ps, out, "NaN", NAN);
        return fail_char(ps, at, "a value");
    case 'I':
        if (match_word(ps, "Infinity"))
            return nonfinite(ps, out, "Infinity", INFINITY);
        return fail_char(ps, at, "a value");
    default:
        if (c == '-' || (c >= '0' && c <= '9'))
            return parse_number(ps, out);
        return fail_char(ps, at, "a value");
    }
}

int mlia_json_parse(const char *text, size_t len, const mlia_json_opts *opts, mlia_arena *arena,
                    mlia_json **out, const char *file, mlia_error *err)
{
    json_parser ps;
    memset(&ps, 0, sizeof ps);
    ps.p = (const unsigned char *)text;
    ps.len = text ? len : 0;
    ps.max_depth = opts && opts->max_depth ? opts->max_depth : JSON_DEFAULT_MAX_DEPTH;
    ps.allow_nonfinite = opts && opts->allow_nonfinite;
    ps.refuse_nul = opts && opts->refuse_nul;
    ps.arena = arena;
    ps.file = file;
    ps.err = err;
    *out = NULL;
    int rc;
    if (ps.len >= 3 && ps.p[0] == 0xef && ps.p[1] == 0xbb && ps.p[2] == 0xbf) {
        rc = fail(&ps, 0, "byte order mark is not allowed");
    } else {
        mlia_json *v = NULL;
        rc = parse_value(&ps, &v);
        if (rc == 0) {
            skip_ws(&ps);
            if (ps.pos < ps.len)
                rc = fail_char(&ps, ps.pos, "end of input");
            else
                *out = v;
        }
    }
    free(ps.items);
    free(ps.members);
    return rc;
}

mlia_json *mlia_json_get(const mlia_json *obj, const char *key)
{
    if (!obj || obj->type != MLIA_JSON_OBJECT || !key)
        return NULL;
    size_t kl = strlen(key);
    for (size_t i = obj->u.object.n; i-- > 0;) {
        const mlia_json_member *m = &obj->u.object.members[i];
        if (m->key_len == kl && memcmp(m->key, key, kl) == 0)
            return m->value;
    }
    return NULL;
}

static uint64_t key_hash(const char *k, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)k[i];
        h *= 1099511628211ull;
    }
    return h;
}

const bool *mlia_json_last_members(const mlia_json *obj, mlia_arena *arena)
{
    size_t n = obj && obj->type == MLIA_JSON_OBJECT ? obj->u.object.n : 0;
    bool *last = mlia_arena_array(arena, n ? n : 1, sizeof *last);
    if (n < 8) {
        for (size_t i = 0; i < n; i++)
            last[i] = mlia_json_get(obj, obj->u.object.members[i].key) == obj->u.object.members[i].value;
        return last;
    }
    size_t cap = 16;
    while (cap < n * 2)
        cap *= 2;
    size_t *slots = calloc(cap, sizeof *slots); /* member index + 1, 0 = empty */
    if (!slots)
        mlia_oom(cap * sizeof *slots);
    for (size_t i = n; i-- > 0;) {
        const mlia_json_member *m = &obj->u.object.members[i];
        size_t h = (size_t)key_hash(m->key, m->key_len) & (cap - 1);
        bool seen = false;
        while (slots[h]) {
            const mlia_json_member *o = &obj->u.object.members[slots[h] - 1];
            if (o->key_len == m->key_len && memcmp(o->key, m->key, m->key_len) == 0) {
                seen = true;
                break;
            }
            h = (h + 1) & (cap - 1);
        }
        if (!seen) {
            slots[h] = i + 1;
            last[i] = true;
        }
    }
    free(slots);
    return last;
}

const char *mlia_json_get_str(const mlia_json *obj, const char *key)
{
    mlia_json *v = mlia_json_get(obj, key);
    return v && v->type == MLIA_JSON_STRING ? v->u.string.s : NULL;
}

bool mlia_json_is(const mlia_json *v, mlia_json_type t)
{
    return v && v->type == t;
}

static void dump(const mlia_json *v, mlia_buf *b)
{
    switch (v->type) {
    case MLIA_JSON_NULL:
        mlia_buf_append(b, "null", 4);
        break;
    case MLIA_JSON_BOOL:
        if (v->u.boolean)
            mlia_buf_append(b, "true", 4);
        else
            mlia_buf_append(b, "false", 5);
        break;
    case MLIA_JSON_NUMBER:
        mlia_buf_append(b, v->u.number.text, v->u.number.len);
        break;
    case MLIA_JSON_STRING:
        mlia_json_escape(b, v->u.string.s, v->u.string.len, false);
        break;
    case MLIA_JSON_ARRAY:
        mlia_buf_putc(b, '[');
        for (size_t i = 0; i < v->u.array.n; i++) {
            if (i)
                mlia_buf_putc(b, ',');
            dump(v->u.array.items[i], b);
        }
        mlia_buf_putc(b, ']');
        break;
    case MLIA_JSON_OBJECT:
        mlia_buf_putc(b, '{');
        for (size_t i = 0; i < v->u.object.n; i++) {
            const mlia_json_member *m = &v->u.object.members[i];
            if (i)
                mlia_buf_putc(b, ',');
            mlia_json_escape(b, m->key, m->key_len, false);
            mlia_buf_putc(b, ':');
            dump(m->value, b);
        }
        mlia_buf_putc(b, '}');
        break;
    }
}

char *mlia_json_dump(const mlia_json *v, mlia_arena *arena, size_t *len)
{
    mlia_buf b;
    mlia_buf_init(&b);
    if (v)
        dump(v, &b);
    else
        mlia_buf_append(&b, "null", 4);
    char *r = mlia_arena_strndup(arena, b.data ? b.data : "", b.len);
    if (len)
        *len = b.len;
    mlia_buf_free(&b);
    return r;
}

mlia_json *mlia_json_clone(const mlia_json *v, mlia_arena *arena)
{
    if (!v)
        return NULL;
    mlia_json *c = mlia_arena_alloc(arena, sizeof *c);
    *c = *v;
    switch (v->type) {
    case MLIA_JSON_NUMBER:
        c->u.number.text = mlia_arena_strndup(arena, v->u.number.text, v->u.number.len);
        break;
    case MLIA_JSON_STRING:
        c->u.string.s = mlia_arena_strndup(arena, v->u.string.s, v->u.string.len);
        break;
    case MLIA_JSON_ARRAY:
        c->u.array.items = mlia_arena_array(arena, v->u.array.n, sizeof *c->u.array.items);
        for (size_t i = 0; i < v->u.array.n; i++)
            c->u.array.items[i] = mlia_json_clone(v->u.array.items[i], arena);
        break;
    case MLIA_JSON_OBJECT:
        c->u.object.members = mlia_arena_array(arena, v->u.object.n, sizeof *c->u.object.members);
        for (size_t i = 0; i < v->u.object.n; i++) {
            const mlia_json_member *m = &v->u.object.members[i];
            c->u.object.members[i] = (mlia_json_member){mlia_arena_strndup(arena, m->key, m->key_len), m->key_len,
                                                        mlia_json_clone(m->value, arena)};
        }
        break;
    default:
        break;
    }
    return c;
}
