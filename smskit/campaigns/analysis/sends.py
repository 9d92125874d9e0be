"""The messages an account sent, per recipient, read from its campaigns' journals: what a
frequency cap counts (:func:`marketing_history`) and what the fatigue figures put beside
opt-outs (:func:`fatigue`).

One row per recipient the gateway accepted (``sent`` or ``already_accepted``; a refused or
excluded one received nothing): its number (E.164), when it was sent (its chunk's accepted
time, or the campaign's ``send_at`` when later:
:func:`~smskit.campaigns.analysis.outcomes.sent_times`), the campaign, its purpose and its
gateway. The journals are the ledger's
(:func:`~smskit.campaigns.analysis.ledger.journal_files`: the campaigns directory unless
told); a file that is not a readable journal sent nothing it can say, and is passed over
(the ledger names such files). Each journal is read once per change of its file (size and
modification time), so a Composer's keystrokes do not read them again.

The rule itself (who is at a cap, how many messages in a period) is
:mod:`smskit.rules.caps`'s; this module only reads.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from smskit._account import Gateway
from smskit.campaigns.analysis.ledger import journal_files, read_callbacks
from smskit.campaigns.analysis.outcomes import (
    SendFacts,
    no_hlr,
    outcomes_frame,
    sent_recipients,
    sent_times,
)
from smskit.campaigns.analysis.results import CampaignResult
from smskit.campaigns.sending.journal import Journal
from smskit.errors import ConfigurationError, ValidationError
from smskit.replies.optouts import account_key
from smskit.rules.caps import SentHistory, instants_ns, number_keys, received
from smskit.rules.choices import checked_flag
from smskit.rules.content import DEFAULT_PURPOSE, is_marketing
from smskit.rules.orders import window_of

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["FATIGUE_COLUMNS", "SENDS_COLUMNS", "fatigue", "marketing_history", "sends"]

SENDS_COLUMNS: Final = ("phone_number", "sent_at", "campaign", "purpose", "journal")
FATIGUE_COLUMNS: Final = ("received_before", "recipients", "opted_out", "opt_out_rate")

# path -> ((size, mtime_ns), what the journal says); guarded for the Composer's threads.
_read: dict[Path, tuple[tuple[int, int], _Journaled | None]] = {}
_lock = threading.Lock()


class _Journaled:
    """What one journal holds for this module: its campaign, gateway and sent messages."""

    def __init__(self, name: str, purpose: str, gateway: Any, frame: pd.DataFrame) -> None:
        self.name = name
        self.purpose = purpose
        self.gateway = gateway  # JournaledGateway | None
        self.frame = frame  # phone_number, sent_at (UTC), row
        # As the cap compares them, made once per read of the file.
        self.keys = number_keys(frame["phone_number"])
        self.at = instants_ns(frame["sent_at"])

    def of(self, account: Gateway, embedded: bool) -> bool:
        """Whether the campaign went through ``account`` (the embedded sandbox: any sandbox
        of that login, a new one starting with each process)."""
        gateway = self.gateway
        if gateway is None:
            return False
        if embedded:
            return bool(gateway.sandbox) and gateway.api_login == account[1]
        return bool(gateway.account == account)


def _journal(path: Path) -> _Journaled | None:
    """The journal at ``path`` read (None when it is not a readable campaign journal)."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (stat.st_size, stat.st_mtime_ns)
    with _lock:
        known = _read.get(path)
    if known is not None and known[0] == key:
        return known[1]
    found = _load(path) if stat.st_size else None
    with _lock:
        _read[path] = (key, found)
    return found


def _load(path: Path) -> _Journaled | None:
    try:
        with Journal(path) as book:
            record = book.record()
            if record is None or record.options is None:
                return None
            result = CampaignResult.from_journal(book)
            facts = SendFacts.read(book, costs=False)
    except (ConfigurationError, sqlite3.Error, OSError, ValueError):
        return None
    sent = sent_recipients(result.to_frame())
    frame = sent[["row", "phone_number"]].reset_index(drop=True)
    frame["sent_at"] = sent_times(sent["chunk"], facts)
    purpose = record.options.get("purpose") or DEFAULT_PURPOSE
    return _Journaled(record.name or "", str(purpose), record.gateway, frame)


def sends(
    journals: Any = None,
    *,
    account: Any = None,
    marketing: bool | None = None,
    leave_out: str | None = None,
) -> pd.DataFrame:
    """The messages the journals record, one row per recipient accepted
    (:data:`SENDS_COLUMNS`: ``phone_number``, ``sent_at`` UTC, ``campaign``, ``purpose``,
    ``journal``), oldest first. ``journals`` as for :func:`smskit.campaigns.history`;
    ``account``: only the campaigns of this client's account (or a ``(base_url, login)``
    pair); ``marketing``: True for marketing campaigns only, False for transactional only;
    ``leave_out``: a campaign's name whose own journal is not counted."""
    import pandas as pd

    parts = [
        found.frame.assign(campaign=found.name, purpose=found.purpose, journal=str(path))
        for path, found in _selected(journals, account, marketing, leave_out)
    ]
    whole = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=SENDS_COLUMNS)
    dtypes = {**dict.fromkeys(SENDS_COLUMNS, "string"), "sent_at": "datetime64[ns, UTC]"}
    whole = whole[list(SENDS_COLUMNS)].astype(dtypes)
    return whole.sort_values("sent_at", kind="stable", ignore_index=True)


