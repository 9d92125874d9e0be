"""Recipients taken out of a journaled chunk that has not left: :func:`withhold`.

A resume leaves out of the chunks still ``pending`` the numbers that opted out since the
campaign was planned (docs/optouts.md). Nothing of a pending chunk has left (``in_flight``
is committed before any request), so the smaller chunk is re-keyed as
:meth:`~smskit.campaigns.journal.Journal.reject` re-keys one the gateway refused recipients
of, and nothing can be sent twice. A module of its own beside the journal (whose writes it
shares), which stays under the size every module keeps.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence

from smskit.campaigns.journal import Chunk, Journal, _exclude, _log
from smskit.errors import ConfigurationError

__all__ = ["excluded_for", "withhold"]


def withhold(book: Journal, chunk: Chunk, dropped: Sequence[int], issue: str, detail: str) -> Chunk:
    """Take the recipients at ``dropped`` (positions *in the chunk*) out of a ``pending``
    chunk of ``book``: recorded as kept out (table ``excluded``, ``issue`` and ``detail``) and
    the chunk re-keyed (its request id derived from the smaller payload), in one transaction
    committed before any request. A chunk left empty is done with nothing sent (``sent``, no
    request id, 0 recipients, cost 0), not failed. Returns the chunk as now journaled.
    Only under the journal's lease still held (:class:`smskit.CampaignBusy` if taken over)."""
    if chunk.state != "pending":
        raise ValueError(f"chunk {chunk.idx} is {chunk.state}: only a pending one is changed")
    out = set(dropped)
    kept, rid, gone = book.rekeyed(chunk, out)
    state, none_left = ("pending", 0) if kept else ("sent", 1)
    now = time.time()
    with book._tx() as db:
        if book._lease is None:
            raise ConfigurationError(
                f"journal {str(book.path)!r} was opened without its lease: only its sender "
                "changes a chunk"
            )
        book._lease.check(db)  # a runner whose lease was taken over changes nothing
        _exclude(db, [(row, number, number, issue, detail) for row, number in gone])
        db.execute(
            "UPDATE chunks SET keep = ?, request_id = ?, state = ?, first_attempt_at = NULL, "
            "cost = CASE WHEN ? THEN 0 ELSE cost END, sms = CASE WHEN ? THEN 0 ELSE sms END, "
            "contacts = CASE WHEN ? THEN 0 ELSE contacts END, updated_at = ? WHERE idx = ?",
            (json.dumps(kept), rid, state, none_left, none_left, none_left, now, chunk.idx),
        )
        said = f"{len(out)} recipient(s) {issue}; " + ("re-keyed" if kept else "none left")
        _log(db, chunk.idx, state, said, now)
    return book.chunk(chunk.idx)


def excluded_for(
    book: Journal, issue: str
) -> list[tuple[int, str | None, str | None, str, str | None]]:
    """:meth:`Journal.excluded`, only those of ``issue`` (``opted_out``: at most as many as the
    account's list holds, where a streamed campaign's exclusions may not fit in memory)."""
    return book._read(
        "SELECT row, input, phone_number, issue, detail FROM excluded WHERE issue = ?", (issue,)
    )
