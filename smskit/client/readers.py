"""Lenient readers of one field of a gateway answer, as lenient as the gateway itself.

Each model of :mod:`smskit.client.models` (and :mod:`smskit.client.wallet`) reads every field
from the body by name, whatever its default: ``read_int(body, "mcc")``, or a plain field by its
declared type (``models._read_fields``). Numbers sent as strings are cast; a value of the wrong kind
raises :class:`~smskit.errors.ResponseShapeError`; an absent or null field reads as None.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, TypeVar

from smskit.errors import ResponseShapeError

__all__ = ["as_object", "read_bool", "read_datetime", "read_float", "read_int", "read_str"]

_T = TypeVar("_T")


def as_object(data: Any, what: str) -> Mapping[str, Any]:
    """``data`` if it is a JSON object; ``what`` names it in the error otherwise."""
    if not isinstance(data, Mapping):
        raise ResponseShapeError(f"{what}: expected a JSON object, got {type(data).__name__}")
    return data


def read_str(data: Mapping[str, Any], key: str) -> str | None:
    """A string (a number is turned into its text)."""
    value = data.get(key)
    if value is None or isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        return str(value)
    raise ResponseShapeError(f"{key}: expected a string, got {value!r}")


def read_int(data: Mapping[str, Any], key: str) -> int | None:
    """An integer, from a number or its text (``""`` reads as None)."""
    return _read(data, key, "an integer", _integer)


def read_float(data: Mapping[str, Any], key: str) -> float | None:
    """A number, from a number or its text (``""`` reads as None)."""
    return _read(data, key, "a number", _number)


def read_bool(data: Mapping[str, Any], key: str) -> bool | None:
    """A boolean, from ``true``/``false`` or 0/1 (as numbers or text)."""
    value = data.get(key)
    if value is None or isinstance(value, bool):
        return value
    if value in (0, 1, "0", "1", "true", "false"):
        return value in (1, "1", "true")
    raise ResponseShapeError(f"{key}: expected a boolean, got {value!r}")


def read_datetime(data: Mapping[str, Any], key: str) -> datetime | None:
    """A date-time, from ISO 8601 or ``YYYY-MM-DD HH:MM:SS`` (``""`` reads as None)."""
    return _read(
        data, key, "'YYYY-MM-DD HH:MM:SS'", lambda value: datetime.fromisoformat(str(value))
    )


def _read(
    data: Mapping[str, Any], key: str, expected: str, convert: Callable[[Any], _T]
) -> _T | None:
    """``convert`` of the field ``key`` (absent, null or ``""``: None); a value it refuses
    (TypeError, ValueError) is a ResponseShapeError saying what was ``expected``."""
    value = data.get(key)
    if value is None or value == "":
        return None
    try:
        return convert(value)
    except (TypeError, ValueError):
        raise ResponseShapeError(f"{key}: expected {expected}, got {value!r}") from None


def _number(value: Any) -> float:
    if isinstance(value, bool):  # a JSON true is not the number 1
        raise TypeError(value)
    return float(value)


def _integer(value: Any) -> int:
    number = _number(value)
    if not number.is_integer():
        raise ValueError(value)
    return int(number)
