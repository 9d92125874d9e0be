"""SQLite the way the sandbox, the journal and the inbox use it: one connection, any thread.

``isolation_level=None`` makes transactions explicit, so "committed" means committed; files
get WAL (readers never block the writer) and ``synchronous=NORMAL`` (durable at checkpoints).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["connect", "transaction"]


def connect(path: str | os.PathLike[str] | None, schema: str) -> sqlite3.Connection:
    """Open ``path`` (memory when ``None``) and apply ``schema``; closed again if that fails."""
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
