"""The account's wallet: packs of credit with an expiration date, in SQLite.

The balance is the credit left in the packs that have not expired (on the sandbox clock);
a charge draws on the pack that expires first, then the next, as the vendor's wallet does,
so a pack about to expire is used up before newer credit. Every function runs inside the
caller's transaction; amounts are integer micro-euros, times Unix timestamps.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from smskit.sandbox._casting import VENDOR_TZ

SCHEMA = """
CREATE TABLE IF NOT EXISTS wallet_packs (
    id TEXT PRIMARY KEY, credit INTEGER NOT NULL, initial INTEGER NOT NULL,
    expires_at REAL NOT NULL, created_at REAL NOT NULL);
"""
DAY = 86_400.0
# A new account's packs: (share of the opening balance, days before they expire). The first
# one expires soon, so that "what expires soon" has something to show.
DEFAULT_PACKS = ((0.1, 30), (0.9, 365))
PACK_DAYS = 365  # set_balance: one pack valid this long


@dataclass(frozen=True, slots=True)
class Pack:
    """One pack: its id, the credit left (micro-euros) and when it expires."""

    id: str
    credit: int
    expires_at: float

    @property
    def expiration_date(self) -> str:
        """``YYYY-MM-DD HH:MM:SS`` in Paris time, the vendor's date format."""
        return datetime.fromtimestamp(self.expires_at, VENDOR_TZ).strftime("%Y-%m-%d %H:%M:%S")


def packs(db: sqlite3.Connection, now: float) -> list[Pack]:
    """Packs with credit left that have not expired, the first to expire first."""
    rows = db.execute(
        "SELECT id, credit, expires_at FROM wallet_packs WHERE credit > 0 AND expires_at > ? "
        "ORDER BY expires_at, rowid",
        (now,),
    )
    return [Pack(*row) for row in rows]


def balance(db: sqlite3.Connection, now: float) -> int:
    """Credit left in the packs that have not expired."""
    return sum(pack.credit for pack in packs(db, now))


def consume(db: sqlite3.Connection, cost: int, now: float) -> None:
    """Take ``cost`` from the packs, the first to expire first (the caller checked the balance)."""
    left = cost
    for pack in packs(db, now):
        if left <= 0:
            break
        taken = min(pack.credit, left)
        db.execute("UPDATE wallet_packs SET credit = credit - ? WHERE id = ?", (taken, pack.id))
        left -= taken


def add(
    db: sqlite3.Connection, new_id: Callable[[], str], credit: int, expires_at: float, now: float
) -> str:
    """A new pack; returns its id."""
    pack_id = new_id()
    db.execute(
        "INSERT INTO wallet_packs VALUES (?, ?, ?, ?, ?)",
        (pack_id, credit, credit, expires_at, now),
    )
    return pack_id


def replace(db: sqlite3.Connection, new_id: Callable[[], str], credit: int, now: float) -> None:
    """Every pack removed; ``credit`` (if any) becomes one pack valid :data:`PACK_DAYS` days."""
    db.execute("DELETE FROM wallet_packs")
    if credit > 0:
        add(db, new_id, credit, now + PACK_DAYS * DAY, now)


def open_account(
    db: sqlite3.Connection, new_id: Callable[[], str], credit: int, now: float
) -> None:
    """A new account's packs: :data:`DEFAULT_PACKS` shares of ``credit`` (rest in the last)."""
    db.execute("DELETE FROM wallet_packs")
    left = credit
    for number, (share, days) in enumerate(DEFAULT_PACKS, start=1):
        amount = left if number == len(DEFAULT_PACKS) else round(credit * share)
        left -= amount
        if amount > 0:
            add(db, new_id, amount, now + days * DAY, now)
