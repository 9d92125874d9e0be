"""Async work run from sync code (:func:`run_blocking`), a client's async twin
(:func:`async_client`), and each operation's blocking twin generated from its async
implementation (:func:`blocking`).

A notebook cell already runs inside an event loop, where ``asyncio.run`` fails: the blocking
entry points then run their own loop in a worker thread. An interrupt (Ctrl-C, "interrupt
kernel") asks the work to stop starting new requests; requests already in flight finish and
are recorded, so the journal never says less than what the gateway knows.

A blocking twin keeps the implementation's signature (``inspect.signature`` follows
``__wrapped__``) and docstring, so help(), IDEs and the API reference show the same
parameters. What differs between the two runs, the implementation asks
:func:`interruption`: the blocking run's stop event and whether the caller's client may be
used as is (awaited in the caller's loop) or needs an async twin of its own. A warning for
the caller (:func:`warn_caller`) is raised by the twin once the work returns, in the caller's
thread and at the caller's line: the work may run in a thread whose stack holds no line of
the user's.

Why not anyio's blocking portal (``anyio.from_thread.start_blocking_portal``): outside a
running loop the work runs in the caller's thread with no thread at all, which a portal
always starts; and on an interrupt the work must be *told* to stop and then awaited, so that
requests in flight finish and are journaled, where leaving a portal cancels its tasks
mid-request. What a portal would replace is the dozen lines that start and wait for one
thread (:func:`run_blocking`); the interrupt handling around it would stay the same.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import threading
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

from smskit.campaigns.sending.runner import check_client
from smskit.client import AsyncClient, Client

__all__ = ["async_client", "blocking", "interruption", "run_blocking", "warn_caller"]

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
        # Woken every 0.1 s: a SIGINT the kernel handed to another thread only flags the
        # interrupt, which the main thread sees when it runs, not while an untimed wait sleeps.
        while not finished.wait(0.1):
            pass
    except KeyboardInterrupt:
        stop.set()
        if thread.ident is not None:
            finished.wait()  # until the requests in flight are recorded
        raise
    if "error" in outcome:
        raise outcome["error"]
    return outcome["value"]


def _loop_running() -> bool:
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
    # The twin sends through the client's own transport= (to_async carries it over, or
    # refuses one that cannot serve async requests); without one, over plain http (the
    # loopback sandbox), it builds no certificate store (the client's _http_options).
    twin = client.to_async()
    try:
        yield twin
    finally:
        await twin.aclose()


P = ParamSpec("P")

_BLOCKING_STOP: ContextVar[threading.Event | None] = ContextVar(
    "smskit_blocking_stop", default=None
)

# The warnings a blocking twin raises at its caller's line once the work returns.
_DEFERRED: ContextVar[list[tuple[str, type[Warning]]] | None] = ContextVar(
    "smskit_blocking_warnings", default=None
)

_NOTE = (
    "Blocking twin of :{role}:`{name}` (generated): runs it to completion, in a thread of "
    "its own when an event loop already runs here (a notebook); an interrupt stops new "
    "requests and records those in flight."
)


def blocking(implementation: Callable[P, Coroutine[Any, Any, T]]) -> Callable[P, T]:
    """The blocking twin of the coroutine function ``implementation`` (named without its
    leading ``a``), with its signature and docstring."""
    name = implementation.__name__
    if not name.startswith("a"):
        raise ValueError(f"{name}: an async implementation's name starts with 'a'")

    @functools.wraps(implementation)
    def twin(*args: P.args, **kwargs: P.kwargs) -> T:
        deferred: list[tuple[str, type[Warning]]] = []

        async def work(stop: threading.Event) -> T:
            token, told = _BLOCKING_STOP.set(stop), _DEFERRED.set(deferred)
            try:
                return await implementation(*args, **kwargs)
            finally:
                _BLOCKING_STOP.reset(token)
                _DEFERRED.reset(told)

        try:
            return run_blocking(work)
        finally:
            for message, category in deferred:
                warnings.warn(message, category, stacklevel=2)

    role = "meth" if "." in implementation.__qualname__ else "func"
    twin.__name__ = name[1:]
    twin.__qualname__ = implementation.__qualname__.removesuffix(name) + name[1:]
    note = _NOTE.format(role=role, name=name)
    doc = inspect.getdoc(implementation)
    twin.__doc__ = f"{doc}\n\n{note}" if doc else note
    return twin


def interruption() -> tuple[threading.Event, bool]:
    """``(stop, share)`` for the running implementation: under its blocking twin, the stop
    event an interrupt sets and ``share=False`` (the loop is the twin's own); awaited by the
    caller, a fresh event and ``share=True``."""
    stop = _BLOCKING_STOP.get()
    if stop is None:
        return threading.Event(), True
    return stop, False


def warn_caller(message: str, category: type[Warning], stacklevel: int = 1) -> None:
    """Warn the user of the running operation: under a blocking twin, at the line that
    called the twin, once the work returns; awaited, at ``stacklevel`` frames above the
    caller of this function (1: that caller's own caller, as ``warnings.warn`` counts from
    its caller's frame with 2)."""
    deferred = _DEFERRED.get()
    if deferred is None:
        warnings.warn(message, category, stacklevel=stacklevel + 2)
    else:
        deferred.append((message, category))
