"""The loopback server's own shutdown (no fixed sleeps): connections closed, in-flight
requests still answered in full, the thread ended."""

from __future__ import annotations

import asyncio
import threading
from typing import Any

import httpx

from smskit._server import BackgroundServer

STARTED = threading.Event()


async def slow(scope: Any, receive: Any, send: Any) -> None:
    """An ASGI app that says it has a request, then answers 0.3 s later."""
    STARTED.set()
    await asyncio.sleep(0.3)
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"finished"})


async def hello(scope: Any, receive: Any, send: Any) -> None:
    """A minimal ASGI app."""
    await send({"type": "http.response.start", "status": 200, "headers": []})
    await send({"type": "http.response.body", "body": b"hello"})


def test_stop_closes_an_idle_keep_alive_connection_and_ends_the_thread() -> None:
    """A client keeping its connection open does not hold the server: after stop() the thread
    has ended and the port refuses connections."""
    server = BackgroundServer(hello)
    server.start()
    client = httpx.Client()
    try:
        assert client.get(server.url).text == "hello"  # the connection stays in the pool
        thread = server._thread
        server.stop()
        assert thread is not None and not thread.is_alive()
    finally:
        client.close()
    try:
        httpx.get(server.url, timeout=2)
    except httpx.ConnectError:
        pass
    else:
        raise AssertionError("the port still answers after stop()")


def test_stop_lets_a_request_in_flight_finish() -> None:
    """stop() during a request: the client gets the whole answer, then the server is down."""
    server = BackgroundServer(slow)
    server.start()
    answers: list[str] = []
    url = server.url

    def ask() -> None:
        answers.append(httpx.get(url, timeout=10).text)

    STARTED.clear()
    asking = threading.Thread(target=ask)
    asking.start()
    assert STARTED.wait(10)  # the request has reached the app
    server.stop()
    asking.join(10)
    assert answers == ["finished"]
    assert not server.running
