/*
 * guard.h - the one way into the library (src/api only).
 *
 * Every public entry point runs its work through mlia_guard_run(), which
 * gives all of them the same four promises:
 *   - out of memory never ends the host: a recovery point (core/oom.h) turns
 *     an allocation failure, an arena over its memory cap, or a mapped input
 *     truncated under the reader into the ordinary error path;
 *   - memory cap: mlia_guard_cap() sizes the arenas' limit from the inputs
 *     (MLIA_MEMORY_BASE + MLIA_MEMORY_RATIO x their total size);
 *   - error text: one line "<file>: <what>", malloc'd into *error (NULL on
 *     success), to be freed with mlia_free(), and the mlia_status saying why;
 *   - result ownership: on failure the body's cleanup has run and nothing
 *     half-made is handed to the caller.
 */
#ifndef MLIA_API_GUARD_H
#define MLIA_API_GUARD_H

#include <stddef.h>

#include "core/arena.h"
#include "core/error.h"
#include "core/oom.h"

typedef struct mlia_guard {
    const char *file;            /* input named by an out-of-memory error */
    const mlia_oom_words *words; /* memory-limit wording (default: analysis) */
    /* optional: the input being processed right now (overrides `file`) */
    const char *(*current_file)(void *ctx);
    /* optional: cleanup after an out-of-memory jump (e.g. remove a temporary
     * output tree), before the error is reported */
    void (*on_oom)(void *ctx);
} mlia_guard;

/* The work of one entry point: returns 0 on success, 1 on an analysis or
 * input error, 2 on a usage error, with *err set when nonzero - or with
 * *message set to a malloc'd, ready-to-print text (a usage message, or the
 * error of a nested entry point), which then takes precedence over err. */
typedef int (*mlia_guard_body)(void *ctx, mlia_error *err, char **message);

/* Runs body(ctx, err, &message) under a recovery point. Returns its code,
 * a code 1 with err's kind (core/error.h) made the public mlia_status
 * (1 | kind << 8; an out-of-memory jump gives MLIA_STATUS_OUT_OF_MEMORY or
 * MLIA_STATUS_MEMORY_LIMIT); on a nonzero code *error (if error is not
 * NULL) is the malloc'd message, else NULL. */
int mlia_guard_run(const mlia_guard *g, mlia_guard_body body, void *ctx, char **error);

/* The memory cap for a run over these inputs (NULL paths are skipped, sizes
 * read with stat): MLIA_MEMORY_BASE + MLIA_MEMORY_RATIO x their total size. */
size_t mlia_guard_cap(const char *const *paths, int n);

/* The JSON requests (mlia_run_advisor_json, mlia_compare_json): every
 * string of the request object (member values, strings inside arrays and
 * nested objects such as backend_options) must reach the library with all its bytes. C strings end at the
 * first NUL, so a decoded "\u0000" would silently cut a path (/tmp/x\0/../y
 * becomes /tmp/x): such a request is a usage error naming the member,
 * "request: \"output_dir\" contains a NUL byte (at byte 6)". Returns 0, or 2
 * with *message set. */
struct mlia_json;
int mlia_guard_request_strings(const struct mlia_json *req, char **message);

/* The JSON-request entry points (mlia_run_advisor_json, mlia_compare_json):
 * the request text, an arena for what is parsed from it, and where the
 * body hands the result (may be NULL). */
typedef struct mlia_guard_request {
    const char *json;
    mlia_arena arena;
    char **result;
} mlia_guard_request;

/* Parses the request text (NaN and Infinity tokens are read, so that an
 * option refuses them by name) into *req, an object in q->arena, and checks
 * its strings (mlia_guard_request_strings). Returns 0, or 2 with *message
 * ("invalid request", or the NUL message). */
struct mlia_json;
int mlia_guard_request_parse(mlia_guard_request *q, struct mlia_json **req, mlia_error *err, char **message);

/* Runs body with an mlia_guard_request as ctx (file "request" in an
 * out-of-memory error, `words` for the memory limit) inside the call's
 * ledger (core/alloc.h); *result is NULL until the body sets it, and the
 * request's arena is freed before returning; a result the body handed back
 * is the caller's whatever the code (mlia_compare_json's 3 comes with its
 * report). Returns mlia_guard_run's code. */
int mlia_guard_run_request(const mlia_oom_words *words, mlia_guard_body body, const char *request_json, char **result,
                           char **error);

/* A usage message for *message: msg with its untrusted text escaped
 * (mlia_escape_text: a value holding a newline stays on one line), malloc'd
 * (NULL when out of memory). */
char *mlia_guard_usage(const char *msg);

/* *error = strdup(msg) (NULL when error is NULL or strdup fails); returns
 * `code`. For failures before any work, e.g. a calloc of the context. */
int mlia_guard_fail(char **error, int code, const char *msg);

#endif
