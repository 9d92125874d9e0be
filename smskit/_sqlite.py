"""SQLite the way the sandbox, the journal and the inbox use it: one connection, any thread.

``isolation_level=None`` makes transactions explicit, so "committed" means committed; files
get WAL (readers never block the writer) and ``synchronous=NORMAL`` (durable at checkpoints).
A new file is created readable by its owner only (0600): inboxes hold phone numbers and
messages, journals what was sent to whom. SQLite gives its -wal and -shm files the same mode.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Collection, Iterator
from contextlib import closing, contextmanager

from smskit._paths import check_directory_of
from smskit.errors import ConfigurationError

__all__ = ["BUSY_TIMEOUT_S", "StoreBusy", "check_kind", "connect", "schema_tables", "transaction"]

BUSY_TIMEOUT_S: float = 10  # how long a write waits for another process's lock on the file


class StoreBusy(ConfigurationError, sqlite3.OperationalError):
    """Another process kept the file locked for longer than :data:`BUSY_TIMEOUT_S`; nothing
    was written. A ConfigurationError naming the file (never SQLite's bare "database is
    locked"), and still an ``sqlite3.OperationalError`` for code that keeps what it could
    not write (the inbox holds callbacks in memory)."""

    def __init__(self, path: str) -> None:
        super().__init__(
            f"{path!r} is locked by another process (waited {BUSY_TIMEOUT_S:g} s): nothing was "
            "written; try again once it is done"
        )


def connect(path: str | os.PathLike[str] | None, schema: str) -> sqlite3.Connection:
    """Open ``path`` (memory when ``None``) and apply ``schema``; closed again if that fails.
    A file in a directory that does not exist is refused naming the directory (SQLite's own
    "unable to open database file" read as a damaged journal, inbox or list)."""
    if path is not None and os.fspath(path) not in ("", ":memory:"):
        check_directory_of(path, "opened")
        _create_private(path)
    db = sqlite3.connect(
        ":memory:" if path is None else path, check_same_thread=False, isolation_level=None
    )
    try:
        if path is not None:
            db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")  # first: WAL waits
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
        db.executescript(schema)
    except BaseException:
        db.close()
        raise
    return db


def schema_tables(schema: str) -> frozenset[str]:
    """The tables ``schema`` creates (applied to an empty database in memory)."""
    with closing(sqlite3.connect(":memory:")) as db:
        db.executescript(schema)
        return frozenset(name for (name,) in db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'"))  # fmt: skip


def check_kind(
    path: str | os.PathLike[str], kind: str, own: Collection[str], *, instead: str
) -> frozenset[str]:
    """Refuse, leaving it unchanged, an existing file that is not ``kind`` (e.g. "an inbox
    file"): not SQLite, or holding tables other than ``own``, which the tables of ``kind``
    would spoil (a journal given as an inbox, say). ``instead`` ends the message (what to
    give). Returns the file's tables (none for a new or empty file)."""
    where = os.fspath(path)
    if not os.path.isfile(where) or os.path.getsize(where) == 0:
        return frozenset()
    try:
        with closing(sqlite3.connect(where)) as db:
            tables = frozenset(name for (name,) in db.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"))  # fmt: skip
    except sqlite3.DatabaseError as exc:
        raise ConfigurationError(f"{where!r} is not {kind} (not SQLite: {exc})") from exc
    foreign = sorted(t for t in tables - set(own) if not t.startswith("sqlite_"))
    if foreign:
        raise ConfigurationError(
            f"{where!r} is not {kind}: it holds other tables ({', '.join(foreign)}); it was "
            f"left unchanged: {instead}"
        )
    return tables


@contextmanager
def transaction(
    db: sqlite3.Connection, lock: threading.Lock | threading.RLock | threading.Condition
) -> Iterator[sqlite3.Connection]:
    """``BEGIN IMMEDIATE`` under ``lock``; commit on success, roll back on any exception.
    A file another process keeps locked past the busy timeout is :class:`StoreBusy`."""
    with lock:
        try:
            db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if not _busy(exc):
                raise
            raise StoreBusy(_file_of(db)) from exc
        try:
            yield db
        except BaseException:
            db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")


def _create_private(path: str | os.PathLike[str]) -> None:
    """Create ``path`` empty with mode 0600 unless it exists (an existing file keeps its mode)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:  # it exists, or e.g. is not writable: sqlite3.connect reports that
        return
    os.close(fd)


def _file_of(db: sqlite3.Connection) -> str:
    """The main database file of ``db`` ("" in memory)."""
    return str(db.execute("PRAGMA database_list").fetchone()[2])


def _busy(exc: sqlite3.OperationalError) -> bool:
    """Whether SQLite gave up waiting for another connection's lock (by its error code)."""
    return getattr(exc, "sqlite_errorcode", None) in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)
