"""What a text must say, by purpose: the STOP mention and "is this marketing?".

Spec, send rule 1: a ``wholesale`` (marketing, the default) text must carry a STOP mention,
otherwise the gateway answers 400 with code 121. Rule 2: ``alert`` is for transactional
messages and may be sent at any hour. Spaces in the sender are allowed for alerts and for
sends with replies (the spec's ``sender`` field).
"""

from __future__ import annotations

import re
from typing import Any, Final

from smskit.errors import ValidationError

__all__ = [
    "DEFAULT_PURPOSE",
    "DEFAULT_STOP_MENTION",
    "RULE_STOP_MISSING",
    "STOP_MENTION_PATTERN",
    "add_stop_mention",
    "has_stop_mention",
    "is_marketing",
    "sender_allows_spaces",
]

DEFAULT_PURPOSE: Final = "wholesale"
DEFAULT_STOP_MENTION: Final = "STOP au 36173"
RULE_STOP_MISSING: Final = (
    "a marketing text (purpose wholesale, the default) needs a STOP mention, e.g. "
    "'STOP au 36173'; a transactional message is sent with purpose alert"
)
# The characters that glue onto STOP and make it part of another word: ASCII letters, digits
# and the underscore, spelt out. This is what ``\b`` means in ECMA 262, the regex dialect of
# JSON Schema patterns; Python's unicode ``\b`` (where '¼' and 'é' are word characters) and
# Rust's (where 'é' is one but '¼' is not) each read it differently, so the rule never says
# ``\b``. One pattern, read the same by every engine: the sandbox's OpenAPI document uses it
# as is (see docs/sandbox.md, "The STOP mention: one pattern").
_GLUE: Final = "A-Za-z0-9_"
STOP_MENTION_PATTERN: Final = f"(?:^|[^{_GLUE}])STOP(?:[^{_GLUE}]|$)"
_STOP_RE: Final = re.compile(STOP_MENTION_PATTERN)


def _text(value: Any, field: str = "text") -> str:
    if not isinstance(value, str):
        raise ValidationError(field, "must be a string", value=value)
    return value


def is_marketing(purpose: str | None) -> bool:
    """``wholesale`` and the default (None) are marketing; ``alert`` is transactional."""
    return purpose in (None, DEFAULT_PURPOSE)


def sender_allows_spaces(purpose: str | None, with_replies: bool | None) -> bool:
    """Spaces in the sender: only for alerts and sends with replies."""
    return purpose == "alert" or with_replies is True


def has_stop_mention(text: str) -> bool:
    """THE STOP rule: the upper-case word ``STOP``, case-sensitive and whole-word.

    "STOP au 36173", "STOP: 36173" and "(STOP)" qualify; "stop", "Stop", "STOPPED",
    "NONSTOP", "STOP2" and "STOP_SMS" do not. A word ends at any character other than an
    ASCII letter, digit or underscore (``\b`` as ECMA 262 and JSON Schema read it), so
    "STOPé" and "¼STOP" qualify: :data:`STOP_MENTION_PATTERN` is the whole rule.
    """
    return _STOP_RE.search(_text(text)) is not None


def add_stop_mention(text: str, mention: str = DEFAULT_STOP_MENTION) -> str:
    """``text`` with ``mention`` appended on a new line, unless it already has a STOP mention."""
    _text(text)
    _text(mention, "mention")
    if not has_stop_mention(mention):
        raise ValidationError("mention", "must contain the word STOP", value=mention)
    if has_stop_mention(text):
        return text
    body = text.rstrip()
    return f"{body}\n{mention}" if body else mention
