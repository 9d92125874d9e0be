"""Dynamic fields of a text: their names, how a ``{field}`` is written, what a value renders as.

The spec's Contact object carries the number and seven dynamic fields, each at most 50
characters. A field's value must be a scalar: a string, a number (int, float, Decimal), a
date or datetime, or missing. A list, dict, set, bytes or any other object is refused with
the field's name and the row, never sent as its Python ``repr``.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Iterable
from datetime import date
from decimal import Decimal
from typing import Any, Final

from smskit.errors import ValidationError
from smskit.rules.missing import is_missing
from smskit.rules.ranges import checked_integer

__all__ = [
    "CONTACT_FIELDS",
    "DYNAMIC_FIELDS",
    "FIELD_RE",
    "RULE_NOT_SCALAR",
    "RULE_UNENCODABLE",
    "check_field_names",
    "field_text",
    "field_texts",
    "split_fields",
    "unencodable_at",
    "used_fields",
]

DYNAMIC_FIELDS: Final = (
    "first_name",
    "last_name",
    "param1",
    "param2",
    "param3",
    "param4",
    "param5",
)
CONTACT_FIELDS: Final = ("phone_number", *DYNAMIC_FIELDS)
# A dynamic field is an identifier in braces; any other brace is literal text.
FIELD_RE: Final = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
RULE_NOT_SCALAR: Final = (
    "a dynamic field must be a string, a number, a date or missing "
    "(lists, dicts, sets, bytes and other objects are not sent)"
)
# A lone surrogate is what decoding bytes with errors="surrogateescape" leaves behind: no
# character of any text, so no UTF-8 (JSON, SQLite, Arrow) and no SMS can carry it.
RULE_UNENCODABLE: Final = (
    "holds a lone surrogate (a code point from U+D800 to U+DFFF), which no text can carry: "
    "the value was decoded from bytes wrongly"
)


def check_field_names(names: Any, field: str) -> tuple[str, ...]:
    """``names`` as a tuple of dynamic field names (a list or tuple of them), else refused."""
    if isinstance(names, list | tuple) and all(
        isinstance(n, str) and n in DYNAMIC_FIELDS for n in names
    ):
        return tuple(names)
    raise ValidationError(
        field, f"must be a list of dynamic field names ({', '.join(DYNAMIC_FIELDS)})", value=names
    )


def unencodable_at(text: str) -> int | None:
    """The index of the first character UTF-8 cannot encode (a lone surrogate), or None."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        return exc.start
    return None


def split_fields(text: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The ``{names}`` a text uses, split into known and unknown, each in order of first use."""
    names = dict.fromkeys(FIELD_RE.findall(text))
    return (
        tuple(n for n in names if n in DYNAMIC_FIELDS),
        tuple(n for n in names if n not in DYNAMIC_FIELDS),
    )


def used_fields(text: str) -> tuple[str, ...]:
    """The dynamic fields ``text`` uses, in order of first use; an unknown one is refused."""
    if not isinstance(text, str):
        raise ValidationError("text", "must be a string", value=text)
    match = next((m for m in FIELD_RE.finditer(text) if m.group(1) not in DYNAMIC_FIELDS), None)
    if match is not None:
        raise ValidationError(
            "text",
            f"unknown dynamic field {{{match.group(1)}}}; use one of "
            + ", ".join(f"{{{f}}}" for f in DYNAMIC_FIELDS),
            position=match.start(),
        )
    return split_fields(text)[0]


def field_text(value: Any, field: str = "field", row: int | None = None) -> str | None:
    """The text a value renders as (1234.0 -> "1234"); None when missing; refuses non-scalars."""
    if type(value) is str:
        return value
    if is_missing(value):
        return None
    if isinstance(value, str):
        return str(value)
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return str(bool(value))
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, numbers.Real):
        number = float(value)
        # pandas turns an integer column with gaps into floats: 1234.0 means 1234
        if math.isfinite(number) and number.is_integer():
            return str(int(number))
        return repr(number)
    if isinstance(value, date):  # datetime and pandas' Timestamp too
        return str(value)
    raise ValidationError(field, RULE_NOT_SCALAR, position=row, value=type(value).__name__)


def field_texts(values: Iterable[Any], field: str = "field", start: int = 0) -> list[str]:
    """Each value's text, ``""`` when missing; ``start`` is the row of the first value."""
    if isinstance(values, str | bytes) or not isinstance(values, Iterable):
        raise ValidationError("values", "must be an iterable of field values", value=values)
    if not isinstance(field, str):
        raise ValidationError("field", "must be a field name", value=field)
    start = checked_integer("start", start)
    return [
        v if type(v) is str else (field_text(v, field, start + i) or "")
        for i, v in enumerate(values)
    ]
