/*
 * nx_debugdb.c - debug database text, derived maps, link synthesis and API
 * labels (see nx_debugdb.h; § = docs/formats/nx-statistics.md).
 *
 * Design: the text is split into lines and sections once; each of the seven
 * sections is read into per-column ordered maps keyed by the row id, so the
 * replacement rule of §7.3.5 is the map's own insertion semantics. Derived
 * maps (§7.5) are then built from those. Cells are split by a small state
 * machine (quotes, backslash escapes, bracket depth) so JSON labels holding
 * ';' survive intact. Everything allocates from the caller's arena; the line
 * index is bounded by the payload length.
 */
#include "backends/vgf/formats/nx_debugdb.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_read.h"
#include "core/sha256.h"
#include "core/str.h"
#include "core/utf8.h"
#include "backends/vgf/formats/nx_stats.h"

/* ------------------------------------------------------------------ */
/* ordered string map                                                  */
/* ------------------------------------------------------------------ */

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

void nx_strmap_init(nx_strmap *m, mlia_arena *arena)
{
    memset(m, 0, sizeof *m);
    m->arena = arena;
}

static uint32_t *strmap_slot(const nx_strmap *m, const char *key)
{
    if (!m->n_slots)
        return NULL;
    uint32_t mask = m->n_slots - 1;
    for (uint32_t i = (uint32_t)hash_str(key) & mask;; i = (i + 1) & mask) {
        uint32_t *s = &m->slots[i];
        if (*s == 0 || strcmp(m->keys[*s - 1], key) == 0)
            return s;
    }
}

const nx_strlist *nx_strmap_get(const nx_strmap *m, const char *key)
{
    uint32_t *s = strmap_slot(m, key);
    return s && *s ? &m->vals[*s - 1] : NULL;
}

void nx_strmap_set(nx_strmap *m, const char *key, nx_strlist value)
{
    uint32_t *s = strmap_slot(m, key);
    if (s && *s) {
        m->vals[*s - 1] = value;
        return;
    }
    if ((uint64_t)(m->n + 1) * 2 > m->n_slots) {
        uint32_t ns = m->n_slots ? m->n_slots * 2 : 16;
        m->slots = mlia_arena_array(m->arena, ns, sizeof *m->slots);
        m->n_slots = ns;
        for (uint32_t i = 0; i < m->n; i++)
            *strmap_slot(m, m->keys[i]) = i + 1;
    }
    if (m->n == m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 16;
        m->keys = mlia_arena_grow(m->arena, m->keys, m->n, nc, sizeof *m->keys);
        m->vals = mlia_arena_grow(m->arena, m->vals, m->n, nc, sizeof *m->vals);
        m->cap = nc;
    }
    m->keys[m->n] = key;
    m->vals[m->n] = value;
    m->n++;
    *strmap_slot(m, key) = m->n;
}

static nx_strlist one_item(mlia_arena *a, const char *s)
{
    nx_strlist l = {1, mlia_arena_alloc(a, sizeof(const char *))};
    l.items[0] = s;
    return l;
}

void nx_debugdb_init(nx_debugdb *db, mlia_arena *arena)
{
    nx_strmap_init(&db->stripe_chain, arena);
    nx_strmap_init(&db->stripe_cascade, arena);
    nx_strmap_init(&db->chain_fused, arena);
    nx_strmap_init(&db->fused_tosa, arena);
    nx_strmap_init(&db->tosa_labels, arena);
    nx_strmap_init(&db->tosa_types, arena);
}

/* ------------------------------------------------------------------ */
/* cells                                                               */
/* ------------------------------------------------------------------ */

static bool ascii_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

static void push_trimmed(const char *s, size_t n, mlia_arena *a, const char **items, uint32_t *k)
{
    while (n && ascii_space(*s))
        s++, n--;
    while (n && ascii_space(s[n - 1]))
        n--;
    if (n)
        items[(*k)++] = mlia_arena_strndup(a, s, n);
}

