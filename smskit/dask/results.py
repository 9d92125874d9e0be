"""What a streamed campaign did, read back without its recipients: totals from the journal's
chunk records, each recipient's outcome as a lazy Dask DataFrame over the staged files.

A campaign sent from Dask partitions may hold tens of millions of recipients: the pandas
:class:`~smskit.campaigns.analysis.results.CampaignResult` reads every one back into the client's
memory. This result reads one row per chunk (what each chunk became: state, ticket, cost),
the gateway's refusals and a count of the recipients kept out; the summary comes from those.
Each recipient's row (the columns and dtypes of ``CampaignResult.to_frame()``) is computed on
the cluster, per staged partition: its recipients' file, the outcomes of its chunks (a
chunk's number follows from the file's row count and the chunk size), and the recipients of
the same input partition kept out. Rows are in input order when the recipients kept and those
kept out are partitioned alike (as :class:`smskit.dask.Campaign` stages them).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

import dask.dataframe as dd
import numpy as np
import pandas as pd
from dask import delayed

from smskit.campaigns.analysis.conversions import recipient_groups, send_instant, with_outcomes
from smskit.campaigns.analysis.lift import Lift, lift_of
from smskit.campaigns.analysis.outcomes import (
    Callbacks,
    Match,
    SendFacts,
    no_hlr,
    outcome_dtypes,
    outcomes_frame,
    still_waiting,
    wait_for_final,
)
from smskit.campaigns.analysis.results import (
    AUDIENCE,
    EXCLUDED_COLUMNS,
    REJECTED_COLUMNS,
    UNSENT_STATES,
    CampaignOutcomes,
    audience,
    chunk_dtypes,
    recipient_rows,
    result_dtypes,
    result_header,
    result_html,
    result_repr,
    summary_frame,
)
from smskit.campaigns.planning.holdout import HELD_OUT
from smskit.campaigns.sending.journal import DONE_STATES, FIELD_PREFIX, Journal
from smskit.dask.conversions import conversions, group_totals
from smskit.dask.stream import frame_of, parts_of, rows_of
from smskit.errors import ConfigurationError
from smskit.rules.links import sent_tokens
from smskit.rules.optouts import OPTED_OUT

if TYPE_CHECKING:
    from smskit.campaigns.analysis.conversions import OrderReading

__all__ = ["StreamedResult"]

_OUTCOMES: Final = (
    "chunk", "start", "stop", "recipients", "request_id", "state", "attempts", "ticket",
    "cost", "cost_estimated", "sms", "kept", "error", "retryable",
)  # fmt: skip


@dataclass(frozen=True, eq=False)
class StreamedResult(CampaignOutcomes[dd.DataFrame]):
    """What a streamed campaign did (:meth:`smskit.dask.Campaign.send`), as the journal says.

    ``summary()``, ``chunks()``, ``complete`` and the repr are computed on the client from one
    row per chunk; ``to_frame()`` and ``not_sent`` are lazy Dask DataFrames (compute them, or
    write them with ``.to_parquet()``), never gathered whole on the client. Recipients whose
    chunk the send has not reached yet (an interrupt, a stop) are ``pending``.
    ``outcomes()`` and ``conversions()`` are lazy too, partition by partition (the callbacks'
    store read once, on the client; predicted costs are not known for a streamed campaign:
    its plan is never read whole); ``lift()`` sums its totals per partition.
    """

    name: str
    campaign_id: str
    journal: Path
    stopped: str | None
    recipients: int
    chunk_size: int
    kept_files: tuple[tuple[Path, int], ...] = field(repr=False)  # (file, rows) in order
    excluded_files: tuple[Path, ...] = field(repr=False)
    chunk_states: pd.DataFrame = field(repr=False)  # one row per chunk the journal holds
    rejected: pd.DataFrame = field(repr=False)  # the gateway's refusals
    excluded: int = 0
    # Recipients on the opt-out list kept out (EXCLUDED_COLUMNS): those left out of a chunk
    # at a resume are in the staged kept files, and shown excluded, not with their chunk.
    opted_out: pd.DataFrame | None = field(default=None, repr=False)
    held_out: int = 0  # of the excluded: the holdout (issue held_out, never sent)

    @classmethod
    def load(cls, journal_path: str | Path) -> StreamedResult:
        """The result as a streamed campaign's journal records it, without sending anything."""
        with Journal(journal_path) as book:
            return cls.from_journal(book)

    @classmethod
    def from_journal(cls, journal: Journal, stopped: str | None = None) -> StreamedResult:
        """Read an open journal's chunk outcomes, refusals and count of recipients kept out."""
        record = journal.held()
        if record.kind != "streamed" or record.parts is None or record.chunk_size is None:
            raise ConfigurationError(
                f"journal {str(journal.path)!r} is not a streamed campaign's: "
                "smskit.CampaignResult.load reads it"
            )
        parts = Path(record.parts)
        kept = parts_of(parts / "kept")
        outcomes = pd.DataFrame(journal.chunk_outcomes(), columns=list(_OUTCOMES))
        return cls(
            *result_header(journal, record, stopped),
            record.chunk_size,
            tuple((path, rows_of(path)) for path in kept),
            tuple(parts_of(parts / "excluded")),
            outcomes,
            pd.DataFrame(journal.rejected(), columns=list(REJECTED_COLUMNS)),
            journal.excluded_count(),
            pd.DataFrame(journal.excluded_for(OPTED_OUT), columns=list(EXCLUDED_COLUMNS)),
            journal.excluded_count(HELD_OUT),
        )

    # -- from the chunk records ------------------------------------------------------------

    def _planned(self) -> pd.DataFrame:
        """Every chunk of the campaign (chunk, recipients), those not reached yet too."""
        sizes: list[int] = []
        for _, rows in self.kept_files:
            full, rest = divmod(rows, self.chunk_size)
            sizes += [self.chunk_size] * full + ([rest] if rest else [])
        return pd.DataFrame({"chunk": np.arange(len(sizes)), "recipients": sizes})

    def _unreached(self) -> int:
        """Recipients in chunks the journal does not hold yet."""
        staged = sum(rows for _, rows in self.kept_files)
        return staged - int((self.chunk_states["stop"] - self.chunk_states["start"]).sum())

    @property
    def complete(self) -> bool:
        """Nothing left to send: every recipient sent, rejected or excluded."""
        held = self.chunk_states
        unsettled = held["state"].isin(UNSENT_STATES) & (held["recipients"] > 0)
        return not unsettled.any() and self._unreached() == 0

    def summary(self) -> pd.DataFrame:
        """One row: recipients per state, chunks, SMS, cost, completeness, journal (the
        columns of ``CampaignResult.summary()``)."""
        held, chunks = self.chunk_states, len(self._planned())
        cost = float(held["cost"].fillna(0.0).sum())
        rejected, unreached = len(self.rejected), self._unreached()
        return summary_frame(self, held, chunks, cost, rejected, self.excluded, unreached)

    def chunks(self) -> pd.DataFrame:
        """One row per chunk (those not reached yet ``pending``): the columns and dtypes of
        ``CampaignResult.chunks()``."""
        held = self.chunk_states.rename(columns={"recipients": "left"})
        frame = self._planned().merge(held, on="chunk", how="left")
        # a chunk the gateway refused recipients of holds the others only
        frame["recipients"] = frame["left"].fillna(frame["recipients"])
        frame["state"] = frame["state"].fillna("pending")
        frame["attempts"] = frame["attempts"].fillna(0)
        frame["cost_estimated"] = frame["cost_estimated"].fillna(0).astype(bool)
        dtypes = chunk_dtypes()
        return frame[list(dtypes)].astype(dtypes)

    # -- per recipient, on the cluster -----------------------------------------------------

    def to_frame(self) -> dd.DataFrame:
        """One row per recipient, lazily (``CampaignResult.to_frame()``'s columns and dtypes):
        row, phone_number, chunk, request_id, ticket, state, segments, cost (its share of the
        chunk's cost, by segments), error."""
        parts = []
        first = start = 0  # the partition's first chunk, and its first row in the result
        for path, rows, out in self._staged():
            count = -(-rows // self.chunk_size)
            mine = self.chunk_states["chunk"].between(first, first + count - 1)
            refused = self.rejected["chunk"].between(first, first + count - 1)
            chunks = self.chunk_states[mine], self.rejected[refused], first, self.chunk_size
            parts.append(delayed(outcomes_partition)(path, out, *chunks, start, self.opted_out))
            first += count
            start += rows + (rows_of(out) if out is not None else 0)
        return frame_of(parts, _empty())

    def _staged(self) -> list[tuple[Path | None, int, Path | None]]:
        """Each staged partition: its kept file and rows, and its excluded file. Kept and
        excluded files pair up when there are as many of each, else each is on its own."""
        kept, excluded = self.kept_files, self.excluded_files
        if len(excluded) == len(kept):
            return [(path, rows, out) for (path, rows), out in zip(kept, excluded, strict=True)]
        return [*((path, rows, None) for path, rows in kept), *((None, 0, o) for o in excluded)]

    def _outcomes(self, callbacks: Callbacks, hlr: Any, match: Match, zone: Any) -> dd.DataFrame:
        with Journal(self.journal) as book:
            facts = SendFacts.read(book, costs=False)
        frame = self.to_frame()
        sent = frame[frame["state"].isin(list(DONE_STATES))]
        dtypes = outcome_dtypes(zone)
        meta = pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in dtypes.items()})
        whole = audience(self.summary())  # every recipient it was for, sent or not
        if callbacks.clicks is None or callbacks.clicks.empty or not self.kept_files:
            return sent.map_partitions(
                _outcomes_of, facts, callbacks, hlr, match, zone, whole, meta=meta
            )
        # Clicks are those on the tokens each partition's staged file sent (two campaigns of
        # one name are two sends); the partitions of ``sent`` are the kept files' first.
        tokens = [delayed(_file_tokens)(path) for path, _ in self.kept_files]
        parts = sent.to_delayed()
        tokens += [frozenset()] * (len(parts) - len(tokens))
        return frame_of(
            [
                delayed(_outcomes_of)(part, facts, callbacks, hlr, match, zone, whole, mine)
                for part, mine in zip(parts, tokens, strict=True)
            ],
            meta,
        )

    def wait_for_outcomes(
        self, inbox: Any = None, *, timeout: float = 60.0, match: Match = "auto"
    ) -> int:
        """``CampaignResult.wait_for_outcomes()``: the same wait (one shared loop), each
        count computed on the cluster."""
        hlr = no_hlr()

        def pending(callbacks: Callbacks) -> int:
            lazy = self._outcomes(callbacks, hlr, match, "UTC")
            return int(still_waiting(lazy).sum().compute())

        return wait_for_final(inbox, timeout, pending)

    # -- what it earned, partition-wise ------------------------------------------------------

    def groups(self) -> dd.DataFrame:
        """``CampaignResult.groups()``, lazily, one partition per staged partition: ``row``,
        ``phone_number``, ``group`` (``treated``: every recipient its chunks hold, the
        gateway's refusals and those left out at a resume aside, as the pandas result
        counts them; ``holdout``: the held out), in row order."""
        gone = set(self.rejected["row"].tolist())
        if self.opted_out is not None:
            gone |= set(self.opted_out["row"].tolist())
        parts = [delayed(_groups_partition)(path, out, gone) for path, _, out in self._staged()]
        return frame_of(parts, _groups_partition(None, None, set()))

    @property
    def sent_at(self) -> pd.Timestamp:
        """When the campaign was sent (UTC): its ``send_at`` if scheduled, else its first
        request; the holdout's would-be send is the same instant."""
        with Journal(self.journal) as book:
            scheduled = book.held().options or {}
            first = book.first_attempt()
        return send_instant(scheduled.get("send_at"), [first])

    def _conversions(
        self, orders: Any, inbox: Any, customer_id: str | None, recipients: Any,
        reading: OrderReading,
    ) -> dd.DataFrame:  # fmt: skip
        """Partition by partition (:func:`smskit.dask.conversions.conversions`); ``inbox``'s
        outcomes joined partition by partition; only the ids of ``recipients`` (pandas,
        pyarrow, polars or Dask) are gathered, by one task that refuses an id two recipients
        share."""
        frame = conversions(
            self.groups(), orders, sent_at=self.sent_at, customer_id=customer_id,
            table=recipients, **reading,
        )  # fmt: skip
        if inbox is None:
            return frame
        outcomes = self.outcomes(inbox)
        seen = outcomes.to_delayed()
        parts = frame.to_delayed()
        if len(seen) != len(parts):  # both follow the staged partitions
            raise AssertionError(f"{len(parts)} conversions partitions, {len(seen)} outcomes")
        meta = with_outcomes(frame._meta, outcomes._meta)
        joined = [delayed(with_outcomes)(p, s) for p, s in zip(parts, seen, strict=True)]
        return frame_of(joined, meta)

    def _lift(self, frame: dd.DataFrame, alpha: float, power: float) -> Lift:
        """The totals summed per partition (:func:`smskit.dask.conversions.group_totals`)."""
        cost = float(self.chunk_states["cost"].fillna(0.0).sum())
        return lift_of(*group_totals(frame), cost=cost or None, alpha=alpha, power=power)

    @property
    def not_sent(self) -> dd.DataFrame:
        """Every recipient not (yet) sent, with its state and why, lazily."""
        frame = self.to_frame()
        mask = ~frame["state"].isin(list(DONE_STATES))
        return frame.loc[mask, ["row", "phone_number", "chunk", "state", "error"]]

    def __repr__(self) -> str:
        return result_repr("StreamedResult", self.name, self.summary())

    def to_html(self) -> str:
        """Summary and the first recipients not sent (found on the cluster), as HTML."""
        summary = self.summary()
        left = int(
            summary[["pending", "in_flight", "failed", "rejected", "excluded"]].iloc[0].sum()
        )
        first = pd.DataFrame(columns=["row", "phone_number", "chunk", "state", "error"])
        if left:
            heads = self.not_sent.map_partitions(lambda part: part.head(10))
            first = heads.compute().sort_values("row").head(10)
        return result_html(summary, first, left)

    def _repr_html_(self) -> str:
        return self.to_html()


