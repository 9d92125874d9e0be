"""Replies: the inbound-SMS receiver (a loopback HTTP server) and its SQLite inbox.

Owns: the callback endpoint of the spec's Events section (receiver), its optional signatures
(signing, an extension), storage and de-duplication (inbox) and the reply frames (analytics).

May import: ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules.
"""

from smskit.replies.analytics import link_replies, opt_out_rate, replies_per_period, reply_rate
from smskit.replies.inbox import FRAME_COLUMNS, MAX_BODY, Inbox, is_opt_out
from smskit.replies.signing import sign

__all__ = [
    "FRAME_COLUMNS",
    "MAX_BODY",
    "Inbox",
    "is_opt_out",
    "link_replies",
    "opt_out_rate",
    "replies_per_period",
    "reply_rate",
    "sign",
]
