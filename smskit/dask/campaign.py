"""A campaign over a Dask DataFrame of recipients: the pandas preflight on every partition,
reading the input once into a spill; duplicates found across partitions by a shuffle on the
number and sent back to their own partition; each partition's share of the totals computed
where it is settled.

```
client = smskit.dask.connect()                      # a local cluster (or connect("tcp://..."))
campaign = smskit.dask.Campaign.from_parquet(gateway, "base/*.parquet", text=..., sender=...)
report = campaign.preflight()                       # summary() and breakdown() in pandas
report.to_parquet("preflight/")                     # the per-recipient report, per partition
```
"""

from __future__ import annotations

import asyncio
import glob
import itertools
import os
import weakref
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

import dask
import dask.dataframe as dd
import pandas as pd
from dask.delayed import delayed

from smskit.campaigns.analysis.results import EXCLUDED_COLUMNS
from smskit.campaigns.executor import CampaignExecutor, ClientOption, OptOutState, Run
from smskit.campaigns.planning.holdout import Holdout
from smskit.campaigns.planning.links import LinkTracking, token_scope
from smskit.campaigns.planning.orchestration import FirstPass, Verdict, run_preflight
from smskit.campaigns.planning.preflight import PreflightSettings
from smskit.campaigns.planning.report import (
    OUTLINE_ROWS,
    SUMMARY_TOTALS,
    PreflightOutline,
    issue_counts,
    summary_row,
)
from smskit.campaigns.sending.journal import plan_contacts
from smskit.campaigns.sending.reconnect import journal_for_send
from smskit.client import AsyncClient, Client
from smskit.dask import partition_preflight as parts
from smskit.dask import sending
from smskit.dask.links import register_kept, with_links, written_kept
from smskit.dask.narration import quiet_shuffles
from smskit.dask.report import DaskPreflightReport, merged_breakdown
from smskit.dask.results import StreamedResult
from smskit.dask.spill import Spill
from smskit.dask.stream import frame_of
from smskit.errors import ValidationError
from smskit.rules.csvtext import csv_columns, read_csv_text
from smskit.rules.destinations import Destinations
from smskit.rules.fields import CONTACT_FIELDS
from smskit.rules.files import as_file_path, table_path
from smskit.rules.recipients import REGION_COLUMN, no_number_column, refuse_floats

if TYPE_CHECKING:
    from smskit.rules.contacts import ContactChunk

__all__ = ["Campaign", "KeptChunks", "PartitionedAudience", "repeats_by_owner"]

Paths = str | Path | Sequence[str | Path]


def _names_files(value: Any) -> bool:
    """Whether ``value`` is what from_csv and from_parquet take rather than a table: a
    ``Path``, a text that is a path or a glob (a ``/``, a ``*``, a .csv or .parquet name;
    never a phone number), or a non-empty list of them."""
    if isinstance(value, list | tuple):
        return bool(value) and all(_names_files(one) for one in value)
    if isinstance(value, str):
        return "/" in value or "*" in value or value.lower().endswith((".csv", ".parquet", ".pq"))
    return isinstance(value, os.PathLike)


