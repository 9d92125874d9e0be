"""Each sent recipient's outcome: the campaign's journal joined to the callbacks' store.

One row per recipient the gateway accepted (journal state ``sent`` or ``already_accepted``):
its message's standing delivery status (as the :class:`smskit.Inbox` ranks a message's
reports, :func:`smskit.rules.callbacks.status_tier`: read, never ranked again here), the
delivery time, the first reply, whether it opted out, its country (from the number, by the
rule book), network and line type (from the bulk HLR cache, when it holds the number), and
its cost three ways: predicted by preflight, billed (the chunk's cost shared by segments),
reported (the delivery report's ``unit_price`` times the segments). Decisions:
docs/outcomes.md.

Which message is a recipient's (``match``): on the sandbox, the report's ``message_id`` is
``<ticket>-<digits>`` (:func:`smskit.rules.callbacks.report_message_id`), an exact key. The
real gateway's ``message_id`` is opaque, so there a recipient's message is the first one of
its number whose report is dated from :data:`CLOCK_SLACK` before its send to
:data:`MATCH_WINDOW` after. ``"auto"`` takes the first on a journal the sandbox wrote.

Pure pandas, column-wise; the pandas result calls :func:`outcomes_frame` on its recipients,
the Dask result on each partition of them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, Literal

from smskit.campaigns.analysis.clicks import CLICK_COLUMNS, click_columns
from smskit.campaigns.sending.journal import DONE_STATES, FIELD_PREFIX, Journal
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies.analytics import link_replies, number_keys
from smskit.replies.inbox import Inbox
from smskit.rules.callbacks import FINAL_STATUSES, OUTCOME_STATUSES, report_message_id
from smskit.rules.choices import checked_choice
from smskit.rules.fields import DYNAMIC_FIELDS
from smskit.rules.links import sent_tokens
from smskit.rules.ranges import checked_seconds

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "AMBIGUOUS",
    "CLOCK_SLACK",
    "MATCH_WINDOW",
    "OUTCOME_COLUMNS",
    "POLL_S",
    "SKEW_UNSEEN",
    "Callbacks",
    "Match",
    "SendFacts",
    "gateway_times",
    "no_hlr",
    "open_inbox",
    "outcome_dtypes",
    "outcomes_frame",
    "sent_recipients",
    "sent_times",
    "still_waiting",
    "wait_for_final",
]

Match = Literal["auto", "message_id", "number"]
MATCHES: Final = ("auto", "message_id", "number")
# A report dated this much before the journal's send time still counts (the gateway's
# clock and ours are not the same clock).
CLOCK_SLACK: Final = 300.0  # seconds
# A gap between our clock and the gateway's answer's Date (whole seconds, stamped before the
# answer travelled) this small is not read as a skew: our finer time is kept.
SKEW_UNSEEN: Final = 2.5  # seconds
# How often wait_for_final reads the callbacks' store again.
POLL_S: Final = 0.25  # seconds
READ_SHARE_PAUSE: Final = 4.0  # the pause after a read, at least, in multiples of its time
# How long after its send a message's reports and STOP are looked for (match="number").
MATCH_WINDOW: Final = 72 * 3600.0  # seconds
# The flag of a recipient matched by number and time whose number has more than one message
# in its match window: which one is its own cannot be told, so none is joined to it.
AMBIGUOUS: Final = "ambiguous_match"

OUTCOME_COLUMNS: Final = (
    "row", "phone_number", "ticket", "message_id", "sent_at", "status", "status_raw",
    "final", "delivery_date", "time_to_delivery", "reports", "flags", "flagged", "replied",
    "replies", "reply_text", "reply_date", "opt_out", "opt_out_date", "country", "network",
    "line_status", "phone_number_type", "segments", "predicted_cost", "billed_cost",
    "reported_cost", *CLICK_COLUMNS,
)  # fmt: skip
_TIMES: Final = ("sent_at", "delivery_date", "reply_date", "opt_out_date", "first_click_date")


def outcome_dtypes(time_zone: Any = "UTC") -> dict[str, Any]:
    """The outcomes frame's columns and dtypes (times in ``time_zone``)."""
    import pandas as pd

    from smskit.client.dtypes import LINE_STATUS_DTYPE, PHONE_NUMBER_TYPE_DTYPE

    moment = pd.DatetimeTZDtype("ns", time_zone)
    return {
        "row": "int64",
        "phone_number": "string",
        "ticket": "string",
        "message_id": "string",
        "sent_at": moment,
        "status": pd.CategoricalDtype(list(OUTCOME_STATUSES)),
        "status_raw": "string",
        "final": "bool",
        "delivery_date": moment,
        "time_to_delivery": "timedelta64[ns]",
        "reports": "int64",
        "flags": "string",
        "flagged": "bool",
        "replied": "bool",
        "replies": "int64",
        "reply_text": "string",
        "reply_date": moment,
        "opt_out": "bool",
        "opt_out_date": moment,
        "country": "string",
        "network": "string",
        "line_status": LINE_STATUS_DTYPE,
        "phone_number_type": PHONE_NUMBER_TYPE_DTYPE,
        "segments": "Int64",
        "predicted_cost": "Float64",
        "billed_cost": "Float64",
        "reported_cost": "Float64",
        "clicks": "int64",
        "clicked": "bool",
        "first_click_date": moment,
        "bot_clicks": "int64",
        "bot_reasons": "string",
    }


