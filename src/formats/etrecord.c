/*
 * etrecord.c - ETRecord reader (see etrecord.h; docs/formats/etrecord.md).
 *
 * Design:
 * - The archive is opened from memory with libzip (ZIP_RDONLY |
 *   ZIP_CHECKCONS: local headers must agree with the central directory).
 *   libzip verifies CRC-32 when an entry is read to its end, which we
 *   always do. The archive is reopened for each lazy program load instead
 *   of keeping a libzip handle in the etrecord: the etrecord then needs no
 *   close function and stays an arena object like every other reader view.
 * - Sizes declared in the central directory are untrusted: before any
 *   allocation an entry's uncompressed size is checked against a per-entry
 *   cap, a per-record running total, and what its compressed bytes can
 *   possibly expand to (STORED: equal; DEFLATE: at most 1032:1).
 * - Duplicate names: Python's zipfile resolves a name to the last
 *   central-directory entry, so a name index is built with later entries
 *   overwriting earlier ones; the earlier ones get the role "shadowed".
 * - The three maps are parsed into per-method arrays indexed by
 *   instruction. An instruction index comes from a few bytes of hostile
 *   JSON, so the array length is bounded both absolutely
 *   (ETRECORD_MAX_INSTRUCTIONS) and relative to the number of keys the
 *   method actually has (ETRECORD_SPARSE_*), keeping memory proportional
 *   to the input.
 */
#include "core/oom.h"
#include "etrecord.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zip.h>
#include <zlib.h> /* Z_MEM_ERROR only */

#include "core/json_read.h"
#include "formats/pte.h"

#define MARKER_NAME "ETRECORD_V0"
#define EDGE_PREFIX "edge_dialect_exported_program/"
#define DEFLATE_MAX_RATIO 1032u

/* ---- zip access ------------------------------------------------------ */

/* libzip reports an allocation that failed inside it (or inside zlib, whose
 * Z_MEM_ERROR it passes on as ZIP_ER_ZLIB) as an error code: that is out of
 * memory, not a damaged archive, and goes to the library's one
 * out-of-memory path (core/oom.h). Callers release what their frame holds
 * before asking. Found by the process-wide allocation sweep
 * (docs/hardening.md): "debug_handle_map: Malloc failure" was a per-method
 * program error in `mlia inspect`, which then exited 0 with a different
 * output. */
static bool zip_code_is_oom(int zip_code, int system_code)
{
    return zip_code == ZIP_ER_MEMORY || (zip_code == ZIP_ER_ZLIB && system_code == Z_MEM_ERROR);
}

static bool zip_error_is_oom(zip_error_t *ze)
{
    return zip_code_is_oom(zip_error_code_zip(ze), zip_error_code_system(ze));
}

/* Not a ZIP: say what the bytes are when we can tell (a PTE, ETDump,
 * BundledProgram or VGF given in the ETRecord's place, or an empty file). */
static int not_a_zip(const uint8_t *data, size_t size, const char *file, mlia_error *err)
{
    if (!data || size == 0)
        return mlia_error_setf(err, file, "is empty, not an ETRecord (zip)");
    const char *kind = pte_file_kind(data, size);
    const char *what = !kind                                    ? NULL
                       : strcmp(kind, "pte") == 0               ? "a PTE program"
                       : strcmp(kind, "etdump") == 0            ? "an ETDump"
                       : strcmp(kind, "bundled_program") == 0   ? "a BundledProgram"
                       : strcmp(kind, "vgf") == 0               ? "a VGF file"
                                                                : NULL;
    if (what)
        return mlia_error_setf(err, file, "is %s, not an ETRecord (zip)", what);
    /* a zip's first local header but no central directory: the file was cut
     * (issue 29, 6: "Invalid etrecord file passed in." did not say so) */
    if (size >= 4 && memcmp(data, "PK\x03\x04", 4) == 0)
        return mlia_error_setf(err, file,
                               "is a truncated or damaged ETRecord: a zip archive of %zu bytes without its central "
                               "directory (the end of the file is missing); copy or save the ETRecord again",
                               size);
    return mlia_error_setf(err, file, "Invalid etrecord file passed in.");
}

/* Uncompressed bytes an ETRecord may make us read: the absolute cap, and
 * ETRECORD_READ_BASE + ETRECORD_READ_RATIO x the archive size (a zip bomb
 * expands ~1000:1; real ETRecords are stored, or deflated JSON at ~10:1). */
uint64_t etrecord_read_limit(size_t archive_size)
{
    uint64_t rel = ETRECORD_READ_BASE + (uint64_t)ETRECORD_READ_RATIO * archive_size;
    return rel < ETRECORD_MAX_TOTAL_READ ? rel : ETRECORD_MAX_TOTAL_READ;
}

