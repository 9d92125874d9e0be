"""Plumbing shared by bulk operations: run async work from sync code, bounded concurrency,
an async twin of a client, and the progress bar.

A notebook cell already runs inside an event loop, where ``asyncio.run`` fails: the blocking
entry points then run their own loop in a worker thread. An interrupt (Ctrl-C, "interrupt
kernel") asks the work to stop starting new requests; requests already in flight finish and
are recorded, so the journal never says less than what the gateway knows.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Protocol, TypeVar, runtime_checkable

import httpx

from smskit.client import AsyncClient, Client
from smskit.errors import ConfigurationError, ValidationError

__all__ = [
    "Progress",
    "ProgressEvents",
    "ProgressOption",
    "async_client",
    "bounded",
    "check_concurrency",
    "run_blocking",
]

T = TypeVar("T")
ItemT = TypeVar("ItemT")


def check_concurrency(concurrency: Any) -> int:
    """At least one request at a time, at most 64 (more only queues at the gateway)."""
    if (
        isinstance(concurrency, bool)
        or not isinstance(concurrency, int)
        or not 1 <= concurrency <= 64
    ):
        raise ValidationError("concurrency", "must be an integer from 1 to 64", value=concurrency)
    return concurrency


def check_chunk_size(chunk_size: Any, maximum: int) -> int:
    """1..maximum items per request (the spec's per-request limit)."""
    if (
        isinstance(chunk_size, bool)
        or not isinstance(chunk_size, int)
        or not 1 <= chunk_size <= maximum
    ):
        raise ValidationError(
            "chunk_size", f"must be an integer from 1 to {maximum}", value=chunk_size
        )
    return chunk_size


def run_blocking(work: Callable[[threading.Event], Awaitable[T]]) -> T:
    """Run ``work(stop)`` to completion from sync code, inside a running event loop or not.

    On KeyboardInterrupt, ``stop`` is set, the work is awaited (it stops starting new
    requests and records those in flight), then the interrupt is raised again.
    """
    stop = threading.Event()
    try:
        asyncio.get_running_loop()
    except RuntimeError:
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
    if not isinstance(client, Client | AsyncClient):
        raise ConfigurationError(
            f"client must be a smskit.Client or smskit.AsyncClient, got {type(client).__name__}"
        )
    # Plain http (the loopback sandbox) has no TLS: skip building a certificate store.
    plain = client.base_url.startswith("http://")
    twin = client.to_async(transport=httpx.AsyncHTTPTransport(verify=False) if plain else None)
    try:
        yield twin
    finally:
        await twin.aclose()


async def bounded(
    items: Iterable[ItemT],
    worker: Callable[[ItemT], Awaitable[None]],
    concurrency: int,
    stop: threading.Event,
) -> None:
    """Run ``worker`` on every item, at most ``concurrency`` at once, none after ``stop``."""
    gate = asyncio.Semaphore(concurrency)

    async def one(item: ItemT) -> None:
        async with gate:
            if stop.is_set():
                return
            await worker(item)

    await asyncio.gather(*(one(item) for item in items))


@runtime_checkable
class ProgressEvents(Protocol):
    """What bulk work reports as it goes, as data: a view (a tqdm bar, a widget) renders it."""

    def start(self, total: int, initial: int, unit: str) -> None:
        """``total`` units to do, ``initial`` of them done already."""

    def advance(self, count: int, **postfix: Any) -> None:
        """``count`` more units done; ``postfix`` holds running figures (cost, failures)."""

    def finish(self) -> None:
        """No more events."""


# What a ``progress=`` argument may be.
ProgressOption = bool | Mapping[str, Any] | ProgressEvents


class Progress:
    """Progress of bulk work, sent to a :class:`ProgressEvents` object, shown as a
    ``tqdm.auto`` bar (widget in notebooks, text in terminals), or nowhere.

    ``progress`` is True, False, a mapping of tqdm options (``desc``, ``file`` ...), or a
    ``ProgressEvents`` object.
    """

    def __init__(
        self,
        progress: ProgressOption,
        *,
        total: int,
        initial: int,
        unit: str,
    ) -> None:
        self._bar: Any = None
        self._events: ProgressEvents | None = None
        if progress is False or progress is None:
            return
        if isinstance(progress, ProgressEvents):
            self._events = progress
            progress.start(total, initial, unit)
            return
        options: dict[str, Any] = {"total": total, "initial": initial, "unit": unit}
        if isinstance(progress, Mapping):
            options.update(progress)
        elif progress is not True:
            raise ValidationError("progress", "must be True, False or a dict of tqdm options")
        if "file" in options:
            from tqdm import tqdm  # an explicit stream wants the text bar, not the widget
        else:
            from tqdm.auto import tqdm
        self._bar = tqdm(**options)

    def advance(self, count: int, **postfix: Any) -> None:
        """Count ``count`` more units done and show ``postfix`` (cost so far, failures ...)."""
        if self._events is not None:
            self._events.advance(count, **postfix)
        if self._bar is not None:
            self._bar.update(count)
            if postfix:
                self._bar.set_postfix(postfix, refresh=False)

    def close(self) -> None:
        """Leave the bar as it stands."""
        if self._events is not None:
            self._events.finish()
        if self._bar is not None:
            self._bar.close()

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
