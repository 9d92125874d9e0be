"""The :class:`HLRExplorer`: check lines in bulk, then explore the answers by country and
line status, in a table and charts, and export them to CSV."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit._repr import tolerant_repr
from smskit.campaigns.bulk.operations import bulk_hlr
from smskit.client import AsyncClient, Client, frames
from smskit.client.dtypes import TOTAL
from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.region import DEFAULT_REGION
from smskit.views.base import (
    ProgressFile,
    View,
    escaped,
    figure_output,
    table_html,
    table_style,
    widgets,
)

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

__all__ = ["HLRExplorer"]

ALL: Final = "(all)"
# Not on spaces: "06 12 34 56 78" is one number.
_NUMBER_SPLIT_RE: Final = re.compile(r"[\r\n,;]+")


class HLRExplorer(View):
    """Check lines in bulk and explore the answers: a breakdown table and charts per country
    and ``line_status``, exported to CSV.

    ``numbers``: a list or Series (a DataFrame column) to check, else paste them in the box.
    ``journal`` is the HLR cache :func:`smskit.bulk_hlr` keeps (False: none).

    Numbers are counted in their normalised form (:func:`smskit.phones.normalize`):
    ``+33612345678`` and ``0612345678`` are one number, checked once; the frame and the CSV
    keep one row per entry as typed, the table and charts count numbers (:meth:`distinct`).
    """

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
        self.numbers_area = widgets.Textarea(
            value=given,
            description="numbers",
            placeholder="one number per line (or separated by commas)",
            layout=widgets.Layout(width="100%", height="6em"),
        )
        self.check_button = widgets.Button(description="check", button_style="primary")
        self.progress = widgets.IntProgress(
            value=0, min=0, max=1, description="progress",
            layout=widgets.Layout(visibility="hidden"),
        )  # fmt: skip
        self.progress_label = widgets.HTML()
        self.country_select = widgets.Dropdown(options=[ALL], value=ALL, description="country")
        self.status_select = widgets.Dropdown(
            options=[ALL, *_spec.LINE_STATUS], value=ALL, description="line_status"
        )
        self.table = widgets.HTML()
        self.charts = widgets.Output()
        self.csv_path = widgets.Text(value="hlr.csv", description="CSV file")
        self.export_button = widgets.Button(description="export CSV", disabled=True)
        self.message = widgets.HTML()
        self.check_button.on_click(lambda _: self._guarded(self.check))
        self.export_button.on_click(lambda _: self._guarded(self._export))
        self.country_select.observe(lambda _: self.render(), names="value")
        self.status_select.observe(lambda _: self.render(), names="value")
        self.numbers_area.observe(lambda _: self.clear(), names="value")
        self.widget = widgets.VBox(
            [self.numbers_area, widgets.HBox([self.check_button, self.progress,
                                              self.progress_label]),
             widgets.HBox([self.country_select, self.status_select]), self.table, self.charts,
             widgets.HBox([self.csv_path, self.export_button]), self.message],
        )  # fmt: skip
        self.widget.add_class("smskit-hlr-explorer")
        self.widget.children = (*self.widget.children, table_style(self.widget))

    def numbers(self) -> list[str]:
        """The numbers in the box, one per line (or separated by commas or semicolons)."""
        return [n.strip() for n in _NUMBER_SPLIT_RE.split(self.numbers_area.value) if n.strip()]

    def check(self) -> pd.DataFrame:
        """Check every number in the box (bulk HLR, with progress); returns the typed frame."""
        self.clear()
        numbers = self.numbers()
        if not numbers:
            raise ValidationError("numbers", "paste at least one phone number")
        sink = ProgressFile(self.progress, self.progress_label, "numbers")
        sink.start(len(numbers))
        self.frame = bulk_hlr(
            self.client, numbers, progress=sink.options(), journal=self._journal,
            default_region=self._default_region,
        ).to_frame()  # fmt: skip
        countries = sorted(self.frame["country_code"].dropna().unique().tolist())
        with self.country_select.hold_trait_notifications():
            self.country_select.options = [ALL, *countries]
            self.country_select.value = ALL
        self.status_select.value = ALL
        self.export_button.disabled = False
        self.render()
        numbers_checked = len(self.distinct(self.frame))
        repeated = len(self.frame) - numbers_checked
        self.message.value = escaped(
            f"{numbers_checked} number(s) checked"
            + (f" ({repeated} entry(ies) repeat a number written another way)" if repeated else "")
        )
        return self.frame

    def clear(self) -> None:
        """Forget the last check (the numbers changed): results of other numbers would mislead."""
        self.frame = None
        self.table.value = ""
        figure_output(self.charts, [])
        self.export_button.disabled = True
        self.message.value = ""
        self.progress_label.value = ""
        self.progress.layout.visibility = "hidden"

    @property
    def filtered(self) -> pd.DataFrame | None:
        """The checked numbers the country and line_status filters keep."""
        if self.frame is None:
            return None
        frame = self.frame
        if self.country_select.value != ALL:
            frame = frame[frame["country_code"] == self.country_select.value]
        if self.status_select.value != ALL:
            frame = frame[frame["line_status"] == self.status_select.value]
        return frame

    @staticmethod
    def distinct(frame: pd.DataFrame) -> pd.DataFrame:
        """One row per number in its normalised form (the first entry that wrote it); entries
        that are no number (no ``phone_number``) stay one row each."""
        numbers = frame["phone_number"]
        return frame[numbers.isna().to_numpy() | ~numbers.duplicated().to_numpy()]

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
        table = self.breakdown()
        if table is None:
            self.table.value = ""
            return
        self.table.value = table_html(table)
        figure_output(self.charts, self.figures())

    def to_csv(self, path: str | Path | None = None) -> str | None:
        """The filtered frame as CSV: written to ``path``, or returned as text without one."""
        shown = self.filtered
        if shown is None:
            raise ValidationError("frame", "check numbers before exporting them")
        return shown.to_csv(path, index=False)

    def _export(self) -> None:
        # Absolute: the kernel's working directory is not necessarily where the user looks.
        path = Path(self.csv_path.value).expanduser().resolve()
        self.to_csv(path)
        rows = len(self.filtered) if self.filtered is not None else 0
        self.message.value = escaped(f"{rows} row(s) written to {path}")

    @tolerant_repr
    def __repr__(self) -> str:
        if self.frame is None:
            return f"HLRExplorer({len(self.numbers())} number(s) to check)"
        numbers = self.distinct(self.frame)
        counts = numbers["line_status"].value_counts()
        shown = ", ".join(f"{status}={int(n)}" for status, n in counts.items() if n)
        return f"HLRExplorer({len(numbers)} checked: {shown or 'no answer'})"
