#!/usr/bin/env python3
"""schemagen: one schema source for the FlatBuffers readers and the fixture builder.

Usage:
  python3 tools/schemagen.py            regenerate the committed files (`make schema`)
  python3 tools/schemagen.py --check    regenerate into a temporary directory and fail
                                        with a unified diff when a committed file differs
                                        (`make schema-check`, run by CI)
  Options: --schema-dir DIR (default tools/schema), --root DIR (where src/formats and
  tools/fixturelib live; default the repository), --out-dir DIR (write there instead of
  --root, same layout).

Design. Every tools/schema/X.fbs is parsed (tables, structs, enums, unions,
`(id: N)` attributes, deprecated fields, include statements; includes are
resolved so that a field typed with a union declared elsewhere still takes
its two slots) and turned into two committed files with the same names:
  src/formats/schema_X.h       C constants for the readers (src/formats/*.c),
                               one comment + one `enum { ... };` line per declaration
  tools/fixturelib/schema_X.py Python constants for the fixture builder
Names (docs/schema.md):
  <P>_SLOT_<TABLE>_<FIELD>       field id of a table field: the vtable entry
                                 4 + 2 * id; a union field `u` has two,
                                 <..>_U_TYPE (the ubyte tag, id - 1 when ids are
                                 explicit) and <..>_U (the value, one after);
  <P>_<ENUM>_<VALUE>             enum values and union tags (NONE = 0);
  <P>_OFFSET_<STRUCT>_<FIELD>,   byte offset of a struct field and a struct's
  <P>_SIZEOF_<STRUCT>            size (FlatBuffers struct layout);
  <P>_FILE_IDENTIFIER            the file_identifier string, when declared;
where <P> is the file stem in capitals (etdump.fbs -> ETDUMP) and every other
part is the schema name in capitals with words split at case changes
(ProfileEvent -> PROFILE_EVENT, ETDump -> ET_DUMP, start_time -> START_TIME).
An enum whose name already starts with <P> is not prefixed twice
(ScalarType in scalar_type.fbs -> SCALAR_TYPE_BYTE). Deprecated fields keep
their slot but get no constant (a reader naming one does not compile). Two
declarations that would give the same name are an error, as are the id
errors flatc reports (ids not consecutive from 0, some fields without id).

Standard library only; deterministic output (declaration order).
"""

import argparse
import difflib
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SCHEMA_DIR = os.path.join(ROOT, "tools", "schema")
C_DIR = os.path.join("src", "formats")
# A backend's own formats live in its folder (docs/architecture.md, "add a backend").
C_DIRS = {"vgf": os.path.join("src", "backends", "vgf", "formats")}


def c_dir(stem):
    """Where the C header of schema `stem` goes."""
    return C_DIRS.get(stem, C_DIR)
PY_DIR = os.path.join("tools", "fixturelib")

# scalar type -> (size in bytes, C type) ; aliases map to the same entries
SCALARS = {
    "bool": 1, "byte": 1, "ubyte": 1, "int8": 1, "uint8": 1,
    "short": 2, "ushort": 2, "int16": 2, "uint16": 2,
    "int": 4, "uint": 4, "int32": 4, "uint32": 4, "float": 4, "float32": 4,
    "long": 8, "ulong": 8, "int64": 8, "uint64": 8, "double": 8, "float64": 8,
}
INTEGER_TYPES = {"byte", "ubyte", "int8", "uint8", "short", "ushort", "int16", "uint16",
                 "int", "uint", "int32", "uint32", "long", "ulong", "int64", "uint64"}


class SchemaError(Exception):
    """A schema the generator refuses; the message names file and line."""


# ---------------------------------------------------------------- lexer

_TOKEN = re.compile(r"""
    (?P<ws>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>"(?:[^"\\\n]|\\.)*")
  | (?P<number>[-+]?(?:0[xX][0-9a-fA-F]+|(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)|[-+](?:inf|nan)\b)
  | (?P<ident>[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)
  | (?P<punct>[{}()\[\]:;,=])
""", re.S | re.X)


class Tok:
    __slots__ = ("kind", "text", "line")

    def __init__(self, kind, text, line):
        self.kind, self.text, self.line = kind, text, line

    def __repr__(self):
        return "%s %r (line %d)" % (self.kind, self.text, self.line)


