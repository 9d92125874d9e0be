"""Lenient reading of request values, as the spec's convention 3 asks.

Wrong types are cast when the cast is lossless (``"true"`` -> True, ``3`` -> ``"3"``),
reformattable values are reformatted (separators out of phone numbers, case of enums),
and field errors are collected so that one 400 answer names every faulty field at once.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from smskit.rules.answers import BLANK_CODE
from smskit.rules.phonecheck import gateway_number

# Field error codes: the spec shows 410 for blank; the rest are the sandbox's documented choice.
BLANK = BLANK_CODE
LENGTH = 411
FORMAT = 412
NOT_ALLOWED = 413
DUPLICATE = 420  # a request_id already used in the last 24 hours (the spec shows no code)

_TRUE = frozenset({"true", "1", "yes", "on", "y", "t"})
_FALSE = frozenset({"false", "0", "no", "off", "n", "f"})
_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
_NOT_SET = object()
# The vendor documents send_at "2021-01-01 00:01:00" as Central European Time by default.
VENDOR_TZ = ZoneInfo("Europe/Paris")


class FieldErrors:
    """Collects ``{field: {code, message}}``; the first error for a field wins."""

    def __init__(self) -> None:
        self.errors: dict[str, dict[str, Any]] = {}

    def add(self, field: str, code: int, message: str) -> None:
        self.errors.setdefault(field, {"code": code, "message": message})

    def __bool__(self) -> bool:
        return bool(self.errors)


def as_bool(value: Any, default: bool) -> bool:
    """Cast booleans sent as strings or numbers; anything unrecognisable keeps the default."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    if isinstance(value, str):
        word = value.strip().lower()
        if word in _TRUE:
            return True
        if word in _FALSE:
            return False
    return default


def as_text(value: Any) -> str | None:
    """Strings, and integers as their decimal digits; anything else gives ``None``.

    Only the lossless cast: a boolean or a fraction has no one spelling as text (``1e-05``
    or ``0.00001``?), so it cannot be read as text, and the OpenAPI document can say
    exactly what is accepted.
    """
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return str(int(value))
    return None


def as_choice(value: Any, choices: tuple[str, ...], default: str) -> str:
    """An enum value, case and surrounding spaces forgiven; anything else becomes the default."""
    text = as_text(value)
    if text is None:
        return default
    word = text.strip().lower()
    return word if word in choices else default


def as_list(value: Any) -> list[Any] | None:
    """A JSON array as a list; a single scalar or object is cast to a one-item list."""
    if isinstance(value, list):
        return value
    if value is None:
        return None
    return [value]


def required_text(
    payload: Mapping[str, Any],
    field: str,
    errors: FieldErrors,
    *,
    strip: bool = True,
    limit: int | None = None,
) -> str | None:
    """A required string field: blank -> 410, uncastable -> 412, longer than ``limit`` -> 411."""
    raw = payload.get(field, _NOT_SET)
    if raw is _NOT_SET or raw is None:
        errors.add(field, BLANK, f"{field} must not be blank.")
        return None
    text = as_text(raw)
    if text is None:
        errors.add(field, FORMAT, f"{field} must be a string.")
        return None
    if not text.strip():
        errors.add(field, BLANK, f"{field} must not be blank.")
        return None
    text = text.strip() if strip else text
    return text if limit is None else _within(field, text, limit, errors)


def optional_name(
    payload: Mapping[str, Any], field: str, limit: int, errors: FieldErrors
) -> str | None:
    """An optional name (list, tag): empty means absent; longer than ``limit`` -> 411."""
    text = as_text(payload.get(field))
    if text is None or not text.strip():
        return None
    return _within(field, text.strip(), limit, errors)


def _within(field: str, text: str, limit: int, errors: FieldErrors) -> str | None:
    if len(text) > limit:
        errors.add(field, LENGTH, f"{field} must be at most {limit} characters (got {len(text)}).")
        return None
    return text


def normalize_phone(value: Any) -> str | None:
    """The number as the gateway reads it (the rule book's :func:`gateway_number`): ``+`` and
    7 to 15 digits after removing separators and turning ``00`` into ``+``; else None."""
    text = as_text(value)
    return None if text is None else gateway_number(text)


PHONE_RULE = "must be in international format: '+' then 7 to 15 digits (e.g. +33612345678)."


def phone_list(
    payload: Mapping[str, Any], field: str, limit: int, errors: FieldErrors
) -> list[str] | None:
    """A required list of 1..``limit`` phone numbers in international format."""
    items = as_list(payload.get(field))
    if not items:
        errors.add(field, BLANK, f"{field} must not be blank: give 1 to {limit} numbers.")
        return None
    if len(items) > limit:
        errors.add(field, LENGTH, f"{field} must hold 1 to {limit} numbers (got {len(items)}).")
        return None
    numbers: list[str] = []
    for index, item in enumerate(items):
        number = normalize_phone(item)
        if number is None:
            key = f"{field}[{index}]"
            if as_text(item) is None or not str(item).strip():
                errors.add(key, BLANK, f"{key} must not be blank.")
            else:
                errors.add(key, FORMAT, f"{key} {PHONE_RULE}")
        else:
            numbers.append(number)
    return numbers


def is_email(text: str) -> bool:
    """A plain ``local@domain.tld`` shape: enough to catch typos, not RFC 5322."""
    return bool(_EMAIL.fullmatch(text))


def parse_datetime(value: Any) -> datetime:
    """ISO 8601 or a Unix timestamp; ValueError says why not.

    Without an offset the date-time is Paris time, summer time included (the vendor's
    rule): an hour repeated when clocks go back is its first (summer) occurrence, an hour
    skipped when they go forward is read with the winter offset (02:30 is 03:30 CEST).
    """
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, UTC)
        except (OverflowError, OSError, ValueError):
            raise ValueError("is not a usable Unix timestamp.") from None
    if not isinstance(value, str):
        raise ValueError("must be an ISO 8601 date-time string with an offset.")
    try:
        moment = datetime.fromisoformat(value.strip())
    except ValueError:
        raise ValueError(
            "must be an ISO 8601 date-time, e.g. 2030-01-31T09:00:00+01:00 or "
            "2030-01-31 09:00:00 (Paris time)."
        ) from None
    if moment.utcoffset() is None:
        return moment.replace(tzinfo=VENDOR_TZ, fold=0)
    return moment
