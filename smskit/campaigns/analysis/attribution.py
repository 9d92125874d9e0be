"""Attribution across campaigns: the analyst's orders credited to the ledger's campaigns by
one or several models side by side (:func:`attribution`).

A *touch* is a campaign's message to a recipient the gateway accepted; where its window starts
is ``window_from``:

- ``send``: the campaign's send instant (``CampaignResult.sent_at``), for every recipient;
- ``delivery``: the message's DELIVERED report's ``delivery_date`` when the inbox has one;
  the send instant while no final report came (none yet, or no inbox); a message reported
  *not* delivered (failed, expired, rejected ...) never reached the phone and is no touch;
- ``click``: the recipient's first human click on the campaign's tracked links (bots told
  apart as the outcomes tell them); a recipient who never clicked is no touch, and a
  campaign with no link registered with the inbox is left out with a warning naming it.

An order *follows* a touch when its number is the recipient's and its instant is in
``[touch, touch + window)``. Each model shares an order among the touches it follows:

- ``last_touch``: all of it to the latest touch (the message that came last decided);
- ``first_touch``: all of it to the earliest touch (the first message started it);
- ``linear``: an equal share to each touch (each message helped as much);
- ``any_touch``: all of it to every touch (each campaign's view of itself; totals over
  campaigns count an order more than once).

Ties (two touches at the same instant) go to the campaign whose journal sorts first. A
campaign is its journal, not its name: two campaigns of one name (a named campaign sent again
after its embedded sandbox ended is journaled in ``<name>-2``; a daily ``--name`` from cron)
are credited apart, each on its own row, told apart by its ``journal`` (the path
:func:`smskit.campaigns.history` shows and :meth:`CampaignResult.load` opens). None of the
models says what would have happened
without the messages: that is a holdout's question (:mod:`smskit.campaigns.analysis.lift`).

May import the analysis room's ledger, results and outcomes, ``smskit.rules`` and
``smskit.errors``.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.analysis.conversions import OrderColumns
from smskit.campaigns.analysis.ledger import journal_files, read_callbacks
from smskit.campaigns.analysis.outcomes import (
    Callbacks,
    SendFacts,
    no_hlr,
    open_inbox,
    outcomes_frame,
    sent_recipients,
)
from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.sending.journal import Journal
from smskit.errors import ValidationError
from smskit.rules.choices import checked_choice, checked_choices
from smskit.rules.orders import order_numbers, orders_in_reach, read_orders, window_of
from smskit.rules.recipients import REGION_COLUMN
from smskit.rules.region import DEFAULT_REGION

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

__all__ = [
    "ATTRIBUTION_COLUMNS",
    "MODELS",
    "WINDOW_FROM",
    "attribute",
    "attribution",
    "campaign_touches",
    "following",
]

MODELS: Final = ("last_touch", "first_touch", "linear", "any_touch")
WINDOW_FROM: Final = ("send", "delivery", "click")
ATTRIBUTION_COLUMNS: Final = (
    "model",
    "campaign",
    "journal",
    "recipients",
    "conversions",
    "revenue",
    "revenue_per_recipient",
    "cost",
    "cost_per_conversion",
    "roi",
)


def _models(model: str | None, models: Sequence[str] | None) -> list[str]:
    if models is not None and model is not None:
        raise ValidationError("models", "give model= or models=, not both")
    if models is not None:
        return checked_choices("models", models, MODELS)
    return [checked_choice("model", "last_touch" if model is None else model, MODELS)]


def campaign_touches(
    journals: Any = None, *, window_from: str = "send", inbox: Any = None
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The touches of the ledger's campaigns (``campaign``, ``journal``, ``phone_number``,
    ``touched_at`` in UTC nanoseconds, where each window starts: ``window_from``, see the
    module docstring) and one row per campaign (``campaign``, ``journal``: what tells two
    campaigns of one name apart, ``recipients`` accepted, ``cost`` billed).
    ``inbox``: the callbacks' store, as :func:`smskit.campaigns.history` reads it (needed for
    ``click``). A journal that cannot be read this way, or was never sent, is left out with
    a warning naming it."""
    import numpy as np
    import pandas as pd

    checked_choice("window_from", window_from, WINDOW_FROM)
    callbacks = read_callbacks(inbox) if window_from != "send" else None
    tracked: set[str] = set()
    if window_from == "click":
        if callbacks is None:
            raise ValidationError(
                "inbox", "window_from='click' needs the inbox that served the tracked links"
            )
        tracked = set(open_inbox(inbox).links()["campaign"])
    parts, rows, skipped = [], [], []
    for path in journal_files(journals):
        try:
            result = CampaignResult.load(path)
            sent_at = result.sent_at
        except Exception as exc:  # another kind of file, a Dask journal, never sent ...
            skipped.append(f"{path.name} ({type(exc).__name__}: {exc})")
            continue
        if window_from == "click" and result.name not in tracked:
            skipped.append(f"{path.name} (no tracked link of {result.name!r} in the inbox)")
            continue
        sent = sent_recipients(result.to_frame())
        numbers, times = _touches(result, sent, sent_at, window_from, callbacks)
        parts.append(pd.DataFrame({"campaign": result.name, "journal": str(path),
                                   "phone_number": numbers, "touched_at": times}))  # fmt: skip
        cost = float(result.summary()["cost"].iloc[0])
        rows.append(
            {"campaign": result.name, "journal": str(path), "recipients": len(sent), "cost": cost}
        )
    if skipped:
        warnings.warn(
            "attribution leaves out journals it cannot read as a sent campaign: "
            + "; ".join(skipped),
            UserWarning,
            stacklevel=3,
        )
    columns = {"campaign": [], "journal": [], "phone_number": [],
               "touched_at": np.zeros(0, dtype="int64")}  # fmt: skip
    touches = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns)
    return touches, pd.DataFrame(rows, columns=["campaign", "journal", "recipients", "cost"])


