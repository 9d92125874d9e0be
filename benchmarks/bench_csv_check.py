"""The cost of reading a recipients CSV whole or refusing it (issue #26 item 4).

    .venv/bin/python benchmarks/bench_csv_check.py               # 1,000,000 rows, 3 runs
    .venv/bin/python benchmarks/bench_csv_check.py -n 200000     # a quicker run

``smskit.rules.csvtext.check_whole`` reads the file's bytes once (NUL bytes, UTF-8) and, only
when the file holds a quote character, parses it with Python's csv module to find a quote
left open. The anchor is the read it guards: Arrow reading the same columns as text
(``_arrow_csv``, what ``read_csv_text`` does for a well-formed file). Two files of the same
rows: one without quotes, one with every first name quoted (as a spreadsheet writes a value
holding a comma). Reports the median of the runs and the ratio to the anchor.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from _common import cpu_model

from smskit.rules import csvtext

COLUMNS = ["phone_number", "first_name", "country"]


def write(path: Path, rows: int, *, quoted: bool) -> None:
    """``rows`` recipients: a French mobile, a first name (quoted, with a comma), FR."""
    with path.open("w", encoding="utf-8") as handle:
        handle.write("phone_number,first_name,country\n")
        for i in range(rows):
            name = f'"Name, {i % 1000}"' if quoted else f"Name{i % 1000}"
            handle.write(f"+3361{i % 10**7:07d},{name},FR\n")


def median(fn: Callable[[], object], runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--rows", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"{cpu_model()}, Python {platform.python_version()}, {args.rows:,} rows")
    with tempfile.TemporaryDirectory() as tmp:
        for quoted in (False, True):
            path = Path(tmp) / f"recipients-{quoted}.csv"
            write(path, args.rows, quoted=quoted)
            csvtext._arrow_csv(path, COLUMNS)  # warm the page cache and Arrow
            read = median(lambda p=path: csvtext._arrow_csv(p, COLUMNS), args.runs)
            check = median(lambda p=path: csvtext.check_whole(p), args.runs)
            size = path.stat().st_size / 1e6
            kind = "every first name quoted" if quoted else "no quote"
            print(f"{kind:>24}: {size:.0f} MB, Arrow read {read:.3f} s, check_whole "
                  f"{check:.3f} s ({check / read:.2f}x the read)")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
