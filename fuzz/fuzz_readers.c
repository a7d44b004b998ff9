/*
 * fuzz_readers.c - libFuzzer entry point for every reader of untrusted bytes.
 *
 * The first input byte selects the reader; the rest is the file content.
 * Every reader must return 0 or -1 with a one-line message; the sanitizers
 * (ASan+UBSan) turn any out-of-bounds access, overflow or leak into a crash.
 *
 *   make fuzz                    # builds build-fuzz/fuzz_readers, runs each
 *                                # target FUZZ_SECONDS (default 30) seconds
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "core/arena.h"
#include "core/json_read.h"
#include "formats/debug_buffer.h"
#include "formats/etdump.h"
#include "formats/etrecord.h"
#include "formats/exported_program.h"
#include "backends/vgf/formats/nx_debugdb.h"
#include "backends/vgf/formats/nx_stats.h"
#include "formats/pte.h"
#include "formats/result_read.h"
#include "backends/vgf/formats/vgf.h"
#include "backends/ethosu/formats/runner_log.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t which = data[0] % 10;
    data++;
    size--;
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    mlia_error_clear(&err);
    switch (which) {
    case 0: {
        /* validation, then the streaming decoders over every run */
        etdump *d;
        if (etdump_read(data, size, "f", &a, &d, &err) == 0) {
            etdump_events ev;
            memset(&ev, 0, sizeof ev);
            /* the input doubles as its own debug buffer: every tensor is
             * checked against it, and the ones that pass are decoded */
            debug_buffer db = {"b", size, data, NULL, NULL};
            for (uint32_t r = 0; r < d->n_runs; r++) {
                if (etdump_read_run(d, r, &ev, &err) != 0)
                    __builtin_trap(); /* validated input must decode */
                for (uint32_t k = 0; k < ev.n_debug; k++) {
                    debug_tensor t;
                    mlia_error_clear(&err);
                    if (debug_buffer_check(&db, &ev.debug_values[k], NULL, &err) != 0 ||
                        !debug_tensor_of(&ev.debug_values[k], &t) || !t.decodable || t.offset < 0)
                        continue;
                    double out[64];
                    for (uint64_t i = 0; i < t.numel; i += 64) {
                        size_t n = t.numel - i < 64 ? (size_t)(t.numel - i) : 64;
                        if (debug_tensor_read(&db, &t, i, n, NULL, out, &err) != 0)
                            __builtin_trap(); /* checked tensors must read */
                    }
                }
            }
            etdump_events_done(d, &ev);
        }
        break;
    }
    case 1: {
        pte_program *p;
        pte_read(data, size, "f", &a, &p, &err);
        break;
    }
    case 2: {
        bundled_program *bp;
        bundled_program_read(data, size, "f", &a, &bp, &err);
        break;
    }
    case 3: {
        etrecord *r;
        if (etrecord_read(data, size, "f", &a, &r, &err) == 0 && r->n_methods) {
            ep_program *p;
            etrecord_load_method_program(r, &r->methods[0], &a, &p, &err);
        }
        break;
    }
    case 4: {
        vgf_file *v;
        vgf_read(data, size, "f", &a, &v, &err);
        break;
    }
    case 5: {
        nx_wrapper *w;
        int64_t seg;
        nx_wrapper_parse(data, size, true, &a, &w, &seg, &err);
        break;
    }
    case 6: {
        ep_program *p;
        ep_parse((const char *)data, size, "f", "e", &a, &p, &err);
        break;
    }
    case 7: {
        /* NX blobs: statistics info (text and binary) and memory, both devices and modes */
        uint32_t *ids;
        uint32_t n;
        if (size && nx_parse_statistics_info(data + 1, size - 1, data[0] & 1, &a, &ids, &n, &err) == 0) {
            nx_row *rows;
            uint32_t nr;
            mlia_error e2;
            mlia_error_clear(&e2);
            nx_decode_memory(data + 1, size - 1, (data[0] & 2) ? NX_DEVICE_G2 : NX_DEVICE_G1, (data[0] >> 2) & 1,
                             ids, n, &a, &rows, &nr, &e2);
        }
        break;
    }
    case 8: {
        /* an mlia output document (mlia compare) */
        result_doc d;
        result_doc_read((const char *)data, size, "f", &a, &d, &err);
        break;
    }
    case 9: {
        /* an Ethos-U runner's console log (docs/delegates.md) */
        ethosu_runner_log *log;
        if (ethosu_is_runner_log(data, size))
            ethosu_read_runner_log(data, size, "f", &a, &log, &err);
        break;
    }
    }
    mlia_arena_free(&a);
    return 0;
}
