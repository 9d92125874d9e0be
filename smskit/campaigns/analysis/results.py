"""What a campaign did, read back from its journal: per recipient, per chunk, in one row.

:class:`SendResult` is the one protocol every campaign's result follows: the pandas
campaign's :class:`CampaignResult` (here) and the Dask campaign's
:class:`smskit.dask.StreamedResult` (its frames lazy). What reads a result (the CLI, the
Composer, the ledger's views) asks for a ``SendResult``; ``tests/test_dask_send.py`` holds
both to it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Generic, Protocol, TypeVar, Unpack, runtime_checkable

from smskit.campaigns.analysis.conversions import recipient_groups, send_instant
from smskit.campaigns.planning.holdout import HELD_OUT
from smskit.campaigns.sending.journal import DONE_STATES, Chunk, Journal
from smskit.campaigns.sending.record import CampaignRecord
from smskit.errors import ValidationError
from smskit.rules.choices import checked_column
from smskit.rules.region import DEFAULT_REGION

if TYPE_CHECKING:
    import pandas as pd

    from smskit.campaigns.analysis.conversions import OrderReading
    from smskit.campaigns.analysis.lift import Lift
    from smskit.campaigns.analysis.outcomes import Callbacks, Match

__all__ = [
    "AUDIENCE",
    "EXCLUDED_COLUMNS",
    "JOURNALED_STATES",
    "RECIPIENT_STATES",
    "REJECTED_COLUMNS",
    "RESULT_COLUMNS",
    "UNSENT_STATES",
    "CampaignOutcomes",
    "CampaignResult",
    "ConversionsAndLift",
    "IncompleteSendWarning",
    "SendResult",
    "audience",
    "chunk_dtypes",
    "dropped_note",
    "excluded_error",
    "held_rows",
    "kept_out_rows",
    "recipient_rows",
    "result_dtypes",
    "result_header",
    "result_html",
    "result_repr",
    "shortfall",
    "shortfall_message",
    "summary_frame",
]

FrameT = TypeVar("FrameT")  # a result's frames: pandas, or Dask (lazy)

# The outcomes frame's attrs key holding the size of the campaign's audience.
AUDIENCE: Final = "audience"
# Recipient states of those the send was for and did not (yet) send.
UNSENT_STATES: Final = ("pending", "in_flight", "failed")
# A journaled recipient's state, its chunk's: sent (DONE_STATES) or not (yet).
JOURNALED_STATES: Final = (*DONE_STATES, *UNSENT_STATES)
# Every recipient's state: journaled, or never in a chunk (refused, excluded by preflight).
RECIPIENT_STATES: Final = (*JOURNALED_STATES, "rejected", "excluded")


@runtime_checkable
class SendResult(Protocol):
    """What every campaign's result answers, whichever campaign sent it."""

    @property
    def name(self) -> str: ...
    @property
    def campaign_id(self) -> str: ...
    @property
    def journal(self) -> Path: ...
    @property
    def stopped(self) -> str | None: ...
    @property
    def recipients(self) -> int: ...
    @property
    def complete(self) -> bool: ...
    def summary(self) -> pd.DataFrame: ...
    def chunks(self) -> pd.DataFrame: ...
    def to_frame(self) -> Any: ...
    @property
    def not_sent(self) -> Any: ...
    def outcomes(
        self, inbox: Any = None, *, hlr: Any = None, time_zone: str | None = None,
        match: Match = "auto",
    ) -> Any: ...  # fmt: skip
    def wait_for_outcomes(
        self, inbox: Any = None, *, timeout: float = 60.0, match: Match = "auto"
    ) -> int: ...
    def to_html(self) -> str: ...


