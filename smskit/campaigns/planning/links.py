"""A campaign's tracked links: the text it sends, each recipient's short links, their registry.

``Campaign(..., track_links=inbox)`` sends each distinct URL of its text as a per-recipient
short link of the inbox (:mod:`smskit.rules.links`): the spec's text is the template with
each URL replaced by a free dynamic field, and the recipients the campaign holds are a
snapshot of the given ones with that field holding each recipient's short link. Everything
after (preflight, the estimate, the plan, the journal, the chunks) reads them like any
field, so each recipient's text is counted with its real link and the journaled payload
holds the tokens: a resumed chunk sends the very same links.

Tokens are derived from the inbox's secret, the campaign's send (its name and the journal
it is sent in: :func:`token_scope`), the row and the link (:meth:`smskit.Inbox.link_tokens`):
planning the same campaign again for the same journal gives the same tokens (a re-run
continues its journal), and two campaigns of one name (a daily ``--name``, one sent again
in ``<name>-2``) get their own, so each one's clicks are its own. The links are registered
with the inbox, for the recipients the plan sends to, before the first chunk goes.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smskit.errors import ValidationError
from smskit.replies.inbox import Inbox
from smskit.rules.fields import used_fields
from smskit.rules.links import TrackedText, destination_fields, short_link, track, with_utm
from smskit.rules.personalize import render
from smskit.rules.recipients import Recipients

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "LinkTracking", "check_tracking_inbox", "destinations_of", "link_contents", "link_values",
    "token_scope",
]  # fmt: skip


def token_scope(campaign: str, journal: Path | str | None) -> str:
    """What a campaign's tokens are derived from besides the row and the link: its name and
    the journal its send is journaled in (absolute; None: the name alone, as before). A
    journal is one send: the same name journaled elsewhere is another send, whose short
    links must not be this one's (each would count the other's clicks)."""
    if journal is None:
        return campaign
    where = hashlib.blake2b(os.fsencode(Path(journal).absolute()), digest_size=16).hexdigest()
    return f"{campaign}\x1f{where}"


def check_tracking_inbox(inbox: Any) -> Inbox:
    """``track_links=``: an :class:`smskit.Inbox` (the one that serves the links)."""
    if not isinstance(inbox, Inbox):
        raise ValidationError(
            "track_links", "must be the smskit.Inbox that serves the links", value=inbox
        )
    return inbox


@dataclass
class LinkTracking:
    """The template as written, its tracked form, the inbox, and each row's links once made."""

    inbox: Inbox
    template: str
    tracked: TrackedText
    # row -> [(token, destination)] per link, filled by recipients()
    made: dict[int, list[tuple[str, str]]] = field(default_factory=dict)
    # row -> each link's destination as written (its fields filled, no UTM): what the send
    # is, whatever its tokens (content_columns)
    written: dict[int, list[str]] = field(default_factory=dict)
    # what the links were made for (token_scope) and from: made again for another journal
    scope: str | None = None
    given: Recipients | None = None
    wanted: Sequence[str] | None = None

    @classmethod
    def of(cls, inbox: Any, template: str) -> LinkTracking:
        """Tracking of ``template``'s links by ``inbox`` (refused naming a link that cannot
        be carried)."""
        box = check_tracking_inbox(inbox)
        return cls(box, template, track(template, box.link_base))

    def check_sent_text(self, text: str) -> None:
        """Refuse a text given to the campaign after it was made (``campaign.text = ...``):
        its links were not made short links, and its fields no longer match them."""
        if text != self.tracked.text:
            raise ValidationError(
                "text",
                "a campaign tracking links keeps the text it was made with (its links are "
                "each recipient's short links); make a new Campaign(..., track_links=...) "
                "for another text",
                value=text,
            )

    def recipients(
        self,
        recipients: Recipients,
        campaign: str,
        fields: Sequence[str] | None = None,
        journal: Path | str | None = None,
    ) -> Recipients:
        """A snapshot of ``recipients`` whose link fields hold each row's short link, with
        ``fields`` besides (default: those the template uses; the Composer keeps them all);
        the tokens those of ``campaign`` sent in ``journal`` (:func:`token_scope`)."""
        tracked = self.tracked
        self.scope = token_scope(campaign, journal)
        self.given, self.wanted = recipients, fields
        if not tracked.fields:
            return recipients
        wanted = used_fields(self.template) if fields is None else fields
        kept = [name for name in wanted if name not in tracked.fields]
        table = recipients.table(kept)
        rows = table["row"].astype("int64").tolist()
        frame = table.drop(columns=["row"]).reset_index(drop=True)
        if frame["country"].isna().all():
            frame = frame.drop(columns=["country"])
        columns, per_row = link_values(
            frame, rows, tracked, self.inbox.link_base, self.inbox.link_tokens, campaign,
            self.scope,
        )  # fmt: skip
        as_written = list(link_contents(tracked, frame).values())
        for name, values in columns.items():
            frame[name] = values
        self.made = dict(zip(rows, per_row, strict=True))
        self.written = {row: [links[i] for links in as_written] for i, row in enumerate(rows)}
        return Recipients(frame)

    def for_journal(self, campaign: str, journal: Path) -> Recipients | None:
        """The recipients with the short links of ``campaign`` sent in ``journal``, when
        theirs were made for another journal (the send picked ``<name>-2``, or was given
        ``journal=``); None when they are already that send's."""
        if self.given is None or self.scope == token_scope(campaign, journal):
            return None
        return self.recipients(self.given, campaign, self.wanted, journal)

    def content_columns(self, rows: Sequence[int]) -> dict[str, list[str]]:
        """Each link field's values for the repeat guard, for the recipients ``rows``
        (:func:`link_contents`)."""
        return {
            name: [self.written[row][link] for row in rows]
            for link, name in enumerate(self.tracked.fields)
        }

    def register(self, report_frame: pd.DataFrame, campaign: str) -> int:
        """Register the links of the rows the plan sends to; returns how many were new."""
        sending = report_frame[report_frame["send"].astype(bool)]
        entries = [
            (token, str(number), int(row), link, destination)
            for row, number in zip(sending["row"], sending["phone_number"], strict=True)
            for link, (token, destination) in enumerate(self.made.get(int(row), ()))
        ]
        return self.inbox.register_links(campaign, entries) if entries else 0


