"""What the anywidget widgets share: their base class (:class:`Widget`), the ES modules and
stylesheets shipped beside this module (``static/``), the buttons' channel from the front end,
and progress shown from the traits.

One widget is one ES module and one stylesheet (plus the shared ``theme.css``: the host's
colours), read from the package: no CDN, no build step. The front end draws what the Python
side sends in the widget's traits and sends back only what the user typed or pressed; every
figure, check and decision is computed here, by the rule book and the campaigns.

May import: anywidget, traitlets, pandas, smskit.client and smskit.errors.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Final

from smskit.errors import MissingExtraError, SmskitError

try:
    import anywidget
    import traitlets
except ImportError as exc:  # an optional extra: say which one installs it
    raise MissingExtraError("smskit's notebook widgets", "anywidget", "notebook") from exc

from smskit.client import AsyncClient, Client

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "NO_PROGRESS",
    "STATIC",
    "TraitProgress",
    "Widget",
    "es_module",
    "stylesheet",
    "table_html",
    "traitlets",
]

STATIC: Final = Path(__file__).resolve().parent / "static"


def es_module(name: str) -> str:
    """The ES module of a widget: the shared helpers ``static/dom.js`` followed by
    ``static/<name>.js`` (one module; no import at run time, no build step)."""
    return "\n".join((STATIC / f"{n}.js").read_text(encoding="utf-8") for n in ("dom", name))


def stylesheet(name: str) -> str:
    """The shared theme and the widget's own stylesheet ``static/<name>.css``, as one text."""
    return "\n".join((STATIC / f"{n}.css").read_text(encoding="utf-8") for n in ("theme", name))


def table_html(frame: pd.DataFrame) -> str:
    """A DataFrame as escaped HTML (values may come from the user or the gateway) with one
    header row: a named index is a column like the others, an unnamed 0, 1, 2 ... is left out.
    The widgets' stylesheet right-aligns every cell, as JupyterLab shows a DataFrame."""
    import pandas as pd

    shown = frame.rename_axis(columns=None)
    if isinstance(shown.index, pd.RangeIndex) and shown.index.name is None:
        return shown.to_html(escape=True, border=0, na_rep="", index=False)
    return shown.reset_index().to_html(escape=True, border=0, na_rep="", index=False)


class Widget(anywidget.AnyWidget):
    """An smskit widget: an anywidget whose ``repr`` is its text/plain fallback, a ``message``
    line where a button's outcome or error is shown, and named actions the front end's buttons
    ask for (:meth:`press`)."""

    message = traitlets.Unicode("").tag(sync=True)
    message_kind = traitlets.Unicode("info").tag(sync=True)  # "info" or "error"
    presses = traitlets.Int(0).tag(sync=True)
    """How many presses of a button have run (counted when each ends). The front end hands
    each new count back: marimo re-runs the cells that read a widget only when its front end
    changes something, and a press changes the widget from Python (the text optimised, a cost
    estimated, numbers checked)."""
    _client: Client | AsyncClient | None
    ACTIONS: ClassVar[tuple[str, ...]] = ()
    INPUTS: ClassVar[tuple[str, ...]] = ()
    """The traits a button's message may carry with it (``{"action", "values"}``): the values
    of the inputs as the user left them when pressing. A host may deliver a message before the
    trait changes sent just before it (marimo does): a file name typed, then "export" at once,
    would export to the old name."""

    def __init__(self, **traits: Any) -> None:
        super().__init__(**traits)
        self.on_msg(self._received)

    @property
    def client(self) -> Client | AsyncClient:
        """The client the widget's requests go through (``smskit.Client()`` unless given)."""
        if self._client is None:
            self._client = Client()
        return self._client

    def say(self, message: str, kind: str = "info") -> None:
        """Show ``message`` (text, never markup) in the widget's message line."""
        with self.hold_sync():
            self.message, self.message_kind = message, kind

    def _guarded(self, action: Callable[[], Any]) -> None:
        """Run a button's action; its error is shown in the widget, not lost in a log. A file
        that cannot be written or read (``OSError``: no such folder, a folder's name, no
        permission) is the user's to fix as much as a refused value: said the same way (a
        press is no cell, so an exception raised here reaches no output the user sees)."""
        try:
            action()
        except (SmskitError, OSError) as exc:
            self.say(f"{type(exc).__name__}: {exc}", "error")

    def enabled(self, action: str) -> bool:
        """Whether the button of ``action`` can be pressed now."""
        return True

    def press(self, action: str) -> None:
        """Press the button named ``action`` (one of :attr:`ACTIONS`), as the front end does:
        nothing happens while it is disabled."""
        if action not in self.ACTIONS:
            raise ValueError(f"no button {action!r}; buttons: {', '.join(self.ACTIONS)}")
        if self.enabled(action):
            try:
                getattr(self, f"_on_{action}")()
            finally:
                self.presses += 1

    def _received(self, _widget: Any, content: Any, _buffers: Any) -> None:
        if isinstance(content, Mapping) and content.get("action") in self.ACTIONS:
            values = content.get("values")
            if isinstance(values, Mapping):
                with self.hold_trait_notifications():
                    for name in self.INPUTS:
                        if name in values and values[name] != getattr(self, name):
                            setattr(self, name, values[name])
            self.press(str(content["action"]))


class TraitProgress:
    """Progress events (:class:`smskit.campaigns.progress.ProgressEvents`) shown by a widget's
    ``progress`` trait (``done``, ``total``, ``unit``): the second view of a bulk call's
    progress, tqdm being the first, passed as its ``progress=``, started at ``total``. Events
    come from whichever thread runs the bulk work."""

    def __init__(self, widget: Widget, unit: str, total: int) -> None:
        self.widget = widget
        self.unit = unit
        self._lock = threading.Lock()
        self.start(total)

    def _show(self) -> None:
        self.widget.progress = {"done": self.done, "total": self.total, "unit": self.unit}

    def start(self, total: int, initial: int = 0, unit: str | None = None) -> None:
        with self._lock:
            self.total, self.done = total, min(initial, total)
            self._show()

    def advance(self, count: int, **postfix: Any) -> None:
        with self._lock:
            self.done = min(self.done + count, self.total)
            self._show()

    def finish(self) -> None:
        """The bar stays as the work left it."""


NO_PROGRESS: Final[dict[str, Any]] = {"done": 0, "total": 0, "unit": ""}
