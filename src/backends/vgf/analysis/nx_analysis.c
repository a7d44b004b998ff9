/*
 * nx_analysis.c - NX cycle analysis (see nx_analysis.h;
 * docs/formats/nx-statistics.md §8-9, which the § below cite).
 *
 * Design.
 * Pass 1 walks the profile events of the analysed executions in (run, event)
 * order, identifies statistics records (§1.3) and validates each wrapper
 * (§2.6). The JSON tree lives in a scratch arena that is reset per record;
 * only the small nx_wrapper survives, with base64 texts borrowed from the
 * ETDump mapping. Pass 1 also fixes the per-segment static blobs (first
 * available copy, later copies must be byte-identical, §9.2) and the call
 * sites, which decide the segment tokens <L> (§8.1).
 * Pass 2 interprets every record: mode/device (§6), then per graph segment
 * its statistics memory (§5) against the segment's statistics info (decoded
 * once). The debug database is parsed once per segment, at its first
 * measurement, after that measurement's memory checks (order of §5.9); the
 * hierarchy (stripes -> NX chains -> cascades, compiler operations) is built
 * then, because it depends only on the static blobs. Rows of the records of
 * one call site within one execution are summed (§9.3); when the run ends
 * the segment is recorded in it only if every record of its call site
 * measured it. Finally entity values are summed per execution and summarised
 * across executions (§9.4), and the model summaries and warnings are built.
 *
 * Token-dependent messages (W5-W9, the §9.2 errors) are formatted once every
 * call site is known; an error met in pass 1 finishes the identification
 * scan first so that its token is right.
 */
#include "backends/vgf/analysis/nx_analysis.h"
#include "analysis/runtime.h"
#include "core/oom.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/str.h"

/* ------------------------------------------------------------------ */
/* summaries                                                           */
/* ------------------------------------------------------------------ */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Same nearest-rank P50 as the runtime timings (runtime_p50_u64). */
nx_stat nx_summarise(const uint64_t *v, uint32_t n)
{
    nx_stat s = {0};
    if (n == 0)
        return s;
    uint64_t *t = malloc((size_t)n * sizeof *t);
    if (!t)
        mlia_oom((size_t)n * sizeof *t);
    memcpy(t, v, (size_t)n * sizeof *t);
    s.available = true;
    s.samples = n;
    runtime_min_max_u64(t, n, &s.min, &s.max);
    s.p50 = runtime_p50_u64(t, n);
    free(t);
    return s;
}

nx_dstat nx_summarise_double(const double *v, uint32_t n)
{
    nx_dstat s = {0};
    if (n == 0)
        return s;
    double *t = malloc((size_t)n * sizeof *t);
    if (!t)
        mlia_oom((size_t)n * sizeof *t);
    memcpy(t, v, (size_t)n * sizeof *t);
    qsort(t, n, sizeof *t, cmp_dbl);
    s.available = true;
    s.samples = n;
    s.p50 = t[(n + 1) / 2 - 1];
    s.min = t[0];
    s.max = t[n - 1];
    free(t);
    return s;
}

/* ------------------------------------------------------------------ */
/* state                                                               */
/* ------------------------------------------------------------------ */

typedef struct site {
    int64_t chain;
    int32_t instr;
    uint32_t cur_run;      /* run of cur_records */
    uint32_t cur_records;  /* records of this site in cur_run */
} site;

typedef struct rec {
    uint32_t run, event, site, k;
    nx_wrapper *w;
} rec;

typedef struct reason_count {
    const char *reason;
    uint32_t n;
} reason_count;

typedef struct local_chain {
    const char *raw;
    uint32_t n_stripes;
    uint32_t *stripes;        /* row indexes */
    uint32_t parent;          /* local cascade */
    nx_strlist tosa;
} local_chain;

typedef struct local_cascade {
    const char *raw;
    uint32_t n_stripes;
    uint32_t *stripes;        /* row indexes */
    uint32_t n_chains;
    uint32_t *chains;
} local_cascade;

typedef struct segstate {
    uint32_t site;
    uint64_t segment_id;
    bool is_graph;
    const char *token;
    /* static blobs: first available copy */
    const nx_blob *static_blob[2];
    const uint8_t *static_data[2];
    size_t static_len[2];
    bool info_decoded;
    uint32_t *ids;
    uint32_t n_rows;
    /* W5 */
    uint32_t avail_records;
    uint32_t n_reasons, cap_reasons;
    reason_count *reasons;
    bool w6, w7;
    /* hierarchy (built at first measurement) */
    bool built;
    uint32_t *row_chain, *row_cascade;
    uint32_t n_chains, cap_chains;
    local_chain *chains;
    uint32_t n_cascades, cap_cascades;
    local_cascade *cascades;
    uint32_t n_ops, cap_ops;
    nx_compiler_op *ops;      /* segment filled in at assembly */
    /* per-execution values */
    uint32_t cur_run;
    uint32_t cur_meas;
    uint64_t *cur;            /* n_rows * stride */
    bool *cur_hasc;
    uint32_t n_rec, cap_rec;
    uint32_t *rec_runs;
    uint64_t *vals;           /* n_rec * n_rows * stride */
    bool *hasc;               /* n_rec * n_rows */
    uint32_t global_index;
} segstate;

typedef struct w8 {
    uint32_t seg;
    nx_blob_kind kind;
    const char *size_text;
    size_t decoded;
} w8;

typedef struct w9 {
    uint32_t seg;
    bool is_tosa;
    const char *id;
} w9;

typedef struct analysis {
    const nx_inputs *in;
    mlia_arena *arena;
    mlia_arena scratch;
    mlia_error *err;
    nx_result *res;
    uint32_t n_sites, cap_sites;
    site *sites;
    uint32_t n_recs, cap_recs;
    rec *recs;
    uint32_t n_segs, cap_segs;
    segstate *segs;
    /* W4 */
    uint32_t n_w4;
    reason_count *w4;
    uint32_t cap_w4;
    uint32_t n_w8, cap_w8;
    w8 *w8s;
    uint32_t n_w9, cap_w9;
    w9 *w9s;
    bool mode_resolved;
    nx_mode_info mode;
    uint32_t stride;          /* 2 + n_counters */
    /* deferred pass-1 error */
    bool pending_error;
    /* a label names a SPIR-V id that the supplied VGF lacks: the companion's mismatch */
    bool vgf_mismatch;
} analysis;

#define GROW(A, ptr, n, cap)                                                                  \
    do {                                                                                      \
        if ((n) == (cap)) {                                                                   \
            uint32_t nc_ = (cap) ? (cap) * 2 : 8;                                             \
            (ptr) = mlia_arena_grow((A)->arena, (ptr), (n), nc_, sizeof *(ptr));             \
            (cap) = nc_;                                                                      \
        }                                                                                     \
    } while (0)

