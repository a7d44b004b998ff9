"""Runs every tests/py/test_*.py with unittest and prints 'py: N passed, N failed'."""
import os
import sys
import unittest

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
suite = unittest.defaultTestLoader.discover(here, pattern="test_*.py", top_level_dir=here)
result = unittest.TextTestRunner(verbosity=2, stream=sys.stdout).run(suite)
bad = len(result.failures) + len(result.errors) + len(result.unexpectedSuccesses)
print(f"py: {result.testsRun - bad - len(result.skipped)} passed, {bad} failed")
sys.exit(1 if bad else 0)
