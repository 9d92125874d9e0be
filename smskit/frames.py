"""The public name of the response DataFrames: ``smskit.frames.hlr_frame(...)`` and friends.

They live in :mod:`smskit.client.frames`; this module only names them for users, with
:func:`percentages` (from :mod:`smskit.views.percentages`) to show their shares as percentages.
"""

from smskit.client.frame_builders import (
    BREAKDOWN_KEYS,
    CONTACT_ITEM_STATUS_DTYPE,
    CREDIT_PRODUCT_DTYPE,
    HLR_STATUS_DTYPE,
    LINE_STATUS_DTYPE,
    MISSING,
    MOBILE_TYPES,
    PHONE_NUMBER_TYPE_DTYPE,
    TOTAL,
    categorical,
)
from smskit.client.frames import (
    balance_frame,
    breakdown,
    contact_items_frame,
    credits_frame,
    credits_wide,
    crosstab,
    drafts_frame,
    expiring_packs,
    hlr_frame,
    porting,
    reachability,
    send_results_frame,
    wallet_packs_frame,
)
from smskit.views.percentages import PercentTable, percentages

__all__ = [
    "BREAKDOWN_KEYS",
    "CONTACT_ITEM_STATUS_DTYPE",
    "CREDIT_PRODUCT_DTYPE",
    "HLR_STATUS_DTYPE",
    "LINE_STATUS_DTYPE",
    "MISSING",
    "MOBILE_TYPES",
    "PHONE_NUMBER_TYPE_DTYPE",
    "TOTAL",
    "PercentTable",
    "balance_frame",
    "breakdown",
    "categorical",
    "contact_items_frame",
    "credits_frame",
    "credits_wide",
    "crosstab",
    "drafts_frame",
    "expiring_packs",
    "hlr_frame",
    "percentages",
    "porting",
    "reachability",
    "send_results_frame",
    "wallet_packs_frame",
]