class ConversionsAndLift(Generic[FrameT]):
    """``conversions()`` and ``lift()``, the same on every campaign's result (the pandas
    :class:`CampaignResult`, the Dask :class:`smskit.dask.StreamedResult`, an experiment's
    :class:`~smskit.campaigns.experiment.ExperimentResult`): their keywords and checks
    written once. What differs is the frame (a Dask result's is lazy, built partition by
    partition) behind two hooks: ``_conversions`` and ``_lift``."""

    def conversions(
        self,
        orders: Any,
        *,
        inbox: Any = None,
        customer_id: str | None = None,
        recipients: Any = None,
        **reading: Unpack[OrderReading],
    ) -> FrameT:
        """One row per recipient, sent or held out, with its orders in ``window`` from the
        send (``sent_at``, for both groups): ``row``, ``phone_number``, ``group``,
        ``converted``, ``conversions``, ``revenue`` (0 without an order),
        ``first_conversion_at``. ``orders``: any table of orders or events (pandas, pyarrow,
        polars; Dask too for a Dask result) or a CSV or Parquet file's path (a ``str`` or
        ``pathlib.Path``: a CSV's cells read as the texts they hold), read as ``reading`` says
        (:class:`~smskit.campaigns.analysis.conversions.OrderColumns`: ``window="5D"``,
        ``at="ordered_at"``, ``value="amount"``, ``number="phone_number"``,
        ``default_region`` the region the campaign read its recipients' national numbers in,
        so an order's number written as a recipient's was matches it). ``inbox`` adds the
        treated recipients' delivery ``status``, ``replied`` and ``clicked`` (``outcomes()``;
        missing for the holdout).
        ``customer_id`` matches orders by that column instead of numbers: the orders have
        it, and so does ``recipients``, the table the campaign was made from, or its CSV or
        Parquet file's path (row for row; a missing id on either side is refused naming its
        row). See docs/conversions.md."""
        checked_column("customer_id", customer_id, optional=True)
        if customer_id is None and recipients is not None:
            raise ValidationError("recipients", "is read only with customer_id= (its column)")
        if "default_region" not in reading:
            reading = {**reading, "default_region": self._recipients_region()}
        return self._conversions(orders, inbox, customer_id, recipients, reading)

    def lift(
        self,
        orders: Any,
        *,
        alpha: float = 0.05,
        power: float = 0.8,
        customer_id: str | None = None,
        recipients: Any = None,
        **reading: Unpack[OrderReading],
    ) -> Lift:
        """Treated against held out on :meth:`conversions` (same arguments): conversion rate
        and revenue per recipient with intervals, incremental conversions, revenue and ROI
        against the campaign's billed cost, the smallest detectable lift
        (:class:`~smskit.campaigns.analysis.lift.Lift`; ``.table``)."""
        frame = self.conversions(orders, customer_id=customer_id, recipients=recipients, **reading)
        return self._lift(frame, alpha, power)

    def _conversions(
        self, orders: Any, inbox: Any, customer_id: str | None, recipients: Any,
        reading: OrderReading,
    ) -> FrameT:  # fmt: skip
        """The conversions frame (``recipients`` is only given with ``customer_id``)."""
        raise NotImplementedError

    def _lift(self, frame: FrameT, alpha: float, power: float) -> Lift:
        """The lift of the treated on ``frame`` against the campaign's billed cost."""
        raise NotImplementedError

    def _recipients_region(self) -> str | None:
        """The region the campaign read its recipients' national numbers in (None: none)."""
        raise NotImplementedError


