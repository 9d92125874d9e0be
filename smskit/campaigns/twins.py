"""Each operation written once, async; its blocking twin generated (:func:`blocking`).

The blocking twin runs the async implementation to completion with
:func:`~smskit.campaigns.blocking.run_blocking` (in a worker thread when the caller's thread
already runs an event loop, as a notebook cell does). It keeps the implementation's
signature (``inspect.signature`` follows ``__wrapped__``) and docstring, so help(), IDEs and
the API reference show the same parameters. What differs between the two runs, the
implementation asks :func:`interruption`: the blocking run's stop event (set by an interrupt:
no new request starts, those in flight are recorded) and whether the caller's client may be
used as is (awaited in the caller's loop) or needs an async twin of its own (see
:func:`~smskit.campaigns.blocking.async_client`). A warning for the caller
(:func:`warn_caller`) is raised by the twin once the work returns, in the caller's thread and
at the caller's line: the work may run in a thread whose stack holds no line of the user's.

A runtime bridge rather than generated source (httpcore's unasync): one event loop per
blocking call, which these bulk operations spend far less on than on their requests.
"""

from __future__ import annotations

import functools
import inspect
import threading
import warnings
from collections.abc import Callable, Coroutine
from contextvars import ContextVar
from typing import Any, ParamSpec, TypeVar

from smskit.campaigns.blocking import run_blocking

__all__ = ["blocking", "interruption", "warn_caller"]

P = ParamSpec("P")
T = TypeVar("T")

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
