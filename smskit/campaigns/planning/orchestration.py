"""Preflight, orchestrated once over two audience back ends.

:func:`run_preflight` is the order of the checks every campaign goes through: campaign-level
findings (text, STOP, sender), every recipient checked by the back end (the account's
opt-out list among the checks: :mod:`smskit.rules.optouts`), the gateway's served countries
and prices (asked only for a campaign without error), then the closing findings (marketing
hours per country, fields missing, opted-out recipients sent anyway, a list not read).
Where the recipients are is the back end's: :class:`InMemoryAudience` here (what
:func:`preflight` and :class:`smskit.Campaign` use), a partitioned one in
:mod:`smskit.dask.campaign`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final, Protocol, TypeVar

from smskit.campaigns.planning.audience import NUMBER_BLOCK_ROWS, Audience
from smskit.campaigns.planning.holdout import hold_out
from smskit.campaigns.planning.preflight import (
    PreflightSettings,
    Verdicts,
    audience_for,
    campaign_findings,
    evaluation_instant,
    head_rows,
    priced,
    report_columns,
    samples,
    send_instant,
    verdicts,
)
from smskit.campaigns.planning.report import PreflightOutline, PreflightReport
from smskit.errors import ValidationError
from smskit.rules.caps import SentHistory
from smskit.rules.destinations import Destinations
from smskit.rules.findings import ISSUES, Finding
from smskit.rules.hours import hours_refusals
from smskit.rules.optouts import INCLUDED_COUNT, UNREAD, Suppression
from smskit.rules.recipients import Recipients

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

NO_LIST: Final = Suppression()  # no opt-out list given: nothing excluded, nothing said
NO_HISTORY: Final = SentHistory()  # no history given: nobody at a cap, nothing said

__all__ = [
    "NO_HISTORY",
    "NO_LIST",
    "AudienceBackEnd",
    "FirstPass",
    "InMemoryAudience",
    "OutlineAudience",
    "Verdict",
    "closing_findings",
    "preflight",
    "run_preflight",
]


def preflight(
    recipients: Recipients,
    settings: PreflightSettings,
    *,
    now: datetime | None = None,
    clock: Callable[[], datetime] | None = None,
    block_rows: int = NUMBER_BLOCK_ROWS,
    audience: Audience | None = None,
    suppression: Suppression = NO_LIST,
    history: SentHistory = NO_HISTORY,
) -> PreflightReport:
    """Check every recipient and the campaign; nothing is sent.

    ``audience``: the recipients' half computed before (see :class:`Audience`), reused when
    it is of these recipients and ``settings.default_region``, so only the text's half runs.
    The gateway is not asked which countries it serves (:class:`smskit.Campaign` asks it).
    ``suppression``: the account's opt-out list (default: none given, nothing excluded).
    ``history``: the account's marketing messages the frequency cap
    (``settings.frequency_cap``) counts (default: none given, nobody capped).
    """
    back_end = InMemoryAudience(recipients, audience, block_rows=block_rows)
    instant = evaluation_instant(now, clock)
    return run_preflight(back_end, settings, instant, lambda _: None, suppression, history)


# -- one orchestration, two audience back ends -----------------------------------------------


@dataclass(frozen=True)
class Verdict:
    """What preflight says of the campaign as a whole: its errors and findings, for the
    settings checked, at ``when`` (the send instant)."""

    settings: PreflightSettings
    when: datetime
    errors: tuple[ValidationError, ...]
    findings: tuple[Finding, ...]

    def report_fields(self) -> dict[str, Any]:
        """The keyword arguments every preflight report takes besides its rows."""
        return {
            "errors": self.errors,
            "findings": self.findings,
            "text": self.settings.text,
            "purpose": self.settings.purpose or "wholesale",
            "evaluated_at": self.when,
        }


ReportT = TypeVar("ReportT", covariant=True)


@dataclass(frozen=True)
class FirstPass:
    """What a back end's first pass checks every recipient against: the campaign's
    ``settings``, the preflight's ``instant`` and the send's ``when`` (hours), the fields the
    text ``used``, the opt-out list (``suppressed``, E.164) and the numbers already at the
    frequency cap (``reached``, sorted keys: :func:`smskit.rules.caps.reached`)."""

    settings: PreflightSettings
    instant: datetime
    when: datetime
    used: tuple[str, ...]
    suppressed: frozenset[str] = frozenset()
    reached: np.ndarray | None = None


class AudienceBackEnd(Protocol[ReportT]):
    """Where a campaign's recipients are and how their half of preflight runs: in memory
    (:class:`InMemoryAudience`) or partitioned on a cluster (``smskit.dask``). What is
    checked, and in which order, is :func:`run_preflight`'s alone."""

    def check(self, first: FirstPass) -> None:
        """Check every recipient against ``first.settings`` (hours at ``first.when``) and the
        opt-out list (``first.suppressed``, E.164): the first pass."""

    def samples(self) -> Mapping[str, str]:
        """One sendable number per destination country (what to ask the gateway about)."""

    def settle(self, served: Destinations | None, product: str) -> tuple[Mapping[str, int], int]:
        """With ``served``, exclude the countries not served and price the others; return the
        recipients sendable before prices per country, and how many miss a field."""

    def sent_anyway(self) -> int:
        """Recipients on the opt-out list let through (``include_opted_out``)."""

    def report(self, verdict: Verdict) -> ReportT:
        """The report, once settled, saying ``verdict``."""


