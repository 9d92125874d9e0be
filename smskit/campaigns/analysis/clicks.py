"""Clicks on a campaign's tracked links, per recipient, bots told apart.

The inbox stores every request on a short link (:mod:`smskit.replies.clicks`); here they
join the campaign's outcomes by the row each token was registered for, the tokens those the
campaign's journal sent (not its name alone: two campaigns of one name are two sends). A
request is a bot's by the rules of :mod:`smskit.rules.bots`, now with the delivery rule
too: the first sign that the recipient's message was delivered is the earlier of its
DELIVERED report's ``delivery_date`` (the gateway's clock) and the moment that report
reached the inbox (ours); a request before both came before the phone had the link.

Columns added to the outcomes: ``clicks`` (human requests), ``clicked`` (at least one),
``first_click_date`` (the first human one), ``bot_clicks`` and ``bot_reasons`` (the distinct
reasons, comma-separated). :func:`click_rates` gives the click rate by any outcome column
(country, network, an experiment's arm); :func:`clicks_over_time` the human and bot clicks
per period after the send, for :func:`smskit.plots.clicks_over_time`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.bots import HUMAN, classify
from smskit.rules.choices import checked_column
from smskit.rules.tables import checked_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CLICK_COLUMNS", "click_columns", "click_rates", "clicks_over_time"]

CLICK_COLUMNS: Final = ("clicks", "clicked", "first_click_date", "bot_clicks", "bot_reasons")


def click_columns(
    out: pd.DataFrame,
    standing: pd.DataFrame,
    clicks: pd.DataFrame,
    campaign: str | None,
    *,
    tokens: frozenset[str] | None = None,
) -> None:
    """Add :data:`CLICK_COLUMNS` to ``out`` (one row per recipient, with ``row``);
    ``standing`` the standing report of each (aligned), ``clicks`` the inbox's requests:
    those on links registered for ``campaign`` and, given ``tokens`` (the tokens its
    journal sent), on those tokens only: another campaign of the same name is another send,
    its clicks its own."""
    import pandas as pd

    mine = clicks[clicks["campaign"] == campaign] if campaign is not None else clicks.iloc[:0]
    if tokens is not None:
        mine = mine[mine["token"].isin(tokens).to_numpy()]
    if mine.empty:
        reason = pd.Series([], dtype=object)
        human = bot = mine.assign(reason=reason)
    else:
        judged = mine.assign(delivered_at=mine["row"].map(_first_signs(out, standing)))
        reason = classify(judged)
        human = judged[reason.eq(HUMAN).to_numpy()]
        bot = judged[reason.ne(HUMAN).to_numpy()].assign(reason=reason[reason.ne(HUMAN)])
    rows = out["row"].to_numpy()
    out["clicks"] = human.groupby("row").size().reindex(rows, fill_value=0).to_numpy("int64")
    out["clicked"] = out["clicks"].to_numpy() > 0
    first = pd.to_datetime(human.groupby("row")["at"].min(), utc=True)
    out["first_click_date"] = first.reindex(rows).to_numpy()
    out["bot_clicks"] = bot.groupby("row").size().reindex(rows, fill_value=0).to_numpy("int64")
    reasons = bot.groupby("row")["reason"].agg(lambda r: ",".join(sorted(set(r))))
    out["bot_reasons"] = reasons.reindex(rows).fillna("").to_numpy(dtype=object)


def _first_signs(out: pd.DataFrame, standing: pd.DataFrame) -> pd.Series:
    """row -> the first sign its message was delivered (NaT: not delivered, or unknown)."""
    import pandas as pd

    def utc(column: str) -> pd.Series:
        moments = pd.to_datetime(standing[column].reset_index(drop=True), utc=True)
        return moments.dt.as_unit("ns")

    dated, reached = utc("delivery_date"), utc("received_at")
    first = dated.where(dated.notna() & (reached.isna() | (dated <= reached)), reached)
    delivered = standing["status_raw"].to_numpy(dtype=object) == "DELIVERED"
    return pd.Series(first.where(delivered).array, index=out["row"].to_numpy())


def click_rates(outcomes: pd.DataFrame, by: str | Sequence[str] = "country") -> pd.DataFrame:
    """Per value of ``by`` (outcome columns: ``country``, ``network``, an experiment's
    ``arm``): recipients, those who clicked, the click rate, human and bot clicks."""
    counted = ("clicked", "clicks", "bot_clicks")
    checked_frame("outcomes", outcomes, counted, what="the frame CampaignResult.outcomes() returns")
    columns = [by] if isinstance(by, str) else by
    if not isinstance(columns, list | tuple) or not columns:
        raise ValidationError("by", "must be a column's name or a list of them", value=by)
    for position, name in enumerate(columns):
        if checked_column("by", name) not in outcomes.columns:
            raise ValidationError("by", "no such column in the outcomes", position=position)
    grouped = outcomes.groupby(columns, observed=False, dropna=False)
    frame = grouped.agg(
        recipients=("clicked", "size"),
        clicked=("clicked", "sum"),
        clicks=("clicks", "sum"),
        bot_clicks=("bot_clicks", "sum"),
    )
    frame["click_rate"] = frame["clicked"] / frame["recipients"].where(frame["recipients"] > 0)
    return frame


def clicks_over_time(clicks: pd.DataFrame, sent_at: Any = None, freq: str = "1min") -> pd.DataFrame:
    """Human and bot requests per ``freq`` period (``clicks``: the inbox's frame, with
    ``reason``), indexed by the time since ``sent_at`` (default: the first request)."""
    import pandas as pd

    if clicks.empty:
        return pd.DataFrame({"human": [], "bot": []}, index=pd.TimedeltaIndex([], name="since"))
    start = clicks["at"].min() if sent_at is None else pd.Timestamp(sent_at)
    since = (clicks["at"] - start).dt.floor(freq).rename("since")
    kind = clicks["reason"].eq(HUMAN).map({True: "human", False: "bot"})
    table = pd.crosstab(since, kind).reindex(columns=["human", "bot"], fill_value=0)
    table.columns.name = None
    return table