static const char *seg_token(const analysis *A, const segstate *s)
{
    if (A->n_sites <= 1)
        return mlia_arena_printf(A->arena, "%" PRIu64, s->segment_id);
    const site *c = &A->sites[s->site];
    return mlia_arena_printf(A->arena, "%" PRId64 ".%" PRId32 ".%" PRIu64, c->chain, c->instr, s->segment_id);
}

static int ctx_error(analysis *A, const rec *r, const nx_wrapper_segment *ws, const mlia_error *inner)
{
    const site *c = &A->sites[r->site];
    /* a pooled run (several captures) is named in its own capture */
    const char *file = A->in->etdump_path;
    uint32_t run = r->run;
    if (A->in->dump && r->run < A->in->dump->n_runs && A->in->dump->runs[r->run].src) {
        const etdump *origin = etdump_run_origin(A->in->dump, r->run, &run);
        if (origin->file)
            file = origin->file;
    }
    if (ws)
        return mlia_error_setf(A->err, file,
                               "VGF neural statistics (run %" PRIu32 ", plan chain %" PRId64 ", instruction %" PRId32
                               ", segment %" PRIu64 "): %s",
                               run, c->chain, c->instr, ws->segment_id, inner->text);
    return mlia_error_setf(A->err, file,
                           "VGF neural statistics (run %" PRIu32 ", plan chain %" PRId64 ", instruction %" PRId32
                           "): %s",
                           run, c->chain, c->instr, inner->text);
}

static uint32_t find_site(analysis *A, int64_t chain, int32_t instr)
{
    for (uint32_t i = 0; i < A->n_sites; i++)
        if (A->sites[i].chain == chain && A->sites[i].instr == instr)
            return i;
    GROW(A, A->sites, A->n_sites, A->cap_sites);
    site *s = &A->sites[A->n_sites];
    memset(s, 0, sizeof *s);
    s->chain = chain;
    s->instr = instr;
    s->cur_run = UINT32_MAX;
    return A->n_sites++;
}

static segstate *find_seg(analysis *A, uint32_t site_index, uint64_t segment_id, bool *created)
{
    *created = false;
    for (uint32_t i = 0; i < A->n_segs; i++)
        if (A->segs[i].site == site_index && A->segs[i].segment_id == segment_id)
            return &A->segs[i];
    GROW(A, A->segs, A->n_segs, A->cap_segs);
    segstate *s = &A->segs[A->n_segs++];
    memset(s, 0, sizeof *s);
    s->site = site_index;
    s->segment_id = segment_id;
    s->cur_run = UINT32_MAX;
    *created = true;
    return s;
}

static void count_reason(analysis *A, reason_count **list, uint32_t *n, uint32_t *cap, const char *reason)
{
    for (uint32_t i = 0; i < *n; i++)
        if (strcmp((*list)[i].reason, reason) == 0) {
            (*list)[i].n++;
            return;
        }
    GROW(A, *list, *n, *cap);
    (*list)[*n].reason = reason;
    (*list)[*n].n = 1;
    (*n)++;
}

/* ------------------------------------------------------------------ */
/* pass 1                                                              */
/* ------------------------------------------------------------------ */

static const char *keep_str(analysis *A, const char *s)
{
    return s ? mlia_arena_strdup(A->arena, s) : NULL;
}

/* Copy a scratch-arena wrapper into the result arena; base64 texts that
 * point into the ETDump bytes stay borrowed. */
static nx_wrapper *persist(analysis *A, const nx_wrapper *w, const uint8_t *bytes, size_t len)
{
    nx_wrapper *c = mlia_arena_alloc(A->arena, sizeof *c);
    *c = *w;
    c->reason = keep_str(A, w->reason);
    c->mode.executorch_index_text = keep_str(A, w->mode.executorch_index_text);
    c->mode.vulkan_value_text = keep_str(A, w->mode.vulkan_value_text);
    c->mode.vulkan_name = keep_str(A, w->mode.vulkan_name);
    c->target.device_name = keep_str(A, w->target.device_name);
    c->target.vendor_id_text = keep_str(A, w->target.vendor_id_text);
    c->layout.schema_id = keep_str(A, w->layout.schema_id);
    c->layout.schema_version_text = keep_str(A, w->layout.schema_version_text);
    c->layout.endianness = keep_str(A, w->layout.endianness);
    c->layout.word_type = keep_str(A, w->layout.word_type);
    c->layout.words_per_task_text = keep_str(A, w->layout.words_per_task_text);
    c->layout.leading_block_count_text = keep_str(A, w->layout.leading_block_count_text);
    c->layout.reason = keep_str(A, w->layout.reason);
    c->segments = mlia_arena_array(A->arena, w->n_segments, sizeof *c->segments);
    for (uint32_t i = 0; i < w->n_segments; i++) {
        c->segments[i] = w->segments[i];
        for (int k = 0; k < 3; k++) {
            nx_blob *b = &c->segments[i].blobs[k];
            b->reason = keep_str(A, b->reason);
            b->size_text = keep_str(A, b->size_text);
            const uint8_t *p = (const uint8_t *)b->b64;
            if (p && !(p >= bytes && p + b->b64_len <= bytes + len))
                b->b64 = mlia_arena_strndup(A->arena, b->b64, b->b64_len);
        }
    }
    return c;
}

static bool in_executions(const nx_inputs *in, uint32_t run)
{
    for (uint32_t i = 0; i < in->n_executions; i++)
        if (in->execution_runs[i] == run)
            return true;
    return false;
}

/* Static blob bookkeeping (§9.2) for one segment of an available record. */
static int take_static(analysis *A, segstate *s, const nx_wrapper_segment *ws, int *bad_kind)
{
    for (int k = 0; k < 2; k++) {
        const nx_blob *b = &ws->blobs[k];
        if (!b->available)
            continue;
        if (!s->static_blob[k]) {
            s->static_blob[k] = b;
            nx_blob_decode(b, A->arena, &s->static_data[k], &s->static_len[k]);
            continue;
        }
        const nx_blob *f = s->static_blob[k];
        if (f->b64_len == b->b64_len && (b->b64_len == 0 || memcmp(f->b64, b->b64, b->b64_len) == 0))
            continue;
        const uint8_t *d;
        size_t n;
        nx_blob_decode(b, &A->scratch, &d, &n);
        if (n != s->static_len[k] || (n && memcmp(d, s->static_data[k], n) != 0)) {
            *bad_kind = k;
            return -1;
        }
    }
    return 0;
}

/* After a pass-1 error: finish identifying records so the call sites (and
 * hence the tokens) are complete. Errors are ignored here. */
