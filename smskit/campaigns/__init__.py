"""Campaigns and bulk operations on the client, in rooms named for what happens in them.

- :mod:`~smskit.campaigns.planning`: before the send (the spec, preflight, estimates, plan);
- :mod:`~smskit.campaigns.sending`: during it (the chunk runner, the journal and its lease,
  blocking twins, a resume's reconnection);
- :mod:`~smskit.campaigns.analysis`: after it (results, outcomes, breakdowns, the ledger,
  experiments' split and statistics, conversions, lift and attribution, the messages sent
  per recipient that frequency caps count, and fatigue);
- :mod:`~smskit.campaigns.bulk`: bulk HLR (and its answer cache) and contacts.

Above the rooms, the front ends users hold: :class:`Campaign` (``campaign``: recipients in
memory) on the executors' common part (``executor``: every operation written once, async,
its blocking twin generated), one send from journal to result (``send``: the journal
adopted, opt-outs withheld, chunks run), and :class:`Experiment` (``experiment``: a campaign
per arm). Rooms import downwards only: sending, then bulk, planning, analysis; the front
ends import any room, no room imports a front end.

May import: ``smskit.client``, ``smskit.replies`` (what came back after a send: outcomes and
opt-outs), ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules.
Never views or the sandbox.
"""

from smskit.campaigns import bulk
from smskit.campaigns.analysis.attribution import attribution
from smskit.campaigns.analysis.breakdowns import cost_breakdown, delivery_breakdown, delivery_times
from smskit.campaigns.analysis.clicks import click_rates
from smskit.campaigns.analysis.comparison import ExperimentComparison, compare_counts
from smskit.campaigns.analysis.ledger import history
from smskit.campaigns.analysis.results import (
    RECIPIENT_STATES,
    CampaignResult,
    IncompleteSendWarning,
)
from smskit.campaigns.analysis.send_time import send_times
from smskit.campaigns.analysis.sends import fatigue, sends
from smskit.campaigns.bulk import *  # noqa: F403  (its __all__, added below)
from smskit.campaigns.campaign import Campaign
from smskit.campaigns.experiment import Experiment, ExperimentResult
from smskit.campaigns.planning.estimates import CostEstimate
from smskit.campaigns.planning.report import PreflightOutline, PreflightReport
from smskit.campaigns.planning.spec import CampaignSpec
from smskit.campaigns.sending.journal import derive_request_id
from smskit.campaigns.sending.repeats import EarlierSend, RepeatNotRecordedWarning
from smskit.rules.caps import FrequencyCap
from smskit.rules.findings import ISSUES
from smskit.rules.hours import MARKETING_HOURS, MarketingHours, register_marketing_hours

__all__ = [
    "ISSUES",
    "MARKETING_HOURS",
    "RECIPIENT_STATES",
    "Campaign",
    "CampaignResult",
    "CampaignSpec",
    "CostEstimate",
    "EarlierSend",
    "Experiment",
    "ExperimentComparison",
    "ExperimentResult",
    "FrequencyCap",
    "IncompleteSendWarning",
    "MarketingHours",
    "PreflightOutline",
    "PreflightReport",
    "RepeatNotRecordedWarning",
    "attribution",
    "click_rates",
    "compare_counts",
    "cost_breakdown",
    "delivery_breakdown",
    "delivery_times",
    "derive_request_id",
    "fatigue",
    "history",
    "register_marketing_hours",
    "send_times",
    "sends",
]
__all__ += bulk.__all__
