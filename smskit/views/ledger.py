"""The ledger's figure: what every campaign cost and how much of it was delivered, over time.

Reached lazily (``smskit.plots.campaign_history``), so ``import smskit`` never loads plotly.
The numbers are the ledger's (:func:`smskit.campaigns.history`), so the figure and the table
always agree.
"""

from __future__ import annotations

from typing import Final

import pandas as pd

from smskit.campaigns.analysis.ledger import history
from smskit.errors import ValidationError
from smskit.views.plotly_extra import TEMPLATE, importing_plotly, plain_ints

with importing_plotly():
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

__all__ = ["COST_COLOR", "DELIVERED_COLOR", "SENT_COLOR", "campaign_history"]

COST_COLOR: Final = "#9467bd"
SENT_COLOR: Final = "#1f77b4"
DELIVERED_COLOR: Final = "#2ca02c"
_NEEDED: Final = ("name", "started", "sent", "cost", "delivered", "problem")


def campaign_history(ledger: pd.DataFrame | None = None, *, title: str | None = None) -> go.Figure:
    """Two panels over the campaigns' start times: the cost of each campaign with the running
    total, then recipients sent and delivered per campaign (hover: the delivery rate).

    ``ledger``: a frame of :func:`smskit.campaigns.history` (default: ``history()`` of the
    campaigns directory). Rows of journals that could not be read have no time: they are not
    drawn, and the title says how many there are. Delivered counts not known (no delivery
    reports read) are left out of the lower panel, and the title says so.
    """
    frame = history() if ledger is None else ledger
    if not isinstance(frame, pd.DataFrame):
        raise ValidationError("ledger", "must be a DataFrame of smskit.campaigns.history()")
    for column in _NEEDED:
        if column not in frame.columns:
            raise ValidationError(column, "column required for the campaign history figure")
    unread = int(frame["problem"].notna().sum())
    rows = frame[frame["problem"].isna()].sort_values("started", kind="stable")
    x = rows["started"].tolist()
    names = rows["name"].astype(object).tolist()
    cost = rows["cost"].astype("float64")
    figure = make_subplots(
        rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08,
        subplot_titles=("cost per campaign", "recipients sent and delivered"),
    )  # fmt: skip
    figure.add_trace(
        go.Scatter(name="cost", x=x, y=cost.tolist(), mode="markers", text=names,
                   marker={"color": COST_COLOR, "size": 9},
                   hovertemplate="%{text}<br>%{x}<br>cost %{y}<extra></extra>"),
        row=1, col=1,
    )  # fmt: skip
    figure.add_trace(
        go.Scatter(name="total cost", x=x, y=cost.cumsum().round(6).tolist(), mode="lines",
                   line={"color": COST_COLOR, "shape": "hv", "dash": "dot"},
                   hovertemplate="total %{y}<extra></extra>"),
        row=1, col=1,
    )  # fmt: skip
    sent = rows["sent"]
    delivered = rows["delivered"]
    rate = [
        "" if pd.isna(d) or pd.isna(s) or not s else f"{d / s:.1%} delivered"
        for s, d in zip(sent, delivered, strict=True)
    ]
    figure.add_trace(
        go.Scatter(name="sent", x=x, y=plain_ints(sent), mode="markers", text=names,
                   marker={"color": SENT_COLOR, "size": 9, "symbol": "circle-open"},
                   hovertemplate="%{text}<br>sent %{y}<extra></extra>"),
        row=2, col=1,
    )  # fmt: skip
    known = delivered.notna().to_numpy()
    figure.add_trace(
        go.Scatter(name="delivered", x=[t for t, k in zip(x, known, strict=True) if k],
                   y=plain_ints(delivered[known]), mode="markers",
                   text=[n for n, k in zip(names, known, strict=True) if k],
                   customdata=[r for r, k in zip(rate, known, strict=True) if k],
                   marker={"color": DELIVERED_COLOR, "size": 7},
                   hovertemplate="%{text}<br>delivered %{y} (%{customdata})<extra></extra>"),
        row=2, col=1,
    )  # fmt: skip
    notes = []
    if len(rows) and not known.all():
        notes.append(f"delivery not known for {int((~known).sum())} of {len(rows)}")
    if unread:
        notes.append(f"{unread} journal(s) unreadable, not drawn")
    zone = getattr(rows["started"].dt, "tz", None)
    figure.update_layout(
        template=TEMPLATE,
        title=title
        or f"Campaigns: cost and delivery ({len(rows)} campaigns"
        + "".join(f"; {note}" for note in notes)
        + ")",
    )
    figure.update_xaxes(title_text="started" + (f" ({zone})" if zone else ""), row=2, col=1)
    figure.update_yaxes(title_text="cost", row=1, col=1)
    figure.update_yaxes(title_text="recipients", row=2, col=1)
    return figure