def _touches(
    result: CampaignResult,
    sent: pd.DataFrame,
    sent_at: pd.Timestamp,
    window_from: str,
    callbacks: Callbacks | None,
) -> tuple[np.ndarray, np.ndarray]:
    """The numbers touched among ``sent`` (the accepted rows) and where each window starts."""
    import numpy as np

    start = np.full(len(sent), sent_at.value, dtype="int64")
    numbers = sent["phone_number"].astype(str).to_numpy()
    if window_from == "send" or callbacks is None:
        return numbers, start
    with Journal(result.journal) as book:
        facts = SendFacts.read(book, costs=False)
    if not callbacks.serves(facts.gateway):  # another account's inbox: nothing known here
        keep = np.full(len(sent), window_from == "delivery")
        return numbers[keep], start[keep]
    seen = outcomes_frame(sent, facts, callbacks, no_hlr(), time_zone="UTC")
    numbers = seen["phone_number"].astype(str).to_numpy()
    if window_from == "click":
        moment, keep = seen["first_click_date"], seen["first_click_date"].notna().to_numpy()
    else:
        delivered = (seen["status"] == "DELIVERED").to_numpy(dtype=bool)
        moment = seen["delivery_date"].where(delivered)
        keep = delivered | ~seen["final"].to_numpy(dtype=bool)
    when = moment.dt.tz_convert("UTC").dt.as_unit("ns")
    start = np.where(when.notna().to_numpy(), when.array.asi8, sent_at.value)
    return numbers[keep], start[keep].astype("int64")


def following(
    touches: pd.DataFrame,
    orders: Any,
    *,
    key: str = "journal",
    window: Any = "5D",
    at: str = "ordered_at",
    value: str | None = "amount",
    number: str = "phone_number",
    default_region: str | None = DEFAULT_REGION,
) -> tuple[pd.DataFrame, np.ndarray]:
    """Each (order, touch) where the order follows the touch (the module docstring): one
    row with ``order`` (its row in ``orders``), ``digits`` (the number, E.164 digits),
    ``key`` (the touch's ``key`` column: the campaign) and ``touch`` (the window's start,
    UTC nanoseconds); and every order's amount (1 each with ``value=None``)."""
    import numpy as np
    import pandas as pd

    span = window_of(window).value
    frame, instants, amounts = read_orders(orders, [number, REGION_COLUMN], at, value)
    amounts = np.ones(len(frame)) if amounts is None else amounts
    times = touches["touched_at"].to_numpy(dtype="int64")
    rows = orders_in_reach(instants, times, span)
    digits = order_numbers(frame, number, rows, default_region)
    touch_digits = order_numbers(
        touches[["phone_number"]], "phone_number", np.arange(len(touches)), None, "touches"
    )
    pairs = pd.DataFrame({"order": rows, "digits": digits}).merge(
        # keys as Python objects, as the campaigns' column holds them (no touch at all, on a
        # machine without journals, is no float column to join on)
        pd.DataFrame(
            {"digits": touch_digits, "key": touches[key].to_numpy(dtype=object), "touch": times}
        ),
        on="digits",
    )
    when = instants[pairs["order"].to_numpy()]
    start = pairs["touch"].to_numpy()
    return pairs[(when >= start) & (when < start + span)], amounts


