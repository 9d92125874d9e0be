"""Bulk HLR over a Dask series of numbers: deduplicated on the cluster, checked through the
journaled bulk path, answers appended to Parquet, breakdowns reduced on the cluster.

The cluster normalises every value and keeps one row per distinct number (a shuffle on the
normalised number, never a collection on the client), writing them to Parquet. The client
then reads those files one at a time and checks each through :func:`smskit.bulk_hlr` (chunks of
200, the HLR cache journal: a number answered before is never paid twice, so a re-run after
an interrupt pays only for the remainder), appending one Parquet file of answers per
partition. Breakdowns are counted per file on the cluster and summed there.
"""

from __future__ import annotations

import asyncio
import os
import shutil
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dask
import dask.dataframe as dd
import pandas as pd
from dask import delayed

from smskit._repr import tolerant_repr
from smskit.campaigns import abulk_hlr as checked
from smskit.campaigns.bulk.operations import DEFAULT_MAX_AGE_S
from smskit.campaigns.sending.blocking import blocking, interruption
from smskit.campaigns.sending.progress import Progress, ProgressOption
from smskit.client.frame_builders import breakdown, crosstab, hlr_table
from smskit.dask.narration import quiet_shuffles
from smskit.dask.stream import Materialised, parts_of, rows_of, stage, stream
from smskit.errors import ConfigurationError, ValidationError
from smskit.rules import phones
from smskit.rules.recipients import RULE_FLOAT, first_float
from smskit.rules.region import DEFAULT_REGION

if TYPE_CHECKING:
    from smskit.client import AsyncClient, Client

__all__ = ["HLRParquet", "abulk_hlr", "bulk_hlr"]

# Breakdown keys whose labels are the spec's closed value sets: per-file counts add up.
CLOSED_KEYS = ("status", "line_status", "phone_number_type")


async def abulk_hlr(
    client: Client | AsyncClient,
    numbers: dd.Series,
    output: str | Path,
    *,
    default_region: str | None = DEFAULT_REGION,
    journal: str | Path | bool | None = None,
    max_age: float | None = DEFAULT_MAX_AGE_S,
    chunk_size: int = 200,
    concurrency: int = 4,
    progress: ProgressOption = True,
    simulation_mode: bool | None = None,
    counter: Materialised | None = None,
) -> HLRParquet:
    """Check every distinct number of ``numbers``; answers go to the Parquet directory ``output``.

    One row per distinct normalised number (values that do not parse: one per distinct text,
    ``phone_number_type`` bad_format, not sent), with the columns of
    ``smskit.bulk_hlr(...).to_frame()`` but ``input``. ``output`` must be new or empty: answers are
    appended to it, never written over a user's files. ``journal``, ``max_age``,
    ``chunk_size``, ``concurrency``, ``simulation_mode`` are :func:`smskit.bulk_hlr`'s.
    ``counter`` counts the partitions the client holds (one plus one read ahead).

    The cluster's work (the distinct numbers, reading each file) runs in a worker thread, so
    the event loop keeps serving while it computes. After an interrupt (under the blocking
    twin) the file being checked is not written: its answers stay in the journal's cache.
    """
    if not isinstance(numbers, dd.Series):
        raise ValidationError("numbers", "must be a dask Series (smskit.bulk_hlr takes the others)")
    out = Path(output)
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ConfigurationError(f"{str(out)!r} exists and is not an empty directory")
    out.mkdir(parents=True, exist_ok=True)
    meta = pd.DataFrame({"key": pd.Series(dtype="string")})
    keys = numbers.map_partitions(_keys, default_region, meta=meta)
    quiet_shuffles()
    distinct = keys.drop_duplicates(split_out=keys.npartitions, ignore_index=True)
    staging = out.with_name(f".{out.name}.distinct")
    shutil.rmtree(staging, ignore_errors=True)  # ours: what an interrupted run left
    stop, _ = interruption()
    try:
        paths = await asyncio.to_thread(stage, distinct, staging)
        total = sum(rows_of(path) for path in paths)
        with (
            closing(stream(paths, counter=counter)) as parts,
            Progress(progress, total=total, initial=0, unit="number") as bar,
        ):
            while (item := await asyncio.to_thread(next, parts, None)) is not None:
                index, part = item
                values = part["key"].tolist()
                forward = _Forward(bar)
                answers = await checked(
                    client,
                    values,
                    chunk_size=chunk_size,
                    concurrency=concurrency,
                    progress=forward,
                    journal=journal,
                    max_age=max_age,
                    default_region=default_region,
                    simulation_mode=simulation_mode,
                )
                if stop.is_set():  # interrupted: this file's answers may be partial
                    break
                frame = answers.to_frame().drop(columns="input")
                _write(frame, out / f"part-{index:06d}.parquet")
                bar.advance(len(values) - forward.done)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return HLRParquet(out)


bulk_hlr = blocking(abulk_hlr)


