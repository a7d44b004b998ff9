"""Runs every tests/py/test_*.py with unittest and prints one SKIP line per
skipped test with its reason, then 'py: N passed, N failed, N skipped'.
Optional arguments: -k PATTERN (unittest's substring filter)."""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
loader = unittest.TestLoader()
args = sys.argv[1:]
while len(args) >= 2 and args[0] == "-k":
    loader.testNamePatterns = (loader.testNamePatterns or []) + [f"*{args[1]}*"]
    args = args[2:]
suite = loader.discover(here, pattern="test_*.py", top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
for test, reason in result.skipped:
    print(f"SKIP {test.id()}: {reason}")
print(f"py: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed, {len(result.skipped)} skipped")
sys.exit(1 if bad else 0)
