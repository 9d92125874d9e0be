"""The benchmarks' sandbox in a process of its own, so client and server do not share a GIL."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def standalone_sandbox(key: str) -> Iterator[str]:
    """``python -m smskit.sandbox`` in a child process (key in its environment); yields its URL."""
    env = {**os.environ, "SMSKIT_API_KEY": key}
    command = [sys.executable, "-m", "smskit.sandbox", "--port", "0"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().split(" on ", 1)[1].split(" ", 1)[0]
    finally:
        process.terminate()
        process.wait(10)
