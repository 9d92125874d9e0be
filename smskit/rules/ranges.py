"""Whole numbers, waits and probabilities in their range: the checks every count, limit,
position, wait and test level a caller passes goes through, each written once.

Owns: "an integer (never a bool) from ``low`` to ``high``" (:func:`checked_integer`), "a
number of seconds >= 0" (:func:`checked_seconds`) and "a number strictly between 0 and 1",
such as a test's level or power (:func:`checked_probability`), each refused with a
ValidationError naming the field, the value and the range. A rule that is a gateway limit
(64 requests in flight, a request's 500 recipients) keeps its number where it is decided and
passes it here.

May import: the standard library and ``smskit.errors``. Pure: no I/O.
"""

from __future__ import annotations

from typing import Any

from smskit.errors import ValidationError

__all__ = ["checked_integer", "checked_probability", "checked_seconds"]


def checked_integer(
    field: str, value: Any, *, low: int | None = None, high: int | None = None, unit: str = ""
) -> int:
    """``value`` if it is an int (never a bool) from ``low`` to ``high`` (each bound, when
    given, included); else a ValidationError naming ``field``, the value and the rule:
    ``must be an integer``, ``... >= 0`` or ``... from 1 to 64``, then ``unit`` (``" bytes"``).
    """
    rule = "must be an integer"
    if low is not None and high is not None:
        rule += f" from {low} to {high}"
    elif low is not None:
        rule += f" >= {low}"
    elif high is not None:
        rule += f" <= {high}"
    if (
        isinstance(value, bool)
        or not isinstance(value, int)
        or (low is not None and value < low)
        or (high is not None and value > high)
    ):
        raise ValidationError(field, rule + unit, value=value)
    return value


def checked_seconds(field: str, value: Any) -> float:
    """``value`` as a float if it is a number of seconds >= 0 (an int or float, never a bool;
    not NaN; infinity waits for ever); else a ValidationError naming ``field`` and the value."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
        raise ValidationError(field, "must be a number of seconds >= 0", value=value)
    return float(value)


def checked_probability(field: str, value: Any) -> float:
    """``value`` as a float if it is a number (never a bool) strictly between 0 and 1, such as
    a test's ``alpha`` or ``power``; else a ValidationError naming ``field`` and the value."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value < 1:
        raise ValidationError(field, "must be a number between 0 and 1 (exclusive)", value=value)
    return float(value)
