"""Conversions and lift at scale against the same join in DuckDB (issue #36, speed).

1,000,000 recipients (10 % held out) and 10,000,000 orders from 5,000,000 people (the
recipients among them), over 30 days around the send, E.164 numbers as pandas' Arrow
strings, instants timezone-aware, amounts float. Measured in one run, best of ``--repeat``:

- smskit: ``conversions()`` (orders' columns read and checked by the rule book, numbers
  read, window from the send) then ``lift()`` (statsmodels);
- DuckDB: one SQL query over the same pandas frames: recipients LEFT JOIN orders on the
  number and the window, grouped per recipient (count, sum, min), the per-recipient frame
  fetched back to pandas (no statistics).

    .venv/bin/python benchmarks/bench_conversions.py
    .venv/bin/python benchmarks/bench_conversions.py --recipients 100000 --orders 1000000
"""

from __future__ import annotations

import argparse
import platform

import duckdb
import numpy as np
import pandas as pd
from _common import best, cpu_model

from smskit.campaigns.analysis.conversions import conversions
from smskit.campaigns.analysis.lift import lift

SENT = pd.Timestamp("2026-03-02 09:00", tz="UTC")
QUERY = """
SELECT r.phone_number, r."group",
       count(o.amount) > 0 AS converted,
       count(o.amount) AS conversions,
       coalesce(sum(o.amount), 0) AS revenue,
       min(o.ordered_at) AS first_conversion_at
FROM recipients r
LEFT JOIN orders o
  ON o.phone_number = r.phone_number
 AND o.ordered_at >= $start AND o.ordered_at < $stop
GROUP BY r.phone_number, r."group"
"""


def frames(recipients: int, orders: int, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The recipients (phone_number, group) and the orders (phone_number, ordered_at, amount)."""
    rng = np.random.default_rng(seed)
    people = 33_600_000_000 + rng.choice(50_000_000, 5 * recipients, replace=False)
    texts = np.char.add("+", people.astype(str))
    chosen = texts[:recipients]
    group = np.where(rng.random(recipients) < 0.1, "holdout", "treated")
    who = rng.integers(0, len(texts), orders)
    span = 30 * 86_400 * 10**9
    instants = SENT.value - span // 3 + rng.integers(0, span, orders)
    return (
        pd.DataFrame({"phone_number": pd.array(chosen, dtype="string[pyarrow]"), "group": group}),
        pd.DataFrame(
            {
                "phone_number": pd.array(texts[who], dtype="string[pyarrow]"),
                "ordered_at": pd.to_datetime(instants, utc=True),
                "amount": rng.gamma(2.0, 20.0, orders).round(2),
            }
        ),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--recipients", type=int, default=1_000_000)
    parser.add_argument("--orders", type=int, default=10_000_000)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--window", default="5D")
    args = parser.parse_args()
    recipients, orders = frames(args.recipients, args.orders)
    stop = SENT + pd.Timedelta(args.window)

    def ours() -> pd.DataFrame:
        frame = conversions(recipients, orders, sent_at=SENT, window=args.window)
        lift(frame)
        return frame

    def theirs() -> pd.DataFrame:
        connection = duckdb.connect()
        connection.register("recipients", recipients)
        connection.register("orders", orders)
        return connection.execute(QUERY, {"start": SENT, "stop": stop}).df()

    lift(conversions(recipients.head(100), orders.head(100), sent_at=SENT))  # imports
    mine, answer = best(ours, args.repeat)
    duck, reference = best(theirs, args.repeat)
    same = (
        int(answer["conversions"].sum()) == int(reference["conversions"].sum())
        and abs(float(answer["revenue"].sum()) - float(reference["revenue"].sum())) < 1e-3
    )
    print(f"{cpu_model()}, Python {platform.python_version()}, duckdb {duckdb.__version__}")
    print(f"{args.recipients:,} recipients, {args.orders:,} orders, window {args.window}")
    print(f"smskit conversions()+lift(): {mine:.2f} s")
    print(f"DuckDB one query:            {duck:.2f} s")
    print(f"ratio: {mine / duck:.2f}x   same totals: {same}")


if __name__ == "__main__":
    main()
