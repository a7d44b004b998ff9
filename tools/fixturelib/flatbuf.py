"""A small back-to-front FlatBuffers builder (standard library only).

Design: like the reference builders, the buffer is filled from its end
towards its start, so every object is complete before anything that refers
to it is written and every reference points forward, as the format requires.
Internally the data lives at the tail of a bytearray that doubles when full;
an object is named by its "ref" = number of bytes from the object to the end
of the buffer, which stays valid across growth.  Alignment is computed
relative to the end; finish() pads the whole buffer to the largest alignment
seen, which makes the relative alignment absolute.

Supported: tables (scalars omitted when equal to their default unless
forced, vtables trimmed of trailing absent slots and deduplicated), strings,
vectors of scalars / references (tables, strings) / raw bytes with a forced
alignment, unions (type slot + value slot), file identifier and size prefix.
No structs (no schema used here has any).
"""

import struct

_FMT = {
    "bool": ("<B", 1), "byte": ("<b", 1), "ubyte": ("<B", 1),
    "short": ("<h", 2), "ushort": ("<H", 2),
    "int": ("<i", 4), "uint": ("<I", 4), "float": ("<f", 4),
    "long": ("<q", 8), "ulong": ("<Q", 8), "double": ("<d", 8),
}


class Builder:
    """Back-to-front builder. Refs returned by the create_* / end_* methods
    are only meaningful to the same builder."""

    def __init__(self, initial=1024):
        self.buf = bytearray(initial)
        self.head = initial          # index of the first used byte
        self.minalign = 1
        self.vtables = {}            # vtable bytes -> ref (deduplication)
        self.fields = None           # open table: slot -> ref of the field
        self.field_sizes = None

    # -- raw placement -------------------------------------------------
    def used(self):
        return len(self.buf) - self.head

    def _grow(self, need):
        old = len(self.buf)
        new = old
        while new - old + self.head < need:
            new *= 2
        nb = bytearray(new)
        nb[new - old + self.head:] = self.buf[self.head:]
        self.head += new - old
        self.buf = nb

    def pad(self, n):
        if n:
            if self.head < n:
                self._grow(n)
            self.head -= n
            self.buf[self.head:self.head + n] = bytes(n)

    def prep(self, align, additional):
        """Pad so that after writing `additional` bytes the used size is a
        multiple of `align`."""
        if align > self.minalign:
            self.minalign = align
        padn = (-(self.used() + additional)) % align
        self.pad(padn)

    def place_bytes(self, data):
        n = len(data)
        if self.head < n:
            self._grow(n)
        self.head -= n
        self.buf[self.head:self.head + n] = data

    def place(self, kind, value):
        fmt, size = _FMT[kind]
        if self.head < size:
            self._grow(size)
        self.head -= size
        struct.pack_into(fmt, self.buf, self.head, value)

    def add_scalar(self, kind, value):
        self.prep(_FMT[kind][1], 0)
        self.place(kind, value)
        return self.used()

    def add_uoffset(self, ref):
        self.prep(4, 0)
        off = self.used() + 4 - ref
        assert off > 0, "uoffset must point forward"
        self.place("uint", off)
        return self.used()

    # -- strings and vectors --------------------------------------------
    def create_string(self, s):
        data = s.encode("utf-8") if isinstance(s, str) else bytes(s)
        self.prep(4, len(data) + 1)
        self.place_bytes(b"\0")
        self.place_bytes(data)
        self.place("uint", len(data))
        return self.used()

    def create_byte_vector(self, data, align=1):
        """Vector of ubyte/byte; `align` is the schema's force_align for the
        data (the length word stays 4-aligned)."""
        data = bytes(data)
        self.prep(4, len(data))
        self.prep(max(align, 1), len(data))
        self.place_bytes(data)
        self.place("uint", len(data))
        return self.used()

    def create_scalar_vector(self, kind, values, align=None):
        fmt, size = _FMT[kind]
        n = len(values)
        self.prep(4, size * n)
        self.prep(max(size, align or 1), size * n)
        if n:
            data = struct.pack("<%d%s" % (n, fmt[1]), *values)
            self.place_bytes(data)
        self.place("uint", n)
        return self.used()

    def create_offset_vector(self, refs):
        """Vector of tables or strings (refs already written)."""
        n = len(refs)
        self.prep(4, 4 * n)
        for ref in reversed(refs):
            self.add_uoffset(ref)
        self.place("uint", n)
        return self.used()

    # -- tables -------------------------------------------------------
    def start_table(self):
        assert self.fields is None, "nested table construction"
        self.fields = {}
        self.field_sizes = {}

    def add_field(self, slot, kind, value, default=0, force=False):
        if value is None or (value == default and not force):
            return
        self.fields[slot] = self.add_scalar(kind, value)
        self.field_sizes[slot] = _FMT[kind][1]

    def add_field_ref(self, slot, ref):
        if ref is None:
            return
        self.fields[slot] = self.add_uoffset(ref)
        self.field_sizes[slot] = 4

    def add_union(self, slot, type_value, ref):
        """Union at `slot` (type) and `slot + 1` (value)."""
        self.add_field(slot, "ubyte", type_value)
        self.add_field_ref(slot + 1, ref)

    def end_table(self):
        self.prep(4, 0)
        self.place("int", 0)  # soffset placeholder
        obj = self.used()
        nslots = (max(self.fields) + 1) if self.fields else 0
        slots = [0] * nslots
        for slot, ref in self.fields.items():
            slots[slot] = obj - ref
        while slots and slots[-1] == 0:
            slots.pop()
        # Inline size = soffset + fields; alignment padding written before the
        # first field is not counted, so equal tables share one vtable.
        data_end = min((ref - self.field_sizes[s] for s, ref in self.fields.items()),
                       default=obj - 4)
        table_size = obj - data_end
        vt = struct.pack("<%dH" % (2 + len(slots)), 4 + 2 * len(slots), table_size, *slots)
        vref = self.vtables.get(vt)
        if vref is None:
            self.place_bytes(vt)  # table start is 4-aligned, so u16s fit
            vref = self.used()
            self.vtables[vt] = vref
        pos = len(self.buf) - obj
        struct.pack_into("<i", self.buf, pos, vref - obj)
        self.fields = None
        return obj

    # -- finishing ----------------------------------------------------
    def finish(self, root, identifier=None, size_prefix=False):
        ident = identifier.encode("ascii") if identifier else b""
        extra = 4 + len(ident) + (4 if size_prefix else 0)
        self.prep(max(self.minalign, 4), extra)
        if ident:
            assert len(ident) == 4
            self.place_bytes(ident)
        self.add_uoffset(root)
        if size_prefix:
            self.place("uint", self.used())
        return bytes(self.buf[self.head:])


def table(b, fields):
    """Convenience: build a table from [(slot, kind, value[, default[, force]])]
    where kind 'ref' means an already-written ref. Returns the table ref."""
    b.start_table()
    for f in fields:
        slot, kind, value = f[0], f[1], f[2]
        if kind == "ref":
            b.add_field_ref(slot, value)
        else:
            default = f[3] if len(f) > 3 else 0
            force = f[4] if len(f) > 4 else False
            b.add_field(slot, kind, value, default, force)
    return b.end_table()
