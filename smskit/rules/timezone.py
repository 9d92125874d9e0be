"""The account's time zone: the one times are shown in (reply dates, figures).

``Europe/Paris`` unless the ``SMSKIT_TIME_ZONE`` environment variable or an argument names
another IANA zone. The gateway itself speaks UTC; only what a person reads is converted.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Final
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from smskit.errors import ValidationError

__all__ = ["DEFAULT_TIME_ZONE", "ENV_TIME_ZONE", "account_time_zone"]

DEFAULT_TIME_ZONE: Final = "Europe/Paris"
ENV_TIME_ZONE: Final = "SMSKIT_TIME_ZONE"


def account_time_zone(
    time_zone: str | None = None, environ: Mapping[str, str] | None = None
) -> str:
    """``time_zone``, else ``$SMSKIT_TIME_ZONE``, else Europe/Paris; an unknown zone is refused
    with a :class:`ValidationError` naming where it came from."""
    env = os.environ if environ is None else environ
    field, name = "time_zone", time_zone
    if name is None:
        field, name = ENV_TIME_ZONE, env.get(ENV_TIME_ZONE) or DEFAULT_TIME_ZONE
    if not isinstance(name, str) or not name.strip():
        raise ValidationError(field, "must be an IANA time zone, e.g. 'Europe/Paris'", value=name)
    try:
        ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValidationError(
            field, "must be an IANA time zone, e.g. 'Europe/Paris'", value=name
        ) from None
    return name