def attribute(
    touches: pd.DataFrame,
    campaigns: pd.DataFrame,
    orders: Any,
    *,
    window: Any = "5D",
    models: Sequence[str] = ("last_touch",),
    at: str = "ordered_at",
    value: str | None = "amount",
    number: str = "phone_number",
    default_region: str | None = DEFAULT_REGION,
) -> pd.DataFrame:
    """:func:`attribution` over given ``touches`` and ``campaigns`` (see
    :func:`campaign_touches`): one row per model and campaign, in the order of
    ``campaigns``. A campaign is its ``journal`` when both frames have that column (two
    campaigns may share a name), else its ``campaign`` name (its ``journal`` then missing)."""
    import pandas as pd

    if "journal" not in campaigns.columns:
        campaigns = campaigns.assign(journal=pd.array([pd.NA] * len(campaigns), dtype="string"))
    key = "journal" if {"journal"} <= {*touches.columns} & {*campaigns.columns} else "campaign"
    pairs, amounts = following(
        touches, orders, key=key, window=window, at=at, value=value, number=number,
        default_region=default_region,
    )  # fmt: skip
    order = {name: i for i, name in enumerate(campaigns[key])}
    pairs = pairs.assign(rank=pairs["key"].map(order))
    pairs = pairs.sort_values(["order", "touch", "rank"], kind="stable")
    out = []
    for model in models:
        credited = _credited(pairs, model)
        credited = credited.assign(revenue=credited["weight"] * amounts[credited["order"]])
        sums = credited.groupby("key")[["weight", "revenue"]].sum()
        table = campaigns.join(sums, on=key).fillna({"weight": 0.0, "revenue": 0.0})
        table = table.rename(columns={"weight": "conversions"}).reset_index(drop=True)
        table.insert(0, "model", model)
        out.append(table)
    result = pd.concat(out, ignore_index=True) if out else pd.DataFrame(columns=ATTRIBUTION_COLUMNS)
    recipients = result["recipients"].astype("float64")
    result["revenue_per_recipient"] = result["revenue"] / recipients.where(recipients > 0)
    cost = result["cost"].astype("float64")
    result["cost_per_conversion"] = cost / result["conversions"].where(result["conversions"] > 0)
    result["roi"] = (result["revenue"] - cost) / cost.where(cost > 0)
    result["model"] = pd.Categorical(result["model"], categories=MODELS)
    result["journal"] = result["journal"].astype("string")  # as the ledger's column
    return result[list(ATTRIBUTION_COLUMNS)]


def _credited(pairs: pd.DataFrame, model: str) -> pd.DataFrame:
    """Each (order, campaign) credit of ``model``: ``order``, ``key`` (the campaign),
    ``weight``; ``pairs`` sorted by order, then touch instant, then campaign."""
    grouped = pairs.groupby("order", sort=False)
    if model == "last_touch":
        chosen = grouped.tail(1).assign(weight=1.0)
    elif model == "first_touch":
        chosen = grouped.head(1).assign(weight=1.0)
    elif model == "linear":
        chosen = pairs.assign(weight=1.0 / grouped["key"].transform("size"))
    else:
        chosen = pairs.assign(weight=1.0)
    return chosen[["order", "key", "weight"]]


def attribution(
    orders: Any,
    *,
    window: Any = "5D",
    model: str | None = None,
    models: Sequence[str] | None = None,
    at: str = "ordered_at",
    value: str | None = "amount",
    number: str = "phone_number",
    default_region: str | None = DEFAULT_REGION,
    journals: Any = None,
    window_from: str = "send",
    inbox: Any = None,
) -> pd.DataFrame:
    """The orders credited to the ledger's campaigns (``journals``: as
    :func:`smskit.campaigns.history` reads them, default every journal of the campaigns
    directory) by ``model`` (default
    ``last_touch``) or several ``models`` side by side: one row per model and campaign with
    its ``campaign`` name and ``journal`` (the journal's path, as
    :func:`smskit.campaigns.history` shows it: what tells two campaigns of one name apart),
    ``recipients`` (accepted), ``conversions`` (credited orders, fractional for ``linear``),
    ``revenue``, ``revenue_per_recipient``, ``cost`` (billed), ``cost_per_conversion`` and
    ``roi``. The orders are read as :meth:`CampaignResult.conversions` reads them. Each
    window starts at the ``send``, the ``delivery`` (when reported, else the send) or the
    first human ``click`` (``window_from``; ``inbox`` the callbacks' store, as
    :func:`smskit.campaigns.history` reads it). What each model and start assume: the
    module docstring and docs/conversions.md."""
    chosen = _models(model, models)
    OrderColumns(window, at, value, number, default_region)  # checked before any reading
    touches, campaigns = campaign_touches(journals, window_from=window_from, inbox=inbox)
    return attribute(
        touches, campaigns, orders, window=window, models=chosen, at=at, value=value,
        number=number, default_region=default_region,
    )  # fmt: skip