def tokenize(text, path):
    toks = []
    pos, line = 0, 1
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            raise SchemaError("%s:%d: unexpected character %r" % (path, line, text[pos]))
        kind = m.lastgroup
        if kind not in ("ws", "comment"):
            toks.append(Tok(kind, m.group(), line))
        line += m.group().count("\n")
        pos = m.end()
    toks.append(Tok("eof", "", line))
    return toks


# ---------------------------------------------------------------- model

class Field:
    def __init__(self, name, type_, default, attrs, line):
        self.name, self.type, self.default, self.attrs, self.line = name, type_, default, attrs, line
        self.id = None          # value slot (union: the value field)
        self.is_union = False   # takes two slots: id - 1 (type) and id (value)
        self.offset = None      # structs: byte offset

    @property
    def deprecated(self):
        return "deprecated" in self.attrs


class Decl:
    """table / struct / enum / union declared in one file."""

    def __init__(self, kind, name, namespace, attrs, path, line):
        self.kind, self.name, self.namespace, self.attrs = kind, name, namespace, attrs
        self.path, self.line = path, line
        self.fields = []        # tables and structs
        self.values = []        # enums and unions: [(name, value, type name or None)]
        self.underlying = None  # enums: scalar type; unions: ubyte
        self.size = None        # structs
        self.align = None

    @property
    def full(self):
        return self.namespace + "." + self.name if self.namespace else self.name


class Schema:
    """One .fbs file (decls) plus everything its includes declare (known)."""

    def __init__(self, path):
        self.path = path
        self.stem = os.path.splitext(os.path.basename(path))[0]
        self.decls = []
        self.includes = []
        self.file_identifier = None
        self.file_extension = None
        self.root_type = None
        self.known = {}         # full name -> Decl (this file and its includes)


# ---------------------------------------------------------------- parser

