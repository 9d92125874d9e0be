"""Plotly figures of HLR results, credits, drafts and replies.

Reached lazily (``smskit.views.plots``), so ``import smskit`` never loads plotly. Every function
returns a ``plotly.graph_objects.Figure`` and never shows it: display it in a notebook cell,
``fig.show()``, or ``fig.write_image(...)`` (kaleido). The numbers come from
:mod:`smskit.client.frames`, so a figure and its table always agree. ``line_status`` has one colour
everywhere (:data:`LINE_STATUS_COLORS`: live green, dead red...).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from smskit._html import LINE_STATUS_COLORS, MISSING_COLOR
from smskit.client import frames
from smskit.client.models import Draft
from smskit.errors import ValidationError

__all__ = [
    "KIND_COLORS",
    "LINE_STATUS_COLORS",
    "OPT_OUT_COLOR",
    "PRODUCT_COLORS",
    "REPLIES_COLUMNS",
    "REPLY_COLOR",
    "credits_bar",
    "credits_map",
    "draft_costs",
    "hlr_breakdown",
    "hlr_sunburst",
    "replies_timeline",
]

PRODUCT_COLORS: Final[Mapping[str, str]] = {
    "premium_sms": "#1f77b4",
    "vocal_sms": "#9467bd",
    "low_cost_sms": "#17becf",
    "hlr": "#7f7f7f",
}
KIND_COLORS: Final[Mapping[str, str]] = {"sms": "#1f77b4", "voice": "#9467bd"}
REPLY_COLOR: Final = "#1f77b4"
OPT_OUT_COLOR: Final = LINE_STATUS_COLORS["dead"]
# What replies_timeline needs: the replies engineer's inbox frames have these columns.
REPLIES_COLUMNS: Final = ("reception_date", "number", "text", "message_id", "is_opt_out")
_TEMPLATE = "plotly_white"
_COUNTRY_COLOR = "#d9d9d9"
_NETWORK_COLOR = "#efefef"


def _color(line_status: str) -> str:
    return LINE_STATUS_COLORS.get(line_status, MISSING_COLOR)


def _numbers(values: pd.Series) -> list[int | None]:
    """Nullable integers as plain ints (plotly then writes 15384, not 15384.0)."""
    return [None if pd.isna(v) else int(v) for v in values]


def _hlr(data: Any) -> pd.DataFrame:
    return data if isinstance(data, pd.DataFrame) else frames.hlr_frame(data)


# -- HLR ---------------------------------------------------------------------------------------


def hlr_breakdown(results: Any, *, title: str | None = None) -> go.Figure:
    """Stacked bars: numbers per ``phone_number_type``, split by ``line_status``.

    ``results``: anything :func:`smskit.client.frames.hlr_frame` takes. Types and line statuses
    with no number are left out; both keep spec order.
    """
    table = frames.crosstab(results, "line_status", "phone_number_type")
    totals = table.loc[frames.TOTAL]
    types = [t for t in table.columns[:-1] if totals[t] > 0]
    statuses = [s for s in table.index[:-1] if table.at[s, frames.TOTAL] > 0]
    figure = go.Figure(
        [
            go.Bar(
                name=status,
                x=types,
                y=[int(table.at[status, t]) for t in types],
                customdata=[table.at[status, t] / totals[t] for t in types],
                marker_color=_color(status),
                hovertemplate="%{x}<br>" + status + ": %{y} (%{customdata:.1%} of the type)"
                "<extra></extra>",
            )
            for status in statuses
        ]
    )
    n = int(totals[frames.TOTAL])
    figure.update_layout(
        template=_TEMPLATE,
        barmode="stack",
        title=title or f"Line status by number type ({n:,} numbers)",
        xaxis_title="phone_number_type",
        yaxis_title="numbers",
        legend_title="line_status",
    )
    return figure


def hlr_sunburst(results: Any, *, title: str | None = None) -> go.Figure:
    """Sunburst country -> network -> line status (leaves in the line-status colours)."""
    frame = _hlr(results)
    table = frames.breakdown(frame, ("network", "line_status"))["count"].drop(frames.TOTAL, level=0)
    table = table[table > 0]
    names = _country_names(frame)
    ids: list[str] = []
    labels: list[str] = []
    parents: list[str] = []
    values: list[int] = []
    colors: list[str] = []

    def node(id_: str, label: str, parent: str, value: int, color: str) -> None:
        ids.append(id_)
        labels.append(label)
        parents.append(parent)
        values.append(value)
        colors.append(color)

    for country, per_country in table.groupby(level=0, sort=False):
        node(country, names.get(country, country), "", int(per_country.sum()), _COUNTRY_COLOR)
        for network, per_network in per_country.groupby(level=1, sort=False):
            network_id = f"{country} / {network}"
            node(network_id, network, country, int(per_network.sum()), _NETWORK_COLOR)
            for (_, _, status), count in per_network.items():
                node(f"{network_id} / {status}", status, network_id, int(count), _color(status))
    figure = go.Figure(
        go.Sunburst(
            ids=ids,
            labels=labels,
            parents=parents,
            values=values,
            branchvalues="total",
            marker={"colors": colors},
            hovertemplate="%{label}: %{value} (%{percentParent:.1%} of %{parent})<extra></extra>",
        )
    )
    total = int(table.sum())
    figure.update_layout(
        template=_TEMPLATE, title=title or f"Country, network and line status ({total:,} numbers)"
    )
    return figure


def _country_names(frame: pd.DataFrame) -> dict[str, str]:
    """Country code -> the name the HLR answers give it."""
    if "country_name" not in frame.columns:
        return {}
    known = frame[["country_code", "country_name"]].dropna().drop_duplicates("country_code")
    return dict(zip(known["country_code"], known["country_name"], strict=True))


# -- credits -----------------------------------------------------------------------------------


def _credits(credits: Any) -> pd.DataFrame:
    """The tidy credits frame of a ``Credits`` answer, its raw JSON, or that frame itself."""
    return credits if isinstance(credits, pd.DataFrame) else frames.credits_frame(credits)


def _products(products: str | Sequence[str]) -> list[str]:
    chosen = [products] if isinstance(products, str) else list(products)
    known = list(frames.CREDIT_PRODUCT_DTYPE.categories)
    for product in chosen:
        if product not in known:
            raise ValidationError("product", f"one of {', '.join(known)}", value=product)
    return chosen


def credits_bar(
    credits: Any,
    *,
    products: Sequence[str] = tuple(frames.CREDIT_PRODUCT_DTYPE.categories),
    title: str | None = None,
) -> go.Figure:
    """Grouped bars: credits per country, one bar per product (countries in answer order)."""
    tidy = _credits(credits)
    figure = go.Figure()
    for product in _products(products):
        rows = tidy[tidy["product"] == product]
        figure.add_trace(
            go.Bar(
                name=product,
                x=rows["country_code"].tolist(),
                y=_numbers(rows["credits"]),
                customdata=rows["country"].fillna("").tolist(),
                marker_color=PRODUCT_COLORS[product],
                hovertemplate="%{customdata} (%{x})<br>" + product + ": %{y:,}<extra></extra>",
            )
        )
    figure.update_layout(
        template=_TEMPLATE,
        barmode="group",
        title=title or "Credits by country and product",
        xaxis_title="country_code",
        yaxis_title="credits",
        legend_title="product",
    )
    return figure


def credits_map(
    credits: Any, *, product: str = "premium_sms", title: str | None = None
) -> go.Figure:
    """World choropleth of one product's credits per country (ISO 3166 alpha-3 locations)."""
    (product,) = _products(product)
    tidy = _credits(credits)
    rows = tidy[(tidy["product"] == product) & tidy["iso3"].notna()]
    figure = go.Figure(
        go.Choropleth(
            locations=rows["iso3"].tolist(),
            locationmode="ISO-3",
            z=_numbers(rows["credits"]),
            text=rows["country"].fillna("").tolist(),
            colorscale="Greens",
            colorbar_title="credits",
            hovertemplate="%{text}: %{z:,} " + product + "<extra></extra>",
        )
    )
    figure.update_layout(
        template=_TEMPLATE,
        title=title or f"{product} credits by country",
        geo={"showframe": False, "projection_type": "natural earth"},
    )
    return figure