static void finish_site_scan(analysis *A, uint32_t from_run, uint32_t from_event)
{
    const etdump *d = A->in->dump;
    for (uint32_t r = from_run; r < d->n_runs; r++) {
        if (!in_executions(A->in, r) || (!d->runs[r].mem_events && !d->runs[r].n_metadata_events))
            continue;
        etdump_cursor cur;
        etdump_event evb;
        etdump_debug_value dv;
        mlia_error e2;
        mlia_error_clear(&e2);
        if (etdump_run_begin(d, r, &cur, &e2) < 0)
            break;
        for (uint32_t e = 0; etdump_run_next(&cur, &evb, &dv, &e2) > 0; e++) {
            const etdump_event *ev = &evb;
            if (r == from_run && e < from_event)
                continue;
            if (ev->kind != ETDUMP_EVENT_PROFILE || !ev->has_metadata || ev->metadata_size == 0)
                continue;
            mlia_arena_free(&A->scratch);
            nx_wrapper *w;
            int64_t es;
            mlia_error_clear(&e2);
            int rc = nx_wrapper_parse(ev->metadata, ev->metadata_size, true, &A->scratch, &w, &es, &e2);
            if (rc != NX_NOT_A_RECORD)
                find_site(A, ev->chain_index, ev->instruction_id);
        }
    }
    mlia_arena_free(&A->scratch);
}

static int pass1(analysis *A)
{
    const etdump *d = A->in->dump;
    for (uint32_t r = 0; r < d->n_runs; r++) {
        /* runs without metadata cannot hold a record (hand-built dumps in
         * tests have no counts: always scanned) */
        if (!in_executions(A->in, r) || (!d->runs[r].mem_events && !d->runs[r].n_metadata_events))
            continue;
        /* decoded one event at a time: only records (and the metadata
         * bytes they borrow from the ETDump) are kept */
        etdump_cursor cur;
        etdump_event evb;
        etdump_debug_value dv;
        if (etdump_run_begin(d, r, &cur, A->err) < 0)
            return -1;
        int more;
        for (uint32_t e = 0; (more = etdump_run_next(&cur, &evb, &dv, A->err)) != 0; e++) {
            if (more < 0)
                return -1;
            const etdump_event *ev = &evb;
            if (ev->kind != ETDUMP_EVENT_PROFILE || !ev->has_metadata || ev->metadata_size == 0 || !ev->metadata)
                continue;
            mlia_arena_free(&A->scratch);
            nx_wrapper *w = NULL;
            int64_t err_seg = -1;
            mlia_error inner;
            mlia_error_clear(&inner);
            int rc = nx_wrapper_parse(ev->metadata, ev->metadata_size, true, &A->scratch, &w, &err_seg, &inner);
            if (rc == NX_NOT_A_RECORD)
                continue;
            uint32_t si = find_site(A, ev->chain_index, ev->instruction_id);
            GROW(A, A->recs, A->n_recs, A->cap_recs);
            rec *rc_ = &A->recs[A->n_recs++];
            rc_->run = r;
            rc_->event = e;
            rc_->site = si;
            rc_->k = 0;
            /* records are appended in run order: only this run's tail counts */
            for (uint32_t i = A->n_recs - 1; i-- > 0 && A->recs[i].run == r;)
                rc_->k += A->recs[i].site == si;
            if (rc < 0) {
                nx_wrapper_segment tmp = {0};
                const nx_wrapper_segment *ws = NULL;
                if (err_seg >= 0) {
                    tmp.segment_id = (uint64_t)err_seg;
                    ws = &tmp;
                }
                return ctx_error(A, rc_, ws, &inner);
            }
            w = persist(A, w, ev->metadata, ev->metadata_size);
            rc_->w = w;
            if (!w->available || w->n_segments == 0)
                continue;
            for (uint32_t i = 0; i < w->n_segments; i++) {
                const nx_wrapper_segment *ws = &w->segments[i];
                bool created;
                segstate *s = find_seg(A, si, ws->segment_id, &created);
                if (created)
                    s->is_graph = ws->is_graph;
                mlia_error_clear(&inner);
                if (s->is_graph != ws->is_graph) {
                    finish_site_scan(A, r, e + 1);
                    mlia_error_setf(&inner, NULL,
                                    "VGF segment %s is a graph segment in some records and a compute segment in others.",
                                    seg_token(A, s));
                    return ctx_error(A, rc_, ws, &inner);
                }
                for (int k = 0; k < 3; k++)
                    if (nx_blob_size_mismatch(&ws->blobs[k])) {
                        GROW(A, A->w8s, A->n_w8, A->cap_w8);
                        A->w8s[A->n_w8++] = (w8){(uint32_t)(s - A->segs), (nx_blob_kind)k,
                                                 ws->blobs[k].size_text, ws->blobs[k].decoded_len};
                    }
                if (!ws->is_graph)
                    continue;
                int bad = -1;
                if (take_static(A, s, ws, &bad) < 0) {
                    finish_site_scan(A, r, e + 1);
                    mlia_error_setf(&inner, NULL,
                                    "VGF segment %s reports different %s payloads in different records.",
                                    seg_token(A, s), nx_blob_key((nx_blob_kind)bad));
                    return ctx_error(A, rc_, ws, &inner);
                }
            }
        }
    }
    mlia_arena_free(&A->scratch);
    return 0;
}

/* ------------------------------------------------------------------ */
/* hierarchy                                                           */
/* ------------------------------------------------------------------ */

static const nx_segment_vgf *seg_vgf(const analysis *A, const segstate *s)
{
    if (!A->in->vgf_segments || s->segment_id >= A->in->n_vgf_segments)
        return NULL;
    return &A->in->vgf_segments[s->segment_id];
}

static uint32_t find_chain(analysis *A, segstate *s, const char *raw)
{
    for (uint32_t i = 0; i < s->n_chains; i++)
        if (strcmp(s->chains[i].raw, raw) == 0)
            return i;
    GROW(A, s->chains, s->n_chains, s->cap_chains);
    local_chain *c = &s->chains[s->n_chains];
    memset(c, 0, sizeof *c);
    c->raw = raw;
    c->stripes = mlia_arena_array(A->arena, s->n_rows, sizeof *c->stripes);
    return s->n_chains++;
}

static uint32_t find_cascade(analysis *A, segstate *s, const char *raw)
{
    for (uint32_t i = 0; i < s->n_cascades; i++)
        if (strcmp(s->cascades[i].raw, raw) == 0)
            return i;
    GROW(A, s->cascades, s->n_cascades, s->cap_cascades);
    local_cascade *c = &s->cascades[s->n_cascades];
    memset(c, 0, sizeof *c);
    c->raw = raw;
    c->stripes = mlia_arena_array(A->arena, s->n_rows, sizeof *c->stripes);
    return s->n_cascades++;
}

static bool contains_u32(const uint32_t *v, uint32_t n, uint32_t x)
{
    for (uint32_t i = 0; i < n; i++)
        if (v[i] == x)
            return true;
    return false;
}

static bool contains_str(const char *const *v, uint32_t n, const char *x)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(v[i], x) == 0)
            return true;
    return false;
}