class CampaignOutcomes(ConversionsAndLift[FrameT]):
    """One campaign's result (pandas or Dask): ``outcomes()`` written once, besides
    ``conversions()`` and ``lift()``; what differs is how the frame is built from the
    callbacks read (``_outcomes``)."""

    journal: Path

    def _recipients_region(self) -> str | None:
        with Journal(self.journal) as book:
            record = book.record()
        return DEFAULT_REGION if record is None else record.default_region

    def outcomes(
        self,
        inbox: Any = None,
        *,
        hlr: Any = None,
        time_zone: str | None = None,
        match: Match = "auto",
    ) -> FrameT:
        """One row per recipient the gateway accepted, with what came back after the send:
        delivery status (a categorical of the vendor's statuses plus ``pending``), delivery
        time, first reply, opt-out, country, HLR network and line type, cost predicted,
        billed and reported (:data:`smskit.campaigns.analysis.outcomes.OUTCOME_COLUMNS`).

        ``inbox``: the :class:`smskit.Inbox` that received the callbacks, its SQLite file,
        or None for the store ``smskit replies serve`` keeps (``replies.sqlite`` in the
        per-user data directory; refused when there is none). ``hlr``: HLR answers as a
        frame, an HLR cache file, or None for the bulk HLR cache (its answers from this
        campaign's gateway, when it has them). ``match``: ``message_id`` (the sandbox's
        ids), ``number`` (number and time), ``auto`` (the first on a sandbox journal). Times
        in ``time_zone`` (default: the account's). See docs/outcomes.md.
        """
        from smskit.campaigns.analysis.outcomes import Callbacks
        from smskit.rules.timezone import account_time_zone

        zone = account_time_zone(time_zone)
        return self._outcomes(Callbacks.read(inbox), hlr, match, zone)

    def _outcomes(self, callbacks: Callbacks, hlr: Any, match: Match, zone: Any) -> FrameT:
        """The outcomes frame of ``callbacks`` (read), times in ``zone``."""
        raise NotImplementedError


