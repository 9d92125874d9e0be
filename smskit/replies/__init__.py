"""Callbacks: the receiver of replies, delivery reports and STOPs, and its SQLite inbox.

Owns: the callback endpoint of the spec's Events section, which also takes the vendor's
delivery reports and STOPs (receiver), its optional signatures (signing, an extension),
storage and de-duplication (inbox), the tracked links the inbox serves and the requests on
them (clicks, docs/links.md), the tolerant reading, storage and frames of delivery
reports and STOPs (reports, docs/callbacks.md), the reply frames (analytics), and the
account's opt-out list those callbacks feed and every preflight reads (optouts, read from
CSV by optoutcsv; docs/optouts.md).

May import: ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules.
"""

from smskit.replies.analytics import link_replies, opt_out_rate, replies_per_period, reply_rate
from smskit.replies.inbox import FRAME_COLUMNS, MAX_BODY, Inbox, is_opt_out
from smskit.replies.optouts import OptOuts
from smskit.replies.signing import sign

__all__ = [
    "FRAME_COLUMNS",
    "MAX_BODY",
    "Inbox",
    "OptOuts",
    "is_opt_out",
    "link_replies",
    "opt_out_rate",
    "replies_per_period",
    "reply_rate",
    "sign",
]
