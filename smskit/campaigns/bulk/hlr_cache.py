"""The bulk HLR answer cache: one SQLite file, answers keyed by gateway and number.

An HLR check is billed and has no request_id, so :func:`smskit.bulk_hlr` keeps each answer
and reuses it while it is young enough. An answer belongs to the gateway that gave it: the
key is the gateway's base URL and the account login with the number, so answers of one
gateway (a sandbox) are never served for another (another sandbox, the real account).

Files of earlier versions kept answers in a table ``hlr`` keyed by the number alone; that
table is never read (its answers cannot be told apart by gateway), so such a file simply
starts empty. A file that is not SQLite is refused with a :class:`~smskit.ConfigurationError`.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from smskit import _sqlite
from smskit._account import Gateway
from smskit.errors import ConfigurationError
from smskit.rules.filekind import check_regular_file

__all__ = ["HLRCache"]  # the key (Gateway, gateway_of): smskit._account

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS hlr_answers (
    base_url TEXT NOT NULL, api_login TEXT NOT NULL, phone_number TEXT NOT NULL,
    result TEXT NOT NULL, checked_at REAL NOT NULL,
    PRIMARY KEY (base_url, api_login, phone_number));
"""
_OWN_TABLES: Final = frozenset({"hlr_answers", "hlr"})  # ``hlr``: earlier versions' table
_BATCH: Final = 500  # numbers per query (SQLite's variable limit is far above)


def _check_kind(path: Path) -> None:
    """Refuse (left unchanged) an SQLite file holding a campaign or tables that are neither
    the cache's nor a journal's: adding the cache's table to a campaign's journal, say, would
    make that journal unreadable. Caches of earlier versions had the journal's format (its
    tables, no campaign): they are accepted."""
    from smskit.campaigns.sending.journal import SCHEMA as JOURNAL_SCHEMA
    from smskit.campaigns.sending.journal_file import holds_a_campaign
    from smskit.campaigns.sending.lease import LEASE_SCHEMA

    own = _OWN_TABLES | _sqlite.schema_tables(JOURNAL_SCHEMA + LEASE_SCHEMA)
    instead = "give another cache file (or none)"
    check_regular_file(path, "cache")  # a pipe: SQLite's "disk I/O error", or a wait
    tables = _sqlite.check_kind(path, "an HLR cache", own, instead=instead)
    if "meta" in tables and holds_a_campaign(path):
        raise ConfigurationError(
            f"{str(path)!r} is not an HLR cache: it is the journal of a campaign; it was "
            f"left unchanged: {instead}"
        )


class HLRCache:
    """An open cache file; safe to call from any thread. ``close()`` when done."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        _check_kind(self.path)
        try:
            self._db = _sqlite.connect(self.path, _SCHEMA)
        except sqlite3.DatabaseError as exc:
            raise ConfigurationError(f"{str(self.path)!r} is not an HLR cache: {exc}") from exc

    def __repr__(self) -> str:
        return f"HLRCache({str(self.path)!r})"

    def close(self) -> None:
        """Close the file (every answer is already on disk)."""
        with self._lock:
            self._db.close()

    def cached(
        self, gateway: Gateway, numbers: Sequence[str], max_age: float | None
    ) -> dict[str, Any]:
        """Answers (JSON objects) of ``gateway`` for ``numbers``, younger than ``max_age`` s."""
        oldest = 0.0 if max_age is None else time.time() - max_age
        found: dict[str, Any] = {}
        for start in range(0, len(numbers), _BATCH):
            part = list(numbers[start : start + _BATCH])
            marks = ",".join("?" * len(part))
            with self._lock:
                rows = self._db.execute(
                    "SELECT phone_number, result FROM hlr_answers WHERE base_url = ? AND "
                    f"api_login = ? AND checked_at >= ? AND phone_number IN ({marks})",
                    (*gateway, oldest, *part),
                ).fetchall()
            found.update((number, json.loads(result)) for number, result in rows)
        return found

    def store(self, gateway: Gateway, answers: Mapping[str, Any]) -> None:
        """Keep ``gateway``'s answers (JSON objects) by number, replacing older ones."""
        now = time.time()
        rows = [(*gateway, number, json.dumps(answer), now) for number, answer in answers.items()]
        with _sqlite.transaction(self._db, self._lock) as db:
            db.executemany("INSERT OR REPLACE INTO hlr_answers VALUES (?, ?, ?, ?, ?)", rows)
