"""One sender per campaign: an exclusive OS file lock beside the campaign journal.

The lease is the operating system's lock on the file ``<journal>-lease`` (``flock`` on
POSIX, ``msvcrt.locking`` on Windows), taken without blocking. The kernel lets it go when
its holder's process ends however it ends (a SIGKILL, a crashed kernel), so a resume after
a kill takes it at once; nothing polls, no thread beats. A second runner, in another process
or the same one (the lock belongs to the open file, not the process), gets
:class:`smskit.CampaignBusy` naming the owner, at once or after waiting as long as it was told.

Who holds it is one row of the journal's ``lease`` table (host, pid, a random token, since
when), written in the same SQLite write transaction (``BEGIN IMMEDIATE``) as the lock is
taken, and deleted with the lock file in the one that lets it go: a refused runner reads the
true owner. A row left by a process that ended without letting go is taken over, and the
journal's ``log`` says from whom; every take and release is logged. Every ``in_flight`` write
checks the row still holds this runner's token (:meth:`Lease.check`), so a runner whose lock
file was deleted under it and taken by another sends nothing more.

Why an OS lock and not a heartbeat: a heartbeat lease needs a thread, pid and ``/proc``
probing and a staleness delay, and a frozen process could lose its lease and come back
sending. The journal runs SQLite in WAL mode, which works only between processes of one host,
so a host-local lock covers every runner that can share the file. A process that ``fork()`` s
while holding the lease shares its lock with the child (both must end to free it).
"""

from __future__ import annotations

import os
import socket
import sqlite3
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, TypeVar

from smskit import _sqlite
from smskit.errors import CampaignBusy
from smskit.rules.ranges import checked_seconds

__all__ = [
    "LEASE_SCHEMA",
    "LOCK_SUFFIX",
    "POLL_S",
    "Closable",
    "Lease",
    "closed_on_error",
    "lease_owner",
]

POLL_S: Final = 0.2
_RETRY_S: Final = 0.005  # between tries of a lock file's OS lock (LockFile.take(wait=...))
LOCK_SUFFIX: Final = "-lease"  # the lock file: the journal's path and this
_OWNER: Final = ("host", "pid", "since")

# ``heartbeat`` is no longer refreshed (it holds ``since``): kept so journals keep one format.
LEASE_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS lease (
    one INTEGER PRIMARY KEY CHECK (one = 1), token TEXT NOT NULL, host TEXT NOT NULL,
    pid INTEGER NOT NULL, since REAL NOT NULL, heartbeat REAL NOT NULL);
"""


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
    """The runner recorded as holding the lease (``host``, ``pid``, ``since``), or None.
    One that ended without letting go stays recorded until the next runner takes over."""
    row = db.execute(f"SELECT {', '.join(_OWNER)} FROM lease").fetchone()
    return None if row is None else dict(zip(_OWNER, row, strict=True))


class LockFile:
    """The OS lock on one file, taken without blocking; the kernel frees it when the process
    ends. The file is created 0600 and removed when the lock is let go."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._fd: int | None = None

    def take(self, wait: float = 0.0) -> bool:
        """Whether the lock is now ours, tried again for up to ``wait`` seconds (False:
        another open file held it all along; the OS lock has no timeout of its own)."""
        deadline = time.monotonic() + wait
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)  # not inherited by children
            try:
                _lock(fd)
            except OSError:
                os.close(fd)
                if time.monotonic() >= deadline:
                    return False
                time.sleep(_RETRY_S)
                continue
            self._fd = fd
            return True

    def let_go(self, *, remove: bool = True) -> None:
        """Free the lock; first remove the file (``remove``) if it is still the one locked
        (on Windows an open file cannot be removed: it stays, unlocked)."""
        fd, self._fd = self._fd, None
        if fd is None:
            return
        try:
            if remove and os.path.samestat(os.fstat(fd), os.stat(self.path)):
                os.unlink(self.path)
        except OSError:
            pass
        finally:
            os.close(fd)


if sys.platform == "win32":
    import msvcrt

    def _lock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


@dataclass(frozen=True, slots=True, eq=False)
class Lease:
    """A lease held on one journal connection, until :meth:`release`."""

    _db: sqlite3.Connection = field(repr=False)
    _lock: threading.Lock = field(repr=False)
    token: str
    journal: str
    _file: LockFile = field(repr=False)

    @classmethod
    def acquire(
        cls, db: sqlite3.Connection, lock: threading.Lock, journal: str, wait: float
    ) -> Lease:
        """Take the lease, waiting up to ``wait`` seconds; :class:`CampaignBusy` otherwise."""
        wait = checked_seconds("wait", wait)
        token = uuid.uuid4().hex
        file = LockFile(journal + LOCK_SUFFIX)
        started = time.monotonic()
        while (holder := _take(db, lock, token, file)) is not None:
            waited = time.monotonic() - started
            if waited >= wait:
                raise CampaignBusy(journal, holder, waited=wait)
            time.sleep(min(POLL_S, wait - waited))
        return cls(db, lock, token, journal, file)

    def check(self, db: sqlite3.Connection) -> None:
        """Inside a write transaction: :class:`CampaignBusy` unless this lease still holds."""
        row = db.execute("SELECT token FROM lease").fetchone()
        if row is None or row[0] != self.token:
            raise CampaignBusy(self.journal, lease_owner(db) or {})

    def release(self) -> None:
        """Delete the lease row (if still ours) and let the lock go."""
        with _sqlite.transaction(self._db, self._lock) as db:
            if db.execute("DELETE FROM lease WHERE token = ?", (self.token,)).rowcount:
                _log(db, f"released by {_me()}")
                self._file.let_go()
            else:  # taken over (our file deleted under us): the new owner's file stays
                self._file.let_go(remove=False)


def _take(
    db: sqlite3.Connection, lock: threading.Lock, token: str, file: LockFile
) -> dict[str, Any] | None:
    """Take the lock and record ``token`` as the owner; else return the live owner."""
    now = time.time()
    with _sqlite.transaction(db, lock) as tx:
        holder = lease_owner(tx)
        if not file.take():
            return holder or {}
        detail = f"taken by {_me()}"
        if holder is not None:
            detail += (
                f", over from pid {holder['pid']} on {holder['host']!r} (its process has ended)"
            )
        try:
            tx.execute(
                "INSERT OR REPLACE INTO lease VALUES (1, ?, ?, ?, ?, ?)",
                (token, socket.gethostname(), os.getpid(), now, now),
            )
            _log(tx, detail)
        except BaseException:
            file.let_go()
            raise
    return None


def _log(db: sqlite3.Connection, detail: str) -> None:
    db.execute(
        "INSERT INTO log (chunk, at, state, request_id, detail) VALUES (NULL, ?, 'lease', NULL, ?)",
        (time.time(), detail),
    )


def _me() -> str:
    return f"pid {os.getpid()} on {socket.gethostname()!r}"