def _groups_partition(kept: Path | None, excluded: Path | None, gone: set[int]) -> pd.DataFrame:
    """One staged partition's recipients planned (those ``gone`` aside) and held out."""
    rows, numbers, held = [], [], []
    if kept is not None:
        part = pd.read_parquet(kept, columns=["row", "phone_number"])
        part = part.loc[~part["row"].isin(gone)]
        rows, numbers = part["row"].tolist(), part["phone_number"].tolist()
    if excluded is not None:
        out = pd.read_parquet(excluded, columns=["row", "phone_number", "issue"])
        out = out.loc[out["issue"].astype(object) == HELD_OUT]
        held = list(zip(out["row"].tolist(), out["phone_number"].tolist(), strict=True))
    return recipient_groups(rows, numbers, held)


def _file_tokens(path: Path) -> frozenset[str]:
    """The tokens of the short links a staged partition's link fields hold."""
    part = pd.read_parquet(path)
    columns = [name for name in part.columns if str(name).startswith(FIELD_PREFIX)]
    return sent_tokens(v for name in columns for v in part[name].tolist())


def _outcomes_of(
    sent: pd.DataFrame,
    facts: SendFacts,
    callbacks: Callbacks,
    hlr: Any,
    match: Match,
    zone: Any,
    whole: int,
    tokens: frozenset[str] | None = None,
) -> pd.DataFrame:
    """One partition's outcomes, its ``attrs`` saying the campaign's audience (``whole``):
    every partition says the same, so the computed frame keeps it and the breakdowns state
    the share of the audience they cover, as for ``CampaignResult.outcomes()``. ``tokens``:
    the short links' tokens the partition sent (its clicks are those on them)."""
    if tokens is not None:
        facts = dataclasses.replace(facts, tokens=tokens)
    frame = outcomes_frame(sent, facts, callbacks, hlr, match=match, time_zone=zone)
    frame.attrs[AUDIENCE] = whole
    return frame


