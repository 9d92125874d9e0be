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
from smskit.client.dtypes import CREDIT_PRODUCT_DTYPE, TOTAL
from smskit.client.models import Draft
from smskit.errors import ValidationError
from smskit.rules.choices import checked_choice
from smskit.rules.missing import MISSING
from smskit.rules.ranges import checked_integer
from smskit.rules.timezone import account_time_zone
from smskit.views.plotly_extra import TEMPLATE, importing_plotly, plain_ints

with importing_plotly():
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

__all__ = [
    "KIND_COLORS",
    "OPT_OUT_COLOR",
    "PRODUCT_COLORS",
    "REPLIES_COLUMNS",
    "REPLY_COLOR",
    "WHOLE_LIST",
    "credits_bar",
    "credits_map",
    "draft_costs",
    "fatigue_curve",
    "hlr_breakdown",
    "hlr_networks",
    "hlr_sunburst",
    "replies_timeline",
    "time_zone_scope",
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
_COUNTRY_COLOR = "#d9d9d9"
_NETWORK_COLOR = "#efefef"


def _color(line_status: str) -> str:
    return LINE_STATUS_COLORS.get(line_status, MISSING_COLOR)


def _hlr(data: Any) -> pd.DataFrame:
    return data if isinstance(data, pd.DataFrame) else frames.hlr_frame(data)


# -- HLR ---------------------------------------------------------------------------------------


def hlr_breakdown(results: Any, *, title: str | None = None) -> go.Figure:
    """Stacked bars: numbers per ``phone_number_type``, split by ``line_status``.

    ``results``: what :func:`smskit.bulk_hlr` or ``client.contact.hlr_request`` returned
    (an :class:`smskit.HLRResults`), its ``to_frame()``, or anything else
    :func:`smskit.frames.hlr_frame` takes. Types and line statuses with no number are left
    out; both keep spec order. See docs/hlr.md.
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
        template=TEMPLATE,
        barmode="stack",
        title=title or f"Line status by number type ({n:,} numbers)",
        xaxis_title="phone_number_type",
        yaxis_title="numbers",
        legend_title="line_status",
    )
    return figure


def hlr_sunburst(results: Any, *, title: str | None = None) -> go.Figure:
    """Sunburst country -> network -> line status (leaves in the line-status colours), 600 px
    high; labels too small to read are hidden (hover shows them). For two levels,
    :func:`hlr_networks` reads better."""
    frame = _hlr(results)
    table = frames.breakdown(frame, ("network", "line_status"))["count"].drop(TOTAL, level=0)
    table = table[table > 0]
    names = _country_names(frame)
    nodes: list[tuple[str, str, str, int, str]] = []  # id, label, parent, value, colour
    # country -> network -> [(line status, count)], in the breakdown's order
    tree: dict[str, dict[str, list[tuple[str, int]]]] = {}
    for (country, network, status), count in zip(table.index.tolist(), table.tolist(), strict=True):
        tree.setdefault(str(country), {}).setdefault(str(network), []).append(
            (str(status), int(count))
        )
    for country, networks in tree.items():
        per_country = sum(count for leaves in networks.values() for _, count in leaves)
        nodes.append((country, names.get(country, country), "", per_country, _COUNTRY_COLOR))
        for network, leaves in networks.items():
            network_id = f"{country} / {network}"
            nodes.append((network_id, network, country, sum(c for _, c in leaves), _NETWORK_COLOR))
            nodes += [
                (f"{network_id} / {status}", status, network_id, count, _color(status))
                for status, count in leaves
            ]
    ids, labels, parents, values, colors = [*zip(*nodes, strict=True)] or [()] * 5
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
        template=TEMPLATE,
        title=title or f"Country, network and line status ({total:,} numbers)",
        # A label too small to read at 10 px is left to the hover, not drawn shrunk.
        uniformtext={"minsize": 10, "mode": "hide"},
        height=600,
    )
    return figure


def _network_label(country: str, network: str) -> str:
    """A bar's label: the network and its country; neither known (an entry that is no phone
    number) reads "no network, no country", not "no network ((missing))"."""
    if country == MISSING:
        return "no network, no country" if network == MISSING else f"{network} (no country)"
    return f"{'no network' if network == MISSING else network} ({country})"


def hlr_networks(results: Any, *, top: int = 15, title: str | None = None) -> go.Figure:
    """Horizontal stacked bars: numbers per network (with its country), split by line status.

    Two categorical levels read as labels, not as slices: the ``top`` networks with the most
    numbers (as :func:`smskit.frames.breakdown` by ``("network", "line_status")`` counts
    them; ties in the table's order; numbers without a network are "no network (country)",
    an entry with neither "no network, no country"), the others summed in one last bar that
    says how many they are.
    """
    top = checked_integer("top", top, low=1)
    frame = _hlr(results)
    table = frames.breakdown(frame, ("network", "line_status"))["count"].drop(TOTAL, level=0)
    per_network = table.groupby(level=[0, 1], sort=False).sum()
    per_network = per_network[per_network > 0].sort_values(ascending=False, kind="stable")
    networks = [(str(country), str(network)) for country, network in per_network.index]
    shown, rest = networks[:top], networks[top:]
    labels = [_network_label(country, network) for country, network in shown]
    if rest:
        labels.append(f"{len(rest)} other network{'s' if len(rest) > 1 else ''}")
    counts: dict[str, list[int]] = {}
    for (country, network, status), count in zip(table.index, table.tolist(), strict=True):
        key = (str(country), str(network))
        if key not in per_network.index:
            continue
        row = shown.index(key) if key in shown else len(shown)
        counts.setdefault(str(status), [0] * len(labels))[row] += int(count)
    totals = [sum(row) for row in zip(*counts.values(), strict=True)]
    figure = go.Figure(
        [
            go.Bar(
                name=status,
                orientation="h",
                y=labels,
                x=values,
                customdata=[v / t if t else 0.0 for v, t in zip(values, totals, strict=True)],
                marker_color=_color(status),
                hovertemplate="%{y}<br>" + status + ": %{x} (%{customdata:.1%} of the network)"
                "<extra></extra>",
            )
            for status, values in counts.items()
            if any(values)
        ]
    )
    n = sum(totals)
    figure.update_layout(
        template=TEMPLATE,
        barmode="stack",
        title=title or f"Line status by network ({n:,} numbers)",
        xaxis_title="numbers",
        yaxis={"autorange": "reversed", "automargin": True},
        legend={"title": "line_status", "traceorder": "normal"},
        height=160 + 28 * len(labels),
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
    known = list(CREDIT_PRODUCT_DTYPE.categories)
    for product in chosen:
        if product not in known:
            raise ValidationError("product", f"one of {', '.join(known)}", value=product)
    return chosen


def credits_bar(
    credits: Any,
    *,
    products: Sequence[str] = tuple(CREDIT_PRODUCT_DTYPE.categories),
    top: int = 12,
    title: str | None = None,
) -> go.Figure:
    """Horizontal grouped bars: the ``top`` countries by credits of the first of ``products``
    (most first; ties by country code), one bar per product, and the other countries grouped.

    Credits are what the whole balance buys in one country, so they do not add up across
    countries: the grouped bar is the others' median, its whiskers their lowest and highest.
    """
    top = checked_integer("top", top, low=1)
    tidy = _credits(credits)
    chosen = _products(products)
    wide = tidy.pivot(index="country_code", columns="product", values="credits")
    names = tidy.drop_duplicates("country_code").set_index("country_code")["country"]
    first = wide[chosen[0]].astype("Float64")
    order = sorted(
        wide.index, key=lambda code: (-(first[code] if pd.notna(first[code]) else -1), code)
    )
    shown, rest = order[:top], order[top:]
    labels = [f"{names[code]} ({code})" if pd.notna(names[code]) else str(code) for code in shown]
    others = f"{len(rest)} other countr{'ies' if len(rest) > 1 else 'y'}" if rest else ""
    figure = go.Figure()
    for product in chosen:
        column = wide[product]
        figure.add_trace(
            go.Bar(
                name=product,
                orientation="h",
                y=labels,
                x=plain_ints(column[shown]),
                offsetgroup=product,
                legendgroup=product,
                marker_color=PRODUCT_COLORS[product],
                hovertemplate="%{y}<br>" + product + ": %{x:,}<extra></extra>",
            )
        )
        values = column[rest].dropna()
        if rest and len(values):
            low, median, high = (float(v) for v in values.quantile([0.0, 0.5, 1.0]))
            figure.add_trace(
                go.Bar(
                    name=product,
                    orientation="h",
                    y=[others],
                    x=[median],
                    offsetgroup=product,
                    legendgroup=product,
                    showlegend=False,
                    marker={"color": PRODUCT_COLORS[product], "opacity": 0.5},
                    error_x={"type": "data", "symmetric": False, "color": PRODUCT_COLORS[product],
                             "array": [high - median], "arrayminus": [median - low]},
                    customdata=[[low, high]],
                    hovertemplate=others + "<br>" + product + ": median %{x:,.0f}, from "
                    "%{customdata[0]:,.0f} to %{customdata[1]:,.0f}<extra></extra>",
                )
            )  # fmt: skip
    rows = len(labels) + bool(others)
    figure.update_layout(
        template=TEMPLATE,
        barmode="group",
        title=title
        or f"Credits by country: the top {len(shown)} by {chosen[0]}"
        + (f", the {len(rest)} others as median and range" if rest else ""),
        xaxis_title="credits",
        yaxis={"autorange": "reversed", "automargin": True},
        legend_title="product",
        height=160 + rows * (10 + 14 * len(chosen)),
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
# An answer about this many countries or more is the account's whole price list, not a
# selection: no continent holds most of it, and the map shows the account's own continent.
WHOLE_LIST: Final = 100
# The continent of an IANA time zone's area; "America/" is North America but for these.
_TIME_ZONE_SCOPES: Final[Mapping[str, str]] = {
    "Europe": "europe",
    "Africa": "africa",
    "Asia": "asia",
    "America": "north america",
}
_SOUTH_AMERICA_ZONES: Final = frozenset((
    "Araguaina", "Argentina", "Asuncion", "Bahia", "Belem", "Boa_Vista", "Bogota", "Buenos_Aires",
    "Caracas", "Campo_Grande", "Cayenne", "Cuiaba", "Eirunepe", "Fortaleza", "Guayaquil",
    "Guyana", "La_Paz", "Lima", "Maceio", "Manaus", "Montevideo", "Noronha", "Paramaribo",
    "Porto_Velho", "Punta_Arenas", "Recife", "Rio_Branco", "Santarem", "Santiago", "Sao_Paulo",
))  # fmt: skip
# Past this many countries off the map, the note counts them instead of naming them.
_NAMED_OFF_MAP: Final = 6


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


def time_zone_scope(time_zone: str | None = None) -> str:
    """The map scope of an IANA time zone (default: the account's, ``SMSKIT_TIME_ZONE`` or
    Europe/Paris): ``Europe/Paris`` is "europe"; a zone of no continent (UTC, Pacific/...)
    is "world"."""
    area, _, city = account_time_zone(time_zone).partition("/")
    if area == "America" and city.split("/")[0] in _SOUTH_AMERICA_ZONES:
        return "south america"
    return _TIME_ZONE_SCOPES.get(area, "world")


def _scope_for(country_codes: Sequence[str]) -> str:
    """The continent of more than half of the countries; for the whole price list (at least
    :data:`WHOLE_LIST` countries) the account's continent; else "world"."""
    scopes = [_map_scope(code) for code in country_codes]
    counts = {scope: scopes.count(scope) for scope in scopes if scope != "world"}
    if counts:
        best = max(counts, key=lambda scope: counts[scope])
        if 2 * counts[best] > len(scopes):
            return best
    if len(scopes) >= WHOLE_LIST:
        return time_zone_scope()
    return "world"


