"""Figures of a campaign's outcomes: delivery by group, time to delivery, cost three ways.

Reached lazily (``smskit.plots.delivery_breakdown`` and friends), so ``import smskit`` never
loads plotly. Each draws the frame of :mod:`smskit.campaigns.analysis.breakdowns` of the same name,
so a figure and its table always agree; each returns a ``plotly.graph_objects.Figure`` and
never shows it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import pandas as pd

from smskit.campaigns.analysis import breakdowns
from smskit.campaigns.analysis import clicks as click_tables
from smskit.rules.callbacks import OUTCOME_STATUSES
from smskit.views.plotly_extra import TEMPLATE, importing_plotly

with importing_plotly():
    import plotly.graph_objects as go

__all__ = ["COST_COLORS", "DELIVERY_STATUS_COLORS", "clicks_over_time", "cost_breakdown",
           "delivery_breakdown", "delivery_times"]  # fmt: skip

# One colour per status everywhere: delivered green, refused or lost in reds and purples,
# unknown greys; ACK (on its way) light blue.
DELIVERY_STATUS_COLORS: Final[Mapping[str, str]] = {
    "ACK": "#9ecae1",
    "DELIVERED": "#2ca02c",
    "NOT_DELIVERED": "#d62728",
    "NOT_ALLOWED": "#ff7f0e",
    "UNKNOWN_DELIVERY": "#7f7f7f",
    "BAD_DESTINATION": "#9467bd",
    "BLACKLISTED_NUMBER": "#3b3b3b",
    "UNDEFINED": "#bcbcbc",
    "pending": "#e5e5e5",
    breakdowns.UNREADABLE: "#8c564b",
}
COST_COLORS: Final[Mapping[str, str]] = {
    "predicted": "#c6dbef", "billed": "#1f77b4", "reported": "#ff7f0e",
}  # fmt: skip


def delivery_breakdown(
    outcomes: pd.DataFrame, by: str = "country", *, title: str | None = None
) -> go.Figure:
    """One horizontal bar per value of ``by`` (groups without recipients left out), split
    by status as a share of its recipients, DELIVERED first (hover: counts)."""
    table, labels = _shown_groups(breakdowns.delivery_breakdown(outcomes, by), "recipients")
    figure = go.Figure()
    statuses = ["DELIVERED", *(s for s in OUTCOME_STATUSES if s != "DELIVERED"),
                breakdowns.UNREADABLE]  # fmt: skip
    for status in statuses:
        counts = table[status]
        if not counts.any():
            continue
        figure.add_bar(
            y=labels,
            x=(counts / table["recipients"]).tolist(),
            name=status,
            orientation="h",
            marker_color=DELIVERY_STATUS_COLORS[status],
            customdata=[[int(c), int(n)] for c, n in zip(counts, table["recipients"], strict=True)],
            hovertemplate=f"{status}: %{{customdata[0]}} of %{{customdata[1]}} (%{{x:.1%}})"
            "<extra>%{y}</extra>",
        )
    figure.update_layout(
        barmode="stack",
        template=TEMPLATE,
        title=title or f"Delivery by {by.replace('_', ' ')}",
        xaxis={"tickformat": ".0%", "range": [0, 1], "title": "share of recipients"},
        yaxis={"autorange": "reversed", "title": by.replace("_", " ")},
        legend={"traceorder": "normal"},
    )
    return figure


def delivery_times(
    outcomes: pd.DataFrame,
    by: str | None = "line_status",
    *,
    status: str = "DELIVERED",
    title: str | None = None,
) -> go.Figure:
    """The share of messages reaching ``status`` within each time since their send (one
    step line per value of ``by``, or one for all), minutes on a log axis; the legend gives
    each line's median (:func:`smskit.campaigns.analysis.breakdowns.delivery_times`)."""
    table = breakdowns.delivery_times(outcomes, by, status=status)
    mask = (outcomes["status"] == status).to_numpy() & outcomes["time_to_delivery"].notna()
    minutes = outcomes.loc[mask, "time_to_delivery"].dt.total_seconds() / 60
    groups = breakdowns.group_values(outcomes, by)[mask].astype(str) if by else None
    figure = go.Figure()
    keys = [key for key in table.index if key != breakdowns.TOTAL] if by else [None]
    for key in keys:
        values = minutes if groups is None else minutes[(groups == str(key)).to_numpy()]
        if values.empty:
            continue
        ordered = values.sort_values().clip(lower=1 / 60)
        shares = [(i + 1) / len(ordered) for i in range(len(ordered))]
        median = table.loc[key if key is not None else breakdowns.TOTAL, "median"]
        name = f"{key if key is not None else 'all'} (median {_minutes(median)})"
        figure.add_scatter(
            x=ordered.tolist(), y=shares, mode="lines", line_shape="hv", name=name,
            hovertemplate="%{y:.0%} within %{x:.1f} min<extra></extra>",
        )  # fmt: skip
    figure.update_layout(
        template=TEMPLATE,
        title=title or f"Time to {status}",
        xaxis={"type": "log", "title": "minutes after the send"},
        yaxis={"tickformat": ".0%", "range": [0, 1.02], "title": "share of messages"},
    )
    return figure


