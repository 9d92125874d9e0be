"""Callbacks into the Inbox: milliseconds per delivery report, and where they go.

Two measurements, each beside its anchor:

1. **Per callback, posted one after another** over one keep-alive connection (as the
   sandbox's delivery worker posts): to a bare app on the same server machinery that
   answers 200 and stores nothing (the HTTP floor, the anchor), to an Inbox in memory, and
   to an Inbox on a file (SQLite WAL, a commit per callback before the 200).
2. **A whole send**: a 5,000-recipient campaign on the sandbox with a fast delivery model
   (late, duplicated, out-of-order reports; STOPs), every callback into a file Inbox; then
   ``Inbox.delivery_status()`` and ``CampaignResult.outcomes()``. Reported: the send, the
   wait for every callback (the sandbox's scripted network time is 0.2 s of it), callbacks
   per second, the standing-status frame, the join.

The whole send also reports the Inbox's own share of each callback: the time spent reading
the body (``receiver.parse_callback``) and storing it (the store's ``add``, the commit
included), timed by wrapping both for this run.

    .venv/bin/python benchmarks/bench_callbacks.py             # 3,000 posts, 5,000 recipients
    .venv/bin/python benchmarks/bench_callbacks.py --posts 1000 --recipients 1000

3. ``--against DIR`` (another checkout, e.g. the code before a change): the whole send alone,
   in fresh processes taking turns, this checkout then ``DIR``, for ``--rounds`` rounds: the
   wait for every callback (wall), the process's CPU in it (sender and Inbox together, one
   interpreter), callbacks per second and CPU per callback, and the attempts' statuses
   (every one should be 200).

    .venv/bin/python benchmarks/bench_callbacks.py --against ../before --rounds 3
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx
from _common import cpu_model

TEXT = "Soldes -20% ce week-end ! STOP au 36173"


def report_body(i: int) -> bytes:
    """A distinct delivery report (a new message each time: nothing deduplicated)."""
    body = {"message_id": f"bench-{i}", "number": f"+336{i:08d}", "status": "DELIVERED",
            "delivery_date": "2026-11-25 10:00:00", "unit_price": 0.065}  # fmt: skip
    return json.dumps(body).encode()


def post_all(url: str, count: int) -> float:
    """Post ``count`` reports one after another on one connection; seconds taken."""
    timeout = httpx.Timeout(5.0).as_dict()
    with httpx.HTTPTransport() as transport:
        start = time.perf_counter()
        for i in range(count):
            request = httpx.Request("POST", url, content=report_body(i),
                                    headers={"content-type": "application/json"},
                                    extensions={"timeout": timeout})  # fmt: skip
            response = transport.handle_request(request)
            response.read()
            response.close()
            assert response.status_code == 200
        return time.perf_counter() - start


def bare_app() -> Any:
    """An app that reads the body and answers 200, storing nothing (the HTTP floor)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response
    from starlette.routing import Route

    async def inbound(request: Request) -> Response:
        await request.body()
        return Response(status_code=200)

    return Starlette(routes=[Route("/callbacks/x/inbound", inbound, methods=["POST"])])


def per_callback(posts: int, directory: Path) -> dict[str, float]:
    """Milliseconds per posted report: bare server, Inbox in memory, Inbox on a file."""
    from smskit._server import BackgroundServer, Guards
    from smskit.replies import Inbox

    found: dict[str, float] = {}
    server = BackgroundServer(bare_app(), name="bench-bare", guards=Guards())
    server.start()
    try:
        post_all(f"{server.url}/callbacks/x/inbound", 100)  # warm-up
        found["bare"] = post_all(f"{server.url}/callbacks/x/inbound", posts) / posts * 1e3
    finally:
        server.stop()
    for name, path in (("inbox, memory", None), ("inbox, file", directory / "inbox.sqlite")):
        with Inbox(path) as inbox:
            post_all(inbox.url, 100)
            seconds = post_all(inbox.url, posts)
            assert inbox.stats()["delivery_reports"] >= posts
        found[name] = seconds / posts * 1e3
    return found


def timed(owner: Any, name: str, spent: list[float]) -> None:
    """Wrap ``owner.name`` so that each call adds its seconds to ``spent[0]`` (count in 1)."""
    original = getattr(owner, name)

    def wrapper(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args)
        finally:
            spent[0] += time.perf_counter() - start
            spent[1] += 1

    setattr(owner, name, wrapper)


