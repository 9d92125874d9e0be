"""The public name of the text engine: ``smskit.text.analyze(...)`` and friends.

The rules live in :mod:`smskit.rules.text` (one text), :mod:`smskit.rules.personalize`
(a template filled per recipient) and :mod:`smskit.rules.batch` (many texts); this module
names them for users, and sends Dask collections to their partition-wise path
(:mod:`smskit.dask.partitionwise`, the ``[dask]`` extra).
"""

from __future__ import annotations

from typing import Any

from smskit._dask import is_dask_collection
from smskit.rules.batch import SegmentEstimate, estimate
from smskit.rules.batch import analyze_many as _analyze_many
from smskit.rules.personalize import MissingFieldWarning, fields, render
from smskit.rules.personalize import render_all as _render_all
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


def analyze_many(texts: Any, *, national: str | None = None) -> Any:
    """One row per text: ``encoding``, ``characters``, ``units``, ``segments``, ``remaining``
    and ``error`` (:func:`smskit.rules.batch.analyze_many`); a Dask Series gives a Dask
    DataFrame, lazily, with the same columns and dtypes."""
    if is_dask_collection(texts):
        from smskit.dask import partitionwise

        return partitionwise.analyze_many(texts, national=national)
    return _analyze_many(texts, national=national)


def render_all(template: str, recipients: Any) -> Any:
    """``template`` rendered for every recipient (:func:`smskit.rules.personalize.render_all`);
    a Dask DataFrame gives a Dask Series, lazily, with the same name and dtype."""
    if is_dask_collection(recipients):
        from smskit.dask import partitionwise

        return partitionwise.render_all(template, recipients)
    return _render_all(template, recipients)