static const char *join_types(mlia_arena *a, const nx_strlist *types)
{
    mlia_buf b;
    mlia_buf_init(&b);
    for (uint32_t i = 0; types && i < types->n; i++) {
        if (i)
            mlia_buf_putc(&b, '/');
        mlia_buf_puts(&b, types->items[i]);
    }
    char *r = mlia_arena_strndup(a, b.data ? b.data : "", b.len);
    mlia_buf_free(&b);
    return r;
}

static bool is_source_node(const analysis *A, const char *name)
{
    for (uint32_t i = 0; i < A->in->n_source_nodes; i++)
        if (A->in->source_node_names[i] && strcmp(A->in->source_node_names[i], name) == 0)
            return true;
    return false;
}

/* Create (or find) the compiler operation of TOSA id t. */
static int make_op(analysis *A, segstate *s, const nx_debugdb *db, const char *t, uint32_t *out,
                   mlia_error *inner)
{
    for (uint32_t i = 0; i < s->n_ops; i++)
        if (strcmp(s->ops[i].tosa_id, t) == 0) {
            *out = i;
            return 0;
        }
    GROW(A, s->ops, s->n_ops, s->cap_ops);
    nx_compiler_op *op = &s->ops[s->n_ops];
    memset(op, 0, sizeof *op);
    op->tosa_id = t;
    const nx_strlist *types = nx_strmap_get(&db->tosa_types, t);
    const nx_strlist *labels = nx_strmap_get(&db->tosa_labels, t);
    op->name = join_types(A->arena, types);
    op->n_types = types ? types->n : 0;
    op->types = types ? types->items : NULL;
    op->n_labels = labels ? labels->n : 0;
    op->labels = labels ? labels->items : NULL;
    op->display_label = "";
    op->label_info = mlia_arena_array(A->arena, op->n_labels, sizeof *op->label_info);
    const nx_segment_vgf *v = seg_vgf(A, s);
    const nx_name_map *map = v && v->has_name_map ? &v->name_map : NULL;
    uint32_t cap_ids = 0, cap_src = 0;
    for (uint32_t i = 0; i < op->n_labels; i++) {
        nx_label_info *li = &op->label_info[i];
        nx_label_parse(op->labels[i], A->arena, li);
        if (i == 0)
            op->display_label = li->display_label;
        if (!op->operator_name && li->operator_name)
            op->operator_name = li->operator_name;
        if (li->kind == NX_LABEL_SPIRV && !op->has_spirv_id) {
            op->has_spirv_id = true;
            op->spirv_id = li->spirv_id_text;
        }
        nx_strlist ids;
        if (nx_label_resolve(li, map, s->segment_id, A->arena, &ids, inner) < 0) {
            A->vgf_mismatch = map != NULL;
            return -1;
        }
        for (uint32_t k = 0; k < ids.n; k++) {
            const char *vid = mlia_arena_printf(A->arena, "source_operator/segment_%s/spirv-%s", s->token,
                                                ids.items[k]);
            if (contains_str(op->vgf_ids, op->n_vgf_ids, vid))
                continue;
            GROW(A, op->vgf_ids, op->n_vgf_ids, cap_ids);
            op->vgf_ids[op->n_vgf_ids++] = vid;
        }
        /* association with ETRecord source operators (docs/analysis.md, "NX statistics") */
        const char *cand[2] = {li->node_name, li->raw};
        for (int c = 0; c < 2; c++) {
            if (!cand[c] || !is_source_node(A, cand[c]) || contains_str(op->sources, op->n_sources, cand[c]))
                continue;
            GROW(A, op->sources, op->n_sources, cap_src);
            op->sources[op->n_sources++] = cand[c];
        }
    }
    *out = s->n_ops++;
    return 0;
}

static int build_hierarchy(analysis *A, segstate *s, mlia_error *inner)
{
    nx_debugdb db;
    if (s->static_blob[NX_BLOB_DEBUG_DATABASE]) {
        if (nx_debugdb_parse(s->static_data[0], s->static_len[0], A->arena, &db, inner) < 0)
            return -1;
    } else {
        nx_debugdb_init(&db, A->arena);
        s->w7 = true;
    }
    nx_debugdb_synthesize(&db, s->ids, s->n_rows);
    s->row_chain = mlia_arena_array(A->arena, s->n_rows, sizeof *s->row_chain);
    s->row_cascade = mlia_arena_array(A->arena, s->n_rows, sizeof *s->row_cascade);
    for (uint32_t i = 0; i < s->n_rows; i++) {
        const char *h, *c;
        if (nx_debugdb_track(&db, s->ids[i], &h, &c, inner) < 0)
            return -1;
        uint32_t ch = find_chain(A, s, h), ca = find_cascade(A, s, c);
        s->row_chain[i] = ch;
        s->row_cascade[i] = ca;
        local_chain *lc = &s->chains[ch];
        lc->stripes[lc->n_stripes++] = i;
        local_cascade *lk = &s->cascades[ca];
        lk->stripes[lk->n_stripes++] = i;
    }
    /* cascade children and chain parents (§8.4) */
    for (uint32_t k = 0; k < s->n_cascades; k++) {
        local_cascade *lk = &s->cascades[k];
        lk->chains = mlia_arena_array(A->arena, s->n_chains, sizeof *lk->chains);
        for (uint32_t h = 0; h < s->n_chains; h++) {
            const local_chain *lc = &s->chains[h];
            bool shares = false;
            for (uint32_t i = 0; i < lc->n_stripes && !shares; i++)
                shares = s->row_cascade[lc->stripes[i]] == k;
            if (shares) {
                lk->chains[lk->n_chains++] = h;
                s->chains[h].parent = k;
            }
        }
    }
    /* compiler operations per chain (§7.7.2-4) */
    for (uint32_t h = 0; h < s->n_chains; h++) {
        local_chain *lc = &s->chains[h];
        nx_unknown_ref *unk;
        uint32_t n_unk;
        nx_debugdb_chain_tosa(&db, lc->raw, A->arena, &lc->tosa, &unk, &n_unk);
        for (uint32_t i = 0; i < n_unk; i++) {
            GROW(A, A->w9s, A->n_w9, A->cap_w9);
            A->w9s[A->n_w9++] = (w9){(uint32_t)(s - A->segs), unk[i].is_tosa, unk[i].id};
        }
        for (uint32_t i = 0; i < lc->tosa.n; i++) {
            uint32_t oi;
            if (make_op(A, s, &db, lc->tosa.items[i], &oi, inner) < 0)
                return -1;
        }
    }
    s->built = true;
    return 0;
}

/* ------------------------------------------------------------------ */
/* pass 2                                                              */
/* ------------------------------------------------------------------ */