nx_strlist nx_split_cell(const char *s, size_t len, mlia_arena *arena)
{
    nx_strlist l = {0, NULL};
    while (len && (s[len - 1] == 0 || s[len - 1] == '\r'))
        len--;
    if (len == 0)
        return l;
    if (s[len - 1] != ';')
        return one_item(arena, mlia_arena_strndup(arena, s, len));
    size_t max_items = 1;
    for (size_t i = 0; i < len; i++)
        max_items += s[i] == ';';
    l.items = mlia_arena_array(arena, max_items, sizeof *l.items);
    bool quoted = false, escaped = false;
    size_t depth = 0, start = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (quoted) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                quoted = false;
        } else if (c == '"') {
            quoted = true;
        } else if (c == '[' || c == '{') {
            depth++;
        } else if (c == ']' || c == '}') {
            if (depth)
                depth--;
        } else if (c == ';' && depth == 0) {
            push_trimmed(s + start, i - start, arena, l.items, &l.n);
            start = i + 1;
        }
    }
    push_trimmed(s + start, len - start, arena, l.items, &l.n);
    return l;
}

/* ------------------------------------------------------------------ */
/* text, lines, sections                                               */
/* ------------------------------------------------------------------ */

typedef struct line {
    const char *p;
    size_t n;
} line;

typedef struct section {
    const line *lines;
    size_t n;
} section;

/* Column index of `name` in the header line, or -1. */
static long header_column(const line *h, const char *name)
{
    size_t nl = strlen(name);
    bool tab = memchr(h->p, '\t', h->n) != NULL;
    long col = 0;
    size_t i = 0;
    if (tab) {
        for (;;) {
            size_t s = i;
            while (i < h->n && h->p[i] != '\t')
                i++;
            if (i - s == nl && memcmp(h->p + s, name, nl) == 0)
                return col;
            if (i >= h->n)
                return -1;
            i++;
            col++;
        }
    }
    for (;;) {
        while (i < h->n && ascii_space(h->p[i]))
            i++;
        if (i >= h->n)
            return -1;
        size_t s = i;
        while (i < h->n && !ascii_space(h->p[i]))
            i++;
        if (i - s == nl && memcmp(h->p + s, name, nl) == 0)
            return col;
        col++;
    }
}

/* Field `col` of a row split at TAB ("" when missing). */
static line row_field(const line *r, long col)
{
    line f = {"", 0};
    if (col < 0)
        return f;
    size_t i = 0;
    for (long c = 0;; c++) {
        size_t s = i;
        while (i < r->n && r->p[i] != '\t')
            i++;
        if (c == col) {
            f.p = r->p + s;
            f.n = i - s;
            return f;
        }
        if (i >= r->n)
            return f;
        i++;
    }
}

/* Read a section into one map per requested column, keyed by row id. */
static void read_section(const section *sec, const char *const *cols, nx_strmap *maps, size_t n_cols,
                         mlia_arena *a)
{
    for (size_t k = 0; k < n_cols; k++)
        nx_strmap_init(&maps[k], a);
    if (sec->n == 0)
        return;
    long id_col = header_column(&sec->lines[0], "id");
    long idx[8];
    for (size_t k = 0; k < n_cols; k++)
        idx[k] = header_column(&sec->lines[0], cols[k]);
    for (size_t r = 1; r < sec->n; r++) {
        line f = row_field(&sec->lines[r], id_col);
        nx_strlist id = nx_split_cell(f.p, f.n, a);
        if (id.n == 0)
            continue;
        for (size_t k = 0; k < n_cols; k++) {
            line c = row_field(&sec->lines[r], idx[k]);
            nx_strmap_set(&maps[k], id.items[0], nx_split_cell(c.p, c.n, a));
        }
    }
}

