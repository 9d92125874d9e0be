"""A whole ``smskit balance`` command, fresh process, beside a bare httpx script (the anchor).

Usage: ``python benchmarks/bench_cli.py [--runs N]``. Three cases, interleaved so that the
load of a shared machine hits them alike, each in a fresh interpreter timed from spawn to
exit by this process (what cron waits for):

- the anchor: ``import httpx`` and one authenticated GET of the balance, printed;
- ``python -m smskit balance`` on a configured gateway (a sandbox in its own process);
- ``python -m smskit balance`` with nothing configured (it starts and stops an embedded
  sandbox).

For each command the *exit* is also timed: from its answer arriving on the pipe (``click``
flushes each line) to the process having ended: the sandbox's stop and the interpreter's
teardown. Prints min and median per case and the ratio of medians to the anchor.
"""

from __future__ import annotations

import argparse
import os
import platform
import secrets
import statistics
import subprocess
import sys
import time

from _common import cpu_model, standalone_sandbox

ANCHOR = """
import httpx, os
answer = httpx.get(os.environ["SMSKIT_BASE_URL"] + "/v1/public/wallet/check-balance",
                   headers={"api-login": os.environ["SMSKIT_API_LOGIN"],
                            "api-key": os.environ["SMSKIT_API_KEY"]})
answer.raise_for_status()
print(answer.json())
"""


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(seconds from spawn to exit, seconds from the first line of output to exit)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    assert process.stdout is not None
    first = process.stdout.readline()
    answered = time.perf_counter()
    process.stdout.read()
    code = process.wait()
    ended = time.perf_counter()
    if code != 0 or not first:
        raise RuntimeError(f"{command} exited {code}")
    return ended - start, ended - answered


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per case")
    args = parser.parse_args(argv)
    print(f"machine: {os.cpu_count()} cores, {cpu_model()}, Python {platform.python_version()}")
    bare = {k: v for k, v in os.environ.items() if not k.startswith("SMSKIT_")}
    key = secrets.token_hex(16)
    with standalone_sandbox(key) as url:
        configured = {**bare, "SMSKIT_BASE_URL": url, "SMSKIT_API_LOGIN": "sandbox",
                      "SMSKIT_API_KEY": key}  # fmt: skip
        cases = {
            "bare httpx script (anchor)": ([sys.executable, "-c", ANCHOR], configured),
            "smskit balance, configured gateway": (
                [sys.executable, "-m", "smskit", "balance"],
                configured,
            ),
            "smskit balance, embedded sandbox": (
                [sys.executable, "-m", "smskit", "balance"],
                bare,
            ),
        }
        for command, env in cases.values():  # warm the OS file cache
            timed(command, env)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in cases}
        for _ in range(args.runs):
            for name, (command, env) in cases.items():
                samples[name].append(timed(command, env))
    anchor = statistics.median(total for total, _ in samples["bare httpx script (anchor)"])
    for name, values in samples.items():
        totals = [total for total, _ in values]
        median = statistics.median(totals)
        exits = statistics.median(exit_ for _, exit_ in values)
        print(
            f"{name:<36} min {min(totals):6.3f} s  median {median:6.3f} s"
            f"  = {median / anchor:4.2f} x anchor   exit (answer to end) median {exits:6.3f} s"
        )


if __name__ == "__main__":
    main()
