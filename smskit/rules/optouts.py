"""Opt-outs in preflight: which recipients an account's opt-out list excludes, and when a
send may include them anyway.

Pure: numbers in normalised E.164 form (what preflight's phone column holds) and the list's
numbers (kept in the same form) in, a mask out; no I/O. Where the list is kept and how it is
fed is :mod:`smskit.replies.optouts`; preflight (:mod:`smskit.campaigns.planning.orchestration`)
asks this module, so the rule is written once for pandas, Dask, the Composer and the CLI.

Decisions (docs/optouts.md):

- A recipient whose number is on the list gets the issue ``opted_out`` and is not sent to.
  Numbers are compared in E.164 form, so ``06 12 34 56 78`` (France) and ``+33612345678``
  are one number; a number preflight could not read is never "on the list".
- A transactional send (``purpose="alert"``) may include them when the user says so
  (``include_opted_out=True``); each such recipient then carries the warning
  ``opted_out_included`` and the campaign the finding of the same code, counted. A
  marketing send (``wholesale``, the default) never may: the option is refused.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final

from smskit.errors import ValidationError
from smskit.rules.choices import checked_flag
from smskit.rules.content import is_marketing

if TYPE_CHECKING:
    import numpy as np

__all__ = [
    "INCLUDED",
    "INCLUDED_COUNT",
    "OPTED_OUT",
    "UNREAD",
    "Suppression",
    "check_include_opted_out",
    "listed_form",
    "opted_out",
]

OPTED_OUT: Final = "opted_out"  # the issue: excluded, on the account's opt-out list
INCLUDED: Final = "opted_out_included"  # the warning: on the list, sent anyway (transactional)
INCLUDED_COUNT: Final = "opted_outs_included"  # the campaign's finding: how many were
UNREAD: Final = "optouts_unread"  # the warning: no account known, the list was not read


@dataclass(frozen=True)
class Suppression:
    """What preflight checks the recipients against: the account's opted-out numbers
    (E.164), and ``unread``, why no list was read (said as a warning; None when it was
    read, or not asked for). Whether they are sent to anyway is the campaign's
    ``include_opted_out`` (:class:`~smskit.campaigns.planning.preflight.PreflightSettings`)."""

    numbers: frozenset[str] = frozenset()
    unread: str | None = None


def opted_out(phone_numbers: Any, suppressed: Collection[str]) -> np.ndarray:
    """Per number of ``phone_numbers`` (E.164 texts; missing where preflight could not read
    one), whether it is in ``suppressed``: a boolean array; a missing number never is."""
    import numpy as np
    import pandas as pd

    numbers = pd.Series(phone_numbers, copy=False)
    if not suppressed or len(numbers) == 0:
        return np.zeros(len(numbers), dtype=bool)
    listed = pd.Series(list(suppressed), dtype=object)
    return numbers.isin(listed).to_numpy(dtype=bool, na_value=False)


def check_include_opted_out(include: object, purpose: str | None) -> bool:
    """``include`` (send to numbers that opted out) if it is a bool allowed for ``purpose``:
    only a transactional send (``alert``) may; refused for marketing, naming the option."""
    include = bool(checked_flag("include_opted_out", include))
    if include and is_marketing(purpose):
        raise ValidationError(
            "include_opted_out",
            "only a transactional send (purpose alert) may include numbers that opted "
            "out; a marketing send (purpose wholesale, the default) never does",
        )
    return include


def listed_form(number: object) -> str | None:
    """How an opt-out list keeps a number a callback gave: its E.164 form when it reads as
    a valid number (as a recipient is read: a national one in the default region), else the
    text exactly as given (``+3361234``, a short number: listed, so never sent to, and shown
    in the list's history); None for no number (not a text, or blank). The list's own CSV
    keeps such a number as given too, so an export imports back exactly."""
    from smskit.rules.phonecheck import to_e164
    from smskit.rules.region import DEFAULT_REGION

    if not isinstance(number, str) or not number.strip():
        return None
    return to_e164(number, DEFAULT_REGION) or number
