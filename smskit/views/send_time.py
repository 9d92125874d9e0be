"""The figure of send time: delivery, reply, click and conversion rates by send hour or weekday.

Reached lazily (``smskit.plots.send_time_rates``), so ``import smskit`` never loads plotly.
Every number is :func:`smskit.campaigns.send_times`' frame: one line per rate the frame has
(a rate with no campaign in its slot is a gap, not a zero), and the recipients sent per slot
as bars on a second axis, so a high rate over a handful of recipients reads as such.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from smskit.errors import ValidationError
from smskit.views.plotly_extra import TEMPLATE, importing_plotly

with importing_plotly():
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["send_time_rates"]

_RATES: Final = {
    "delivery_rate": ("Delivered", "#2ca02c"),
    "reply_rate": ("Replied", "#1f77b4"),
    "click_rate": ("Clicked", "#ff7f0e"),
    "conversion_rate": ("Converted", "#d62728"),
}


def send_time_rates(table: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """``table``: :func:`smskit.campaigns.send_times`' frame (indexed by ``hour`` or
    ``weekday``). Each rate with at least one known value is a line (percent, left axis);
    ``sent`` is grey bars (right axis)."""
    missing = [c for c in ("sent", "campaigns", *_RATES) if c not in table.columns]
    if missing:
        raise ValidationError(
            "table", f"must be smskit.campaigns.send_times' frame (no column {missing[0]!r})"
        )
    slot = table.index.name or "slot"
    x = [str(v) for v in table.index]
    figure = make_subplots(specs=[[{"secondary_y": True}]])
    figure.add_trace(
        go.Bar(
            x=x, y=table["sent"].to_numpy(dtype=float), name="sent", opacity=0.25,
            marker={"color": "#9e9e9e"}, customdata=table["campaigns"].to_numpy(),
            hovertemplate="%{y:,} sent in %{customdata} campaign(s)<extra></extra>",
        ),
        secondary_y=True,
    )  # fmt: skip
    for column, (label, color) in _RATES.items():
        rates = table[column].astype("float64")
        if rates.isna().all():  # not known at all (no inbox, no orders): not drawn as zero
            continue
        figure.add_trace(
            go.Scatter(
                x=x, y=rates.to_numpy(), name=label, mode="lines+markers", connectgaps=False,
                line={"color": color}, hovertemplate=f"{label}: %{{y:.1%}}<extra></extra>",
            ),
            secondary_y=False,
        )  # fmt: skip
    # From zero: a rate is never negative, and a lone point (every campaign sent in the same
    # hour) was centred on an axis running from -90 % to 100 %.
    figure.update_yaxes(
        title_text="rate (of sent)", tickformat=".0%", rangemode="tozero", secondary_y=False
    )
    figure.update_yaxes(
        title_text="recipients sent", showgrid=False, rangemode="tozero", secondary_y=True
    )
    figure.update_xaxes(title_text=f"send {slot}", type="category")
    figure.update_layout(
        title=title or f"Rates by send {slot}", template=TEMPLATE, hovermode="x unified",
        # above the plot: on its right it covered the right axis's title
        legend={"orientation": "h", "yanchor": "bottom", "y": 1.02, "xanchor": "right", "x": 1},
    )  # fmt: skip
    return figure