static zip_t *open_zip_flags(const uint8_t *data, size_t size, const char *file, int flags,
                             int *zip_code, mlia_error *err)
{
    zip_error_t ze;
    zip_error_init(&ze);
    if (!data || size == 0) {
        not_a_zip(data, size, file, err);
        return NULL;
    }
    zip_source_t *src = zip_source_buffer_create(data, size, 0, &ze);
    if (!src) {
        if (zip_error_is_oom(&ze)) {
            zip_error_fini(&ze);
            mlia_oom(0);
        }
        mlia_error_setf(err, file, "Invalid etrecord file passed in. (%s)", zip_error_strerror(&ze));
        zip_error_fini(&ze);
        return NULL;
    }
    zip_t *z = zip_open_from_source(src, flags, &ze);
    if (!z) {
        int code = zip_error_code_zip(&ze);
        *zip_code = code;
        if (zip_error_is_oom(&ze)) {
            zip_source_free(src);
            zip_error_fini(&ze);
            mlia_oom(0);
        }
        if (code == ZIP_ER_EXISTS) {
            zip_source_free(src);
            zip_error_fini(&ze);
            return NULL; /* duplicate names: the caller retries, see open_zip */
        }
        if (code == ZIP_ER_NOZIP)
            not_a_zip(data, size, file, err);
        else
            mlia_error_setf(err, file, "Invalid etrecord file passed in. (%s)",
                            zip_error_strerror(&ze));
        zip_source_free(src);
        zip_error_fini(&ze);
        return NULL;
    }
    zip_error_fini(&ze);
    return z;
}

/* Opens with consistency checks. libzip refuses duplicate names under
 * ZIP_CHECKCONS (ZIP_ER_EXISTS); Python's zipfile accepts them (the last
 * central-directory entry wins), so such archives are reopened without the
 * local/central cross-check. Entries are still read through their local
 * headers and CRC-verified. rec->zip_flags remembers the choice for lazy
 * loads. */
static zip_t *open_zip(etrecord *rec, mlia_error *err)
{
    int code = 0;
    int flags = rec->zip_flags ? rec->zip_flags : ZIP_RDONLY | ZIP_CHECKCONS;
    zip_t *z = open_zip_flags(rec->data, rec->size, rec->file, flags, &code, err);
    if (!z && (code == ZIP_ER_INCONS || code == ZIP_ER_OK)) {
        /* libzip 1.7 reports some allocations that fail while it checks
         * the archive as "Zip archive inconsistent", or with no error code
         * at all (the process-wide allocation sweep, docs/hardening.md).
         * The archive is bytes in memory: a damaged one fails the same way
         * twice, so a second attempt tells the two apart; only its error
         * is kept. */
        mlia_error_clear(err);
        code = 0;
        z = open_zip_flags(rec->data, rec->size, rec->file, flags, &code, err);
    }
    if (!z && code == ZIP_ER_EXISTS) {
        flags = ZIP_RDONLY;
        z = open_zip_flags(rec->data, rec->size, rec->file, flags, &code, err);
    }
    if (z)
        rec->zip_flags = flags;
    return z;
}

static int read_entry_from(etrecord *rec, zip_t *z, const etrecord_entry *e, mlia_arena *arena,
                           const uint8_t **out, size_t *len, mlia_error *err)
{
    const char *file = rec->file;
    if (e->comp_method != ZIP_CM_STORE && e->comp_method != ZIP_CM_DEFLATE)
        return mlia_error_setf(err, file, "%s: unsupported compression method %u", e->name,
                               (unsigned)e->comp_method);
    if (e->size > ETRECORD_MAX_ENTRY_SIZE)
        return mlia_error_setf(err, file,
                               "%s: uncompressed size %llu exceeds the limit of %llu bytes",
                               e->name, (unsigned long long)e->size,
                               (unsigned long long)ETRECORD_MAX_ENTRY_SIZE);
    if (e->comp_size > rec->size)
        return mlia_error_setf(err, file, "%s: compressed size %llu exceeds the file size %zu",
                               e->name, (unsigned long long)e->comp_size, rec->size);
    if (e->comp_method == ZIP_CM_STORE && e->size != e->comp_size)
        return mlia_error_setf(err, file,
                               "%s: stored entry declares %llu bytes but holds %llu bytes",
                               e->name, (unsigned long long)e->size,
                               (unsigned long long)e->comp_size);
    if (e->comp_method == ZIP_CM_DEFLATE && e->size / DEFLATE_MAX_RATIO > e->comp_size)
        return mlia_error_setf(err, file,
                               "%s: declared uncompressed size %llu is impossible for %llu "
                               "compressed bytes",
                               e->name, (unsigned long long)e->size,
                               (unsigned long long)e->comp_size);
    uint64_t limit = etrecord_read_limit(rec->size);
    if (e->size > limit || e->size > limit - rec->bytes_read)
        return mlia_error_setf(err, file,
                               "%s: reading it would exceed the limit of %llu uncompressed bytes "
                               "for this %zu-byte ETRecord (%u MiB + %u x its size)",
                               e->name, (unsigned long long)limit, rec->size,
                               (unsigned)(ETRECORD_READ_BASE >> 20), ETRECORD_READ_RATIO);
    size_t n = (size_t)e->size;
    uint8_t *buf = mlia_arena_alloc(arena, n + 1);
    zip_file_t *zf = zip_fopen_index(z, e->index, 0);
    if (!zf && zip_error_is_oom(zip_get_error(z)))
        mlia_oom(0); /* the archive handle is the caller's, registered (etrecord_read_entry) */
    if (!zf)
        return mlia_error_setf(err, file, "%s: %s", e->name, zip_strerror(z));
    size_t got = 0;
    for (;;) {
        uint8_t extra[64];
        uint8_t *dst = got < n ? buf + got : extra;
        zip_uint64_t want = got < n ? n - got : sizeof extra;
        zip_int64_t r = zip_fread(zf, dst, want);
        if (r < 0) {
            zip_error_t *fe = zip_file_get_error(zf);
            if (zip_error_is_oom(fe)) {
                zip_fclose(zf);
                mlia_oom(0);
            }
            mlia_error_setf(err, file, "%s: %s", e->name, zip_file_strerror(zf));
            zip_fclose(zf);
            return -1;
        }
        if (r == 0)
            break;
        if (got >= n) {
            zip_fclose(zf);
            return mlia_error_setf(err, file, "%s: data is longer than its declared size %llu",
                                   e->name, (unsigned long long)e->size);
        }
        got += (size_t)r;
    }
    zip_fclose(zf);
    if (got != n)
        return mlia_error_setf(err, file, "%s: data ends after %zu of %llu declared bytes",
                               e->name, got, (unsigned long long)e->size);
    buf[n] = 0;
    rec->bytes_read += n;
    *out = buf;
    *len = n;
    return 0;
}

