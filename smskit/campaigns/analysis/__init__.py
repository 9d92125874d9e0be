"""Analysis: what a campaign's journal and the callbacks say after the send.

Owns: the campaign result (``results``: :class:`CampaignResult`, read from the journal),
each recipient's outcome joined from the journal and the callbacks' store (``outcomes``) and
its breakdowns (``breakdowns``), the ledger of every journaled campaign (``ledger``:
``history()``), and text experiments' analysis: the audience split (``split``), the
experiment's record (``experiment_record``) and the arms' statistics (``comparison``,
statsmodels' own), conversions from the analyst's orders (``conversions``), the holdout's
incremental lift (``lift``) and attribution across the ledger's campaigns
(``attribution``). Clicks belong here too.

May import: :mod:`smskit.campaigns.sending` (the journal), :mod:`smskit.campaigns.planning`,
:mod:`smskit.campaigns.bulk` (the HLR cache's networks and line types),
``smskit.client``, ``smskit.replies``, ``smskit.rules``, ``smskit.errors`` and the top-level
infrastructure modules.
"""