static void commit_run(analysis *A, uint32_t run)
{
    for (uint32_t i = 0; i < A->n_segs; i++) {
        segstate *s = &A->segs[i];
        if (s->cur_run != run || s->cur_meas == 0)
            continue;
        const site *c = &A->sites[s->site];
        if (c->cur_run != run || s->cur_meas != c->cur_records)
            continue; /* §9.3: a record of the call site lacks the measurement */
        size_t row_words = (size_t)s->n_rows * A->stride;
        if (s->n_rec == s->cap_rec) {
            uint32_t nc = s->cap_rec ? s->cap_rec * 2 : 4;
            s->rec_runs = mlia_arena_grow(A->arena, s->rec_runs, s->n_rec, nc, sizeof *s->rec_runs);
            s->vals = mlia_arena_grow(A->arena, s->vals, (size_t)s->n_rec * row_words, (size_t)nc * row_words,
                                      sizeof *s->vals);
            s->hasc = mlia_arena_grow(A->arena, s->hasc, (size_t)s->n_rec * s->n_rows, (size_t)nc * s->n_rows,
                                      sizeof *s->hasc);
            s->cap_rec = nc;
        }
        s->rec_runs[s->n_rec] = run;
        memcpy(s->vals + (size_t)s->n_rec * row_words, s->cur, row_words * sizeof *s->vals);
        memcpy(s->hasc + (size_t)s->n_rec * s->n_rows, s->cur_hasc, (size_t)s->n_rows * sizeof *s->hasc);
        s->n_rec++;
    }
}

static int add_rows(analysis *A, segstate *s, const nx_row *rows, uint32_t run)
{
    size_t row_words = (size_t)s->n_rows * A->stride;
    if (!s->cur) {
        s->cur = mlia_arena_array(A->arena, row_words, sizeof *s->cur);
        s->cur_hasc = mlia_arena_array(A->arena, s->n_rows, sizeof *s->cur_hasc);
    }
    if (s->cur_run != run) {
        memset(s->cur, 0, row_words * sizeof *s->cur);
        memset(s->cur_hasc, 0, (size_t)s->n_rows * sizeof *s->cur_hasc);
        s->cur_run = run;
        s->cur_meas = 0;
    }
    bool overflow = false;
    uint32_t nl = A->stride - 2;
    for (uint32_t i = 0; i < s->n_rows; i++) {
        uint64_t *v = s->cur + (size_t)i * A->stride;
        overflow |= __builtin_add_overflow(v[0], rows[i].op_cycles, &v[0]);
        overflow |= __builtin_add_overflow(v[1], rows[i].total_cycles, &v[1]);
        if (rows[i].has_counters) {
            s->cur_hasc[i] = true;
            for (uint32_t k = 0; k < nl; k++)
                overflow |= __builtin_add_overflow(v[2 + k], rows[i].counters[k], &v[2 + k]);
        }
    }
    s->cur_meas++;
    return overflow ? -1 : 0;
}

static bool carries_measurement(const nx_wrapper *w)
{
    if (!w->available)
        return false;
    for (uint32_t i = 0; i < w->n_segments; i++)
        if (w->segments[i].is_graph && w->segments[i].blobs[NX_BLOB_STATISTICS_MEMORY].available)
            return true;
    return false;
}

static int resolve_record(analysis *A, const rec *r)
{
    nx_mode_info mi;
    mlia_error inner;
    mlia_error_clear(&inner);
    if (nx_resolve_mode(r->w, &mi, &inner) < 0)
        return ctx_error(A, r, NULL, &inner);
    if (!A->mode_resolved) {
        A->mode = mi;
        A->mode_resolved = true;
        const char *const *labels;
        uint32_t nl = nx_counter_labels(mi.device, mi.mode, &labels);
        A->stride = 2 + nl;
        A->res->counter_labels = labels;
        A->res->n_counters = nl;
        return 0;
    }
    if (mi.mode != A->mode.mode || mi.device != A->mode.device) {
        mlia_error_setf(&inner, NULL,
                        "VGF neural statistics records disagree on statistics mode or device: %d %s vs %d %s.",
                        A->mode.mode, nx_device_name(A->mode.device), mi.mode, nx_device_name(mi.device));
        return ctx_error(A, r, NULL, &inner);
    }
    A->mode.mode_assumed |= mi.mode_assumed;
    A->mode.device_assumed |= mi.device_assumed;
    if (!A->mode.device_name && mi.device_name)
        A->mode.device_name = mi.device_name;
    if (!A->mode.has_layout && mi.has_layout) {
        A->mode.has_layout = true;
        A->mode.leading_block_count = mi.leading_block_count;
    }
    return 0;
}

static int pass2(analysis *A)
{
    uint32_t cur_run = UINT32_MAX;
    for (uint32_t ri = 0; ri < A->n_recs; ri++) {
        const rec *r = &A->recs[ri];
        if (r->run != cur_run) {
            if (cur_run != UINT32_MAX)
                commit_run(A, cur_run);
            cur_run = r->run;
        }
        site *c = &A->sites[r->site];
        if (c->cur_run != r->run) {
            c->cur_run = r->run;
            c->cur_records = 0;
        }
        c->cur_records++;
        const nx_wrapper *w = r->w;
        if (!w->available || w->n_segments == 0) {
            count_reason(A, &A->w4, &A->n_w4, &A->cap_w4, w->reason);
            continue;
        }
        if (carries_measurement(w) && resolve_record(A, r) < 0)
            return -1;
        for (uint32_t i = 0; i < w->n_segments; i++) {
            const nx_wrapper_segment *ws = &w->segments[i];
            bool created;
            segstate *s = find_seg(A, r->site, ws->segment_id, &created);
            if (!s->is_graph)
                continue;
            const nx_blob *mem = &ws->blobs[NX_BLOB_STATISTICS_MEMORY];
            s->avail_records++;
            if (!mem->available) {
                count_reason(A, &s->reasons, &s->n_reasons, &s->cap_reasons, mem->reason);
                continue;
            }
            if (!s->static_blob[NX_BLOB_STATISTICS_INFO]) {
                s->w6 = true;
                continue;
            }
            mlia_error inner;
            mlia_error_clear(&inner);
            if (!s->info_decoded) {
                if (nx_parse_statistics_info(s->static_data[1], s->static_len[1],
                                             s->static_blob[1]->is_text, A->arena, &s->ids, &s->n_rows,
                                             &inner) < 0)
                    return ctx_error(A, r, ws, &inner);
                s->info_decoded = true;
            }
            mlia_arena_free(&A->scratch);
            const uint8_t *data;
            size_t len;
            nx_blob_decode(mem, &A->scratch, &data, &len);
            nx_row *rows;
            uint32_t n_rows;
            if (nx_decode_memory(data, len, A->mode.device, A->mode.mode, s->ids, s->n_rows, &A->scratch, &rows,
                                 &n_rows, &inner) < 0)
                return ctx_error(A, r, ws, &inner);
            if (!s->built && build_hierarchy(A, s, &inner) < 0) {
                if (A->vgf_mismatch && A->in->vgf_source_path)
                    return mlia_error_setkf(A->err, MLIA_ERROR_KIND_MISMATCH, A->in->vgf_source_path,
                                           "Companion model does not match the capture (the neural statistics "
                                           "of %s, run %" PRIu32 "): %s Give the PTE of the program that "
                                           "wrote this ETDump.",
                                           A->in->etdump_path, r->run, inner.text);
                return ctx_error(A, r, ws, &inner);
            }
            A->res->any_measurement = true;
            if (add_rows(A, s, rows, r->run) < 0) {
                mlia_error_setf(&inner, NULL, "NX cycle counter overflow.");
                return ctx_error(A, r, ws, &inner);
            }
        }
    }
    if (cur_run != UINT32_MAX)
        commit_run(A, cur_run);
    mlia_arena_free(&A->scratch);
    return 0;
}

