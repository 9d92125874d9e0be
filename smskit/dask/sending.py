"""Sending a Dask-backed campaign: its recipients streamed from the partitions, in chunks,
into the journaled sender every campaign uses.

The recipients to send (the preflight's ``kept()`` frame) are first written by the cluster to
Parquet next to the journal (``<journal>.parts/kept``, one file per partition, and the
recipients kept out to ``.../excluded``). The campaign id covers the header and a digest of
each file (computed on the cluster), so every chunk's request_id is fixed before anything is
sent. Then the client reads the files one at a time (at most one read ahead) and adds each
chunk to the journal (:meth:`~smskit.campaigns.sending.journal.Journal.add_chunk`) as the sender
asks for it: the journal stays the single source of truth, one lease means one sender, and the
client never holds more than two partitions. A resume needs only the journal and its parts:
chunks it holds are sent or skipped as it records them, the files give the rest. The result
(:class:`~smskit.dask.results.StreamedResult`) is read back the same way: totals from one row
per chunk, each recipient's outcome on the cluster, never the recipients on the client.
"""

from __future__ import annotations

import asyncio
import hashlib
import shutil
from collections.abc import Generator, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import dask
import pandas as pd

from smskit.campaigns.analysis.results import EXCLUDED_COLUMNS
from smskit.campaigns.send import deliver, holds_campaign
from smskit.campaigns.sending.blocking import blocking, interruption
from smskit.campaigns.sending.journal import FIELD_PREFIX, Chunk, Journal, open_leased
from smskit.campaigns.sending.lease import closed_on_error
from smskit.campaigns.sending.progress import ProgressOption
from smskit.campaigns.sending.reconnect import reopen
from smskit.campaigns.sending.record import CampaignRecord, JournaledGateway
from smskit.campaigns.sending.repeats import RepeatGuard
from smskit.campaigns.sending.runner import check_chunk_size, check_concurrency
from smskit.client import Client
from smskit.dask.results import StreamedResult
from smskit.dask.stream import Materialised, parts_of, rows_of, stage, stream
from smskit.errors import ConfigurationError
from smskit.rules import spec as _spec
from smskit.rules.canonical import canonical_json

if TYPE_CHECKING:
    import dask.dataframe as dd

    from smskit.client import AsyncClient

__all__ = [
    "aresume",
    "asend_kept",
    "content_id",
    "parts_dir",
    "plan_columns",
    "resume",
    "send_kept",
]


def parts_dir(journal: Path) -> Path:
    """Where a streamed campaign's recipients are staged: beside its journal."""
    return journal.with_name(journal.name + ".parts")


async def asend_kept(
    client: Client | AsyncClient,
    kept: dd.DataFrame,
    excluded: dd.DataFrame | None,
    header: Mapping[str, Any],
    *,
    content: Mapping[str, Any] | None = None,
    content_id: str | None = None,
    journal: Path,
    recipients: int,
    default_region: str | None,
    source: str,
    include_opted_out: bool = False,
    campaign_options: Mapping[str, Any] | None = None,
    wait: float = 0,
    chunk_size: int = 500,
    concurrency: int = 4,
    progress: ProgressOption = True,
    counter: Materialised | None = None,
    ahead: int = 1,
    repeat: RepeatGuard | None = None,
) -> StreamedResult:
    """Send the recipients of ``kept`` (``row``, ``phone_number``, ``segments`` and
    ``field:<name>`` columns, in sending order) under ``header`` (``name``, ``text``,
    ``sender``, ``options``); ``excluded`` (:data:`EXCLUDED_COLUMNS`) is recorded as kept
    out; ``include_opted_out`` (a transactional send keeping numbers on the opt-out list)
    is journaled, so its resume keeps them too, and so are ``campaign_options`` (the spec's
    :meth:`~smskit.campaigns.planning.spec.CampaignSpec.journaled_options`). ``content``
    (the spec's) gives the content id the campaign's repeat guard ``repeat`` compares
    before the first request (``content_id``: that id, when the recipients as sent are not
    what it counts: tracked links).

    A journal that already holds this campaign is continued (its staged files are used, once
    the source is checked to be the same); one that holds another is refused. The cluster's
    work (staging, digests) runs in a worker thread: the event loop is never blocked on it.
    """
    concurrency = check_concurrency(concurrency)
    chunk_size = check_chunk_size(chunk_size, _spec.RECIPIENTS_MAX)
    kept = _sent_columns(kept)
    book = await open_leased(journal, mode="any", wait=wait)
    with closed_on_error(book):
        record = book.record()
        if record is None:
            about = CampaignRecord(
                campaign_id="",  # derived from the staged recipients by _initialise
                name=header["name"],
                text=header["text"],
                sender=header["sender"],
                options=header["options"],
                recipients=recipients,
                default_region=default_region,
                source=source,
                gateway=JournaledGateway.of(client),
                include_opted_out=include_opted_out,  # read at a resume
                campaign_options=campaign_options,
                chunk_size=chunk_size,
                holdout=header.get("holdout"),  # journaled with the plan
            )
            record = await asyncio.to_thread(
                _initialise, book, kept, excluded, about, counter, content, content_id
            )
        else:
            await asyncio.to_thread(_check_same, book, record, kept, header)
    return await _deliver(book, client, record, concurrency, progress, ahead, counter, repeat)


