"""One sender per campaign: an exclusive, heartbeated lease kept in the campaign journal.

The lease is one row of the journal's ``lease`` table, written under SQLite's own write lock
(``BEGIN IMMEDIATE``), so two processes can never both take it: an owner (host, pid and a
random token), when it was taken, and a heartbeat that a daemon thread refreshes every
``HEARTBEAT_S`` seconds. A runner that finds a live owner gets :class:`smskit.CampaignBusy`
naming it, at once or after waiting as long as it was told to.

Takeover rule: the owner is dead when it is on this host and its process has ended (a
SIGKILL, a crashed kernel: taken over at once), or when its heartbeat is older than
``STALE_S`` (another host sharing the file, a reused pid, a frozen process). Each takeover
and release is written to the journal's ``log``. A runner whose lease was taken over learns
it at its next ``in_flight`` write (:meth:`Lease.check`), before any request leaves.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Final, Protocol, TypeVar

from smskit import _sqlite
from smskit.errors import CampaignBusy, ValidationError

__all__ = [
    "HEARTBEAT_S",
    "LEASE_SCHEMA",
    "POLL_S",
    "STALE_S",
    "Closable",
    "Lease",
    "check_wait",
    "closed_on_error",
    "lease_owner",
]

HEARTBEAT_S: Final = 5.0
STALE_S: Final = 30.0  # six missed heartbeats
POLL_S: Final = 0.2
_OWNER: Final = ("host", "pid", "since", "heartbeat")

LEASE_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS lease (
    one INTEGER PRIMARY KEY CHECK (one = 1), token TEXT NOT NULL, host TEXT NOT NULL,
    pid INTEGER NOT NULL, since REAL NOT NULL, heartbeat REAL NOT NULL);
"""


def check_wait(wait: Any) -> float:
    """Seconds to wait for a lease: a number >= 0."""
    if isinstance(wait, bool) or not isinstance(wait, int | float) or not wait >= 0:
        raise ValidationError("wait", "must be a number of seconds >= 0", value=wait)
    return float(wait)


class Closable(Protocol):
    """What holds a lease: a journal."""

    def close(self) -> None:
        """Let the lease go (and the file)."""


ClosableT = TypeVar("ClosableT", bound=Closable)


@contextmanager
def closed_on_error(book: ClosableT) -> Iterator[ClosableT]:
    """``book``, closed (its lease let go) if the block raises; left open otherwise."""
    try:
        yield book
    except BaseException:
        book.close()
        raise


def lease_owner(db: sqlite3.Connection) -> dict[str, Any] | None:
    """The holder of the lease (``host``, ``pid``, ``since``, ``heartbeat``), or None."""
    row = db.execute(f"SELECT {', '.join(_OWNER)} FROM lease").fetchone()
    return None if row is None else dict(zip(_OWNER, row, strict=True))


class Lease:
    """A lease held on one journal connection, until :meth:`release`."""

    def __init__(
        self, db: sqlite3.Connection, lock: threading.Lock, token: str, journal: str
    ) -> None:
        self._db = db
        self._lock = lock
        self.token = token
        self.journal = journal
        self._stop = threading.Event()
        self._heart = threading.Thread(target=self._beat, name="smskit-journal-lease", daemon=True)
        self._heart.start()

    @classmethod
    def acquire(
        cls, db: sqlite3.Connection, lock: threading.Lock, journal: str, wait: float
    ) -> Lease:
        """Take the lease, waiting up to ``wait`` seconds; :class:`CampaignBusy` otherwise."""
        check_wait(wait)
        token = uuid.uuid4().hex
        started = time.monotonic()
        while (holder := _take(db, lock, token)) is not None:
            waited = time.monotonic() - started
            if waited >= wait:
                raise CampaignBusy(journal, holder, waited=wait)
            time.sleep(min(POLL_S, wait - waited))
        return cls(db, lock, token, journal)

    def check(self, db: sqlite3.Connection) -> None:
        """Inside a write transaction: :class:`CampaignBusy` unless this lease still holds."""
        row = db.execute("SELECT token FROM lease").fetchone()
        if row is None or row[0] != self.token:
            raise CampaignBusy(self.journal, lease_owner(db) or {})

    def release(self) -> None:
        """Stop the heartbeat and delete the lease (if still ours)."""
        self._stop.set()
        self._heart.join()
        with _sqlite.transaction(self._db, self._lock) as db:
            if db.execute("DELETE FROM lease WHERE token = ?", (self.token,)).rowcount:
                _log(db, f"released by {_me()}")

    def _beat(self) -> None:
        while not self._stop.wait(HEARTBEAT_S):
            try:
                with _sqlite.transaction(self._db, self._lock) as db:
                    held = db.execute(
                        "UPDATE lease SET heartbeat = ? WHERE token = ?", (time.time(), self.token)
                    ).rowcount
            except sqlite3.Error:  # closed under us, the disk gone: nothing left to keep up
                return
            if not held:  # taken over: check() now refuses every new request
                return


def _take(db: sqlite3.Connection, lock: threading.Lock, token: str) -> dict[str, Any] | None:
    """Take the lease if free or its owner is dead; else return the live owner."""
    now = time.time()
    with _sqlite.transaction(db, lock) as tx:
        holder = lease_owner(tx)
        detail = f"taken by {_me()}"
        if holder is not None:
            why = _dead_because(holder, now)
            if why is None:
                return holder
            detail += f", over from pid {holder['pid']} on {holder['host']!r} ({why})"
        tx.execute(
            "INSERT OR REPLACE INTO lease VALUES (1, ?, ?, ?, ?, ?)",
            (token, socket.gethostname(), os.getpid(), now, now),
        )
        _log(tx, detail)
    return None


def _log(db: sqlite3.Connection, detail: str) -> None:
    db.execute(
        "INSERT INTO log (chunk, at, state, request_id, detail) VALUES (NULL, ?, 'lease', NULL, ?)",
        (time.time(), detail),
    )


def _me() -> str:
    return f"pid {os.getpid()} on {socket.gethostname()!r}"


def _dead_because(holder: Mapping[str, Any], now: float) -> str | None:
    """Why the lease ``holder`` is dead, or None while it may still be sending."""
    silent = now - float(holder["heartbeat"])
    if silent > STALE_S:
        return f"no heartbeat for {silent:.0f} s"
    if holder["host"] == socket.gethostname() and not _process_alive(int(holder["pid"])):
        return "its process has ended"
    return None


def _process_alive(pid: int) -> bool:
    """Whether a process of this host runs (a zombie does not); unknown counts as alive."""
    if os.name != "posix":  # signal 0 is no harmless probe there: the heartbeat decides
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's process: it exists
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            # Killed but not yet reaped by its parent (a zombie): it sends nothing any more.
            return stat.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True
