"""The public name of the plotly figures: ``smskit.plots.hlr_breakdown(...)`` and friends.

They live in :mod:`smskit.views.plots`, and for the ledger of campaigns, experiments' arms,
a campaign's outcomes, its lift and the rates by send time in :mod:`smskit.views.ledger`,
:mod:`smskit.views.experiment`, :mod:`smskit.views.outcomes`, :mod:`smskit.views.lift` and
:mod:`smskit.views.send_time`
(plotly loads with them); this module only names them (all of ``views.plots``' and
``views.outcomes``' ``__all__``).
"""

from smskit._html import LINE_STATUS_COLORS
from smskit.views import outcomes
from smskit.views import plots as figures
from smskit.views.experiment import experiment_arms
from smskit.views.ledger import campaign_history
from smskit.views.lift import lift_intervals
from smskit.views.outcomes import *  # noqa: F403  (its __all__, added below)
from smskit.views.plots import *  # noqa: F403  (its __all__, added below)
from smskit.views.send_time import send_time_rates

__all__ = [
    "LINE_STATUS_COLORS",
    "campaign_history",
    "experiment_arms",
    "lift_intervals",
    "send_time_rates",
]
__all__ += figures.__all__
__all__ += outcomes.__all__
