"""The public name of the text engine: ``smskit.text.analyze(...)`` and friends.

The rules live in :mod:`smskit.rules.text` (one text), :mod:`smskit.rules.personalize`
(a template filled per recipient) and :mod:`smskit.rules.batch` (many texts); this module
only names them for users.
"""

from smskit.rules.batch import SegmentEstimate, analyze_many, estimate
from smskit.rules.personalize import MissingFieldWarning, fields, render, render_all
from smskit.rules.text import (
    DEFAULT_STOP_MENTION,
    DYNAMIC_FIELDS,
    MAX_FIELD_LENGTH,
    MAX_TEXT_LENGTH,
    NATIONAL_LANGUAGES,
    OPTIMIZE_TABLE,
    Optimization,
    Replacement,
    TextStats,
    add_stop_mention,
    analyze,
    field_texts,
    has_stop_mention,
    optimize,
    optimize_text,
    validate_text,
)

__all__ = [
    "DEFAULT_STOP_MENTION",
    "DYNAMIC_FIELDS",
    "MAX_FIELD_LENGTH",
    "MAX_TEXT_LENGTH",
    "NATIONAL_LANGUAGES",
    "OPTIMIZE_TABLE",
    "MissingFieldWarning",
    "Optimization",
    "Replacement",
    "SegmentEstimate",
    "TextStats",
    "add_stop_mention",
    "analyze",
    "analyze_many",
    "estimate",
    "field_texts",
    "fields",
    "has_stop_mention",
    "optimize",
    "optimize_text",
    "render",
    "render_all",
    "validate_text",
]
