"""Campaign throughput and preflight memory.

1. 100,000 personalised recipients through a standalone sandbox (its own process, so client
   and server do not share a GIL): ``campaign.send()`` (plan, SQLite journal, 4 chunks in
   flight, result) after ``campaign.preflight()``, and end to end, against the same
   500-recipient requests posted one after another with plain httpx and no journal. Each
   side runs in a fresh child process (so its peak RSS is its own), alternately,
   ``--rounds`` times, each on its own numbers, after one warm-up run; the sandbox's
   balance must drop by exactly the expected cost each time.
   Each side also reports its process's CPU time over the timed part, so the share of the
   send's wall time that is the client's own work shows (the rest is waiting on the sandbox).
   A third side posts the same requests four in flight (httpx's async client): the goal is
   preflight + send at least as fast, within 2x the plain loop's peak memory. Imports are
   made before each side's clock (httpx; pandas, smskit and ``smskit.Campaign``, which loads
   the campaign package on first use: that import is timed and printed apart).
2. Preflight of 1,000,000 recipients read from a CSV file (whole, as compact text columns;
   the numbers checked in blocks), and how much of it is ``phones.normalize``: time and
   peak RSS of the process (and of any child process; ``phones.normalize`` starts none now),
   against its anchor, ``pd.read_csv(dtype=str)`` of the same file (time and memory growth),
   each in a fresh process, alternately, ``--preflight-rounds`` times (min, median, ratio of
   medians). The file's rows go by number; ``--shuffled`` writes them in random order.

    .venv/bin/python benchmarks/bench_campaign.py                    # 100,000 x 2 rounds, 1,000,000
    .venv/bin/python benchmarks/bench_campaign.py -n 20000 --preflight 200000 --rounds 1
    .venv/bin/python benchmarks/bench_campaign.py --rounds 0         # the preflight alone
    .venv/bin/python benchmarks/bench_campaign.py --rounds 0 --shuffled  # rows in random order
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import random
import resource
import secrets
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from _common import cpu_model, standalone_sandbox

TEXT = "Bonjour {first_name}, -20% sur tout ce week-end. STOP au 36173"
FR_PREMIUM = 0.065  # EUR per segment; every message here is one GSM-7 segment
NAMES = ("Anne", "Bruno", "Chloé", "David", "Élodie", "Farid", "Gaëlle", "Hugo")


def numbers(start: int, count: int) -> list[str]:
    """Distinct French mobile numbers."""
    return [f"+336{n:08d}" for n in range(start, start + count)]


def recipients(start: int, count: int) -> list[dict[str, str]]:
    """Contacts with a first name (the text is personalised)."""
    return [
        {"phone_number": number, "first_name": NAMES[i % len(NAMES)]}
        for i, number in enumerate(numbers(start, count))
    ]


def cpu_seconds() -> float:
    """User + system CPU time of this process so far."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def children_peak_rss_mb() -> float:
    """Largest peak RSS among this process's finished children, in MB."""
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024


SEND = "/v1/public/sms-campaign/send"


def payload(chunk: list[dict[str, str]]) -> dict[str, Any]:
    """One request of the plain sides: the chunk's recipients and a fresh ``request_id``."""
    return {"text": TEXT, "recipients": chunk, "sender": "Shop", "request_id": uuid.uuid4().hex}


# -- the sides (each run in a child process) ------------------------------------------------


def side_plain(url: str, key: str, start: int, count: int) -> dict[str, Any]:
    """The same requests, one after another, with httpx and nothing else."""
    import httpx

    rows = recipients(start, count)
    chunks = [rows[i : i + 500] for i in range(0, len(rows), 500)]
    headers = {"api-login": "sandbox", "api-key": key}
    started = time.perf_counter()
    cpu = cpu_seconds()
    cost = 0.0
    with httpx.Client(base_url=url, headers=headers, timeout=120, trust_env=False) as http:
        for chunk in chunks:
            answer = http.post(SEND, json=payload(chunk))
            answer.raise_for_status()
            cost += answer.json()["total_cost"]
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": cpu_seconds() - cpu,
        "cost": cost,
        "rss_mb": peak_rss_mb(),
    }