# -------------------------------------------------------------------------- what is read


def open_inbox(inbox: Any) -> Inbox:
    """``inbox`` as an :class:`Inbox`: one given, the file at a path, or (None) the store
    ``smskit replies serve`` keeps by default (:func:`smskit._paths.replies_path`)."""
    if isinstance(inbox, Inbox):
        return inbox
    if inbox is None:
        from smskit._paths import replies_path

        path = replies_path()
    elif isinstance(inbox, str | os.PathLike) and str(inbox) not in ("", "."):
        path = Path(inbox)
    else:
        raise ValidationError(
            "inbox", "must be an smskit.Inbox, the path of its file, or None", value=inbox
        )
    if not path.is_file():
        raise ConfigurationError(
            f"no callbacks' store at {str(path)!r}: pass inbox= (an smskit.Inbox, or the file "
            "`smskit replies serve --path` keeps); without it no outcome can be known"
        )
    if path.stat().st_size == 0:  # read here: never made into a store (SQLite would)
        raise ConfigurationError(
            f"{str(path)!r} is an empty file, not a callbacks' store (left empty): pass the "
            "file `smskit replies serve --path` keeps; without it no outcome can be known"
        )
    return Inbox(path)


@dataclass(frozen=True)
class Callbacks:
    """What the callbacks' store holds, read once, times in UTC: each message's standing
    report, the unit price its reports gave, what was flagged in any of its reports, the
    replies and the STOPs."""

    status: pd.DataFrame
    prices: pd.Series  # message_id -> unit_price (its first report giving one)
    flags: pd.Series  # message_id -> the flags of all its reports, sorted, comma-separated
    replies: pd.DataFrame
    stops: pd.DataFrame
    account: tuple[str, str] | None = None  # whose callbacks (Inbox.account), None: not said
    clicks: pd.DataFrame | None = None  # requests on tracked links (Inbox.clicks), UTC

    def serves(self, gateway: tuple[str, str] | None) -> bool:
        """Whether these callbacks may be a journal's on ``gateway``: the inbox's account is
        that one, or one of the two is not known."""
        return self.account is None or gateway is None or self.account == gateway

    @classmethod
    def read(cls, inbox: Any) -> Callbacks:
        """From an :class:`Inbox`, its file, or None (see :func:`open_inbox`)."""
        box = open_inbox(inbox)
        reports = box.delivery_reports("UTC")
        priced = reports[reports["message_id"].notna() & reports["unit_price"].notna()]
        prices = priced.groupby("message_id", sort=False)["unit_price"].first()
        flagged = reports[reports["message_id"].notna() & reports["flagged"]]
        flags = flagged.groupby("message_id", sort=False)["flags"].agg(_union)
        return cls(
            box.delivery_status("UTC"), prices, flags, box.to_frame("UTC"), box.stops("UTC"),
            box.account, box.clicks(time_zone="UTC"),
        )  # fmt: skip


