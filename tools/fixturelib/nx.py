"""VGF_NEURAL_STATISTICS payload writer (docs/formats/nx-statistics.md §2-7).

Design: three layers, each usable alone by tests.
  1. blob bytes: frame() adds the 12-byte header; debug_database() renders the
     TAB-separated seven-section text from flat tables; statistics_info_*()
     and statistics_memory() render stripe lists and counter words.
  2. blob() wraps bytes into the wrapper's blob object (base64).
  3. wrapper() renders the compact JSON wrapper (schema v1 or v2) exactly in
     the producer's member order, returned as UTF-8 bytes for
     delegate_debug_metadata.
Counter layouts (section 5.2): Mali-G1/G2 x mode 0/1 words-per-task and
tasks-per-block, mode-1 word labels.
"""

import base64
import json
import struct

SCHEMA = "executorch.vgf.neural_statistics"
DEBUG_DB_MAGIC = 0x1122FFEE
STATS_INFO_MAGIC = 0x2211EEFF

# (device generation, mode) -> (words per task, tasks per block)
LAYOUT = {("Mali-G1", 0): (16, 512), ("Mali-G2", 0): (16, 1024),
          ("Mali-G1", 1): (32, 256), ("Mali-G2", 1): (64, 256)}

MODE1_WORDS = {
    "nx_active": 1, "dl_active": 2, "ir_active": 3, "wf_active": 4, "ce_active": 5,
    "ve_active": 6, "tu_active": 7, "ow_active": 8, "task_init_stall": 9,
    "rd_ll_stall": 10, "rd_hl_stall": 11, "dma_wr_stall": 12, "ir_idx_stall": 13,
    "ce_src0_stall": 14, "ce_src1_stall": 15, "ve_src0_ir_stall": 16,
    "ve_src0_ce_stall": 17, "ve_src0_ve_stall": 18, "ve_src0_tu_stall": 19,
    "ve_src1_ir_stall": 20, "ve_src1_ve_stall": 21, "ve_src1_tu_stall": 22,
    "tu_src0_ir_stall": 23, "tu_src0_ve_stall": 24, "tu_src0_tu_stall": 25,
    "ow_src0_ir_stall": 26, "ow_src0_ve_stall": 27, "ow_src0_tu_stall": 28,
    "ow_idx_stall": 29, "me_src0_stall": 31, "me_src1_stall": 32,
}
MODE_NAMES = ["VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS0_ARM",
              "VK_NEURAL_ACCELERATOR_STATISTICS_MODE_STATISTICS1_ARM"]
NO_LAYOUT_REASON = "No registered neural statistics counter layout for target"


def generation(device_name):
    """Mali-G1 / Mali-G2 from a device name (section 6.3), else None."""
    for g in ("Mali-G1", "Mali-G2"):
        if device_name == g or device_name.startswith(g + "-") or device_name.startswith(g + " "):
            return g
    return None


# -- layer 1: blob bytes ----------------------------------------------------

def frame(payload, magic, version=1, size=None):
    """12-byte framing header (u32 magic, version, payload size) + payload."""
    n = len(payload) if size is None else size
    return struct.pack("<III", magic, version, n) + bytes(payload)


def _cell(items):
    """List cell: every item followed by ';' (section 7.3 rule 3)."""
    return "".join("%s;" % i for i in items)


def debug_database(tosa_ops, fused_ops, chains, cascades, stripes, stripe_indexes=None):
    """Render the seven-section debug database text (str).
    tosa_ops: [(id, op_type, [labels])]; fused_ops: [(id, [tosa ids])];
    chains: [(id, [fused ids])]  (section `cascade_ops`);
    cascades: [(id, [chain ids])] (section `cascade_groups`);
    stripes: [(stripe_op_id, chain id, cascade id)];
    stripe_indexes: [(stripe index, stripe_op_id)] (default: identity)."""
    labels = []
    for _tid, _op, labs in tosa_ops:
        for lab in labs:
            if lab not in labels:
                labels.append(lab)
    sec = []
    sec.append(["id\ttosa_op\tapi_labels"] +
               ["%s\t%s\t%s" % (t, op, _cell(labs)) for t, op, labs in tosa_ops])
    sec.append(["id\tapi_label"] + ["%d\t%s" % (100 + i, lab) for i, lab in enumerate(labels)])
    sec.append(["id\ttosa_op_ids"] + ["%s\t%s" % (f, _cell(ts)) for f, ts in fused_ops])
    sec.append(["id\tfused_op_ids"] + ["%s\t%s" % (c, _cell(fs)) for c, fs in chains])
    sec.append(["id\tcascade_op_ids"] + ["%s\t%s" % (c, _cell(cs)) for c, cs in cascades])
    sec.append(["id\top_id\tcascade_op_id"] + ["%s\t%s\t%s" % s for s in stripes])
    if stripe_indexes is None:
        stripe_indexes = [(s[0], s[0]) for s in stripes]
    sec.append(["id\tstripe_op_id"] + ["%s\t%s" % s for s in stripe_indexes])
    return "\n----\n".join("\n".join(lines) for lines in sec) + "\n"


def statistics_info_binary(stripes):
    return struct.pack("<%dI" % len(stripes), *stripes)


def statistics_info_text(stripes):
    return ("%s\n" % ", ".join(str(s) for s in stripes)).encode("ascii")


