"""A campaign over a Dask DataFrame of recipients: the pandas preflight on every partition,
duplicates found across partitions by a shuffle on the number, totals reduced on the cluster.

```
client = smskit.dask.connect()                      # a local cluster (or connect("tcp://..."))
campaign = smskit.dask.Campaign.from_parquet(gateway, "base/*.parquet", text=..., sender=...)
report = campaign.preflight()                       # summary() and breakdown() in pandas
report.to_parquet("preflight/")                     # the per-recipient report, per partition
```
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import dask
import dask.dataframe as dd
import pandas as pd
from dask.delayed import Delayed, delayed

from smskit._paths import campaigns_dir
from smskit.campaigns.plan import (
    campaign_settings,
    check_campaign,
    check_name,
    check_options,
    default_name,
)
from smskit.campaigns.preflight import PreflightSettings, campaign_findings, send_instant
from smskit.campaigns.results import CampaignResult
from smskit.campaigns.runner import ProgressOption
from smskit.campaigns.served import destinations
from smskit.client import AsyncClient, Client
from smskit.dask import partitions as parts
from smskit.dask import sending
from smskit.dask.report import (
    BREAKDOWN_COLUMNS,
    DaskPreflightReport,
    breakdown,
    issue_counts,
    summary_row,
)
from smskit.errors import ValidationError
from smskit.rules.destinations import Destinations
from smskit.rules.findings import Finding
from smskit.rules.hours import hours_refusals
from smskit.rules.recipients import DEFAULT_REGION

__all__ = ["Campaign"]

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
            check_name(name) if name is not None else default_name(text, sender, self.options)
        )
        self._clock = clock
        self._offsets: list[int] | None = None
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

    def offsets(self) -> list[int]:
        """The row number of each partition's first row (one pass counting rows; kept)."""
        if self._offsets is None:
            sizes = self.recipients.map_partitions(len).compute()
            self._offsets = [0, *pd.Series(list(sizes)).cumsum().tolist()[:-1]]
        return self._offsets

    def preflight(
        self, *, now: datetime | None = None, offline: bool = False
    ) -> DaskPreflightReport:
        """Check every recipient and the campaign on the cluster; nothing is sent.

        As :meth:`smskit.Campaign.preflight`: without ``offline`` the gateway is asked
        which destination countries it serves for the product, and at what price.
        """
        settings = self.settings
        instant = now or (self._clock or _utcnow)()
        if instant.utcoffset() is None:
            raise ValidationError("now", "needs a timezone (an aware datetime)", value=instant)
        errors, found, used = campaign_findings(settings)
        checked = self._checked(settings, instant)
        meta = parts.report_meta(self.recipients._meta.index)
        base = dd.from_delayed(
            [delayed(operator.getitem)(c, 0) for c in checked], meta=meta, verify_meta=False
        )
        repeats = _repeats(base)
        sendable = base.loc[base["send"] & base["region"].notnull(), ["region", "phone_number"]]
        firsts = sendable.assign(region=sendable["region"].astype(str))
        firsts = firsts.drop_duplicates(subset="region", split_out=1)
        repeats, firsts = dask.persist(repeats, firsts)
        served = None
        if not offline and not errors:
            samples = dict(firsts.compute().itertuples(index=False))
            served = destinations(self.client, samples, settings.product)
        frame = self._settled(base, repeats, served, settings.product, meta)
        when = send_instant(settings, instant)
        report = _reduce(frame, checked, settings, when, errors, found)
        kept = self._kept(frame, used)
        return DaskPreflightReport(
            frame,
            kept,
            *report,
            errors=tuple(errors),
            findings=tuple(found),
            text=settings.text,
            purpose=settings.purpose or "wholesale",
            evaluated_at=when,
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
    ) -> CampaignResult:
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

    def _checked(self, settings: PreflightSettings, instant: datetime) -> list[Delayed]:
        """Per partition, lazily: its pandas preflight and its count of missing fields."""
        return [
            delayed(parts.check_partition, nout=2)(
                part, offset, settings, instant, self._positions_as_index
            )
            for part, offset in zip(self.recipients.to_delayed(), self.offsets(), strict=True)
        ]

    def _settled(
        self,
        base: dd.DataFrame,
        repeats: dd.DataFrame,
        served: Destinations | None,
        product: str,
        meta: pd.DataFrame,
    ) -> dd.DataFrame:
        (whole,) = repeats.to_delayed()
        settled = [
            delayed(parts.settle_partition)(frame, whole, served, product)
            for frame in base.to_delayed()
        ]
        return dd.from_delayed(settled, meta=meta, verify_meta=False)

    def _kept(self, frame: dd.DataFrame, used: tuple[str, ...]) -> dd.DataFrame:
        kept = [
            delayed(parts.kept_partition)(part, settled, used, offset, self._positions_as_index)
            for part, settled, offset in zip(
                self.recipients.to_delayed(), frame.to_delayed(), self.offsets(), strict=True
            )
        ]
        meta = parts.kept_meta(self.recipients._meta.index, used)
        return dd.from_delayed(kept, meta=meta, verify_meta=False)


