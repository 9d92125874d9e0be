"""What a frequency cap costs a preflight (issue #36, speed: a capped preflight of 1,000,000
recipients against a history of 10,000,000 sent messages within 2x the uncapped one).

For N recipients (distinct French mobiles) and a history of H marketing messages (numbers
drawn among 2N, so about half the recipients have some; instants spread over 30 days before
the send), measured in one run, each the median of three:

- anchor: the preflight of the campaign without a cap (a new audience each time: numbers
  read, normalised, checked, the text rendered: what ``Campaign.preflight()`` does);
- the same preflight with ``frequency_cap="2/7D"`` against the history, the numbers at the
  cap found by the rule (:mod:`smskit.rules.caps`) inside the preflight;
- the history as the cap reads it (:func:`smskit.campaigns.analysis.sends.marketing_history`
  over journals already read: their arrays joined), and the one-time conversion of H E.164
  texts to the int64 keys the rule compares (done once per journal file read).

The history is built in memory as the journal reader keeps it (numbers and instants per
journal), not as H rows written to SQLite journals: writing and reading ten million journal
rows measures SQLite and JSON, not the cap; docs/benchmarks.md says so.

    .venv/bin/python benchmarks/bench_frequency_cap.py
    .venv/bin/python benchmarks/bench_frequency_cap.py --rows 100000 --history 1000000  # quick
"""

from __future__ import annotations

import argparse
import platform
import time
from datetime import UTC, datetime, timedelta

import numpy as np
import pandas as pd
from _common import cpu_model, median_seconds

from smskit.campaigns.planning.orchestration import preflight
from smskit.campaigns.planning.preflight import PreflightSettings
from smskit.rules.caps import SentHistory, frequency_cap, number_keys
from smskit.rules.recipients import Recipients

NOW = datetime(2026, 3, 3, 9, tzinfo=UTC)
SETTINGS = PreflightSettings(text="Bonjour, -20% ce week-end ! STOP au 36173", sender="Shop")
CAP = frequency_cap("2/7D")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--history", type=int, default=10_000_000)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    numbers = [f"+3361{n:07d}" for n in range(args.rows)]
    frame = pd.DataFrame({"phone_number": numbers})
    drawn = rng.integers(0, 2 * args.rows, args.history)
    span = int(timedelta(days=30).total_seconds() * 1e9)
    now_ns = pd.Timestamp(NOW).value
    at = now_ns - rng.integers(1, span, args.history)

    started = time.perf_counter()
    texts = pd.Series(np.char.add("+3361", np.char.zfill(drawn.astype(str), 7)), dtype=object)
    built = time.perf_counter() - started
    started = time.perf_counter()
    keys = number_keys(texts)
    keyed = time.perf_counter() - started
    del texts
    # Ten journals' arrays, as the reader keeps them; joined on each preflight.
    parts = list(zip(np.array_split(keys, 10), np.array_split(at, 10), strict=True))

    def history() -> SentHistory:
        return SentHistory(
            np.concatenate([k for k, _ in parts]), np.concatenate([t for _, t in parts])
        )

    capped_settings = PreflightSettings(**{**SETTINGS.__dict__, "frequency_cap": CAP})

    def uncapped() -> object:
        return preflight(Recipients(frame), SETTINGS, now=NOW)

    def capped() -> object:
        return preflight(Recipients(frame), capped_settings, now=NOW, history=history())

    uncapped()  # warm: imports, caches
    anchor = median_seconds(uncapped)
    with_cap = median_seconds(capped)
    joining = median_seconds(history)
    report = capped()
    excluded = int(report.issues()["frequency_capped"])  # type: ignore[attr-defined]

    print(f"machine: {cpu_model()}, Python {platform.python_version()}")
    print(
        f"{args.rows:,} recipients, a history of {args.history:,} marketing messages over 30 "
        f"days; cap {CAP}: {excluded:,} recipients capped"
    )
    rows = [
        ("preflight, no cap (anchor)", anchor),
        ("preflight with the cap (history joined + rule)", with_cap),
        ("history joined from ten journals' arrays", joining),
        (f"{args.history:,} E.164 texts to keys (once per read)", keyed),
        ("(building the texts, not smskit)", built),
    ]
    for name, seconds in rows:
        print(f"  {name:<52} {seconds * 1000:10.1f} ms  {seconds / anchor:6.2f} x anchor")


if __name__ == "__main__":
    main()