class Parser:
    def __init__(self, toks, path, schema):
        self.toks, self.i, self.path, self.schema = toks, 0, path, schema
        self.namespace = ""

    def peek(self):
        return self.toks[self.i]

    def next(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def fail(self, tok, what):
        raise SchemaError("%s:%d: %s" % (self.path, tok.line, what))

    def expect(self, text):
        t = self.next()
        if t.text != text or t.kind == "string":
            self.fail(t, "expected %r, found %r" % (text, t.text or "end of file"))
        return t

    def ident(self):
        t = self.next()
        if t.kind != "ident":
            self.fail(t, "expected a name, found %r" % (t.text or "end of file"))
        return t.text

    def accept(self, text):
        if self.peek().text == text and self.peek().kind == "punct":
            self.i += 1
            return True
        return False

    def string(self):
        t = self.next()
        if t.kind != "string":
            self.fail(t, "expected a string, found %r" % t.text)
        return t.text[1:-1]

    def attributes(self):
        """(name: value, flag, ...) -> {name: value or True}"""
        attrs = {}
        if not self.accept("("):
            return attrs
        while not self.accept(")"):
            t = self.next()
            if t.kind not in ("ident", "string"):
                self.fail(t, "expected an attribute name, found %r" % t.text)
            name = t.text.strip('"')
            value = True
            if self.accept(":"):
                v = self.next()
                if v.kind not in ("number", "ident", "string"):
                    self.fail(v, "expected an attribute value, found %r" % v.text)
                value = v.text
            attrs[name] = value
            if not self.accept(","):
                self.expect(")")
                break
        return attrs

    def type_(self):
        """'name' | '[name]' | '[name:N]' -> (kind, name, length)"""
        if self.accept("["):
            name = self.ident()
            length = None
            if self.accept(":"):
                n = self.next()
                if n.kind != "number":
                    self.fail(n, "expected an array length")
                length = int(n.text, 0)
            self.expect("]")
            return ("array" if length is not None else "vector", name, length)
        return ("single", self.ident(), None)

    def parse(self):
        s = self.schema
        while self.peek().kind != "eof":
            t = self.next()
            kw = t.text
            if t.kind != "ident":
                self.fail(t, "unexpected %r" % kw)
            if kw == "include":
                s.includes.append((self.string(), t.line))
                self.expect(";")
            elif kw == "namespace":
                self.namespace = self.ident()
                self.expect(";")
            elif kw == "attribute":
                self.next()
                self.expect(";")
            elif kw == "root_type":
                s.root_type = self.ident()
                self.expect(";")
            elif kw == "file_identifier":
                s.file_identifier = self.string()
                if len(s.file_identifier) != 4:
                    self.fail(t, "file_identifier must have 4 characters")
                self.expect(";")
            elif kw == "file_extension":
                s.file_extension = self.string()
                self.expect(";")
            elif kw in ("table", "struct"):
                self.table(kw, t)
            elif kw in ("enum", "union"):
                self.enum(kw, t)
            elif kw == "rpc_service":
                self.ident()
                self.expect("{")
                depth = 1
                while depth:
                    x = self.next()
                    if x.kind == "eof":
                        self.fail(x, "unterminated rpc_service")
                    depth += {"{": 1, "}": -1}.get(x.text, 0) if x.kind == "punct" else 0
            else:
                self.fail(t, "unknown declaration %r" % kw)
        return s

    def table(self, kind, tok):
        name = self.ident()
        d = Decl(kind, name, self.namespace, self.attributes(), self.path, tok.line)
        self.expect("{")
        while not self.accept("}"):
            ft = self.peek()
            fname = self.ident()
            self.expect(":")
            ftype = self.type_()
            default = None
            if self.accept("="):
                v = self.next()
                if v.kind not in ("number", "ident", "string"):
                    self.fail(v, "expected a default value")
                default = v.text
            attrs = self.attributes()
            self.expect(";")
            if any(f.name == fname for f in d.fields):
                self.fail(ft, "field %s declared twice in %s" % (fname, name))
            d.fields.append(Field(fname, ftype, default, attrs, ft.line))
        self.schema.decls.append(d)

    def enum(self, kind, tok):
        name = self.ident()
        underlying = "ubyte"
        if kind == "enum":
            self.expect(":")
            underlying = self.ident()
            if underlying not in INTEGER_TYPES:
                self.fail(tok, "enum %s: underlying type %s is not an integer type" % (name, underlying))
        d = Decl(kind, name, self.namespace, self.attributes(), self.path, tok.line)
        d.underlying = underlying
        self.expect("{")
        nxt = 1 if kind == "union" else 0
        if kind == "union":
            d.values.append(("NONE", 0, None))
        bit_flags = "bit_flags" in d.attrs
        while not self.accept("}"):
            vt = self.peek()
            vname = self.ident()
            vtype = None
            if kind == "union":
                vtype = vname
                if self.accept(":"):
                    vtype = self.ident()
                vname = vname.split(".")[-1]
            elif "." in vname:
                self.fail(vt, "enum value %s: dotted name" % vname)
            value = nxt
            if self.accept("="):
                n = self.next()
                if n.kind != "number":
                    self.fail(n, "expected a number")
                value = int(n.text, 0)
            if any(v[0] == vname for v in d.values):
                self.fail(vt, "%s %s: value %s declared twice" % (kind, name, vname))
            if d.values and value < d.values[-1][1]:
                self.fail(vt, "%s %s: values must be ascending (%s)" % (kind, name, vname))
            nxt = value + 1
            d.values.append((vname, (1 << value) if bit_flags else value, vtype))
            if not self.accept(","):
                self.expect("}")
                break
        self.schema.decls.append(d)


# ---------------------------------------------------------------- resolution

def _resolve(schema, name, namespace):
    """Decl for a type name seen in `namespace` (inner namespaces first)."""
    parts = namespace.split(".") if namespace else []
    for k in range(len(parts), -1, -1):
        full = ".".join(parts[:k] + [name])
        if full in schema.known:
            return schema.known[full]
    return None


def load(path, _seen=None, _cache=None):
    """Parse `path` and its includes; returns its Schema with slots assigned."""
    path = os.path.abspath(path)
    cache = {} if _cache is None else _cache
    seen = set() if _seen is None else _seen
    if path in cache:
        return cache[path]
    if path in seen:
        raise SchemaError("%s: include cycle" % path)
    seen.add(path)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    schema = Parser(tokenize(text, path), path, Schema(path)).parse()
    for inc, line in schema.includes:
        ipath = os.path.join(os.path.dirname(path), inc)
        if not os.path.exists(ipath):
            raise SchemaError("%s:%d: include %s not found" % (path, line, inc))
        schema.known.update(load(ipath, seen, cache).known)
    for d in schema.decls:
        if d.full in schema.known:
            raise SchemaError("%s:%d: %s declared twice" % (path, d.line, d.full))
        schema.known[d.full] = d
    seen.discard(path)
    for d in schema.decls:
        if d.kind == "table":
            _assign_ids(schema, d)
    for d in schema.decls:
        if d.kind == "struct":
            _layout(schema, d, set())
        elif d.kind == "union":
            for vname, _v, vtype in d.values[1:]:
                t = _resolve(schema, vtype, d.namespace)
                if t is None or t.kind != "table":
                    raise SchemaError("%s:%d: union %s member %s is not a table" % (path, d.line, d.name, vname))
    cache[path] = schema
    return schema


def _field_decl(schema, table, f):
    kind, tname, _length = f.type
    if tname in SCALARS or tname == "string":
        return None
    t = _resolve(schema, tname, table.namespace)
    if t is None:
        raise SchemaError("%s:%d: %s.%s: unknown type %s" % (table.path, f.line, table.name, f.name, tname))
    return t


def _assign_ids(schema, table):
    for f in table.fields:
        t = _field_decl(schema, table, f)
        f.is_union = t is not None and t.kind == "union"
        if f.type[0] == "array":
            raise SchemaError("%s:%d: %s.%s: fixed-length arrays are only allowed in structs"
                              % (table.path, f.line, table.name, f.name))
    with_id = [f for f in table.fields if "id" in f.attrs]
    if with_id and len(with_id) != len(table.fields):
        f = next(f for f in table.fields if "id" not in f.attrs)
        raise SchemaError("%s:%d: %s.%s has no id while other fields of %s have one"
                          % (table.path, f.line, table.name, f.name, table.name))
    if with_id:
        used = {}
        for f in table.fields:
            try:
                f.id = int(f.attrs["id"], 0)
            except (TypeError, ValueError):
                raise SchemaError("%s:%d: %s.%s: id must be a number" % (table.path, f.line, table.name, f.name))
            if f.is_union and f.id < 1:
                raise SchemaError("%s:%d: %s.%s: a union's id must be at least 1 (its type field takes id - 1)"
                                  % (table.path, f.line, table.name, f.name))
            for slot in ((f.id - 1, f.id) if f.is_union else (f.id,)):
                if slot in used:
                    raise SchemaError("%s:%d: %s.%s: id %d is already taken by %s"
                                      % (table.path, f.line, table.name, f.name, slot, used[slot]))
                used[slot] = f.name
        missing = [i for i in range(len(used)) if i not in used]
        if missing:
            raise SchemaError("%s:%d: %s: field ids must be consecutive from 0; id %d is missing"
                              % (table.path, table.line, table.name, missing[0]))
    else:
        nxt = 0
        for f in table.fields:
            f.id = nxt + 1 if f.is_union else nxt
            nxt = f.id + 1


def _size_align(schema, owner, f, busy):
    kind, tname, length = f.type
    if kind == "vector" or tname == "string":
        raise SchemaError("%s:%d: struct %s.%s: structs hold scalars, structs and fixed arrays only"
                          % (owner.path, f.line, owner.name, f.name))
    if tname in SCALARS:
        size = align = SCALARS[tname]
    else:
        t = _resolve(schema, tname, owner.namespace)
        if t is None:
            raise SchemaError("%s:%d: %s.%s: unknown type %s" % (owner.path, f.line, owner.name, f.name, tname))
        if t.kind == "enum":
            size = align = SCALARS[t.underlying]
        elif t.kind == "struct":
            _layout(schema, t, busy)
            size, align = t.size, t.align
        else:
            raise SchemaError("%s:%d: struct %s.%s: %s %s cannot be a struct member"
                              % (owner.path, f.line, owner.name, f.name, t.kind, tname))
    if kind == "array":
        size *= length
    return size, align


def _layout(schema, d, busy):
    """FlatBuffers struct layout: each field aligned to its own alignment, the
    struct to the largest one (or force_align), the size rounded up to it."""
    if d.size is not None:
        return
    if d.full in busy:
        raise SchemaError("%s:%d: struct %s contains itself" % (d.path, d.line, d.name))
    busy.add(d.full)
    off, align = 0, 1
    for f in d.fields:
        if f.deprecated:
            raise SchemaError("%s:%d: struct %s.%s: struct fields cannot be deprecated"
                              % (d.path, f.line, d.name, f.name))
        size, a = _size_align(schema, d, f, busy)
        off = (off + a - 1) // a * a
        f.offset = off
        off += size
        align = max(align, a)
    if "force_align" in d.attrs:
        fa = int(d.attrs["force_align"], 0)
        if fa < align or fa & (fa - 1):
            raise SchemaError("%s:%d: struct %s: force_align %d must be a power of two >= %d"
                              % (d.path, d.line, d.name, fa, align))
        align = fa
    d.align = align
    d.size = (off + align - 1) // align * align
    busy.discard(d.full)


# ---------------------------------------------------------------- names

def words(name):
    """ProfileEvent -> PROFILE_EVENT, ETDump -> ET_DUMP, start_time -> START_TIME,
    QUINT4X2 -> QUINT4X2, Conv2D -> CONV2D."""
    s = re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name)
    s = re.sub(r"(?<=[A-Z])(?=[A-Z][a-z])", "_", s)
    return s.upper()


