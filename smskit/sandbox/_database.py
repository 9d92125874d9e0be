"""The sandbox's SQLite database: one connection, one lock, one transaction per operation.

Every operation that reads then writes (balance, request ids, contacts) holds the lock for
its whole transaction, so concurrent clients never lose a balance update or a recipient.
Money is integer micro-euros; times are Unix timestamps from the sandbox clock. The parts
of the store (``_account``, ``_contact_book``, ``_sends``, ``_reply_log``) each own their
tables and share this one database; ``meta`` holds settings and the identifier sequences.
"""

from __future__ import annotations

import base64
import hashlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from typing import Any

from smskit import _sqlite

SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
"""
TABLES = ("meta",)


def iso(timestamp: float | None) -> str | None:
    """Unix timestamp -> ISO 8601 UTC with offset (None stays None)."""
    if timestamp is None:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat(timespec="seconds")


def derive_id(seed: int, kind: str, n: int, length: int = 12) -> str:
    """The n-th identifier of a kind for a seed: same seed, same sequence, across runs."""
    digest = hashlib.sha256(f"smskit-sandbox:{seed}:{kind}:{n}".encode()).digest()
    if kind == "token":
        return base64.urlsafe_b64encode(digest).decode()[:length]
    return digest.hex()[:length]


class Database:
    """The connection (memory, or the file ``path``) with ``schema`` applied; any thread."""

    def __init__(self, path: str | None, schema: str, *, seed: int) -> None:
        self.seed = seed
        self._lock = threading.RLock()
        self._db = _sqlite.connect(path or None, schema)

    def transaction(self) -> AbstractContextManager[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` under the lock: commit on success, roll back on any error."""
        return _sqlite.transaction(self._db, self._lock)

    @contextmanager
    def reading(self) -> Iterator[sqlite3.Connection]:
        """The connection under the lock, for reads that need no transaction."""
        with self._lock:
            yield self._db

    @staticmethod
    def meta(db: sqlite3.Connection, key: str) -> Any:
        """A setting or sequence stored under ``key`` (None when never set)."""
        row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    @staticmethod
    def set_meta(db: sqlite3.Connection, key: str, value: Any) -> None:
        """Store ``value`` (JSON) under ``key``, inside the caller's transaction."""
        db.execute(
            "INSERT INTO meta (key, value) VALUES (?, ?) "
            "ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (key, json.dumps(value)),
        )

    def next_id(self, db: sqlite3.Connection, kind: str, length: int = 12) -> str:
        """The next identifier of ``kind`` (ticket, pack, token, reply), inside a transaction."""
        n = (self.meta(db, f"seq:{kind}") or 0) + 1
        self.set_meta(db, f"seq:{kind}", n)
        return derive_id(self.seed, kind, n, length)
