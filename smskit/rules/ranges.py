"""Whole numbers, real numbers, waits and probabilities in their range: the checks every
count, limit, position, seed, amount, share, wait and test level a caller passes goes
through, each written once.

Owns: what an exact integer is (an ``int`` or any ``numbers.Integral`` such as NumPy's
``int64``, never a bool, a NumPy ``bool_`` or a float, even ``100.0``) and what a real number
is (an int or float of Python or NumPy, any ``numbers.Real``, never a bool), and the range
checks over them: "an integer from ``low`` to ``high``" (:func:`checked_integer`), "a number
from ``low`` to ``high``, each bound included or excluded, finite unless infinity is
allowed" (:func:`checked_number`), and its two common cases "a number of seconds >= 0"
(:func:`checked_seconds`), "a share from 0 to 1", such as a rate of messages
(:func:`checked_share`) and "a number strictly between 0 and 1", such as a test's level or
power (:func:`checked_probability`). Each refuses with a ValidationError naming the field,
the value and the range, and returns the plain Python ``int`` or ``float``: the caller keeps
that, never the value it was given (a NumPy integer is no seed for ``random.Random`` and no
JSON number). A rule that is a gateway limit (64 requests in flight, a request's 500
recipients) keeps its number where it is decided and passes it here.

May import: the standard library and ``smskit.errors``. Pure: no I/O.
"""

from __future__ import annotations

import math
import numbers
import operator
from typing import Any

from smskit.errors import ValidationError

__all__ = [
    "checked_integer",
    "checked_number",
    "checked_probability",
    "checked_seconds",
    "checked_share",
    "exact_integer",
    "real_number",
]


def exact_integer(value: Any) -> int | None:
    """``value`` as a plain ``int`` if it is an exact integer (an ``int`` or another
    ``numbers.Integral`` such as ``numpy.int64``; never a bool or NumPy ``bool_``, never a
    float); else None."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        return None
    try:
        return operator.index(value)
    except TypeError:  # NumPy's timedelta64 registers as Integral: a duration is no count
        return None


def real_number(value: Any) -> float | None:
    """``value`` as a plain ``float`` if it is a real number (an exact integer as
    :func:`exact_integer` reads it, or another ``numbers.Real`` such as ``numpy.float32``;
    never a bool); else None. An integer too large for a float becomes an infinity."""
    if isinstance(value, numbers.Integral):
        whole = exact_integer(value)
        if whole is None:
            return None
        try:
            return float(whole)
        except OverflowError:
            return math.inf if whole > 0 else -math.inf
    if isinstance(value, numbers.Real):
        return float(value)
    return None


def checked_integer(
    field: str, value: Any, *, low: int | None = None, high: int | None = None, unit: str = ""
) -> int:
    """``value`` as a plain ``int`` if it is an exact integer (see :func:`exact_integer`) from
    ``low`` to ``high`` (each bound, when given, included); else a ValidationError naming
    ``field``, the value and the rule: ``must be an integer``, ``... >= 0`` or ``... from 1 to
    64``, then ``unit`` (``" bytes"``)."""
    rule = "must be an integer"
    if low is not None and high is not None:
        rule += f" from {low} to {high}"
    elif low is not None:
        rule += f" >= {low}"
    elif high is not None:
        rule += f" <= {high}"
    whole = exact_integer(value)
    if whole is None or (low is not None and whole < low) or (high is not None and whole > high):
        raise ValidationError(field, rule + unit, value=value)
    return whole


def checked_number(
    field: str,
    value: Any,
    *,
    low: float = 0.0,
    high: float = math.inf,
    above: bool = False,
    below: bool = False,
    finite: bool = True,
    unit: str = "",
) -> float:
    """``value`` as a plain ``float`` if it is a real number (see :func:`real_number`) from
    ``low`` (excluded when ``above``) to ``high`` (excluded when ``below``), finite unless
    ``finite`` is False (NaN is never taken); else a ValidationError naming ``field``, the
    value and the rule: ``must be a finite number of EUR >= 0``, ``... > 0``, ``... between 0
    and 1``, ``... between 0 (excluded) and 1``, ``... between 0 and 1 (exclusive)``, with
    ``unit`` (``" of EUR"``) after ``number``."""
    number = real_number(value)
    if number is None or not (
        (number > low if above else number >= low)
        and (number < high if below else number <= high)
        and (math.isfinite(number) or not finite)
    ):
        rule = _number_rule(low, high, above, below, finite, unit)
        raise ValidationError(field, rule, value=value)
    return number


def _number_rule(low: float, high: float, above: bool, below: bool, finite: bool, unit: str) -> str:
    if high == math.inf:
        bounds = f"{'>' if above else '>='} {low:g}"
    elif above and below:
        bounds = f"between {low:g} and {high:g} (exclusive)"
    else:
        excluded = " (excluded)"
        bounds = f"between {low:g}{excluded * above} and {high:g}{excluded * below}"
    return f"must be a {'finite ' * finite}number{unit} {bounds}"


def checked_seconds(field: str, value: Any) -> float:
    """``value`` as a float if it is a number of seconds >= 0 (see :func:`checked_number`;
    infinity waits for ever); else a ValidationError naming ``field`` and the value."""
    return checked_number(field, value, finite=False, unit=" of seconds")


def checked_probability(field: str, value: Any) -> float:
    """``value`` as a float if it is a number strictly between 0 and 1, such as a test's
    ``alpha`` or ``power`` (see :func:`checked_number`); else a ValidationError naming
    ``field`` and the value."""
    return checked_number(field, value, high=1.0, above=True, below=True, finite=False)


def checked_share(field: str, value: Any) -> float:
    """A rate or share of messages, requests or recipients: ``value`` as a float if it is a
    number from 0 to 1 (see :func:`checked_number`); else a ValidationError naming ``field``."""
    return checked_number(field, value, high=1.0)
