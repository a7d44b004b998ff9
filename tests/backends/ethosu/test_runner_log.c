/*
 * test_runner_log.c - the Ethos-U runner's console log reader: base64,
 * the ETDump block between "#[RUN THIS]" and "#[END]" (LF and CRLF), the
 * PMU report lines with and without the ET_LOG prefix, and every error with
 * its exact message (docs/delegates.md, "Arm Ethos-U").
 */
#include "test.h"

#include <string.h>

#include "backends/ethosu/formats/runner_log.h"

static int read_log(const char *text, ethosu_runner_log **out, mlia_arena *a, mlia_error *err)
{
    mlia_error_clear(err);
    return ethosu_read_runner_log((const uint8_t *)text, strlen(text), "run.log", a, out, err);
}

TEST(base64)
{
    uint8_t out[16];
    CHECK(ethosu_base64_decode("TWFu", 4, out) == 3 && memcmp(out, "Man", 3) == 0);
    CHECK(ethosu_base64_decode("TWE=", 4, out) == 2 && memcmp(out, "Ma", 2) == 0);
    CHECK(ethosu_base64_decode("TQ==", 4, out) == 1 && out[0] == 'M');
    CHECK(ethosu_base64_decode("", 0, out) == 0);
    CHECK(ethosu_base64_decode("TWF", 3, out) == -1);      /* not a multiple of 4 */
    CHECK(ethosu_base64_decode("T=Fu", 4, out) == -1);     /* '=' inside */
    CHECK(ethosu_base64_decode("TW!u", 4, out) == -1);     /* not the alphabet */
    CHECK(ethosu_base64_decode("TQ==TWFu", 8, out) == -1); /* padding before the end */
}

/* "ED00" at 4: base64 of the 8 bytes 00 00 00 00 'E' 'D' '0' '0' is AAAAAEVEMDA= */
#define BLOCK(eol)                                                                                          \
    "#[RUN THIS]" eol "# Writing debug_buffer.bin [base64]" eol "echo \"AQID\" | base64 -d >debug_buffer.bin" eol \
    "# Writing etdump.bin [base64]" eol "echo \"AAAAAEVEMDA=\" | base64 -d >etdump.bin" eol "#[END]" eol

#define REPORT(eol)                                                                                         \
    "I [executorch:arm_perf_monitor.cpp:120 StopMeasurements()] NPU Inferences : 4" eol                      \
    "I [executorch:arm_perf_monitor.cpp:121 StopMeasurements()] NPU delegations: 8 (2.00 per inference)" eol \
    "I [executorch:arm_perf_monitor.cpp:130 StopMeasurements()] ethos-u : cycle_cnt : 4000 cycles (1000.00 " \
    "per inference)" eol "Operator(s) total: 4400 CPU cycles (1100.00 per inference)" eol                    \
    "Inference runtime: 4800 CPU cycles total (1200.00 per inference)" eol                                    \
    "cpu_wait_for_npu_cntr : 3600 CPU cycles (900.00 per inference)" eol "Ethos-U PMU report:" eol            \
    "ethosu_pmu_cycle_cntr :  3000 (750.00 per inference)" eol "ethosu_pmu_cntr0 : 10 (2.50 per inference)" eol \
    "ethosu_pmu_cntr1 : 20 (5.00 per inference)" eol                                                          \
    "Ethos-U PMU Events:[ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED, ETHOSU_PMU_NPU_IDLE]" eol

static void check_log(const ethosu_runner_log *log)
{
    CHECK(log->etdump_size == 8 && memcmp(log->etdump + 4, "ED00", 4) == 0);
    CHECK(log->debug_buffer_size == 3 && log->debug_buffer[2] == 3);
    const ethosu_pmu_report *p = &log->pmu;
    CHECK(p->present && p->inferences == 4 && p->delegations == 8);
    CHECK(p->backend_cycles == 4000 && p->operator_cycles == 4400 && p->runtime_cycles == 4800);
    CHECK(p->wait_cycles == 3600 && p->npu_cycles == 3000);
    CHECK(p->n_counters == 2 && p->counters[0] == 10 && p->counters[1] == 20);
    CHECK(p->n_events == 2 && strcmp(p->events[0], "ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED") == 0 &&
          strcmp(p->events[1], "ETHOSU_PMU_NPU_IDLE") == 0);
}

TEST(reads_lf_and_crlf_logs)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    ethosu_runner_log *log;
    const char *lf = "boot\n" REPORT("\n") BLOCK("\n") "exit\n";
    CHECK(ethosu_is_runner_log((const uint8_t *)lf, strlen(lf)));
    CHECK(read_log(lf, &log, &a, &err) == 0);
    check_log(log);
    CHECK(!log->crlf);
    const char *crlf = "boot\r\n" REPORT("\r\n") BLOCK("\r\n") "exit";
    CHECK(read_log(crlf, &log, &a, &err) == 0);
    check_log(log);
    CHECK(log->crlf);
    mlia_arena_free(&a);
}

TEST(errors)
{
    mlia_arena a;
    mlia_arena_init(&a);
    mlia_error err;
    ethosu_runner_log *log;
    CHECK(!ethosu_is_runner_log((const uint8_t *)"x #[RUN THIS]\n", 14)); /* not at a line start */
    CHECK(read_log("#[RUN THIS]\n# Writing etdump.bin [base64]\nls\n#[END]\n", &log, &a, &err) == -1);
    CHECK_STR(err.text, "run.log: Ethos-U runner log: the line after \"# Writing etdump.bin [base64]\" (line 2) is "
                        "not its echo \"...\" | base64 -d line, at line 3");
    CHECK(read_log("#[RUN THIS]\n# Writing etdump.bin [base64]\necho \"A\" | base64 -d >etdump.bin\n", &log, &a,
                   &err) == -1);
    CHECK_STR(err.text, "run.log: Ethos-U runner log: the base64 of etdump.bin does not decode, at line 3");
    CHECK(read_log("#[RUN THIS]\n# Writing etdump.bin [base64]", &log, &a, &err) == -1);
    CHECK_STR(err.text, "run.log: Ethos-U runner log: \"# Writing etdump.bin [base64]\" at line 2 has no echo line");
    CHECK(read_log("#[RUN THIS]\n#[END]\n", &log, &a, &err) == -1);
    CHECK_STR(err.text, "run.log: Ethos-U runner log: no \"# Writing etdump.bin [base64]\" block between \"#[RUN "
                        "THIS]\" and \"#[END]\" (2 lines read)");
    /* a block outside #[RUN THIS] ... #[END] is not read */
    CHECK(read_log("# Writing etdump.bin [base64]\necho \"AAAA\" | base64 -d >etdump.bin\n#[RUN THIS]\n#[END]\n",
                   &log, &a, &err) == -1);
    mlia_arena_free(&a);
}

int main(void)
{
    RUN(base64);
    RUN(reads_lf_and_crlf_logs);
    RUN(errors);
    return test_summary();
}