def credits_map(
    credits: Any, *, product: str = "premium_sms", scope: str = "auto", title: str | None = None
) -> go.Figure:
    """Choropleth of one product's credits per country (ISO 3166 alpha-3 locations).

    ``scope``: a plotly geo scope (``"europe"``, ``"world"`` ...) or ``"auto"``: the
    continent holding more than half of the countries; for the whole price list (at least
    :data:`WHOLE_LIST` countries, as ``check_credits()`` without countries answers) the
    continent of the account's time zone (:func:`time_zone_scope`: Europe for Europe/Paris);
    else the world, zoomed to the countries. Every country is drawn, but the colour scale
    spans only the countries of the chosen continent: a far region with many more credits
    (North America, priced lower) does not wash out the map. On the world map it spans the
    10th to the 90th percentile. A note under the map says what the scale leaves out.
    """
    (product,) = _products(product)
    checked_choice("scope", scope, MAP_SCOPES)
    tidy = _credits(credits)
    rows = tidy[(tidy["product"] == product) & tidy["iso3"].notna()]
    codes = [str(code) for code in rows["country_code"]]
    chosen = _scope_for(codes) if scope == "auto" else scope
    values = pd.to_numeric(rows["credits"], errors="coerce").astype("float64")
    names = [
        name if isinstance(name, str) and name else code
        for code, name in zip(codes, rows["country"].tolist(), strict=True)
    ]
    geo: dict[str, Any] = {"showframe": False, "showland": True, "landcolor": "#eeeeee"}
    note = ""
    if chosen == "world":
        geo["projection_type"] = "natural earth"
        if len(codes) < WHOLE_LIST:
            geo["fitbounds"] = "locations"  # a selection: zoomed to it
        known = values.dropna()
        low, high = (float(v) for v in known.quantile([0.1, 0.9])) if len(known) else (0, 0)
        beyond = int((known > high).sum() + (known < low).sum())
        if beyond:
            note = (
                f"colours span {low:,.0f} to {high:,.0f} credits (10th to 90th percentile); "
                f"{beyond} countries beyond show the end colours"
            )
    else:
        geo["scope"] = chosen
        inside = [_map_scope(code) == chosen for code in codes]
        known = values[inside].dropna()
        low, high = (float(known.min()), float(known.max())) if len(known) else (0.0, 0.0)
        outside = [(name, value) for name, value, shown in zip(names, values, inside, strict=True)
                   if not shown]  # fmt: skip
        if len(outside) > _NAMED_OFF_MAP:
            higher = sum(1 for _, value in outside if value > high)
            note = (
                f"colours span the {len(known)} countries of {chosen.title()}; "
                f"{len(outside)} countries are off this map ({higher} with more credits)"
            )
        elif outside:
            listed = ", ".join(
                f"{name} ({value:,.0f})" if pd.notna(value) else name for name, value in outside
            )
            note = f"not on this map of {chosen.title()}: {listed}"
    from smskit.views.geo import OfflineMap

    figure = OfflineMap(
        go.Choropleth(
            locations=rows["iso3"].tolist(),
            locationmode="ISO-3",
            z=plain_ints(rows["credits"]),
            zmin=low,
            zmax=high,
            text=rows["country"].fillna("").tolist(),
            colorscale="Viridis",
            reversescale=True,
            colorbar_title="credits",
            marker_line_color="#ffffff",
            hovertemplate="%{text}: %{z:,} " + product + "<extra></extra>",
        )
    )
    if note:
        figure.add_annotation(
            text=note, xref="paper", yref="paper", x=0, y=-0.02, showarrow=False, align="left",
            yanchor="top",
        )  # fmt: skip
    figure.update_layout(
        template=TEMPLATE,
        title=title
        or f"{product} credits by country" + ("" if chosen == "world" else f" in {chosen.title()}"),
        geo=geo,
        margin={"l": 10, "r": 10, "t": 60, "b": 40},
        height=600,
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
                customdata=plain_ints(table["number_of_contacts"]),
                marker_color=colors,
                showlegend=False,
                hovertemplate="%{x}: %{y} (%{customdata} contacts)<extra></extra>",
            ),
            row=1,
            col=col,
        )
    figure.update_layout(template=TEMPLATE, title=title or "Draft cost: SMS vs voice")
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
        template=TEMPLATE,
        barmode="stack",
        title=title
        or f"Replies per period ({len(frame):,} replies, {int(opt_out.sum()):,} opt-outs)",
        # the hours read are those of the frame's zone (the account's, from Inbox.to_frame)
        xaxis_title="reception_date" + (f" ({times.tz})" if times.tz is not None else ""),
        yaxis_title="replies",
    )
    return figure


