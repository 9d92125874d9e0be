"""Reply analytics: pure pandas over ``Inbox.to_frame()`` and a frame of sends.

Replies per period, replies linked to the send they answer, reply and opt-out rates.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from smskit.errors import ValidationError
from smskit.replies.inbox import is_opt_out
from smskit.rules.callbacks import comparable_instants
from smskit.rules.tables import checked_frame

if TYPE_CHECKING:
    import pandas

__all__ = ["link_replies", "number_keys", "opt_out_rate", "replies_per_period", "reply_rate"]


def replies_per_period(replies: pandas.DataFrame, freq: str = "D") -> pandas.DataFrame:
    """Replies and opt-outs per period (``"D"``, ``"h"``, ``"W"``...), gaps filled with 0.

    Periods follow the time zone of ``reception_date`` (the account's from
    ``Inbox.to_frame()``: days are local days). Index: period start.
    """
    import pandas as pd

    checked_frame("replies", replies, ("reception_date",))
    try:
        offset = pd.tseries.frequencies.to_offset(freq)
    except (TypeError, ValueError):
        raise ValidationError(
            "freq", "must be a pandas frequency such as 'D', 'h' or 'W'", value=freq
        ) from None
    times = _times(replies["reception_date"])
    counts = pd.DataFrame(
        {"replies": 1, "opt_outs": _opt_out_flags(replies).astype("int64").to_numpy()},
        index=pd.DatetimeIndex(times),
    )
    counts = counts[counts.index.notna()]
    result = counts.resample(offset).sum().astype("int64")
    result.index.name = "period"
    return result


def link_replies(replies: pandas.DataFrame, sends: pandas.DataFrame) -> pandas.DataFrame:
    """``replies`` plus a ``ticket`` column: the send each reply most likely answers.

    The callback carries no ticket, so a reply is linked to the latest send to its number
    (digits compared, ``+``/``00`` ignored) sent at or before its reception, the two compared
    at the vendor's whole seconds (the coarser precision of the two: a reply dated in the
    second of its send answers it); when ``sends``
    has ``sender`` and the reply a ``sim_card_number``, they must match (the short number
    that received it). ``sends`` needs ``ticket`` (or ``sms_ticket``) and ``phone_number``;
    with ``with_replies`` only those rows count; without ``sent_at``, the last row of the
    number counts. Unlinked replies get None.
    """
    import pandas as pd

    checked_frame("replies", replies, ("number", "reception_date"))
    candidates = _sends(sends)
    left = pd.DataFrame(
        {
            "row": range(len(replies)),
            "key": number_keys(replies["number"]).to_numpy(),
            "at": comparable_instants(_utc_ns(replies["reception_date"])).array,
        }
    )
    sims = replies.get("sim_card_number")
    left["sim"] = None if sims is None else sims.map(_text_or_none).to_numpy()
    tickets: dict[int, Any] = {}
    if "sent_at" not in candidates.columns:
        latest = candidates.drop_duplicates("key", keep="last").set_index("key")["ticket"]
        tickets = dict(zip(left["row"], left["key"].map(latest), strict=True))
    else:
        left = left[left["at"].notna()].sort_values("at")
        right = candidates.sort_values("sent_at", kind="stable")
        right = right.assign(sent_at=comparable_instants(right["sent_at"]))
        by_sender = "sender" in right.columns
        passes = [(left[left["sim"].isna()] if by_sender else left, ["key"])]
        if by_sender:
            passes.append((left[left["sim"].notna()], ["key", "sim"]))
            right = right.assign(sim=right["sender"].map(_text_or_none))
        for part, keys in passes:
            if part.empty:
                continue
            matched = pd.merge_asof(
                part, right[["sent_at", "ticket", *keys]], left_on="at", right_on="sent_at",
                by=keys, direction="backward",
            )  # fmt: skip
            tickets.update(zip(matched["row"], matched["ticket"], strict=True))
    linked = replies.copy()
    linked["ticket"] = [_text_or_none(tickets.get(row)) for row in range(len(replies))]
    return linked


def reply_rate(replies: pandas.DataFrame, sends: pandas.DataFrame) -> pandas.DataFrame:
    """Per ticket: recipients, replies, repliers, opt_outs, reply_rate, opt_out_rate.

    Rates are distinct numbers over distinct recipients of the ticket; replies are linked
    to tickets by :func:`link_replies`.
    """
    import pandas as pd

    candidates = _sends(sends)
    linked = link_replies(replies, sends)
    linked = linked.assign(
        key=number_keys(linked["number"]).to_numpy(), opt=_opt_out_flags(linked).to_numpy()
    )
    linked = linked[linked["ticket"].notna()]
    table = pd.DataFrame({"recipients": candidates.groupby("ticket", sort=False)["key"].nunique()})
    by_ticket = linked.groupby("ticket")
    columns = {
        "replies": by_ticket.size(),
        "repliers": by_ticket["key"].nunique(),
        "opt_outs": linked[linked["opt"]].groupby("ticket")["key"].nunique(),
    }
    for name, values in columns.items():
        table[name] = values.reindex(table.index, fill_value=0).astype("int64")
    table["reply_rate"] = table["repliers"] / table["recipients"]
    table["opt_out_rate"] = table["opt_outs"] / table["recipients"]
    table.index.name = "ticket"
    return table


def opt_out_rate(replies: pandas.DataFrame, sends: pandas.DataFrame) -> float:
    """Distinct recipients who opted out (replies linked to ``sends``) / distinct recipients.

    NaN when ``sends`` has no recipient.
    """
    candidates = _sends(sends)
    recipients = candidates["key"].nunique()
    if recipients == 0:
        return float("nan")
    linked = link_replies(replies, sends)
    opted = linked[linked["ticket"].notna() & _opt_out_flags(linked).to_numpy()]
    return number_keys(opted["number"]).nunique() / recipients


# --- helpers ---------------------------------------------------------------------------------


def _sends(sends: Any) -> pandas.DataFrame:
    """ticket, key (+ sent_at, sender when given) of the sends that can be replied to."""
    import pandas as pd

    checked_frame("sends", sends, ("phone_number",))
    ticket = "ticket" if "ticket" in sends.columns else "sms_ticket"
    if ticket not in sends.columns:
        raise ValidationError("sends", "needs a ticket (or sms_ticket) column")
    rows = sends
    if "with_replies" in rows.columns:
        rows = rows[rows["with_replies"].fillna(False).astype(bool).to_numpy()]
    out = pd.DataFrame(
        {"ticket": rows[ticket].astype(str).to_numpy(),
         "key": number_keys(rows["phone_number"]).to_numpy()}
    )  # fmt: skip
    if "sender" in rows.columns:
        out["sender"] = rows["sender"].to_numpy()
    if "sent_at" in rows.columns:
        out["sent_at"] = _utc_ns(rows["sent_at"]).array
        out = out[out["sent_at"].notna()]  # scheduled, not sent yet: nobody can reply
    return out.reset_index(drop=True)


def _times(values: pandas.Series) -> pandas.Series:
    """Datetimes; naive or strings are read as UTC, aware ones keep their zone."""
    import pandas as pd

    if isinstance(values.dtype, pd.DatetimeTZDtype):
        return values
    if pd.api.types.is_datetime64_dtype(values.dtype):
        return values.dt.tz_localize("UTC")
    return pd.to_datetime(values, utc=True, format="ISO8601")


def _utc_ns(values: pandas.Series) -> pandas.Series:
    """:func:`_times` in UTC nanoseconds: replies' and sends' times compare whatever unit
    each frame holds (merge_asof refuses microseconds against nanoseconds)."""
    return _times(values).dt.tz_convert("UTC").dt.as_unit("ns")


def number_keys(numbers: pandas.Series) -> pandas.Series:
    """Digits only, without a leading 00: +33 6.. and 0033 6.. compare equal."""
    return (
        numbers.astype(str).str.replace(r"\D", "", regex=True).str.replace(r"^00", "", regex=True)
    )


def _opt_out_flags(frame: pandas.DataFrame) -> pandas.Series:
    if "is_opt_out" in frame.columns:
        return frame["is_opt_out"].fillna(False).astype(bool)
    checked_frame("replies", frame, ("text",))
    return frame["text"].map(is_opt_out).astype(bool)


def _text_or_none(value: Any) -> str | None:
    import pandas as pd

    return None if value is None or pd.isna(value) else str(value)
