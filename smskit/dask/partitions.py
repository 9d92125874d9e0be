"""The old name of :mod:`smskit.dask.partition_preflight`, kept for one release: each name used here
warns (DeprecationWarning) and comes from the new module."""

from smskit._deprecation import moved_module

__getattr__ = moved_module(__name__, "smskit.dask.partition_preflight")
