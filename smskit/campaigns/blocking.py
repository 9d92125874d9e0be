"""Async work run from sync code (:func:`run_blocking`), and a client's async twin
(:func:`async_client`).

A notebook cell already runs inside an event loop, where ``asyncio.run`` fails: the blocking
entry points then run their own loop in a worker thread. An interrupt (Ctrl-C, "interrupt
kernel") asks the work to stop starting new requests; requests already in flight finish and
are recorded, so the journal never says less than what the gateway knows.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any, TypeVar

import httpx

from smskit.campaigns.arguments import check_client
from smskit.client import AsyncClient, Client

__all__ = ["async_client", "run_blocking"]

T = TypeVar("T")


def run_blocking(work: Callable[[threading.Event], Awaitable[T]]) -> T:
    """Run ``work(stop)`` to completion from sync code, inside a running event loop or not.

    On KeyboardInterrupt, ``stop`` is set, the work is awaited (it stops starting new
    requests and records those in flight), then the interrupt is raised again.
    """
    stop = threading.Event()
    # Asked without try/except: a failure of the work must not be shown chained to "no
    # running event loop", which says nothing about it.
    if not _loop_running():
        return _run_here(work, stop)
    # A loop already runs in this thread (Jupyter): ours gets a thread of its own.
    outcome: dict[str, Any] = {}
    finished = threading.Event()  # not Thread.join: an interrupted join can return early

    def target() -> None:
        try:
            outcome["value"] = asyncio.run(_awaitable(work, stop))
        except BaseException as exc:  # handed to the caller's thread below
            outcome["error"] = exc
        finally:
            finished.set()

    thread = threading.Thread(target=target, name="smskit-bulk", daemon=True)
    try:
        thread.start()
        finished.wait()
    except KeyboardInterrupt:
        stop.set()
        if thread.ident is not None:
            finished.wait()  # until the requests in flight are recorded
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _loop_running() -> bool:
    """Whether an event loop runs in this thread."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _run_here(work: Callable[[threading.Event], Awaitable[T]], stop: threading.Event) -> T:
    try:
        return asyncio.run(_awaitable(work, stop))
    except KeyboardInterrupt:
        # asyncio.run cancelled the work: chunks in flight stay recorded as in flight.
        stop.set()
        raise


async def _awaitable(work: Callable[[threading.Event], Awaitable[T]], stop: threading.Event) -> T:
    return await work(stop)


@asynccontextmanager
async def async_client(client: Client | AsyncClient, *, share: bool) -> AsyncIterator[AsyncClient]:
    """An AsyncClient with ``client``'s settings: ``client`` itself when ``share`` and async.

    A twin is made otherwise (and closed after): an AsyncClient belongs to the event loop
    that opened its connections, and the blocking entry points run a loop of their own.
    """
    if share and isinstance(client, AsyncClient):
        yield client
        return
    check_client(client)
    # Plain http (the loopback sandbox) has no TLS: skip building a certificate store.
    plain = client.base_url.startswith("http://")
    twin = client.to_async(transport=httpx.AsyncHTTPTransport(verify=False) if plain else None)
    try:
        yield twin
    finally:
        await twin.aclose()
