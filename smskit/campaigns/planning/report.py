"""What a preflight found: :class:`PreflightReport`, one row per recipient and the campaign's
findings, with its summary, the recipients it excludes and its HTML.

Its columns are compact (categoricals and integers; a rendered text or a message is stored
once per distinct value), so a million recipients' report stays small.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from smskit._html import shown_value
from smskit.campaigns.planning.holdout import HELD_OUT
from smskit.errors import ValidationError
from smskit.rules.findings import ISSUES, Finding

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "HEAD_COLUMNS",
    "OUTLINE_ROWS",
    "RULE_NOTHING_TO_SEND",
    "SUMMARY_TOTALS",
    "CampaignFindings",
    "PreflightOutline",
    "PreflightReport",
    "head_of",
    "head_value",
    "issue_counts",
    "report_totals",
    "summary_row",
]

HEAD_COLUMNS: Final = ("row", "phone_number", "text", "encoding", "segments", "issue")
OUTLINE_ROWS: Final = 5  # the first recipients an outline shows
# The summary's figures that add up across parts of a report (a Dask report's partitions).
SUMMARY_TOTALS: Final = ("recipients", "to_send", "with_warning", "segments", "ucs2")

RULE_NOTHING_TO_SEND = (
    "no recipient can be sent (none was given, or every one is excluded: see "
    "report.excluded for why); a send would reach nobody"
)


@dataclass(frozen=True, kw_only=True)
class CampaignFindings:
    """The campaign-level half of a preflight report, shared by the pandas and Dask reports
    and the outline: ``errors`` stop the send, ``findings`` are warnings kept as data. A
    report where no recipient can be sent is not ``ok`` either (:data:`RULE_NOTHING_TO_SEND`):
    a send would reach nobody."""

    errors: tuple[ValidationError, ...] = ()
    findings: tuple[Finding, ...] = ()
    text: str = ""
    purpose: str = "wholesale"
    evaluated_at: datetime | None = None  # when the hours were checked (send_at or the clock)

    def campaign_fields(self) -> dict[str, Any]:
        """This half's fields, as the keywords of another report of the same preflight."""
        return {f.name: getattr(self, f.name) for f in fields(CampaignFindings)}

    def hours_refusals(self) -> list[str]:
        """Why marketing is refused now: each destination outside its hours (finding
        ``hours_refused``); empty when the hours allow the send."""
        return [f.message() for f in self.findings if f.code == "hours_refused"]

    def sending_regions(self) -> list[str]:
        """The destination countries of the recipients to send (each report reads them its
        way)."""
        raise NotImplementedError

    @property
    def recipients(self) -> int:
        """Rows read (each report counts them its way)."""
        raise NotImplementedError

    @property
    def to_send(self) -> int:
        """Recipients that pass every check (each report counts them its way)."""
        raise NotImplementedError

    @property
    def warnings(self) -> tuple[str, ...]:
        """The campaign-level warnings in words (``findings`` holds them as data)."""
        return tuple(finding.message() for finding in self.findings)

    def blocking_findings(self) -> tuple[Finding, ...]:
        """The campaign-level findings that stop the send, as data (each with its code):
        ``holdout_takes_all`` when the holdout
        holds out every recipient that could be sent (``holdout=5`` of 5, a share of 0.999),
        said by preflight before any send is tried."""
        if self.to_send:
            return ()
        held = int(self.issues().get(HELD_OUT, 0))
        return (Finding("holdout_takes_all", "holdout", None, f"all {held}"),) if held else ()

    def blocking(self) -> tuple[ValidationError, ...]:
        """The errors that stop the send: ``errors``, the :meth:`blocking_findings`, and,
        when no recipient can be sent for another reason, one more."""
        if self.to_send:
            return self.errors
        found = self.blocking_findings()
        if found:
            return (
                *self.errors,
                *(ValidationError(f.field or "campaign", f.message()) for f in found),
            )
        read = f"{self.recipients} recipient(s) read, {self.recipients} excluded"
        return (*self.errors, ValidationError("recipients", RULE_NOTHING_TO_SEND, value=read))

    def issues(self) -> pd.Series:
        """Excluded recipients per issue (every issue listed, zeros included; each report
        counts them its way)."""
        raise NotImplementedError

    @property
    def ok(self) -> bool:
        """No campaign-level error: the recipients without an issue can be sent."""
        return not self.blocking()

    def raise_for_errors(self) -> None:
        """Raise the first campaign-level error (a ``ValidationError``), if any."""
        blocking = self.blocking()
        if blocking:
            raise blocking[0]