/* ------------------------------------------------------------------ */
/* assembly                                                            */
/* ------------------------------------------------------------------ */

static int cmp_seg(const void *a, const void *b, void *ctx)
{
    const analysis *A = ctx;
    const segstate *x = &A->segs[*(const uint32_t *)a], *y = &A->segs[*(const uint32_t *)b];
    const site *sx = &A->sites[x->site], *sy = &A->sites[y->site];
    if (sx->chain != sy->chain)
        return sx->chain < sy->chain ? -1 : 1;
    if (sx->instr != sy->instr)
        return sx->instr < sy->instr ? -1 : 1;
    return x->segment_id < y->segment_id ? -1 : x->segment_id > y->segment_id;
}

/* Sum a set of rows (row indexes) per recorded execution into m. */
static void entity_metrics(analysis *A, const segstate *s, const uint32_t *rows, uint32_t n_rows, nx_metrics *m)
{
    uint32_t k = s->n_rec, nl = A->stride ? A->stride - 2 : 0;
    m->total_cycles = mlia_arena_array(A->arena, k, sizeof(uint64_t));
    m->op_cycles = mlia_arena_array(A->arena, k, sizeof(uint64_t));
    m->has_counters = false;
    for (uint32_t e = 0; e < k && !m->has_counters; e++)
        for (uint32_t i = 0; i < n_rows && !m->has_counters; i++)
            m->has_counters = s->hasc[(size_t)e * s->n_rows + rows[i]];
    if (m->has_counters)
        m->counters = mlia_arena_array(A->arena, (size_t)k * nl, sizeof(uint64_t));
    for (uint32_t e = 0; e < k; e++) {
        const uint64_t *base = s->vals + (size_t)e * s->n_rows * A->stride;
        for (uint32_t i = 0; i < n_rows; i++) {
            const uint64_t *v = base + (size_t)rows[i] * A->stride;
            m->op_cycles[e] += v[0];
            m->total_cycles[e] += v[1];
            for (uint32_t q = 0; m->has_counters && q < nl; q++)
                m->counters[(size_t)e * nl + q] += v[2 + q];
        }
    }
    m->total = nx_summarise(m->total_cycles, k);
    m->op = nx_summarise(m->op_cycles, k);
    if (m->has_counters) {
        m->counter_stats = mlia_arena_array(A->arena, nl, sizeof *m->counter_stats);
        uint64_t *col = mlia_arena_array(A->arena, k ? k : 1, sizeof *col);
        for (uint32_t q = 0; q < nl; q++) {
            for (uint32_t e = 0; e < k; e++)
                col[e] = m->counters[(size_t)e * nl + q];
            m->counter_stats[q] = nx_summarise(col, k);
        }
    }
}

static const char *strip_prefix(const char *s, const char *p)
{
    size_t n = strlen(p);
    return strncmp(s, p, n) == 0 ? s + n : s;
}

/* The id ("<kind>/segment_<token>/<raw>") and the display name ("[<segment
 * name>/]<Word> <raw without its kind_ prefix>") of a local cascade or chain
 * of segment s, whose display name is sn. */
static void group_names(mlia_arena *a, const segstate *s, const char *sn, const char *kind, const char *word,
                        const char *raw, const char **id, const char **name)
{
    *id = mlia_arena_printf(a, "%s/segment_%s/%s", kind, s->token, raw);
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%s_", kind);
    const char *x = strip_prefix(raw, prefix);
    *name = sn[0] ? mlia_arena_printf(a, "%s/%s %s", sn, word, x) : mlia_arena_printf(a, "%s %s", word, x);
}

/* The statistics row ids of a cascade's or chain's rows (row order). */
static uint32_t *stripe_ids(mlia_arena *a, const segstate *s, const uint32_t *stripes, uint32_t n)
{
    uint32_t *ids = mlia_arena_array(a, n, sizeof *ids);
    for (uint32_t i = 0; i < n; i++)
        ids[i] = s->ids[stripes[i]];
    return ids;
}

