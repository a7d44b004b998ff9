"""ETDump debug buffer writer (docs/formats/etdump-debug-buffer.md).

The runtime's event tracer copies each logged tensor into one debug buffer
and records the returned byte offset in the DebugEvent's Tensor.offset. Two
data sinks exist and both are reproduced here:

- "aligned": ExecuTorch's buffer sink. Each tensor starts at the next
  address aligned to `alignment` (64 by default); the gap is zero-filled.
  Alignment is of the address, so when the buffer itself starts `base` bytes
  past an aligned address (an allocator that only guarantees 16), the
  offsets are congruent to -base modulo the alignment, not multiples of it.
  The runner usually writes the whole buffer, so the file may be longer
  than what was used (`size`).
- "packed": the file sink. Tensors follow each other without padding.

An empty tensor is not written: its offset is -1 (the runtime returns
(size_t)-1 for it). Every execution appends to the same buffer.
"""

import math
import struct

# torch dtype name -> (struct code, element size); bfloat16 is special-cased
_CODES = {"float32": ("f", 4), "float64": ("d", 8), "float16": ("e", 2), "int8": ("b", 1),
          "uint8": ("B", 1), "int16": ("h", 2), "int32": ("i", 4), "int64": ("q", 8),
          "bool": ("?", 1), "uint16": ("H", 2), "bits16": ("H", 2), "uint32": ("I", 4),
          "uint64": ("Q", 8), "bfloat16": (None, 2)}


def _number(v):
    if isinstance(v, str):
        return {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}[v]
    return v


def encode(dtype, values):
    """Little-endian element bytes of `values` (flat list) as `dtype`."""
    code, _size = _CODES[dtype]
    vals = [_number(v) for v in values]
    if dtype == "bfloat16":
        out = bytearray()
        for v in vals:
            out += struct.pack("<I", struct.unpack("<I", struct.pack("<f", v))[0])[2:4]
        return bytes(out)
    if code == "?":
        vals = [bool(v) for v in vals]
    elif code not in "fde":
        vals = [int(v) for v in vals]
    return struct.pack("<%d%s" % (len(vals), code), *vals)


class DebugBuffer:
    """The buffer as a list of written pieces: zero tensors (`add_zeros`) are
    holes, so a gigabyte of zeros costs nothing until `write` makes a sparse
    file of it."""

    def __init__(self, layout="aligned", alignment=64, base=0):
        if layout not in ("aligned", "packed"):
            raise ValueError("debug buffer layout must be 'aligned' or 'packed', not %r" % layout)
        self.layout = layout
        self.alignment = alignment
        self.base = base
        self.pieces = []          # (offset, bytes)
        self.used = 0

    def _place(self, n):
        off = self.used
        if self.layout == "aligned":
            off += (-(self.base + off)) % self.alignment
        self.used = off + n
        return off

    def add(self, blob):
        """Append one tensor's bytes; returns its offset (-1 when empty)."""
        if not blob:
            return -1
        off = self._place(len(blob))
        self.pieces.append((off, bytes(blob)))
        return off

    def add_zeros(self, n):
        """Append a tensor of n zero bytes without materialising it."""
        return self._place(n) if n else -1

    def _size(self, size):
        if size is None:
            return self.used
        if size < self.used:
            raise ValueError("debug buffer_size %d is smaller than the %d bytes used" % (size, self.used))
        return size

    def bytes(self, size=None):
        """The buffer file: what was used, zero-filled to `size` when given."""
        out = bytearray(self._size(size))
        for off, blob in self.pieces:
            out[off:off + len(blob)] = blob
        return bytes(out)

    def write(self, path, size=None):
        """Write the buffer file, holes as a sparse file."""
        with open(path, "wb") as f:
            for off, blob in self.pieces:
                f.seek(off)
                f.write(blob)
            f.truncate(self._size(size))
