"""Bulk operations on the client: HLR checks of any number of numbers, with their answer
cache (``hlr_cache``, keyed by gateway), and contact create/delete (``operations``).

May import: :mod:`smskit.campaigns.sending` (the chunk runner, blocking twins, progress),
``smskit.client``, ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure
modules. Never planning or analysis.
"""

from smskit.campaigns.bulk.operations import *  # noqa: F403  (its __all__)
from smskit.campaigns.bulk.operations import __all__ as __all__
