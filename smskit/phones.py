"""The public name of phone-number reading: ``smskit.phones.normalize(...)`` and friends.

One number (:func:`classify`, :func:`to_e164`, :func:`is_e164`) or many at once
(:func:`normalize`: a list, an array, a pandas Series, or a Dask Series with the ``[dask]``
extra, answered lazily).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from smskit._dask import is_dask_collection
from smskit.rules.phonecheck import (
    REASONS,
    PhoneCheck,
    classify,
    is_e164,
    is_stage_and_screen,
    main_region,
    read_valid,
    refusal,
    spec_type,
    to_e164,
)
from smskit.rules.phones import REASON_DTYPE, TYPE_DTYPE
from smskit.rules.phones import normalize as _normalize
from smskit.rules.region import DEFAULT_REGION

if TYPE_CHECKING:
    import pandas as pd

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


def normalize(
    values: Iterable[Any] | pd.Series,
    default_region: str | None = DEFAULT_REGION,
    *,
    region: Iterable[Any] | pd.Series | None = None,
) -> Any:
    """One row per value: ``input``, ``e164``, ``valid``, ``reason``, ``region``, ``type``.

    ``values`` may be any iterable of numbers (str, int, float or missing), a Series, a numpy
    or a pyarrow array. ``region``, when given, is the region of each row's national number
    (ISO 3166 alpha-2 codes matched by position; a missing one means ``default_region``).
    ``reason`` says why a number is not valid (one of :data:`REASONS`). A Dask Series gives a
    Dask DataFrame, lazily, with the same columns and dtypes.
    """
    if is_dask_collection(values):
        from smskit.dask import partitionwise

        return partitionwise.normalize(values, default_region, region=region)  # type: ignore[arg-type]
    return _normalize(values, default_region, region=region)