static void discard_zip(void *z)
{
    zip_discard(z);
}

int etrecord_read_entry(etrecord *rec, const etrecord_entry *e, mlia_arena *arena,
                        const uint8_t **out, size_t *len, mlia_error *err)
{
    zip_t *z = rec->zip ? rec->zip : open_zip(rec, err);
    if (!z)
        return -1;
    mlia_oom_cleanup c; /* an out-of-memory jump must not lose the handle (core/oom.h) */
    if (z != rec->zip)
        mlia_oom_push(&c, discard_zip, z);
    int rc = read_entry_from(rec, z, e, arena, out, len, err);
    if (z != rec->zip) {
        mlia_oom_pop(&c);
        zip_discard(z);
    }
    return rc;
}

int etrecord_keep_open(etrecord *rec, mlia_error *err)
{
    if (rec->zip)
        return 0;
    rec->zip = open_zip(rec, err);
    return rec->zip ? 0 : -1;
}

void etrecord_close(etrecord *rec)
{
    if (rec && rec->zip) {
        zip_discard(rec->zip);
        rec->zip = NULL;
    }
}

/* ---- entry classification (section 5.2) ------------------------------ */

static bool role_is(const char *role, const char *want)
{
    return role && strcmp(role, want) == 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
    size_t ls = strlen(s), lx = strlen(suffix);
    return ls >= lx && memcmp(s + ls - lx, suffix, lx) == 0;
}

static const char *classify(const char *name, const char **method)
{
    static const struct {
        const char *name;
        const char *role;
    } exact[] = {
        {MARKER_NAME, ETRECORD_ROLE_MARKER},
        {"exported_program", ETRECORD_ROLE_ATEN_PROGRAM},
        {"export_graph_id", ETRECORD_ROLE_EXPORT_GRAPH_ID},
        {"edge_dialect_exported_program", ETRECORD_ROLE_EDGE_PROGRAM},
        {"et_dialect_graph_module", ETRECORD_ROLE_ET_DIALECT},
        {"debug_handle_map", ETRECORD_ROLE_DEBUG_HANDLE_MAP},
        {"delegate_map", ETRECORD_ROLE_DELEGATE_MAP},
        {"instruction_id_to_num_outs_map", ETRECORD_ROLE_NUM_OUTS_MAP},
        {"reference_outputs", ETRECORD_ROLE_REFERENCE_OUTPUTS},
        {"representative_inputs", ETRECORD_ROLE_REPRESENTATIVE_INPUTS},
    };
    *method = NULL;
    for (size_t i = 0; i < sizeof exact / sizeof exact[0]; i++) {
        if (strcmp(name, exact[i].name) == 0) {
            if (role_is(exact[i].role, ETRECORD_ROLE_EDGE_PROGRAM))
                *method = "forward"; /* legacy single edge program */
            return exact[i].role;
        }
    }
    bool sib_sd = has_suffix(name, "_state_dict");
    bool sib_c = has_suffix(name, "_constants");
    bool sib_ei = has_suffix(name, "_example_inputs");
    size_t pl = strlen(EDGE_PREFIX);
    if (strncmp(name, EDGE_PREFIX, pl) == 0 && name[pl] && !sib_sd && !sib_c && !sib_ei) {
        *method = name + pl;
        return ETRECORD_ROLE_EDGE_PROGRAM;
    }
    if (sib_sd)
        return ETRECORD_ROLE_STATE_DICT;
    if (sib_c)
        return ETRECORD_ROLE_CONSTANTS;
    if (sib_ei)
        return ETRECORD_ROLE_EXAMPLE_INPUTS;
    return ETRECORD_ROLE_GRAPH_MAP_PROGRAM;
}

