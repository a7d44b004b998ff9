"""fixturelib: writes coherent ExecuTorch artifact sets (ETRecord, ETDump, PTE)
for tests, the demo sample and the benchmark.

Design: every writer is a pure function from plain Python data to bytes, so
tests can call the pieces directly and tools/mkfixture.py only orchestrates.
  flatbuf     - back-to-front FlatBuffers builder (no flatc dependency)
  etdump      - ETDump writer (size-prefixed runtime form by default)
  pte         - PTE writer (plan, operators, delegates, eh00 header, segments)
  exported_program - ExportedProgram JSON (serde 5.4 and legacy 2023 forms)
  etrecord    - ETRecord ZIP writer (current and legacy layouts)
  nx          - VGF_NEURAL_STATISTICS payload (wrapper v1/v2, blobs, debug DB)
  vgf         - VGF helpers (SPIR-V scan for TOSA OpExtInst result ids)
  model       - description -> program model (handles, plan, executions)
  large       - fast writer for ~1M-event benchmark captures
Only the Python standard library is used.
"""