def _union(flags: pd.Series) -> str:
    return ",".join(sorted({code for text in flags for code in text.split(",") if code}))


@dataclass(frozen=True)
class SendFacts:
    """What the journal says about each recipient's send: when each chunk was accepted,
    the scheduled time, the gateway, and each row's predicted cost (when recorded)."""

    accepted: Mapping[int, float]  # chunk -> Unix seconds, the gateway's (gateway_times)
    send_at: str | None = None  # ISO text, as the plan keeps it
    gateway: tuple[str, str] | None = None  # (base URL, login): whose HLR answers apply
    sandbox: bool = False
    predicted: Mapping[int, float] = field(default_factory=dict)  # row -> EUR
    # Sent with_replies: only then can a reply answer it (spec, Events: the inbound SMS
    # callback is for "a message sent with with_replies=true"). Unknown (a journal that
    # records no options): True, replies linked as before.
    with_replies: bool = True
    name: str | None = None  # the campaign's (its tracked links are registered under it)
    # The tokens of the short links its journal's payload carries: its clicks are those on
    # them (two campaigns of one name have their own). None: unknown (a streamed journal,
    # whose chunks are staged in files): clicks go by the name alone.
    tokens: frozenset[str] | None = None

    @classmethod
    def read(cls, journal: Journal, *, costs: bool = True) -> SendFacts:
        """From an open journal (any format this smskit reads: the times come from its log).

        ``costs``: read the predicted costs from the plan (False for a streamed campaign,
        whose plan is never read whole: its predicted costs stay unknown; its chunks' plans,
        added as it streams, hold none).
        """
        record = journal.held()
        gateway = record.gateway
        plan = journal.plan_columns("row", "predicted_cost") if costs else {}
        predicted = {
            row: float(cost)
            for row, cost in zip(plan.get("row", ()), plan.get("predicted_cost", ()), strict=False)
            if isinstance(cost, int | float)
        }
        options = record.options
        tokens = None
        if record.kind == "planned":
            columns = journal.plan_columns(*(FIELD_PREFIX + name for name in DYNAMIC_FIELDS))
            tokens = sent_tokens(v for column in columns.values() for v in column)
        return cls(
            gateway_times(journal.sent_at(), journal.answered()),
            (options or {}).get("send_at"),
            gateway.account if gateway is not None and gateway.api_login else None,
            gateway is not None and gateway.sandbox,
            predicted,
            True if options is None else bool(options.get("with_replies")),
            record.name,
            tokens,
        )

    def by_message_id(self, match: Any) -> bool:
        """Whether ``match`` (checked here) joins on the sandbox's message ids."""
        checked_choice("match", match, MATCHES)
        return self.sandbox if match == "auto" else match == "message_id"


def gateway_times(
    local: Mapping[int, float], answered: Mapping[int, tuple[float, float]]
) -> dict[int, float]:
    """When each chunk was accepted by the gateway's clock, the one its reports are dated
    by: ``local`` (:meth:`Journal.sent_at`, our clock) moved by how far the gateway's clock
    stood from ours when its accepting answer came (``answered``: :meth:`Journal.answered`).

    The answer's HTTP Date is whole seconds, stamped before the answer reached us: a skew
    under :data:`SKEW_UNSEEN` cannot be told from that and our (finer) time is kept; beyond
    it, the chunk is put at the middle of the gateway's second. A chunk with no dated
    answer (accepted by an earlier attempt whose answer was lost) is moved by the median of
    the others' offsets; a journal with none (written before they were recorded, or a
    gateway that sends no Date) keeps our clock, as before.
    """
    import statistics

    offsets = {chunk: 0.0 if abs(ours - theirs - 0.5) <= SKEW_UNSEEN else theirs + 0.5 - ours
               for chunk, (theirs, ours) in answered.items()}  # fmt: skip
    usual = statistics.median(offsets.values()) if offsets else 0.0
    return {chunk: at + offsets.get(chunk, usual) for chunk, at in local.items()}


