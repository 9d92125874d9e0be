"""The vocabulary of the result frames: their declared categorical dtypes and the breakdown
tables' labels and keys.

Closed value sets are categoricals whose categories are every spec value in spec order
(:func:`categorical` builds one, keeping a value the spec does not list as an extra category
after the spec's), so counts and breakdowns list zero rows too. A breakdown's last row is
:data:`TOTAL`; a missing value is counted under ``rules.missing.MISSING``;
:data:`BREAKDOWN_KEYS` are what a breakdown may be taken by; :data:`MOBILE_TYPES` the line
types that receive SMS.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

import numpy as np
import pandas as pd

from smskit.errors import ValidationError
from smskit.rules import spec as _spec
from smskit.rules.missing import is_missing

__all__ = [
    "BREAKDOWN_KEYS",
    "CONTACT_ITEM_STATUS_DTYPE",
    "CREDIT_PRODUCT_DTYPE",
    "HLR_STATUS_DTYPE",
    "LINE_STATUS_DTYPE",
    "MOBILE_TYPES",
    "PHONE_NUMBER_TYPE_DTYPE",
    "TOTAL",
    "categorical",
]

HLR_STATUS_DTYPE = pd.CategoricalDtype(list(_spec.HLR_STATUS))
LINE_STATUS_DTYPE = pd.CategoricalDtype(list(_spec.LINE_STATUS))
PHONE_NUMBER_TYPE_DTYPE = pd.CategoricalDtype(list(_spec.PHONE_NUMBER_TYPE))
CONTACT_ITEM_STATUS_DTYPE = pd.CategoricalDtype(list(_spec.CONTACT_ITEM_STATUS))
# The products of the credits answer, in the order of the spec's "Credits per country".
CREDIT_PRODUCT_DTYPE = pd.CategoricalDtype(list(_spec.CREDIT_PRODUCTS))
DRAFT_KIND_DTYPE = pd.CategoricalDtype(["sms", "voice"])

TOTAL: Final = "total"
# Line types that receive SMS. reachability() counts live lines and absent subscribers (who
# get the SMS when the phone is back on the network) as reachable.
MOBILE_TYPES: Final = ("mobile", "mobile_or_landline")

# What each breakdown key counts by: the frame columns that make up one label.
BREAKDOWN_KEYS: Final[Mapping[str, tuple[str, ...]]] = {
    "status": ("status",),
    "line_status": ("line_status",),
    "phone_number_type": ("phone_number_type",),
    "country": ("country_code",),
    "network": ("country_code", "network_name"),
}


def categorical(
    values: Iterable[Any], dtype: pd.CategoricalDtype, aliases: Mapping[str, str] | None = None
) -> pd.Categorical[Any]:
    """``values`` with ``dtype``'s categories, plus any value outside them as an extra one.

    ``aliases`` map other spellings onto a category. Built from codes with a dict lookup, which
    is several times faster than ``pd.Categorical(values)`` on a million strings.
    """
    if not isinstance(dtype, pd.CategoricalDtype) or dtype.categories is None:
        raise ValidationError("dtype", "must be a pandas CategoricalDtype with categories")
    if not isinstance(values, Iterable):
        raise ValidationError("values", "must be an iterable", value=values)
    if aliases is not None and not isinstance(aliases, Mapping):
        raise ValidationError("aliases", "must be a mapping of spellings to categories")
    values = values if isinstance(values, Sequence | np.ndarray) else list(values)
    categories = [*dtype.categories]
    lookup: dict[Any, int] = {value: code for code, value in enumerate(categories)}
    for alias, target in (aliases or {}).items():
        lookup[alias] = lookup[target]
    unknown = set(values) - lookup.keys()
    extra = sorted((v for v in unknown if not is_missing(v)), key=str)
    for value in unknown:
        lookup[value] = -1
    for value in extra:
        lookup[value] = len(categories)
        categories.append(str(value))
    codes = np.fromiter(map(lookup.__getitem__, values), dtype=np.int16, count=len(values))
    return pd.Categorical.from_codes(
        codes, dtype=pd.CategoricalDtype(categories, ordered=bool(dtype.ordered))
    )
