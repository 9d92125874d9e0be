"""The chunk runner every bulk operation uses (:func:`run_chunks`), and its plumbing: run
async work from sync code, an async twin of a client, progress as events, refusals taken
out of a chunk.

A notebook cell already runs inside an event loop, where ``asyncio.run`` fails: the blocking
entry points then run their own loop in a worker thread. An interrupt (Ctrl-C, "interrupt
kernel") asks the work to stop starting new requests; requests already in flight finish and
are recorded, so the journal never says less than what the gateway knows.
"""

from __future__ import annotations

import asyncio
import re
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable, Mapping
from contextlib import asynccontextmanager
from typing import Any, Final, Protocol, TypeVar, runtime_checkable

import httpx

from smskit.client import AsyncClient, Client
from smskit.errors import ConfigurationError, PayloadValidationError, ValidationError

__all__ = [
    "Progress",
    "ProgressEvents",
    "ProgressOption",
    "async_client",
    "check_chunk_size",
    "check_client",
    "check_concurrency",
    "refused_recipients",
    "run_blocking",
    "run_chunks",
    "without_refused",
]

T = TypeVar("T")
ItemT = TypeVar("ItemT")
PartT = TypeVar("PartT")

_RECIPIENT_KEY_RE: Final = re.compile(r"recipients\[(\d+)\](?:\..+)?")


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


def check_client(client: Any) -> None:
    """A campaign's client: a smskit.Client or AsyncClient, or None (``smskit.Client()``,
    made when the campaign first talks to the gateway)."""
    if client is not None and not isinstance(client, Client | AsyncClient):
        raise ConfigurationError(
            f"client must be a smskit.Client or smskit.AsyncClient, got {type(client).__name__}"
        )


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


async def run_chunks(
    chunks: Iterable[ItemT],
    work: Callable[[ItemT], Awaitable[Mapping[str, Any] | None]],
    *,
    concurrency: int,
    stop: threading.Event,
    progress: ProgressOption,
    total: int,
    unit: str,
    size: Callable[[ItemT], int],
    initial: int = 0,
) -> None:
    """The one chunk runner: ``work(chunk)`` for every chunk, ``concurrency`` at a time.

    Every bulk operation runs on it: campaign sends and resumes (a chunk's work frames its
    request with two journal writes and re-sends it without refused recipients), estimates,
    bulk HLR, contact create and delete. What a chunk is and what its work records is the
    caller's; the runner owns the order of events:

    - **Streaming input.** ``chunks`` is pulled lazily, one chunk at a time and only when a
      slot is free, so at most ``concurrency`` chunks are taken and not finished: a generator
      may read its chunks from a source larger than memory (Dask partitions, say). A list,
      tuple or range is read in the loop; any other iterable (a generator) is advanced in a
      worker thread, never two steps at once, because producing a chunk may block (computing
      a partition) and the requests in flight must keep going meanwhile. The generator may
      call the journal (it is thread-safe), for instance to add a chunk it meets first.
    - **Progress.** ``progress`` (see :class:`Progress`) starts at ``initial`` of ``total``
      ``unit``; each chunk whose work returned is reported once, ``size(chunk)`` units, with
      the mapping the work returned as running figures (cost, failures). A chunk whose work
      raised, or that never started, is not reported.
    - **Stop.** Once ``stop`` is set (an interrupt, or a work that lost the journal's lease),
      no chunk is pulled or started; the works already running finish and record. An
      exception out of a work sets ``stop`` too, and is raised once the others finished, as
      is one out of ``chunks``. Cancelling the run cancels the works in flight: their chunks
      stay as their journal last recorded them (``in_flight``: a resume repeats them with
      the same request_id).
    """
    gate = asyncio.Semaphore(concurrency)
    pull = _puller(chunks)
    errors: list[BaseException] = []
    with Progress(progress, total=total, initial=initial, unit=unit) as bar:

        async def one(chunk: ItemT) -> None:
            try:
                figures = await work(chunk)
            except Exception as exc:  # raised below, once the chunks in flight are recorded
                errors.append(exc)
                stop.set()
            else:
                bar.advance(size(chunk), **(figures or {}))
            finally:
                gate.release()

        async with asyncio.TaskGroup() as group:
            while not stop.is_set():
                await gate.acquire()
                try:
                    chunk = None if stop.is_set() else await pull()
                except Exception as exc:
                    errors.append(exc)
                    stop.set()
                    chunk = None
                if chunk is None:
                    gate.release()
                    break
                group.create_task(one(chunk[0]))
    if errors:
        raise errors[0]


def _puller(chunks: Iterable[ItemT]) -> Callable[[], Awaitable[tuple[ItemT] | None]]:
    """``await pull()``: the next chunk in a 1-tuple, or None at the end (see run_chunks)."""
    iterator = iter(chunks)

    def step() -> tuple[ItemT] | None:
        for item in iterator:
            return (item,)
        return None

    if isinstance(chunks, list | tuple | range):

        async def inline() -> tuple[ItemT] | None:
            return step()

        return inline

    async def threaded() -> tuple[ItemT] | None:
        return await asyncio.to_thread(step)

    return threaded


async def without_refused(
    part: PartT,
    attempt: Callable[[PartT], Awaitable[T]],
    drop: Callable[[PartT, dict[int, str]], PartT | None],
    size: Callable[[PartT], int],
) -> T | None:
    """``attempt(part)``; when the gateway refuses only some of its recipients, the rest again.

    The gateway answers a chunk with one bad recipient by refusing the whole request, its
    field errors naming ``recipients[i]``. ``drop(part, {i: message})`` records those
    refusals and gives the smaller part to attempt again (None: nothing left, the result is
    None). Any other refusal is raised, as is every other error.
    """
    current: PartT | None = part
    while current is not None:
        try:
            return await attempt(current)
        except PayloadValidationError as exc:
            refused = refused_recipients(exc.errors, size(current))
            if refused is None:
                raise
            current = drop(current, refused)
    return None


def refused_recipients(errors: Mapping[str, Any], size: int) -> dict[int, str] | None:
    """{position: message} when every field error names a recipient; else None."""
    refused: dict[int, str] = {}
    for key, detail in errors.items():
        match = _RECIPIENT_KEY_RE.fullmatch(key)
        if match is None or int(match.group(1)) >= size:
            return None
        message = detail.get("message") if isinstance(detail, Mapping) else detail
        code = detail.get("code") if isinstance(detail, Mapping) else None
        refused[int(match.group(1))] = f"{message} (code {code})" if code else str(message)
    return refused or None


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
