"""The Composer's keystroke latency and the preflight report's memory (issue #15 items 1, 4).

For 10,000, 100,000 and 1,000,000 recipients (distinct French mobiles, a first name among 40
and a code among 10: 400 field combinations), in one run:

- anchors: ``pd.read_csv`` of the same rows (text columns, as smskit reads them) and
  ``smskit.text.analyze()`` of the typed text;
- the Composer made on the recipients (its first refresh computes the recipients' half of
  preflight: numbers, line types, duplicates, field codes);
- keystrokes: the text typed one character at a time, then texts with other fields; each
  ``composer.text = ...`` is timed until the panel (stats, checks, preflight, HTML) is ready.

``--refresh-cpu`` measures instead the Composer of the browser bench
(``bench_keystroke_browser.py``: 100,000 recipients, a first name among 40, on an embedded
sandbox, so the account's opt-out list is read at each keystroke) typed as it types ("x",
then Backspace, ...): the CPU time (``time.process_time``) of each keystroke's refresh, and
the size of the JSON the front end is sent for it.

Then, in a fresh child process, the 1,000,000-row report: its columns' own memory
(``memory_usage(deep=True)``), the recipients' half it shares, and the process's peak RSS.

    .venv/bin/python benchmarks/bench_composer.py
    .venv/bin/python benchmarks/bench_composer.py --sizes 10000 100000 --no-memory   # quick
    .venv/bin/python benchmarks/bench_composer.py --refresh-cpu 100000
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import cpu_model

NAMES = tuple(f"Prénom{i:02d}" for i in range(40))
TYPED = "Bonjour {first_name}, -20% ce week-end !"
OTHERS = (
    "Bonjour {first_name}, code {param1}. STOP au 36173",
    "Offre {param1} : l’été arrive ! STOP au 36173",
    "Promo sans champ. STOP au 36173",
)
SUFFIX = " STOP au 36173"


def write_csv(path: Path, count: int) -> None:
    """``count`` recipients: distinct mobiles, a first name among 40, a code among 10."""
    with path.open("w", encoding="utf-8") as out:
        out.write("phone_number,first_name,param1\n")
        for i in range(count):
            out.write(f"+336{i:08d},{NAMES[i % 40]},C{i % 10}\n")


def timed(action: Any) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def keystrokes() -> list[str]:
    """The texts a keystroke leaves: the suffix typed a character at a time, then others."""
    return [TYPED + SUFFIX[:i] for i in range(1, len(SUFFIX) + 1)] + list(OTHERS)


def measure(count: int, folder: Path) -> dict[str, Any]:
    import pandas as pd

    import smskit
    from smskit import Composer

    path = folder / f"recipients-{count}.csv"
    write_csv(path, count)
    read = [timed(lambda: pd.read_csv(path, dtype=str, keep_default_na=False)) for _ in range(3)]
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, na_values=[""])
    texts = keystrokes()
    analyze = [timed(lambda t=t: smskit.text.analyze(t)) for t in texts]
    composer: Any = None

    def make() -> None:
        nonlocal composer
        composer = Composer(None, frame, text=TYPED, sender="MyShop", debounce=0)

    made = timed(make)
    latencies = []
    for text in texts:
        latencies.append(timed(lambda t=text: setattr(composer, "text", t)))
    assert composer.preflight is not None and composer.preflight.to_send == count
    assert composer.audience.passes["numbers"] == 1  # the recipients were read once
    return {
        "recipients": count,
        "read_csv_min": min(read),
        "read_csv_median": statistics.median(read),
        "analyze_median": statistics.median(analyze),
        "composer_made": made,
        "keystrokes": len(latencies),
        "keystroke_min": min(latencies),
        "keystroke_median": statistics.median(latencies),
        "keystroke_max": max(latencies),
    }


def refresh_cpu(count: int, keystrokes: int = 400) -> dict[str, Any]:
    """The browser bench's Composer typed into ``keystrokes`` times: each refresh's CPU time
    and the JSON sent to the front end for it (the traits that changed)."""
    import pandas as pd

    import smskit

    names = [f"Prénom{i:02d}" for i in range(40)]
    recipients = pd.DataFrame(
        {
            "phone_number": [f"+336{i:08d}" for i in range(count)],
            "first_name": [names[i % 40] for i in range(count)],
        }
    )
    text = "Bonjour {first_name}, -20% ce week-end ! STOP au 36173"
    sandbox = smskit.Sandbox(seed=1).start()
    try:
        client = smskit.Client(sandbox=sandbox)
        composer = smskit.Composer(
            client, recipients, text=text, sender="MyShop",
            send_at="2030-06-04T10:00:00+02:00", debounce=0,
        )  # fmt: skip
        sent: list[int] = []

        # No front end here: what would go to it, serialised as a kernel's session does.
        comm: Any = composer.comm
        comm.send = lambda data=None, buffers=None, **_: sent.append(len(json.dumps(data)))
        cpu = []
        for i in range(keystrokes + 20):
            sent.clear()
            start = time.process_time()
            composer.set_state({"text": text + "x" if i % 2 == 0 else text})  # as the page sends it
            if i >= 20:  # the first ones warm up
                cpu.append(time.process_time() - start)
        return {
            "recipients": count,
            "keystrokes": keystrokes,
            "cpu_median": statistics.median(cpu),
            "cpu_p10": sorted(cpu)[len(cpu) // 10],
            "cpu_p90": sorted(cpu)[len(cpu) * 9 // 10],
            "sent_bytes": sum(sent),
            "messages": len(sent),
        }
    finally:
        sandbox.stop()


def report_memory(count: int, folder: Path) -> dict[str, Any]:
    """In this (child) process: the report of ``count`` recipients read from a CSV file."""
    import numpy as np

    from smskit.campaigns.planning.orchestration import preflight
    from smskit.campaigns.planning.preflight import PreflightSettings, audience_for
    from smskit.rules.recipients import Recipients

    path = folder / f"recipients-{count}.csv"
    if not path.exists():
        write_csv(path, count)
    recipients = Recipients.from_csv(path)
    settings = PreflightSettings(text=TYPED + SUFFIX, sender="MyShop")
    start = time.perf_counter()
    audience = audience_for(recipients, settings)
    report = preflight(recipients, settings, audience=audience)
    elapsed = time.perf_counter() - start
    columns = report.frame.memory_usage(deep=True, index=True)
    shared = sum(
        getattr(value, "nbytes", 0)
        for value in vars(audience).values()
        if isinstance(value, np.ndarray)
    )
    return {
        "recipients": count,
        "seconds": elapsed,
        "report_mb": float(columns.sum()) / 1e6,
        "by_column_mb": {str(k): round(float(v) / 1e6, 1) for k, v in columns.items()},
        "audience_arrays_mb": shared / 1e6,
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--no-memory", action="store_true", help="skip the 1M report memory")
    parser.add_argument("--refresh-cpu", type=int, help="recipients: the refresh's CPU only")
    parser.add_argument("--child-memory", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_memory:
        print(json.dumps(report_memory(args.child_memory, Path(args.folder))))
        return
    print(
        f"{os.cpu_count()} CPUs, {cpu_model()}, Python {platform.python_version()}, "
        f"load average {os.getloadavg()[0]:.2f} at start"
    )
    if args.refresh_cpu:
        row = refresh_cpu(args.refresh_cpu)
        print(
            f"{row['recipients']:>9,} recipients, {row['keystrokes']} keystrokes: refresh CPU "
            f"median {row['cpu_median'] * 1000:.2f} ms (p10 {row['cpu_p10'] * 1000:.2f}, p90 "
            f"{row['cpu_p90'] * 1000:.2f}); sent to the front end: {row['messages']} "
            f"message(s), {row['sent_bytes']} bytes of JSON; load {os.getloadavg()[0]:.2f}"
        )
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for count in args.sizes:
            row = measure(count, folder)
            ms = {k: v * 1000 for k, v in row.items() if isinstance(v, float)}
            print(
                f"{count:>9,} recipients: keystroke min {ms['keystroke_min']:.1f} / median "
                f"{ms['keystroke_median']:.1f} / max {ms['keystroke_max']:.1f} ms over "
                f"{row['keystrokes']} keystrokes; read_csv min {ms['read_csv_min']:.1f} / median "
                f"{ms['read_csv_median']:.1f} ms (keystroke/read_csv medians "
                f"{row['keystroke_median'] / row['read_csv_median']:.2f}); analyze() median "
                f"{ms['analyze_median']:.3f} ms; Composer made (recipients' half) in "
                f"{row['composer_made']:.2f} s; load {os.getloadavg()[0]:.2f}"
            )
        if not args.no_memory:
            command = [sys.executable, __file__, "--child-memory", "1000000", "--folder", tmp]
            answer = json.loads(subprocess.run(command, capture_output=True, check=True).stdout)
            print(
                f"1,000,000-row report from CSV: {answer['seconds']:.1f} s; report columns "
                f"{answer['report_mb']:.0f} MB ({answer['by_column_mb']}); recipients' half "
                f"arrays {answer['audience_arrays_mb']:.0f} MB; peak RSS "
                f"{answer['peak_rss_mb']:.0f} MB"
            )


if __name__ == "__main__":
    main()