def clicks_over_time(
    clicks: pd.DataFrame, sent_at: object = None, *, freq: str = "1min", title: str | None = None
) -> go.Figure:
    """People's and bots' requests on tracked links per ``freq`` period since ``sent_at``
    (default: the first request), stacked bars (``clicks``: :meth:`smskit.Inbox.clicks`, or
    one campaign's rows of it; :func:`smskit.campaigns.analysis.clicks.clicks_over_time`)."""
    table = click_tables.clicks_over_time(clicks, sent_at, freq)
    unit, seconds = _time_unit(freq)
    elapsed = (pd.TimedeltaIndex(table.index).total_seconds() / seconds).tolist()
    figure = go.Figure()
    for column, color in (("human", "#2ca02c"), ("bot", "#bcbcbc")):
        figure.add_bar(
            x=elapsed, y=table[column].tolist(), name="people" if column == "human" else "bots",
            marker_color=color, hovertemplate=f"%{{y}} at %{{x:g}} {unit}<extra></extra>",
        )  # fmt: skip
    figure.update_layout(
        template=TEMPLATE,
        barmode="stack",
        title=title or "Clicks on tracked links",
        xaxis={"title": f"{unit} after {'the send' if sent_at is not None else 'the first'}"},
        yaxis={"title": f"requests per {freq}"},
    )
    return figure


_TIME_UNITS: Final = (("days", 86_400), ("hours", 3_600), ("minutes", 60), ("seconds", 1))


def _time_unit(freq: str) -> tuple[str, int]:
    """The largest unit a period of ``freq`` is a whole number of (seconds at least), and its
    length in seconds: "1s" bars are 0, 1, 2 seconds apart, not 0.0167 minutes."""
    period = pd.Timedelta(freq).total_seconds()
    return next(
        ((unit, seconds) for unit, seconds in _TIME_UNITS if period % seconds == 0),
        _TIME_UNITS[-1],
    )


def cost_breakdown(
    outcomes: pd.DataFrame, by: str = "country", *, title: str | None = None
) -> go.Figure:
    """Cost per value of ``by``, three bars side by side: predicted (preflight), billed (the
    send answers), reported (the delivery reports' unit prices); hover: messages each way
    does not know."""
    table, labels = _shown_groups(breakdowns.cost_breakdown(outcomes, by), "messages")
    figure = go.Figure()
    for way, color in COST_COLORS.items():
        figure.add_bar(
            x=labels,
            y=table[way].tolist(),
            name=way,
            marker_color=color,
            customdata=table[f"unknown_{way}"].tolist(),
            hovertemplate=f"{way}: %{{y:.2f}} EUR (%{{customdata}} messages unknown)"
            "<extra>%{x}</extra>",
        )
    figure.update_layout(
        barmode="group",
        template=TEMPLATE,
        title=title or f"Cost by {by.replace('_', ' ')}: predicted, billed, reported",
        yaxis={"title": "EUR"},
        xaxis={"title": by.replace("_", " ")},
    )
    return figure


def _shown_groups(table: pd.DataFrame, count: str) -> tuple[pd.DataFrame, list[str]]:
    """The groups a figure draws bars for (not the total, none whose ``count`` is 0), labelled."""
    table = table.drop(index=breakdowns.TOTAL)
    table = table[table[count] > 0]
    return table, [str(label) for label in table.index]


def _minutes(value: object) -> str:
    if not isinstance(value, pd.Timedelta) or pd.isna(value):
        return "n/a"
    seconds = value.total_seconds()
    return f"{seconds:.0f} s" if seconds < 120 else f"{seconds / 60:.0f} min"
