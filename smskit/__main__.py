"""``python -m smskit``: the ``smskit`` command."""

import sys

from smskit.cli import main

sys.exit(main())
