"""What the opt-out list costs a preflight (issue #29 item 4).

For N recipients (distinct French mobiles) and an opt-out list of L numbers (half of them
among the recipients), on one reused audience (what the Composer does at a keystroke,
and a campaign's second preflight):

- anchor: the preflight with no list;
- the preflight with the list, the first time (each recipient looked up);
- the preflight with the same list again (the lookup kept by the audience);
- reading the list from its SQLite file: the first read, then a read whose version did not
  change (what every preflight asks).

    .venv/bin/python benchmarks/bench_optouts.py
    .venv/bin/python benchmarks/bench_optouts.py --rows 100000 --listed 10000   # quick
"""

from __future__ import annotations

import argparse
import platform
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

import pandas as pd
from _common import cpu_model, median_seconds

from smskit.campaigns.planning.orchestration import preflight
from smskit.campaigns.planning.preflight import PreflightSettings, audience_for
from smskit.replies.optouts import OptOutEvent, OptOuts, listed_numbers
from smskit.rules.optouts import Suppression
from smskit.rules.recipients import Recipients

NOW = datetime(2026, 3, 3, 9, tzinfo=UTC)
SETTINGS = PreflightSettings(text="Bonjour, -20% ce week-end ! STOP au 36173", sender="Shop")
GATEWAY = ("https://gw.example", "bench")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--listed", type=int, default=100_000)
    args = parser.parse_args()
    numbers = [f"+3361{n:07d}" for n in range(args.rows)]
    recipients = Recipients(pd.DataFrame({"phone_number": numbers}))
    # Half the list are recipients (every tenth one), half are not.
    listed = numbers[::10][: args.listed // 2]
    listed += [f"+3362{n:07d}" for n in range(args.listed - len(listed))]
    audience = audience_for(recipients, SETTINGS)
    preflight(recipients, SETTINGS, now=NOW, audience=audience)  # warm: the text's half

    def run(suppression: Suppression) -> None:
        preflight(recipients, SETTINGS, now=NOW, audience=audience, suppression=suppression)

    anchor = median_seconds(lambda: run(Suppression()))
    suppressed = frozenset(listed)
    started = time.perf_counter()
    report = preflight(
        recipients, SETTINGS, now=NOW, audience=audience, suppression=Suppression(suppressed)
    )
    first = time.perf_counter() - started
    again = median_seconds(lambda: run(Suppression(suppressed)))
    excluded = int(report.issues()["opted_out"])

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "optouts.sqlite"
        with OptOuts(GATEWAY, path=path) as store:
            store.record(OptOutEvent(n, "stop_callback", n, 1) for n in listed)
        started = time.perf_counter()
        version, read = listed_numbers(GATEWAY, path)
        read_first = time.perf_counter() - started
        read_again = median_seconds(lambda: listed_numbers(GATEWAY, path), repeat=20)
        assert read == suppressed and version > 0

    print(f"machine: {cpu_model()}, Python {platform.python_version()}")
    print(f"{args.rows:,} recipients, a list of {args.listed:,} ({excluded:,} of them excluded)")
    rows = [
        ("preflight, no list (anchor)", anchor),
        ("preflight with the list, first time", first),
        ("preflight with the same list again", again),
        ("list read from SQLite, first", read_first),
        ("list read, version unchanged", read_again),
    ]
    for name, seconds in rows:
        print(f"  {name:<40} {seconds * 1000:10.2f} ms  {seconds / anchor:6.2f} x anchor")


if __name__ == "__main__":
    main()
