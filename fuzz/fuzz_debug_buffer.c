/*
 * fuzz_debug_buffer.c - libFuzzer target: the debug buffers of the accuracy
 * analysis (docs/accuracy.md) through mlia_check.
 *
 * Input (fuzz_util.h parts): an ETDump, its debug buffer, and optionally a
 * reference ETDump and its debug buffer; the ETRecord is the accuracy
 * sample's (FUZZ_WORK/accuracy.etrecord, written by fuzz/run.sh). Every
 * debug value the ETDump lists is checked against the buffer and decoded, as
 * `mlia check --debug-buffer` does. The call must return 0 or 1 with a
 * one-line error; the sanitizers catch the rest.
 */
#include "fuzz_util.h"

#include "mlia/mlia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_part p[4];
    size_t n = fuzz_split(data, size, p, 4);
    char model[600], dump[600], buf[600], rdump[600], rbuf[600];
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = fuzz_path(model, sizeof model, "accuracy.etrecord");
    o.etdump_path = fuzz_write(dump, sizeof dump, "db.etdump", p[0].data, p[0].n);
    o.debug_buffer_path = fuzz_write(buf, sizeof buf, "db.bin", n > 1 ? p[1].data : NULL, n > 1 ? p[1].n : 0);
    if (n == 4) {
        o.reference_etdump_path = fuzz_write(rdump, sizeof rdump, "db.ref.etdump", p[2].data, p[2].n);
        o.reference_debug_buffer_path = fuzz_write(rbuf, sizeof rbuf, "db.ref.bin", p[3].data, p[3].n);
    }
    mlia_check_output out;
    char *error = NULL;
    int rc = mlia_check(&o, &out, &error);
    fuzz_accept_status(rc, 2, error); /* class 1 (input) or 2 (usage) */
    if (rc == 0)
        mlia_check_output_free(&out);
    return 0;
}
