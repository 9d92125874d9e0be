"""The sender rule: 3 to 11 characters a-z, A-Z, 0-9; spaces only for alerts and replies.

The client refuses a sender that breaks it; the sandbox, lenient like the gateway (spec,
general convention 3), removes the characters the rule does not allow and then checks the
length. Both read the same character classes from here.
"""

from __future__ import annotations

import re
from typing import Any, Final

from smskit.errors import ValidationError
from smskit.rules.spec import SENDER_MAX, SENDER_MIN

__all__ = ["allowed_characters", "check_sender", "clean_sender"]

_NOT_ALLOWED: Final = re.compile(r"[^A-Za-z0-9]")
_NOT_ALLOWED_WITH_SPACES: Final = re.compile(r"[^A-Za-z0-9 ]")


def allowed_characters(*, spaces: bool) -> str:
    """The characters a sender may hold, in words."""
    return "letters a-z A-Z, digits" + (" and spaces" if spaces else "")


def clean_sender(raw: str, *, spaces: bool) -> str:
    """The sender with the characters the rule does not allow removed (the gateway's way)."""
    # Spaces inside are kept as given: the handset shows them, and each one counts.
    return (_NOT_ALLOWED_WITH_SPACES if spaces else _NOT_ALLOWED).sub("", raw).strip()


def check_sender(sender: Any, *, spaces: bool) -> str:
    """``sender`` if it follows the rule as given; a ``ValidationError`` otherwise."""
    if not isinstance(sender, str) or not SENDER_MIN <= len(sender) <= SENDER_MAX:
        raise ValidationError(
            "sender", f"must have {SENDER_MIN} to {SENDER_MAX} characters", value=sender
        )
    if (_NOT_ALLOWED_WITH_SPACES if spaces else _NOT_ALLOWED).search(sender):
        extra = (
            ""
            if spaces
            else " (spaces only in a transactional send, purpose alert, or one with replies)"
        )
        raise ValidationError(
            "sender", f"only {allowed_characters(spaces=spaces)}{extra}", value=sender
        )
    return sender