def run_preflight(
    back_end: AudienceBackEnd[ReportT],
    settings: PreflightSettings,
    instant: datetime,
    serve: Callable[[Callable[[], Mapping[str, str]]], Destinations | None],
    suppression: Suppression = NO_LIST,
    history: SentHistory = NO_HISTORY,
) -> ReportT:
    """Preflight, the one orchestration: campaign-level findings, the recipients checked by
    ``back_end`` (against the account's opt-out list, ``suppression``, and the frequency cap
    over the account's marketing messages, ``history``), the gateway's served countries and
    prices (``serve(samples)``, asked only when the campaign has no error; None: not
    checked), then the closing findings."""
    errors, found, used = campaign_findings(settings)
    when = send_instant(settings, instant)
    if settings.send_at is not None and datetime.fromisoformat(settings.send_at) < instant:
        # the spec: "The message is sent once that date has passed" (a typo'd day goes now)
        found.append(Finding("send_at_passed", "send_at", None, settings.send_at))
    reached = history.reached(settings.frequency_cap, when)
    back_end.check(FirstPass(settings, instant, when, used, suppression.numbers, reached))
    served = None if errors else serve(back_end.samples)
    counts, missing = back_end.settle(served, settings.product)
    found += closing_findings(counts, settings.purpose, when, missing)
    found += optout_findings(suppression, back_end.sent_anyway())
    if settings.frequency_cap is not None and history.unread is not None:
        found.append(Finding("frequency_cap_unchecked", "frequency_cap", None, history.unread))
    return back_end.report(Verdict(settings, when, tuple(errors), tuple(found)))


def optout_findings(suppression: Suppression, sent_anyway: int) -> list[Finding]:
    """What the campaign says of the opt-out list: recipients on it sent anyway (counted),
    or why it was not read."""
    found = []
    if sent_anyway:
        found.append(Finding(INCLUDED_COUNT, "include_opted_out", None, str(sent_anyway)))
    if suppression.unread is not None:
        found.append(Finding(UNREAD, None, None, suppression.unread))
    return found


def closing_findings(
    counts: Mapping[str, int], purpose: str | None, when: datetime, missing: int
) -> list[Finding]:
    """The campaign's findings about its recipients as a whole: each country whose marketing
    hours refuse ``when`` (``counts``: recipients sendable there), and fields missing."""
    found = []
    for country, reason in hours_refusals(sorted(counts), purpose, when).items():
        said = f"{reason}: {int(counts[country])} recipient(s) would receive a marketing SMS"
        found.append(Finding("hours_refused", None, None, said))
    if missing:
        found.append(Finding("fields_missing", None, None, str(missing)))
    return found


