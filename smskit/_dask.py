"""Is this a Dask collection? Asked without importing dask (``import smskit`` stays light)."""

from __future__ import annotations

import importlib
import sys
from typing import Any

__all__ = ["is_dask_collection"]


def is_dask_collection(value: Any) -> bool:
    """True for a ``dask.dataframe`` Series or DataFrame. dask is never imported here: a
    value can only be one of its collections if the caller already loaded it."""
    if "dask.dataframe" not in sys.modules:
        return False
    # Another thread may still be importing it: import_module waits for that import to finish
    # (smskit.rules.once explains why; infra cannot import the rule book, hence written here).
    try:
        frames = importlib.import_module("dask.dataframe")
    except ImportError:
        return False
    return isinstance(value, frames.Series | frames.DataFrame)
