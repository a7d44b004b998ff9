"""ethosu_log - the Arm Ethos-U bare-metal runner's console log around an
ETDump (docs/delegates.md, "Arm Ethos-U"): other console output, the
"#[RUN THIS]" ... "#[END]" block with the base64 ETDump (and optionally a
debug buffer) as the runner prints it, and the PMU report of its perf
monitor (ET_LOG lines "I [executorch:arm_perf_monitor.cpp:<line>
StopMeasurements()] <message>"), with LF or CRLF line ends.

Description (the "ethosu_log" member of a fixture description):
  variant: "u55" (4 counters) or "u85" (7 counters)
  crlf: false | true
  pmu: {inferences, delegations, backend_cycles, operator_cycles,
        runtime_cycles, wait_cycles, npu_cycles, counters: [totals in index order]}
  debug_buffer: optional bytes count (a debug-buffer block of that many zero bytes)
Values are totals over every inference, as the runner prints them; each
line also shows the per-inference value with two decimals.
Standard library only.
"""
import base64

EVENTS = {
    "u55": ["ETHOSU_PMU_AXI0_RD_DATA_BEAT_RECEIVED", "ETHOSU_PMU_AXI1_RD_DATA_BEAT_RECEIVED",
            "ETHOSU_PMU_AXI0_WR_DATA_BEAT_WRITTEN", "ETHOSU_PMU_NPU_IDLE"],
    "u85": ["ETHOSU_PMU_SRAM_RD_DATA_BEAT_RECEIVED", "ETHOSU_PMU_SRAM_WR_DATA_BEAT_WRITTEN",
            "ETHOSU_PMU_EXT_RD_DATA_BEAT_RECEIVED", "ETHOSU_PMU_EXT_WR_DATA_BEAT_WRITTEN",
            "ETHOSU_PMU_NPU_IDLE", "ETHOSU_PMU_MAC_ACTIVE", "ETHOSU_PMU_WD_ACTIVE"],
}


def _log(line_no, fn, msg):
    return "I [executorch:arm_perf_monitor.cpp:%d %s()] %s" % (line_no, fn, msg)


def runner_log(etdump, spec):
    """The log text (str) for the ETDump bytes and the "ethosu_log" spec."""
    variant = spec.get("variant", "u55")
    events = EVENTS[variant]
    pmu = spec["pmu"]
    n = pmu["inferences"]
    counters = pmu["counters"]
    if len(counters) != len(events):
        raise ValueError("ethosu_log: %s has %d counters, %d given" % (variant, len(events), len(counters)))

    def per(v):
        return "%.2f" % (v / n)

    lines = [
        "Ethos-U device initialised",
        "I [executorch:arm_executor_runner.cpp:412 main()] Model in 0x70000000 $",
        "I [executorch:arm_executor_runner.cpp:520 main()] Input prepared.",
        _log(120, "StopMeasurements", "NPU Inferences : %d" % n),
        _log(121, "StopMeasurements", "NPU delegations: %d (%s per inference)" % (pmu["delegations"],
                                                                                   per(pmu["delegations"]))),
        _log(122, "StopMeasurements", "Profiler report, CPU cycles per operator:"),
        _log(130, "StopMeasurements", "ethos-u : cycle_cnt : %d cycles (%s per inference)" % (
            pmu["backend_cycles"], per(pmu["backend_cycles"]))),
        _log(140, "StopMeasurements", "Operator(s) total: %d CPU cycles (%s per inference)" % (
            pmu["operator_cycles"], per(pmu["operator_cycles"]))),
        _log(141, "StopMeasurements", "Inference runtime: %d CPU cycles total (%s per inference)" % (
            pmu["runtime_cycles"], per(pmu["runtime_cycles"]))),
        _log(142, "StopMeasurements", "NOTE: CPU cycle values and ratio calculations require FPGA and identical "
                                      "CPU/NPU frequency"),
        _log(146, "StopMeasurements", "Inference CPU ratio: 12.50 %"),
        _log(147, "StopMeasurements", "Inference NPU ratio: 87.50 %"),
        _log(150, "StopMeasurements", "cpu_wait_for_npu_cntr : %d CPU cycles (%s per inference)" % (
            pmu["wait_cycles"], per(pmu["wait_cycles"]))),
        _log(155, "StopMeasurements", "Ethos-U PMU report:"),
        _log(156, "StopMeasurements", "ethosu_pmu_cycle_cntr : % d (%s per inference)" % (
            pmu["npu_cycles"], per(pmu["npu_cycles"]))),
    ]
    for i, v in enumerate(counters):
        lines.append(_log(160, "StopMeasurements", "ethosu_pmu_cntr%d : %d (%s per inference)" % (i, v, per(v))))
    lines.append(_log(170, "StopMeasurements", "Ethos-U PMU Events:[%s]" % ", ".join(events)))
    lines.append("#[RUN THIS]")
    if spec.get("debug_buffer"):
        lines.append("# Writing debug_buffer.bin [base64]")
        lines.append('echo "%s" | base64 -d >debug_buffer.bin' %
                     base64.b64encode(bytes(spec["debug_buffer"])).decode("ascii"))
    lines.append("# Writing etdump.bin [base64]")
    lines.append('echo "%s" | base64 -d >etdump.bin' % base64.b64encode(etdump).decode("ascii"))
    lines.append("# Generate cpu cycle table with:")
    lines.append("python3 -m devtools.inspector.inspector_cli --etdump_path etdump.bin "
                 "--source_time_scale cycles --target_time_scale cycles")
    lines.append("#[END]")
    lines.append("Application exit code: 0.")
    eol = "\r\n" if spec.get("crlf") else "\n"
    return eol.join(lines) + eol