class Campaign(CampaignExecutor[StreamedResult]):
    """A campaign whose recipients are a Dask DataFrame (columns named like the spec's
    Contact fields, plus ``country`` for national numbers), checked partition by partition.

    The same spec and the same public methods as :class:`smskit.Campaign` (preflight,
    estimate, send, resume and their async twins); computations run on dask's current
    scheduler (see :func:`smskit.dask.connect`). Rows are numbered in input order across
    partitions. :meth:`estimate` and :meth:`send` use the last preflight while the spec
    does not change and the report is still held (its spill lives as long as it is).
    ``track_links=inbox`` gives each partition its recipients' short links before preflight
    (:mod:`smskit.dask.links`; docs/links.md).
    """

    resume_call: ClassVar[str] = "smskit.dask.Campaign.resume"

    kind = "dask.Campaign"
    recipients: dd.DataFrame
    # A CSV's rows are indexed by position, as smskit.Campaign indexes a CSV file.
    _positions_as_index = False
    # The last preflight, weakly: its spill (on disk) lives as long as the user holds it.
    _report: weakref.ref[DaskPreflightReport] | None = None
    _report_of: tuple[PreflightSettings, OptOutState] | None = None
    _untracked: dd.DataFrame | None = None  # the recipients before their links were added
    _scope: str | None = None  # what their tokens were made for (token_scope)

    def _taken(self, recipients: Any) -> dd.DataFrame:
        if _names_files(recipients):  # a path, a glob or a list of them: read by from_csv
            raise ValidationError(
                "recipients",
                "files are read by smskit.dask.Campaign.from_csv(client, PATHS, ...) or "
                ".from_parquet(client, PATHS, ...) (a path, a glob or a list of them, one "
                "partition a file); Campaign(client, recipients, ...) takes a Dask DataFrame",
                value=str(recipients) if isinstance(recipients, str | os.PathLike) else None,
            )
        if not isinstance(recipients, dd.DataFrame):
            kind = type(recipients)  # its module too: a polars DataFrame is not pandas'
            raise ValidationError(
                "recipients",
                "must be a Dask DataFrame (dask.dataframe.from_pandas(...); recipients that "
                "fit in memory, pandas, polars or pyarrow, go to smskit.Campaign)",
                value=f"{kind.__module__.split('.')[0]}.{kind.__qualname__}",
            )
        if "phone_number" not in recipients.columns:
            raise ValidationError(
                "recipients", "a DataFrame of recipients needs a 'phone_number' column"
            )
        return recipients

    def _tracked(
        self, tracking: LinkTracking, recipients: dd.DataFrame, journal: Path | None = None
    ) -> dd.DataFrame:
        # the tokens of this name sent in ``journal``, default the one a send would use now
        # (docs/links.md: two sends of one name never share a token)
        journal = journal_for_send(self.spec.journal_path())[0] if journal is None else journal
        self._untracked, self._scope = recipients, token_scope(self.spec.identity, journal)
        return with_links(recipients, tracking, self.spec.identity, self._scope)

    def _links_for(self, path: Path) -> None:
        """Give the recipients the short links of this campaign sent in ``path`` when theirs
        were made for another journal (``send(journal=elsewhere)``); preflight again."""
        tracking, given = self.tracking, self._untracked
        if tracking is None or given is None:
            return
        if self._scope != token_scope(self.spec.identity, path):
            self.recipients = self._tracked(tracking, given, path)
            self._report = None

    @classmethod
    def from_parquet(
        cls,
        client: Client | AsyncClient | None,
        paths: Paths,
        *,
        text: str,
        sender: str,
        **options: Any,
    ) -> Campaign:
        """Recipients read from Parquet files (a directory, a glob or a list of paths); a
        path that names nothing, or what is not Parquet (a CSV file, an empty directory), is
        refused naming it (``ValidationError`` on ``path``)."""
        return cls(client, _read_parquet(paths), text=text, sender=sender, **options)

    @classmethod
    def from_csv(
        cls,
        client: Client | AsyncClient | None,
        path: Paths,
        *,
        text: str,
        sender: str,
        **options: Any,
    ) -> Campaign:
        """Recipients read from CSV files (``path``: a file, a glob or a list; each with a
        header naming the columns), each by the reader ``smskit.Campaign.from_csv`` reads its
        file with (every cell its text, so a leading ``+`` or ``0`` survives; a NUL byte,
        bytes that are not UTF-8, a quote never closed, a row longer than the header, a
        column read named twice refused alike), one
        partition a file, read by the worker computing it (a cluster on another machine
        needs the files at these paths). Every file needs the first one's recipient
        columns. Rows are indexed by their position across the files, in order, as
        ``smskit.Campaign.from_csv`` indexes its file."""
        files = _csv_files(path)
        header = csv_columns(files[0])
        columns = [name for name in dict.fromkeys(header) if name in CSV_COLUMNS]
        if "phone_number" not in columns:  # refused as smskit.Campaign refuses its file:
            _csv_part(files[0], columns, files[0])  # what its reader refuses first
            rule = no_number_column("CSV", header)
            raise ValidationError("recipients", rule)
        meta = pd.DataFrame({name: pd.Series(dtype="str") for name in columns})
        parts = [delayed(_csv_part)(file, columns, files[0]) for file in files]
        frame = dd.from_delayed(parts, meta=meta, divisions=None)
        campaign = cls(client, frame, text=text, sender=sender, **options)
        campaign._positions_as_index = True
        return campaign

    def describe_recipients(self) -> str:
        """The recipients in a few words (for the repr)."""
        return f"{self.recipients.npartitions} partitions"

    def preflight_outline(
        self, *, now: datetime | None = None, offline: bool = False, rows: int = OUTLINE_ROWS
    ) -> PreflightOutline:
        """:meth:`preflight`'s figures, findings and first ``rows`` rows
        (:meth:`smskit.Campaign.preflight_outline`): here the whole preflight runs on the
        cluster, and its report is outlined."""
        return self.preflight(now=now, offline=offline).outline(rows)

    def preflight(
        self, *, now: datetime | None = None, offline: bool = False, spill: str | Path | None = None
    ) -> DaskPreflightReport:
        """Check every recipient and the campaign on the cluster; nothing is sent.

        As :meth:`smskit.Campaign.preflight`: without ``offline`` the gateway is asked
        which destination countries it serves for the product, and at what price.

        The input is read once. Each partition's checked report goes to ``spill`` (a
        directory every worker can write and read; default: a temporary one, removed with
        the report) and the second pass settles duplicates and prices from there; the
        report's ``frame``, ``kept()`` and ``to_parquet()`` read the settled files.
        """
        if self.tracking is not None:
            self.tracking.check_sent_text(self.spec.text)
        spec = self.spec
        suppression, state = self._suppression(offline)
        back_end = PartitionedAudience(self.recipients, self._positions_as_index, Spill(spill))
        history = self._history(offline)
        report = run_preflight(
            back_end, spec.settings, spec.instant(now), self._serving(offline), suppression,
            history,
        )  # fmt: skip
        self._report, self._report_of = weakref.ref(report), (spec.settings, state)
        return report

    # -- where the recipients are: partitioned -------------------------------------------------

    def _planned(self, chunk_size: int) -> KeptChunks:
        report = self._current_report()
        report.raise_for_errors()
        return KeptChunks(report.kept(), chunk_size, report.to_send)

    async def _deliver(self, path: Path, chunk_size: int, run: Run) -> StreamedResult:
        self._links_for(path)
        report = self._current_report()
        report.raise_for_errors()
        if self.tracking is not None:  # registered before any text carrying them goes
            await asyncio.to_thread(
                register_kept, self.tracking, report.kept(), self.recipients, self.spec.identity
            )
        frame = report.frame
        # tracked links: the repeat guard counts their destinations (docs/links.md)
        same = None if self.tracking is None else await asyncio.to_thread(self._content_id)
        return await sending.asend_kept(
            self.client,
            report.kept(),
            frame.loc[~frame["send"], list(EXCLUDED_COLUMNS)],
            self.spec.header,
            content=self.spec.content,
            content_id=same,
            journal=path,
            recipients=report.recipients,
            default_region=self.default_region,
            source=repr(self),
            include_opted_out=self.spec.include_opted_out,
            campaign_options=self.spec.journaled_options(),
            chunk_size=chunk_size,
            concurrency=run.concurrency,
            progress=run.progress,
            wait=run.wait,
            repeat=run.repeat,
        )

    def _content_id(self) -> str:
        report = self._current_report()
        report.raise_for_errors()
        kept, tracking = report.kept(), self.tracking
        parts = None if tracking is None else written_kept(tracking, kept, self.recipients)
        return sending.content_id(self.spec.content, kept, parts)

    @classmethod
    async def _continue(cls, path: str | Path, client: ClientOption, run: Run) -> StreamedResult:
        return await sending.aresume(
            path, client, concurrency=run.concurrency, progress=run.progress, wait=run.wait
        )

    # -- internals ---------------------------------------------------------------------------

    def _current_report(self) -> DaskPreflightReport:
        """The last preflight if it is still held and neither the spec's settings nor the
        opt-out list changed since, else a new one."""
        report = self._report() if self._report is not None else None
        if report is None or self._report_of != (self.settings, self._optout_state()):
            report = self.preflight()
        return report


