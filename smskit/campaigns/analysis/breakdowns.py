"""Breakdowns of a campaign's outcomes: delivery by group, time to delivery, cost three ways.

Pure pandas over the frame ``CampaignResult.outcomes()`` returns (column-wise, no row loop);
the figures of :mod:`smskit.views.outcomes` draw these same frames, so a figure and its table
always agree. A group with no value (a number bulk HLR never checked has no network) is
``"(missing)"``; a categorical group (``line_status``) lists every category, zero rows too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from smskit.campaigns.analysis.results import AUDIENCE
from smskit.errors import ValidationError
from smskit.rules.callbacks import OUTCOME_STATUSES
from smskit.rules.choices import checked_choice
from smskit.rules.missing import MISSING
from smskit.rules.tables import checked_frame

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "BREAKDOWN_GROUPS",
    "TOTAL",
    "cost_breakdown",
    "delivery_breakdown",
    "delivery_times",
    "group_values",
]

BREAKDOWN_GROUPS: Final = ("country", "network", "line_status", "phone_number_type", "ticket")
OUTCOMES_FRAME: Final = "the frame CampaignResult.outcomes() returns"
TOTAL: Final = "total"
UNREADABLE: Final = "unreadable"  # a status column: reports came, none with a known status
_QUANTILES: Final = {"median": 0.5, "p90": 0.9}


def delivery_breakdown(outcomes: pd.DataFrame, by: str = "country") -> pd.DataFrame:
    """Per value of ``by``: ``recipients``, one count per status (the vendor's eight,
    ``pending``, ``unreadable``: zero columns too), ``delivered``, ``final`` and the rates
    ``delivery_rate`` (DELIVERED / recipients) and ``final_rate``, and ``audience_share``
    (recipients over the campaign's whole audience, sent or not: 0.37 in the ``total`` row
    of a send that reached 37 % of it; NA when the frame does not say its audience); the
    last row ``total``.

    ``by``: ``country``, ``network``, ``line_status``, ``phone_number_type``, ``ticket``, or
    any other column of the outcomes frame.
    """
    import pandas as pd

    groups = group_values(outcomes, by, ("status", "final"))
    order = _order(groups)
    columns = [*OUTCOME_STATUSES, UNREADABLE]
    status = outcomes["status"].astype(object).where(outcomes["status"].notna(), UNREADABLE)
    status = pd.Series(pd.Categorical(status, categories=columns), index=outcomes.index)
    counts = status.groupby(groups, observed=False).value_counts().unstack()
    table = counts.reindex(index=order, columns=columns, fill_value=0).fillna(0)
    table["final"] = outcomes["final"].groupby(groups, observed=False).sum().reindex(order)
    table = table.fillna(0).astype("int64")
    table.loc[TOTAL] = table.sum()
    table.columns = pd.Index([*columns, "final"])
    table.insert(0, "recipients", table[columns].sum(axis=1))
    table.insert(len(columns) + 1, "delivered", table["DELIVERED"])
    table["delivery_rate"] = _rate(table["delivered"], table["recipients"])
    table["final_rate"] = _rate(table["final"], table["recipients"])
    _share(table, "recipients", outcomes)
    table.index.name = by
    return table


def delivery_times(
    outcomes: pd.DataFrame, by: str | None = None, *, status: str = "DELIVERED"
) -> pd.DataFrame:
    """Time from send to the report of ``status`` (default DELIVERED), per value of ``by``
    (None: all together): ``messages`` with a known time, ``median``, ``p90``, ``max``
    (Timedelta); the last row ``total`` when grouped."""
    import pandas as pd

    checked_choice("status", status, OUTCOME_STATUSES[:-1])
    _outcomes_frame(outcomes, ("status", "time_to_delivery"))
    groups = group_values(outcomes, by) if by is not None else None
    mask = (outcomes["status"] == status).to_numpy() & outcomes["time_to_delivery"].notna()
    times = outcomes.loc[mask, "time_to_delivery"]
    rows: dict[Any, list[Any]] = {}
    if groups is not None:
        for key in _order(groups):
            rows[key] = _describe(times[groups[mask] == key])
    rows[TOTAL] = _describe(times)
    table = pd.DataFrame.from_dict(
        rows, orient="index", columns=["messages", *_QUANTILES, "max"]
    ).astype({"messages": "int64", "median": "timedelta64[ns]", "p90": "timedelta64[ns]",
              "max": "timedelta64[ns]"})  # fmt: skip
    table.index.name = by
    return table


def cost_breakdown(outcomes: pd.DataFrame, by: str = "country") -> pd.DataFrame:
    """Cost per value of ``by``, three ways: ``predicted`` (preflight's prices), ``billed``
    (what the gateway's send answers charged, shared by segments), ``reported`` (the delivery
    reports' ``unit_price`` times segments); sums over the messages where each is known,
    with ``messages``, ``segments`` and, for each way, how many messages it does not know
    (``unknown_predicted``...); ``billed_minus_predicted``; ``audience_share`` (messages over
    the campaign's whole audience, as in :func:`delivery_breakdown`); the last row
    ``total``."""
    import pandas as pd

    ways = {"predicted": "predicted_cost", "billed": "billed_cost", "reported": "reported_cost"}
    groups = group_values(outcomes, by, ("segments", *ways.values()))
    columns: dict[str, Any] = {
        "messages": outcomes["row"].groupby(groups, observed=False).size(),
        "segments": outcomes["segments"].astype("float64").groupby(groups, observed=False).sum(),
    }
    for way, column in ways.items():
        values = outcomes[column].astype("float64")
        columns[way] = values.groupby(groups, observed=False).sum(min_count=0)
        columns[f"unknown_{way}"] = values.isna().groupby(groups, observed=False).sum()
    table = pd.DataFrame(columns).reindex(_order(groups)).fillna(0)
    table.loc[TOTAL] = table.sum()
    counted = ["messages", "segments", *(f"unknown_{way}" for way in ways)]
    table = table.astype(dict.fromkeys(counted, "int64"))
    for way in ways:
        table[way] = table[way].round(6)
    table["billed_minus_predicted"] = (table["billed"] - table["predicted"]).round(6)
    _share(table, "messages", outcomes)
    table.index.name = by
    return table


# ------------------------------------------------------------------------------- helpers


def _outcomes_frame(outcomes: Any, needed: Sequence[str] = ()) -> pd.DataFrame:
    """``outcomes`` if it is a frame as ``CampaignResult.outcomes()`` returns, with the
    columns ``needed``; else refused naming ``outcomes``."""
    return checked_frame("outcomes", outcomes, needed, what=OUTCOMES_FRAME)


def group_values(outcomes: Any, by: Any, needed: Sequence[str] = ()) -> pd.Series:
    """Each row's group: its value in column ``by`` (missing as MISSING; a categorical keeps
    its categories), after checking ``outcomes`` is a frame with the columns ``needed``."""
    import pandas as pd

    _outcomes_frame(outcomes, needed)
    if not isinstance(by, str) or by not in outcomes.columns:
        raise ValidationError(
            "by", f"must be a column of the outcomes, e.g. {', '.join(BREAKDOWN_GROUPS)}", value=by
        )
    values = outcomes[by]
    if isinstance(values.dtype, pd.CategoricalDtype):
        if values.isna().any():
            values = values.cat.add_categories([MISSING]).fillna(MISSING)
        return values.rename(by)
    return values.astype(object).where(values.notna(), MISSING).astype(str).rename(by)


def _order(groups: pd.Series) -> list[Any]:
    """Categories in their order; other values most frequent first (then by name)."""
    import pandas as pd

    if isinstance(groups.dtype, pd.CategoricalDtype):
        return list(groups.cat.categories)
    counts = groups.value_counts()
    return sorted(counts.index, key=lambda key: (-int(counts[key]), str(key)))


def _share(table: pd.DataFrame, counted: str, outcomes: pd.DataFrame) -> None:
    """``audience_share``: each row's ``counted`` over the campaign's audience (every
    recipient it was for, sent or not: the outcomes frame's ``attrs["audience"]``, which
    ``CampaignResult.outcomes()``, a Dask result's computed ``outcomes()`` and
    ``ExperimentResult.outcomes()`` (every arm's) set), so a breakdown of a send that
    stopped half-way says it covers half; missing (NA) for a frame that does not say its
    audience. The audience is kept in the table's ``attrs`` too."""
    import pandas as pd

    whole = outcomes.attrs.get(AUDIENCE)
    if isinstance(whole, int) and whole > 0:
        table["audience_share"] = (table[counted] / whole).astype("Float64")
        table.attrs[AUDIENCE] = whole
    else:
        table["audience_share"] = pd.array([pd.NA] * len(table), dtype="Float64")


def _rate(part: pd.Series, whole: pd.Series) -> pd.Series:
    return (part / whole.where(whole > 0)).astype("float64")


def _describe(times: pd.Series) -> list[Any]:
    import numpy as np

    if times.empty:  # a duration not known (not pandas' NaT, which a frame reads as a date)
        return [0, *[np.timedelta64("NaT", "ns")] * 3]
    return [len(times), *(times.quantile(q) for q in _QUANTILES.values()), times.max()]
