"""The public name of the plotly figures: ``smskit.plots.hlr_breakdown(...)`` and friends.

They live in :mod:`smskit.views.plots`, and for the ledger of campaigns, experiments' arms
and a campaign's outcomes in :mod:`smskit.views.ledger`, :mod:`smskit.views.experiment` and
:mod:`smskit.views.outcomes` (plotly loads with them); this module only names them.
"""

from smskit._html import LINE_STATUS_COLORS
from smskit.views.experiment import experiment_arms
from smskit.views.ledger import campaign_history
from smskit.views.outcomes import (
    COST_COLORS,
    DELIVERY_STATUS_COLORS,
    cost_breakdown,
    delivery_breakdown,
    delivery_times,
)
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
    "COST_COLORS",
    "DELIVERY_STATUS_COLORS",
    "KIND_COLORS",
    "LINE_STATUS_COLORS",
    "OPT_OUT_COLOR",
    "PRODUCT_COLORS",
    "REPLIES_COLUMNS",
    "REPLY_COLOR",
    "WHOLE_LIST",
    "campaign_history",
    "cost_breakdown",
    "credits_bar",
    "credits_map",
    "delivery_breakdown",
    "delivery_times",
    "draft_costs",
    "experiment_arms",
    "hlr_breakdown",
    "hlr_networks",
    "hlr_sunburst",
    "replies_timeline",
    "time_zone_scope",
]
