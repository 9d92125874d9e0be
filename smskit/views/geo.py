"""Maps that draw offline.

plotly.js draws a geo map (``go.Choropleth``, ``go.Scattergeo``) over country shapes it
fetches as topojson from a CDN (its ``topojsonURL`` config): offline, or behind a proxy, the
map is an empty box. smskit ships the 110m shapes (``smskit/views/topojson/``, see its README)
and :func:`offline_config` gives a figure the file its scope needs inline, as a ``data:`` URL
prefix (plotly.js appends ``<scope>_<resolution>m.json``, which lands in the URL's fragment):
the map then draws in JupyterLab, in a page exported from a notebook and in a plain HTML file,
with no request at all.
"""

from __future__ import annotations

import base64
import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = ["TOPOJSON_DIR", "offline_config", "topojson_url"]

TOPOJSON_DIR: Final = Path(__file__).with_name("topojson")
_GEO_TRACES: Final = frozenset({"choropleth", "scattergeo"})  # the traces drawn on a geo map
_RESOLUTION: Final = 110  # the only one shipped: 50m files are 4 to 15 times larger


@functools.cache
def topojson_url(scope: str = "world") -> str:
    """The ``topojsonURL`` that serves ``scope``'s shapes (a plotly geo scope; a scope without
    its own file, such as ``"usa"``, gets the world's) from memory."""
    path = TOPOJSON_DIR / f"{scope.replace(' ', '-')}_{_RESOLUTION}m.json"
    if not path.is_file():
        path = TOPOJSON_DIR / f"world_{_RESOLUTION}m.json"
    encoded = base64.b64encode(path.read_bytes()).decode("ascii")
    return f"data:application/json;base64,{encoded}#"


def offline_config(figure: go.Figure) -> dict[str, Any]:
    """The plotly config that draws ``figure``'s map with no network (``{}`` without a map).

    A figure has one map in smskit (one ``geo`` subplot): its ``scope`` chooses the file.
    """
    if not any(trace.type in _GEO_TRACES for trace in figure.data):
        return {}
    scope = figure.layout.geo.scope or "world"
    return {"topojsonURL": topojson_url(str(scope))}
