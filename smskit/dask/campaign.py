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

import itertools
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd
from dask.delayed import delayed

from smskit._paths import campaigns_dir
from smskit.campaigns.plan import (
    campaign_settings,
    check_campaign,
    check_name,
    check_options,
    default_name,
)
from smskit.campaigns.preflight import PreflightSettings, campaign_findings, send_instant
from smskit.campaigns.runner import ProgressOption
from smskit.campaigns.served import destinations
from smskit.client import AsyncClient, Client
from smskit.dask import partitions as parts
from smskit.dask import sending
from smskit.dask.report import (
    BREAKDOWN_COLUMNS,
    DaskPreflightReport,
    issue_counts,
    summary_row,
)
from smskit.dask.results import StreamedResult
from smskit.dask.spill import Spill
from smskit.errors import ValidationError
from smskit.rules.findings import Finding
from smskit.rules.hours import hours_refusals
from smskit.rules.recipients import DEFAULT_REGION

__all__ = ["Campaign", "repeats_by_owner"]

Paths = str | Path | Sequence[str | Path]


class Campaign:
    """A campaign whose recipients are a Dask DataFrame (columns named like the spec's
    Contact fields, plus ``country`` for national numbers), checked partition by partition.

    Same settings as :class:`smskit.Campaign`; computations run on dask's current scheduler
    (see :func:`smskit.dask.connect`). Rows are numbered in input order across partitions.
    """

    def __init__(
        self,
        client: Client | AsyncClient,
        recipients: dd.DataFrame,
        *,
        text: str,
        sender: str,
        name: str | None = None,
        default_region: str | None = DEFAULT_REGION,
        clock: Callable[[], datetime] | None = None,
        **send_options: Any,
    ) -> None:
        check_campaign(client, text, sender)
        if not isinstance(recipients, dd.DataFrame):
            raise ValidationError(
                "recipients", "must be a Dask DataFrame", value=type(recipients).__name__
            )
        if "phone_number" not in recipients.columns:
            raise ValidationError(
                "recipients", "a DataFrame of recipients needs a 'phone_number' column"
            )
        self.client = client
        self.recipients = recipients
        self.text = text
        self.sender = sender
        self.options = check_options(send_options)
        self.default_region = default_region
        self.name = (
            check_name(name)
            if name is not None
            else default_name(text, sender, self.options, clock)
        )
        self._clock = clock
        # A CSV's rows are indexed by position, as smskit.Campaign indexes a CSV file.
        self._positions_as_index = False

    @classmethod
    def from_parquet(
        cls, client: Client | AsyncClient, paths: Paths, *, text: str, sender: str, **options: Any
    ) -> Campaign:
        """Recipients read from Parquet files (a directory, a glob or a list of paths)."""
        return cls(client, dd.read_parquet(_paths(paths)), text=text, sender=sender, **options)

    @classmethod
    def from_csv(
        cls, client: Client | AsyncClient, paths: Paths, *, text: str, sender: str, **options: Any
    ) -> Campaign:
        """Recipients read from CSV files (a glob or a list; each with a header naming the
        columns), every value as text so a leading ``+`` or ``0`` survives. Rows are indexed
        by their position across the files, in order, as ``smskit.Campaign`` indexes a CSV."""
        frame = dd.read_csv(_paths(paths), dtype=str, keep_default_na=False, na_values=[""])
        campaign = cls(client, frame, text=text, sender=sender, **options)
        campaign._positions_as_index = True
        return campaign

    def __repr__(self) -> str:
        shown = self.text if len(self.text) <= 40 else self.text[:39] + "…"
        return (
            f"dask.Campaign({self.name!r}, {self.recipients.npartitions} partitions, "
            f"text={shown!r}, sender={self.sender!r})"
        )

    @property
    def settings(self) -> PreflightSettings:
        """What preflight checks the campaign against (as :class:`smskit.Campaign`)."""
        return campaign_settings(self.text, self.sender, self.default_region, self.options)

    def preflight(
        self,
        *,
        now: datetime | None = None,
        offline: bool = False,
        spill: str | Path | None = None,
    ) -> DaskPreflightReport:
        """Check every recipient and the campaign on the cluster; nothing is sent.

        As :meth:`smskit.Campaign.preflight`: without ``offline`` the gateway is asked
        which destination countries it serves for the product, and at what price.

        The input is read once. Each partition's checked report goes to ``spill`` (a
        directory every worker can write and read; default: a temporary one, removed with
        the report) and the second pass settles duplicates and prices from there; the
        report's ``frame``, ``kept()`` and ``to_parquet()`` read the settled files.
        """
        settings = self.settings
        instant = now or (self._clock or _utcnow)()
        if instant.utcoffset() is None:
            raise ValidationError("now", "needs a timezone (an aware datetime)", value=instant)
        errors, found, used = campaign_findings(settings)
        store = Spill(spill)
        infos = self._check(store, settings, instant, used)
        offsets = [0, *itertools.accumulate(int(info["rows"]) for info in infos)][:-1]
        served = None
        if not offline and not errors:
            samples: dict[str, str] = {}
            for info in infos:
                samples = {**info["samples"], **samples}  # the first partition's number wins
            served = destinations(self.client, samples, settings.product)
        shares = [
            delayed(parts.settle_partition)(
                store.file("checked", n),
                store.file("repeats", n),
                offsets,
                n,
                self._positions_as_index,
                served,
                settings.product,
                store.file("report", n),
            )
            for n in range(len(infos))
        ]
        (shares,) = dask.compute(shares)
        store.drop("checked", "repeats")
        when = send_instant(settings, instant)
        missing = sum(int(info["missing"]) for info in infos)
        report = _reduce(shares, settings, when, errors, found, missing)
        index = self.recipients._meta.index
        frame = dd.from_delayed(
            [delayed(parts.load_report)(store, n) for n in range(len(infos))],
            meta=parts.report_meta(index),
            verify_meta=False,
        )
        kept = dd.from_delayed(
            [delayed(parts.load_kept)(store, n, used) for n in range(len(infos))],
            meta=parts.kept_meta(index, used),
            verify_meta=False,
        )
        return DaskPreflightReport(
            frame,
            kept,
            *report,
            errors=tuple(errors),
            findings=tuple(found),
            text=settings.text,
            purpose=settings.purpose or "wholesale",
            evaluated_at=when,
            spill=store,
        )

    # -- sending -----------------------------------------------------------------------------

    def send(
        self,
        report: DaskPreflightReport | None = None,
        *,
        concurrency: int = 4,
        chunk_size: int = 500,
        progress: ProgressOption = True,
        journal: str | Path | None = None,
        wait: float = 0,
    ) -> StreamedResult:
        """Send every recipient ``report`` (default: a new preflight) lets through, streamed
        from the partitions in chunks into the journaled sender (:mod:`smskit.dask.sending`).

        As :meth:`smskit.Campaign.send`: a journal that holds this campaign is continued, a
        campaign-level preflight error raises ``ValidationError``, another runner sending it
        ``CampaignBusy``. The recipients are staged as Parquet beside the journal
        (``<journal>.parts``), which a resume reads again.
        """
        report = report if report is not None else self.preflight()
        report.raise_for_errors()
        path = (
            Path(journal)
            if journal is not None
            else campaigns_dir() / f"{self.name}.journal.sqlite"
        )
        frame = report.frame
        header = {
            "name": self.name,
            "text": self.text,
            "sender": self.sender,
            "options": self.options,
        }
        return sending.send_kept(
            self.client,
            report.kept(),
            frame.loc[~frame["send"], list(sending.EXCLUDED_COLUMNS)],
            header,
            journal=path,
            recipients=int(report.summary()["recipients"].iloc[0]),
            default_region=self.default_region,
            source=repr(self),
            chunk_size=chunk_size,
            concurrency=concurrency,
            progress=progress,
            wait=wait,
        )

    resume = staticmethod(sending.resume)

    # -- internals ---------------------------------------------------------------------------

    def _check(
        self, store: Spill, settings: PreflightSettings, instant: datetime, used: tuple[str, ...]
    ) -> list[dict[str, Any]]:
        """The first pass, reading the input once: each partition's preflight spilled, and
        its duplicates of earlier rows found by a shuffle on the number and written back to
        that partition's own file."""
        checked = [
            delayed(parts.check_partition, nout=2)(
                part,
                n,
                settings,
                instant,
                self._positions_as_index,
                used,
                store.file("checked", n),
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
        infos, _ = dask.compute([c[1] for c in checked], written)
        return list(infos)


def repeats_by_owner(candidates: dd.DataFrame, partitions: int) -> dd.DataFrame:
    """Keys whose number an earlier sendable key has, with that first key, partitioned like
    the input: partition ``n`` holds the repeats of its own rows only. Every candidate of a
    number meets in one partition after the shuffle; only the repeats leave it."""
    shuffled = candidates.shuffle(on="phone_number")
    found = shuffled.map_partitions(parts.first_seen, meta=parts.REPEATS_META)
    owned = found.assign(part=found["row"] // (1 << parts.SHIFT))
    # Divisions 0, 1, ..., n: partition n receives exactly the keys of input partition n.
    return owned.set_index("part", divisions=list(range(partitions + 1)), sorted=False)


def _reduce(
    shares: list[dict[str, Any]],
    settings: PreflightSettings,
    when: datetime,
    errors: list[ValidationError],
    found: list[Finding],
    missing: int,
) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """Summary, issue counts and breakdown from the partitions' shares (small: a few numbers
    and a row per country each); the hours and missing-field findings appended to ``found``
    as the pandas preflight says them."""
    names = ("recipients", "to_send", "with_warning", "segments", "ucs2")
    totals = {name: sum(int(s["totals"][name]) for s in shares) for name in names}
    issues = _summed([s["issues"] for s in shares])
    per_region = _summed([s["regions"] for s in shares])
    for country, reason in hours_refusals(sorted(per_region.index), settings.purpose, when).items():
        said = f"{reason}: {int(per_region[country])} recipient(s) would receive a marketing SMS"
        found.append(Finding("hours_refused", None, None, said))
    if missing:
        found.append(Finding("fields_missing", None, None, str(missing)))
    counted = issue_counts(issues)
    table = pd.concat([s["breakdown"] for s in shares], ignore_index=True)
    table = table.groupby(["region", "encoding"], dropna=False).sum()
    return summary_row(totals, counted, len(errors)), counted, _tidy(table)


def _summed(counts: list[pd.Series]) -> pd.Series:
    if not counts:
        return pd.Series(dtype="int64")
    return pd.concat(counts).groupby(level=0).sum()


def _tidy(table: pd.DataFrame) -> pd.DataFrame:
    """The reduced breakdown in breakdown()'s shape: sorted, a cost only where one is known."""
    table = table.reset_index().sort_values(["region", "encoding"], ignore_index=True)
    table["cost"] = table["cost"].where(table["priced"] > 0)
    return table[list(BREAKDOWN_COLUMNS)]


def _paths(paths: Paths) -> str | list[str]:
    if isinstance(paths, str | Path):
        return str(paths)
    return [str(p) for p in paths]


def _utcnow() -> datetime:
    from datetime import UTC

    return datetime.now(UTC)
