"""The one schema source (tools/schemagen.py, docs/schema.md).

- the committed generated files (src/formats/schema_*.h, tools/fixturelib/schema_*.py)
  are what the generator writes from tools/schema/*.fbs (the `make schema-check` step);
- the slot numbers, enum and union values and struct layouts agree with flatc's own:
  `flatc --python` writes builder functions such as
  `def ProfileEventAddStartTime(builder, startTime): builder.PrependUint64Slot(6, ...)`,
  so the slot flatc assigns to every field is read from its output and compared with
  the generated constant of that field (for every repository schema, and for a test
  schema with explicit ids, a union with an id, deprecated fields, structs, bit flags
  and an include);
- a field inserted in the middle of a table shifts the generated slots after it, and
  `--check` then fails with a diff naming the moved constant;
- the readers and the fixture builder name every slot (no numeric literal left);
- schemas flatc would refuse are refused with file and line.
"""
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

from helpers import ROOT

sys.path.insert(0, os.path.join(ROOT, "tools"))
import schemagen  # noqa: E402

SCHEMA = os.path.join(ROOT, "tools", "schema")


def load_module(path):
    spec = importlib.util.spec_from_file_location(os.path.splitext(os.path.basename(path))[0], path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def camel(name):
    """flatc's Python method spelling of a field name: start_time -> StartTime."""
    return "".join(p[:1].upper() + p[1:] for p in name.split("_"))


_ADD = r"^def %sAdd(\w+)\(builder, \w+\): builder\.Prepend\w*Slot\((\d+),"
_START = re.compile(r"^def (\w+)Start\(builder\): builder\.StartObject\((\d+)\)", re.M)
_SIZEOF = re.compile(r"def SizeOf\(cls\):\s*return (\d+)")
_STRUCT_FIELD = re.compile(r"def (\w+)\(self[^)]*\):(?: return |\s+obj\.Init\().*?self\._tab\.Pos \+ "
                           r"(?:flatbuffers\.number_types\.UOffsetTFlags\.py_type\()?(\d+)")
_ENUM_VALUE = re.compile(r"^    (\w+) = (-?\d+)$", re.M)


def flatc_model(fbs, include_dir):
    """What flatc makes of one schema file: {full name: description}, read from
    the code `flatc --python` generates (only the file's own declarations)."""
    out = tempfile.mkdtemp(prefix="mlia-flatc-py-")
    try:
        subprocess.run(["flatc", "--python", "-o", out, "-I", include_dir, fbs], check=True,
                       capture_output=True, text=True)
        model = {}
        for d, _dirs, files in os.walk(out):
            for name in files:
                if not name.endswith(".py") or name == "__init__.py":
                    continue
                with open(os.path.join(d, name)) as f:
                    text = f.read()
                ns = os.path.relpath(d, out).replace(os.sep, ".")
                full = (ns + "." if ns != "." else "") + name[:-3]
                start = _START.search(text)
                if start:
                    model[full] = {"kind": "table", "nslots": int(start.group(2)),
                                   "slots": {m.group(1): int(m.group(2))
                                             for m in re.finditer(_ADD % name[:-3], text, re.M)}}
                elif _SIZEOF.search(text):
                    model[full] = {"kind": "struct", "size": int(_SIZEOF.search(text).group(1)),
                                   "offsets": {m.group(1): int(m.group(2))
                                               for m in _STRUCT_FIELD.finditer(text)}}
                else:
                    model[full] = {"kind": "enum",
                                   "values": {m.group(1): int(m.group(2)) for m in _ENUM_VALUE.finditer(text)}}
        return model
    finally:
        shutil.rmtree(out, ignore_errors=True)


def compare_with_flatc(test, fbs, generated):
    """Every constant of the generated Python module `generated` for schema file
    `fbs` against flatc's assignment; every flatc field has its constant."""
    schema = schemagen.load(fbs)
    theirs = flatc_model(fbs, os.path.dirname(fbs))
    p = schemagen.prefix(schema)
    ours = {d.full: d for d in schema.decls}
    test.assertEqual(sorted(theirs), sorted(ours), fbs)
    checked = 0
    for full, d in ours.items():
        ref = theirs[full]
        if d.kind == "table":
            test.assertEqual(ref["kind"], "table", full)
            base = p + "_SLOT_" + schemagen.words(d.name) + "_"
            live = [f for f in d.fields if not f.deprecated]
            expect = {}
            for f in live:
                expect[camel(f.name)] = getattr(generated, base + schemagen.words(f.name))
                if f.is_union:
                    expect[camel(f.name) + "Type"] = getattr(generated, base + schemagen.words(f.name) + "_TYPE")
            test.assertEqual(expect, ref["slots"], full)
            test.assertEqual(max([f.id for f in d.fields] + [-1]) + 1, ref["nslots"], full)
            checked += len(expect)
        elif d.kind == "struct":
            test.assertEqual(ref["kind"], "struct", full)
            test.assertEqual(getattr(generated, p + "_SIZEOF_" + schemagen.words(d.name)), ref["size"], full)
            got = {camel(f.name): getattr(generated, p + "_OFFSET_" + schemagen.words(d.name) + "_"
                                          + schemagen.words(f.name)) for f in d.fields}
            test.assertEqual(got, ref["offsets"], full)
            checked += len(got) + 1
        else:
            stem = schemagen.words(d.name)
            base = stem if stem == p or stem.startswith(p + "_") else p + "_" + stem
            got = {v: getattr(generated, base + "_" + schemagen.words(v)) for v, _x, _t in d.values}
            test.assertEqual(got, ref["values"], full)
            checked += len(got)
    return checked


def generate(schema_dir, root):
    files = schemagen.outputs(schema_dir)
    schemagen.write(files, root)
    return files


# A schema using what the repository's schemas do not: explicit ids (in another
# order than the declarations), a union with an id (its tag takes id - 1), a
# deprecated field, structs (nested, fixed array, force_align), bit flags, two
# namespaces and an include.
EXTRA_INC = """
namespace other.inner;
enum Colour : short { Red = -1, Green, Blue = 7 }
struct Pair { a: ubyte; b: double; }
"""
EXTRA = """
include "extra_inc.fbs";
namespace t;
attribute "priority";
enum Flags : ubyte (bit_flags) { One, Two, Eight = 3 }
struct Inner { x: byte; y: [short:3]; p: other.inner.Pair; }
struct Outer (force_align: 16) { i: Inner; z: int; }
table A { v: int; }
table B { w: [A]; }
union U { A, Bee: B }
table T {
  u: U (id: 4);
  s: Outer (id: 0);
  old: int (id: 1, deprecated);
  list: [A] (id: 2, priority: 1);
  name: string (id: 5);
  colour: other.inner.Colour = Blue (id: 6);
  flags: Flags (id: 7);
}
table Auto { a: int; u: U; b: string (deprecated); c: [ubyte]; u2: U; }
root_type T;
"""


class SchemaGen(unittest.TestCase):
    maxDiff = None

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="mlia-schemagen-test-")

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, rel, text):
        path = os.path.join(self.tmp, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(text)
        return path

    # ------------------------------------------------------------ committed files
    def test_committed_files_are_up_to_date(self):
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "schemagen.py"), "--check"],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        n = len([f for f in os.listdir(SCHEMA) if f.endswith(".fbs")])
        self.assertEqual(p.stdout, "schemagen: %d generated files up to date\n" % (2 * n))

    def test_one_header_and_one_module_per_schema(self):
        files = schemagen.outputs(SCHEMA)
        for name in sorted(os.listdir(SCHEMA)):
            if name.endswith(".fbs"):
                stem = name[:-4]
                for rel in (os.path.join(schemagen.c_dir(stem), "schema_%s.h" % stem), "tools/fixturelib/schema_%s.py" % stem):
                    self.assertIn(os.path.normpath(rel), files)
                    with open(os.path.join(ROOT, rel)) as f:
                        head = f.read(300)
                    self.assertIn("generated by tools/schemagen.py from tools/schema/%s; do not edit" % name, head)

    # ------------------------------------------------------------ against flatc
    @unittest.skipUnless(shutil.which("flatc"), "flatc not installed")
    def test_repository_schemas_agree_with_flatc(self):
        total = 0
        for name in sorted(os.listdir(SCHEMA)):
            if name.endswith(".fbs"):
                mod = load_module(os.path.join(ROOT, "tools", "fixturelib", "schema_%s" % name.replace(".fbs", ".py")))
                total += compare_with_flatc(self, os.path.join(SCHEMA, name), mod)
        self.assertGreater(total, 200)

    @unittest.skipUnless(shutil.which("flatc"), "flatc not installed")
    def test_ids_unions_structs_deprecated_agree_with_flatc(self):
        self.write("schema/extra_inc.fbs", EXTRA_INC)
        fbs = self.write("schema/extra.fbs", EXTRA)
        generate(os.path.join(self.tmp, "schema"), os.path.join(self.tmp, "out"))
        mod = load_module(os.path.join(self.tmp, "out", "tools", "fixturelib", "schema_extra.py"))
        compare_with_flatc(self, fbs, mod)
        compare_with_flatc(self, os.path.join(self.tmp, "schema", "extra_inc.fbs"),
                           load_module(os.path.join(self.tmp, "out", "tools", "fixturelib", "schema_extra_inc.py")))
        # the facts themselves
        self.assertEqual((mod.EXTRA_SLOT_T_U_TYPE, mod.EXTRA_SLOT_T_U), (3, 4))
        self.assertFalse(hasattr(mod, "EXTRA_SLOT_T_OLD"))
        self.assertEqual((mod.EXTRA_SLOT_AUTO_U_TYPE, mod.EXTRA_SLOT_AUTO_U, mod.EXTRA_SLOT_AUTO_C,
                          mod.EXTRA_SLOT_AUTO_U2_TYPE, mod.EXTRA_SLOT_AUTO_U2), (1, 2, 4, 5, 6))
        self.assertEqual((mod.EXTRA_U_NONE, mod.EXTRA_U_A, mod.EXTRA_U_BEE), (0, 1, 2))
        self.assertEqual((mod.EXTRA_FLAGS_ONE, mod.EXTRA_FLAGS_TWO, mod.EXTRA_FLAGS_EIGHT), (1, 2, 8))
        self.assertEqual((mod.EXTRA_OFFSET_INNER_Y, mod.EXTRA_OFFSET_INNER_P, mod.EXTRA_SIZEOF_INNER), (2, 8, 24))
        self.assertEqual((mod.EXTRA_OFFSET_OUTER_Z, mod.EXTRA_SIZEOF_OUTER), (24, 32))
        with open(os.path.join(self.tmp, "out", "src", "formats", "schema_extra.h")) as f:
            header = f.read()
        # one line of constants per declaration, the schema's words in the comment above it
        self.assertIn("/* table t.T: s Outer, slot 1: old (deprecated, no constant), list [A], u_type ubyte tag of u,"
                      " u U, name string, colour other.inner.Colour = Blue, flags Flags */\n"
                      "enum { EXTRA_SLOT_T_S = 0, EXTRA_SLOT_T_LIST = 2, EXTRA_SLOT_T_U_TYPE = 3, EXTRA_SLOT_T_U = 4,"
                      " EXTRA_SLOT_T_NAME = 5, EXTRA_SLOT_T_COLOUR = 6, EXTRA_SLOT_T_FLAGS = 7 };\n", header)
        self.assertIn("/* union t.U: Bee = B */\nenum { EXTRA_U_NONE = 0, EXTRA_U_A = 1, EXTRA_U_BEE = 2 };\n", header)
        self.assertIn("/* struct t.Outer: i Inner, z int, sizeof alignment 16 */\n"
                      "enum { EXTRA_OFFSET_OUTER_I = 0, EXTRA_OFFSET_OUTER_Z = 24, EXTRA_SIZEOF_OUTER = 32 };\n", header)

    @unittest.skipUnless(shutil.which("cc"), "no C compiler")
    def test_generated_headers_compile_together(self):
        src = self.write("all.c", "".join('#include "%s/schema_%s.h"\n' % (os.path.relpath(
                                              schemagen.c_dir(n[:-4]), "src"), n[:-4])
                                          for n in sorted(os.listdir(SCHEMA)) if n.endswith(".fbs"))
                         + "int main(void) { return ETDUMP_SLOT_PROFILE_EVENT_START_TIME - 6; }\n")
        exe = os.path.join(self.tmp, "all")
        subprocess.run(["cc", "-std=c17", "-Wall", "-Wextra", "-Werror", "-pedantic", "-I",
                        os.path.join(ROOT, "src"), src, "-o", exe], check=True)
        self.assertEqual(subprocess.run([exe]).returncode, 0)

    # ------------------------------------------------------------ mutation
    def mutated_tree(self):
        """A copy of tools/schema and of the generated files (in tmp/root), then
        a field inserted in the middle of ETDump's ProfileEvent."""
        sdir = os.path.join(self.tmp, "schema")
        shutil.copytree(SCHEMA, sdir)
        root = os.path.join(self.tmp, "root")
        generate(sdir, root)
        path = os.path.join(sdir, "etdump.fbs")
        with open(path) as f:
            text = f.read()
        anchor = "  chain_index: int;\n  instruction_id: int = -1;\n"
        self.assertEqual(text.count(anchor), 1)
        with open(path, "w") as f:
            f.write(text.replace(anchor, "  chain_index: int;\n  inserted: ulong;\n  instruction_id: int = -1;\n"))
        return sdir, root

    def test_inserted_field_shifts_the_slots_after_it(self):
        sdir, root = self.mutated_tree()
        before = load_module(os.path.join(root, "tools", "fixturelib", "schema_etdump.py"))
        generate(sdir, os.path.join(self.tmp, "after"))
        after = load_module(os.path.join(self.tmp, "after", "tools", "fixturelib", "schema_etdump.py"))
        for field, old in (("NAME", 0), ("CHAIN_INDEX", 1), ("INSTRUCTION_ID", 2), ("DELEGATE_DEBUG_ID_INT", 3),
                           ("DELEGATE_DEBUG_ID_STR", 4), ("DELEGATE_DEBUG_METADATA", 5), ("START_TIME", 6),
                           ("END_TIME", 7)):
            name = "ETDUMP_SLOT_PROFILE_EVENT_" + field
            self.assertEqual(getattr(before, name), old)
            self.assertEqual(getattr(after, name), old if old < 2 else old + 1, name)
        self.assertEqual(after.ETDUMP_SLOT_PROFILE_EVENT_INSERTED, 2)
        # other tables are untouched
        self.assertEqual(after.ETDUMP_SLOT_DEBUG_EVENT_NAME, before.ETDUMP_SLOT_DEBUG_EVENT_NAME)
        if shutil.which("flatc"):
            compare_with_flatc(self, os.path.join(sdir, "etdump.fbs"), after)

    def test_check_fails_with_a_diff_after_a_schema_change(self):
        sdir, root = self.mutated_tree()
        out = io.StringIO()
        self.assertEqual(schemagen.check(schemagen.outputs(sdir), root, out), 2)
        diff = out.getvalue()
        self.assertIn("--- a/src/formats/schema_etdump.h\n+++ b/src/formats/schema_etdump.h\n", diff)
        self.assertRegex(diff, r"\n-enum \{ [^\n]*ETDUMP_SLOT_PROFILE_EVENT_START_TIME = 6, [^\n]*\};\n")
        self.assertRegex(diff, r"\n\+enum \{ [^\n]*ETDUMP_SLOT_PROFILE_EVENT_START_TIME = 7, [^\n]*\};\n")
        self.assertIn("\n+ETDUMP_SLOT_PROFILE_EVENT_INSERTED = 2  # ulong\n", diff)
        # the command line: exit 1, the diff on stdout, the advice on stderr
        p = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "schemagen.py"), "--check",
                            "--schema-dir", sdir, "--root", root], capture_output=True, text=True)
        self.assertEqual(p.returncode, 1)
        self.assertEqual(p.stdout, diff)
        self.assertTrue(p.stderr.startswith("schemagen: 2 generated file(s) differ from "), p.stderr)
        self.assertTrue(p.stderr.endswith("; run `make schema` and commit the result\n"), p.stderr)
        # regenerating makes it pass again
        generate(sdir, root)
        self.assertEqual(schemagen.check(schemagen.outputs(sdir), root, io.StringIO()), 0)

    def test_check_reports_a_generated_file_whose_schema_is_gone(self):
        sdir = os.path.join(self.tmp, "schema")
        shutil.copytree(SCHEMA, sdir)
        root = os.path.join(self.tmp, "root")
        generate(sdir, root)
        os.remove(os.path.join(sdir, "vgf.fbs"))
        out = io.StringIO()
        self.assertEqual(schemagen.check(schemagen.outputs(sdir), root, out), 2)
        self.assertIn("src/backends/vgf/formats/schema_vgf.h: generated file without a schema in the schema directory\n",
                      out.getvalue())

    # ------------------------------------------------------------ refused schemas
    def refused(self, text, message):
        self.write("bad/inc.fbs", "namespace x; table I { a: int; }\n")
        path = self.write("bad/bad.fbs", text)
        with self.assertRaises(schemagen.SchemaError) as cm:
            schemagen.load(path)
        self.assertEqual(str(cm.exception), path + message)

    def test_refused_schemas(self):
        self.refused("table T { a: int (id: 0); b: int (id: 2); }\n",
                     ":1: T: field ids must be consecutive from 0; id 1 is missing")
        self.refused("table T {\n a: int (id: 0);\n b: int;\n}\n",
                     ":3: T.b has no id while other fields of T have one")
        self.refused("table A {}\nunion U { A }\ntable T {\n a: int (id: 0);\n u: U (id: 1);\n}\n",
                     ":5: T.u: id 0 is already taken by a")
        self.refused("table T {\n a: Missing;\n}\n", ":2: T.a: unknown type Missing")
        self.refused("include \"nope.fbs\";\n", ":1: include nope.fbs not found")
        self.refused("enum E : ubyte { A = 2, B = 1 }\n", ":1: enum E: values must be ascending (B)")
        self.refused("enum E : float { A }\n", ":1: enum E: underlying type float is not an integer type")
        self.refused("struct S { s: string; }\n",
                     ":1: struct S.s: structs hold scalars, structs and fixed arrays only")
        self.refused("table T { a: int; a: long; }\n", ":1: field a declared twice in T")
        self.refused("table T { a: int }\n", ":1: expected ';', found '}'")
        self.refused("include \"inc.fbs\";\nnamespace x;\ntable I { b: int; }\n", ":3: x.I declared twice")

    def test_clashing_names_are_refused(self):
        path = self.write("clash/clash.fbs", "table FooBar { baz: int; }\ntable Foo { bar_baz: int; }\n")
        with self.assertRaises(schemagen.SchemaError) as cm:
            schemagen.outputs(os.path.dirname(path))
        self.assertIn("two declarations give the name CLASH_SLOT_FOO_BAR_BAZ", str(cm.exception))

    def test_names(self):
        for name, want in (("ProfileEvent", "PROFILE_EVENT"), ("ETDump", "ET_DUMP"), ("start_time", "START_TIME"),
                           ("QUINT4X2", "QUINT4X2"), ("EValue", "E_VALUE"), ("SPIRV", "SPIRV"),
                           ("TensorList", "TENSOR_LIST"), ("Conv2D", "CONV2D"), ("DYNAMIC_BOUND", "DYNAMIC_BOUND")):
            self.assertEqual(schemagen.words(name), want)

    # ------------------------------------------------------------ no bare numbers
    def test_readers_and_builder_name_every_slot(self):
        """No numeric slot literal in an accessor or builder call."""
        found = []
        c_call = re.compile(r"\bfb_(?:get_\w+|has)\(\s*[^,()]+(?:\([^()]*\))?\s*,\s*(\d+)\s*[,)]")
        # any helper taking (..., slot, "field name", ...)
        c_helper = re.compile(r"\b\w+\((?:[^;()]|\([^()]*\))*?,\s*(\d+)\s*,\s*\"[a-z_]+\"")
        readers = [os.path.join("src", "formats", n) for n in os.listdir(os.path.join(ROOT, "src", "formats"))]
        for dirpath, _, names in os.walk(os.path.join(ROOT, "src", "backends")):  # a backend's own formats
            if os.path.basename(dirpath) == "formats":
                readers += [os.path.relpath(os.path.join(dirpath, n), ROOT) for n in names]
        for rel in sorted(readers):
            if rel.endswith(".c"):
                with open(os.path.join(ROOT, rel)) as f:
                    text = f.read()
                for rx in (c_call, c_helper):
                    for m in rx.finditer(text):
                        found.append("%s:%d: %s" % (rel, text.count("\n", 0, m.start()) + 1, m.group(0)))
        py_call = re.compile(r"\b(?:add_field|add_field_ref|add_union)\(\s*\d+\s*,|"
                             r"\(\s*\d+\s*,\s*\"(?:ref|bool|byte|ubyte|short|ushort|int|uint|long|ulong|float|double)\"|"
                             r"\b_(?:field|scalar|string|vector|tables|scalars|slots)\(\s*sec\s*,\s*\w+\s*,\s*\d+")
        for name in sorted(os.listdir(os.path.join(ROOT, "tools", "fixturelib"))):
            if name.endswith(".py") and not name.startswith("schema_") and name != "flatbuf.py":
                with open(os.path.join(ROOT, "tools", "fixturelib", name)) as f:
                    text = f.read()
                for m in py_call.finditer(text):
                    found.append("tools/fixturelib/%s:%d: %s" % (name, text.count("\n", 0, m.start()) + 1, m.group(0)))
        self.assertEqual(found, [])


if __name__ == "__main__":
    unittest.main()
