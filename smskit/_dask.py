"""Is this a Dask collection? Asked without importing dask (``import smskit`` stays light)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["is_dask_collection"]


def is_dask_collection(value: Any) -> bool:
    """True for a ``dask.dataframe`` Series or DataFrame. dask is never imported here: a
    value can only be one of its collections if the caller already loaded it."""
    frames = sys.modules.get("dask.dataframe")
    return frames is not None and isinstance(value, frames.Series | frames.DataFrame)
