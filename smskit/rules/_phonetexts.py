"""Raw spreadsheet values to the canonical texts :func:`smskit.rules.phones.normalize` reads.

Values are deduplicated first (:func:`factorize`: Arrow strings in Arrow, so only distinct
ones become Python strings). Strings are stripped, integral floats (a CSV column read as
numbers, ``33612345678.0``) and integers become their digits, missing values None, other
values a not-a-number sentinel. :func:`to_texts` does the same for a whole array, strings
and floats without a call each.
"""

from __future__ import annotations

import math
import numbers
import operator
import re
from itertools import repeat
from typing import TYPE_CHECKING, Any, Final

import numpy as np

from smskit.rules.once import loaded

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

__all__ = [
    "FLOAT_TEXT",
    "NOT_A_NUMBER_TEXT",
    "arrow_strings",
    "as_series",
    "factorize",
    "is_float_text",
    "lane_texts",
    "to_text",
    "to_texts",
]

NOT_A_NUMBER_TEXT: Final = "\x00not-a-number"
# A float's text, stripped: what a number column once read as floats is written back as.
FLOAT_TEXT: Final = r"\+?[0-9]+\.0+"
_FLOAT_TEXT_RE: Final = re.compile(FLOAT_TEXT)


def is_float_text(value: Any) -> bool:
    """Whether ``value`` is a float's text (``" 33612345678.0"``), blanks around it aside."""
    if type(value) is not str or "." not in value:
        return False
    return _FLOAT_TEXT_RE.fullmatch(value.strip()) is not None


def to_text(value: Any) -> str | None:
    """Canonical text of a raw value: None for empty, the sentinel for non-numbers."""
    if type(value) is str:  # the common case first
        text = value.strip()
        if text and text[-1] == "0" and _FLOAT_TEXT_RE.fullmatch(text):
            return text.split(".", 1)[0]
        return text or None
    if value is None:
        return None
    # pandas' missing values exist only once pandas is imported (the sandbox never is).
    pandas = loaded("pandas")
    if pandas is not None and (value is pandas.NA or value is pandas.NaT):
        return None
    if isinstance(value, np.datetime64 | np.timedelta64) and np.isnat(value):
        return None  # numpy's missing time, as pandas' factorize reads it in normalize
    if isinstance(value, bool | np.bool_):
        return NOT_A_NUMBER_TEXT
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if math.isnan(number):
            return None
        if not math.isfinite(number) or not number.is_integer():
            return NOT_A_NUMBER_TEXT
        return str(int(number))
    text = str(value).strip()
    if not text:
        return None
    if _FLOAT_TEXT_RE.fullmatch(text):
        text = text.split(".", 1)[0]
    return text


_KINDS: Final[dict[type, int]] = {str: 1, float: 2}


def to_texts(values: np.ndarray) -> list[str | None]:
    """to_text of each value; strings and floats, the common cases, a whole array at a time."""
    items = values.tolist()
    kinds = np.fromiter(map(_KINDS.get, map(type, items), repeat(0)), np.int8, len(items))
    texts = np.full(len(items), None, dtype=object)
    strings = np.flatnonzero(kinds == 1)
    stripped = list(map(str.strip, values[strings].tolist()))
    for i in np.flatnonzero(
        np.fromiter(map(operator.contains, stripped, repeat(".")), dtype=bool, count=len(strings))
    ).tolist():
        text = stripped[i]
        if text[-1:] == "0" and _FLOAT_TEXT_RE.fullmatch(text):
            stripped[i] = text.split(".", 1)[0]
    texts[strings] = stripped
    texts[strings[np.fromiter(map(len, stripped), dtype=np.int64, count=len(strings)) == 0]] = None
    floats = np.flatnonzero(kinds == 2)
    number = values[floats].astype(np.float64)
    # Integral floats below 2**53 convert exactly through int64; the rest one by one.
    plain = (np.abs(number) < 2.0**53) & (number == np.floor(number))
    texts[floats[plain]] = number[plain].astype(np.int64).astype(str).astype(object)
    for i in np.concatenate([floats[~plain], np.flatnonzero(kinds == 0)]):
        texts[i] = to_text(items[i])
    return texts.tolist()


def as_series(values: Any) -> pd.Series:
    """The values as a Series (a copy): a pyarrow or 1-D numpy array keeps its type, and so
    does a polars Series (read through its own ``.to_arrow()``: polars is not imported)."""
    import pandas as pd

    if isinstance(values, pd.Series):
        return values.copy()
    if type(values).__module__.startswith("polars.") and hasattr(values, "to_arrow"):
        values = values.to_arrow()
    if type(values).__module__.startswith("pyarrow"):
        return pd.Series(values)
    if isinstance(values, np.ndarray) and values.ndim == 1:
        return pd.Series(values.copy())
    return pd.Series(list(values))


def arrow_strings(series: pd.Series, *, whole: bool = True) -> pa.Array | pa.ChunkedArray | None:
    """The values as one Arrow string array when they are Arrow-backed strings, else None;
    with ``whole=False`` in the chunks pandas holds (no copy: Arrow's compute reads chunks)."""
    import pandas as pd

    dtype = series.dtype
    arrow = getattr(dtype, "storage", None) == "pyarrow" or isinstance(dtype, pd.ArrowDtype)
    if not (arrow and pd.api.types.is_string_dtype(dtype)):
        return None
    import pyarrow as pa

    values = pa.array(series.array)
    return values.combine_chunks() if whole and isinstance(values, pa.ChunkedArray) else values


def lane_texts(series: pd.Series) -> pa.Array | None:
    """The values as Arrow strings the whole-array lane may read, or None: Arrow strings as
    they are; integers as their digits and integral floats (a CSV column read as numbers)
    likewise, exactly as :func:`to_text` writes them; any other value null (read by the
    other paths)."""
    import pandas as pd

    strings = arrow_strings(series)
    if strings is not None:
        return strings
    dtype = series.dtype
    if pd.api.types.is_bool_dtype(dtype) or not pd.api.types.is_numeric_dtype(dtype):
        return None
    import pyarrow as pa

    if pd.api.types.is_integer_dtype(dtype):
        return pa.array(series.array).cast(pa.large_string())
    number = series.to_numpy(dtype=np.float64, na_value=np.nan)
    with np.errstate(invalid="ignore"):
        # Integral floats below 2**53 are exact integers; the others are for to_text.
        exact = (np.abs(number) < 2.0**53) & (number == np.floor(number))
    digits = np.where(exact, number, 0).astype(np.int64)
    return pa.array(digits, mask=~exact).cast(pa.large_string())


def factorize(series: pd.Series) -> tuple[np.ndarray, np.ndarray]:
    """Codes (-1 for a missing value) and distinct values; Arrow strings deduplicated in
    Arrow, so only the distinct ones become Python strings."""
    import pandas as pd

    strings = arrow_strings(series)
    if strings is not None:
        import pyarrow.compute as pc

        encoded = pc.dictionary_encode(strings)
        codes = encoded.indices.fill_null(-1).to_numpy(zero_copy_only=False)
        uniques = np.array(encoded.dictionary.to_pylist(), dtype=object)
        return codes.astype(np.int64), uniques
    # factorize() merges True with 1 and False with 0: harmless, all are not_a_number.
    codes, uniques = pd.factorize(np.asarray(series.array, dtype=object))
    return codes.astype(np.int64), uniques
