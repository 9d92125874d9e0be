"""What a caller names to choose: one word of a closed set, a column, a list of them.

Owns "True or False" (:func:`checked_flag`: never a truthy ``"no"`` or ``1`` read as a
yes), "one of these words" (:func:`checked_choice`, e.g. ``match='auto'``, ``kind='stop'``,
``correction='holm'``), "several of them" (:func:`checked_choices`, e.g. attribution's
``models``) and "a column's name" (:func:`checked_column`, e.g. an orders table's
``at='ordered_at'``), each refused with a ValidationError naming the field, the value and the
rule. The value is looked at as a string before it is compared: a missing value (pandas'
``NA`` raises when compared), a DataFrame (compares cell by cell), a list (cannot be looked up
in a set) or a number never reaches a comparison, so a wrong value is refused, never a raw
``TypeError`` or a guess.

May import: the standard library and ``smskit.errors``. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

from smskit.errors import ValidationError

__all__ = ["checked_choice", "checked_choices", "checked_column", "checked_flag"]


def checked_flag(field: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` if it is True or False (or None, when ``optional``); else a ValidationError
    naming ``field``: ``must be True or False``."""
    if (value is None and optional) or isinstance(value, bool):
        return value
    raise ValidationError(field, "must be True or False", value=value)


def _one_of(choices: Collection[str], optional: bool) -> str:
    return f"must be one of {', '.join(choices)}" + (" or None" if optional else "")


def checked_choice(
    field: str, value: Any, choices: Collection[str], *, optional: bool = False
) -> Any:
    """``value`` if it is one of the strings ``choices`` (or None, when ``optional``); else a
    ValidationError naming ``field``: ``must be one of a, b, c``."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or value not in choices:
        raise ValidationError(field, _one_of(choices, optional), value=value)
    return value


def checked_choices(field: str, values: Any, choices: Collection[str]) -> list[str]:
    """``values`` (a list or tuple, not empty) as a list when each is one of ``choices``;
    else a ValidationError naming ``field`` (and the position of the first one refused)."""
    if not isinstance(values, list | tuple) or not values:
        raise ValidationError(
            field, f"must be a non-empty list of {', '.join(choices)}", value=values
        )
    for position, value in enumerate(values):
        if not isinstance(value, str) or value not in choices:
            raise ValidationError(field, _one_of(choices, False), position=position, value=value)
    return list(values)


def checked_column(field: str, value: Any, *, optional: bool = False) -> Any:
    """``value`` if it names a column: a non-empty string that is valid Unicode (or None,
    when ``optional``); else a ValidationError naming ``field``."""
    if value is None and optional:
        return None
    if isinstance(value, str) and value:
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            pass
        else:
            return value
    rule = "must be a column's name (a non-empty string)" + (" or None" if optional else "")
    raise ValidationError(field, rule, value=value)
