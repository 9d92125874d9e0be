"""The public name of the plotly figures: ``smskit.plots.hlr_breakdown(...)`` and friends.

They live in :mod:`smskit.views.plots`, and for the ledger of campaigns and experiments'
arms in :mod:`smskit.views.ledger` and :mod:`smskit.views.experiment` (plotly loads with
them); this module only names them.
"""

from smskit._html import LINE_STATUS_COLORS
from smskit.views.experiment import experiment_arms
from smskit.views.ledger import campaign_history
from smskit.views.plots import (
    KIND_COLORS,
    OPT_OUT_COLOR,
    PRODUCT_COLORS,
    REPLIES_COLUMNS,
    REPLY_COLOR,
    WHOLE_LIST,
    credits_bar,
    credits_map,
    draft_costs,
    hlr_breakdown,
    hlr_networks,
    hlr_sunburst,
    replies_timeline,
    time_zone_scope,
)

__all__ = [
    "KIND_COLORS",
    "LINE_STATUS_COLORS",
    "OPT_OUT_COLOR",
    "PRODUCT_COLORS",
    "REPLIES_COLUMNS",
    "REPLY_COLOR",
    "WHOLE_LIST",
    "campaign_history",
    "credits_bar",
    "credits_map",
    "draft_costs",
    "experiment_arms",
    "hlr_breakdown",
    "hlr_networks",
    "hlr_sunburst",
    "replies_timeline",
    "time_zone_scope",
]
