"""Tracked links: how fast the inbox answers a short link, with 200 clients at once.

The inbox runs in its own process (as ``smskit replies serve`` does), on a file (SQLite
WAL: each request is stored, committed, before its redirect is answered), with
``--links`` registered short links. The load comes from another process: ``--clients``
keep-alive connections (200 by default) opened at once, each requesting random links of
the registry with a pause between requests drawn from an exponential law (mean
``--think`` ms; 0 makes every client ask again as soon as it is answered: the
saturation case). A request's time is measured at the client, from writing the request to
reading the whole answer; the client is raw asyncio streams (an HTTP library's own cost
would be counted as the server's).

Reported: the median, 90th and 99th percentile of the redirect time, requests per second,
and the check that no click was lost: every 302 the clients received is a row of
``inbox.clicks()`` (read after the server stopped, from its file), and nothing else is.

Anchor: the same load on a bare Starlette app on the same server machinery
(``smskit._server``, with the inbox's connection guards) that answers the same 302 from a
dict and stores nothing.

    .venv/bin/python benchmarks/bench_links.py                 # 200 clients, 10 s, think 100 ms
    .venv/bin/python benchmarks/bench_links.py --think 0 --seconds 5
"""

from __future__ import annotations

import argparse
import asyncio
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import cpu_model

DESTINATION = "https://shop.example/soldes?utm_source=sms&utm_campaign=bench"
AGENT = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_4 like Mac OS X) Mobile/15E148 Safari/604.1"


def serve(path: str, links: int, bare: bool) -> None:
    """The child process: register ``links`` short links, serve, print the tokens' file and
    the URL, stop when stdin closes."""
    from smskit._server import BackgroundServer, Guards
    from smskit.replies import Inbox
    from smskit.rules.links import new_tokens

    tokens = new_tokens(links)
    Path(path + ".tokens").write_text("\n".join(tokens))
    if bare:
        from starlette.applications import Starlette
        from starlette.requests import Request
        from starlette.responses import Response
        from starlette.routing import Route

        known = dict.fromkeys(tokens, DESTINATION)

        async def follow(request: Request) -> Response:
            where = known.get(request.path_params["token"])
            if where is None:
                return Response(b"not found", status_code=404)
            return Response(status_code=302, headers={"Location": where})

        app = Starlette(routes=[Route("/{token}", follow)])
        server = BackgroundServer(app, guards=Guards(), name="bare")
        server.start()
        print(server.url, flush=True)
        sys.stdin.read()
        server.stop()
        return
    inbox = Inbox(path)
    rows = [(t, f"+336{i:08d}", i, 0, DESTINATION) for i, t in enumerate(tokens)]
    inbox.register_links("bench", rows)
    inbox.start()
    print(inbox.link_base, flush=True)
    sys.stdin.read()
    inbox.stop()


async def client(
    host: str, port: int, tokens: list[str], until: float, think: float, seed: int
) -> tuple[list[float], int]:
    """One keep-alive connection asking random links until ``until``: times (s), 302s."""
    rng = random.Random(seed)
    reader, writer = await asyncio.open_connection(host, port)
    times: list[float] = []
    redirects = 0
    while time.perf_counter() < until:
        if think:
            await asyncio.sleep(rng.expovariate(1 / think))
        token = rng.choice(tokens)
        request = f"GET /{token} HTTP/1.1\r\nHost: {host}\r\nUser-Agent: {AGENT}\r\n\r\n"
        start = time.perf_counter()
        try:
            head = await ask(reader, writer, request)
        except (asyncio.IncompleteReadError, ConnectionError):
            # The server closed the connection idle past its keep-alive timeout, before
            # this request reached it (nothing stored, nothing answered): connect again.
            reader, writer = await asyncio.open_connection(host, port)
            start = time.perf_counter()
            head = await ask(reader, writer, request)
        times.append(time.perf_counter() - start)
        redirects += head.startswith(b"HTTP/1.1 302")
    writer.close()
    return times, redirects


async def ask(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: str) -> bytes:
    """Send one request, read its whole answer; the head."""
    writer.write(request.encode())
    head = await reader.readuntil(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":", 1)[1])
    if length:
        await reader.readexactly(length)
    return head


async def load(url: str, tokens: list[str], clients: int, seconds: float, think: float) -> Any:
    host, port = url.removeprefix("http://").rsplit(":", 1)
    until = time.perf_counter() + seconds
    runs = [client(host, int(port), tokens, until, think, i) for i in range(clients)]
    return await asyncio.gather(*runs)


def run(bare: bool, args: argparse.Namespace, directory: str) -> dict[str, Any]:
    path = os.path.join(directory, f"{'bare' if bare else 'inbox'}.sqlite")
    command = [sys.executable, __file__, "--serve", path, "--links", str(args.links)]
    child = subprocess.Popen(
        command + (["--bare"] if bare else []), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        text=True, env={**os.environ},
    )  # fmt: skip
    assert child.stdout is not None and child.stdin is not None
    url = child.stdout.readline().strip()
    tokens = Path(path + ".tokens").read_text().split("\n")
    started = time.perf_counter()
    results = asyncio.run(load(url, tokens, args.clients, args.seconds, args.think / 1000))
    elapsed = time.perf_counter() - started
    child.stdin.close()
    child.wait(30)
    times = sorted(t for ts, _ in results for t in ts)
    redirects = sum(r for _, r in results)
    figures: dict[str, Any] = {
        "requests": len(times),
        "per_second": len(times) / elapsed,
        "median_ms": 1000 * statistics.median(times),
        "p90_ms": 1000 * times[int(0.9 * len(times))],
        "p99_ms": 1000 * times[int(0.99 * len(times))],
        "redirects": redirects,
    }
    if not bare:
        from smskit.replies import Inbox

        stored = Inbox(path).clicks()
        figures["stored"] = len(stored)
        figures["lost"] = redirects - len(stored)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--think", type=float, default=100.0, help="mean pause, ms (0: none)")
    parser.add_argument("--links", type=int, default=20_000)
    parser.add_argument("--serve", help=argparse.SUPPRESS)
    parser.add_argument("--bare", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(args.serve, args.links, args.bare)
        return
    print(f"{cpu_model()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
          f"load {os.getloadavg()[0]:.1f}; {args.clients} clients, {args.seconds:g} s, "
          f"think {args.think:g} ms, {args.links} links")  # fmt: skip
    with tempfile.TemporaryDirectory() as directory:
        for bare in (True, False):
            figures = run(bare, args, directory)
            name = "bare 302 from a dict (anchor)" if bare else "Inbox on a file (stored first)"
            shown = ", ".join(
                f"{k} {v:.2f}" if isinstance(v, float) else f"{k} {v}" for k, v in figures.items()
            )
            print(f"{name}: {shown}")


if __name__ == "__main__":
    main()
