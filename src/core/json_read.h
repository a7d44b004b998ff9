/*
 * json_read.h - JSON reader producing an arena-allocated read-only tree.
 *
 * Used for ExportedProgram JSON (which holds Python's bare NaN/Infinity
 * tokens, accepted with opts.allow_nonfinite), the ETRecord maps, and the
 * VGF neural-statistics wrapper (strict RFC 8259: allow_nonfinite = false).
 * Object members keep document order; duplicate keys are all kept and
 * mlia_json_get() returns the LAST occurrence (Python's json semantics).
 * Numbers keep their source text so callers can tell integers (no fraction,
 * no exponent) from other numbers and handle integers beyond 64 bits.
 * Nesting depth is limited (opts.max_depth, default 512) so hostile input
 * cannot exhaust the stack.
 *
 * Ownership: every node and string belongs to the arena passed to
 * mlia_json_parse; number text points into the arena copy too. Members of
 * one parse may share the bytes of equal keys (they are read-only).
 */
#ifndef MLIA_CORE_JSON_READ_H
#define MLIA_CORE_JSON_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "error.h"

typedef enum mlia_json_type {
    MLIA_JSON_NULL = 0,
    MLIA_JSON_BOOL,
    MLIA_JSON_NUMBER,
    MLIA_JSON_STRING,
    MLIA_JSON_ARRAY,
    MLIA_JSON_OBJECT
} mlia_json_type;

typedef struct mlia_json mlia_json;

typedef struct mlia_json_member {
    const char *key;     /* decoded, NUL-terminated (may contain NULs: use key_len) */
    size_t key_len;
    mlia_json *value;
} mlia_json_member;

/* 48 bytes (a large program's tree holds hundreds of thousands of them):
 * the number flags sit in the padding after `type`, not in the union. */
struct mlia_json {
    mlia_json_type type;
    bool num_is_integer;         /* numbers: no fraction, no exponent, not NaN/Infinity */
    bool num_int_fits;           /* numbers: num_is_integer and value fits int64 */
    bool num_nonfinite;          /* numbers: NaN, Infinity or -Infinity token */
    size_t offset;               /* byte offset of the value in the source text */
    union {
        bool boolean;
        struct {
            const char *text;    /* source text of the number, NUL-terminated */
            size_t len;
            int64_t i;           /* valid when num_int_fits */
            double d;            /* nearest double (NaN/inf for nonfinite tokens) */
        } number;
        struct {
            const char *s;       /* decoded UTF-8, NUL-terminated */
            size_t len;
        } string;
        struct {
            mlia_json **items;
            size_t n;
        } array;
        struct {
            mlia_json_member *members;
            size_t n;
        } object;
    } u;
};

typedef struct mlia_json_opts {
    bool allow_nonfinite;   /* accept NaN, Infinity, -Infinity tokens */
    unsigned max_depth;     /* 0 = default 512 */
    /* A decoded \u0000 in a string or a key is an error: "<file>: NUL
     * character (\u0000) in a string at byte N: refused (names are compared
     * and written up to their first NUL, so two names could merge)". Every
     * format reader sets it (docs/hardening.md, "Names with NUL"); the JSON
     * requests do not, they name the member in their own usage error. */
    bool refuse_nul;
} mlia_json_opts;

/* Parse `len` bytes of `text` (need not be NUL-terminated). The whole input
 * must be one value with optional surrounding whitespace. A UTF-8 BOM is an
 * error. Invalid UTF-8 inside strings is an error. On failure returns -1 and
 * err holds "<file>: invalid JSON at byte <n>: <reason>" (file may be NULL). */
int mlia_json_parse(const char *text, size_t len, const mlia_json_opts *opts, mlia_arena *arena,
                    mlia_json **out, const char *file, mlia_error *err);

/* Member lookup (last occurrence wins); NULL when obj is not an object or the
 * key is absent. */
mlia_json *mlia_json_get(const mlia_json *obj, const char *key);
/* Duplicate handling in bulk: an arena array of obj's member count (at least
 * one element) where element i is true when no later member has the same key
 * (the member mlia_json_get would return). Linear time, for objects with many
 * members. obj that is not an object gives a one-element array. */
const bool *mlia_json_last_members(const mlia_json *obj, mlia_arena *arena);
/* Typed helpers: return NULL / false when the type does not match. */
const char *mlia_json_get_str(const mlia_json *obj, const char *key);
bool mlia_json_is(const mlia_json *v, mlia_json_type t);
/* Re-serialise a value compactly (Python json.dumps(separators=(",", ":"))
 * style, numbers as their source text). Result in the arena. */
char *mlia_json_dump(const mlia_json *v, mlia_arena *arena, size_t *len);
/* Deep copy of a value (strings, keys and number text included) into
 * arena, so the tree it came from can be released; NULL gives NULL. */
mlia_json *mlia_json_clone(const mlia_json *v, mlia_arena *arena);

#endif