send_kept = blocking(asend_kept)


async def aresume(
    journal_path: str | Path,
    client: Client | AsyncClient | None = None,
    *,
    concurrency: int = 4,
    progress: ProgressOption = True,
    wait: float = 0,
    ahead: int = 1,
    counter: Materialised | None = None,
) -> StreamedResult:
    """Continue a streamed campaign from its journal and staged files alone (after a crash,
    an interrupt, a kernel restart): exactly the recipients not yet accepted are sent.
    Without ``client``, the gateway the journal records (see ``smskit.Campaign.resume``)."""
    book, sender = await reopen(journal_path, client, concurrency=concurrency, wait=wait)
    with closed_on_error(book):
        record = book.held()
        if record.kind != "streamed":
            raise ConfigurationError(
                f"journal {str(journal_path)!r} is not a streamed campaign's: "
                "smskit.Campaign.resume continues it"
            )
    return await _deliver(book, sender, record, concurrency, progress, ahead, counter)


resume = blocking(aresume)


async def _deliver(
    book: Journal,
    client: Client | AsyncClient,
    record: CampaignRecord,
    concurrency: int,
    progress: ProgressOption,
    ahead: int,
    counter: Materialised | None,
    repeat: RepeatGuard | None = None,
) -> StreamedResult:
    chunks = _chunks(book, record, ahead, counter)
    stop, share = interruption()
    try:
        return await deliver(
            book,
            client,
            concurrency,
            progress,
            stop,
            StreamedResult.from_journal,
            share=share,
            chunks=chunks,
            total=record.to_send,
            repeat=repeat,
        )
    finally:
        chunks.close()  # the files read ahead are let go


def _chunks(
    book: Journal, record: CampaignRecord, ahead: int, counter: Materialised | None
) -> Generator[Chunk, None, None]:
    """Every chunk of the campaign, in order: those the journal holds as it holds them, the
    others added to it from the staged files as they are read."""
    if record.parts is None or record.digests is None or record.chunk_size is None:
        raise ConfigurationError(f"journal {str(book.path)!r} records no staged files")
    paths = parts_of(Path(record.parts) / "kept")
    digests = record.digests
    if len(paths) != len(digests):
        raise ConfigurationError(
            f"{record.parts!r} holds {len(paths)} files, the journal {len(digests)}: "
            "the staged recipients were changed"
        )
    size = record.chunk_size
    idx = 0
    for index, part in stream(paths, ahead=ahead, counter=counter):
        if _digest(part) != digests[index]:
            raise ConfigurationError(f"{str(paths[index])!r} is not the file the journal staged")
        columns = plan_columns(part)
        for start in range(0, len(part), size):
            yield book.add_chunk(idx, {k: v[start : start + size] for k, v in columns.items()})
            idx += 1