static void assemble(analysis *A, uint32_t *order)
{
    nx_result *R = A->res;
    mlia_arena *a = A->arena;
    uint32_t nc = 0, nh = 0, ns = 0, no = 0;
    for (uint32_t i = 0; i < A->n_segs; i++) {
        const segstate *s = &A->segs[i];
        nc += s->n_cascades;
        nh += s->n_chains;
        ns += s->built ? s->n_rows : 0;
        no += s->n_ops;
    }
    R->n_segments = A->n_segs;
    R->segments = mlia_arena_array(a, A->n_segs, sizeof *R->segments);
    R->cascades = mlia_arena_array(a, nc, sizeof *R->cascades);
    R->chains = mlia_arena_array(a, nh, sizeof *R->chains);
    R->stripes = mlia_arena_array(a, ns, sizeof *R->stripes);
    R->ops = mlia_arena_array(a, no, sizeof *R->ops);
    for (uint32_t oi = 0; oi < A->n_segs; oi++) {
        segstate *s = &A->segs[order[oi]];
        s->global_index = oi;
        nx_segment *g = &R->segments[oi];
        const site *c = &A->sites[s->site];
        const nx_segment_vgf *v = seg_vgf(A, s);
        g->token = s->token;
        g->id = mlia_arena_printf(a, "segment/%s", s->token);
        g->name = v && v->name ? v->name : "";
        g->display_name = g->name[0] ? g->name : g->id;
        g->chain_index = c->chain;
        g->instruction_id = c->instr;
        g->segment_id = s->segment_id;
        g->is_graph = s->is_graph;
        g->analysed = s->is_graph;
        g->measured = s->built;
        g->n_recorded = s->n_rec;
        g->recorded_runs = s->rec_runs ? s->rec_runs : mlia_arena_array(a, 0, sizeof(uint32_t));
        g->coverage = R->n_executions ? 100.0 * (double)s->n_rec / (double)R->n_executions : 0.0;
        g->first_cascade = R->n_cascades;
        g->first_chain = R->n_chains;
        g->first_stripe = R->n_stripes;
        g->first_op = R->n_ops;
        if (!s->built) {
            memset(&g->m, 0, sizeof g->m);
            continue;
        }
        uint32_t *all = mlia_arena_array(a, s->n_rows, sizeof *all);
        for (uint32_t i = 0; i < s->n_rows; i++)
            all[i] = i;
        entity_metrics(A, s, all, s->n_rows, &g->m);
        const char *sn = g->name;
        for (uint32_t k = 0; k < s->n_cascades; k++) {
            const local_cascade *lk = &s->cascades[k];
            nx_cascade *o = &R->cascades[R->n_cascades + k];
            o->raw_id = lk->raw;
            group_names(a, s, sn, "cascade", "Cascade", lk->raw, &o->id, &o->name);
            o->segment = oi;
            o->n_stripes = lk->n_stripes;
            o->stripe_ids = stripe_ids(a, s, lk->stripes, lk->n_stripes);
            o->n_chains = lk->n_chains;
            o->chains = mlia_arena_array(a, lk->n_chains, sizeof *o->chains);
            for (uint32_t i = 0; i < lk->n_chains; i++)
                o->chains[i] = R->n_chains + lk->chains[i];
            entity_metrics(A, s, lk->stripes, lk->n_stripes, &o->m);
        }
        for (uint32_t h = 0; h < s->n_chains; h++) {
            const local_chain *lc = &s->chains[h];
            nx_chain *o = &R->chains[R->n_chains + h];
            o->raw_id = lc->raw;
            group_names(a, s, sn, "chain", "Chain", lc->raw, &o->id, &o->name);
            o->segment = oi;
            o->parent_cascade = R->n_cascades + lc->parent;
            o->n_stripes = lc->n_stripes;
            o->stripe_ids = stripe_ids(a, s, lc->stripes, lc->n_stripes);
            o->n_tosa = lc->tosa.n;
            o->tosa_ops = mlia_arena_array(a, lc->tosa.n, sizeof *o->tosa_ops);
            o->ops = mlia_arena_array(a, lc->tosa.n, sizeof *o->ops);
            for (uint32_t i = 0; i < lc->tosa.n; i++) {
                uint32_t li = 0;
                for (uint32_t q = 0; q < s->n_ops; q++)
                    if (strcmp(s->ops[q].tosa_id, lc->tosa.items[i]) == 0) {
                        li = q;
                        break;
                    }
                uint32_t gi = R->n_ops + li;
                o->tosa_ops[i] = gi;
                if (!contains_u32(o->ops, o->n_ops, gi))
                    o->ops[o->n_ops++] = gi;
            }
            entity_metrics(A, s, lc->stripes, lc->n_stripes, &o->m);
        }
        for (uint32_t i = 0; i < s->n_rows; i++) {
            nx_stripe *o = &R->stripes[R->n_stripes + i];
            o->stripe = s->ids[i];
            o->id = mlia_arena_printf(a, "stripe/segment_%s/%" PRIu32, s->token, s->ids[i]);
            o->name = mlia_arena_printf(a, "Stripe %" PRIu32, s->ids[i]);
            o->segment = oi;
            o->chain = R->n_chains + s->row_chain[i];
            o->cascade = R->n_cascades + s->row_cascade[i];
            uint32_t one = i;
            entity_metrics(A, s, &one, 1, &o->m);
        }
        for (uint32_t q = 0; q < s->n_ops; q++) {
            nx_compiler_op *o = &R->ops[R->n_ops + q];
            *o = s->ops[q];
            o->id = mlia_arena_printf(a, "compiler_operation/segment_%s/tosa-%s", s->token, o->tosa_id);
            o->segment = oi;
            o->parents = mlia_arena_array(a, s->n_chains, sizeof *o->parents);
            o->n_parents = 0;
            for (uint32_t h = 0; h < s->n_chains; h++)
                for (uint32_t i = 0; i < s->chains[h].tosa.n; i++)
                    if (strcmp(s->chains[h].tosa.items[i], o->tosa_id) == 0) {
                        o->parents[o->n_parents++] = R->n_chains + h;
                        break;
                    }
        }
        g->n_cascades = s->n_cascades;
        g->n_chains = s->n_chains;
        g->n_stripes = s->n_rows;
        g->n_ops = s->n_ops;
        R->n_cascades += s->n_cascades;
        R->n_chains += s->n_chains;
        R->n_stripes += s->n_rows;
        R->n_ops += s->n_ops;
    }
    /* association counts */
    const char **seen = mlia_arena_array(a, A->in->n_source_nodes, sizeof *seen);
    uint32_t n_seen = 0;
    for (uint32_t i = 0; i < R->n_ops; i++) {
        const nx_compiler_op *o = &R->ops[i];
        R->n_ops_associated += o->n_sources > 0;
        for (uint32_t k = 0; k < o->n_sources; k++)
            if (!contains_str(seen, n_seen, o->sources[k]) && n_seen < A->in->n_source_nodes)
                seen[n_seen++] = o->sources[k];
    }
    R->n_sources_associated = n_seen;
}

/* Model summaries (§9.6); returns the W11 text or NULL. */
static const char *model(analysis *A)
{
    nx_result *R = A->res;
    nx_model *M = &R->model;
    if (!R->any_record) {
        M->reason = "No VGF neural statistics were found in the ETDump.";
        return NULL;
    }
    if (!R->any_measurement) {
        M->reason = "VGF neural statistics contain no available statistics memory.";
        return NULL;
    }
    const nx_segment *first = NULL;
    bool same = true;
    for (uint32_t i = 0; i < R->n_segments; i++) {
        const nx_segment *g = &R->segments[i];
        if (!g->analysed)
            continue;
        if (!first) {
            first = g;
            continue;
        }
        same = same && g->n_recorded == first->n_recorded &&
               memcmp(g->recorded_runs, first->recorded_runs, (size_t)g->n_recorded * sizeof(uint32_t)) == 0;
    }
    if (!first || !same || first->n_recorded == 0) {
        mlia_buf b;
        mlia_buf_init(&b);
        mlia_buf_puts(&b, "NX statistics were recorded in different executions for different segments: ");
        bool any = false;
        for (uint32_t i = 0; i < R->n_segments; i++) {
            const nx_segment *g = &R->segments[i];
            if (!g->analysed)
                continue;
            uint64_t *runs = mlia_arena_array(A->arena, g->n_recorded, sizeof *runs);
            for (uint32_t k = 0; k < g->n_recorded; k++)
                runs[k] = g->recorded_runs[k];
            mlia_buf_printf(&b, "%s%s in executions %s", any ? "; " : "", g->id,
                            nx_format_u64_list(runs, g->n_recorded, A->arena));
            any = true;
        }
        mlia_buf_putc(&b, '.');
        M->reason = mlia_arena_strndup(A->arena, b.data, b.len);
        mlia_buf_free(&b);
        return M->reason;
    }
    uint32_t k = first->n_recorded;
    M->available = true;
    M->n_exec = k;
    M->runs = first->recorded_runs;
    M->total_cycles = mlia_arena_array(A->arena, k, sizeof(uint64_t));
    M->compute_cycles = mlia_arena_array(A->arena, k, sizeof(uint64_t));
    M->utilization = mlia_arena_array(A->arena, k, sizeof(double));
    for (uint32_t i = 0; i < R->n_segments; i++) {
        const nx_segment *g = &R->segments[i];
        if (!g->analysed)
            continue;
        for (uint32_t e = 0; e < k; e++) {
            M->total_cycles[e] += g->m.total_cycles[e];
            M->compute_cycles[e] += g->m.op_cycles[e];
        }
    }
    for (uint32_t e = 0; e < k; e++)
        M->utilization[e] = M->total_cycles[e]
                                ? (double)M->compute_cycles[e] / (double)M->total_cycles[e] * 100.0
                                : 0.0;
    M->total = nx_summarise(M->total_cycles, k);
    M->compute = nx_summarise(M->compute_cycles, k);
    M->utilization_stat = nx_summarise_double(M->utilization, k);
    return NULL;
}

