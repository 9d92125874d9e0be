"""Import time of ``smskit`` against ``pandas, httpx``, each in fresh interpreters.

Usage: ``python benchmarks/bench_import.py [--runs N]``. Prints the median wall time of
each import over N fresh subprocesses (interleaved, so drift hits both alike) and the
ratio; the budget is ``import smskit`` <= 1.2 x ``import pandas, httpx``.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

BUDGET = 1.2
STATEMENTS = {"smskit": "import smskit", "pandas+httpx": "import pandas, httpx"}
# Time measured inside the child, around the import only (not interpreter start-up).
PROBE = "import time; t = time.perf_counter(); {stmt}; print(time.perf_counter() - t)"


def measure(statement: str) -> float:
    """Seconds ``statement`` takes in a fresh interpreter."""
    out = subprocess.run(
        [sys.executable, "-c", PROBE.format(stmt=statement)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return float(out)


def main(argv: list[str] | None = None) -> int:
    """Run the comparison; exit status 1 when the budget is exceeded."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15, help="fresh subprocesses per import")
    args = parser.parse_args(argv)
    measure("import smskit, pandas, httpx")  # warm the OS file cache for both
    samples: dict[str, list[float]] = {name: [] for name in STATEMENTS}
    for _ in range(args.runs):
        for name, statement in STATEMENTS.items():
            samples[name].append(measure(statement))
    medians = {name: statistics.median(values) for name, values in samples.items()}
    for name, value in medians.items():
        print(f"import {name:<13} median {value * 1000:7.1f} ms over {args.runs} runs")
    ratio = medians["smskit"] / medians["pandas+httpx"]
    print(f"ratio smskit / (pandas+httpx) = {ratio:.2f} (budget {BUDGET})")
    return 0 if ratio <= BUDGET else 1


if __name__ == "__main__":
    sys.exit(main())
