"""The one answer to "is this value missing?": None, NaN, pandas' NA and NaT, numpy's NaT;
and the one name a count gives the missing values, :data:`MISSING`.

An empty or blank string is not missing here: it is a value that renders empty, which the
field rules (:mod:`smskit.rules.fields`) report on their own.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any, Final

from smskit.rules.once import loaded

__all__ = ["MISSING", "is_missing"]

# How a count names the values that are missing: a breakdown's row, a repr's or an HTML
# summary's tally entry. Every count of values counts each missing one under it.
MISSING: Final = "(missing)"


def is_missing(value: Any) -> bool:
    """True for None, a float or Decimal NaN, ``pd.NA``, ``pd.NaT`` and numpy's
    ``datetime64("NaT")`` / ``timedelta64("NaT")``; False otherwise."""
    if value is None:
        return True
    if isinstance(value, float):  # numpy's float64 too: it subclasses float
        return math.isnan(value)
    if isinstance(value, Decimal):
        return value.is_nan()
    pandas = loaded("pandas")  # pandas values only exist once pandas is imported
    if pandas is not None and (value is pandas.NA or value is pandas.NaT):
        return True
    numpy = loaded("numpy")
    if numpy is None:
        return False
    if isinstance(value, numpy.floating):
        return bool(numpy.isnan(value))
    return isinstance(value, numpy.datetime64 | numpy.timedelta64) and bool(numpy.isnat(value))