class HLRParquet:
    """HLR answers written as a Parquet directory, one file per partition of distinct numbers."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)

    @tolerant_repr
    def __repr__(self) -> str:
        return f"HLRParquet({str(self.path)!r}, {len(parts_of(self.path))} files)"

    def frame(self) -> dd.DataFrame:
        """The answers as a lazy Dask frame, dtypes as ``smskit.bulk_hlr(...).to_frame()``."""
        return dd.read_parquet(str(self.path)).map_partitions(hlr_table, meta=_empty())

    def __len__(self) -> int:
        return sum(rows_of(path) for path in parts_of(self.path))

    def crosstab(
        self, rows: str = "line_status", columns: str = "phone_number_type"
    ) -> pd.DataFrame:
        """Counts of ``rows`` x ``columns`` (closed value sets), summed on the cluster: what
        :func:`smskit.frames.crosstab` gives on the whole answers."""
        for key in (rows, columns):
            _closed(key)
        return _reduce(self.frame(), crosstab, rows, columns)

    def breakdown(self, by: str | Sequence[str] = "line_status") -> pd.DataFrame:
        """Count and share per value of ``by`` (closed value sets), summed on the cluster: what
        ``HLRResults.breakdown`` gives on the whole answers."""
        for key in [by] if isinstance(by, str) else by:
            _closed(key)
        counts = _reduce(self.frame(), _counts, by)
        total = int(counts["count"].iloc[-1])
        counts["share"] = counts["count"] / total if total else float("nan")
        return counts


def _closed(key: str) -> None:
    if key not in CLOSED_KEYS:
        raise ValidationError(
            "by", f"cluster breakdowns count closed value sets: {', '.join(CLOSED_KEYS)}", value=key
        )


def _reduce(frame: dd.DataFrame, count: Any, *args: Any) -> pd.DataFrame:
    """``count(partition, *args)`` per partition on the cluster, summed there (a tree)."""
    tables = [delayed(count)(part, *args) for part in frame.to_delayed()]
    while len(tables) > 1:
        tables = [delayed(_add)(tables[i : i + 8]) for i in range(0, len(tables), 8)]
    (table,) = dask.compute(tables[0] if tables else delayed(count)(_empty(), *args))
    return table


def _add(tables: list[pd.DataFrame]) -> pd.DataFrame:
    """The sum of per-file tables; labels in the order pandas gives (a label only some files
    have, "(missing)", goes where those files have it: before the total)."""
    index = _union([table.index for table in tables])
    columns = _union([table.columns for table in tables])
    total = tables[0].reindex(index=index, columns=columns, fill_value=0)
    for table in tables[1:]:
        total = total + table.reindex(index=index, columns=columns, fill_value=0)
    return total


def _union(indexes: list[pd.Index]) -> pd.Index:
    first = indexes[0]
    labels = [*dict.fromkeys(label for index in indexes for label in index[:-1]), first[-1]]
    if isinstance(first, pd.MultiIndex):
        return pd.MultiIndex.from_tuples(labels, names=first.names)
    return pd.Index(labels, dtype=first.dtype, name=first.name)


def _counts(part: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    return breakdown(part, by)[["count"]]


def _keys(values: pd.Series, region: str | None) -> pd.DataFrame:
    """Per value: its E.164 number, or its text when it does not parse (then sent nowhere)."""
    at = first_float(values)
    if at is not None:  # named by its label: a partition's positions are not the series'
        label, value = values.index[at], values.iloc[at]
        raise ValidationError("numbers", RULE_FLOAT, position=label, value=value)
    checks = phones.normalize(values.astype(object), region)
    texts = pd.array([str(v) for v in values.array], dtype="string")
    key = checks["e164"].where(checks["e164"].notna(), pd.Series(texts, index=checks.index))
    return pd.DataFrame({"key": key.astype("string")}, index=values.index)


class _Forward:
    """Progress of one partition's check, added to the whole run's bar."""

    def __init__(self, bar: Progress) -> None:
        self.bar = bar
        self.done = 0

    def start(self, total: int, initial: int, unit: str) -> None:
        """The run's bar already knows the total."""

    def advance(self, count: int, **postfix: Any) -> None:
        """Count checked numbers on the run's bar."""
        self.done += count
        self.bar.advance(count, **postfix)

    def finish(self) -> None:
        """The run's bar closes when the run ends."""


def _write(frame: pd.DataFrame, path: Path) -> None:
    """Write then rename: an interrupted write never leaves half a file among the answers."""
    partial = path.with_name(path.name + ".partial")
    frame.to_parquet(partial, index=False)
    os.replace(partial, path)


def _empty() -> pd.DataFrame:
    """No answer, with every column and dtype of the answers."""
    frame = hlr_table([])
    frame["cached"] = pd.array([], dtype="bool")
    frame["error"] = pd.array([], dtype="string")
    return frame
