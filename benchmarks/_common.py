"""What the benchmark scripts share: the machine they report, and a sandbox in its own process."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def standalone_sandbox(key: str) -> Iterator[str]:
    """``python -m smskit sandbox`` in a child process (key in its environment); yields its URL."""
    env = {**os.environ, "SMSKIT_API_KEY": key}
    command = [sys.executable, "-m", "smskit", "sandbox", "--port", "0"]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        yield process.stdout.readline().split(" on ", 1)[1].split(" ", 1)[0]
    finally:
        process.terminate()
        process.wait(10)


def cpu_model() -> str:
    """The CPU model name from /proc/cpuinfo (Linux), else what ``platform`` knows."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"
