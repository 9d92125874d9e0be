"""Planning: everything decided before the first request leaves.

Owns: what a campaign is, as a frozen value (``spec``: :class:`CampaignSpec`), the
recipients' half of preflight (``audience``) and its text half (``preflight``), the order
of the checks over either audience back end (``orchestration``: ``run_preflight``), the
report (``report``), the gateway's served countries and prices (``destinations``), the
cost estimate, offline or simulated through the chunk runner (``estimates``), and the plan:
the exact payload of every chunk and the campaign id (``plan``).

May import: :mod:`smskit.campaigns.sending` (the chunk runner asks the gateway for a
simulated estimate; the plan is laid out in the journal's columns), ``smskit.client``,
``smskit.replies``, ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure
modules. Never analysis.
"""
