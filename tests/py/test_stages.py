"""Issue 27, 3: the check pipeline is a table of stages and the analyses' products are
one table of rows; adding either is one row (docs/architecture.md, "a new stage").

- Every row of STAGES (src/pipeline/check.c) that applies to a run is timed in the log,
  in table order, under the row's name ("stage <name>: <ms> ms"); the output stage
  writes the log itself, so it is the one row absent.
- The products the writers read are the rows of MLIA_RUN_PRODUCTS (src/analysis/run.h);
  the session, the run record and mlia_session_record take their members from that table
  and name none of them by hand.
"""
import os
import re
import shutil
import tempfile
import unittest

from helpers import ROOT, build_fixture, check_args, need_binary, run_mlia


def read(*parts):
    with open(os.path.join(ROOT, *parts), encoding="utf-8") as f:
        return f.read()


def stage_rows():
    src = read("src", "pipeline", "check.c")
    table = re.search(r"static const check_stage STAGES\[\] = \{(.*?)\n\};", src, re.S)
    assert table, "STAGES not found"
    return re.findall(r'^\s*\{"([^"]+)", stage_\w+,', table.group(1), re.M)


def product_rows():
    src = read("src", "analysis", "run.h")
    table = re.search(r"#define MLIA_RUN_PRODUCTS\(X\)(.*?)\n\n", src, re.S)
    assert table, "MLIA_RUN_PRODUCTS not found"
    return re.findall(r"X\((struct \w+), (\w+)\)", table.group(1))


class Stages(unittest.TestCase):
    def test_every_applying_stage_is_timed_in_table_order(self):
        need_binary(self)
        rows = stage_rows()
        self.assertIn("advice", rows)
        self.assertEqual(rows[-1], "outputs")
        tmp = tempfile.mkdtemp(prefix="mlia-stages-")
        try:
            b = build_fixture(os.path.join(ROOT, "samples", "vww4.json"), os.path.join(tmp, "in"))
            out = os.path.join(tmp, "out")
            p = run_mlia(*check_args(b["etrecord"], b["etdump"], "--companion-model", b["pte"], "--output-dir", out))
            self.assertEqual(p.returncode, 0, p.stderr)
            log = read(out, "mlia-output", "logs", "mlia.log")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        timed = [m.group(1) for m in re.finditer(r"^stage (.+?): [0-9.]+ ms$", log, re.M)]
        # with a companion PTE every row applies; each is timed once, in order
        self.assertEqual([t for t in timed if t in rows], rows[:-1], log)

    def test_products_are_declared_once(self):
        rows = product_rows()
        self.assertEqual([m for _, m in rows], ["runtime", "memory", "accuracy", "trace"])
        session_h = read("src", "pipeline", "session.h")
        session_c = read("src", "pipeline", "session.c")
        run_h = read("src", "analysis", "run.h")
        self.assertIn("MLIA_RUN_PRODUCTS(MLIA_SESSION_PRODUCT_MEMBER)", session_h)
        self.assertIn("MLIA_RUN_PRODUCTS(MLIA_RECORD_PRODUCT)", session_c)
        self.assertIn("MLIA_RUN_PRODUCTS(MLIA_RUN_PRODUCT_MEMBER)", run_h)
        for typ, member in rows:
            decl = re.compile(r"^\s*(const\s+)?" + re.escape(typ) + r"\s*\*\s*" + member + r"\s*;", re.M)
            self.assertIsNone(decl.search(session_h), member)
            self.assertIsNone(decl.search(run_h), member)
            self.assertNotIn(f"rec->{member} =", session_c)


if __name__ == "__main__":
    unittest.main()
