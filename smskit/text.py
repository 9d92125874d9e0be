"""The public name of the text engine: ``smskit.text.analyze(...)`` and friends.

One text (:func:`analyze`, :func:`optimize`, STOP mentions), a template filled per
recipient (:func:`render`, :func:`render_all`) and many texts at once (:func:`analyze_many`).
:func:`render_all` and :func:`analyze_many` also take Dask collections (the ``[dask]``
extra) and answer lazily.
"""

from __future__ import annotations

from typing import Any

from smskit._dask import is_dask_collection
from smskit.rules.batch import SegmentEstimate, estimate
from smskit.rules.batch import analyze_many as _analyze_many
from smskit.rules.content import DEFAULT_STOP_MENTION, add_stop_mention, has_stop_mention
from smskit.rules.fields import DYNAMIC_FIELDS, field_texts
from smskit.rules.personalize import MissingFieldWarning, fields, render
from smskit.rules.personalize import render_all as _render_all
from smskit.rules.text import (
    MAX_FIELD_LENGTH,
    MAX_TEXT_LENGTH,
    NATIONAL_LANGUAGES,
    OPTIMIZE_TABLE,
    Optimization,
    Replacement,
    TextStats,
    analyze,
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
    and ``error``; a Dask Series gives a Dask DataFrame, lazily, with the same columns and
    dtypes.

    A row that cannot be analysed (not a string, lone surrogate) gets nulls and its rule in
    ``error``; an empty text or one over 1224 characters is analysed and flagged in
    ``error``. Never raises for a bad row. Numbers equal :func:`analyze`'s exactly.
    """
    if is_dask_collection(texts):
        from smskit.dask import partitionwise

        return partitionwise.analyze_many(texts, national=national)
    return _analyze_many(texts, national=national)


def render_all(template: str, recipients: Any) -> Any:
    """``template`` rendered for every recipient, read like ``send`` reads them (one dict or
    number, a list of them, a DataFrame, a CSV ``Path``); a Dask DataFrame gives a Dask
    Series, lazily, with the same name and dtype.

    A value over 50 characters is a ``ValidationError`` naming ``recipients[row].field``;
    missing values render empty and raise one :class:`MissingFieldWarning` that lists them.
    """
    if is_dask_collection(recipients):
        from smskit.dask import partitionwise

        return partitionwise.render_all(template, recipients)
    return _render_all(template, recipients)
