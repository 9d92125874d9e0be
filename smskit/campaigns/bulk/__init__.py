"""Bulk operations on the client: HLR checks of any number of numbers, with their answer
cache (``hlr_cache``, keyed by gateway), and contact create/delete (``operations``).

May import: :mod:`smskit.campaigns.sending` (the chunk runner, blocking twins, progress),
``smskit.client``, ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure
modules. Never planning or analysis.
"""

from smskit.campaigns.bulk.operations import (
    abulk_hlr,
    acreate_contacts,
    adelete_contacts,
    bulk_hlr,
    create_contacts,
    delete_contacts,
)

__all__ = [
    "abulk_hlr",
    "acreate_contacts",
    "adelete_contacts",
    "bulk_hlr",
    "create_contacts",
    "delete_contacts",
]
