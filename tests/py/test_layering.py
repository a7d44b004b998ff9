"""The house rules of src/ (docs/architecture.md), checked on every file:

- data flows one way: each floor includes only the floors below it
  (core -> formats -> analysis -> history -> report -> backends -> pipeline -> api -> cli);
- a backend (src/backends/<name>/) may use core, formats, analysis and
  report helpers and the interface src/backends/backend.h, never another
  backend nor the pipeline; inside its folder the floors repeat
  (formats/ -> analysis/ -> report/ -> the folder's own files), and the
  pipeline sees backends only through backends/backend.h and
  backends/registry.h;
- at most a handful of files outside src/backends name the VGF backend
  (NAMES_VGF, each with its reason);
- inside src/report, each product's folder (result, views, trace, inspect,
  compare) includes only its own files, the shared report/outdir.h and the
  products it is declared to build on (REPORT_PRODUCTS);
- no circle of files: the include graph of src/ has no cycle, and the graph
  of files joined by includes and by calls has none either: a file x.c and
  its x.h are one unit; unit a -> b when a includes b's header or a's object
  uses a symbol that b's object defines (nm of $BUILD/obj, so calls through
  function pointers count too). This catches the old check.c <-> companion.c
  <-> nx_glue.c loop and src/cli/main.c <-> src/cli/compare_cli.c;
- the shared library and the static archive export only the public API
  (mlia_* of include/mlia; the archive's internals are made local, Makefile);
- the repository stands alone in its words: comments and docs cite files
  inside the repository (docs/formats/*.md for format facts), never the
  specification files kept outside it or ../shared.
"""
import os
import re
import subprocess
import unittest

from helpers import BUILD, ROOT

FLOORS = ["core", "formats", "analysis", "history", "report", "backends", "pipeline", "api", "cli"]
# the floors repeated inside a backend's folder; its top files sit above report
BACKEND_FLOORS = ["formats", "analysis", "report", "top"]
# what the pipeline (and floors above) may include of src/backends
BACKEND_INTERFACE = {"backends/backend.h", "backends/registry.h"}
# floor -> floors it may include (besides itself and the public include/mlia)
ALLOWED = {f: set(FLOORS[:i]) for i, f in enumerate(FLOORS)}
# report products and the products they build on (the page embeds the result
# and the timeline; compare.html reuses the page template): acyclic
REPORT_PRODUCTS = {"result": set(), "trace": set(), "inspect": set(), "csv": set(), "views": {"result", "trace"},
                   "compare": {"views"}, "history": set()}