def prefix(schema):
    return words(schema.stem)


def constants(schema):
    """[(section title, [(name, value, comment, label)])] in declaration order;
    label is the schema's own name of the field or value (None: deprecated slot)."""
    p = prefix(schema)
    out = []
    if schema.file_identifier:
        out.append(("file_identifier", [(p + "_FILE_IDENTIFIER", schema.file_identifier, None, None)]))
    for d in schema.decls:
        title = "%s %s" % (d.kind, d.full)
        items = []
        if d.kind in ("enum", "union"):
            stem = words(d.name)
            base = stem if stem == p or stem.startswith(p + "_") else p + "_" + stem
            title += " : %s" % d.underlying if d.kind == "enum" else ""
            for vname, value, vtype in d.values:
                note = None
                if d.kind == "union" and vtype is not None and vtype.split(".")[-1] != vname:
                    note = vtype
                items.append((base + "_" + words(vname), value, note, vname))
        elif d.kind == "table":
            base = p + "_SLOT_" + words(d.name)
            for f in sorted(d.fields, key=lambda f: f.id):
                tdesc = _type_text(f)
                if f.deprecated:
                    items.append((None, f.id, "slot %d: %s (deprecated, no constant)" % (f.id, f.name), None))
                    continue
                if f.is_union:
                    items.append((base + "_" + words(f.name) + "_TYPE", f.id - 1, "ubyte tag of " + f.name,
                                  f.name + "_type"))
                items.append((base + "_" + words(f.name), f.id, tdesc, f.name))
        else:
            for f in d.fields:
                items.append((p + "_OFFSET_" + words(d.name) + "_" + words(f.name), f.offset, _type_text(f), f.name))
            items.append((p + "_SIZEOF_" + words(d.name), d.size, "alignment %d" % d.align, "sizeof"))
        out.append((title, items))
    seen = {}
    for _title, items in out:
        for name, _v, _c, _l in items:
            if name is None:
                continue
            if name in seen:
                raise SchemaError("%s: two declarations give the name %s (%s and %s)"
                                  % (schema.path, name, seen[name], _title))
            seen[name] = _title
    return out


