"""Send time: delivery, reply, click and conversion rates by the hour or weekday campaigns
were sent, across the ledger (:func:`send_times`).

Each campaign counts where it started (the ledger's ``started``, in the account's time
zone); its recipients accepted (``sent``) are the denominator of every rate, and each rate
is a share of them (at most 1): ``delivered``, ``replies`` and ``clicked`` as the ledger
reads them from the callbacks' store (a recipient who replied twice counts once), and,
with ``orders``, ``converted``: its accepted recipients with at least one order in the
window after the send, so ``conversion_rate`` is lift's (the share of recipients who
bought), never orders per recipient. ``conversions`` counts those orders (attribution's
``any_touch`` credit: a buyer's three orders are three). ``reported`` counts the
recipients with a final delivery report: while a slot has none, its ``delivery_rate`` is
missing (not known yet), never 0. A rate with nothing sent is missing. Rates are pooled
over the campaigns of a slot, not averaged: a big campaign weighs more. Nothing here says
the hour *caused* the rate (campaigns sent at different hours differ in more than their
hour).
``smskit.plots.send_time_rates(table)`` draws the frame.

May import the analysis room's ledger and attribution, ``smskit.rules`` and ``smskit.errors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.analysis.attribution import campaign_touches, following
from smskit.campaigns.analysis.conversions import OrderColumns
from smskit.campaigns.analysis.ledger import history
from smskit.rules.choices import checked_choice

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SEND_TIME_COLUMNS", "SLOTS", "send_times"]

SLOTS: Final = ("hour", "weekday")
SEND_TIME_COLUMNS: Final = (
    "campaigns", "sent", "reported", "delivered", "replies", "clicked", "converted",
    "conversions",
    "delivery_rate", "reply_rate", "click_rate", "conversion_rate",
)  # fmt: skip
_WEEKDAYS: Final = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")


def send_times(
    journals: Any = None,
    *,
    by: str = "hour",
    inbox: Any = None,
    orders: Any = None,
    window: Any = "5D",
    at: str = "ordered_at",
    number: str = "phone_number",
    time_zone: str | None = None,
) -> pd.DataFrame:
    """One row per send ``hour`` (0-23) or ``weekday`` (Monday first), every slot listed:
    ``campaigns``, ``sent`` and the counts and rates of the module docstring. ``journals``,
    ``inbox`` and ``time_zone`` as :func:`smskit.campaigns.history` reads them; ``orders``
    (optional) as :func:`smskit.campaigns.attribution` reads them."""
    import pandas as pd

    checked_choice("by", by, SLOTS)
    if orders is not None:
        OrderColumns(window, at, None, number)  # checked before any reading
    ledger = history(journals, inbox=inbox, time_zone=time_zone)
    ledger = ledger[ledger["problem"].isna() & ledger["started"].notna()]
    counts = ledger[["name", "sent", "reported", "delivered", "replies", "clicked"]].copy()
    counts["converted"], counts["conversions"] = _conversions(
        ledger, orders, journals, window, at, number
    )
    started = ledger["started"]
    slot = started.dt.hour if by == "hour" else started.dt.day_of_week
    counts["slot"] = slot.to_numpy()
    names = list(range(24)) if by == "hour" else list(range(7))
    summed = ["sent", "reported", "delivered", "replies", "clicked", "converted", "conversions"]
    sums = counts.groupby("slot")[summed].sum(min_count=1)
    sums.insert(0, "campaigns", counts.groupby("slot")["name"].size())
    table = sums.reindex(names)
    table["campaigns"] = table["campaigns"].fillna(0).astype("int64")
    table["sent"] = table["sent"].fillna(0)
    sent = table["sent"].astype("Float64")
    for count, rate in (("delivered", "delivery_rate"), ("replies", "reply_rate"),
                        ("clicked", "click_rate"), ("converted", "conversion_rate")):  # fmt: skip
        table[rate] = (table[count].astype("Float64") / sent.where(sent > 0)).astype("float64")
    # Before any final report, "0 delivered" says nothing about delivery: not known yet.
    unreported = table["reported"].astype("Float64").fillna(0).eq(0).to_numpy(dtype=bool)
    table.loc[unreported, "delivery_rate"] = float("nan")
    table.index = pd.Index(names if by == "hour" else list(_WEEKDAYS), name=by)
    return table[list(SEND_TIME_COLUMNS)]


def _conversions(
    ledger: pd.DataFrame, orders: Any, journals: Any, window: Any, at: str, number: str
) -> tuple[Any, Any]:
    """Per ledger row, its recipients with an order following their message in the window
    and those orders (both missing without ``orders``)."""
    import pandas as pd

    if orders is None:
        missing = pd.array([None] * len(ledger), dtype="Int64")
        return missing, missing
    touches, campaigns = campaign_touches(journals)
    pairs, _ = following(touches, orders, key="journal", window=window, at=at, value=None,
                         number=number)  # fmt: skip
    # a campaign is its journal (two campaigns may share a name); one touch per recipient.
    # A journal attribution cannot read as a sent campaign (a Dask one) stays missing.
    by_journal = pairs.groupby("key")
    paths = ledger["journal"].astype(object)
    read = paths.isin(set(campaigns["journal"]))
    buyers = paths.map(by_journal["digits"].nunique()).fillna(0).where(read)
    bought = paths.map(by_journal["order"].nunique()).fillna(0).where(read)
    return buyers.astype("Int64").array, bought.astype("Int64").array