@dataclass(frozen=True)
class PreflightReport(CampaignFindings):
    """What preflight found: one row per recipient (``to_frame()``) and campaign-level findings.

    ``errors`` stop the whole send (``ValidationError`` objects naming field and rule);
    ``warnings`` are said, not enforced. Recipients with an ``issue`` are excluded.
    """

    frame: pd.DataFrame = field(repr=False)

    @property
    def recipients(self) -> int:
        """Rows read."""
        return len(self.frame)

    @property
    def to_send(self) -> int:
        """Recipients that pass every check."""
        return int(self.frame["send"].sum())

    @property
    def segments(self) -> int:
        """SMS segments of the recipients to send."""
        return report_totals(self.frame)["segments"]

    def sending_regions(self) -> list[str]:
        """The destination countries of the recipients to send."""
        frame = self.frame
        return sorted(map(str, frame.loc[frame["send"], "region"].dropna().unique()))

    def outline(self, rows: int = OUTLINE_ROWS) -> PreflightOutline:
        """This report's figures and first ``rows`` rows (:data:`HEAD_COLUMNS`), without the
        frame."""
        frame, totals = self.frame, report_totals(self.frame)
        segments = frame["segments"].to_numpy()[frame["send"].to_numpy(dtype=bool)]
        return PreflightOutline(
            totals["recipients"],
            totals["to_send"],
            totals["segments"],
            int(segments.max()) if len(segments) else None,
            tuple(int(count) for count in self.issues().to_numpy()),
            head_of(frame.iloc[:rows]),
            **self.campaign_fields(),
        )

    def to_frame(self) -> pd.DataFrame:
        """One row per recipient (a copy): number, line type, text, segments, issue, warning."""
        return self.frame.copy()

    @property
    def excluded(self) -> pd.DataFrame:
        """The recipients excluded from sending, with their issue and its detail."""
        return self.frame.loc[~self.frame["send"]].copy()

    def issues(self) -> pd.Series:
        """Excluded recipients per issue (every issue listed, zeros included)."""
        return issue_counts(self.frame["issue"].value_counts())

    def summary(self) -> pd.DataFrame:
        """One row: recipients, to send, excluded per issue, warnings, segments, UCS-2 texts."""
        row = summary_row(report_totals(self.frame), self.issues())
        row["errors"], row["ok"] = len(self.blocking()), self.ok
        return row

    def __repr__(self) -> str:
        return (
            f"PreflightReport(recipients={self.recipients}, to_send={self.to_send}, "
            f"excluded={self.recipients - self.to_send}, errors={len(self.blocking())}, "
            f"warnings={len(self.warnings)})"
        )

    def to_html(self) -> str:
        """Summary, issues, campaign findings and the first excluded rows, as HTML."""
        from smskit._html import render

        excluded = self.frame.loc[~self.frame["send"]].head(10)
        columns = ["row", "input", "phone_number", "line_type", "issue", "detail"]
        rows = [[shown_value(v) for v in record] for record in excluded[columns].itertuples(False)]
        return render(
            "campaign_preflight.html",
            summary=self.summary().iloc[0].to_dict(),
            issues=list(self.issues().items()),
            errors=[str(error) for error in self.blocking()],
            warnings=list(self.warnings),
            columns=columns,
            rows=rows,
            more=max(int((~self.frame["send"]).sum()) - len(rows), 0),
        )

    def _repr_html_(self) -> str:
        return self.to_html()


def report_totals(frame: pd.DataFrame) -> dict[str, int]:
    """A report frame's :data:`SUMMARY_TOTALS`: rows read, recipients to send, those of them
    with a warning, their SMS segments and those of them in UCS-2. Each is a sum over rows, so
    the totals of a frame's parts add up to the frame's."""
    sending = frame["send"].to_numpy(dtype=bool)
    return {
        "recipients": len(frame),
        "to_send": int(sending.sum()),
        "with_warning": int((frame["warning"].notna().to_numpy() & sending).sum()),
        "segments": int(frame["segments"].to_numpy(dtype="int64")[sending].sum()),
        "ucs2": int(((frame["encoding"] == "UCS-2").to_numpy() & sending).sum()),
    }


