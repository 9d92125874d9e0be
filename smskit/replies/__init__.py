"""Replies: the inbound-SMS receiver (a loopback HTTP server) and its SQLite inbox.

Owns: the callback endpoint of the spec's Events section, storage, de-duplication and the
reply frames (opt-outs, reply rates).

May import: ``smskit.rules``, ``smskit.errors`` and the top-level infrastructure modules.
"""

from smskit.replies.inbox import (
    FRAME_COLUMNS,
    MAX_BODY,
    Inbox,
    is_opt_out,
    link_replies,
    opt_out_rate,
    replies_per_period,
    reply_rate,
)

__all__ = [
    "FRAME_COLUMNS",
    "MAX_BODY",
    "Inbox",
    "is_opt_out",
    "link_replies",
    "opt_out_rate",
    "replies_per_period",
    "reply_rate",
]