typedef struct wlist {
    analysis *A;
    uint32_t n, cap;
    const char **items;
} wlist;

static void warn(wlist *l, const char *text)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->items[i], text) == 0)
            return;
    GROW(l->A, l->items, l->n, l->cap);
    l->items[l->n++] = text;
}

static void warnings(analysis *A, const uint32_t *order, const char *w11)
{
    nx_result *R = A->res;
    mlia_arena *a = A->arena;
    wlist l = {A, 0, 0, NULL};
    if (R->mode_assumed)
        warn(&l, "Statistics mode not recorded in the capture; assumed mode 1.");
    if (R->device_assumed)
        warn(&l, "Device not recorded in the capture; assumed Mali-G2.");
    if (!R->any_record)
        warn(&l, "No VGF neural statistics were found in the ETDump.");
    for (uint32_t i = 0; i < A->n_w4; i++)
        warn(&l, mlia_arena_printf(a, "VGF neural statistics were unavailable in %" PRIu32 " of %" PRIu32
                                      " record(s): %s",
                                   A->w4[i].n, R->n_records,
                                   A->w4[i].reason[0] ? A->w4[i].reason : "no reason given"));
    for (uint32_t oi = 0; oi < A->n_segs; oi++) {
        const segstate *s = &A->segs[order[oi]];
        for (uint32_t i = 0; i < s->n_reasons; i++)
            warn(&l, mlia_arena_printf(a, "VGF segment %s statistics memory was unavailable in %" PRIu32 " of %" PRIu32
                                          " record(s): %s",
                                       s->token, s->reasons[i].n, s->avail_records,
                                       s->reasons[i].reason[0] ? s->reasons[i].reason : "no reason given"));
    }
    for (uint32_t oi = 0; oi < A->n_segs; oi++) {
        const segstate *s = &A->segs[order[oi]];
        if (s->w6)
            warn(&l, mlia_arena_printf(a, "VGF segment %s has no statistics info; its statistics memory cannot be "
                                          "interpreted.",
                                       s->token));
    }
    for (uint32_t oi = 0; oi < A->n_segs; oi++) {
        const segstate *s = &A->segs[order[oi]];
        if (s->w7)
            warn(&l, mlia_arena_printf(a, "VGF segment %s has no debug database; NX chains and cascades are "
                                          "synthesized per stripe.",
                                       s->token));
    }
    for (uint32_t i = 0; i < A->n_w8; i++) {
        const w8 *x = &A->w8s[i];
        warn(&l, mlia_arena_printf(a, "VGF segment %s %s declares size %s but decodes to %zu bytes.",
                                   A->segs[x->seg].token, nx_blob_key(x->kind), x->size_text, x->decoded));
    }
    for (uint32_t i = 0; i < A->n_w9; i++) {
        const w9 *x = &A->w9s[i];
        warn(&l, mlia_arena_printf(a, "Debug database of VGF segment %s references unknown %s '%s'; the reference "
                                      "is ignored.",
                                   A->segs[x->seg].token, x->is_tosa ? "TOSA operation" : "fused operation", x->id));
    }
    uint32_t n_compute = 0;
    for (uint32_t oi = 0; oi < A->n_segs; oi++)
        n_compute += !A->segs[order[oi]].is_graph;
    if (n_compute) {
        /* order[] is already sorted by (chain, instruction, segment id) */
        const char **toks = mlia_arena_array(a, n_compute, sizeof *toks);
        uint32_t k = 0;
        for (uint32_t oi = 0; oi < A->n_segs; oi++)
            if (!A->segs[order[oi]].is_graph)
                toks[k++] = A->segs[order[oi]].token;
        warn(&l, mlia_arena_printf(a, "VGF compute segment(s) %s will not be estimated by the NX Performance "
                                      "Estimator and will not contribute to performance totals.",
                                   nx_format_str_list(toks, n_compute, a)));
    }
    if (w11)
        warn(&l, w11);
    R->n_warnings = l.n;
    R->warnings = l.items;
}

int nx_analyse(const nx_inputs *in, mlia_arena *arena, nx_result **out, mlia_error *err)
{
    analysis A;
    memset(&A, 0, sizeof A);
    A.in = in;
    A.arena = arena;
    A.err = err;
    mlia_arena_init(&A.scratch);
    A.res = mlia_arena_alloc(arena, sizeof *A.res);
    A.res->n_executions = in->n_executions;
    *out = NULL;
    if (in->dump && pass1(&A) < 0) {
        mlia_arena_free(&A.scratch);
        return -1;
    }
    A.res->n_records = A.n_recs;
    A.res->any_record = A.n_recs > 0;
    for (uint32_t i = 0; i < A.n_segs; i++)
        A.segs[i].token = seg_token(&A, &A.segs[i]);
    if (pass2(&A) < 0) {
        mlia_arena_free(&A.scratch);
        return -1;
    }
    nx_result *R = A.res;
    if (A.mode_resolved) {
        R->resolved = true;
        R->mode = A.mode.mode;
        R->device_kind = A.mode.device;
        R->device = nx_device_name(A.mode.device);
        R->mode_assumed = A.mode.mode_assumed;
        R->device_assumed = A.mode.device_assumed;
        R->device_name = A.mode.device_name;
        R->has_leading_block_count = A.mode.has_layout;
        R->leading_block_count = A.mode.leading_block_count;
    }
    uint32_t *order = mlia_arena_array(arena, A.n_segs, sizeof *order);
    for (uint32_t i = 0; i < A.n_segs; i++)
        order[i] = i;
    qsort_r(order, A.n_segs, sizeof *order, cmp_seg, &A);
    assemble(&A, order);
    const char *w11 = model(&A);
    warnings(&A, order, w11);
    *out = R;
    return 0;
}
