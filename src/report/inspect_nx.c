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
#include "report/inspect_nx.h"

#include <inttypes.h>
#include <string.h>

#include "formats/nx_stats.h"

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
    mlia_jw_key(w, "blobs");
    mlia_jw_obj_begin(w);
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
            mlia_jw_key(w, "stripe_ids");
            mlia_jw_arr_begin(w);
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
            mlia_jw_key(w, "stripes");
            mlia_jw_arr_begin(w);
            for (uint32_t i = 0; i < nr; i++) {
                mlia_jw_obj_begin(w);
                mlia_jw_kuint(w, "stripe", rows[i].stripe);
                mlia_jw_kuint(w, "op_cycles", rows[i].op_cycles);
                mlia_jw_kuint(w, "total_cycles", rows[i].total_cycles);
                mlia_jw_key(w, "counters");
                mlia_jw_obj_begin(w);
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
    mlia_jw_key(w, "segments");
    mlia_jw_arr_begin(w);
    for (uint32_t i = 0; i < x->n_segments; i++)
        write_segment(w, &x->segments[i], &mi, resolved, scratch);
    mlia_jw_arr_end(w);
    if (!resolved)
        mlia_jw_kstr(w, "error", e.text);
}

void inspect_nx_records(const etdump *dump, mlia_jw *w, mlia_arena *arena)
{
    (void)arena;
    mlia_arena scratch;
    mlia_arena_init(&scratch);
    mlia_jw_arr_begin(w);
    for (uint32_t r = 0; dump && r < dump->n_runs; r++) {
        const etdump_run *run = &dump->runs[r];
        for (uint32_t i = 0; i < run->n_events; i++) {
            const etdump_event *ev = &run->events[i];
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
            uint32_t ordinal = 0;
            for (uint32_t k = 0; k < i; k++) {
                const etdump_event *p = &run->events[k];
                ordinal += p->kind == ETDUMP_EVENT_PROFILE && p->chain_index == ev->chain_index &&
                           p->instruction_id == ev->instruction_id && p->has_metadata && p->metadata_size &&
                           p->delegate_debug_id_str.ptr &&
                           mlia_str_eq(p->delegate_debug_id_str, "VGF_NEURAL_STATISTICS");
            }
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
    }
    mlia_jw_arr_end(w);
    mlia_arena_free(&scratch);
}