def _selected(
    journals: Any, account: Any, marketing: bool | None, leave_out: str | None
) -> list[tuple[Path, _Journaled]]:
    """The readable journals of ``account`` (None: any), of marketing campaigns (True), of
    transactional ones (False) or both (None), the campaign ``leave_out`` left out."""
    key, embedded = _account(account)
    checked_flag("marketing", marketing, optional=True)
    if leave_out is not None and not isinstance(leave_out, str):
        raise ValidationError("leave_out", "must be a campaign's name or None", value=leave_out)
    chosen = []
    for path in journal_files(journals):
        found = _journal(path)
        if found is None or (leave_out is not None and found.name == leave_out):
            continue
        if key is not None and not found.of(key, embedded):
            continue
        if marketing is not None and is_marketing(found.purpose) != marketing:
            continue
        chosen.append((path, found))
    return chosen


def _account(account: Any) -> tuple[Gateway | None, bool]:
    if account is None:
        return None, False
    return account_key(account), bool(getattr(account, "is_embedded_sandbox", False))


def marketing_history(client: Any, *, leave_out: str | None = None) -> SentHistory:
    """The marketing messages of ``client``'s account the journals record, as the cap
    counts them (:class:`smskit.rules.caps.SentHistory`); ``leave_out``: the campaign being
    checked (its own journal, when continued, is not its history)."""

    import numpy as np

    parts = [found for _path, found in _selected(None, client, True, leave_out)]
    if not parts:
        return SentHistory(np.empty(0, dtype="int64"), np.empty(0, dtype="int64"))
    return SentHistory(
        np.concatenate([p.keys for p in parts]), np.concatenate([p.at for p in parts])
    )


def fatigue(journals: Any = None, *, inbox: Any = None, period: Any = "30D") -> pd.DataFrame:
    """Opt-out rate by how many marketing messages a recipient had received in the
    ``period`` (default 30 days) before each send, across the ledger's marketing campaigns:
    one row per count (:data:`FATIGUE_COLUMNS`: ``received_before``, ``recipients`` (sends
    to a recipient who had received that many), ``opted_out`` (of them, who opted out after
    that send: a STOP callback or a reply that opts out, as :meth:`CampaignResult.outcomes`
    joins them), ``opt_out_rate``). Messages are counted per gateway account. ``inbox``: the
    callbacks' store, as for :func:`smskit.campaigns.history` (none: opt-outs unknown, and
    the frame says so by raising a ConfigurationError)."""
    import numpy as np
    import pandas as pd

    window = window_of(period, "period").to_pytimedelta()
    callbacks = read_callbacks(inbox)
    if callbacks is None:
        raise ConfigurationError(
            "fatigue needs the callbacks' store to know who opted out: give it the inbox "
            "(an Inbox or its file), or keep the one smskit replies serve keeps"
        )
    rows = []
    for path in journal_files(journals):
        found = _journal(path)
        if found is None or not is_marketing(found.purpose) or found.gateway is None:
            continue
        with Journal(path) as book:
            result = CampaignResult.from_journal(book)
            facts = SendFacts.read(book, costs=False)
        if not callbacks.serves(facts.gateway):
            continue
        out = outcomes_frame(sent_recipients(result.to_frame()), facts, callbacks, no_hlr())
        past = sends(journals, account=found.gateway.account, marketing=True)
        counts = received(
            out["phone_number"], out["sent_at"], past["phone_number"], past["sent_at"], window
        )
        rows.append(pd.DataFrame({"received_before": counts, "opted_out": out["opt_out"]}))
    if not rows:
        table = pd.DataFrame({"received_before": np.empty(0, "int64"), "opted_out": []})
    else:
        table = pd.concat(rows, ignore_index=True)
    grouped = table.groupby("received_before")["opted_out"]
    frame = pd.DataFrame(
        {"recipients": grouped.size(), "opted_out": grouped.sum().astype("int64")}
    ).reset_index()
    frame["opt_out_rate"] = frame["opted_out"] / frame["recipients"]
    frame = frame[list(FATIGUE_COLUMNS)].astype(
        {"received_before": "int64", "recipients": "int64", "opted_out": "int64"}
    )
    frame.attrs["period"] = str(period)  # what the figure's axis says
    return frame
