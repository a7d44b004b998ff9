/*
 * nx_stats.c - VGF neural statistics payloads (see nx_stats.h).
 *
 * Design: every step of docs/formats/nx-statistics.md §1-6 is a small pure function that
 * either produces a typed value or fails with that page's exact message, in its
 * order of checks. Nothing here knows about ETDump runs or records;
 * analysis/nx_analysis.c adds the record context. Untrusted sizes are only
 * ever compared with the real byte counts; allocations are bounded by the
 * input length (base64 output, stripe ids) or by the block count derived from
 * it (memory totals).
 */
#include "backends/vgf/formats/nx_stats.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json_read.h"
#include "core/str.h"
#include "core/utf8.h"

/* ------------------------------------------------------------------ */
/* list formatting                                                     */
/* ------------------------------------------------------------------ */

char *nx_format_u64_list(const uint64_t *v, size_t n, mlia_arena *arena)
{
    if (n == 0)
        return mlia_arena_strdup(arena, "none");
    mlia_buf b;
    mlia_buf_init(&b);
    size_t shown = n > 10 ? 10 : n;
    for (size_t i = 0; i < shown; i++)
        mlia_buf_printf(&b, "%s%" PRIu64, i ? ", " : "", v[i]);
    if (n > 10)
        mlia_buf_printf(&b, ", ... (%zu more omitted)", n - 10);
    char *r = mlia_arena_strndup(arena, b.data, b.len);
    mlia_buf_free(&b);
    return r;
}

