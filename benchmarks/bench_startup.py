"""Fresh-process start-up: ``import smskit``, ``Client()``, first HLR answer, against its anchor.

Usage: ``python benchmarks/bench_startup.py [--runs N]``. Each run starts fresh interpreters,
one per case, interleaved so that the load of a shared machine hits both alike, and times
inside the child (not interpreter start-up). Prints min and median per case and the ratio of
medians. Goal (issue #15): the first HLR answer <= 0.6 s where ``import pandas, httpx`` takes
0.36-0.41 s, i.e. a ratio of about 1.5.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys

from _common import cpu_model

CASES = {
    "import pandas, httpx (anchor)": "import pandas, httpx",
    "import smskit": "import smskit",
    "import smskit; Client(); first HLR answer": (
        "import smskit; client = smskit.Client(); client.contact.hlr_request(['+33612345678'])"
    ),
}
PROBE = "import time; t = time.perf_counter(); {stmt}; print(time.perf_counter() - t)"


def measure(statement: str) -> float:
    """Seconds ``statement`` takes in a fresh interpreter (no credentials: embedded sandbox)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(stmt=statement)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    return float(out.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="fresh processes per case")
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}, Python {platform.python_version()}")
    measure(CASES["import smskit; Client(); first HLR answer"])  # warm the OS file cache
    samples: dict[str, list[float]] = {name: [] for name in CASES}
    for _ in range(args.runs):
        for name, statement in CASES.items():
            samples[name].append(measure(statement))
    anchor = statistics.median(samples["import pandas, httpx (anchor)"])
    for name, values in samples.items():
        median = statistics.median(values)
        print(
            f"{name:<44} min {min(values):6.3f} s  median {median:6.3f} s"
            f"  = {median / anchor:4.2f} x anchor"
        )


if __name__ == "__main__":
    main()
