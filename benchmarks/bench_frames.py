"""1,000,000 HLR result dicts to a typed frame, then the line_status x type breakdown.

    .venv/bin/python benchmarks/bench_frames.py              # 1,000,000 dicts, 3 timed runs
    .venv/bin/python benchmarks/bench_frames.py -n 100000    # a quicker run

Target: under 3 s for frame + breakdown on the 2-core reference machine. The dicts are what
the gateway's JSON decodes to: 50,000 distinct numbers answered by the sandbox's HLR
simulation (seed 0), repeated to the size asked, each row its own dict with its own phone
number (and its own ported_date when ported), so per-row columns have real cardinality.
The script checks the breakdown against a plain Counter and exits non-zero if they differ.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import sys
import time
from collections import Counter
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pandas as pd
from _common import cpu_model

from smskit import frames
from smskit.sandbox import _hlr


def _distinct_numbers(count: int, rng: random.Random) -> list[str]:
    """Mostly French mobiles, plus landlines, British, German, US numbers and junk."""
    makers = [
        (0.55, lambda: f"+33{rng.choice('67')}{rng.randrange(10**8):08d}"),
        (0.10, lambda: f"+33{rng.randrange(1, 6)}{rng.randrange(10**8):08d}"),
        (0.12, lambda: f"+447{rng.randrange(400, 999)}{rng.randrange(10**6):06d}"),
        (0.10, lambda: f"+4915{rng.randrange(1, 8)}{rng.randrange(10**7):07d}"),
        (
            0.10,
            lambda: (
                f"+1{rng.randrange(201, 989)}{rng.randrange(200, 999)}{rng.randrange(10**4):04d}"
            ),
        ),
        (0.03, lambda: f"+{rng.randrange(10**6, 10**8)}"),
    ]
    weights = [w for w, _ in makers]
    return [rng.choices(makers, weights)[0][1]() for _ in range(count)]


def build(size: int, distinct: int = 50_000) -> list[dict[str, Any]]:
    """``size`` HLR answer dicts, every row a fresh dict with its own number and date."""
    rng = random.Random(0)
    answers = _hlr.lookup_many(_distinct_numbers(distinct, rng), seed=0)
    start = datetime(2015, 1, 1)
    rows = []
    for i in range(size):
        answer = dict(answers[i % distinct])
        answer["phone_number"] = f"+3399{i:08d}" if answer["phone_number"] else None
        details = answer["original_network_details"]
        if details is not None:
            answer["original_network_details"] = dict(details)
            moment = start + timedelta(seconds=rng.randrange(315_360_000))
            answer["ported_date"] = moment.strftime("%Y-%m-%d %H:%M:%S")
        rows.append(answer)
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", "--size", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args(argv)

    print(
        f"machine: {os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu_model()}, "
        f"Python {platform.python_version()}, pandas {pd.__version__}, numpy {np.__version__}"
    )
    began = time.perf_counter()
    rows = build(args.size)
    print(f"built {len(rows):,} HLR dicts in {time.perf_counter() - began:.1f} s")
    print(f"load average at start: {os.getloadavg()[0]:.2f}")

    times = []
    for run in range(1, args.runs + 1):
        t0 = time.perf_counter()
        frame = frames.hlr_frame(rows)
        t1 = time.perf_counter()
        table = frames.breakdown(frame, by=("line_status", "phone_number_type"))
        t2 = time.perf_counter()
        times.append(t2 - t0)
        print(
            f"run {run}: hlr_frame {t1 - t0:.2f} s + breakdown {t2 - t1:.3f} s = {t2 - t0:.2f} s"
            f" ({len(rows) / (t2 - t0):,.0f} dicts/s)"
        )
        del frame

    expected = Counter((r["line_status"], r["phone_number_type"]) for r in rows)
    got = {k: v for k, v in table["count"].drop(index=("total", "")).items() if v}
    ok = got == dict(expected) and table["count"].iloc[-1] == len(rows)
    print(f"first {times[0]:.2f} s, best {min(times):.2f} s; breakdown equals Counter: {ok}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
