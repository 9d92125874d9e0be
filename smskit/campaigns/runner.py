"""The chunk runner every bulk operation uses: :func:`run_chunks`.

Beside it: the argument checks of the bulk operations (:mod:`.arguments`), async work run
from sync code and a client's async twin (:mod:`.blocking`), refusals taken out of a chunk
(:mod:`.refusals`) and progress as events (:mod:`.progress`).
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any, TypeVar

from smskit._deprecation import moved_names
from smskit.campaigns.progress import Progress, ProgressOption

__all__ = ["run_chunks"]

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


# Names that lived here until the runner's plumbing got modules of its own (one release).
__getattr__ = moved_names(
    __name__,
    {
        "check_chunk_size": "smskit.campaigns.arguments",
        "check_client": "smskit.campaigns.arguments",
        "check_concurrency": "smskit.campaigns.arguments",
        "async_client": "smskit.campaigns.blocking",
        "run_blocking": "smskit.campaigns.blocking",
        "refused_recipients": "smskit.campaigns.refusals",
        "without_refused": "smskit.campaigns.refusals",
        "Progress": "smskit.campaigns.progress",
        "ProgressEvents": "smskit.campaigns.progress",
        "ProgressOption": "smskit.campaigns.progress",
    },
)
