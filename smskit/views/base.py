"""What the notebook widgets share: the ipywidgets import, a widget object's base class,
progress shown by a bar, escaped messages, figures and tables drawn into a widget.

The widgets themselves live one per module (:mod:`smskit.views.composer`,
:mod:`smskit.views.hlr_explorer`, :mod:`smskit.views.dashboard`).
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from smskit.errors import MissingExtraError, SmskitError

try:
    import ipywidgets as widgets
except ImportError as exc:  # an optional extra: say which one installs it
    raise MissingExtraError("smskit's notebook widgets", "ipywidgets", "notebook") from exc

from smskit.client import AsyncClient, Client

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = [
    "TABLE_CLASS",
    "ProgressFile",
    "View",
    "escaped",
    "figure_output",
    "table_html",
    "table_style",
    "widgets",
]

TABLE_CLASS = "smskit-tables"
# A widget's HTML gets none of JupyterLab's table style (headers centred, cells left): every
# cell right-aligned, as JupyterLab shows a DataFrame, puts each header over its column.
_TABLE_STYLE = f"""<style>
.{TABLE_CLASS} table {{ border-collapse: collapse; }}
.{TABLE_CLASS} th, .{TABLE_CLASS} td {{ text-align: right; padding: 0.15em 0.6em; }}
</style>"""


def escaped(message: str, color: str = "#333") -> str:
    """``message`` as HTML text in ``color`` (messages may quote the user's values)."""
    return f'<span style="color:{color}">{html.escape(message)}</span>'


class ProgressFile:
    """Progress events (:class:`smskit.campaigns.sending.progress.ProgressEvents`) shown by an
    ``IntProgress``: the second view of a bulk call's progress, tqdm being the first.

    Events come from whichever thread runs the bulk work; the widget follows, headless or in
    a kernel.
    """

    def __init__(self, bar: widgets.IntProgress, label: widgets.HTML, unit: str) -> None:
        self.bar = bar
        self.label = label
        self.unit = unit
        self.total = 0

    def options(self) -> ProgressFile:
        """What to pass as ``progress=`` to smskit's bulk calls."""
        return self

    def start(self, total: int, initial: int = 0, unit: str | None = None) -> None:
        self.total = total
        self.bar.max = max(total, 1)
        self.bar.value = min(initial, self.bar.max)
        self.bar.layout.visibility = "visible"
        self.label.value = f"{initial}/{total} {self.unit}"

    def advance(self, count: int, **postfix: Any) -> None:
        self.bar.value = min(self.bar.value + count, self.bar.max)
        self.label.value = f"{self.bar.value}/{self.total} {self.unit}"

    def finish(self) -> None:
        """The bar stays as the work left it."""


def figure_output(output: widgets.Output, figures: list[go.Figure]) -> None:
    """Show plotly figures in ``output`` as plotly's mime bundle (no kernel round trip needed);
    maps carry their country shapes (:func:`smskit.views.geo.offline_config`: no CDN)."""
    import plotly.io as pio

    from smskit.views.geo import offline_config

    output.outputs = tuple(
        {
            "output_type": "display_data",
            "data": {
                "application/vnd.plotly.v1+json": {
                    **json.loads(pio.to_json(fig, validate=False)),
                    "config": offline_config(fig),
                },
                "text/plain": f"<plotly figure: {fig.layout.title.text or ''}>",
            },
            "metadata": {},
        }
        for fig in figures
    )


def table_html(frame: pd.DataFrame) -> str:
    """A DataFrame as escaped HTML (values may come from the user or the gateway) with one
    header row: a named index is a column like the others, an unnamed 0, 1, 2 ... is left out."""
    import pandas as pd

    shown = frame.rename_axis(columns=None)
    if isinstance(shown.index, pd.RangeIndex) and shown.index.name is None:
        return shown.to_html(escape=True, border=0, na_rep="", index=False)
    return shown.reset_index().to_html(escape=True, border=0, na_rep="", index=False)


def table_style(box: widgets.Box) -> widgets.HTML:
    """Mark ``box`` so that its tables line up (:data:`TABLE_CLASS`); the invisible child to
    add to it that carries the style."""
    box.add_class(TABLE_CLASS)
    return widgets.HTML(_TABLE_STYLE, layout=widgets.Layout(display="none"))


class View:
    """A widget object: a box to display, a cheap ``repr`` that is its text/plain fallback,
    a ``message`` line where a button's error is shown."""

    widget: widgets.Box
    message: widgets.HTML
    _client: Client | AsyncClient | None

    @property
    def client(self) -> Client | AsyncClient:
        """The client the widget's requests go through (``smskit.Client()`` unless given)."""
        if self._client is None:
            self._client = Client()
        return self._client

    def _guarded(self, action: Callable[[], Any]) -> None:
        """Run a button's action; its error is shown in the widget, not lost in a log."""
        try:
            action()
        except SmskitError as exc:
            self.message.value = escaped(f"{type(exc).__name__}: {exc}", "#d62728")

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        bundle = dict(self.widget._repr_mimebundle_(**kwargs) or {})
        bundle["text/plain"] = repr(self)
        return bundle
