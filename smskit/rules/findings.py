"""Findings as data: a stable code, the field concerned, the row; the message comes last.

Code asks findings by code (never by searching message text); people read
:meth:`Finding.message`, rendered from :data:`MESSAGES`, in words a notebook and the shell
both read: never a Python spelling (``with_replies=True``), which ``smskit send`` printed as
it is beside its ``--with-replies``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["BLOCKING", "ISSUES", "MESSAGES", "WARNINGS", "Finding"]

# Why a recipient is excluded, most fundamental first (a row shows its first issue).
ISSUES: Final = (
    "invalid_number",
    "cannot_receive_sms",
    "opted_out",
    "frequency_capped",
    "not_served",
    "field_not_scalar",
    "field_too_long",
    "empty_text",
    "duplicate",
    "held_out",
)
# Said, not enforced: per recipient and for the campaign.
WARNINGS: Final = (
    "field_missing",
    "doubtful_line",
    "rendered_too_long",
    "outside_hours",
    "sender_replaced",
    "fields_missing",
    "hours_refused",
    "opted_out_included",
    "opted_outs_included",
    "optouts_unread",
    "frequency_cap_unchecked",
    "send_at_passed",
)
# Stop the send, for the campaign as a whole (each also a ValidationError naming its field).
BLOCKING: Final = ("holdout_takes_all",)
MESSAGES: Final[dict[str, str]] = {
    "invalid_number": "{detail}",
    "cannot_receive_sms": "line type {detail}",
    "opted_out": "opted out: on the account's opt-out list",
    "frequency_capped": "frequency capped: already received the cap of marketing messages "
    "({detail})",
    "not_served": "{detail}",
    "field_not_scalar": "{field} is a {detail}: a dynamic field must be a string, number or date",
    "field_too_long": "{field} has {detail} characters (max 50)",
    "empty_text": "the text renders empty",
    "duplicate": "same number as row {detail}",
    "held_out": "held out: the campaign's comparison group, never sent ({detail})",
    "field_missing": "missing {{{field}}}",
    "doubtful_line": "{detail} line may not receive SMS",
    "rendered_too_long": "renders to {detail}",
    "outside_hours": "outside marketing hours ({detail})",
    "sender_replaced": "replies allowed: the sender is replaced by the gateway's short number",
    "fields_missing": "{detail} recipient(s) miss a dynamic field: it renders empty",
    "hours_refused": "{detail}",
    "opted_out_included": "opted out, sent anyway (opted-out numbers included, a transactional "
    "send)",
    "opted_outs_included": "{detail} recipient(s) on the opt-out list are sent to anyway "
    "(opted-out numbers included, a transactional send)",
    "optouts_unread": "the opt-out list was not read: {detail}",
    "frequency_cap_unchecked": "the frequency cap was not checked: {detail}",
    "send_at_passed": "send_at {detail} has passed: the gateway sends at once",
    "holdout_takes_all": "holds out every sendable recipient ({detail}): a send would reach "
    "nobody; hold out fewer (a count below the sendable recipients, or a smaller share)",
}


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing preflight found: ``code`` (one of ISSUES, WARNINGS or BLOCKING), ``field``,
    ``row`` and ``detail`` (the value the message quotes)."""

    code: str
    field: str | None = None
    row: int | None = None
    detail: str | None = None

    def message(self) -> str:
        """The finding in words."""
        return MESSAGES[self.code].format(field=self.field, detail=self.detail)
