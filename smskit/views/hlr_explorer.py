"""The :class:`HLRExplorer`: check lines in bulk, then explore the answers by country and
line status, in a table and charts, and export them to CSV; an anywidget (one ES module,
``static/hlr_explorer.js``, and its stylesheet).

The breakdown, the charts' counts and the CSV are computed here (:mod:`smskit.client.frames`,
:mod:`smskit.views.plots`); the front end draws the table and bars it is sent.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit._repr import tolerant_repr
from smskit.campaigns.bulk.operations import bulk_hlr
from smskit.client import AsyncClient, Client, frames
from smskit.client.dtypes import TOTAL
from smskit.client.reprs import tally
from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.region import DEFAULT_REGION
from smskit.views.widget import (
    NO_PROGRESS,
    TraitProgress,
    Widget,
    es_module,
    stylesheet,
    table_html,
    traitlets,
)

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["HLRExplorer"]

ALL: Final = "(all)"
# Not on spaces: "06 12 34 56 78" is one number.
_NUMBER_SPLIT_RE: Final = re.compile(r"[\r\n,;]+")


class HLRExplorer(Widget):
    """Check lines in bulk and explore the answers: a breakdown table and charts per country
    and ``line_status``, exported to CSV.

    ``numbers``: a list or Series (a DataFrame column) to check, else paste them in the box
    (:attr:`numbers_text`). ``journal`` is the HLR cache :func:`smskit.bulk_hlr` keeps
    (False: none).

    Numbers are counted in their normalised form (:func:`smskit.phones.normalize`):
    ``+33612345678`` and ``0612345678`` are one number, checked once; the frame and the CSV
    keep one row per distinct value as typed, the table and charts count numbers
    (:meth:`distinct`). An entry the gateway gave no answer for (no phone number, a failed
    request) is not counted as checked (:meth:`unchecked`).

    Buttons (:meth:`press`): ``"check"`` (:meth:`check`), ``"export"`` (the filtered rows to
    :attr:`csv_path`, enabled once numbers are checked).
    """

    ACTIONS = ("check", "export")
    INPUTS = ("numbers_text", "country", "line_status", "csv_path")
    _esm = es_module("hlr_explorer")
    _css = stylesheet("hlr_explorer")

    numbers_text = traitlets.Unicode("").tag(sync=True)
    """The numbers box as typed (settable): one number per line, or separated by commas."""
    country = traitlets.Unicode(ALL).tag(sync=True)
    """The country filter (``"(all)"`` or a country code of the checked numbers)."""
    line_status = traitlets.Unicode(ALL).tag(sync=True)
    """The line_status filter (``"(all)"`` or one of the spec's statuses)."""
    countries = traitlets.List(traitlets.Unicode(), [ALL]).tag(sync=True)
    """The country filter's choices: ``"(all)"`` and the checked numbers' countries."""
    statuses = traitlets.List(traitlets.Unicode(), [ALL, *_spec.LINE_STATUS]).tag(sync=True)
    """The line_status filter's choices."""
    csv_path = traitlets.Unicode("hlr.csv").tag(sync=True)
    """Where "export CSV" writes (relative to the kernel's working directory)."""
    table = traitlets.Unicode("").tag(sync=True)
    """The breakdown table on show, as escaped HTML ("" before a check)."""
    charts = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The charts on show (:func:`smskit.views.chart_state.bars_state` of :meth:`figures`)."""
    checked = traitlets.Bool(False).tag(sync=True)
    """Whether the numbers in the box are checked (export is enabled)."""
    progress = traitlets.Dict(NO_PROGRESS).tag(sync=True)
    """The running check's progress (``done``, ``total``, ``unit``)."""

    def __init__(
        self,
        client: Client | AsyncClient | None = None,
        numbers: Any = None,
        *,
        journal: str | Path | bool | None = None,
        default_region: str | None = DEFAULT_REGION,
    ) -> None:
        self._client = client
        self._journal = journal
        self._default_region = default_region
        self.frame: pd.DataFrame | None = None
        given = "" if numbers is None else "\n".join(str(n) for n in list(numbers))
        super().__init__(numbers_text=given)
        self.observe(lambda _: self.render(), names=["country", "line_status"])
        self.observe(lambda _: self.clear(), names="numbers_text")

    def enabled(self, action: str) -> bool:
        """ "export" needs checked numbers; "check" is always there."""
        return action != "export" or self.frame is not None

    def _on_check(self) -> None:
        self._guarded(self.check)

    def _on_export(self) -> None:
        self._guarded(self._export)

    def numbers(self) -> list[str]:
        """The numbers in the box, one per line (or separated by commas or semicolons)."""
        return [n.strip() for n in _NUMBER_SPLIT_RE.split(self.numbers_text) if n.strip()]

    def check(self) -> pd.DataFrame:
        """Check every number in the box (bulk HLR, with progress); returns the typed frame."""
        self.clear()
        numbers = self.numbers()
        if not numbers:
            raise ValidationError("numbers", "paste at least one phone number")
        frame = bulk_hlr(
            self.client, numbers, progress=TraitProgress(self, "numbers", len(numbers)),
            journal=self._journal,
            default_region=self._default_region,
        ).to_frame()  # fmt: skip
        countries = sorted(frame["country_code"].dropna().unique().tolist())
        with self.hold_trait_notifications():
            self.frame = frame
            self.countries = [ALL, *countries]
            self.country = ALL
            self.line_status = ALL
            self.checked = True
        self.render()
        distinct = self.distinct(frame)
        unchecked = self.unchecked(distinct)
        # against the entries as pasted: the frame has one row per distinct value already
        repeated = len(numbers) - len(distinct)
        reasons = ", ".join(str(r) for r in unchecked["error"].drop_duplicates().head(3))
        said = f"{len(distinct) - len(unchecked)} number(s) checked"
        if repeated:
            said += f" ({repeated} entry(ies) repeat a number, as typed or written another way)"
        if len(unchecked):
            said += f"; {len(unchecked)} entry(ies) not checked ({reasons})"
        self.say(said)
        return frame

    def clear(self) -> None:
        """Forget the last check (the numbers changed): results of other numbers would mislead."""
        self.frame = None
        with self.hold_sync():
            self.table = ""
            self.charts = []
            self.checked = False
            self.progress = NO_PROGRESS
            self.say("")

    @property
    def filtered(self) -> pd.DataFrame | None:
        """The checked numbers the country and line_status filters keep."""
        if self.frame is None:
            return None
        frame = self.frame
        if self.country != ALL:
            frame = frame[frame["country_code"] == self.country]
        if self.line_status != ALL:
            frame = frame[frame["line_status"] == self.line_status]
        return frame

    @staticmethod
    def distinct(frame: pd.DataFrame) -> pd.DataFrame:
        """One row per number in its normalised form (the first entry that wrote it); entries
        that are no number (no ``phone_number``) stay one row each."""
        numbers = frame["phone_number"]
        return frame[numbers.isna().to_numpy() | ~numbers.duplicated().to_numpy()]

    @staticmethod
    def unchecked(frame: pd.DataFrame) -> pd.DataFrame:
        """The rows of ``frame`` the gateway gave no answer for (an entry that is no phone
        number, a failed request): their ``error`` says why."""
        return frame[frame["error"].notna().to_numpy()]

    def breakdown(self) -> pd.DataFrame | None:
        """Numbers (normalised: each counted once) per country and line_status, with totals,
        for the filtered entries."""
        shown = self.filtered
        if shown is None:
            return None
        shown = self.distinct(shown)
        table = frames.crosstab(shown, "country", "line_status")
        present = (table != 0).any(axis=0)
        present[TOTAL] = True  # statuses nobody has are left out, the total never
        return table.loc[:, present]

    def figures(self) -> list[go.Figure]:
        """The charts of the filtered numbers: line status by number type, and by network."""
        from smskit.views import plots

        shown = self.filtered
        if shown is None or shown.empty:
            return []
        shown = self.distinct(shown)
        return [plots.hlr_breakdown(shown), plots.hlr_networks(shown)]

    def render(self) -> None:
        """Redraw the table and the charts for the current filters."""
        from smskit.views.chart_state import bars_state

        table = self.breakdown()
        with self.hold_sync():
            if table is None:
                self.table, self.charts = "", []
                return
            self.table = table_html(table)
            self.charts = [bars_state(figure) for figure in self.figures()]

    def to_csv(self, path: str | Path | None = None) -> str | None:
        """The filtered frame as CSV: written to ``path``, or returned as text without one."""
        shown = self.filtered
        if shown is None:
            raise ValidationError("frame", "check numbers before exporting them")
        return shown.to_csv(path, index=False)

    def _export(self) -> None:
        if not self.csv_path.strip():
            raise ValidationError("csv_path", "give the CSV file's name (e.g. 'hlr.csv')")
        # Absolute: the kernel's working directory is not necessarily where the user looks.
        path = Path(self.csv_path).expanduser().resolve()
        if path.is_dir():
            raise ValidationError("csv_path", f"{path} is a folder: give a file name in it")
        self.to_csv(path)
        rows = len(self.filtered) if self.filtered is not None else 0
        self.say(f"{rows} row(s) written to {path}")

    @tolerant_repr
    def __repr__(self) -> str:
        if self.frame is None:
            return f"HLRExplorer({len(self.numbers())} number(s) to check)"
        numbers = self.distinct(self.frame)
        unchecked = len(self.unchecked(numbers))
        checked = numbers.loc[numbers["error"].isna().to_numpy(), "line_status"]
        # Every checked number counted, one without a line status under "(missing)".
        counts = tally(checked.astype(object), _spec.LINE_STATUS)
        shown = ", ".join(f"{status}={n}" for status, n in counts)
        return f"HLRExplorer({len(numbers) - unchecked} checked: {shown or 'no answer'}" + (
            f"; {unchecked} not checked)" if unchecked else ")"
        )
