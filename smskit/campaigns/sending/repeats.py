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
A line of the log that cannot be read exactly is refused (:class:`smskit.ConfigurationError`
naming file, line and rule) before the send, ``again`` or not, never skipped: the send it
records would be forgotten. The log is replaced whole at each write, never appended to. A
record that cannot be written after the send (the lock kept past :data:`_WAIT_S`, a line
unread) is a :class:`RepeatNotRecordedWarning` with the send's result, never an error hiding it.
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

__all__ = [
    "WINDOW",
    "EarlierSend",
    "RepeatGuard",
    "RepeatNotRecordedWarning",
    "earlier_send",
    "fingerprint",
    "record_send",
]

WINDOW: Final = timedelta(minutes=10)
_KEPT: Final = timedelta(days=1)
_WAIT_S: Final = 10.0  # how long a record waits for another writer's lock on the log


class RepeatNotRecordedWarning(UserWarning):
    """A send went out but could not be recorded in the repeat guard's log (another sender
    held it locked, or a line of it became unreadable during the send): the result is
    returned, the journal still keeps that campaign from being sent twice, but the same
    content sent afresh within the window is not refused."""


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
        under. The log is read even with ``again``: a line of it that cannot be read is
        refused before the send (:func:`earlier_send`), not after it, when recording it."""
        key = self.key(content_id)
        earlier = earlier_send(key, self.now, self.window)
        if earlier is not None and not self.again:
            raise RepeatedSend(
                earlier.at, earlier.name, earlier.journal, earlier.complete, now=self.now
            )
        return key


def fingerprint(content: dict[str, Any]) -> str:
    """BLAKE2b of a send's content."""
    return hashlib.blake2b(canonical_json(content).encode(), digest_size=16).hexdigest()


def _log() -> Path:
    return data_dir() / "cli-sends.jsonl"


_FIELDS: Final = (("fingerprint", str), ("name", str), ("journal", str))


def _records(unread: str) -> list[dict[str, Any]]:
    """Every record of the log. A line that is not one exactly as :func:`record_send` writes
    it (JSON of ``at``: an ISO 8601 time with its offset, ``fingerprint``, ``name``,
    ``journal``: strings, ``complete``: true or false, absent in older records) is refused
    (:class:`smskit.ConfigurationError` naming the file, the line and the rule, ``unread``
    saying what becomes of the send): skipping it would forget the send it records, and the
    same send could go out twice. The log is only ever replaced whole (:func:`record_send`),
    so a crash leaves no cut line to forgive."""
    path = _log()
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return []
    found = []
    for number, raw in enumerate(data.split(b"\n"), start=1):
        if raw.strip():
            found.append(_record(raw, f"{path}:{number}", unread))
    return found


def _record(raw: bytes, where: str, unread: str) -> dict[str, Any]:
    """One line of the log, read exactly, else refused naming ``where`` (file:line)."""
    try:
        entry = json.loads(raw.decode("utf-8"))
        problem = _problem(entry)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        problem = f"not a JSON line ({exc})"
    if problem is not None:
        raise ConfigurationError(
            f"{where}: a record of the repeat guard's log of recent sends cannot be read: "
            f"{problem}; {unread}: fix or remove that line (removed, the send it records is "
            "forgotten and could be made again)"
        )
    return dict(entry)


def _problem(entry: object) -> str | None:
    """What makes ``entry`` no record :func:`record_send` writes (None: it is one)."""
    if not isinstance(entry, dict):
        return f"a record is a JSON object (got {type(entry).__name__})"
    at = entry.get("at")
    try:
        when = datetime.fromisoformat(at) if isinstance(at, str) else None
    except ValueError:
        when = None
    if when is None or when.utcoffset() is None:
        return f"'at' is an ISO 8601 time with its UTC offset (got {at!r})"
    for field, kind in _FIELDS:
        if not isinstance(entry.get(field), kind):
            return f"{field!r} is a string (got {entry.get(field)!r})"
    if not isinstance(entry.get("complete", True), bool):
        return f"'complete' is true or false (got {entry['complete']!r})"
    return None


def earlier_send(key: str, now: datetime, window: timedelta = WINDOW) -> EarlierSend | None:
    """The latest recorded send of ``key`` less than ``window`` before ``now``, or after
    ``now`` (a record in the future is not older than the window: the clock went back).
    Raises :class:`smskit.ConfigurationError` for a line of the log it cannot read
    (:func:`_records`): the send is not made."""
    latest: EarlierSend | None = None
    for entry in _records("nothing sent"):
        if entry["fingerprint"] != key:
            continue
        at = datetime.fromisoformat(entry["at"])
        if now - at < window and (latest is None or at > latest.at):
            latest = EarlierSend(at, entry["name"], entry["journal"], entry.get("complete", True))
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
        records = _records("this send was made but is not recorded for the repeat guard")
        kept = [e for e in records if abs(now - datetime.fromisoformat(e["at"])) < _KEPT]
        kept.append(
            {"at": now.isoformat(), "fingerprint": key, "name": name, "journal": str(journal),
             "complete": complete}
        )  # fmt: skip
        partial = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.partial")
        partial.write_text("".join(json.dumps(e) + "\n" for e in kept), encoding="utf-8")
        os.replace(partial, path)