def outcomes_partition(
    kept: Path | None,
    excluded: Path | None,
    chunks: pd.DataFrame,
    refused: pd.DataFrame,
    first: int,
    size: int,
    start: int,
    opted_out: pd.DataFrame | None = None,
) -> pd.DataFrame:
    """The outcome of each recipient of one staged partition: its recipients sent in chunks
    ``first``, ``first + 1``... of ``size`` (chunk ``first + i // size`` for the ``i``-th;
    ``chunks``: what those became, ``refused``: the gateway's refusals among them), and its
    recipients kept out, in row order, indexed from ``start`` (its first row's place in the
    whole result). ``opted_out``: the journal's recipients kept out as opted out; those among
    the partition's (left out of their chunk before it was sent, at a resume) are shown
    excluded, not with their chunk."""
    columns = ["row", "phone_number", "segments"]
    part = pd.read_parquet(kept, columns=columns) if kept is not None else _empty()[columns]
    out = [] if excluded is None else [pd.read_parquet(excluded)]
    gone = refused["row"]
    if opted_out is not None and len(opted_out):
        mine = opted_out[opted_out["row"].isin(part["row"])]
        out.append(mine)
        gone = pd.concat([gone, mine["row"]])
    held = pd.DataFrame(
        {"row": part["row"].to_numpy(dtype="int64"), "phone_number": part["phone_number"],
         "chunk": first + np.arange(len(part)) // size,
         "segments": part["segments"].to_numpy(dtype="int64")}
    )  # fmt: skip
    frame = recipient_rows(held.loc[~held["row"].isin(gone)], chunks, refused, *out)
    frame.index += start
    return frame


def _empty() -> pd.DataFrame:
    dtypes = result_dtypes()
    return pd.DataFrame({name: pd.Series(dtype=dtype) for name, dtype in dtypes.items()})