def issue_counts(counts: pd.Series) -> pd.Series:
    """Excluded recipients per issue from the counts of the issues found (a ``value_counts``
    of the ``issue`` column, or the sum of its parts'): every issue of ``ISSUES`` listed in
    that order, zeros included, as ``int64`` named ``recipients`` over an index ``issue``."""
    counts = counts.reindex(list(ISSUES), fill_value=0).astype("int64")
    counts.name = "recipients"
    counts.index.name = "issue"
    return counts


def summary_row(totals: dict[str, int], issues: pd.Series) -> pd.DataFrame:
    """A report's one-row summary from its :func:`report_totals` and :func:`issue_counts`,
    without the verdict (``errors``, ``ok``: the report's :meth:`~CampaignFindings.blocking`
    adds them as the last two columns)."""
    import pandas as pd

    row: dict[str, Any] = {
        "recipients": totals["recipients"],
        "to_send": totals["to_send"],
        "excluded": totals["recipients"] - totals["to_send"],
        **{str(issue): int(count) for issue, count in issues.items()},
        "with_warning": totals["with_warning"],
        "segments": totals["segments"],
        "ucs2": totals["ucs2"],
    }
    return pd.DataFrame([row])


def head_of(head: pd.DataFrame) -> tuple[dict[str, Any], ...]:
    """The first rows of a report's frame as an outline holds them (:data:`HEAD_COLUMNS`)."""
    return tuple(
        {name: head_value(value) for name, value in zip(HEAD_COLUMNS, record, strict=True)}
        for record in head[list(HEAD_COLUMNS)].itertuples(index=False)
    )


def head_value(value: Any) -> Any:
    """A frame's cell as an outline's first rows hold it: None when missing, a Python
    scalar otherwise."""
    from smskit.rules.missing import is_missing

    if is_missing(value):
        return None
    return value.item() if hasattr(value, "item") else value


@dataclass(frozen=True)
class PreflightOutline(CampaignFindings):
    """A preflight without its per-recipient frame: how many recipients were read
    (``read``) and can be sent (``sendable``), the SMS they take (``segments``) and the most
    one of them takes (``worst_case``; None: nobody to send), the recipients excluded per
    issue (``excluded_by``, in the order of ``ISSUES``), the first rows (``head``, as dicts
    of :data:`HEAD_COLUMNS`) and the campaign's findings. What the Composer shows at
    each keystroke (:meth:`smskit.Campaign.preflight_outline`); the same figures as the
    :class:`PreflightReport` of the same preflight (:meth:`PreflightReport.outline`)."""

    read: int
    sendable: int
    segments: int
    worst_case: int | None
    excluded_by: tuple[int, ...]
    head: tuple[dict[str, Any], ...]

    @property
    def recipients(self) -> int:
        """Rows read."""
        return self.read

    @property
    def to_send(self) -> int:
        """Recipients that pass every check."""
        return self.sendable

    def issues(self) -> pd.Series:
        """Excluded recipients per issue (every issue listed, zeros included), as
        :meth:`PreflightReport.issues`."""
        import pandas as pd

        return issue_counts(pd.Series(self.excluded_by, index=list(ISSUES)))

    def excluded(self, issue: str) -> int:
        """Recipients excluded for ``issue`` (one of ``ISSUES``): :meth:`issues`'s count,
        read without making a Series (the Composer asks at each keystroke)."""
        return self.excluded_by[ISSUES.index(issue)]

    def sending_regions(self) -> list[str]:
        """Not in an outline: the report (:meth:`smskit.Campaign.preflight`) has them."""
        raise NotImplementedError("an outline holds no regions: use Campaign.preflight()")

    def __repr__(self) -> str:
        return (
            f"PreflightOutline(recipients={self.read}, to_send={self.sendable}, "
            f"segments={self.segments}, errors={len(self.blocking())}, "
            f"warnings={len(self.warnings)})"
        )