def _repeats(base: dd.DataFrame) -> dd.DataFrame:
    """Rows whose number an earlier sendable row has, with that first row: one partition,
    sorted by row. Every row of a number meets in one partition after the shuffle; only the
    repeats leave it."""
    candidates = base.loc[
        (base["issue"].isna() | (base["issue"] == "duplicate")) & base["phone_number"].notnull(),
        ["row", "phone_number"],
    ]
    shuffled = candidates.shuffle(on="phone_number")
    found = shuffled.map_partitions(parts.first_seen, meta=parts.REPEATS_META)
    return found.repartition(npartitions=1).map_partitions(
        lambda frame: frame.sort_values("row", ignore_index=True), meta=parts.REPEATS_META
    )


def _reduce(
    frame: dd.DataFrame,
    checked: list[Delayed],
    settings: PreflightSettings,
    when: datetime,
    errors: list[ValidationError],
    found: list[Finding],
) -> tuple[pd.DataFrame, pd.Series, pd.DataFrame]:
    """Summary, issue counts and breakdown, reduced on the cluster in one pass; the hours and
    missing-field findings appended to ``found`` as the pandas preflight says them."""
    sending = frame["send"]
    # Sendable before prices: what the pandas preflight counts for the hours refusals.
    before_prices = sending | (frame["issue"] == "not_served")
    regions = frame.loc[before_prices & frame["region"].notnull(), "region"].astype(str)
    regions = regions.value_counts()
    partial = frame.map_partitions(breakdown, meta=_breakdown_meta())
    by_country = partial.groupby(["region", "encoding"], dropna=False).sum(split_out=1)
    totals, issues, per_region, table, missing = dask.compute(
        {
            "recipients": frame.map_partitions(len).sum(),
            "to_send": sending.sum(),
            "with_warning": frame["warning"].notnull().sum(),
            "segments": frame["segments"].where(sending, 0).astype("int64").sum(),
            "ucs2": ((frame["encoding"] == "UCS-2") & sending).sum(),
        },
        frame["issue"].astype(str).value_counts(),
        regions,
        by_country,
        dd.from_delayed([delayed(_missing)(c) for c in checked], meta=_MISSING)["missing"].sum(),
    )
    totals = {name: int(value) for name, value in totals.items()}
    for country, reason in hours_refusals(sorted(per_region.index), settings.purpose, when).items():
        said = f"{reason}: {int(per_region[country])} recipient(s) would receive a marketing SMS"
        found.append(Finding("hours_refused", None, None, said))
    if missing:
        found.append(Finding("fields_missing", None, None, str(missing)))
    counted = issue_counts(issues)
    return summary_row(totals, counted, len(errors)), counted, _tidy(table)


_MISSING = pd.DataFrame({"missing": pd.Series(dtype="int64")})


def _missing(checked: tuple[pd.DataFrame, int]) -> pd.DataFrame:
    return pd.DataFrame({"missing": [checked[1]]})


def _breakdown_meta() -> pd.DataFrame:
    return pd.DataFrame(
        {
            "region": pd.Series(dtype=object),
            "encoding": pd.Series(dtype=object),
            "recipients": pd.Series(dtype="int64"),
            "segments": pd.Series(dtype="int64"),
            "cost": pd.Series(dtype="float64"),
            "priced": pd.Series(dtype="int64"),
        }
    )


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