static uint32_t hash_str(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

const etrecord_entry *etrecord_find_entry(const etrecord *rec, const char *name)
{
    if (!rec || !name)
        return NULL;
    if (rec->name_slots) {
        /* the name index of etrecord_read: the last entry of a name */
        for (uint32_t h = hash_str(name) & rec->name_mask; rec->name_slots[h]; h = (h + 1) & rec->name_mask)
            if (strcmp(rec->entries[rec->name_slots[h] - 1].name, name) == 0)
                return &rec->entries[rec->name_slots[h] - 1];
        return NULL;
    }
    for (uint32_t i = rec->n_entries; i-- > 0;)
        if (strcmp(rec->entries[i].name, name) == 0)
            return &rec->entries[i];
    return NULL;
}

const etrecord_method *etrecord_find_method(const etrecord *rec, const char *name)
{
    if (!rec || !name)
        return NULL;
    for (uint32_t i = 0; i < rec->n_methods; i++)
        if (strcmp(rec->methods[i].name, name) == 0)
            return &rec->methods[i];
    return NULL;
}

/* ---- the maps (section 5.3) ------------------------------------------ */

typedef struct map_ctx {
    const char *file;
    const char *map;      /* entry name, for messages */
    mlia_error *err;
    mlia_arena *arena;
} map_ctx;

static int map_fail(map_ctx *c, const char *path, const char *what)
{
    if (path && *path)
        return mlia_error_setf(c->err, c->file, "%s: %s: %s", c->map, path, what);
    return mlia_error_setf(c->err, c->file, "%s: %s", c->map, what);
}

/* Canonical decimal instruction index ("0" or no leading zero). */
static int parse_instr_key(map_ctx *c, const char *method, const char *key, uint32_t *out)
{
    size_t n = strlen(key);
    bool ok = n > 0 && n <= 9 && (n == 1 || key[0] != '0');
    for (size_t i = 0; ok && i < n; i++)
        ok = key[i] >= '0' && key[i] <= '9';
    char path[600];
    snprintf(path, sizeof path, "%.256s.%.256s", method, key);
    if (!ok) {
        if (n > 9 && key[0] != '0' && strspn(key, "0123456789") == n) {
            char what[128];
            snprintf(what, sizeof what, "instruction index exceeds the limit of %u",
                     ETRECORD_MAX_INSTRUCTIONS);
            return map_fail(c, path, what);
        }
        return map_fail(c, path, "key is not a decimal instruction index");
    }
    unsigned long v = strtoul(key, NULL, 10);
    if (v >= ETRECORD_MAX_INSTRUCTIONS) {
        char what[128];
        snprintf(what, sizeof what, "instruction index exceeds the limit of %u",
                 ETRECORD_MAX_INSTRUCTIONS);
        return map_fail(c, path, what);
    }
    *out = (uint32_t)v;
    return 0;
}

/* int or [int, ...] -> handles */
static int parse_handles(map_ctx *c, const char *path, const mlia_json *v, etrecord_handles *h)
{
    if (v && v->type == MLIA_JSON_NUMBER) {
        if (!v->num_is_integer)
            return map_fail(c, path, "expected an integer or a list of integers");
        if (!v->num_int_fits)
            return map_fail(c, path, "integer out of range");
        h->n = 1;
        h->v = mlia_arena_array(c->arena, 1, sizeof(int64_t));
        h->v[0] = v->u.number.i;
        h->present = true;
        return 0;
    }
    if (!v || v->type != MLIA_JSON_ARRAY)
        return map_fail(c, path, "expected an integer or a list of integers");
    if (v->u.array.n > UINT32_MAX)
        return map_fail(c, path, "too many handles");
    h->n = (uint32_t)v->u.array.n;
    h->v = mlia_arena_array(c->arena, h->n, sizeof(int64_t));
    for (uint32_t i = 0; i < h->n; i++) {
        const mlia_json *it = v->u.array.items[i];
        char p[700];
        snprintf(p, sizeof p, "%.600s[%u]", path, i);
        if (it->type != MLIA_JSON_NUMBER || !it->num_is_integer)
            return map_fail(c, p, "expected an integer");
        if (!it->num_int_fits)
            return map_fail(c, p, "integer out of range");
        h->v[i] = it->u.number.i;
    }
    h->present = true;
    return 0;
}

/* Parses one map entry into a JSON tree and checks the outer shape. *root is
 * NULL when the entry is absent. */
static int load_map(etrecord *rec, zip_t *z, const char *name, mlia_arena *arena, mlia_json **root,
                    mlia_error *err)
{
    *root = NULL;
    const etrecord_entry *e = etrecord_find_entry(rec, name);
    if (!e)
        return 0;
    const uint8_t *text;
    size_t len;
    if (read_entry_from(rec, z, e, arena, &text, &len, err) < 0)
        return -1;
    const char *jfile = rec->file ? mlia_arena_printf(arena, "%s: %s", rec->file, name) : name;
    mlia_json_opts opts = {.allow_nonfinite = true, .refuse_nul = true};
    if (mlia_json_parse((const char *)text, len, &opts, arena, root, jfile, err) < 0)
        return -1;
    if ((*root)->type != MLIA_JSON_OBJECT) {
        map_ctx c = {rec->file, name, err, arena};
        return map_fail(&c, NULL, "expected an object mapping method names to instruction maps");
    }
    return 0;
}

/* Method name index (open addressing, slots hold method index + 1): method
 * lookups stay O(1) so that 100,000 method keys cost linear time. */
typedef struct method_index {
    uint32_t *slots;
    uint32_t mask;
} method_index;

static etrecord_method *find_method_indexed(const etrecord *rec, const method_index *ix, const char *name)
{
    for (uint32_t h = hash_str(name) & ix->mask; ix->slots[h]; h = (h + 1) & ix->mask)
        if (strcmp(rec->methods[ix->slots[h] - 1].name, name) == 0)
            return &rec->methods[ix->slots[h] - 1];
    return NULL;
}

/* rec->methods has room for every possible method (allocated by the caller). */
static etrecord_method *add_method(etrecord *rec, method_index *ix, const char *name)
{
    uint32_t h = hash_str(name) & ix->mask;
    for (; ix->slots[h]; h = (h + 1) & ix->mask)
        if (strcmp(rec->methods[ix->slots[h] - 1].name, name) == 0)
            return &rec->methods[ix->slots[h] - 1];
    etrecord_method *m = &rec->methods[rec->n_methods++];
    m->name = name;
    ix->slots[h] = rec->n_methods;
    return m;
}

/* Visits the non-shadowed members of an object (last occurrence wins). */
/* Iterates the members that mlia_json_get would return (the last of
 * duplicated keys), in document order; linear time. Needs `arena` in scope. */
#define FOR_MEMBERS_I(obj, i, m)                                               \
    for (const bool *i##_last = mlia_json_last_members((obj), arena); i##_last; i##_last = NULL) \
        for (size_t i = 0; (obj) && i < (obj)->u.object.n; i++)                \
            for (const mlia_json_member *m = &(obj)->u.object.members[i]; m;   \
                 m = NULL)                                                     \
                if (i##_last[i])
#define FOR_MEMBERS(obj, m) FOR_MEMBERS_I(obj, m##_i, m)

/* found[k]: the method's value in map k (NULL when the map has no such key). */
static int fill_method(etrecord *rec, etrecord_method *m, mlia_json *const found[3], mlia_arena *arena,
                       mlia_error *err)
{
    static const char *const map_names[3] = {"debug_handle_map", "delegate_map",
                                             "instruction_id_to_num_outs_map"};
    mlia_json *inner[3] = {NULL, NULL, NULL};
    uint32_t max_idx = 0, keys = 0;
    bool any = false;
    int max_map = 0;
    const char *max_key = NULL;
    for (int k = 0; k < 3; k++) {
        map_ctx c = {rec->file, map_names[k], err, arena};
        mlia_json *v = found[k];
        if (!v)
            continue;
        if (v->type != MLIA_JSON_OBJECT)
            return map_fail(&c, m->name, "expected an object mapping instruction indexes");
        inner[k] = v;
        uint32_t nk = 0;
        FOR_MEMBERS(v, mem)
        {
            uint32_t idx = 0;
            if (parse_instr_key(&c, m->name, mem->key, &idx) < 0)
                return -1;
            nk++;
            if (!any || idx > max_idx) {
                max_idx = idx;
                max_map = k;
                max_key = mem->key;
            }
            any = true;
        }
        keys += nk;
        if (k == 0) {
            m->in_debug_handle_map = true;
            m->n_debug_handle_keys = nk;
        } else if (k == 1) {
            m->in_delegate_map = true;
            m->n_delegate_keys = nk;
        } else {
            m->n_num_outs_keys = nk;
        }
    }
    if (any) {
        uint64_t limit = (uint64_t)ETRECORD_SPARSE_BASE + (uint64_t)ETRECORD_SPARSE_FACTOR * keys;
        if (max_idx >= limit) {
            map_ctx c = {rec->file, map_names[max_map], err, arena};
            char path[600], what[200];
            snprintf(path, sizeof path, "%.256s.%.256s", m->name, max_key);
            snprintf(what, sizeof what,
                     "instruction index %u is implausibly sparse for %u map keys (limit %llu)",
                     max_idx, keys, (unsigned long long)limit);
            return map_fail(&c, path, what);
        }
        m->n_instr = max_idx + 1;
    }
    m->debug_handles = mlia_arena_array(arena, m->n_instr, sizeof *m->debug_handles);
    m->delegates = mlia_arena_array(arena, m->n_instr, sizeof *m->delegates);
    m->num_outs = mlia_arena_array(arena, m->n_instr, sizeof *m->num_outs);
    for (uint32_t i = 0; i < m->n_instr; i++)
        m->num_outs[i] = -1;

    char path[1400];
    if (inner[0]) {
        map_ctx c = {rec->file, map_names[0], err, arena};
        FOR_MEMBERS(inner[0], mem)
        {
            uint32_t idx = (uint32_t)strtoul(mem->key, NULL, 10);
            snprintf(path, sizeof path, "%.256s.%.256s", m->name, mem->key);
            if (parse_handles(&c, path, mem->value, &m->debug_handles[idx]) < 0)
                return -1;
        }
    }
    if (inner[1]) {
        map_ctx c = {rec->file, map_names[1], err, arena};
        FOR_MEMBERS(inner[1], mem)
        {
            uint32_t idx = (uint32_t)strtoul(mem->key, NULL, 10);
            etrecord_delegate_entry *d = &m->delegates[idx];
            memset(d, 0, sizeof *d);
            snprintf(path, sizeof path, "%.256s.%.256s", m->name, mem->key);
            const mlia_json *v = mem->value;
            if (v->type != MLIA_JSON_OBJECT)
                return map_fail(&c, path, "expected an object");
            const mlia_json *name = mlia_json_get(v, "name");
            if (!name || name->type != MLIA_JSON_STRING) {
                strcat(path, ".name");
                return map_fail(&c, path, "expected a string");
            }
            if (name->u.string.len > EP_MAX_NAME_BYTES) {
                strcat(path, ".name");
                char what[128];
                snprintf(what, sizeof what, "string of %zu bytes exceeds the limit of %u bytes",
                         name->u.string.len, EP_MAX_NAME_BYTES);
                return map_fail(&c, path, what);
            }
            d->backend = name->u.string.s;
            d->present = true;
            const mlia_json *dm = mlia_json_get(v, "delegate_map");
            if (!dm || dm->type == MLIA_JSON_NULL) {
                d->inner_null = true;
                continue;
            }
            strcat(path, ".delegate_map");
            if (dm->type != MLIA_JSON_OBJECT)
                return map_fail(&c, path, "expected an object or null");
            size_t nk = 0;
            FOR_MEMBERS(dm, dmem)
            nk++;
            d->keys = mlia_arena_array(arena, nk, sizeof(const char *));
            d->handles = mlia_arena_array(arena, nk, sizeof(etrecord_handles));
            FOR_MEMBERS(dm, dmem)
            {
                char p2[1400];
                snprintf(p2, sizeof p2, "%.700s.%.256s", path, dmem->key);
                d->keys[d->n_keys] = dmem->key;
                if (parse_handles(&c, p2, dmem->value, &d->handles[d->n_keys]) < 0)
                    return -1;
                d->n_keys++;
            }
        }
    }
    if (inner[2]) {
        map_ctx c = {rec->file, map_names[2], err, arena};
        FOR_MEMBERS(inner[2], mem)
        {
            uint32_t idx = (uint32_t)strtoul(mem->key, NULL, 10);
            snprintf(path, sizeof path, "%.256s.%.256s", m->name, mem->key);
            const mlia_json *v = mem->value;
            if (v->type != MLIA_JSON_NUMBER || !v->num_is_integer)
                return map_fail(&c, path, "expected an integer");
            if (!v->num_int_fits || v->u.number.i < 0)
                return map_fail(&c, path, "integer out of range");
            m->num_outs[idx] = v->u.number.i;
        }
    }
    return 0;
}

static int cmp_entry_method(const void *a, const void *b)
{
    const etrecord_entry *x = *(const etrecord_entry *const *)a;
    const etrecord_entry *y = *(const etrecord_entry *const *)b;
    return strcmp(x->method, y->method);
}

static int build_methods(etrecord *rec, zip_t *z, mlia_arena *arena, mlia_error *err)
{
    mlia_json *maps[3];
    if (load_map(rec, z, "debug_handle_map", arena, &maps[0], err) < 0 ||
        load_map(rec, z, "delegate_map", arena, &maps[1], err) < 0 ||
        load_map(rec, z, "instruction_id_to_num_outs_map", arena, &maps[2], err) < 0)
        return -1;
    rec->has_debug_handle_map = maps[0] != NULL;
    rec->has_delegate_map = maps[1] != NULL;
    rec->has_num_outs_map = maps[2] != NULL;

    /* Edge programs in method-name order. */
    size_t n_prog = 0;
    for (uint32_t i = 0; i < rec->n_entries; i++)
        n_prog += role_is(rec->entries[i].role, ETRECORD_ROLE_EDGE_PROGRAM);
    etrecord_entry **progs = mlia_arena_array(arena, n_prog, sizeof *progs);
    size_t k = 0;
    for (uint32_t i = 0; i < rec->n_entries; i++)
        if (role_is(rec->entries[i].role, ETRECORD_ROLE_EDGE_PROGRAM))
            progs[k++] = &rec->entries[i];
    /* Current and legacy edge programs side by side: the current ones win. */
    if (!rec->legacy && n_prog > 1) {
        size_t w = 0;
        for (size_t i = 0; i < n_prog; i++)
            if (strcmp(progs[i]->name, "edge_dialect_exported_program") != 0)
                progs[w++] = progs[i];
        n_prog = w;
    }
    if (n_prog > 1)
        qsort(progs, n_prog, sizeof *progs, cmp_entry_method);

    size_t cap = n_prog;
    for (int mi = 0; mi < 3; mi++)
        if (maps[mi])
            cap += maps[mi]->u.object.n;
    if (cap > UINT32_MAX)
        return mlia_error_setf(err, rec->file, "too many methods");
    rec->methods = mlia_arena_array(arena, cap, sizeof *rec->methods);
    method_index ix;
    uint32_t hcap = 16;
    while (hcap < 2 * cap)
        hcap <<= 1;
    ix.slots = mlia_arena_array(arena, hcap, sizeof *ix.slots);
    ix.mask = hcap - 1;
    /* found[3 * method + map]: each map's value for the method, gathered in
     * one pass over each map (no per-method lookup). */
    mlia_json **found = mlia_arena_array(arena, cap * 3, sizeof *found);
    for (int mi = 0; mi < 3; mi++) {
        FOR_MEMBERS(maps[mi], mem)
        {
            if (memchr(mem->key, 0, mem->key_len)) {
                map_ctx c = {rec->file, mi == 0 ? "debug_handle_map" : mi == 1 ? "delegate_map"
                                                 : "instruction_id_to_num_outs_map",
                             err, arena};
                return map_fail(&c, NULL, "method name contains a NUL character");
            }
            if (mem->key_len > EP_MAX_NAME_BYTES) {
                map_ctx c = {rec->file, mi == 0 ? "debug_handle_map" : mi == 1 ? "delegate_map"
                                                 : "instruction_id_to_num_outs_map",
                             err, arena};
                char what[128];
                snprintf(what, sizeof what, "method name of %zu bytes exceeds the limit of %u bytes", mem->key_len,
                         EP_MAX_NAME_BYTES);
                return map_fail(&c, NULL, what);
            }
            etrecord_method *m = add_method(rec, &ix, mem->key);
            found[(size_t)(m - rec->methods) * 3 + (size_t)mi] = mem->value;
        }
    }
    uint32_t n_map_methods = rec->n_methods;
    for (size_t i = 0; i < n_prog; i++) {
        etrecord_entry *e = progs[i];
        etrecord_method *m = find_method_indexed(rec, &ix, e->method);
        if (!m && n_prog == 1 && n_map_methods == 1 && strcmp(e->method, "forward") == 0)
            m = &rec->methods[0]; /* single-method program stored under /forward (7.3) */
        if (!m)
            m = add_method(rec, &ix, e->method);
        if (!m->program_entry)
            m->program_entry = e->name;
    }
    for (uint32_t j = 0; j < rec->n_methods; j++)
        if (fill_method(rec, &rec->methods[j], found + (size_t)j * 3, arena, err) < 0)
            return -1;
    return 0;
}

/* ---- top level ------------------------------------------------------- */

int etrecord_read(const uint8_t *data, size_t size, const char *file, mlia_arena *arena,
                  etrecord **out, mlia_error *err)
{
    *out = NULL;
    etrecord *rec = mlia_arena_alloc(arena, sizeof *rec);
    rec->file = file;
    rec->data = data;
    rec->size = size;
    zip_t *z = open_zip(rec, err);
    if (!z)
        return -1;
    mlia_oom_cleanup cleanup; /* the handle survives no out-of-memory jump (core/oom.h) */
    mlia_oom_push(&cleanup, discard_zip, z);
    int rc = -1;
    zip_int64_t n = zip_get_num_entries(z, 0);
    if (n < 0 || (uint64_t)n > ETRECORD_MAX_ENTRIES) {
        mlia_error_setf(err, file, "archive has %lld entries, more than the limit of %u",
                        (long long)n, ETRECORD_MAX_ENTRIES);
        goto done;
    }
    rec->n_entries = (uint32_t)n;
    rec->entries = mlia_arena_array(arena, rec->n_entries, sizeof *rec->entries);
    /* Name index: later entries overwrite earlier ones (last one wins). */
    uint32_t hcap = 16;
    while (hcap < 2 * rec->n_entries)
        hcap <<= 1;
    uint32_t *hash = mlia_arena_array(arena, hcap, sizeof(uint32_t));
    for (uint32_t i = 0; i < rec->n_entries; i++) {
        zip_stat_t st;
        zip_stat_init(&st);
        /* ZIP_FL_ENC_RAW: the name's bytes as stored. By default libzip
         * guesses: a name without the UTF-8 flag that is not plain ASCII
         * (a control byte, say) is taken as CP437 and converted, so the
         * program entry of method "f\x01" became "f\u263a" and no longer
         * matched its map keys (one method became two). Python's zipfile,
         * which writes ETRecords, stores names as UTF-8 bytes (with the flag
         * when they are not ASCII): the raw bytes are the method's name. */
        int stat_rc = zip_stat_index(z, i, ZIP_FL_ENC_RAW, &st);
        if (stat_rc < 0 && zip_error_is_oom(zip_get_error(z)))
            mlia_oom(0); /* z is registered for the jump (above) */
        if (stat_rc < 0 || !(st.valid & ZIP_STAT_NAME)) {
            mlia_error_setf(err, file, "central directory entry %u: %s", i, zip_strerror(z));
            goto done;
        }
        etrecord_entry *e = &rec->entries[i];
        e->name = mlia_arena_strdup(arena, st.name);
        e->index = i;
        e->size = st.valid & ZIP_STAT_SIZE ? st.size : 0;
        e->comp_size = st.valid & ZIP_STAT_COMP_SIZE ? st.comp_size : 0;
        e->comp_method = st.valid & ZIP_STAT_COMP_METHOD ? st.comp_method : 0;
        if ((st.valid & ZIP_STAT_ENCRYPTION_METHOD) && st.encryption_method != ZIP_EM_NONE) {
            mlia_error_setf(err, file, "%s: encrypted entries are not supported", e->name);
            goto done;
        }
        e->role = classify(e->name, &e->method);
        uint32_t h = hash_str(e->name) & (hcap - 1);
        while (hash[h] && strcmp(rec->entries[hash[h] - 1].name, e->name) != 0)
            h = (h + 1) & (hcap - 1);
        if (hash[h]) {
            etrecord_entry *old = &rec->entries[hash[h] - 1];
            old->role = ETRECORD_ROLE_SHADOWED;
            old->method = NULL;
        }
        hash[h] = i + 1;
    }
    rec->name_slots = hash;
    rec->name_mask = hcap - 1;
    if (!etrecord_find_entry(rec, MARKER_NAME)) {
        mlia_error_setf(err, file, "ETRecord identifier missing from the archive");
        goto done;
    }
    bool has_bare = false, has_per_method = false;
    for (uint32_t i = 0; i < rec->n_entries; i++) {
        const etrecord_entry *e = &rec->entries[i];
        if (role_is(e->role, ETRECORD_ROLE_EDGE_PROGRAM)) {
            if (strcmp(e->name, "edge_dialect_exported_program") == 0)
                has_bare = true;
            else
                has_per_method = true;
        }
        if (role_is(e->role, ETRECORD_ROLE_ATEN_PROGRAM))
            rec->aten_program = e;
    }
    rec->legacy = has_bare && !has_per_method;
    if (build_methods(rec, z, arena, err) < 0)
        goto done;
    const etrecord_entry *gid = etrecord_find_entry(rec, "export_graph_id");
    if (gid) {
        const uint8_t *text;
        size_t len;
        if (read_entry_from(rec, z, gid, arena, &text, &len, err) < 0)
            goto done;
        mlia_json *v;
        const char *jfile = file ? mlia_arena_printf(arena, "%s: export_graph_id", file)
                                 : "export_graph_id";
        mlia_json_opts opts = {.max_depth = 4, .refuse_nul = true};
        if (mlia_json_parse((const char *)text, len, &opts, arena, &v, jfile, err) < 0)
            goto done;
        if (v->type != MLIA_JSON_NUMBER || !v->num_int_fits) {
            mlia_error_setf(err, file, "export_graph_id: expected an integer");
            goto done;
        }
        rec->has_export_graph_id = true;
        rec->export_graph_id = v->u.number.i;
    }
    *out = rec;
    rc = 0;
done:
    mlia_oom_pop(&cleanup);
    zip_discard(z);
    return rc;
}

int etrecord_load_program(etrecord *rec, const char *entry, mlia_arena *arena, ep_program **out,
                          mlia_error *err)
{
    *out = NULL;
    etrecord_entry *e = (etrecord_entry *)etrecord_find_entry(rec, entry);
    if (!e)
        return mlia_error_setf(err, rec->file, "%s: no such entry in the ETRecord", entry);
    if (e->program) {
        *out = e->program;
        return 0;
    }
    /* The entry's text is needed only while it is parsed (ep_parse copies
     * what the program keeps): it lives in an arena of its own, released
     * here, also by an out-of-memory jump (core/oom.h). */
    mlia_scratch text;
    mlia_scratch_begin(&text, arena);
    const uint8_t *bytes;
    size_t len;
    int rc = etrecord_read_entry(rec, e, &text.a, &bytes, &len, err);
    if (rc == 0)
        rc = ep_parse_scratch(&text, (const char *)bytes, len, rec->file, e->name, arena, &e->program, err);
    mlia_scratch_end(&text);
    if (rc < 0)
        return -1;
    *out = e->program;
    return 0;
}

int etrecord_load_method_program(etrecord *rec, const etrecord_method *m, mlia_arena *arena,
                                 ep_program **out, mlia_error *err)
{
    *out = NULL;
    if (!m || !m->program_entry)
        return 0;
    return etrecord_load_program(rec, m->program_entry, arena, out, err);
}

const ep_program *etrecord_method_program(const etrecord *rec, const etrecord_method *m)
{
    if (!m || !m->program_entry)
        return NULL;
    const etrecord_entry *e = etrecord_find_entry(rec, m->program_entry);
    return e ? e->program : NULL;
}
