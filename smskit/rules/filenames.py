"""Names that name a file: a campaign's (its journal), an experiment's and its arms'.

Such a name is 1 to ``longest`` characters: ASCII letters, digits, ``_`` or ``-`` (and ``.``
where the caller allows it), starting with a letter or digit. So it is one file name on every
system: never a path, a hidden file, an empty name or a character a file system changes.
:func:`checked_file_name` refuses anything else with a ValidationError naming the field,
the value and the rule.

May import: the standard library and ``smskit.errors``. Pure: no I/O.
"""

from __future__ import annotations

import re
from typing import Any

from smskit.errors import ValidationError

__all__ = ["checked_file_name"]


def checked_file_name(
    field: str, value: Any, *, longest: int, dots: bool, names: str, position: int | None = None
) -> str:
    """``value`` if it is a name of 1 to ``longest`` characters as above (``.`` allowed when
    ``dots``); else a ValidationError naming ``field`` (at ``position``, if given) and what
    the name ``names``."""
    others = "._-" if dots else "_-"
    if not isinstance(value, str) or not re.fullmatch(
        f"[A-Za-z0-9][A-Za-z0-9{others}]{{0,{longest - 1}}}", value
    ):
        allowed = "'.', '_' or '-'" if dots else "'_' or '-'"
        raise ValidationError(
            field,
            f"1 to {longest} characters: letters, digits, {allowed}, starting with a letter "
            f"or digit (it names {names})",
            position=position,
            value=value,
        )
    return value
