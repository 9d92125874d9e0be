"""smskit's plotly figures as data a widget's front end draws without plotly.js: a stacked bar
chart as its categories and series (:func:`bars_state`), a choropleth as projected country
outlines with their fill (:func:`map_state`).

The figures (:mod:`smskit.views.plots`) stay the one home of what a chart counts; this module
only reads back what a figure holds, so the widget and ``fig.show()`` never disagree. The
country outlines come from the shipped topojson (:data:`smskit.views.geo.TOPOJSON_DIR`):
nothing is fetched.

May import: plotly, numpy, smskit.views.geo.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from typing import Any, Final

import numpy as np
import plotly.graph_objects as go
from plotly.colors import sample_colorscale

from smskit.views.geo import TOPOJSON_DIR

__all__ = ["SCOPE_BOXES", "bars_state", "country_outlines", "map_state"]

_NO_VALUE_COLOR: Final = "#d9d9d9"
_WIDTH: Final = 800.0  # the map's drawing width in SVG units (it scales to its box)
# What each plotly geo scope shows, as (west, south, east, north) in degrees.
SCOPE_BOXES: Final[dict[str, tuple[float, float, float, float]]] = {
    "world": (-169.0, -56.0, 180.0, 83.0),
    "europe": (-25.0, 34.0, 45.0, 71.5),
    "africa": (-19.0, -36.0, 53.0, 38.5),
    "asia": (25.0, -11.0, 150.0, 56.0),
    "north america": (-170.0, 7.0, -50.0, 75.0),
    "south america": (-82.0, -56.0, -34.0, 13.0),
}


def _title(figure: go.Figure) -> str:
    return str(figure.layout.title.text or "")


def bars_state(figure: go.Figure) -> dict[str, Any]:
    """A stacked bar figure (vertical or horizontal) as ``{title, axis, categories, series}``:
    one row per category, each series its ``name``, ``color`` and one value per category."""
    categories: list[str] = []
    series: list[dict[str, Any]] = []
    horizontal = False
    for trace in figure.data:
        horizontal = trace.orientation == "h"
        labels, values = (trace.y, trace.x) if horizontal else (trace.x, trace.y)
        for label in labels or ():
            if str(label) not in categories:
                categories.append(str(label))
        by_label = dict(zip((str(v) for v in labels or ()), values or (), strict=True))
        series.append({
            "name": str(trace.name),
            "color": str(trace.marker.color),
            "values": [int(by_label.get(c, 0) or 0) for c in categories],
        })  # fmt: skip
    for one in series:  # categories first met in a later trace: zero for the earlier ones
        one["values"] += [0] * (len(categories) - len(one["values"]))
    axis = figure.layout.yaxis.title.text if not horizontal else figure.layout.xaxis.title.text
    return {
        "title": _title(figure),
        "axis": str(axis or ""),
        "legend": str(figure.layout.legend.title.text or ""),
        "categories": categories,
        "series": series,
    }


@functools.cache
def _world() -> tuple[dict[str, list[list[list[int]]]], list[list[list[float]]]]:
    """The world's countries (ISO 3166 alpha-3: polygons of arc indices) and its arcs in
    degrees (longitude, latitude)."""
    topology = json.loads((TOPOJSON_DIR / "world_110m.json").read_text(encoding="utf-8"))
    (sx, sy), (tx, ty) = topology["transform"]["scale"], topology["transform"]["translate"]
    # quantised, each point a delta from the previous one
    arcs = [(np.cumsum(arc, axis=0) * (sx, sy) + (tx, ty)).tolist() for arc in topology["arcs"]]
    countries: dict[str, list[list[list[int]]]] = {}
    for geometry in topology["objects"]["countries"]["geometries"]:
        code = geometry.get("id")
        if not code or geometry["type"] not in ("Polygon", "MultiPolygon"):
            continue
        polygons = [geometry["arcs"]] if geometry["type"] == "Polygon" else geometry["arcs"]
        countries[str(code)] = polygons
    return countries, arcs


def _rings(code: str) -> list[list[list[float]]]:
    countries, arcs = _world()
    rings = []
    for polygon in countries.get(code, []):
        for ring in polygon:
            points: list[list[float]] = []
            for index in ring:  # ~i: arc i walked backwards; arcs share their end points
                arc = arcs[index] if index >= 0 else arcs[~index][::-1]
                points.extend(arc[1:] if points else arc)
            if points and max(p[0] for p in points) - min(p[0] for p in points) > 180:
                # Across the antimeridian (Chukotka, Fiji): one side moved by 360 degrees, so
                # the ring stays whole instead of a band across the map.
                points = [[lon + 360 if lon < 0 else lon, lat] for lon, lat in points]
            if points:
                rings.append(points)
    return rings


def country_outlines(codes: Sequence[str], scope: str = "world") -> dict[str, Any]:
    """The outlines of ``codes`` (alpha-3; unknown ones left out) as SVG path data in an
    equirectangular projection (longitude scaled by the cosine of the middle latitude) of
    ``scope``'s box (a plotly geo scope: ``"europe"``, ``"world"`` ...), and the ``view_box``
    that holds it; countries reaching beyond the box are cut by it."""
    west, south, east, north = SCOPE_BOXES.get(scope, SCOPE_BOXES["world"])
    squeeze = math.cos(math.radians((north + south) / 2))
    scale = _WIDTH / max((east - west) * squeeze, 1e-9)
    height = max((north - south) * scale, 1.0)

    def path(shapes: list[list[list[float]]]) -> str:
        return " ".join(
            "M" + "L".join(
                f"{(lon - west) * squeeze * scale:.1f},{(north - lat) * scale:.1f}"
                for lon, lat in ring
            ) + "Z"
            for ring in shapes
        )  # fmt: skip

    def inside(ring: list[list[float]]) -> bool:
        return any(west <= lon <= east and south <= lat <= north for lon, lat in ring)

    # A country wholly off the box is left out (its path would be drawn nowhere).
    shapes = {code: [ring for ring in _rings(code) if inside(ring)] for code in codes}
    return {
        "view_box": f"0 0 {_WIDTH:g} {height:.0f}",
        "paths": {code: path(rings) for code, rings in shapes.items() if rings},
    }


def map_state(figure: go.Figure) -> dict[str, Any]:
    """A choropleth figure (:func:`smskit.views.plots.credits_map`) as ``{title, note,
    view_box, low, high, colors, countries}``: each country its ``code``, ``name``, ``value``
    (None: not known), ``color`` on the figure's scale, ``path`` (in the box of the figure's
    geo scope)."""
    (trace,) = figure.data
    codes = [str(c) for c in trace.locations or ()]
    names = [str(n) for n in trace.text or ()] or codes
    values = [None if v is None else float(v) for v in trace.z or ()]
    low, high = float(trace.zmin or 0.0), float(trace.zmax or 0.0)
    scale = trace.colorscale
    stops = [str(color) for _, color in scale]
    if trace.reversescale:
        stops.reverse()

    def color(value: float | None) -> str:
        if value is None or math.isnan(value):
            return _NO_VALUE_COLOR
        share = 0.0 if high <= low else min(max((value - low) / (high - low), 0.0), 1.0)
        return str(sample_colorscale(stops, [share])[0])

    drawn = country_outlines(codes, str(figure.layout.geo.scope or "world"))
    notes = [str(a.text) for a in figure.layout.annotations or ()]
    return {
        "title": _title(figure),
        "note": " ".join(notes),
        "view_box": drawn["view_box"],
        "low": low,
        "high": high,
        "colors": [color(low + (high - low) * i / 4) for i in range(5)],
        "countries": [
            {"code": code, "name": name, "value": value, "color": color(value),
             "path": drawn["paths"][code]}
            for code, name, value in zip(codes, names, values, strict=True)
            if code in drawn["paths"]
        ],
    }  # fmt: skip
