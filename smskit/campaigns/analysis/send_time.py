"""Send time: delivery, reply, click and conversion rates by the hour or weekday campaigns
were sent, across the ledger (:func:`send_times`).

Each campaign counts where it started (the ledger's ``started``, in the account's time
zone); its recipients accepted (``sent``) are the denominator of every rate: ``delivered``,
``replies`` and ``clicked`` as the ledger reads them from the callbacks' store, and
``conversions`` (with ``orders``): the orders placed by its accepted recipients in the window
after the send (attribution's ``any_touch`` credit), so ``conversion_rate`` is orders per
recipient sent. A rate with nothing sent is missing. Rates are pooled over the campaigns of
a slot, not averaged: a big campaign weighs more. Nothing here says the hour *caused* the
rate (campaigns sent at different hours differ in more than their hour).
``smskit.plots.send_time_rates(table)`` draws the frame.

May import the analysis room's ledger and attribution, ``smskit.rules`` and ``smskit.errors``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.analysis.attribution import attribute, campaign_touches
from smskit.campaigns.analysis.conversions import OrderColumns
from smskit.campaigns.analysis.ledger import history
from smskit.rules.choices import checked_choice

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["SEND_TIME_COLUMNS", "SLOTS", "send_times"]

SLOTS: Final = ("hour", "weekday")
SEND_TIME_COLUMNS: Final = (
    "campaigns", "sent", "delivered", "replies", "clicked", "conversions",
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
    counts = ledger[["name", "sent", "delivered", "replies", "clicked"]].copy()
    counts["conversions"] = _conversions(ledger, orders, journals, window, at, number)
    started = ledger["started"]
    slot = started.dt.hour if by == "hour" else started.dt.day_of_week
    counts["slot"] = slot.to_numpy()
    names = list(range(24)) if by == "hour" else list(range(7))
    sums = counts.groupby("slot")[["sent", "delivered", "replies", "clicked", "conversions"]].sum(
        min_count=1
    )
    sums.insert(0, "campaigns", counts.groupby("slot")["name"].size())
    table = sums.reindex(names)
    table["campaigns"] = table["campaigns"].fillna(0).astype("int64")
    table["sent"] = table["sent"].fillna(0)
    sent = table["sent"].astype("Float64")
    for count, rate in (("delivered", "delivery_rate"), ("replies", "reply_rate"),
                        ("clicked", "click_rate"), ("conversions", "conversion_rate")):  # fmt: skip
        table[rate] = (table[count].astype("Float64") / sent.where(sent > 0)).astype("float64")
    table.index = pd.Index(names if by == "hour" else list(_WEEKDAYS), name=by)
    return table[list(SEND_TIME_COLUMNS)]


def _conversions(
    ledger: pd.DataFrame, orders: Any, journals: Any, window: Any, at: str, number: str
) -> Any:
    """Per ledger row, the orders following its messages in the window (missing without
    ``orders``)."""
    import pandas as pd

    if orders is None:
        return pd.array([None] * len(ledger), dtype="Int64")
    touches, campaigns = campaign_touches(journals)
    credited = attribute(
        touches, campaigns, orders, window=window, models=("any_touch",), at=at, value=None,
        number=number,
    )  # fmt: skip
    # one row per campaign in the order of ``campaigns``; a campaign is its journal (two
    # campaigns may share a name)
    per_journal = dict(zip(campaigns["journal"], credited["conversions"], strict=True))
    return pd.array([per_journal.get(path) for path in ledger["journal"]], dtype="Float64")