def side_plain4(url: str, key: str, start: int, count: int) -> dict[str, Any]:
    """The same requests with four in flight (httpx's async client), and nothing else."""
    import asyncio

    import httpx

    rows = recipients(start, count)
    chunks = [rows[i : i + 500] for i in range(0, len(rows), 500)]
    headers = {"api-login": "sandbox", "api-key": key}

    async def post_all() -> float:
        total = 0.0
        queue = iter(chunks)
        async with httpx.AsyncClient(
            base_url=url, headers=headers, timeout=120, trust_env=False
        ) as http:

            async def worker() -> None:
                nonlocal total
                for chunk in queue:
                    answer = await http.post(SEND, json=payload(chunk))
                    answer.raise_for_status()
                    total += answer.json()["total_cost"]

            await asyncio.gather(*(worker() for _ in range(4)))
        return total

    started = time.perf_counter()
    cpu = cpu_seconds()
    cost = asyncio.run(post_all())
    return {
        "seconds": time.perf_counter() - started,
        "cpu_seconds": cpu_seconds() - cpu,
        "cost": cost,
        "rss_mb": peak_rss_mb(),
    }


def side_smskit(url: str, key: str, start: int, count: int, concurrency: int) -> dict[str, Any]:
    """smskit as documented: DataFrame in, preflight(), then send() (plan, SQLite journal,
    ``concurrency`` chunks in flight), timed separately and together."""
    import pandas as pd

    import smskit

    frame = pd.DataFrame(recipients(start, count))
    client = smskit.Client("sandbox", key, url, timeout=120)
    # The campaign classes load on first use (``import smskit`` stays light): that import is
    # timed apart, before the clock, as the plain sides import httpx before theirs.
    importing = time.perf_counter()
    campaign_class = smskit.Campaign
    imported = time.perf_counter() - importing
    before = peak_rss_mb()  # pandas, smskit and the frame, before any campaign work
    with tempfile.TemporaryDirectory() as folder:
        journal = Path(folder) / "bench.journal.sqlite"
        started = time.perf_counter()
        campaign = campaign_class(client, frame, text=TEXT, sender="Shop", name=f"bench-{start}")
        report = campaign.preflight()
        checked = time.perf_counter()
        cpu = cpu_seconds()
        result = campaign.send(
            concurrency=concurrency, chunk_size=500, progress=False, journal=journal
        )
        complete = result.complete
        ended = time.perf_counter()
        send_cpu = cpu_seconds() - cpu
        summary = result.summary().iloc[0]
        journal_kb = journal.stat().st_size / 1024
    if not complete or int(summary["sent"]) != count or report.to_send != count:
        raise SystemExit(f"smskit side incomplete: {summary.to_dict()}")
    return {
        "seconds": ended - checked,
        "cpu_seconds": send_cpu,
        "preflight_seconds": checked - started,
        "total_seconds": ended - started,
        "import_seconds": imported,
        "cost": float(summary["cost"]),
        "rss_mb": peak_rss_mb(),
        "rss_before_mb": before,
        "journal_kb": journal_kb,
    }


def side_preflight(path: str) -> dict[str, Any]:
    """Preflight a CSV of recipients."""
    import pandas  # noqa: F401  (imported before the clock, as the read_csv side does)

    import smskit
    from smskit.campaigns.planning import audience
    from smskit.sandbox import Sandbox

    # The share of phones.normalize (the numbers' checks), timed where the audience calls it.
    checking = [0.0]
    number_codes = audience.number_codes

    def timed_checks(*args: Any) -> Any:
        started = time.perf_counter()
        try:
            return number_codes(*args)
        finally:
            checking[0] += time.perf_counter() - started

    audience.number_codes = timed_checks  # type: ignore[assignment]
    with Sandbox() as sandbox:  # a client needs a gateway; preflight makes no request
        client = smskit.Client(sandbox=sandbox)
        baseline = peak_rss_mb()
        started = time.perf_counter()
        campaign = smskit.Campaign(client, Path(path), text=TEXT, sender="Shop")
        report = campaign.preflight(offline=True)
        seconds = time.perf_counter() - started
    summary = report.summary().iloc[0]
    return {
        "seconds": seconds,
        "normalize_seconds": checking[0],
        "rss_mb": peak_rss_mb(),
        "rss_before_mb": baseline,
        "helpers_rss_mb": children_peak_rss_mb(),
        "recipients": int(summary["recipients"]),
        "to_send": int(summary["to_send"]),
        "excluded": int(summary["excluded"]),
    }


def side_read_csv(path: str) -> dict[str, Any]:
    """The anchor of the preflight: pandas reading the same file, nothing else."""
    import pandas as pd

    baseline = peak_rss_mb()
    started = time.perf_counter()
    frame = pd.read_csv(path, dtype=str)
    seconds = time.perf_counter() - started
    return {
        "seconds": seconds,
        "rows": len(frame),
        "rss_mb": peak_rss_mb(),
        "rss_before_mb": baseline,
    }


