"""A table a caller passes: a pandas DataFrame holding the columns a function reads.

Owns "a pandas DataFrame with these columns" (:func:`checked_frame`): anything else (None, a
Dask, polars or pyarrow table, a list) is refused naming the field and what the function
reads, and so is a frame without a column it needs, naming the columns; never an
``AttributeError`` or ``KeyError`` from deep inside pandas.

May import: the standard library, pandas (when called) and ``smskit.errors``. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from smskit.errors import ValidationError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["checked_frame"]


def checked_frame(
    field: str, value: Any, columns: Sequence[str] = (), *, what: str = "a pandas DataFrame"
) -> pd.DataFrame:
    """``value`` if it is a pandas DataFrame with every one of ``columns``; else a
    ValidationError naming ``field``: ``must be {what}``, or the columns it lacks."""
    import pandas as pd

    if not isinstance(value, pd.DataFrame):
        raise ValidationError(field, f"must be {what}", value=type(value).__name__)
    missing = [name for name in columns if name not in value.columns]
    if missing:
        raise ValidationError(field, f"needs the column(s) {', '.join(missing)}")
    return value
