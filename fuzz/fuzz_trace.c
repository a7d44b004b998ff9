/*
 * fuzz_trace.c - libFuzzer target: the timeline writers (trace.json,
 * trace.pftrace and the page's timeline, docs/trace.md) on ETDumps whose
 * FlatBuffer offsets may alias (events sharing tables and strings, the case
 * the output bound of docs/hardening.md is about).
 *
 * Input: one selector byte, then an ETDump. Selector bit 0 picks the
 * ETRecord (FUZZ_WORK/tiny.etrecord, the one-relu program of
 * tools/fixturelib/hostile.py, or FUZZ_WORK/lenet.etrecord); bit 1 the trace
 * format (json or perfetto); bit 2 adds the Model Explorer files and the
 * page. The outputs are written into FUZZ_WORK/trace-out. The call must
 * return 0, 1 or 2 with a one-line error.
 */
#include "fuzz_util.h"

#include "mlia/mlia.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    uint8_t sel = data[0];
    char model[600], dump[600], out_dir[600];
    mlia_check_options o;
    memset(&o, 0, sizeof o);
    o.etrecord_path = fuzz_path(model, sizeof model, sel & 1 ? "lenet.etrecord" : "tiny.etrecord");
    o.etdump_path = fuzz_write(dump, sizeof dump, "trace.etdump", data + 1, size - 1);
    o.output_dir = fuzz_path(out_dir, sizeof out_dir, "trace-out");
    o.skip_result_json_text = 1;
    o.trace = sel & 2 ? "json" : "perfetto";
    o.model_explorer = sel & 4 ? "files" : NULL;
    mlia_check_output out;
    char *error = NULL;
    int rc = mlia_check(&o, &out, &error);
    fuzz_accept_status(rc, 2, error); /* class 1 (input) or 2 (usage) */
    if (rc == 0)
        mlia_check_output_free(&out);
    return 0;
}