def link_values(
    table: pd.DataFrame,
    rows: Sequence[int],
    tracked: TrackedText,
    link_base: str,
    tokens: Callable[[str, Sequence[int], int], list[str]],
    campaign: str,
    scope: str | None = None,
) -> tuple[dict[str, pd.Series], list[list[tuple[str, str]]]]:
    """The short links of ``table``'s recipients (their tokens ``tokens(scope, rows,
    link)``, ``scope`` the send's :func:`token_scope`, default the name alone; ``rows``
    numbering them in the whole campaign): each link field's column (on
    ``table``'s index) and each row's ``(token, destination)`` per link, the destination's
    fields filled from ``table`` and the UTM parameters added. One home for both executors:
    :class:`LinkTracking` and the partitions of a Dask campaign."""
    import pandas as pd

    columns: dict[str, pd.Series] = {}
    per_row: list[list[tuple[str, str]]] = [[] for _ in rows]
    for link, (name, destination) in enumerate(
        zip(tracked.fields, tracked.destinations, strict=True)
    ):
        made = tokens(campaign if scope is None else scope, rows, link)
        columns[name] = pd.Series(
            [short_link(link_base, t) for t in made], index=table.index, dtype=object
        )
        places = destinations_of(destination, table, campaign)
        for links, token, place in zip(per_row, made, places, strict=True):
            links.append((token, place))
    return columns, per_row


def destinations_of(destination: str, table: pd.DataFrame, campaign: str) -> list[str]:
    """The destination of each row of ``table`` (its fields filled; a field the table lacks
    is empty), with the UTM parameters."""
    return [with_utm(place, campaign) for place in written_destinations(destination, table)]


def link_contents(tracked: TrackedText, table: pd.DataFrame) -> dict[str, list[str]]:
    """The repeat guard's rule for tracked links, one home for both executors: each link
    field's value in a send's content is, for each row of ``table`` (the recipients as given,
    their fields), its destination as written, not the short link. A short link is derived
    from the campaign's send (an unnamed campaign's name is its creation time) and its
    destination carries that name (``utm_campaign``): counted as they are, the same send made
    again a minute later would never be the same send."""
    return {
        name: written_destinations(destination, table)
        for name, destination in zip(tracked.fields, tracked.destinations, strict=True)
    }


def written_destinations(destination: str, table: pd.DataFrame) -> list[str]:
    """The destination of each row of ``table`` as written: its fields filled (a field the
    table lacks is empty), no UTM parameter added."""
    names = destination_fields(destination)
    if not names:
        return [destination] * len(table)
    records = table.reindex(columns=list(names)).to_dict("records")
    return [render(destination, record) for record in records]
