"""Maps that draw offline.

plotly.js draws a geo map (``go.Choropleth``, ``go.Scattergeo``) over country shapes it
fetches as topojson from a CDN (its ``topojsonURL`` config): offline, or behind a proxy, the
map is an empty box. smskit ships the 110m shapes (``smskit/views/topojson/``, see its README)
and :func:`offline_config` gives a figure the file its scope needs inline, as a ``data:`` URL
prefix (plotly.js appends ``<scope>_<resolution>m.json``, which lands in the URL's fragment):
the map then draws in JupyterLab, in a page exported from a notebook and in a plain HTML file,
with no request at all. Figures smskit draws with a map are :class:`OfflineMap`, which carry
that config wherever they are shown (a notebook cell, ``show()``, ``write_html()``), so the
analyst never passes it.
"""

from __future__ import annotations

import base64
import functools
from pathlib import Path
from typing import Any, Final

import plotly.graph_objects as go
import plotly.io as pio

__all__ = ["TOPOJSON_DIR", "OfflineMap", "offline_config", "topojson_url"]

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


def _with_shapes(figure: go.Figure, config: dict[str, Any] | None) -> dict[str, Any]:
    """``config`` (the caller's wins) over the config that draws ``figure``'s map offline."""
    return {**offline_config(figure), **(config or {})}


class OfflineMap(go.Figure):
    """A plotly figure whose map draws with no network, however it is shown.

    plotly takes ``topojsonURL`` only from the config a figure is shown with, never from the
    figure; this figure adds :func:`offline_config` to the config of a notebook's display, of
    :meth:`show` and of :meth:`write_html` / :meth:`to_html`. Anything else is a plain
    ``go.Figure`` (``go.Figure(fig)`` gives one back).
    """

    def _repr_mimebundle_(
        self, include: Any = None, exclude: Any = None, validate: bool = True, **kwargs: Any
    ) -> dict[str, Any]:
        kwargs["config"] = _with_shapes(self, kwargs.get("config"))
        bundle: dict[str, Any] = super()._repr_mimebundle_(include, exclude, validate, **kwargs)
        return bundle

    def _ipython_display_(self) -> None:
        if pio.renderers.render_on_display and pio.renderers.default:
            pio.show(self, config=_with_shapes(self, None))
        else:
            print(repr(self))

    def show(self, *args: Any, **kwargs: Any) -> None:
        kwargs["config"] = _with_shapes(self, kwargs.get("config"))
        super().show(*args, **kwargs)

    def to_html(self, *args: Any, **kwargs: Any) -> str:
        kwargs["config"] = _with_shapes(self, kwargs.get("config"))
        html: str = super().to_html(*args, **kwargs)
        return html

    def write_html(self, *args: Any, **kwargs: Any) -> None:
        kwargs["config"] = _with_shapes(self, kwargs.get("config"))
        super().write_html(*args, **kwargs)
