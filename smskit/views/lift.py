"""The figure of a campaign's incremental lift: each difference with its interval.

Reached lazily (``smskit.plots.lift_intervals``), so ``import smskit`` never loads plotly.
Every number is the :class:`~smskit.campaigns.analysis.lift.Lift`'s ``table``: one panel per
per-recipient metric (conversion rate, revenue per recipient), the treated and held-out
values as bars and the difference (treated - holdout) as a point with its interval.
"""

from __future__ import annotations

from typing import Final

from smskit._html import LINE_STATUS_COLORS
from smskit.campaigns.analysis.lift import Lift
from smskit.views.plotly_extra import TEMPLATE, importing_plotly

with importing_plotly():
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

__all__ = ["lift_intervals"]

_PANELS: Final = {
    "conversion_rate": "Conversion rate",
    "revenue_per_recipient": "Revenue per recipient",
}
_GROUP_COLORS: Final = {"treated": LINE_STATUS_COLORS["live"], "holdout": "#9e9e9e"}


def lift_intervals(lift: Lift, *, title: str | None = None) -> go.Figure:
    """Per panel (conversion rate, revenue per recipient): the treated and held-out values
    as bars, and the difference with its interval as a point with error bars (a missing
    value draws nothing)."""
    names = list(_PANELS)
    figure = make_subplots(rows=1, cols=len(names), subplot_titles=[_PANELS[m] for m in names])
    for column, metric in enumerate(names, start=1):
        percent = metric == "conversion_rate"
        for group in ("treated", "holdout"):
            figure.add_trace(
                go.Bar(
                    x=[group],
                    y=[lift.value(metric, group)],
                    marker={"color": _GROUP_COLORS[group]},
                    name=group,
                    showlegend=column == 1,
                    legendgroup=group,
                ),
                row=1,
                col=column,
            )
        difference = lift.value(metric)
        figure.add_trace(
            go.Scatter(
                x=["difference"],
                y=[difference],
                mode="markers",
                marker={"color": "#1f77b4", "size": 11},
                name=f"difference, {1 - lift.alpha:.0%} interval",
                showlegend=column == 1,
                legendgroup="difference",
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": [lift.value(metric, "ci_high") - difference],
                    "arrayminus": [difference - lift.value(metric, "ci_low")],
                },
            ),
            row=1,
            col=column,
        )
        figure.update_yaxes(tickformat=".1%" if percent else ",.2f", row=1, col=column)
        figure.add_hline(y=0, line={"color": "#444", "width": 1}, row=1, col=column)
    figure.update_layout(
        title=title or f"Treated ({lift.treated:,}) against holdout ({lift.holdout:,})",
        template=TEMPLATE,
        bargap=0.35,
    )
    return figure
