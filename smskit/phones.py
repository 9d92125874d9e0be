"""The public name of phone-number reading: ``smskit.phones.normalize(...)`` and friends.

The rules live in :mod:`smskit.rules.phones`; this module only names them for users.
"""

from smskit.rules.phones import (
    REASON_DTYPE,
    REASONS,
    TYPE_DTYPE,
    PhoneCheck,
    classify,
    is_e164,
    is_stage_and_screen,
    main_region,
    normalize,
    read_valid,
    refusal,
    spec_type,
    to_e164,
)

__all__ = [
    "REASONS",
    "REASON_DTYPE",
    "TYPE_DTYPE",
    "PhoneCheck",
    "classify",
    "is_e164",
    "is_stage_and_screen",
    "main_region",
    "normalize",
    "read_valid",
    "refusal",
    "spec_type",
    "to_e164",
]
