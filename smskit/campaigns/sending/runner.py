"""The chunk runner every bulk operation uses (:func:`run_chunks`), the arguments they all
check the same way (concurrency, chunk size, client), and recipients the gateway refused
taken out of a chunk so the rest is sent again (:func:`without_refused`).

The gateway answers a chunk with one bad recipient by refusing the whole request, its field
errors naming ``recipients[i]``: :func:`refused_recipients` reads those names.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, Final, TypeVar

from smskit.campaigns.sending.progress import Progress, ProgressOption
from smskit.client import AsyncClient, Client
from smskit.errors import ConfigurationError, PayloadValidationError
from smskit.rules.ranges import checked_integer

__all__ = [
    "check_chunk_size",
    "check_client",
    "check_concurrency",
    "refused_recipients",
    "run_chunks",
    "without_refused",
]

ItemT = TypeVar("ItemT")


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
      a partition) and the requests in flight must keep going meanwhile. A run cancelled
      while a step runs ends once that step has: the generator can then be closed. The generator may
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
        pulling = asyncio.ensure_future(asyncio.to_thread(step))
        try:
            return await asyncio.shield(pulling)
        except asyncio.CancelledError:
            # A thread cannot be stopped: its step runs on. Let it end before the
            # cancellation goes on, so the generator is not executing when its owner closes
            # it (a generator's close() raises "generator already executing" meanwhile).
            while not pulling.done():
                with contextlib.suppress(asyncio.CancelledError):
                    await asyncio.wait([pulling])
            raise

    return threaded


def check_concurrency(concurrency: Any) -> int:
    """At least one request at a time, at most 64 (more only queues at the gateway)."""
    return checked_integer("concurrency", concurrency, low=1, high=64)


def check_chunk_size(chunk_size: Any, maximum: int) -> int:
    """1..maximum items per request (the spec's per-request limit)."""
    return checked_integer("chunk_size", chunk_size, low=1, high=maximum)


def check_client(client: Any) -> None:
    """A campaign's client: a smskit.Client or AsyncClient, or None (``smskit.Client()``,
    made when the campaign first talks to the gateway)."""
    if client is not None and not isinstance(client, Client | AsyncClient):
        raise ConfigurationError(
            f"client must be a smskit.Client or smskit.AsyncClient, got {type(client).__name__}"
        )


T = TypeVar("T")
PartT = TypeVar("PartT")

_RECIPIENT_KEY_RE: Final = re.compile(r"recipients\[(\d+)\](?:\..+)?")


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