def whole_send(recipients: int, directory: Path) -> dict[str, Any]:
    """A campaign's send, its callbacks into a file Inbox, and the outcomes join."""
    import smskit
    from smskit.replies import Inbox, inbox, receiver
    from smskit.sandbox import DeliveryModel, Sandbox

    parsing, storing = [0.0, 0.0], [0.0, 0.0]
    timed(receiver, "parse_callback", parsing)
    timed(inbox._Store, "add", storing)  # the one place a benchmark reaches inside

    model = DeliveryModel.fast(seed=7, late_share=0.3, duplicate_share=0.3, stop_share=0.05)
    numbers = [f"+336{n:08d}" for n in range(recipients)]
    with (
        Inbox(directory / "send.sqlite") as box,
        Sandbox(seed=3, delivery_model=model) as sb,
        smskit.Client(sandbox=sb) as client,
    ):
        sb.set_callback_url(box.url)
        start = time.perf_counter()
        campaign = smskit.Campaign(client, numbers, text=TEXT, sender="Shop", name="bench")
        result = campaign.send(journal=directory / "journal.sqlite", progress=False)
        sent, cpu = time.perf_counter(), time.process_time()
        sb.wait_for_deliveries(timeout=600)
        delivered, cpu = time.perf_counter(), time.process_time() - cpu
        log = sb.deliveries()
        status = box.delivery_status()
        counted = time.perf_counter()
        outcomes = result.outcomes(box)
        joined = time.perf_counter()
        stats = box.stats()
    callbacks = stats["delivery_reports"] + stats["stops"] + stats["report_duplicates"]
    assert len(outcomes) == recipients == len(status) and outcomes["final"].all()
    return {
        "send_s": sent - start,
        "callbacks": callbacks,
        "deliveries_s": delivered - sent,
        "callbacks_per_s": callbacks / (delivered - sent),
        "attempts": len(log),
        "deliveries_cpu_s": cpu,  # the process's: the sandbox's sender and the Inbox together
        "statuses": dict(collections.Counter(log["status"].astype(str))),
        "parse_ms": parsing[0] / max(parsing[1], 1) * 1e3,
        "store_ms": storing[0] / max(storing[1], 1) * 1e3,
        "delivery_status_s": counted - delivered,
        "outcomes_s": joined - counted,
    }


def compare(against: str, rounds: int, recipients: int) -> None:
    """The delivery phase in fresh processes, this checkout and ``against`` taking turns."""
    here = str(Path(__file__).resolve().parent.parent)
    roots = {"this checkout": here, "against": str(Path(against).resolve())}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in roots}
    print(f"\ndelivery phase, {recipients} recipients, {rounds} rounds ({roots['against']}):")
    for round_ in range(rounds):
        for name, root in roots.items():
            env = {**os.environ, "PYTHONPATH": root}
            command = [sys.executable, __file__, "--phase", str(recipients)]
            out = subprocess.run(command, env=env, cwd=root, check=True, capture_output=True)
            found = json.loads(out.stdout.decode().splitlines()[-1])
            runs[name].append(found)
            wall, cpu = found["deliveries_s"], found["deliveries_cpu_s"]
            per_s, cpu_ms = found["attempts"] / wall, cpu / found["attempts"]
            print(f"  round {round_ + 1} {name:<14} {found['attempts']} attempts in "
                  f"{wall:5.2f} s ({per_s:4.0f}/s), CPU {cpu:5.2f} s "
                  f"({cpu_ms * 1e3:.2f} ms each), load {os.getloadavg()[0]:.1f}, "
                  f"{found['statuses']}")  # fmt: skip
    for name, found in runs.items():
        walls = sorted(f["deliveries_s"] / f["attempts"] for f in found)
        cpus = sorted(f["deliveries_cpu_s"] / f["attempts"] for f in found)
        print(f"  median {name:<14} {1 / walls[len(walls) // 2]:4.0f} callbacks/s, "
              f"{cpus[len(cpus) // 2] * 1e3:.2f} ms CPU each")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--posts", type=int, default=3000)
    parser.add_argument("--recipients", type=int, default=5000)
    parser.add_argument("--against", help="another checkout: compare the delivery phase")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--phase", type=int, help=argparse.SUPPRESS)  # one child's run
    args = parser.parse_args()
    if args.phase is not None:
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(whole_send(args.phase, Path(tmp))))
        return
    if args.against is not None:
        print(f"{platform.python_implementation()} {platform.python_version()} on {cpu_model()}")
        compare(args.against, args.rounds, args.recipients)
        return
    print(f"{platform.python_implementation()} {platform.python_version()} on {cpu_model()}")
    with tempfile.TemporaryDirectory() as tmp:
        found = per_callback(args.posts, Path(tmp))
        print(f"\n{args.posts} reports posted one after another (ms per callback, x bare):")
        for name, ms in found.items():
            print(f"  {name:<14} {ms:6.3f} ms  x{ms / found['bare']:.2f}")
        send = whole_send(args.recipients, Path(tmp))
    print(f"\n{args.recipients}-recipient campaign, callbacks into a file Inbox:")
    print(f"  send            {send['send_s']:6.2f} s")
    rate = send["callbacks_per_s"]
    print(f"  callbacks       {int(send['callbacks'])} in {send['deliveries_s']:.2f} s "
          f"({rate:.0f}/s, {1e3 / rate:.2f} ms each)")  # fmt: skip
    print(f"    of which read {send['parse_ms']:.3f} ms, stored {send['store_ms']:.3f} ms each")
    print(f"  delivery_status {send['delivery_status_s']:6.2f} s")
    print(f"  outcomes()      {send['outcomes_s']:6.2f} s")


if __name__ == "__main__":
    main()