@dataclass(frozen=True)
class CampaignResult(CampaignOutcomes["pd.DataFrame"]):
    """What happened, read back from the journal: per recipient, per chunk, and in one row.

    Recipient ``state``: ``sent``; ``already_accepted`` (the gateway had accepted its chunk
    before: sent once); ``pending`` / ``in_flight`` (not yet / outcome unknown: resume);
    ``failed`` (its chunk failed); ``rejected`` (the gateway refused that recipient);
    ``excluded`` (preflight kept it out, or a send left it out of a chunk not yet sent:
    issue ``opted_out``, docs/optouts.md). The frames are built on first use.
    """

    name: str
    campaign_id: str
    journal: Path
    stopped: str | None = None
    recipients: int = 0
    records: tuple[Chunk, ...] = field(default=(), repr=False)
    rejected: tuple[tuple[int, int, str | None, str], ...] = field(default=(), repr=False)
    excluded: tuple[tuple[int, Any, Any, str, Any], ...] = field(default=(), repr=False)
    numbers: Sequence[str] = field(default=(), repr=False)  # the plan's, by position

    @classmethod
    def load(cls, journal_path: str | Path) -> CampaignResult:
        """The result as a journal records it, without sending anything."""
        with Journal(journal_path) as book:
            return cls.from_journal(book)

    @classmethod
    def from_journal(cls, journal: Journal, *, stopped: str | None = None) -> CampaignResult:
        """Read the chunks, refusals and exclusions of an open journal."""
        return cls(
            *result_header(journal, journal.record(), stopped),
            tuple(journal.chunks()),
            tuple(journal.rejected()),
            tuple(journal.excluded()),
            journal.plan().get("phone_number", []),
        )

    @property
    def complete(self) -> bool:
        """Nothing left to send: every recipient sent, rejected or excluded."""
        return not any(c.size and c.state in UNSENT_STATES for c in self.records)

    @cached_property
    def _recipients_frame(self) -> pd.DataFrame:
        import pandas as pd

        records = self.records
        held = pd.DataFrame(
            {
                "row": [row for c in records for row in c.rows],
                "phone_number": [self.numbers[p] for c in records for p in c.positions],
                "chunk": [c.idx for c in records for _ in c.positions],
                "segments": [segments for c in records for segments in c.segments],
            }
        )
        refused = pd.DataFrame(self.rejected, columns=list(REJECTED_COLUMNS))
        kept_out = pd.DataFrame(self.excluded, columns=list(EXCLUDED_COLUMNS))
        return recipient_rows(held, self._chunks_frame, refused, kept_out)

    @cached_property
    def _chunks_frame(self) -> pd.DataFrame:
        import pandas as pd

        rows = [
            {"chunk": c.idx, "request_id": c.request_id, "state": c.state, "recipients": c.size,
             "attempts": c.attempts, "kept": c.contacts, "ticket": c.ticket, "sms": c.sms,
             "cost": c.cost,
             "cost_estimated": c.cost_estimated, "error": c.error}
            for c in self.records
        ]  # fmt: skip
        dtypes = chunk_dtypes()
        return pd.DataFrame(rows, columns=list(dtypes)).astype(dtypes)

    def to_frame(self) -> pd.DataFrame:
        """One row per recipient: row, phone_number, chunk, request_id, ticket, state, segments,
        cost (its share of the chunk's cost, by segments), error."""
        return self._recipients_frame.copy()

    def chunks(self) -> pd.DataFrame:
        """One row per chunk: request_id, state, recipients, attempts, kept (the gateway's
        number_of_contacts), ticket, sms, cost, error."""
        return self._chunks_frame.copy()

    def _outcomes(self, callbacks: Callbacks, hlr: Any, match: Match, zone: Any) -> pd.DataFrame:
        from smskit.campaigns.analysis.outcomes import SendFacts, outcomes_frame, sent_recipients

        with Journal(self.journal) as book:
            facts = SendFacts.read(book)
        sent = sent_recipients(self._recipients_frame)
        frame = outcomes_frame(sent, facts, callbacks, hlr, match=match, time_zone=zone)
        # The breakdowns say which share of the audience these rows are (docs/outcomes.md).
        frame.attrs[AUDIENCE] = audience(self.summary())
        return frame

    def wait_for_outcomes(
        self, inbox: Any = None, *, timeout: float = 60.0, match: Match = "auto"
    ) -> int:
        """Wait until every recipient the gateway accepted has a final delivery status in
        ``inbox`` (as :meth:`outcomes` would read it), or ``timeout`` seconds; returns how
        many still have none (0: all in). On timeout nothing is raised, but a
        ``UserWarning`` names that count, and :meth:`outcomes` shows those rows ``pending``
        (or ``ACK``). STOPs and replies may come later still: they are not waited for.
        """
        from smskit.campaigns.analysis.outcomes import (
            SendFacts,
            no_hlr,
            outcomes_frame,
            sent_recipients,
            still_waiting,
            wait_for_final,
        )

        with Journal(self.journal) as book:
            facts = SendFacts.read(book, costs=False)
        sent = sent_recipients(self._recipients_frame)
        hlr = no_hlr()

        def pending(callbacks: Any) -> int:
            frame = outcomes_frame(sent, facts, callbacks, hlr, match=match)
            return int(still_waiting(frame).sum())

        return wait_for_final(inbox, timeout, pending)

    @property
    def held_out(self) -> int:
        """Recipients held out (the holdout: issue ``held_out``, never sent)."""
        return sum(issue == HELD_OUT for _row, _raw, _number, issue, _detail in self.excluded)

    def groups(self) -> pd.DataFrame:
        """One row per recipient the plan sends or holds out: ``row``, ``phone_number``,
        ``group`` (``treated`` or ``holdout``). Treated is every planned recipient, whatever
        the gateway did with it (the comparison is of the intention to send)."""
        held = [(r, n) for r, _raw, n, issue, _d in self.excluded if issue == HELD_OUT]
        rows = [row for chunk in self.records for row in chunk.rows]
        numbers = [self.numbers[p] for chunk in self.records for p in chunk.positions]
        return recipient_groups(rows, numbers, held)

    @property
    def sent_at(self) -> pd.Timestamp:
        """When the campaign was sent (UTC): its ``send_at`` if scheduled, else its first
        request; the holdout's would-be send is the same instant."""
        with Journal(self.journal) as book:
            scheduled = book.meta().get("options", {}).get("send_at")
        return send_instant(scheduled, [c.first_attempt_at for c in self.records])

    def _conversions(
        self, orders: Any, inbox: Any, customer_id: str | None, recipients: Any,
        reading: OrderReading,
    ) -> pd.DataFrame:  # fmt: skip
        from smskit.campaigns.analysis.conversions import conversions, customer_ids, with_outcomes

        groups = self.groups()
        groups.index = groups["row"].to_numpy()  # a refusal names the input row
        if customer_id is not None:
            groups[customer_id] = customer_ids(recipients, customer_id, groups["row"])
        frame = conversions(groups, orders, sent_at=self.sent_at, on=customer_id, **reading)
        frame.insert(0, "row", groups["row"].to_numpy())
        if inbox is not None:
            frame = with_outcomes(frame, self.outcomes(inbox))
        return frame

    def _lift(self, frame: pd.DataFrame, alpha: float, power: float) -> Lift:
        from smskit.campaigns.analysis.lift import lift

        cost = sum(c.cost or 0.0 for c in self.records)
        return lift(frame, cost=cost or None, alpha=alpha, power=power)

    @property
    def not_sent(self) -> pd.DataFrame:
        """Every recipient not (yet) sent, with its state and why."""
        frame = self._recipients_frame
        mask = ~frame["state"].isin(DONE_STATES)
        columns = ["row", "phone_number", "chunk", "state", "error"]
        return frame.loc[mask, columns].reset_index(drop=True)

    def summary(self) -> pd.DataFrame:
        """One row: recipients per state, chunks, SMS, cost, completeness, journal."""
        held, cost = self._chunks_frame, sum(c.cost or 0.0 for c in self.records)
        rejected, excluded = len(self.rejected), len(self.excluded)
        return summary_frame(self, held, len(held), cost, rejected, excluded)

    def __repr__(self) -> str:
        return result_repr("CampaignResult", self.name, self.summary())

    def to_html(self) -> str:
        """Summary, chunk states and the first recipients not sent, as HTML."""
        not_sent = self.not_sent
        return result_html(self.summary(), not_sent.head(10), len(not_sent))

    def _repr_html_(self) -> str:
        return self.to_html()


