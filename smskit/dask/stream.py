"""Partitions of a Dask frame brought to the client one at a time, never all at once.

A frame whose graph holds a shuffle (duplicates found across partitions) recomputes the whole
shuffle for each partition computed on its own. So the frame is first written to Parquet by
the cluster (one file per partition, each a pure function of the source), then read back file
by file: the client holds at most ``ahead + 1`` partitions, the staged files are what a resume
reads again, and the cluster never ships everything to the client. Back the other way,
:func:`frame_of` makes one lazy frame of pandas partitions computed by tasks.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd
import pyarrow.parquet as pq

from smskit.errors import ConfigurationError

if TYPE_CHECKING:
    import dask.dataframe as dd
    from dask.delayed import Delayed

__all__ = ["Materialised", "frame_of", "parts_of", "rows_of", "stage", "stream"]


@dataclass
class Materialised:
    """How many partitions the client holds now and at most (a stream's memory bound, counted).

    A partition counts from the moment it is read until the consumer asks for the next one.
    """

    now: int = 0
    peak: int = 0
    read: int = 0
    on_change: Callable[[int], None] | None = field(default=None, repr=False)

    def add(self, count: int) -> None:
        """``count`` more (or fewer, when negative) partitions held by the client."""
        self.now += count
        self.read += max(count, 0)
        self.peak = max(self.peak, self.now)
        if self.on_change is not None:
            self.on_change(self.now)


def stage(frame: dd.DataFrame, directory: Path) -> list[Path]:
    """Write ``frame`` to ``directory`` on the cluster, one Parquet file per partition."""
    if directory.exists() and any(directory.iterdir()):
        raise ConfigurationError(
            f"{str(directory)!r} is not empty: staged partitions are never overwritten"
        )
    frame.to_parquet(
        str(directory), write_index=False, name_function=lambda k: f"part-{k:06d}.parquet"
    )
    return parts_of(directory)


def frame_of(parts: list[Delayed], meta: pd.DataFrame) -> dd.DataFrame:
    """The lazy frame of ``parts`` (delayed pandas frames with ``meta``'s columns and dtypes);
    without any part, one empty partition (``meta``)."""
    import dask.dataframe as dd

    if not parts:
        return dd.from_pandas(meta, npartitions=1)
    return dd.from_delayed(parts, meta=meta, verify_meta=False)


def parts_of(directory: Path) -> list[Path]:
    """The staged partition files of ``directory``, in partition order."""
    return sorted(directory.glob("part-*.parquet"))


def rows_of(path: Path) -> int:
    """Rows in a staged file, from its footer (nothing else is read)."""
    return int(pq.ParquetFile(path).metadata.num_rows)


def stream(
    paths: list[Path],
    *,
    ahead: int = 1,
    counter: Materialised | None = None,
    columns: list[str] | None = None,
) -> Generator[tuple[int, pd.DataFrame], None, None]:
    """(index, partition) for each staged file, read ``ahead`` files in advance in a thread.

    At most ``ahead + 1`` partitions are held at once: the one the consumer works on and
    those read ahead (counted in ``counter``).
    """
    if ahead < 0:
        raise ValueError("ahead: a number of partitions >= 0")
    counter = counter if counter is not None else Materialised()

    def read(path: Path) -> pd.DataFrame:
        part = pd.read_parquet(path, columns=columns)
        counter.add(1)
        return part

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="smskit-stream") as pool:
        pending: list[tuple[int, Future[Any]]] = []
        upcoming = iter(enumerate(paths))
        try:
            while True:
                while len(pending) < ahead + 1:
                    nxt = next(upcoming, None)
                    if nxt is None:
                        break
                    pending.append((nxt[0], pool.submit(read, nxt[1])))
                if not pending:
                    return
                index, future = pending.pop(0)
                part = future.result()
                try:
                    yield index, part
                finally:
                    del part
                    counter.add(-1)
        finally:
            for _, future in pending:  # read ahead but never handed over
                if not future.cancel():
                    future.result()
                    counter.add(-1)
