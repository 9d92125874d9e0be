"""The default region: the country of a national number when its row names none.

``FR`` (the gateway's home market) unless the ``SMSKIT_DEFAULT_REGION`` environment variable
names another two-letter region code (ISO 3166-1, upper case, as ``phonenumbers`` spells
them), or is set empty: then there is no default, and a national number without a country is
refused. Read once, when smskit first needs it; every ``default_region=`` argument defaults
to it, and an argument given still wins.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, Final

from smskit.errors import ValidationError

__all__ = ["DEFAULT_REGION", "ENV_DEFAULT_REGION", "check_region", "default_region_setting"]

ENV_DEFAULT_REGION: Final = "SMSKIT_DEFAULT_REGION"
_REGION_RE: Final = re.compile(r"[A-Z]{2}")
_RULE: Final = "must be a two-letter region code in upper case, such as 'FR', or None"


def check_region(region: Any, field: str = "default_region") -> str | None:
    """``region`` if it is None or a two-letter upper-case code; else a ValidationError."""
    if region is not None and not (isinstance(region, str) and _REGION_RE.fullmatch(region)):
        raise ValidationError(field, _RULE, value=region)
    return region


def default_region_setting(environ: Mapping[str, str] | None = None) -> str | None:
    """``$SMSKIT_DEFAULT_REGION`` (empty: None), else ``FR``; a malformed value is refused."""
    env = os.environ if environ is None else environ
    value = env.get(ENV_DEFAULT_REGION)
    if value is None:
        return "FR"
    return check_region(value or None, ENV_DEFAULT_REGION)


DEFAULT_REGION: Final = default_region_setting()