def wait_for_final(inbox: Any, timeout: Any, pending: Callable[[Callbacks], int]) -> int:
    """Read the callbacks' store every :data:`POLL_S` (or four times as long as the shorter
    of the last two reads took, when that is longer: the first read pays one-time costs,
    imports and the store's first open, and says nothing of the next) until ``pending``
    (how many accepted recipients have no final status yet, given the callbacks) is 0 or
    ``timeout`` seconds passed; returns that count. Time running out is not an error (a
    report may never come: a kept-back one, a dropped recipient), nor is it silent: a
    :class:`UserWarning` names how many are still waiting."""
    import time
    import warnings

    timeout = checked_seconds("timeout", timeout)
    box = open_inbox(inbox)
    deadline = time.monotonic() + timeout
    last = 0.0  # no read before the first: its pause is POLL_S
    while True:
        began = time.monotonic()
        left = pending(Callbacks.read(box))
        spent = time.monotonic() - began
        remaining = deadline - time.monotonic()
        if left == 0 or remaining <= 0:
            break
        # A read builds the whole outcomes frame: at most a fifth of the wait goes to reading,
        # so a big campaign's wait leaves the CPU to the callbacks it waits for.
        time.sleep(min(max(POLL_S, READ_SHARE_PAUSE * min(spent, last)), remaining))
        last = spent
    if left:
        warnings.warn(
            f"{left} accepted recipient(s) still have no final delivery status after "
            f"{timeout:g} s: their outcome rows stay pending (or ACK)",
            UserWarning,
            stacklevel=3,
        )
    return left


def still_waiting(frame: Any) -> Any:
    """The rows of an outcomes frame (pandas, or Dask: lazily) a wait for final statuses
    waits for: not final, and not ``AMBIGUOUS`` (a row that cannot be matched will not be
    by waiting)."""
    return ~frame["final"] & (frame["flags"] != AMBIGUOUS)


def no_hlr() -> pd.DataFrame:
    """HLR answers that know no number (what counting final statuses needs of them)."""
    import pandas as pd

    names = ("phone_number", "network_name", "line_status", "phone_number_type")
    return pd.DataFrame({name: pd.Series(dtype=object) for name in names})