def _initialise(
    book: Journal,
    kept: dd.DataFrame,
    excluded: dd.DataFrame | None,
    about: CampaignRecord,
    counter: Materialised | None,
    content: Mapping[str, Any] | None = None,
    content_id: str | None = None,
) -> CampaignRecord:
    """Stage the recipients, derive the campaign id, write the journal's empty plan and the
    recipients kept out (streamed from their files, in the same transaction)."""
    staging = parts_dir(book.path)
    # No journal refers to it yet and we hold the lease: what is there is an unfinished staging.
    shutil.rmtree(staging, ignore_errors=True)
    paths = stage(kept, staging / "kept")
    out = [] if excluded is None else stage(excluded[list(EXCLUDED_COLUMNS)], staging / "excluded")
    digests = _digests([dask.delayed(pd.read_parquet)(path) for path in paths])
    if content_id is None and content is not None:
        content_id = _campaign_id(content, digests)
    record = about.replace(
        campaign_id=_campaign_id(about.header(), digests),
        content_id=content_id,
        to_send=sum(rows_of(path) for path in paths),
        parts=str(staging),
        digests=tuple(digests),
    )
    empty: dict[str, list[Any]] = {name: [] for name in kept.columns}
    book.initialise(record, empty, [], _excluded_rows(out, counter))
    return record


def _excluded_rows(paths: list[Path], counter: Materialised | None) -> Iterator[tuple[Any, ...]]:
    for _, part in stream(paths, counter=counter):
        part = part.astype(object).where(part.notna(), None)
        yield from part.itertuples(index=False, name=None)


def _check_same(
    book: Journal, record: CampaignRecord, kept: dd.DataFrame, header: Mapping[str, Any]
) -> None:
    """The journal holds this very campaign: same header, same recipients partition by
    partition."""
    if not holds_campaign(record, _campaign_id(header, _digests(kept.to_delayed()))):
        raise ConfigurationError(
            f"journal {str(book.path)!r} holds another campaign ({record.name!r}, other "
            "text, sender, options or recipients); pass journal= or name= for this one, or "
            "delete the journal and its .parts directory to start over"
        )


def _field_columns(kept: dd.DataFrame) -> list[str]:
    return sorted(name for name in kept.columns if str(name).startswith(FIELD_PREFIX))


def _sent_columns(kept: dd.DataFrame) -> dd.DataFrame:
    """``kept`` reduced to what a send journals, in the journal's order."""
    return kept[["phone_number", "row", "segments", *_field_columns(kept)]]


def plan_columns(part: pd.DataFrame) -> dict[str, list[Any]]:
    """A partition as the journal's plan columns: JSON values (ints, texts; "" when empty)."""
    columns: dict[str, list[Any]] = {
        "phone_number": part["phone_number"].astype(object).tolist(),
        "row": part["row"].astype("int64").tolist(),
        "segments": part["segments"].astype("int64").tolist(),
    }
    for name in _field_columns(part):  # type: ignore[arg-type]
        columns[name] = part[name].astype(object).where(part[name].notna(), "").tolist()
    return columns


def _digest(part: pd.DataFrame) -> str:
    """What one partition sends to whom: numbers and field texts (not rows or segments)."""
    columns = plan_columns(part)
    digest = hashlib.blake2b(digest_size=16)
    for name in ("phone_number", *_field_columns(part)):  # type: ignore[arg-type]
        digest.update(b"\n" + canonical_json(columns[name]).encode())
    return digest.hexdigest()


def _digests(parts: list[Any]) -> list[str]:
    """Each partition's :func:`_digest` (delayed ``parts``), computed on the cluster: nothing
    is collected."""
    return list(dask.compute(*(dask.delayed(_digest)(part) for part in parts)))


def content_id(
    content: Mapping[str, Any], kept: dd.DataFrame, parts: list[Any] | None = None
) -> str:
    """The content id a send of ``kept`` under ``content`` journals (digests computed on the
    cluster, nothing collected): what the repeat guard compares. ``parts``: the partitions
    of ``kept`` as the guard counts them, when not as sent (tracked links:
    :func:`smskit.dask.links.written_kept`)."""
    if parts is None:
        parts = _sent_columns(kept).to_delayed()
    return _campaign_id(content, _digests(parts))


def _campaign_id(header: Mapping[str, Any], digests: list[str]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    digest.update(canonical_json(dict(header)).encode())
    for part in digests:
        digest.update(b"\n" + part.encode())
    return digest.hexdigest()
