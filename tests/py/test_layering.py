"""The house rules of src/ (docs/architecture.md), checked on every file:

- data flows one way: each floor includes only the floors below it
  (core -> formats -> analysis -> report -> pipeline -> api -> cli);
- inside src/report, each product's folder (result, views, trace, inspect,
  compare) includes only its own files, the shared report/outdir.h and the
  products it is declared to build on (REPORT_PRODUCTS);
- no circle of files: the include graph of src/ has no cycle, and no function
  is defined in one .c file of a floor and called from another in a circle
  (the old check.c <-> companion.c <-> nx_glue.c loop);
- the shared library exports only the public API (mlia_* of include/mlia);
- the repository stands alone in its words: comments and docs cite files
  inside the repository (docs/formats/*.md for format facts), never the
  specification files kept outside it or ../shared.
"""
import os
import re
import subprocess
import unittest

from helpers import BUILD, ROOT

FLOORS = ["core", "formats", "analysis", "report", "pipeline", "api", "cli"]
# floor -> floors it may include (besides itself and the public include/mlia)
ALLOWED = {f: set(FLOORS[:i]) for i, f in enumerate(FLOORS)}
# report products and the products they build on (the page embeds the result
# and the timeline; compare.html reuses the page template): acyclic
REPORT_PRODUCTS = {"result": set(), "trace": set(), "inspect": set(), "csv": set(), "views": {"result", "trace"},
                   "compare": {"views"}}
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
            if tfloor not in ALLOWED[floor] | {floor}:
                found.append(f"src/{r} includes {target}")
            # report products stay apart
            parts, tparts = r.split("/"), target.split("/")
            if floor == "report" and tfloor == "report" and len(parts) > 2 and len(tparts) > 2 \
                    and parts[1] != tparts[1] and tparts[1] not in REPORT_PRODUCTS.get(parts[1], set()):
                found.append(f"src/{r} includes another report product: {target}")
    return found


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


class Layering(unittest.TestCase):
    def test_every_include_points_down(self):
        self.assertEqual(violations(), [])

    def test_no_include_cycle(self):
        self.assertEqual(include_cycles(), [])

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


if __name__ == "__main__":
    unittest.main()