def sent_recipients(recipients: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``CampaignResult.to_frame()`` the gateway accepted."""
    return recipients[recipients["state"].isin(DONE_STATES)]


# ------------------------------------------------------------------------------ the join


def outcomes_frame(
    sent: pd.DataFrame,
    facts: SendFacts,
    callbacks: Callbacks,
    hlr: Any = None,
    *,
    match: Match = "auto",
    time_zone: Any = "UTC",
) -> pd.DataFrame:
    """One row per recipient of ``sent`` (rows of ``to_frame()`` the gateway accepted: row,
    phone_number, chunk, ticket, segments, cost): :data:`OUTCOME_COLUMNS`.

    ``hlr``: a frame of HLR answers (``phone_number``, ``network_name``, ``line_status``,
    ``phone_number_type``), the path of an HLR cache, or None for the default cache (read
    only if it exists).
    """
    import pandas as pd

    if not callbacks.serves(facts.gateway):
        assert callbacks.account is not None and facts.gateway is not None
        raise ConfigurationError(
            f"the inbox receives the callbacks of {callbacks.account[0]} as "
            f"{callbacks.account[1]!r}; this campaign was sent through {facts.gateway[0]} as "
            f"{facts.gateway[1]!r}: its outcomes are in that account's inbox"
        )
    by_id = facts.by_message_id(match)
    sent = sent.reset_index(drop=True)
    numbers = sent["phone_number"].astype(object)
    tickets = sent["ticket"].astype(object)
    sent_at = sent_times(sent["chunk"], facts)
    keys = number_keys(numbers.fillna(""))
    out = pd.DataFrame(
        {"row": sent["row"].to_numpy(), "phone_number": numbers, "ticket": tickets,
         "sent_at": sent_at}
    )  # fmt: skip

    status = callbacks.status
    ids = _own_ids(tickets, numbers, by_id)
    found = _messages(status, ids, keys, sent_at)
    out["message_id"] = found
    ambiguous = found.attrs.get(AMBIGUOUS, [])
    standing = status.set_index("message_id").reindex(found.to_numpy())
    _delivery(out, standing)
    if callbacks.clicks is not None:
        click_columns(out, standing, callbacks.clicks, facts.name, tokens=facts.tokens)
    else:
        out["clicks"], out["clicked"], out["bot_clicks"] = 0, False, 0
        out["first_click_date"], out["bot_reasons"] = pd.NaT, ""
    flags = callbacks.flags.reindex(found.to_numpy()).astype(object)
    out["flags"] = flags.where(flags.notna(), "").to_numpy()
    out.loc[ambiguous, "flags"] = AMBIGUOUS
    out["flagged"] = out["flags"] != ""

    _replies_and_stops(out, keys, ids, callbacks, replies=facts.with_replies)
    out["country"] = _countries(numbers)
    network = _hlr(hlr, facts, numbers)
    for column, source in (("network", "network_name"), ("line_status", "line_status"),
                           ("phone_number_type", "phone_number_type")):  # fmt: skip
        out[column] = network[source].to_numpy() if network is not None else None
    segments = sent["segments"].astype("Float64").to_numpy()
    out["segments"] = sent["segments"].to_numpy()
    out["predicted_cost"] = sent["row"].map(facts.predicted).to_numpy()
    out["billed_cost"] = _billed(sent, out["predicted_cost"])
    price = callbacks.prices.reindex(found.to_numpy()).to_numpy(dtype="float64")
    out["reported_cost"] = pd.array(price, dtype="Float64") * segments
    return _typed(out, time_zone)


def _billed(sent: pd.DataFrame, predicted: pd.Series) -> Any:
    """Each message's share of its chunk's bill (the send answer gives one cost a chunk):
    in proportion to preflight's prices when the chunk has one for every recipient (so a
    chunk mixing countries bills each at its price), else by segments (``to_frame()``'s
    ``cost``)."""
    import numpy as np
    import pandas as pd

    shares = sent["cost"].astype("float64").to_numpy()
    prices = predicted.astype("float64").to_numpy()
    frame = {"chunk": sent["chunk"].to_numpy(), "share": shares, "price": prices}
    by_chunk = pd.DataFrame(frame).groupby("chunk")
    bill = by_chunk["share"].transform("sum").to_numpy()
    priced = by_chunk["price"].transform(lambda p: p.notna().all()).to_numpy(dtype=bool)
    total = by_chunk["price"].transform("sum").to_numpy()
    fair = priced & (total > 0) & ~np.isnan(shares)
    spread = np.divide(bill * prices, total, out=np.full(len(bill), np.nan), where=fair)
    return pd.array(np.where(fair, spread, shares), dtype="Float64")


def _own_ids(tickets: pd.Series, numbers: pd.Series, by_id: bool) -> pd.Series:
    """Each recipient's own message id, where the journal tells it (the sandbox's ids and
    a known ticket), whether or not any callback came for it; None elsewhere."""
    import pandas as pd

    if not by_id:
        return pd.Series(None, index=range(len(numbers)), dtype=object)
    return pd.Series(
        [report_message_id(t, n) if isinstance(t, str) and isinstance(n, str) else None
         for t, n in zip(tickets, numbers, strict=True)],
        dtype=object,
    )  # fmt: skip


def _messages(
    status: pd.DataFrame, ids: pd.Series, keys: pd.Series, sent_at: pd.Series
) -> pd.Series:
    """Each recipient's message_id in the store of delivery reports (None: none found). By
    its own id (:func:`_own_ids`) where known; by number and time otherwise, among the
    messages no id claimed; none where two or more of them could be its message (the
    positions of those in ``attrs[AMBIGUOUS]``)."""
    import pandas as pd

    found = ids.where(ids.isin(status["message_id"]))
    loose = ids.isna()
    if loose.any():
        free = status[~status["message_id"].isin(found.dropna())]
        events = _events(free["number"], free["delivery_date"].fillna(free["received_at"]))
        at = _nearest(keys[loose], sent_at[loose], events)
        # Two messages of one number in the window cannot be told apart by number and time:
        # the row says so (AMBIGUOUS) rather than give the first one as its message.
        twice = _candidates(keys[loose], sent_at[loose], events) > 1
        at = at.where(~twice.to_numpy(), pd.NA)
        found[loose] = _take(free["message_id"], at).to_numpy()
        found.attrs[AMBIGUOUS] = loose[loose].index[twice.to_numpy()].tolist()
    return found


def _candidates(keys: pd.Series, sent_at: pd.Series, events: pd.DataFrame) -> pd.Series:
    """For each send (number key, time), how many events of its number fall in its match
    window (CLOCK_SLACK before the send to MATCH_WINDOW after), by position."""
    import pandas as pd

    left = pd.DataFrame(
        {"pos": range(len(keys)), "key": keys.to_numpy(dtype=object),
         "sent": sent_at.astype("datetime64[ns, UTC]").array}
    )  # fmt: skip
    right = pd.DataFrame(
        {"key": events["key"].to_numpy(dtype=object),
         "at": pd.to_datetime(events["at"], utc=True).astype("datetime64[ns, UTC]")}
    )  # fmt: skip
    pairs = left[left["key"] != ""].merge(right[right["key"] != ""], on="key")
    start = pairs["sent"] - pd.Timedelta(seconds=CLOCK_SLACK)
    inside = (pairs["at"] >= start) & (
        pairs["at"] <= pairs["sent"] + pd.Timedelta(seconds=MATCH_WINDOW)
    )
    counts = pairs.loc[inside].groupby("pos").size()
    return counts.reindex(range(len(keys)), fill_value=0).reset_index(drop=True)


def _events(numbers: pd.Series, at: pd.Series) -> pd.DataFrame:
    """Callbacks as :func:`_nearest` reads them: each one's number key and moment."""
    import pandas as pd

    return pd.DataFrame({"key": number_keys(numbers.fillna("")), "at": at})