def _spread(values: list[float]) -> str:
    return f"min {min(values):.2f} s, median {statistics.median(values):.2f} s"


# -- orchestration -----------------------------------------------------------------------------


def child(*args: str) -> dict[str, Any]:
    """Run one side in a fresh interpreter (the key travels in the environment only)."""
    out = subprocess.run(
        [sys.executable, __file__, "--side", *args],
        check=True,
        capture_output=True,
        text=True,
        env=os.environ,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def balance(url: str, key: str) -> float:
    import httpx

    headers = {"api-login": "sandbox", "api-key": key}
    answer = httpx.get(url + "/v1/public/wallet/check-balance", headers=headers, trust_env=False)
    return float(answer.json()["amount"])


def set_balance(url: str, key: str, amount: float) -> None:
    import httpx

    headers = {"api-login": "sandbox", "api-key": key}
    httpx.post(
        url + "/_sandbox/balance", json={"amount": amount}, headers=headers, trust_env=False
    ).raise_for_status()


def write_csv(path: Path, count: int, shuffled: bool) -> None:
    """Recipients as a spreadsheet export: national and E.164 spellings, 1 % too short; by
    number, or ``shuffled`` in random order (seeded)."""
    rows = list(range(count))
    if shuffled:
        random.Random(0).shuffle(rows)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["phone_number", "first_name"])
        for i in rows:
            if i % 100 == 99:
                number = f"06{i % 1000:04d}"  # too short
            elif i % 2:
                number = f"06 {i:08d}"  # national, with a space
            else:
                number = f"+3378{i:07d}"  # E.164
            writer.writerow([number, NAMES[i % len(NAMES)]])


