"""The account's time zone: the one times are shown in (reply dates, figures).

``Europe/Paris`` unless the ``SMSKIT_TIME_ZONE`` environment variable or an argument names
another IANA zone (:func:`checked_time_zone`: the one check of a zone's name). The gateway
itself speaks UTC; only what a person reads is converted.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from typing import Any, Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from smskit.errors import ValidationError

__all__ = ["DEFAULT_TIME_ZONE", "ENV_TIME_ZONE", "account_time_zone", "checked_time_zone"]

DEFAULT_TIME_ZONE: Final = "Europe/Paris"
ENV_TIME_ZONE: Final = "SMSKIT_TIME_ZONE"


def account_time_zone(
    time_zone: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """``time_zone``, else ``$SMSKIT_TIME_ZONE``, else Europe/Paris; an unknown zone is refused
    with a :class:`ValidationError` naming where it came from."""
    env = os.environ if environ is None else environ
    if time_zone is not None:
        return checked_time_zone("time_zone", time_zone)
    try:
        return checked_time_zone(ENV_TIME_ZONE, env.get(ENV_TIME_ZONE) or DEFAULT_TIME_ZONE)
    except ValidationError as refused:  # said with what a shell can set instead
        rule = f"{refused.rule}; set it empty, or unset it, for {DEFAULT_TIME_ZONE}"
        raise ValidationError(ENV_TIME_ZONE, rule, value=refused.value) from None


def checked_time_zone(field: str, name: Any) -> str:
    """``name`` if it names an IANA time zone; else a :class:`ValidationError` naming ``field``."""
    if isinstance(name, str) and name.strip():
        with contextlib.suppress(ZoneInfoNotFoundError, ValueError):
            ZoneInfo(name)
            return name
    raise ValidationError(field, "must be an IANA time zone, e.g. 'Europe/Paris'", value=name)