def _type_text(f):
    kind, tname, length = f.type
    text = "[%s]" % tname if kind == "vector" else "[%s:%d]" % (tname, length) if kind == "array" else tname
    if f.default is not None:
        text += " = " + f.default
    return text


# ---------------------------------------------------------------- writers

def _rel(path):
    try:
        rel = os.path.relpath(path, ROOT)
    except ValueError:
        return path
    return path if rel.startswith("..") else rel.replace(os.sep, "/")


def _source_name(schema):
    rel = _rel(schema.path)
    return rel if not os.path.isabs(rel) else "tools/schema/" + os.path.basename(schema.path)


def c_header(schema):
    src = _source_name(schema)
    guard = "MLIA_FORMATS_SCHEMA_%s_H" % prefix(schema)
    lines = [
        "/*",
        " * schema_%s.h - generated by tools/schemagen.py from %s; do not edit." % (schema.stem, src),
        " * Regenerate with `make schema`; `make schema-check` (CI) fails when this file",
        " * and the schema differ. Names: docs/schema.md.",
    ]
    if schema.includes:
        lines.append(" * Includes: %s (constants in their own schema_*.h)."
                     % ", ".join(i for i, _l in schema.includes))
    lines += [" */", "#ifndef " + guard, "#define " + guard]
    for title, items in constants(schema):
        lines.append("")
        if title == "file_identifier":
            lines.append("/* %s */" % title)
            lines.append('#define %s "%s"' % (items[0][0], items[0][1]))
            continue
        # one declaration, one line: the field types (and deprecated slots) in
        # the comment above, the constants in one enum below it
        sep = " = " if title.startswith("union") else " "
        notes = [label + sep + c if name else c for name, _v, c, label in items if c]
        if notes:
            title += ": " + ", ".join(notes)
        elif not items:
            title += " (no fields)"
        lines.append("/* %s */" % title.replace("*/", "* /"))
        named = []
        for name, value, _comment, _label in items:
            if name is None:
                continue
            if not -2**31 <= value < 2**31:
                raise SchemaError("%s: %s = %d does not fit a C enum constant" % (schema.path, name, value))
            named.append("%s = %d" % (name, value))
        if named:
            lines.append("enum { %s };" % ", ".join(named))
    lines.append("")
    lines.append("#endif")
    return "\n".join(lines) + "\n"


