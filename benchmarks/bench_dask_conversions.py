"""The Dask result's conversions and lift, partition-wise, against the same join in DuckDB
(issue #36, speed: "the Dask result does the same partition-wise for 20,000,000 recipients").

``--recipients`` (default 20,000,000; 10 % held out) and ``--orders`` (default 20,000,000,
half of them from people who were not recipients) over 30 days around the send, written once
to Parquet files of ``--partition`` recipients (and as many order files), E.164 numbers as
text, instants timezone-aware, amounts float. Both sides read the same files, in one run,
best of ``--repeat``:

- smskit: ``smskit.dask.conversions.conversions()`` over the recipients' Dask partitions
  and the orders' (every order's instant and amount checked, the numbers in the window read
  by the rule book, each partition joined by binary search), then ``lift()`` (each
  partition's group totals merged, statsmodels' tests); Dask's threaded scheduler with
  ``--workers`` threads, the recipients never gathered in one frame;
- DuckDB: one SQL query over the same Parquet files (``--workers`` threads): recipients LEFT
  JOIN orders on the number and the window, grouped per recipient (count, sum, min), then
  per group the totals a lift needs (recipients, converted, revenue sum and sum of squares).

    .venv/bin/python benchmarks/bench_dask_conversions.py
    .venv/bin/python benchmarks/bench_dask_conversions.py --recipients 2000000 --orders 2000000
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import duckdb
import numpy as np
import pandas as pd
from _common import best, cpu_model

from smskit.campaigns.analysis.lift import lift_of
from smskit.dask import conversions as partitioned

SENT = pd.Timestamp("2026-03-02 09:00", tz="UTC")
QUERY = """
WITH per AS (
  SELECT r."row", r."group",
         count(o.amount) AS conversions,
         coalesce(sum(o.amount), 0) AS revenue,
         min(o.ordered_at) AS first_conversion_at
  FROM read_parquet($recipients) r
  LEFT JOIN read_parquet($orders) o
    ON o.phone_number = r.phone_number
   AND o.ordered_at >= $start AND o.ordered_at < $stop
  GROUP BY r."row", r."group"
)
SELECT "group", count(*) AS recipients, sum((conversions > 0)::INT) AS converted,
       sum(conversions) AS conversions, sum(revenue) AS revenue,
       sum(revenue * revenue) AS revenue_squares
FROM per GROUP BY "group" ORDER BY "group"
"""


def numbers(people: np.ndarray) -> np.ndarray:
    """Distinct French mobile numbers (E.164 text) for distinct person ids below 10**8."""
    return np.char.add("+336", np.char.zfill(((people * 7_919_317) % 10**8).astype("U8"), 8))


def write(directory: Path, recipients: int, orders: int, partition: int) -> None:
    """The recipients' and orders' Parquet files, one partition at a time."""
    (directory / "recipients").mkdir()
    (directory / "orders").mkdir()
    rng = np.random.default_rng(0)
    span = 30 * 86_400 * 10**9
    parts = -(-recipients // partition)
    per = -(-orders // parts)
    for index in range(parts):
        rows = np.arange(index * partition, min((index + 1) * partition, recipients))
        pd.DataFrame(
            {
                "row": rows,
                "phone_number": numbers(rows),
                "group": np.where(rng.random(len(rows)) < 0.1, "holdout", "treated"),
            }
        ).to_parquet(directory / "recipients" / f"part-{index:05d}.parquet", index=False)
        count = min(per, orders - index * per)
        who = rng.integers(0, 2 * recipients, count)  # half of them not recipients
        pd.DataFrame(
            {
                "phone_number": numbers(who),
                "ordered_at": pd.to_datetime(
                    SENT.value - span // 3 + rng.integers(0, span, count), utc=True
                ),
                "amount": rng.gamma(2.0, 20.0, count).round(2),
            }
        ).to_parquet(directory / "orders" / f"part-{index:05d}.parquet", index=False)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--recipients", type=int, default=20_000_000)
    parser.add_argument("--orders", type=int, default=20_000_000)
    parser.add_argument("--partition", type=int, default=1_000_000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--window", default="5D")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-dask-conversions-") as where:
        directory = Path(where)
        start = time.perf_counter()
        write(directory, args.recipients, args.orders, args.partition)
        written = time.perf_counter() - start
        stop = SENT + pd.Timedelta(args.window)

        def ours() -> Any:
            recipients = dd.read_parquet(str(directory / "recipients"))
            orders = dd.read_parquet(str(directory / "orders"))
            with dask.config.set(scheduler="threads", num_workers=args.workers):
                frame = partitioned.conversions(
                    recipients, orders, sent_at=SENT, window=args.window
                )
                return lift_of(*partitioned.group_totals(frame))

        def theirs() -> pd.DataFrame:
            connection = duckdb.connect()
            connection.execute(f"SET threads = {args.workers}")
            return connection.execute(
                QUERY,
                {
                    "recipients": str(directory / "recipients" / "*.parquet"),
                    "orders": str(directory / "orders" / "*.parquet"),
                    "start": SENT,
                    "stop": stop,
                },
            ).df()

        mine, answer = best(ours, args.repeat)
        duck, reference = best(theirs, args.repeat)
    totals = reference.set_index("group")
    same = (
        answer.treated == int(totals.loc["treated", "recipients"])
        and answer.holdout == int(totals.loc["holdout", "recipients"])
        and abs(
            answer.value("revenue_per_recipient", "treated")
            - float(totals.loc["treated", "revenue"]) / answer.treated
        )
        < 1e-6
    )
    print(f"{cpu_model()}, Python {platform.python_version()}, duckdb {duckdb.__version__}, "
          f"dask {dask.__version__}, {args.workers} threads each")  # fmt: skip
    print(f"{args.recipients:,} recipients in partitions of {args.partition:,}, "
          f"{args.orders:,} orders, window {args.window} (files: {written:.1f} s)")  # fmt: skip
    print(f"smskit Dask conversions()+lift(): {mine:.2f} s")
    print(f"DuckDB one query:                 {duck:.2f} s")
    print(f"ratio: {mine / duck:.2f}x   same totals: {same}")


if __name__ == "__main__":
    main()