def fatigue_curve(frame: pd.DataFrame, *, title: str | None = None) -> go.Figure:
    """Bars of the opt-out rate by how many marketing messages recipients had received in
    the period before a send (``smskit.campaigns.fatigue(...)``'s frame: ``received_before``,
    ``recipients``, ``opted_out``, ``opt_out_rate``), each bar's recipients in its hover."""
    for column in ("received_before", "recipients", "opted_out", "opt_out_rate"):
        if column not in frame.columns:
            raise ValidationError(column, "column required for the fatigue curve")
    x = frame["received_before"].astype("int64").tolist()
    figure = go.Figure(
        go.Bar(
            x=x,
            y=frame["opt_out_rate"].astype(float).tolist(),
            marker_color=OPT_OUT_COLOR,
            customdata=np.column_stack(
                [frame["recipients"].to_numpy(), frame["opted_out"].to_numpy()]
            ).tolist(),
            hovertemplate="%{x} before: %{customdata[1]} of %{customdata[0]} opted out"
            " (%{y:.1%})<extra></extra>",
        )
    )
    total = int(frame["recipients"].sum())
    figure.update_layout(
        template=TEMPLATE,
        title=title or f"Opt-out rate by messages received before the send ({total:,} sends)",
        xaxis_title=f"marketing messages received in the {frame.attrs.get('period', '30D')} before",
        yaxis_title="opt-out rate",
        yaxis_tickformat=".0%",
        xaxis={"dtick": 1},
    )
    return figure