class InMemoryAudience:
    """The in-memory back end: one :class:`Audience` (kept for the next preflight while the
    recipients and region do not change), every recipient's verdicts, and the report frame
    made from them when a report (or the gateway's prices) needs it. ``fields``: the Contact
    fields a new audience reads with the numbers (default: those the text uses)."""

    def __init__(
        self,
        recipients: Recipients,
        audience: Audience | None = None,
        *,
        fields: Sequence[str] | None = None,
        block_rows: int = NUMBER_BLOCK_ROWS,
    ) -> None:
        self.recipients = recipients
        self.audience = audience
        self.fields = fields
        self.block_rows = block_rows
        self._first: FirstPass | None = None
        self._judged: Verdicts | None = None
        self._frame: pd.DataFrame | None = None

    def check(self, first: FirstPass) -> None:
        settings = first.settings
        audience = audience_for(
            self.recipients, settings, self.audience, fields=self.fields, block_rows=self.block_rows
        )
        self.audience = audience
        self._first = first
        self._judged = verdicts(audience, settings, first.used, first.suppressed, first.reached)
        self._frame = None

    @property
    def frame(self) -> pd.DataFrame:
        """The report's frame, made from the verdicts on first use."""
        import pandas as pd

        if self._frame is None:
            first, audience = self._first, self.audience
            assert first is not None and audience is not None and self._judged is not None
            columns = report_columns(audience, first.settings, first.used, first.when, self._judged)
            # The columns are made for the frame (or shared with the audience, which never
            # edits them): no copy, so the peak is one report, not two.
            self._frame = pd.DataFrame(columns, index=audience.index, copy=False)
        return self._frame

    def samples(self) -> Mapping[str, str]:
        return samples(self.frame)

    def settle(self, served: Destinations | None, product: str) -> tuple[Mapping[str, int], int]:
        assert self._judged is not None and self.audience is not None
        regions = self.audience.regions
        sendable = {regions[i]: count for i, count in self._judged.tally.by_region().items()}
        if served is not None:
            priced(self.frame, served, product)
        return sendable, self._judged.missing

    def sent_anyway(self) -> int:
        return 0 if self._judged is None else self._judged.sent_anyway

    def report(self, verdict: Verdict) -> PreflightReport:
        frame = self.frame
        if verdict.settings.holdout is not None:
            hold_out(frame, verdict.settings.holdout, ISSUES)
        return PreflightReport(frame, **verdict.report_fields())

    def outline(self, verdict: Verdict, rows: int) -> PreflightOutline:
        """The report's figures and first ``rows`` rows, read from the verdicts while no
        frame was needed (no prices asked, no holdout); else the report's own."""
        judged, audience = self._judged, self.audience
        assert judged is not None and audience is not None
        if self._frame is not None or verdict.settings.holdout is not None:
            return self.report(verdict).outline(rows)
        tally = judged.tally  # the counts over the recipients, kept while the text excludes no one
        segments = judged.found.segments[judged.found.text]  # per combination
        sending = tally.by_codes(judged.codes, len(segments))
        reached = segments[sending > 0]
        return PreflightOutline(
            len(audience),
            tally.to_send,
            int(sending @ segments.astype("int64")),
            int(reached.max()) if len(reached) else None,
            tally.by_issue,
            head_rows(audience, judged, rows),
            **verdict.report_fields(),
        )


class OutlineAudience:
    """The in-memory back end answering a :class:`PreflightOutline` (the figures, the
    campaign's findings, the first rows) instead of a report: what the Composer shows at
    each keystroke, with no per-recipient frame made unless prices or a holdout need one."""

    def __init__(self, inner: InMemoryAudience, rows: int) -> None:
        self.inner = inner
        self.rows = rows

    def check(self, first: FirstPass) -> None:
        self.inner.check(first)

    def samples(self) -> Mapping[str, str]:
        return self.inner.samples()

    def settle(self, served: Destinations | None, product: str) -> tuple[Mapping[str, int], int]:
        return self.inner.settle(served, product)

    def sent_anyway(self) -> int:
        return self.inner.sent_anyway()

    def report(self, verdict: Verdict) -> PreflightOutline:
        return self.inner.outline(verdict, self.rows)
