"""The `mlia` command of the Python package: runs the C command line.

Why exec the compiled CLI rather than re-implement it: the CLI's behaviour
(argument grammar, exit statuses 0/1/2, messages, progress, browser) is
defined once, in C; the package ships that binary as mlia/_native/mlia
(`pip install .`). From a checkout, the repository's build/mlia is used.
"""
from __future__ import annotations

import os
import sys
from typing import List, Optional


def cli_path() -> str:
    """Path of the compiled `mlia` executable this package runs.

    Raises FileNotFoundError when neither the packaged binary nor a
    checkout's build/mlia exists."""
    here = os.path.dirname(os.path.abspath(__file__))
    for path in (os.path.join(here, "_native", "mlia"),
                 os.path.join(here, "..", "..", "build", "mlia")):
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return os.path.normpath(path)
    raise FileNotFoundError("the mlia executable is not built (pip install the package, or run make)")


def main(argv: Optional[List[str]] = None) -> int:
    """Run `mlia` with argv (default: sys.argv[1:]); the process becomes the
    CLI (its exit status, standard output and errors are the CLI's)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        exe = cli_path()
    except FileNotFoundError as exc:
        print(f"mlia: error: {exc}", file=sys.stderr)
        return 1
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(exe, [exe, *args])
    return 0  # not reached


if __name__ == "__main__":
    sys.exit(main())