def sent_times(chunks: pd.Series, facts: SendFacts) -> pd.Series:
    """When each recipient's chunk was accepted, or its scheduled time when later (UTC)."""
    import pandas as pd

    seconds = chunks.map(facts.accepted).astype("float64")
    moments = pd.to_datetime(seconds, unit="s", utc=True).astype("datetime64[ns, UTC]")
    if facts.send_at is not None:
        scheduled = pd.Timestamp(facts.send_at)
        scheduled = scheduled.tz_localize("UTC") if scheduled.tzinfo is None else scheduled
        moments = moments.where(moments.isna() | (moments >= scheduled), scheduled)
    return moments.reset_index(drop=True)


def _nearest(keys: pd.Series, sent_at: pd.Series, events: pd.DataFrame) -> pd.Series:
    """For each send (number key, time), the position in ``events`` (key, at) of the
    first event of its number from CLOCK_SLACK before the send to MATCH_WINDOW after
    (nullable integers; missing where none)."""
    import pandas as pd

    slack = pd.Timedelta(seconds=CLOCK_SLACK)
    left = pd.DataFrame(
        {"pos": range(len(keys)), "key": keys.to_numpy(dtype=object),
         "at": (sent_at - slack).astype("datetime64[ns, UTC]").array}
    )  # fmt: skip
    right = pd.DataFrame(
        {"event": range(len(events)), "key": events["key"].to_numpy(dtype=object),
         "at": pd.to_datetime(events["at"], utc=True).astype("datetime64[ns, UTC]")}
    )  # fmt: skip
    left = left[left["at"].notna() & (left["key"] != "")].sort_values("at")
    right = right[right["at"].notna() & (right["key"] != "")].sort_values("at")
    if left.empty or right.empty:
        return pd.Series(pd.NA, index=range(len(keys)), dtype="Int64")
    merged = pd.merge_asof(
        left, right, on="at", by="key", direction="forward",
        tolerance=pd.Timedelta(seconds=CLOCK_SLACK + MATCH_WINDOW),
    )  # fmt: skip
    found = pd.Series(merged["event"].to_numpy(), index=merged["pos"].to_numpy())
    return found.reindex(range(len(keys))).astype("Int64")


