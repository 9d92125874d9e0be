"""The gateway's callback kinds as the vendor documents them (an extension of the spec).

The spec's Events section shows only inbound replies ("Other callback kinds ...: not
shown"); the vendor's public documentation of the same API adds delivery reports and STOP
(opt-out) callbacks, posted to the URLs the account registers and told apart by their
fields. This module is the one home of what both ends need: the kinds and how a body is
recognised, the delivery statuses in the vendor's order and which of them are final, the
order in which reports of one message replace each other, the date format, and the
``message_id`` the sandbox gives a delivery report (its choice: the vendor's is opaque).
Pure constants and functions; see docs/callbacks.md.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "CALLBACK_KINDS",
    "CALLBACK_PRECISION",
    "DATE_FORMAT",
    "DELIVERY_STATUSES",
    "FINAL_STATUSES",
    "OUTCOME_STATUSES",
    "callback_kind",
    "comparable_instants",
    "report_message_id",
    "status_tier",
]

CALLBACK_KINDS: Final = ("reply", "delivery_report", "stop")

# The vendor's SMS delivery statuses, in the order its documentation lists them.
DELIVERY_STATUSES: Final = (
    "ACK",
    "DELIVERED",
    "NOT_DELIVERED",
    "NOT_ALLOWED",
    "UNKNOWN_DELIVERY",
    "BAD_DESTINATION",
    "BLACKLISTED_NUMBER",
    "UNDEFINED",
)
# ACK only says an operator took the message: every other status ends the message's story.
FINAL_STATUSES: Final = frozenset(DELIVERY_STATUSES) - {"ACK"}

# A sent message's outcome: a vendor status, or `pending` while no report has come.
OUTCOME_STATUSES: Final = (*DELIVERY_STATUSES, "pending")

# `YYYY-MM-DD HH:MM:SS` (delivery_date, stop_date); the vendor names no zone: read as UTC.
DATE_FORMAT: Final = "%Y-%m-%d %H:%M:%S"
# The precision of every date the vendor writes (DATE_FORMAT, reception_date): the second.
CALLBACK_PRECISION: Final = "s"

# Which report of a message stands (docs/callbacks.md, "Which status stands"): the higher
# tier wins whatever the order of arrival; within one tier the later delivery_date wins,
# and on a tie (or no readable date) the report that arrived first stays.
#   0  a status smskit does not know, or none (kept and flagged, never replaces a known one)
#   1  ACK: accepted by an operator, not final
#   2  UNKNOWN_DELIVERY, UNDEFINED: final as far as the network could tell; a definitive
#      report that comes later (an absent phone switched back on) replaces them
#   3  DELIVERED, NOT_DELIVERED, NOT_ALLOWED, BAD_DESTINATION, BLACKLISTED_NUMBER
_TIERS: Final = {
    "ACK": 1,
    "UNKNOWN_DELIVERY": 2,
    "UNDEFINED": 2,
    "DELIVERED": 3,
    "NOT_DELIVERED": 3,
    "NOT_ALLOWED": 3,
    "BAD_DESTINATION": 3,
    "BLACKLISTED_NUMBER": 3,
}


def status_tier(status: object) -> int:
    """How strongly a report's status stands (0 unknown or missing ... 3 definitive)."""
    return _TIERS.get(status, 0) if isinstance(status, str) else 0


def callback_kind(body: Mapping[str, Any]) -> str | None:
    """The kind of a callback body, by its fields; None when it has none of the marks.

    A ``status`` or ``delivery_date`` makes a delivery report; else a ``stop_date`` a STOP;
    else a ``reception_date`` or ``sim_card_number`` a reply. One missing mark still leaves
    the other, so a report missing its status is still read (and flagged) as a report.
    """
    if "status" in body or "delivery_date" in body:
        return "delivery_report"
    if "stop_date" in body:
        return "stop"
    if "reception_date" in body or "sim_card_number" in body:
        return "reply"
    return None


def report_message_id(sms_ticket: str, phone_number: str) -> str:
    """The sandbox's ``message_id`` of one recipient's message: ticket, ``-``, E.164 digits.

    A send holds each number once (the gateway drops repeats), so ticket and number name
    one message; the ticket is the send's answer and the number the report's own field.
    """
    return f"{sms_ticket}-{phone_number.lstrip('+')}"


def comparable_instants(moments: Any) -> Any:
    """``moments`` (a pandas Series of aware datetimes) at the precision of the vendor's
    dates (:data:`CALLBACK_PRECISION`), so that one of ours (a send time, milliseconds)
    and one of the vendor's (whole seconds) compare at the coarser of the two: a reply
    dated in the second its message was sent is not before it. The one home of comparing
    our instants with the gateway's: floor both sides with it before ``<``, ``<=`` or
    ``merge_asof``."""
    return moments.dt.floor(CALLBACK_PRECISION)