RESULT_COLUMNS: Final[dict[str, Any]] = {
    "row": "int64",
    "phone_number": "string",
    "chunk": "Int64",
    "request_id": "string",
    "ticket": "string",
    "state": "category",  # with RECIPIENT_STATES as categories
    "segments": "Int64",
    "cost": "Float64",
    "error": "string",
}


def held_rows(held: pd.DataFrame, chunks: pd.DataFrame) -> pd.DataFrame:
    """The per-recipient rows of the recipients chunks hold (``held``: ``row``,
    ``phone_number``, ``chunk``, ``segments``), each with its chunk's outcome (``chunks``:
    ``chunk``, ``request_id``, ``ticket``, ``state``, ``recipients``, ``kept``, ``error``,
    ``cost``; a chunk not among them is not reached yet: ``pending``) and its share of the
    chunk's cost, by segments."""
    import pandas as pd

    info = chunks.set_index("chunk")
    done = info["state"].isin(DONE_STATES) & info["kept"].notna()
    dropped = done & (info["kept"] < info["recipients"])
    notes = [
        dropped_note(int(k), int(n)) if d else e
        for k, n, d, e in zip(info["kept"], info["recipients"], dropped, info["error"], strict=True)
    ]
    at = held["chunk"]
    cost, total = at.map(info["cost"]), at.map(held.groupby("chunk")["segments"].sum())
    # the chunk's cost per segment, then times the segments
    share = held["segments"].to_numpy(dtype="float64") * (cost / total).to_numpy(dtype="float64")
    return held.assign(
        request_id=at.map(info["request_id"]),
        ticket=at.map(info["ticket"]),
        state=at.map(info["state"]).fillna("pending"),
        error=at.map(pd.Series(notes, index=info.index, dtype=object)),
        cost=pd.Series(share, index=held.index).where(cost.notna() & (total > 0)),
    )


def recipient_rows(
    held: pd.DataFrame, chunks: pd.DataFrame, refused: pd.DataFrame, *kept_out: pd.DataFrame
) -> pd.DataFrame:
    """The per-recipient frame (:data:`RESULT_COLUMNS`, in row order) of the recipients
    chunks hold (:func:`held_rows` of ``held`` and ``chunks``), those the gateway refused
    (``refused``: :data:`REJECTED_COLUMNS`) and those kept out (:func:`kept_out_rows`)."""
    import pandas as pd

    parts = [held_rows(held, chunks), refused.assign(state="rejected")]
    parts += [kept_out_rows(frame) for frame in kept_out]
    frame = pd.concat(parts, ignore_index=True)[list(RESULT_COLUMNS)]
    return frame.astype(result_dtypes()).sort_values("row", ignore_index=True)


