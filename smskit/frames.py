"""The public name of the response DataFrames: ``smskit.frames.hlr_frame(...)`` and friends.

The converters live in :mod:`smskit.client.frames`, their dtypes and the breakdowns'
labels in :mod:`smskit.client.dtypes` (the label of missing values, ``MISSING``, in
:mod:`smskit.rules.missing`, which every count uses); this module names them for users (all
of both modules' ``__all__``), with :func:`percentages` to show their shares as percentages.
"""

from smskit.client import dtypes
from smskit.client import frames as converters
from smskit.client.dtypes import *  # noqa: F403  (its __all__, added below)
from smskit.client.frames import *  # noqa: F403  (its __all__, added below)
from smskit.rules.missing import MISSING
from smskit.views.percentages import PercentTable, percentages

__all__ = ["MISSING", "PercentTable", "percentages"]
__all__ += dtypes.__all__
__all__ += converters.__all__
