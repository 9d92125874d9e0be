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
from pathlib import Path

from smskit.errors import ConfigurationError

__all__ = ["check_kind", "connect", "schema_tables", "transaction"]


def connect(path: str | os.PathLike[str] | None, schema: str) -> sqlite3.Connection:
    """Open ``path`` (memory when ``None``) and apply ``schema``; closed again if that fails.
    A file in a directory that does not exist is refused naming the directory (SQLite's own
    "unable to open database file" read as a damaged journal, inbox or list)."""
    if path is not None and os.fspath(path) not in ("", ":memory:"):
        parent = Path(os.fspath(path)).parent
        if not parent.is_dir():
            raise ConfigurationError(
                f"{os.fspath(path)!r} cannot be opened: its directory {str(parent)!r} does not "
                "exist (create it, or give another path)"
            )
        _create_private(path)
    db = sqlite3.connect(
        ":memory:" if path is None else path, check_same_thread=False, isolation_level=None
    )
    try:
        if path is not None:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA busy_timeout=10000")
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
    """``BEGIN IMMEDIATE`` under ``lock``; commit on success, roll back on any exception."""
    with lock:
        db.execute("BEGIN IMMEDIATE")
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
    except FileExistsError:
        return
    except OSError:
        return  # e.g. not writable: sqlite3.connect reports it in its own words
    os.close(fd)