# A journal's refusals and exclusions, as Journal.rejected() and Journal.excluded() give them.
REJECTED_COLUMNS: Final = ("row", "chunk", "phone_number", "error")
EXCLUDED_COLUMNS: Final = ("row", "input", "phone_number", "issue", "detail")


def kept_out_rows(excluded: pd.DataFrame) -> pd.DataFrame:
    """The per-recipient rows of the recipients kept out (``excluded``:
    :data:`EXCLUDED_COLUMNS`): the number, else the value as given, and the issue with its
    detail when known."""
    import pandas as pd

    number = excluded["phone_number"].astype(object)
    shown = number.where(number.notna(), excluded["input"].astype(object))
    details = excluded["detail"].astype(object).where(excluded["detail"].notna(), None)
    return pd.DataFrame(
        {"row": excluded["row"].to_numpy(dtype="int64"),
         "phone_number": [_text(v) for v in shown],
         "state": "excluded",
         "error": [excluded_error(str(i), _text(d)) for i, d in
                   zip(excluded["issue"].astype(object), details, strict=True)]}
    )  # fmt: skip


def _text(value: Any) -> str | None:
    import pandas as pd

    return None if value is None or pd.isna(value) else str(value)


def chunk_dtypes() -> dict[str, Any]:
    """The per-chunk frame's columns and dtypes."""
    import pandas as pd

    return {
        "chunk": "int64",
        "request_id": "string",
        "state": pd.CategoricalDtype(["pending", "in_flight", *DONE_STATES, "failed"]),
        "recipients": "int64",
        "attempts": "int64",
        "kept": "Int64",
        "ticket": "string",
        "sms": "Int64",
        "cost": "Float64",
        "cost_estimated": "bool",
        "error": "string",
    }


def result_dtypes() -> dict[str, Any]:
    """The per-recipient frame's dtypes (``state`` with every recipient state)."""
    import pandas as pd

    return {**RESULT_COLUMNS, "state": pd.CategoricalDtype(list(RECIPIENT_STATES))}


def dropped_note(kept: int | None, size: int) -> str:
    """The error of each recipient of a chunk the gateway kept only part of."""
    return (
        f"gateway_dropped: the gateway kept {kept} of {size} recipients"
        " of this chunk and did not say which"
    )


def excluded_error(issue: str, detail: str | None) -> str:
    """The error of a recipient preflight kept out: its issue, and the detail when known."""
    return f"{issue}: {detail}" if detail else issue


def result_header(
    journal: Journal, record: CampaignRecord | None, stopped: str | None
) -> tuple[str, str, Path, str | None, int]:
    """A result's first fields: name, campaign id, journal path, why it stopped, recipients."""
    if stopped is None:
        stopped = journal.stop_reason()  # as the last run recorded it
    if record is None:
        return "", "", journal.path, stopped, 0
    name, recipients = record.name or "", record.recipients or 0
    return name, record.campaign_id, journal.path, stopped, recipients


