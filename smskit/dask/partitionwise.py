"""The rule book on Dask collections: the pandas function on each partition, lazily.

Each result's ``meta`` (its columns and dtypes) is declared here from the rule book's own
dtypes, never inferred by running a rule on made-up data, and it equals what the pandas
path returns for the same partition. Reached through ``smskit.phones.normalize``,
``smskit.text.render_all`` and ``smskit.text.analyze_many``, which send a Dask collection
here and leave the pandas path untouched.

As in pandas, a value over 50 characters in ``render_all`` raises (at compute time) a
``ValidationError`` naming its row in the whole input: each partition is rendered with the
row number of its first row, counted in the same graph (a running sum of the partitions'
lengths, each partition read once). The ``MissingFieldWarning`` of missing values is raised
on the worker, where nobody sees it (the Dask campaign's preflight counts them instead).
"""

from __future__ import annotations

import operator
from typing import Any

import dask.dataframe as dd
import pandas as pd
from dask.delayed import Delayed, delayed

from smskit.errors import ValidationError
from smskit.rules import personalize, phones, textvec
from smskit.rules.batch import analyze_many as _pandas_analyze_many
from smskit.rules.region import DEFAULT_REGION

__all__ = ["analyze_many", "normalize", "render_all"]


def normalize(
    values: dd.Series,
    default_region: str | None = DEFAULT_REGION,
    *,
    region: dd.Series | None = None,
) -> dd.DataFrame:
    """:func:`smskit.phones.normalize` of every partition of ``values``.

    ``region``, when given, is a Dask Series partitioned like ``values`` (a column of the
    same frame), paired row by row within each partition.
    """
    _check_series(values, "values")
    phones.normalize([], default_region)  # a bad default region is refused now, not later
    meta = pd.DataFrame(
        {
            "input": pd.Series(dtype=values.dtype),
            "e164": pd.Series(dtype="string"),
            "valid": pd.Series(dtype=bool),
            "reason": pd.Series(dtype=phones.REASON_DTYPE),
            "region": pd.Series(dtype="string"),
            "type": pd.Series(dtype=phones.TYPE_DTYPE),
        },
        index=values._meta.index,
    )
    if region is None:
        return values.map_partitions(_normalize, default_region, meta=meta)
    _check_series(region, "region")
    if region.npartitions != values.npartitions:
        raise ValidationError(
            "region",
            f"must be partitioned like the values ({values.npartitions} partitions)",
            value=region.npartitions,
        )
    return dd.map_partitions(
        _normalize, values, default_region, region, meta=meta, align_dataframes=False
    )


def _normalize(
    values: pd.Series, default_region: str | None, region: pd.Series | None = None
) -> pd.DataFrame:
    return phones.normalize(values, default_region, region=region)


def render_all(template: str, recipients: dd.DataFrame) -> dd.Series:
    """:func:`smskit.text.render_all` of every partition of ``recipients``."""
    if not isinstance(recipients, dd.DataFrame):
        raise ValidationError(
            "recipients", "must be a Dask DataFrame here", value=type(recipients).__name__
        )
    personalize.fields(template)  # a template that breaks a rule is refused now, on the client
    meta = pd.Series(dtype="str", name="text", index=recipients._meta.index)
    rendered = []
    start: int | Delayed = 0
    for part in recipients.to_delayed():
        rendered.append(delayed(personalize.render_all)(template, part, start=start))
        # Partition n starts after the rows of 0..n-1: a chain, so rendering n waits for the
        # lengths before it only, and each partition is read once for both.
        start = delayed(operator.add)(start, delayed(len)(part))
    return dd.from_delayed(rendered, meta=meta, divisions=recipients.divisions, verify_meta=False)


def analyze_many(texts: dd.Series, *, national: str | None = None) -> dd.DataFrame:
    """:func:`smskit.text.analyze_many` of every partition of ``texts``."""
    _check_series(texts, "texts")
    _pandas_analyze_many([], national=national)  # a bad `national` is refused on the client
    counts = ("characters", "units", "segments", "remaining")
    meta = pd.DataFrame(
        {
            "encoding": pd.Series(dtype=pd.CategoricalDtype(list(textvec.ENCODINGS))),
            **{name: pd.Series(dtype="Int64") for name in counts},
            "error": pd.Series(dtype=pd.CategoricalDtype(list(textvec.ERRORS))),
        },
        index=texts._meta.index,
    )
    return texts.map_partitions(_pandas_analyze_many, national=national, meta=meta)


def _check_series(values: Any, name: str) -> None:
    if not isinstance(values, dd.Series):
        raise ValidationError(name, "must be a Dask Series here", value=type(values).__name__)