def _take(values: pd.Series, positions: pd.Series) -> pd.Series:
    """``values`` at ``positions`` (nullable integers), None where a position is missing."""
    import numpy as np
    import pandas as pd

    have = positions.notna().to_numpy()
    taken = np.full(len(positions), None, dtype=object)
    taken[have] = values.to_numpy(dtype=object)[positions[have].to_numpy(dtype="int64")]
    return pd.Series(taken, dtype=object)


def _delivery(out: pd.DataFrame, standing: pd.DataFrame) -> None:
    """Status columns from each recipient's standing report (NaN rows: no message found)."""
    import numpy as np
    import pandas as pd

    raw = standing["status_raw"].to_numpy(dtype=object)
    matched = out["message_id"].notna().to_numpy()
    known = np.isin(raw, list(OUTCOME_STATUSES[:-1]))
    readable = np.where(known, raw, np.full(len(raw), None, dtype=object))
    out["status"] = np.where(matched, readable, "pending")
    out["status_raw"] = raw
    out["final"] = np.isin(raw, list(FINAL_STATUSES))
    out["delivery_date"] = pd.to_datetime(standing["delivery_date"], utc=True).set_axis(out.index)
    reached = out["final"] & out["delivery_date"].notna()
    out["time_to_delivery"] = (out["delivery_date"] - out["sent_at"]).where(reached)
    out["reports"] = standing["reports"].fillna(0).to_numpy(dtype="int64")


def _replies_and_stops(
    out: pd.DataFrame, keys: pd.Series, ids: pd.Series, callbacks: Callbacks, *, replies: bool
) -> None:
    """Reply and opt-out columns: replies linked to this send (:func:`link_replies`; none
    when it was not sent ``with_replies``: nobody could answer it), and STOPs (:func:`_stops`)."""
    import pandas as pd

    sends = pd.DataFrame(
        {"ticket": out["ticket"].fillna("").to_numpy(), "phone_number": out["phone_number"],
         "sent_at": out["sent_at"]}
    )  # fmt: skip
    mine = (out["ticket"].fillna("") + "|" + keys).to_numpy()
    received = callbacks.replies
    answerable = replies and len(received) and len(sends)
    linked = link_replies(received, sends) if answerable else received.iloc[:0]
    if "ticket" not in linked.columns:
        linked = linked.assign(ticket=pd.Series(dtype=object))
    linked = linked[linked["ticket"].notna()].sort_values("reception_date", kind="stable")
    linked = linked.assign(key=(linked["ticket"] + "|" + number_keys(linked["number"])))
    first = linked.drop_duplicates("key").set_index("key")
    counts = linked.groupby("key").size()
    out["replies"] = counts.reindex(mine).fillna(0).to_numpy(dtype="int64")
    out["replied"] = out["replies"] > 0
    out["reply_text"] = first["text"].reindex(mine).to_numpy()
    out["reply_date"] = first["reception_date"].reindex(mine).array
    asked = linked[linked["is_opt_out"]].drop_duplicates("key").set_index("key")
    by_reply = asked["reception_date"].reindex(mine).reset_index(drop=True)
    by_stop = _stops(callbacks.stops, ids, keys, out["sent_at"])
    both = pd.concat([by_reply, by_stop], axis=1)
    out["opt_out_date"] = both.min(axis=1).array
    out["opt_out"] = out["opt_out_date"].notna()