def statistics_memory(device, mode, stripe_counters, tasks_per_stripe=1, extra_blocks=0):
    """Counter words for the stripes (block index = stripe id).
    stripe_counters: {stripe id: {label or "word<N>" or "section_<j>": value}}.
    Each value is split over `tasks_per_stripe` tasks (remainder on the
    first). Blocks before the highest stripe are written in full; the last
    block holds `tasks_per_stripe` tasks; `extra_blocks` appends unused zero
    blocks (the producer copies the whole allocation). Returns bytes."""
    W, T = LAYOUT[(device, mode)]
    if not stripe_counters:
        return b""
    top = max(stripe_counters)
    ntasks = top * T + tasks_per_stripe + extra_blocks * T
    words = [0] * (ntasks * W)
    for stripe, counters in stripe_counters.items():
        for label, value in counters.items():
            if label.startswith("word"):
                w = int(label[4:])
            elif label.startswith("section_"):
                w = int(label[8:])
            else:
                w = MODE1_WORDS[label]
            assert w < W, "word %d outside a %d-word task" % (w, W)
            base, rem = divmod(value, tasks_per_stripe)
            for t in range(tasks_per_stripe):
                words[(stripe * T + t) * W + w] += base + (1 if t < rem else 0)
    return struct.pack("<%dI" % len(words), *words)


# -- layer 2: blob objects --------------------------------------------------

def b64(data):
    return base64.b64encode(bytes(data)).decode("ascii")


def blob(data=None, is_text=False, reason="", size=None, encoding="base64",
         vulkan_result=None):
    """Wrapper blob object. data None = unavailable with `reason`."""
    if data is None:
        return {"available": False, "is_text": is_text,
                "vulkan_result": -1 if vulkan_result is None else vulkan_result,
                "size": 0, "encoding": encoding, "reason": reason, "data": ""}
    return {"available": True, "is_text": is_text,
            "vulkan_result": 0 if vulkan_result is None else vulkan_result,
            "size": len(data) if size is None else size, "encoding": encoding,
            "reason": "", "data": b64(data)}


def segment(segment_id, graph=True, debug_db=None, stats_info=None, memory=None,
            bind_reason=""):
    """Segment object; blob arguments are blob() objects (None = unavailable
    with the compute-segment reason for compute segments)."""
    if not graph:
        why = "Segment is not a data graph pipeline"
        debug_db = debug_db or blob(None, reason=why)
        stats_info = stats_info or blob(None, reason=why)
        memory = memory or blob(None, reason=why)
    seg = {"segment_id": segment_id, "is_data_graph_pipeline": graph,
           "statistics_bind_point_available": graph and not bind_reason,
           "statistics_memory_host_visible": graph,
           "statistics_memory_host_coherent": graph,
           "statistics_bind_point_reason": bind_reason,
           "debug_database": debug_db, "statistics_info": stats_info,
           "statistics_memory": memory}
    # a blob given as None is a missing member (decoder default: unavailable)
    return {k: v for k, v in seg.items() if v is not None}


# -- layer 3: wrapper JSON ----------------------------------------------------

def wrapper(segments, schema_version=2, mode=1, device_name="Mali-G2-Pro-NX MC1",
            vendor_id=5045, device_id=7, driver_version=11, target_available=True,
            layout=None, reason=None, api_available=True, extra=None):
    """The wrapper object (dict, member order = producer order).
    layout None = what the producer registers (L rule of section 2.5);
    True/False forces it; a dict overrides members."""
    data_available = any(s[k]["available"] for s in segments
                         for k in ("debug_database", "statistics_info", "statistics_memory")
                         if s.get(k) is not None)
    if reason is None:
        if not api_available:
            reason = "VK_ARM_data_graph neural accelerator property query API is unavailable"
        elif not segments:
            reason = "No VGF segments are available for collection"
        elif not data_available:
            reason = "VK_ARM_data_graph neural accelerator statistics data is not available"
        else:
            reason = ""
    w = {"schema": SCHEMA, "schema_version": schema_version, "backend": "VgfBackend",
         "api": "VK_ARM_data_graph", "event_name": "VGF_NEURAL_STATISTICS",
         "api_available": api_available, "data_available": data_available,
         "available": data_available, "reason": reason}
    if schema_version >= 2:
        w["statistics_mode"] = {"executorch_index": mode, "vulkan_value": mode + 1,
                                "vulkan_name": MODE_NAMES[mode]}
        w["target"] = {"available": target_available, "device_name": device_name,
                       "vendor_id": vendor_id, "device_id": device_id,
                       "driver_version": driver_version}
        gen = generation(device_name)
        registered = target_available and vendor_id == 0x13B5 and "Mali-G2" in device_name
        if isinstance(layout, bool):
            registered = layout
        if registered:
            w["counter_layout"] = {"available": True,
                                   "schema_id": "arm.mali-g2.neural-statistics.mode%d" % mode
                                   if gen != "Mali-G1" else
                                   "arm.mali-g1.neural-statistics.mode%d" % mode,
                                   "schema_version": 1, "endianness": "little",
                                   "word_type": "uint32", "words_per_task": 64,
                                   "leading_block_count": 1, "reason": ""}
        else:
            w["counter_layout"] = {"available": False, "schema_id": "", "schema_version": 0,
                                   "endianness": "little", "word_type": "uint32",
                                   "words_per_task": 0, "leading_block_count": 0,
                                   "reason": NO_LAYOUT_REASON}
        if isinstance(layout, dict):
            w["counter_layout"].update(layout)
    w["segments"] = segments
    if extra:
        w.update(extra)
    return w


def encode(wrapper_obj):
    """Compact producer JSON as UTF-8 bytes (no whitespace, non-ASCII copied)."""
    return json.dumps(wrapper_obj, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
