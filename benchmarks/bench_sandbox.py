"""Sandbox throughput: recipients/s through 500-recipient sends, HLR numbers/s through 200s.

The sandbox runs standalone in its own process (``python -m smskit sandbox``) so that the
load generator does not share its interpreter; ``--in-process`` measures the notebook case
instead (client and sandbox in one interpreter). Every number is distinct so no cache helps.

    .venv/bin/python benchmarks/bench_sandbox.py            # 4 clients, 100 sends, 150 HLR requests
    .venv/bin/python benchmarks/bench_sandbox.py --in-process
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx
from _common import cpu_model, standalone_sandbox

TEXT = "Hello {first_name}, -20% on everything this weekend only. STOP au 36173"


@contextmanager
def in_process(key: str) -> Iterator[str]:
    """A sandbox in this interpreter; yields its base URL."""
    from smskit.sandbox import Sandbox

    with Sandbox(api_key=key) as sb:
        yield sb.url


def numbers(start: int, count: int) -> list[str]:
    """Distinct French mobile numbers."""
    return [f"+336{n:08d}" for n in range(start, start + count)]


def run(clients: int, jobs: list[Any], work: Callable[[httpx.Client, Any], int], url: str,
        key: str) -> tuple[int, float]:  # fmt: skip
    """Run ``jobs`` over ``clients`` threads; returns (units done, seconds)."""
    lock = threading.Lock()
    queue = list(jobs)
    done = [0]

    def worker() -> None:
        headers = {"api-login": "sandbox", "api-key": key}
        with httpx.Client(base_url=url, headers=headers, timeout=60, trust_env=False) as client:
            while True:
                with lock:
                    if not queue:
                        return
                    job = queue.pop()
                units = work(client, job)
                with lock:
                    done[0] += units

    threads = [threading.Thread(target=worker) for _ in range(clients)]
    started = time.perf_counter()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return done[0], time.perf_counter() - started


def send(client: httpx.Client, job: tuple[str, list[str]]) -> int:
    """One 500-recipient personalised send; returns recipients accepted."""
    text, batch = job
    recipients = [{"phone_number": n, "first_name": f"Client{n[4:]}"} for n in batch]
    body = {"text": text, "recipients": recipients, "sender": "MyShop"}
    response = client.post("/v1/public/sms-campaign/send", json=body)
    response.raise_for_status()
    return int(response.json()["number_of_contacts"])


def hlr(client: httpx.Client, batch: list[str]) -> int:
    """One 200-number HLR request; returns results received."""
    response = client.post("/v1/public/contact/hlr-request", json={"phone_numbers": batch})
    response.raise_for_status()
    return len(response.json())


def main() -> None:
    """Measure and print a small report."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--sends", type=int, default=100, help="500-recipient sends")
    parser.add_argument("--hlr", type=int, default=150, help="200-number HLR requests")
    parser.add_argument("--in-process", action="store_true")
    parser.add_argument("--text", default=TEXT, help="template sent (default: GSM-7, one field)")
    args = parser.parse_args()
    key = secrets.token_urlsafe(16)
    server = in_process if args.in_process else standalone_sandbox
    with server(key) as url:
        headers = {"api-login": "sandbox", "api-key": key}
        httpx.post(f"{url}/_sandbox/balance", json={"amount": 10_000_000}, headers=headers)
        send_jobs = [(args.text, numbers(i * 500, 500)) for i in range(args.sends)]
        run(args.clients, [(args.text, numbers(90_000_000, 500))], send, url, key)  # warm-up
        sent, send_time = run(args.clients, send_jobs, send, url, key)
        hlr_jobs = [numbers(50_000_000 + i * 200, 200) for i in range(args.hlr)]
        run(args.clients, [numbers(91_000_000, 200)], hlr, url, key)  # warm-up
        checked, hlr_time = run(args.clients, hlr_jobs, hlr, url, key)
    mode = "in-process" if args.in_process else "standalone process"
    print(f"machine: {os.cpu_count()} CPUs, {cpu_model()}, Python {platform.python_version()}")
    print(f"sandbox: {mode}, {args.clients} concurrent httpx clients, text {args.text!r}")
    print(f"sends: {sent} recipients in {args.sends} requests of 500, {send_time:.2f} s "
          f"-> {sent / send_time:,.0f} recipients/s")  # fmt: skip
    print(f"HLR:   {checked} numbers in {args.hlr} requests of 200, {hlr_time:.2f} s "
          f"-> {checked / hlr_time:,.0f} numbers/s")  # fmt: skip


if __name__ == "__main__":
    main()
