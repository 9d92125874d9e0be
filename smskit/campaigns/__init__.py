"""Campaigns and bulk operations on the client.

Owns: the planner (preflight per recipient), the chunk runner, the SQLite journal that
makes a send exactly-once across crashes and resumes, campaign results, and bulk HLR (with
its answer cache, keyed by gateway) and contact helpers.

May import: ``smskit.client``, ``smskit.rules``, ``smskit.errors`` and the top-level
infrastructure modules. Never views, replies or the sandbox.
"""

from smskit.campaigns.bulk import (
    abulk_hlr,
    acreate_contacts,
    adelete_contacts,
    bulk_hlr,
    create_contacts,
    delete_contacts,
)
from smskit.campaigns.campaign import (
    ISSUES,
    MARKETING_HOURS,
    RECIPIENT_STATES,
    Campaign,
    CampaignResult,
    CostEstimate,
    MarketingHours,
    PreflightReport,
    derive_request_id,
    register_marketing_hours,
)

__all__ = [
    "ISSUES",
    "MARKETING_HOURS",
    "RECIPIENT_STATES",
    "Campaign",
    "CampaignResult",
    "CostEstimate",
    "MarketingHours",
    "PreflightReport",
    "abulk_hlr",
    "acreate_contacts",
    "adelete_contacts",
    "bulk_hlr",
    "create_contacts",
    "delete_contacts",
    "derive_request_id",
    "register_marketing_hours",
]
