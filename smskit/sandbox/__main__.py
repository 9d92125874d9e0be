"""``python -m smskit.sandbox``: the same as ``smskit sandbox`` (kept for scripts using it).

An entry point, not a module of the sandbox: the command lives in :mod:`smskit.cli`.
"""

import sys

from smskit.cli import main

sys.exit(main(["sandbox", *sys.argv[1:]]))