char *nx_format_str_list(const char *const *v, size_t n, mlia_arena *arena)
{
    if (n == 0)
        return mlia_arena_strdup(arena, "none");
    mlia_buf b;
    mlia_buf_init(&b);
    size_t shown = n > 10 ? 10 : n;
    for (size_t i = 0; i < shown; i++) {
        if (i)
            mlia_buf_puts(&b, ", ");
        mlia_buf_puts(&b, v[i]);
    }
    if (n > 10)
        mlia_buf_printf(&b, ", ... (%zu more omitted)", n - 10);
    char *r = mlia_arena_strndup(arena, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return r;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* ------------------------------------------------------------------ */
/* base64                                                              */
/* ------------------------------------------------------------------ */

static const char *const BASE64_ERROR = "Malformed base64 data in VGF neural statistics blob";

static int b64_value(unsigned char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int64_t nx_base64_decoded_len(const char *text, size_t len)
{
    if (len % 4 != 0)
        return -1;
    if (len == 0)
        return 0;
    size_t pad = 0;
    if (text[len - 1] == '=')
        pad = text[len - 2] == '=' ? 2 : 1;
    /* every character before the padding must be alphabet */
    for (size_t i = 0; i < len - pad; i++)
        if (b64_value((unsigned char)text[i]) < 0)
            return -1;
    /* "x===" style: padding of 3 would have been caught above since the
     * character before "==" must be alphabet, but a lone '=' in position 1
     * of the final quartet is not reachable either: pad <= 2. */
    return (int64_t)(len / 4 * 3 - pad);
}

int nx_base64_decode(const char *text, size_t len, mlia_arena *arena, uint8_t **out,
                     size_t *out_len, mlia_error *err)
{
    int64_t n = nx_base64_decoded_len(text, len);
    if (n < 0)
        return mlia_error_setf(err, NULL, "%s", BASE64_ERROR);
    uint8_t *o = mlia_arena_alloc(arena, (size_t)n);
    size_t w = 0;
    for (size_t i = 0; i < len; i += 4) {
        uint32_t acc = 0;
        int have = 0;
        for (int j = 0; j < 4; j++) {
            int v = b64_value((unsigned char)text[i + (size_t)j]);
            if (v < 0)
                break;
            acc |= (uint32_t)v << (18 - 6 * j);
            have++;
        }
        /* have is 4, 3 (xxx=) or 2 (xx==); unused low bits are ignored */
        o[w++] = (uint8_t)(acc >> 16);
        if (have >= 3)
            o[w++] = (uint8_t)(acc >> 8);
        if (have == 4)
            o[w++] = (uint8_t)acc;
    }
    *out = o;
    *out_len = w;
    return 0;
}

/* ------------------------------------------------------------------ */
/* framing                                                             */
/* ------------------------------------------------------------------ */

const char *nx_blob_key(nx_blob_kind kind)
{
    switch (kind) {
    case NX_BLOB_DEBUG_DATABASE:
        return "debug_database";
    case NX_BLOB_STATISTICS_INFO:
        return "statistics_info";
    default:
        return "statistics_memory";
    }
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

int nx_unframe(const uint8_t *data, size_t len, nx_blob_kind kind, const uint8_t **payload,
               size_t *payload_len, mlia_error *err)
{
    uint32_t magic = kind == NX_BLOB_DEBUG_DATABASE ? 0x1122FFEEu : 0x2211EEFFu;
    const char *desc = kind == NX_BLOB_DEBUG_DATABASE ? "Debug database" : "Statistics info";
    *payload = data;
    *payload_len = len;
    if (len < 12 || rd32(data) != magic)
        return 0;
    uint32_t version = rd32(data + 4), size = rd32(data + 8);
    if (version != 1)
        return mlia_error_setf(err, NULL, "%s uses unsupported format version %" PRIu32 ".", desc,
                               version);
    if ((uint64_t)size != (uint64_t)len - 12)
        return mlia_error_setf(err, NULL, "%s declares a %" PRIu32 "-byte payload but contains %zu bytes.",
                               desc, size, len - 12);
    *payload = data + 12;
    *payload_len = len - 12;
    return 0;
}

/* ------------------------------------------------------------------ */
/* statistics info                                                     */
/* ------------------------------------------------------------------ */

/* Strict UTF-8 check; on failure *detail describes it like Python's codec. */
static bool utf8_valid(const uint8_t *s, size_t n, char *detail, size_t detail_size)
{
    size_t pos;
    const char *why;
    if (mlia_utf8_check(s, n, &pos, &why))
        return true;
    snprintf(detail, detail_size, "'utf-8' codec can't decode byte 0x%02x in position %zu: %s", s[pos], pos, why);
    return false;
}

static bool info_separator(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == ',' ||
           c == ';';
}

/* The next token of p[*i, n) between separators: true with *start and *i
 * at its ends, false when only separators remain. */
static bool next_info_token(const uint8_t *p, size_t n, size_t *i, size_t *start)
{
    while (*i < n && info_separator(p[*i]))
        (*i)++;
    *start = *i;
    while (*i < n && !info_separator(p[*i]))
        (*i)++;
    return *i > *start;
}

static int hexval(uint8_t c)
{
    unsigned v;
    return mlia_hex_digits(&c, 1, &v) ? (int)v : -1;
}

static bool info_token_valid(const uint8_t *t, size_t n)
{
    if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        for (size_t i = 2; i < n; i++)
            if (hexval(t[i]) < 0)
                return false;
        return true;
    }
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (t[i] < '0' || t[i] > '9')
            return false;
    return true;
}

/* Value of a valid token; false when above UINT32_MAX (no overflow possible:
 * the accumulator stops growing once it passes the limit). */
static bool info_token_value(const uint8_t *t, size_t n, uint32_t *out)
{
    uint64_t v = 0;
    if (n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X')) {
        for (size_t i = 2; i < n; i++) {
            v = v * 16 + (uint64_t)hexval(t[i]);
            if (v > UINT32_MAX)
                return false;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            v = v * 10 + (uint64_t)(t[i] - '0');
            if (v > UINT32_MAX)
                return false;
        }
    }
    *out = (uint32_t)v;
    return true;
}

int nx_parse_statistics_info(const uint8_t *data, size_t len, bool is_text, mlia_arena *arena,
                             uint32_t **ids, uint32_t *n_ids, mlia_error *err)
{
    const uint8_t *p;
    size_t n;
    if (nx_unframe(data, len, NX_BLOB_STATISTICS_INFO, &p, &n, err) < 0)
        return -1;
    uint32_t *out;
    size_t count = 0;
    if (!is_text) {
        if (n % 4 != 0)
            return mlia_error_setf(err, NULL, "Statistics file size is not 4-byte aligned.");
        count = n / 4;
        out = mlia_arena_array(arena, count, sizeof *out);
        for (size_t i = 0; i < count; i++)
            out[i] = rd32(p + 4 * i);
    } else {
        while (n > 0 && p[n - 1] == 0)
            n--;
        char detail[160];
        if (!utf8_valid(p, n, detail, sizeof detail))
            return mlia_error_setf(err, NULL, "Cannot parse textual statistics info: %s", detail);
        /* pass 1: count and validate tokens (rule 5 before rule 6) */
        size_t tokens = 0, s;
        for (size_t i = 0; next_info_token(p, n, &i, &s);) {
            if (!info_token_valid(p + s, i - s))
                return mlia_error_setf(
                    err, NULL, "Textual statistics info must contain only unsigned integer stripe IDs.");
            tokens++;
        }
        if (tokens == 0)
            return mlia_error_setf(err, NULL, "Textual statistics info is empty.");
        out = mlia_arena_array(arena, tokens, sizeof *out);
        for (size_t i = 0; next_info_token(p, n, &i, &s);) {
            if (!info_token_value(p + s, i - s, &out[count]))
                return mlia_error_setf(
                    err, NULL, "Textual statistics info contains a stripe ID outside uint32 range.");
            count++;
        }
    }
    if (count > UINT32_MAX)
        return mlia_error_setf(err, NULL, "Statistics info holds too many stripe IDs.");
    if (count > 1) {
        uint32_t *sorted = malloc(count * sizeof *sorted);
        if (!sorted) /* the one out-of-memory path: never a decode error of the blob */
            mlia_oom(count * sizeof *sorted);
        memcpy(sorted, out, count * sizeof *sorted);
        qsort(sorted, count, sizeof *sorted, cmp_u32);
        bool dup = false;
        for (size_t i = 1; i < count && !dup; i++)
            dup = sorted[i] == sorted[i - 1];
        free(sorted);
        if (dup)
            return mlia_error_setf(err, NULL, "Statistics info contains duplicate stripe IDs.");
    }
    *ids = out;
    *n_ids = (uint32_t)count;
    return 0;
}

/* ------------------------------------------------------------------ */
/* statistics memory                                                   */
/* ------------------------------------------------------------------ */

static const char *const MODE0_LABELS[16] = {
    "section_0",  "section_1",  "section_2",  "section_3", "section_4",  "section_5",
    "section_6",  "section_7",  "section_8",  "section_9", "section_10", "section_11",
    "section_12", "section_13", "section_14", "section_15",
};

/* Mode 1 labels by word 1..29, then G2's words 31 and 32. */
static const char *const MODE1_LABELS[31] = {
    "nx_active",        "dl_active",        "ir_active",        "wf_active",
    "ce_active",        "ve_active",        "tu_active",        "ow_active",
    "task_init_stall",  "rd_ll_stall",      "rd_hl_stall",      "dma_wr_stall",
    "ir_idx_stall",     "ce_src0_stall",    "ce_src1_stall",    "ve_src0_ir_stall",
    "ve_src0_ce_stall", "ve_src0_ve_stall", "ve_src0_tu_stall", "ve_src1_ir_stall",
    "ve_src1_ve_stall", "ve_src1_tu_stall", "tu_src0_ir_stall", "tu_src0_ve_stall",
    "tu_src0_tu_stall", "ow_src0_ir_stall", "ow_src0_ve_stall", "ow_src0_tu_stall",
    "ow_idx_stall",     "me_src0_stall",    "me_src1_stall",
};

const char *nx_device_name(nx_device d)
{
    return d == NX_DEVICE_G1 ? "Mali-G1" : "Mali-G2";
}

uint32_t nx_counter_labels(nx_device device, int mode, const char *const **labels)
{
    if (mode == 0) {
        *labels = MODE0_LABELS;
        return 16;
    }
    *labels = MODE1_LABELS;
    return device == NX_DEVICE_G1 ? 29 : 31;
}

/* Word index of label k (mode 1). */
static uint32_t mode1_word(uint32_t k)
{
    return k < 29 ? k + 1 : k + 2; /* 29 -> 31, 30 -> 32 */
}

static void layout_of(nx_device device, int mode, uint32_t *W, uint32_t *T)
{
    if (mode == 0) {
        *W = 16;
        *T = device == NX_DEVICE_G1 ? 512 : 1024;
    } else {
        *W = device == NX_DEVICE_G1 ? 32 : 64;
        *T = 256;
    }
}

int nx_decode_memory(const uint8_t *data, size_t len, nx_device device, int mode,
                     const uint32_t *ids, uint32_t n_ids, mlia_arena *arena, nx_row **rows,
                     uint32_t *n_rows, mlia_error *err)
{
    if (len % 4 != 0)
        return mlia_error_setf(err, NULL, "Statistics file size is not 4-byte aligned.");
    size_t words = len / 4;
    if (words == 0)
        return mlia_error_setf(err, NULL, "Statistics file is empty.");
    if (words % 16 != 0)
        return mlia_error_setf(err, NULL, "Mode%d statistics size is not aligned to 64 bytes.", mode);
    uint32_t W, T;
    layout_of(device, mode, &W, &T);
    if (words % W != 0)
        return mlia_error_setf(err, NULL,
                               "Mode%d statistics size is not a multiple of the expected task size.", mode);
    const char *const *labels;
    uint32_t nl = nx_counter_labels(device, mode, &labels);
    size_t tasks = words / W;
    size_t blocks = (tasks + T - 1) / T;
    /* block totals: blocks * nl counters; bounded by the payload (a block
     * spans at least one task of W >= 16 words). */
    uint64_t *sums = mlia_arena_array(arena, blocks * nl, sizeof *sums);
    bool *nonempty = mlia_arena_array(arena, blocks, sizeof *nonempty);
    bool overflow = false;
    for (size_t t = 0; t < tasks; t++) {
        const uint8_t *tw = data + t * W * 4;
        bool nz = false;
        for (uint32_t k = 0; k < W * 4 && !nz; k++)
            nz = tw[k] != 0;
        if (!nz)
            continue;
        size_t b = t / T;
        nonempty[b] = true;
        uint64_t *s = sums + b * nl;
        for (uint32_t k = 0; k < nl; k++) {
            uint32_t word = mode == 0 ? k : mode1_word(k);
            overflow |= __builtin_add_overflow(s[k], (uint64_t)rd32(tw + 4 * word), &s[k]);
        }
    }
    if (overflow)
        return mlia_error_setf(err, NULL, "NX cycle counter overflow.");
    /* §5.8 rule 3: non-empty blocks absent from statistics info */
    bool *in_info = mlia_arena_array(arena, blocks, sizeof *in_info);
    size_t n_out = 0;
    for (uint32_t i = 0; i < n_ids; i++) {
        if (ids[i] < blocks)
            in_info[ids[i]] = true;
        else
            n_out++;
    }
    size_t n_missing = 0;
    for (size_t b = 0; b < blocks; b++)
        n_missing += nonempty[b] && !in_info[b];
    if (n_missing) {
        uint64_t *list = mlia_arena_array(arena, n_missing, sizeof *list);
        size_t k = 0;
        for (size_t b = 0; b < blocks; b++)
            if (nonempty[b] && !in_info[b])
                list[k++] = b;
        return mlia_error_setf(err, NULL, "Statistics contains nonzero rows absent from statistics info: %s.",
                               nx_format_u64_list(list, n_missing, arena));
    }
    if (n_out) {
        uint64_t *list = mlia_arena_array(arena, n_out, sizeof *list);
        size_t k = 0;
        for (uint32_t i = 0; i < n_ids; i++)
            if (ids[i] >= blocks)
                list[k++] = ids[i];
        qsort(list, n_out, sizeof *list, cmp_u64);
        return mlia_error_setf(err, NULL,
                               "Statistics info contains stripe IDs outside the statistics block range: %s.",
                               nx_format_u64_list(list, n_out, arena));
    }
    nx_row *out = mlia_arena_array(arena, n_ids, sizeof *out);
    for (uint32_t i = 0; i < n_ids; i++) {
        nx_row *r = &out[i];
        uint32_t b = ids[i];
        r->stripe = b;
        if (!nonempty[b])
            continue; /* zero row: cycles 0, no counters */
        const uint64_t *s = sums + (size_t)b * nl;
        uint64_t all = 0;
        for (uint32_t k = 0; k < nl; k++) {
            r->counters[k] = s[k];
            overflow |= __builtin_add_overflow(all, s[k], &all);
        }
        r->has_counters = true;
        if (mode == 0) {
            r->op_cycles = r->total_cycles = all;
        } else {
            r->op_cycles = s[0];
            r->total_cycles = s[0] ? s[0] : all;
        }
    }
    if (overflow)
        return mlia_error_setf(err, NULL, "NX cycle counter overflow.");
    *rows = out;
    *n_rows = n_ids;
    return 0;
}

/* ------------------------------------------------------------------ */
/* wrapper                                                             */
/* ------------------------------------------------------------------ */

typedef struct wctx {
    mlia_arena *arena;
    mlia_error *err;
    const uint8_t *bytes;
    size_t len;
} wctx;

static const char *json_text(const mlia_json *v, mlia_arena *a)
{
    if (!v)
        return "None";
    if (v->type == MLIA_JSON_STRING)
        return v->u.string.s;
    return mlia_json_dump(v, a, NULL);
}

static const char *type_word(mlia_json_type t)
{
    switch (t) {
    case MLIA_JSON_BOOL:
        return "a boolean";
    case MLIA_JSON_NUMBER:
        return "an integer";
    case MLIA_JSON_STRING:
        return "a string";
    case MLIA_JSON_OBJECT:
        return "an object";
    default:
        return "an array";
    }
}

static bool has_type(const mlia_json *v, mlia_json_type t)
{
    if (!v || v->type != t)
        return false;
    if (t == MLIA_JSON_NUMBER)
        return v->num_is_integer;
    return true;
}

/* Check member `key` of obj (when present) has type t; path prefix may be "". */
static int check_type(wctx *c, const mlia_json *obj, const char *prefix, const char *key,
                      mlia_json_type t)
{
    const mlia_json *v = mlia_json_get(obj, key);
    if (!v || has_type(v, t))
        return 0;
    return mlia_error_setf(c->err, NULL, "VGF neural statistics metadata field %s%s must be %s.", prefix,
                           key, type_word(t));
}

static bool get_bool(const mlia_json *obj, const char *key, bool dflt)
{
    const mlia_json *v = mlia_json_get(obj, key);
    return v && v->type == MLIA_JSON_BOOL ? v->u.boolean : dflt;
}

static const char *get_str(const mlia_json *obj, const char *key, const char *dflt)
{
    const char *s = mlia_json_get_str(obj, key);
    return s ? s : dflt;
}

static bool get_int(const mlia_json *obj, const char *key, int64_t *out, const char **text,
                    mlia_arena *a)
{
    const mlia_json *v = mlia_json_get(obj, key);
    if (text)
        *text = json_text(v, a);
    if (v && v->type == MLIA_JSON_NUMBER && v->num_is_integer && v->num_int_fits) {
        *out = v->u.number.i;
        return true;
    }
    *out = 0;
    return false;
}

static const char *const V2_KEYS[3] = {"statistics_mode", "target", "counter_layout"};
static const char *const V2_MEMBERS[3][9] = {
    {"executorch_index", "vulkan_value", "vulkan_name", NULL},
    {"available", "device_name", "vendor_id", "device_id", "driver_version", NULL},
    {"available", "schema_id", "schema_version", "endianness", "word_type", "words_per_task",
     "leading_block_count", "reason", NULL},
};

static int check_v2_objects(wctx *c, const mlia_json *root)
{
    for (int k = 0; k < 3; k++) {
        const mlia_json *o = mlia_json_get(root, V2_KEYS[k]);
        if (!o || o->type != MLIA_JSON_OBJECT)
            return mlia_error_setf(c->err, NULL, "VGF neural statistics metadata is missing %s", V2_KEYS[k]);
        mlia_buf b;
        mlia_buf_init(&b);
        for (int m = 0; V2_MEMBERS[k][m]; m++) {
            if (!mlia_json_get(o, V2_MEMBERS[k][m])) {
                if (b.len)
                    mlia_buf_puts(&b, ", ");
                mlia_buf_puts(&b, V2_MEMBERS[k][m]);
            }
        }
        if (b.len) {
            mlia_error_setf(c->err, NULL, "VGF neural statistics metadata %s is missing: %s", V2_KEYS[k],
                            b.data);
            mlia_buf_free(&b);
            return -1;
        }
        mlia_buf_free(&b);
    }
    return 0;
}

/* Rule 2.6.4 for the v2 objects: members the decoder uses. */
static int check_v2_types(wctx *c, const mlia_json *root)
{
    const mlia_json *m = mlia_json_get(root, "statistics_mode");
    const mlia_json *t = mlia_json_get(root, "target");
    const mlia_json *l = mlia_json_get(root, "counter_layout");
    if (check_type(c, m, "statistics_mode.", "executorch_index", MLIA_JSON_NUMBER) ||
        check_type(c, m, "statistics_mode.", "vulkan_value", MLIA_JSON_NUMBER) ||
        check_type(c, m, "statistics_mode.", "vulkan_name", MLIA_JSON_STRING) ||
        check_type(c, t, "target.", "available", MLIA_JSON_BOOL))
        return -1;
    if (get_bool(t, "available", false) &&
        (check_type(c, t, "target.", "device_name", MLIA_JSON_STRING) ||
         check_type(c, t, "target.", "vendor_id", MLIA_JSON_NUMBER)))
        return -1;
    if (check_type(c, l, "counter_layout.", "available", MLIA_JSON_BOOL))
        return -1;
    /* schema_version and leading_block_count have their own §6.2 messages */
    if (get_bool(l, "available", false) &&
        (check_type(c, l, "counter_layout.", "schema_id", MLIA_JSON_STRING) ||
         check_type(c, l, "counter_layout.", "endianness", MLIA_JSON_STRING) ||
         check_type(c, l, "counter_layout.", "word_type", MLIA_JSON_STRING) ||
         check_type(c, l, "counter_layout.", "words_per_task", MLIA_JSON_NUMBER)))
        return -1;
    return 0;
}

static void fill_v2(wctx *c, const mlia_json *root, nx_wrapper *w)
{
    mlia_arena *a = c->arena;
    const mlia_json *m = mlia_json_get(root, "statistics_mode");
    const mlia_json *t = mlia_json_get(root, "target");
    const mlia_json *l = mlia_json_get(root, "counter_layout");
    w->mode.executorch_index_fits =
        get_int(m, "executorch_index", &w->mode.executorch_index, &w->mode.executorch_index_text, a);
    w->mode.vulkan_value_fits =
        get_int(m, "vulkan_value", &w->mode.vulkan_value, &w->mode.vulkan_value_text, a);
    w->mode.vulkan_name = json_text(mlia_json_get(m, "vulkan_name"), a);
    w->target.available = get_bool(t, "available", false);
    w->target.device_name = get_str(t, "device_name", "");
    w->target.vendor_id_fits = get_int(t, "vendor_id", &w->target.vendor_id, &w->target.vendor_id_text, a);
    w->layout.available = get_bool(l, "available", false);
    w->layout.schema_id = get_str(l, "schema_id", "");
    const mlia_json *sv = mlia_json_get(l, "schema_version");
    w->layout.schema_version_text = json_text(sv, a);
    if (sv && sv->type == MLIA_JSON_STRING) /* show strings quoted like Python repr would not; keep JSON */
        w->layout.schema_version_text = mlia_json_dump(sv, a, NULL);
    w->layout.schema_version_is_one = sv && has_type(sv, MLIA_JSON_NUMBER) && sv->num_int_fits &&
                                      sv->u.number.i == 1;
    w->layout.endianness = get_str(l, "endianness", "");
    w->layout.word_type = get_str(l, "word_type", "");
    w->layout.words_per_task_fits =
        get_int(l, "words_per_task", &w->layout.words_per_task, &w->layout.words_per_task_text, a);
    const mlia_json *lb = mlia_json_get(l, "leading_block_count");
    w->layout.leading_block_count_text = lb && lb->type == MLIA_JSON_STRING ? mlia_json_dump(lb, a, NULL)
                                                                            : json_text(lb, a);
    w->layout.leading_block_count_ok = lb && has_type(lb, MLIA_JSON_NUMBER) && lb->num_int_fits &&
                                       lb->u.number.i >= 0;
    w->layout.leading_block_count = w->layout.leading_block_count_ok ? lb->u.number.i : 0;
    w->layout.reason = get_str(l, "reason", "");
}

static const mlia_json *blob_obj(const mlia_json *seg, nx_blob_kind k)
{
    const mlia_json *b = mlia_json_get(seg, nx_blob_key(k));
    return b && b->type != MLIA_JSON_NULL ? b : NULL;
}

static int check_segment_types(wctx *c, const mlia_json *seg, uint32_t i)
{
    char prefix[96];
    snprintf(prefix, sizeof prefix, "segments[%" PRIu32 "].", i);
    if (!seg || seg->type != MLIA_JSON_OBJECT)
        return mlia_error_setf(c->err, NULL, "VGF neural statistics metadata field segments[%" PRIu32
                               "] must be an object.", i);
    if (check_type(c, seg, prefix, "segment_id", MLIA_JSON_NUMBER) ||
        check_type(c, seg, prefix, "is_data_graph_pipeline", MLIA_JSON_BOOL))
        return -1;
    const mlia_json *id = mlia_json_get(seg, "segment_id");
    if (id && (id->u.number.text[0] == '-' && !(id->num_int_fits && id->u.number.i == 0)))
        return mlia_error_setf(c->err, NULL,
                               "VGF neural statistics metadata field %ssegment_id must be a non-negative integer.",
                               prefix);
    if (id && !id->num_int_fits)
        return mlia_error_setf(c->err, NULL,
                               "VGF neural statistics metadata field %ssegment_id is too large.", prefix);
    for (int k = 0; k < 3; k++) {
        const mlia_json *b = blob_obj(seg, (nx_blob_kind)k);
        if (!b)
            continue;
        char bp[160];
        snprintf(bp, sizeof bp, "%s%s.", prefix, nx_blob_key((nx_blob_kind)k));
        if (b->type != MLIA_JSON_OBJECT)
            return mlia_error_setf(c->err, NULL, "VGF neural statistics metadata field %s%s must be an object.",
                                   prefix, nx_blob_key((nx_blob_kind)k));
        if (check_type(c, b, bp, "available", MLIA_JSON_BOOL) || check_type(c, b, bp, "reason", MLIA_JSON_STRING))
            return -1;
        if (get_bool(b, "available", false) &&
            (check_type(c, b, bp, "is_text", MLIA_JSON_BOOL) || check_type(c, b, bp, "encoding", MLIA_JSON_STRING)))
            return -1;
    }
    return 0;
}

/* Base64 text of a JSON string: borrowed from the source bytes when the
 * string has no escapes there, else the arena's decoded copy. */
static void string_source(wctx *c, const mlia_json *v, const char **text, size_t *len)
{
    size_t o = v->offset, n = v->u.string.len;
    if (o < c->len && c->bytes[o] == '"' && n < c->len - o - 1 && c->bytes[o + 1 + n] == '"' &&
        memcmp(c->bytes + o + 1, v->u.string.s, n) == 0)
        *text = (const char *)c->bytes + o + 1;
    else
        *text = v->u.string.s;
    *len = n;
}

static int fill_blob(wctx *c, const mlia_json *seg, nx_blob_kind k, nx_blob *out)
{
    const mlia_json *b = blob_obj(seg, k);
    memset(out, 0, sizeof *out);
    out->reason = "";
    if (!b)
        return 0;
    out->available = get_bool(b, "available", false);
    out->reason = get_str(b, "reason", "");
    out->is_text = get_bool(b, "is_text", false);
    const mlia_json *sz = mlia_json_get(b, "size");
    if (sz && has_type(sz, MLIA_JSON_NUMBER)) {
        out->size_is_integer = true;
        out->size_text = sz->u.number.text;
    }
    if (!out->available)
        return 0;
    const mlia_json *enc = mlia_json_get(b, "encoding");
    const char *es = enc && enc->type == MLIA_JSON_STRING ? enc->u.string.s : NULL;
    if (!es || strcmp(es, "base64") != 0)
        return mlia_error_setf(c->err, NULL, "Unsupported VGF neural statistics blob encoding: %s",
                               json_text(enc, c->arena));
    const mlia_json *data = mlia_json_get(b, "data");
    if (!data)
        return 0;
    if (data->type != MLIA_JSON_STRING)
        return mlia_error_setf(c->err, NULL, "%s", BASE64_ERROR);
    string_source(c, data, &out->b64, &out->b64_len);
    int64_t n = nx_base64_decoded_len(out->b64, out->b64_len);
    if (n < 0)
        return mlia_error_setf(c->err, NULL, "%s", BASE64_ERROR);
    out->decoded_len = (size_t)n;
    return 0;
}

static bool contains_schema_text(const uint8_t *p, size_t n)
{
    size_t k = strlen(NX_SCHEMA);
    for (size_t i = 0; i + k <= n; i++)
        if (p[i] == 'e' && memcmp(p + i, NX_SCHEMA, k) == 0)
            return true;
    return false;
}

int nx_wrapper_parse(const uint8_t *bytes, size_t len, bool scanner, mlia_arena *arena,
                     nx_wrapper **out, int64_t *err_segment, mlia_error *err)
{
    wctx c = {arena, err, bytes, len};
    *err_segment = -1;
    *out = NULL;
    mlia_json *root = NULL;
    mlia_error jerr;
    mlia_error_clear(&jerr);
    mlia_json_opts opts = {.allow_nonfinite = false, .max_depth = 0, .refuse_nul = true};
    if (mlia_json_parse((const char *)bytes, len, &opts, arena, &root, NULL, &jerr) < 0) {
        if (scanner && !contains_schema_text(bytes, len))
            return NX_NOT_A_RECORD;
        return mlia_error_setf(err, NULL, "Malformed VGF neural statistics delegate metadata");
    }
    const mlia_json *schema = mlia_json_get(root, "schema");
    if (!schema || schema->type != MLIA_JSON_STRING || strcmp(schema->u.string.s, NX_SCHEMA) != 0 ||
        schema->u.string.len != strlen(NX_SCHEMA)) {
        if (scanner)
            return NX_NOT_A_RECORD;
        return mlia_error_setf(err, NULL, "Not VGF neural statistics metadata: %s", json_text(schema, arena));
    }
    const mlia_json *sv = mlia_json_get(root, "schema_version");
    if (!sv || !has_type(sv, MLIA_JSON_NUMBER) || !sv->num_int_fits ||
        (sv->u.number.i != 1 && sv->u.number.i != 2))
        return mlia_error_setf(err, NULL, "Unsupported VGF neural statistics metadata schema version: %s",
                               json_text(sv, arena));
    nx_wrapper *w = mlia_arena_alloc(arena, sizeof *w);
    w->schema_version = (int)sv->u.number.i;
    if (w->schema_version == 2 && check_v2_objects(&c, root) < 0)
        return -1;
    /* rule 4: types */
    if (check_type(&c, root, "", "available", MLIA_JSON_BOOL) ||
        check_type(&c, root, "", "reason", MLIA_JSON_STRING))
        return -1;
    if (w->schema_version == 2 && check_v2_types(&c, root) < 0)
        return -1;
    if (check_type(&c, root, "", "segments", MLIA_JSON_ARRAY))
        return -1;
    const mlia_json *segs = mlia_json_get(root, "segments");
    size_t ns = segs ? segs->u.array.n : 0;
    if (ns > UINT32_MAX)
        return mlia_error_setf(err, NULL, "VGF neural statistics record lists too many segments.");
    for (size_t i = 0; i < ns; i++) {
        if (check_segment_types(&c, segs->u.array.items[i], (uint32_t)i) < 0) {
            int64_t id;
            bool ok = get_int(segs->u.array.items[i], "segment_id", &id, NULL, arena) && id >= 0;
            *err_segment = ok ? id : (int64_t)i;
            return -1;
        }
    }
    /* top-level availability: `available`, else `data_available`, else true */
    const mlia_json *av = mlia_json_get(root, "available");
    if (av)
        w->available = av->u.boolean;
    else
        w->available = get_bool(root, "data_available", true);
    w->reason = get_str(root, "reason", "");
    if (w->schema_version == 2)
        fill_v2(&c, root, w);
    w->n_segments = (uint32_t)ns;
    w->segments = mlia_arena_array(arena, ns, sizeof *w->segments);
    for (size_t i = 0; i < ns; i++) {
        const mlia_json *s = segs->u.array.items[i];
        nx_wrapper_segment *ws = &w->segments[i];
        ws->position = (uint32_t)i;
        int64_t id;
        ws->segment_id = get_int(s, "segment_id", &id, NULL, arena) ? (uint64_t)id : i;
        ws->is_graph = get_bool(s, "is_data_graph_pipeline", true);
    }
    /* rule 5: duplicate segment ids */
    for (size_t i = 1; i < ns; i++)
        for (size_t j = 0; j < i; j++)
            if (w->segments[i].segment_id == w->segments[j].segment_id) {
                *err_segment = (int64_t)w->segments[i].segment_id;
                return mlia_error_setf(err, NULL,
                                       "VGF neural statistics record lists segment %" PRIu64 " more than once.",
                                       w->segments[i].segment_id);
            }
    /* rule 6: blobs */
    for (size_t i = 0; i < ns; i++) {
        for (int k = 0; k < 3; k++) {
            if (fill_blob(&c, segs->u.array.items[i], (nx_blob_kind)k, &w->segments[i].blobs[k]) < 0) {
                *err_segment = (int64_t)w->segments[i].segment_id;
                return -1;
            }
        }
    }
    *out = w;
    return 0;
}

void nx_blob_decode(const nx_blob *blob, mlia_arena *arena, const uint8_t **data, size_t *len)
{
    uint8_t *o = NULL;
    size_t n = 0;
    if (blob->available && blob->b64 && blob->b64_len) {
        mlia_error e;
        mlia_error_clear(&e);
        if (nx_base64_decode(blob->b64, blob->b64_len, arena, &o, &n, &e) < 0)
            o = NULL, n = 0; /* unreachable: validated by nx_wrapper_parse */
    }
    *data = o ? o : (const uint8_t *)"";
    *len = n;
}

bool nx_blob_size_mismatch(const nx_blob *blob)
{
    if (!blob->available || !blob->size_is_integer)
        return false;
    const char *t = blob->size_text;
    if (t[0] == '-')
        return !(t[1] == '0' && t[2] == 0 && blob->decoded_len == 0);
    char buf[32];
    snprintf(buf, sizeof buf, "%zu", blob->decoded_len);
    return strcmp(buf, t) != 0;
}

/* ------------------------------------------------------------------ */
/* mode and device                                                     */
/* ------------------------------------------------------------------ */

static const char *const MODE_NAMES[2] = {
    "VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS0_ARM",
    "VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM",
};

static int derive_device(const nx_wrapper *w, nx_device *dev, mlia_error *err)
{
    if (!w->target.vendor_id_fits || w->target.vendor_id != 0x13B5)
        return mlia_error_setf(err, NULL,
                               "Cannot derive profiling generation from target: vendor_id must be Arm's 0x13B5, got %s.",
                               w->target.vendor_id_text);
    const char *n = w->target.device_name;
    for (int g = 1; g <= 2; g++) {
        char prefix[8] = "Mali-G1";
        prefix[6] = (char)('0' + g);
        if (strncmp(n, prefix, 7) == 0 && (n[7] == 0 || n[7] == '-' || n[7] == ' ')) {
            *dev = g == 1 ? NX_DEVICE_G1 : NX_DEVICE_G2;
            return 0;
        }
    }
    return mlia_error_setf(err, NULL,
                           "Cannot derive profiling generation from target.device_name '%s'; expected an Arm "
                           "device name beginning with Mali-G1 or Mali-G2.",
                           n);
}

int nx_resolve_mode(const nx_wrapper *w, nx_mode_info *out, mlia_error *err)
{
    memset(out, 0, sizeof *out);
    if (w->schema_version == 1) {
        out->mode = 1;
        out->device = NX_DEVICE_G2;
        out->mode_assumed = out->device_assumed = true;
        return 0;
    }
    int64_t idx = w->mode.executorch_index;
    bool ok = w->mode.executorch_index_fits && (idx == 0 || idx == 1) && w->mode.vulkan_value_fits &&
              w->mode.vulkan_value == idx + 1 && strcmp(w->mode.vulkan_name, MODE_NAMES[idx ? 1 : 0]) == 0;
    if (!ok)
        return mlia_error_setf(err, NULL,
                               "VGF neural statistics statistics_mode is inconsistent: executorch_index %s, "
                               "vulkan_value %s, vulkan_name %s.",
                               w->mode.executorch_index_text, w->mode.vulkan_value_text, w->mode.vulkan_name);
    out->mode = (int)idx;
    bool have_device = false;
    if (w->target.available) {
        if (derive_device(w, &out->device, err) < 0)
            return -1;
        have_device = true;
        out->device_name = w->target.device_name;
    }
    if (w->layout.available) {
        const char *sid = w->layout.schema_id;
        if (!w->layout.schema_version_is_one)
            return mlia_error_setf(err, NULL, "Unsupported VGF neural statistics counter layout schema_version: %s.",
                                   w->layout.schema_version_text);
        if (strcmp(w->layout.endianness, "little") != 0 || strcmp(w->layout.word_type, "uint32") != 0)
            return mlia_error_setf(err, NULL,
                                   "Unsupported VGF neural statistics counter layout: endianness %s, word_type %s; "
                                   "expected little and uint32.",
                                   w->layout.endianness, w->layout.word_type);
        static const char pfx[] = "arm.mali-g";
        static const char mid[] = ".neural-statistics.mode";
        size_t pl = sizeof pfx - 1, ml = sizeof mid - 1;
        if (!(strlen(sid) == pl + 1 + ml + 1 && strncmp(sid, pfx, pl) == 0 && (sid[pl] == '1' || sid[pl] == '2') &&
              strncmp(sid + pl + 1, mid, ml) == 0 && (sid[pl + 1 + ml] == '0' || sid[pl + 1 + ml] == '1')))
            return mlia_error_setf(err, NULL, "Unsupported VGF neural statistics counter layout schema_id: %s.", sid);
        nx_device ldev = sid[pl] == '1' ? NX_DEVICE_G1 : NX_DEVICE_G2;
        int lmode = sid[pl + 1 + ml] - '0';
        if (lmode != out->mode)
            return mlia_error_setf(err, NULL, "Counter layout %s contradicts statistics_mode.executorch_index %d.",
                                   sid, out->mode);
        if (have_device && ldev != out->device)
            return mlia_error_setf(err, NULL, "Counter layout %s contradicts target device %s.", sid,
                                   w->target.device_name);
        out->device = ldev;
        have_device = true;
        uint32_t W, T;
        layout_of(ldev, lmode, &W, &T);
        if (!w->layout.words_per_task_fits || w->layout.words_per_task != (int64_t)W) {
            if (ldev == NX_DEVICE_G2 && lmode == 0 && w->layout.words_per_task_fits &&
                w->layout.words_per_task == 64)
                return mlia_error_setf(err, NULL, "Mali-G2 mode-0 statistics with 64 words per task are not supported.");
            return mlia_error_setf(err, NULL, "Counter layout %s declares %s words per task; %s mode %d uses %" PRIu32 ".",
                                   sid, w->layout.words_per_task_text, nx_device_name(ldev), lmode, W);
        }
        if (!w->layout.leading_block_count_ok)
            return mlia_error_setf(err, NULL, "Unsupported VGF neural statistics counter layout leading_block_count: %s.",
                                   w->layout.leading_block_count_text);
        out->has_layout = true;
        out->leading_block_count = w->layout.leading_block_count;
    }
    if (!have_device) {
        out->device = NX_DEVICE_G2;
        out->device_assumed = true;
    }
    return 0;
}
