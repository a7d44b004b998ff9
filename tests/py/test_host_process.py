"""The library and its host's process (issue 21 item 6): src/ never ends the
process with exit() (out of memory without a recovery point aborts as an
internal error, core/oom.h), the public API stays small, and mlia.h
documents the one piece of process-wide state (the SIGBUS handler) with the
host's opt-out. The handler's behaviour is tested in C
(tests/core/test_host_state.c)."""
import os
import re
import unittest

from helpers import ROOT

EXIT_CALL = re.compile(r"\b(?:_?exit|_Exit|quick_exit)\s*\(")
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


class NoExitInLibrary(unittest.TestCase):
    def test_no_exit_call_in_src(self):
        found = []
        for dirpath, _, names in os.walk(os.path.join(ROOT, "src")):
            for name in sorted(names):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    code = STRING.sub('""', COMMENT.sub(" ", f.read()))
                for m in EXIT_CALL.finditer(code):
                    line = code.count("\n", 0, m.start()) + 1
                    found.append(f"{os.path.relpath(path, ROOT)}:{line}: {m.group(0)}")
        self.assertEqual(found, [], "src/ must not end the host's process")


class PublicApi(unittest.TestCase):
    def header(self):
        with open(os.path.join(ROOT, "include", "mlia", "mlia.h"), encoding="utf-8") as f:
            return f.read()

    def test_at_most_20_public_functions(self):
        names = re.findall(r"^MLIA_API\s+[^;(]*?\b(mlia_\w+)\s*\(", self.header(), re.M)
        self.assertIn("mlia_sigbus_guard", names)
        self.assertLessEqual(len(names), 20, names)

    def test_sigbus_state_documented(self):
        text = self.header()
        self.assertIn("Process-wide state, SIGBUS", text)
        self.assertIn("mlia_sigbus_guard(0)", text)
        self.assertIn("MLIA_SIGBUS_GUARD=0", text)
        self.assertNotIn("The library keeps no global state;", text)


if __name__ == "__main__":
    unittest.main()
