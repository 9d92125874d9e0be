"""Frames as a person reads them: shares and rates as percentages, the numbers unchanged.

``frames.breakdown(...)`` and friends return fractions (0.703512) so that code can compute
with them; :func:`percentages` wraps such a frame for display only (``.data`` is the frame).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pandas as pd
from pandas.io.formats.style import Styler

from smskit.errors import ValidationError
from smskit.rules.ranges import checked_integer
from smskit.rules.tables import checked_frame

__all__ = ["PercentTable", "percentages", "share_columns"]


def share_columns(frame: pd.DataFrame) -> list[str]:
    """The columns holding fractions of a whole: ``share``, ``rate`` or ending in ``_share``,
    ``_rate``."""
    return [
        str(column)
        for column in frame.columns
        if isinstance(column, str)
        and (column in ("share", "rate") or column.endswith(("_share", "_rate")))
    ]


class PercentTable(Styler):
    """A frame displayed with some columns as percentages; ``.data`` is the frame, unchanged."""

    percent_columns: tuple[str, ...] = ()
    decimals: int = 1

    def _formatters(self) -> dict[Any, Callable[[Any], str]]:
        def percent(value: Any) -> str:
            return "" if pd.isna(value) else f"{value:.{self.decimals}%}"

        return dict.fromkeys(self.percent_columns, percent)

    def __repr__(self) -> str:
        frame: pd.DataFrame = self.data  # type: ignore[attr-defined]
        return frame.to_string(formatters=self._formatters(), na_rep="")


def percentages(
    frame: pd.DataFrame, columns: Sequence[str] | None = None, *, decimals: int = 1
) -> PercentTable:
    """``frame`` shown with ``columns`` (default: :func:`share_columns`) as percentages,
    e.g. 0.703512 as 70.4 %; the values themselves stay fractions."""
    checked_frame("frame", frame)
    if columns is not None:
        if isinstance(columns, str) or not isinstance(columns, Iterable):
            raise ValidationError("columns", "must be a list of column names")
        columns = list(columns)
        if not all(isinstance(c, str | int) for c in columns):
            raise ValidationError("columns", "must be a list of column names")
    chosen = share_columns(frame) if columns is None else [str(c) for c in columns]
    for column in chosen:
        if column not in frame.columns:
            raise ValidationError("columns", "not a column of the frame", value=column)
    decimals = checked_integer("decimals", decimals, low=0, high=6)
    table = PercentTable(frame)
    table.percent_columns = tuple(chosen)
    table.decimals = decimals
    # The same table gets the same element ids on every run (pages and stored outputs agree).
    digest = hashlib.blake2b(digest_size=5)
    try:
        digest.update(pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes())
    except (TypeError, ValueError, RecursionError):  # cells pandas cannot hash (lists, dicts)
        digest.update(repr(frame.shape).encode())
    digest.update(repr((list(frame.columns), chosen, decimals)).encode())
    table.set_uuid(digest.hexdigest())
    table.format(table._formatters(), na_rep="")  # type: ignore[arg-type]
    return table
