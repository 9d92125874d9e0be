"""The default region: the country of a national number when its row names none.

``FR`` (the gateway's home market) unless the ``SMSKIT_DEFAULT_REGION`` environment variable
names another region of the numbering plan (two letters, upper case, as ``phonenumbers``
spells them), or is set empty: then there is no default, and a national number without a
country is refused. Any other value (``fr``, ``XX``) is refused naming the variable, with
what a shell can set instead. Read once, when smskit first needs it; every
``default_region=`` argument defaults to it, and an argument given still wins.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any, Final

from smskit.errors import ValidationError

__all__ = [
    "DEFAULT_REGION",
    "ENV_DEFAULT_REGION",
    "check_region",
    "default_region_setting",
    "is_region",
]

ENV_DEFAULT_REGION: Final = "SMSKIT_DEFAULT_REGION"
_REGION_RE: Final = re.compile(r"[A-Z]{2}")
_RULE: Final = (
    "must be a two-letter region code in upper case known to the numbering plan, such as 'FR'"
)
# What each reader can give instead of a region: Python None; a shell only a string.
_OR_NONE: Final = ", or None"
_OR_EMPTY: Final = (
    "; set it empty for no default region (national numbers are then refused), or unset it for FR"
)


def is_region(code: Any) -> bool:
    """Whether ``code`` is a region of the numbering plan, spelled as ``phonenumbers`` spells
    it (two upper-case letters: ``FR``, ``GB``; not ``UK``, ``XX`` nor ``fr``)."""
    if not (isinstance(code, str) and _REGION_RE.fullmatch(code)):
        return False
    import phonenumbers  # only once a region is given: not for `import smskit`

    return code in phonenumbers.SUPPORTED_REGIONS


def check_region(region: Any, field: str = "default_region") -> str | None:
    """``region`` if it is None or a region of the numbering plan; else a ValidationError."""
    if region is not None and not is_region(region):
        raise ValidationError(field, _RULE + _OR_NONE, value=region)
    return region


def default_region_setting(environ: Mapping[str, str] | None = None) -> str | None:
    """``$SMSKIT_DEFAULT_REGION`` (empty: None), else ``FR``; any other value that is not a
    region of the numbering plan is refused naming the variable, in a shell's words."""
    env = os.environ if environ is None else environ
    value = env.get(ENV_DEFAULT_REGION)
    if value is None:
        return "FR"
    if value and not is_region(value):
        raise ValidationError(ENV_DEFAULT_REGION, _RULE + _OR_EMPTY, value=value)
    return value or None


DEFAULT_REGION: Final = default_region_setting()
