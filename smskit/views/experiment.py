"""The figure of an experiment's arms: each rate with its interval, one panel per metric.

Reached lazily (``smskit.plots.experiment_arms``), so ``import smskit`` never loads plotly.
Every number is the :class:`~smskit.campaigns.analysis.comparison.ExperimentComparison`'s: the
figure draws its ``rates`` frame (rate and Wilson interval) and names, under each arm but the
control, the adjusted p-value of its test against the control from its ``tests`` frame.
"""

from __future__ import annotations

import math
from typing import Final

from smskit._html import LINE_STATUS_COLORS
from smskit.campaigns.analysis.comparison import METRICS, OPTIONAL_METRICS, ExperimentComparison
from smskit.views.plotly_extra import TEMPLATE, importing_plotly

with importing_plotly():
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

__all__ = ["METRIC_COLORS", "experiment_arms"]

# Delivered green (a live line's), replied blue (the replies figures'), opted out red.
METRIC_COLORS: Final = {
    "delivered": LINE_STATUS_COLORS["live"],
    "replied": "#1f77b4",
    "opted_out": LINE_STATUS_COLORS["dead"],
    "clicked": "#9467bd",
}
_TITLES: Final = {
    "delivered": "Delivered", "replied": "Replied", "opted_out": "Opted out", "clicked": "Clicked",
}  # fmt: skip


def experiment_arms(comparison: ExperimentComparison, *, title: str | None = None) -> go.Figure:
    """One panel per metric (delivered, replied, opted out; clicked when compared): each
    arm's rate among its recipients sent, with its Wilson interval as error bars; under each
    arm but the control,
    ``p=`` its adjusted p-value against the control. An arm with no rate shows no point."""
    rates, tests = comparison.rates, comparison.tests
    metrics = [*METRICS, *(m for m in OPTIONAL_METRICS if (rates["metric"] == m).any())]
    figure = make_subplots(rows=1, cols=len(metrics), subplot_titles=[_TITLES[m] for m in metrics])
    for column, metric in enumerate(metrics, start=1):
        part = rates[rates["metric"] == metric]
        tested = tests[tests["metric"] == metric].set_index("arm", drop=False)
        labels = []
        for arm in part["arm"].astype(str):
            p = tested["p_adjusted"].get(arm) if arm in tested.index else None
            shown = "control" if arm == comparison.control else _p_text(p)
            labels.append(f"{arm}<br><sub>{shown}</sub>")
        rate = part["rate"].to_numpy(dtype=float)
        figure.add_trace(
            go.Scatter(
                x=labels,
                y=rate,
                mode="markers",
                name=_TITLES[metric],
                marker={"color": METRIC_COLORS[metric], "size": 10},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": part["ci_high"].to_numpy(dtype=float) - rate,
                    "arrayminus": rate - part["ci_low"].to_numpy(dtype=float),
                },
                customdata=part[["count", "sent", "ci_low", "ci_high"]].to_numpy(),
                hovertemplate=(
                    "%{customdata[0]} of %{customdata[1]}: %{y:.2%}<br>"
                    "interval %{customdata[2]:.2%} to %{customdata[3]:.2%}<extra></extra>"
                ),
            ),
            row=1,
            col=column,
        )
        figure.update_yaxes(tickformat=".0%", rangemode="tozero", row=1, col=column)
    level = 1 - comparison.alpha
    figure.update_layout(
        template=TEMPLATE,
        showlegend=False,
        title=title
        or f"Arms against {comparison.control}: rates with {level:.0%} Wilson intervals "
        f"(p adjusted: {comparison.correction})",
    )
    return figure


def _p_text(p: float | None) -> str:
    if p is None or math.isnan(p):
        return "p n/a"
    return "p<0.001" if p < 0.001 else f"p={p:.3f}"