# headers of src/report every product may include (besides its own files)
REPORT_SHARED = {"report/outdir.h", "report/format.h", "report/backend_out.h"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A reference to a file outside the repository: the specification files kept
# beside it (by name, or as a section citation of vgf.md / nx-statistics.md
# that does not name the docs/ page) or the ../shared folder.
SPEC = (r"product\.md|executorch-formats\.md|shared/spec"
        r"|(?<![\w/.-])`?(?:vgf|nx-statistics)\.md`?,?\s*(?:§|sections?\b)")
OUTSIDE = re.compile(SPEC + r"|\.\./shared")
# The test harness and the tools may name ../shared/fixtures (where the real
# fixtures are looked up), but cite no specification file either.
SPEC_ONLY = re.compile(SPEC)
GENERATED = {os.path.join("src", "report", "views", "page_asset.c"),
             os.path.join("tests", "py", "test_layering.py")}  # holds the bad samples


def src_files():
    for dirpath, _, names in os.walk(os.path.join(ROOT, "src")):
        for name in sorted(names):
            if name.endswith((".c", ".h")):
                yield os.path.join(dirpath, name)


def rel(path):
    return os.path.relpath(path, os.path.join(ROOT, "src"))


def includes(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        text = f.read(400000)
    out = []
    for target in INCLUDE.findall(text):
        if "/" not in target:  # same folder
            target = os.path.join(os.path.dirname(rel(path)), target)
        out.append(target)
    return out


def backend_floor(parts):
    """("<name>", sub-floor) of a path under src/backends split in parts, or
    (None, "top") for the interface files directly in src/backends."""
    if len(parts) == 2:
        return None, "top"
    return parts[1], parts[2] if len(parts) > 3 and parts[2] in BACKEND_FLOORS else "top"


def backend_violation(r, target):
    """The rule a file of src/backends breaks by including target, or None."""
    parts, tparts = r.split("/"), target.split("/")
    name, sub = backend_floor(parts)
    allowed_house = set(FLOORS[:FLOORS.index("report") + 1])
    if sub != "top":
        allowed_house = set(FLOORS[:FLOORS.index(sub) + 1])
    if tparts[0] == "mlia" or tparts[0] in allowed_house:
        return None
    if tparts[0] != "backends":
        return f"src/{r} includes {target}"
    tname, tsub = backend_floor(tparts)
    if tname is None:  # the interface: for the backend's own top files and the interface itself
        return None if sub == "top" else f"src/{r} includes {target} below its floor"
    if name is None:
        return f"src/{r} (the interface) includes a backend: {target}"
    if tname != name:
        return f"src/{r} includes another backend: {target}"
    if BACKEND_FLOORS.index(tsub) > BACKEND_FLOORS.index(sub):
        return f"src/{r} includes {target} from a floor above its own in the backend"
    return None


def violations():
    found = []
    for path in src_files():
        r = rel(path)
        floor = r.split("/")[0]
        if floor not in ALLOWED:
            found.append(f"src/{r}: unknown floor '{floor}'")
            continue
        for target in includes(path):
            tfloor = target.split("/")[0]
            if tfloor == "mlia":
                continue
            if floor == "backends":
                bad = backend_violation(r, target)
                if bad:
                    found.append(bad)
                continue
            if tfloor not in ALLOWED[floor] | {floor}:
                found.append(f"src/{r} includes {target}")
            if tfloor == "backends" and target not in BACKEND_INTERFACE:
                found.append(f"src/{r} includes a backend's own file: {target}")
            # report products stay apart
            parts, tparts = r.split("/"), target.split("/")
            if floor == "report" and tfloor == "report" and len(parts) > 2 and len(tparts) > 2 \
                    and parts[1] != tparts[1] and tparts[1] not in REPORT_PRODUCTS.get(parts[1], set()):
                found.append(f"src/{r} includes another report product: {target}")
            if floor == "report" and tfloor == "report" and len(parts) > 2 and len(tparts) == 2 \
                    and target not in REPORT_SHARED:
                found.append(f"src/{r} includes a report file that is not shared: {target}")
    return found


# Files outside src/backends that may name the VGF backend (its identifiers
# vgf_* / nx_*, its delegate id, or the word VGF in code), each with why.
# Comments do not count. At most a handful (issue 27: registration, CLI
# option names, docs).
NAMES_VGF = {
    "pipeline/options.c": "the option table's help text: what --companion-model and inspect's FILE are",
    "formats/pte.c": "file kinds by magic: a VGF given in a PTE's place is named",
    "formats/etrecord.c": "the error for a VGF given in the ETRecord's place",
    "pipeline/inputs.c": "the hint for a VGF given in another input's place",
    "report/views/page_asset.c": "generated from viewer/ (the page's view labels)",
    "report/result/headline.h": "the 'no VGF statistics' reason the CPU-only headline recognises, and the "
                                "delegate id and texts of a run whose delegate calls are all other backends'",
}
NAMES_VGF_MAX = 7
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def vgf_identifiers():
    """Functions, types and macros the VGF backend's headers declare."""
    names = set()
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src", "backends", "vgf")):
        for name in files:
            if name.endswith(".h"):
                with open(os.path.join(dirpath, name), encoding="utf-8", errors="replace") as f:
                    code = COMMENT.sub("", f.read())
                names.update(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code))
                names.update(re.findall(r"\}\s*([A-Za-z_]\w*)\s*;", code))
                names.update(re.findall(r"#define\s+([A-Za-z_]\w*)", code))
    keywords = {"if", "for", "while", "sizeof", "return", "switch", "defined"}
    return {n for n in names if n not in keywords and not n.startswith("MLIA_BACKENDS_")}


def vgf_name_pattern():
    """The word VGF (any case) or an identifier of the backend's headers
    that is its own (not a shared helper the backend merely calls)."""
    own = sorted(n for n in vgf_identifiers() if re.match(r"(?i)(vgf|nx|spv|tosa|inspect_nx|inspect_vgf)_?", n))
    return re.compile(r"(?i:vgf)|\b(?:" + "|".join(map(re.escape, own)) + r")\b")


def files_naming_vgf():
    """Files of src/ and include/ outside src/backends whose code (comments
    stripped) names the VGF backend, relative to src/ (include/ as is)."""
    found = []
    pattern = vgf_name_pattern()
    tops = [os.path.join(ROOT, "src"), os.path.join(ROOT, "include")]
    for top in tops:
        for dirpath, _, names in os.walk(top):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                r = os.path.relpath(path, tops[0]) if top == tops[0] else os.path.relpath(path, ROOT)
                if r.startswith("backends/") and r != "backends/registry.c":
                    continue
                with open(path, encoding="utf-8", errors="replace") as f:
                    code = COMMENT.sub("", f.read())
                if pattern.search(code):
                    found.append(r)
    return sorted(found)


def outside_references():
    """Lines of src/ (.c/.h), docs/ (.md, .1), include/ and README.md that
    cite something outside the repository, and lines of tests/, tools/,
    python/, fuzz/ and bench/ that cite a specification file, as
    "path:line: text"."""
    files = [(os.path.join(ROOT, "README.md"), OUTSIDE)]
    for top, exts, pattern in (("src", (".c", ".h"), OUTSIDE), ("docs", (".md", ".1"), OUTSIDE),
                               ("include", (".h",), OUTSIDE),
                               ("tests", (".c", ".h", ".py", ".sh"), SPEC_ONLY),
                               ("tools", (".py", ".fbs", ".sh"), SPEC_ONLY),
                               ("python", (".py",), SPEC_ONLY), ("fuzz", (".c", ".sh"), SPEC_ONLY),
                               ("bench", (".c", ".sh"), SPEC_ONLY)):
        for dirpath, _, names in os.walk(os.path.join(ROOT, top)):
            files += [(os.path.join(dirpath, n), pattern) for n in sorted(names) if n.endswith(exts)]
    found = []
    for path, pattern in files:
        r = os.path.relpath(path, ROOT)
        if r in GENERATED:
            continue
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if pattern.search(line):
                    found.append(f"{r}:{number}: {line.strip()}")
    return found


def include_cycles():
    graph = {}
    for path in src_files():
        graph[rel(path)] = [t for t in includes(path) if os.path.exists(os.path.join(ROOT, "src", t))]
    state, cycles = {}, []

    def visit(n, stack):
        state[n] = 1
        stack.append(n)
        for m in graph.get(n, []):
            if state.get(m) == 1:
                cycles.append(" -> ".join(stack[stack.index(m):] + [m]))
            elif not state.get(m):
                visit(m, stack)
        stack.pop()
        state[n] = 2

    for n in sorted(graph):
        if not state.get(n):
            visit(n, [])
    return cycles


def unit_of(path):
    """"src/cli/main.c", "cli/main.h" -> "cli/main" (a .c and its .h are one unit)."""
    r = os.path.relpath(path, os.path.join(ROOT, "src")) if os.path.isabs(path) else path
    return os.path.splitext(r)[0]


def call_edges(objdir):
    """unit -> units whose objects define a symbol that its object uses."""
    defined, used = {}, {}
    for dirpath, _, names in os.walk(objdir):
        for n in sorted(names):
            if not n.endswith(".o"):
                continue
            obj = os.path.join(dirpath, n)
            unit = os.path.splitext(os.path.relpath(obj, objdir))[0]
            if not os.path.exists(os.path.join(ROOT, "src", unit + ".c")):
                continue  # a stale object of a file moved or deleted since it was built
            out = subprocess.run(["nm", "-g", obj], capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                parts = line.split()
                if len(parts) == 2 and parts[0] == "U":
                    used.setdefault(unit, set()).add(parts[1])
                elif len(parts) == 3:
                    defined[parts[2]] = unit
    return {u: {defined[s] for s in syms if s in defined and defined[s] != u} for u, syms in used.items()}


def unit_cycles(edges):
    """Every strongly connected set of more than one unit, each sorted."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(" <-> ".join(sorted(group)))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return sorted(out)


def include_and_call_edges(objdir):
    edges = {u: set(t) for u, t in call_edges(objdir).items()}
    for path in src_files():
        u = unit_of(path)
        for t in includes(path):
            if os.path.exists(os.path.join(ROOT, "src", t)) and unit_of(t) != u:
                edges.setdefault(u, set()).add(unit_of(t))
    return edges


class Layering(unittest.TestCase):
    def test_every_include_points_down(self):
        self.assertEqual(violations(), [])

    def test_backend_rules_can_fail(self):
        # each rule of a backend's folder catches what it is meant to
        self.assertIsNone(backend_violation("backends/vgf/report/out.c", "report/backend_out.h"))
        self.assertIsNone(backend_violation("backends/vgf/report/out.c", "backends/vgf/analysis/state.h"))
        self.assertIsNone(backend_violation("backends/vgf/backend.c", "backends/backend.h"))
        self.assertIn("another backend", backend_violation("backends/vgf/backend.c", "backends/xnnpack/x.h"))
        self.assertIn("floor above", backend_violation("backends/vgf/formats/vgf.c", "backends/vgf/analysis/x.h"))
        self.assertIsNotNone(backend_violation("backends/vgf/formats/vgf.c", "analysis/result.h"))
        self.assertIsNotNone(backend_violation("backends/vgf/backend.c", "pipeline/session.h"))
        self.assertIsNotNone(backend_violation("backends/vgf/report/out.c", "backends/backend.h"))
        self.assertIn("a backend", backend_violation("backends/registry.c", "backends/vgf/vgf_backend.h"))

    def test_few_files_outside_the_backend_name_vgf(self):
        # the registration is one line of src/backends/registry.c; the rest
        # of the house reaches the VGF backend through its interface
        named = files_naming_vgf()
        self.assertEqual([r for r in named if r not in NAMES_VGF and r != "backends/registry.c"], [])
        self.assertIn("backends/registry.c", named)
        self.assertLessEqual(len(named), NAMES_VGF_MAX)
        pattern = vgf_name_pattern()
        self.assertTrue(pattern.search("vgf_read(") and pattern.search("nx_result *nx") and
                        pattern.search("inspect_nx_records(") and pattern.search("spv_module"))
        self.assertFalse(pattern.search("h->nx_total_cycles") or pattern.search("mlia_result_find("))

    def test_console_names_no_backend(self):
        # issue 27: a backend's console lines (the VGF backend's NX cycles) come
        # through its console_fields hook (report/backend_out.h); the console
        # summary itself names no backend, not even in its strings
        with open(os.path.join(ROOT, "src", "report", "result", "console.c"), encoding="utf-8") as f:
            code = COMMENT.sub("", f.read())
        self.assertIsNone(vgf_name_pattern().search(code))
        backends = sorted(d for d in os.listdir(os.path.join(ROOT, "src", "backends"))
                          if os.path.isdir(os.path.join(ROOT, "src", "backends", d)))
        self.assertIn("vgf", backends)
        for name in backends + ["NX", "Ethos", "CoreML", "XNNPACK", "Neutron"]:
            self.assertIsNone(re.search(r"\b" + re.escape(name), code, re.I if name.islower() else 0), name)

    def test_no_include_cycle(self):
        self.assertEqual(include_cycles(), [])

    def test_no_circle_of_files_through_calls_and_includes(self):
        # the check must be able to fail
        self.assertEqual(unit_cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}), ["a <-> b <-> c"])
        self.assertEqual(unit_cycles({"a": {"b"}, "b": set()}), [])
        objdir = os.path.join(ROOT, BUILD, "obj")
        if not os.path.isdir(objdir):
            self.skipTest(f"{objdir} not built")
        edges = include_and_call_edges(objdir)
        self.assertIn("core/arena", edges.get("formats/fb", set()) | edges.get("formats/etdump", set()))
        self.assertEqual(unit_cycles(edges), [])

    def test_no_outside_paths(self):
        # the pattern must be able to fail: it catches the citation forms
        # that were once in the tree and lets in-repository paths through
        for bad in ("(product.md §2)", "vgf.md §19", "(`nx-statistics.md` §9)",
                    "nx-statistics.md section 8.3", "executorch-formats.md §1.5",
                    "`../shared/spec/vgf.md`", "else ../shared/fixtures"):
            self.assertRegex(bad, OUTSIDE)
        for good in ("docs/formats/vgf.md §3", "`docs/formats/nx-statistics.md` §9",
                     "VGF output in `docs/vgf.md`", "see `vgf.md` for the output shape"):
            self.assertNotRegex(good, OUTSIDE)
        self.assertRegex("(vgf.md §17)", SPEC_ONLY)
        self.assertNotRegex("else ../shared/fixtures beside the repository", SPEC_ONLY)
        self.assertEqual(outside_references(), [])

    def test_pipeline_takes_the_resolved_configuration(self):
        # the pipelines get mlia_check_config / mlia_compare_config
        # (pipeline/options.h), never the public option structs
        found = []
        for path in src_files():
            if rel(path).startswith("pipeline/") and "mlia/mlia.h" in includes(path):
                found.append(rel(path))
        self.assertEqual(found, [])

    def test_report_reads_the_run_record(self):
        with open(os.path.join(ROOT, "src", "report", "result", "result_json.h"), encoding="utf-8") as f:
            self.assertIn('#include "analysis/run.h"', f.read())

    def test_api_holds_only_entry_points(self):
        # every function with external linkage defined in src/api is public
        # (declared in include/mlia/mlia.h) or the entry guard's
        with open(os.path.join(ROOT, "include", "mlia", "mlia.h"), encoding="utf-8") as f:
            public = set(re.findall(r"\b(mlia_[a-z_]+)\(", f.read()))
        defined = re.compile(r"^(?!static)[a-z].*?\b([a-z_][a-z0-9_]*)\([^;]*$", re.M)
        extra = []
        for name in sorted(os.listdir(os.path.join(ROOT, "src", "api"))):
            if not name.endswith(".c"):
                continue
            with open(os.path.join(ROOT, "src", "api", name), encoding="utf-8") as f:
                for fn in defined.findall(f.read()):
                    if fn not in public and not fn.startswith("mlia_guard_"):
                        extra.append(f"src/api/{name}: {fn}")
        self.assertEqual(extra, [])

    def test_shared_library_exports_only_the_public_api(self):
        if os.environ.get("MLIA_COVERAGE") == "1":
            self.skipTest("coverage build: the gcov runtime adds its own symbols (make coverage)")
        lib = os.path.join(ROOT, BUILD, "libmlia.so")
        if not os.path.exists(lib):
            self.skipTest(f"{lib} not built")
        out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
        names = sorted(line.split()[-1] for line in out.splitlines() if line.strip())
        with open(os.path.join(ROOT, "include", "mlia", "mlia.h"), encoding="utf-8") as f:
            public = set(re.findall(r"MLIA_API\s+[a-z_ ]+?\**\b(mlia_[a-z_]+)\(", f.read()))
        self.assertTrue(public)
        self.assertEqual([n for n in names if n not in public], [])
        self.assertLessEqual(len(names), 20)

    def test_static_archive_exports_only_the_public_api(self):
        if os.environ.get("MLIA_COVERAGE") == "1":
            self.skipTest("coverage build: the gcov runtime adds its own symbols (make coverage)")
        lib = os.path.join(ROOT, BUILD, "libmlia.a")
        if not os.path.exists(lib):
            self.skipTest(f"{lib} not built")
        out = subprocess.run(["nm", "-g", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
        names = sorted(line.split()[-1] for line in out.splitlines() if len(line.split()) == 3)
        with open(os.path.join(ROOT, "include", "mlia", "mlia.h"), encoding="utf-8") as f:
            public = set(re.findall(r"MLIA_API\s+[a-z_ ]+?\**\b(mlia_[a-z_]+)\(", f.read()))
        self.assertTrue(public)
        # the check, literally: only mlia_ globals ...
        self.assertEqual([n for n in names if not n.startswith("mlia_")], [])
        # ... and of those only the public API (internal mlia_* are local too)
        self.assertEqual([n for n in names if n not in public], [])
        self.assertEqual(sorted(set(names)), sorted(public))


if __name__ == "__main__":
    unittest.main()