def py_module(schema):
    src = _source_name(schema)
    lines = [
        '"""schema_%s - generated by tools/schemagen.py from %s; do not edit.' % (schema.stem, src),
        "",
        "Regenerate with `make schema`; `make schema-check` (CI) fails when this file and",
        "the schema differ. Same names as %s/schema_%s.h (docs/schema.md)." % (c_dir(schema.stem).replace(os.sep, "/"), schema.stem),
        '"""',
        "",
    ]
    for title, items in constants(schema):
        lines.append("# " + title + ("" if items else " (no fields)"))
        for name, value, comment, _label in items:
            if name is None:
                lines.append("# " + comment)
            elif isinstance(value, str):
                lines.append('%s = "%s"' % (name, value))
            else:
                lines.append("%s = %d%s" % (name, value, "  # " + comment if comment else ""))
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


def outputs(schema_dir):
    """{relative path: text} of every generated file."""
    files = {}
    for name in sorted(os.listdir(schema_dir)):
        if not name.endswith(".fbs"):
            continue
        schema = load(os.path.join(schema_dir, name))
        files[os.path.join(c_dir(schema.stem), "schema_%s.h" % schema.stem)] = c_header(schema)
        files[os.path.join(PY_DIR, "schema_%s.py" % schema.stem)] = py_module(schema)
    return files


def write(files, root):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        old = None
        if os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                old = f.read()
        if old != text:
            with open(path, "w", encoding="utf-8") as f:
                f.write(text)


def stale_files(root, files):
    """Generated-looking files under root that no schema produces any more."""
    extra = []
    dirs = [(d, re.compile(r"^schema_\w+\.h$")) for d in sorted({C_DIR, *C_DIRS.values()})]
    for d, pat in dirs + [(PY_DIR, re.compile(r"^schema_\w+\.py$"))]:
        full = os.path.join(root, d)
        if not os.path.isdir(full):
            continue
        for name in sorted(os.listdir(full)):
            rel = os.path.join(d, name)
            if pat.match(name) and rel not in files:
                with open(os.path.join(full, name), encoding="utf-8", errors="replace") as f:
                    if "generated by tools/schemagen.py" in f.read(400):
                        extra.append(rel)
    return extra


def check(files, root, out=sys.stdout):
    """Regenerate into a temporary directory and diff against root. Returns
    the number of differing files."""
    bad = 0
    with tempfile.TemporaryDirectory(prefix="mlia-schemagen-") as tmp:
        write(files, tmp)
        for rel in sorted(files):
            with open(os.path.join(tmp, rel), encoding="utf-8") as f:
                new = f.read()
            path = os.path.join(root, rel)
            old = ""
            if os.path.exists(path):
                with open(path, encoding="utf-8") as f:
                    old = f.read()
            if old != new:
                bad += 1
                out.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                    "a/" + rel.replace(os.sep, "/"),
                                                    "b/" + rel.replace(os.sep, "/")))
    for rel in stale_files(root, files):
        bad += 1
        out.write("%s: generated file without a schema in the schema directory\n" % rel)
    return bad


def main(argv=None):
    ap = argparse.ArgumentParser(description="Generate named FlatBuffers slots from tools/schema/*.fbs.")
    ap.add_argument("--schema-dir", default=SCHEMA_DIR)
    ap.add_argument("--root", default=ROOT, help="tree holding src/formats and tools/fixturelib")
    ap.add_argument("--out-dir", help="write the generated files here instead of --root")
    ap.add_argument("--check", action="store_true", help="fail with a diff when --root's files are stale")
    args = ap.parse_args(argv)
    try:
        files = outputs(args.schema_dir)
    except SchemaError as e:
        print("schemagen: %s" % e, file=sys.stderr)
        return 1
    if args.check:
        bad = check(files, args.root)
        if bad:
            print("schemagen: %d generated file(s) differ from %s; run `make schema` and commit the result"
                  % (bad, _rel(args.schema_dir)), file=sys.stderr)
            return 1
        print("schemagen: %d generated files up to date" % len(files))
        return 0
    write(files, args.out_dir or args.root)
    return 0


if __name__ == "__main__":
    sys.exit(main())
