"""Debian's chromium as every browser test (and the README picture scripts) starts it.

As root on a closed network: no sandbox, no GPU, and none of the background connections
that would be refused (the machine reaches only loopback and package registries).
"""

from __future__ import annotations

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_FLAGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
)