def _stops(stops: pd.DataFrame, ids: pd.Series, keys: pd.Series, sent_at: pd.Series) -> Any:
    """When each recipient's message got its first STOP (NaT: none). A STOP names its
    message itself (the vendor's STOP carries ``message_id``): where the recipient's own id
    is known (:func:`_own_ids`) that id is looked up among the STOPs, with or without a
    delivery report for the message (one withheld or not come yet); elsewhere by number and
    time, among the STOPs no known id claimed."""
    import numpy as np
    import pandas as pd

    moment = pd.DatetimeTZDtype("ns", "UTC")
    stop_at = pd.to_datetime(stops["stop_date"].fillna(stops["received_at"]), utc=True)
    stop_at = stop_at.astype(moment)
    first = stop_at.groupby(stops["message_id"]).min()
    found = first.reindex(ids.to_numpy()).reset_index(drop=True).astype(moment)
    loose = ids.isna().to_numpy()
    if loose.any():
        free = ~stops["message_id"].isin(ids.dropna()).to_numpy()
        events = _events(stops["number"][free], stop_at[free])
        place = _nearest(keys[loose], sent_at[loose], events)
        taken = pd.to_datetime(_take(stop_at[free], place), utc=True).astype(moment)
        found.iloc[np.flatnonzero(loose)] = taken.array
    return found


def _countries(numbers: pd.Series) -> Any:
    """Each number's country (ISO 3166 alpha-2) as the rule book reads the number."""
    from smskit.rules.phones import normalize

    return normalize(numbers.reset_index(drop=True), None)["region"].to_numpy(dtype=object)


def _hlr(source: Any, facts: SendFacts, numbers: pd.Series) -> pd.DataFrame | None:
    """The HLR answers for ``numbers`` in their order (None when none can be had)."""
    import pandas as pd

    if isinstance(source, pd.DataFrame):
        answers = source
    else:
        from smskit.campaigns.bulk.hlr_cache import HLRCache
        from smskit.client.frames import hlr_frame

        if source is None:
            from smskit._paths import hlr_cache_path

            path = hlr_cache_path()
        elif isinstance(source, str | os.PathLike):
            path = Path(source)
            if not path.is_file():
                raise ConfigurationError(f"no HLR cache at {str(path)!r} (hlr=)")
        else:
            raise ValidationError(
                "hlr", "must be a frame of HLR answers, the path of an HLR cache, or None",
                value=type(source).__name__,
            )  # fmt: skip
        if facts.gateway is None or not path.is_file():
            return None
        cache = HLRCache(path)
        try:
            found = cache.cached(facts.gateway, numbers.dropna().unique().tolist(), None)
        finally:
            cache.close()
        if not found:
            return None
        answers = hlr_frame(list(found.values()))
    needed = ("phone_number", "network_name", "line_status", "phone_number_type")
    missing = [name for name in needed if name not in answers.columns]
    if missing:
        raise ValidationError("hlr", f"needs the column(s) {', '.join(missing)}")
    table = answers.drop_duplicates("phone_number", keep="last").set_index("phone_number")
    return table.reindex(numbers.to_numpy())[list(needed[1:])]


def _typed(out: pd.DataFrame, time_zone: Any) -> pd.DataFrame:
    import pandas as pd

    dtypes = outcome_dtypes("UTC")
    for name in _TIMES:
        out[name] = pd.to_datetime(out[name], utc=True)
    frame = out[list(OUTCOME_COLUMNS)].astype(dtypes)
    if str(time_zone) != "UTC":
        for name in _TIMES:
            frame[name] = frame[name].dt.tz_convert(time_zone)
    return frame
