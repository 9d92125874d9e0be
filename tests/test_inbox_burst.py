"""A burst of legitimate callbacks is served whole, next to a flood of stalled connections.

The connection cap of the guarded server (smskit._server) sheds only stalled connections
(no whole request within the header deadline), never one that is sending its request: in a
burst, the connections that have just opened are the legitimate ones. Everything here is
real TCP on loopback; the bursts come from a child process (tests/_callback_burst.py).
"""

from __future__ import annotations

import asyncio
import json
import resource
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from _callback_burst import head, reply_body

from smskit.replies.inbox import Inbox

BURST = 1000
BURST_SCRIPT = Path(__file__).with_name("_callback_burst.py")


@pytest.fixture(autouse=True)
def enough_files() -> Iterator[None]:
    """Room for 2,000 client and 2,000 server sockets in this process."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = 8192 if hard == resource.RLIM_INFINITY else min(hard, 8192)
    if soft < wanted:
        resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    yield
    resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


async def stall(inbox: Inbox, kind: int, limit: float) -> float | None:
    """A connection that stops (before its headers, inside them, inside the body): seconds
    until the server closes it, None if it is still open after ``limit``."""
    parts = urlsplit(inbox.url)
    opened = time.monotonic()
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
    if kind == 1:
        writer.write(head(urlsplit(inbox.url).path, 100)[:30])
    elif kind == 2:
        writer.write(head(urlsplit(inbox.url).path, 1000) + b'{"message_id":')
    try:
        while await asyncio.wait_for(reader.read(4096), limit):
            pass
    except TimeoutError:
        return None
    except ConnectionResetError:
        pass
    finally:
        writer.close()
    return time.monotonic() - opened


def burst(inbox: Inbox, valid: int, stalled: int, limit: float) -> dict[str, Any]:
    """Run tests/_callback_burst.py against the inbox from a child process (a gateway is
    another process: the burst is not slowed down by the server it tests)."""
    done = subprocess.run(
        [sys.executable, str(BURST_SCRIPT), inbox.url, str(valid), str(stalled), str(limit)],
        capture_output=True,
        text=True,
        timeout=limit + 60,
        check=True,
    )
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_burst_of_valid_callbacks_to_a_default_inbox_is_stored_whole() -> None:
    """1,000 simultaneous valid callbacks to a default Inbox: 1,000 answered 200 and stored
    (the cap closed 744 of them without an answer before)."""
    with Inbox() as inbox:
        answers = burst(inbox, BURST, 0, 60)["answers"]
        assert Counter(answers) == {"200": BURST}
        assert inbox.wait(BURST, timeout=30) == BURST
        assert set(inbox.to_frame()["message_id"]) == {f"m{n}" for n in range(BURST)}


def test_burst_next_to_a_thousand_stalled_connections() -> None:
    """1,000 valid callbacks and 1,000 stalled connections at once: every callback answered
    200 and stored, every stalled connection closed by the server (past the cap at its
    header deadline, the rest at the request timeout)."""
    request_timeout = 7.0  # bounds the test; the header deadline (5 s) and cap are defaults
    with Inbox(request_timeout=request_timeout) as inbox:
        found = burst(inbox, BURST, BURST, 60)
        assert Counter(found["answers"]) == {"200": BURST}
        assert inbox.wait(BURST, timeout=30) == BURST
        assert set(inbox.to_frame()["message_id"]) == {f"m{n}" for n in range(BURST)}
        assert inbox.rejects().empty
    times = [seconds for seconds in found["closed_after"] if seconds is not None]
    assert len(times) == BURST, "a stalled connection was still open after 60 s"
    # Shed past the cap at the header deadline (5 s), or closed at the request timeout.
    assert sum(seconds < request_timeout for seconds in times) >= BURST - 256


def test_a_connection_sending_its_request_is_never_shed_for_room() -> None:
    """A client sending its headers slowly, then 100 stalled connections past a cap of 10:
    the slow client, the oldest connection, is not closed to make room while within its
    header deadline; its callback is answered 200 and stored (before: closed at once)."""

    async def scenario(inbox: Inbox) -> str:
        parts = urlsplit(inbox.url)
        reader, writer = await asyncio.open_connection(parts.hostname, parts.port)
        body = reply_body("slow-but-sending")
        request = head(parts.path, len(body)) + body
        writer.write(request[:20])
        stalls = [asyncio.ensure_future(stall(inbox, 0, 30)) for _ in range(100)]
        await asyncio.sleep(1.0)  # the flood is in, well past the cap
        writer.write(request[20:])
        line = await asyncio.wait_for(reader.readline(), 10)
        writer.close()
        for task in stalls:
            task.cancel()
        await asyncio.gather(*stalls, return_exceptions=True)
        return line.decode().strip()

    with Inbox(max_connections=10, request_timeout=30) as inbox:  # header deadline: 5 s
        assert asyncio.run(scenario(inbox)) == "HTTP/1.1 200 OK"
        assert inbox.to_frame()["message_id"].tolist() == ["slow-but-sending"]


def test_header_timeout_is_checked_and_named() -> None:
    """A header deadline that is not a positive number is refused naming it."""
    from smskit.errors import ValidationError

    for value in (0, -1.0, True, "2"):
        with pytest.raises(ValidationError, match="header_timeout"):
            Inbox(header_timeout=value)  # type: ignore[arg-type]


def test_each_server_guard_is_refused_under_its_own_name() -> None:
    """A wrong request, keep-alive, header timeout or connection cap is a ValidationError
    whose field is that one setting (not a message to parse)."""
    from smskit.errors import ValidationError

    for field, value in (
        ("request_timeout", 0),
        ("keep_alive_timeout", 2.5),
        ("max_connections", 1.5),
        ("max_connections", -3),
        ("header_timeout", "2"),
    ):
        with pytest.raises(ValidationError) as info:
            Inbox(**{field: value})
        assert info.value.field == field
        assert info.value.value == value
