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

from smskit._html import LINE_STATUS_COLORS, MISSING_COLOR
from smskit.client import frames
from smskit.client.models import Draft
from smskit.errors import MissingExtraError, ValidationError

try:
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots
except ImportError as exc:  # an optional extra: say which one installs it
    raise MissingExtraError("smskit.plots", "plotly", "notebook") from exc

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
    # Plain ints from here on: the last row and the last column are the totals.
    counts = table.to_numpy(dtype=np.int64)
    statuses = [str(status) for status in table.index]
    types = [str(type_) for type_ in table.columns]
    totals = counts[-1]
    kept_types = [j for j in range(len(types) - 1) if totals[j] > 0]
    kept_statuses = [i for i in range(len(statuses) - 1) if counts[i, -1] > 0]
    figure = go.Figure(
        [
            go.Bar(
                name=statuses[i],
                x=[types[j] for j in kept_types],
                y=[int(counts[i, j]) for j in kept_types],
                customdata=[float(counts[i, j] / totals[j]) for j in kept_types],
                marker_color=_color(statuses[i]),
                hovertemplate="%{x}<br>" + statuses[i] + ": %{y} (%{customdata:.1%} of the type)"
                "<extra></extra>",
            )
            for i in kept_statuses
        ]
    )
    n = int(totals[-1])
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

    # country -> network -> [(line status, count)], in the breakdown's order
    tree: dict[str, dict[str, list[tuple[str, int]]]] = {}
    for (country, network, status), count in zip(table.index.tolist(), table.tolist(), strict=True):
        tree.setdefault(str(country), {}).setdefault(str(network), []).append(
            (str(status), int(count))
        )
    for country, networks in tree.items():
        per_country = sum(count for leaves in networks.values() for _, count in leaves)
        node(country, names.get(country, country), "", per_country, _COUNTRY_COLOR)
        for network, leaves in networks.items():
            network_id = f"{country} / {network}"
            node(network_id, network, country, sum(c for _, c in leaves), _NETWORK_COLOR)
            for status, count in leaves:
                node(f"{network_id} / {status}", status, network_id, count, _color(status))
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


MAP_SCOPES: Final = ("auto", "world", "europe", "asia", "africa", "north america", "south america")
# The ITU numbering zone (the calling code's first digit) places a country well enough to
# choose a map: 1 North America, 2 Africa, 3 and 4 Europe, 5 South America, 8 and 9 Asia,
# with the codes below placed apart (longest prefix wins). Zones 6 (Oceania, South-East
# Asia) and 7 (Russia, Kazakhstan) span maps: the world's.
_ZONE_SCOPES: Final[Mapping[str, str]] = {
    "1": "north america",
    "2": "africa",
    "3": "europe",
    "4": "europe",
    "5": "south america",
    "8": "asia",
    "9": "asia",
    "297": "south america",  # Aruba
    "298": "europe",  # Faroe Islands
    "299": "north america",  # Greenland
    "50": "north america",  # Central America (501-509)
    "500": "south america",  # Falkland Islands
    "52": "north america",  # Mexico
    "53": "north america",  # Cuba
}


def _map_scope(country_code: str) -> str:
    """The plotly geo scope a country (ISO 3166 alpha-2) lies in, "world" when none does."""
    import phonenumbers

    calling = str(phonenumbers.country_code_for_region(str(country_code).upper()))
    if calling == "0":  # not a region phonenumbers knows
        return "world"
    for length in (3, 2, 1):
        if calling[:length] in _ZONE_SCOPES:
            return _ZONE_SCOPES[calling[:length]]
    return "world"


def _scope_for(country_codes: Sequence[str]) -> str:
    """The continent most of the countries lie in (more than half of them), else "world"."""
    scopes = [_map_scope(code) for code in country_codes]
    counts = {scope: scopes.count(scope) for scope in scopes if scope != "world"}
    if not counts:
        return "world"
    best = max(counts, key=lambda scope: counts[scope])
    return best if 2 * counts[best] > len(scopes) else "world"


def credits_map(
    credits: Any, *, product: str = "premium_sms", scope: str = "auto", title: str | None = None
) -> go.Figure:
    """Choropleth of one product's credits per country (ISO 3166 alpha-3 locations).

    ``scope``: a plotly geo scope (``"europe"``, ``"world"`` ...) or ``"auto"``: the continent
    holding more than half of the countries, else the world. Countries outside a continent's
    map are named under it (and left out of the colour scale); the map is zoomed to the
    countries shown.
    """
    (product,) = _products(product)
    if scope not in MAP_SCOPES:
        raise ValidationError("scope", f"one of {', '.join(MAP_SCOPES)}", value=scope)
    tidy = _credits(credits)
    rows = tidy[(tidy["product"] == product) & tidy["iso3"].notna()]
    codes = [str(code) for code in rows["country_code"]]
    chosen = _scope_for(codes) if scope == "auto" else scope
    geo: dict[str, Any] = {"showframe": False, "fitbounds": "locations"}
    outside: list[str] = []
    if chosen == "world":
        geo["projection_type"] = "natural earth"
    else:
        # Countries off the map would stretch the colour scale: they are named instead.
        inside = [_map_scope(code) == chosen for code in codes]
        outside = [
            name if isinstance(name, str) and name else code
            for code, name, shown in zip(codes, rows["country"].tolist(), inside, strict=True)
            if not shown
        ]
        rows = rows[inside]
        geo["scope"] = chosen
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
    if outside:
        figure.add_annotation(
            text=f"not on this map of {chosen.title()}: {', '.join(outside)}",
            xref="paper", yref="paper", x=0, y=0, showarrow=False, align="left",
        )  # fmt: skip
    figure.update_layout(
        template=_TEMPLATE, title=title or f"{product} credits by country", geo=geo
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
    times = pd.DatetimeIndex(pd.to_datetime(frame["reception_date"]))
    flags = pd.DataFrame({"replies": ~opt_out, "opt_outs": opt_out}, index=times).astype(np.int64)
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
        # the hours read are those of the frame's zone (the account's, from Inbox.to_frame)
        xaxis_title="reception_date" + (f" ({times.tz})" if times.tz is not None else ""),
        yaxis_title="replies",
    )
    return figure
