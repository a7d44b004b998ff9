/*
 * provenance.c - stack traces and code_stack identities (see provenance.h).
 */
#include "provenance.h"

#include <ctype.h>
#include <stdbool.h>
#include <string.h>

#include "core/sha256.h"
#include "core/str.h"

static const char *skip_ws(const char *p, const char *end)
{
    while (p < end && (*p == ' ' || *p == '\t'))
        p++;
    return p;
}

/* Parses one line; returns true with a frame when it is a frame line. */
static bool parse_frame_line(const char *p, const char *end, mlia_arena *arena, code_frame *f)
{
    p = skip_ws(p, end);
    if (end - p < 6 || memcmp(p, "File \"", 6) != 0)
        return false;
    p += 6;
    const char *q = p;
    while (q < end && *q != '"')
        q++;
    if (q >= end)
        return false;
    char *file = mlia_arena_strndup(arena, p, (size_t)(q - p));
    for (char *c = file; *c; c++)
        if (*c == '\\')
            *c = '/';
    p = q + 1;
    if (end - p < 7 || memcmp(p, ", line ", 7) != 0)
        return false;
    p += 7;
    if (p >= end || !isdigit((unsigned char)*p))
        return false;
    int64_t line = 0;
    while (p < end && isdigit((unsigned char)*p)) {
        if (line < 1000000000000LL)
            line = line * 10 + (*p - '0');
        p++;
    }
    const char *fn = NULL;
    if (end - p >= 5 && memcmp(p, ", in ", 5) == 0) {
        p += 5;
        const char *e = end;
        while (e > p && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
            e--;
        fn = mlia_arena_strndup(arena, p, (size_t)(e - p));
    } else {
        p = skip_ws(p, end);
        if (p < end && *p != '\r')
            return false;
    }
    f->file = file;
    f->line = line;
    f->function = fn;
    return true;
}

uint32_t provenance_parse_stack(const char *text, mlia_arena *arena, code_frame **out)
{
    *out = NULL;
    if (!text || !*text)
        return 0;
    uint32_t cap = 0, n = 0;
    code_frame *frames = NULL;
    const char *p = text;
    while (*p) {
        const char *e = p;
        while (*e && *e != '\n')
            e++;
        code_frame f;
        if (parse_frame_line(p, e, arena, &f)) {
            if (n == cap) {
                uint32_t nc = cap ? cap * 2 : 8;
                frames = mlia_arena_grow(arena, frames, n, nc, sizeof *frames);
                cap = nc;
            }
            frames[n++] = f;
        }
        p = *e ? e + 1 : e;
    }
    *out = frames;
    return n;
}

static bool library_file(const char *f)
{
    return strstr(f, "site-packages/") || strstr(f, "dist-packages/") || strstr(f, "/torch/") ||
           strstr(f, "/executorch/exir/") || strncmp(f, "<frozen", 7) == 0;
}

uint32_t provenance_user_frame(const code_frame *frames, uint32_t n)
{
    if (n == 0)
        return UINT32_MAX;
    for (uint32_t i = n; i-- > 0;)
        if (!library_file(frames[i].file))
            return i;
    return n - 1;
}

const char *provenance_code_stack_id(const code_frame *frames, uint32_t upto, mlia_arena *arena,
                                     const char **display_name)
{
    mlia_buf chain;
    mlia_buf_init(&chain);
    for (uint32_t i = 0; i <= upto; i++) {
        if (i)
            mlia_buf_putc(&chain, '\n');
        mlia_buf_printf(&chain, "%s:%lld:%s", frames[i].file, (long long)frames[i].line,
                        frames[i].function ? frames[i].function : "");
    }
    char hex[65];
    mlia_sha256_hex(chain.data ? chain.data : "", chain.len, hex);
    mlia_buf_free(&chain);

    const char *file = frames[upto].file;
    const char *base = file;
    for (const char *c = file; *c; c++)
        if (*c == '/' || *c == '\\')
            base = c + 1;
    char *disp = mlia_arena_printf(arena, "%s:%lld", base, (long long)frames[upto].line);
    /* safe token: runs outside [A-Za-z0-9_.:-] become '_', trim '_' */
    size_t dl = strlen(disp);
    char *safe = mlia_arena_alloc(arena, dl + 1);
    size_t k = 0;
    bool in_run = false;
    for (size_t i = 0; i < dl; i++) {
        unsigned char c = (unsigned char)disp[i];
        bool ok = isalnum(c) || c == '_' || c == '.' || c == ':' || c == '-';
        if (ok) {
            safe[k++] = (char)c;
            in_run = false;
        } else if (!in_run) {
            safe[k++] = '_';
            in_run = true;
        }
    }
    safe[k] = 0;
    char *s = safe;
    while (*s == '_')
        s++;
    size_t sl = strlen(s);
    while (sl && s[sl - 1] == '_')
        s[--sl] = 0;
    if (!*s)
        s = "frame";
    hex[12] = 0;
    if (display_name)
        *display_name = disp;
    return mlia_arena_printf(arena, "code_stack/%s-%s", s, hex);
}
