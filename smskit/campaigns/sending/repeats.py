"""Sends made lately, so that an accidental repeat is refused: a campaign's repeat guard
(``Campaign(..., repeat_window=)``, :class:`RepeatGuard`; the CLI's ``smskit send`` sets
:data:`WINDOW`).

A send's *fingerprint* is its content (the plan's content id: name as given, text, sender,
send options, region, holdout, recipients and their fields, see
:attr:`smskit.campaigns.planning.spec.CampaignSpec.content`) and the gateway it goes to (URL
and login; the embedded sandbox counts as one, a new one starting with each process). Each
new campaign sent under a guard is recorded (when, fingerprint, campaign name, journal,
complete) in ``cli-sends.jsonl`` in the per-user data directory, one writer at a time (the
OS lock on ``cli-sends.jsonl.lock``, waited for: sends of many threads or processes at once
each keep their record, none lost to another's rewrite); a send whose fingerprint
was recorded less than the window before "now" is refused (:class:`smskit.RepeatedSend`)
until ``send(again=True)`` says it is meant; so is one recorded *after* "now" (the clock was
set back since, or a campaign's clock or ``SMSKIT_NOW`` says an earlier time): how long ago
it was made cannot be told, and it may be moments ago, so it is never taken as old. A
journal continued (a named campaign, a resume) is not a repeat: the journal itself sends
nothing twice. Records more than a day from now are dropped when a new one is written.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Final

from smskit._account import Gateway
from smskit._paths import data_dir
from smskit.campaigns.sending.lease import LockFile
from smskit.errors import ConfigurationError, RepeatedSend
from smskit.rules.canonical import canonical_json

__all__ = ["WINDOW", "EarlierSend", "RepeatGuard", "earlier_send", "fingerprint", "record_send"]

WINDOW: Final = timedelta(minutes=10)
_KEPT: Final = timedelta(days=1)
_WAIT_S: Final = 10.0  # how long a record waits for another writer's lock on the log


@dataclass(frozen=True, slots=True)
class EarlierSend:
    """A recorded send: when, its campaign's name and journal, whether it was complete."""

    at: datetime
    name: str
    journal: str
    complete: bool


@dataclass(frozen=True, slots=True)
class RepeatGuard:
    """A send's repeat check: the same send (``content_id``) to the same ``gateway`` (None:
    the embedded sandbox) made less than ``window`` before ``now`` is refused, unless
    ``again``."""

    window: timedelta
    again: bool
    now: datetime
    gateway: Gateway | None

    def key(self, content_id: str) -> str:
        """The fingerprint the log keeps for ``content_id`` sent through this gateway."""
        return fingerprint({"content": content_id, "gateway": self.gateway})

    def earlier(self, content_id: str) -> EarlierSend | None:
        """The send of ``content_id`` made within the window (None: none, or ``again``)."""
        return None if self.again else earlier_send(self.key(content_id), self.now, self.window)

    def check(self, content_id: str) -> str:
        """Refuse a repeat (:class:`smskit.RepeatedSend`); else the key to record the send
        under."""
        earlier = self.earlier(content_id)
        if earlier is not None:
            raise RepeatedSend(
                earlier.at, earlier.name, earlier.journal, earlier.complete, now=self.now
            )
        return self.key(content_id)


def fingerprint(content: dict[str, Any]) -> str:
    """BLAKE2b of a send's content."""
    return hashlib.blake2b(canonical_json(content).encode(), digest_size=16).hexdigest()


def _log() -> Path:
    return data_dir() / "cli-sends.jsonl"


def _records() -> list[dict[str, Any]]:
    try:
        lines = _log().read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        return []
    found = []
    for line in lines:
        try:
            found.append(json.loads(line))
        except json.JSONDecodeError:  # a line cut by a crash: that record is lost, not the rest
            continue
    return found


def earlier_send(key: str, now: datetime, window: timedelta = WINDOW) -> EarlierSend | None:
    """The latest recorded send of ``key`` less than ``window`` before ``now``, or after
    ``now`` (a record in the future is not older than the window: the clock went back)."""
    latest: EarlierSend | None = None
    for entry in _records():
        if entry.get("fingerprint") != key:
            continue
        at = datetime.fromisoformat(entry["at"])
        if now - at < window and (latest is None or at > latest.at):
            latest = EarlierSend(
                at, str(entry.get("name")), str(entry.get("journal")), entry.get("complete", True)
            )
    return latest


@contextmanager
def _writing(path: Path) -> Iterator[None]:
    """The log's OS lock (``<log>.lock``, kept beside it: removing it would let a waiter lock
    a file no longer there), waited for up to :data:`_WAIT_S`; the kernel frees it if its
    holder dies."""
    lock = LockFile(str(path.with_name(f"{path.name}.lock")))
    if not lock.take(wait=_WAIT_S):
        raise ConfigurationError(
            f"{path}: another sender kept the log of recent sends locked for "
            f"{_WAIT_S:g} s; this send is not recorded for the repeat guard"
        )
    try:
        yield
    finally:
        lock.let_go(remove=False)


def record_send(key: str, now: datetime, name: str, journal: Path, complete: bool) -> None:
    """Record a send made at ``now``; drop records older than a day. One writer at a time
    (:func:`_writing`): each rewrite reads every record written before it."""
    path = _log()
    path.parent.mkdir(parents=True, exist_ok=True)
    with _writing(path):
        kept = [e for e in _records() if abs(now - datetime.fromisoformat(e["at"])) < _KEPT]
        kept.append(
            {"at": now.isoformat(), "fingerprint": key, "name": name, "journal": str(journal),
             "complete": complete}
        )  # fmt: skip
        partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
        partial.write_text("".join(json.dumps(e) + "\n" for e in kept), encoding="utf-8")
        os.replace(partial, path)
