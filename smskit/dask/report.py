"""A Dask campaign's preflight report: the per-recipient frame is the settled files of the
spill, read lazily (written out with :meth:`DaskPreflightReport.to_parquet`); the summary,
issue counts and the breakdown per country and encoding were reduced when the report was
made."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from smskit.campaigns.planning.report import (
    OUTLINE_ROWS,
    CampaignFindings,
    PreflightOutline,
    head_of,
)

if TYPE_CHECKING:
    import dask.dataframe as dd

__all__ = ["BREAKDOWN_COLUMNS", "DaskPreflightReport", "breakdown", "merged_breakdown"]

BREAKDOWN_COLUMNS = ("region", "encoding", "recipients", "segments", "cost", "priced")


def breakdown(frame: pd.DataFrame) -> pd.DataFrame:
    """Recipients to send, their segments and cost per destination country and encoding
    (``priced`` counts the recipients whose cost is known; cost is NaN when none is)."""
    sending = frame.loc[frame["send"], ["region", "encoding", "segments", "cost"]]
    rows = sending.astype({"region": object, "encoding": object, "segments": "int64"})
    rows = rows.assign(recipients=1, priced=rows["cost"].notna().astype("int64"))
    return merged_breakdown([rows])


def merged_breakdown(parts: list[pd.DataFrame]) -> pd.DataFrame:
    """The :func:`breakdown` of a whole report from its parts' (the partitions'; or its
    recipients', one a row)."""
    grouped = pd.concat(parts, ignore_index=True).groupby(["region", "encoding"], dropna=False)
    table = grouped.sum().reset_index().sort_values(["region", "encoding"], ignore_index=True)
    table["cost"] = table["cost"].where(table["priced"] > 0)
    return table[list(BREAKDOWN_COLUMNS)]


@dataclass(frozen=True)
class DaskPreflightReport(CampaignFindings):
    """What preflight found over a Dask DataFrame of recipients.

    ``frame`` is the per-recipient report, lazily (same columns and dtypes as
    ``PreflightReport.frame``; computing it reads the settled files of the spill, never the
    input again). The summary, the issue counts and the breakdown were reduced when the
    report was made, and are plain pandas objects. The spill lives as long as the report or
    a frame read from it.
    """

    frame: dd.DataFrame = field(repr=False)
    kept_frame: dd.DataFrame = field(repr=False)
    totals: pd.DataFrame = field(repr=False)
    issue_totals: pd.Series = field(repr=False)
    by_country: pd.DataFrame = field(repr=False)
    spill: object = field(default=None, repr=False, compare=False)

    @property
    def recipients(self) -> int:
        """Rows read."""
        return int(self.totals["recipients"].to_numpy()[0])

    @property
    def to_send(self) -> int:
        """Recipients that pass every check."""
        return int(self.totals["to_send"].to_numpy()[0])

    @property
    def segments(self) -> int:
        """SMS segments of the recipients to send."""
        return int(self.totals["segments"].to_numpy()[0])

    def summary(self) -> pd.DataFrame:
        """One row: recipients, to send, excluded per issue, warnings, segments, UCS-2 texts."""
        row = self.totals.copy()
        row["errors"], row["ok"] = len(self.blocking()), self.ok
        return row

    def issues(self) -> pd.Series:
        """Excluded recipients per issue (every issue listed, zeros included)."""
        return self.issue_totals.copy()

    def outline(self, rows: int = OUTLINE_ROWS) -> PreflightOutline:
        """This report's figures and first ``rows`` rows, as
        :meth:`smskit.campaigns.planning.report.PreflightReport.outline` (the most segments a
        recipient to send takes, and the first rows, computed on the cluster)."""
        to_send = self.to_send
        worst = int(self.kept_frame["segments"].max().compute()) if to_send else None
        return PreflightOutline(
            self.recipients,
            to_send,
            self.segments,
            worst,
            tuple(int(count) for count in self.issue_totals.to_numpy()),
            head_of(self.frame.head(rows, npartitions=-1)),
            **self.campaign_fields(),
        )

    def breakdown(self) -> pd.DataFrame:
        """Per destination country and encoding: recipients to send, segments, cost (EUR,
        from the gateway's unit prices; NaN offline) and how many of them are priced."""
        return self.by_country.copy()

    def sending_regions(self) -> list[str]:
        """The destination countries of the recipients to send (computed on the cluster)."""
        regions = self.kept_frame["region"].dropna().unique().compute()
        return sorted(map(str, regions))

    def kept(self) -> dd.DataFrame:
        """The recipients to send, lazily, in input order and partitioned like the input:
        ``row``, ``phone_number`` (E.164), ``region``, ``segments``, ``cost`` and a
        ``field:<name>`` text column per dynamic field of the text."""
        return self.kept_frame

    def to_parquet(self, path: str | Path, **options: Any) -> None:
        """Write the per-recipient report to the directory ``path``, one file per partition
        (``options`` go to ``dask.dataframe.to_parquet``)."""
        import pyarrow as pa

        # Partitions' categoricals differ in size (details, texts), so their dictionary index
        # width does too; one width for all keeps the files one dataset.
        wide = pa.dictionary(pa.int32(), pa.large_string())
        meta = self.frame._meta
        schema = {
            str(name): wide
            for name in meta.columns
            if isinstance(meta[name].dtype, pd.CategoricalDtype)
        }
        options.setdefault("schema", schema)
        self.frame.to_parquet(str(path), **options)

    def __repr__(self) -> str:
        return (
            f"DaskPreflightReport(recipients={self.recipients}, to_send={self.to_send}, "
            f"excluded={self.recipients - self.to_send}, errors={len(self.errors)}, "
            f"warnings={len(self.warnings)}, partitions={self.frame.npartitions})"
        )
