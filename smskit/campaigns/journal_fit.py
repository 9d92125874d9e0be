"""Whether a journal can take a campaign: one rule, read where a send adopts its journal (a
journal holding another campaign is refused before anything is written) and by the CLI
before it asks to confirm a send. The answer is a code; each front end words it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from smskit.campaigns.journal import Journal
from smskit.campaigns.results import CampaignResult

__all__ = ["JournalCheck", "JournalFit", "check_journal", "holds_campaign"]


class JournalFit(StrEnum):
    """How a journal relates to a campaign about to be sent."""

    FREE = "free"  # no journal there yet (or one never initialised): the send starts it
    UNFINISHED = "unfinished"  # this very campaign, recipients left: the send continues it
    COMPLETE = "complete"  # this very campaign, nothing left: a send would send nothing
    OTHER_NAME = "other_name"  # another campaign, under another name
    OTHER_CONTENT = "other_content"  # the same name, other text, sender, options or recipients


@dataclass(frozen=True)
class JournalCheck:
    """The journal at ``path``, how it fits the campaign, and the name of the campaign it
    holds (None when free)."""

    path: Path
    fit: JournalFit
    held_name: str | None


def holds_campaign(meta: Mapping[str, Any], campaign_id: str) -> bool:
    """The journal whose ``meta`` this is holds the campaign ``campaign_id`` (what is sent to
    whom: name, text, sender, options, recipients and their fields; not the chunking)."""
    return meta.get("campaign_id") == campaign_id


def check_journal(path: Path, name: str, campaign_id: str) -> JournalCheck:
    """How the journal at ``path`` fits the campaign ``name`` whose id is ``campaign_id``.

    A file that is not a campaign's journal raises ConfigurationError (about that file).
    """
    if not path.exists():
        return JournalCheck(path, JournalFit.FREE, None)
    with Journal(path) as book:
        meta = book.meta()
        if not meta:
            return JournalCheck(path, JournalFit.FREE, None)
        held = str(meta.get("name"))
        if not holds_campaign(meta, campaign_id):
            other = JournalFit.OTHER_CONTENT if held == name else JournalFit.OTHER_NAME
            return JournalCheck(path, other, held)
        complete = CampaignResult.from_journal(book).complete
    return JournalCheck(path, JournalFit.COMPLETE if complete else JournalFit.UNFINISHED, held)
