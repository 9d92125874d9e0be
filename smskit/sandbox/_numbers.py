"""The sandbox's numeric checks, each written once: a real number (never a bool), finite,
within its range; a share between 0 and 1. An integer such as a seed is checked by
:func:`smskit.rules.ranges.checked_integer`, the library's.

May import: smskit.errors and the standard library."""

from __future__ import annotations

import math
from typing import Any

from smskit.errors import ValidationError

__all__ = ["checked_number", "checked_share"]


def checked_number(
    name: str,
    value: Any,
    *,
    low: float = 0.0,
    high: float = math.inf,
    above: bool = False,
    unit: str = "",
) -> float:
    """``value`` as a float if it is a finite number from ``low`` (excluded when ``above``) to
    ``high``; else a ValidationError naming ``name`` and the range."""
    kind = f"a number{unit}"
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValidationError(name, f"must be {kind}", value=value)
    if high < math.inf:
        rule = f"between {low:g}{' (excluded)' if above else ''} and {high:g}"
    else:
        rule = f"{'>' if above else '>='} {low:g}"
    fits = (value > low if above else value >= low) and value <= high
    if not (math.isfinite(value) and fits):
        raise ValidationError(name, f"must be a finite number {rule}", value=value)
    return float(value)


def checked_share(name: str, value: Any) -> float:
    """A rate or share of messages, requests or recipients: a finite number from 0 to 1."""
    return checked_number(name, value, high=1.0)