def machine() -> str:
    model = cpu_model()
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    return (
        f"{os.cpu_count()} CPUs, {model}, Python {platform.python_version()}, "
        f"load average {load:.2f} at start"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--recipients", type=int, default=100_000)
    parser.add_argument("--preflight", type=int, default=1_000_000)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--preflight-rounds", type=int, default=3)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument(
        "--shuffled", action="store_true", help="the preflight's CSV rows in random order"
    )
    parser.add_argument("--side", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        kind, *rest = args.side
        key = os.environ["BENCH_SANDBOX_KEY"]
        if kind == "plain":
            result = side_plain(rest[0], key, int(rest[1]), int(rest[2]))
        elif kind == "plain4":
            result = side_plain4(rest[0], key, int(rest[1]), int(rest[2]))
        elif kind == "smskit":
            result = side_smskit(rest[0], key, int(rest[1]), int(rest[2]), int(rest[3]))
        elif kind == "read_csv":
            result = side_read_csv(rest[0])
        else:
            result = side_preflight(rest[0])
        print(json.dumps(result))
        return 0

    print(f"machine: {machine()}")
    key = secrets.token_urlsafe(24)
    os.environ["BENCH_SANDBOX_KEY"] = key
    count = args.recipients
    expected = round(count * FR_PREMIUM, 6)
    ok = True
    seen: dict[str, list[dict[str, Any]]] = {"plain": [], "plain4": [], "smskit": []}
    if not args.rounds:  # the preflight alone
        return 0 if preflight_rounds(args.preflight, args.preflight_rounds, args.shuffled) else 1
    with standalone_sandbox(key) as url:
        set_balance(url, key, 10_000_000.0)
        child("plain", url, str(90_000_000), "5000")  # warm the sandbox up (caches, pages)
        start = 0
        for round_ in range(1, args.rounds + 1):
            for side in ("plain", "plain4", "smskit"):
                before = balance(url, key)
                extra = [str(args.concurrency)] if side == "smskit" else []
                result = child(side, url, str(start), str(count), *extra)
                charged = round(before - balance(url, key), 6)
                seen[side].append(result)
                start += count
                ok &= abs(charged - expected) < 1e-6
                line = (
                    f"round {round_} {side:>6}: {count:,} recipients sent in "
                    f"{result['seconds']:.2f} s ({count / result['seconds']:,.0f}/s)"
                )
                if side == "smskit":
                    line += (
                        f" [send(): plan, journal, {args.concurrency} in flight]; preflight "
                        f"{result['preflight_seconds']:.2f} s; end to end "
                        f"{result['total_seconds']:.2f} s (importing smskit.campaigns "
                        f"before it: {result['import_seconds']:.2f} s); journal "
                        f"{result['journal_kb']:,.0f} KiB; peak RSS before the campaign "
                        f"(imports and frame) "
                        f"{result['rss_before_mb']:.0f} MB"
                    )
                line += (
                    f"; client CPU {result['cpu_seconds']:.2f} s "
                    f"({result['cpu_seconds'] / result['seconds']:.0%} of the wall time)"
                    f"; peak RSS {result['rss_mb']:.0f} MB; charged {charged:.2f} EUR "
                    f"(expected {expected:.2f})"
                )
                print(line, flush=True)
    if seen["smskit"]:
        plain = [r["seconds"] for r in seen["plain"]]
        plain4 = [r["seconds"] for r in seen["plain4"]]
        ours = [r["total_seconds"] for r in seen["smskit"]]
        sends = [r["seconds"] for r in seen["smskit"]]
        imports = [r["total_seconds"] + r["import_seconds"] for r in seen["smskit"]]
        loop_peak = statistics.median(r["rss_mb"] for r in seen["plain"])
        our_peak = statistics.median(r["rss_mb"] for r in seen["smskit"])
        print(
            f"plain loop: {_spread(plain)}; 4 in flight: {_spread(plain4)}; smskit preflight "
            f"+ send: {_spread(ours)}; send() alone: {_spread(sends)}; end to end vs plain "
            f"(ratio of medians, higher is faster): "
            f"{statistics.median(plain) / statistics.median(ours):.2f}x, vs 4 in flight "
            f"{statistics.median(plain4) / statistics.median(ours):.2f}x (goal >= 1; with "
            f"the import of smskit.campaigns counted in: "
            f"{statistics.median(plain4) / statistics.median(imports):.2f}x); "
            f"send() alone vs 4 in flight "
            f"{statistics.median(plain4) / statistics.median(sends):.2f}x; peak RSS "
            f"{our_peak:.0f} MB vs the loop's {loop_peak:.0f} MB = "
            f"{our_peak / loop_peak:.2f}x (goal <= 2x)",
            flush=True,
        )
    if args.preflight:
        ok &= preflight_rounds(args.preflight, args.preflight_rounds, args.shuffled)
    return 0 if ok else 1


def preflight_rounds(size: int, rounds: int, shuffled: bool) -> bool:
    """Preflight of a ``size``-row CSV against ``pd.read_csv`` of it, alternately."""
    anchor: list[float] = []
    ours: list[float] = []
    peaks: list[float] = []
    growth: list[float] = []
    anchor_growth: list[float] = []
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "recipients.csv"
        write_csv(path, size, shuffled)
        megabytes = path.stat().st_size / 1e6
        for _ in range(rounds):
            read = child("read_csv", str(path))
            anchor.append(read["seconds"])
            anchor_growth.append(read["rss_mb"] - read["rss_before_mb"])
            result = child("preflight", str(path))
            growth.append(result["rss_mb"] - result["rss_before_mb"])
            ours.append(result["seconds"])
            peaks.append(result["rss_mb"])
            print(
                f"preflight: {result['recipients']:,} rows ({megabytes:.0f} MB CSV) in "
                f"{result['seconds']:.2f} s, of which phones.normalize "
                f"{result['normalize_seconds']:.2f} s (read_csv {anchor[-1]:.2f} s, grew "
                f"{anchor_growth[-1]:.0f} MB); grew {growth[-1]:.0f} MB; to send "
                f"{result['to_send']:,}, excluded {result['excluded']:,}; peak RSS "
                f"{result['rss_mb']:.0f} MB (before: {result['rss_before_mb']:.0f} MB; helper "
                f"processes peak {result['helpers_rss_mb']:.0f} MB)",
                flush=True,
            )
    print(
        f"preflight {_spread(ours)}; pd.read_csv(dtype=str) {_spread(anchor)}; ratio of "
        f"medians {statistics.median(ours) / statistics.median(anchor):.2f}x (goal <= 2x); "
        f"memory growth {statistics.median(growth):.0f} MB vs read_csv's "
        f"{statistics.median(anchor_growth):.0f} MB = "
        f"{statistics.median(growth) / statistics.median(anchor_growth):.2f}x (goal <= 1.5x); "
        f"peak RSS {min(peaks):.0f}-{max(peaks):.0f} MB",
        flush=True,
    )
    return max(peaks) < 500


if __name__ == "__main__":
    sys.exit(main())