class PartitionedAudience:
    """The partitioned back end of :func:`~smskit.campaigns.planning.orchestration.run_preflight`:
    the pandas preflight on every partition, reading the input once into ``store``; duplicates
    found across partitions by a shuffle on the number and sent back to their own partition;
    each partition's share of the totals computed where it is settled."""

    def __init__(self, recipients: dd.DataFrame, positions_as_index: bool, store: Spill) -> None:
        self.recipients = recipients
        self.positions_as_index = positions_as_index
        self.store = store
        self._infos: list[dict[str, Any]] = []
        self._shares: list[dict[str, Any]] = []
        self._used: tuple[str, ...] = ()

    def check(self, first: FirstPass) -> None:
        """The first pass, reading the input once: each partition's preflight spilled (the
        opt-out list, ``first.suppressed``, checked there), and its duplicates of earlier
        rows found by a shuffle on the number and written back to that partition's own file. The
        numbers at the frequency cap (``first.reached``) are computed once, before, and each
        partition excludes its own."""
        store = self.store
        self._used = first.used
        listed = delayed(first.suppressed, pure=True)  # one copy on the cluster, not per task
        reached = delayed(first.reached, pure=True)  # the numbers at the frequency cap
        checked = [
            delayed(parts.check_partition, nout=2)(
                part,
                n,
                first.settings,
                first.instant,
                self.positions_as_index,
                first.used,
                store.file("checked", n),
                listed,
                reached,
            )
            for n, part in enumerate(self.recipients.to_delayed())
        ]
        candidates = dd.from_delayed(
            [c[0] for c in checked], meta=parts.CANDIDATES_META, verify_meta=False
        )
        written = [
            delayed(parts.write_repeats)(own, store.file("repeats", n))
            for n, own in enumerate(repeats_by_owner(candidates, len(checked)).to_delayed())
        ]
        try:
            infos, _ = dask.compute([c[1] for c in checked], written)
        except ValidationError as exc:
            raise self._in_whole_input(exc) from None
        self._infos = list(infos)

    def _in_whole_input(self, exc: ValidationError) -> ValidationError:
        """A partition's refusal naming its row in the whole input, as the pandas campaign
        does: the rows of the partitions before are counted (read again, on this path only)."""
        number = getattr(exc, "partition", None)
        if number is None or not isinstance(exc.position, int):
            return exc
        before = self.recipients.to_delayed()[:number]
        at = exc.position + sum(dask.compute(*(delayed(len)(part) for part in before)))
        return exc.at(at)

    def samples(self) -> Mapping[str, str]:
        found: dict[str, str] = {}
        for info in self._infos:
            found = {**info["samples"], **found}  # the first partition's number wins
        return found

    def settle(self, served: Destinations | None, product: str) -> tuple[Mapping[str, int], int]:
        infos, store = self._infos, self.store
        offsets = [0, *itertools.accumulate(int(info["rows"]) for info in infos)][:-1]
        shares = [
            delayed(parts.settle_partition)(
                store.file("checked", n),
                store.file("repeats", n),
                offsets,
                n,
                self.positions_as_index,
                served,
                product,
                store.file("report", n),
            )
            for n in range(len(infos))
        ]
        (self._shares,) = dask.compute(shares)
        store.drop("checked", "repeats")
        per_region = _summed([s["regions"] for s in self._shares])
        missing = sum(int(info["missing"]) for info in infos)
        return {str(k): int(v) for k, v in per_region.items()}, missing

    def sent_anyway(self) -> int:
        return sum(int(info["sent_anyway"]) for info in self._infos)

    def hold_out(self, holdout: Holdout) -> None:
        """The holdout over the whole base, partition-wise (the pandas selection): strata
        counted, each partition's smallest draws gathered, then each report marked."""
        files = [self.store.file("report", n) for n in range(len(self._infos))]
        (strata,) = dask.compute([delayed(parts.holdout_strata)(f, holdout) for f in files])
        wanted = parts.holdout_counts(holdout, list(strata))
        (found,) = dask.compute(
            [delayed(parts.holdout_candidates)(f, holdout, wanted) for f in files]
        )
        cutoffs = parts.holdout_cutoffs(wanted, list(found))
        (self._shares,) = dask.compute(
            [delayed(parts.hold_out_partition)(f, holdout, cutoffs) for f in files]
        )

    def report(self, verdict: Verdict) -> DaskPreflightReport:
        if verdict.settings.holdout is not None:
            self.hold_out(verdict.settings.holdout)
        shares, store, used = self._shares, self.store, self._used
        totals = {name: sum(int(s["totals"][name]) for s in shares) for name in SUMMARY_TOTALS}
        counted = issue_counts(_summed([s["issues"] for s in shares]))
        index = self.recipients._meta.index
        count = len(self._infos)
        reports = [delayed(parts.load_report)(store, n) for n in range(count)]
        kept = [delayed(parts.load_kept)(store, n, used) for n in range(count)]
        return DaskPreflightReport(
            frame_of(reports, parts.report_meta(index)),
            frame_of(kept, parts.kept_meta(index, used)),
            summary_row(totals, counted),
            counted,
            merged_breakdown([s["breakdown"] for s in shares]),
            spill=store,
            **verdict.report_fields(),
        )


