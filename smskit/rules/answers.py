"""How the gateway's answers are read where the spec leaves their shape open.

Written once here for the sandbox (which answers this way) and the client (which reads it):

- **A duplicated request_id.** The spec: "If the same request id is detected again, a
  validation error is returned" and "A duplicated ``request_id`` returns a validation error
  (its code: not shown)". The vendor's older API documents the same condition as error
  ``120``, "A SMS with the same request_id has already been sent". An error is a duplicate
  when its field errors name ``request_id`` (whatever code goes with it: the spec shows
  none; the client never posts a request_id the gateway could refuse for another reason,
  see :func:`smskit.client.checks.check_request_id`), or when its top-level code is ``120``.
- **No recipient left.** Convention 3 ignores a recipient that cannot be used; ``recipients``
  is required. When every recipient was ignored, the required field is blank: a validation
  error on ``recipients`` with the spec's blank code 410.
- **HLR values that cannot be known.** The spec types ``network_name``, ``area`` and the
  country fields as strings and ``mcc``/``mnc`` as integers; only ``ported_date`` and
  ``original_network_details`` may be null. For a number that cannot be identified, the
  unknowable values are therefore ``""`` and ``0`` (and ``false`` for booleans); a reader
  turns them back into "unknown", never into a network or country called ``""`` or ``0``.
  No MCC is 0 (they start at 2xx); an MNC 00 exists in a few countries (e.g. 234 00), but an
  integer field cannot tell it from the placeholder, so 0 reads as unknown there too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "BLANK_CODE",
    "DUPLICATE_FIELD",
    "HLR_PLACEHOLDERS",
    "LEGACY_DUPLICATE_CODE",
    "LEGACY_DUPLICATE_MESSAGE",
    "NO_RECIPIENT_MESSAGE",
    "RECIPIENTS_FIELD",
    "hlr_known",
    "hlr_placeholder",
    "is_duplicate_request_id",
    "is_no_recipient",
    "nobody_left",
]

DUPLICATE_FIELD: Final = "request_id"
LEGACY_DUPLICATE_CODE: Final = 120
LEGACY_DUPLICATE_MESSAGE: Final = "A SMS with the same request_id has already been sent"

RECIPIENTS_FIELD: Final = "recipients"
BLANK_CODE: Final = 410  # the spec's example field code: "must not be blank"
NO_RECIPIENT_MESSAGE: Final = (
    "recipients must not be blank: no recipient is left once the unusable ones are ignored "
    "(and blacklisted ones removed, when asked)."
)

# The spec's HLR network fields (top level and in original_network_details) and what stands
# for "cannot be known" in each, of the spec's type.
HLR_PLACEHOLDERS: Final[Mapping[str, str | int]] = {
    "network_name": "",
    "mcc": 0,
    "mnc": 0,
    "country_name": "",
    "country_code_iso3": "",
    "country_code": "",
    "area": "",
    "country_prefix": "",
}


def is_duplicate_request_id(code: Any, errors: Any) -> bool:
    """Whether an error answer (top-level ``code``, ``errors`` object) says the request_id
    was already used: its field errors name ``request_id``, or its code is the vendor's 120."""
    if isinstance(code, int) and not isinstance(code, bool) and code == LEGACY_DUPLICATE_CODE:
        return True
    return isinstance(errors, Mapping) and DUPLICATE_FIELD in errors


def nobody_left(kept: int) -> bool:
    """Whether a send with ``kept`` recipients left after the gateway's removals has its
    required ``recipients`` blank (the reading of convention 3 with a required field)."""
    return kept == 0


def is_no_recipient(errors: Any) -> bool:
    """Whether field ``errors`` say the send's ``recipients`` were blank (code 410)."""
    if not isinstance(errors, Mapping):
        return False
    detail = errors.get(RECIPIENTS_FIELD)
    return isinstance(detail, Mapping) and detail.get("code") == BLANK_CODE


def hlr_placeholder(field: str, value: Any) -> Any:
    """What the gateway answers in HLR ``field`` for ``value`` (None: cannot be known)."""
    if value is None and field in HLR_PLACEHOLDERS:
        return HLR_PLACEHOLDERS[field]
    return value


def hlr_known(field: str, value: Any) -> Any:
    """``value`` of HLR ``field`` as read, None when it is the field's "unknown" placeholder
    (``""``, blank text, or 0 for ``mcc``/``mnc``)."""
    if field not in HLR_PLACEHOLDERS or value is None:
        return value
    if isinstance(value, str):
        return value if value.strip() else None
    if isinstance(value, int) and not isinstance(value, bool) and value == 0:
        return None
    return value
