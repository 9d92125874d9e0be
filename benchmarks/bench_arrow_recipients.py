"""Recipients from pyarrow and polars against pandas' object columns (issue #29 item 7).

    .venv/bin/python benchmarks/bench_arrow_recipients.py              # 1,000,000 rows, 5 runs
    .venv/bin/python benchmarks/bench_arrow_recipients.py -n 100000    # a quicker run

The same recipients (a number written one of four ways, a first name, a country) given as a
pandas DataFrame of Python objects (``dtype=object``: the anchor, the path every cell a
Python string), pandas' own ``str`` columns, a pyarrow Table and a polars DataFrame. For each:
the reader alone (``Recipients(value)``: for Arrow data the conversion to pandas' Arrow-backed
columns), the numbers' reading as preflight does it (the reader's columns, then
``number_codes`` a block at a time: what reaches the phone engine), and a whole offline
preflight of a personalised text. Each is timed (median of ``--runs``, taken in turns) and,
in one more run under ``tracemalloc``, the peak of Python's own heap is taken: Python
strings are made there, Arrow's buffers are not (they come from Arrow's allocator), so a
path that makes no Python string a cell shows a small peak. Last, the input's own memory and
how many numbers the phone engine reads as Python values rather than from Arrow's bytes.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
from _common import cpu_model

import smskit
from smskit.campaigns.planning.audience import NUMBER_BLOCK_ROWS
from smskit.rules import phones
from smskit.rules.recipients import REGION_COLUMN, Recipients, number_codes

TEXT = "Bonjour {first_name}, -20% ce week-end. STOP au 36173"


def columns(rows: int) -> dict[str, list[Any]]:
    """``rows`` recipients: French mobiles written four ways, 1,000 first names, FR or BE."""
    spellings = ("+3361{:07d}", "061{:07d}", "06 1{:01d} {:02d} {:02d} {:02d}", "00336{:08d}")
    numbers = []
    for i in range(rows):
        kind = i % 4
        if kind == 2:
            n = i % 10**7
            numbers.append(
                spellings[2].format(n // 10**6, n // 10**4 % 100, n // 100 % 100, n % 100)
            )
        else:
            numbers.append(spellings[kind].format(i % 10**7 if kind < 2 else 10**7 + i % 10**7))
    return {
        "phone_number": numbers,
        "first_name": [f"Name{i % 1000}" for i in range(rows)],
        "country": ["FR" if i % 10 else "BE" for i in range(rows)],
    }


def read_numbers(value: Any) -> None:
    """What preflight's recipients' half does with the numbers (campaigns/planning/audience.py)."""
    table = Recipients(value).columns(())
    given, regions = table["phone_number"].array, table[REGION_COLUMN].array
    for start in range(0, len(table), NUMBER_BLOCK_ROWS):
        end = start + NUMBER_BLOCK_ROWS
        number_codes(given[start:end], regions[start:end], "FR")


def held(value: Any) -> float:
    """The input's own memory in MB (Python objects included)."""
    if isinstance(value, pd.DataFrame):
        return float(value.memory_usage(deep=True).sum()) / 1e6
    return float(value.nbytes if isinstance(value, pa.Table) else value.estimated_size()) / 1e6


def python_values(value: Any) -> int:
    """How many of the numbers the phone engine reads as Python values (its per-value path,
    ``phones._distinct_values``) rather than from Arrow's bytes (the whole-array lane)."""
    real = phones._distinct_values
    count = 0

    def counted(series: pd.Series, *rest: Any) -> Any:
        nonlocal count
        count += len(series)
        return real(series, *rest)

    phones._distinct_values = counted  # type: ignore[assignment]
    try:
        read_numbers(value)
    finally:
        phones._distinct_values = real  # type: ignore[assignment]
    return count


def preflight(value: Any) -> None:
    campaign = smskit.Campaign(None, value, text=TEXT, sender="Shop", purpose="wholesale")
    campaign.preflight(offline=True)


def measured(
    inputs: dict[str, Any], steps: dict[str, Callable[[Any], object]], runs: int
) -> dict[str, dict[str, tuple[float, float]]]:
    """Per input and step: the median seconds over ``runs`` (taken in turns, input after
    input, so a change of the machine's load falls on every input alike), then the Python
    heap's peak (MB) of one more run under tracemalloc."""
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(runs):
        for name, value in inputs.items():
            for step, fn in steps.items():
                start = time.perf_counter()
                fn(value)
                times.setdefault((name, step), []).append(time.perf_counter() - start)
    results: dict[str, dict[str, tuple[float, float]]] = {}
    for name, value in inputs.items():
        for step, fn in steps.items():
            tracemalloc.start()
            fn(value)
            peak = tracemalloc.get_traced_memory()[1] / 1e6
            tracemalloc.stop()
            median = statistics.median(times[name, step])
            results.setdefault(name, {})[step] = (median, peak)
    return results


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    print(f"{cpu_model()}, Python {platform.python_version()}, pandas {pd.__version__}, "
          f"pyarrow {pa.__version__}, polars {pl.__version__}, {args.rows:,} rows")  # fmt: skip
    data = columns(args.rows)
    inputs = {
        "pandas object (anchor)": pd.DataFrame(data, dtype=object),
        "pandas str": pd.DataFrame(data),
        "pyarrow Table": pa.table(data),
        "polars DataFrame": pl.DataFrame(data),
    }
    del data
    preflight(inputs["pandas str"].head(1000))  # warm the phone tables and the text engine
    steps: dict[str, Callable[[Any], object]] = {
        "reader": Recipients,
        "numbers": read_numbers,
        "preflight": preflight,
    }
    results = measured(inputs, steps, args.runs)
    objects = {name: python_values(value) for name, value in inputs.items()}
    anchor = results["pandas object (anchor)"]
    print(f"{'input':24} " + " ".join(f"{s + ' s (x anchor), peak MB':>34}" for s in steps))
    for name, row in results.items():
        cells = [
            f"{row[s][0]:8.3f} ({row[s][0] / anchor[s][0]:5.2f}x), {row[s][1]:7.1f}" for s in steps
        ]
        print(f"{name:24} " + " ".join(f"{c:>34}" for c in cells))
    print("the input's own memory, and the numbers the phone engine read as Python values")
    print("(its per-value path; the rest from Arrow's bytes by the whole-array lane):")
    for name, count in objects.items():
        print(f"  {name:24} {held(inputs[name]):7.1f} MB {count:>10,} of {args.rows:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