int nx_debugdb_parse(const uint8_t *data, size_t len, mlia_arena *arena, nx_debugdb *db,
                     mlia_error *err)
{
    const uint8_t *p;
    size_t n;
    if (nx_unframe(data, len, NX_BLOB_DEBUG_DATABASE, &p, &n, err) < 0)
        return -1;
    while (n && p[n - 1] == 0)
        n--;
    if (!mlia_utf8_check(p, n, NULL, NULL))
        return mlia_error_setf(err, NULL, "Debug database is not valid UTF-8 text.");
    const char *t = (const char *)p;
    /* lines (splitlines semantics: no empty line after a final terminator) */
    size_t max_lines = 1;
    for (size_t i = 0; i < n; i++)
        max_lines += t[i] == '\n' || t[i] == '\r';
    line *lines = mlia_arena_array(arena, max_lines, sizeof *lines);
    size_t nl = 0;
    bool has_sep = false;
    for (size_t i = 0; i < n;) {
        size_t s = i;
        while (i < n && t[i] != '\n' && t[i] != '\r')
            i++;
        size_t e = i;
        if (i < n) {
            if (t[i] == '\r' && i + 1 < n && t[i + 1] == '\n')
                i++;
            i++;
        }
        while (e > s && (t[e - 1] == '\r' || t[e - 1] == 0))
            e--;
        lines[nl].p = t + s;
        lines[nl].n = e - s;
        if (e - s == 4 && memcmp(t + s, "----", 4) == 0)
            has_sep = true;
        nl++;
    }
    section secs[7];
    size_t nsec = 0;
    if (!has_sep) {
        for (size_t i = 0; i < nl && nsec < 7; i++)
            if (lines[i].n) {
                secs[nsec].lines = &lines[i];
                secs[nsec].n = 1;
                nsec++;
            }
    } else {
        size_t start = 0;
        for (size_t i = 0; i <= nl && nsec < 7; i++) {
            bool sep = i == nl || (lines[i].n == 4 && memcmp(lines[i].p, "----", 4) == 0);
            if (!sep)
                continue;
            if (i > start) {
                secs[nsec].lines = &lines[start];
                secs[nsec].n = i - start;
                nsec++;
            }
            start = i + 1;
        }
    }
    if (nsec < 7)
        return mlia_error_setf(err, NULL, "Debug database does not contain all expected profiling sections.");

    nx_debugdb_init(db, arena);
    nx_strmap tosa[2], fused[1], chains[1], stripe_ops[2], stripe_idx[2];
    static const char *const TOSA_COLS[2] = {"tosa_op", "api_labels"};
    static const char *const FUSED_COLS[1] = {"tosa_op_ids"};
    static const char *const CHAIN_COLS[1] = {"fused_op_ids"};
    static const char *const STRIPE_OP_COLS[2] = {"op_id", "cascade_op_id"};
    static const char *const STRIPE_IDX_COLS[2] = {"stripe_op_id", "stripe_op_indexs"};
    read_section(&secs[0], TOSA_COLS, tosa, 2, arena);
    read_section(&secs[2], FUSED_COLS, fused, 1, arena);
    read_section(&secs[3], CHAIN_COLS, chains, 1, arena);
    read_section(&secs[5], STRIPE_OP_COLS, stripe_ops, 2, arena);
    read_section(&secs[6], STRIPE_IDX_COLS, stripe_idx, 2, arena);
    db->tosa_types = tosa[0];
    db->tosa_labels = tosa[1];
    db->fused_tosa = fused[0];
    db->chain_fused = chains[0];
    /* §7.5.1 stripe index -> stripe op */
    nx_strmap idx_op;
    nx_strmap_init(&idx_op, arena);
    for (uint32_t i = 0; i < stripe_idx[0].n; i++)
        if (stripe_idx[0].vals[i].n)
            nx_strmap_set(&idx_op, stripe_idx[0].keys[i], one_item(arena, stripe_idx[0].vals[i].items[0]));
    for (uint32_t i = 0; i < stripe_idx[1].n; i++) {
        const nx_strlist *l = &stripe_idx[1].vals[i];
        for (uint32_t k = 0; k < l->n; k++)
            if (!nx_strmap_get(&idx_op, l->items[k]))
                nx_strmap_set(&idx_op, l->items[k], one_item(arena, l->items[k]));
    }
    /* §7.5.2 */
    for (uint32_t i = 0; i < idx_op.n; i++) {
        const char *op = idx_op.vals[i].items[0];
        const nx_strlist *chain = nx_strmap_get(&stripe_ops[0], op);
        if (!chain)
            continue;
        nx_strmap_set(&db->stripe_chain, idx_op.keys[i], *chain);
        nx_strmap_set(&db->stripe_cascade, idx_op.keys[i], *nx_strmap_get(&stripe_ops[1], op));
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* synthesis and tracking                                              */
/* ------------------------------------------------------------------ */

static bool missing(const nx_strmap *m, const char *key)
{
    const nx_strlist *l = nx_strmap_get(m, key);
    return !l || l->n == 0;
}

static const char *first_or(const nx_strmap *m, const char *key, const char *dflt)
{
    const nx_strlist *l = nx_strmap_get(m, key);
    return l && l->n ? l->items[0] : dflt;
}

/* The first name recorded for key, else "<prefix>_<s>" (a synthesized name). */
static const char *first_or_synth(mlia_arena *a, const nx_strmap *m, const char *key, const char *prefix, uint32_t s)
{
    const char *v = first_or(m, key, NULL);
    return v ? v : mlia_arena_printf(a, "%s_%" PRIu32, prefix, s);
}

void nx_debugdb_synthesize(nx_debugdb *db, const uint32_t *stripes, uint32_t n_stripes)
{
    mlia_arena *a = db->stripe_chain.arena;
    for (uint32_t i = 0; i < n_stripes; i++) {
        uint32_t s = stripes[i];
        const char *key = mlia_arena_printf(a, "%" PRIu32, s);
        const char *chain = first_or_synth(a, &db->stripe_chain, key, "chain", s);
        const char *cascade = first_or_synth(a, &db->stripe_cascade, key, "cascade", s);
        const char *fused = first_or_synth(a, &db->chain_fused, chain, "fused", s);
        const char *tosa = first_or_synth(a, &db->fused_tosa, fused, "tosa", s);
        if (missing(&db->stripe_chain, key))
            nx_strmap_set(&db->stripe_chain, key, one_item(a, chain));
        if (missing(&db->stripe_cascade, key))
            nx_strmap_set(&db->stripe_cascade, key, one_item(a, cascade));
        if (missing(&db->chain_fused, chain))
            nx_strmap_set(&db->chain_fused, chain, one_item(a, fused));
        if (missing(&db->fused_tosa, fused))
            nx_strmap_set(&db->fused_tosa, fused, one_item(a, tosa));
        if (missing(&db->tosa_labels, tosa))
            nx_strmap_set(&db->tosa_labels, tosa,
                          one_item(a, mlia_arena_printf(a, "profiling-stripe/%" PRIu32, s)));
        if (missing(&db->tosa_types, tosa))
            nx_strmap_set(&db->tosa_types, tosa, one_item(a, "NeuralOp"));
    }
}

int nx_debugdb_track(const nx_debugdb *db, uint32_t stripe, const char **chain,
                     const char **cascade, mlia_error *err)
{
    char key[16];
    snprintf(key, sizeof key, "%" PRIu32, stripe);
    const nx_strlist *ch = nx_strmap_get(&db->stripe_chain, key);
    const nx_strlist *ca = nx_strmap_get(&db->stripe_cascade, key);
    if (ch && ch->n > 1)
        return mlia_error_setf(err, NULL, "There should be only one chain per stripe, found more!");
    if (ca && ca->n > 1)
        return mlia_error_setf(err, NULL, "There should be only one cascade per stripe, found more!");
    /* after synthesis both have exactly one element; fall back defensively */
    *chain = ch && ch->n ? ch->items[0] : "";
    *cascade = ca && ca->n ? ca->items[0] : "";
    return 0;
}

void nx_debugdb_chain_tosa(const nx_debugdb *db, const char *chain, mlia_arena *arena,
                           nx_strlist *tosa, nx_unknown_ref **unknown, uint32_t *n_unknown)
{
    const nx_strlist *fl = nx_strmap_get(&db->chain_fused, chain);
    uint32_t cap = 0, ucap = 0;
    tosa->n = 0;
    tosa->items = NULL;
    *unknown = NULL;
    *n_unknown = 0;
    for (uint32_t i = 0; fl && i < fl->n; i++) {
        const nx_strlist *tl = nx_strmap_get(&db->fused_tosa, fl->items[i]);
        if (!tl) {
            if (*n_unknown == ucap) {
                *unknown = mlia_arena_grow(arena, *unknown, ucap, ucap ? ucap * 2 : 4, sizeof **unknown);
                ucap = ucap ? ucap * 2 : 4;
            }
            (*unknown)[(*n_unknown)++] = (nx_unknown_ref){false, fl->items[i]};
            continue;
        }
        for (uint32_t k = 0; k < tl->n; k++) {
            const char *t = tl->items[k];
            if (!nx_strmap_get(&db->tosa_labels, t) && !nx_strmap_get(&db->tosa_types, t)) {
                if (*n_unknown == ucap) {
                    *unknown = mlia_arena_grow(arena, *unknown, ucap, ucap ? ucap * 2 : 4, sizeof **unknown);
                    ucap = ucap ? ucap * 2 : 4;
                }
                (*unknown)[(*n_unknown)++] = (nx_unknown_ref){true, t};
                continue;
            }
            if (tosa->n == cap) {
                tosa->items = mlia_arena_grow(arena, tosa->items, cap, cap ? cap * 2 : 4, sizeof *tosa->items);
                cap = cap ? cap * 2 : 4;
            }
            tosa->items[tosa->n++] = t;
        }
    }
}

/* ------------------------------------------------------------------ */
/* API labels                                                          */
/* ------------------------------------------------------------------ */

static const char *nonempty_str(const mlia_json *obj, const char *key)
{
    const char *s = mlia_json_get_str(obj, key);
    return s && *s ? s : NULL;
}

static const char *first_nonempty(const mlia_json *obj, const char *const *keys)
{
    for (; *keys; keys++) {
        const char *s = nonempty_str(obj, *keys);
        if (s)
            return s;
    }
    return NULL;
}

static void module_entry(const char *key, const mlia_json *v, nx_module_entry *e)
{
    static const char *const NAME_KEYS[] = {"qualified_name", "name", "module_name", NULL};
    static const char *const TYPE_KEYS[] = {"module_type", "type", "class_name", NULL};
    e->tracer_key = key;
    e->name = NULL;
    e->module_type = NULL;
    if (v && v->type == MLIA_JSON_OBJECT) {
        e->name = first_nonempty(v, NAME_KEYS);
        e->module_type = first_nonempty(v, TYPE_KEYS);
    } else if (v && v->type == MLIA_JSON_ARRAY) {
        if (v->u.array.n > 0 && v->u.array.items[0]->type == MLIA_JSON_STRING)
            e->name = v->u.array.items[0]->u.string.s;
        if (v->u.array.n > 1 && v->u.array.items[1]->type == MLIA_JSON_STRING &&
            v->u.array.items[1]->u.string.len)
            e->module_type = v->u.array.items[1]->u.string.s;
    } else if (v && v->type == MLIA_JSON_STRING) {
        e->name = v->u.string.s;
    }
    if (!e->name)
        e->name = key;
}

static void parse_modules(const mlia_json *stack, mlia_arena *a, nx_label_info *out)
{
    if (!stack || (stack->type != MLIA_JSON_OBJECT && stack->type != MLIA_JSON_ARRAY))
        return;
    size_t n = stack->type == MLIA_JSON_OBJECT ? stack->u.object.n : stack->u.array.n;
    if (n == 0)
        return;
    nx_module_entry *e = mlia_arena_array(a, n + 1, sizeof *e);
    size_t k = 1; /* slot 0 reserved for <root> */
    for (size_t i = 0; i < n; i++) {
        if (stack->type == MLIA_JSON_OBJECT) {
            const mlia_json_member *m = &stack->u.object.members[i];
            module_entry(m->key, m->value, &e[k++]);
            continue;
        }
        const mlia_json *it = stack->u.array.items[i];
        const char *key = NULL;
        const mlia_json *val = it;
        if (it->type == MLIA_JSON_OBJECT) {
            key = mlia_json_get_str(it, "tracer_key");
            if (!key)
                key = mlia_json_get_str(it, "key");
        } else if (it->type == MLIA_JSON_ARRAY && it->u.array.n > 0 &&
                   it->u.array.items[0]->type == MLIA_JSON_STRING) {
            key = it->u.array.items[0]->u.string.s;
            mlia_json *rest = mlia_arena_alloc(a, sizeof *rest);
            rest->type = MLIA_JSON_ARRAY;
            rest->u.array.items = it->u.array.items + 1;
            rest->u.array.n = it->u.array.n - 1;
            val = rest;
        }
        if (!key)
            key = mlia_arena_printf(a, "%zu", i);
        module_entry(key, val, &e[k++]);
    }
    if (strcmp(e[1].tracer_key, "<root>") == 0) {
        out->modules = e + 1;
        out->n_modules = (uint32_t)(k - 1);
    } else {
        e[0].tracer_key = "<root>";
        e[0].name = "<root>";
        e[0].module_type = NULL;
        out->modules = e;
        out->n_modules = (uint32_t)k;
    }
}

/* A frame line: File "<file>", line <digits>[, in <function>] */
static bool parse_frame(const char *s, size_t n, mlia_arena *a, nx_code_frame *f)
{
    while (n && ascii_space(*s))
        s++, n--;
    while (n && ascii_space(s[n - 1]))
        n--;
    static const char head[] = "File \"";
    static const char mid[] = "\", line ";
    size_t hl = sizeof head - 1, ml = sizeof mid - 1;
    if (n < hl || memcmp(s, head, hl) != 0)
        return false;
    /* the file name is greedy: try the last separator first */
    for (size_t j = n; j-- > hl + 1;) {
        if (j + ml > n || memcmp(s + j, mid, ml) != 0)
            continue;
        size_t d = j + ml, e = d;
        while (e < n && s[e] >= '0' && s[e] <= '9')
            e++;
        if (e == d)
            continue;
        const char *fn = NULL;
        if (e < n) {
            if (n - e <= 5 || memcmp(s + e, ", in ", 5) != 0)
                continue;
            fn = mlia_arena_strndup(a, s + e + 5, n - e - 5);
        }
        f->file = mlia_arena_strndup(a, s + hl, j - hl);
        f->line_text = mlia_arena_strndup(a, s + d, e - d);
        uint64_t v = 0;
        for (size_t q = d; q < e; q++)
            v = v > (UINT64_MAX - 9) / 10 ? UINT64_MAX : v * 10 + (uint64_t)(s[q] - '0');
        f->line = v;
        f->function = fn;
        return true;
    }
    return false;
}

static void add_trace_line(const char *s, size_t n, mlia_arena *a, nx_label_info *out, uint32_t *cap)
{
    size_t b = 0, e = n;
    while (b < e && ascii_space(s[b]))
        b++;
    while (e > b && ascii_space(s[e - 1]))
        e--;
    if (b == e)
        return;
    if (e - b == 24 && memcmp(s + b, "No stack trace available", 24) == 0)
        return;
    nx_code_frame f;
    if (!parse_frame(s, n, a, &f))
        return;
    if (out->n_frames == *cap) {
        out->frames = mlia_arena_grow(a, out->frames, *cap, *cap ? *cap * 2 : 4, sizeof *out->frames);
        *cap = *cap ? *cap * 2 : 4;
    }
    out->frames[out->n_frames++] = f;
}

static void parse_trace(const mlia_json *t, mlia_arena *a, nx_label_info *out)
{
    uint32_t cap = 0;
    if (!t)
        return;
    if (t->type == MLIA_JSON_STRING) {
        const char *s = t->u.string.s;
        size_t n = t->u.string.len;
        for (size_t i = 0; i < n;) {
            size_t st = i;
            while (i < n && s[i] != '\n' && s[i] != '\r')
                i++;
            add_trace_line(s + st, i - st, a, out, &cap);
            if (i < n && s[i] == '\r' && i + 1 < n && s[i + 1] == '\n')
                i++;
            i++;
        }
    } else if (t->type == MLIA_JSON_ARRAY) {
        for (size_t i = 0; i < t->u.array.n; i++) {
            const mlia_json *it = t->u.array.items[i];
            if (it->type == MLIA_JSON_STRING)
                add_trace_line(it->u.string.s, it->u.string.len, a, out, &cap);
        }
    }
}

void nx_label_parse(const char *label, mlia_arena *arena, nx_label_info *out)
{
    memset(out, 0, sizeof *out);
    out->raw = label;
    out->display_label = label;
    size_t n = strlen(label);
    mlia_json *root = NULL;
    mlia_error e;
    mlia_error_clear(&e);
    mlia_json_opts opts = {.allow_nonfinite = false, .max_depth = 0, .refuse_nul = true};
    if (n && (label[0] == '{' || ascii_space(label[0])) &&
        mlia_json_parse(label, n, &opts, arena, &root, NULL, &e) == 0 && root->type == MLIA_JSON_OBJECT) {
        out->kind = NX_LABEL_JSON;
        const mlia_json *aten = mlia_json_get(root, "aten_info");
        out->node_name = nonempty_str(aten, "node_name");
        out->operator_name = nonempty_str(aten, "operator_name");
        if (out->node_name)
            out->display_label = out->node_name;
        const mlia_json *torch = mlia_json_get(root, "torch_info");
        parse_modules(mlia_json_get(torch, "nn_module_stack"), arena, out);
        parse_trace(mlia_json_get(torch, "stack_trace"), arena, out);
        return;
    }
    static const char suffix[] = "_spirv_id_";
    size_t sl = sizeof suffix - 1, d = n;
    while (d > 0 && label[d - 1] >= '0' && label[d - 1] <= '9')
        d--;
    if (d < n && d >= sl && memcmp(label + d - sl, suffix, sl) == 0) {
        out->kind = NX_LABEL_SPIRV;
        size_t z = d;
        while (z + 1 < n && label[z] == '0')
            z++;
        out->spirv_id_text = mlia_arena_strndup(arena, label + z, n - z);
        uint64_t v = 0;
        bool fits = n - z <= 10;
        for (size_t i = z; fits && i < n; i++)
            v = v * 10 + (uint64_t)(label[i] - '0');
        out->spirv_id_fits = fits && v <= UINT32_MAX;
        out->spirv_id = out->spirv_id_fits ? (uint32_t)v : 0;
        return;
    }
    out->kind = NX_LABEL_PLAIN;
}

int nx_label_resolve(const nx_label_info *label, const nx_name_map *map, uint64_t segment_id,
                     mlia_arena *arena, nx_strlist *ids, mlia_error *err)
{
    ids->n = 0;
    ids->items = NULL;
    if (label->kind == NX_LABEL_SPIRV) {
        if (map) {
            bool known = false;
            for (uint32_t i = 0; label->spirv_id_fits && i < map->n_ids && !known; i++)
                known = map->ids[i] == label->spirv_id;
            if (!known)
                return mlia_error_setf(err, NULL,
                                       "Debug label '%s' references SPIR-V result ID %s, which is not present in "
                                       "supplied VGF segment %" PRIu64 ".",
                                       label->raw, label->spirv_id_text, segment_id);
        }
        *ids = one_item(arena, label->spirv_id_text);
        return 0;
    }
    if (!map || !map->names)
        return 0;
    uint32_t cap = 0;
    for (uint32_t i = 0; i < map->n_ids; i++) {
        if (!map->names[i] || strcmp(map->names[i], label->raw) != 0)
            continue;
        bool seen = false;
        for (uint32_t k = 0; k < i && !seen; k++)
            seen = map->ids[k] == map->ids[i] && map->names[k] && strcmp(map->names[k], label->raw) == 0;
        if (seen)
            continue;
        if (ids->n == cap) {
            ids->items = mlia_arena_grow(arena, ids->items, cap, cap ? cap * 2 : 4, sizeof *ids->items);
            cap = cap ? cap * 2 : 4;
        }
        ids->items[ids->n++] = mlia_arena_printf(arena, "%" PRIu32, map->ids[i]);
    }
    return 0;
}

char *nx_code_stack_id(const nx_code_frame *frames, uint32_t upto, mlia_arena *arena)
{
    const nx_code_frame *f = &frames[upto];
    const char *base = f->file;
    for (const char *c = f->file; *c; c++)
        if (*c == '/' || *c == '\\')
            base = c + 1;
    char *raw = mlia_arena_printf(arena, "%s:%" PRIu64, base, f->line);
    size_t rl = strlen(raw);
    char *safe = mlia_arena_alloc(arena, rl + 6);
    size_t k = 0;
    bool in_run = false;
    for (size_t i = 0; i < rl; i++) {
        char c = raw[i];
        bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                  c == '.' || c == ':' || c == '-';
        if (ok) {
            safe[k++] = c;
            in_run = false;
        } else if (!in_run) {
            safe[k++] = '_';
            in_run = true;
        }
    }
    size_t b = 0;
    while (b < k && safe[b] == '_')
        b++;
    while (k > b && safe[k - 1] == '_')
        k--;
    safe[k] = 0;
    const char *s = k > b ? safe + b : "frame";
    mlia_buf text;
    mlia_buf_init(&text);
    for (uint32_t i = 0; i <= upto; i++) {
        if (i)
            mlia_buf_putc(&text, '\n');
        for (const char *c = frames[i].file; *c; c++)
            mlia_buf_putc(&text, *c == '\\' ? '/' : *c);
        mlia_buf_printf(&text, ":%" PRIu64 ":%s", frames[i].line, frames[i].function ? frames[i].function : "");
    }
    uint8_t md[32];
    mlia_sha256(text.data, text.len, md);
    mlia_buf_free(&text);
    char hex[13];
    for (int i = 0; i < 6; i++)
        snprintf(hex + 2 * i, 3, "%02x", md[i]);
    return mlia_arena_printf(arena, "code_stack/%s-%s", s, hex);
}