def repeats_by_owner(candidates: dd.DataFrame, partitions: int) -> dd.DataFrame:
    """Keys whose number an earlier sendable key has, with that first key, partitioned like
    the input: partition ``n`` holds the repeats of its own rows only. Every candidate of a
    number meets in one partition after the shuffle; only the repeats leave it."""
    quiet_shuffles()
    shuffled = candidates.shuffle(on="phone_number")
    found = shuffled.map_partitions(parts.first_seen, meta=parts.REPEATS_META)
    owned = found.assign(part=found["row"] // (1 << parts.SHIFT))
    # Divisions 0, 1, ..., n: partition n receives exactly the keys of input partition n.
    return owned.set_index("part", divisions=list(range(partitions + 1)), sorted=False)


def _summed(counts: list[pd.Series]) -> pd.Series:
    if not counts:
        return pd.Series(dtype="int64")
    return pd.concat(counts).groupby(level=0).sum()


def _paths(paths: Paths) -> str | list[str]:
    if isinstance(paths, str | Path):
        return str(paths)
    return [str(p) for p in paths]


def _read_parquet(paths: Paths) -> dd.DataFrame:
    """Dask's frame of the Parquet files ``paths`` names; a local path naming nothing, or what
    Dask cannot read as Parquet, is refused naming it (Dask said "An error occurred while
    calling the read_parquet method", or for a glob matching nothing, that the frame had no
    phone_number column)."""
    given = _paths(paths)
    for one in [given] if isinstance(given, str) else given:
        if "://" in one:  # a URL (s3://...): its file system answers, through Dask
            continue
        if not (glob.glob(one) if any(mark in one for mark in "*?[") else Path(one).exists()):
            raise ValidationError("path", f"{one!r} names no file or directory")
    try:
        return dd.read_parquet(given)
    except (ValueError, OSError) as exc:  # pyarrow's ArrowInvalid is a ValueError
        why = str(exc).strip().splitlines()[-1].removeprefix("Original Message: ")
        raise ValidationError(
            "path", f"{given!r} cannot be read as Parquet files ({why})"
        ) from None


# The columns a recipients reader reads (the others are ignored, in pandas too).
CSV_COLUMNS: Final = (*CONTACT_FIELDS, REGION_COLUMN)
DASK_CSV_ONLY: Final = (
    "smskit.dask.Campaign.from_csv reads CSV files only: a Parquet file is read by "
    "smskit.dask.Campaign.from_parquet"
)


def _csv_files(paths: Paths) -> list[Path]:
    """The files ``paths`` names (a glob matched in sorted order, as Dask matches one),
    each an existing CSV file (rules/files); none is refused."""
    given = [paths] if isinstance(paths, str | Path) else list(paths)
    files: list[Path] = []
    for one in given:
        text = str(one)
        if isinstance(one, str) and any(mark in text for mark in "*?["):
            matched = sorted(glob.glob(text))
            if not matched:
                raise ValidationError("path", "matches no file", value=text)
            files += [Path(name) for name in matched]
        else:
            files.append(as_file_path(one, "path"))
    if not files:
        raise ValidationError("path", "names no file: give a CSV file, a glob or a list")
    checked = []
    for file in files:
        csv_file = table_path(file, "path", csv_only=DASK_CSV_ONLY)
        assert csv_file is not None  # a Path names a file, never a table
        checked.append(csv_file)
    return checked


def _csv_part(file: Path, columns: list[str], first: Path) -> pd.DataFrame:
    """One file's recipients, read as ``smskit.Campaign`` reads its CSV file (a float's
    text refused at its line too); refused when its recipients' columns are not the first
    file's (a partition's columns are the frame's). A refusal of a later file says its
    rows and lines are that file's (the rows before it are in other partitions)."""
    try:
        frame = read_csv_text(file, CSV_COLUMNS, "recipients")
        if "phone_number" in frame.columns:
            refuse_floats(frame["phone_number"], "recipients.phone_number", file)
    except ValidationError as exc:
        if file == first:
            raise
        where = f"{exc.rule} (in the CSV file {str(file)!r}: a row or line counted in that file)"
        error = ValidationError(
            exc.field, where, position=exc.position, value=exc.value, line=exc.line
        )
        error.fact, error.remedy = exc.fact, exc.remedy
        raise error from exc
    if list(frame.columns) != columns:
        raise ValidationError(
            "recipients",
            f"the CSV file {str(file)!r} has the recipient columns {list(frame.columns)}, "
            f"the first file {str(first)!r} {columns}: give every file the same header",
        )
    return frame


class KeptChunks:
    """The recipients a preflight kept, in the chunks a send makes (chunk by chunk of each
    partition), one partition computed at a time: what an estimate reads."""

    def __init__(self, kept: dd.DataFrame, size: int, to_send: int) -> None:
        self.kept = kept
        self.size = size
        self.to_send = to_send

    def _frames(self) -> Iterator[tuple[int, pd.DataFrame]]:
        index = 0
        for part in self.kept.to_delayed():
            frame = part.compute()
            for start in range(0, len(frame), self.size):
                yield index, frame.iloc[start : start + self.size]
                index += 1

    def segments_and_regions(self) -> Iterator[tuple[list[int], list[str | None]]]:
        for _, chunk in self._frames():
            yield chunk["segments"].tolist(), chunk["region"].tolist()

    def chunks(self) -> Iterator[tuple[int, list[int], ContactChunk]]:
        for index, chunk in self._frames():
            payload = plan_contacts(sending.plan_columns(chunk), range(len(chunk)))
            yield index, chunk["row"].tolist(), payload