# -- drafts ------------------------------------------------------------------------------------


def draft_costs(*drafts: Draft | pd.DataFrame, title: str | None = None) -> go.Figure:
    """Two panels, SMS vs voice: total cost and cost per contact of the drafts."""
    if len(drafts) == 1 and isinstance(drafts[0], pd.DataFrame):
        table = drafts[0]
    else:
        table = frames.drafts_frame(*drafts)  # type: ignore[arg-type]
    kinds = [str(kind) for kind in table["kind"]]
    colors = [KIND_COLORS.get(kind, MISSING_COLOR) for kind in kinds]
    figure = make_subplots(rows=1, cols=2, subplot_titles=("total cost", "cost per contact"))
    for column, col in (("total_cost", 1), ("cost_per_contact", 2)):
        values = table[column].astype("float64").to_numpy()
        figure.add_trace(
            go.Bar(
                name=column,
                x=kinds,
                y=[None if np.isnan(v) else float(v) for v in values],
                customdata=_numbers(table["number_of_contacts"]),
                marker_color=colors,
                showlegend=False,
                hovertemplate="%{x}: %{y} (%{customdata} contacts)<extra></extra>",
            ),
            row=1,
            col=col,
        )
    figure.update_layout(template=_TEMPLATE, title=title or "Draft cost: SMS vs voice")
    return figure


# -- replies -----------------------------------------------------------------------------------


def replies_timeline(
    frame: pd.DataFrame, freq: str = "D", *, title: str | None = None
) -> go.Figure:
    """Stacked bars of replies per period (``freq``: a pandas alias, "D", "h", "W"...), with
    opt-outs in red on top; periods without replies show as zero.

    ``frame`` has the :data:`REPLIES_COLUMNS`: ``reception_date`` (datetime64), ``number``,
    ``text``, ``message_id``, ``is_opt_out`` (bool).
    """
    for column in REPLIES_COLUMNS:
        if column not in frame.columns:
            raise ValidationError(column, "column required for the replies timeline")
    opt_out = frame["is_opt_out"].fillna(False).astype(bool).to_numpy()
    flags = pd.DataFrame(
        {"replies": ~opt_out, "opt_outs": opt_out},
        index=pd.DatetimeIndex(pd.to_datetime(frame["reception_date"])),
    ).astype(np.int64)
    try:
        periods = flags.resample(freq).sum()
    except ValueError as exc:
        raise ValidationError(
            "freq", "a pandas offset alias such as 'D', 'h' or 'W'", value=freq
        ) from exc
    x = periods.index.tolist()
    figure = go.Figure(
        [
            go.Bar(name="replies", x=x, y=periods["replies"].tolist(), marker_color=REPLY_COLOR),
            go.Bar(
                name="opt-outs", x=x, y=periods["opt_outs"].tolist(), marker_color=OPT_OUT_COLOR
            ),
        ]
    )
    figure.update_layout(
        template=_TEMPLATE,
        barmode="stack",
        title=title
        or f"Replies per period ({len(frame):,} replies, {int(opt_out.sum()):,} opt-outs)",
        xaxis_title="reception_date",
        yaxis_title="replies",
    )
    return figure
