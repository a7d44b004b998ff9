/*
 * inspect_nx.c - VGF neural statistics records for `mlia inspect`
 * (see inspect_nx.h).
 *
 * Design: each record is decoded on its own (its own statistics info and
 * memory), with the same readers the analysis uses, so what inspect shows is
 * exactly what the decoder sees. Errors do not stop the listing: they are
 * written as an "error" member next to what could be decoded. The JSON tree
 * of each record lives in a scratch arena released after the record.
 */
#include "backends/vgf/report/inspect_nx.h"

#include <stdlib.h>

#include "core/oom.h"

#include <inttypes.h>
#include <string.h>

#include "backends/vgf/formats/nx_stats.h"

static void write_blob(mlia_jw *w, const nx_blob *b)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kbool(w, "available", b->available);
    mlia_jw_kbool(w, "is_text", b->is_text);
    mlia_jw_key(w, "declared_size");
    if (b->size_is_integer)
        mlia_jw_raw(w, b->size_text, strlen(b->size_text));
    else
        mlia_jw_null(w);
    mlia_jw_kuint(w, "decoded_size", b->decoded_len);
    mlia_jw_kstr(w, "reason", b->reason ? b->reason : "");
    mlia_jw_obj_end(w);
}

static void write_segment(mlia_jw *w, const nx_wrapper_segment *s, const nx_mode_info *mi, bool resolved,
                          mlia_arena *scratch)
{
    mlia_jw_obj_begin(w);
    mlia_jw_kuint(w, "segment_id", s->segment_id);
    mlia_jw_kbool(w, "is_data_graph_pipeline", s->is_graph);
    mlia_jw_kobj_begin(w, "blobs");
    for (int k = 0; k < 3; k++) {
        mlia_jw_key(w, nx_blob_key((nx_blob_kind)k));
        write_blob(w, &s->blobs[k]);
    }
    mlia_jw_obj_end(w);
    const nx_blob *info = &s->blobs[NX_BLOB_STATISTICS_INFO];
    const nx_blob *mem = &s->blobs[NX_BLOB_STATISTICS_MEMORY];
    mlia_error e;
    mlia_error_clear(&e);
    uint32_t *ids = NULL, n_ids = 0;
    bool have_ids = false;
    if (s->is_graph && info->available) {
        const uint8_t *d;
        size_t n;
        nx_blob_decode(info, scratch, &d, &n);
        if (nx_parse_statistics_info(d, n, info->is_text, scratch, &ids, &n_ids, &e) == 0) {
            have_ids = true;
            mlia_jw_karr_begin(w, "stripe_ids");
            for (uint32_t i = 0; i < n_ids; i++)
                mlia_jw_uint(w, ids[i]);
            mlia_jw_arr_end(w);
        }
    }
    if (have_ids && resolved && mem->available) {
        const uint8_t *d;
        size_t n;
        nx_blob_decode(mem, scratch, &d, &n);
        nx_row *rows;
        uint32_t nr;
        if (nx_decode_memory(d, n, mi->device, mi->mode, ids, n_ids, scratch, &rows, &nr, &e) == 0) {
            const char *const *labels;
            uint32_t nl = nx_counter_labels(mi->device, mi->mode, &labels);
            mlia_jw_karr_begin(w, "stripes");
            for (uint32_t i = 0; i < nr; i++) {
                mlia_jw_obj_begin(w);
                mlia_jw_kuint(w, "stripe", rows[i].stripe);
                mlia_jw_kuint(w, "op_cycles", rows[i].op_cycles);
                mlia_jw_kuint(w, "total_cycles", rows[i].total_cycles);
                mlia_jw_kobj_begin(w, "counters");
                for (uint32_t k = 0; rows[i].has_counters && k < nl; k++)
                    mlia_jw_kuint(w, labels[k], rows[i].counters[k]);
                mlia_jw_obj_end(w);
                mlia_jw_obj_end(w);
            }
            mlia_jw_arr_end(w);
        }
    }
    if (e.set)
        mlia_jw_kstr(w, "error", e.text);
    mlia_jw_obj_end(w);
}

static void write_record(mlia_jw *w, const nx_wrapper *x, mlia_arena *scratch)
{
    mlia_jw_kint(w, "schema_version", x->schema_version);
    mlia_jw_kbool(w, "available", x->available);
    mlia_jw_kstr(w, "reason", x->reason);
    nx_mode_info mi;
    mlia_error e;
    mlia_error_clear(&e);
    bool resolved = nx_resolve_mode(x, &mi, &e) == 0;
    mlia_jw_key(w, "interpretation");
    if (resolved) {
        mlia_jw_obj_begin(w);
        mlia_jw_kint(w, "mode", mi.mode);
        mlia_jw_kstr(w, "device", nx_device_name(mi.device));
        mlia_jw_kbool(w, "mode_assumed", mi.mode_assumed);
        mlia_jw_kbool(w, "device_assumed", mi.device_assumed);
        mlia_jw_key(w, "device_name");
        mlia_jw_str(w, mi.device_name);
        mlia_jw_key(w, "leading_block_count");
        if (mi.has_layout)
            mlia_jw_int(w, mi.leading_block_count);
        else
            mlia_jw_null(w);
        mlia_jw_obj_end(w);
    } else {
        mlia_jw_null(w);
    }
    mlia_jw_karr_begin(w, "segments");
    for (uint32_t i = 0; i < x->n_segments; i++)
        write_segment(w, &x->segments[i], &mi, resolved, scratch);
    mlia_jw_arr_end(w);
    if (!resolved)
        mlia_jw_kstr(w, "error", e.text);
}

