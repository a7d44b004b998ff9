"""`python -m mlia ...`: the same as the `mlia` command (mlia.cli)."""
import sys

from mlia.cli import main

sys.exit(main())
