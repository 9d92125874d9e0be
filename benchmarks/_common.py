"""What the benchmark scripts share: the machine they report, a sandbox in its own process, and
timing a piece of work several times (the fastest, or the median)."""

from __future__ import annotations

import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any


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


def best(run: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    """The fastest of ``repeat`` runs (seconds) and the last answer."""
    times, answer = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        answer = run()
        times.append(time.perf_counter() - start)
    return min(times), answer


def median_seconds(work: Callable[[], object], repeat: int = 3) -> float:
    """The median of ``repeat`` runs, in seconds."""
    runs = []
    for _ in range(repeat):
        started = time.perf_counter()
        work()
        runs.append(time.perf_counter() - started)
    return statistics.median(runs)