/* Per-run counts of statistics events per (chain, instruction), for the
 * record ordinals: an open-addressing map that grows with the distinct
 * call sites (linear overall, whatever the number of events). */
typedef struct site_count {
    uint64_t key;   /* site + 1; 0 = empty */
    uint32_t count;
} site_count;

typedef struct site_counts {
    site_count *v;
    uint32_t cap, n;
} site_counts;

static uint32_t *site_counter(site_counts *m, int64_t chain, int32_t instr)
{
    uint64_t key = (((uint64_t)(uint32_t)chain << 32) | (uint32_t)instr) + 1;
    if ((m->n + 1) * 2 > m->cap) {
        uint32_t nc = m->cap ? m->cap * 2 : 64;
        site_count *nv = calloc(nc, sizeof *nv);
        if (!nv)
            mlia_oom((size_t)nc * sizeof *nv);
        for (uint32_t i = 0; i < m->cap; i++) {
            if (!m->v[i].key)
                continue;
            uint32_t j = (uint32_t)((m->v[i].key * 0x9E3779B97F4A7C15ull) >> 32) & (nc - 1);
            while (nv[j].key)
                j = (j + 1) & (nc - 1);
            nv[j] = m->v[i];
        }
        free(m->v);
        m->v = nv;
        m->cap = nc;
    }
    uint32_t j = (uint32_t)((key * 0x9E3779B97F4A7C15ull) >> 32) & (m->cap - 1);
    while (m->v[j].key && m->v[j].key != key)
        j = (j + 1) & (m->cap - 1);
    if (!m->v[j].key) {
        m->v[j].key = key;
        m->n++;
    }
    return &m->v[j].count;
}

int inspect_nx_records(const etdump *dump, mlia_jw *w, mlia_arena *arena, mlia_error *err)
{
    (void)arena;
    mlia_arena scratch;
    mlia_arena_init(&scratch);
    site_counts counts = {0};
    int rc_all = 0;
    mlia_jw_arr_begin(w);
    for (uint32_t r = 0; dump && r < dump->n_runs && rc_all == 0; r++) {
        if (counts.v)
            memset(counts.v, 0, (size_t)counts.cap * sizeof *counts.v);
        counts.n = 0;
        if (!dump->runs[r].mem_events && !dump->runs[r].n_metadata_events)
            continue;
        etdump_cursor cur;
        etdump_event evb;
        etdump_debug_value dv;
        if (etdump_run_begin(dump, r, &cur, err) < 0) {
            rc_all = -1;
            break;
        }
        int more;
        for (uint32_t i = 0; (more = etdump_run_next(&cur, &evb, &dv, err)) > 0; i++) {
            const etdump_event *ev = &evb;
            bool is_stats = ev->kind == ETDUMP_EVENT_PROFILE && ev->has_metadata && ev->metadata_size &&
                            ev->delegate_debug_id_str.ptr &&
                            mlia_str_eq(ev->delegate_debug_id_str, "VGF_NEURAL_STATISTICS");
            uint32_t ordinal = 0;
            if (is_stats) {
                uint32_t *cnt = site_counter(&counts, ev->chain_index, ev->instruction_id);
                ordinal = (*cnt)++;
            } else if (ev->kind == ETDUMP_EVENT_PROFILE && ev->has_metadata && ev->metadata_size) {
                uint32_t *cnt = site_counter(&counts, ev->chain_index, ev->instruction_id);
                ordinal = *cnt;
            }
            if (ev->kind != ETDUMP_EVENT_PROFILE || !ev->has_metadata || !ev->metadata || ev->metadata_size == 0)
                continue;
            mlia_arena_free(&scratch);
            nx_wrapper *x = NULL;
            int64_t seg;
            mlia_error e;
            mlia_error_clear(&e);
            int rc = nx_wrapper_parse(ev->metadata, ev->metadata_size, true, &scratch, &x, &seg, &e);
            if (rc == NX_NOT_A_RECORD)
                continue;
            mlia_jw_obj_begin(w);
            mlia_jw_kuint(w, "run", r);
            mlia_jw_kuint(w, "event", i);
            mlia_jw_kint(w, "chain_index", ev->chain_index);
            mlia_jw_kint(w, "instruction_id", ev->instruction_id);
            mlia_jw_kuint(w, "ordinal", ordinal);
            if (rc == 0)
                write_record(w, x, &scratch);
            else
                mlia_jw_kstr(w, "error", e.text);
            mlia_jw_obj_end(w);
        }
        if (more < 0)
            rc_all = -1;
    }
    mlia_jw_arr_end(w);
    free(counts.v);
    mlia_arena_free(&scratch);
    return rc_all;
}