def summary_frame(
    result: Any,
    held: pd.DataFrame,
    chunks: int,
    cost: float,
    rejected: int,
    excluded: int,
    unreached: int = 0,
) -> pd.DataFrame:
    """The one-row summary of ``result`` (pandas or Dask: its name, whether it is complete,
    why it stopped, its journal and held-out count) from ``held``, one row per chunk its
    journal holds (``state``, ``recipients``, ``kept``, ``sms``, ``cost_estimated``), of
    ``chunks`` in all (``unreached``: the recipients of those it does not hold yet, pending),
    billed ``cost``, with ``rejected`` and ``excluded`` recipients."""
    import pandas as pd

    state = held["state"].astype(object)
    per_state = held.groupby(state)["recipients"].sum()
    counts = {name: int(per_state.get(name, 0)) for name in JOURNALED_STATES}
    counts["pending"] += unreached
    counts["rejected"], counts["excluded"] = rejected, excluded
    done = state.isin(DONE_STATES) & held["kept"].notna()
    dropped = (held["recipients"] - held["kept"]).where(done, 0).clip(lower=0)
    row: dict[str, Any] = {
        "campaign": result.name,
        "recipients": sum(counts.values()),
        **{state: int(counts[state]) for state in RECIPIENT_STATES},
        **({"held_out": result.held_out} if result.held_out else {}),
        "chunks": chunks,
        "chunks_failed": int((state == "failed").sum()),
        "dropped_by_gateway": int(dropped.sum()),
        "sms": int(held["sms"].fillna(0).sum()),
        "cost": round(cost, 6),
        "cost_estimated": bool(held["cost_estimated"].astype(bool).any()),
        "complete": result.complete,
        "not_sent": sum(int(counts[state]) for state in UNSENT_STATES),
        "stopped": result.stopped,
        "journal": str(result.journal),
    }
    return pd.DataFrame([row])


def result_repr(kind: str, name: str, summary: pd.DataFrame) -> str:
    """``Kind('name', sent=.., excluded=..)``: the states that have recipients, and what
    was not sent and why when the send did not reach everyone."""
    counts = summary.iloc[0]
    shown = ", ".join(
        f"{state}={int(counts[state])}" for state in RECIPIENT_STATES if counts[state]
    )
    short = shortfall(summary)
    tail = "" if short is None else f"; {short[0]} of {short[1]} NOT SENT: {short[2]}"
    return f"{kind}({name!r}, {shown or 'no recipients'}{tail})"


def shortfall(
    summary: pd.DataFrame, chunks: pd.DataFrame | None = None
) -> tuple[int, int, str] | None:
    """(recipients not sent, recipients the send was for, why) of a result's summary (one
    row) when it did not reach everyone, else None. The send was for every recipient but
    those kept out (excluded, held out). Why: the reason the last run stopped, else the
    first error of a chunk not sent (``chunks``: the result's ``chunks()``), else "not
    sent yet"."""
    row = summary.iloc[0]
    missing = int(row["not_sent"])
    if not missing:
        return None
    why = row["stopped"] if isinstance(row["stopped"], str) else None
    if why is None and chunks is not None:
        errors = chunks.loc[chunks["state"].astype(str).isin(UNSENT_STATES), "error"].dropna()
        why = str(errors.iloc[0]) if len(errors) else None
    return missing, audience(summary), why or "not sent yet"


def audience(summary: pd.DataFrame) -> int:
    """The recipients a send was for (a result's summary, one row): all of them but those
    kept out (excluded by preflight or at a resume; ``excluded`` counts the held out too)."""
    row = summary.iloc[0]
    return int(row["recipients"]) - int(row["excluded"])


def shortfall_message(summary: pd.DataFrame, chunks: pd.DataFrame, resume: str) -> str | None:
    """The one line a send that did not reach everyone says: how many, of how many, why,
    and ``resume`` (the call or command that sends the rest); None when it did."""
    short = shortfall(summary, chunks)
    if short is None:
        return None
    missing, audience, why = short
    return f"{missing} of {audience} recipient(s) not sent ({why}): {resume} resumes it"


class IncompleteSendWarning(UserWarning):
    """A send or resume returned without reaching every recipient it was for (credit ran
    out, credentials refused, an interrupt, chunks failed): the message says how many, why,
    and the call that sends the rest. ``result.complete`` is False."""


def result_html(summary: pd.DataFrame, first: pd.DataFrame, not_sent: int) -> str:
    """The summary and the ``first`` recipients not sent (of ``not_sent``), as HTML."""
    from smskit._html import render, shown_record, shown_value

    return render(
        "campaign_result.html",
        summary=shown_record(summary.iloc[0].to_dict()),
        columns=list(first.columns),
        rows=[[shown_value(v) for v in r] for r in first.itertuples(index=False)],
        more=max(not_sent - len(first), 0),
    )
